package remotestore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"

	"github.com/prollypg/prollypg/store"
)

// The table file format (see the package doc).
const (
	indexEntrySize = store.AddressSize + 8 + 4
	footerSize     = 8 + 4 + len(tableMagic)
	tableMagic     = "pgtable1"
	tableSuffix    = ".tbl"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// location is where a chunk lies: in which table file, at which offset,
// how long.
type location struct {
	table  string
	offset uint64
	length uint32
}

// tableWriter fills one table file in memory: Put appends chunks, finish
// appends the index and the footer and names the file.
type tableWriter struct {
	data   []byte
	chunks map[store.Address]location // table unset until finish
}

func newTableWriter() *tableWriter {
	return &tableWriter{chunks: make(map[store.Address]location)}
}

// add appends chunk under addr, once.
func (w *tableWriter) add(addr store.Address, chunk []byte) {
	if _, ok := w.chunks[addr]; ok {
		return
	}
	w.chunks[addr] = location{offset: uint64(len(w.data)), length: uint32(len(chunk))}
	w.data = append(w.data, chunk...)
}

// get returns a chunk added to w (none if w is nil). Appends leave the
// bytes of earlier chunks in place, so the slice stays valid.
func (w *tableWriter) get(addr store.Address) ([]byte, bool) {
	if w == nil {
		return nil, false
	}
	loc, ok := w.chunks[addr]
	if !ok {
		return nil, false
	}
	return w.data[loc.offset : loc.offset+uint64(loc.length)], true
}

// finish appends the index and the footer and returns the file's name,
// its bytes, and the locations of its chunks. w must not be used after.
func (w *tableWriter) finish() (string, []byte, map[store.Address]location) {
	addrs := make([]store.Address, 0, len(w.chunks))
	for a := range w.chunks {
		addrs = append(addrs, a)
	}
	slices.SortFunc(addrs, func(a, b store.Address) int { return bytes.Compare(a[:], b[:]) })
	start := len(w.data)
	for _, a := range addrs {
		loc := w.chunks[a]
		w.data = append(w.data, a[:]...)
		w.data = binary.BigEndian.AppendUint64(w.data, loc.offset)
		w.data = binary.BigEndian.AppendUint32(w.data, loc.length)
	}
	index := w.data[start:]
	name := store.Hash(index).String() + tableSuffix
	w.data = binary.BigEndian.AppendUint64(w.data, uint64(len(addrs)))
	w.data = binary.BigEndian.AppendUint32(w.data, crc32.Checksum(index, castagnoli))
	w.data = append(w.data, tableMagic...)
	for a, loc := range w.chunks {
		loc.table = name
		w.chunks[a] = loc
	}
	return name, w.data, w.chunks
}

// parseFooter returns the number of chunks a table file of size bytes
// holds, from its footer, and the index's checksum.
func parseFooter(name string, footer []byte, size int64) (count uint64, sum uint32, err error) {
	if len(footer) != footerSize || string(footer[12:]) != tableMagic {
		return 0, 0, fmt.Errorf("remotestore: table %s: no table footer: %w", name, store.ErrCorrupt)
	}
	count = binary.BigEndian.Uint64(footer)
	if count > uint64(size)/indexEntrySize {
		return 0, 0, fmt.Errorf("remotestore: table %s: footer counts %d chunks in %d bytes: %w", name, count, size, store.ErrCorrupt)
	}
	return count, binary.BigEndian.Uint32(footer[8:]), nil
}

// parseIndex adds the chunks of a table file's index to into, checking
// that the index matches its checksum and the file's name. (A location
// past the data fails its read; the bytes read are checked against the
// address.)
func parseIndex(name string, index []byte, sum uint32, into map[store.Address]location) error {
	if crc32.Checksum(index, castagnoli) != sum || store.Hash(index).String()+tableSuffix != name {
		return fmt.Errorf("remotestore: table %s: index does not match: %w", name, store.ErrCorrupt)
	}
	for p := index; len(p) > 0; p = p[indexEntrySize:] {
		loc := location{table: name, offset: binary.BigEndian.Uint64(p[store.AddressSize:]), length: binary.BigEndian.Uint32(p[store.AddressSize+8:])}
		if loc.length > store.MaxChunkSize { // a read must not allocate what a damaged file says
			return fmt.Errorf("remotestore: table %s: a chunk of %d bytes: %w", name, loc.length, store.ErrCorrupt)
		}
		into[store.Address(p[:store.AddressSize])] = loc
	}
	return nil
}
