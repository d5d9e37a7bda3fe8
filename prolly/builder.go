package prolly

import (
	"bytes"
	"context"
	"fmt"
)

// Builder builds a Map from entries added in strictly increasing key order,
// in one pass and without reading anything back: the way to load a table.
// A Builder is not safe for concurrent use.
type Builder struct {
	cs      ChunkStore
	base    int // tree level of levels[0]
	levels  []*builderLevel
	prevKey []byte
	started bool
	err     error
}

// builderLevel is one level of a Builder: the node being filled, and the
// first finished node, held back until a second one shows the level needs a
// parent (a single node is the root; roots have no single-child parents).
type builderLevel struct {
	nb       *nodeBuilder
	first    childItem
	finished int
}

// NewBuilder returns a Builder that writes into cs.
func NewBuilder(cs ChunkStore) *Builder {
	return &Builder{cs: cs}
}

// Add appends an entry. Keys must be strictly increasing; val may be of any
// length (long values are stored out of line). Add copies what it keeps.
func (b *Builder) Add(ctx context.Context, key, val []byte) error {
	if b.err != nil {
		return b.err
	}
	if len(key) > MaxKeySize {
		return fmt.Errorf("%w: %d bytes", ErrKeyTooLarge, len(key))
	}
	if b.started && bytes.Compare(key, b.prevKey) <= 0 {
		b.err = fmt.Errorf("prolly: Builder.Add: key %x not after %x", key, b.prevKey)
		return b.err
	}
	b.started = true
	b.prevKey = append(b.prevKey[:0], key...)
	stored, blob, err := storedValue(ctx, b.cs, val)
	if err != nil {
		b.err = err
		return err
	}
	b.err = b.addAt(ctx, 0, key, stored, blob, 1)
	return b.err
}

// newBuilderAt returns a Builder whose first level is the given tree level:
// Map.Apply uses one to grow a tree whose root level split.
func newBuilderAt(cs ChunkStore, level int) *Builder {
	return &Builder{cs: cs, base: level}
}

// addAt adds an item at a level (counted from b.base), finishing nodes and passing them up as the
// boundaries fall.
func (b *Builder) addAt(ctx context.Context, level int, key, val []byte, blob bool, count uint64) error {
	if level == len(b.levels) {
		b.levels = append(b.levels, &builderLevel{nb: newNodeBuilder(b.base + level)})
	}
	lv := b.levels[level]
	if !lv.nb.add(key, val, blob, count) {
		return nil
	}
	return b.finishNode(ctx, level)
}

func (b *Builder) finishNode(ctx context.Context, level int) error {
	lv := b.levels[level]
	it, err := lv.nb.finish(ctx, b.cs)
	if err != nil {
		return err
	}
	lv.finished++
	switch lv.finished {
	case 1:
		lv.first = it
		return nil
	case 2:
		if err := b.addChild(ctx, level+1, lv.first); err != nil {
			return err
		}
		lv.first = childItem{}
	}
	return b.addChild(ctx, level+1, it)
}

func (b *Builder) addChild(ctx context.Context, level int, it childItem) error {
	var ref [childRefSize]byte
	return b.addAt(ctx, level, it.key, encodeChildRef(ref[:0], it.addr, it.count), false, it.count)
}

// Finish writes the last nodes and returns the map. The Builder must not be
// used afterwards.
func (b *Builder) Finish(ctx context.Context) (Map, error) {
	if b.err != nil {
		return Map{}, b.err
	}
	if len(b.levels) == 0 {
		// No entries: the empty map is a single empty leaf.
		b.levels = append(b.levels, &builderLevel{nb: newNodeBuilder(0)})
		it, err := b.levels[0].nb.finish(ctx, b.cs)
		if err != nil {
			return Map{}, err
		}
		return Load(ctx, b.cs, it.addr)
	}
	for level := 0; ; level++ {
		lv := b.levels[level]
		if !lv.nb.empty() {
			if err := b.finishNode(ctx, level); err != nil {
				return Map{}, err
			}
		}
		if lv.finished == 1 {
			b.err = errFinished
			return Load(ctx, b.cs, lv.first.addr)
		}
	}
}
