package planner

import (
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/funcs"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// User-defined aggregates: CREATE AGGREGATE stores a sqldef.Function
// of kind 'a' whose Aggregate names its transition and final functions
// (built-in or user functions); a call resolves them for its argument
// types into an exec.UserAgg.

// bindAggregate makes the aggregate def computable for arguments of
// types args: its functions resolved, its initial state parsed. A
// polymorphic state type takes its actual type from args; CREATE
// AGGREGATE checks the functions with the declared types as args, which
// leave it polymorphic.
func (a *analyzer) bindAggregate(def *sqldef.Function, args []exec.T) (*exec.UserAgg, error) {
	agg := def.Aggregate
	stype := exec.PolyType(agg.SType, def.InputTypes(), args)
	ua := &exec.UserAgg{Name: def.Name, Args: def.InputTypes(), Ret: stype}
	if agg.HasInit && !exec.IsPolymorphic(stype.OID) {
		d, err := exec.ParseText(stype, agg.InitCond, a.s.Settings())
		if err != nil {
			return nil, err
		}
		ua.Init = d
	}
	step, err := a.aggSupport(agg.SFunc, "transition", append([]exec.T{stype}, args...), stype)
	if err != nil {
		return nil, err
	}
	ua.Step, ua.StepStrict = exprFn(step), isStrictCall(step)
	ua.Transition = transitionKey(def, args)
	if agg.FinalFunc != "" {
		final, err := a.aggSupport(agg.FinalFunc, "final", []exec.T{stype}, exec.T{})
		if err != nil {
			return nil, err
		}
		ua.Final, ua.FinalStrict, ua.Ret = exprFn(final), isStrictCall(final), final.Type()
	}
	return ua, nil
}

// aggSupport resolves a call of function name (an aggregate's transition,
// final or combine function: what) over arguments of types args, which
// it must take as they are, returning want unless that is the zero T.
// The call reads its arguments from the row.
func (a *analyzer) aggSupport(name, what string, args []exec.T, want exec.T) (exec.Expr, error) {
	in := make([]exec.Expr, len(args))
	for i, t := range args {
		in[i] = &exec.ColRef{Idx: i, T: t}
	}
	schema, fname := SplitName(strings.Split(name, "."))
	missing := func() error {
		names := make([]string, len(args))
		for i, t := range args {
			names[i] = exec.TypeName(t.OID)
		}
		return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", fname, strings.Join(names, ", "))
	}
	var call exec.Expr
	cands, err := a.userFuncs(schema, fname)
	if err != nil {
		return nil, err
	}
	cands = slices.DeleteFunc(cands, func(f *sqldef.Function) bool { return f.Kind != 'f' })
	if len(cands) > 0 || schema != "" {
		rc, err := a.resolveAmong(cands, fname, in, nil, nil, false, -1, false)
		if pe, ok := err.(*pgerr.Error); ok && pe.Code == pgerr.UndefinedFunction && len(args) > 0 && exec.VariadicElem(args[len(args)-1].OID) != 0 {
			// A variadic aggregate's transition function takes its
			// arguments' array as declared (lookup_agg_function does not
			// expand variadic parameters): as a VARIADIC call.
			rc, err = a.resolveAmong(cands, fname, in, nil, nil, true, -1, false)
		}
		if pe, ok := err.(*pgerr.Error); ok && pe.Code == pgerr.UndefinedFunction {
			return nil, missing()
		}
		if err != nil {
			return nil, err
		}
		// Polymorphic parameters count as the types the call binds them
		// to: least(anycompatible, anycompatible) over (bigint, integer)
		// would convert the integer.
		declared := rc.def.InputTypes()
		bound := make([]uint32, len(declared))
		for i, p := range declared {
			bound[i] = p
			if exec.IsPolymorphic(p) && (i >= len(args) || !exec.IsPolymorphic(args[i].OID)) {
				bound[i] = exec.PolyType(p, declared, args).OID
			}
		}
		if err := runtimeCoercion(fname, bound, args); err != nil {
			return nil, err
		}
		call = a.userScalarCall(rc)
	} else {
		f, params, err := exec.LookupFunc(fname, args)
		if pe, ok := err.(*pgerr.Error); ok && pe.Code == pgerr.UndefinedFunction {
			return nil, missing()
		}
		if err != nil {
			return nil, err
		}
		var declared []uint32
		for _, p := range params {
			declared = append(declared, p.OID)
		}
		if !f.Variadic && !slices.Contains(f.Args, exec.OIDAny) {
			if err := runtimeCoercion(fname, declared, args); err != nil {
				return nil, err
			}
		}
		if call, err = a.call(fname, in, -1, false); err != nil {
			return nil, err
		}
	}
	if want.OID != 0 && call.Type().OID != want.OID {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "return type of %s function %s is not %s", what, fname, exec.TypeName(want.OID))
	}
	return call, nil
}

// runtimeCoercion fails unless a function declared with parameters
// params takes arguments of types args as they are (PostgreSQL's
// lookup_agg_function: binary-coercible only).
func runtimeCoercion(name string, params []uint32, args []exec.T) error {
	for i, p := range params {
		if i < len(args) && p != args[i].OID && !binaryCoercible(args[i].OID, p) {
			names := make([]string, len(params))
			for j, q := range params {
				names[j] = exec.TypeName(q)
			}
			return pgerr.New(pgerr.DatatypeMismatch, "function %s(%s) requires run-time type coercion", name, strings.Join(names, ", "))
		}
	}
	return nil
}

// binaryCoercible reports whether a value of type from is one of type to
// without conversion: a polymorphic parameter takes the types it
// accepts as they are.
func binaryCoercible(from, to uint32) bool {
	text := func(o uint32) bool { return o == exec.OIDText || o == exec.OIDVarchar }
	return from == to || to == exec.OIDAny || text(from) && text(to) || exec.IsPolymorphic(to) && exec.CanCoerce(from, to)
}

// exprFn evaluates e over its arguments as the row.
func exprFn(e exec.Expr) exec.Fn {
	return func(env *exec.Env, args []exec.Datum) (exec.Datum, error) { return e.Eval(env, exec.Row(args)) }
}

func isStrictCall(e exec.Expr) bool {
	c, ok := e.(*exec.Call)
	return ok && c.Strict
}

// userAggregates returns the user aggregates a call of names may mean.
func (a *analyzer) userAggregates(names []*pg.Node) ([]*sqldef.Function, error) {
	schema, name := SplitName(NameList(names))
	if schema == "pg_catalog" {
		return nil, nil
	}
	fs, err := a.userFuncs(schema, name)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(fs, func(f *sqldef.Function) bool { return f.Kind != 'a' }), nil
}

// isAggregate reports whether a call names an aggregate, built-in or
// user-defined.
func (a *analyzer) isAggregate(f *pg.FuncCall) bool {
	if exec.IsAgg(OpName(f.Funcname)) || f.AggWithinGroup && funcs.IsHypothetical(OpName(f.Funcname)) {
		return true
	}
	aggs, err := a.userAggregates(f.Funcname)
	return err == nil && len(aggs) > 0
}

// lookupAggregate resolves an aggregate call over arguments of types
// args: a built-in aggregate, else a user-defined one. It returns the
// types to convert the arguments to and, for a call spreading its
// arguments over a VARIADIC parameter of array type, the index of the
// first one, which packVariadic gathers (-1 for none).
func (a *analyzer) lookupAggregate(f *pg.FuncCall, name string, args []exec.T) (*exec.AggFunc, []exec.T, int, error) {
	if exec.IsAgg(name) {
		fn, want, err := exec.LookupAgg(name, args)
		return fn, want, -1, err
	}
	defs, err := a.userAggregates(f.Funcname)
	if err != nil {
		return nil, nil, -1, err
	}
	var overloads []*exec.Func
	for _, d := range defs {
		in := d.InputTypes()
		variadic := slices.ContainsFunc(d.Args, func(x sqldef.FuncArg) bool { return x.Mode == 'v' })
		if variadic && !f.FuncVariadic && len(in) > 0 {
			// Spread over the parameter: each argument binds to its
			// element type.
			in = append(slices.Clone(in[:len(in)-1]), exec.VariadicElem(in[len(in)-1]))
		}
		overloads = append(overloads, &exec.Func{Name: d.Name, Args: in, Ret: d.Returns, Variadic: variadic && !f.FuncVariadic})
	}
	best, want, err := exec.LookupIn(overloads, name, args)
	if err != nil {
		return nil, nil, -1, err
	}
	def := defs[slices.Index(overloads, best)]
	if err := a.requireExecute(def); err != nil {
		return nil, nil, -1, err
	}
	bind, spread := want, -1
	if best.Variadic && best.Args[len(best.Args)-1] != exec.OIDAny {
		// The transition function takes the gathered array.
		spread = len(best.Args) - 1
		elem := exec.TUnknown
		if spread < len(want) {
			elem = want[spread]
		} else if elem.OID = best.Args[spread]; exec.IsPolymorphic(elem.OID) {
			elem = exec.TText
		}
		bind = append(slices.Clone(want[:spread]), exec.ArrayType(exec.BaseType(elem)))
	}
	ua, err := a.bindAggregate(def, bind)
	if err != nil {
		return nil, nil, -1, err
	}
	return ua.AggFunc(), want, spread, nil
}

// packVariadic gathers a call's arguments from index spread on into the
// array a VARIADIC parameter takes (see lookupAggregate), returning the
// arguments and their types as the aggregate receives them.
func packVariadic(args []exec.Expr, want []exec.T, spread int) ([]exec.Expr, []exec.T) {
	if spread < 0 {
		return args, want
	}
	var elem exec.T
	if spread < len(want) {
		elem = exec.BaseType(want[spread])
	}
	arr := &exec.ArrayExpr{Elems: slices.Clone(args[spread:]), T: exec.ArrayType(elem)}
	return append(slices.Clone(args[:spread]), arr), append(slices.Clone(want[:spread]), arr.T)
}

// transitionKey identifies an aggregate's transition for arguments of
// types args: its function as resolved (by name in the aggregate's
// schema's context), state type and initial state.
func transitionKey(def *sqldef.Function, args []exec.T) string {
	agg := def.Aggregate
	var b strings.Builder
	fmt.Fprintf(&b, "%s.%s|%d|%t|%s", def.Schema, agg.SFunc, agg.SType, agg.HasInit, agg.InitCond)
	for _, t := range args {
		fmt.Fprintf(&b, "|%d", t.OID)
	}
	return b.String()
}
