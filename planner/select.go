package planner

import (
	"context"
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
)

// analyzer turns one statement's parse tree into a plan, against the
// catalog of the session's current transaction.
type analyzer struct {
	ctx    context.Context
	s      *Session
	tx     *exec.Txn
	params []exec.T // parameter types, inferred as they are met
	// deps are the definitions of the tables the statement uses: its plan
	// stays valid while they are unchanged (Statement.reusable).
	deps []*versioning.Table
}

// table looks up a table named by a RangeVar.
func (a *analyzer) table(rv *pg.RangeVar) (*exec.Table, error) {
	schema := rv.Schemaname
	if schema == "" {
		schema = "public"
	}
	t, ok, err := a.tx.Table(a.ctx, schema, rv.Relname)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, withPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", qualified(rv)), rv.Location)
	}
	a.deps = append(a.deps, t.Def)
	return t, nil
}

func qualified(rv *pg.RangeVar) string {
	if rv.Schemaname != "" {
		return rv.Schemaname + "." + rv.Relname
	}
	return rv.Relname
}

func aliasOf(rv *pg.RangeVar) string {
	if rv.Alias != nil {
		return rv.Alias.Aliasname
	}
	return rv.Relname
}

// selectStmt plans a SELECT (or a bare VALUES list).
func (a *analyzer) selectStmt(s *pg.SelectStmt) (exec.Plan, error) {
	if s.Op != pg.SetOperation_SETOP_NONE {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "UNION, INTERSECT and EXCEPT are not supported yet")
	}
	if len(s.ValuesLists) > 0 {
		return a.values(s.ValuesLists, nil)
	}
	if s.WithClause != nil || len(s.GroupClause) > 0 || s.HavingClause != nil || len(s.DistinctClause) > 0 || s.IntoClause != nil || len(s.LockingClause) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "this SELECT is not supported yet")
	}
	var in exec.Plan = &exec.Values{Rows: [][]exec.Expr{{}}}
	var sc *scope
	switch len(s.FromClause) {
	case 0:
	case 1:
		rv := s.FromClause[0].GetRangeVar()
		if rv == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "joins and subqueries in FROM are not supported yet")
		}
		t, err := a.table(rv)
		if err != nil {
			return nil, err
		}
		sc = tableScope(t, aliasOf(rv))
		in = &exec.Scan{Table: t}
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "joins are not supported yet")
	}
	if s.WhereClause != nil {
		pred, err := a.expr(s.WhereClause, sc)
		if err != nil {
			return nil, err
		}
		if pred, err = a.coerce(pred, exec.TBool, "argument of WHERE", -1); err != nil {
			return nil, err
		}
		in = &exec.Filter{In: in, Pred: pred}
	}
	exprs, cols, err := a.targets(s.TargetList, sc)
	if err != nil {
		return nil, err
	}
	visible := len(exprs)
	var keys []exec.SortKey
	for _, sb := range s.SortClause {
		by := sb.GetSortBy()
		idx, err := a.sortTarget(by.Node, sc, &exprs, cols)
		if err != nil {
			return nil, err
		}
		k := exec.SortKey{Col: idx, Desc: by.SortbyDir == pg.SortByDir_SORTBY_DESC}
		k.NullsFirst = k.Desc
		switch by.SortbyNulls {
		case pg.SortByNulls_SORTBY_NULLS_FIRST:
			k.NullsFirst = true
		case pg.SortByNulls_SORTBY_NULLS_LAST:
			k.NullsFirst = false
		}
		keys = append(keys, k)
	}
	allCols := cols
	for len(allCols) < len(exprs) {
		allCols = append(allCols, exec.ResultColumn{Name: "?sort?", T: exprs[len(allCols)].Type()})
	}
	var out exec.Plan = &exec.Project{In: in, Exprs: exprs, Cols: allCols}
	if len(keys) > 0 {
		out = &exec.Sort{In: out, Keys: keys}
	}
	if s.LimitCount != nil || s.LimitOffset != nil {
		lim := &exec.Limit{In: out}
		if s.LimitCount != nil {
			if lim.Count, err = a.limitExpr(s.LimitCount, "LIMIT"); err != nil {
				return nil, err
			}
		}
		if s.LimitOffset != nil {
			if lim.Offset, err = a.limitExpr(s.LimitOffset, "OFFSET"); err != nil {
				return nil, err
			}
		}
		out = lim
	}
	if len(exprs) > visible {
		drop := make([]exec.Expr, visible)
		for i := range drop {
			drop[i] = &exec.ColRef{Idx: i, T: exprs[i].Type()}
		}
		out = &exec.Project{In: out, Exprs: drop, Cols: cols}
	}
	return out, nil
}

func (a *analyzer) limitExpr(n *pg.Node, what string) (exec.Expr, error) {
	if c := n.GetAConst(); c != nil && c.Isnull {
		return nil, nil // LIMIT NULL / LIMIT ALL
	}
	e, err := a.expr(n, nil)
	if err != nil {
		return nil, err
	}
	return a.coerce(e, exec.TInt8, "argument of "+what, -1)
}

// sortTarget returns the column of exprs an ORDER BY item sorts by: an
// output column by position or name, or a new hidden column.
func (a *analyzer) sortTarget(n *pg.Node, sc *scope, exprs *[]exec.Expr, cols []exec.ResultColumn) (int, error) {
	if c := n.GetAConst(); c != nil && c.GetIval() != nil {
		pos := int(c.GetIval().Ival)
		if pos < 1 || pos > len(cols) {
			return 0, withPos(pgerr.New(pgerr.InvalidColumnReference, "ORDER BY position %d is not in select list", pos), c.Location)
		}
		return pos - 1, nil
	}
	if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
		name := cr.Fields[0].GetString_().Sval
		for i, c := range cols {
			if c.Name == name {
				return i, nil
			}
		}
	}
	e, err := a.expr(n, sc)
	if err != nil {
		return 0, err
	}
	if e.Type().OID == exec.OIDUnknown {
		if e, err = a.coerce(e, exec.TText, "", -1); err != nil {
			return 0, err
		}
	}
	*exprs = append(*exprs, e)
	return len(*exprs) - 1, nil
}

// targets analyzes a select list, expanding *.
func (a *analyzer) targets(list []*pg.Node, sc *scope) ([]exec.Expr, []exec.ResultColumn, error) {
	var exprs []exec.Expr
	var cols []exec.ResultColumn
	for _, n := range list {
		rt := n.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			if sc == nil {
				return nil, nil, withPos(pgerr.New(pgerr.SyntaxError, "SELECT * with no tables specified is not valid"), cr.Location)
			}
			table := ""
			if len(cr.Fields) > 1 {
				table = cr.Fields[len(cr.Fields)-2].GetString_().Sval
			}
			for _, c := range sc.cols {
				if table == "" || c.table == table {
					exprs = append(exprs, &exec.ColRef{Idx: c.idx, T: c.t})
					cols = append(cols, exec.ResultColumn{Name: c.name, T: c.t, TableOID: c.tableOID, AttNum: c.attnum})
				}
			}
			continue
		}
		e, err := a.expr(rt.Val, sc)
		if err != nil {
			return nil, nil, err
		}
		if e.Type().OID == exec.OIDUnknown {
			if e, err = a.coerce(e, exec.TText, "", -1); err != nil {
				return nil, nil, err
			}
		}
		col := exec.ResultColumn{Name: rt.Name, T: e.Type()}
		if col.Name == "" {
			col.Name = columnName(rt.Val)
		}
		if cr, ok := e.(*exec.ColRef); ok && rt.Val.GetColumnRef() != nil {
			for _, c := range sc.cols {
				if c.idx == cr.Idx {
					col.TableOID, col.AttNum = c.tableOID, c.attnum
				}
			}
		}
		exprs = append(exprs, e)
		cols = append(cols, col)
	}
	return exprs, cols, nil
}

// columnName is the name PostgreSQL gives an unnamed output column.
func columnName(n *pg.Node) string {
	switch {
	case n.GetColumnRef() != nil:
		f := n.GetColumnRef().Fields
		return f[len(f)-1].GetString_().Sval
	case n.GetFuncCall() != nil:
		return opName(n.GetFuncCall().Funcname)
	case n.GetTypeCast() != nil:
		tc := n.GetTypeCast()
		if name := columnName(tc.Arg); name != "?column?" {
			return name
		}
		names := tc.TypeName.Names
		tn := names[len(names)-1].GetString_().Sval
		return tn
	case n.GetCaseExpr() != nil:
		return "case"
	case n.GetCoalesceExpr() != nil:
		return "coalesce"
	}
	return "?column?"
}

// values plans a VALUES list; types, when given, are the target columns'
// (INSERT), else each column takes the common type of its rows.
func (a *analyzer) values(lists []*pg.Node, types []exec.T) (*exec.Values, error) {
	var rows [][]exec.Expr
	width := -1
	for _, l := range lists {
		items := l.GetList().Items
		if width >= 0 && len(items) != width {
			return nil, pgerr.New(pgerr.SyntaxError, "VALUES lists must all be the same length")
		}
		width = len(items)
		var row []exec.Expr
		for _, it := range items {
			if it.GetSetToDefault() != nil {
				if types == nil {
					return nil, withPos(pgerr.New(pgerr.SyntaxError, "DEFAULT is not allowed in this context"), it.GetSetToDefault().Location)
				}
				row = append(row, nil)
				continue
			}
			e, err := a.expr(it, nil)
			if err != nil {
				return nil, err
			}
			row = append(row, e)
		}
		rows = append(rows, row)
	}
	cols := make([]exec.ResultColumn, width)
	for c := 0; c < width; c++ {
		t := exec.TUnknown
		if types != nil && c < len(types) {
			t = types[c]
		} else {
			for _, r := range rows {
				if r[c] != nil && r[c].Type().OID != exec.OIDUnknown {
					t = baseType(r[c].Type())
					break
				}
			}
			if t.OID == exec.OIDUnknown {
				t = exec.TText
			}
		}
		for _, r := range rows {
			if r[c] == nil {
				continue
			}
			var err error
			if types != nil {
				continue // INSERT converts by assignment, per column
			}
			if r[c], err = a.coerce(r[c], t, "", -1); err != nil {
				return nil, pgerr.New(pgerr.DatatypeMismatch, "VALUES types %s and %s cannot be matched", exec.TypeName(t.OID), exec.TypeName(r[c].Type().OID))
			}
		}
		cols[c] = exec.ResultColumn{Name: "column" + strconv.Itoa(c+1), T: t}
	}
	return &exec.Values{Rows: rows, Cols: cols}, nil
}
