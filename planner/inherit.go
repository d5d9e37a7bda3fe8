package planner

import (
	"context"
	"slices"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Inheritance and partitioning. A child table lists its parents in
// sqldef.Table.Inherits; the root value keeps, derived from those, a
// record per (parent, child) pair (ddl.SyncRefs), so that a scan of a
// table finds its children with one seek. A statement on a table with
// children reads them through an exec.Append, each child's rows mapped to
// the parent's columns; writes go to the table each row belongs to
// (exec.Modify.Members), a partitioned table's new rows routed by their
// key (exec.Router).

// KeyTypes returns the types of a partitioned table's key columns.
func KeyTypes(t *sqldef.Table) []exec.T {
	out := make([]exec.T, len(t.PartitionKey.Columns))
	for i := range out {
		oid, typmod := t.KeyType(i)
		out[i] = exec.T{OID: oid, Typmod: typmod}
	}
	return out
}

// partitionKeyOf returns the key of partitioned table p as a Router or a
// CheckLevel computes it over rows of t (p or a descendant): the key
// columns' positions in t, and the key expressions analyzed over t's
// columns.
func (a *analyzer) partitionKeyOf(t, p *exec.Table) (pos []int, exprs []exec.Expr, err error) {
	key := p.Def.PartitionKey
	for i, c := range key.Columns {
		if c >= 0 {
			pos = append(pos, columnPos(t, p.Cols[c].Name))
			continue
		}
		pos = append(pos, -1)
		if exprs == nil {
			exprs = make([]exec.Expr, len(key.Columns))
		}
		x := key.Exprs[i]
		n, err := ParseExpr(x.Expr)
		if err != nil {
			return nil, nil, err
		}
		e, err := a.expr(n, tableScope(t, t.Def.Name))
		if err != nil {
			return nil, nil, err
		}
		if want := (exec.T{OID: x.Type, Typmod: x.Typmod}); e.Type() != want {
			if e, err = a.assignOrIO(e, want, "expr"); err != nil {
				return nil, nil, err
			}
		}
		exprs[i] = e
	}
	return pos, exprs, nil
}

// partitionKeyNames returns the key of partitioned table t as errors
// print it: a, lower(b), ((a + 1)).
func partitionKeyNames(t *sqldef.Table) string {
	names := make([]string, len(t.PartitionKey.Columns))
	for i := range names {
		names[i] = KeyColumnName(t, i)
	}
	return strings.Join(names, ", ")
}

// KeyColumnName names key column i of partitioned table t in messages.
func KeyColumnName(t *sqldef.Table, i int) string {
	if c := t.PartitionKey.Columns[i]; c >= 0 {
		return t.Columns[c].Name
	}
	return exprKeyText(t.PartitionKey.Expr(i))
}

// exprKeyText parenthesizes an expression key column unless it is a
// function call, as pg_get_partkeydef does.
func exprKeyText(expr string) string {
	if n, err := ParseExpr(expr); err == nil && n.GetFuncCall() != nil {
		return expr
	}
	return "(" + expr + ")"
}

// CompareBounds orders two range bounds; MINVALUE and MAXVALUE end the
// comparison, as they do in PostgreSQL.
func CompareBounds(x, y []exec.BoundDatum) int {
	rank := func(b exec.BoundDatum) int {
		switch b.Kind {
		case sqldef.BoundMinValue:
			return -1
		case sqldef.BoundMaxValue:
			return 1
		}
		return 0
	}
	for i := range x {
		rx, ry := rank(x[i]), rank(y[i])
		if rx != ry {
			return rx - ry
		}
		if rx != 0 {
			return 0
		}
		if c := exec.Compare(x[i].D, y[i].D); c != 0 {
			return c
		}
	}
	return 0
}

// partitions returns the partitions of a partitioned table.
func (a *analyzer) partitions(ctx context.Context, parent *sqldef.Table) ([]*sqldef.Table, error) {
	names, err := a.tx.Catalog().Children(ctx, parent.Schema, parent.Name)
	if err != nil {
		return nil, err
	}
	var out []*sqldef.Table
	for _, n := range names {
		t, ok, err := a.tx.Catalog().Table(ctx, n.Schema, n.Name)
		if err != nil {
			return nil, err
		}
		if ok && t.IsPartition() {
			out = append(out, t)
		}
	}
	return out, nil
}

// kinDep records the children a table had when a statement was planned.
type kinDep struct {
	parent   sqldef.TableName
	children []sqldef.TableName
}

// familyMember is a table a statement on another table reads or writes
// in its stead: the table itself, one that inherits from it, or a leaf
// partition.
type familyMember struct {
	t *exec.Table
	// layout maps the statement table's columns to the member's (see
	// exec.Scan.Layout); nil when they are the same.
	layout []int
	// levels are the partition bounds from the statement's table down to
	// the member, which pruning tests.
	levels []partLevel
}

// partLevel is a partition's bound in its partitioned parent, with the
// parent's key in the statement table's layout.
type partLevel struct {
	strategy byte
	key      []int
	types    []exec.T
	bound    exec.PartBound
	siblings []exec.PartBound // a default partition holds what these do not
}

// children returns the tables that inherit directly from t, partitions
// in the order of their bounds, and records them for plan reuse.
func (a *analyzer) children(t *exec.Table) ([]*exec.Table, error) {
	if root, ok := a.pinnedRoots[t]; ok {
		return a.pinnedChildren(t, root)
	}
	names, err := a.tx.Catalog().Children(a.ctx, t.Def.Schema, t.Def.Name)
	if err != nil {
		return nil, err
	}
	a.kin = append(a.kin, kinDep{parent: sqldef.TableName{Schema: t.Def.Schema, Name: t.Def.Name}, children: names})
	out := make([]*exec.Table, 0, len(names))
	for _, n := range names {
		if IsTempSchema(n.Schema) && n.Schema != a.s.TempSchema() {
			continue // another session's temporary child: PostgreSQL's scans skip it too
		}
		c, ok, err := a.tx.Table(a.ctx, n.Schema, n.Name)
		if err != nil {
			return nil, err
		}
		if ok {
			a.deps = append(a.deps, c.Def)
			out = append(out, c)
		}
	}
	return out, nil
}

// pinnedChildren returns the children of a table pinned to a past
// revision, whose root value is root: pinned to it too.
func (a *analyzer) pinnedChildren(t *exec.Table, root Catalog) ([]*exec.Table, error) {
	names, err := root.Children(a.ctx, t.Def.Schema, t.Def.Name)
	if err != nil {
		return nil, err
	}
	out := make([]*exec.Table, 0, len(names))
	for _, n := range names {
		def, ok, err := root.Table(a.ctx, n.Schema, n.Name)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, a.pinTable(def, root))
		}
	}
	return out, nil
}

// family returns the tables a statement on t reads and writes: t and
// its descendants, of which a partitioned table's leaf partitions only.
// When t is partitioned, router routes its new rows to the members.
func (a *analyzer) family(t *exec.Table) (members []familyMember, router *exec.Router, err error) {
	var walk func(cur *exec.Table, levels []partLevel) (*exec.Router, error)
	walk = func(cur *exec.Table, levels []partLevel) (*exec.Router, error) {
		if !cur.Def.Partitioned() {
			members = append(members, familyMember{t: cur, layout: layoutOf(t, cur), levels: levels})
		}
		kids, err := a.children(cur)
		if err != nil || !cur.Def.Partitioned() {
			for _, k := range kids {
				if _, err := walk(k, levels); err != nil {
					return nil, err
				}
			}
			return nil, err
		}
		key := cur.Def.PartitionKey
		r := &exec.Router{Table: cur, Strategy: key.Strategy, Types: KeyTypes(cur.Def), KeyNames: partitionKeyNames(cur.Def)}
		if r.Key, r.Exprs, err = a.partitionKeyOf(t, cur); err != nil {
			return nil, err
		}
		bounds := make([]exec.PartBound, len(kids))
		for i, k := range kids {
			if bounds[i], err = exec.DecodeBound(k.Def.PartitionBound, r.Types); err != nil {
				return nil, err
			}
		}
		order := BoundOrder(key.Strategy, bounds)
		for _, i := range order {
			k := kids[i]
			lv := partLevel{strategy: key.Strategy, key: r.Key, types: r.Types, bound: bounds[i]}
			if bounds[i].Default {
				lv.siblings = bounds
			}
			part := exec.RoutePart{Bound: bounds[i], Leaf: len(members)}
			sub, err := walk(k, append(slices.Clip(levels), lv))
			if err != nil {
				return nil, err
			}
			part.Sub = sub
			r.Parts = append(r.Parts, part)
		}
		return r, nil
	}
	router, err = walk(t, nil)
	return members, router, err
}

// BoundOrder returns the positions of bounds in PostgreSQL's order of
// partitions: by lower bound, smallest listed value or modulus and
// remainder; the default partition last.
func BoundOrder(strategy byte, bounds []exec.PartBound) []int {
	order := make([]int, len(bounds))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		x, y := &bounds[i], &bounds[j]
		switch {
		case x.Default != y.Default:
			if x.Default {
				return 1
			}
			return -1
		case x.Default:
			return 0
		case strategy == sqldef.PartitionRange:
			return CompareBounds(x.From, y.From)
		case strategy == sqldef.PartitionHash:
			if x.Modulus != y.Modulus {
				return int(x.Modulus) - int(y.Modulus)
			}
			return int(x.Remainder) - int(y.Remainder)
		}
		return exec.Compare(smallest(x), smallest(y))
	})
	return order
}

// smallest returns a list bound's smallest value, NULL when it lists
// only NULL.
func smallest(b *exec.PartBound) exec.Datum {
	if len(b.In) == 0 {
		return exec.Null
	}
	m := b.In[0]
	for _, d := range b.In[1:] {
		if exec.Compare(d, m) < 0 {
			m = d
		}
	}
	return m
}

// columnPos returns the position of t's live column name, -1 if none.
func columnPos(t *exec.Table, name string) int {
	for _, c := range t.Cols {
		if !c.Dropped && c.Name == name {
			return c.Pos
		}
	}
	return -1
}

// layoutOf maps the columns of ancestor to those of t by name: nil when
// both have the same columns at the same positions.
func layoutOf(ancestor, t *exec.Table) []int {
	if ancestor == t {
		return nil
	}
	layout := make([]int, len(ancestor.Cols))
	same := len(ancestor.Cols) == len(t.Cols)
	for i, c := range ancestor.Cols {
		layout[i] = -1
		if !c.Dropped {
			layout[i] = columnPos(t, c.Name)
		}
		same = same && (layout[i] == i || c.Dropped && t.Cols[i].Dropped)
	}
	if same {
		return nil
	}
	return layout
}

// relationScan plans a read of t's rows: a Scan, or, when inh is set and
// t has descendants or is partitioned, an Append of theirs in t's layout.
func (a *analyzer) relationScan(t *exec.Table, inh bool, cols []exec.ResultColumn) (exec.Plan, error) {
	scan := &exec.Scan{Table: t, Cols: cols}
	if _, pinned := a.pinnedRoots[t]; !inh || t.Virtual != nil || t.Pinned && !pinned {
		return scan, nil
	}
	members, _, err := a.family(t)
	if err != nil {
		return nil, err
	}
	if len(members) == 1 && members[0].t == t {
		return scan, nil
	}
	app := &exec.Append{Cols: cols}
	for i, m := range members {
		app.Parts = append(app.Parts, &exec.Scan{Table: m.t, Cols: cols, Layout: m.layout})
		app.Members = append(app.Members, i)
	}
	if a.families == nil {
		a.families = map[*exec.Append][]familyMember{}
	}
	a.families[app] = members
	return app, nil
}

// appendWhere filters the parts of an Append by pred, in t's layout:
// partitions whose bounds hold no row pred accepts are left out
// (pruning), and the others' scans may use their indexes.
func (a *analyzer) appendWhere(app *exec.Append, pred exec.Expr) exec.Plan {
	members := a.families[app]
	conds := andParts(pred, nil)
	var above []exec.Expr // conditions on tableoid, which the parts lack
	if app.OIDs != nil {
		var below []exec.Expr
		for _, c := range conds {
			if readsColumn(c, len(app.Cols)-1) {
				above = append(above, c)
			} else {
				below = append(below, c)
			}
		}
		if len(below) == 0 {
			return &exec.Filter{In: app, Pred: pred}
		}
		conds, pred = below, and(below)
	}
	out := &exec.Append{Cols: app.Cols}
	defer func() { a.families[out] = members }()
	for i, part := range app.Parts {
		m := members[app.Members[i]]
		if pruned(m.levels, conds) {
			continue
		}
		scan := part.(*exec.Scan)
		var p exec.Plan = &exec.Filter{In: scan, Pred: pred}
		if scan.Layout == nil {
			p = a.scanWhere(scan, pred) // the member's columns are t's
		}
		out.Parts = append(out.Parts, p)
		out.Members = append(out.Members, app.Members[i])
		if app.OIDs != nil {
			out.OIDs = append(out.OIDs, app.OIDs[i])
		}
	}
	if app.OIDs != nil && out.OIDs == nil {
		out.OIDs = []uint32{} // every part pruned: still a column wide
	}
	if hasParamConds(conds) {
		out.Skip = paramPruner(members, out.Members, conds)
	}
	if len(above) > 0 {
		return &exec.Filter{In: out, Pred: and(above)}
	}
	return out
}

// hasParamConds reports whether some of conds compare a column with a
// parameter, which may prune partitions once its value is known.
func hasParamConds(conds []exec.Expr) bool {
	return slices.ContainsFunc(conds, func(c exec.Expr) bool {
		_, ok := bindParams(nil, c)
		return ok
	})
}

// paramPruner returns the Append's Skip for conditions with parameters:
// at each execution, with the parameters' values, the parts (of
// members) whose bounds the conditions rule out.
func paramPruner(members []familyMember, parts []int, conds []exec.Expr) func(*exec.Env, int) bool {
	return func(env *exec.Env, i int) bool {
		bound := make([]exec.Expr, 0, len(conds))
		for _, c := range conds {
			if b, ok := bindParams(env, c); ok && b != nil {
				bound = append(bound, b)
			}
		}
		return pruned(members[parts[i]].levels, bound)
	}
}

// bindParams returns condition c, a comparison of a column with a
// parameter or an OR of such, with the parameters replaced by their
// values in env; ok is false when c has no such form. With env nil it
// only recognizes the form (b nil).
func bindParams(env *exec.Env, c exec.Expr) (b exec.Expr, ok bool) {
	switch e := c.(type) {
	case *exec.Call:
		if _, isCmp := flipped[e.Name]; !isCmp || len(e.Args) != 2 {
			return nil, false
		}
		args := slices.Clone(e.Args)
		found := false
		for i, arg := range args {
			p, isParam := arg.(*exec.Param)
			if !isParam {
				continue
			}
			found = true
			if env != nil {
				d, err := p.Eval(env, nil)
				if err != nil {
					return nil, false
				}
				args[i] = &exec.Const{D: d, T: p.T}
			}
		}
		if !found || env == nil {
			return nil, found
		}
		out := *e
		out.Args = args
		return &out, true
	case *exec.BoolOp:
		if !e.Or {
			return nil, false
		}
		args := make([]exec.Expr, len(e.Args))
		for i, arg := range e.Args {
			if args[i], ok = bindParams(env, arg); !ok {
				return nil, false
			}
		}
		if env == nil {
			return nil, true
		}
		out := *e
		out.Args = args
		return &out, true
	}
	return nil, false
}

// readsColumn reports whether e may read column idx of its row; true
// for kinds of expression it does not know.
func readsColumn(e exec.Expr, idx int) bool {
	return exprAny(e, func(x exec.Expr) (bool, bool) { c, ok := x.(*exec.ColRef); return ok && c.Idx == idx, false }, true)
}

// keyValue is what a condition says of a key column: col op value.
type keyValue struct {
	col int
	t   uint32 // the column's type
	op  string
	d   exec.Datum
}

// keyValuesOf recognizes conditions of the form column op constant, and
// ORs of column = constant (IN lists), over columns of the given types.
func keyValuesOf(e exec.Expr) []keyValue {
	switch e := e.(type) {
	case *exec.Call:
		if _, ok := flipped[e.Name]; !ok || len(e.Args) != 2 {
			return nil
		}
		c, okc := e.Args[0].(*exec.ColRef)
		k, okk := e.Args[1].(*exec.Const)
		op := e.Name
		if !okc || !okk {
			c, okc = e.Args[1].(*exec.ColRef)
			k, okk = e.Args[0].(*exec.Const)
			op = flipped[op]
		}
		if !okc || !okk || k.D.IsNull() || c.T.OID != k.T.OID {
			return nil
		}
		return []keyValue{{col: c.Idx, t: c.T.OID, op: op, d: k.D}}
	case *exec.BoolOp:
		if !e.Or {
			return nil
		}
		var out []keyValue
		for _, arg := range e.Args {
			kv := keyValuesOf(arg)
			if len(kv) != 1 || kv[0].op != "=" || (len(out) > 0 && kv[0].col != out[0].col) {
				return nil
			}
			out = append(out, kv[0])
		}
		for i := range out {
			out[i].op = "in"
		}
		return out
	}
	return nil
}

// pruned reports whether the conditions conds rule out every row of a
// partition with bounds levels.
func pruned(levels []partLevel, conds []exec.Expr) bool {
	if len(levels) == 0 {
		return false
	}
	var kvs [][]keyValue
	for _, c := range conds {
		if kv := keyValuesOf(c); kv != nil {
			kvs = append(kvs, kv)
		}
	}
	if len(kvs) == 0 {
		return false
	}
	for _, l := range levels {
		if levelExcludes(&l, kvs) {
			return true
		}
	}
	return false
}

// levelExcludes reports whether a partition bound holds no key the
// conditions kvs allow.
func levelExcludes(l *partLevel, kvs [][]keyValue) bool {
	// Equalities (or IN lists) on every key column decide.
	key := make([]exec.Datum, len(l.key))
	var in []keyValue
	complete := true
	for i, col := range l.key {
		found := false
		for _, kv := range kvs {
			if kv[0].col != col || kv[0].t != l.types[i].OID {
				continue
			}
			switch {
			case kv[0].op == "=":
				key[i], found = kv[0].d, true
			case kv[0].op == "in" && len(l.key) == 1:
				in, found = kv, true
			}
		}
		complete = complete && found
	}
	if complete {
		if in != nil {
			for _, kv := range in {
				if l.bound.HoldsAmong(l.siblings, l.strategy, []exec.Datum{kv.d}, l.types) {
					return false
				}
			}
			return true
		}
		return !l.bound.HoldsAmong(l.siblings, l.strategy, key, l.types)
	}
	// Inequalities on a one-column range key exclude partitions whose
	// range lies beyond them.
	if l.strategy != sqldef.PartitionRange || len(l.key) != 1 || l.bound.Default {
		return false
	}
	from, to := l.bound.From[0], l.bound.To[0]
	for _, kv := range kvs {
		v := kv[0]
		if v.col != l.key[0] || len(kv) != 1 || v.t != l.types[0].OID {
			continue
		}
		switch v.op {
		case "<", "<=":
			// Rows below v: none when the range starts above it.
			if from.Kind == sqldef.BoundMaxValue || from.Kind == 0 && (exec.Compare(from.D, v.d) > 0 || v.op == "<" && exec.Compare(from.D, v.d) == 0) {
				return true
			}
		case ">", ">=":
			// Rows above v: none when the range ends (exclusively) at or below it.
			if to.Kind == sqldef.BoundMinValue || to.Kind == 0 && exec.Compare(to.D, v.d) <= 0 {
				return true
			}
		}
	}
	return false
}

// modifyFamily sets what a Modify of t computes from the definitions of
// the tables it writes (their generated columns), and what it writes
// besides t: an UPDATE or DELETE that reads t's descendants (inh) writes
// each row where it is; an INSERT into a partitioned table routes rows to
// its partitions; a partition written directly checks its partition
// constraint.
func (a *analyzer) modifyFamily(m *exec.Modify, inh bool) error {
	t := m.Table
	if t.Virtual != nil || t.Pinned {
		return nil
	}
	if m.Kind != exec.Delete {
		var err error
		if m.Generated, err = a.generatedExprs(t); err != nil {
			return err
		}
	}
	if t.Def.IsPartition() {
		var err error
		if m.Partition, err = a.partitionCheck(t); err != nil {
			return err
		}
	}
	if m.Kind == exec.Insert && !t.Def.Partitioned() || m.Kind != exec.Insert && !inh {
		return nil
	}
	members, router, err := a.family(t)
	if err != nil {
		return err
	}
	if len(members) == 1 && members[0].t == t {
		return nil
	}
	// Non-nil even when empty: a partitioned table without partitions
	// takes no rows (its Route finds none), it does not store them.
	m.Members = make([]exec.Member, 0, len(members))
	for _, mb := range members {
		checks, err := a.checks(mb.t)
		if err != nil {
			return err
		}
		member := exec.Member{Table: mb.t, Layout: mb.layout, Checks: checks}
		if m.Kind != exec.Delete {
			if member.Generated, err = a.generatedExprs(mb.t); err != nil {
				return err
			}
		}
		if m.Conflict != nil {
			member.Conflict = memberConflict(t.Def, mb, m.Conflict)
		}
		m.Members = append(m.Members, member)
	}
	m.Route = router
	return nil
}

// memberConflict returns the ON CONFLICT clause c of an INSERT into t
// for member mb: its arbiters are mb's indexes that stand for t's.
func memberConflict(t *sqldef.Table, mb familyMember, c *exec.OnConflict) *exec.OnConflict {
	out := *c
	out.Arbiters = nil
	for _, name := range c.Arbiters {
		if name == "" {
			out.Arbiters = append(out.Arbiters, "")
			continue
		}
		i := slices.IndexFunc(t.Indexes, func(ix sqldef.Index) bool { return ix.Name == name })
		if i < 0 {
			continue
		}
		for _, ix := range mb.t.Def.Indexes {
			if sqldef.SameIndex(t, mb.t.Def, t.Indexes[i], ix) {
				out.Arbiters = append(out.Arbiters, ix.Name)
				break
			}
		}
	}
	return &out
}

// partitionCheck builds the partition constraint of partition t: its
// bound in its parent, and its parent's, up to the root.
func (a *analyzer) partitionCheck(t *exec.Table) (*exec.PartitionCheck, error) {
	pc := &exec.PartitionCheck{}
	cur := t.Def
	for cur.IsPartition() && len(cur.Inherits) > 0 {
		pn := cur.Inherits[0]
		parent, ok, err := a.tx.Table(a.ctx, pn.Schema, pn.Name)
		if err != nil || !ok {
			return nil, err
		}
		a.deps = append(a.deps, parent.Def)
		lv := exec.CheckLevel{Strategy: parent.Def.PartitionKey.Strategy, Types: KeyTypes(parent.Def)}
		if lv.Key, lv.Exprs, err = a.partitionKeyOf(t, parent); err != nil {
			return nil, err
		}
		if lv.Bound, err = exec.DecodeBound(cur.PartitionBound, lv.Types); err != nil {
			return nil, err
		}
		if lv.Bound.Default {
			siblings, err := a.partitions(a.ctx, parent.Def)
			if err != nil {
				return nil, err
			}
			for _, s := range siblings {
				if s.Name == cur.Name && s.Schema == cur.Schema {
					continue
				}
				b, err := exec.DecodeBound(s.PartitionBound, lv.Types)
				if err != nil {
					return nil, err
				}
				lv.Siblings = append(lv.Siblings, b)
			}
		}
		pc.Levels = append(pc.Levels, lv)
		cur = parent.Def
	}
	return pc, nil
}
