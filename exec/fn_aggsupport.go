package exec

// PostgreSQL's support functions that CREATE AGGREGATE names as
// transition functions: int4pl, int8inc, float8pl, numeric_add, int4_sum,
// int4larger and the like. Each is its operator or built-in, bound when
// a call is planned (the registry is complete by then).

// viaFunc builds a function that calls name over arguments of types
// args, after rewriting them with prep (when set).
func viaFunc(name string, args []T, prep func([]Datum) []Datum) func([]T) (Fn, T, error) {
	return func([]T) (Fn, T, error) {
		f, want, err := LookupFunc(name, args)
		if err != nil {
			return nil, T{}, err
		}
		fn, t, err := f.Bind(want)
		if err != nil || prep == nil {
			return fn, t, err
		}
		return func(env *Env, a []Datum) (Datum, error) { return fn(env, prep(a)) }, t, nil
	}
}

func init() {
	i4, i8, f8, num := TInt4, TInt8, TFloat8, TNumeric
	plus := func(name string, t T) *Func {
		return &Func{Name: name, Args: []uint32{t.OID, t.OID}, Ret: t.OID, Strict: true, Immutable: true, Build: viaFunc("+", []T{t, t}, nil)}
	}
	inc := func(a []Datum) []Datum { return []Datum{a[0], DInt(1)} }
	Register(
		plus("int2pl", TInt2), plus("int4pl", i4), plus("int8pl", i8), plus("float4pl", TFloat4), plus("float8pl", f8), plus("numeric_add", num),
		&Func{Name: "int8inc", Args: []uint32{OIDInt8}, Ret: OIDInt8, Strict: true, Immutable: true, Build: viaFunc("+", []T{i8, i8}, inc)},
		&Func{Name: "int8inc_any", Args: []uint32{OIDInt8, OIDAny}, Ret: OIDInt8, Strict: true, Immutable: true, Build: viaFunc("+", []T{i8, i8}, inc)},
		&Func{Name: "int4larger", Args: []uint32{OIDInt4, OIDInt4}, Ret: OIDInt4, Strict: true, Immutable: true, Fn: func(_ *Env, a []Datum) (Datum, error) {
			return DInt(max(a[0].I, a[1].I)), nil
		}},
		&Func{Name: "int4smaller", Args: []uint32{OIDInt4, OIDInt4}, Ret: OIDInt4, Strict: true, Immutable: true, Fn: func(_ *Env, a []Datum) (Datum, error) {
			return DInt(min(a[0].I, a[1].I)), nil
		}},
		// int4_sum is sum(int4)'s step: not strict, a NULL state takes
		// the first value.
		&Func{Name: "int4_sum", Args: []uint32{OIDInt8, OIDInt4}, Ret: OIDInt8, Immutable: true, Build: func([]T) (Fn, T, error) {
			add, _, err := viaFunc("+", []T{i8, i8}, nil)(nil)
			if err != nil {
				return nil, T{}, err
			}
			return func(env *Env, a []Datum) (Datum, error) {
				switch {
				case a[1].IsNull():
					return a[0], nil
				case a[0].IsNull():
					return DInt(a[1].I), nil
				}
				return add(env, []Datum{a[0], DInt(a[1].I)})
			}, i8, nil
		}},
	)
}
