package prolly

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	"github.com/zeebo/xxh3"

	"github.com/prollypg/prollypg/store"
)

// Node boundaries. An item ends its node when a hash of its key, salted by
// the node's level, falls under a threshold that rises with the node's size
// (a Weibull hazard, as Dolt uses): nodes are rarely cut small, almost always
// cut near targetNodeSize, and always cut at maxNodeSize. Because the
// decision depends only on the items of the node being built, the same items
// always give the same nodes, whatever edits produced them.
const (
	minNodeSize    = 512
	maxNodeSize    = 16 << 10
	targetNodeSize = 4096
	weibullShape   = 4
	// itemOverhead is what an item costs a node besides its key and value:
	// its two offsets.
	itemOverhead = 4
)

// levelSalt seeds the key hash per level so that the boundaries of a level
// are independent of those of the level below.
func levelSalt(level int) uint64 {
	return 0x9e3779b97f4a7c15 * uint64(level+1)
}

// weibullCDF is the Weibull distribution function at x bytes.
func weibullCDF(x float64) float64 {
	return -math.Expm1(-math.Pow(x/targetNodeSize, weibullShape))
}

// cdfTable holds weibullCDF at every node size below maxNodeSize, computed
// once: the chunker consults it for every item, and a lookup is an order of
// magnitude cheaper than Pow and Expm1. It is never written after init.
var cdfTable = func() *[maxNodeSize]float64 {
	var t [maxNodeSize]float64
	for x := range t {
		t[x] = weibullCDF(float64(x))
	}
	return &t
}()

// isBoundary reports whether an item whose key hashes to h ends a node of
// size bytes (the item included, itemSize of them its own): the hazard of
// the Weibull distribution over the item's bytes, scaled to 32 bits.
func isBoundary(h uint32, size, itemSize int) bool {
	if size < minNodeSize {
		return false
	}
	if size >= maxNodeSize {
		return true
	}
	start := cdfTable[size-itemSize]
	p := (cdfTable[size] - start) / (1 - start)
	return float64(h) < p*(1<<32)
}

// splitter decides where the nodes of one level end.
type splitter struct {
	salt uint64
	size int
}

// add accounts for an item of itemSize bytes and reports whether it ends the
// node; after a true result the splitter starts a new node.
func (s *splitter) add(key []byte, itemSize int) bool {
	s.size += itemSize
	end := s.size >= minNodeSize && isBoundary(uint32(xxh3.HashSeed(key, s.salt)), s.size, itemSize)
	if end {
		s.size = 0
	}
	return end
}

// nodeBuilder accumulates the items of one node at one level and decides
// where the node ends. It is reused from node to node; its buffers are the
// only per-node memory.
type nodeBuilder struct {
	level   int
	split   splitter
	keyEnds []uint16
	valEnds []uint16
	keys    []byte
	vals    []byte
	count   uint64 // leaf entries under the node being built
}

func newNodeBuilder(level int) *nodeBuilder {
	return &nodeBuilder{level: level, split: splitter{salt: levelSalt(level)}}
}

// builderPool keeps node builders between Applies. A builder's buffers
// grow to a node's size by doubling, and an Apply of a few rows paid that
// growth, about thirty allocations and twice a node's bytes a level, on
// every call: for a transaction's insert, most of its allocations.
var builderPool = sync.Pool{New: func() any { return new(nodeBuilder) }}

// maxPooledBuffer bounds the buffers a pooled builder keeps: a node is
// about targetNodeSize bytes, and the rare huge one is not worth keeping.
const maxPooledBuffer = 16 * targetNodeSize

// borrowNodeBuilder returns an empty builder for level from the pool;
// returnNodeBuilder gives it back once nothing refers to its buffers.
func borrowNodeBuilder(level int) *nodeBuilder {
	b := builderPool.Get().(*nodeBuilder)
	b.reset()
	b.level, b.split = level, splitter{salt: levelSalt(level)}
	return b
}

func returnNodeBuilder(b *nodeBuilder) {
	if cap(b.keys) <= maxPooledBuffer && cap(b.vals) <= maxPooledBuffer {
		builderPool.Put(b)
	}
}

func (b *nodeBuilder) empty() bool { return len(b.keyEnds) == 0 }

// add appends an item and reports whether it ends the node. For a leaf, val
// is the value or blob reference as stored (blob tells which) and count is 1;
// for an internal node val is a child reference and count the child's.
func (b *nodeBuilder) add(key, val []byte, blob bool, count uint64) bool {
	b.keys = append(b.keys, key...)
	b.vals = append(b.vals, val...)
	ve := uint16(len(b.vals))
	if blob {
		ve |= blobFlag
	}
	b.keyEnds = append(b.keyEnds, uint16(len(b.keys)))
	b.valEnds = append(b.valEnds, ve)
	b.count += count
	return b.split.add(key, len(key)+len(val)+itemOverhead)
}

// lastKey returns the key of the last item added; the builder must not be
// empty. The view is valid until the next finish.
func (b *nodeBuilder) lastKey() []byte {
	n := len(b.keyEnds)
	start := 0
	if n > 1 {
		start = int(b.keyEnds[n-2])
	}
	return b.keys[start:b.keyEnds[n-1]]
}

// encode returns the node's chunk bytes in a new slice.
func (b *nodeBuilder) encode() []byte {
	n := len(b.keyEnds)
	out := make([]byte, nodeHeader+4*n+len(b.keys)+len(b.vals))
	out[0] = nodeMagic
	out[1] = byte(b.level)
	binary.LittleEndian.PutUint16(out[2:], uint16(n))
	binary.LittleEndian.PutUint16(out[4:], uint16(len(b.keys)))
	p := nodeHeader
	for _, e := range b.keyEnds {
		binary.LittleEndian.PutUint16(out[p:], e)
		p += 2
	}
	for _, e := range b.valEnds {
		binary.LittleEndian.PutUint16(out[p:], e)
		p += 2
	}
	p += copy(out[p:], b.keys)
	copy(out[p:], b.vals)
	return out
}

// finish writes the node to cs and resets the builder. It returns the node's
// address, its last key (a copy; nil for the empty leaf) and its leaf-entry
// count.
func (b *nodeBuilder) finish(ctx context.Context, cs ChunkStore) (childItem, error) {
	it := childItem{count: b.count}
	if !b.empty() {
		it.key = append([]byte(nil), b.lastKey()...)
	}
	addr, err := cs.Put(ctx, b.encode())
	if err != nil {
		return childItem{}, fmt.Errorf("prolly: writing level %d node: %w", b.level, err)
	}
	it.addr = addr
	b.reset()
	return it, nil
}

func (b *nodeBuilder) reset() {
	b.keyEnds, b.valEnds = b.keyEnds[:0], b.valEnds[:0]
	b.keys, b.vals = b.keys[:0], b.vals[:0]
	b.count = 0
	b.split.size = 0
}

// childItem is a finished node as its parent sees it.
type childItem struct {
	key   []byte
	addr  store.Address
	count uint64
}
