package planner

import (
	"errors"
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner/pgtree"
)

// grouping is the state of a query with GROUP BY, HAVING or aggregates.
// Its select list, HAVING and ORDER BY are analyzed over the rows of an
// exec.Aggregate, which hold the group keys and then the aggregate
// results: a column is valid there only as a group key (or determined by
// one, through a primary key), an expression only if it is a key or is
// built from keys, aggregates and constants.
type grouping struct {
	input    *scope      // the FROM clause's scope; keys and aggregate arguments are over its rows
	keys     []exec.Expr // over the input rows
	keyRefs  []*exec.ColRef
	exprKeys bool // some key is more than a column
	aggs     []*exec.AggCall
	aggRefs  []*exec.ColRef // their Idx is set by plan, when the keys are final
	// sets are the grouping sets of ROLLUP, CUBE and GROUPING SETS (key
	// numbers), nil for a plain GROUP BY; groupingFuncs are the
	// GROUPING() calls, completed by plan.
	sets          [][]int
	groupingFuncs []*exec.GroupingFunc
}

// keyRef returns the reference to key i of the aggregate's rows.
func (g *grouping) keyRef(i int) exec.Expr { return g.keyRefs[i] }

// addKey adds a group key, unless an equal one is there, and returns its
// number.
func (g *grouping) addKey(e exec.Expr) int {
	for i, k := range g.keys {
		if exprEqual(k, e) {
			return i
		}
	}
	g.keys = append(g.keys, e)
	g.keyRefs = append(g.keyRefs, &exec.ColRef{Idx: len(g.keys) - 1, T: e.Type()})
	if _, ok := e.(*exec.ColRef); !ok {
		g.exprKeys = true
	}
	return len(g.keys) - 1
}

// plan returns the aggregation of in.
func (g *grouping) plan(in exec.Plan) exec.Plan {
	cols := make([]exec.ResultColumn, 0, len(g.keys)+len(g.aggs))
	for _, k := range g.keys {
		cols = append(cols, exec.ResultColumn{Name: "?key?", T: k.Type()})
	}
	for i, c := range g.aggs {
		g.aggRefs[i].Idx = len(g.keys) + i
		cols = append(cols, exec.ResultColumn{Name: c.Func.Name, T: c.T()})
	}
	for _, f := range g.groupingFuncs {
		f.SetCol, f.Sets = len(cols), g.sets
	}
	if g.sets != nil {
		cols = append(cols, exec.ResultColumn{Name: "?set?", T: exec.TInt4})
	}
	if len(g.keys) == 0 && g.sets == nil {
		if scan, ok := in.(*exec.Scan); ok && len(g.aggs) == 1 && isCountStar(g.aggs[0]) &&
			scan.Lower == nil && scan.Upper == nil && scan.Layout == nil && scan.Table.Virtual == nil {
			return &exec.TableCount{Scan: scan, Cols: cols} // the tree's count, not its rows
		}
		in = g.extremeFirst(in)
	}
	return &exec.Aggregate{In: in, Keys: g.keys, Aggs: g.aggs, Sets: g.sets, Cols: cols}
}

// isCountStar reports whether c is count(*), or count of no arguments.
func isCountStar(c *exec.AggCall) bool {
	return c.Func.Name == "count" && len(c.Args) == 0 && !c.Distinct && c.Filter == nil && len(c.Order) == 0 && c.StateFrom == 0
}

// extremeFirst returns, for an aggregation without groups whose every
// aggregate is min, or every one max, of one column of the table in reads
// (SELECT max(id) FROM t), the input cut to the first row an index gives
// in that column's order with the column not NULL: the aggregates over it
// are the same, and an index reads it without reading the table, as
// PostgreSQL's planagg does. Otherwise in itself.
func (g *grouping) extremeFirst(in exec.Plan) exec.Plan {
	if len(g.aggs) == 0 {
		return in
	}
	var col exec.Expr
	name := g.aggs[0].Func.Name
	for _, c := range g.aggs {
		if c.Func.Name != name || (name != "min" && name != "max") || len(c.Args) != 1 ||
			c.Distinct || c.Filter != nil || len(c.Order) > 0 || c.StateFrom != 0 {
			return in
		}
		if _, ok := c.Args[0].(*exec.ColRef); !ok || col != nil && !exprEqual(col, c.Args[0]) {
			return in
		}
		col = c.Args[0]
	}
	key := exec.SortKey{Col: 0, Desc: name == "max", NullsFirst: name == "max"}
	ordered, ok := orderedScan(in, []exec.Expr{col}, []exec.SortKey{key}, true)
	if !ok {
		return in
	}
	return &exec.Limit{
		In:    &exec.Filter{In: ordered, Pred: &exec.IsNull{E: col, Not: true}},
		Count: &exec.Const{D: exec.DInt(1), T: exec.TInt8},
	}
}

// groupBy analyzes a GROUP BY list into g's keys. An item is an output
// column position, a name (an input column first, else an output
// column's name), or an expression over the input.
func (a *analyzer) groupBy(g *grouping, list, targets []*pg.Node) error {
	saved := a.clause
	a.clause = "GROUP BY"
	defer func() { a.clause = saved }()
	// The list's grouping sets are the cross product of its items' sets:
	// a plain key is one set of itself; ROLLUP, CUBE and GROUPING SETS
	// give several.
	sets := [][]int{{}}
	withSets := false
	for _, n := range list {
		gs := n.GetGroupingSet()
		if gs != nil && gs.Kind != pg.GroupingSetKind_GROUPING_SET_EMPTY {
			withSets = true
		}
		item, err := a.groupingItem(g, n, targets)
		if err != nil {
			return err
		}
		var product [][]int
		for _, s := range sets {
			for _, t := range item {
				product = append(product, append(slices.Clone(s), t...))
			}
		}
		sets = product
	}
	if withSets {
		g.sets = sets
	}
	return nil
}

// groupingItem analyzes one item of GROUP BY, or of a grouping set, into
// the grouping sets it stands for (lists of key numbers), adding its keys
// to g.
func (a *analyzer) groupingItem(g *grouping, n *pg.Node, targets []*pg.Node) ([][]int, error) {
	gs := n.GetGroupingSet()
	if r := n.GetRowExpr(); r != nil && r.RowFormat == pg.CoercionForm_COERCE_IMPLICIT_CAST {
		// A parenthesized list of keys, (a, b), not a ROW(a, b) value:
		// PostgreSQL's grammar parses it as a row, and groups by its items.
		gs = &pg.GroupingSet{Kind: pg.GroupingSetKind_GROUPING_SET_SIMPLE, Content: r.Args, Location: r.Location}
	}
	if gs == nil {
		e, err := a.groupKey(n, targets, g.input)
		if err != nil {
			return nil, err
		}
		if e.Type().OID == exec.OIDUnknown {
			if e, err = a.coerce(e, exec.TText, "", -1); err != nil {
				return nil, err
			}
		}
		return [][]int{{g.addKey(e)}}, nil
	}
	// keysOf is a ROLLUP's or CUBE's item: a key, or a parenthesized list
	// of keys that go together.
	keysOf := func(n *pg.Node) ([]int, error) {
		item, err := a.groupingItem(g, n, targets)
		if err != nil {
			return nil, err
		}
		if len(item) != 1 {
			return nil, WithPos(pgerr.New(pgerr.SyntaxError, "a ROLLUP or CUBE item must be an expression or a list of expressions"), gs.Location)
		}
		return item[0], nil
	}
	switch gs.Kind {
	case pg.GroupingSetKind_GROUPING_SET_EMPTY:
		return [][]int{{}}, nil
	case pg.GroupingSetKind_GROUPING_SET_SIMPLE:
		var keys []int
		for _, c := range gs.Content {
			item, err := a.groupingItem(g, c, targets)
			if err != nil {
				return nil, err
			}
			for _, s := range item {
				keys = append(keys, s...)
			}
		}
		return [][]int{keys}, nil
	case pg.GroupingSetKind_GROUPING_SET_ROLLUP:
		// ROLLUP (a, b, c): (a, b, c), (a, b), (a), ().
		var items [][]int
		for _, c := range gs.Content {
			keys, err := keysOf(c)
			if err != nil {
				return nil, err
			}
			items = append(items, keys)
		}
		var sets [][]int
		for n := len(items); n >= 0; n-- {
			var set []int
			for _, it := range items[:n] {
				set = append(set, it...)
			}
			sets = append(sets, set)
		}
		return sets, nil
	case pg.GroupingSetKind_GROUPING_SET_CUBE:
		// CUBE (a, b): every subset, largest first, in PostgreSQL's order:
		// (a, b), (a), (b), ().
		var items [][]int
		for _, c := range gs.Content {
			keys, err := keysOf(c)
			if err != nil {
				return nil, err
			}
			items = append(items, keys)
		}
		if len(items) > 12 {
			return nil, WithPos(pgerr.New(pgerr.Code("54000"), "CUBE is limited to 12 elements"), gs.Location)
		}
		var sets [][]int
		for mask := 1<<len(items) - 1; mask >= 0; mask-- {
			var set []int
			for i, it := range items {
				if mask&(1<<(len(items)-1-i)) != 0 {
					set = append(set, it...)
				}
			}
			sets = append(sets, set)
		}
		return sets, nil
	case pg.GroupingSetKind_GROUPING_SET_SETS:
		var sets [][]int
		for _, c := range gs.Content {
			item, err := a.groupingItem(g, c, targets)
			if err != nil {
				return nil, err
			}
			sets = append(sets, item...)
		}
		return sets, nil
	}
	return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "this grouping set is not supported"), gs.Location)
}

// groupingFunc analyzes GROUPING(args): each argument must be a key of
// the GROUP BY of the query it is in or, as PostgreSQL's levelsup has it,
// of an enclosing query (SELECT (SELECT grouping(t.x)) FROM t GROUP BY
// t.x), which then computes it and the subquery reads it as an outer
// value.
func (a *analyzer) groupingFunc(f *pg.GroupingFunc, sc *scope) (exec.Expr, error) {
	e, err := a.levelGroupingFunc(f, sc)
	var pe *pgerr.Error
	if err == nil || !errors.As(err, &pe) || pe.Code != pgerr.GroupingError || sc == nil || sc.corr == nil || sc.corr.outer == nil {
		return e, err
	}
	saved := a.nested()
	outer, oerr := a.groupingFunc(f, sc.corr.outer)
	a.restore(saved)
	if oerr != nil {
		return nil, err
	}
	return sc.corr.ref(outer), nil
}

// levelGroupingFunc analyzes GROUPING(args) as a function of sc's own
// GROUP BY.
func (a *analyzer) levelGroupingFunc(f *pg.GroupingFunc, sc *scope) (exec.Expr, error) {
	var g *grouping
	if sc != nil {
		g = sc.group
	}
	// PostgreSQL points at the argument that is not a key.
	notKey := func(arg *pg.Node) error {
		pos := f.Location
		if p := ExprLocation(arg); p >= 0 {
			pos = p
		}
		return WithPos(pgerr.New(pgerr.GroupingError, "arguments to GROUPING must be grouping expressions of the associated query level"), pos)
	}
	if g == nil {
		return nil, notKey(f.Args[0])
	}
	if len(f.Args) > 31 {
		return nil, WithPos(pgerr.New(pgerr.Code("54023"), "GROUPING must have fewer than 32 arguments"), f.Location)
	}
	gf := &exec.GroupingFunc{}
	for _, n := range f.Args {
		e, err := a.expr(n, g.input)
		if err != nil {
			return nil, err
		}
		k := slices.IndexFunc(g.keys, func(key exec.Expr) bool { return exprEqual(key, e) })
		if k < 0 {
			return nil, notKey(n)
		}
		gf.Keys = append(gf.Keys, k)
	}
	g.groupingFuncs = append(g.groupingFuncs, gf)
	return gf, nil
}

func (a *analyzer) groupKey(n *pg.Node, targets []*pg.Node, sc *scope) (exec.Expr, error) {
	e, err := a.groupKeyExpr(n, targets, sc)
	if err == nil && !exec.HasBtreeOrdering(e.Type().OID) {
		return nil, errNoEquality(e.Type(), ExprLocation(n))
	}
	return e, err
}

// errNoEquality is PostgreSQL's error for grouping or DISTINCT over a
// type without an equality operator of a btree or hash operator class.
func errNoEquality(t exec.T, loc int32) error {
	return WithPos(pgerr.New(pgerr.UndefinedFunction, "could not identify an equality operator for type %s", exec.TypeName(t.OID)), loc)
}

func (a *analyzer) groupKeyExpr(n *pg.Node, targets []*pg.Node, sc *scope) (exec.Expr, error) {
	target := func(i int) (exec.Expr, error) {
		return a.expr(targets[i].GetResTarget().Val, sc)
	}
	if c := n.GetAConst(); c != nil && c.GetIval() != nil {
		// A position counts the select list's columns with its stars
		// expanded, as PostgreSQL's does.
		pos := int(c.GetIval().Ival)
		for _, t := range targets {
			if pos < 1 {
				break
			}
			cr := t.GetResTarget().Val.GetColumnRef()
			if cr == nil || cr.Fields[len(cr.Fields)-1].GetAStar() == nil {
				if pos == 1 {
					return a.expr(t.GetResTarget().Val, sc)
				}
				pos--
				continue
			}
			exprs, _, err := a.star(cr, sc)
			if err != nil {
				return nil, err
			}
			if pos <= len(exprs) {
				return exprs[pos-1], nil
			}
			pos -= len(exprs)
		}
		return nil, WithPos(pgerr.New(pgerr.InvalidColumnReference, "GROUP BY position %d is not in select list", c.GetIval().Ival), c.Location)
	}
	if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
		name := cr.Fields[0].GetString_().Sval
		e, err := a.resolveIn(sc, "", name, cr.Location, false)
		if err != nil || e != nil {
			return e, err
		}
		for i, t := range targets {
			if t.GetResTarget().Name == name {
				return target(i)
			}
		}
	}
	return a.expr(n, sc)
}

// groupedColumn returns a column of the input as the grouped query sees
// it: a group key, or a column of a table whose primary key is grouped
// (added as a key, which does not change the groups).
func (a *analyzer) groupedColumn(sc *scope, it *nsItem, c *scopeCol, loc int32, fromSub bool) (exec.Expr, error) {
	g := sc.group
	ref := c.colRef()
	for i, k := range g.keys {
		if exprEqual(k, ref) {
			return g.keyRef(i), nil
		}
	}
	if t := it.table; t != nil && t.HasPrimaryKey() {
		all := true
		for _, pos := range t.Def.PrimaryKey {
			found := false
			for _, pc := range it.cols {
				if pc.pos == pos {
					for _, k := range g.keys {
						found = found || exprEqual(k, pc.colRef())
					}
				}
			}
			all = all && found
		}
		if all {
			return g.keyRef(g.addKey(ref)), nil
		}
	}
	name := c.name
	if it.name != "" {
		name = it.name + "." + c.name
	}
	if fromSub {
		return nil, WithPos(pgerr.New(pgerr.GroupingError, "subquery uses ungrouped column %q from outer query", name), loc)
	}
	return nil, WithPos(pgerr.New(pgerr.GroupingError, "column %q must appear in the GROUP BY clause or be used in an aggregate function", name), loc)
}

// groupedExpr returns, for an expression of a grouped query that equals a
// group key that is more than a column, the reference to that key.
func (a *analyzer) groupedExpr(n *pg.Node, sc *scope) (exec.Expr, bool) {
	switch {
	case n.GetColumnRef() != nil, n.GetAConst() != nil, n.GetParamRef() != nil, n.GetSubLink() != nil:
		return nil, false
	case n.GetFuncCall() != nil && a.isAggregate(n.GetFuncCall()):
		return nil, false
	}
	g := sc.group
	saved, srfs, wins := a.clause, a.srfs, a.windows
	a.clause, a.srfs, a.windows = "GROUP BY", nil, nil
	e, err := a.expr(n, g.input)
	a.clause, a.srfs, a.windows = saved, srfs, wins
	if err != nil {
		return nil, false
	}
	for i, k := range g.keys {
		if exprEqual(k, e) {
			return g.keyRef(i), true
		}
	}
	return nil, false
}

// outerAgg reports whether the arguments of an aggregate call in sc read
// columns of the enclosing query and none of sc's own.
func (a *analyzer) outerAgg(f *pg.FuncCall, sc *scope) bool {
	local := false
	// Probe against the enclosing query's rows before grouping, through a
	// correlation of its own, so that nothing is recorded. The FILTER
	// counts as PostgreSQL counts it (count(*) FILTER (WHERE outer.x)).
	outerInput := sc.corr.outer
	if outerInput.group != nil {
		outerInput = outerInput.group.input
	}
	probe := &scope{items: sc.items, corr: &correlation{outer: outerInput}}
	probe.track = func(*nsItem) { local = true }
	saved := a.nested()
	defer a.restore(saved)
	outer := false
	nodes := slices.Clone(f.Args)
	if f.AggFilter != nil {
		nodes = append(nodes, f.AggFilter)
	}
	for _, n := range nodes {
		e, err := a.expr(n, probe)
		if err != nil {
			return false
		}
		outer = outer || readsOuter(e)
	}
	return outer && !local
}

// regroupError asks the enclosing query named by scope to analyze its
// select list again as a grouped query: a subquery in it holds an
// aggregate of its columns (SELECT (SELECT max(t.x)) FROM t), which makes
// it an aggregating query, as in PostgreSQL. Should it reach the client
// (the subquery was somewhere aggregates are not allowed), it is pe.
type regroupError struct {
	pe    *pgerr.Error
	scope *scope
}

func (e *regroupError) Error() string    { return e.pe.Message }
func (e *regroupError) Unwrap() error    { return e.pe }
func (e *regroupError) SQLState() string { return string(e.pe.Code) }

// aggCall analyzes a call of an aggregate function.
func (a *analyzer) aggCall(f *pg.FuncCall, sc *scope) (exec.Expr, error) {
	name := OpName(f.Funcname)
	if f.Over != nil {
		return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "window functions are not supported yet"), f.Location)
	}
	// In a FILTER, an aggregate of this query's level is refused as
	// such; one of an enclosing query's (over its columns only) is nested,
	// as PostgreSQL words them.
	if a.inAggFilter && !(sc != nil && sc.corr != nil && sc.corr.outer != nil && a.outerAgg(f, sc)) {
		return nil, WithPos(pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in FILTER"), f.Location)
	}
	if a.inAgg {
		return nil, WithPos(pgerr.New(pgerr.GroupingError, "aggregate function calls cannot be nested"), f.Location)
	}
	if sc != nil && sc.corr != nil && sc.corr.outer != nil && a.outerAgg(f, sc) {
		if sc.corr.inAgg {
			return nil, WithPos(pgerr.New(pgerr.GroupingError, "aggregate function calls cannot be nested"), f.Location)
		}
		if sc.corr.outer.group == nil {
			return nil, &regroupError{pe: WithPos(pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed here"), f.Location), scope: sc.corr.outer}
		}
		// An aggregate over the columns of the enclosing, grouped query
		// (HAVING EXISTS (... WHERE sum(outer.x) = ...)) is computed by
		// that query and read here as an outer value.
		saved := a.nested()
		e, err := a.aggCall(f, sc.corr.outer)
		a.restore(saved)
		if err != nil {
			return nil, err
		}
		return sc.corr.ref(e), nil
	}
	if sc == nil || sc.group == nil {
		clause := a.clause
		if clause == "" {
			clause = "this context"
		}
		return nil, WithPos(pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in %s", clause), f.Location)
	}
	if f.AggWithinGroup {
		return a.orderedSetCall(f, name, sc.group)
	}

	g := sc.group
	a.inAgg = true
	defer func() { a.inAgg = false }()
	if !f.AggStar && len(f.Args) == 0 && name == "count" {
		return nil, WithPos(pgerr.New(pgerr.WrongObjectType, "count(*) must be used to call a parameterless aggregate function"), f.Location)
	}
	// An aggregate whose arguments read only columns of an enclosing
	// query belongs to that query (PostgreSQL's agglevelsup); see below.
	local := false
	savedTrack := g.input.track
	g.input.track = func(it *nsItem) {
		local = true
		if savedTrack != nil {
			savedTrack(it)
		}
	}
	defer func() { g.input.track = savedTrack }()
	// count(x.*) counts the rows where x's whole row is not NULL: in
	// PostgreSQL only the rows an outer join pads have a NULL whole row;
	// here, rows where some column of x is not NULL.
	var present exec.Expr
	argNodes := f.Args
	if cr := starArg(f); cr != nil && name == "count" {
		cols, _, err := a.star(cr, g.input)
		if err != nil {
			return nil, err
		}
		var any []exec.Expr
		for _, c := range cols {
			any = append(any, &exec.IsNull{E: c, Not: true})
		}
		present = &exec.BoolOp{Or: true, Args: any}
		argNodes = nil
	}
	var args, raw []exec.Expr
	var types []exec.T
	for _, n := range argNodes {
		e, err := a.expr(n, g.input)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
		raw = append(raw, e)
		types = append(types, e.Type())
	}
	fn, want, spread, err := a.lookupAggregate(f, name, types)
	if err == nil && fn.OrderedSet {
		// Without WITHIN GROUP an ordered-set aggregate is not found, as
		// in PostgreSQL.
		err = pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", sigOf(name, types)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	if err != nil {
		if pe, ok := err.(*pgerr.Error); ok && pe.Code != pgerr.InsufficientPrivilege {
			return nil, WithPos(pe, f.Location) // a privilege error has none, as PostgreSQL's
		}
		return nil, err
	}
	if err := a.coerceArgs(args, want, f.Location); err != nil {
		return nil, err
	}
	args, want = packVariadic(args, want, spread)
	if f.AggDistinct {
		for i, e := range args {
			if !exec.HasBtreeOrdering(e.Type().OID) && i < len(f.Args) {
				return nil, errNoEquality(e.Type(), ExprLocation(f.Args[i]))
			}
		}
	}
	call := &exec.AggCall{Func: fn, ArgTypes: want, Args: args, Distinct: f.AggDistinct, Filter: present}
	if f.AggFilter != nil {
		a.inAggFilter = true
		filter, err := a.condition(f.AggFilter, g.input, "FILTER", "argument of FILTER")
		a.inAggFilter = false
		if err != nil {
			return nil, err
		}
		if present != nil {
			filter = and([]exec.Expr{filter, present})
		}
		call.Filter = filter
	}
	for _, sb := range f.AggOrder {
		by := sb.GetSortBy()
		e, err := a.expr(by.Node, g.input)
		if err != nil {
			return nil, err
		}
		if e.Type().OID == exec.OIDUnknown {
			if e, err = a.coerce(e, exec.TText, "", -1); err != nil {
				return nil, err
			}
		}
		if f.AggDistinct {
			found := false
			for i, x := range args {
				found = found || exprEqual(x, e) || exprEqual(raw[i], e)
			}
			if !found {
				return nil, WithPos(pgerr.New(pgerr.InvalidColumnReference, "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list"), ExprLocation(by.Node))
			}
		}
		call.OrderKeys = append(call.OrderKeys, sortKey(by, len(call.Order)))
		call.Order = append(call.Order, e)
	}
	if !local && slices.ContainsFunc(args, readsOuter) {
		if sc.corr != nil && sc.corr.inAgg {
			return nil, WithPos(pgerr.New(pgerr.GroupingError, "aggregate function calls cannot be nested"), f.Location)
		}
		return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "aggregates over columns of an enclosing query are not supported yet"), f.Location)
	}
	return g.addAgg(call), nil
}

// addAgg adds call to the aggregates the group computes, unless an equal
// call is there already, and returns the reference to its value.
func (g *grouping) addAgg(call *exec.AggCall) exec.Expr {
	for i, c := range g.aggs {
		if sameAgg(c, call) {
			return g.aggRefs[i]
		}
	}
	// Calls whose transitions are the same over the same input share
	// one state, each finishing it with its own final function, as in
	// PostgreSQL (a transition function with side effects runs once).
	if key := call.Func.Transition; key != "" {
		for i, c := range g.aggs {
			if c.Func.Transition == key && c.StateFrom == 0 && sameAggInput(c, call) {
				call.StateFrom = i + 1
				break
			}
		}
	}
	ref := &exec.ColRef{Idx: -1, T: call.T()}
	g.aggs = append(g.aggs, call)
	g.aggRefs = append(g.aggRefs, ref)
	return ref
}

func sameAgg(a, b *exec.AggCall) bool {
	return a.Func == b.Func && sameAggInput(a, b)
}

// sameAggInput reports whether two aggregate calls see the same values:
// the same arguments of the same rows, in the same order.
func sameAggInput(a, b *exec.AggCall) bool {
	if a.Distinct != b.Distinct || len(a.Args) != len(b.Args) || len(a.Order) != len(b.Order) ||
		(a.Filter == nil) != (b.Filter == nil) || (a.Filter != nil && !exprEqual(a.Filter, b.Filter)) {
		return false
	}
	for i := range a.Args {
		if !exprEqual(a.Args[i], b.Args[i]) {
			return false
		}
	}
	for i := range a.Order {
		if !exprEqual(a.Order[i], b.Order[i]) || a.OrderKeys[i] != b.OrderKeys[i] {
			return false
		}
	}
	return true
}

// containsAgg reports whether the expressions call an aggregate function
// of their own query (not one of a subquery's).
func (a *analyzer) containsAgg(nodes ...*pg.Node) bool {
	found := false
	for _, n := range nodes {
		if n == nil || !mayCall(n) {
			continue
		}
		pgtree.Walk(n.ProtoReflect(), func(m protoreflect.Message) bool {
			switch x := m.Interface().(type) {
			case *pg.SubLink, *pg.RangeSubselect:
				return false
			case *pg.FuncCall:
				if x.Over == nil && a.isAggregate(x) {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// mayCall reports whether the expression n may hold a function call. It
// answers false only for the plain shapes of OLTP queries (columns,
// constants, parameters, operators, casts over them), sparing them the
// reflective walk, which costs more than the rest of their analysis.
func mayCall(n *pg.Node) bool {
	switch x := n.Node.(type) {
	case *pg.Node_ColumnRef, *pg.Node_AConst, *pg.Node_ParamRef:
		return false
	case *pg.Node_ResTarget:
		return x.ResTarget.Val != nil && mayCall(x.ResTarget.Val)
	case *pg.Node_SortBy:
		return mayCall(x.SortBy.Node)
	case *pg.Node_TypeCast:
		return mayCall(x.TypeCast.Arg)
	case *pg.Node_AExpr:
		e := x.AExpr
		return e.Lexpr != nil && mayCall(e.Lexpr) || e.Rexpr != nil && mayCall(e.Rexpr)
	case *pg.Node_BoolExpr:
		for _, arg := range x.BoolExpr.Args {
			if mayCall(arg) {
				return true
			}
		}
		return false
	case *pg.Node_List:
		for _, item := range x.List.Items {
			if mayCall(item) {
				return true
			}
		}
		return false
	}
	return true
}

// starArg returns the name.* argument of a call of one argument.
func starArg(f *pg.FuncCall) *pg.ColumnRef {
	if len(f.Args) != 1 || f.AggStar {
		return nil
	}
	cr := f.Args[0].GetColumnRef()
	if cr == nil || len(cr.Fields) < 2 || cr.Fields[len(cr.Fields)-1].GetAStar() == nil {
		return nil
	}
	return cr
}
