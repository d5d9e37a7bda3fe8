package funcs

import (
	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// contrib's hstore (the type is exec's hstore.go and types/hstore.go):
// the functions and operators of its extension script, as hstore_op.c
// computes them. They resolve only where the extension is installed
// (exec.Func.Extension), so that without it -> ? - || @> keep the
// meanings the built-in types give them. Not here: populate_record and
// #=, hstore(record), hstore_hash, the gist and gin support functions.

// hstoreKeys returns the non-NULL text elements of a, as
// hstoreArrayToPairs does with a key array (NULL keys are skipped).
func hstoreKeys(a *exec.Array) []string {
	out := make([]string, 0, len(a.Elems))
	for _, e := range a.Elems {
		if !e.IsNull() {
			out = append(out, e.S)
		}
	}
	return out
}

// hstoreValue is the text of pair p, NULL for a NULL value.
func hstoreValue(p types.HstorePair) exec.Datum {
	if p.Null {
		return exec.Null
	}
	return exec.DText(p.Val)
}

// hstoreContains is hs_contains: every pair of b is in a, NULL matching
// NULL.
func hstoreContains(a, b types.Hstore) bool {
	for _, p := range b {
		i := a.Find(p.Key)
		if i < 0 || a[i].Null != p.Null || !p.Null && a[i].Val != p.Val {
			return false
		}
	}
	return true
}

// hstoreWithout returns h without the pairs drop says to delete.
func hstoreWithout(h types.Hstore, drop func(p types.HstorePair) bool) types.Hstore {
	out := make(types.Hstore, 0, len(h))
	for _, p := range h {
		if !drop(p) {
			out = append(out, p)
		}
	}
	return out
}

func registerHstore() {
	hs, t, tArr := exec.OIDHstore, exec.OIDText, exec.OIDTextArray
	reg := func(name string, args []uint32, ret uint32, fn exec.Fn) *exec.Func {
		return &exec.Func{Name: name, Args: args, Ret: ret, Strict: true, Immutable: true, Fn: fn, Extension: "hstore"}
	}
	fetch := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		h := a[0].Hstore()
		if i := h.Find(a[1].S); i >= 0 {
			return hstoreValue(h[i]), nil
		}
		return exec.Null, nil
	}
	sliceArray := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		h, keys := a[0].Hstore(), a[1].Array()
		out := &exec.Array{Elem: exec.OIDText, Dims: keys.Dims, Lower: keys.Lower, Elems: make([]exec.Datum, len(keys.Elems))}
		for i, k := range keys.Elems {
			if j := h.Find(k.S); !k.IsNull() && j >= 0 {
				out.Elems[i] = hstoreValue(h[j])
			}
			out.HasNul = out.HasNul || out.Elems[i].IsNull()
		}
		return exec.DArray(out), nil
	}
	exist := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DBool(a[0].Hstore().Find(a[1].S) >= 0), nil
	}
	defined := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		h := a[0].Hstore()
		i := h.Find(a[1].S)
		return exec.DBool(i >= 0 && !h[i].Null), nil
	}
	existsAny := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		h := a[0].Hstore()
		for _, k := range hstoreKeys(a[1].Array()) {
			if h.Find(k) >= 0 {
				return exec.DBool(true), nil
			}
		}
		return exec.DBool(false), nil
	}
	existsAll := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		h := a[0].Hstore()
		for _, k := range hstoreKeys(a[1].Array()) {
			if h.Find(k) < 0 {
				return exec.DBool(false), nil
			}
		}
		return exec.DBool(true), nil
	}
	contains := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DBool(hstoreContains(a[0].Hstore(), a[1].Hstore())), nil
	}
	contained := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DBool(hstoreContains(a[1].Hstore(), a[0].Hstore())), nil
	}
	concat := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		// The right operand's pairs first, so that they are the ones kept.
		pairs := append(append([]types.HstorePair(nil), a[1].Hstore()...), a[0].Hstore()...)
		return exec.DHstore(types.NewHstore(pairs)), nil
	}
	deleteKey := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DHstore(hstoreWithout(a[0].Hstore(), func(p types.HstorePair) bool { return p.Key == a[1].S })), nil
	}
	deleteKeys := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		drop := map[string]bool{}
		for _, k := range hstoreKeys(a[1].Array()) {
			drop[k] = true
		}
		return exec.DHstore(hstoreWithout(a[0].Hstore(), func(p types.HstorePair) bool { return drop[p.Key] })), nil
	}
	deletePairs := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		other := a[1].Hstore()
		return exec.DHstore(hstoreWithout(a[0].Hstore(), func(p types.HstorePair) bool {
			i := other.Find(p.Key)
			return i >= 0 && other[i].Null == p.Null && other[i].Val == p.Val
		})), nil
	}
	toArray := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		var elems []exec.Datum
		for _, p := range a[0].Hstore() {
			elems = append(elems, exec.DText(p.Key), hstoreValue(p))
		}
		return textArray(elems), nil
	}
	toMatrix := func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		d, _ := toArray(env, a)
		if arr := d.Array(); len(arr.Elems) > 0 {
			arr.Dims, arr.Lower = []int32{int32(len(arr.Elems) / 2), 2}, []int32{1, 1}
		}
		return d, nil
	}
	cmpOp := func(test func(int) bool) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(test(types.CompareHstore(a[0].Hstore(), a[1].Hstore()))), nil
		}
	}
	toJSON := func(jsonb, loose bool) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.HstoreJSON(a[0].Hstore(), jsonb, loose)
		}
	}
	fromText := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if a[0].IsNull() {
			return exec.Null, nil
		}
		return exec.DHstore(types.Hstore{{Key: a[0].S, Val: a[1].S, Null: a[1].IsNull()}}), nil
	}
	fromArrays := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if a[0].IsNull() {
			return exec.Null, nil
		}
		var values *exec.Array
		if !a[1].IsNull() {
			values = a[1].Array()
		}
		h, err := exec.HstoreFromArrays(a[0].Array(), values)
		if err != nil {
			return exec.Null, err
		}
		return exec.DHstore(h), nil
	}
	fromArray := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		h, err := exec.HstoreFromArray(a[0].Array())
		if err != nil {
			return exec.Null, err
		}
		return exec.DHstore(h), nil
	}
	keys := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		var elems []exec.Datum
		for _, p := range a[0].Hstore() {
			elems = append(elems, exec.DText(p.Key))
		}
		return textArray(elems), nil
	}
	vals := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		var elems []exec.Datum
		for _, p := range a[0].Hstore() {
			elems = append(elems, hstoreValue(p))
		}
		return textArray(elems), nil
	}
	slice := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		h := a[0].Hstore()
		var out types.Hstore
		for _, k := range hstoreKeys(a[1].Array()) {
			if i := h.Find(k); i >= 0 {
				out = append(out, h[i])
			}
		}
		return exec.DHstore(types.NewHstore(out)), nil
	}
	nonStrict := func(f *exec.Func) *exec.Func { f.Strict = false; return f }

	exec.Register(
		reg("fetchval", []uint32{hs, t}, t, fetch),
		reg("->", []uint32{hs, t}, t, fetch),
		reg("slice_array", []uint32{hs, tArr}, tArr, sliceArray),
		reg("->", []uint32{hs, tArr}, tArr, sliceArray),
		reg("isexists", []uint32{hs, t}, exec.OIDBool, exist),
		reg("exist", []uint32{hs, t}, exec.OIDBool, exist),
		reg("?", []uint32{hs, t}, exec.OIDBool, exist),
		reg("exists_any", []uint32{hs, tArr}, exec.OIDBool, existsAny),
		reg("?|", []uint32{hs, tArr}, exec.OIDBool, existsAny),
		reg("exists_all", []uint32{hs, tArr}, exec.OIDBool, existsAll),
		reg("?&", []uint32{hs, tArr}, exec.OIDBool, existsAll),
		reg("isdefined", []uint32{hs, t}, exec.OIDBool, defined),
		reg("defined", []uint32{hs, t}, exec.OIDBool, defined),
		reg("delete", []uint32{hs, t}, hs, deleteKey),
		reg("delete", []uint32{hs, tArr}, hs, deleteKeys),
		reg("delete", []uint32{hs, hs}, hs, deletePairs),
		reg("-", []uint32{hs, t}, hs, deleteKey),
		reg("-", []uint32{hs, tArr}, hs, deleteKeys),
		reg("-", []uint32{hs, hs}, hs, deletePairs),
		reg("hs_concat", []uint32{hs, hs}, hs, concat),
		reg("||", []uint32{hs, hs}, hs, concat),
		reg("hs_contains", []uint32{hs, hs}, exec.OIDBool, contains),
		reg("@>", []uint32{hs, hs}, exec.OIDBool, contains),
		reg("hs_contained", []uint32{hs, hs}, exec.OIDBool, contained),
		reg("<@", []uint32{hs, hs}, exec.OIDBool, contained),
		reg("akeys", []uint32{hs}, tArr, keys),
		reg("avals", []uint32{hs}, tArr, vals),
		reg("slice", []uint32{hs, tArr}, hs, slice),
		reg("hstore_to_array", []uint32{hs}, tArr, toArray),
		reg("%%", []uint32{hs}, tArr, toArray),
		reg("hstore_to_matrix", []uint32{hs}, tArr, toMatrix),
		reg("%#", []uint32{hs}, tArr, toMatrix),
		reg("hstore_to_json", []uint32{hs}, exec.OIDJSON, toJSON(false, false)),
		reg("hstore_to_json_loose", []uint32{hs}, exec.OIDJSON, toJSON(false, true)),
		reg("hstore_to_jsonb", []uint32{hs}, exec.OIDJSONB, toJSON(true, false)),
		reg("hstore_to_jsonb_loose", []uint32{hs}, exec.OIDJSONB, toJSON(true, true)),
		nonStrict(reg("hstore", []uint32{t, t}, hs, fromText)),
		nonStrict(reg("tconvert", []uint32{t, t}, hs, fromText)),
		nonStrict(reg("hstore", []uint32{tArr, tArr}, hs, fromArrays)),
		reg("hstore", []uint32{tArr}, hs, fromArray),
		reg("hstore_cmp", []uint32{hs, hs}, exec.OIDInt4, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DInt(int64(types.CompareHstore(a[0].Hstore(), a[1].Hstore()))), nil
		}),
		reg("hstore_eq", []uint32{hs, hs}, exec.OIDBool, cmpOp(func(c int) bool { return c == 0 })),
		reg("hstore_ne", []uint32{hs, hs}, exec.OIDBool, cmpOp(func(c int) bool { return c != 0 })),
		reg("hstore_lt", []uint32{hs, hs}, exec.OIDBool, cmpOp(func(c int) bool { return c < 0 })),
		reg("#<#", []uint32{hs, hs}, exec.OIDBool, cmpOp(func(c int) bool { return c < 0 })),
		reg("hstore_le", []uint32{hs, hs}, exec.OIDBool, cmpOp(func(c int) bool { return c <= 0 })),
		reg("#<=#", []uint32{hs, hs}, exec.OIDBool, cmpOp(func(c int) bool { return c <= 0 })),
		reg("hstore_gt", []uint32{hs, hs}, exec.OIDBool, cmpOp(func(c int) bool { return c > 0 })),
		reg("#>#", []uint32{hs, hs}, exec.OIDBool, cmpOp(func(c int) bool { return c > 0 })),
		reg("hstore_ge", []uint32{hs, hs}, exec.OIDBool, cmpOp(func(c int) bool { return c >= 0 })),
		reg("#>=#", []uint32{hs, hs}, exec.OIDBool, cmpOp(func(c int) bool { return c >= 0 })),
	)

	// skeys, svals and each: the keys, the values, and the pairs, in the
	// hstore's order.
	rows := func(name string, cols []exec.ResultColumn, row func(p types.HstorePair) exec.Row) {
		exec.RegisterSRF(&exec.Func{Name: name, Args: []uint32{hs}, Ret: cols[0].T.OID, Extension: "hstore"}, func([]exec.T) *exec.SRF {
			return &exec.SRF{Cols: cols, Rows: func(_ *exec.Env, a []exec.Datum) ([]exec.Row, error) {
				h := a[0].Hstore()
				out := make([]exec.Row, len(h))
				for i, p := range h {
					out[i] = row(p)
				}
				return out, nil
			}}
		})
	}
	rows("skeys", []exec.ResultColumn{{Name: "skeys", T: exec.TText}}, func(p types.HstorePair) exec.Row { return exec.Row{exec.DText(p.Key)} })
	rows("svals", []exec.ResultColumn{{Name: "svals", T: exec.TText}}, func(p types.HstorePair) exec.Row { return exec.Row{hstoreValue(p)} })
	rows("each", []exec.ResultColumn{{Name: "key", T: exec.TText}, {Name: "value", T: exec.TText}}, func(p types.HstorePair) exec.Row {
		return exec.Row{exec.DText(p.Key), hstoreValue(p)}
	})
}

// HstoreSubscript is h[key]: the value of key, NULL when absent, as
// hstore's subscript handler fetches it.
func HstoreSubscript(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	h := a[0].Hstore()
	if i := h.Find(a[1].S); i >= 0 {
		return hstoreValue(h[i]), nil
	}
	return exec.Null, nil
}

// HstoreSetElement is the assignment h[key] = value (its arguments h, key,
// value; not strict): h, or an empty hstore for NULL, with the pair.
func HstoreSetElement(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	if a[1].IsNull() {
		return exec.Null, pgerr.New(pgerr.NullValueNotAllowed, "hstore subscript in assignment must not be null")
	}
	var pairs []types.HstorePair
	pairs = append(pairs, types.HstorePair{Key: a[1].S, Val: a[2].S, Null: a[2].IsNull()})
	if !a[0].IsNull() {
		pairs = append(pairs, a[0].Hstore()...)
	}
	return exec.DHstore(types.NewHstore(pairs)), nil
}

// ErrHstoreSubscripts is hstore's refusal of more than one subscript or of
// a slice.
var ErrHstoreSubscripts = pgerr.New(pgerr.FeatureNotSupported, "hstore allows only one subscript")
