package funcs

import (
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// The built-in aggregates: count, sum, avg, min, max, bool_and/or, every,
// string_agg.

func registerAggregates() {
	exec.RegisterAgg(
		&exec.AggFunc{Name: "count", Ret: exec.OIDInt8, New: func([]exec.T) exec.Accumulator { return &countAcc{} }},
		&exec.AggFunc{Name: "count", Args: []uint32{exec.OIDAny}, Ret: exec.OIDInt8, New: func([]exec.T) exec.Accumulator { return &countAcc{} }},
	)
	for _, oid := range []uint32{exec.OIDInt2, exec.OIDInt4} {
		exec.RegisterAgg(&exec.AggFunc{Name: "sum", Args: []uint32{oid}, Ret: exec.OIDInt8, New: func([]exec.T) exec.Accumulator { return &sumIntAcc{} }})
		exec.RegisterAgg(&exec.AggFunc{Name: "avg", Args: []uint32{oid}, Ret: exec.OIDNumeric, New: func([]exec.T) exec.Accumulator { return &avgIntAcc{} }})
	}
	exec.RegisterAgg(
		&exec.AggFunc{Name: "sum", Args: []uint32{exec.OIDInt8}, Ret: exec.OIDNumeric, New: func([]exec.T) exec.Accumulator { return &sumInt8Acc{} }},
		&exec.AggFunc{Name: "avg", Args: []uint32{exec.OIDInt8}, Ret: exec.OIDNumeric, New: func([]exec.T) exec.Accumulator { return &avgIntAcc{} }},
		&exec.AggFunc{Name: "sum", Args: []uint32{exec.OIDNumeric}, Ret: exec.OIDNumeric, New: func([]exec.T) exec.Accumulator { return &sumNumericAcc{} }},
		&exec.AggFunc{Name: "avg", Args: []uint32{exec.OIDNumeric}, Ret: exec.OIDNumeric, New: func([]exec.T) exec.Accumulator { return &sumNumericAcc{avg: true} }},
		&exec.AggFunc{Name: "sum", Args: []uint32{exec.OIDFloat4}, Ret: exec.OIDFloat4, New: func([]exec.T) exec.Accumulator { return &sumFloatAcc{float4: true} }},
		&exec.AggFunc{Name: "sum", Args: []uint32{exec.OIDFloat8}, Ret: exec.OIDFloat8, New: func([]exec.T) exec.Accumulator { return &sumFloatAcc{} }},
		&exec.AggFunc{Name: "avg", Args: []uint32{exec.OIDFloat4}, Ret: exec.OIDFloat8, New: func([]exec.T) exec.Accumulator { return &sumFloatAcc{avg: true} }},
		&exec.AggFunc{Name: "avg", Args: []uint32{exec.OIDFloat8}, Ret: exec.OIDFloat8, New: func([]exec.T) exec.Accumulator { return &sumFloatAcc{avg: true} }},
		&exec.AggFunc{Name: "sum", Args: []uint32{exec.OIDInterval}, Ret: exec.OIDInterval, New: func([]exec.T) exec.Accumulator { return &sumIntervalAcc{} }},
		&exec.AggFunc{Name: "avg", Args: []uint32{exec.OIDInterval}, Ret: exec.OIDInterval, New: func([]exec.T) exec.Accumulator { return &sumIntervalAcc{avg: true} }},
	)
	for _, oid := range []uint32{exec.OIDInt2, exec.OIDInt4, exec.OIDInt8, exec.OIDFloat4, exec.OIDFloat8, exec.OIDNumeric, exec.OIDText, exec.OIDBpchar,
		exec.OIDDate, exec.OIDTime, exec.OIDTimestamp, exec.OIDTimestampTZ, exec.OIDInterval, exec.OIDOid, exec.OIDAnyEnum, exec.OIDAnyArray} {
		exec.RegisterAgg(
			&exec.AggFunc{Name: "min", Args: []uint32{oid}, New: func([]exec.T) exec.Accumulator { return &minMaxAcc{sign: -1} }},
			&exec.AggFunc{Name: "max", Args: []uint32{oid}, New: func([]exec.T) exec.Accumulator { return &minMaxAcc{sign: 1} }},
		)
	}
	for _, name := range []string{"bool_and", "every"} {
		exec.RegisterAgg(&exec.AggFunc{Name: name, Args: []uint32{exec.OIDBool}, Ret: exec.OIDBool, New: func([]exec.T) exec.Accumulator { return &boolAcc{and: true} }})
	}
	exec.RegisterAgg(
		&exec.AggFunc{Name: "bool_or", Args: []uint32{exec.OIDBool}, Ret: exec.OIDBool, New: func([]exec.T) exec.Accumulator { return &boolAcc{} }},
		&exec.AggFunc{Name: "string_agg", Args: []uint32{exec.OIDText, exec.OIDText}, Ret: exec.OIDText, New: func([]exec.T) exec.Accumulator { return &stringAggAcc{} }},
		&exec.AggFunc{Name: "string_agg", Args: []uint32{exec.OIDBytea, exec.OIDBytea}, Ret: exec.OIDBytea, New: func([]exec.T) exec.Accumulator { return &stringAggAcc{bytes: true} }},
	)
}

// countAcc is count(*) and count(x) (NULLs already skipped).
type countAcc struct{ n int64 }

func (a *countAcc) Add(*exec.Env, []exec.Datum) error    { a.n++; return nil }
func (a *countAcc) Result(*exec.Env) (exec.Datum, error) { return exec.DInt(a.n), nil }

// sumIntAcc is sum(int2) and sum(int4), as int8.
type sumIntAcc struct {
	sum int64
	any bool
}

func (a *sumIntAcc) Add(_ *exec.Env, args []exec.Datum) error {
	s := a.sum + args[0].I
	if (args[0].I > 0 && s < a.sum) || (args[0].I < 0 && s > a.sum) {
		return exec.IntRangeError("bigint")
	}
	a.sum, a.any = s, true
	return nil
}

func (a *sumIntAcc) Result(*exec.Env) (exec.Datum, error) {
	if !a.any {
		return exec.Null, nil
	}
	return exec.DInt(a.sum), nil
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
	exec.NumericContext.Add(s.big, s.big, apd.New(s.small, 0))
	s.small = v
}

func (s *bigSum) decimal() *apd.Decimal {
	d := apd.New(s.small, 0)
	if s.big != nil {
		exec.NumericContext.Add(d, d, s.big)
	}
	return d
}

// sumInt8Acc is sum(int8), as numeric.
type sumInt8Acc struct {
	sum bigSum
	n   int64
}

func (a *sumInt8Acc) Add(_ *exec.Env, args []exec.Datum) error {
	a.sum.add(args[0].I)
	a.n++
	return nil
}

func (a *sumInt8Acc) Result(*exec.Env) (exec.Datum, error) {
	if a.n == 0 {
		return exec.Null, nil
	}
	return exec.DNumeric(a.sum.decimal()), nil
}

var numericDiv = exec.NumericArith("/")

// avgIntAcc is avg of an integer type: the exact sum divided by the count
// as numeric division does, with its result scale.
type avgIntAcc struct {
	sum bigSum
	n   int64
}

func (a *avgIntAcc) Add(_ *exec.Env, args []exec.Datum) error {
	a.sum.add(args[0].I)
	a.n++
	return nil
}

func (a *avgIntAcc) Result(env *exec.Env) (exec.Datum, error) {
	if a.n == 0 {
		return exec.Null, nil
	}
	return numericDiv(env, []exec.Datum{exec.DNumeric(a.sum.decimal()), exec.DNumeric(apd.New(a.n, 0))})
}

// sumNumericAcc is sum(numeric), or avg(numeric) with avg set. NaN
// absorbs everything; infinities of opposite signs give NaN.
type sumNumericAcc struct {
	sum apd.Decimal
	n   int64
	avg bool
}

func (a *sumNumericAcc) Add(_ *exec.Env, args []exec.Datum) error {
	x := args[0].Numeric()
	if a.n == 0 {
		a.sum.Set(x)
	} else if x.Form == apd.NaN || a.sum.Form == apd.NaN {
		a.sum = apd.Decimal{Form: apd.NaN}
	} else if x.Form == apd.Infinite && a.sum.Form == apd.Infinite && x.Negative != a.sum.Negative {
		a.sum = apd.Decimal{Form: apd.NaN}
	} else if _, err := exec.NumericContext.Add(&a.sum, &a.sum, x); err != nil {
		return pgerr.Wrap(err, pgerr.NumericValueOutOfRange, "value overflows numeric format")
	}
	a.n++
	return nil
}

func (a *sumNumericAcc) Result(env *exec.Env) (exec.Datum, error) {
	if a.n == 0 {
		return exec.Null, nil
	}
	sum := new(apd.Decimal).Set(&a.sum)
	if !a.avg {
		return exec.DNumeric(sum), nil
	}
	if sum.Form != apd.Finite {
		return exec.DNumeric(sum), nil
	}
	return numericDiv(env, []exec.Datum{exec.DNumeric(sum), exec.DNumeric(apd.New(a.n, 0))})
}

// sumFloatAcc is sum and avg over floats. sum(float4) adds in single
// precision, as float4pl does; avg(float4) adds in double.
type sumFloatAcc struct {
	sum    float64
	n      int64
	float4 bool
	avg    bool
}

func (a *sumFloatAcc) Add(_ *exec.Env, args []exec.Datum) error {
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

func (a *sumFloatAcc) Result(*exec.Env) (exec.Datum, error) {
	if a.n == 0 {
		return exec.Null, nil
	}
	if a.avg {
		return exec.DFloat(a.sum / float64(a.n)), nil
	}
	return exec.DFloat(a.sum), nil
}

// sumIntervalAcc is sum(interval), or avg(interval) with avg set.
type sumIntervalAcc struct {
	sum exec.Interval
	n   int64
	avg bool
}

func (a *sumIntervalAcc) Add(_ *exec.Env, args []exec.Datum) error {
	iv := args[0].Interval()
	m, d, us := int64(a.sum.Months)+int64(iv.Months), int64(a.sum.Days)+int64(iv.Days), a.sum.Micros+iv.Micros
	if m != int64(int32(m)) || d != int64(int32(d)) || (iv.Micros > 0 && us < a.sum.Micros) || (iv.Micros < 0 && us > a.sum.Micros) {
		return pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
	}
	a.sum = exec.Interval{Months: int32(m), Days: int32(d), Micros: us}
	a.n++
	return nil
}

func (a *sumIntervalAcc) Result(*exec.Env) (exec.Datum, error) {
	if a.n == 0 {
		return exec.Null, nil
	}
	if !a.avg {
		return exec.DInterval(a.sum), nil
	}
	iv, err := intervalDiv(a.sum, float64(a.n))
	if err != nil {
		return exec.Null, err
	}
	return exec.DInterval(iv), nil
}

// minMaxAcc is min (sign -1) or max (sign 1).
type minMaxAcc struct {
	best exec.Datum
	sign int
}

func (a *minMaxAcc) Add(_ *exec.Env, args []exec.Datum) error {
	if a.best.IsNull() || exec.Compare(args[0], a.best)*a.sign > 0 {
		a.best = args[0]
	}
	return nil
}

func (a *minMaxAcc) Result(*exec.Env) (exec.Datum, error) { return a.best, nil }

// boolAcc is bool_and/every (and set) or bool_or.
type boolAcc struct {
	and, any, v bool
}

func (a *boolAcc) Add(_ *exec.Env, args []exec.Datum) error {
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

func (a *boolAcc) Result(*exec.Env) (exec.Datum, error) {
	if !a.any {
		return exec.Null, nil
	}
	return exec.DBool(a.v), nil
}

// stringAggAcc is string_agg(value, delimiter): each value after the
// first is preceded by its row's delimiter (none when NULL).
type stringAggAcc struct {
	b     strings.Builder
	any   bool
	bytes bool
}

func (a *stringAggAcc) Add(_ *exec.Env, args []exec.Datum) error {
	if a.any && !args[1].IsNull() {
		a.b.WriteString(args[1].S)
	}
	a.b.WriteString(args[0].S)
	a.any = true
	return nil
}

func (a *stringAggAcc) Result(*exec.Env) (exec.Datum, error) {
	if !a.any {
		return exec.Null, nil
	}
	if a.bytes {
		return exec.DBytes(a.b.String()), nil
	}
	return exec.DText(a.b.String()), nil
}
