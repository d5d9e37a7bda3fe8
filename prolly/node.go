package prolly

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/prollypg/prollypg/store"
)

// Node chunk layout (format version 1). All integers little-endian.
//
//	+-------+-------+---------+----------+-----------------+-----------------+----------+------------+
//	| magic | level | count n | key area | key ends n×u16  | val ends n×u16  | key area | value area |
//	| 1 B   | 1 B   | u16     | len u16  |                 |                 |          |            |
//	+-------+-------+---------+----------+-----------------+-----------------+----------+------------+
//
// The key area's length is in the header so that finding the value area
// reads no offset: a point read touches few cache lines per node.
// Key i occupies key area [keyEnd(i-1), keyEnd(i)) with keyEnd(-1) = 0; values
// likewise in the value area. In a leaf (level 0) the top bit of a value end
// marks a value stored out of line (its bytes are a blob reference, see
// blob.go); the low 15 bits are the offset. In an internal node every value
// is a child reference: the child's address (20 bytes) followed by the number
// of leaf entries under it (u64), and key i is the last key of child i.
const (
	nodeMagic     = 0xB1
	nodeHeader    = 6
	childRefSize  = store.AddressSize + 8
	blobFlag      = 0x8000
	valueOffsMask = 0x7fff
)

// Limits on what a node may hold. They keep every offset inside 15 bits and
// the item count inside 16: a node is cut once it reaches maxNodeSize, so its
// areas stay under maxNodeSize + MaxKeySize and maxNodeSize + MaxInlineValue,
// and an item costs at least itemOverhead bytes.
const (
	// MaxKeySize is the longest key a Map accepts.
	MaxKeySize = 4096
	// MaxInlineValue is the longest value kept inside a leaf; longer values
	// are stored out of line as blobs.
	MaxInlineValue = 2048
)

// ErrCorruptNode is returned (wrapped) for a chunk that is not a valid node.
var ErrCorruptNode = errors.New("prolly: corrupt node")

// node is a read-only view of a node chunk. It is a small value: the bytes
// are shared with the chunk store's cache and never copied or modified.
type node struct {
	data  []byte
	n     int
	level int
	keys  int // start of the key area
	vals  int // start of the value area
}

// decodeNode parses a node's header in constant time. It checks what the
// accessors rely on to stay in bounds of the header and areas; full
// validation of every offset is validateNode's, run by Check and fuzzing.
// Chunks come from the store verified against their address, so anything
// that parses here was written by this package.
func decodeNode(data []byte) (node, error) {
	if len(data) < nodeHeader || data[0] != nodeMagic {
		return node{}, fmt.Errorf("%w: bad header", ErrCorruptNode)
	}
	n := int(binary.LittleEndian.Uint16(data[2:]))
	nd := node{data: data, n: n, level: int(data[1]), keys: nodeHeader + 4*n}
	nd.vals = nd.keys + int(binary.LittleEndian.Uint16(data[4:]))
	if nd.vals > len(data) {
		return node{}, fmt.Errorf("%w: %d items do not fit in %d bytes", ErrCorruptNode, n, len(data))
	}
	if nd.level > 0 && n == 0 {
		return node{}, fmt.Errorf("%w: empty internal node", ErrCorruptNode)
	}
	return nd, nil
}

// validateNode checks every offset and, for internal nodes, every child
// reference's size, so that no accessor can go out of bounds.
func validateNode(data []byte) (node, error) {
	nd, err := decodeNode(data)
	if err != nil {
		return nd, err
	}
	keyArea, valArea := 0, 0
	if nd.n > 0 {
		keyArea, valArea = int(nd.keyEnd(nd.n-1)), int(nd.valEnd(nd.n-1)&valueOffsMask)
	}
	if nd.keys+keyArea != nd.vals || nd.vals+valArea != len(data) {
		return nd, fmt.Errorf("%w: areas do not add up to %d bytes", ErrCorruptNode, len(data))
	}
	var prevK, prevV int
	for i := 0; i < nd.n; i++ {
		k := int(nd.keyEnd(i))
		ve := nd.valEnd(i)
		v := int(ve & valueOffsMask)
		if k < prevK || v < prevV {
			return nd, fmt.Errorf("%w: offsets of item %d go backwards", ErrCorruptNode, i)
		}
		if nd.level > 0 && (v-prevV != childRefSize || ve&blobFlag != 0) {
			return nd, fmt.Errorf("%w: child reference %d is %d bytes", ErrCorruptNode, i, v-prevV)
		}
		if nd.level == 0 && ve&blobFlag != 0 && !validBlobRef(nd.data[nd.vals+prevV:nd.vals+v]) {
			return nd, fmt.Errorf("%w: bad blob reference at item %d", ErrCorruptNode, i)
		}
		prevK, prevV = k, v
	}
	return nd, nil
}

func (nd node) keyEnd(i int) uint16 {
	return binary.LittleEndian.Uint16(nd.data[nodeHeader+2*i:])
}

func (nd node) valEnd(i int) uint16 {
	return binary.LittleEndian.Uint16(nd.data[nodeHeader+2*nd.n+2*i:])
}

func (nd node) leaf() bool { return nd.level == 0 }

// key returns key i, a view into the chunk.
func (nd node) key(i int) []byte {
	start := 0
	if i > 0 {
		start = int(nd.keyEnd(i - 1))
	}
	return nd.data[nd.keys+start : nd.keys+int(nd.keyEnd(i))]
}

// value returns value i, a view into the chunk, and whether it is a blob
// reference rather than the value itself.
func (nd node) value(i int) (v []byte, blob bool) {
	start, end, blob := nd.valueSpan(i)
	return nd.data[start:end], blob
}

// valueSpan returns where value i lies in the chunk, and whether it is a
// blob reference.
func (nd node) valueSpan(i int) (start, end int, blob bool) {
	if i > 0 {
		start = int(nd.valEnd(i-1) & valueOffsMask)
	}
	e := nd.valEnd(i)
	return nd.vals + start, nd.vals + int(e&valueOffsMask), e&blobFlag != 0
}

// child returns the address of child i of an internal node and the number of
// leaf entries below it.
func (nd node) child(i int) (store.Address, uint64) {
	v, _ := nd.value(i)
	return store.Address(v[:store.AddressSize]), binary.LittleEndian.Uint64(v[store.AddressSize:])
}

// lastKey returns the node's greatest key; the node must not be empty.
func (nd node) lastKey() []byte { return nd.key(nd.n - 1) }

// treeCount returns the number of leaf entries below the node.
func (nd node) treeCount() uint64 {
	if nd.leaf() {
		return uint64(nd.n)
	}
	var c uint64
	for i := 0; i < nd.n; i++ {
		_, n := nd.child(i)
		c += n
	}
	return c
}

// search returns the index of the first key >= key, or nd.n if there is none.
func (nd node) search(key []byte) int {
	lo, hi := 0, nd.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(nd.key(m), key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// encodeChildRef appends an internal node's value for a child.
func encodeChildRef(dst []byte, addr store.Address, count uint64) []byte {
	dst = append(dst, addr[:]...)
	return binary.LittleEndian.AppendUint64(dst, count)
}
