package prolly

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/prollypg/prollypg/store"
)

// Edit is one change for Map.Apply: set Key to Value, or remove Key.
type Edit struct {
	Key    []byte
	Value  []byte
	Delete bool
}

// SetEdits returns the edits that make a map used as a set (keys with
// empty values, as secondary indexes are) hold the keys of present whose
// value is true and lose those whose value is false, in key order, as
// Apply takes them.
func SetEdits(present map[string]bool) []Edit {
	edits := make([]Edit, 0, len(present))
	for k, in := range present {
		e := Edit{Key: []byte(k), Delete: !in}
		if in {
			e.Value = []byte{}
		}
		edits = append(edits, e)
	}
	slices.SortFunc(edits, func(a, b Edit) int { return bytes.Compare(a.Key, b.Key) })
	return edits
}

// levelEdit is a change to the item sequence of one tree level. At level 0
// it is a user's edit with its value as stored; above, it sets or removes
// the child reference of a node of the level below, keyed by that node's
// last key.
type levelEdit struct {
	key   []byte
	val   []byte
	blob  bool
	count uint64
	del   bool
}

// Apply returns the map with edits applied, in one sorted pass over the
// tree. Edits must be in strictly increasing key order. Deleting an absent
// key is allowed and changes nothing.
//
// How it works: each level is an item sequence cut into nodes. For every
// edit, the level is re-cut from the start of the node that holds the edit
// (a boundary in the old and the new tree alike) until a new boundary falls
// on the last item of an old node; from there on the cut is the old one
// again, because boundaries depend only on the items of the node being
// built. The nodes replaced and written on one level become edits of the
// level above, keyed by their last keys. So an edit rewrites about one node
// per level, and the result is the tree Builder would build from scratch.
func (m Map) Apply(ctx context.Context, edits []Edit) (Map, error) {
	if len(edits) == 0 && len(m.ov) == 0 {
		return m, nil
	}
	if len(m.ov) > 0 {
		// The deferred edits and these in one pass (overlay.go).
		if err := checkIncreasing(edits); err != nil {
			return Map{}, err
		}
		edits = MergeEdits(m.ov, edits)
		m.ov = nil
	}
	level0 := make([]levelEdit, len(edits))
	for i := range edits {
		e := &edits[i]
		if len(e.Key) > MaxKeySize {
			return Map{}, fmt.Errorf("%w: %d bytes", ErrKeyTooLarge, len(e.Key))
		}
		if i > 0 && bytes.Compare(edits[i-1].Key, e.Key) >= 0 {
			return Map{}, fmt.Errorf("prolly: Apply: edit keys not in increasing order at %x", e.Key)
		}
		le := levelEdit{key: e.Key, del: e.Delete, count: 1}
		if !e.Delete {
			var err error
			if le.val, le.blob, err = storedValue(ctx, m.cs, e.Value); err != nil {
				return Map{}, err
			}
		}
		level0[i] = le
	}

	if next, ok, err := m.applyInPlace(ctx, level0); ok || err != nil {
		return next, err // inplace.go
	}
	root := m.root
	levelEdits := level0
	for level := 0; ; level++ {
		parentEdits, err := applyLevel(ctx, m.cs, root, level, levelEdits)
		if err != nil {
			return Map{}, err
		}
		if level < root.level {
			levelEdits = parentEdits
			continue
		}
		// The root level was one node; parentEdits now lists the nodes
		// that replace it.
		var nodes []childItem
		for _, e := range parentEdits {
			if !e.del {
				nodes = append(nodes, childItem{key: e.key, addr: store.Address(e.val[:store.AddressSize]), count: e.count})
			}
		}
		switch len(nodes) {
		case 0:
			return NewMap(ctx, m.cs)
		case 1:
			return loadRoot(ctx, m.cs, nodes[0].addr)
		}
		grow := newBuilderAt(m.cs, level+1)
		for _, it := range nodes {
			if err := grow.addChild(ctx, 0, it); err != nil {
				return Map{}, err
			}
		}
		return grow.Finish(ctx)
	}
}

// loadRoot loads the map rooted at addr, skipping down past internal nodes
// with a single child: a canonical tree has none at the top.
func loadRoot(ctx context.Context, cs ChunkStore, addr store.Address) (Map, error) {
	for {
		nd, err := loadNode(ctx, cs, addr)
		if err != nil {
			return Map{}, err
		}
		if nd.leaf() || nd.n > 1 {
			return Map{cs: cs, root: nd, addr: addr}, nil
		}
		addr, _ = nd.child(0)
	}
}

// applyLevel applies sorted edits to the items of one level of the tree
// under root and returns the edits they make to the level above.
func applyLevel(ctx context.Context, cs ChunkStore, root node, level int, edits []levelEdit) ([]levelEdit, error) {
	c := cursor{cs: cs}
	nb := borrowNodeBuilder(level)
	defer returnNodeBuilder(nb) // finish copies what outlives the builder
	var replaced [][]byte       // last keys of the old nodes re-cut, in order
	var written []childItem     // the nodes written in their place, in order
	finish := func() error {
		it, err := nb.finish(ctx, cs)
		written = append(written, it)
		return err
	}
	enter := func() {
		if nd := c.bottom().nd; nd.n > 0 {
			replaced = append(replaced, nd.lastKey())
		}
	}
	for i := 0; i < len(edits); {
		if err := c.seek(ctx, root, edits[i].key, level, true); err != nil {
			return nil, err
		}
		enter()
		for {
			old := c.valid()
			if i < len(edits) && (!old || bytes.Compare(edits[i].key, c.key()) <= 0) {
				e := &edits[i]
				i++
				if !e.del && nb.add(e.key, e.val, e.blob, e.count) {
					if err := finish(); err != nil {
						return nil, err
					}
				}
				if old && bytes.Equal(e.key, c.key()) {
					entered, err := c.next(ctx)
					if err != nil {
						return nil, err
					}
					if entered {
						enter()
					}
				}
				continue
			}
			if !old {
				break
			}
			v, blob := c.value()
			count := uint64(1)
			if level > 0 {
				count = binary.LittleEndian.Uint64(v[store.AddressSize:])
			}
			if nb.add(c.key(), v, blob, count) {
				if err := finish(); err != nil {
					return nil, err
				}
				if c.atNodeEnd() && (c.hasNext() || i == len(edits)) {
					break // back in step with the old boundaries
				}
			}
			entered, err := c.next(ctx)
			if err != nil {
				return nil, err
			}
			if entered {
				enter()
			}
		}
		if !nb.empty() {
			if err := finish(); err != nil {
				return nil, err
			}
		}
	}
	return parentEdits(replaced, written), nil
}

// parentEdits merges the removal of replaced nodes and the insertion of
// written ones into sorted edits of the level above; a key in both is set.
func parentEdits(replaced [][]byte, written []childItem) []levelEdit {
	out := make([]levelEdit, 0, len(replaced)+len(written))
	r, w := 0, 0
	for r < len(replaced) || w < len(written) {
		var cmp int
		switch {
		case r == len(replaced):
			cmp = 1
		case w == len(written):
			cmp = -1
		default:
			cmp = bytes.Compare(replaced[r], written[w].key)
		}
		if cmp < 0 {
			out = append(out, levelEdit{key: replaced[r], del: true})
			r++
			continue
		}
		if cmp == 0 {
			r++
		}
		it := written[w]
		out = append(out, levelEdit{key: it.key, val: encodeChildRef(nil, it.addr, it.count), count: it.count})
		w++
	}
	return out
}
