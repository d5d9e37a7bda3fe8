package prolly

import (
	"bytes"
	"context"
	"fmt"

	"github.com/prollypg/prollypg/store"
)

// Check walks the whole tree and verifies its invariants: every chunk hashes
// to its address and parses in full; levels descend by one; each internal
// key is its child's last key and each subtree count is right; keys
// increase strictly; blobs read back at their recorded length; the root has
// no single child; and every node ends exactly where the chunker puts a
// boundary, so the tree is the canonical one for its entries. Tests run it
// after every operation; it reads every chunk and is meant for tests and
// repair tools, not the serving path.
func (m Map) Check(ctx context.Context) error {
	ck := &checker{cs: m.cs}
	if !m.root.leaf() && m.root.n < 2 {
		return fmt.Errorf("prolly: check: root %s is an internal node with %d children", m.addr, m.root.n)
	}
	_, _, err := ck.walk(ctx, m.addr, m.root.level, true, true)
	return err
}

type checker struct {
	cs       ChunkStore
	splits   []splitter // per level
	lastLeaf []byte
	anyLeaf  bool
}

// walk checks the subtree at addr, expected at level; rightmost says whether
// it is the last node of its level. It returns the subtree's last key and
// entry count.
func (ck *checker) walk(ctx context.Context, addr store.Address, level int, rightmost, root bool) ([]byte, uint64, error) {
	data, err := ck.cs.Get(ctx, addr)
	if err != nil {
		return nil, 0, fmt.Errorf("prolly: check: %w", err)
	}
	if store.Hash(data) != addr {
		return nil, 0, fmt.Errorf("prolly: check: chunk %s does not hash to its address", addr)
	}
	nd, err := validateNode(data)
	if err != nil {
		return nil, 0, fmt.Errorf("prolly: check: node %s: %w", addr, err)
	}
	if nd.level != level {
		return nil, 0, fmt.Errorf("prolly: check: node %s is at level %d, want %d", addr, nd.level, level)
	}
	if nd.n == 0 {
		if root && level == 0 {
			return nil, 0, nil
		}
		return nil, 0, fmt.Errorf("prolly: check: empty node %s below the root", addr)
	}
	for len(ck.splits) <= level {
		ck.splits = append(ck.splits, splitter{salt: levelSalt(len(ck.splits))})
	}
	var count uint64
	for i := 0; i < nd.n; i++ {
		key := nd.key(i)
		val, blob := nd.value(i)
		end := ck.splits[level].add(key, len(key)+len(val)+itemOverhead)
		last := i == nd.n-1
		if end && !last {
			return nil, 0, fmt.Errorf("prolly: check: node %s: a boundary falls inside, at item %d", addr, i)
		}
		if last && !end && !rightmost {
			return nil, 0, fmt.Errorf("prolly: check: node %s ends where the chunker puts no boundary", addr)
		}
		if nd.leaf() {
			if ck.anyLeaf && bytes.Compare(key, ck.lastLeaf) <= 0 {
				return nil, 0, fmt.Errorf("prolly: check: key %x does not follow %x", key, ck.lastLeaf)
			}
			ck.lastLeaf, ck.anyLeaf = key, true
			if blob {
				v, err := readBlob(ctx, ck.cs, val)
				if err != nil {
					return nil, 0, fmt.Errorf("prolly: check: blob of key %x: %w", key, err)
				}
				if len(v) <= MaxInlineValue {
					return nil, 0, fmt.Errorf("prolly: check: key %x: a %d-byte value stored out of line", key, len(v))
				}
			} else if len(val) > MaxInlineValue {
				return nil, 0, fmt.Errorf("prolly: check: key %x: a %d-byte value stored inline", key, len(val))
			}
			count++
			continue
		}
		child, n := nd.child(i)
		lastKey, got, err := ck.walk(ctx, child, level-1, rightmost && last, false)
		if err != nil {
			return nil, 0, err
		}
		if !bytes.Equal(lastKey, key) {
			return nil, 0, fmt.Errorf("prolly: check: node %s item %d: key %x is not its child's last key %x", addr, i, key, lastKey)
		}
		if got != n {
			return nil, 0, fmt.Errorf("prolly: check: node %s item %d: count %d, child holds %d", addr, i, n, got)
		}
		count += n
	}
	return nd.lastKey(), count, nil
}
