package funcs

import (
	"math"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// PostgreSQL's support functions that CREATE AGGREGATE names as
// transition functions: int4pl, int8inc, float8pl, numeric_add, int4_sum,
// int4larger and the like. Each is its operator or built-in, bound when
// a call is planned (the registry is complete by then).

// viaFunc builds a function that calls name over arguments of types
// args, after rewriting them with prep (when set).
func viaFunc(name string, args []exec.T, prep func([]exec.Datum) []exec.Datum) func([]exec.T) (exec.Fn, exec.T, error) {
	return func([]exec.T) (exec.Fn, exec.T, error) {
		f, want, err := exec.LookupFunc(name, args)
		if err != nil {
			return nil, exec.T{}, err
		}
		fn, t, err := f.Bind(want)
		if err != nil || prep == nil {
			return fn, t, err
		}
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) { return fn(env, prep(a)) }, t, nil
	}
}

// registerOperatorSupport registers the functions behind the built-in
// comparison and arithmetic operators that CREATE OPERATOR names
// (int4eq, texteq, int4mul, textcat and their kin): each compares by
// its type's ordering, or is its operator over its argument types.
func registerOperatorSupport() {
	cmp := func(name, op string, t uint32) *exec.Func {
		return &exec.Func{Name: name, Args: []uint32{t, t}, Ret: exec.OIDBool, Strict: true, Immutable: true, Fn: exec.CompareOp(op)}
	}
	ops := []string{"=", "<>", "<", "<=", ">", ">="}
	for _, fam := range []struct {
		prefix string
		names  []string
		t      uint32
	}{
		{"int2", []string{"eq", "ne", "lt", "le", "gt", "ge"}, exec.OIDInt2},
		{"int4", []string{"eq", "ne", "lt", "le", "gt", "ge"}, exec.OIDInt4},
		{"int8", []string{"eq", "ne", "lt", "le", "gt", "ge"}, exec.OIDInt8},
		{"float4", []string{"eq", "ne", "lt", "le", "gt", "ge"}, exec.OIDFloat4},
		{"float8", []string{"eq", "ne", "lt", "le", "gt", "ge"}, exec.OIDFloat8},
		{"numeric_", []string{"eq", "ne", "lt", "le", "gt", "ge"}, exec.OIDNumeric},
		{"text", []string{"eq", "ne", "_lt", "_le", "_gt", "_ge"}, exec.OIDText},
		{"bool", []string{"eq", "ne", "lt", "le", "gt", "ge"}, exec.OIDBool},
		{"array_", []string{"eq", "ne", "lt", "le", "gt", "ge"}, exec.OIDAnyArray},
	} {
		for i, n := range fam.names {
			exec.Register(cmp(fam.prefix+n, ops[i], fam.t))
		}
	}
	arith := func(name, op string, t exec.T) *exec.Func {
		return &exec.Func{Name: name, Args: []uint32{t.OID, t.OID}, Ret: t.OID, Strict: true, Immutable: true, Build: viaFunc(op, []exec.T{t, t}, nil)}
	}
	exec.Register(
		arith("int2mi", "-", exec.TInt2), arith("int4mi", "-", exec.TInt4), arith("int8mi", "-", exec.TInt8), arith("numeric_sub", "-", exec.TNumeric),
		arith("int2mul", "*", exec.TInt2), arith("int4mul", "*", exec.TInt4), arith("int8mul", "*", exec.TInt8),
		arith("float4mul", "*", exec.TFloat4), arith("float8mul", "*", exec.TFloat8), arith("numeric_mul", "*", exec.TNumeric),
		arith("int2div", "/", exec.TInt2), arith("int4div", "/", exec.TInt4), arith("int8div", "/", exec.TInt8),
		arith("float4div", "/", exec.TFloat4), arith("float8div", "/", exec.TFloat8), arith("numeric_div", "/", exec.TNumeric),
		arith("textcat", "||", exec.TText),
	)
}

func registerAggSupport() {
	i4, i8, f8, num := exec.TInt4, exec.TInt8, exec.TFloat8, exec.TNumeric
	i8a, f8a := exec.ArrayType(i8).OID, exec.ArrayType(f8).OID
	plus := func(name string, t exec.T) *exec.Func {
		return &exec.Func{Name: name, Args: []uint32{t.OID, t.OID}, Ret: t.OID, Strict: true, Immutable: true, Build: viaFunc("+", []exec.T{t, t}, nil)}
	}
	inc := func(a []exec.Datum) []exec.Datum { return []exec.Datum{a[0], exec.DInt(1)} }
	exec.Register(
		plus("int2pl", exec.TInt2), plus("int4pl", i4), plus("int8pl", i8), plus("float4pl", exec.TFloat4), plus("float8pl", f8), plus("numeric_add", num),
		&exec.Func{Name: "int8inc", Args: []uint32{exec.OIDInt8}, Ret: exec.OIDInt8, Strict: true, Immutable: true, Build: viaFunc("+", []exec.T{i8, i8}, inc)},
		&exec.Func{Name: "int8inc_any", Args: []uint32{exec.OIDInt8, exec.OIDAny}, Ret: exec.OIDInt8, Strict: true, Immutable: true, Build: viaFunc("+", []exec.T{i8, i8}, inc)},
		&exec.Func{Name: "int4larger", Args: []uint32{exec.OIDInt4, exec.OIDInt4}, Ret: exec.OIDInt4, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DInt(max(a[0].I, a[1].I)), nil
		}},
		&exec.Func{Name: "int4smaller", Args: []uint32{exec.OIDInt4, exec.OIDInt4}, Ret: exec.OIDInt4, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DInt(min(a[0].I, a[1].I)), nil
		}},
		// int4_sum is sum(int4)'s step: not strict, a NULL state takes
		// the first value.
		&exec.Func{Name: "int4_sum", Args: []uint32{exec.OIDInt8, exec.OIDInt4}, Ret: exec.OIDInt8, Immutable: true, Build: func([]exec.T) (exec.Fn, exec.T, error) {
			add, _, err := viaFunc("+", []exec.T{i8, i8}, nil)(nil)
			if err != nil {
				return nil, exec.T{}, err
			}
			return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
				switch {
				case a[1].IsNull():
					return a[0], nil
				case a[0].IsNull():
					return exec.DInt(a[1].I), nil
				}
				return add(env, []exec.Datum{a[0], exec.DInt(a[1].I)})
			}, i8, nil
		}},
		&exec.Func{Name: "int2_avg_accum", Args: []uint32{i8a, exec.OIDInt2}, Ret: i8a, Strict: true, Immutable: true, Fn: intAvgAccum},
		&exec.Func{Name: "int4_avg_accum", Args: []uint32{i8a, exec.OIDInt4}, Ret: i8a, Strict: true, Immutable: true, Fn: intAvgAccum},
		&exec.Func{Name: "int8_avg", Args: []uint32{i8a}, Ret: exec.OIDNumeric, Strict: true, Immutable: true, Build: func([]exec.T) (exec.Fn, exec.T, error) {
			div, _, err := viaFunc("/", []exec.T{num, num}, nil)(nil)
			if err != nil {
				return nil, exec.T{}, err
			}
			return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
				st, err := avgState(a[0])
				if err != nil || st[0] == 0 {
					return exec.Null, err
				}
				return div(env, []exec.Datum{exec.DNumeric(apd.New(st[1], 0)), exec.DNumeric(apd.New(st[0], 0))})
			}, num, nil
		}},
		&exec.Func{Name: "float8_accum", Args: []uint32{f8a, exec.OIDFloat8}, Ret: f8a, Strict: true, Immutable: true, Fn: float8Accum},
		&exec.Func{Name: "float8_combine", Args: []uint32{f8a, f8a}, Ret: f8a, Strict: true, Immutable: true, Fn: float8Combine},
		&exec.Func{Name: "float8_regr_accum", Args: []uint32{f8a, exec.OIDFloat8, exec.OIDFloat8}, Ret: f8a, Strict: true, Immutable: true, Fn: float8RegrAccum},
		&exec.Func{Name: "float8_regr_combine", Args: []uint32{f8a, f8a}, Ret: f8a, Strict: true, Immutable: true, Fn: float8RegrCombine},
		&exec.Func{Name: "booland_statefunc", Args: []uint32{exec.OIDBool, exec.OIDBool}, Ret: exec.OIDBool, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(a[0].Bool() && a[1].Bool()), nil
		}},
		&exec.Func{Name: "boolor_statefunc", Args: []uint32{exec.OIDBool, exec.OIDBool}, Ret: exec.OIDBool, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(a[0].Bool() || a[1].Bool()), nil
		}},
	)
}

// avgState reads the {count, sum} int8 array that avg(int2/int4) keeps.
func avgState(d exec.Datum) ([2]int64, error) {
	e := d.Array().Elems
	if len(e) != 2 || e[0].IsNull() || e[1].IsNull() {
		return [2]int64{}, pgerr.New(pgerr.InternalError, "expected 2-element int8 array")
	}
	return [2]int64{e[0].I, e[1].I}, nil
}

// intAvgAccum is int2_avg_accum and int4_avg_accum: one more value into
// the {count, sum} state.
func intAvgAccum(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	st, err := avgState(a[0])
	if err != nil {
		return exec.Null, err
	}
	return exec.NewArray(exec.OIDInt8, []exec.Datum{exec.DInt(st[0] + 1), exec.DInt(st[1] + a[1].I)}), nil
}

// floatState reads the float8[n] state of the float aggregates
// (variance, stddev, the regressions): N, Sx, Sxx, and for the
// regressions Sy, Syy, Sxy. The sums of squares are of deviations from
// the mean (the Youngs-Cramer algorithm, as PostgreSQL 12 and later).
func floatState(fn string, d exec.Datum, n int) ([]float64, error) {
	e := d.Array().Elems
	if len(e) != n {
		return nil, pgerr.New(pgerr.InternalError, "%s: expected %d-element float8 array", fn, n)
	}
	out := make([]float64, n)
	for i, v := range e {
		if v.IsNull() {
			return nil, pgerr.New(pgerr.InternalError, "%s: expected %d-element float8 array", fn, n)
		}
		out[i] = v.F
	}
	return out, nil
}

func floatArray(v []float64) exec.Datum {
	d := make([]exec.Datum, len(v))
	for i, f := range v {
		d[i] = exec.DFloat(f)
	}
	return exec.NewArray(exec.OIDFloat8, d)
}

func float8Accum(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	st, err := floatState("float8_accum", a[0], 3)
	if err != nil {
		return exec.Null, err
	}
	x := a[1].F
	n, sx, sxx := st[0]+1, st[1]+x, st[2]
	if st[0] > 0 {
		t := x*n - sx
		sxx += t * t / (n * st[0])
		if math.IsInf(sx, 0) || math.IsInf(sxx, 0) {
			if !math.IsInf(st[1], 0) && !math.IsInf(x, 0) {
				return exec.Null, errOverflow
			}
			sxx = math.NaN()
		}
	} else if math.IsNaN(x) || math.IsInf(x, 0) {
		sxx = math.NaN()
	}
	return floatArray([]float64{n, sx, sxx}), nil
}

func float8RegrAccum(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	st, err := floatState("float8_regr_accum", a[0], 6)
	if err != nil {
		return exec.Null, err
	}
	y, x := a[1].F, a[2].F
	n, sx, sxx, sy, syy, sxy := st[0]+1, st[1]+x, st[2], st[3]+y, st[4], st[5]
	if st[0] > 0 {
		tx, ty := x*n-sx, y*n-sy
		scale := 1 / (n * st[0])
		sxx += tx * tx * scale
		syy += ty * ty * scale
		sxy += tx * ty * scale
		if math.IsInf(sx, 0) || math.IsInf(sxx, 0) || math.IsInf(sy, 0) || math.IsInf(syy, 0) || math.IsInf(sxy, 0) {
			if !math.IsInf(st[1], 0) && !math.IsInf(x, 0) && !math.IsInf(st[3], 0) && !math.IsInf(y, 0) {
				return exec.Null, errOverflow
			}
			if math.IsInf(sx, 0) || math.IsInf(sxx, 0) {
				sxx = math.NaN()
			}
			if math.IsInf(sy, 0) || math.IsInf(syy, 0) {
				syy = math.NaN()
			}
			sxy = math.NaN()
		}
	} else {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			sxx, sxy = math.NaN(), math.NaN()
		}
		if math.IsNaN(y) || math.IsInf(y, 0) {
			syy, sxy = math.NaN(), math.NaN()
		}
	}
	return floatArray([]float64{n, sx, sxx, sy, syy, sxy}), nil
}

// combineDeviation merges two sums of squared (co)deviations of n1 and n2
// values whose mean differences are d1 and d2.
func combineDeviation(s1, s2, n1, n2, d1, d2 float64) float64 {
	return s1 + s2 + n1*n2*d1*d2/(n1+n2)
}

// combineStates reads the two states a combine function fn merges, of n
// values each; done is the result when one of them is empty.
func combineStates(fn string, a []exec.Datum, n int) (s1, s2 []float64, done exec.Datum, err error) {
	if s1, err = floatState(fn, a[0], n); err != nil {
		return nil, nil, exec.Null, err
	}
	if s2, err = floatState(fn, a[1], n); err != nil {
		return nil, nil, exec.Null, err
	}
	switch {
	case s1[0] == 0:
		done = floatArray(s2)
	case s2[0] == 0:
		done = floatArray(s1)
	}
	return s1, s2, done, nil
}

func float8Combine(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	s1, s2, done, err := combineStates("float8_combine", a, 3)
	if err != nil || !done.IsNull() {
		return done, err
	}
	d := s1[1]/s1[0] - s2[1]/s2[0]
	out := []float64{s1[0] + s2[0], s1[1] + s2[1], combineDeviation(s1[2], s2[2], s1[0], s2[0], d, d)}
	if math.IsInf(out[1], 0) && !math.IsInf(s1[1], 0) && !math.IsInf(s2[1], 0) || math.IsInf(out[2], 0) && !math.IsInf(s1[2], 0) && !math.IsInf(s2[2], 0) {
		return exec.Null, errOverflow
	}
	return floatArray(out), nil
}

func float8RegrCombine(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	s1, s2, done, err := combineStates("float8_regr_combine", a, 6)
	if err != nil || !done.IsNull() {
		return done, err
	}
	dx := s1[1]/s1[0] - s2[1]/s2[0]
	dy := s1[3]/s1[0] - s2[3]/s2[0]
	n1, n2 := s1[0], s2[0]
	out := []float64{
		n1 + n2,
		s1[1] + s2[1], combineDeviation(s1[2], s2[2], n1, n2, dx, dx),
		s1[3] + s2[3], combineDeviation(s1[4], s2[4], n1, n2, dy, dy),
		combineDeviation(s1[5], s2[5], n1, n2, dx, dy),
	}
	for i := 1; i < 6; i++ {
		if math.IsInf(out[i], 0) && !math.IsInf(s1[i], 0) && !math.IsInf(s2[i], 0) {
			return exec.Null, errOverflow
		}
	}
	return floatArray(out), nil
}
