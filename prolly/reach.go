package prolly

import (
	"context"
	"fmt"

	"github.com/prollypg/prollypg/store"
)

// Reachable calls visit with the address of every chunk of the tree whose
// root node is at root: its nodes and the chunks of the blobs its leaves
// refer to, each parent before its children. When visit returns false,
// Reachable does not descend below that chunk: the caller has already
// walked it (so a garbage collector's mark, keeping a set of the chunks it
// has seen, reads each chunk once however many trees share it). When
// entry is not nil, it is called with every entry of every leaf Reachable
// reads, a blob's value read back in full; the slices are valid only
// during the call.
//
// Reachable reads every node below the chunks visit accepts, and the index
// chunks of their blobs; a blob's data chunks are visited without being
// read, unless entry needs the value. It stops at the first error, from
// the store or a callback; a missing chunk's error wraps store.ErrNotFound.
func Reachable(ctx context.Context, cs ChunkStore, root store.Address, visit func(store.Address) (bool, error), entry func(key, value []byte) error) error {
	return ReachableOrdered(ctx, cs, root, visit, entry, nil)
}

// ReachableOrdered is Reachable that also calls leave (when not nil) with
// each chunk visit accepted, once everything below it has been walked:
// children before parents, which is the order a copy of the tree must be
// written in for "present implies its whole subtree is present" to hold
// at every moment (invariant 4 of the package doc). A chunk's leaf entries
// have been passed to entry before it is left.
func ReachableOrdered(ctx context.Context, cs ChunkStore, root store.Address, visit func(store.Address) (bool, error), entry func(key, value []byte) error, leave func(store.Address) error) error {
	ok, err := visit(root)
	if err != nil || !ok {
		return err
	}
	data, err := cs.Get(ctx, root)
	if err != nil {
		return fmt.Errorf("prolly: reading node %s: %w", root, err)
	}
	r := reacher{cs: cs, visit: visit, entry: entry, leave: leave}
	return r.node(ctx, root, data)
}

// reacher is one walk of Reachable.
type reacher struct {
	cs    ChunkStore
	visit func(store.Address) (bool, error)
	entry func(key, value []byte) error
	leave func(store.Address) error // nil: not asked for
}

// left calls leave, if set, with a chunk whose walk is complete.
func (r *reacher) left(a store.Address) error {
	if r.leave == nil {
		return nil
	}
	return r.leave(a)
}

// manyGetter is the batched read that store.DB offers: the children of a
// node are read in one call, in the order of the store's keys.
type manyGetter interface {
	GetMany(ctx context.Context, addrs []store.Address, fn func(store.Address, []byte) error) error
}

// visitBatcher is what a ChunkStore may offer to hear, before a walk
// visits the children of a node one at a time, all of them at once: a
// transfer asks its destination which of them it holds in one round trip
// rather than one a child.
type visitBatcher interface {
	WillVisit(ctx context.Context, addrs []store.Address) error
}

// node walks below the node at addr, which visit accepted.
func (r *reacher) node(ctx context.Context, addr store.Address, data []byte) error {
	// Fully validated, unlike on the read path: the walk must not go out
	// of bounds, and it costs little beside the reads.
	nd, err := validateNode(data)
	if err != nil {
		return fmt.Errorf("prolly: node %s: %w", addr, err)
	}
	if nd.leaf() {
		if err := r.leaf(ctx, nd); err != nil {
			return err
		}
		return r.left(addr)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if vb, ok := r.cs.(visitBatcher); ok {
		all := make([]store.Address, nd.n)
		for i := range all {
			all[i], _ = nd.child(i)
		}
		if err := vb.WillVisit(ctx, all); err != nil {
			return err
		}
	}
	var kids []store.Address
	for i := 0; i < nd.n; i++ {
		kid, _ := nd.child(i)
		ok, err := r.visit(kid)
		if err != nil {
			return err
		}
		if ok {
			kids = append(kids, kid)
		}
	}
	if err := r.each(ctx, kids, r.node); err != nil {
		return err
	}
	return r.left(addr)
}

// each reads the chunks of addrs (in one batch if the store can) and calls
// fn with each, in the order of addrs.
func (r *reacher) each(ctx context.Context, addrs []store.Address, fn func(context.Context, store.Address, []byte) error) error {
	if len(addrs) == 0 {
		return nil
	}
	mg, ok := r.cs.(manyGetter)
	if !ok || len(addrs) == 1 {
		for _, a := range addrs {
			data, err := r.cs.Get(ctx, a)
			if err != nil {
				return fmt.Errorf("prolly: reading chunk %s: %w", a, err)
			}
			if err := fn(ctx, a, data); err != nil {
				return err
			}
		}
		return nil
	}
	chunks := make(map[store.Address][]byte, len(addrs))
	err := mg.GetMany(ctx, addrs, func(a store.Address, data []byte) error {
		chunks[a] = data
		return nil
	})
	if err != nil {
		return fmt.Errorf("prolly: reading %d chunks: %w", len(addrs), err)
	}
	for _, a := range addrs {
		if err := fn(ctx, a, chunks[a]); err != nil {
			return err
		}
	}
	return nil
}

// leaf visits the blobs of a leaf's values and passes its entries to entry.
func (r *reacher) leaf(ctx context.Context, nd node) error {
	for i := 0; i < nd.n; i++ {
		v, blob := nd.value(i)
		if blob {
			if err := r.blob(ctx, store.Address(v[:store.AddressSize]), -1); err != nil {
				return err
			}
			if r.entry != nil {
				var err error
				if v, err = readBlob(ctx, r.cs, v); err != nil {
					return err
				}
			}
		}
		if r.entry != nil {
			if err := r.entry(nd.key(i), v); err != nil {
				return err
			}
		}
	}
	return nil
}

// blob visits the blob chunk at addr and, if accepted, the chunks below it.
// level is the chunk's level if known from its parent (0: a data chunk,
// which is not read), -1 for a blob's top chunk.
func (r *reacher) blob(ctx context.Context, addr store.Address, level int) error {
	ok, err := r.visit(addr)
	if err != nil || !ok {
		return err
	}
	if level == 0 {
		return r.left(addr)
	}
	c, err := r.cs.Get(ctx, addr)
	if err != nil {
		return fmt.Errorf("prolly: reading blob %s: %w", addr, err)
	}
	if len(c) < blobHeader || c[0] != blobMagic || (level > 0 && int(c[1]) != level) {
		return fmt.Errorf("%w: blob chunk %s", ErrCorruptNode, addr)
	}
	if c[1] == 0 {
		return r.left(addr)
	}
	kids := c[blobHeader:]
	if len(kids)%store.AddressSize != 0 {
		return fmt.Errorf("%w: blob index %s", ErrCorruptNode, addr)
	}
	for ; len(kids) > 0; kids = kids[store.AddressSize:] {
		if err := r.blob(ctx, store.Address(kids[:store.AddressSize]), int(c[1])-1); err != nil {
			return err
		}
	}
	return r.left(addr)
}
