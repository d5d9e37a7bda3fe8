package exec

import (
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// oidAny is PostgreSQL's "any" pseudo-type: count(x) takes a value of
// any type.
const oidAny uint32 = 2276

// AggFunc is one overload of an aggregate function.
type AggFunc struct {
	Name string
	Args []uint32 // parameter types; oidAny matches every type
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
	New func(args []T) accumulator
	// Transition, when set, names the aggregate's transition (function,
	// state type and initial state): calls of aggregates with the same
	// one over the same input can share a state, which Share makes an
	// accumulator finishing the state another one, from, computes.
	Transition string
	Share      func(from accumulator) accumulator
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
		return baseT(args[0])
	}
	if f.Ret == OIDAnyArray {
		if IsArrayType(args[0].OID) {
			return baseT(args[0])
		}
		return ArrayType(baseT(args[0]))
	}
	return T{OID: f.Ret, Typmod: -1}
}

func baseT(t T) T { return T{OID: t.OID, Typmod: -1} }

// accumulator is the state of one aggregate over one group.
type accumulator interface {
	add(env *Env, args []Datum) error
	result(env *Env) (Datum, error)
}

// aggFuncs holds the built-in aggregates by name; filled by init, read
// only afterwards.
var aggFuncs = map[string][]*AggFunc{}

func registerAgg(fs ...*AggFunc) {
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
			case f.Args[i] != oidAny && f.Args[i] != OIDAnyArray:
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
		return nil, nil, errNoFunc(name, args)
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
		case p == oidAny && args[i].OID == OIDUnknown:
			out[i] = TText
		case p == oidAny || args[i].OID == p || IsPolymorphic(p):
			out[i] = args[i]
		default:
			out[i] = T{OID: p, Typmod: -1}
		}
	}
	return best, out, nil
}

func init() {
	registerAgg(
		&AggFunc{Name: "count", Ret: OIDInt8, New: func([]T) accumulator { return &countAcc{} }},
		&AggFunc{Name: "count", Args: []uint32{oidAny}, Ret: OIDInt8, New: func([]T) accumulator { return &countAcc{} }},
	)
	for _, oid := range []uint32{OIDInt2, OIDInt4} {
		registerAgg(&AggFunc{Name: "sum", Args: []uint32{oid}, Ret: OIDInt8, New: func([]T) accumulator { return &sumIntAcc{} }})
		registerAgg(&AggFunc{Name: "avg", Args: []uint32{oid}, Ret: OIDNumeric, New: func([]T) accumulator { return &avgIntAcc{} }})
	}
	registerAgg(
		&AggFunc{Name: "sum", Args: []uint32{OIDInt8}, Ret: OIDNumeric, New: func([]T) accumulator { return &sumInt8Acc{} }},
		&AggFunc{Name: "avg", Args: []uint32{OIDInt8}, Ret: OIDNumeric, New: func([]T) accumulator { return &avgIntAcc{} }},
		&AggFunc{Name: "sum", Args: []uint32{OIDNumeric}, Ret: OIDNumeric, New: func([]T) accumulator { return &sumNumericAcc{} }},
		&AggFunc{Name: "avg", Args: []uint32{OIDNumeric}, Ret: OIDNumeric, New: func([]T) accumulator { return &sumNumericAcc{avg: true} }},
		&AggFunc{Name: "sum", Args: []uint32{OIDFloat4}, Ret: OIDFloat4, New: func([]T) accumulator { return &sumFloatAcc{float4: true} }},
		&AggFunc{Name: "sum", Args: []uint32{OIDFloat8}, Ret: OIDFloat8, New: func([]T) accumulator { return &sumFloatAcc{} }},
		&AggFunc{Name: "avg", Args: []uint32{OIDFloat4}, Ret: OIDFloat8, New: func([]T) accumulator { return &sumFloatAcc{avg: true} }},
		&AggFunc{Name: "avg", Args: []uint32{OIDFloat8}, Ret: OIDFloat8, New: func([]T) accumulator { return &sumFloatAcc{avg: true} }},
		&AggFunc{Name: "sum", Args: []uint32{OIDInterval}, Ret: OIDInterval, New: func([]T) accumulator { return &sumIntervalAcc{} }},
		&AggFunc{Name: "avg", Args: []uint32{OIDInterval}, Ret: OIDInterval, New: func([]T) accumulator { return &sumIntervalAcc{avg: true} }},
	)
	for _, oid := range []uint32{OIDInt2, OIDInt4, OIDInt8, OIDFloat4, OIDFloat8, OIDNumeric, OIDText, OIDBpchar,
		OIDDate, OIDTime, OIDTimestamp, OIDTimestampTZ, OIDInterval, OIDOid, OIDAnyEnum, OIDAnyArray} {
		registerAgg(
			&AggFunc{Name: "min", Args: []uint32{oid}, New: func([]T) accumulator { return &minMaxAcc{sign: -1} }},
			&AggFunc{Name: "max", Args: []uint32{oid}, New: func([]T) accumulator { return &minMaxAcc{sign: 1} }},
		)
	}
	for _, name := range []string{"bool_and", "every"} {
		registerAgg(&AggFunc{Name: name, Args: []uint32{OIDBool}, Ret: OIDBool, New: func([]T) accumulator { return &boolAcc{and: true} }})
	}
	registerAgg(
		&AggFunc{Name: "bool_or", Args: []uint32{OIDBool}, Ret: OIDBool, New: func([]T) accumulator { return &boolAcc{} }},
		&AggFunc{Name: "string_agg", Args: []uint32{OIDText, OIDText}, Ret: OIDText, New: func([]T) accumulator { return &stringAggAcc{} }},
		&AggFunc{Name: "string_agg", Args: []uint32{OIDBytea, OIDBytea}, Ret: OIDBytea, New: func([]T) accumulator { return &stringAggAcc{bytes: true} }},
	)
}

// countAcc is count(*) and count(x) (NULLs already skipped).
type countAcc struct{ n int64 }

func (a *countAcc) add(*Env, []Datum) error    { a.n++; return nil }
func (a *countAcc) result(*Env) (Datum, error) { return DInt(a.n), nil }

// sumIntAcc is sum(int2) and sum(int4), as int8.
type sumIntAcc struct {
	sum int64
	any bool
}

func (a *sumIntAcc) add(_ *Env, args []Datum) error {
	s := a.sum + args[0].I
	if (args[0].I > 0 && s < a.sum) || (args[0].I < 0 && s > a.sum) {
		return errIntRange("bigint")
	}
	a.sum, a.any = s, true
	return nil
}

func (a *sumIntAcc) result(*Env) (Datum, error) {
	if !a.any {
		return Null, nil
	}
	return DInt(a.sum), nil
}

// bigSum adds int8 values exactly: in an int64 while it does not
// overflow, then in a decimal.
type bigSum struct {
	small int64
	big   *apd.Decimal
}

func (s *bigSum) add(v int64) {
	if n := s.small + v; (v >= 0) == (n >= s.small) {
		s.small = n
		return
	}
	if s.big == nil {
		s.big = new(apd.Decimal)
	}
	numericCtx.Add(s.big, s.big, apd.New(s.small, 0))
	s.small = v
}

func (s *bigSum) decimal() *apd.Decimal {
	d := apd.New(s.small, 0)
	if s.big != nil {
		numericCtx.Add(d, d, s.big)
	}
	return d
}

// sumInt8Acc is sum(int8), as numeric.
type sumInt8Acc struct {
	sum bigSum
	n   int64
}

func (a *sumInt8Acc) add(_ *Env, args []Datum) error { a.sum.add(args[0].I); a.n++; return nil }

func (a *sumInt8Acc) result(*Env) (Datum, error) {
	if a.n == 0 {
		return Null, nil
	}
	return DNumeric(a.sum.decimal()), nil
}

var numericDiv = NumericArith("/")

// avgIntAcc is avg of an integer type: the exact sum divided by the count
// as numeric division does, with its result scale.
type avgIntAcc struct {
	sum bigSum
	n   int64
}

func (a *avgIntAcc) add(_ *Env, args []Datum) error { a.sum.add(args[0].I); a.n++; return nil }

func (a *avgIntAcc) result(env *Env) (Datum, error) {
	if a.n == 0 {
		return Null, nil
	}
	return numericDiv(env, []Datum{DNumeric(a.sum.decimal()), DNumeric(apd.New(a.n, 0))})
}

// sumNumericAcc is sum(numeric), or avg(numeric) with avg set. NaN
// absorbs everything; infinities of opposite signs give NaN.
type sumNumericAcc struct {
	sum apd.Decimal
	n   int64
	avg bool
}

func (a *sumNumericAcc) add(_ *Env, args []Datum) error {
	x := args[0].Numeric()
	if a.n == 0 {
		a.sum.Set(x)
	} else if x.Form == apd.NaN || a.sum.Form == apd.NaN {
		a.sum = apd.Decimal{Form: apd.NaN}
	} else if x.Form == apd.Infinite && a.sum.Form == apd.Infinite && x.Negative != a.sum.Negative {
		a.sum = apd.Decimal{Form: apd.NaN}
	} else if _, err := numericCtx.Add(&a.sum, &a.sum, x); err != nil {
		return pgerr.Wrap(err, pgerr.NumericValueOutOfRange, "value overflows numeric format")
	}
	a.n++
	return nil
}

func (a *sumNumericAcc) result(env *Env) (Datum, error) {
	if a.n == 0 {
		return Null, nil
	}
	sum := new(apd.Decimal).Set(&a.sum)
	if !a.avg {
		return DNumeric(sum), nil
	}
	if sum.Form != apd.Finite {
		return DNumeric(sum), nil
	}
	return numericDiv(env, []Datum{DNumeric(sum), DNumeric(apd.New(a.n, 0))})
}

// sumFloatAcc is sum and avg over floats. sum(float4) adds in single
// precision, as float4pl does; avg(float4) adds in double.
type sumFloatAcc struct {
	sum    float64
	n      int64
	float4 bool
	avg    bool
}

func (a *sumFloatAcc) add(_ *Env, args []Datum) error {
	s := a.sum + args[0].F
	if a.float4 {
		s = float64(float32(s))
	}
	if math.IsInf(s, 0) && !math.IsInf(a.sum, 0) && !math.IsInf(args[0].F, 0) {
		return pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
	}
	a.sum = s
	a.n++
	return nil
}

func (a *sumFloatAcc) result(*Env) (Datum, error) {
	if a.n == 0 {
		return Null, nil
	}
	if a.avg {
		return DFloat(a.sum / float64(a.n)), nil
	}
	return DFloat(a.sum), nil
}

// sumIntervalAcc is sum(interval), or avg(interval) with avg set.
type sumIntervalAcc struct {
	sum Interval
	n   int64
	avg bool
}

func (a *sumIntervalAcc) add(_ *Env, args []Datum) error {
	iv := args[0].Interval()
	m, d, us := int64(a.sum.Months)+int64(iv.Months), int64(a.sum.Days)+int64(iv.Days), a.sum.Micros+iv.Micros
	if m != int64(int32(m)) || d != int64(int32(d)) || (iv.Micros > 0 && us < a.sum.Micros) || (iv.Micros < 0 && us > a.sum.Micros) {
		return pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
	}
	a.sum = Interval{Months: int32(m), Days: int32(d), Micros: us}
	a.n++
	return nil
}

func (a *sumIntervalAcc) result(*Env) (Datum, error) {
	if a.n == 0 {
		return Null, nil
	}
	if !a.avg {
		return DInterval(a.sum), nil
	}
	iv, err := intervalDiv(a.sum, float64(a.n))
	if err != nil {
		return Null, err
	}
	return DInterval(iv), nil
}

// minMaxAcc is min (sign -1) or max (sign 1).
type minMaxAcc struct {
	best Datum
	sign int
}

func (a *minMaxAcc) add(_ *Env, args []Datum) error {
	if a.best.IsNull() || Compare(args[0], a.best)*a.sign > 0 {
		a.best = args[0]
	}
	return nil
}

func (a *minMaxAcc) result(*Env) (Datum, error) { return a.best, nil }

// boolAcc is bool_and/every (and set) or bool_or.
type boolAcc struct {
	and, any, v bool
}

func (a *boolAcc) add(_ *Env, args []Datum) error {
	b := args[0].Bool()
	switch {
	case !a.any:
		a.v = b
	case a.and:
		a.v = a.v && b
	default:
		a.v = a.v || b
	}
	a.any = true
	return nil
}

func (a *boolAcc) result(*Env) (Datum, error) {
	if !a.any {
		return Null, nil
	}
	return DBool(a.v), nil
}

// stringAggAcc is string_agg(value, delimiter): each value after the
// first is preceded by its row's delimiter (none when NULL).
type stringAggAcc struct {
	b     strings.Builder
	any   bool
	bytes bool
}

func (a *stringAggAcc) add(_ *Env, args []Datum) error {
	if a.any && !args[1].IsNull() {
		a.b.WriteString(args[1].S)
	}
	a.b.WriteString(args[0].S)
	a.any = true
	return nil
}

func (a *stringAggAcc) result(*Env) (Datum, error) {
	if !a.any {
		return Null, nil
	}
	if a.bytes {
		return DBytes(a.b.String()), nil
	}
	return DText(a.b.String()), nil
}
