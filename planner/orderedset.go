package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// orderedSetCall analyzes agg(direct, ...) WITHIN GROUP (ORDER BY value):
// the ordered-set aggregates percentile_cont, percentile_disc and mode
// (exec/funcs/orderedset.go). The aggregate sees the sorted value first,
// then the direct arguments, with the rows in the WITHIN GROUP order.
func (a *analyzer) orderedSetCall(f *pg.FuncCall, name string, g *grouping) (exec.Expr, error) {
	if f.AggDistinct {
		return nil, WithPos(pgerr.New(pgerr.WrongObjectType, "cannot use DISTINCT with WITHIN GROUP"), f.Location)
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
	if f.AggFilter != nil {
		filter, err := a.condition(f.AggFilter, g.input, "FILTER", "argument of FILTER")
		if err != nil {
			return nil, err
		}
		call.Filter = filter
	}
	return g.addAgg(call), nil
}
