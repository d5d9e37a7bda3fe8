package prolly

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/prollypg/prollypg/store"
)

// Values longer than MaxInlineValue live outside the leaf, in blob chunks,
// and the leaf holds a blob reference: the top chunk's address followed by
// the value's length (uvarint).
//
// Blob chunk layout: magic 0xB2, a level byte, then for level 0 up to
// blobChunkSize bytes of the value, and for higher levels the addresses of
// up to blobFanout chunks of the level below, in order. Equal values give
// equal blobs, so unchanged large values cost nothing in new versions.
const (
	blobMagic     = 0xB2
	blobHeader    = 2
	blobChunkSize = 16 << 10
	blobFanout    = 512
)

// writeBlob stores val out of line and returns its reference.
func writeBlob(ctx context.Context, cs ChunkStore, val []byte) ([]byte, error) {
	var addrs []store.Address
	for off := 0; off < len(val) || off == 0; off += blobChunkSize {
		end := min(off+blobChunkSize, len(val))
		c := make([]byte, blobHeader+end-off)
		c[0], c[1] = blobMagic, 0
		copy(c[blobHeader:], val[off:end])
		a, err := cs.Put(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("prolly: writing blob: %w", err)
		}
		addrs = append(addrs, a)
	}
	for level := 1; len(addrs) > 1; level++ {
		var up []store.Address
		for i := 0; i < len(addrs); i += blobFanout {
			group := addrs[i:min(i+blobFanout, len(addrs))]
			c := make([]byte, blobHeader, blobHeader+len(group)*store.AddressSize)
			c[0], c[1] = blobMagic, byte(level)
			for _, a := range group {
				c = append(c, a[:]...)
			}
			a, err := cs.Put(ctx, c)
			if err != nil {
				return nil, fmt.Errorf("prolly: writing blob index: %w", err)
			}
			up = append(up, a)
		}
		addrs = up
	}
	ref := append(make([]byte, 0, store.AddressSize+binary.MaxVarintLen64), addrs[0][:]...)
	return binary.AppendUvarint(ref, uint64(len(val))), nil
}

// validBlobRef reports whether ref has the shape of a blob reference.
func validBlobRef(ref []byte) bool {
	if len(ref) <= store.AddressSize {
		return false
	}
	n, k := binary.Uvarint(ref[store.AddressSize:])
	return k > 0 && store.AddressSize+k == len(ref) && n > MaxInlineValue
}

// readBlob returns the value that ref refers to, in a new slice.
func readBlob(ctx context.Context, cs ChunkStore, ref []byte) ([]byte, error) {
	if !validBlobRef(ref) {
		return nil, fmt.Errorf("%w: bad blob reference", ErrCorruptNode)
	}
	n, _ := binary.Uvarint(ref[store.AddressSize:])
	out := make([]byte, 0, n)
	out, err := appendBlob(ctx, cs, out, store.Address(ref[:store.AddressSize]))
	if err != nil {
		return nil, err
	}
	if uint64(len(out)) != n {
		return nil, fmt.Errorf("%w: blob is %d bytes, reference says %d", ErrCorruptNode, len(out), n)
	}
	return out, nil
}

func appendBlob(ctx context.Context, cs ChunkStore, dst []byte, addr store.Address) ([]byte, error) {
	c, err := cs.Get(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("prolly: reading blob %s: %w", addr, err)
	}
	if len(c) < blobHeader || c[0] != blobMagic {
		return nil, fmt.Errorf("%w: blob chunk %s", ErrCorruptNode, addr)
	}
	if c[1] == 0 {
		return append(dst, c[blobHeader:]...), nil
	}
	kids := c[blobHeader:]
	if len(kids)%store.AddressSize != 0 {
		return nil, fmt.Errorf("%w: blob index %s", ErrCorruptNode, addr)
	}
	for len(kids) > 0 {
		if dst, err = appendBlob(ctx, cs, dst, store.Address(kids[:store.AddressSize])); err != nil {
			return nil, err
		}
		kids = kids[store.AddressSize:]
	}
	return dst, nil
}

// storedValue returns what a leaf stores for val: val itself, or a blob
// reference when val is too long to keep inline.
func storedValue(ctx context.Context, cs ChunkStore, val []byte) (stored []byte, blob bool, err error) {
	if len(val) <= MaxInlineValue {
		return val, false, nil
	}
	ref, err := writeBlob(ctx, cs, val)
	return ref, true, err
}
