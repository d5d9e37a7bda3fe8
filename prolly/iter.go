package prolly

import (
	"bytes"
	"context"
)

// IterOptions bounds an Iter to keys in [LowerBound, UpperBound); nil bounds
// are open.
type IterOptions struct {
	LowerBound []byte
	UpperBound []byte
}

// Iter walks a Map's entries in key order, forward or backward. Positioning
// methods report whether the iterator is then on an entry within bounds;
// errors from the store end the walk and are kept for Err. Key and Value
// return views valid until the iterator moves. An Iter is not safe for
// concurrent use; Close it when done.
type Iter struct {
	ctx   context.Context
	m     Map
	c     cursor
	opts  IterOptions
	valid bool
	err   error
	// With deferred edits (overlay.go): the map's edits, the one at the
	// position, whether the entry shown is that edit and whether it
	// shadows the cursor's entry, and the direction of the last move.
	ov           []Edit
	oi           int
	onOv, shadow bool
	dir          int8
}

// NewIter returns an unpositioned iterator over m; call First, Last, SeekGE,
// SeekLT or SeekOrdinal before reading. The context governs every read the
// iterator makes.
func (m Map) NewIter(ctx context.Context, opts IterOptions) *Iter {
	return &Iter{ctx: ctx, m: m, c: cursor{cs: m.cs}, opts: opts, ov: m.ov}
}

// First moves to the first entry.
func (it *Iter) First() bool {
	if it.opts.LowerBound != nil {
		return it.SeekGE(it.opts.LowerBound)
	}
	if len(it.ov) > 0 {
		it.oi = 0
		return it.ovForward(it.c.seekEdge(it.ctx, it.m.root, 0, false))
	}
	return it.settle(it.c.seekEdge(it.ctx, it.m.root, 0, false))
}

// Last moves to the last entry.
func (it *Iter) Last() bool {
	if it.opts.UpperBound != nil {
		return it.SeekLT(it.opts.UpperBound)
	}
	if len(it.ov) > 0 {
		it.oi = len(it.ov) - 1
		return it.ovBackward(it.c.seekEdge(it.ctx, it.m.root, 0, true))
	}
	return it.settle(it.c.seekEdge(it.ctx, it.m.root, 0, true))
}

// SeekGE moves to the first entry whose key is >= key.
func (it *Iter) SeekGE(key []byte) bool {
	if lb := it.opts.LowerBound; lb != nil && bytes.Compare(key, lb) < 0 {
		key = lb
	}
	if len(it.ov) > 0 {
		return it.ovSeekGE(key)
	}
	return it.settle(it.c.seek(it.ctx, it.m.root, key, 0, false))
}

// SeekLT moves to the last entry whose key is < key.
func (it *Iter) SeekLT(key []byte) bool {
	if ub := it.opts.UpperBound; ub != nil && bytes.Compare(key, ub) > 0 {
		key = ub
	}
	if len(it.ov) > 0 {
		return it.ovSeekLT(key)
	}
	if err := it.c.seek(it.ctx, it.m.root, key, 0, false); err != nil {
		return it.settle(err)
	}
	return it.settle(it.c.prev(it.ctx))
}

// SeekOrdinal moves to the entry with ordinal i (0 is the first entry), in
// time proportional to the tree's height; bounds do not shift ordinals.
func (it *Iter) SeekOrdinal(i uint64) bool {
	if len(it.ov) > 0 {
		// Ordinals are the tree's: write the deferred edits into one.
		m, err := it.m.Materialize(it.ctx)
		if err != nil {
			return it.settle(err)
		}
		it.m, it.ov = m, nil
	}
	return it.settle(it.c.seekOrdinal(it.ctx, it.m.root, i))
}

// Next moves to the next entry.
func (it *Iter) Next() bool {
	if !it.valid {
		return false
	}
	if len(it.ov) > 0 {
		return it.ovNext()
	}
	_, err := it.c.next(it.ctx)
	return it.settle(err)
}

// Prev moves to the previous entry.
func (it *Iter) Prev() bool {
	if !it.valid {
		return false
	}
	if len(it.ov) > 0 {
		return it.ovPrev()
	}
	return it.settle(it.c.prev(it.ctx))
}

// settle records err and whether the cursor is on an entry within bounds.
func (it *Iter) settle(err error) bool {
	it.onOv = false
	if err != nil {
		it.err, it.valid = err, false
		return false
	}
	it.valid = it.c.valid()
	if it.valid {
		k := it.c.key()
		if (it.opts.LowerBound != nil && bytes.Compare(k, it.opts.LowerBound) < 0) ||
			(it.opts.UpperBound != nil && bytes.Compare(k, it.opts.UpperBound) >= 0) {
			it.valid = false
		}
	}
	return it.valid
}

// Valid reports whether the iterator is on an entry.
func (it *Iter) Valid() bool { return it.valid }

// Key returns the current entry's key.
func (it *Iter) Key() []byte {
	if it.onOv {
		return it.ov[it.oi].Key
	}
	return it.c.key()
}

// Value returns the current entry's value. An inline value is a view; a
// value stored out of line is read into a new slice.
func (it *Iter) Value() ([]byte, error) {
	if it.onOv {
		return it.ov[it.oi].Value, nil
	}
	v, blob := it.c.value()
	if blob {
		return readBlob(it.ctx, it.m.cs, v)
	}
	return v, nil
}

// Err returns the error that ended the walk, if any.
func (it *Iter) Err() error { return it.err }

// Close releases the iterator and returns Err.
func (it *Iter) Close() error {
	it.valid = false
	return it.err
}

// AnyIn reports whether m holds a key k with lo <= k < hi (hi nil: no
// upper bound). It answers the catalog's frequent "is there any such
// object" without an iterator's allocation.
func (m Map) AnyIn(ctx context.Context, lo, hi []byte) (bool, error) {
	if len(m.ov) > 0 {
		it := m.NewIter(ctx, IterOptions{LowerBound: lo, UpperBound: hi})
		ok := it.First()
		return ok, it.Close()
	}
	// seekLeaf descends into the child whose last key is the first >= lo,
	// so the leaf it returns holds the first key >= lo if any key is.
	nd, i, err := m.seekLeaf(ctx, lo)
	if err != nil || i == nd.n {
		return false, err
	}
	return hi == nil || bytes.Compare(nd.key(i), hi) < 0, nil
}
