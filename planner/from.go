package planner

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// fromItem is one analyzed FROM item: a leaf (table, subquery, VALUES,
// CTE, function) with its plan, or a join of two items. Its namespace
// items and columns are over the item's own rows.
type fromItem struct {
	plan  exec.Plan // leaves
	width int
	items []*nsItem
	cols  []*scopeCol // the item's columns as a whole, in the order * shows them
	// lateral is set for an item that reads the items to its left: a
	// LATERAL subquery, a function in FROM, a join with such an item.
	// The args of lateralCorr are then the values it reads, over the
	// row to its left (see exec.NestedLoop.Lateral).
	lateral     bool
	lateralCorr *correlation
	// corr is the correlation a join's conditions are analyzed in; a
	// join that reads only values of the enclosing query through it runs
	// rebound to rebind's args (see exec.Rebind).
	corr   *correlation
	rebind *correlation

	// Joins.
	left, right *fromItem
	kind        exec.JoinKind
	on          *pg.Node
	// usingL, usingR are the USING (or NATURAL) column pairs, over each
	// side's row; mergedT their common types.
	usingL, usingR []*scopeCol
	mergedT        []exec.T
	// extra are the columns the join adds after both sides: merged USING
	// columns that are not simply one side's column.
	extra []exec.Expr
	// flat marks a plain inner join (comma, CROSS JOIN, JOIN ... ON
	// without alias): its sides join the enclosing set of inner joins,
	// which the planner may order as it likes.
	flat bool
}

// fromClause analyzes a FROM list into its items, checking that no name
// is used twice.
func (a *analyzer) fromClause(list []*pg.Node, corr *correlation) ([]*fromItem, error) {
	var items []*fromItem
	var ns []*nsItem // the namespace so far, for LATERAL items
	width := 0
	for _, n := range list {
		prefix := &scope{items: ns, corr: corr}
		icorr := corr
		var lc *correlation
		if n.GetJoinExpr() != nil {
			// A join may hold LATERAL items that read the items before it
			// in the list: they are reached through lc, which makes the
			// whole join LATERAL.
			lc = &correlation{outer: prefix}
			icorr = lc
		}
		it, err := a.fromItem(n, icorr, prefix)
		if err != nil {
			return nil, err
		}
		if lc != nil && len(lc.args) > 0 {
			it.flat = false
			it.rebind = lc
			for _, e := range lc.args {
				if _, ok := e.(*exec.OuterRef); !ok {
					it.lateral, it.lateralCorr, it.rebind = true, lc, nil
					break
				}
			}
		}
		if err := checkDuplicates(ns, it.items); err != nil {
			return nil, err
		}
		ns = append(ns, shifted(it.items, width)...)
		width += it.width
		items = append(items, it)
	}
	return items, nil
}

// checkDuplicates fails if a name of b is already a name of a.
func checkDuplicates(a, b []*nsItem) error {
	for _, x := range b {
		if !x.relVisible {
			continue
		}
		for _, y := range a {
			if y.relVisible && y.name == x.name {
				return pgerr.New(pgerr.DuplicateAlias, "table name %q specified more than once", x.name)
			}
		}
	}
	return nil
}

// fromItem analyzes one FROM item. prefix is the namespace of the items
// to its left, which a LATERAL item may read.
func (a *analyzer) fromItem(n *pg.Node, corr *correlation, prefix *scope) (*fromItem, error) {
	switch {
	case n.GetRangeVar() != nil:
		return a.rangeVar(n.GetRangeVar())
	case n.GetRangeSubselect() != nil:
		return a.rangeSubselect(n.GetRangeSubselect(), corr, prefix)
	case n.GetJoinExpr() != nil:
		return a.joinExpr(n.GetJoinExpr(), corr, prefix)
	case n.GetRangeFunction() != nil:
		return a.rangeFunction(n.GetRangeFunction(), corr, prefix)
	case n.GetRangeTableFunc() != nil:
		return a.xmlTable(n.GetRangeTableFunc(), prefix)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "FROM item not supported yet: %s", NodeName(n))
}

// leafItem makes the item of a leaf plan named alias, with its columns
// renamed by the alias's column list.
func leafItem(p exec.Plan, alias string, colnames []*pg.Node, t *exec.Table) (*fromItem, error) {
	cols := p.Columns()
	it := &fromItem{plan: p, width: len(cols)}
	ns := &nsItem{name: alias, relVisible: true, colsVisible: true, table: t, kind: itemSubquery}
	if t != nil {
		ns = tableItem(t, alias)
	} else {
		for i, c := range cols {
			ns.cols = append(ns.cols, &scopeCol{name: c.Name, t: c.T, idx: i, tableOID: c.TableOID, attnum: c.AttNum})
		}
	}
	if len(colnames) > len(ns.cols) {
		return nil, pgerr.New(pgerr.InvalidColumnReference, "table %q has %d columns available but %d columns specified", alias, len(ns.cols), len(colnames))
	}
	for i, cn := range colnames {
		ns.cols[i].name = cn.GetString_().Sval
	}
	it.items = []*nsItem{ns}
	it.cols = ns.cols
	return it, nil
}

func (a *analyzer) rangeVar(rv *pg.RangeVar) (*fromItem, error) {
	var colnames []*pg.Node
	if rv.Alias != nil {
		colnames = rv.Alias.Colnames
	}
	if rv.Schemaname == "" {
		if c := a.findCTE(rv.Relname); c != nil {
			if c.noReturning {
				return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "WITH query %q does not have a RETURNING clause", c.name), rv.Location)
			}
			it, err := leafItem(c.scan(), aliasOf(rv), colnames, nil)
			if err == nil {
				it.items[0].kind = itemCTE
			}
			return it, err
		}
		if p := a.transitionScan(rv.Relname); p != nil {
			return leafItem(p, aliasOf(rv), colnames, nil)
		}
	}
	t, err := a.table(rv)
	if err == nil {
		err = a.requireRead(t) // colpriv.go
	}
	if err == nil && t.Def != nil && t.Def.MatView != nil && t.Def.MatView.Unpopulated {
		err = pgerr.New(pgerr.ObjectNotInPrerequisite, "materialized view %q has not been populated", t.Def.Name).
			WithHint("Use the REFRESH MATERIALIZED VIEW command.")
	}
	if err != nil {
		return nil, err
	}
	cols := make([]exec.ResultColumn, len(t.Cols))
	for i, c := range t.Cols {
		cols[i] = exec.ResultColumn{Name: c.Name, T: c.Type, TableOID: t.OID, AttNum: int16(i + 1)}
	}
	scan, err := a.relationScan(t, rv.Inh, cols)
	if err != nil {
		return nil, err
	}
	if s, ok := scan.(*exec.Scan); ok && rv.Alias != nil {
		s.Alias = rv.Alias.Aliasname
	}
	// Rows locked FOR UPDATE or SHARE pass the UPDATE policies first.
	cmds := []byte{policySelect}
	if lockingUpdates(a.locking, aliasOf(rv)) {
		cmds = []byte{policyUpdate, policySelect}
	}
	quals, err := a.securityQuals(t, cmds...)
	if err != nil {
		return nil, err
	}
	app, ok := scan.(*exec.Append)
	if !ok {
		return leafItem(a.rlsFilter(scan, quals), aliasOf(rv), colnames, t)
	}
	// The rows of several tables: each says which in a column after the
	// table's, the system column tableoid.
	app.OIDs = make([]uint32, len(app.Parts))
	for i, part := range app.Parts {
		app.OIDs[i] = part.(*exec.Scan).Table.OID
	}
	app.Cols = append(slices.Clip(app.Cols), exec.ResultColumn{Name: "tableoid", T: exec.T{OID: exec.OIDOid, Typmod: -1}})
	it, err := leafItem(a.rlsFilter(app, quals), aliasOf(rv), colnames, t)
	if err == nil {
		it.items[0].tableOID = &scopeCol{name: "tableoid", t: exec.T{OID: exec.OIDOid, Typmod: -1}, idx: len(cols), tableOID: t.OID, attnum: -6}
	}
	return it, err
}

func (a *analyzer) rangeSubselect(rs *pg.RangeSubselect, corr *correlation, prefix *scope) (*fromItem, error) {
	if rs.Alias == nil {
		return nil, pgerr.New(pgerr.SyntaxError, "subquery in FROM must have an alias").
			WithHint("For example, FROM (SELECT ...) [AS] foo.")
	}
	sel := rs.Subquery.GetSelectStmt()
	if !rs.Lateral {
		p, err := a.subquery(sel, corr)
		if err != nil {
			return nil, err
		}
		it, err := leafItem(p, rs.Alias.Aliasname, rs.Alias.Colnames, nil)
		if err == nil && len(sel.ValuesLists) > 0 {
			it.items[0].kind = itemValues
		}
		return it, err
	}
	lc := &correlation{outer: prefix}
	p, err := a.subquery(sel, lc)
	if err != nil {
		return nil, err
	}
	it, err := leafItem(p, rs.Alias.Aliasname, rs.Alias.Colnames, nil)
	if err != nil {
		return nil, err
	}
	lateralItem(it, lc)
	return it, nil
}

// lateralItem marks an item analyzed with correlation lc as LATERAL if it
// reads the row to its left. One that reads only values of the enclosing
// query (or nothing) runs once per execution of the query, rebound.
func lateralItem(it *fromItem, lc *correlation) {
	if len(lc.args) == 0 {
		return
	}
	setVirtual(it, it.plan, lc)
	for _, e := range lc.args {
		switch e.(type) {
		case *exec.OuterRef, *exec.Const:
		default:
			it.lateral, it.lateralCorr = true, lc
			return
		}
	}
	it.plan = &exec.Rebind{In: it.plan, Args: lc.args}
}

// setVirtual gives the columns of a one-row LATERAL item without FROM
// ((VALUES (outer.x)) AS ss (y), (SELECT outer.x AS y) ss) that are
// outer values or constants their expression, for conditions analyzed
// in the context the item's outer values come from: b.k = ss.y is then
// b.k = outer.x, which a hash lookup can serve, instead of a condition
// between b and ss.
func setVirtual(it *fromItem, p exec.Plan, lc *correlation) {
	var exprs []exec.Expr
	switch x := p.(type) {
	case *exec.Values:
		if len(x.Rows) == 1 {
			exprs = x.Rows[0]
		}
	case *exec.Project:
		if v, ok := x.In.(*exec.Values); ok && len(v.Rows) == 1 && len(v.Rows[0]) == 0 {
			exprs = x.Exprs
		}
	}
	if len(exprs) != len(it.cols) {
		return
	}
	for i, e := range exprs {
		switch x := e.(type) {
		case *exec.Const:
			it.cols[i].virtual = x
		case *exec.OuterRef:
			if o, ok := lc.args[x.Idx].(*exec.OuterRef); ok {
				it.cols[i].virtual = o
			}
		default:
			continue
		}
		it.cols[i].virtualCorr = lc.outer.corr
	}
}

// subquery analyzes a query nested in another, with its own state.
func (a *analyzer) subquery(s *pg.SelectStmt, corr *correlation) (exec.Plan, error) {
	if s.IntoClause != nil {
		return nil, WithPos(pgerr.New(pgerr.SyntaxError, "SELECT ... INTO is not allowed here"), s.IntoClause.GetRel().GetLocation())
	}
	saved := a.nested()
	defer a.restore(saved)
	return a.query(s, corr)
}

func (a *analyzer) joinExpr(j *pg.JoinExpr, corr *correlation, prefix *scope) (*fromItem, error) {
	left, err := a.fromItem(j.Larg, corr, prefix)
	if err != nil {
		return nil, err
	}
	right, err := a.fromItem(j.Rarg, corr, &scope{items: left.items, corr: corr})
	if err != nil {
		return nil, err
	}
	if err := checkDuplicates(left.items, right.items); err != nil {
		return nil, err
	}
	it := &fromItem{left: left, right: right, on: j.Quals, corr: corr}
	switch j.Jointype {
	case pg.JoinType_JOIN_INNER:
		it.kind = exec.InnerJoin
	case pg.JoinType_JOIN_LEFT:
		it.kind = exec.LeftJoin
	case pg.JoinType_JOIN_RIGHT:
		it.kind = exec.RightJoin
	case pg.JoinType_JOIN_FULL:
		it.kind = exec.FullJoin
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "join type %s is not supported", j.Jointype)
	}
	if right.lateral && (it.kind == exec.RightJoin || it.kind == exec.FullJoin) {
		return nil, pgerr.New(pgerr.InvalidColumnReference, "invalid reference to FROM-clause entry for table %q", right.items[0].name).
			WithDetail("The combining JOIN type must be INNER or LEFT for a LATERAL reference.")
	}
	lw := left.width
	it.width = lw + right.width
	var names []string
	if j.IsNatural {
		for _, lc := range left.cols {
			for _, rc := range right.cols {
				if lc.name == rc.name && !slices.Contains(names, lc.name) {
					names = append(names, lc.name)
				}
			}
		}
	}
	for _, u := range j.UsingClause {
		name := u.GetString_().Sval
		if slices.Contains(names, name) {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column name %q appears more than once in USING clause", name)
		}
		names = append(names, name)
	}
	var merged []*scopeCol
	for _, name := range names {
		lc, err := usingCol(left.cols, name, "left")
		if err != nil {
			return nil, err
		}
		rc, err := usingCol(right.cols, name, "right")
		if err != nil {
			return nil, err
		}
		a.useColumn(lc) // the join reads both (colpriv.go)
		a.useColumn(rc)
		t, err := commonType([]exec.T{lc.t, rc.t}, "JOIN/USING", -1)
		if err != nil {
			return nil, err
		}
		it.usingL, it.usingR, it.mergedT = append(it.usingL, lc), append(it.usingR, rc), append(it.mergedT, t)
		// The merged column is the left one (the right one for RIGHT
		// JOIN), or the first non-NULL of the two for FULL JOIN,
		// converted to the common type.
		lref := exec.Expr(&exec.ColRef{Idx: lc.idx, T: lc.t})
		rref := exec.Expr(&exec.ColRef{Idx: lw + rc.idx, T: rc.t})
		if lref, err = a.coerce(lref, t, "", -1); err != nil {
			return nil, err
		}
		if rref, err = a.coerce(rref, t, "", -1); err != nil {
			return nil, err
		}
		var e exec.Expr
		switch it.kind {
		case exec.InnerJoin, exec.LeftJoin:
			e = lref
		case exec.RightJoin:
			e = rref
		default:
			e = &exec.Coalesce{Args: []exec.Expr{lref, rref}, T: t}
		}
		mc := &scopeCol{name: name, t: t}
		if cr, ok := e.(*exec.ColRef); ok {
			mc.idx = cr.Idx
			if src := lc; it.kind == exec.RightJoin {
				mc.tableOID, mc.attnum = rc.tableOID, rc.attnum
			} else {
				mc.tableOID, mc.attnum = src.tableOID, src.attnum
			}
		} else {
			mc.idx = it.width + len(it.extra)
			it.extra = append(it.extra, e)
		}
		merged = append(merged, mc)
	}
	it.width += len(it.extra)
	// The join's own column list: merged columns, then the rest of each
	// side.
	it.cols = append(it.cols, merged...)
	for _, c := range left.cols {
		if !slices.Contains(it.usingL, c) {
			it.cols = append(it.cols, c)
		}
	}
	rights := shifted([]*nsItem{{cols: right.cols}}, lw)[0].cols
	for i, c := range rights {
		if !slices.Contains(it.usingR, right.cols[i]) {
			it.cols = append(it.cols, c)
		}
	}
	it.flat = it.kind == exec.InnerJoin && len(names) == 0 && j.Alias == nil && !right.lateral
	switch {
	case it.flat:
		it.items = append(slices.Clone(left.items), shifted(right.items, lw)...)
	case j.Alias != nil:
		if len(j.Alias.Colnames) > len(it.cols) {
			return nil, pgerr.New(pgerr.InvalidColumnReference, "join expression %q has %d columns available but %d columns specified", j.Alias.Aliasname, len(it.cols), len(j.Alias.Colnames))
		}
		cols := make([]*scopeCol, len(it.cols))
		for i, c := range it.cols {
			cc := *c
			cc.ref = nil
			if i < len(j.Alias.Colnames) {
				cc.name = j.Alias.Colnames[i].GetString_().Sval
			}
			cols[i] = &cc
		}
		it.items = []*nsItem{{name: j.Alias.Aliasname, relVisible: true, colsVisible: true, cols: cols, kind: itemJoin}}
		it.cols = cols
	default:
		for _, x := range append(slices.Clone(left.items), shifted(right.items, lw)...) {
			c := *x
			c.colsVisible = false
			it.items = append(it.items, &c)
		}
		it.items = append(it.items, &nsItem{colsVisible: true, cols: it.cols, kind: itemJoin})
	}
	if j.JoinUsingAlias != nil && j.Alias == nil { // an alias of the join hides it
		ua := &nsItem{name: j.JoinUsingAlias.Aliasname, relVisible: true, cols: merged, kind: itemJoin}
		if err := checkDuplicates(it.items, []*nsItem{ua}); err != nil {
			return nil, err
		}
		it.items = append(it.items, ua)
	}
	if j.Quals != nil {
		// Check the condition against the join's own namespace: it may not
		// name items outside the join.
		sc := &scope{items: append(slices.Clone(left.items), shifted(right.items, lw)...), corr: corr}
		if _, err := a.condition(j.Quals, sc, "JOIN conditions", "argument of JOIN/ON"); err != nil {
			return nil, err
		}
	}
	return it, nil
}

func usingCol(cols []*scopeCol, name, side string) (*scopeCol, error) {
	var found *scopeCol
	for _, c := range cols {
		if c.name == name {
			if found != nil {
				return nil, pgerr.New(pgerr.AmbiguousColumn, "common column name %q appears more than once in %s table", name, side)
			}
			found = c
		}
	}
	if found == nil {
		return nil, pgerr.New(pgerr.UndefinedColumn, "column %q specified in USING clause does not exist in %s table", name, side)
	}
	return found, nil
}

// condition analyzes a boolean condition of clause (WHERE, JOIN
// conditions) in sc.
func (a *analyzer) condition(n *pg.Node, sc *scope, clause, what string) (exec.Expr, error) {
	saved := a.clause
	a.clause = clause
	defer func() { a.clause = saved }()
	e, err := a.expr(n, sc)
	if err != nil {
		return nil, err
	}
	return a.coerce(e, exec.TBool, what, ExprLocation(n))
}

// ExprLocation returns the parse location of an expression node, -1 if
// unknown.
func ExprLocation(n *pg.Node) int32 {
	switch {
	case n.GetAExpr() != nil:
		return n.GetAExpr().Location
	case n.GetColumnRef() != nil:
		return n.GetColumnRef().Location
	case n.GetAConst() != nil:
		return n.GetAConst().Location
	case n.GetFuncCall() != nil:
		return n.GetFuncCall().Location
	case n.GetTypeCast() != nil:
		// The leftmost of the cast's and its argument's, as PostgreSQL's
		// exprLocation: type 'literal' has only the literal's.
		tc := n.GetTypeCast()
		if arg := ExprLocation(tc.Arg); arg >= 0 && (tc.Location < 0 || arg < tc.Location) {
			return arg
		}
		return tc.Location
	case n.GetBoolExpr() != nil:
		return n.GetBoolExpr().Location
	case n.GetSubLink() != nil:
		return n.GetSubLink().Location
	case n.GetSetToDefault() != nil:
		return n.GetSetToDefault().Location
	}
	return -1
}

// conjuncts splits a condition at its top-level ANDs.
func conjuncts(n *pg.Node) []*pg.Node {
	if n == nil {
		return nil
	}
	if b := n.GetBoolExpr(); b != nil && b.Boolop == pg.BoolExprType_AND_EXPR {
		var out []*pg.Node
		for _, x := range b.Args {
			out = append(out, conjuncts(x)...)
		}
		return out
	}
	return []*pg.Node{n}
}

// joinUnit is a FROM item the join planner places as a whole: a leaf, or
// a join that is not a plain inner join.
type joinUnit struct {
	item *fromItem
	off  int // its place in the row of the whole set, in FROM order
	plan exec.Plan
	// invariant: the plan reads no outer values (a table, filtered), so a
	// hash join run again and again may keep its table (exec.Shared).
	invariant bool
}

// flatten expands plain inner joins into their sides and returns the
// units, with the ON conditions of the joins it expanded.
func flatten(items []*fromItem) ([]*joinUnit, []*pg.Node) {
	var units []*joinUnit
	var conds []*pg.Node
	var walk func(it *fromItem)
	walk = func(it *fromItem) {
		if it.left != nil && it.flat {
			walk(it.left)
			walk(it.right)
			conds = append(conds, conjuncts(it.on)...)
			return
		}
		units = append(units, &joinUnit{item: it})
	}
	for _, it := range items {
		walk(it)
	}
	return units, conds
}

// planFrom plans a FROM list with the conditions of its WHERE clause, and
// returns the plan of the joined rows (the items' columns in FROM order)
// and the scope that names them.
func (a *analyzer) planFrom(items []*fromItem, where *pg.Node, corr *correlation) (exec.Plan, *scope, error) {
	units, conds := flatten(items)
	p, sc, _, err := a.planSet(units, conjuncts(where), conds, corr, nil)
	return p, sc, err
}

// conj is a condition of a set of inner joins and the units it reads.
type conj struct {
	n     *pg.Node
	units []int
	used  bool
}

// planSet joins units, with conditions from WHERE (where) and from ON
// clauses of the inner joins between them (on), all over the row of the
// whole set. A condition on one unit filters it before the join; one on
// several becomes a join condition as soon as they are joined (hash join
// keys when it is an equality between the two sides); one on none is
// applied at the end. Units are joined left-deep, each step taking the
// first unit in FROM order that a condition connects to those already
// joined (to avoid cross products), or else the next one; LATERAL units
// keep FROM order.
func (a *analyzer) planSet(units []*joinUnit, where, on []*pg.Node, corr *correlation, virtual []*nsItem) (exec.Plan, *scope, bool, error) {
	off := 0
	var all []*nsItem
	owner := map[*nsItem]int{}
	lateral := false
	for i, u := range units {
		u.off = off
		for _, it := range shifted(u.item.items, off) {
			owner[it] = i
			all = append(all, it)
		}
		off += u.item.width
		lateral = lateral || u.item.lateral
	}
	full := &scope{items: append(all, virtual...), corr: corr}
	// Find which units each condition reads.
	var conds []*conj
	for i, n := range append(slices.Clone(where), on...) {
		seen := map[int]bool{}
		full.track = func(it *nsItem) {
			if u, ok := owner[it]; ok {
				seen[u] = true
			}
		}
		clause, what := "WHERE", "argument of WHERE"
		if i >= len(where) {
			clause, what = "JOIN conditions", "argument of JOIN/ON"
		}
		_, err := a.condition(n, full, clause, what)
		full.track = nil
		if err != nil {
			return nil, nil, false, err
		}
		c := &conj{n: n}
		for u := range seen {
			c.units = append(c.units, u)
		}
		slices.Sort(c.units)
		conds = append(conds, c)
	}
	// Plan each unit, with the conditions on it alone.
	for i, u := range units {
		var local []*pg.Node
		for _, c := range conds {
			// A LATERAL unit's rows exist only joined to the row to its
			// left: conditions on it wait for the end.
			if len(c.units) == 1 && c.units[0] == i && !u.item.lateral {
				local = append(local, c.n)
				c.used = true
			}
		}
		var err error
		if u.plan, u.invariant, err = a.planUnit(u.item, local, corr, virtual); err != nil {
			return nil, nil, false, err
		}
	}
	// Join them.
	var order []int
	joined := map[int]bool{}
	var plan exec.Plan
	invariant := false  // plan is one unit's, which reads no outer values
	var items []*nsItem // the namespace of plan's rows
	width := 0
	for len(order) < len(units) {
		next := -1
		if !lateral && len(order) > 0 {
			for i := range units {
				if !joined[i] && connected(conds, joined, i) {
					next = i
					break
				}
			}
		}
		if next < 0 {
			for i := range units {
				if !joined[i] {
					next = i
					break
				}
			}
		}
		u := units[next]
		uitems := shifted(u.item.items, width)
		if plan == nil && u.item.lateral {
			// A LATERAL item first in FROM reads only enclosing queries:
			// join it to one empty row, which sets its outer values.
			plan = &exec.Values{Rows: [][]exec.Expr{{}}}
		}
		if plan == nil {
			plan, items, invariant = u.plan, uitems, u.invariant
		} else {
			sc := &scope{items: append(slices.Clone(items), uitems...), corr: corr}
			var here []*pg.Node
			for _, c := range conds {
				if !c.used && len(c.units) > 1 && slices.Contains(c.units, next) && subsetOf(c.units, joined, next) {
					here = append(here, c.n)
					c.used = true
				}
			}
			var err error
			if plan, err = a.joinStep(plan, invariant, u, exec.InnerJoin, here, sc, owned(uitems), nil); err != nil {
				return nil, nil, false, err
			}
			items = sc.items
			invariant = false
		}
		order = append(order, next)
		joined[next] = true
		width += u.item.width
	}
	// Back to FROM order.
	if !slices.IsSorted(order) {
		var exprs []exec.Expr
		var cols []exec.ResultColumn
		pos := make([]int, len(units))
		w := 0
		for _, i := range order {
			pos[i] = w
			w += units[i].item.width
		}
		pcols := plan.Columns()
		for i, u := range units {
			for k := 0; k < u.item.width; k++ {
				c := pcols[pos[i]+k]
				exprs = append(exprs, &exec.ColRef{Idx: pos[i] + k, T: c.T})
				cols = append(cols, c)
			}
		}
		plan = &exec.Project{In: plan, Exprs: exprs, Cols: cols}
	}
	// Conditions on no unit (constants, outer references) and any left.
	var rest []exec.Expr
	for _, c := range conds {
		if !c.used {
			e, err := a.condition(c.n, full, "WHERE", "argument of WHERE")
			if err != nil {
				return nil, nil, false, err
			}
			rest = append(rest, e)
		}
	}
	if len(rest) > 0 {
		plan = &exec.Filter{In: plan, Pred: and(rest)}
		invariant = false
	}
	return plan, full, invariant, nil
}

func and(es []exec.Expr) exec.Expr {
	if len(es) == 1 {
		return es[0]
	}
	return &exec.BoolOp{Args: es}
}

func owned(items []*nsItem) map[*nsItem]bool {
	m := map[*nsItem]bool{}
	for _, it := range items {
		m[it] = true
	}
	return m
}

// connected reports whether a condition links unit i to the joined ones.
func connected(conds []*conj, joined map[int]bool, i int) bool {
	for _, c := range conds {
		if !c.used && len(c.units) > 1 && slices.Contains(c.units, i) && subsetOf(c.units, joined, i) {
			return true
		}
	}
	return false
}

func subsetOf(units []int, joined map[int]bool, extra int) bool {
	for _, u := range units {
		if u != extra && !joined[u] {
			return false
		}
	}
	return true
}

// planUnit plans one unit of a join set, filtered by conditions on it.
func (a *analyzer) planUnit(it *fromItem, conds []*pg.Node, corr *correlation, virtual []*nsItem) (exec.Plan, bool, error) {
	var p exec.Plan
	if it.left == nil {
		p = it.plan
	} else {
		var err error
		if p, conds, err = a.planJoin(it, conds, virtual); err != nil {
			return nil, false, err
		}
		if it.rebind != nil {
			p = &exec.Rebind{In: p, Args: it.rebind.args}
		}
	}
	_, isScan := p.(*exec.Scan)
	app, isAppend := p.(*exec.Append)
	isScan = isScan || isAppend
	if len(conds) == 0 {
		return p, isScan, nil
	}
	sc := &scope{items: append(slices.Clone(it.items), virtual...), corr: corr}
	// Conditions that read no outer value go into the scan (index
	// selection, and a plan that stays the same for every outer row), but
	// only those before the first that does: the rest run after, in the
	// order written, as PostgreSQL runs conditions of equal cost, which
	// side effects of functions called (notices, errors) make visible.
	var keys, probes, inner, outer []exec.Expr
	for _, n := range conds {
		if isScan && corr.outer != nil {
			k, pr, ok, err := a.outerKey(n, sc)
			if err != nil {
				return nil, false, err
			}
			if ok {
				keys, probes = append(keys, k), append(probes, pr)
				continue
			}
		}
		e, err := a.condition(n, sc, "WHERE", "argument of WHERE")
		if err != nil {
			return nil, false, err
		}
		if len(outer) > 0 || readsOuter(e) {
			outer = append(outer, e)
		} else {
			inner = append(inner, e)
		}
	}
	if len(inner) > 0 {
		if scan, ok := p.(*exec.Scan); ok {
			p = a.scanWhere(scan, and(inner)) // index selection (index.go)
		} else if isAppend {
			p = a.appendWhere(app, and(inner)) // partition pruning (inherit.go)
		} else {
			p = &exec.Filter{In: p, Pred: and(inner)}
		}
	}
	if len(keys) > 0 {
		p = &exec.HashLookup{In: p, Keys: keys, Probe: probes, Lookup: lookupPlan(p, keys, 0, probes)}
	}
	if len(outer) > 0 {
		p = &exec.Filter{In: p, Pred: and(outer)}
	}
	return p, isScan && len(keys) == 0 && len(outer) == 0, nil
}

// outerKey reports whether condition n, on one table of a correlated
// subquery, is an equality between an expression of the table and one of
// the enclosing query only (b.x = outer.y), and returns the two sides in
// their common type: a HashLookup then finds the rows without a scan per
// outer row.
func (a *analyzer) outerKey(n *pg.Node, sc *scope) (exec.Expr, exec.Expr, bool, error) {
	x := n.GetAExpr()
	if x == nil || x.Kind != pg.A_Expr_Kind_AEXPR_OP || OpName(x.Name) != "=" || x.Lexpr == nil {
		return nil, nil, false, nil
	}
	local := func(m *pg.Node) (bool, error) {
		found := false
		sc.track = func(*nsItem) { found = true }
		defer func() { sc.track = nil }()
		_, err := a.expr(m, sc)
		return found, err
	}
	l, err := local(x.Lexpr)
	if err != nil {
		return nil, nil, false, err
	}
	r, err := local(x.Rexpr)
	if err != nil || l == r {
		return nil, nil, false, err
	}
	e, err := a.condition(n, sc, "WHERE", "argument of WHERE")
	if err != nil {
		return nil, nil, false, err
	}
	call, ok := e.(*exec.Call)
	if !ok || call.Name != "=" || len(call.Args) != 2 || call.Args[0].Type().OID != call.Args[1].Type().OID || !hashableType(call.Args[0].Type()) {
		return nil, nil, false, nil
	}
	k, pr := call.Args[0], call.Args[1]
	if r {
		k, pr = pr, k
	}
	if readsOuter(k) || !readsOuter(pr) {
		return nil, nil, false, nil
	}
	return k, pr, true, nil
}

// readsOuter reports whether an expression may read values of an
// enclosing query (OuterRefs, correlated subqueries); true for kinds of
// expression it does not know.
func readsOuter(e exec.Expr) bool {
	return exprAny(e, func(x exec.Expr) (bool, bool) {
		switch x := x.(type) {
		case *exec.OuterRef:
			return true, true
		case *exec.SubPlan:
			// A correlated subquery reads the enclosing row; an
			// uncorrelated one only what its left operands read.
			return len(x.Args) > 0 || slices.ContainsFunc(x.Left, readsOuter), true
		}
		return false, false
	}, true)
}

// planJoin plans a join that is not flattened into its enclosing set:
// an outer join, a join with USING or NATURAL, an aliased join, a join
// with a LATERAL right side. where are the enclosing query's conditions
// on the join alone (parse nodes over its items, and virtual): those on
// one side that the join cannot null-extend go down into that side, as
// PostgreSQL pushes them (so that its index and the join's lookups serve
// them), and the rest are returned, for above the join.
func (a *analyzer) planJoin(it *fromItem, where []*pg.Node, virtual []*nsItem) (exec.Plan, []*pg.Node, error) {
	corr := it.corr
	kind := a.reducedJoinKind(it, where, corr, virtual)
	lunits, lconds := flatten([]*fromItem{it.left})
	runits, rconds := flatten([]*fromItem{it.right})
	lw := it.left.width
	litems := it.left.items
	ritems := shifted(it.right.items, lw)
	sc := &scope{items: append(slices.Clone(litems), ritems...), corr: corr}
	// Sort the ON conditions: those on the side that may lose rows to the
	// join (either side of an inner join) filter that side first.
	var lpush, rpush, here []*pg.Node
	lset, rset := owned(litems), owned(ritems)
	for _, n := range conjuncts(it.on) {
		var onL, onR bool
		sc.track = func(x *nsItem) {
			onL = onL || lset[x]
			onR = onR || rset[x]
		}
		_, err := a.condition(n, sc, "JOIN conditions", "argument of JOIN/ON")
		sc.track = nil
		if err != nil {
			return nil, nil, err
		}
		switch {
		case onL && !onR && !kind.KeepsLeft():
			lpush = append(lpush, n)
		case onR && !onL && !kind.KeepsRight() && !it.right.lateral:
			rpush = append(rpush, n)
		default:
			here = append(here, n)
		}
	}
	var above []*pg.Node
	for _, n := range where {
		switch a.whereSide(it, kind, n, corr, virtual) {
		case 0:
			lpush = append(lpush, n)
		case 1:
			rpush = append(rpush, n)
		default:
			above = append(above, n)
		}
	}
	lp, _, linv, err := a.planSet(lunits, lpush, lconds, corr, virtualItems(ritems, corr))
	if err != nil {
		return nil, nil, err
	}
	var rp exec.Plan
	rinv := false
	if it.right.lateral {
		if len(runits) != 1 || len(rconds) > 0 {
			return nil, nil, pgerr.New(pgerr.InternalError, "unexpected LATERAL join shape")
		}
		if rp, _, err = a.planUnit(it.right, nil, corr, nil); err != nil {
			return nil, nil, err
		}
	} else if rp, _, rinv, err = a.planSet(runits, rpush, rconds, corr, virtualItems(litems, corr)); err != nil {
		return nil, nil, err
	}
	var keys [][2]exec.Expr
	for i := range it.usingL {
		l, err := a.coerce(&exec.ColRef{Idx: it.usingL[i].idx, T: it.usingL[i].t}, it.mergedT[i], "", -1)
		if err != nil {
			return nil, nil, err
		}
		r, err := a.coerce(&exec.ColRef{Idx: lw + it.usingR[i].idx, T: it.usingR[i].t}, it.mergedT[i], "", -1)
		if err != nil {
			return nil, nil, err
		}
		keys = append(keys, [2]exec.Expr{l, r})
	}
	right := &joinUnit{item: it.right, plan: rp, invariant: rinv}
	p, err := a.joinStep(lp, linv, right, kind, here, sc, rset, keys)
	if err != nil {
		return nil, nil, err
	}
	if len(it.extra) > 0 {
		cols := p.Columns()
		exprs := make([]exec.Expr, 0, len(cols)+len(it.extra))
		for i, c := range cols {
			exprs = append(exprs, &exec.ColRef{Idx: i, T: c.T})
		}
		for _, e := range it.extra {
			exprs = append(exprs, e)
			cols = append(cols, exec.ResultColumn{Name: "?merged?", T: e.Type()})
		}
		p = &exec.Project{In: p, Exprs: exprs, Cols: cols}
	}
	return p, above, nil
}

// reducedJoinKind is the kind of join it under the enclosing query's WHERE
// conditions where (over its items, and virtual): a LEFT JOIN is an inner
// one when a condition is never true of a row whose right side is padded
// with NULLs (r.x = 5, r.x IS NOT NULL), and a RIGHT JOIN likewise, as
// PostgreSQL's reduce_outer_joins finds: its padded rows would all be
// dropped, and an inner join lets the conditions go down to both sides.
func (a *analyzer) reducedJoinKind(it *fromItem, where []*pg.Node, corr *correlation, virtual []*nsItem) exec.JoinKind {
	lw, rw := it.left.width, it.right.width
	lo, hi := lw, lw+rw // the columns the join pads
	switch it.kind {
	case exec.LeftJoin:
	case exec.RightJoin:
		lo, hi = 0, lw
	default:
		return it.kind
	}
	sc := &scope{items: append(slices.Clone(it.items), virtual...), corr: corr}
	for _, n := range where {
		if e, err := a.condition(n, sc, "WHERE", "argument of WHERE"); err == nil && rejectsNulls(e, lo, hi) {
			return exec.InnerJoin
		}
	}
	return it.kind
}

// rejectsNulls reports whether condition e is false or NULL for every row
// whose columns lo..hi-1 are all NULL: a strict call (a comparison) of an
// expression NULL then, IS NOT NULL of one, an AND with such a part, an OR
// of such parts.
func rejectsNulls(e exec.Expr, lo, hi int) bool {
	switch x := e.(type) {
	case *exec.Call:
		return x.Strict && slices.ContainsFunc(x.Args, func(a exec.Expr) bool { return nullWhenPadded(a, lo, hi) })
	case *exec.IsNull:
		return x.Not && nullWhenPadded(x.E, lo, hi)
	case *exec.BoolOp:
		if x.Or {
			return len(x.Args) > 0 && !slices.ContainsFunc(x.Args, func(a exec.Expr) bool { return !rejectsNulls(a, lo, hi) })
		}
		return slices.ContainsFunc(x.Args, func(a exec.Expr) bool { return rejectsNulls(a, lo, hi) })
	}
	return false
}

// nullWhenPadded reports whether e is NULL when columns lo..hi-1 are: one
// of them, or a strict call of such an expression.
func nullWhenPadded(e exec.Expr, lo, hi int) bool {
	switch x := e.(type) {
	case *exec.ColRef:
		return x.Idx >= lo && x.Idx < hi
	case *exec.Call:
		return x.Strict && slices.ContainsFunc(x.Args, func(a exec.Expr) bool { return nullWhenPadded(a, lo, hi) })
	}
	return false
}

// whereSide reports which input of join it a condition n of the enclosing
// query's WHERE (over the join's items, and virtual) can be checked on
// instead of the joined rows: 0 for the left, 1 for the right, -1 for
// neither. It can when it reads columns of that side only and the join
// never pads that side with NULLs for a row of the other (which would
// make the condition see NULLs above the join), and names resolve the
// same in that side alone.
func (a *analyzer) whereSide(it *fromItem, kind exec.JoinKind, n *pg.Node, corr *correlation, virtual []*nsItem) int {
	e, err := a.condition(n, &scope{items: append(slices.Clone(it.items), virtual...), corr: corr}, "WHERE", "argument of WHERE")
	if err != nil {
		return -1 // reported when the condition is planned above the join
	}
	lw, rw := it.left.width, it.right.width
	readsOnly := func(lo, hi int) bool {
		cols := false
		outside := exprAny(e, func(x exec.Expr) (bool, bool) {
			if c, ok := x.(*exec.ColRef); ok {
				cols = true
				return c.Idx < lo || c.Idx >= hi, true
			}
			return false, false
		}, true)
		return cols && !outside
	}
	side, items := -1, []*nsItem(nil)
	switch {
	case readsOnly(0, lw) && !kind.KeepsRight():
		side, items = 0, it.left.items
	case readsOnly(lw, lw+rw) && !kind.KeepsLeft() && !it.right.lateral:
		side, items = 1, it.right.items
	default:
		return -1
	}
	if _, err := a.condition(n, &scope{items: items, corr: corr}, "WHERE", "argument of WHERE"); err != nil {
		return -1 // it names the join's alias or merged columns
	}
	return side
}

// joinStep joins plan (whose namespace is the start of sc) with unit u
// (whose items, in sc, are rightItems) under conditions conds (parse
// nodes over sc) and equality keys (over the joined row). Equalities
// between the two sides become hash join keys; the rest is checked on
// the joined row.
func (a *analyzer) joinStep(plan exec.Plan, leftInv bool, u *joinUnit, kind exec.JoinKind, conds []*pg.Node, sc *scope, rightItems map[*nsItem]bool, keys [][2]exec.Expr) (exec.Plan, error) {
	var residual []exec.Expr
	for _, n := range conds {
		if l, r, ok, err := a.equiKey(n, sc, rightItems); err != nil {
			return nil, err
		} else if ok && !u.item.lateral {
			keys = append(keys, [2]exec.Expr{l, r})
			continue
		}
		e, err := a.condition(n, sc, "JOIN conditions", "argument of JOIN/ON")
		if err != nil {
			return nil, err
		}
		residual = append(residual, e)
	}
	var on exec.Expr
	if len(residual) > 0 {
		on = and(residual)
	}
	if len(keys) > 0 && !u.item.lateral {
		hj := &exec.HashJoin{Left: plan, Right: u.plan, Kind: kind, Residual: on}
		if sc.corr != nil && sc.corr.outer != nil {
			// The join runs once per outer row: keep the table of an
			// input that does not change.
			switch {
			case u.invariant:
				hj.Shared = exec.SharedRight
			case leftInv:
				hj.Shared = exec.SharedLeft
			}
		}
		for _, k := range keys {
			hj.LeftKeys = append(hj.LeftKeys, k[0])
			hj.RightKeys = append(hj.RightKeys, k[1])
		}
		// Either input may turn out small enough for the join to look its
		// matches up in the other's index (exec.HashJoin).
		hj.LeftLookup = joinLookup(hj.Left, hj.LeftKeys, 0)
		hj.RightLookup = joinLookup(hj.Right, hj.RightKeys, len(hj.Left.Columns()))
		return hj, nil
	}
	for _, k := range keys {
		eq, err := a.binary("=", k[0], k[1], -1)
		if err != nil {
			return nil, err
		}
		if on == nil {
			on = eq
		} else {
			on = and([]exec.Expr{eq, on})
		}
	}
	nl := &exec.NestedLoop{Left: plan, Right: u.plan, Kind: kind, On: on, Lateral: u.item.lateral}
	if u.item.lateral {
		nl.Args = u.item.lateralCorr.args
	}
	return nl, nil
}

// equiKey reports whether condition n is an equality between an
// expression of the left side and one of the right side (the items
// rightItems) that a hash join can use, and returns the two sides,
// converted to their common type.
func (a *analyzer) equiKey(n *pg.Node, sc *scope, rightItems map[*nsItem]bool) (exec.Expr, exec.Expr, bool, error) {
	x := n.GetAExpr()
	if x == nil || x.Kind != pg.A_Expr_Kind_AEXPR_OP || OpName(x.Name) != "=" || x.Lexpr == nil {
		return nil, nil, false, nil
	}
	side := func(m *pg.Node) (l, r bool, err error) {
		sc.track = func(it *nsItem) {
			if rightItems[it] {
				r = true
			} else {
				l = true
			}
		}
		defer func() { sc.track = nil }()
		_, err = a.expr(m, sc)
		return l, r, err
	}
	ll, lr, err := side(x.Lexpr)
	if err != nil {
		return nil, nil, false, err
	}
	rl, rr, err := side(x.Rexpr)
	if err != nil {
		return nil, nil, false, err
	}
	swap := false
	switch {
	case ll && !lr && rr && !rl:
	case lr && !ll && rl && !rr:
		swap = true
	default:
		return nil, nil, false, nil
	}
	e, err := a.condition(n, sc, "JOIN conditions", "argument of JOIN/ON")
	if err != nil {
		return nil, nil, false, err
	}
	call, ok := e.(*exec.Call)
	if !ok || call.Name != "=" || len(call.Args) != 2 || call.Args[0].Type().OID != call.Args[1].Type().OID || !hashableType(call.Args[0].Type()) {
		return nil, nil, false, nil
	}
	l, r := call.Args[0], call.Args[1]
	if swap {
		l, r = r, l
	}
	return l, r, true, nil
}

// hashableType reports whether equality of type t is Compare's, which the
// executor's hashing follows.
func hashableType(t exec.T) bool {
	switch exec.KindOf(t.OID) {
	case exec.KindNull, exec.KindJSON:
		return false
	}
	return t.OID != exec.OIDBpchar
}

// virtualItems returns the items' virtual columns that are valid in
// corr's context (see setVirtual), as items that own no row positions: a
// condition pushed into one side of a join may still name them.
func virtualItems(items []*nsItem, corr *correlation) []*nsItem {
	var out []*nsItem
	for _, it := range items {
		v := &nsItem{name: it.name, relVisible: it.relVisible, colsVisible: it.colsVisible}
		for _, c := range it.cols {
			if c.virtual != nil && c.virtualCorr == corr {
				v.cols = append(v.cols, c)
			}
		}
		if len(v.cols) > 0 {
			out = append(out, v)
		}
	}
	return out
}
