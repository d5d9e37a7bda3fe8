package funcs

// Sine and cosine rounded correctly, for polygon(circle): PostgreSQL calls
// the C library's sin and cos, whose results (glibc's are correctly
// rounded but in rare cases) differ from Go's math.Sin and math.Cos in the
// last bit, which a polygon's text shows. They are computed in
// double-double arithmetic (about 106 bits) and rounded once.

import "math"

// dd is an unevaluated sum hi + lo of two float64s, |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

func quickTwoSum(a, b float64) (s, e float64) {
	s = a + b
	return s, b - (s - a)
}

func twoProd(a, b float64) (p, e float64) {
	p = a * b
	return p, math.FMA(a, b, -p)
}

func (x dd) add(y dd) dd {
	s, e := twoSum(x.hi, y.hi)
	t, f := twoSum(x.lo, y.lo)
	e += t
	s, e = quickTwoSum(s, e)
	e += f
	s, e = quickTwoSum(s, e)
	return dd{s, e}
}

func (x dd) neg() dd { return dd{-x.hi, -x.lo} }

func (x dd) mul(y dd) dd {
	p, e := twoProd(x.hi, y.hi)
	e += x.hi*y.lo + x.lo*y.hi
	p, e = quickTwoSum(p, e)
	return dd{p, e}
}

func (x dd) mulF(f float64) dd {
	p, e := twoProd(x.hi, f)
	e += x.lo * f
	p, e = quickTwoSum(p, e)
	return dd{p, e}
}

func (x dd) divF(f float64) dd {
	q := x.hi / f
	p, e := twoProd(q, f)
	r := (x.hi - p - e + x.lo) / f
	q, r = quickTwoSum(q, r)
	return dd{q, r}
}

// invFact[n] is 1/n! in double-double.
var invFact = func() [28]dd {
	var t [28]dd
	t[0] = dd{1, 0}
	for n := 1; n < len(t); n++ {
		t[n] = t[n-1].divF(float64(n))
	}
	return t
}()

// π/2 in three parts, for the argument reduction.
const (
	pio2Hi  = 1.5707963267948965579989817342720925807952880859375
	pio2Mid = 6.123233995736766035868820147291818e-17
	pio2Lo  = -1.4973849048591698329435e-33
)

// sinCosDD returns sin(r) and cos(r) for |r| <= π/4 by their Taylor
// series.
func sinCosDD(r dd) (s, c dd) {
	r2 := r.mul(r)
	// sin: r - r^3/3! + ...; cos: 1 - r^2/2! + ...
	term := r // r^n
	s = r
	c = dd{1, 0}
	pow := dd{1, 0} // r^(n-1) for cos
	for n := 2; n+1 < len(invFact); n += 2 {
		pow = pow.mul(r2)
		term = term.mul(r2)
		sign := 1.0
		if (n/2)%2 == 1 {
			sign = -1
		}
		c = c.add(pow.mul(invFact[n]).mulF(sign))
		s = s.add(term.mul(invFact[n+1]).mulF(sign))
	}
	return s, c
}

// sinCos returns sin(x) and cos(x), correctly rounded but in extremely
// rare cases. Beyond 2^20 or for non-finite x it falls back to package
// math, whose reduction is exact there.
func sinCos(x float64) (float64, float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1<<20 {
		return math.Sin(x), math.Cos(x)
	}
	k := math.Round(x / pio2Hi)
	// r = x - k·π/2, the products exact, the differences in double-double.
	p, e := twoProd(k, pio2Hi)
	r := dd{x, 0}.add(dd{p, e}.neg())
	p, e = twoProd(k, pio2Mid)
	r = r.add(dd{p, e}.neg())
	r = r.add(dd{-k * pio2Lo, 0})
	s, c := sinCosDD(r)
	switch int64(k) & 3 {
	case 1:
		s, c = c, s.neg()
	case 2:
		s, c = s.neg(), c.neg()
	case 3:
		s, c = c.neg(), s
	}
	return s.hi + s.lo, c.hi + c.lo
}
