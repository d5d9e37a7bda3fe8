package exec

import (
	"maps"
	"slices"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// AggFunc is one overload of an aggregate function.
type AggFunc struct {
	Name string
	Args []uint32 // parameter types; OIDAny matches every type
	// Ret is the result type; 0 means the first argument's (min, max).
	Ret uint32
	// KeepNulls marks aggregates that see rows whose first argument is
	// NULL; the others skip them, as PostgreSQL's strict transition
	// functions do.
	KeepNulls bool
	// StrictAll aggregates skip rows where any argument is NULL (the
	// two-argument statistics).
	StrictAll bool
	// New returns the empty state of one group, for arguments of types
	// args.
	New func(args []T) Accumulator
	// Transition, when set, names the aggregate's transition (function,
	// state type and initial state): calls of aggregates with the same
	// one over the same input can share a state, which Share makes an
	// Accumulator finishing the state another one, from, computes.
	Transition string
	Share      func(from Accumulator) Accumulator
	// OrderedSet marks the ordered-set aggregates, called only as
	// agg(direct) WITHIN GROUP (ORDER BY value): their first argument is
	// the value, the direct ones follow.
	OrderedSet bool
}

// skips reports whether a row with these arguments is left out.
func (f *AggFunc) skips(args []Datum) bool {
	if f.StrictAll {
		return hasNull(args)
	}
	return len(args) > 0 && args[0].IsNull() && !f.KeepNulls
}

func (f *AggFunc) resultType(args []T) T {
	if f.Ret == 0 {
		return BaseType(args[0])
	}
	if f.Ret == OIDAnyArray {
		if IsArrayType(args[0].OID) {
			return BaseType(args[0])
		}
		return ArrayType(BaseType(args[0]))
	}
	return T{OID: f.Ret, Typmod: -1}
}

// BaseType is t without its type modifier.
func BaseType(t T) T { return T{OID: t.OID, Typmod: -1} }

// Accumulator is the state of one aggregate over one group.
type Accumulator interface {
	Add(env *Env, args []Datum) error
	Result(env *Env) (Datum, error)
}

// aggFuncs holds the built-in aggregates by name; filled by init, read
// only afterwards.
var aggFuncs = map[string][]*AggFunc{}

// RegisterAgg adds overloads of built-in aggregates (the library's).
// Called from init functions only, as Register.
func RegisterAgg(fs ...*AggFunc) {
	for _, f := range fs {
		aggFuncs[f.Name] = append(aggFuncs[f.Name], f)
	}
}

// IsAgg reports whether name is an aggregate function.
func IsAgg(name string) bool { return len(aggFuncs[name]) > 0 }

// aggConvCost is the cost of an implicit conversion for aggregate
// resolution: none for the same type, more for wider numeric steps, -1
// when there is no implicit conversion.
func aggConvCost(from, to uint32) int {
	switch {
	case from == to:
		return 0
	case !CanCoerce(from, to):
		return -1
	case numericRank(from) > 0 && numericRank(to) > 0:
		return numericRank(to) - numericRank(from)
	}
	return 1
}

// LookupAgg resolves an aggregate call as LookupFunc resolves a function
// call, returning the overload and the types to convert the arguments to.
func LookupAgg(name string, args []T) (*AggFunc, []T, error) {
	var best *AggFunc
	bestCost, ties := -1, 0
	for _, f := range aggFuncs[name] {
		if len(f.Args) != len(args) {
			continue
		}
		cost := 0
		for i, a := range args {
			c := 0
			switch {
			case f.Args[i] == OIDAnyArray && !IsArrayType(a.OID):
				c = -1
			case f.Args[i] != OIDAny && f.Args[i] != OIDAnyArray:
				c = aggConvCost(a.OID, f.Args[i])
			}
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
			ties++
		}
	}
	if best == nil {
		return nil, nil, NoFuncError(name, args)
	}
	if ties > 0 {
		// Among equals PostgreSQL prefers text and float8 parameters.
		for _, f := range aggFuncs[name] {
			if len(f.Args) == len(args) && len(args) > 0 && (f.Args[0] == OIDText || f.Args[0] == OIDFloat8) {
				best, ties = f, 0
				break
			}
		}
		if ties > 0 {
			return nil, nil, pgerr.New(pgerr.AmbiguousFunction, "function %s is not unique", signature(name, args)).
				WithHint("Could not choose a best candidate function. You might need to add explicit type casts.")
		}
	}
	out := make([]T, len(args))
	for i, p := range best.Args {
		switch {
		case p == OIDAny && args[i].OID == OIDUnknown:
			out[i] = TText
		case p == OIDAny || args[i].OID == p || IsPolymorphic(p):
			out[i] = args[i]
		default:
			out[i] = T{OID: p, Typmod: -1}
		}
	}
	return best, out, nil
}

// AggNames returns the names of the built-in aggregates, sorted: pg_proc
// lists them.
func AggNames() []string { return slices.Sorted(maps.Keys(aggFuncs)) }

// AggOverloads returns the overloads of the built-in aggregate name, in
// the order they were registered (which fixes their pg_proc OIDs). Read
// them, never change them.
func AggOverloads(name string) []*AggFunc { return aggFuncs[name] }
