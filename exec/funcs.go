package exec

import (
	"strings"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// Func is one overload of a built-in function or operator.
type Func struct {
	Name string
	// Args are the parameter types (OIDs); with Variadic, the last one
	// repeats any number of times (at least once).
	Args     []uint32
	Variadic bool
	// Ret is the result type; when RetArg >= 0 (set RetArg to 1+index, 0
	// for none) the result has the type of that argument instead.
	Ret    uint32
	RetArg int
	// Strict functions return NULL for any NULL argument without running.
	Strict bool
	Fn     Fn
}

// ResultType returns the type f returns for arguments of types args.
func (f *Func) ResultType(args []T) T {
	if f.RetArg > 0 {
		return T{OID: args[f.RetArg-1].OID, Typmod: -1}
	}
	return T{OID: f.Ret, Typmod: -1}
}

// funcs holds every built-in overload by name. Files register theirs from
// init functions, which run one at a time; after init the map is only read.
var funcs = map[string][]*Func{}

// register adds built-in overloads. Called from init functions only.
func register(fs ...*Func) {
	for _, f := range fs {
		funcs[f.Name] = append(funcs[f.Name], f)
	}
}

// HasFunc reports whether any overload of name exists.
func HasFunc(name string) bool { return len(funcs[name]) > 0 }

// LookupFunc resolves a call of name with arguments of types args to one
// overload, as PostgreSQL resolves function and operator calls: an exact
// match wins; otherwise the overload needing the fewest and cheapest
// implicit conversions (unknown literals match any type; numbers widen
// int2 → int4 → int8 → numeric → float4 → float8; the string types convert
// to text), with a preference for text and float8 among equals. It returns
// the overload and the types the arguments must be converted to.
func LookupFunc(name string, args []T) (*Func, []T, error) {
	var best *Func
	bestCost, ties := -1, 0
	for _, f := range funcs[name] {
		params := f.params(len(args))
		if params == nil {
			continue
		}
		cost := 0
		for i, a := range args {
			c := convCost(a.OID, params[i])
			if c < 0 {
				cost = -1
				break
			}
			cost += c
		}
		switch {
		case cost < 0:
		case bestCost < 0 || cost < bestCost:
			best, bestCost, ties = f, cost, 0
		case cost == bestCost:
			if preferred(f, len(args)) && !preferred(best, len(args)) {
				best = f
			} else if preferred(f, len(args)) == preferred(best, len(args)) {
				ties++
			}
		}
	}
	if best == nil {
		return nil, nil, errNoFunc(name, args)
	}
	if ties > 0 {
		return nil, nil, pgerr.New(pgerr.AmbiguousFunction, "function %s is not unique", signature(name, args)).
			WithHint("Could not choose a best candidate function. You might need to add explicit type casts.")
	}
	params := best.params(len(args))
	out := make([]T, len(args))
	for i, p := range params {
		out[i] = T{OID: p, Typmod: -1}
		if args[i].OID == p {
			out[i] = args[i]
		}
	}
	return best, out, nil
}

// params returns f's parameter types for n arguments, or nil if f does not
// take n.
func (f *Func) params(n int) []uint32 {
	switch {
	case !f.Variadic && n == len(f.Args):
		return f.Args
	case f.Variadic && n >= len(f.Args):
		out := append([]uint32(nil), f.Args...)
		for len(out) < n {
			out = append(out, f.Args[len(f.Args)-1])
		}
		return out
	}
	return nil
}

func preferred(f *Func, n int) bool {
	for _, p := range f.params(n) {
		if p == OIDText || p == OIDFloat8 {
			return true
		}
	}
	return false
}

// numericRank orders the numeric types by implicit widening.
func numericRank(oid uint32) int {
	switch oid {
	case OIDInt2:
		return 1
	case OIDInt4:
		return 2
	case OIDInt8:
		return 3
	case OIDNumeric:
		return 4
	case OIDFloat4:
		return 5
	case OIDFloat8:
		return 6
	}
	return 0
}

// NumericRank is numericRank for the planner: 0 for a non-numeric type.
func NumericRank(oid uint32) int { return numericRank(oid) }

// convCost is the cost of converting an argument of type from to a
// parameter of type to implicitly, -1 when it cannot be.
func convCost(from, to uint32) int {
	switch {
	case from == to:
		return 0
	case from == OIDUnknown:
		return 1
	case numericRank(from) > 0 && numericRank(to) > numericRank(from):
		return numericRank(to) - numericRank(from)
	case to == OIDText && KindOf(from) == KindText:
		return 1
	case from == OIDDate && (to == OIDTimestamp || to == OIDTimestampTZ):
		return 1
	case from == OIDTimestamp && to == OIDTimestampTZ:
		return 1
	}
	return -1
}

func signature(name string, args []T) string {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = TypeName(a.OID)
	}
	return name + "(" + strings.Join(names, ", ") + ")"
}

func errNoFunc(name string, args []T) error {
	return pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", signature(name, args)).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
}
