package exec

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// CompareOp returns the function of a comparison operator over two values
// of one kind.
func CompareOp(op string) Fn {
	test := map[string]func(int) bool{
		"=":  func(c int) bool { return c == 0 },
		"<>": func(c int) bool { return c != 0 },
		"!=": func(c int) bool { return c != 0 },
		"<":  func(c int) bool { return c < 0 },
		"<=": func(c int) bool { return c <= 0 },
		">":  func(c int) bool { return c > 0 },
		">=": func(c int) bool { return c >= 0 },
	}[op]
	if test == nil {
		return nil
	}
	return func(_ *Env, a []Datum) (Datum, error) { return DBool(test(Compare(a[0], a[1]))), nil }
}

// intRange returns the bounds and the name used in errors of an int type.
func intRange(oid uint32) (lo, hi int64, name string) {
	switch oid {
	case OIDInt2:
		return math.MinInt16, math.MaxInt16, "smallint"
	case OIDInt4:
		return math.MinInt32, math.MaxInt32, "integer"
	}
	return math.MinInt64, math.MaxInt64, "bigint"
}

func errIntRange(name string) error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", name)
}

var errDivByZero = pgerr.New(pgerr.DivisionByZero, "division by zero")

// IntArith returns the function of an arithmetic operator on integers of
// type t, with PostgreSQL's overflow errors.
func IntArith(op string, t T) Fn {
	lo, hi, name := intRange(t.OID)
	check := func(v int64, overflow bool) (Datum, error) {
		if overflow || v < lo || v > hi {
			return Null, errIntRange(name)
		}
		return DInt(v), nil
	}
	switch op {
	case "+":
		return func(_ *Env, a []Datum) (Datum, error) {
			x, y := a[0].I, a[1].I
			s := x + y
			return check(s, (x > 0 && y > 0 && s < 0) || (x < 0 && y < 0 && s >= 0))
		}
	case "-":
		return func(_ *Env, a []Datum) (Datum, error) {
			x, y := a[0].I, a[1].I
			s := x - y
			return check(s, (x >= 0 && y < 0 && s < 0) || (x < 0 && y > 0 && s >= 0))
		}
	case "*":
		return func(_ *Env, a []Datum) (Datum, error) {
			x, y := a[0].I, a[1].I
			p := x * y
			return check(p, x != 0 && (p/x != y || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64)))
		}
	case "/":
		return func(_ *Env, a []Datum) (Datum, error) {
			x, y := a[0].I, a[1].I
			if y == 0 {
				return Null, errDivByZero
			}
			if y == -1 {
				return check(-x, x == math.MinInt64)
			}
			return DInt(x / y), nil
		}
	case "%":
		return func(_ *Env, a []Datum) (Datum, error) {
			x, y := a[0].I, a[1].I
			if y == 0 {
				return Null, errDivByZero
			}
			if y == -1 {
				return DInt(0), nil
			}
			return DInt(x % y), nil
		}
	}
	return nil
}

// FloatArith returns the function of an arithmetic operator on floats.
func FloatArith(op string, t T) Fn {
	check := func(r float64, a, b float64) (Datum, error) {
		if math.IsInf(r, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
			return Null, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
		}
		if t.OID == OIDFloat4 {
			r32 := float32(r)
			if math.IsInf(float64(r32), 0) && !math.IsInf(r, 0) {
				return Null, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
			}
			r = float64(r32)
		}
		return DFloat(r), nil
	}
	switch op {
	case "+":
		return func(_ *Env, a []Datum) (Datum, error) { return check(a[0].F+a[1].F, a[0].F, a[1].F) }
	case "-":
		return func(_ *Env, a []Datum) (Datum, error) { return check(a[0].F-a[1].F, a[0].F, a[1].F) }
	case "*":
		return func(_ *Env, a []Datum) (Datum, error) { return check(a[0].F*a[1].F, a[0].F, a[1].F) }
	case "/":
		return func(_ *Env, a []Datum) (Datum, error) {
			if a[1].F == 0 {
				return Null, errDivByZero
			}
			return check(a[0].F/a[1].F, a[0].F, a[1].F)
		}
	}
	return nil
}

// numericCtx is the context of numeric arithmetic: enough precision for
// PostgreSQL's 131072 digits before and 16383 after the point.
var numericCtx = apd.BaseContext.WithPrecision(1000)

// NumericArith returns the function of an arithmetic operator on numerics.
func NumericArith(op string) Fn {
	apply := map[string]func(d, x, y *apd.Decimal) (apd.Condition, error){
		"+": numericCtx.Add, "-": numericCtx.Sub, "*": numericCtx.Mul,
	}[op]
	switch op {
	case "/":
		return func(_ *Env, a []Datum) (Datum, error) {
			x, y := a[0].Numeric(), a[1].Numeric()
			if y.IsZero() {
				return Null, errDivByZero
			}
			d := new(apd.Decimal)
			if _, err := numericCtx.Quo(d, x, y); err != nil {
				return Null, pgerr.Wrap(err, pgerr.NumericValueOutOfRange, "value overflows numeric format")
			}
			// PostgreSQL keeps at least 16 significant digits and at least
			// the scale of either input.
			scale := max(int32(16)-int32(d.NumDigits())-d.Exponent, -x.Exponent, -y.Exponent, 0)
			scale = min(scale, 1000)
			if _, err := numericCtx.Quantize(d, d, -scale); err != nil {
				return Null, err
			}
			return DNumeric(d), nil
		}
	case "%":
		return func(_ *Env, a []Datum) (Datum, error) {
			if a[1].Numeric().IsZero() {
				return Null, errDivByZero
			}
			d := new(apd.Decimal)
			if _, err := numericCtx.Rem(d, a[0].Numeric(), a[1].Numeric()); err != nil {
				return Null, err
			}
			return DNumeric(d), nil
		}
	}
	if apply == nil {
		return nil
	}
	return func(_ *Env, a []Datum) (Datum, error) {
		d := new(apd.Decimal)
		if _, err := apply(d, a[0].Numeric(), a[1].Numeric()); err != nil {
			return Null, pgerr.Wrap(err, pgerr.NumericValueOutOfRange, "value overflows numeric format")
		}
		return DNumeric(d), nil
	}
}

// Negate returns unary minus for a numeric kind.
func Negate(t T) Fn {
	switch KindOf(t.OID) {
	case KindInt:
		lo, _, name := intRange(t.OID)
		return func(_ *Env, a []Datum) (Datum, error) {
			if a[0].I == lo {
				return Null, errIntRange(name)
			}
			return DInt(-a[0].I), nil
		}
	case KindFloat:
		return func(_ *Env, a []Datum) (Datum, error) { return DFloat(-a[0].F), nil }
	case KindNumeric:
		return func(_ *Env, a []Datum) (Datum, error) {
			d := new(apd.Decimal)
			d.Neg(a[0].Numeric())
			return DNumeric(d), nil
		}
	}
	return nil
}

// Concat is text || text.
func Concat(_ *Env, a []Datum) (Datum, error) { return DText(a[0].S + a[1].S), nil }

// Scalar functions over text.
var textFuncs = map[string]Fn{
	"lower": func(_ *Env, a []Datum) (Datum, error) { return DText(strings.ToLower(a[0].S)), nil },
	"upper": func(_ *Env, a []Datum) (Datum, error) { return DText(strings.ToUpper(a[0].S)), nil },
	"length": func(_ *Env, a []Datum) (Datum, error) {
		return DInt(int64(utf8.RuneCountInString(a[0].S))), nil
	},
}

// TextFunc returns a text function by name.
func TextFunc(name string) Fn { return textFuncs[name] }
