package planner

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/prollypg/prollypg/exec"
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

// exprAny reports whether test holds of e or of an expression below it.
// test says whether it holds of an expression and whether that decides
// it (nothing below is looked at); otherwise exprAny looks into the kinds
// of expression whose parts it knows (calls and operators, AND/OR/NOT,
// IS NULL, COALESCE, CASE) and answers unknown for any other, so that a
// caller can choose the safe side.
func exprAny(e exec.Expr, test func(exec.Expr) (holds, decided bool), unknown bool) bool {
	if holds, decided := test(e); holds || decided {
		return holds
	}
	anyOf := func(es []exec.Expr) bool {
		return slices.ContainsFunc(es, func(x exec.Expr) bool { return x != nil && exprAny(x, test, unknown) })
	}
	switch x := e.(type) {
	case *exec.Const, *exec.ColRef, *exec.Param, *exec.OuterRef:
		return false
	case *exec.Call:
		return anyOf(x.Args)
	case *exec.BoolOp:
		return anyOf(x.Args)
	case *exec.Not:
		return exprAny(x.E, test, unknown)
	case *exec.IsNull:
		return exprAny(x.E, test, unknown)
	case *exec.Coalesce:
		return anyOf(x.Args)
	case *exec.Case:
		return anyOf(x.Whens) || anyOf(x.Thens) || x.Else != nil && exprAny(x.Else, test, unknown)
	}
	return unknown
}
