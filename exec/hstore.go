package exec

import (
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// hstore, contrib's key/value type, built in (CREATE EXTENSION hstore
// records the extension): a value is KindHstore holding a types.Hstore,
// whose text and binary I/O, order (hstore_cmp) and canonical form are
// package types'. It is stored and hashed as its binary form; its index
// key is a digest of that form, good for equality and uniqueness, as for
// tsvector. Its casts, as its extension script's: to json and jsonb
// (hstore_to_json, hstore_to_jsonb) and from text[] (hstore(text[])),
// explicitly; to and from the string types through text.

// DHstore is an hstore value.
func DHstore(h types.Hstore) Datum { return Datum{Kind: KindHstore, X: h} }

// Hstore returns an hstore value's pairs.
func (d Datum) Hstore() types.Hstore { return d.X.(types.Hstore) }

// THstore is the hstore type.
var THstore = T{OID: OIDHstore, Typmod: -1}

// castHstore converts hstore to json and jsonb and text[] to hstore; nil
// for other pairs of types.
func castHstore(from, to T) Fn {
	switch {
	case from.OID == OIDHstore && (to.OID == OIDJSON || to.OID == OIDJSONB):
		jsonb := to.OID == OIDJSONB
		return func(_ *Env, a []Datum) (Datum, error) { return HstoreJSON(a[0].Hstore(), jsonb, false) }
	case from.OID == OIDTextArray && to.OID == OIDHstore:
		return func(_ *Env, a []Datum) (Datum, error) {
			h, err := HstoreFromArray(a[0].Array())
			if err != nil {
				return Null, err
			}
			return DHstore(h), nil
		}
	}
	return nil
}

// HstoreJSON is hstore_to_json (jsonb: hstore_to_jsonb) of h: an object
// of its keys, NULL values as null, the others strings; loose, 't' and
// 'f' are booleans and values that read as JSON numbers are numbers
// (hstore_to_json_loose and _jsonb_loose).
func HstoreJSON(h types.Hstore, jsonb, loose bool) (Datum, error) {
	out := []byte{'{'}
	for i, p := range h {
		if i > 0 {
			out = append(out, ", "...)
		}
		out = types.AppendJSONString(out, p.Key)
		out = append(out, ": "...)
		switch {
		case p.Null:
			out = append(out, "null"...)
		case loose && p.Val == "t":
			out = append(out, "true"...)
		case loose && p.Val == "f":
			out = append(out, "false"...)
		case loose && isJSONNumber(p.Val):
			out = append(out, p.Val...)
		default:
			out = types.AppendJSONString(out, p.Val)
		}
	}
	out = append(out, '}')
	if !jsonb {
		return DJSON(string(out)), nil
	}
	v, err := types.ParseJSONB(string(out))
	if err != nil {
		return Null, err
	}
	return DJSON(string(types.AppendJSONB(nil, &v))), nil
}

// isJSONNumber is PostgreSQL's IsValidJsonNumber: a JSON number, no more
// (a leading zero before another digit, a bare point or a sign of + is
// not one).
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, n = i+1, n+1
		}
		return n
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

var errHstoreNullKey = pgerr.New(pgerr.NullValueNotAllowed, "null value not allowed for hstore key")

// HstoreFromArray is hstore(text[]): alternating keys and values, or a
// two-column array of them.
func HstoreFromArray(a *Array) (types.Hstore, error) {
	switch len(a.Dims) {
	case 0:
		return types.Hstore{}, nil
	case 1:
		if a.Dims[0]%2 != 0 {
			return nil, pgerr.New(pgerr.ArraySubscriptError, "array must have even number of elements")
		}
	case 2:
		if a.Dims[1] != 2 {
			return nil, pgerr.New(pgerr.ArraySubscriptError, "array must have two columns")
		}
	default:
		return nil, pgerr.New(pgerr.ArraySubscriptError, "wrong number of array subscripts")
	}
	pairs := make([]types.HstorePair, 0, len(a.Elems)/2)
	for i := 0; i+1 < len(a.Elems); i += 2 {
		k, v := a.Elems[i], a.Elems[i+1]
		if k.IsNull() {
			return nil, errHstoreNullKey
		}
		pairs = append(pairs, types.HstorePair{Key: k.S, Val: v.S, Null: v.IsNull()})
	}
	return types.NewHstore(pairs), nil
}

// HstoreFromArrays is hstore(keys, values): values nil makes every value
// NULL.
func HstoreFromArrays(keys, values *Array) (types.Hstore, error) {
	if len(keys.Dims) > 1 || values != nil && len(values.Dims) > 1 {
		return nil, pgerr.New(pgerr.ArraySubscriptError, "wrong number of array subscripts")
	}
	if values != nil && (len(keys.Dims) > 0 || len(values.Dims) > 0) &&
		(len(keys.Dims) != len(values.Dims) || keys.Dims[0] != values.Dims[0] || keys.Lower[0] != values.Lower[0]) {
		return nil, pgerr.New(pgerr.ArraySubscriptError, "arrays must have same bounds")
	}
	pairs := make([]types.HstorePair, len(keys.Elems))
	for i, k := range keys.Elems {
		if k.IsNull() {
			return nil, errHstoreNullKey
		}
		pairs[i] = types.HstorePair{Key: k.S, Null: true}
		if values != nil && !values.Elems[i].IsNull() {
			pairs[i].Val, pairs[i].Null = values.Elems[i].S, false
		}
	}
	return types.NewHstore(pairs), nil
}
