// Package pgtree reads pg_query's parse trees generically, for the passes
// that look for nodes of some kinds anywhere in a statement (aggregate
// calls, constants, references to a CTE) without naming every node type
// that may hold them.
package pgtree

import "google.golang.org/protobuf/reflect/protoreflect"

// Walk calls fn for m and, while fn returns true, for the messages inside
// it, depth first in field order. It reads the tree through reflection,
// which costs some microseconds for a small statement: callers on a hot
// path skip it for the shapes they can tell apart by type.
func Walk(m protoreflect.Message, fn func(protoreflect.Message) bool) {
	if fn(m) {
		Children(m, func(c protoreflect.Message) { Walk(c, fn) })
	}
}

// Children calls fn for each message m holds directly, in field order:
// for walks that carry state down the tree, which Walk cannot.
func Children(m protoreflect.Message, fn func(protoreflect.Message)) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				fn(l.Get(i).Message())
			}
		case fd.Message() != nil:
			fn(v.Message())
		}
		return true
	})
}
