package planner

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// subLink plans a subquery used as an expression: EXISTS, a scalar
// subquery, IN, op ANY, op ALL. Columns of sc it names become the
// SubPlan's Args (see correlation).
func (a *analyzer) subLink(sl *pg.SubLink, sc *scope) (exec.Expr, error) {
	sel := sl.Subselect.GetSelectStmt()
	if sel == nil {
		return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "this subquery is not supported yet"), sl.Location)
	}
	corr := &correlation{outer: sc, fromSub: true, inAgg: a.inAgg}
	saved := a.nested()
	plan, err := a.query(sel, corr)
	a.restore(saved)
	if err != nil {
		return nil, err
	}
	cols := plan.Columns()
	sp := &exec.SubPlan{Plan: plan, Args: corr.args, T: exec.TBool}
	switch sl.SubLinkType {
	case pg.SubLinkType_EXISTS_SUBLINK:
		sp.Kind = exec.ExistsSub
		return sp, nil
	case pg.SubLinkType_EXPR_SUBLINK:
		if len(cols) != 1 {
			return nil, WithPos(pgerr.New(pgerr.SyntaxError, "subquery must return only one column"), sl.Location)
		}
		sp.Kind, sp.T = exec.ScalarSub, cols[0].T
		return sp, nil
	case pg.SubLinkType_ARRAY_SUBLINK:
		return arraySubLink(sp, cols, sl.Location)
	case pg.SubLinkType_ANY_SUBLINK, pg.SubLinkType_ALL_SUBLINK:
	default:
		return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "%s subqueries are not supported yet", sl.SubLinkType), sl.Location)
	}
	sp.Kind = exec.AnySub
	if sl.SubLinkType == pg.SubLinkType_ALL_SUBLINK {
		sp.Kind = exec.AllSub
	}
	op := "="
	if len(sl.OperName) > 0 {
		op = OpName(sl.OperName)
	}
	lefts := []*pg.Node{sl.Testexpr}
	if r := sl.Testexpr.GetRowExpr(); r != nil {
		lefts = r.Args
	}
	switch {
	case len(lefts) > len(cols):
		return nil, WithPos(pgerr.New(pgerr.SyntaxError, "subquery has too few columns"), sl.Location)
	case len(lefts) < len(cols):
		return nil, WithPos(pgerr.New(pgerr.SyntaxError, "subquery has too many columns"), sl.Location)
	}
	n := len(lefts)
	canHash := op == "="
	var tests []exec.Expr
	for i, l := range lefts {
		e, err := a.expr(l, sc)
		if err != nil {
			return nil, err
		}
		sp.Left = append(sp.Left, e)
		t, err := a.binary(op, &exec.ColRef{Idx: i, T: e.Type()}, &exec.ColRef{Idx: n + i, T: cols[i].T}, sl.Location)
		if err != nil {
			return nil, err
		}
		if t.Type().OID != exec.OIDBool {
			return nil, WithPos(pgerr.New(pgerr.DatatypeMismatch, "operator %s must return type boolean, not type %s", op, exec.TypeName(t.Type().OID)), sl.Location)
		}
		tests = append(tests, t)
		call, ok := t.(*exec.Call)
		if !ok || call.Name != "=" || len(call.Args) != 2 || call.Args[0].Type().OID != call.Args[1].Type().OID || !hashableType(call.Args[0].Type()) {
			canHash = false
			continue
		}
		sp.LeftKeys = append(sp.LeftKeys, call.Args[0])
		sp.RightKeys = append(sp.RightKeys, call.Args[1])
	}
	sp.Test = and(tests)
	if !canHash || sp.Kind != exec.AnySub {
		sp.LeftKeys, sp.RightKeys = nil, nil
	}
	return sp, nil
}

// multiAssign analyzes one column of UPDATE ... SET (a, b) = source: it
// returns the source's expression for the column as a parse node (a ROW
// or parenthesized list, whose items may be DEFAULT), or, for a
// sub-SELECT, a scalar subplan reading the column.
func (a *analyzer) multiAssign(mar *pg.MultiAssignRef, sc *scope) (exec.Expr, *pg.Node, error) {
	col, n := int(mar.Colno), int(mar.Ncolumns)
	switch src := mar.Source; {
	case src.GetRowExpr() != nil:
		args := src.GetRowExpr().Args
		if slices.ContainsFunc(args, isQualifiedStar) {
			// ROW(t.*) stands for t's columns, as in a target list.
			var exprs []exec.Expr
			for _, arg := range args {
				if isQualifiedStar(arg) {
					star, _, err := a.star(arg.GetColumnRef(), sc)
					if err != nil {
						return nil, nil, err
					}
					exprs = append(exprs, star...)
					continue
				}
				e, err := a.expr(arg, sc)
				if err != nil {
					return nil, nil, err
				}
				exprs = append(exprs, e)
			}
			if len(exprs) != n {
				return nil, nil, pgerr.New(pgerr.SyntaxError, "number of columns does not match number of values")
			}
			return exprs[col-1], nil, nil
		}
		if len(args) != n {
			return nil, nil, pgerr.New(pgerr.SyntaxError, "number of columns does not match number of values")
		}
		return nil, args[col-1], nil
	case src.GetSubLink() != nil && (src.GetSubLink().SubLinkType == pg.SubLinkType_MULTIEXPR_SUBLINK ||
		src.GetSubLink().SubLinkType == pg.SubLinkType_EXPR_SUBLINK):
		// The raw parse tree has an EXPR sublink here; PostgreSQL's
		// analysis makes it MULTIEXPR.
		sl := src.GetSubLink()
		corr := &correlation{outer: sc, fromSub: true, inAgg: a.inAgg}
		saved := a.nested()
		plan, err := a.query(sl.Subselect.GetSelectStmt(), corr)
		a.restore(saved)
		if err != nil {
			return nil, nil, err
		}
		cols := plan.Columns()
		if len(cols) != n {
			return nil, nil, WithPos(pgerr.New(pgerr.SyntaxError, "number of columns does not match number of values"), sl.Location)
		}
		// Each column runs the subquery again; a subquery is expected to
		// give the same row each time.
		one := &exec.Project{In: plan, Exprs: []exec.Expr{&exec.ColRef{Idx: col - 1, T: cols[col-1].T}}, Cols: cols[col-1 : col]}
		return &exec.SubPlan{Kind: exec.ScalarSub, Plan: one, Args: corr.args, T: cols[col-1].T}, nil, nil
	}
	return nil, nil, pgerr.New(pgerr.SyntaxError, "source for a multiple-column UPDATE item must be a sub-SELECT or ROW() expression")
}

// isQualifiedStar reports whether n is t.*.
func isQualifiedStar(n *pg.Node) bool {
	cr := n.GetColumnRef()
	return cr != nil && len(cr.Fields) > 1 && cr.Fields[len(cr.Fields)-1].GetAStar() != nil
}
