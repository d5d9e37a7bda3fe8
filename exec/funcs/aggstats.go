package funcs

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/prollypg/prollypg/exec"
)

// The statistical aggregates: variance and standard deviation over float
// or exact arithmetic, the regression and correlation family over float8,
// and the bitwise aggregates. They follow PostgreSQL's transition and
// final functions (float8_accum with the Youngs-Cramer update,
// numeric_var_pop and friends, float8_regr_accum), so that results agree
// to the last digit.

func registerStatAggregates() {
	type fin = func(n, sx, sxx float64) (float64, bool)
	floatVariants := map[string]fin{
		"var_pop":     func(n, _, sxx float64) (float64, bool) { return sxx / n, n >= 1 },
		"var_samp":    func(n, _, sxx float64) (float64, bool) { return sxx / (n - 1), n > 1 },
		"variance":    func(n, _, sxx float64) (float64, bool) { return sxx / (n - 1), n > 1 },
		"stddev_pop":  func(n, _, sxx float64) (float64, bool) { return math.Sqrt(sxx / n), n >= 1 },
		"stddev_samp": func(n, _, sxx float64) (float64, bool) { return math.Sqrt(sxx / (n - 1)), n > 1 },
		"stddev":      func(n, _, sxx float64) (float64, bool) { return math.Sqrt(sxx / (n - 1)), n > 1 },
	}
	for name, f := range floatVariants {
		f := f
		for _, oid := range []uint32{exec.OIDFloat4, exec.OIDFloat8} {
			exec.RegisterAgg(&exec.AggFunc{Name: name, Args: []uint32{oid}, Ret: exec.OIDFloat8, New: func([]exec.T) exec.Accumulator { return &floatVarAcc{final: f} }})
		}
		pop := name == "var_pop" || name == "stddev_pop"
		sqrt := name[:3] == "std"
		for _, oid := range []uint32{exec.OIDInt2, exec.OIDInt4, exec.OIDInt8, exec.OIDNumeric} {
			exec.RegisterAgg(&exec.AggFunc{Name: name, Args: []uint32{oid}, Ret: exec.OIDNumeric, New: func([]exec.T) exec.Accumulator { return &numericVarAcc{pop: pop, sqrt: sqrt} }})
		}
	}
	type rfin = func(s *regrAcc) (float64, bool)
	regr := map[string]rfin{
		"regr_sxx":  func(s *regrAcc) (float64, bool) { return s.sxx, s.n >= 1 },
		"regr_syy":  func(s *regrAcc) (float64, bool) { return s.syy, s.n >= 1 },
		"regr_sxy":  func(s *regrAcc) (float64, bool) { return s.sxy, s.n >= 1 },
		"regr_avgx": func(s *regrAcc) (float64, bool) { return s.sx / s.n, s.n >= 1 },
		"regr_avgy": func(s *regrAcc) (float64, bool) { return s.sy / s.n, s.n >= 1 },
		"covar_pop": func(s *regrAcc) (float64, bool) { return s.sxy / s.n, s.n >= 1 },
		"covar_samp": func(s *regrAcc) (float64, bool) {
			return s.sxy / (s.n - 1), s.n >= 2
		},
		"corr": func(s *regrAcc) (float64, bool) {
			return s.sxy / math.Sqrt(s.sxx*s.syy), s.n >= 1 && s.sxx != 0 && s.syy != 0
		},
		"regr_r2": func(s *regrAcc) (float64, bool) {
			if s.n >= 1 && s.sxx != 0 && s.syy == 0 {
				return 1, true
			}
			return s.sxy * s.sxy / (s.sxx * s.syy), s.n >= 1 && s.sxx != 0
		},
		"regr_slope": func(s *regrAcc) (float64, bool) { return s.sxy / s.sxx, s.n >= 1 && s.sxx != 0 },
		"regr_intercept": func(s *regrAcc) (float64, bool) {
			return (s.sy - s.sx*s.sxy/s.sxx) / s.n, s.n >= 1 && s.sxx != 0
		},
	}
	for name, f := range regr {
		f := f
		exec.RegisterAgg(&exec.AggFunc{Name: name, Args: []uint32{exec.OIDFloat8, exec.OIDFloat8}, Ret: exec.OIDFloat8, StrictAll: true, New: func([]exec.T) exec.Accumulator { return &regrAcc{final: f} }})
	}
	exec.RegisterAgg(&exec.AggFunc{Name: "regr_count", Args: []uint32{exec.OIDFloat8, exec.OIDFloat8}, Ret: exec.OIDInt8, StrictAll: true, New: func([]exec.T) exec.Accumulator { return &countAcc{} }})
	for _, oid := range []uint32{exec.OIDInt2, exec.OIDInt4, exec.OIDInt8} {
		for _, op := range []string{"bit_and", "bit_or", "bit_xor"} {
			op := op
			exec.RegisterAgg(&exec.AggFunc{Name: op, Args: []uint32{oid}, New: func([]exec.T) exec.Accumulator { return &bitAcc{op: op} }})
		}
	}
}

// floatVarAcc is float8_accum: count, sum and the sum of squared
// deviations, updated as Youngs and Cramer do.
type floatVarAcc struct {
	n, sx, sxx float64
	final      func(n, sx, sxx float64) (float64, bool)
}

func (a *floatVarAcc) Add(_ *exec.Env, args []exec.Datum) error {
	x := args[0].F
	oldN := a.n
	a.n++
	a.sx += x
	if oldN > 0 {
		tmp := x*a.n - a.sx
		a.sxx += tmp * tmp / (a.n * oldN)
		if math.IsInf(a.sx, 0) || math.IsInf(a.sxx, 0) {
			a.sxx = math.NaN()
		}
	} else if math.IsNaN(x) || math.IsInf(x, 0) {
		a.sxx = math.NaN()
	}
	return nil
}

func (a *floatVarAcc) Result(*exec.Env) (exec.Datum, error) {
	v, ok := a.final(a.n, a.sx, a.sxx)
	if !ok {
		return exec.Null, nil
	}
	return exec.DFloat(v), nil
}

// numericVarAcc is the exact variance (or standard deviation) of
// numbers: count, sum and sum of squares, finished as numeric_var_pop
// and numeric_stddev_samp do.
type numericVarAcc struct {
	n         int64
	sum, sum2 apd.Decimal
	pop, sqrt bool
	nan, inf  bool
}

func (a *numericVarAcc) Add(_ *exec.Env, args []exec.Datum) error {
	var x *apd.Decimal
	switch args[0].Kind {
	case exec.KindInt:
		x = apd.New(args[0].I, 0)
	default:
		x = args[0].Numeric()
		switch x.Form {
		case apd.NaN:
			a.nan = true
			a.n++
			return nil
		case apd.Infinite:
			a.inf = true
			a.n++
			return nil
		}
	}
	a.n++
	var sq apd.Decimal
	if _, err := exec.NumericContext.Mul(&sq, x, x); err != nil {
		return err
	}
	if _, err := exec.NumericContext.Add(&a.sum, &a.sum, x); err != nil {
		return err
	}
	_, err := exec.NumericContext.Add(&a.sum2, &a.sum2, &sq)
	return err
}

func (a *numericVarAcc) Result(env *exec.Env) (exec.Datum, error) {
	if a.n == 0 || (!a.pop && a.n == 1) {
		return exec.Null, nil
	}
	if a.nan || a.inf {
		return exec.DNumeric(&apd.Decimal{Form: apd.NaN}), nil
	}
	n := apd.New(a.n, 0)
	// numerator = N * sumX2 - sumX * sumX
	var sx2, nsum2, num apd.Decimal
	exec.NumericContext.Mul(&sx2, &a.sum, &a.sum)
	exec.NumericContext.Mul(&nsum2, n, &a.sum2)
	exec.NumericContext.Sub(&num, &nsum2, &sx2)
	if num.Sign() <= 0 {
		return exec.DNumeric(apd.New(0, 0)), nil
	}
	den := new(apd.Decimal)
	if a.pop {
		exec.NumericContext.Mul(den, n, n)
	} else {
		exec.NumericContext.Mul(den, n, apd.New(a.n-1, 0))
	}
	scale := exec.NumericDivScale(&num, den)
	v, err := numericDiv(env, []exec.Datum{exec.DNumeric(&num), exec.DNumeric(den)})
	if err != nil || !a.sqrt {
		return v, err
	}
	r := new(apd.Decimal)
	ctx := apd.BaseContext.WithPrecision(uint32(scale) + 40)
	if _, err := ctx.Sqrt(r, v.Numeric()); err != nil {
		return exec.Null, err
	}
	if _, err := exec.NumericContext.Quantize(r, r, -scale); err != nil {
		return exec.Null, err
	}
	return exec.DNumeric(r), nil
}

// regrAcc is float8_regr_accum: sums for the regression and correlation
// aggregates over (y, x) pairs.
type regrAcc struct {
	n, sx, sxx, sy, syy, sxy float64
	final                    func(*regrAcc) (float64, bool)
}

func (a *regrAcc) Add(_ *exec.Env, args []exec.Datum) error {
	y, x := args[0].F, args[1].F
	oldN := a.n
	a.n++
	a.sx += x
	a.sy += y
	if oldN > 0 {
		tx := x*a.n - a.sx
		ty := y*a.n - a.sy
		scale := 1 / (a.n * oldN)
		a.sxx += tx * tx * scale
		a.syy += ty * ty * scale
		a.sxy += tx * ty * scale
		if math.IsInf(a.sx, 0) || math.IsInf(a.sxx, 0) {
			a.sxx = math.NaN()
		}
		if math.IsInf(a.sy, 0) || math.IsInf(a.syy, 0) {
			a.syy = math.NaN()
		}
		if math.IsInf(a.sxy, 0) {
			a.sxy = math.NaN()
		}
	} else {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			a.sxx, a.sxy = math.NaN(), math.NaN()
		}
		if math.IsNaN(y) || math.IsInf(y, 0) {
			a.syy, a.sxy = math.NaN(), math.NaN()
		}
	}
	return nil
}

func (a *regrAcc) Result(*exec.Env) (exec.Datum, error) {
	v, ok := a.final(a)
	if !ok {
		return exec.Null, nil
	}
	return exec.DFloat(v), nil
}

// bitAcc is bit_and, bit_or or bit_xor over integers.
type bitAcc struct {
	op  string
	v   int64
	any bool
}

func (a *bitAcc) Add(_ *exec.Env, args []exec.Datum) error {
	x := args[0].I
	switch {
	case !a.any:
		a.v = x
	case a.op == "bit_and":
		a.v &= x
	case a.op == "bit_or":
		a.v |= x
	default:
		a.v ^= x
	}
	a.any = true
	return nil
}

func (a *bitAcc) Result(*exec.Env) (exec.Datum, error) {
	if !a.any {
		return exec.Null, nil
	}
	return exec.DInt(a.v), nil
}
