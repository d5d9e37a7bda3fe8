package prolly

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
)

// A Map may carry deferred edits: changes made with Defer that its tree
// does not hold yet. Reads (Get, Has, AnyIn, iterators) see the tree with
// the edits applied; the edits are kept in memory, sorted, and written
// only when the map is materialized (Materialize, or an Apply, which
// applies the deferred edits and its own in one pass).
//
// Deferring is for a transaction whose statements each change a few rows
// of a table and which would otherwise rebuild, hash and store the same
// path of the tree after every statement: it builds the path once, at
// the end (exec.Txn).
//
// A map with deferred edits has no root address: Root panics on one, and
// the diff and merge functions refuse it (errDeferred). Materialize first.

// errDeferred is returned by the functions that walk trees (diffs,
// merges) when given a map with deferred edits.
var errDeferred = errors.New("prolly: map has deferred edits; materialize it first")

// Defer returns the map with edits deferred on top of it (see above).
// Edits must be in strictly increasing key order; an edit replaces an
// earlier deferred edit of its key. The map takes ownership of the edits'
// keys and values, which must not be modified afterwards.
func (m Map) Defer(edits []Edit) (Map, error) {
	if len(edits) == 0 {
		return m, nil
	}
	if err := checkIncreasing(edits); err != nil {
		return Map{}, err
	}
	m.ov = MergeEdits(m.ov, edits)
	return m, nil
}

// checkIncreasing checks what Apply and Defer require of edits: keys in
// strictly increasing order, none too large.
func checkIncreasing(edits []Edit) error {
	for i := range edits {
		if len(edits[i].Key) > MaxKeySize {
			return fmt.Errorf("%w: %d bytes", ErrKeyTooLarge, len(edits[i].Key))
		}
		if i > 0 && bytes.Compare(edits[i-1].Key, edits[i].Key) >= 0 {
			return fmt.Errorf("prolly: edit keys not in increasing order at %x", edits[i].Key)
		}
	}
	return nil
}

// Deferred returns how many edits the map holds deferred.
func (m Map) Deferred() int { return len(m.ov) }

// Materialize returns the map with its deferred edits written into its
// tree (the map itself when it has none).
func (m Map) Materialize(ctx context.Context) (Map, error) {
	if len(m.ov) == 0 {
		return m, nil
	}
	ov := m.ov
	m.ov = nil
	return m.Apply(ctx, ov)
}

// MergeEdits returns the sorted union of two sorted edit lists; newer's
// edit wins where both have a key. It never modifies either list.
func MergeEdits(older, newer []Edit) []Edit {
	if len(older) == 0 {
		return newer
	}
	out := make([]Edit, 0, len(older)+len(newer))
	i, j := 0, 0
	for i < len(older) && j < len(newer) {
		switch c := bytes.Compare(older[i].Key, newer[j].Key); {
		case c < 0:
			out = append(out, older[i])
			i++
		case c > 0:
			out = append(out, newer[j])
			j++
		default:
			out = append(out, newer[j])
			i++
			j++
		}
	}
	out = append(out, older[i:]...)
	return append(out, newer[j:]...)
}

// deferredEdit returns the deferred edit of key, if there is one.
func (m Map) deferredEdit(key []byte) (*Edit, bool) {
	i := sort.Search(len(m.ov), func(i int) bool { return bytes.Compare(m.ov[i].Key, key) >= 0 })
	if i < len(m.ov) && bytes.Equal(m.ov[i].Key, key) {
		return &m.ov[i], true
	}
	return nil, false
}

// CountExact is Count, with the error of a lookup that the correction of
// a map with deferred edits makes: Count can only estimate when one fails.
func (m Map) CountExact(ctx context.Context) (uint64, error) {
	n := int64(m.root.treeCount())
	base := m
	base.ov = nil
	for i := range m.ov {
		in, err := base.Has(ctx, m.ov[i].Key)
		if err != nil {
			return 0, err
		}
		switch {
		case in && m.ov[i].Delete:
			n--
		case !in && !m.ov[i].Delete:
			n++
		}
	}
	return uint64(max(n, 0)), nil
}

// deferredCount is Count for a map with deferred edits: the tree's count
// corrected by each edit's effect, which looks the edit's key up; when a
// lookup fails, the tree's count is the estimate (Count has no error to
// report; CountExact does).
func (m Map) deferredCount() uint64 {
	n, err := m.CountExact(context.Background())
	if err != nil {
		return m.root.treeCount()
	}
	return n
}

// Iteration over a map with deferred edits merges the tree's cursor with a
// position in the edits: the entry shown is the lesser key (the greater,
// backwards) of the two, the edit's when both have it (shadow: the tree's
// entry is skipped with it), and a deleted key is passed over. A change
// of direction seeks again from the current key, so each direction's walk
// keeps its simple invariant: every entry behind both positions was shown.

// ovForward settles the iterator going forward, with the cursor on the
// first tree entry >= the position and oi on the first edit >= it.
func (it *Iter) ovForward(err error) bool {
	it.dir = 1
	for err == nil {
		bv := it.c.valid()
		if it.oi >= len(it.ov) {
			it.onOv = false
			return it.settle(nil)
		}
		e := &it.ov[it.oi]
		cmp := -1
		if bv {
			cmp = bytes.Compare(e.Key, it.c.key())
		}
		if cmp > 0 {
			it.onOv = false
			return it.settle(nil)
		}
		if e.Delete {
			it.oi++
			if cmp == 0 {
				_, err = it.c.next(it.ctx)
			}
			continue
		}
		it.onOv, it.shadow = true, cmp == 0
		return it.settleOn(e.Key)
	}
	return it.settle(err)
}

// ovBackward settles the iterator going backward, with the cursor on the
// last tree entry < the position and oi on the last edit < it.
func (it *Iter) ovBackward(err error) bool {
	it.dir = -1
	for err == nil {
		bv := it.c.valid()
		if it.oi < 0 {
			it.onOv = false
			return it.settle(nil)
		}
		e := &it.ov[it.oi]
		cmp := 1
		if bv {
			cmp = bytes.Compare(e.Key, it.c.key())
		}
		if cmp < 0 {
			it.onOv = false
			return it.settle(nil)
		}
		if e.Delete {
			it.oi--
			if cmp == 0 {
				err = it.c.prev(it.ctx)
			}
			continue
		}
		it.onOv, it.shadow = true, cmp == 0
		return it.settleOn(e.Key)
	}
	return it.settle(err)
}

// settleOn records whether the iterator, on a deferred edit's key k, is
// within bounds.
func (it *Iter) settleOn(k []byte) bool {
	it.valid = (it.opts.LowerBound == nil || bytes.Compare(k, it.opts.LowerBound) >= 0) &&
		(it.opts.UpperBound == nil || bytes.Compare(k, it.opts.UpperBound) < 0)
	return it.valid
}

// ovSeekGE positions a merged iterator on the first entry >= key.
func (it *Iter) ovSeekGE(key []byte) bool {
	it.oi = sort.Search(len(it.ov), func(i int) bool { return bytes.Compare(it.ov[i].Key, key) >= 0 })
	return it.ovForward(it.c.seek(it.ctx, it.m.root, key, 0, false))
}

// ovSeekLT positions a merged iterator on the last entry < key.
func (it *Iter) ovSeekLT(key []byte) bool {
	it.oi = sort.Search(len(it.ov), func(i int) bool { return bytes.Compare(it.ov[i].Key, key) >= 0 }) - 1
	if err := it.c.seek(it.ctx, it.m.root, key, 0, false); err != nil {
		return it.settle(err)
	}
	return it.ovBackward(it.c.prev(it.ctx))
}

// ovNext moves a merged iterator to the next entry.
func (it *Iter) ovNext() bool {
	if it.dir < 0 {
		k := bytes.Clone(it.Key())
		if !it.ovSeekGE(k) { // back on the current entry, going forward
			return false
		}
	}
	var err error
	if !it.onOv || it.shadow {
		_, err = it.c.next(it.ctx)
	}
	if it.onOv {
		it.oi++
	}
	return it.ovForward(err)
}

// ovPrev moves a merged iterator to the previous entry.
func (it *Iter) ovPrev() bool {
	if it.dir > 0 {
		return it.ovSeekLT(bytes.Clone(it.Key()))
	}
	var err error
	if !it.onOv || it.shadow {
		err = it.c.prev(it.ctx)
	}
	if it.onOv {
		it.oi--
	}
	return it.ovBackward(err)
}

// DeferredEdits returns the map's deferred edits, sorted; the caller must
// not modify them.
func (m Map) DeferredEdits() []Edit { return m.ov }

// WithDeferredOf returns m with other's deferred edits deferred on it in
// place of its own: the same changes, on another version of the tree.
func (m Map) WithDeferredOf(other Map) Map {
	m.ov = other.ov
	return m
}
