package catalog

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/prollypg/prollypg/exec"
)

// BuiltinProc is one overload of a built-in function, as pg_proc lists it.
type BuiltinProc struct {
	Name string
	Func *exec.Func
	Set  bool // a set-returning function (RETURNS SETOF)
	// Agg marks an aggregate: Func then holds only its name, argument and
	// result types, and is not called.
	Agg bool
	// Window marks a window function, which the planner plans itself
	// (Func holds only its signature).
	Window bool
}

// eachBuiltinProc calls fn with every built-in overload and its OID: the
// scalar functions, then the set-returning ones (the dolt_* commands
// among them), numbered after the scalar overloads of their name, then
// the aggregates, numbered after both.
func eachBuiltinProc(fn func(oid uint32, p BuiltinProc)) {
	for _, name := range exec.FuncNames() {
		for i, f := range exec.Overloads(name) {
			fn(BuiltinProcOID(name, i), BuiltinProc{Name: name, Func: f})
		}
	}
	for _, name := range exec.SRFNames() {
		first := len(exec.Overloads(name))
		for i, f := range exec.SRFOverloads(name) {
			fn(BuiltinProcOID(name, first+i), BuiltinProc{Name: name, Func: f, Set: true})
		}
	}
	for _, name := range exec.AggNames() {
		first := len(exec.Overloads(name)) + len(exec.SRFOverloads(name))
		for i, a := range exec.AggOverloads(name) {
			fn(BuiltinProcOID(name, first+i), BuiltinProc{Name: name, Func: aggSignature(a), Agg: true})
		}
	}
	for i, f := range plannedSRFs {
		first := len(exec.Overloads(f.Name)) + len(exec.SRFOverloads(f.Name)) + len(exec.AggOverloads(f.Name))
		fn(BuiltinProcOID(f.Name, first+i), BuiltinProc{Name: f.Name, Func: f, Set: true})
	}
	seen := map[string]int{}
	for _, p := range plannedFuncs {
		name := p.Func.Name
		first := len(exec.Overloads(name)) + len(exec.SRFOverloads(name)) + len(exec.AggOverloads(name))
		fn(BuiltinProcOID(name, first+seen[name]), p)
		seen[name]++
	}
}

// plannedFuncs are the other functions the planner plans itself: the
// window functions and the session's random() and setseed(), listed with
// PostgreSQL's signatures.
var plannedFuncs = func() []BuiltinProc {
	I4, I8, F8, E, C := exec.OIDInt4, exec.OIDInt8, exec.OIDFloat8, exec.OIDAnyElement, exec.OIDAnyCompatible
	w := func(name string, ret uint32, strict bool, args ...uint32) BuiltinProc {
		// pg_proc has the window functions immutable.
		return BuiltinProc{Name: name, Window: true, Func: &exec.Func{Name: name, Args: args, Ret: ret, Immutable: true, Strict: strict}}
	}
	return []BuiltinProc{
		w("row_number", I8, false), w("rank", I8, false), w("dense_rank", I8, false),
		w("percent_rank", F8, false), w("cume_dist", F8, false), w("ntile", I4, true, I4),
		w("lag", E, true, E), w("lag", E, true, E, I4), w("lag", C, true, C, I4, C),
		w("lead", E, true, E), w("lead", E, true, E, I4), w("lead", C, true, C, I4, C),
		w("first_value", E, true, E), w("last_value", E, true, E), w("nth_value", E, true, E, I4),
		{Name: "random", Func: &exec.Func{Name: "random", Ret: F8, Strict: true}},
		{Name: "setseed", Func: &exec.Func{Name: "setseed", Args: []uint32{F8}, Ret: exec.OIDVoid, Strict: true}},
	}
}()

// plannedSRFs are the set-returning functions the planner plans itself
// rather than through the registry (generate_series over numbers is an
// exec.Series), listed in pg_proc with their PostgreSQL signatures.
var plannedSRFs = func() []*exec.Func {
	var out []*exec.Func
	for _, t := range []uint32{exec.OIDInt4, exec.OIDInt8, exec.OIDNumeric} {
		out = append(out, &exec.Func{Name: "generate_series", Args: []uint32{t, t}, Ret: t},
			&exec.Func{Name: "generate_series", Args: []uint32{t, t, t}, Ret: t})
	}
	return out
}()

// aggSignature is an aggregate's signature as pg_proc shows it: an
// aggregated argument of any type is PostgreSQL's polymorphic type for
// it (anyelement when the result is of its type, anynonarray for
// array_agg), and an ordered-set aggregate lists its direct arguments
// before the aggregated one, as it is called.
func aggSignature(a *exec.AggFunc) *exec.Func {
	args := append([]uint32(nil), a.Args...)
	agg := 0 // where the aggregated argument is
	if a.OrderedSet && len(args) > 1 {
		args = append(args[1:], args[0])
		agg = len(args) - 1
	}
	ret := a.Ret
	switch {
	case len(a.Args) == 0 || a.Args[0] != exec.OIDAny:
		if ret == 0 && len(a.Args) > 0 {
			ret = a.Args[0]
		}
	case ret == 0: // min, max and the like of any type
		ret = exec.OIDAnyElement
		args[agg] = exec.OIDAnyElement
	case ret == exec.OIDAnyArray: // array_agg of elements (or of arrays)
		args[agg] = exec.OIDAnyNonArray
	}
	return &exec.Func{Name: a.Name, Args: args, Ret: ret}
}

// BuiltinProcOID is the OID of overload i of the built-in function name:
// the first keeps the OID of the name, which regproc input resolves to.
func BuiltinProcOID(name string, i int) uint32 {
	if i == 0 {
		return ProcOID(name)
	}
	return exec.ObjectOID(kindProc, "pg_catalog", name+"("+strconv.Itoa(i)+")")
}

// builtinProcs maps the OIDs of the built-in overloads to them. It is made
// once, as the registry does not change after init.
var builtinProcs = sync.OnceValue(func() map[uint32]BuiltinProc {
	m := map[uint32]BuiltinProc{}
	eachBuiltinProc(func(oid uint32, p BuiltinProc) { m[oid] = p })
	return m
})

// LookupBuiltinProc returns the built-in overload whose OID is oid.
func LookupBuiltinProc(oid uint32) (BuiltinProc, bool) {
	p, ok := builtinProcs()[oid]
	return p, ok
}

// BuiltinProcBySignature returns the OID of the built-in overload of
// name whose pg_proc parameter types are params (regprocedure input).
func BuiltinProcBySignature(name string, params []uint32) (oid uint32, ok bool) {
	eachBuiltinProc(func(o uint32, p BuiltinProc) {
		if ok || p.Name != name {
			return
		}
		if got, _ := builtinParams(p.Func); slices.Equal(got, params) {
			oid, ok = o, true
		}
	})
	return oid, ok
}

// Params returns the overload's pg_proc parameter types.
func (p BuiltinProc) Params() []uint32 {
	params, _ := builtinParams(p.Func)
	return params
}

// builtinParams returns the pg_proc parameter types of f (a variadic
// parameter as its array type) and its variadic element type, 0 if none.
func builtinParams(f *exec.Func) (params []uint32, variadic uint32) {
	params = append([]uint32(nil), f.Args...)
	if f.Variadic && len(params) > 0 {
		last := len(params) - 1
		variadic = params[last]
		if arr := exec.ArrayType(exec.T{OID: variadic, Typmod: -1}).OID; arr != 0 {
			params[last] = arr
		}
	}
	return params, variadic
}

// builtinReturns is the result type of f as pg_proc records it.
func builtinReturns(f *exec.Func) uint32 {
	if f.RetArg > 0 && f.RetArg <= len(f.Args) {
		return f.Args[f.RetArg-1]
	}
	if f.Ret == 0 {
		return exec.OIDRecord // a set-returning function of several columns
	}
	return f.Ret
}

// Arguments is pg_get_function_arguments of the overload.
func (p BuiltinProc) Arguments(name TypeNamer) string {
	params, variadic := builtinParams(p.Func)
	parts := make([]string, len(params))
	for i, t := range params {
		parts[i] = routineTypeName(t, name)
		if variadic != 0 && i == len(params)-1 {
			parts[i] = "VARIADIC " + parts[i]
		}
	}
	return strings.Join(parts, ", ")
}

// Result is pg_get_function_result of the overload.
func (p BuiltinProc) Result(name TypeNamer) string {
	if p.Set {
		return "SETOF " + routineTypeName(builtinReturns(p.Func), name)
	}
	return routineTypeName(builtinReturns(p.Func), name)
}

// builtinProcRow is the pg_proc row of a built-in overload.
func builtinProcRow(oid uint32, p BuiltinProc) exec.Row {
	name, f := p.Name, p.Func
	rows := 0.0
	if p.Set {
		rows = 1000 // PostgreSQL's default estimate of a set-returning function
	}
	params, variadic := builtinParams(f)
	inputs := make([]string, len(params))
	for j, t := range params {
		inputs[j] = strconv.FormatUint(uint64(t), 10)
	}
	volatility := byte('v') // the registry knows immutable functions only
	kind, src := byte('f'), name
	switch {
	case f.Immutable:
		volatility = 'i'
	case p.Agg:
		volatility, kind, src = 'i', 'a', "aggregate_dummy" // as PostgreSQL's built-in aggregates
	}
	if p.Window {
		kind = 'w'
	}
	return exec.Row{
		dOID(oid), dText(name), dOID(OIDPgCatalog), dOID(OIDBootstrapRole), dOID(12),
		exec.DFloat(1), exec.DFloat(rows), dOID(variadic), dText("-"), dChar(kind), dBool(false),
		dBool(false), dBool(f.Strict), dBool(p.Set), dChar(volatility), dChar('s'),
		dInt(int64(len(params))), dInt(0), dOID(builtinReturns(f)), dVector(exec.OIDOidVector, inputs), exec.Null,
		exec.Null, exec.Null, exec.Null, exec.Null, dText(src),
		exec.Null, exec.Null, exec.Null, exec.Null,
	}
}
