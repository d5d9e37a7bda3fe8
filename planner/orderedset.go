package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/funcs"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// orderedSetCall analyzes agg(direct, ...) WITHIN GROUP (ORDER BY value):
// the ordered-set aggregates percentile_cont, percentile_disc and mode
// (exec/funcs/orderedset.go). The aggregate sees the sorted value first,
// then the direct arguments, with the rows in the WITHIN GROUP order.
func (a *analyzer) orderedSetCall(f *pg.FuncCall, name string, g *grouping) (exec.Expr, error) {
	if f.AggDistinct {
		return nil, WithPos(pgerr.New(pgerr.SyntaxError, "cannot use DISTINCT with WITHIN GROUP"), f.Location)
	}
	if funcs.IsHypothetical(name) {
		return a.hypotheticalCall(f, name, g)
	}
	if len(f.AggOrder) != 1 {
		return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "WITHIN GROUP with %d ordering columns is not supported yet", len(f.AggOrder)), f.Location)
	}
	a.inAgg = true
	defer func() { a.inAgg = false }()
	by := f.AggOrder[0].GetSortBy()
	value, err := a.expr(by.Node, g.input)
	if err != nil {
		return nil, err
	}
	args := []exec.Expr{value}
	types := []exec.T{value.Type()}
	for _, n := range f.Args {
		e, err := a.expr(n, g.input)
		if err != nil {
			return nil, err
		}
		if name == "percentile_cont" || name == "percentile_disc" {
			// The fraction: float8, or an array of them (an ARRAY of
			// numeric literals casts as PostgreSQL's would).
			want := exec.TFloat8
			if exec.IsArrayType(e.Type().OID) {
				want = exec.ArrayType(exec.TFloat8)
			}
			if c, err := a.coerce(e, want, "", f.Location); err == nil {
				e = c
			}
		}
		args = append(args, e)
		types = append(types, e.Type())
	}
	if name == "percentile_cont" && value.Type().OID != exec.OIDInterval {
		if c, err := a.coerce(value, exec.TFloat8, "", f.Location); err == nil {
			args[0], types[0] = c, exec.TFloat8
		}
	}
	fn, want, err := exec.LookupAgg(name, types)
	if err != nil || !fn.OrderedSet {
		return nil, WithPos(pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", sigOf(name, types[1:])).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts."), f.Location)
	}
	if err := a.coerceArgs(args, want, f.Location); err != nil {
		return nil, err
	}
	call := &exec.AggCall{Func: fn, ArgTypes: want, Args: args, Order: []exec.Expr{args[0]}, OrderKeys: []exec.SortKey{sortKey(by, 0)}}
	return a.addWithinGroup(call, f, g)
}

// hypotheticalCall analyzes rank, dense_rank, percent_rank or cume_dist
// with WITHIN GROUP: one direct argument per ordering column, each pair
// brought to a common type (select_common_type's "WITHIN GROUP" case).
// The aggregate takes the ordered values, then the direct ones, with the
// rows sorted by the WITHIN GROUP clause.
func (a *analyzer) hypotheticalCall(f *pg.FuncCall, name string, g *grouping) (exec.Expr, error) {
	a.inAgg = true
	defer func() { a.inAgg = false }()
	var ordered, direct []exec.Expr
	var keys []exec.SortKey
	for i, n := range f.AggOrder {
		by := n.GetSortBy()
		e, err := a.expr(by.Node, g.input)
		if err != nil {
			return nil, err
		}
		ordered = append(ordered, e)
		keys = append(keys, sortKey(by, i))
	}
	for _, n := range f.Args {
		e, err := a.expr(n, g.input)
		if err != nil {
			return nil, err
		}
		direct = append(direct, e)
	}
	if len(direct) != len(ordered) {
		var types []exec.T
		for _, e := range append(append([]exec.Expr{}, direct...), ordered...) {
			types = append(types, e.Type())
		}
		return nil, WithPos(pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", sigOf(name, types)).
			WithHint("To use the hypothetical-set aggregate %s, the number of hypothetical direct arguments (here %d) must match the number of ordering columns (here %d).", name, len(direct), len(ordered)), f.Location)
	}
	types := make([]exec.T, 0, 2*len(ordered))
	for i := range ordered {
		loc := ExprLocation(f.Args[i])
		t, err := commonType([]exec.T{ordered[i].Type(), direct[i].Type()}, "WITHIN GROUP", loc)
		if err != nil {
			return nil, err
		}
		if ordered[i], err = a.coerce(ordered[i], t, "", ExprLocation(f.AggOrder[i].GetSortBy().Node)); err != nil {
			return nil, err
		}
		if direct[i], err = a.coerce(direct[i], t, "", loc); err != nil {
			return nil, err
		}
		types = append(types, t)
	}
	types = append(types, types...)
	call := &exec.AggCall{Func: funcs.HypotheticalAgg(name, keys), ArgTypes: types, Args: append(append([]exec.Expr{}, ordered...), direct...), Order: ordered, OrderKeys: keys}
	return a.addWithinGroup(call, f, g)
}

// addWithinGroup adds a WITHIN GROUP aggregate call, with its FILTER, to
// the aggregates g computes.
func (a *analyzer) addWithinGroup(call *exec.AggCall, f *pg.FuncCall, g *grouping) (exec.Expr, error) {
	if f.AggFilter != nil {
		filter, err := a.condition(f.AggFilter, g.input, "FILTER", "argument of FILTER")
		if err != nil {
			return nil, err
		}
		call.Filter = filter
	}
	return g.addAgg(call), nil
}
