package planner

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// searchCycle is what the SEARCH and CYCLE clauses of a recursive query
// add, as PostgreSQL's rewriteSearchAndCycle does: columns after the
// query's own (the search sequence; the cycle mark and path), computed
// over each row of the non-recursive term, and over each row of the
// recursive term from the values the row of the previous round it was
// made from had. The recursive term reads those by extra targets on its
// reference to the query, and stops at rows marked as cycles.
type searchCycle struct {
	search *pg.CTESearchClause
	cycle  *pg.CTECycleClause
	n      int   // the query's own columns
	by     []int // SEARCH BY columns' positions
	cyc    []int // CYCLE columns' positions
	// mark and unmarked are the cycle mark's values (TO and DEFAULT),
	// of type markT.
	mark, unmarked exec.Expr
	markT          exec.T
}

var (
	tRecordArray = exec.ArrayType(exec.TRecord)
	tDepth       = exec.TInt8
)

// newSearchCycle checks the SEARCH and CYCLE clauses of ce against the
// query's columns cols.
func (a *analyzer) newSearchCycle(ce *pg.CommonTableExpr, cols []exec.ResultColumn) (*searchCycle, error) {
	sc := &searchCycle{search: ce.SearchClause, cycle: ce.CycleClause, n: len(cols)}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	positions := func(list []*pg.Node, what string, loc int32) ([]int, error) {
		var out []int
		for _, n := range list {
			name := n.GetString_().GetSval()
			i := slices.Index(names, name)
			if i < 0 {
				return nil, WithPos(pgerr.New(pgerr.InvalidColumnReference, "%s column %q not in WITH query column list", what, name), loc)
			}
			if slices.Contains(out, i) {
				return nil, WithPos(pgerr.New(pgerr.DuplicateColumn, "%s column %q specified more than once", what, name), loc)
			}
			out = append(out, i)
		}
		return out, nil
	}
	used := func(name, what string, loc int32) error {
		if slices.Contains(names, name) {
			return WithPos(pgerr.New(pgerr.SyntaxError, "%s column name %q already used in WITH query column list", what, name), loc)
		}
		return nil
	}
	var err error
	if s := sc.search; s != nil {
		if sc.by, err = positions(s.SearchColList, "search", s.Location); err != nil {
			return nil, err
		}
		if err := used(s.SearchSeqColumn, "search sequence", s.Location); err != nil {
			return nil, err
		}
	}
	if c := sc.cycle; c != nil {
		if sc.cyc, err = positions(c.CycleColList, "cycle", c.Location); err != nil {
			return nil, err
		}
		if err := used(c.CycleMarkColumn, "cycle mark", c.Location); err != nil {
			return nil, err
		}
		if err := used(c.CyclePathColumn, "cycle path", c.Location); err != nil {
			return nil, err
		}
		if c.CycleMarkColumn == c.CyclePathColumn {
			return nil, WithPos(pgerr.New(pgerr.SyntaxError, "cycle mark column name and cycle path column name are the same"), c.Location)
		}
		if err := sc.markValues(a); err != nil {
			return nil, err
		}
	}
	if s, c := sc.search, sc.cycle; s != nil && c != nil {
		switch s.SearchSeqColumn {
		case c.CycleMarkColumn:
			return nil, WithPos(pgerr.New(pgerr.SyntaxError, "search sequence column name and cycle mark column name are the same"), s.Location)
		case c.CyclePathColumn:
			return nil, WithPos(pgerr.New(pgerr.SyntaxError, "search sequence column name and cycle path column name are the same"), s.Location)
		}
	}
	return sc, nil
}

// markValues analyzes CYCLE's TO and DEFAULT values, of their common type.
func (sc *searchCycle) markValues(a *analyzer) error {
	c := sc.cycle
	mark, err := a.expr(c.CycleMarkValue, nil)
	if err != nil {
		return err
	}
	unmarked, err := a.expr(c.CycleMarkDefault, nil)
	if err != nil {
		return err
	}
	if sc.markT, err = commonType([]exec.T{mark.Type(), unmarked.Type()}, "CYCLE", ExprLocation(c.CycleMarkDefault)); err != nil {
		return err
	}
	if sc.mark, err = a.coerce(mark, sc.markT, "", ExprLocation(c.CycleMarkValue)); err != nil {
		return err
	}
	sc.unmarked, err = a.coerce(unmarked, sc.markT, "", ExprLocation(c.CycleMarkDefault))
	return err
}

// columns returns the columns the clauses add.
func (sc *searchCycle) columns() []exec.ResultColumn {
	var out []exec.ResultColumn
	if s := sc.search; s != nil {
		t := tRecordArray
		if s.SearchBreadthFirst {
			t = exec.TRecord
		}
		out = append(out, exec.ResultColumn{Name: s.SearchSeqColumn, T: t})
	}
	if c := sc.cycle; c != nil {
		out = append(out, exec.ResultColumn{Name: c.CycleMarkColumn, T: sc.markT}, exec.ResultColumn{Name: c.CyclePathColumn, T: tRecordArray})
	}
	return out
}

// checkShape fails unless both terms of the recursive query sel are
// plain SELECTs, as the rewriting needs.
func checkSearchCycleShape(sel *pg.SelectStmt) error {
	if sel.Larg.Op != pg.SetOperation_SETOP_NONE {
		return pgerr.New(pgerr.FeatureNotSupported, "with a SEARCH or CYCLE clause, the left side of the UNION must be a SELECT")
	}
	if sel.Rarg.Op != pg.SetOperation_SETOP_NONE {
		return pgerr.New(pgerr.FeatureNotSupported, "with a SEARCH or CYCLE clause, the right side of the UNION must be a SELECT")
	}
	return nil
}

// rewriteRecursive returns a copy of the recursive term rec of query
// name that also selects, from its reference to the query, the added
// columns of the row it joins, and leaves out rows marked as cycles.
//
// The query's columns are cols; a * over its reference alone is spelled
// out as them, so that it does not take the added ones too.
func (sc *searchCycle) rewriteRecursive(rec *pg.SelectStmt, name string, cols []exec.ResultColumn) (*pg.SelectStmt, error) {
	ref := recursiveRef(rec.FromClause, name)
	if ref == "" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "with a SEARCH or CYCLE clause, the recursive reference to WITH query %q must be at the top level of its right-hand SELECT", name)
	}
	out := proto.Clone(rec).(*pg.SelectStmt)
	col := func(c string) *pg.Node {
		return pg.MakeColumnRefNode([]*pg.Node{pg.MakeStrNode(ref), pg.MakeStrNode(c)}, -1)
	}
	var targets []*pg.Node
	for _, t := range out.TargetList {
		cr := t.GetResTarget().GetVal().GetColumnRef()
		star := cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil
		onlyRef := len(cr.GetFields()) == 1 && len(out.FromClause) == 1 && out.FromClause[0].GetRangeVar() != nil ||
			len(cr.GetFields()) == 2 && cr.Fields[0].GetString_().GetSval() == ref
		if !star || !onlyRef {
			targets = append(targets, t)
			continue
		}
		for _, c := range cols[:sc.n] {
			targets = append(targets, pg.MakeResTargetNodeWithVal(col(c.Name), -1))
		}
	}
	out.TargetList = targets
	for _, c := range sc.columns() {
		out.TargetList = append(out.TargetList, pg.MakeResTargetNodeWithVal(col(c.Name), -1))
	}
	if c := sc.cycle; c != nil {
		notCycle := pg.MakeAExprNode(pg.A_Expr_Kind_AEXPR_OP, []*pg.Node{pg.MakeStrNode("<>")}, col(c.CycleMarkColumn), proto.Clone(c.CycleMarkValue).(*pg.Node), -1)
		if out.WhereClause == nil {
			out.WhereClause = notCycle
		} else {
			out.WhereClause = pg.MakeBoolExprNode(pg.BoolExprType_AND_EXPR, []*pg.Node{out.WhereClause, notCycle}, -1)
		}
	}
	return out, nil
}

// recursiveRef returns the name a FROM list refers to query name by at
// its top level (its alias, or name), "" if it does not.
func recursiveRef(from []*pg.Node, name string) string {
	for _, n := range from {
		if rv := n.GetRangeVar(); rv != nil && rv.Schemaname == "" && rv.Relname == name {
			if rv.Alias != nil {
				return rv.Alias.Aliasname
			}
			return name
		}
		if j := n.GetJoinExpr(); j != nil {
			if r := recursiveRef([]*pg.Node{j.Larg, j.Rarg}, name); r != "" {
				return r
			}
		}
	}
	return ""
}

// nonRecursive adds the columns to the rows of the non-recursive term p:
// the sequence starts (ARRAY[ROW(by)] or ROW(0, by)), no row is a cycle,
// the path starts at the row.
func (sc *searchCycle) nonRecursive(p exec.Plan) exec.Plan {
	cols := p.Columns()
	exprs := make([]exec.Expr, 0, len(cols)+3)
	for i, c := range cols {
		exprs = append(exprs, &exec.ColRef{Idx: i, T: c.T})
	}
	if s := sc.search; s != nil {
		if s.SearchBreadthFirst {
			exprs = append(exprs, rowOf(exprs, sc.by, &exec.Const{D: exec.DInt(0), T: tDepth}))
		} else {
			exprs = append(exprs, arrayOfRow(rowOf(exprs, sc.by)))
		}
	}
	if sc.cycle != nil {
		exprs = append(exprs, sc.unmarked, arrayOfRow(rowOf(exprs, sc.cyc)))
	}
	return &exec.Project{In: p, Exprs: exprs, Cols: append(slices.Clip(cols), sc.columns()...)}
}

// recursive computes the columns of the rows of the recursive term p,
// whose first n columns are the query's (converted to types) and the
// rest the added columns of the row of the previous round: the sequence
// grows (seq || ARRAY[ROW(by)], or ROW(depth + 1, by)), the row is a
// cycle if the path has it, the path grows.
func (sc *searchCycle) recursive(a *analyzer, p exec.Plan, types []exec.T) (exec.Plan, error) {
	cols := p.Columns()
	exprs := make([]exec.Expr, 0, len(cols))
	out := make([]exec.ResultColumn, 0, len(cols))
	for i := 0; i < sc.n; i++ {
		e, err := a.coerce(&exec.ColRef{Idx: i, T: cols[i].T}, types[i], "", -1)
		if err != nil {
			return nil, err
		}
		exprs = append(exprs, e)
		out = append(out, exec.ResultColumn{Name: cols[i].Name, T: types[i]})
	}
	old := sc.n // the previous round's added columns
	if s := sc.search; s != nil {
		prev := &exec.ColRef{Idx: old, T: cols[old].T}
		old++
		var seq exec.Expr
		var err error
		if s.SearchBreadthFirst {
			depth := &exec.FieldSelect{E: prev, Idx: 0, T: tDepth}
			var next exec.Expr
			if next, err = a.binary("+", depth, &exec.Const{D: exec.DInt(1), T: tDepth}, -1); err != nil {
				return nil, err
			}
			seq = rowOf(exprs, sc.by, next)
		} else if seq, err = a.binary("||", prev, arrayOfRow(rowOf(exprs, sc.by)), -1); err != nil {
			return nil, err
		}
		exprs = append(exprs, seq)
	}
	if sc.cycle != nil {
		path := &exec.ColRef{Idx: old + 1, T: tRecordArray}
		here := rowOf(exprs, sc.cyc)
		seen, err := a.anyAllArray("=", here, path, false, -1)
		if err != nil {
			return nil, err
		}
		grown, err := a.binary("||", path, arrayOfRow(here), -1)
		if err != nil {
			return nil, err
		}
		exprs = append(exprs, &exec.Case{Whens: []exec.Expr{seen}, Thens: []exec.Expr{sc.mark}, Else: sc.unmarked, T: sc.markT}, grown)
	}
	return &exec.Project{In: p, Exprs: exprs, Cols: append(out, sc.columns()...)}, nil
}

// rowOf returns ROW(lead..., cols[pos] for pos in positions).
func rowOf(cols []exec.Expr, positions []int, lead ...exec.Expr) *exec.RowExpr {
	args := slices.Clone(lead)
	for _, p := range positions {
		args = append(args, cols[p])
	}
	return &exec.RowExpr{Args: args, Typ: exec.TRecord}
}

// arrayOfRow returns ARRAY[row].
func arrayOfRow(row exec.Expr) exec.Expr {
	return &exec.ArrayExpr{Elems: []exec.Expr{row}, T: tRecordArray}
}
