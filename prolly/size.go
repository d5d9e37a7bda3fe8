package prolly

import (
	"context"
)

// Size returns the bytes of the map's nodes: what it takes in the store,
// values stored out of line aside. It reads every node, so its cost grows
// with the map; pg_relation_size and its kin report it.
func (m Map) Size(ctx context.Context) (uint64, error) {
	var total uint64
	stack := []node{m.root}
	for len(stack) > 0 {
		nd := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		total += uint64(len(nd.data))
		if nd.leaf() {
			continue
		}
		for i := 0; i < nd.n; i++ {
			addr, _ := nd.child(i)
			child, err := loadNode(ctx, m.cs, addr)
			if err != nil {
				return 0, err
			}
			stack = append(stack, child)
		}
	}
	return total, nil
}
