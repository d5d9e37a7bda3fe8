package planner

import (
	"fmt"
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
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

// BindParams returns a copy of statement n with each parameter $k
// replaced by its value, a constant of its type (types[k-1]), for a
// statement that only takes constants: CREATE TABLE ... AS EXECUTE runs
// the prepared query as CREATE TABLE ... AS would, which has no
// parameters.
func BindParams(n *pg.Node, types []uint32, vals []exec.Datum, st *exec.Settings) (*pg.Node, error) {
	n = proto.Clone(n).(*pg.Node)
	var err error
	VisitNodes(n, func(x *pg.Node) {
		p := x.GetParamRef()
		if p == nil || err != nil {
			return
		}
		k := int(p.Number) - 1
		if k < 0 || k >= len(vals) {
			err = WithPos(pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", p.Number), p.Location)
			return
		}
		tn, e := typeNameNode(exec.FormatTypeIn(st, types[k], -1))
		if e != nil {
			err = e
			return
		}
		c := &pg.A_Const{Location: p.Location}
		if vals[k].IsNull() {
			c.Isnull = true
		} else {
			c.Val = &pg.A_Const_Sval{Sval: &pg.String{Sval: string(exec.AppendText(nil, exec.T{OID: types[k], Typmod: -1}, vals[k], st))}}
		}
		x.Node = &pg.Node_TypeCast{TypeCast: &pg.TypeCast{Arg: &pg.Node{Node: &pg.Node_AConst{AConst: c}}, TypeName: tn, Location: p.Location}}
	})
	return n, err
}

// typeNameNode parses a type's name as the parse tree's TypeName.
func typeNameNode(name string) (*pg.TypeName, error) {
	tree, err := pg.Parse("SELECT NULL::" + name)
	if err != nil {
		return nil, fmt.Errorf("planner: type name %q: %w", name, err)
	}
	return tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val.GetTypeCast().TypeName, nil
}
