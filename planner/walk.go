package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// visitNodes calls fn for n and every node below it in the parse tree,
// parents first. fn may change the node it is given (renaming a column
// reference), not the shape of the tree above it.
func visitNodes(n *pg.Node, fn func(*pg.Node)) {
	if n == nil {
		return
	}
	fn(n)
	walkMessage(n.ProtoReflect(), fn)
}

func walkMessage(m protoreflect.Message, fn func(*pg.Node)) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap() || fd.Message() == nil:
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				walkValue(l.Get(i).Message(), fn)
			}
		default:
			walkValue(v.Message(), fn)
		}
		return true
	})
}

func walkValue(m protoreflect.Message, fn func(*pg.Node)) {
	if n, ok := m.Interface().(*pg.Node); ok {
		visitNodes(n, fn)
		return
	}
	walkMessage(m, fn)
}
