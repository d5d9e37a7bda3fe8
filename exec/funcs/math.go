package funcs

import (
	"math"
	"math/bits"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// The mathematical functions and operators of PostgreSQL's int.c, int8.c,
// float.c and numeric.c: absolute values, rounding, powers, roots,
// logarithms, trigonometry, bit operations, gcd/lcm, width_bucket, with
// PostgreSQL's result scales for numerics and its errors.

const (
	numMinSigDigits   = 16   // NUMERIC_MIN_SIG_DIGITS
	numMaxDisplay     = 1000 // NUMERIC_MAX_DISPLAY_SCALE
	numMaxResultScale = 2000 // NUMERIC_MAX_RESULT_SCALE
)

var (
	errOverflow     = pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
	errUnderflow    = pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: underflow")
	errNumOverflow  = pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")
	errLogZero      = pgerr.New(pgerr.InvalidArgumentForLog, "cannot take logarithm of zero")
	errLogNegative  = pgerr.New(pgerr.InvalidArgumentForLog, "cannot take logarithm of a negative number")
	errSqrtNegative = pgerr.New(pgerr.InvalidArgumentForPower, "cannot take square root of a negative number")
	errZeroNegPower = pgerr.New(pgerr.InvalidArgumentForPower, "zero raised to a negative power is undefined")
	errComplexPower = pgerr.New(pgerr.InvalidArgumentForPower, "a negative number raised to a non-integer power yields a complex result")
	errInputRange   = pgerr.New(pgerr.NumericValueOutOfRange, "input is out of range")
)

// numScale is a numeric's display scale.
func numScale(d *apd.Decimal) int32 {
	if d.Form != apd.Finite || d.Exponent > 0 {
		return 0
	}
	return -d.Exponent
}

// numCtx is a context of enough precision for a result of about 10^weight
// with scale digits after the point.
func numCtx(weight, scale int32) *apd.Context {
	// Guard digits keep the final rounding to scale from rounding twice
	// (sqrt(1.000000000000003) is 1.0000000000000014999..., not ...15).
	p := weight + scale + 40
	if p < 50 {
		p = 50
	}
	c := apd.BaseContext.WithPrecision(uint32(p))
	c.MaxExponent, c.MinExponent = 1_000_000, -1_000_000
	return c
}

// clampScale applies PostgreSQL's bounds to a result scale.
func clampScale(r int32, ins ...*apd.Decimal) int32 {
	for _, d := range ins {
		r = max(r, numScale(d))
	}
	return min(max(r, 0), numMaxDisplay)
}

// decWeight is the decimal exponent of d's leading digit (d ≈ 10^w).
func decWeight(d *apd.Decimal) int32 {
	return int32(d.NumDigits()) - 1 + d.Exponent
}

// estimateLnWeight is PostgreSQL's estimate_ln_dweight: the decimal weight
// of ln(d), which decides the scale of logarithms.
func estimateLnWeight(d *apd.Decimal) int32 {
	if d.Negative || d.IsZero() {
		return 0
	}
	lo, hi := apd.New(9, -1), apd.New(11, -1)
	if d.Cmp(lo) >= 0 && d.Cmp(hi) <= 0 {
		x := new(apd.Decimal)
		exec.NumericContext.Sub(x, d, apd.New(1, 0))
		if x.IsZero() {
			return 0
		}
		return decWeight(x)
	}
	// ln(d) from its leading base-10000 digits, as PostgreSQL estimates.
	w, _ := exec.NumericWeight(d)
	digits := d.Coeff.String()
	msd := int32(len(digits)) - 1 + d.Exponent
	n := int(msd - 4*w + 1)
	lead := float64(0)
	dweight := w * 4
	for i := 0; i < n+4; i++ {
		lead *= 10
		if i < len(digits) {
			lead += float64(digits[i] - '0')
		}
	}
	dweight -= 4
	lnv := math.Log(lead) + float64(dweight)*math.Ln10
	return int32(math.Log10(math.Abs(lnv)))
}

func numFloat(d *apd.Decimal) float64 {
	f, _ := d.Float64()
	return f
}

// numSqrt is sqrt(numeric).
func numSqrt(x *apd.Decimal) (*apd.Decimal, error) {
	if x.Form == apd.NaN {
		return x, nil
	}
	if x.Negative && !x.IsZero() {
		return nil, errSqrtNegative
	}
	if x.Form == apd.Infinite {
		return x, nil
	}
	w, _ := exec.NumericWeight(x)
	sweight := (w+1)*4/2 - 1
	rscale := clampScale(numMinSigDigits-sweight, x)
	d := new(apd.Decimal)
	if _, err := numCtx(decWeight(x)/2+1, rscale).Sqrt(d, x); err != nil {
		return nil, err
	}
	return exec.RoundNumeric(d, rscale, false), nil
}

// numLn is ln(numeric), with scale digits after the point.
func numLn(x *apd.Decimal, scale int32) (*apd.Decimal, error) {
	d := new(apd.Decimal)
	if _, err := numCtx(8, scale+8).Ln(d, x); err != nil {
		return nil, err
	}
	return exec.RoundNumeric(d, scale, false), nil
}

func checkLogArg(x *apd.Decimal) error {
	switch {
	case x.Form == apd.Finite && x.IsZero():
		return errLogZero
	case x.Negative:
		return errLogNegative
	}
	return nil
}

// numLog is log(base, x) over numerics.
func numLog(base, x *apd.Decimal) (*apd.Decimal, error) {
	if base.Form == apd.NaN || x.Form == apd.NaN {
		return exec.NumericNaN(), nil
	}
	if err := checkLogArg(base); err != nil {
		return nil, err
	}
	if err := checkLogArg(x); err != nil {
		return nil, err
	}
	if base.Form == apd.Infinite || x.Form == apd.Infinite {
		switch {
		case base.Form == apd.Infinite && x.Form == apd.Infinite:
			return exec.NumericNaN(), nil
		case x.Form == apd.Infinite:
			return x, nil
		}
		return apd.New(0, 0), nil
	}
	rscale := clampScale(numMinSigDigits-(estimateLnWeight(x)-estimateLnWeight(base)), base, x)
	c := numCtx(8, rscale+8)
	lb, lx := new(apd.Decimal), new(apd.Decimal)
	if _, err := c.Ln(lb, base); err != nil {
		return nil, err
	}
	if _, err := c.Ln(lx, x); err != nil {
		return nil, err
	}
	if lb.IsZero() {
		return nil, exec.ErrDivisionByZero
	}
	d := new(apd.Decimal)
	if _, err := c.Quo(d, lx, lb); err != nil {
		return nil, err
	}
	return exec.RoundNumeric(d, rscale, false), nil
}

// numExp is exp(numeric).
func numExp(x *apd.Decimal) (*apd.Decimal, error) {
	switch x.Form {
	case apd.NaN:
		return x, nil
	case apd.Infinite:
		if x.Negative {
			return apd.New(0, 0), nil
		}
		return x, nil
	}
	val := numFloat(x) * 0.434294481903252
	val = max(min(val, numMaxResultScale), -numMaxResultScale)
	if val > 131072 {
		return nil, errNumOverflow
	}
	rscale := clampScale(numMinSigDigits-int32(val), x)
	d := new(apd.Decimal)
	if _, err := numCtx(int32(max(val, 0)), rscale).Exp(d, x); err != nil {
		return nil, errNumOverflow
	}
	return exec.RoundNumeric(d, rscale, false), nil
}

// numPower is numeric ^ numeric.
func numPower(b, e *apd.Decimal) (*apd.Decimal, error) {
	one := apd.New(1, 0)
	if b.Form == apd.NaN {
		if e.Form == apd.Finite && e.IsZero() {
			return apd.New(1, 0), nil
		}
		return b, nil
	}
	if e.Form == apd.NaN {
		if b.Cmp(one) == 0 {
			return apd.New(1, 0), nil
		}
		return e, nil
	}
	if b.Form == apd.Finite && b.IsZero() && e.Negative {
		return nil, errZeroNegPower
	}
	eInt := e.Form == apd.Finite && isIntegral(e)
	if b.Negative && b.Form == apd.Finite && e.Form == apd.Finite && !eInt {
		return nil, errComplexPower
	}
	if b.Form == apd.Infinite || e.Form == apd.Infinite {
		return infPower(b, e, eInt)
	}
	if eInt {
		ev, err := e.Int64()
		if err == nil && ev >= math.MinInt32 && ev <= math.MaxInt32 {
			return numPowerInt(b, ev, numScale(e))
		}
	}
	// exp(e * ln(b)), with the scale PostgreSQL's power_var chooses.
	if b.IsZero() {
		return exec.RoundNumeric(apd.New(0, 0), numMinSigDigits, false), nil
	}
	// val ≈ e·ln(b), with ln(b) computed in numeric to the digits its
	// weight needs, as power_var does: a base next to 1 has a logarithm
	// far below float8's reach.
	lnb := new(apd.Decimal)
	lw := estimateLnWeight(b)
	lc := numCtx(lw, max(8-lw, 0))
	lc.Precision = max(lc.Precision, uint32(b.NumDigits())+20) // every digit of b counts
	if _, err := lc.Ln(lnb, new(apd.Decimal).Abs(b)); err != nil {
		return nil, errNumOverflow
	}
	prod := new(apd.Decimal)
	numCtx(lw+decWeight(e), 8).Mul(prod, lnb, e)
	val := numFloat(prod)
	if math.Abs(val) > numMaxResultScale*3.01 {
		if val > 0 {
			return nil, errNumOverflow
		}
		return exec.RoundNumeric(apd.New(0, 0), numMaxDisplay, false), nil
	}
	val *= 0.434294481903252
	rscale := clampScale(numMinSigDigits-int32(val), b, e)
	d := new(apd.Decimal)
	pc := numCtx(int32(max(val, 0)), rscale)
	pc.Precision = max(pc.Precision, uint32(b.NumDigits()+e.NumDigits())+20)
	if _, err := pc.Pow(d, b, e); err != nil {
		return nil, errNumOverflow
	}
	return exec.RoundNumeric(d, rscale, false), nil
}

// numPowerInt is PostgreSQL 15's power_var_int: b ^ n for an integer n,
// to max(16, scale of b) digits after the point.
func numPowerInt(b *apd.Decimal, n int64, _ int32) (*apd.Decimal, error) {
	rscale := clampScale(numMinSigDigits, b)
	switch {
	case n == 0:
		return exec.RoundNumeric(apd.New(1, 0), rscale, false), nil
	case b.IsZero():
		return exec.RoundNumeric(apd.New(0, 0), rscale, false), nil
	}
	f := float64(n) * math.Log10(math.Abs(numFloat(b)))
	if f > 3*32767*4 {
		return nil, errNumOverflow
	}
	if f+1 < float64(-rscale) || f+1 < -numMaxDisplay {
		return exec.RoundNumeric(apd.New(0, 0), rscale, false), nil
	}
	d := new(apd.Decimal)
	c := numCtx(int32(max(f, 0))+1, rscale)
	if n > 0 {
		// Exact: the digits of b^n, then rounded.
		c = apd.BaseContext.WithPrecision(uint32(int64(b.NumDigits())*n + 10))
		c.MaxExponent, c.MinExponent = 10_000_000, -10_000_000
	}
	if _, err := c.Pow(d, b, apd.New(n, 0)); err != nil {
		return nil, errNumOverflow
	}
	return exec.RoundNumeric(d, rscale, false), nil
}

// infPower is PostgreSQL 14's numeric power with an infinite operand.
func infPower(b, e *apd.Decimal, eInt bool) (*apd.Decimal, error) {
	one := apd.New(1, 0)
	inf := &apd.Decimal{Form: apd.Infinite}
	zero := apd.New(0, 0)
	if b.Form == apd.Finite && b.Cmp(one) == 0 {
		return apd.New(1, 0), nil
	}
	if e.Form == apd.Finite && e.IsZero() {
		return apd.New(1, 0), nil
	}
	if e.Form == apd.Infinite {
		if b.Form == apd.Finite && b.IsZero() && e.Negative {
			return nil, errZeroNegPower
		}
		abs := new(apd.Decimal).Abs(b)
		c := abs.Cmp(one)
		if b.Form == apd.Infinite {
			c = 1
		}
		switch {
		case c == 0:
			return apd.New(1, 0), nil
		case (c > 0) != e.Negative:
			return inf, nil
		}
		return zero, nil
	}
	// b is ±Infinity, e finite.
	if e.Negative {
		return zero, nil
	}
	if b.Negative {
		if !eInt {
			return nil, errComplexPower
		}
		odd := new(apd.Decimal)
		exec.NumericContext.Rem(odd, e, apd.New(2, 0))
		if !odd.IsZero() {
			return &apd.Decimal{Form: apd.Infinite, Negative: true}, nil
		}
	}
	return inf, nil
}

func isIntegral(d *apd.Decimal) bool {
	if d.Exponent >= 0 {
		return true
	}
	r := new(apd.Decimal)
	exec.NumericContext.Rem(r, d, apd.New(1, 0))
	return r.IsZero()
}

// floatPower is float8 ^ float8 (PostgreSQL's dpow).
func floatPower(x, y float64) (float64, error) {
	if math.IsNaN(x) {
		if y == 0 {
			return 1, nil
		}
		return x, nil
	}
	if math.IsNaN(y) {
		if x == 1 {
			return 1, nil
		}
		return y, nil
	}
	if x == 0 && y < 0 {
		return 0, errZeroNegPower
	}
	if x < 0 && math.Floor(y) != y && !math.IsInf(y, 0) {
		return 0, errComplexPower
	}
	r := math.Pow(x, y)
	if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return 0, errOverflow
	}
	if r == 0 && x != 0 && !math.IsInf(y, 0) && !math.IsInf(x, 0) {
		return 0, errUnderflow
	}
	return r, nil
}

// checkFloat is PostgreSQL's float_overflow_error/underflow checks on a
// result computed from finite inputs.
func checkFloat(r float64, inf, zero bool) (exec.Datum, error) {
	if math.IsInf(r, 0) && !inf {
		return exec.Null, errOverflow
	}
	if r == 0 && !zero {
		return exec.Null, errUnderflow
	}
	return exec.DFloat(r), nil
}

// Trigonometry in degrees gives exact results at the angles where they are
// exact (sind(30) is 0.5), as PostgreSQL arranges.
func sind(x float64) (float64, error) {
	if math.IsNaN(x) {
		return x, nil
	}
	if math.IsInf(x, 0) {
		return 0, errInputRange
	}
	x = math.Mod(x, 360)
	sign := 1.0
	if x < 0 {
		x, sign = -x, -1
	}
	if x > 180 {
		x, sign = x-180, -sign
	}
	if x > 90 {
		x = 180 - x
	}
	switch x {
	case 0:
		return 0 * sign, nil
	case 30:
		return 0.5 * sign, nil
	case 90:
		return sign, nil
	}
	return sign * math.Sin(x*math.Pi/180), nil
}

func cosd(x float64) (float64, error) {
	if math.IsNaN(x) {
		return x, nil
	}
	if math.IsInf(x, 0) {
		return 0, errInputRange
	}
	x = math.Mod(math.Abs(x), 360)
	if x > 180 {
		x = 360 - x
	}
	sign := 1.0
	if x > 90 {
		x, sign = 180-x, -1
	}
	switch x {
	case 0:
		return sign, nil
	case 60:
		return 0.5 * sign, nil
	case 90:
		return 0, nil
	}
	return sign * math.Cos(x*math.Pi/180), nil
}

func tand(x float64) (float64, error) {
	if math.IsNaN(x) {
		return x, nil
	}
	if math.IsInf(x, 0) {
		return 0, errInputRange
	}
	x = math.Mod(x, 360)
	sign := 1.0
	if x < 0 {
		x, sign = -x, -1
	}
	if x > 180 {
		x -= 180
	}
	if x > 90 {
		x, sign = 180-x, -sign
	}
	switch x {
	case 0:
		return 0 * sign, nil
	case 45:
		return sign, nil
	case 90:
		return math.Inf(int(sign)), nil
	}
	return sign * math.Tan(x*math.Pi/180), nil
}

func asindeg(x float64) (float64, error) {
	if math.IsNaN(x) {
		return x, nil
	}
	if x < -1 || x > 1 {
		return 0, errInputRange
	}
	switch x {
	case 0.5:
		return 30, nil
	case -0.5:
		return -30, nil
	case 1:
		return 90, nil
	case -1:
		return -90, nil
	}
	return math.Asin(x) * 180 / math.Pi, nil
}

func acosdeg(x float64) (float64, error) {
	if math.IsNaN(x) {
		return x, nil
	}
	if x < -1 || x > 1 {
		return 0, errInputRange
	}
	switch x {
	case 0.5:
		return 60, nil
	case -0.5:
		return 120, nil
	case 1:
		return 0, nil
	case -1:
		return 180, nil
	case 0:
		return 90, nil
	}
	return math.Acos(x) * 180 / math.Pi, nil
}

func atandeg(x float64) float64 {
	switch x {
	case 1:
		return 45
	case -1:
		return -45
	case 0:
		return x
	}
	if math.IsInf(x, 0) {
		return math.Copysign(90, x)
	}
	return math.Atan(x) * 180 / math.Pi
}

func gcd64(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// intGcd is gcd over an int type, with PostgreSQL's range error when the
// answer is -minimum.
func intGcd(a, b int64, lo int64, name string) (int64, error) {
	if (a == lo && (b == 0 || b == lo)) || (b == lo && a == 0) {
		return 0, exec.IntRangeError(name)
	}
	if a == lo || b == lo {
		// Keep away from negating the minimum.
		if a == lo {
			a, b = b, a
		}
		b %= a
	}
	g := gcd64(a, b)
	if g < 0 {
		g = -g
	}
	return g, nil
}

func intLcm(a, b, lo, hi int64, name string) (int64, error) {
	if a == 0 || b == 0 {
		return 0, nil
	}
	g, err := intGcd(a, b, lo, name)
	if err != nil {
		return 0, err
	}
	q := a / g
	hiP, loP := bits.Mul64(uint64(absI(q)), uint64(absI(b)))
	if hiP != 0 || loP > uint64(hi) {
		return 0, exec.IntRangeError(name)
	}
	return int64(loP), nil
}

func absI(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// numGcd is gcd over numerics, on integers.
func numGcd(a, b *apd.Decimal) *apd.Decimal {
	scale := max(numScale(a), numScale(b))
	x, y := new(apd.BigInt), new(apd.BigInt)
	x.Set(&exec.RoundNumeric(a, scale, false).Coeff)
	y.Set(&exec.RoundNumeric(b, scale, false).Coeff)
	g := new(apd.BigInt)
	for y.Sign() != 0 {
		r := new(apd.BigInt)
		r.Rem(x, y)
		x, y = y, r
	}
	g.Abs(x)
	d := apd.NewWithBigInt(g, -scale)
	return d
}

// widthBucket is width_bucket over floats.
func widthBucket(x, lo, hi float64, n int64) (exec.Datum, error) {
	if n <= 0 {
		return exec.Null, pgerr.New(pgerr.InvalidArgumentForWidthBkt, "count must be greater than zero")
	}
	if math.IsNaN(x) || math.IsNaN(lo) || math.IsNaN(hi) {
		return exec.Null, pgerr.New(pgerr.InvalidArgumentForWidthBkt, "operand, lower bound, and upper bound cannot be NaN")
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return exec.Null, pgerr.New(pgerr.InvalidArgumentForWidthBkt, "lower and upper bounds must be finite")
	}
	var r int64
	switch {
	case lo < hi:
		switch {
		case x < lo:
			r = 0
		case x >= hi:
			if n == math.MaxInt32 {
				return exec.Null, exec.IntRangeError("integer")
			}
			r = n + 1
		default:
			if !math.IsInf(hi-lo, 0) {
				r = int64(float64(n)*((x-lo)/(hi-lo))) + 1
			} else {
				r = int64(float64(n)*((x/2-lo/2)/(hi/2-lo/2))) + 1
			}
			r = min(r, n)
		}
	case lo > hi:
		switch {
		case x > lo:
			r = 0
		case x <= hi:
			if n == math.MaxInt32 {
				return exec.Null, exec.IntRangeError("integer")
			}
			r = n + 1
		default:
			if !math.IsInf(lo-hi, 0) {
				r = int64(float64(n)*((lo-x)/(lo-hi))) + 1
			} else {
				r = int64(float64(n)*((lo/2-x/2)/(lo/2-hi/2))) + 1
			}
			r = min(r, n)
		}
	default:
		return exec.Null, pgerr.New(pgerr.InvalidArgumentForWidthBkt, "lower bound cannot equal upper bound")
	}
	return exec.DInt(r), nil
}

// numWidthBucket is width_bucket over numerics.
func numWidthBucket(x, lo, hi *apd.Decimal, n int64) (exec.Datum, error) {
	if n <= 0 {
		return exec.Null, pgerr.New(pgerr.InvalidArgumentForWidthBkt, "count must be greater than zero")
	}
	if x.Form == apd.NaN || lo.Form == apd.NaN || hi.Form == apd.NaN {
		return exec.Null, pgerr.New(pgerr.InvalidArgumentForWidthBkt, "operand, lower bound, and upper bound cannot be NaN")
	}
	if lo.Form == apd.Infinite || hi.Form == apd.Infinite {
		return exec.Null, pgerr.New(pgerr.InvalidArgumentForWidthBkt, "lower and upper bounds must be finite")
	}
	c := lo.Cmp(hi)
	if c == 0 {
		return exec.Null, pgerr.New(pgerr.InvalidArgumentForWidthBkt, "lower bound cannot equal upper bound")
	}
	bucket := func(num, den *apd.Decimal) int64 {
		q := new(apd.Decimal)
		ctx := numCtx(20, 20)
		ctx.Mul(q, num, apd.New(n, 0))
		ctx.Quo(q, q, den)
		ctx.Floor(q, q)
		v, _ := q.Int64()
		return v + 1
	}
	var r int64
	if c < 0 {
		switch {
		case x.Cmp(lo) < 0:
			r = 0
		case x.Cmp(hi) >= 0:
			r = n + 1
		default:
			num, den := new(apd.Decimal), new(apd.Decimal)
			exec.NumericContext.Sub(num, x, lo)
			exec.NumericContext.Sub(den, hi, lo)
			r = bucket(num, den)
		}
	} else {
		switch {
		case x.Cmp(lo) > 0:
			r = 0
		case x.Cmp(hi) <= 0:
			r = n + 1
		default:
			num, den := new(apd.Decimal), new(apd.Decimal)
			exec.NumericContext.Sub(num, lo, x)
			exec.NumericContext.Sub(den, lo, hi)
			r = bucket(num, den)
		}
	}
	if r > math.MaxInt32 {
		return exec.Null, exec.IntRangeError("integer")
	}
	return exec.DInt(r), nil
}

// factorial is factorial(int8) as a numeric.
func factorial(n int64) (exec.Datum, error) {
	if n < 0 {
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "factorial of a negative number is undefined")
	}
	if n > 32177 {
		return exec.Null, errNumOverflow
	}
	var r apd.BigInt
	r.SetInt64(1)
	for i := int64(2); i <= n; i++ {
		r.Mul(&r, apd.NewBigInt(i))
	}
	return exec.DNumeric(apd.NewWithBigInt(&r, 0)), nil
}

// minScale is min_scale(numeric): the fewest digits after the point that
// show the value exactly.
func minScale(d *apd.Decimal) int32 {
	s := numScale(d)
	if d.IsZero() {
		return 0
	}
	digits := d.Coeff.String()
	for s > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		s--
	}
	return s
}

func registerMath() {
	ints := []exec.T{exec.TInt2, exec.TInt4, exec.TInt8}
	for _, t := range ints {
		lo, hi, name := exec.IntRange(t.OID)
		tt := []uint32{t.OID, t.OID}
		ret := t.OID
		abs := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if a[0].I == lo {
				return exec.Null, exec.IntRangeError(name)
			}
			return exec.DInt(absI(a[0].I)), nil
		}
		exec.Register(&exec.Func{Name: "abs", Args: []uint32{t.OID}, Ret: ret, Strict: true, Immutable: true, Fn: abs},
			&exec.Func{Name: "@", Args: []uint32{t.OID}, Ret: ret, Strict: true, Immutable: true, Fn: abs},
			&exec.Func{Name: "&", Args: tt, Ret: ret, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DInt(a[0].I & a[1].I), nil }},
			&exec.Func{Name: "|", Args: tt, Ret: ret, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DInt(a[0].I | a[1].I), nil }},
			&exec.Func{Name: "#", Args: tt, Ret: ret, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DInt(a[0].I ^ a[1].I), nil }},
			&exec.Func{Name: "~", Args: []uint32{t.OID}, Ret: ret, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DInt(^a[0].I), nil }},
			&exec.Func{Name: "mod", Args: tt, Ret: ret, Strict: true, Immutable: true, Fn: exec.IntArith("%", t)},
			&exec.Func{Name: "<<", Args: []uint32{t.OID, exec.OIDInt4}, Ret: ret, Strict: true, Immutable: true, Fn: intShift(t, true)},
			&exec.Func{Name: ">>", Args: []uint32{t.OID, exec.OIDInt4}, Ret: ret, Strict: true, Immutable: true, Fn: intShift(t, false)},
		)
		if t.OID != exec.OIDInt2 {
			exec.Register(&exec.Func{Name: "gcd", Args: tt, Ret: ret, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
				g, err := intGcd(a[0].I, a[1].I, lo, name)
				return exec.DInt(g), err
			}}, &exec.Func{Name: "lcm", Args: tt, Ret: ret, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
				l, err := intLcm(a[0].I, a[1].I, lo, hi, name)
				return exec.DInt(l), err
			}})
		}
	}
	f1 := []uint32{exec.OIDFloat8}
	n1 := []uint32{exec.OIDNumeric}
	nn := []uint32{exec.OIDNumeric, exec.OIDNumeric}
	fl := func(name string, fn func(float64) (float64, error)) {
		exec.Register(&exec.Func{Name: name, Args: f1, Ret: exec.OIDFloat8, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			r, err := fn(a[0].F)
			return exec.DFloat(r), err
		}})
	}
	num := func(name string, fn func(*apd.Decimal) (*apd.Decimal, error)) {
		exec.Register(&exec.Func{Name: name, Args: n1, Ret: exec.OIDNumeric, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			r, err := fn(a[0].Numeric())
			if err != nil {
				return exec.Null, err
			}
			return exec.DNumeric(r), nil
		}})
	}
	pure := func(f func(float64) float64) func(float64) (float64, error) {
		return func(x float64) (float64, error) { return f(x), nil }
	}
	for _, t := range []uint32{exec.OIDFloat4, exec.OIDFloat8} {
		abs := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DFloat(math.Abs(a[0].F)), nil }
		exec.Register(&exec.Func{Name: "abs", Args: []uint32{t}, Ret: t, Strict: true, Immutable: true, Fn: abs},
			&exec.Func{Name: "@", Args: []uint32{t}, Ret: t, Strict: true, Immutable: true, Fn: abs})
	}
	numAbs := func(x *apd.Decimal) (*apd.Decimal, error) { return new(apd.Decimal).Abs(x), nil }
	num("abs", numAbs)
	num("@", numAbs)
	fl("sign", func(x float64) (float64, error) {
		switch {
		case x > 0:
			return 1, nil
		case x < 0:
			return -1, nil
		}
		return 0, nil
	})
	num("sign", func(x *apd.Decimal) (*apd.Decimal, error) {
		switch {
		case x.Form == apd.NaN:
			return x, nil
		case x.IsZero():
			return apd.New(0, 0), nil
		case x.Negative:
			return apd.New(-1, 0), nil
		}
		return apd.New(1, 0), nil
	})
	fl("round", pure(math.RoundToEven))
	fl("trunc", pure(math.Trunc))
	fl("ceil", pure(math.Ceil))
	fl("ceiling", pure(math.Ceil))
	fl("floor", pure(math.Floor))
	num("round", func(x *apd.Decimal) (*apd.Decimal, error) { return exec.RoundNumeric(x, 0, false), nil })
	num("trunc", func(x *apd.Decimal) (*apd.Decimal, error) { return exec.RoundNumeric(x, 0, true), nil })
	ceilFloor := func(ceil bool) func(*apd.Decimal) (*apd.Decimal, error) {
		return func(x *apd.Decimal) (*apd.Decimal, error) {
			if x.Form != apd.Finite {
				return x, nil
			}
			d := new(apd.Decimal)
			if ceil {
				exec.NumericContext.Ceil(d, x)
			} else {
				exec.NumericContext.Floor(d, x)
			}
			return exec.RoundNumeric(d, 0, false), nil
		}
	}
	num("ceil", ceilFloor(true))
	num("ceiling", ceilFloor(true))
	num("floor", ceilFloor(false))
	for _, trunc := range []bool{false, true} {
		trunc := trunc
		name := "round"
		if trunc {
			name = "trunc"
		}
		exec.Register(&exec.Func{Name: name, Args: []uint32{exec.OIDNumeric, exec.OIDInt4}, Ret: exec.OIDNumeric, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			s := max(min(a[1].I, numMaxDisplay), -numMaxDisplay-1000)
			return exec.DNumeric(exec.RoundNumeric(a[0].Numeric(), int32(s), trunc)), nil
		}})
	}
	exec.Register(&exec.Func{Name: "mod", Args: nn, Ret: exec.OIDNumeric, Strict: true, Immutable: true, Fn: exec.NumericArith("%")})
	exec.Register(&exec.Func{Name: "div", Args: nn, Ret: exec.OIDNumeric, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		x, y := a[0].Numeric(), a[1].Numeric()
		if r, ok, err := exec.NumericSpecial("div", x, y); ok {
			if err != nil {
				return exec.Null, err
			}
			return exec.DNumeric(r), nil
		}
		if y.IsZero() {
			return exec.Null, exec.ErrDivisionByZero
		}
		d := new(apd.Decimal)
		if _, err := numCtx(decWeight(x)-decWeight(y)+2, 0).QuoInteger(d, x, y); err != nil {
			return exec.Null, errNumOverflow
		}
		return exec.DNumeric(exec.RoundNumeric(d, 0, true)), nil
	}})
	exec.Register(&exec.Func{Name: "numeric_inc", Args: n1, Ret: exec.OIDNumeric, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.NumericArith("+")(nil, []exec.Datum{a[0], exec.DNumeric(apd.New(1, 0))})
	}})
	exec.Register(&exec.Func{Name: "scale", Args: n1, Ret: exec.OIDInt4, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if a[0].Numeric().Form != apd.Finite {
			return exec.Null, nil
		}
		return exec.DInt(int64(numScale(a[0].Numeric()))), nil
	}})
	exec.Register(&exec.Func{Name: "min_scale", Args: n1, Ret: exec.OIDInt4, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if a[0].Numeric().Form != apd.Finite {
			return exec.Null, nil
		}
		return exec.DInt(int64(minScale(a[0].Numeric()))), nil
	}})
	num("trim_scale", func(x *apd.Decimal) (*apd.Decimal, error) {
		if x.Form != apd.Finite {
			return x, nil
		}
		return exec.RoundNumeric(x, minScale(x), false), nil
	})
	// Powers, roots, logarithms.
	ff := []uint32{exec.OIDFloat8, exec.OIDFloat8}
	fpow := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		r, err := floatPower(a[0].F, a[1].F)
		return exec.DFloat(r), err
	}
	npow := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		r, err := numPower(a[0].Numeric(), a[1].Numeric())
		if err != nil {
			return exec.Null, err
		}
		return exec.DNumeric(r), nil
	}
	for _, name := range []string{"^", "power", "pow"} {
		exec.Register(&exec.Func{Name: name, Args: ff, Ret: exec.OIDFloat8, Strict: true, Immutable: true, Fn: fpow},
			&exec.Func{Name: name, Args: nn, Ret: exec.OIDNumeric, Strict: true, Immutable: true, Fn: npow})
	}
	fsqrt := func(x float64) (float64, error) {
		if x < 0 {
			return 0, errSqrtNegative
		}
		return math.Sqrt(x), nil
	}
	fl("sqrt", fsqrt)
	fl("|/", fsqrt)
	num("sqrt", numSqrt)
	fl("cbrt", pure(cbrt))
	fl("||/", pure(cbrt))
	fl("exp", func(x float64) (float64, error) {
		r := math.Exp(x)
		if math.IsInf(r, 0) && !math.IsInf(x, 0) {
			return 0, errOverflow
		}
		if r == 0 && !math.IsInf(x, 0) {
			return 0, errUnderflow
		}
		return r, nil
	})
	num("exp", numExp)
	flog := func(f func(float64) float64) func(float64) (float64, error) {
		return func(x float64) (float64, error) {
			switch {
			case x == 0:
				return 0, errLogZero
			case x < 0:
				return 0, errLogNegative
			}
			return f(x), nil
		}
	}
	fl("ln", flog(math.Log))
	fl("log", flog(math.Log10))
	fl("log10", flog(math.Log10))
	num("ln", func(x *apd.Decimal) (*apd.Decimal, error) {
		if x.Form == apd.NaN {
			return x, nil
		}
		if err := checkLogArg(x); err != nil {
			return nil, err
		}
		if x.Form == apd.Infinite {
			return x, nil
		}
		return numLn(x, clampScale(numMinSigDigits-estimateLnWeight(x), x))
	})
	ten := apd.New(10, 0)
	num("log", func(x *apd.Decimal) (*apd.Decimal, error) { return numLog(ten, x) })
	num("log10", func(x *apd.Decimal) (*apd.Decimal, error) { return numLog(ten, x) })
	exec.Register(&exec.Func{Name: "log", Args: nn, Ret: exec.OIDNumeric, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		r, err := numLog(a[0].Numeric(), a[1].Numeric())
		if err != nil {
			return exec.Null, err
		}
		return exec.DNumeric(r), nil
	}})
	exec.Register(&exec.Func{Name: "pi", Ret: exec.OIDFloat8, Fn: func(*exec.Env, []exec.Datum) (exec.Datum, error) { return exec.DFloat(math.Pi), nil }})
	fl("degrees", pure(func(x float64) float64 { return x * (180 / math.Pi) }))
	fl("radians", pure(func(x float64) float64 { return x * (math.Pi / 180) }))
	inRange := func(f func(float64) float64, lo, hi float64) func(float64) (float64, error) {
		return func(x float64) (float64, error) {
			if math.IsNaN(x) {
				return x, nil
			}
			if x < lo || x > hi {
				return 0, errInputRange
			}
			return f(x), nil
		}
	}
	finite := func(f func(float64) float64) func(float64) (float64, error) {
		return func(x float64) (float64, error) {
			if math.IsInf(x, 0) {
				return 0, errInputRange
			}
			return f(x), nil
		}
	}
	fl("sin", finite(math.Sin))
	fl("cos", finite(math.Cos))
	fl("tan", finite(math.Tan))
	fl("cot", finite(func(x float64) float64 { return 1 / math.Tan(x) }))
	fl("asin", inRange(math.Asin, -1, 1))
	fl("acos", inRange(math.Acos, -1, 1))
	fl("atan", pure(math.Atan))
	fl("sinh", pure(math.Sinh))
	fl("cosh", pure(math.Cosh))
	fl("tanh", pure(math.Tanh))
	fl("asinh", pure(math.Asinh))
	fl("acosh", inRange(math.Acosh, 1, math.Inf(1)))
	fl("atanh", inRange(math.Atanh, -1, 1))
	fl("sind", sind)
	fl("cosd", cosd)
	fl("tand", tand)
	fl("cotd", func(x float64) (float64, error) {
		t, err := tand(x)
		if err != nil || math.IsNaN(t) {
			return t, err
		}
		r := 1 / t
		if r == 0 {
			r = 0 // cotd(90) is 0, not -0
		}
		return r, nil
	})
	fl("asind", asindeg)
	fl("acosd", acosdeg)
	fl("atand", pure(atandeg))
	exec.Register(&exec.Func{Name: "atan2", Args: ff, Ret: exec.OIDFloat8, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DFloat(math.Atan2(a[0].F, a[1].F)), nil
	}}, &exec.Func{Name: "atan2d", Args: ff, Ret: exec.OIDFloat8, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		y, x := a[0].F, a[1].F
		switch {
		case x > 0 && y == x:
			return exec.DFloat(45), nil
		case x == 0 && y > 0:
			return exec.DFloat(90), nil
		case x == 0 && y < 0:
			return exec.DFloat(-90), nil
		case y == 0 && x < 0:
			return exec.DFloat(180), nil
		}
		return exec.DFloat(math.Atan2(y, x) * 180 / math.Pi), nil
	}})
	exec.Register(&exec.Func{Name: "width_bucket", Args: []uint32{exec.OIDFloat8, exec.OIDFloat8, exec.OIDFloat8, exec.OIDInt4}, Ret: exec.OIDInt4, Strict: true,
		Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return widthBucket(a[0].F, a[1].F, a[2].F, a[3].I)
		}},
		&exec.Func{Name: "width_bucket", Args: []uint32{exec.OIDNumeric, exec.OIDNumeric, exec.OIDNumeric, exec.OIDInt4}, Ret: exec.OIDInt4, Strict: true,
			Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
				return numWidthBucket(a[0].Numeric(), a[1].Numeric(), a[2].Numeric(), a[3].I)
			}})
	exec.Register(&exec.Func{Name: "gcd", Args: nn, Ret: exec.OIDNumeric, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		x, y := a[0].Numeric(), a[1].Numeric()
		if x.Form != apd.Finite || y.Form != apd.Finite {
			return exec.DNumeric(exec.NumericNaN()), nil
		}
		return exec.DNumeric(numGcd(x, y)), nil
	}}, &exec.Func{Name: "lcm", Args: nn, Ret: exec.OIDNumeric, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		x, y := a[0].Numeric(), a[1].Numeric()
		if x.Form != apd.Finite || y.Form != apd.Finite {
			return exec.DNumeric(exec.NumericNaN()), nil
		}
		scale := max(numScale(x), numScale(y))
		if x.IsZero() || y.IsZero() {
			return exec.DNumeric(exec.RoundNumeric(apd.New(0, 0), scale, false)), nil
		}
		g := numGcd(x, y)
		d := new(apd.Decimal)
		c := numCtx(decWeight(x)+decWeight(y)+2, scale)
		c.Mul(d, x, y)
		c.Quo(d, d, g)
		d.Abs(d)
		return exec.DNumeric(exec.RoundNumeric(d, scale, false)), nil
	}})
	exec.Register(&exec.Func{Name: "factorial", Args: []uint32{exec.OIDInt8}, Ret: exec.OIDNumeric, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return factorial(a[0].I)
	}})
	exec.Register(&exec.Func{Name: "float8send", Args: f1, Ret: exec.OIDBytea, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DBytes(string(types.AppendFloat8Binary(nil, a[0].F))), nil
	}}, &exec.Func{Name: "float4send", Args: []uint32{exec.OIDFloat4}, Ret: exec.OIDBytea, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DBytes(string(types.AppendFloat4Binary(nil, float32(a[0].F)))), nil
	}})
}

// intShift is << or >> on an int type: the shift count taken modulo the
// type's width, as the C shift PostgreSQL performs does on x86.
func intShift(t exec.T, left bool) exec.Fn {
	width := int64(64)
	switch t.OID {
	case exec.OIDInt2, exec.OIDInt4:
		width = 32
	}
	return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		n := uint(a[1].I & (width - 1))
		v := a[0].I
		var r int64
		if left {
			r = v << n
		} else {
			r = v >> n
		}
		switch t.OID {
		case exec.OIDInt2:
			r = int64(int16(r))
		case exec.OIDInt4:
			r = int64(int32(r))
		}
		return exec.DInt(r), nil
	}
}

// cbrt is glibc's cbrt, which PostgreSQL calls: it is not correctly
// rounded (cbrt(27) is 3.0000000000000004), and users see its digits.
func cbrt(x float64) float64 {
	const (
		cbrt2    = 1.2599210498948731648
		sqrCbrt2 = 1.5874010519681994748
	)
	factor := [5]float64{1.0 / sqrCbrt2, 1.0 / cbrt2, 1.0, cbrt2, sqrCbrt2}
	xm, xe := math.Frexp(math.Abs(x))
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x + x
	}
	u := 0.354895765043919860 + (1.50819193781584896+(-2.11499494167371287+(2.44693122563534430+(-1.83469277483613086+(0.784932344976639262-0.145263899385486377*xm)*xm)*xm)*xm)*xm)*xm
	t2 := u * u * u
	ym := u * (t2 + 2.0*xm) / (2.0*t2 + xm) * factor[2+xe%3]
	if x < 0 {
		ym = -ym
	}
	return math.Ldexp(ym, xe/3)
}
