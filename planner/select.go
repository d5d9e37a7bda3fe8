package planner

import (
	"context"
	"errors"
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// analyzer turns one statement's parse tree into a plan, against the
// catalog of the session's current transaction.
type analyzer struct {
	ctx context.Context
	s   Session
	tx  *exec.Txn
	// text is the statement's SQL text as the client sent it; "" for
	// a statement of a function's body or a cursor's query.
	text string
	// as, when set, is the authority privileges are checked with instead
	// of the current role's: a view's owner's, for the view's query.
	as *Authority
	// viewChecks are the WITH CHECK OPTION conditions of the views an
	// INSERT or UPDATE was rewritten through, pending until the
	// statement on the base table takes them (updatable.go).
	viewChecks []viewCheck
	// viewDefaults are the defaults the views an INSERT or UPDATE was
	// rewritten through give their base columns, by the target's column
	// names: pending like viewChecks, then, as defaultOverride, what
	// defaults gives those columns.
	viewDefaults, defaultOverride map[string]*pg.Node
	params                        []exec.T // parameter types, inferred as they are met
	// deps are the definitions of the tables the statement uses: its plan
	// stays valid while they are unchanged (Statement.reusable).
	deps []*sqldef.Table
	// auth is the authority privileges were checked with, if any were:
	// the plan holds only while it is current (privileges.go).
	auth AuthKey
	// colUse are the columns the statement's references resolved to, by
	// table OID and position, and colChecks the reads checked against
	// them at the end (colpriv.go); noColumnUse stops the counting (for
	// policies' expressions, which the role need not be able to read).
	colUse      map[uint32]map[int]bool
	colChecks   []columnCheck
	noColumnUse bool
	// locking are the locking clauses of the SELECT block whose FROM
	// items are being analyzed: the rows they lock must pass the UPDATE
	// policies too (rls.go).
	locking []*pg.Node
	kin     []kinDep // the children of the tables read (inherit.go)
	// funcs are the user functions the statement's calls were resolved
	// among: a plan stays valid while they are unchanged (function.go).
	funcs []funcDep
	// called are the user functions the calls analyzed resolved to, in
	// order: whether an expression is immutable depends on them
	// (generated.go).
	called []*sqldef.Function
	// families are the members of the Appends planned, for pruning.
	families map[*exec.Append][]familyMember
	// pinnedRoots are the root values of the revisions tables pinned by
	// time travel come from, where their children are found.
	pinnedRoots map[*exec.Table]Catalog
	// hidden are the names of relations of the statement that the part
	// being analyzed cannot name (a MERGE's target, in its source and
	// its WHEN NOT MATCHED clauses): naming one is PostgreSQL's "invalid
	// reference", not a missing FROM-clause entry.
	hidden []string

	// State of the query being analyzed; a nested query saves and clears
	// it (nested, restore).
	clause      string  // the clause being analyzed, for "not allowed in" errors
	inAgg       bool    // analyzing an aggregate's arguments
	inAggFilter bool    // ... its FILTER condition
	keepUnknown bool    // a set operation's leaf: leave unknown output columns to the set operation
	srfs        *srfSet // set-returning functions of the select list being analyzed
	nestedQuery bool    // analyzing a subquery, not the statement's own query
	windows     *winSet // window functions of the select list being analyzed
	inWindow    bool    // analyzing a window function's arguments
	// ctes are the WITH queries in scope, innermost last.
	ctes []*cteDef
	// vars, in a function body's statement, resolves the names no column
	// has to the function's variables and arguments (routine.go).
	vars *varScope
}

// analyzerState is the part of the analyzer's state that is per query.
type analyzerState struct {
	clause      string
	inAgg       bool
	inAggFilter bool
	keepUnknown bool
	srfs        *srfSet
	nestedQuery bool
	windows     *winSet
	inWindow    bool
}

// nested clears the per-query state for a nested query and returns it.
func (a *analyzer) nested() analyzerState {
	s := analyzerState{a.clause, a.inAgg, a.inAggFilter, a.keepUnknown, a.srfs, a.nestedQuery, a.windows, a.inWindow}
	a.clause, a.inAgg, a.inAggFilter, a.keepUnknown, a.srfs, a.nestedQuery, a.windows, a.inWindow = "", false, false, false, nil, true, nil, false
	return s
}

func (a *analyzer) restore(s analyzerState) {
	a.clause, a.inAgg, a.inAggFilter, a.keepUnknown, a.srfs, a.nestedQuery, a.windows, a.inWindow = s.clause, s.inAgg, s.inAggFilter, s.keepUnknown, s.srfs, s.nestedQuery, s.windows, s.inWindow
}

// table looks up a table named by a RangeVar.
func (a *analyzer) table(rv *pg.RangeVar) (*exec.Table, error) {
	if rv.Catalogname != "" {
		if t, err := a.revisionTable(rv); t != nil || err != nil {
			return t, err // "db@rev".schema.table
		}
	}
	if t, ok, err := a.virtualTable(a.ctx, rv.Schemaname, rv.Relname); ok || err != nil {
		return t, err // a catalog relation
	}
	t, ok, err := a.lookupTable(a.ctx, rv.Schemaname, rv.Relname)
	if !ok && err == nil {
		t, ok, err = a.storedSystemTable(a.ctx, rv.Schemaname, rv.Relname) // dolt_docs is dolt.docs
	}
	if !ok && err == nil {
		if t, ok, err = a.sequenceTable(a.ctx, rv.Schemaname, rv.Relname); ok || err != nil {
			return t, err // a sequence read as a relation
		}
		if t, ok, err = a.viewTable(a.ctx, rv.Schemaname, rv.Relname); ok || err != nil {
			return t, err // a view (view.go)
		}
		if t, ok, err = a.systemTableFor(a.ctx, rv.Schemaname, rv.Relname); ok || err != nil {
			return t, err // a version-control system table (doltfrom.go)
		}
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		if err := missingSystemTable(rv); err != nil {
			return nil, err
		}
		return nil, WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", Qualified(rv)), rv.Location)
	}
	a.deps = append(a.deps, t.Def)
	return t, nil
}

func Qualified(rv *pg.RangeVar) string {
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

// selectStmt plans a top-level query: SELECT, VALUES, a set operation,
// with WITH.
func (a *analyzer) selectStmt(s *pg.SelectStmt) (exec.Plan, error) {
	if s.IntoClause != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "SELECT INTO is not allowed here")
	}
	return a.query(s, &correlation{})
}

// query plans a query in the context corr links it to.
func (a *analyzer) query(s *pg.SelectStmt, corr *correlation) (exec.Plan, error) {
	if s.WithClause != nil {
		return a.with(s, corr)
	}
	switch {
	case s.Op != pg.SetOperation_SETOP_NONE:
		if err := checkLocking(s, nil, false, false); err != nil {
			return nil, err
		}
		return a.setOp(s, corr)
	case len(s.ValuesLists) > 0:
		v, err := a.valuesIn(s.ValuesLists, nil, &scope{corr: corr})
		if err != nil {
			return nil, err
		}
		return a.orderLimit(s, v, corr)
	}
	return a.block(s, corr)
}

// block plans one SELECT ... FROM ... WHERE ... GROUP BY ... HAVING ...
// ORDER BY ... LIMIT.
func (a *analyzer) block(s *pg.SelectStmt, corr *correlation) (exec.Plan, error) {
	saved := a.locking
	a.locking = s.LockingClause // for the policies of the tables it locks (rls.go)
	items, err := a.fromClause(s.FromClause, corr)
	a.locking = saved
	if err != nil {
		return nil, err
	}
	var in exec.Plan
	var sc *scope
	if len(items) == 0 {
		in = &exec.Values{Rows: [][]exec.Expr{{}}}
		sc = &scope{corr: corr}
		if s.WhereClause != nil {
			pred, err := a.condition(s.WhereClause, sc, "WHERE", "argument of WHERE")
			if err != nil {
				return nil, err
			}
			in = &exec.Filter{In: in, Pred: pred}
		}
	} else if in, sc, err = a.planFrom(items, s.WhereClause, corr); err != nil {
		return nil, err
	}
	p, err := a.blockOutput(s, corr, in, sc, false)
	var rg *regroupError
	if errors.As(err, &rg) && rg.scope == sc {
		// A subquery of the select list aggregates this query's rows.
		return a.blockOutput(s, corr, in, sc, true)
	}
	return p, err
}

// blockOutput plans the rest of a SELECT over the rows of its FROM and
// WHERE (in, named by sc): grouping, the select list, DISTINCT, ORDER BY,
// LIMIT. grouped makes it an aggregating query without a GROUP BY or an
// aggregate of its own.
func (a *analyzer) blockOutput(s *pg.SelectStmt, corr *correlation, in exec.Plan, sc *scope, grouped bool) (exec.Plan, error) {
	var err error
	// Grouping: the select list, HAVING and ORDER BY are then over the
	// groups.
	tsc := sc
	var g *grouping
	var sortNodes []*pg.Node
	for _, n := range s.SortClause {
		sortNodes = append(sortNodes, n.GetSortBy().Node)
	}
	if grouped || len(s.GroupClause) > 0 || s.HavingClause != nil || a.containsAgg(s.TargetList...) || a.containsAgg(sortNodes...) {
		g = &grouping{input: sc}
		if err := a.groupBy(g, s.GroupClause, s.TargetList); err != nil {
			return nil, err
		}
		tsc = &scope{items: sc.items, corr: corr, group: g}
	}
	srfs := &srfSet{}
	wins := &winSet{named: map[string]*pg.WindowDef{}}
	for _, n := range s.WindowClause {
		wd := n.GetWindowDef()
		if _, dup := wins.named[wd.Name]; dup {
			return nil, WithPos(pgerr.New(codeWindowingError, "window %q is already defined", wd.Name), wd.Location)
		}
		wins.named[wd.Name] = wd
	}
	a.srfs, a.windows = srfs, wins
	exprs, cols, err := a.targets(s.TargetList, tsc)
	a.srfs, a.windows = nil, nil
	if err != nil {
		return nil, err
	}
	var having exec.Expr
	if s.HavingClause != nil {
		if having, err = a.condition(s.HavingClause, tsc, "HAVING", "argument of HAVING"); err != nil {
			return nil, err
		}
	}
	visible := len(exprs)
	a.srfs, a.windows = srfs, wins
	keys, err := a.sortKeys(s.SortClause, tsc, &exprs, cols)
	a.srfs, a.windows = nil, nil
	if err != nil {
		return nil, err
	}
	distinct := len(s.DistinctClause) > 0
	if distinct && s.DistinctClause[0].GetNode() == nil {
		for i := 0; i < visible; i++ {
			if t := exprs[i].Type(); !exec.HasBtreeOrdering(t.OID) {
				loc := int32(-1)
				if len(s.TargetList) == visible {
					loc = ExprLocation(s.TargetList[i].GetResTarget().Val)
				}
				return nil, errNoEquality(t, loc)
			}
		}
	}
	var onCols []int
	if distinct && s.DistinctClause[0].GetNode() != nil {
		for _, n := range s.DistinctClause {
			idx, err := a.sortTarget(n, tsc, &exprs, cols)
			if err != nil {
				return nil, err
			}
			if t := exprs[idx].Type(); !exec.HasBtreeOrdering(t.OID) {
				return nil, errNoEquality(t, ExprLocation(n))
			}
			if !containsInt(onCols, idx) {
				onCols = append(onCols, idx)
			}
		}
	}
	if err := checkLocking(s, sc, g != nil, len(srfs.funcs) > 0); err != nil {
		return nil, err
	}
	// FOR UPDATE: the rows carry their table row in hidden columns, for
	// LockRows to find their keys and redo them from a newer version.
	if err := a.lockingPrivileges(s, sc); err != nil {
		return nil, err
	}
	lock, err := a.rowLocking(s, sc, g != nil || len(wins.specs) > 0, exprs)
	if err != nil {
		return nil, err
	}
	if lock != nil {
		exprs = append(exprs, fromColumns(sc, lock.Width)...)
		lock.Exprs = exprs
	}
	if g != nil {
		in = g.plan(in)
		if having != nil {
			in = &exec.Filter{In: in, Pred: having}
		}
	}
	order := make([]exec.Expr, len(keys))
	for i, k := range keys {
		order[i] = exprs[k.Col]
	}
	in = wins.plan(in, order)
	sortedFirst := false
	if len(srfs.funcs) > 0 && !distinct && lock == nil {
		in, sortedFirst = sortBeforeSRFs(in, exprs, keys)
	}
	in = srfs.plan(in)
	allCols := cols
	for len(allCols) < len(exprs) {
		allCols = append(allCols, exec.ResultColumn{Name: "?sort?", T: exprs[len(allCols)].Type()})
	}
	var out exec.Plan = &exec.Project{In: in, Exprs: exprs, Cols: allCols}
	switch {
	case distinct && onCols == nil:
		for _, k := range keys {
			if k.Col >= visible {
				return nil, pgerr.New(pgerr.InvalidColumnReference, "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
			}
		}
		out = &exec.Distinct{In: out}
	case distinct:
		// ORDER BY must start with the DISTINCT ON expressions, in any
		// order; those it lacks sort last.
		skipped := false
		covered := map[int]bool{}
		for _, k := range keys {
			if !containsInt(onCols, k.Col) {
				skipped = true
				continue
			}
			if skipped {
				return nil, pgerr.New(pgerr.InvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions")
			}
			covered[k.Col] = true
		}
		for _, c := range onCols {
			if covered[c] {
				continue
			}
			if skipped {
				return nil, pgerr.New(pgerr.InvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions")
			}
			keys = append(keys, exec.SortKey{Col: c})
		}
		out = &exec.Unique{In: &exec.Sort{In: out, Keys: keys}, Cols: onCols}
		keys = nil // already sorted
	}
	if len(keys) > 0 && !sortedFirst {
		if ordered, ok := orderedScan(in, exprs, keys, s.LimitCount != nil); ok && !distinct {
			out = &exec.Project{In: ordered, Exprs: exprs, Cols: allCols} // read in order (index.go)
		} else {
			out = &exec.Sort{In: out, Keys: keys}
		}
	}
	if lock != nil {
		lock.In = out
		out = lock
	}
	if out, err = a.limit(s, out, keys, corr); err != nil {
		return nil, err
	}
	if len(exprs) > visible {
		out = dropHidden(out, cols)
	}
	return out, nil
}

// sortBeforeSRFs returns in sorted by keys, and true, when every key is a
// column of in: the select list's set-returning functions then run after
// the sort, as PostgreSQL postpones them (make_sort_input_target), so that
// the rows one input row expands to stay together and in the functions'
// order, ties or not. keys are positions in exprs, the select list over in;
// a set-returning function's value is no column of in yet.
func sortBeforeSRFs(in exec.Plan, exprs []exec.Expr, keys []exec.SortKey) (exec.Plan, bool) {
	if len(keys) == 0 {
		return in, false
	}
	width := len(in.Columns())
	inKeys := make([]exec.SortKey, len(keys))
	for i, k := range keys {
		c, ok := exprs[k.Col].(*exec.ColRef)
		if !ok || c.Idx < 0 || c.Idx >= width {
			return in, false
		}
		inKeys[i] = k
		inKeys[i].Col = c.Idx
	}
	return &exec.Sort{In: in, Keys: inKeys}, true
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// dropHidden projects the first len(cols) columns of p.
func dropHidden(p exec.Plan, cols []exec.ResultColumn) exec.Plan {
	drop := make([]exec.Expr, len(cols))
	for i := range drop {
		drop[i] = &exec.ColRef{Idx: i, T: cols[i].T}
	}
	return &exec.Project{In: p, Exprs: drop, Cols: cols}
}

// sortKeys analyzes an ORDER BY list, adding hidden columns to exprs for
// expressions not in the select list.
func (a *analyzer) sortKeys(list []*pg.Node, sc *scope, exprs *[]exec.Expr, cols []exec.ResultColumn) ([]exec.SortKey, error) {
	var keys []exec.SortKey
	for _, sb := range list {
		by := sb.GetSortBy()
		if by.SortbyDir == pg.SortByDir_SORTBY_USING {
			// USING < and USING > are ASC and DESC for the built-in types.
			switch OpName(by.UseOp) {
			case "<", "<=":
				by = &pg.SortBy{Node: by.Node, SortbyDir: pg.SortByDir_SORTBY_ASC, SortbyNulls: by.SortbyNulls}
			case ">", ">=":
				by = &pg.SortBy{Node: by.Node, SortbyDir: pg.SortByDir_SORTBY_DESC, SortbyNulls: by.SortbyNulls}
			default:
				return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "ORDER BY ... USING %s is not supported", OpName(by.UseOp)), by.Location)
			}
		}
		idx, err := a.sortTarget(by.Node, sc, exprs, cols)
		if err != nil {
			return nil, err
		}
		if t := (*exprs)[idx].Type(); !exec.HasBtreeOrdering(t.OID) {
			return nil, WithPos(pgerr.New(pgerr.UndefinedFunction, "could not identify an ordering operator for type %s", exec.TypeName(t.OID)).
				WithHint("Use an explicit ordering operator or modify the query."), ExprLocation(by.Node))
		}
		keys = append(keys, sortKey(by, idx))
	}
	return keys, nil
}

func sortKey(by *pg.SortBy, idx int) exec.SortKey {
	k := exec.SortKey{Col: idx, Desc: by.SortbyDir == pg.SortByDir_SORTBY_DESC}
	k.NullsFirst = k.Desc
	switch by.SortbyNulls {
	case pg.SortByNulls_SORTBY_NULLS_FIRST:
		k.NullsFirst = true
	case pg.SortByNulls_SORTBY_NULLS_LAST:
		k.NullsFirst = false
	}
	return k
}

// limit adds LIMIT/OFFSET (or FETCH FIRST) to p, sorted by keys. Their
// expressions see no column of the query itself, but may read enclosing
// queries' (corr), as PostgreSQL's: OFFSET s - 1 in a subquery of a
// query over s.
func (a *analyzer) limit(s *pg.SelectStmt, p exec.Plan, keys []exec.SortKey, corr *correlation) (exec.Plan, error) {
	if s.LimitCount == nil && s.LimitOffset == nil {
		return p, nil
	}
	var count, offset exec.Expr
	var err error
	if s.LimitCount != nil {
		if count, err = a.limitExpr(s.LimitCount, "LIMIT", corr); err != nil {
			return nil, err
		}
	}
	if s.LimitOffset != nil {
		if offset, err = a.limitExpr(s.LimitOffset, "OFFSET", corr); err != nil {
			return nil, err
		}
	}
	if s.LimitOption == pg.LimitOption_LIMIT_OPTION_WITH_TIES {
		if len(s.SortClause) == 0 {
			return nil, pgerr.New(pgerr.SyntaxError, "WITH TIES cannot be specified without ORDER BY clause")
		}
		if c := s.LimitCount.GetAConst(); c != nil && c.Isnull {
			return nil, WithPos(pgerr.New(pgerr.Code("2201W"), "row count cannot be null in FETCH FIRST ... WITH TIES clause"), c.Location)
		}
		return &exec.LimitTies{In: p, Count: count, Offset: offset, Keys: keys}, nil
	}
	return &exec.Limit{In: p, Count: count, Offset: offset}, nil
}

func (a *analyzer) limitExpr(n *pg.Node, what string, corr *correlation) (exec.Expr, error) {
	if c := n.GetAConst(); c != nil && c.Isnull {
		return nil, nil // LIMIT NULL / LIMIT ALL
	}
	saved := a.clause
	a.clause = what
	defer func() { a.clause = saved }()
	var sc *scope
	if corr != nil {
		sc = &scope{corr: corr}
	}
	e, err := a.expr(n, sc)
	if err != nil {
		return nil, err
	}
	return a.coerce(e, exec.TInt8, "argument of "+what, -1)
}

// orderLimit adds the ORDER BY and LIMIT of a VALUES list or a set
// operation, which can only sort by output columns.
func (a *analyzer) orderLimit(s *pg.SelectStmt, p exec.Plan, corr *correlation) (exec.Plan, error) {
	cols := p.Columns()
	var keys []exec.SortKey
	if len(s.SortClause) > 0 {
		ns := &nsItem{colsVisible: true}
		for i, c := range cols {
			ns.cols = append(ns.cols, &scopeCol{name: c.Name, t: c.T, idx: i})
		}
		sc := &scope{items: []*nsItem{ns}, corr: corr}
		exprs := make([]exec.Expr, len(cols))
		for i, c := range cols {
			exprs[i] = &exec.ColRef{Idx: i, T: c.T}
		}
		var err error
		if keys, err = a.sortKeys(s.SortClause, sc, &exprs, cols); err != nil {
			return nil, err
		}
		for _, k := range keys {
			if k.Col >= len(cols) {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "invalid UNION/INTERSECT/EXCEPT ORDER BY clause").
					WithDetail("Only result column names can be used, not expressions or functions.").
					WithHint("Add the expression/function to every SELECT, or move the UNION into a FROM clause.")
			}
		}
		p = &exec.Sort{In: p, Keys: keys}
	}
	return a.limit(s, p, keys, corr)
}

// sortTarget returns the column of exprs an ORDER BY item sorts by: an
// output column by position or name, an output column equal to the
// expression, or a new hidden column.
func (a *analyzer) sortTarget(n *pg.Node, sc *scope, exprs *[]exec.Expr, cols []exec.ResultColumn) (int, error) {
	if c := n.GetAConst(); c != nil && c.GetIval() != nil {
		pos := int(c.GetIval().Ival)
		if pos < 1 || pos > len(cols) {
			return 0, WithPos(pgerr.New(pgerr.InvalidColumnReference, "ORDER BY position %d is not in select list", pos), c.Location)
		}
		return pos - 1, nil
	}
	if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
		name := cr.Fields[0].GetString_().Sval
		found := -1
		for i, c := range cols {
			if c.Name != name {
				continue
			}
			if found >= 0 && !exprEqual((*exprs)[found], (*exprs)[i]) {
				return 0, WithPos(pgerr.New(pgerr.AmbiguousColumn, "ORDER BY %q is ambiguous", name), cr.Location)
			}
			if found < 0 {
				found = i
			}
		}
		if found >= 0 {
			return found, nil
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
	for i, x := range *exprs {
		if exprEqual(x, e) {
			return i, nil
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
			es, cs, err := a.star(cr, sc)
			if err != nil {
				return nil, nil, err
			}
			exprs, cols = append(exprs, es...), append(cols, cs...)
			continue
		}
		if ind := rt.Val.GetAIndirection(); ind != nil && ind.Indirection[len(ind.Indirection)-1].GetAStar() != nil {
			es, cs, err := a.fieldStar(ind, sc)
			if err != nil {
				return nil, nil, err
			}
			exprs, cols = append(exprs, es...), append(cols, cs...)
			continue
		}
		e, err := a.expr(rt.Val, sc)
		if err != nil {
			return nil, nil, err
		}
		if e.Type().OID == exec.OIDUnknown && !a.keepUnknown {
			if e, err = a.coerce(e, exec.TText, "", -1); err != nil {
				return nil, nil, err
			}
		}
		col := exec.ResultColumn{Name: rt.Name, T: e.Type()}
		if col.Name == "" {
			col.Name = columnName(rt.Val)
		}
		if cr := rt.Val.GetColumnRef(); cr != nil && sc != nil {
			if c := sc.columnOf(cr); c != nil {
				col.TableOID, col.AttNum = c.tableOID, c.attnum
			}
		}
		exprs = append(exprs, e)
		cols = append(cols, col)
	}
	return exprs, cols, nil
}

// columnOf returns the column a column reference names in sc's own
// items, if any (for RowDescription's table and column numbers).
func (sc *scope) columnOf(cr *pg.ColumnRef) *scopeCol {
	var parts []string
	for _, f := range cr.Fields {
		if f.GetString_() == nil {
			return nil
		}
		parts = append(parts, f.GetString_().Sval)
	}
	table := ""
	if len(parts) > 1 {
		table = parts[len(parts)-2]
	}
	_, c, _ := sc.lookup(table, parts[len(parts)-1], -1)
	return c
}

// star expands * or name.* in a select list.
func (a *analyzer) star(cr *pg.ColumnRef, sc *scope) ([]exec.Expr, []exec.ResultColumn, error) {
	if sc == nil || len(sc.items) == 0 {
		if len(cr.Fields) == 1 {
			return nil, nil, WithPos(pgerr.New(pgerr.SyntaxError, "SELECT * with no tables specified is not valid"), cr.Location)
		}
	}
	table := ""
	if len(cr.Fields) > 1 {
		table = cr.Fields[len(cr.Fields)-2].GetString_().Sval
	}
	var exprs []exec.Expr
	var cols []exec.ResultColumn
	found := false
	for _, it := range sc.itemsOrNil() {
		if table == "" && !it.colsVisible || table != "" && (!it.relVisible || it.name != table) {
			continue
		}
		found = true
		for _, c := range it.cols {
			e, err := a.itemColumn(sc, it, c, cr.Location)
			if err != nil {
				return nil, nil, err
			}
			exprs = append(exprs, e)
			cols = append(cols, exec.ResultColumn{Name: c.name, T: c.t, TableOID: c.tableOID, AttNum: c.attnum})
		}
	}
	if table != "" && !found {
		// name.* of an enclosing query's item: its columns as outer
		// references.
		it := sc.outerItem(table)
		if it == nil && a.vars != nil {
			// r.* of a PL/pgSQL record variable (NEW.*, OLD.*): its
			// fields, as variables.
			if fields, ok := a.vars.vars.Record(table); ok {
				for _, f := range fields {
					if e, ok := a.vars.param(a, table, f.Name); ok {
						exprs = append(exprs, e)
						cols = append(cols, exec.ResultColumn{Name: f.Name, T: e.Type()})
					}
				}
				return exprs, cols, nil
			}
		}
		if it == nil {
			return nil, nil, WithPos(pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", table), cr.Location)
		}
		for _, c := range it.cols {
			e, err := a.resolveColumn(sc, table, c.name, cr.Location)
			if err != nil {
				return nil, nil, err
			}
			exprs = append(exprs, e)
			cols = append(cols, exec.ResultColumn{Name: c.name, T: c.t, TableOID: c.tableOID, AttNum: c.attnum})
		}
	}
	return exprs, cols, nil
}

// outerItem returns the item named table of the innermost enclosing query
// that has one.
func (sc *scope) outerItem(table string) *nsItem {
	for s := sc; s != nil && s.corr != nil; {
		s = s.corr.outer
		for _, it := range s.itemsOrNil() {
			if it.relVisible && it.name == table {
				return it
			}
		}
	}
	return nil
}

func (sc *scope) itemsOrNil() []*nsItem {
	if sc == nil {
		return nil
	}
	return sc.items
}

// itemColumn returns the expression of a column found in sc's own items.
func (a *analyzer) itemColumn(sc *scope, it *nsItem, c *scopeCol, loc int32) (exec.Expr, error) {
	a.useColumn(c)
	if sc.track != nil {
		sc.track(it)
	}
	if sc.group != nil {
		return a.groupedColumn(sc, it, c, loc, false)
	}
	return c.colRef(), nil
}

// columnName is the name PostgreSQL gives an unnamed output column.
// IndexColumnName is PostgreSQL's FigureIndexColname: the name an index
// expression (or an exclusion constraint's) gives the index's name: a
// column's or function's name, the keyword of CASE, COALESCE and the
// like, a cast's argument's; "expr" otherwise, as a cast's type name is
// too weak a name.
func IndexColumnName(n *pg.Node) string {
	for n.GetTypeCast() != nil {
		n = n.GetTypeCast().Arg
	}
	if name := columnName(n); name != "?column?" {
		return name
	}
	return "expr"
}

// castColumnName names a cast's column as PostgreSQL's FigureColname: by
// the innermost argument when that gives a strong name (a column or a
// function: tableoid::regclass::text is "tableoid"), else by the
// outermost type ('a'::varchar::text is "text"); strong reports which.
func castColumnName(tc *pg.TypeCast) (name string, strong bool) {
	if inner := tc.Arg.GetTypeCast(); inner != nil {
		if name, strong := castColumnName(inner); strong {
			return name, true
		}
	} else if tc.Arg.GetCaseExpr() == nil {
		if name := columnName(tc.Arg); name != "?column?" {
			return name, true
		}
	}
	names := tc.TypeName.Names
	return names[len(names)-1].GetString_().Sval, false
}

func columnName(n *pg.Node) string {
	switch {
	case n.GetColumnRef() != nil:
		f := n.GetColumnRef().Fields
		if f[len(f)-1].GetString_() == nil {
			return "?column?"
		}
		return f[len(f)-1].GetString_().Sval
	case n.GetFuncCall() != nil:
		return OpName(n.GetFuncCall().Funcname)
	case n.GetTypeCast() != nil:
		name, _ := castColumnName(n.GetTypeCast())
		return name
	case n.GetCaseExpr() != nil:
		// CASE takes its ELSE's name when that is a strong one, as
		// PostgreSQL's FigureColname: CASE ... ELSE g END is "g".
		if d := n.GetCaseExpr().Defresult; d != nil && d.GetTypeCast() == nil && d.GetCaseExpr() == nil {
			if name := columnName(d); name != "?column?" {
				return name
			}
		}
		return "case"
	case n.GetXmlExpr() != nil:
		if name, ok := map[pg.XmlExprOp]string{pg.XmlExprOp_IS_XMLCONCAT: "xmlconcat", pg.XmlExprOp_IS_XMLELEMENT: "xmlelement",
			pg.XmlExprOp_IS_XMLFOREST: "xmlforest", pg.XmlExprOp_IS_XMLPARSE: "xmlparse", pg.XmlExprOp_IS_XMLPI: "xmlpi",
			pg.XmlExprOp_IS_XMLROOT: "xmlroot"}[n.GetXmlExpr().Op]; ok {
			return name
		}
	case n.GetXmlSerialize() != nil:
		return "xmlserialize"
	case n.GetCoalesceExpr() != nil:
		return "coalesce"
	case n.GetMinMaxExpr() != nil:
		return map[bool]string{true: "greatest", false: "least"}[n.GetMinMaxExpr().Op == pg.MinMaxOp_IS_GREATEST]
	case n.GetSubLink() != nil:
		sl := n.GetSubLink()
		switch sl.SubLinkType {
		case pg.SubLinkType_EXISTS_SUBLINK:
			return "exists"
		case pg.SubLinkType_ARRAY_SUBLINK:
			return "array"
		case pg.SubLinkType_EXPR_SUBLINK:
			sel := sl.Subselect.GetSelectStmt()
			for sel != nil && sel.Op != pg.SetOperation_SETOP_NONE {
				sel = sel.Larg
			}
			if sel != nil && len(sel.ValuesLists) > 0 {
				return "column1"
			}
			if sel != nil && len(sel.TargetList) > 0 {
				rt := sel.TargetList[0].GetResTarget()
				if rt.Name != "" {
					return rt.Name
				}
				return columnName(rt.Val)
			}
		}
	}
	return columnNameMore(n)
}

// values plans a VALUES list; types, when given, are the target columns'
// (INSERT), else each column takes the common type of its rows.
func (a *analyzer) values(lists []*pg.Node, types []exec.T) (*exec.Values, error) {
	return a.valuesIn(lists, types, nil)
}

// valuesIn is values with expressions over sc (a VALUES list in a
// subquery may read the enclosing query's columns).
func (a *analyzer) valuesIn(lists []*pg.Node, types []exec.T, sc *scope) (*exec.Values, error) {
	saved := a.clause
	a.clause = "VALUES"
	defer func() { a.clause = saved }()
	var rows [][]exec.Expr
	width := -1
	for _, l := range lists {
		items := l.GetList().Items
		var row []exec.Expr
		for _, it := range items {
			if it.GetSetToDefault() != nil {
				if types == nil {
					return nil, WithPos(pgerr.New(pgerr.SyntaxError, "DEFAULT is not allowed in this context"), it.GetSetToDefault().Location)
				}
				row = append(row, nil)
				continue
			}
			// name.* and (expr).* stand for their columns, as in a
			// select list (NEW.* in a trigger's INSERT ... VALUES).
			if isQualifiedStar(it) {
				es, _, err := a.star(it.GetColumnRef(), sc)
				if err != nil {
					return nil, err
				}
				row = append(row, es...)
				continue
			}
			if ind := it.GetAIndirection(); ind != nil && ind.Indirection[len(ind.Indirection)-1].GetAStar() != nil {
				es, _, err := a.fieldStar(ind, sc)
				if err != nil {
					return nil, err
				}
				row = append(row, es...)
				continue
			}
			e, err := a.expr(it, sc)
			if err != nil {
				return nil, err
			}
			row = append(row, e)
		}
		if width >= 0 && len(row) != width {
			return nil, WithPos(pgerr.New(pgerr.SyntaxError, "VALUES lists must all be the same length"), ExprLocation(items[0]))
		}
		width = len(row)
		rows = append(rows, row)
	}
	cols := make([]exec.ResultColumn, width)
	for c := 0; c < width; c++ {
		var t exec.T
		if types != nil && c < len(types) {
			t = types[c]
		} else {
			var ts []exec.T
			for _, r := range rows {
				if r[c] != nil {
					ts = append(ts, r[c].Type())
				}
			}
			var err error
			loc := int32(-1)
			if items := lists[0].GetList().Items; c < len(items) { // not past a name.*
				loc = ExprLocation(items[c])
			}
			if t, err = commonType(ts, "VALUES", loc); err != nil {
				return nil, err
			}
			for _, r := range rows {
				if r[c] == nil {
					continue
				}
				if r[c], err = a.coerce(r[c], t, "", -1); err != nil {
					return nil, err
				}
			}
		}
		cols[c] = exec.ResultColumn{Name: "column" + strconv.Itoa(c+1), T: t}
	}
	return &exec.Values{Rows: rows, Cols: cols}, nil
}
