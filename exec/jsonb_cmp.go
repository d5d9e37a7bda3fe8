package exec

import (
	"cmp"
	"strings"

	"github.com/prollypg/prollypg/exec/types"
)

// jsonb's btree order (compareJsonbContainers): values of different types
// order null < string < number < boolean < array < object; arrays by
// length and then element by element; objects by their number of pairs
// and then key, value, key, value in storage order; a top-level scalar
// sorts before any top-level array. Numbers compare as numerics, so
// '[1.0]' equals '[1]'.

func jbTypeRank(v *types.JSONB) int {
	switch v.Kind {
	case types.JSONNull:
		return 0
	case types.JSONString:
		return 1
	case types.JSONNumber:
		return 2
	case types.JSONBool:
		return 3
	case types.JSONArray:
		return 4
	}
	return 5
}

func compareJSONB(a, b *types.JSONB, top bool) int {
	aScalar := a.Kind != types.JSONArray && a.Kind != types.JSONObject
	bScalar := b.Kind != types.JSONArray && b.Kind != types.JSONObject
	if top && a.Kind == types.JSONArray != (b.Kind == types.JSONArray) && (aScalar || bScalar) {
		// Raw scalars are one-element arrays flagged as such; an array
		// beats a scalar.
		if aScalar {
			return -1
		}
		return 1
	}
	if ra, rb := jbTypeRank(a), jbTypeRank(b); ra != rb {
		return cmp.Compare(ra, rb)
	}
	switch a.Kind {
	case types.JSONNull:
		return 0
	case types.JSONString:
		return strings.Compare(a.Str, b.Str)
	case types.JSONNumber:
		return compareNumeric(a.Num, b.Num)
	case types.JSONBool:
		return cmp.Compare(btoi(a.Bool), btoi(b.Bool))
	case types.JSONArray:
		if c := cmp.Compare(len(a.Elems), len(b.Elems)); c != 0 {
			return c
		}
		for i := range a.Elems {
			if c := compareJSONB(&a.Elems[i], &b.Elems[i], false); c != 0 {
				return c
			}
		}
		return 0
	}
	if c := cmp.Compare(len(a.Pairs), len(b.Pairs)); c != 0 {
		return c
	}
	for i := range a.Pairs {
		if c := strings.Compare(a.Pairs[i].Key, b.Pairs[i].Key); c != 0 {
			return c
		}
		if c := compareJSONB(&a.Pairs[i].Value, &b.Pairs[i].Value, false); c != 0 {
			return c
		}
	}
	return 0
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// JSONBCompareOp is a comparison operator over two jsonb values.
func JSONBCompareOp(op string) Fn {
	test := map[string]func(int) bool{
		"=": func(c int) bool { return c == 0 }, "<>": func(c int) bool { return c != 0 }, "!=": func(c int) bool { return c != 0 },
		"<": func(c int) bool { return c < 0 }, "<=": func(c int) bool { return c <= 0 },
		">": func(c int) bool { return c > 0 }, ">=": func(c int) bool { return c >= 0 },
	}[op]
	if test == nil {
		return nil
	}
	return func(_ *Env, a []Datum) (Datum, error) {
		if a[0].S == a[1].S {
			return DBool(test(0)), nil
		}
		x, err := types.ParseJSONB(a[0].S)
		if err != nil {
			return Null, err
		}
		y, err := types.ParseJSONB(a[1].S)
		if err != nil {
			return Null, err
		}
		return DBool(test(compareJSONB(&x, &y, true))), nil
	}
}
