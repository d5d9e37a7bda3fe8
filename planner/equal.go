package planner

import (
	"reflect"

	"github.com/prollypg/prollypg/exec"
)

// exprEqual reports whether two analyzed expressions compute the same
// thing from the same row, as PostgreSQL's equal() decides when an
// expression of the select list is a GROUP BY key or an ORDER BY item is
// an output column. It may answer false for equal expressions of kinds it
// does not know; never true for different ones.
func exprEqual(a, b exec.Expr) bool {
	if a == b {
		return true
	}
	switch x := a.(type) {
	case *exec.Const:
		y, ok := b.(*exec.Const)
		return ok && x.T == y.T && x.D.Kind == y.D.Kind && x.D.I == y.D.I && x.D.S == y.D.S &&
			(x.D.F == y.D.F || x.D.F != x.D.F && y.D.F != y.D.F) && reflect.DeepEqual(x.D.X, y.D.X)
	case *exec.ColRef:
		// Idx -1 is a reference not placed yet (an aggregate's result):
		// equal only to itself.
		y, ok := b.(*exec.ColRef)
		return ok && x.Idx >= 0 && x.Idx == y.Idx && x.T == y.T
	case *exec.OuterRef:
		y, ok := b.(*exec.OuterRef)
		return ok && x.Idx == y.Idx && x.T == y.T
	case *exec.Param:
		y, ok := b.(*exec.Param)
		return ok && x.Idx == y.Idx && x.T == y.T
	case *exec.Call:
		y, ok := b.(*exec.Call)
		return ok && x.Name == y.Name && x.T == y.T && x.Strict == y.Strict && sameFunc(x.Fn, y.Fn) && exprsEqual(x.Args, y.Args)
	case *exec.BoolOp:
		y, ok := b.(*exec.BoolOp)
		return ok && x.Or == y.Or && exprsEqual(x.Args, y.Args)
	case *exec.Not:
		y, ok := b.(*exec.Not)
		return ok && exprEqual(x.E, y.E)
	case *exec.IsNull:
		y, ok := b.(*exec.IsNull)
		return ok && x.Not == y.Not && exprEqual(x.E, y.E)
	case *exec.Case:
		y, ok := b.(*exec.Case)
		return ok && x.T == y.T && exprsEqual(x.Whens, y.Whens) && exprsEqual(x.Thens, y.Thens) &&
			(x.Else == nil) == (y.Else == nil) && (x.Else == nil || exprEqual(x.Else, y.Else))
	case *exec.Coalesce:
		y, ok := b.(*exec.Coalesce)
		return ok && x.T == y.T && exprsEqual(x.Args, y.Args)
	case *exec.SubPlan:
		return false
	}
	return reflect.DeepEqual(a, b) // false for any with a function inside
}

func exprsEqual(a, b []exec.Expr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !exprEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sameFunc reports whether two functions have the same code. Closures of
// one constructor share code but may capture different values; callers
// also compare names and types, which decide those values here.
func sameFunc(f, g exec.Fn) bool {
	return reflect.ValueOf(f).Pointer() == reflect.ValueOf(g).Pointer()
}
