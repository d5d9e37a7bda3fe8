package funcs

import "github.com/prollypg/prollypg/exec"

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

func registerAggSupport() {
	i4, i8, f8, num := exec.TInt4, exec.TInt8, exec.TFloat8, exec.TNumeric
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
	)
}
