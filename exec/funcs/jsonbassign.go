package funcs

import (
	"strconv"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// JSONBSetElement is the assignment j[p1]...[pn] = v of jsonb subscripting
// (PostgreSQL's jsonb_set_element): its arguments are j, the path as
// text[] and v. A NULL j starts as an empty array when the first
// subscript is an integer (firstInt), an empty object otherwise; keys
// missing along the path are created, arrays padded with nulls up to the
// index set, and a scalar met on the path is an error. A NULL v sets a
// JSON null.
func JSONBSetElement(firstInt bool) exec.Fn {
	return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		v := types.JSONB{Kind: types.JSONObject}
		if firstInt {
			v.Kind = types.JSONArray
		}
		if !a[0].IsNull() {
			var err error
			if v, err = parseJB(a[0]); err != nil {
				return exec.Null, err
			}
		}
		nv := types.JSONB{Kind: types.JSONNull}
		if !a[2].IsNull() {
			var err error
			if nv, err = parseJB(a[2]); err != nil {
				return exec.Null, err
			}
		}
		r, err := setElement(&v, a[1].Array().Elems, 0, &nv)
		if err != nil {
			return exec.Null, err
		}
		return outJB(&r), nil
	}
}

// setElement returns v with the element at path[pos:] set to nv.
func setElement(v *types.JSONB, path []exec.Datum, pos int, nv *types.JSONB) (types.JSONB, error) {
	if pos == len(path) {
		return *nv, nil
	}
	p := path[pos]
	if p.IsNull() {
		return types.JSONB{}, pgerr.New(pgerr.NullValueNotAllowed, "path element at position %d is null", pos+1)
	}
	switch v.Kind {
	case types.JSONObject:
		pairs := make([]types.JSONBPair, 0, len(v.Pairs)+1)
		found := false
		for _, pr := range v.Pairs {
			if pr.Key == p.S {
				found = true
				sub, err := setElement(&pr.Value, path, pos+1, nv)
				if err != nil {
					return types.JSONB{}, err
				}
				pr.Value = sub
			}
			pairs = append(pairs, pr)
		}
		if !found {
			empty := emptyContainer(path, pos+1)
			sub, err := setElement(&empty, path, pos+1, nv)
			if err != nil {
				return types.JSONB{}, err
			}
			pairs = append(pairs, types.JSONBPair{Key: p.S, Value: sub})
		}
		return jbObject(pairs), nil
	case types.JSONArray:
		n, err := pathIndex(p, pos)
		if err != nil {
			return types.JSONB{}, err
		}
		size := int64(len(v.Elems))
		if n < 0 {
			if -n > size {
				return types.JSONB{}, pgerr.New(pgerr.InvalidParameterValue, "path element at position %d is out of range: %d", pos+1, n)
			}
			n += size
		}
		elems := append(make([]types.JSONB, 0, max(size, n+1)), v.Elems...)
		for int64(len(elems)) <= n {
			elems = append(elems, types.JSONB{Kind: types.JSONNull})
		}
		target := elems[n]
		if n >= size {
			target = emptyContainer(path, pos+1)
		}
		if elems[n], err = setElement(&target, path, pos+1, nv); err != nil {
			return types.JSONB{}, err
		}
		return types.JSONB{Kind: types.JSONArray, Elems: elems}, nil
	}
	return types.JSONB{}, pgerr.New(pgerr.InvalidParameterValue, "cannot replace existing key").
		WithDetail("The path assumes key is a composite object, but it is a scalar value.")
}

// emptyContainer is what a missing element at path[pos] starts as: an
// array when the next path element is an integer, else an object (the
// value itself when the path ends).
func emptyContainer(path []exec.Datum, pos int) types.JSONB {
	if pos == len(path) {
		return types.JSONB{Kind: types.JSONNull}
	}
	if _, err := strconv.ParseInt(strings.TrimSpace(path[pos].S), 10, 32); err == nil {
		return types.JSONB{Kind: types.JSONArray}
	}
	return types.JSONB{Kind: types.JSONObject}
}
