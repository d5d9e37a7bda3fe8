package prolly

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/prollypg/prollypg/store"
)

var (
	// ErrKeyTooLarge is returned (wrapped) for a key longer than MaxKeySize.
	ErrKeyTooLarge = errors.New("prolly: key too large")
	errFinished    = errors.New("prolly: Builder used after Finish")
)

// ChunkStore is what a Map needs of the store: chunks by address. Get's
// result is shared and must not be modified; Put takes ownership of chunk.
// store.DB and store.Memory implement it.
type ChunkStore interface {
	Get(ctx context.Context, addr store.Address) ([]byte, error)
	Put(ctx context.Context, chunk []byte) (store.Address, error)
}

// Map is an immutable ordered map from byte keys to byte values, stored as a
// Prolly tree in a ChunkStore. A Map is a small value: copying it is cheap,
// and edits return new Maps that share unchanged nodes with the old one.
// Maps are safe for concurrent use.
type Map struct {
	cs   ChunkStore
	root node
	addr store.Address
	ov   []Edit // deferred edits (overlay.go), sorted; never modified
}

// NewMap returns an empty map stored in cs.
func NewMap(ctx context.Context, cs ChunkStore) (Map, error) {
	return NewBuilder(cs).Finish(ctx)
}

// Load returns the map whose root node is at addr.
func Load(ctx context.Context, cs ChunkStore, addr store.Address) (Map, error) {
	root, err := loadNode(ctx, cs, addr)
	if err != nil {
		return Map{}, err
	}
	return Map{cs: cs, root: root, addr: addr}, nil
}

func loadNode(ctx context.Context, cs ChunkStore, addr store.Address) (node, error) {
	data, err := cs.Get(ctx, addr)
	if err != nil {
		return node{}, fmt.Errorf("prolly: loading node %s: %w", addr, err)
	}
	nd, err := decodeNode(data)
	if err != nil {
		return node{}, fmt.Errorf("node %s: %w", addr, err)
	}
	return nd, nil
}

// Root returns the address of the map's root node. Maps with the same
// entries have the same root address.
// A map with deferred edits has no address yet: Root panics on one
// (Materialize it first).
func (m Map) Root() store.Address {
	if len(m.ov) > 0 {
		panic("prolly: Root of a map with deferred edits")
	}
	return m.addr
}

// Store returns the chunk store the map lives in.
func (m Map) Store() ChunkStore { return m.cs }

// Count returns the number of entries, in time proportional to the root's
// fan-out.
func (m Map) Count() uint64 {
	if len(m.ov) > 0 {
		return m.deferredCount()
	}
	return m.root.treeCount()
}

// Height returns the number of levels of the tree; an empty map or a single
// leaf has height 1.
func (m Map) Height() int { return m.root.level + 1 }

// Get returns the value stored under key. An inline value is a view into the
// node, valid for as long as the caller holds it and never to be modified;
// reading it allocates nothing. A value stored out of line is returned in a
// new slice.
func (m Map) Get(ctx context.Context, key []byte) (val []byte, found bool, err error) {
	if e, ok := m.deferredEdit(key); ok {
		return e.Value, !e.Delete, nil
	}
	nd, i, err := m.seekLeaf(ctx, key)
	if err != nil || i == nd.n || !bytes.Equal(nd.key(i), key) {
		return nil, false, err
	}
	v, blob := nd.value(i)
	if blob {
		if v, err = readBlob(ctx, m.cs, v); err != nil {
			return nil, false, err
		}
	}
	return v, true, nil
}

// Has reports whether key is in the map.
func (m Map) Has(ctx context.Context, key []byte) (bool, error) {
	if e, ok := m.deferredEdit(key); ok {
		return !e.Delete, nil
	}
	nd, i, err := m.seekLeaf(ctx, key)
	return err == nil && i < nd.n && bytes.Equal(nd.key(i), key), err
}

// seekLeaf returns the leaf that would hold key and the index in it of the
// first key >= key (the leaf's item count if there is none).
func (m Map) seekLeaf(ctx context.Context, key []byte) (node, int, error) {
	nd := m.root
	for !nd.leaf() {
		i := nd.search(key)
		if i == nd.n {
			i-- // key is past the end: the last leaf is where it would go
		}
		addr, _ := nd.child(i)
		var err error
		if nd, err = loadNode(ctx, m.cs, addr); err != nil {
			return node{}, 0, err
		}
	}
	return nd, nd.search(key), nil
}
