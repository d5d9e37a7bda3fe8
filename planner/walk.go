package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/prollypg/prollypg/planner/pgtree"
)

// VisitNodes calls fn for n and every node below it in the parse tree,
// parents first. fn may change the node it is given (renaming a column
// reference), not the shape of the tree above it.
func VisitNodes(n *pg.Node, fn func(*pg.Node)) {
	if n == nil {
		return
	}
	pgtree.Walk(n.ProtoReflect(), func(m protoreflect.Message) bool {
		if node, ok := m.Interface().(*pg.Node); ok {
			fn(node)
		}
		return true
	})
}
