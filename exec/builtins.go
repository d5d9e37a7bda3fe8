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

// IntRange returns the bounds and the name used in errors of an int type.
func IntRange(oid uint32) (lo, hi int64, name string) {
	switch oid {
	case OIDInt2:
		return math.MinInt16, math.MaxInt16, "smallint"
	case OIDInt4:
		return math.MinInt32, math.MaxInt32, "integer"
	}
	return math.MinInt64, math.MaxInt64, "bigint"
}

// IntRangeError is the error of a value out of the range of the integer
// type named name (IntRange gives the name).
func IntRangeError(name string) error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", name)
}

// ErrDivisionByZero is PostgreSQL's error for a division by zero.
var ErrDivisionByZero = pgerr.New(pgerr.DivisionByZero, "division by zero")

// IntArith returns the function of an arithmetic operator on integers of
// type t, with PostgreSQL's overflow errors.
func IntArith(op string, t T) Fn {
	lo, hi, name := IntRange(t.OID)
	check := func(v int64, overflow bool) (Datum, error) {
		if overflow || v < lo || v > hi {
			return Null, IntRangeError(name)
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
				return Null, ErrDivisionByZero
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
				return Null, ErrDivisionByZero
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
			if a[1].F == 0 && !math.IsNaN(a[0].F) {
				return Null, ErrDivisionByZero
			}
			return check(a[0].F/a[1].F, a[0].F, a[1].F)
		}
	}
	return nil
}

// NumericContext is the context of numeric arithmetic: enough precision for
// PostgreSQL's 131072 digits before and 16383 after the point.
var NumericContext = apd.BaseContext.WithPrecision(1000)

// NumericArith returns the function of an arithmetic operator on numerics.
func NumericArith(op string) Fn {
	apply := map[string]func(d, x, y *apd.Decimal) (apd.Condition, error){
		"+": NumericContext.Add, "-": NumericContext.Sub, "*": NumericContext.Mul,
	}[op]
	switch op {
	case "/":
		return func(_ *Env, a []Datum) (Datum, error) {
			x, y := a[0].Numeric(), a[1].Numeric()
			if r, ok, err := NumericSpecial("/", x, y); ok {
				if err != nil {
					return Null, err
				}
				return DNumeric(r), nil
			}
			if y.IsZero() {
				return Null, ErrDivisionByZero
			}
			d := new(apd.Decimal)
			if _, err := NumericContext.Quo(d, x, y); err != nil {
				return Null, pgerr.Wrap(err, pgerr.NumericValueOutOfRange, "value overflows numeric format")
			}
			scale := NumericDivScale(x, y)
			if _, err := NumericContext.Quantize(d, d, -scale); err != nil {
				return Null, err
			}
			return DNumeric(d), nil
		}
	case "%":
		return func(_ *Env, a []Datum) (Datum, error) {
			if r, ok, err := NumericSpecial("%", a[0].Numeric(), a[1].Numeric()); ok {
				if err != nil {
					return Null, err
				}
				return DNumeric(r), nil
			}
			if a[1].Numeric().IsZero() {
				return Null, ErrDivisionByZero
			}
			d := new(apd.Decimal)
			if _, err := NumericContext.Rem(d, a[0].Numeric(), a[1].Numeric()); err != nil {
				return Null, err
			}
			return DNumeric(d), nil
		}
	}
	if apply == nil {
		return nil
	}
	mul := op == "*"
	return func(_ *Env, a []Datum) (Datum, error) {
		x, y := a[0].Numeric(), a[1].Numeric()
		if r, ok, err := NumericSpecial(op, x, y); ok {
			if err != nil {
				return Null, err
			}
			return DNumeric(r), nil
		}
		d := new(apd.Decimal)
		ctx := NumericContext
		// PostgreSQL's + - * are exact: give the context every digit the
		// result can have.
		if p := exactDigits(x, y, mul); p > ctx.Precision {
			ctx = apd.BaseContext.WithPrecision(p)
		}
		var err error
		switch op {
		case "+":
			_, err = ctx.Add(d, x, y)
		case "-":
			_, err = ctx.Sub(d, x, y)
		default:
			_, err = ctx.Mul(d, x, y)
		}
		if err != nil {
			return Null, pgerr.Wrap(err, pgerr.NumericValueOutOfRange, "value overflows numeric format")
		}
		if mul && d.Form == apd.Finite && d.Exponent < -numericDscaleMax {
			// A product keeps at most NUMERIC_DSCALE_MAX digits after
			// the point, rounded from the exact one.
			d = RoundNumeric(d, numericDscaleMax, false)
		}
		return DNumeric(d), nil
	}
}

// numericDscaleMax is NUMERIC_DSCALE_MAX.
const numericDscaleMax = 0x3FFF

// exactDigits is the precision at which x op y (+, - or *) is exact.
func exactDigits(x, y *apd.Decimal, mul bool) uint32 {
	if x.Form != apd.Finite || y.Form != apd.Finite {
		return 0
	}
	if mul {
		return uint32(x.NumDigits()+y.NumDigits()) + 1
	}
	hi := max(int64(x.NumDigits())+int64(x.Exponent), int64(y.NumDigits())+int64(y.Exponent))
	lo := min(int64(x.Exponent), int64(y.Exponent))
	return uint32(hi-lo) + 2
}

// NumericDivScale is the scale PostgreSQL gives x / y (select_div_scale): enough
// for 16 significant digits, judged by the operands' leading base-10000
// digits, and at least either operand's scale, at most 1000.
func NumericDivScale(x, y *apd.Decimal) int32 {
	w1, f1 := NumericWeight(x)
	w2, f2 := NumericWeight(y)
	qweight := w1 - w2
	if f1 <= f2 {
		qweight--
	}
	scale := 16 - qweight*4
	scale = max(scale, -x.Exponent, -y.Exponent, 0)
	return min(scale, 1000)
}

// NumericWeight returns the weight of d's leading base-10000 digit (d is about
// 10000^weight) and that digit, as PostgreSQL's numeric stores them.
func NumericWeight(d *apd.Decimal) (weight int32, first int64) {
	if d.IsZero() {
		return 0, 0
	}
	digits := d.Coeff.String()
	msd := int32(len(digits)) - 1 + d.Exponent // d ≈ 10^msd
	weight = msd / 4
	if msd < 0 && msd%4 != 0 {
		weight--
	}
	n := int(msd - 4*weight + 1) // decimal digits in the leading group
	for i := 0; i < n; i++ {
		first *= 10
		if i < len(digits) {
			first += int64(digits[i] - '0')
		}
	}
	return weight, first
}

// Negate returns unary minus for a numeric kind.
func Negate(t T) Fn {
	switch KindOf(t.OID) {
	case KindInt:
		lo, _, name := IntRange(t.OID)
		return func(_ *Env, a []Datum) (Datum, error) {
			if a[0].I == lo {
				return Null, IntRangeError(name)
			}
			return DInt(-a[0].I), nil
		}
	case KindFloat:
		return func(_ *Env, a []Datum) (Datum, error) { return DFloat(-a[0].F), nil }
	case KindNumeric:
		return func(_ *Env, a []Datum) (Datum, error) {
			d := new(apd.Decimal)
			d.Neg(a[0].Numeric())
			if d.Form == apd.Finite && d.IsZero() {
				d.Negative = false // numeric has no negative zero
			}
			return DNumeric(d), nil
		}
	}
	return nil
}

func init() {
	for _, t := range []T{TInt2, TInt4, TInt8} {
		for _, op := range []string{"+", "-", "*", "/", "%"} {
			Register(&Func{Name: op, Args: []uint32{t.OID, t.OID}, Ret: t.OID, Strict: true, Immutable: true, Fn: IntArith(op, t)})
		}
		Register(&Func{Name: "-", Args: []uint32{t.OID}, Ret: t.OID, Strict: true, Immutable: true, Fn: Negate(t)})
	}
	for _, t := range []T{TFloat4, TFloat8} {
		for _, op := range []string{"+", "-", "*", "/"} {
			Register(&Func{Name: op, Args: []uint32{t.OID, t.OID}, Ret: t.OID, Strict: true, Immutable: true, Fn: FloatArith(op, t)})
		}
		Register(&Func{Name: "-", Args: []uint32{t.OID}, Ret: t.OID, Strict: true, Immutable: true, Fn: Negate(t)})
	}
	for _, op := range []string{"+", "-", "*", "/", "%"} {
		Register(&Func{Name: op, Args: []uint32{OIDNumeric, OIDNumeric}, Ret: OIDNumeric, Strict: true, Immutable: true, Fn: NumericArith(op)})
	}
	Register(&Func{Name: "-", Args: []uint32{OIDNumeric}, Ret: OIDNumeric, Strict: true, Immutable: true, Fn: Negate(TNumeric)})
	for name, fn := range textFuncs {
		ret := OIDText
		if name == "length" {
			ret = OIDInt4
		}
		Register(&Func{Name: name, Args: []uint32{OIDText}, Ret: ret, Strict: true, Immutable: true, Fn: fn})
	}
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

// RoundNumeric returns d rounded half away from zero (or truncated) to scale
// digits after the point; a negative scale rounds to tens, hundreds, ...
// The result's display scale is max(scale, 0).
func RoundNumeric(d *apd.Decimal, scale int32, trunc bool) *apd.Decimal {
	out := new(apd.Decimal).Set(d)
	if d.Form != apd.Finite {
		return out
	}
	if out.Exponent < -scale {
		var div, q, r apd.BigInt
		div.Exp(apd.NewBigInt(10), apd.NewBigInt(int64(-scale-out.Exponent)), nil)
		q.QuoRem(&out.Coeff, &div, &r)
		if !trunc {
			r.Add(&r, &r)
			if r.CmpAbs(&div) >= 0 {
				q.Add(&q, apd.NewBigInt(1))
			}
		}
		out.Coeff.Set(&q)
		out.Exponent = -scale
	}
	want := -max(scale, 0)
	if out.Exponent > want {
		var p apd.BigInt
		p.Exp(apd.NewBigInt(10), apd.NewBigInt(int64(out.Exponent-want)), nil)
		out.Coeff.Mul(&out.Coeff, &p)
		out.Exponent = want
	}
	if out.Coeff.Sign() == 0 {
		out.Negative = false
	}
	return out
}

// NumericSpecial is PostgreSQL's arithmetic on NaN and ±Infinity (op one
// of + - * / % and "div"); handled is false when both operands are finite.
func NumericSpecial(op string, x, y *apd.Decimal) (r *apd.Decimal, handled bool, err error) {
	if x.Form == apd.Finite && y.Form == apd.Finite {
		return nil, false, nil
	}
	nan := NumericNaN()
	if x.Form == apd.NaN || y.Form == apd.NaN {
		return nan, true, nil
	}
	inf := func(neg bool) *apd.Decimal { return NumericInf(neg) }
	sign := func(d *apd.Decimal) int {
		switch {
		case d.Form == apd.Finite && d.IsZero():
			return 0
		case d.Negative:
			return -1
		}
		return 1
	}
	xi, yi := x.Form == apd.Infinite, y.Form == apd.Infinite
	switch op {
	case "+":
		switch {
		case xi && yi && x.Negative != y.Negative:
			return nan, true, nil
		case xi:
			return x, true, nil
		}
		return y, true, nil
	case "-":
		switch {
		case xi && yi && x.Negative == y.Negative:
			return nan, true, nil
		case xi:
			return x, true, nil
		}
		return inf(!y.Negative), true, nil
	case "*":
		if sign(x) == 0 || sign(y) == 0 {
			return nan, true, nil
		}
		return inf(sign(x)*sign(y) < 0), true, nil
	case "/", "div":
		switch {
		case xi && yi:
			return nan, true, nil
		case xi:
			if sign(y) == 0 {
				return nil, true, ErrDivisionByZero
			}
			return inf(sign(x)*sign(y) < 0), true, nil
		}
		return apd.New(0, 0), true, nil
	case "%":
		switch {
		case xi:
			if sign(y) == 0 {
				return nil, true, ErrDivisionByZero
			}
			return nan, true, nil
		}
		return x, true, nil
	}
	return nil, false, nil
}

// NumericInf is numeric's Infinity, or -Infinity when neg.
func NumericInf(neg bool) *apd.Decimal { return &apd.Decimal{Form: apd.Infinite, Negative: neg} }

// NumericNaN is numeric's NaN.
func NumericNaN() *apd.Decimal { return &apd.Decimal{Form: apd.NaN} }
