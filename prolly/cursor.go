package prolly

import (
	"context"
)

// cursor walks the items of one level of a tree in key order, across node
// boundaries. frames[0] is the root; the last frame is the level walked, and
// the frames between hold the path to it. A cursor past the last item has
// its last frame's idx equal to that node's item count.
type cursor struct {
	cs     ChunkStore
	frames []frame
	buf    [8]frame
}

type frame struct {
	nd  node
	idx int
}

func (c *cursor) bottom() *frame { return &c.frames[len(c.frames)-1] }

// seek positions the cursor at level on the first item >= key, or, with
// nodeStart set, on the first item of the node that holds the first item >=
// key (the last node of the level when key is past the end). Without
// nodeStart, a key past the end leaves the cursor invalid.
func (c *cursor) seek(ctx context.Context, root node, key []byte, level int, nodeStart bool) error {
	c.frames = c.buf[:0]
	nd := root
	for {
		i := nd.search(key)
		if nd.level == level {
			if nodeStart {
				i = 0
			}
			c.frames = append(c.frames, frame{nd: nd, idx: i})
			if i == nd.n && nd.n > 0 && !nodeStart {
				// Past this node's end: the next node, if any, holds it.
				c.frames[len(c.frames)-1].idx = nd.n - 1
				_, err := c.next(ctx)
				return err
			}
			return nil
		}
		if i == nd.n {
			i = nd.n - 1
		}
		c.frames = append(c.frames, frame{nd: nd, idx: i})
		addr, _ := nd.child(i)
		var err error
		if nd, err = loadNode(ctx, c.cs, addr); err != nil {
			return err
		}
	}
}

// seekFirst positions the cursor on the first item of level (the leftmost
// path), or seekLast on the last.
func (c *cursor) seekEdge(ctx context.Context, root node, level int, last bool) error {
	c.frames = c.buf[:0]
	nd := root
	for {
		i := 0
		if last {
			i = nd.n - 1
		}
		c.frames = append(c.frames, frame{nd: nd, idx: i})
		if nd.level == level {
			if nd.n == 0 {
				c.frames[len(c.frames)-1].idx = 0
			}
			return nil
		}
		addr, _ := nd.child(i)
		var err error
		if nd, err = loadNode(ctx, c.cs, addr); err != nil {
			return err
		}
	}
}

func (c *cursor) valid() bool {
	f := c.bottom()
	return f.idx >= 0 && f.idx < f.nd.n
}

func (c *cursor) key() []byte { f := c.bottom(); return f.nd.key(f.idx) }

func (c *cursor) value() ([]byte, bool) { f := c.bottom(); return f.nd.value(f.idx) }

// atNodeEnd reports whether the cursor is on the last item of its node.
func (c *cursor) atNodeEnd() bool { f := c.bottom(); return f.idx == f.nd.n-1 }

// hasNext reports whether an item follows the current one on this level.
func (c *cursor) hasNext() bool {
	for i := len(c.frames) - 1; i >= 0; i-- {
		if f := &c.frames[i]; f.idx < f.nd.n-1 {
			return true
		}
	}
	return false
}

// next moves to the next item of the level. It reports whether the move
// entered another node; at the end of the level the cursor becomes invalid
// (idx == n) and stays on the last node.
func (c *cursor) next(ctx context.Context) (newNode bool, err error) {
	b := c.bottom()
	if b.idx+1 < b.nd.n {
		b.idx++
		return false, nil
	}
	if !c.hasNext() {
		b.idx = b.nd.n
		return false, nil
	}
	// Climb to the lowest frame with a next child, step it, and descend
	// along the leftmost path.
	i := len(c.frames) - 2
	for c.frames[i].idx == c.frames[i].nd.n-1 {
		i--
	}
	c.frames[i].idx++
	for ; i < len(c.frames)-1; i++ {
		addr, _ := c.frames[i].nd.child(c.frames[i].idx)
		nd, err := loadNode(ctx, c.cs, addr)
		if err != nil {
			return false, err
		}
		c.frames[i+1] = frame{nd: nd, idx: 0}
	}
	return true, nil
}

// prev moves to the previous item of the level; before the first item the
// cursor becomes invalid (idx == -1).
func (c *cursor) prev(ctx context.Context) error {
	b := c.bottom()
	if b.idx > 0 {
		b.idx--
		return nil
	}
	i := len(c.frames) - 2
	for i >= 0 && c.frames[i].idx == 0 {
		i--
	}
	if i < 0 {
		b.idx = -1
		return nil
	}
	c.frames[i].idx--
	for ; i < len(c.frames)-1; i++ {
		addr, _ := c.frames[i].nd.child(c.frames[i].idx)
		nd, err := loadNode(ctx, c.cs, addr)
		if err != nil {
			return err
		}
		c.frames[i+1] = frame{nd: nd, idx: nd.n - 1}
	}
	return nil
}

// seekOrdinal positions the cursor at the leaf entry with ordinal ord,
// descending by subtree counts; past the end it becomes invalid.
func (c *cursor) seekOrdinal(ctx context.Context, root node, ord uint64) error {
	c.frames = c.buf[:0]
	nd := root
	for !nd.leaf() {
		i := 0
		for ; i < nd.n-1; i++ {
			_, n := nd.child(i)
			if ord < n {
				break
			}
			ord -= n
		}
		c.frames = append(c.frames, frame{nd: nd, idx: i})
		addr, _ := nd.child(i)
		var err error
		if nd, err = loadNode(ctx, c.cs, addr); err != nil {
			return err
		}
	}
	c.frames = append(c.frames, frame{nd: nd, idx: int(min(ord, uint64(nd.n)))})
	return nil
}
