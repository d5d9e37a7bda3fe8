package funcs

import (
	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// The JSON aggregates: json_agg and jsonb_agg collect values into an
// array, json_object_agg and jsonb_object_agg key/value pairs into an
// object, as PostgreSQL 15's json.c and jsonb.c do (NULL values kept as
// null; no rows, NULL). json's text is PostgreSQL's: ", " between
// elements, a line break before each array or composite element after the
// first, and "{ k : v, ... }" objects.
func init() {
	exec.RegisterAgg(
		&exec.AggFunc{Name: "json_agg", Args: []uint32{exec.OIDAny}, Ret: exec.OIDJSON, KeepNulls: true,
			New: func(ts []exec.T) exec.Accumulator { return &jsonAggAcc{t: ts[0]} }},
		&exec.AggFunc{Name: "jsonb_agg", Args: []uint32{exec.OIDAny}, Ret: exec.OIDJSONB, KeepNulls: true,
			New: func(ts []exec.T) exec.Accumulator { return &jsonAggAcc{t: ts[0], jsonb: true} }},
		&exec.AggFunc{Name: "json_object_agg", Args: []uint32{exec.OIDAny, exec.OIDAny}, Ret: exec.OIDJSON, KeepNulls: true,
			New: func(ts []exec.T) exec.Accumulator { return &jsonObjectAggAcc{k: ts[0], v: ts[1]} }},
		&exec.AggFunc{Name: "jsonb_object_agg", Args: []uint32{exec.OIDAny, exec.OIDAny}, Ret: exec.OIDJSONB, KeepNulls: true,
			New: func(ts []exec.T) exec.Accumulator { return &jsonObjectAggAcc{k: ts[0], v: ts[1], jsonb: true} }},
	)
}

// jsonAggAcc is json_agg's and jsonb_agg's state: the array's text so
// far, or its elements for jsonb.
type jsonAggAcc struct {
	t     exec.T
	jsonb bool
	n     int
	buf   []byte
	elems []types.JSONB
}

func (a *jsonAggAcc) Add(env *exec.Env, args []exec.Datum) error {
	d := args[0]
	if a.jsonb {
		v, err := toJSONB(env, a.t, d)
		if err != nil {
			return err
		}
		a.elems = append(a.elems, v)
		return nil
	}
	if a.n == 0 {
		a.buf = append(a.buf, '[')
	} else {
		a.buf = append(a.buf, ", "...)
		if !d.IsNull() && (exec.IsArrayType(a.t.OID) || exec.KindOf(a.t.OID) == exec.KindRecord) {
			a.buf = append(a.buf, "\n "...)
		}
	}
	a.n++
	a.buf = appendToJSON(a.buf, env, a.t, d)
	return nil
}

func (a *jsonAggAcc) Result(*exec.Env) (exec.Datum, error) {
	if a.jsonb {
		if a.elems == nil {
			return exec.Null, nil
		}
		v := types.JSONB{Kind: types.JSONArray, Elems: a.elems}
		return outJB(&v), nil
	}
	if a.n == 0 {
		return exec.Null, nil
	}
	return exec.DJSON(string(a.buf) + "]"), nil
}

// jsonObjectAggAcc is json_object_agg's and jsonb_object_agg's state.
type jsonObjectAggAcc struct {
	k, v  exec.T
	jsonb bool
	n     int
	buf   []byte
	pairs []types.JSONBPair
}

func (a *jsonObjectAggAcc) Add(env *exec.Env, args []exec.Datum) error {
	if args[0].IsNull() {
		return pgerr.New(pgerr.InvalidParameterValue, "field name must not be null")
	}
	if err := scalarKey(a.k); err != nil {
		return err
	}
	key := textOf(env, a.k, args[0])
	if a.jsonb {
		v, err := toJSONB(env, a.v, args[1])
		if err != nil {
			return err
		}
		a.pairs = append(a.pairs, types.JSONBPair{Key: key, Value: v})
		return nil
	}
	if a.n == 0 {
		a.buf = append(a.buf, "{ "...)
	} else {
		a.buf = append(a.buf, ", "...)
	}
	a.n++
	a.buf = types.AppendJSONString(a.buf, key)
	a.buf = append(a.buf, " : "...)
	a.buf = appendToJSON(a.buf, env, a.v, args[1])
	return nil
}

func (a *jsonObjectAggAcc) Result(*exec.Env) (exec.Datum, error) {
	if a.jsonb {
		if a.pairs == nil {
			return exec.Null, nil
		}
		v := jbObject(a.pairs)
		return outJB(&v), nil
	}
	if a.n == 0 {
		return exec.Null, nil
	}
	return exec.DJSON(string(a.buf) + " }"), nil
}
