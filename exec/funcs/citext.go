package funcs

import (
	"strings"

	"github.com/prollypg/prollypg/exec"
)

// contrib's citext, whose type lives in exec (citext.go): the functions
// and operators its extension script defines over it. They run text's
// implementation case-insensitively, as the script's SQL functions do:
// LIKE as ILIKE, the regular expression operators and functions with the
// i flag (unless the flags say c), strpos on lower-cased strings, replace
// and split_part by a case-insensitive regular expression of the literal
// string, translate over both cases. min and max keep the later of two
// equal values, as citext_smaller and citext_larger do.

// ciFlags is the flags citext's regexp_* functions pass on: the caller's
// with i appended, unless they ask for case sensitivity (c).
func ciFlags(flags string) string {
	if strings.Contains(flags, "c") {
		return flags
	}
	return flags + "i"
}

// ciLiteralPattern is a regular expression matching s literally:
// regexp_replace(s, '([^a-zA-Z_0-9])', '\\\1', 'g') in citext's script,
// here for ASCII only, as a backslash before a letter of another script
// would be an escape.
func ciLiteralPattern(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// viaText is an overload over citext running the text overload of target
// taking textArgs, over the arguments prep makes of the call's.
func viaText(name string, args []uint32, ret uint32, target string, textArgs []uint32, prep func(a []exec.Datum) []exec.Datum) *exec.Func {
	return &exec.Func{Name: name, Args: args, Ret: ret, Strict: true, Immutable: true,
		Build: func([]exec.T) (exec.Fn, exec.T, error) {
			ts := make([]exec.T, len(textArgs))
			for i, oid := range textArgs {
				ts[i] = exec.T{OID: oid, Typmod: -1}
			}
			f, want, err := exec.LookupFunc(target, ts)
			if err != nil {
				return nil, exec.T{}, err
			}
			fn, _, err := f.Bind(want)
			if err != nil {
				return nil, exec.T{}, err
			}
			return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
				return fn(env, prep(a))
			}, exec.T{OID: ret, Typmod: -1}, nil
		}}
}

// asText returns a's values as text, for text's implementations.
func asText(a []exec.Datum) []exec.Datum {
	out := make([]exec.Datum, len(a))
	for i, d := range a {
		if d.Kind == exec.KindCIText {
			d = exec.DText(d.S)
		}
		out[i] = d
	}
	return out
}

// withFlags returns a's values as text with flags appended as the last
// argument, or, given (has), replacing the last argument.
func withFlags(a []exec.Datum, has bool) []exec.Datum {
	out := asText(a)
	if has {
		out[len(out)-1] = exec.DText(ciFlags(out[len(out)-1].S))
		return out
	}
	return append(out, exec.DText("i"))
}

// viaTextSRF is viaText for a set-returning function.
func viaTextSRF(name string, args []uint32, ret uint32, textArgs []uint32, prep func(a []exec.Datum) []exec.Datum) {
	exec.RegisterSRF(&exec.Func{Name: name, Args: args, Ret: ret}, func([]exec.T) *exec.SRF {
		ts := make([]exec.T, len(textArgs))
		for i, oid := range textArgs {
			ts[i] = exec.T{OID: oid, Typmod: -1}
		}
		inner, _, err := exec.LookupSRF(name, ts)
		if err != nil {
			return &exec.SRF{Cols: []exec.ResultColumn{{Name: name, T: exec.T{OID: ret, Typmod: -1}}},
				Rows: func(*exec.Env, []exec.Datum) ([]exec.Row, error) { return nil, err }}
		}
		out := *inner
		out.Rows = func(env *exec.Env, a []exec.Datum) ([]exec.Row, error) { return inner.Rows(env, prep(a)) }
		return &out
	})
}

// ciMinMaxAcc is min(citext) and max(citext): citext_smaller and
// citext_larger keep the new value unless the state is strictly smaller
// (larger), so the last of equal values wins.
type ciMinMaxAcc struct {
	best exec.Datum
	sign int
}

func (a *ciMinMaxAcc) Add(_ *exec.Env, args []exec.Datum) error {
	if a.best.IsNull() || exec.Compare(a.best, args[0])*a.sign <= 0 {
		a.best = args[0]
	}
	return nil
}

func (a *ciMinMaxAcc) Result(*exec.Env) (exec.Datum, error) { return a.best, nil }

func registerCIText() {
	ci, t, i4 := exec.OIDCIText, exec.OIDText, exec.OIDInt4
	tArr := exec.OIDTextArray
	// LIKE and the regular expression operators, over (citext, citext)
	// and (citext, text): texticlike, texticnlike, texticregexeq,
	// texticregexne, each whatever the operator asks of the case.
	for _, op := range []struct {
		name string
		not  bool
	}{{"~~", false}, {"!~~", true}, {"~~*", false}, {"!~~*", true}} {
		for _, right := range []uint32{ci, t} {
			exec.Register(&exec.Func{Name: op.name, Args: []uint32{ci, right}, Ret: exec.OIDBool, Strict: true, Immutable: true, Fn: likeFn(op.not, true)})
		}
	}
	for _, op := range []struct {
		name string
		not  bool
	}{{"~", false}, {"!~", true}, {"~*", false}, {"!~*", true}} {
		op := op
		for _, right := range []uint32{ci, t} {
			exec.Register(&exec.Func{Name: op.name, Args: []uint32{ci, right}, Ret: exec.OIDBool, Strict: true, Immutable: true,
				Build: regexBuild(exec.OIDBool, func(c *regexCache) exec.Fn {
					return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
						re, err := c.get(a[1].S, reFlags{fold: true})
						if err != nil {
							return exec.Null, err
						}
						return exec.DBool(re.MatchString(a[0].S) != op.not), nil
					}
				})})
		}
	}
	for _, op := range []string{"texticlike", "texticnlike"} {
		for _, right := range []uint32{ci, t} {
			exec.Register(&exec.Func{Name: op, Args: []uint32{ci, right}, Ret: exec.OIDBool, Strict: true, Immutable: true, Fn: likeFn(op == "texticnlike", true)})
		}
	}

	// The regexp_* functions with the i flag.
	exec.Register(
		viaText("regexp_match", []uint32{ci, ci}, tArr, "regexp_match", []uint32{t, t, t}, func(a []exec.Datum) []exec.Datum { return withFlags(a, false) }),
		viaText("regexp_match", []uint32{ci, ci, t}, tArr, "regexp_match", []uint32{t, t, t}, func(a []exec.Datum) []exec.Datum { return withFlags(a, true) }),
		viaText("regexp_replace", []uint32{ci, ci, t}, t, "regexp_replace", []uint32{t, t, t, t}, func(a []exec.Datum) []exec.Datum { return withFlags(a, false) }),
		viaText("regexp_replace", []uint32{ci, ci, t, t}, t, "regexp_replace", []uint32{t, t, t, t}, func(a []exec.Datum) []exec.Datum { return withFlags(a, true) }),
		viaText("regexp_split_to_array", []uint32{ci, ci}, tArr, "regexp_split_to_array", []uint32{t, t, t}, func(a []exec.Datum) []exec.Datum { return withFlags(a, false) }),
		viaText("regexp_split_to_array", []uint32{ci, ci, t}, tArr, "regexp_split_to_array", []uint32{t, t, t}, func(a []exec.Datum) []exec.Datum { return withFlags(a, true) }),
	)
	viaTextSRF("regexp_matches", []uint32{ci, ci}, tArr, []uint32{t, t, t}, func(a []exec.Datum) []exec.Datum { return withFlags(a, false) })
	viaTextSRF("regexp_matches", []uint32{ci, ci, t}, tArr, []uint32{t, t, t}, func(a []exec.Datum) []exec.Datum { return withFlags(a, true) })
	viaTextSRF("regexp_split_to_table", []uint32{ci, ci}, t, []uint32{t, t, t}, func(a []exec.Datum) []exec.Datum { return withFlags(a, false) })
	viaTextSRF("regexp_split_to_table", []uint32{ci, ci, t}, t, []uint32{t, t, t}, func(a []exec.Datum) []exec.Datum { return withFlags(a, true) })

	// strpos over lower-cased strings; replace by a case-insensitive
	// pattern of the literal string (its replacement read as
	// regexp_replace reads one, as in citext's script).
	exec.Register(
		viaText("strpos", []uint32{ci, ci}, i4, "strpos", []uint32{t, t}, func(a []exec.Datum) []exec.Datum {
			return []exec.Datum{exec.DText(exec.CITextFold(a[0].S)), exec.DText(exec.CITextFold(a[1].S))}
		}),
		viaText("replace", []uint32{ci, ci, ci}, t, "regexp_replace", []uint32{t, t, t, t}, func(a []exec.Datum) []exec.Datum {
			return []exec.Datum{exec.DText(a[0].S), exec.DText(ciLiteralPattern(a[1].S)), exec.DText(a[2].S), exec.DText("gi")}
		}),
	)
	// split_part: field n of regexp_split_to_array by the delimiter,
	// case-insensitively; NULL past the last field (an array subscript).
	split := viaText("split_part", []uint32{ci, ci, i4}, t, "regexp_split_to_array", []uint32{t, t, t}, func(a []exec.Datum) []exec.Datum {
		return []exec.Datum{exec.DText(a[0].S), exec.DText(ciLiteralPattern(a[1].S)), exec.DText("i")}
	})
	splitArr := split.Build
	split.Build = func(ts []exec.T) (exec.Fn, exec.T, error) {
		fn, _, err := splitArr(ts)
		if err != nil {
			return nil, exec.T{}, err
		}
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			arr, err := fn(env, a)
			if err != nil || arr.IsNull() {
				return arr, err
			}
			elems := arr.Array().Elems
			if n := a[2].I; n >= 1 && n <= int64(len(elems)) {
				return elems[n-1], nil
			}
			return exec.Null, nil
		}, exec.TText, nil
	}
	exec.Register(split)
	// translate: the characters of from in lower case, then in upper.
	exec.Register(&exec.Func{Name: "translate", Args: []uint32{ci, ci, t}, Ret: t, Strict: true, Immutable: true,
		Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			s := translate(a[0].S, strings.ToLower(a[1].S), a[2].S)
			return exec.DText(translate(s, strings.ToUpper(a[1].S), a[2].S)), nil
		}})

	// The comparison functions behind citext's operators.
	for _, name := range []string{"citext_eq", "citext_ne", "citext_lt", "citext_le", "citext_gt", "citext_ge"} {
		op := map[string]string{"citext_eq": "=", "citext_ne": "<>", "citext_lt": "<", "citext_le": "<=", "citext_gt": ">", "citext_ge": ">="}[name]
		exec.Register(&exec.Func{Name: name, Args: []uint32{ci, ci}, Ret: exec.OIDBool, Strict: true, Immutable: true, Fn: exec.CompareOp(op)})
	}
	exec.Register(
		&exec.Func{Name: "citext_cmp", Args: []uint32{ci, ci}, Ret: i4, Strict: true, Immutable: true,
			Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
				return exec.DInt(int64(exec.CompareCIText(a[0].S, a[1].S))), nil
			}},
		&exec.Func{Name: "citext_smaller", Args: []uint32{ci, ci}, Ret: ci, Strict: true, Immutable: true,
			Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
				if exec.CompareCIText(a[0].S, a[1].S) < 0 {
					return a[0], nil
				}
				return a[1], nil
			}},
		&exec.Func{Name: "citext_larger", Args: []uint32{ci, ci}, Ret: ci, Strict: true, Immutable: true,
			Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
				if exec.CompareCIText(a[0].S, a[1].S) > 0 {
					return a[0], nil
				}
				return a[1], nil
			}},
	)
	exec.RegisterAgg(
		&exec.AggFunc{Name: "min", Args: []uint32{ci}, New: func([]exec.T) exec.Accumulator { return &ciMinMaxAcc{sign: -1} }},
		&exec.AggFunc{Name: "max", Args: []uint32{ci}, New: func([]exec.T) exec.Accumulator { return &ciMinMaxAcc{sign: 1} }},
	)
}
