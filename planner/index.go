package planner

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Index selection. A single-table predicate is split into its AND-ed
// conjuncts; those of the form `column op value` (op one of = < <= > >=,
// value a constant or parameter, or casts of them) and `column IN (values)`
// are key conditions. For the primary key and each secondary index, the
// usable conditions are equalities on a prefix of its columns, then range
// bounds on the next column; the index whose scan reads the fewest rows by
// estimate (scanCost) wins. The values are evaluated at Open
// (exec.IndexScan), so one plan serves every
// execution of a prepared statement. The predicate stays as a filter above
// the scan, but for the conditions the scan's bounds decide exactly
// (exactCond), which the filter would only test again on every row: they
// move to the scan's Cond.

// scanWhere returns the plan reading the rows of scan for which pred
// holds: an index scan under the filter when key conditions allow one.
// pred's column references are the table's column positions.
func (a *analyzer) scanWhere(scan *exec.Scan, pred exec.Expr) exec.Plan {
	var in exec.Plan = scan
	if scan.Table.Filters != nil {
		scan.Table.Filters(andParts(pred, nil))
	}
	if t := scan.Table; t.Virtual == nil && scan.Lower == nil && scan.Upper == nil {
		preds := andParts(pred, nil)
		p := a.bestIndex(t, preds)
		if p == nil || !selective(p) {
			if or := a.indexOr(t, preds, scan); or != nil {
				in, p = or, nil // under the whole predicate
			}
		}
		if p != nil {
			p.Cols, p.Alias = scan.Cols, scan.Alias
			in = p
			if p.Cond != nil {
				decided := andParts(p.Cond, nil)
				preds = slices.DeleteFunc(preds, func(e exec.Expr) bool { return slices.Contains(decided, e) })
				if len(preds) == 0 {
					return p
				}
				pred = and(preds)
			}
		}
	}
	return &exec.Filter{In: in, Pred: pred}
}

// indexOr returns an IndexOr reading scan's table for the first of preds
// that is an OR whose every alternative an index scan serves selectively
// (an equality on its leading columns, or a range closed on both sides):
// WHERE email = $1 OR name = $2. Nil when no OR is such. The whole
// predicate is tested above it.
func (a *analyzer) indexOr(t *exec.Table, preds []exec.Expr, scan *exec.Scan) *exec.IndexOr {
	for _, p := range preds {
		b, ok := p.(*exec.BoolOp)
		if !ok || !b.Or {
			continue
		}
		var scans []exec.Plan
		for _, alt := range b.Args {
			s := a.bestIndex(t, andParts(alt, nil))
			if s == nil || !selective(s) {
				scans = nil
				break
			}
			s.Cols, s.Alias, s.Cond = scan.Cols, scan.Alias, nil
			scans = append(scans, s)
		}
		if scans != nil {
			return &exec.IndexOr{Scans: scans, Cols: scan.Cols}
		}
	}
	return nil
}

// bestIndex returns the index scan of t the conjunction preds makes
// cheapest, nil when none helps: of a plain index (chooseIndex), or of an
// expression index when that one has equalities and the other none.
func (a *analyzer) bestIndex(t *exec.Table, preds []exec.Expr) *exec.IndexScan {
	p := chooseIndex(t, preds)
	if x := a.chooseExprIndex(t, preds); x != nil && (p == nil || len(p.Eq) == 0 && len(x.Eq) > 0) {
		p = x
	}
	return p
}

// selective reports whether an index scan reads few of its table's rows
// by PostgreSQL's default selectivities: an equality on its leading
// columns, or a range closed on both sides.
func selective(s *exec.IndexScan) bool {
	return len(s.Eq) > 0 || len(s.Lower) > 0 && len(s.Upper) > 0
}

// chooseExprIndex returns an IndexScan of an index of t whose leading key
// is an expression (CREATE INDEX ON users (lower(email))) for the
// conditions among preds that compare that expression with a value, nil
// when none does. Partial indexes are left out.
func (a *analyzer) chooseExprIndex(t *exec.Table, preds []exec.Expr) *exec.IndexScan {
	var best *exec.IndexScan
	for i := range t.Def.Indexes {
		ix := &t.Def.Indexes[i]
		if ix.Where != "" || len(ix.Columns) == 0 || ix.Columns[0].Expr == "" {
			continue
		}
		ie, err := a.indexEval(t, ix)
		if err != nil || ie.Exprs[0] == nil {
			continue
		}
		// The expression stands as a column of its own, numbered past the
		// table's, for buildScan.
		exprCol := len(t.Cols)
		var conds []keyCond
		for _, p := range preds {
			c, ok := p.(*exec.Call)
			if !ok || len(c.Args) != 2 {
				continue
			}
			op, ok := flipped[c.Name]
			if !ok {
				continue
			}
			for side, v := range []exec.Expr{c.Args[1], c.Args[0]} {
				x := c.Args[side]
				if exprEqual(x, ie.Exprs[0]) && rowFree(v) && exec.KeyCompatible(x.Type(), v.Type()) {
					name := c.Name
					if side == 1 {
						name = op
					}
					conds = append(conds, keyCond{col: exprCol, op: name, vals: []exec.Expr{v}})
				}
			}
		}
		if scan := buildScan(t, ix.Name, []int{exprCol}, conds); scan != nil && (best == nil || len(scan.Eq) > len(best.Eq)) {
			best = scan
		}
	}
	return best
}

// andParts appends the AND-ed parts of e to out.
func andParts(e exec.Expr, out []exec.Expr) []exec.Expr {
	if b, ok := e.(*exec.BoolOp); ok && !b.Or {
		for _, arg := range b.Args {
			out = andParts(arg, out)
		}
		return out
	}
	return append(out, e)
}

// keyCond is a condition on one column usable as a key bound: col = v,
// col IN (vs), or a range side. src is the predicate it came from when a
// scan bounded by it returns exactly the rows the predicate holds of
// (exactCond), nil when the scan only narrows what is read.
type keyCond struct {
	col  int
	op   string // "=", "in", "<", "<=", ">", ">="
	vals []exec.Expr
	src  exec.Expr
}

// flipped gives the operator with its operands swapped: 1 < x is x > 1.
var flipped = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// keyCondOf recognizes a key condition over t's columns.
func keyCondOf(t *exec.Table, e exec.Expr) (keyCond, bool) {
	c, ok := keyCondIn(t, e)
	if ok && exactCond(t, c) {
		c.src = e
	}
	return c, ok
}

// exactCond reports whether the key bounds of c select exactly the rows
// its predicate holds of. That is so of integer columns compared with
// integers: the bounds are the values' key encodings, converted as the
// comparison converts them (exec's keyDatum), NULL bounds select no row as
// the comparison holds of none, and an integer's key bytes order and
// equal as its values do. Not of other types, whose comparison may see
// what their key bytes do not (a collation, float's -0 and 0), and not of
// a subquery's values.
func exactCond(t *exec.Table, c keyCond) bool {
	if !exactKeyType(t.Cols[c.col].Type) {
		return false
	}
	for _, v := range c.vals {
		if _, sub := v.(*exec.SubqueryKeys); sub || !exactKeyType(v.Type()) {
			return false
		}
	}
	return true
}

func exactKeyType(typ exec.T) bool {
	return exec.KindOf(typ.OID) == exec.KindInt && typ.OID != exec.OIDOid
}

// keyCondIn is keyCondOf without src.
func keyCondIn(t *exec.Table, e exec.Expr) (keyCond, bool) {
	switch e := e.(type) {
	case *exec.Call:
		if _, ok := flipped[e.Name]; !ok || len(e.Args) != 2 {
			return keyCond{}, false
		}
		if col, ok := exec.KeyColumn(t, e.Args[0]); ok && rowFree(e.Args[1]) && compatible(t, col, e.Args[1]) {
			return keyCond{col: col, op: e.Name, vals: []exec.Expr{e.Args[1]}}, true
		}
		if col, ok := exec.KeyColumn(t, e.Args[1]); ok && rowFree(e.Args[0]) && compatible(t, col, e.Args[0]) {
			return keyCond{col: col, op: flipped[e.Name], vals: []exec.Expr{e.Args[0]}}, true
		}
	case *exec.SubPlan:
		// x IN (SELECT ...), uncorrelated and hashed: its values, known
		// when the scan opens, are the alternatives.
		if e.Kind != exec.AnySub || len(e.Args) > 0 || len(e.Left) != 1 || len(e.LeftKeys) != 1 || len(e.RightKeys) != 1 {
			return keyCond{}, false
		}
		if k, ok := e.LeftKeys[0].(*exec.ColRef); !ok || k.Idx != 0 {
			return keyCond{}, false
		}
		v := &exec.SubqueryKeys{Sub: e}
		if col, ok := exec.KeyColumn(t, e.Left[0]); ok && compatible(t, col, v) && t.Cols[col].Type.OID == v.Type().OID {
			return keyCond{col: col, op: "in", vals: []exec.Expr{v}}, true
		}
	case *exec.BoolOp:
		// x IN (a, b) is planned as x = a OR x = b.
		if !e.Or || len(e.Args) == 0 {
			return keyCond{}, false
		}
		in := keyCond{col: -1, op: "in"}
		for _, arg := range e.Args {
			c, ok := keyCondIn(t, arg)
			if !ok || c.op != "=" || (in.col >= 0 && c.col != in.col) {
				return keyCond{}, false
			}
			in.col = c.col
			in.vals = append(in.vals, c.vals...)
		}
		return in, true
	}
	return keyCond{}, false
}

// compatible reports whether v can bound column col in key bytes.
func compatible(t *exec.Table, col int, v exec.Expr) bool {
	return exec.KeyCompatible(t.Cols[col].Type, v.Type())
}

// rowFree reports whether e is the same for every row: a constant, a
// parameter, an uncorrelated scalar subquery (which PostgreSQL runs once,
// as an InitPlan: WHERE id = (SELECT max(id) FROM t)), or a cast of one,
// or the arithmetic of numbers that are (WHERE id = (SELECT max(id) FROM
// t) - 1). Other functions are left out: a volatile one would be
// evaluated once instead of per row.
func rowFree(e exec.Expr) bool {
	switch x := e.(type) {
	case *exec.Const, *exec.Param:
		return true
	case *exec.SubPlan:
		return x.Kind == exec.ScalarSub && len(x.Args) == 0
	case *exec.Call:
		switch {
		case x.Name == "cast" && len(x.Args) == 1:
			return rowFree(x.Args[0])
		case arithmetic[x.Name] && isNumber(x.T) && len(x.Args) <= 2:
			for _, a := range x.Args {
				if !isNumber(a.Type()) || !rowFree(a) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// arithmetic are the operators of numbers that are immutable for the
// built-in number types.
var arithmetic = map[string]bool{"+": true, "-": true, "*": true, "/": true, "%": true}

func isNumber(t exec.T) bool {
	switch exec.KindOf(t.OID) {
	case exec.KindInt, exec.KindFloat, exec.KindNumeric:
		return t.OID != exec.OIDOid
	}
	return false
}

// chooseIndex returns an IndexScan of t for the key conditions among
// preds, nil when none helps.
func chooseIndex(t *exec.Table, preds []exec.Expr) *exec.IndexScan {
	var conds []keyCond
	for _, p := range preds {
		if c, ok := keyCondOf(t, p); ok {
			conds = append(conds, c)
		} else {
			conds = append(conds, likeConds(t, p)...)
		}
	}
	return indexFor(t, conds)
}

// likeConds returns the key conditions x LIKE 'abc%' implies of a text
// key column x: x >= 'abc' and x < 'abd' (x = 'abc' for a pattern without
// wildcards), as PostgreSQL derives them in the C collation, which is
// ours: the keys of the strings starting with a prefix are a range. None
// for a pattern starting with a wildcard. The upper bound increments the
// prefix's last ASCII byte, so that it stays valid UTF-8 (past a non-ASCII
// tail the range is wider, never narrower).
func likeConds(t *exec.Table, e exec.Expr) []keyCond {
	c, ok := e.(*exec.Call)
	if !ok || c.Name != "~~" || len(c.Args) != 2 {
		return nil
	}
	pat, ok := c.Args[1].(*exec.Const)
	col, isCol := exec.KeyColumn(t, c.Args[0])
	if !ok || !isCol || pat.D.IsNull() || !compatible(t, col, &exec.Const{T: exec.TText}) {
		return nil
	}
	var prefix []byte
	wild := false
	for i := 0; i < len(pat.D.S); i++ {
		b := pat.D.S[i]
		if b == '%' || b == '_' {
			wild = true
			break
		}
		if b == '\\' {
			if i++; i == len(pat.D.S) {
				break // a trailing escape: the prefix before it, as PostgreSQL's like_fixed_prefix
			}
			b = pat.D.S[i]
		}
		prefix = append(prefix, b)
	}
	if len(prefix) == 0 {
		return nil
	}
	text := func(b []byte) exec.Expr { return &exec.Const{D: exec.DText(string(b)), T: exec.TText} }
	if !wild {
		return []keyCond{{col: col, op: "=", vals: []exec.Expr{text(prefix)}}}
	}
	conds := []keyCond{{col: col, op: ">=", vals: []exec.Expr{text(prefix)}}}
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] < 0x7F {
			hi := append([]byte(nil), prefix[:i+1]...)
			hi[i]++
			conds = append(conds, keyCond{col: col, op: "<", vals: []exec.Expr{text(hi)}})
			break
		}
	}
	return conds
}

// lookupPlan returns the plan reading the rows of side whose keys equal
// the values vals (evaluated when it is opened): side's own filter over an
// index scan of its table bounded by them. keys are over a row where
// side's columns start at offset. A hash join's input is looked up with
// the other input's key values, which the join passes as its outer values
// (exec.HashJoin's LeftLookup and RightLookup, joinLookup); a correlated
// subquery's table with the enclosing row's values (exec.HashLookup's
// Lookup). It is nil unless side reads one table (through a scan, or an
// index scan, under a filter reading no outer value) and the keys that
// are its plain columns bind the leading column of its primary key or of
// a plain index.
func lookupPlan(side exec.Plan, keys []exec.Expr, offset int, vals []exec.Expr) exec.Plan {
	var pred exec.Expr
	in := side
	if f, ok := side.(*exec.Filter); ok {
		if readsOuter(f.Pred) {
			return nil
		}
		pred, in = f.Pred, f.In
	}
	var t *exec.Table
	var cols []exec.ResultColumn
	var alias string
	switch s := in.(type) {
	case *exec.Scan:
		if s.Lower != nil || s.Upper != nil || s.Layout != nil {
			return nil
		}
		t, cols, alias = s.Table, s.Cols, s.Alias
	case *exec.IndexScan:
		t, cols, alias = s.Table, s.Cols, s.Alias
		if s.Cond != nil {
			// The lookup replaces the scan's bounds: what they decided is
			// tested above it again.
			if pred == nil {
				pred = s.Cond
			} else {
				pred = and(append(andParts(pred, nil), andParts(s.Cond, nil)...))
			}
		}
	default:
		return nil
	}
	if t.Virtual != nil {
		return nil
	}
	var conds []keyCond
	for i, k := range keys {
		ref, ok := k.(*exec.ColRef)
		if !ok || ref.Idx < offset || ref.Idx-offset >= len(t.Cols) {
			continue
		}
		if col := ref.Idx - offset; compatible(t, col, vals[i]) {
			conds = append(conds, keyCond{col: col, op: "=", vals: []exec.Expr{vals[i]}})
		}
	}
	scan := indexFor(t, conds)
	if scan == nil {
		return nil
	}
	scan.Cols, scan.Alias = cols, alias
	if pred == nil {
		return scan
	}
	return &exec.Filter{In: scan, Pred: pred}
}

// joinLookup is lookupPlan for an input of a hash join, whose keys the
// other input's values bind as the outer values the join opens it with.
func joinLookup(side exec.Plan, keys []exec.Expr, offset int) exec.Plan {
	vals := make([]exec.Expr, len(keys))
	for i, k := range keys {
		vals[i] = &exec.OuterRef{Idx: i, T: k.Type()}
	}
	return lookupPlan(side, keys, offset, vals)
}

// indexFor returns the IndexScan of t that the key conditions conds make
// cheapest, nil when none helps.
func indexFor(t *exec.Table, conds []keyCond) *exec.IndexScan {
	if len(conds) == 0 {
		return nil
	}
	var best *exec.IndexScan
	bestCost := 0.0
	consider := func(name string, cols []int, unique, secondary bool) {
		scan := buildScan(t, name, cols, conds)
		if scan == nil {
			return
		}
		cost := scanCost(scan, len(cols), unique, secondary)
		if best == nil || cost < bestCost {
			best, bestCost = scan, cost
		}
	}
	if t.HasPrimaryKey() {
		consider("", t.Def.PrimaryKey, true, false)
	}
	for _, ix := range t.Def.Indexes {
		if !ix.Plain() {
			continue // expressions and predicates are not matched yet
		}
		cols := make([]int, len(ix.Columns))
		for i, c := range ix.Columns {
			cols[i] = c.Column
		}
		consider(ix.Name, cols, ix.Unique, true)
	}
	return best
}

// Without statistics, scans are compared with PostgreSQL's default
// selectivities: an equality keeps 0.5% of the rows, a range closed on both
// sides 0.5%, an open one a third; an IN list one equality per value. A
// unique key fully bound yields one row. A secondary index costs a
// primary-key lookup per row, counted as two rows' worth of reading.
const (
	eqSel        = 0.005
	closedSel    = 0.005
	openSel      = 1.0 / 3
	tableRows    = 1e6 // the size the fractions are taken of
	lookupFactor = 2
)

// scanCost estimates the rows a scan reads, weighted by their cost.
func scanCost(s *exec.IndexScan, nCols int, unique, secondary bool) float64 {
	rows := tableRows
	for _, alts := range s.Eq {
		rows *= eqSel * float64(len(alts))
	}
	switch {
	case len(s.Lower) > 0 && len(s.Upper) > 0:
		rows *= closedSel
	case len(s.Lower)+len(s.Upper) > 0:
		rows *= openSel
	}
	if unique && len(s.Eq) == nCols {
		rows = 0
		for _, alts := range s.Eq {
			rows = max(rows, 1) * float64(len(alts))
		}
	}
	if secondary {
		rows *= lookupFactor
	}
	return rows
}

// buildScan builds the scan of one index (its key columns cols) from the
// conditions, nil if they bound none of its leading columns. The scan's
// Cond is the conditions it uses that it decides exactly (keyCond.src).
func buildScan(t *exec.Table, index string, cols []int, conds []keyCond) *exec.IndexScan {
	scan := &exec.IndexScan{Table: t, Index: index}
	var decided []exec.Expr
	defer func() {
		// Past exec.MaxSpans values the scan reads one range from the
		// least key to the greatest; a subquery's count is not known.
		spans := 1
		for _, alts := range scan.Eq {
			spans *= len(alts)
			if spans > exec.MaxSpans || slices.ContainsFunc(alts, func(e exec.Expr) bool { _, sub := e.(*exec.SubqueryKeys); return sub }) {
				return
			}
		}
		if len(decided) > 0 {
			scan.Cond = and(decided)
		}
	}()
	for _, col := range cols {
		eq := -1
		for i, c := range conds {
			if c.col == col && (c.op == "=" || (c.op == "in" && eq < 0)) {
				if eq < 0 || conds[eq].op == "in" {
					eq = i
				}
			}
		}
		if eq >= 0 {
			scan.Eq = append(scan.Eq, conds[eq].vals)
			if conds[eq].src != nil {
				decided = append(decided, conds[eq].src)
			}
			continue
		}
		for _, c := range conds {
			if c.col != col {
				continue
			}
			switch c.op {
			case ">", ">=":
				scan.Lower = append(scan.Lower, exec.Bound{E: c.vals[0], Incl: c.op == ">="})
			case "<", "<=":
				scan.Upper = append(scan.Upper, exec.Bound{E: c.vals[0], Incl: c.op == "<="})
			default:
				continue
			}
			if c.src != nil {
				decided = append(decided, c.src)
			}
		}
		break
	}
	if len(scan.Eq)+len(scan.Lower)+len(scan.Upper) == 0 {
		return nil
	}
	return scan
}

// indexPredicate analyzes a partial index's WHERE clause.
func (a *analyzer) indexPredicate(t *exec.Table, n *pg.Node) (string, error) {
	e, err := a.expr(n, tableScope(t, t.Def.Name))
	if err != nil {
		return "", err
	}
	if _, err := a.coerce(e, exec.TBool, "argument of WHERE", -1); err != nil {
		return "", err
	}
	if err := ImmutableOnly(n, "index predicate"); err != nil {
		return "", err
	}
	return DeparseExpr(n)
}

// ImmutableOnly refuses the functions whose value changes from call to
// call, which an index or a partition key cannot hold (PostgreSQL
// requires IMMUTABLE ones); where says which ("index expression").
func ImmutableOnly(n *pg.Node, where string) error {
	var bad string
	VisitNodes(n, func(x *pg.Node) {
		if fc := x.GetFuncCall(); fc != nil {
			switch name := OpName(fc.Funcname); name {
			case "now", "random", "nextval", "currval", "clock_timestamp", "statement_timestamp", "timeofday", "gen_random_uuid", "current_timestamp":
				bad = name
			}
		}
		if x.GetSqlvalueFunction() != nil {
			bad = "CURRENT_TIMESTAMP"
		}
	})
	if bad != "" {
		return pgerr.New(pgerr.InvalidObjectDefinition, "functions in %s must be marked IMMUTABLE", where)
	}
	return nil
}

// indexEval analyzes the expressions and predicate of an index for the
// executor (exec.Txn.IndexEval).
func (a *analyzer) indexEval(t *exec.Table, ix *sqldef.Index) (*exec.IndexEval, error) {
	sc := tableScope(t, t.Def.Name)
	ie := &exec.IndexEval{Exprs: make([]exec.Expr, len(ix.Columns))}
	for i, c := range ix.Columns {
		if c.Expr == "" {
			continue
		}
		n, err := ParseExpr(c.Expr)
		if err != nil {
			return nil, err
		}
		e, err := a.expr(n, sc)
		if err != nil {
			return nil, err
		}
		want := exec.T{OID: c.ExprType, Typmod: c.ExprTypmod}
		if e.Type() != want {
			if e, err = a.assignOrIO(e, want, "expr"); err != nil {
				return nil, err
			}
		}
		ie.Exprs[i] = e
	}
	if ix.Where != "" {
		n, err := ParseExpr(ix.Where)
		if err != nil {
			return nil, err
		}
		e, err := a.expr(n, sc)
		if err != nil {
			return nil, err
		}
		if ie.Where, err = a.coerce(e, exec.TBool, "argument of WHERE", -1); err != nil {
			return nil, err
		}
	}
	return ie, nil
}

// orderedScan returns in, a plan reading one table (a scan or an index
// scan, under a filter or not), changed to give its rows in the order keys
// ask for, read from the primary key or an index, so that they need no
// sort; ok is false when no index gives that order. keys are positions in
// exprs, the select list over in's rows. An index gives the order when the
// sort keys are its columns in order, after those its scan holds to one
// value (WHERE a = 5 ORDER BY b on an index of (a, b)), in its directions
// or all in the opposite ones (a backward scan), NULLs placed as it places
// them unless the column holds none; keys past all the columns of a unique
// index sort nothing. Without limited (a LIMIT above the sort), a
// secondary index is used only when the scan already reads it: reading a
// whole table through one costs a lookup per row, more than a sort.
func orderedScan(in exec.Plan, exprs []exec.Expr, keys []exec.SortKey, limited bool) (exec.Plan, bool) {
	filter, access := (*exec.Filter)(nil), in
	if f, ok := in.(*exec.Filter); ok {
		filter, access = f, f.In
	}
	var t *exec.Table
	switch s := access.(type) {
	case *exec.Scan:
		if s.Layout != nil || s.Lower != nil || s.Upper != nil {
			return in, false
		}
		t = s.Table
	case *exec.IndexScan:
		t = s.Table
	default:
		return in, false
	}
	if t.Virtual != nil {
		return in, false
	}
	cols := make([]int, len(keys))
	for i, k := range keys {
		c, ok := exprs[k.Col].(*exec.ColRef)
		if !ok || c.Idx >= len(t.Cols) || !exec.KeyCompatible(t.Cols[c.Idx].Type, t.Cols[c.Idx].Type) {
			return in, false
		}
		cols[i] = c.Idx
	}
	pkCols := make([]sqldef.IndexColumn, len(t.Def.PrimaryKey))
	for i, c := range t.Def.PrimaryKey {
		pkCols[i] = sqldef.IndexColumn{Column: c}
	}
	notNull := func(col int) bool { return t.Cols[col].NotNull || slices.Contains(t.Def.PrimaryKey, col) }
	// gives reports whether reading an index of columns ixCols, the first
	// fixed of them held to one value, gives the order, and backward.
	gives := func(ixCols []sqldef.IndexColumn, unique bool, fixed int) (reverse, ok bool) {
		decided := false
		ki, ci := 0, 0
		for ki < len(keys) && ci < len(ixCols) {
			ic := ixCols[ci]
			if cols[ki] != ic.Column {
				if ci < fixed {
					ci++ // one value: any order of it
					continue
				}
				if fixedAt(ixCols[:fixed], cols[ki]) {
					ki++ // sorting by a column held to one value sorts nothing
					continue
				}
				return false, false
			}
			back := keys[ki].Desc != ic.Desc
			if keys[ki].NullsFirst != ic.NullsFirst != back && !notNull(ic.Column) {
				return false, false
			}
			if decided && back != reverse {
				return false, false
			}
			reverse, decided = back, true
			ki++
			ci++
		}
		// Rows a unique index tells apart need no further key, unless a
		// NULL in it lets them repeat.
		unique = unique && !slices.ContainsFunc(ixCols, func(c sqldef.IndexColumn) bool { return !notNull(c.Column) })
		for ; ki < len(keys); ki++ {
			if !(unique && ci == len(ixCols)) && !fixedAt(ixCols[:fixed], cols[ki]) {
				return false, false
			}
		}
		return reverse, true
	}
	wrap := func(p exec.Plan) (exec.Plan, bool) {
		if filter != nil {
			return &exec.Filter{In: p, Pred: filter.Pred}, true
		}
		return p, true
	}
	switch s := access.(type) {
	case *exec.Scan:
		if t.HasPrimaryKey() {
			if rev, ok := gives(pkCols, true, 0); ok {
				c := *s
				c.Reverse = rev
				return wrap(&c)
			}
		}
		if !limited {
			return in, false
		}
		for _, ix := range t.Def.Indexes {
			if !ix.Plain() {
				continue
			}
			if rev, ok := gives(ix.Columns, ix.Unique, 0); ok {
				return wrap(&exec.IndexScan{Table: t, Index: ix.Name, Cols: s.Cols, Alias: s.Alias, Ordered: true, Reverse: rev})
			}
		}
	case *exec.IndexScan:
		fixed := 0
		for fixed < len(s.Eq) && len(s.Eq[fixed]) == 1 {
			fixed++
		}
		ixCols, unique := pkCols, true
		if s.Index != "" {
			ixCols, unique = nil, false
			for _, ix := range t.Def.Indexes {
				if ix.Name == s.Index {
					ixCols, unique = ix.Columns, ix.Unique
				}
			}
		}
		// An IN list's values come one span after another, in key order:
		// its column is not fixed, and sorts as the index does.
		if rev, ok := gives(ixCols, unique, fixed); ok && ixCols != nil {
			c := *s
			c.Ordered, c.Reverse = true, rev
			return wrap(&c)
		}
	}
	return in, false
}

// fixedAt reports whether column col is among the index columns ixCols.
func fixedAt(ixCols []sqldef.IndexColumn, col int) bool {
	return slices.ContainsFunc(ixCols, func(c sqldef.IndexColumn) bool { return c.Column == col })
}
