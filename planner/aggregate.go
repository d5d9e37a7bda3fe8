package planner

import (
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/funcs"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
)

// User-defined aggregates: CREATE AGGREGATE stores a versioning.Function
// of kind 'a' whose Aggregate names its transition and final functions
// (built-in or user functions); a call resolves them for its argument
// types into an exec.UserAgg.

// bindAggregate makes the aggregate def computable for arguments of
// types args: its functions resolved, its initial state parsed. A
// polymorphic state type takes its actual type from args; CREATE
// AGGREGATE checks the functions with the declared types as args, which
// leave it polymorphic.
func (a *analyzer) bindAggregate(def *versioning.Function, args []exec.T) (*exec.UserAgg, error) {
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
	cands = slices.DeleteFunc(cands, func(f *versioning.Function) bool { return f.Kind != 'f' })
	if len(cands) > 0 || schema != "" {
		rc, err := a.resolveAmong(cands, fname, in, nil, nil, false, -1, false)
		if pe, ok := err.(*pgerr.Error); ok && pe.Code == pgerr.UndefinedFunction {
			return nil, missing()
		}
		if err != nil {
			return nil, err
		}
		if err := runtimeCoercion(fname, rc.def.InputTypes(), args); err != nil {
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
func (a *analyzer) userAggregates(names []*pg.Node) ([]*versioning.Function, error) {
	schema, name := SplitName(NameList(names))
	if schema == "pg_catalog" {
		return nil, nil
	}
	fs, err := a.userFuncs(schema, name)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(fs, func(f *versioning.Function) bool { return f.Kind != 'a' }), nil
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
// args: a built-in aggregate, else a user-defined one.
func (a *analyzer) lookupAggregate(f *pg.FuncCall, name string, args []exec.T) (*exec.AggFunc, []exec.T, error) {
	if exec.IsAgg(name) {
		return exec.LookupAgg(name, args)
	}
	defs, err := a.userAggregates(f.Funcname)
	if err != nil {
		return nil, nil, err
	}
	var overloads []*exec.Func
	for _, d := range defs {
		overloads = append(overloads, &exec.Func{Name: d.Name, Args: d.InputTypes(), Ret: d.Returns, Variadic: slices.ContainsFunc(d.Args, func(x versioning.FuncArg) bool { return x.Mode == 'v' })})
	}
	best, want, err := exec.LookupIn(overloads, name, args)
	if err != nil {
		return nil, nil, err
	}
	def := defs[slices.Index(overloads, best)]
	if err := a.requireExecute(def); err != nil {
		return nil, nil, err
	}
	ua, err := a.bindAggregate(def, want)
	if err != nil {
		return nil, nil, err
	}
	return ua.AggFunc(), want, nil
}

// transitionKey identifies an aggregate's transition for arguments of
// types args: its function as resolved (by name in the aggregate's
// schema's context), state type and initial state.
func transitionKey(def *versioning.Function, args []exec.T) string {
	agg := def.Aggregate
	var b strings.Builder
	fmt.Fprintf(&b, "%s.%s|%d|%t|%s", def.Schema, agg.SFunc, agg.SType, agg.HasInit, agg.InitCond)
	for _, t := range args {
		fmt.Fprintf(&b, "|%d", t.OID)
	}
	return b.String()
}
