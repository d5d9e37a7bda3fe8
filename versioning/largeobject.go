package versioning

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// LargeObject is one of PostgreSQL's large objects (lo_create, lo_open,
// lowrite ...): its owner, privileges (SELECT and UPDATE) and comment, and
// its bytes, Size of them, in pages of LargeObjectPage bytes as
// pg_largeobject holds them: a Prolly map from the page number (4 bytes,
// big-endian) to the page, where a page never written (a hole) reads as
// zeros. It is a record of the root value like a table's, so that a
// branch, a diff, a merge and time travel carry large objects as they
// carry rows (two transactions writing different objects merge, two
// writing one conflict), and a write changes only the pages it touches.
type LargeObject struct {
	OID     uint32           `json:"oid"`
	Owner   string           `json:"owner,omitempty"`
	ACL     []sqldef.ACLItem `json:"acl,omitempty"`
	Comment string           `json:"comment,omitempty"`
	Size    int64            `json:"size,omitempty"`
	Pages   store.Address    `json:"pages,omitempty"`
}

// LargeObjectPrivileges are those a large object can hold.
const LargeObjectPrivileges = "rw"

// LargeObjectPage is the size of a large object's pages, PostgreSQL's
// LOBLKSIZE.
const LargeObjectPage = 2048

// largeObjectKey keys large object oid: the OID zero-padded, so that the
// records sort by OID.
func largeObjectKey(oid uint32) []byte {
	return objectKey(kindLargeObject, "", fmt.Sprintf("%010d", oid))
}

// LargeObject returns large object oid.
func (r RootValue) LargeObject(ctx context.Context, oid uint32) (*LargeObject, bool, error) {
	return getObject[LargeObject](ctx, r, largeObjectKey(oid))
}

// LargeObjects returns every large object, ordered by OID.
func (r RootValue) LargeObjects(ctx context.Context) ([]*LargeObject, error) {
	return listObjects[LargeObject](ctx, r, kindLargeObject)
}

// PutLargeObject returns the root value with lo stored.
func (r RootValue) PutLargeObject(ctx context.Context, lo *LargeObject) (RootValue, error) {
	return r.put(ctx, largeObjectKey(lo.OID), lo)
}

// DropLargeObject returns the root value without large object oid.
func (r RootValue) DropLargeObject(ctx context.Context, oid uint32) (RootValue, error) {
	return r.drop(ctx, largeObjectKey(oid))
}

func pageKey(n int64) []byte { return binary.BigEndian.AppendUint32(nil, uint32(n)) }

// pages returns the object's page map.
func (lo *LargeObject) pages(ctx context.Context, cs prolly.ChunkStore) (prolly.Map, error) {
	return loadOrEmpty(ctx, cs, lo.Pages)
}

// Read returns up to n of the object's bytes from off (none past its end).
func (lo *LargeObject) Read(ctx context.Context, cs prolly.ChunkStore, off, n int64) ([]byte, error) {
	n = min(n, lo.Size-off)
	if n <= 0 || off < 0 {
		return []byte{}, nil
	}
	out := make([]byte, n) // holes read as zeros
	m, err := lo.pages(ctx, cs)
	if err != nil {
		return nil, err
	}
	first, last := off/LargeObjectPage, (off+n-1)/LargeObjectPage
	it := m.NewIter(ctx, prolly.IterOptions{LowerBound: pageKey(first), UpperBound: pageKey(last + 1)})
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		page, err := it.Value()
		if err != nil {
			return nil, err
		}
		start := int64(binary.BigEndian.Uint32(it.Key())) * LargeObjectPage
		// The part of the page within [off, off+n).
		from, to := max(off, start), min(off+n, start+int64(len(page)))
		if from < to {
			copy(out[from-off:], page[from-start:to-start])
		}
	}
	return out, it.Err()
}

// Write returns the object with data written at off, zeros filling any
// gap after its end; only the pages written change.
func (lo *LargeObject) Write(ctx context.Context, cs prolly.ChunkStore, off int64, data []byte) (*LargeObject, error) {
	if len(data) == 0 {
		return lo, nil
	}
	m, err := lo.pages(ctx, cs)
	if err != nil {
		return nil, err
	}
	end := off + int64(len(data))
	var edits []prolly.Edit
	for p := off / LargeObjectPage; p*LargeObjectPage < end; p++ {
		start := p * LargeObjectPage
		old, _, err := m.Get(ctx, pageKey(p))
		if err != nil {
			return nil, err
		}
		// The page keeps what it had past the write, up to the object's
		// end; it holds no bytes past the last one written.
		size := max(int64(len(old)), min(end, start+LargeObjectPage)-start)
		page := make([]byte, size)
		copy(page, old)
		from, to := max(off, start), min(end, start+LargeObjectPage)
		copy(page[from-start:], data[from-off:to-off])
		edits = append(edits, prolly.Edit{Key: pageKey(p), Value: page})
	}
	if m, err = m.Apply(ctx, edits); err != nil {
		return nil, err
	}
	out := *lo
	out.Pages, out.Size = m.Root(), max(lo.Size, end)
	return &out, nil
}

// Truncate returns the object cut, or zero-extended, to n bytes.
func (lo *LargeObject) Truncate(ctx context.Context, cs prolly.ChunkStore, n int64) (*LargeObject, error) {
	out := *lo
	out.Size = n
	if n >= lo.Size {
		return &out, nil // the extension is a hole: zeros
	}
	m, err := lo.pages(ctx, cs)
	if err != nil {
		return nil, err
	}
	var edits []prolly.Edit
	last := (n - 1) / LargeObjectPage // -1 when n is 0: every page goes
	if n > 0 {
		page, ok, err := m.Get(ctx, pageKey(last))
		if err != nil {
			return nil, err
		}
		if keep := n - last*LargeObjectPage; ok && int64(len(page)) > keep {
			edits = append(edits, prolly.Edit{Key: pageKey(last), Value: page[:keep]})
		}
	}
	it := m.NewIter(ctx, prolly.IterOptions{LowerBound: pageKey(last + 1)})
	for ok := it.First(); ok; ok = it.Next() {
		edits = append(edits, prolly.Edit{Key: append([]byte(nil), it.Key()...), Delete: true})
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	if m, err = m.Apply(ctx, edits); err != nil {
		return nil, err
	}
	out.Pages = m.Root()
	return &out, nil
}

// EachPage calls fn with each stored page of the object, in order: its
// number and bytes (pg_largeobject's rows).
func (lo *LargeObject) EachPage(ctx context.Context, cs prolly.ChunkStore, fn func(n int64, page []byte) error) error {
	m, err := lo.pages(ctx, cs)
	if err != nil {
		return err
	}
	it := m.NewIter(ctx, prolly.IterOptions{})
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		page, err := it.Value()
		if err != nil {
			return err
		}
		if err := fn(int64(binary.BigEndian.Uint32(it.Key())), page); err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil && err != io.EOF {
		return err
	}
	return nil
}
