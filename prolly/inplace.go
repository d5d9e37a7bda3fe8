package prolly

import (
	"bytes"
	"context"

	"github.com/prollypg/prollypg/store"
)

// The in-place path of Apply. A live table's commonest edit replaces a
// row by one of the same size (a counter, a balance, a status). Node
// boundaries depend on keys and item sizes alone (chunker.go), so such an
// edit moves none: every touched node keeps its items and cut, and its new
// chunk is its old bytes with the value overwritten; each parent is its
// old bytes with the child's new address (its leaf count is unchanged).
// The result is byte for byte the tree the re-cut of applyLevel builds —
// history independence holds — for a copy and a hash per level instead of
// a re-chunked node.

// applyInPlace applies edits that all replace existing values with values
// of the same stored size and kind (inline or blob). ok is false, and
// nothing is written, when any edit is not such a replacement.
func (m Map) applyInPlace(ctx context.Context, edits []levelEdit) (_ Map, ok bool, _ error) {
	for i := range edits {
		e := &edits[i]
		if e.del {
			return Map{}, false, nil
		}
		nd, j, err := m.seekLeaf(ctx, e.key)
		if err != nil {
			return Map{}, false, err
		}
		if j == nd.n || !bytes.Equal(nd.key(j), e.key) {
			return Map{}, false, nil // an insertion
		}
		start, end, blob := nd.valueSpan(j)
		if end-start != len(e.val) || blob != e.blob {
			return Map{}, false, nil
		}
	}
	addr, err := patchNode(ctx, m.cs, m.root, edits)
	if err != nil {
		return Map{}, false, err
	}
	root, err := loadNode(ctx, m.cs, addr)
	if err != nil {
		return Map{}, false, err
	}
	return Map{cs: m.cs, root: root, addr: addr}, true, nil
}

// patchNode writes nd with edits, which all fall under it and replace
// values in place, and returns the new node's address.
func patchNode(ctx context.Context, cs ChunkStore, nd node, edits []levelEdit) (store.Address, error) {
	data := bytes.Clone(nd.data)
	if nd.leaf() {
		for i := range edits {
			start, _, _ := nd.valueSpan(nd.search(edits[i].key))
			copy(data[start:], edits[i].val)
		}
		return cs.Put(ctx, data)
	}
	for len(edits) > 0 {
		// The child holding edits[0] holds every edit up to its last key.
		c := nd.search(edits[0].key)
		last := nd.key(c)
		n := 1
		for n < len(edits) && bytes.Compare(edits[n].key, last) <= 0 {
			n++
		}
		addr, _ := nd.child(c)
		child, err := loadNode(ctx, cs, addr)
		if err != nil {
			return store.Address{}, err
		}
		if addr, err = patchNode(ctx, cs, child, edits[:n]); err != nil {
			return store.Address{}, err
		}
		start, _, _ := nd.valueSpan(c)
		copy(data[start:], addr[:])
		edits = edits[n:]
	}
	return cs.Put(ctx, data)
}
