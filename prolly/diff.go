package prolly

import (
	"bytes"
	"context"
	"io"
)

// DiffKind says how an entry differs between two maps.
type DiffKind uint8

const (
	// Added entries are in the newer map only.
	Added DiffKind = iota + 1
	// Removed entries are in the older map only.
	Removed
	// Modified entries are in both, with different values.
	Modified
)

func (k DiffKind) String() string {
	switch k {
	case Added:
		return "added"
	case Removed:
		return "removed"
	case Modified:
		return "modified"
	}
	return "invalid"
}

// Diff is one difference between two maps. From is the older value (nil
// when Added), To the newer (nil when Removed).
type Diff struct {
	Kind     DiffKind
	Key      []byte
	From, To []byte
}

// Differ yields the differences between two maps in key order. It walks
// both trees at once and skips every pair of subtrees with equal addresses
// without reading them, so its cost grows with the size of the change, not
// of the maps. A Differ is not safe for concurrent use.
type Differ struct {
	ctx      context.Context
	from, to diffSide
	err      error // errDeferred for a map with deferred edits
}

// diffSide is one tree's walk: a stack of frames from the root to the node
// whose current item is the side's head. The head is an entry when the top
// frame is a leaf and an unread subtree otherwise. Every key before the
// head has been dealt with, on both sides.
type diffSide struct {
	cs     ChunkStore
	frames []frame
}

// NewDiffer returns a Differ from from to to. The maps may live in different
// stores; the context governs every read.
func NewDiffer(ctx context.Context, from, to Map) *Differ {
	d := &Differ{ctx: ctx, from: diffSide{cs: from.cs}, to: diffSide{cs: to.cs}}
	if len(from.ov) > 0 || len(to.ov) > 0 {
		d.err = errDeferred
		return d
	}
	if from.addr != to.addr {
		d.from.push(from.root)
		d.to.push(to.root)
	}
	return d
}

func (s *diffSide) push(nd node) {
	if nd.n > 0 {
		s.frames = append(s.frames, frame{nd: nd})
	}
}

func (s *diffSide) done() bool { return len(s.frames) == 0 }

func (s *diffSide) top() *frame { return &s.frames[len(s.frames)-1] }

// advance moves past the head.
func (s *diffSide) advance() {
	for len(s.frames) > 0 {
		f := s.top()
		f.idx++
		if f.idx < f.nd.n {
			return
		}
		s.frames = s.frames[:len(s.frames)-1]
	}
}

// expand replaces the head subtree by its root's items. The parent frame
// keeps pointing at the subtree; advance moves it on once the child's frame
// is exhausted.
func (s *diffSide) expand(ctx context.Context) error {
	f := s.top()
	addr, _ := f.nd.child(f.idx)
	nd, err := loadNode(ctx, s.cs, addr)
	if err != nil {
		return err
	}
	s.push(nd)
	return nil
}

// value returns the head entry's value, reading it if stored out of line.
func (s *diffSide) value(ctx context.Context) ([]byte, error) {
	f := s.top()
	v, blob := f.nd.value(f.idx)
	if blob {
		return readBlob(ctx, s.cs, v)
	}
	return v, nil
}

// Next returns the next difference, or io.EOF after the last. Key, From and
// To are views that must not be modified.
func (d *Differ) Next() (Diff, error) {
	if d.err != nil {
		return Diff{}, d.err
	}
	for {
		var expand *diffSide
		switch fromDone, toDone := d.from.done(), d.to.done(); {
		case fromDone && toDone:
			return Diff{}, io.EOF
		case fromDone:
			if d.to.top().nd.leaf() {
				return d.emit(Added)
			}
			expand = &d.to
		case toDone:
			if d.from.top().nd.leaf() {
				return d.emit(Removed)
			}
			expand = &d.from
		}
		if expand != nil {
			if err := expand.expand(d.ctx); err != nil {
				return Diff{}, err
			}
			continue
		}

		ff, tf := d.from.top(), d.to.top()
		switch fLeaf, tLeaf := ff.nd.leaf(), tf.nd.leaf(); {
		case !fLeaf && !tLeaf:
			fa, _ := ff.nd.child(ff.idx)
			ta, _ := tf.nd.child(tf.idx)
			if fa == ta {
				d.from.advance()
				d.to.advance()
				continue
			}
			// Open the taller subtree first, both when they are alike, so
			// that the walks meet at one level, where equal subtrees show.
			fLevel, tLevel := ff.nd.level, tf.nd.level
			if fLevel >= tLevel {
				if err := d.from.expand(d.ctx); err != nil {
					return Diff{}, err
				}
			}
			if tLevel >= fLevel {
				if err := d.to.expand(d.ctx); err != nil {
					return Diff{}, err
				}
			}
			continue
		case !fLeaf:
			if err := d.from.expand(d.ctx); err != nil {
				return Diff{}, err
			}
			continue
		case !tLeaf:
			if err := d.to.expand(d.ctx); err != nil {
				return Diff{}, err
			}
			continue
		}

		switch c := bytes.Compare(ff.nd.key(ff.idx), tf.nd.key(tf.idx)); {
		case c < 0:
			return d.emit(Removed)
		case c > 0:
			return d.emit(Added)
		}
		fv, fBlob := ff.nd.value(ff.idx)
		tv, tBlob := tf.nd.value(tf.idx)
		if fBlob != tBlob || !bytes.Equal(fv, tv) {
			return d.emit(Modified)
		}
		d.from.advance()
		d.to.advance()
	}
}

// emit returns the difference at the heads of the sides that kind involves
// and moves those sides on.
func (d *Differ) emit(kind DiffKind) (Diff, error) {
	df := Diff{Kind: kind}
	var err error
	if kind != Added {
		f := d.from.top()
		df.Key = f.nd.key(f.idx)
		if df.From, err = d.from.value(d.ctx); err != nil {
			return Diff{}, err
		}
		d.from.advance()
	}
	if kind != Removed {
		f := d.to.top()
		df.Key = f.nd.key(f.idx)
		if df.To, err = d.to.value(d.ctx); err != nil {
			return Diff{}, err
		}
		d.to.advance()
	}
	return df, nil
}

// DiffMaps calls fn for every difference from from to to, in key order.
func DiffMaps(ctx context.Context, from, to Map, fn func(Diff) error) error {
	if len(from.ov) > 0 || len(to.ov) > 0 {
		return errDeferred
	}
	d := NewDiffer(ctx, from, to)
	for {
		df, err := d.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(df); err != nil {
			return err
		}
	}
}
