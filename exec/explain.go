package exec

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/prollypg/prollypg/exec/types"
)

// EXPLAIN. A plan is described as PostgreSQL describes its own: the same
// node names and layout (Seq Scan, Index Scan using ... on ..., Hash Join
// over a Hash, Sort, Aggregate), the same details under each node (Index
// Cond, Filter, Hash Cond, Join Filter, Sort Key, Group Key) with
// expressions printed as ruleutils prints them, estimated costs, rows and
// widths, and with ANALYZE each node's actual time, rows and loops and
// the rows its filter removed, in the text or the JSON format.
//
// Our operators are not PostgreSQL's one for one, so the description folds
// them into PostgreSQL's shape: a projection is no node of its own (a
// PostgreSQL scan or join projects), a filter is its input's Filter, and a
// hash join's build side sits under a Hash node. Estimates come from the
// tables' row counts (a prolly tree knows its count) and PostgreSQL's
// default selectivities, costed with its default cost constants: numbers of
// PostgreSQL's form and scale, not its planner's numbers.

// ExplainOptions are EXPLAIN's options.
type ExplainOptions struct {
	Analyze, Verbose, Costs, Timing, Summary bool
	// Format is "text" or "json".
	Format string
	// Planning is the time the statement's analysis took (the summary's
	// Planning Time).
	Planning time.Duration
}

// Explain runs p when opts.Analyze is set, and returns the lines of its
// description (one line holding the whole document in the JSON format).
func Explain(env *Env, p Plan, opts ExplainOptions) ([]string, error) {
	x := &explainer{env: env, opts: opts, subPlans: map[*SubPlan]int{}, attached: map[*SubPlan]bool{}, subArgs: map[*SubPlan][]string{}}
	if env != nil {
		x.settings = env.Settings
	}
	var exec time.Duration
	if opts.Analyze {
		p = x.instrument(p)
		began := time.Now()
		if err := runToEnd(env, p); err != nil {
			return nil, err
		}
		exec = time.Since(began)
	}
	x.qualify = countRelations(p) > 1
	x.nameRelations(p)
	root := x.node(p)
	if opts.Format == "json" {
		return []string{x.json(root, exec)}, nil
	}
	var out []string
	x.text(&out, root, -1)
	if opts.Summary {
		out = append(out, fmt.Sprintf("Planning Time: %.3f ms", ms(opts.Planning)))
	}
	if opts.Analyze && opts.Summary {
		out = append(out, fmt.Sprintf("Execution Time: %.3f ms", ms(exec)))
	}
	return out, nil
}

// runToEnd runs p to its end.
func runToEnd(env *Env, p Plan) error {
	rows, err := p.Open(env)
	if err != nil {
		return err
	}
	for {
		row, err := rows.Next()
		if err != nil {
			rows.Close()
			return err
		}
		if row == nil {
			return rows.Close()
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// explainNode is one node of the description.
type explainNode struct {
	typ   string // PostgreSQL's "Node Type"
	label string // the text format's heading, without the estimates
	// fields are the node's details in print order; those marked text
	// print as lines under the heading in the text format (the others
	// are in the heading there).
	fields         []explainField
	rows           float64
	width          int
	startup, total float64
	stats          *nodeStats
	removed        int64 // rows the node's filter removed (ANALYZE)
	filtered       bool
	rel            string // "Parent Relationship"
	heading        string // a subplan's heading line ("SubPlan 1", "CTE x")
	children       []*explainNode
}

type explainField struct {
	key  string
	val  any // string or []string
	text bool
}

func (n *explainNode) add(key string, val any, text bool) {
	n.fields = append(n.fields, explainField{key, val, text})
}

// explainer builds a plan's description.
type explainer struct {
	env          *Env
	opts         ExplainOptions
	settings     *Settings
	qualify      bool // columns are named with their relation's: the query reads several
	subPlans     map[*SubPlan]int
	subPlanOrder []*SubPlan
	attached     map[*SubPlan]bool
	// aliases are the names the scans' relations go by: the query's
	// alias, else the table's name, made unique with _1, _2 ... as
	// PostgreSQL names a table read twice.
	aliases map[Plan]string
	// outer names the enclosing row's values a subquery's OuterRefs
	// read while its plan is described; subArgs holds them per subquery,
	// printed where the subquery was met, over argCols when set (the
	// enclosing row's columns qualified, as PostgreSQL prints a
	// subquery's outer references).
	outer   []string
	subArgs map[*SubPlan][]string
	argCols []string
}

// countRelations counts the plan's scans, as the range table PostgreSQL
// decides to qualify column names by.
func countRelations(p Plan) int {
	n := 0
	var walk func(p Plan)
	walk = func(p Plan) {
		switch q := unwrapInstrumented(p).(type) {
		case *Scan, *IndexScan, *IndexOr, *FuncScan, *Series, *CTEScan, *WorkTableScan, *RecordScan, *TableCount:
			n++
		case *Values:
			if len(q.Rows) > 1 {
				n++
			}
		}
		for _, c := range planInputs(p) {
			walk(c)
		}
	}
	walk(p)
	return n
}

// nameRelations gives each scan of p its relation's name (aliases).
func (x *explainer) nameRelations(p Plan) {
	x.aliases = map[Plan]string{}
	used := map[string]int{}
	var walk func(p Plan)
	walk = func(p Plan) {
		q := unwrapInstrumented(p)
		if c, ok := q.(*TableCount); ok {
			q = c.Scan
		}
		if t, alias, ok := scanned(q); ok {
			name := relationName(t, alias)
			if n := used[name]; n > 0 && alias == "" {
				x.aliases[q] = name + "_" + strconv.Itoa(n)
			} else {
				x.aliases[q] = alias
			}
			used[name]++
		}
		for _, c := range planInputs(p) {
			walk(c)
		}
	}
	walk(p)
}

// scanned returns the table a scan reads (Scan, IndexScan, IndexOr) and
// the alias the query gives it; ok is false for any other plan.
func scanned(p Plan) (t *Table, alias string, ok bool) {
	switch s := unwrapInstrumented(p).(type) {
	case *Scan:
		return s.Table, s.Alias, true
	case *IndexScan:
		return s.Table, s.Alias, true
	case *IndexOr:
		return s.Table(), unwrapInstrumented(s.Scans[0]).(*IndexScan).Alias, true
	}
	return nil, "", false
}

// alias is the name the scan q's relation goes by (nameRelations).
func (x *explainer) alias(q Plan, own string) string {
	if a, ok := x.aliases[q]; ok {
		return a
	}
	return own
}

// planInputs returns the plans p reads from, in the order EXPLAIN shows
// them.
func planInputs(p Plan) []Plan {
	switch q := unwrapInstrumented(p).(type) {
	case *Filter:
		return []Plan{q.In}
	case *Project:
		return []Plan{q.In}
	case *Sort:
		return []Plan{q.In}
	case *Limit:
		return []Plan{q.In}
	case *LimitTies:
		return []Plan{q.In}
	case *Modify:
		if q.Source != nil {
			return []Plan{q.Source}
		}
	case *LockRows:
		return []Plan{q.In}
	case *HashJoin:
		return []Plan{q.Left, q.Right}
	case *NestedLoop:
		return []Plan{q.Left, q.Right}
	case *Aggregate:
		return []Plan{q.In}
	case *Distinct:
		return []Plan{q.In}
	case *Unique:
		return []Plan{q.In}
	case *Window:
		return []Plan{q.In}
	case *ProjectSet:
		return []Plan{q.In}
	case *Rebind:
		return []Plan{q.In}
	case *RowKeys:
		return []Plan{q.In}
	case *HashLookup:
		return []Plan{q.In}
	case *RecordScan:
		return []Plan{q.In}
	case *RecursiveUnion:
		return []Plan{q.NonRec, q.Rec}
	case *With:
		return []Plan{q.Body}
	case *SetOp:
		return []Plan{q.Left, q.Right}
	case *Append:
		return q.Parts
	case *RowsFrom:
		return q.Parts
	}
	return nil
}

// outputs returns the printed form of each output column of p: what an
// expression over p's rows calls them, scans' columns named with their
// relation when the query reads several or under VERBOSE.
func (x *explainer) outputs(p Plan) []string { return x.columnNames(p, x.qualify || x.opts.Verbose) }

// columnNames is outputs, scans' columns named with their relation when
// qualify is set.
func (x *explainer) columnNames(p Plan, qualify bool) []string {
	if t, alias, ok := scanned(p); ok {
		return x.tableColumns(t, x.alias(unwrapInstrumented(p), alias), len(p.Columns()), qualify)
	}
	switch q := unwrapInstrumented(p).(type) {
	case *Filter:
		return x.columnNames(q.In, qualify)
	case *Sort:
		return x.columnNames(q.In, qualify)
	case *Limit:
		return x.columnNames(q.In, qualify)
	case *LimitTies:
		return x.columnNames(q.In, qualify)
	case *Distinct:
		return x.columnNames(q.In, qualify)
	case *Unique:
		return x.columnNames(q.In, qualify)
	case *Rebind:
		return x.columnNames(q.In, qualify)
	case *Project:
		in := x.columnNames(q.In, qualify)
		out := make([]string, len(q.Exprs))
		for i, e := range q.Exprs {
			out[i] = x.exprText(e, in)
		}
		return out
	case *HashJoin:
		return append(x.columnNames(q.Left, qualify), x.columnNames(q.Right, qualify)...)
	case *NestedLoop:
		return append(x.columnNames(q.Left, qualify), x.columnNames(q.Right, qualify)...)
	case *Aggregate:
		in := x.columnNames(q.In, qualify)
		var out []string
		for _, k := range q.Keys {
			out = append(out, x.exprText(k, in))
		}
		for _, a := range q.Aggs {
			out = append(out, x.aggText(a, in))
		}
		return out
	}
	cols := p.Columns()
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = types.QuoteIdent(c.Name)
	}
	return out
}

// qualOutputs is outputs for a condition evaluated over p's rows: a
// scan's own conditions name its columns unqualified, as PostgreSQL's
// show_scan_qual does unless VERBOSE.
func (x *explainer) qualOutputs(p Plan) []string {
	if t, _, ok := scanned(p); ok && !x.opts.Verbose {
		return x.tableColumns(t, "", len(p.Columns()), false)
	}
	return x.outputs(p)
}

// qualifiedOutputs is outputs with a scan's columns named with their
// relation's name however many relations the query reads.
func (x *explainer) qualifiedOutputs(p Plan) []string { return x.columnNames(p, true) }

// ecLast orders a conjunction's comparisons of a column with a constant
// or parameter after its other conditions, where PostgreSQL's equivalence
// classes put them back, for printing.
func ecLast(e Expr) Expr {
	b, ok := e.(*BoolOp)
	if !ok || b.Or {
		return e
	}
	isEC := func(e Expr) bool {
		c, ok := e.(*Call)
		if !ok || c.Name != "=" || len(c.Args) != 2 {
			return false
		}
		_, col := c.Args[0].(*ColRef)
		switch c.Args[1].(type) {
		case *Const, *Param:
			return col
		}
		return false
	}
	var rest, ec []Expr
	for _, a := range b.Args {
		if isEC(a) {
			ec = append(ec, a)
		} else {
			rest = append(rest, a)
		}
	}
	return &BoolOp{Args: append(rest, ec...)}
}

// tableColumns names the columns of a table read under alias.
func (x *explainer) tableColumns(t *Table, alias string, n int, qualify bool) []string {
	rel := relationName(t, alias)
	out := make([]string, n)
	for i := range out {
		name := "?column?"
		if i < len(t.Cols) {
			name = types.QuoteIdent(t.Cols[i].Name)
		}
		if qualify {
			name = types.QuoteIdent(rel) + "." + name
		}
		out[i] = name
	}
	return out
}

func relationName(t *Table, alias string) string {
	if alias != "" {
		return alias
	}
	if t.Def != nil {
		return t.Def.Name
	}
	return "?"
}

func (x *explainer) aggText(a *AggCall, in []string) string {
	name := "?"
	if a.Func != nil {
		name = a.Func.Name
	}
	if len(a.Args) == 0 {
		return name + "(*)"
	}
	var args []string
	for _, e := range a.Args {
		args = append(args, x.exprText(e, in))
	}
	s := name + "("
	if a.Distinct {
		s += "DISTINCT "
	}
	return s + strings.Join(args, ", ") + ")"
}

// node describes p and what it reads.
func (x *explainer) node(p Plan) *explainNode {
	var stats *nodeStats
	if w, ok := p.(*instrumented); ok {
		p, stats = w.Plan, w.stats
	}
	n := x.describe(p)
	if n.stats == nil {
		n.stats = stats
	}
	if x.opts.Verbose && n.typ != "Hash" && n.typ != "BitmapOr" {
		// The columns the node returns, first of its details; named
		// with their relations only when the query reads several. A
		// projection folded into the node replaces its input's.
		out := x.columnNames(p, x.qualify)
		if i := fieldIndex(n, "Output"); i >= 0 {
			n.fields[i].val = out
		} else {
			n.fields = append([]explainField{{"Output", out, true}}, n.fields...)
		}
	}
	if n.typ == "Bitmap Heap Scan" && stats != nil && n.children[0].stats == nil {
		// The BitmapOr ran when the heap scan did; its rows are its
		// inputs' (PostgreSQL shows none).
		n.children[0].stats = &nodeStats{loops: stats.loops, startup: stats.startup, total: stats.startup}
	}
	x.estimate(n, p)
	return n
}

// describe builds p's node without its estimates.
func (x *explainer) describe(p Plan) *explainNode {
	before := len(x.subPlanOrder)
	n := x.describeNode(p)
	// The subqueries the node's expressions use follow its inputs, under
	// the innermost node whose description met them.
	for _, s := range x.subPlanOrder[before:] {
		if x.attached[s] {
			continue
		}
		x.attached[s] = true
		outer := x.outer
		x.outer = x.subArgs[s]
		sub := x.node(s.Plan)
		x.outer = outer
		sub.heading = "SubPlan " + strconv.Itoa(x.subPlans[s])
		sub.rel = "SubPlan"
		n.children = append(n.children, sub)
	}
	return n
}

func (x *explainer) describeNode(p Plan) *explainNode {
	switch q := p.(type) {
	case *Project:
		n := x.node(q.In)
		// Printing the projection's expressions numbers the subqueries
		// they use, which describe then shows under n.
		in := x.outputs(q.In)
		x.argCols = x.qualifiedOutputs(q.In)
		for _, e := range q.Exprs {
			x.exprText(e, in)
		}
		x.argCols = nil
		return n
	case *Rebind:
		return x.node(q.In)
	case *RowKeys:
		return x.node(q.In)
	case *Filter:
		in := q.In
		var fstats *nodeStats
		if w, ok := in.(*instrumented); ok {
			fstats = w.stats
		}
		n := x.node(in)
		x.argCols = x.qualifiedOutputs(q.In)
		cond := x.exprText(ecLast(q.Pred), x.qualOutputs(q.In))
		x.argCols = nil
		key := "Filter"
		if n.typ == "Bitmap Heap Scan" {
			key = "Recheck Cond"
		}
		if i := fieldIndex(n, key); i >= 0 {
			n.fields[i].val = "(" + n.fields[i].val.(string) + " AND " + cond + ")"
		} else {
			n.add(key, cond, true)
		}
		// The node's rows are the filter's; what it removed is the
		// difference from its input's.
		if !n.filtered && fstats != nil {
			n.removed = fstats.rows
		}
		n.filtered = true
		n.stats = nil
		return n
	case *Scan:
		n := &explainNode{}
		alias := x.alias(q, q.Alias)
		rel := relationName(q.Table, alias)
		switch {
		case q.Reverse || q.Lower != nil || q.Upper != nil:
			n.typ = "Index Scan"
			dir, word := "Forward", "Index Scan"
			if q.Reverse {
				dir, word = "Backward", "Index Scan Backward"
			}
			ix := primaryKeyIndex(q.Table)
			n.label = word + " using " + types.QuoteIdent(ix) + " on " + x.relLabel(q.Table, alias)
			n.add("Scan Direction", dir, false)
			n.add("Index Name", ix, false)
		default:
			n.typ = "Seq Scan"
			n.label = "Seq Scan on " + x.relLabel(q.Table, alias)
		}
		n.add("Relation Name", q.Table.Def.Name, false)
		n.add("Alias", rel, false)
		return n
	case *IndexScan:
		return x.indexScanNode(q, false)
	case *IndexOr:
		// PostgreSQL's bitmap scans: the alternatives' index scans under a
		// BitmapOr, the table read under a Bitmap Heap Scan, whose
		// condition (the filter above it) is its Recheck Cond.
		first := unwrapInstrumented(q.Scans[0]).(*IndexScan)
		t, alias := first.Table, x.alias(q, first.Alias)
		or := &explainNode{typ: "BitmapOr", label: "BitmapOr", rel: "Outer"}
		for _, sp := range q.Scans {
			s := unwrapInstrumented(sp).(*IndexScan)
			c := x.indexScanNode(s, true)
			if w, ok := sp.(*instrumented); ok {
				c.stats = w.stats
			}
			x.estimate(c, s)
			c.rel = "Member"
			or.children = append(or.children, c)
		}
		x.estimateFrom(or, or.children, sum)
		n := &explainNode{typ: "Bitmap Heap Scan", label: "Bitmap Heap Scan on " + x.relLabel(t, alias), children: []*explainNode{or}}
		n.add("Relation Name", t.Def.Name, false)
		n.add("Alias", relationName(t, alias), false)
		n.rows = math.Min(or.rows, x.tableRows(t))
		n.startup, n.total = or.total, or.total+n.rows*(randomPageCost/4+cpuTupleCost)
		return n
	case *TableCount:
		n := &explainNode{typ: "Aggregate", label: "Aggregate"}
		n.add("Strategy", "Plain", false)
		n.children = []*explainNode{x.node(q.Scan)}
		return n
	case *HashJoin:
		n := &explainNode{typ: "Hash Join", label: joinLabel("Hash", q.Kind)}
		n.add("Join Type", joinTypeName(q.Kind), false)
		joined := append(x.outputs(q.Left), x.outputs(q.Right)...)
		var conds []string
		for i := range q.LeftKeys {
			conds = append(conds, "("+x.exprText(q.LeftKeys[i], joined)+" = "+x.exprText(q.RightKeys[i], joined)+")")
		}
		n.add("Hash Cond", andText(conds), true)
		if q.Residual != nil {
			n.add("Join Filter", x.exprText(q.Residual, joined), true)
		}
		left := x.node(q.Left)
		left.rel = "Outer"
		right := x.node(q.Right)
		hash := &explainNode{typ: "Hash", label: "Hash", rel: "Inner", children: []*explainNode{right}}
		right.rel = "Outer"
		hash.rows, hash.width, hash.startup, hash.total = right.rows, right.width, right.total, right.total
		hash.stats = right.stats
		n.children = []*explainNode{left, hash}
		return n
	case *NestedLoop:
		n := &explainNode{typ: "Nested Loop", label: joinLabel("Nested Loop", q.Kind)}
		n.add("Join Type", joinTypeName(q.Kind), false)
		if q.On != nil {
			n.add("Join Filter", x.exprText(q.On, append(x.outputs(q.Left), x.outputs(q.Right)...)), true)
		}
		left, right := x.node(q.Left), x.node(q.Right)
		left.rel, right.rel = "Outer", "Inner"
		n.children = []*explainNode{left, right}
		return n
	case *Sort:
		n := &explainNode{typ: "Sort", label: "Sort"}
		n.add("Sort Key", x.sortKeys(q.Keys, x.outputs(q.In)), true)
		n.children = x.inputs(q.In)
		return n
	case *Limit:
		return &explainNode{typ: "Limit", label: "Limit", children: x.inputs(q.In)}
	case *LimitTies:
		return &explainNode{typ: "Limit", label: "Limit", children: x.inputs(q.In)}
	case *Aggregate:
		n := &explainNode{typ: "Aggregate"}
		switch {
		case len(q.Sets) > 0:
			n.label = "MixedAggregate"
			n.add("Strategy", "Mixed", false)
		case len(q.Keys) > 0:
			n.label = "HashAggregate"
			n.add("Strategy", "Hashed", false)
		default:
			n.label = "Aggregate"
			n.add("Strategy", "Plain", false)
		}
		if len(q.Keys) > 0 {
			in := x.outputs(q.In)
			var keys []string
			for _, k := range q.Keys {
				keys = append(keys, x.exprText(k, in))
			}
			n.add("Group Key", keys, true)
		}
		n.children = x.inputs(q.In)
		return n
	case *Distinct:
		n := &explainNode{typ: "Aggregate", label: "HashAggregate"}
		n.add("Strategy", "Hashed", false)
		n.add("Group Key", x.outputs(q.In), true)
		n.children = x.inputs(q.In)
		return n
	case *Unique:
		return &explainNode{typ: "Unique", label: "Unique", children: x.inputs(q.In)}
	case *Modify:
		verb := map[ModifyKind]string{Insert: "Insert", Update: "Update", Delete: "Delete", Merge: "Merge"}[q.Kind]
		n := &explainNode{typ: "ModifyTable", label: verb + " on " + x.relLabel(q.Table, "")}
		n.add("Operation", verb, false)
		n.add("Relation Name", q.Table.Def.Name, false)
		n.add("Alias", q.Table.Def.Name, false)
		if q.Source != nil {
			n.children = x.inputs(q.Source)
		}
		return n
	case *LockRows:
		return &explainNode{typ: "LockRows", label: "LockRows", children: x.inputs(q.In)}
	case *Values:
		if len(q.Rows) == 1 {
			return &explainNode{typ: "Result", label: "Result"}
		}
		n := &explainNode{typ: "Values Scan", label: `Values Scan on "*VALUES*"`}
		n.add("Alias", "*VALUES*", false)
		return n
	case *Append:
		return &explainNode{typ: "Append", label: "Append", children: x.inputs(q.Parts...)}
	case *SetOp:
		switch {
		case q.Kind == Intersect:
			n := &explainNode{typ: "SetOp", label: "HashSetOp Intersect", children: x.inputs(q.Left, q.Right)}
			n.add("Strategy", "Hashed", false)
			return n
		case q.Kind == Except:
			n := &explainNode{typ: "SetOp", label: "HashSetOp Except", children: x.inputs(q.Left, q.Right)}
			n.add("Strategy", "Hashed", false)
			return n
		case q.All:
			return &explainNode{typ: "Append", label: "Append", children: x.inputs(q.Left, q.Right)}
		}
		app := &explainNode{typ: "Append", label: "Append", children: x.inputs(q.Left, q.Right)}
		x.estimateFrom(app, app.children, func(rows []float64) float64 { return sum(rows) })
		n := &explainNode{typ: "Aggregate", label: "HashAggregate", children: []*explainNode{app}}
		n.add("Strategy", "Hashed", false)
		n.add("Group Key", x.outputs(q.Left), true)
		return n
	case *Window:
		return &explainNode{typ: "WindowAgg", label: "WindowAgg", children: x.inputs(q.In)}
	case *ProjectSet:
		return &explainNode{typ: "ProjectSet", label: "ProjectSet", children: x.inputs(q.In)}
	case *HashLookup:
		// PostgreSQL reads the correlated rows with a filter comparing
		// them with the outer row; ours hashes them by it.
		n := x.node(q.In)
		in := x.qualOutputs(q.In)
		var conds []string
		for i := range q.Keys {
			conds = append(conds, "("+x.exprText(q.Keys[i], in)+" = "+x.exprText(q.Probe[i], nil)+")")
		}
		if len(conds) > 0 {
			n.add("Filter", andText(conds), true)
		}
		return n
	case *FuncScan:
		// The function's name is not kept; its column's is, for the
		// one-column functions that are most of them.
		name := "function"
		if len(q.Cols) > 0 {
			name = q.Cols[0].Name
		}
		n := &explainNode{typ: "Function Scan", label: "Function Scan on " + name}
		n.add("Function Name", name, false)
		return n
	case *Series:
		n := &explainNode{typ: "Function Scan", label: "Function Scan on generate_series"}
		n.add("Function Name", "generate_series", false)
		return n
	case *RecordScan:
		n := &explainNode{typ: "Function Scan", label: "Function Scan on " + q.Name, children: x.inputs(q.In)}
		n.add("Function Name", q.Name, false)
		return n
	case *CTEScan:
		n := &explainNode{typ: "CTE Scan", label: "CTE Scan on " + types.QuoteIdent(q.CTE.Name)}
		n.add("CTE Name", q.CTE.Name, false)
		return n
	case *WorkTableScan:
		return &explainNode{typ: "WorkTable Scan", label: "WorkTable Scan"}
	case *CursorRow:
		n := &explainNode{typ: "Tid Scan", label: "Tid Scan on " + x.relLabel(q.Table, "")}
		n.add("Relation Name", q.Table.Def.Name, false)
		return n
	case *RowsFrom:
		return &explainNode{typ: "Function Scan", label: "Function Scan", children: x.inputs(q.Parts...)}
	case *RecursiveUnion:
		return &explainNode{typ: "Recursive Union", label: "Recursive Union", children: x.inputs(q.NonRec, q.Rec)}
	case *With:
		n := x.node(q.Body)
		for _, c := range q.CTEs {
			sub := x.node(c.Plan)
			sub.heading = "CTE " + types.QuoteIdent(c.Name)
			sub.rel = "InitPlan"
			n.children = append(n.children, sub)
		}
		return n
	}
	name := strings.TrimPrefix(fmt.Sprintf("%T", p), "*exec.")
	n := &explainNode{typ: name, label: name}
	n.children = x.inputs(planInputs(p)...)
	return n
}

func (x *explainer) inputs(ps ...Plan) []*explainNode {
	out := make([]*explainNode, 0, len(ps))
	for _, p := range ps {
		if p == nil {
			continue
		}
		c := x.node(p)
		c.rel = "Outer"
		if len(ps) > 1 && len(out) == 1 {
			c.rel = "Inner"
		}
		if len(ps) > 2 {
			c.rel = "Member"
		}
		out = append(out, c)
	}
	return out
}

func fieldIndex(n *explainNode, key string) int {
	for i, f := range n.fields {
		if f.key == key {
			return i
		}
	}
	return -1
}

// relLabel names a relation in a node's heading: "t", or "t a" under an
// alias; with VERBOSE, its schema's name first.
func (x *explainer) relLabel(t *Table, alias string) string {
	name := types.QuoteIdent(t.Def.Name)
	if x.opts.Verbose {
		name = types.QuoteIdent(t.Def.Schema) + "." + name
	}
	if alias != "" && alias != t.Def.Name {
		return name + " " + types.QuoteIdent(alias)
	}
	return name
}

// joinLabel names a join node as PostgreSQL does: "Hash Join", "Hash
// Left Join", "Nested Loop Full Join".
func joinLabel(method string, k JoinKind) string {
	switch k {
	case LeftJoin:
		return method + " Left Join"
	case RightJoin:
		return method + " Right Join"
	case FullJoin:
		return method + " Full Join"
	}
	if method == "Nested Loop" {
		return method
	}
	return method + " Join"
}

func joinTypeName(k JoinKind) string {
	switch k {
	case LeftJoin:
		return "Left"
	case RightJoin:
		return "Right"
	case FullJoin:
		return "Full"
	}
	return "Inner"
}

func andText(conds []string) string {
	if len(conds) == 1 {
		return conds[0]
	}
	return "(" + strings.Join(conds, " AND ") + ")"
}

// sortKeys prints sort keys as PostgreSQL's Sort Key: DESC sorts NULLs
// first unless told otherwise, ASC last.
func (x *explainer) sortKeys(keys []SortKey, in []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		s := "?column?"
		if k.Col < len(in) {
			s = in[k.Col]
		}
		switch {
		case k.Desc && !k.NullsFirst:
			s += " DESC NULLS LAST"
		case k.Desc:
			s += " DESC"
		case k.NullsFirst:
			s += " NULLS FIRST"
		}
		out[i] = s
	}
	return out
}

// indexScanNode describes an index scan, its Index Cond rebuilt from its
// key bounds over the index's key columns; as a Bitmap Index Scan when it
// is one of an IndexOr's.
func (x *explainer) indexScanNode(q *IndexScan, bitmap bool) *explainNode {
	t := q.Table
	ix := q.Index
	var keyNames []string
	if ix == "" {
		ix = primaryKeyIndex(t)
		for _, c := range t.Def.PrimaryKey {
			keyNames = append(keyNames, t.Cols[c].Name)
		}
	} else {
		for _, d := range t.Def.Indexes {
			if d.Name != q.Index {
				continue
			}
			for _, c := range d.Columns {
				if c.Expr != "" {
					keyNames = append(keyNames, "("+c.Expr+")")
				} else {
					keyNames = append(keyNames, t.Cols[c.Column].Name)
				}
			}
		}
	}
	alias := x.alias(q, q.Alias)
	rel := relationName(t, alias)
	col := func(i int) string {
		if i >= len(keyNames) {
			return "?column?"
		}
		name := keyNames[i]
		if !strings.HasPrefix(name, "(") {
			name = types.QuoteIdent(name)
			if x.opts.Verbose {
				name = types.QuoteIdent(rel) + "." + name
			}
		}
		return name
	}
	var conds []string
	for i, alts := range q.Eq {
		if len(alts) == 1 {
			conds = append(conds, "("+col(i)+" = "+x.exprText(alts[0], nil)+")")
			continue
		}
		conds = append(conds, "("+col(i)+" = ANY ("+x.valuesText(alts)+"))")
	}
	for _, b := range q.Lower {
		op := " > "
		if b.Incl {
			op = " >= "
		}
		conds = append(conds, "("+col(len(q.Eq))+op+x.exprText(b.E, nil)+")")
	}
	for _, b := range q.Upper {
		op := " < "
		if b.Incl {
			op = " <= "
		}
		conds = append(conds, "("+col(len(q.Eq))+op+x.exprText(b.E, nil)+")")
	}
	if bitmap {
		n := &explainNode{typ: "Bitmap Index Scan", label: "Bitmap Index Scan on " + types.QuoteIdent(ix)}
		n.add("Index Name", ix, false)
		if len(conds) > 0 {
			n.add("Index Cond", andText(conds), true)
		}
		return n
	}
	word, dir := "Index Scan", "Forward"
	if q.Reverse {
		word, dir = "Index Scan Backward", "Backward"
	}
	n := &explainNode{typ: "Index Scan", label: word + " using " + types.QuoteIdent(ix) + " on " + x.relLabel(t, alias)}
	n.add("Scan Direction", dir, false)
	n.add("Index Name", ix, false)
	n.add("Relation Name", t.Def.Name, false)
	n.add("Alias", rel, false)
	if len(conds) > 0 {
		n.add("Index Cond", andText(conds), true)
	}
	return n
}

// PostgreSQL's default cost constants and selectivities.
const (
	seqPageCost      = 1.0
	randomPageCost   = 4.0
	cpuTupleCost     = 0.01
	cpuOperatorCost  = 0.0025
	defaultEqSel     = 0.005
	defaultIneqSel   = 1.0 / 3
	defaultGroups    = 200
	defaultFuncRows  = 1000
	pageSize         = 8192
	tupleOverhead    = 24
	defaultVarWidth  = 32
	indexStartupCost = 0.29
)

// estimate fills in n's estimated rows, width and costs, from its inputs'.
func (x *explainer) estimate(n *explainNode, p Plan) {
	if n.width == 0 {
		n.width = rowWidth(p.Columns())
	}
	if f, ok := unwrapInstrumented(p).(*Filter); ok {
		// describe folded the filter into its input's node, estimated
		// already: the filter's selectivity applies on top.
		sel := defaultIneqSel
		if c, ok := f.Pred.(*Call); ok && c.Name == "=" {
			sel = defaultEqSel
		}
		n.total += n.rows * cpuOperatorCost
		n.rows = clampRows(n.rows * sel)
		return
	}
	if n.total > 0 || n.rows > 0 {
		return
	}
	kids := n.children
	var in *explainNode
	for _, c := range kids {
		if c.heading == "" {
			in = c
			break
		}
	}
	inRows, inTotal, inStartup := 0.0, 0.0, 0.0
	if in != nil {
		inRows, inTotal, inStartup = in.rows, in.total, in.startup
	}
	switch q := unwrapInstrumented(p).(type) {
	case *Scan:
		rows := x.tableRows(q.Table)
		pages := math.Ceil(rows * float64(n.width+tupleOverhead) / pageSize)
		n.rows, n.total = rows, pages*seqPageCost+rows*cpuTupleCost
		if n.typ == "Index Scan" {
			n.startup = indexStartupCost
			n.total = indexStartupCost + pages*randomPageCost + rows*(cpuTupleCost+cpuOperatorCost)
		}
	case *IndexScan:
		rows := x.tableRows(q.Table)
		out := rows
		unique := q.Index == ""
		for _, d := range q.Table.Def.Indexes {
			if d.Name == q.Index {
				unique = d.Unique && len(q.Eq) == len(d.Columns)
			}
		}
		if q.Index == "" {
			unique = len(q.Eq) == len(q.Table.Def.PrimaryKey)
		}
		switch {
		case unique:
			out = 1
			for _, alts := range q.Eq {
				out *= float64(len(alts))
			}
		default:
			for _, alts := range q.Eq {
				out *= defaultEqSel * float64(len(alts))
			}
			switch {
			case len(q.Lower) > 0 && len(q.Upper) > 0:
				out *= defaultEqSel
			case len(q.Lower)+len(q.Upper) > 0:
				out *= defaultIneqSel
			}
		}
		out = clampRows(math.Min(out, rows))
		pages := math.Ceil(out * float64(n.width+tupleOverhead) / pageSize)
		n.rows, n.startup = out, indexStartupCost
		n.total = indexStartupCost + (pages+1)*randomPageCost + out*(cpuTupleCost+cpuOperatorCost)
	case *HashJoin:
		l, r := kids[0], kids[1]
		n.rows = clampRows(math.Max(l.rows, r.rows))
		n.startup = r.total + r.rows*cpuOperatorCost
		n.total = n.startup + l.total + l.rows*cpuOperatorCost + n.rows*cpuTupleCost
	case *NestedLoop:
		l, r := kids[0], kids[1]
		n.rows = clampRows(l.rows * r.rows * defaultIneqSel)
		n.startup = l.startup + r.startup
		n.total = l.total + l.rows*r.total + n.rows*cpuTupleCost
	case *Sort:
		n.rows = inRows
		n.startup = inTotal + 2*cpuOperatorCost*inRows*math.Log2(math.Max(inRows, 2))
		n.total = n.startup + inRows*cpuOperatorCost
	case *Limit, *LimitTies:
		n.rows = inRows
		if l, ok := q.(*Limit); ok {
			if c, ok := l.Count.(*Const); ok && !c.D.IsNull() && float64(c.D.I) < inRows {
				n.rows = float64(c.D.I)
			}
		}
		n.startup = inStartup
		n.total = inStartup
		if inRows > 0 {
			n.total += (inTotal - inStartup) * n.rows / inRows
		}
	case *Aggregate, *Distinct, *TableCount:
		n.rows = 1
		if a, ok := q.(*Aggregate); ok && len(a.Keys) > 0 || n.label == "HashAggregate" {
			n.rows = math.Min(inRows, defaultGroups)
		}
		n.startup = inTotal + inRows*cpuOperatorCost
		n.total = n.startup + n.rows*cpuTupleCost
	case *Values:
		n.rows = float64(len(q.Rows))
		n.total = n.rows * cpuTupleCost
	case *FuncScan, *RecordScan, *CTEScan, *WorkTableScan:
		n.rows = defaultFuncRows
		n.total = n.rows * cpuTupleCost
	case *Series:
		n.rows = defaultFuncRows
		if a, ok := q.Start.(*Const); ok && !a.D.IsNull() {
			if b, ok := q.Stop.(*Const); ok && !b.D.IsNull() && q.Step == nil && a.D.Kind == KindInt {
				n.rows = math.Max(float64(b.D.I-a.D.I+1), 0)
			}
		}
		n.total = n.rows * cpuTupleCost
	case *Modify:
		n.rows, n.startup, n.total = 0, inStartup, inTotal+inRows*cpuTupleCost
		if len(q.Returning) > 0 {
			n.rows = inRows
		}
	default:
		x.estimateFrom(n, kids, func(rows []float64) float64 {
			if len(rows) == 0 {
				return 1
			}
			if n.typ == "Append" {
				return sum(rows)
			}
			return rows[0]
		})
	}
}

// estimateFrom estimates a node that passes on its inputs' rows: rows of
// them, costs summed.
func (x *explainer) estimateFrom(n *explainNode, kids []*explainNode, rows func([]float64) float64) {
	var rs []float64
	for _, c := range kids {
		if c.heading != "" {
			continue
		}
		rs = append(rs, c.rows)
		n.total += c.total
		if n.startup == 0 {
			n.startup = c.startup
		}
		if n.width == 0 {
			n.width = c.width
		}
	}
	n.rows = rows(rs)
	n.total += n.rows * cpuTupleCost
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, v := range xs {
		s += v
	}
	return s
}

func clampRows(r float64) float64 { return math.Max(math.Round(r), 1) }

// tableRows is the table's row count as its tree keeps it, for estimates;
// a virtual table (a catalog view) counts as PostgreSQL's guess for a
// relation it knows nothing of.
func (x *explainer) tableRows(t *Table) float64 {
	if t.Virtual != nil || x.env == nil || x.env.Txn == nil {
		return defaultFuncRows
	}
	ct, err := x.env.Txn.current(x.env.Ctx, t)
	if err != nil {
		return defaultFuncRows
	}
	m, err := x.env.Txn.rowsMap(x.env.Ctx, ct)
	if err != nil {
		return defaultFuncRows
	}
	return float64(m.Count())
}

// rowWidth estimates a row's bytes as PostgreSQL does without statistics:
// a fixed-size type's size, 32 bytes for anything else.
func rowWidth(cols []ResultColumn) int {
	w := 0
	for _, c := range cols {
		switch c.T.OID {
		case OIDBool:
			w++
		case OIDInt2:
			w += 2
		case OIDInt4, OIDFloat4, OIDOid, OIDDate:
			w += 4
		case OIDInt8, OIDFloat8, OIDTimestamp, OIDTimestampTZ, OIDTime:
			w += 8
		case OIDUUID:
			w += 16
		default:
			w += defaultVarWidth
		}
	}
	return w
}

// text appends n's lines in the text format. arrow is the column of
// the node's "->" (-1 for the top node, which has none); its details sit
// six columns right of it (two for the top node), and so do its inputs'
// arrows. A subplan's heading ("SubPlan 1", "CTE x") sits where an
// input's arrow would, and its node's arrow two columns right of that.
func (x *explainer) text(out *[]string, n *explainNode, arrow int) {
	line := n.label
	if x.opts.Costs {
		line += fmt.Sprintf("  (cost=%.2f..%.2f rows=%.0f width=%d)", n.startup, n.total, n.rows, n.width)
	}
	if x.opts.Analyze {
		if st := n.stats; st != nil && st.loops > 0 {
			loops := float64(st.loops)
			rows := math.Round(float64(st.rows) / loops)
			if x.opts.Timing {
				line += fmt.Sprintf(" (actual time=%.3f..%.3f rows=%.0f loops=%d)", ms(st.startup)/loops, ms(st.total)/loops, rows, st.loops)
			} else {
				line += fmt.Sprintf(" (actual rows=%.0f loops=%d)", rows, st.loops)
			}
		} else {
			line += " (never executed)"
		}
	}
	if n.heading != "" {
		*out = append(*out, strings.Repeat(" ", arrow)+n.heading)
		arrow += 2
	}
	details := 2
	if arrow < 0 {
		*out = append(*out, line)
	} else {
		*out = append(*out, strings.Repeat(" ", arrow)+"->  "+line)
		details = arrow + 6
	}
	pad := strings.Repeat(" ", details)
	for _, f := range n.fields {
		if !f.text {
			continue
		}
		switch v := f.val.(type) {
		case []string:
			*out = append(*out, pad+f.key+": "+strings.Join(v, ", "))
		default:
			*out = append(*out, pad+f.key+": "+fmt.Sprint(v))
		}
		if removed := n.removed - statRows(n.stats); f.key == "Filter" && x.opts.Analyze && n.stats != nil && removed > 0 {
			*out = append(*out, pad+"Rows Removed by Filter: "+strconv.FormatInt(removed, 10))
		}
	}
	for _, c := range n.children {
		x.text(out, c, details)
	}
}

// json returns the description in PostgreSQL's JSON format.
func (x *explainer) json(root *explainNode, exec time.Duration) string {
	top := jsonObject{{"Plan", x.jsonNode(root)}}
	if x.opts.Summary {
		top = append(top, jsonField{"Planning Time", jsonNumber(ms(x.opts.Planning), 3)})
	}
	if x.opts.Analyze {
		top = append(top, jsonField{"Triggers", []any{}})
		if x.opts.Summary {
			top = append(top, jsonField{"Execution Time", jsonNumber(ms(exec), 3)})
		}
	}
	var b strings.Builder
	b.WriteString("[\n")
	writeJSON(&b, top, 1)
	b.WriteString("\n]")
	return b.String()
}

// rawJSON is a number printed with a fixed count of decimals, as
// PostgreSQL prints costs (2) and times (3) in its JSON plans.
type rawJSON string

func jsonNumber(v float64, decimals int) rawJSON {
	return rawJSON(strconv.FormatFloat(v, 'f', decimals, 64))
}

func statRows(st *nodeStats) int64 {
	if st == nil {
		return 0
	}
	return st.rows
}

func (x *explainer) jsonNode(n *explainNode) jsonObject {
	o := jsonObject{{"Node Type", n.typ}}
	if n.rel != "" {
		o = append(o, jsonField{"Parent Relationship", n.rel})
	}
	if n.heading != "" {
		o = append(o, jsonField{"Subplan Name", n.heading})
	}
	o = append(o, jsonField{"Parallel Aware", false}, jsonField{"Async Capable", false})
	var details jsonObject
	for _, f := range n.fields {
		if f.text {
			details = append(details, jsonField{f.key, f.val})
		} else {
			o = append(o, jsonField{f.key, f.val})
		}
	}
	if x.opts.Costs {
		o = append(o, jsonField{"Startup Cost", jsonNumber(n.startup, 2)}, jsonField{"Total Cost", jsonNumber(n.total, 2)},
			jsonField{"Plan Rows", int64(n.rows)}, jsonField{"Plan Width", int64(n.width)})
	}
	if x.opts.Analyze {
		if st := n.stats; st != nil && st.loops > 0 {
			loops := float64(st.loops)
			if x.opts.Timing {
				o = append(o, jsonField{"Actual Startup Time", jsonNumber(ms(st.startup)/loops, 3)}, jsonField{"Actual Total Time", jsonNumber(ms(st.total)/loops, 3)})
			}
			o = append(o, jsonField{"Actual Rows", int64(math.Round(float64(st.rows) / loops))}, jsonField{"Actual Loops", st.loops})
		} else {
			o = append(o, jsonField{"Actual Rows", int64(0)}, jsonField{"Actual Loops", int64(0)})
		}
	}
	o = append(o, details...)
	if n.filtered && x.opts.Analyze && n.stats != nil {
		o = append(o, jsonField{"Rows Removed by Filter", n.removed - n.stats.rows})
	}
	if len(n.children) > 0 {
		var plans []any
		for _, c := range n.children {
			plans = append(plans, x.jsonNode(c))
		}
		o = append(o, jsonField{"Plans", plans})
	}
	return o
}

// jsonObject is a JSON object whose fields keep their order.
type jsonObject []jsonField

type jsonField struct {
	key string
	val any
}

// writeJSON writes v indented as PostgreSQL indents its JSON plans (two
// spaces a level), starting at depth.
func writeJSON(b *strings.Builder, v any, depth int) {
	b.WriteString(strings.Repeat("  ", depth))
	writeJSONValue(b, v, depth)
}

func writeJSONValue(b *strings.Builder, v any, depth int) {
	pad := strings.Repeat("  ", depth)
	switch v := v.(type) {
	case jsonObject:
		b.WriteString("{\n")
		for i, f := range v {
			k, _ := json.Marshal(f.key)
			b.WriteString(pad + "  " + string(k) + ": ")
			writeJSONValue(b, f.val, depth+1)
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(pad + "}")
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range v {
			b.WriteString(pad + "  ")
			writeJSONValue(b, e, depth+1)
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(pad + "]")
	case rawJSON:
		b.WriteString(string(v))
	case []string:
		var es []any
		for _, s := range v {
			es = append(es, s)
		}
		writeJSONValue(b, es, depth)
	default:
		j, _ := json.Marshal(v)
		b.Write(j)
	}
}
