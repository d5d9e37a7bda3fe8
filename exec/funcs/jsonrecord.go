package funcs

import (
	"strconv"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// json(b)_populate_record(set) and json(b)_to_record(set): JSON values
// converted to SQL values of a given type as PostgreSQL's
// populate_record_field does (jsonfuncs.c). An object becomes a record
// of a composite type, an array a SQL array (nested arrays are the
// dimensions), a string the type's text input of its contents, and any
// other scalar the text input of its JSON text; json and jsonb take the
// JSON value itself. A JSON null, or a missing key, is NULL.

// jsonValue is a JSON value being converted, and, when it comes from a
// json (not jsonb) argument, its text as written there: a json field
// takes that text unchanged, as PostgreSQL's does.
type jsonValue struct {
	v   *types.JSONB
	raw string // "" when unknown (jsonb)
}

// field returns the member key of object jv (nil v when it has none).
func (jv jsonValue) field(key string) jsonValue {
	f, ok := jv.v.Field(key)
	if !ok {
		return jsonValue{}
	}
	out := jsonValue{v: f}
	if jv.raw != "" {
		if lo, hi, ok := jsonField(jv.raw, 0, key); ok {
			out.raw = jv.raw[lo:hi]
		}
	}
	return out
}

// elems returns the elements of array jv.
func (jv jsonValue) elems() []jsonValue {
	out := make([]jsonValue, len(jv.v.Elems))
	for i := range jv.v.Elems {
		out[i].v = &jv.v.Elems[i]
	}
	if jv.raw != "" {
		i := 0
		jsonElems(jv.raw, 0, func(_ string, lo, hi int) bool {
			if i < len(out) {
				out[i].raw = jv.raw[lo:hi]
			}
			i++
			return true
		})
	}
	return out
}

// jsonToDatum converts jv to a value of type t.
func jsonToDatum(env *exec.Env, t exec.T, jv jsonValue) (exec.Datum, error) {
	v := jv.v
	if v == nil || v.Kind == types.JSONNull {
		return exec.Null, nil
	}
	switch {
	case t.OID == exec.OIDJSON && jv.raw != "":
		return exec.ParseText(t, jv.raw, env.Settings)
	case t.OID == exec.OIDJSON || t.OID == exec.OIDJSONB:
		return exec.ParseText(t, string(types.AppendJSONB(nil, v)), env.Settings)
	case exec.IsArrayType(t.OID) && t.OID != exec.OIDInt2Vector && t.OID != exec.OIDOidVector:
		if v.Kind == types.JSONString {
			return exec.ParseText(t, v.Str, env.Settings)
		}
		if v.Kind != types.JSONArray {
			return exec.Null, errExpectedJSONArray()
		}
		return jsonToArray(env, t, jv)
	case exec.KindOf(t.OID) == exec.KindRecord && t.OID != exec.OIDRecord:
		switch v.Kind {
		case types.JSONString:
			return exec.ParseText(t, v.Str, env.Settings)
		case types.JSONArray:
			return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "cannot call populate_composite on an array")
		case types.JSONObject:
			return PopulateRecord(env, t, exec.Null, jv)
		}
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "cannot call populate_composite on a scalar")
	case v.Kind == types.JSONString:
		return exec.ParseText(t, v.Str, env.Settings)
	}
	return exec.ParseText(t, string(types.AppendJSONB(nil, v)), env.Settings)
}

func errExpectedJSONArray() error {
	return pgerr.New(pgerr.InvalidParameterValue, "expected JSON array")
}

func errMalformedJSONArray() error {
	return pgerr.New(pgerr.InvalidParameterValue, "malformed JSON array").
		WithDetail("Multidimensional arrays must have sub-arrays with matching dimensions.")
}

// jsonToArray converts JSON array v to a SQL array of type t: its depth
// is that of its first elements, and every sub-array of a level must
// have the same length.
func jsonToArray(env *exec.Env, t exec.T, jv jsonValue) (exec.Datum, error) {
	var dims []int32
	for e := jv.v; ; e = &e.Elems[0] {
		dims = append(dims, int32(len(e.Elems)))
		if len(e.Elems) == 0 || e.Elems[0].Kind != types.JSONArray {
			break
		}
	}
	elem := exec.ElemType(t)
	var elems []exec.Datum
	var walk func(a jsonValue, depth int) error
	walk = func(a jsonValue, depth int) error {
		if int32(len(a.v.Elems)) != dims[depth] {
			return errMalformedJSONArray()
		}
		for _, e := range a.elems() {
			if depth+1 < len(dims) {
				if e.v.Kind != types.JSONArray {
					return errExpectedJSONArray()
				}
				if err := walk(e, depth+1); err != nil {
					return err
				}
				continue
			}
			if e.v.Kind == types.JSONArray && exec.KindOf(elem.OID) != exec.KindJSON {
				return errMalformedJSONArray()
			}
			d, err := jsonToDatum(env, elem, e)
			if err != nil {
				return err
			}
			elems = append(elems, d)
		}
		return nil
	}
	if err := walk(jv, 0); err != nil {
		return exec.Null, err
	}
	if dims[len(dims)-1] == 0 {
		return exec.NewArray(elem.OID, []exec.Datum{}), nil
	}
	a := &exec.Array{Elem: elem.OID, Elems: elems, Dims: dims, Lower: make([]int32, len(dims))}
	for i := range a.Lower {
		a.Lower[i] = 1
	}
	for _, e := range elems {
		if e.IsNull() {
			a.HasNul = true
			break
		}
	}
	return exec.DArray(a), nil
}

// PopulateRecord returns a record of composite type t whose fields are the
// members of JSON object obj of their names, or base's fields (when base
// is not NULL) where obj has no such member.
//
// An anonymous record type takes its fields from base, named f1, f2 ...
// as ROW(...)'s are.
func PopulateRecord(env *exec.Env, t exec.T, base exec.Datum, obj jsonValue) (exec.Datum, error) {
	ut, err := recordShape(env, t, base)
	if err != nil {
		return exec.Null, err
	}
	n := len(ut.FieldTypes)
	r := &exec.Record{Type: t.OID, Fields: make([]exec.Datum, n), Types: make([]exec.T, n)}
	for i := range r.Fields {
		r.Types[i] = exec.T{OID: uint32(ut.FieldTypes[i]), Typmod: ut.FieldTypmods[i]}
		v := obj.field(ut.FieldNames[i])
		if v.v == nil {
			if !base.IsNull() && i < len(base.Record().Fields) {
				r.Fields[i] = base.Record().Fields[i]
			}
			continue
		}
		if r.Fields[i], err = jsonToDatum(env, r.Types[i], v); err != nil {
			return exec.Null, err
		}
	}
	return exec.DRecord(r), nil
}

// recordShape returns the fields of record type t: a composite type's,
// or base's for an anonymous record.
func recordShape(env *exec.Env, t exec.T, base exec.Datum) (*types.UserType, error) {
	if t.OID != exec.OIDRecord {
		return exec.LookupUserType(t, env.Settings)
	}
	if base.IsNull() {
		return nil, errAnonymousRecord("populate_record")
	}
	r := base.Record()
	ut := &types.UserType{Oid: types.Oid(exec.OIDRecord)}
	for i, ft := range r.Types {
		ut.FieldNames = append(ut.FieldNames, "f"+strconv.Itoa(i+1))
		ut.FieldTypes = append(ut.FieldTypes, types.Oid(ft.OID))
		ut.FieldTypmods = append(ut.FieldTypmods, ft.Typmod)
	}
	return ut, nil
}

// populateObjects is the object (or, for the set forms, the objects) of a
// populate or to_record call's JSON argument; raw says it is json, whose
// text the values keep.
func populateObjects(name string, set, raw bool, arg exec.Datum) ([]jsonValue, error) {
	v, err := types.ParseJSONB(arg.S)
	if err != nil {
		return nil, err
	}
	root := jsonValue{v: &v}
	if raw {
		lo, hi := jsonRoot(arg.S)
		root.raw = arg.S[lo:hi]
	}
	switch {
	case set && v.Kind != types.JSONArray:
		return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on a non-array", name)
	case set:
		objs := root.elems()
		for _, o := range objs {
			if o.v.Kind != types.JSONObject {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "argument of %s must be an array of objects", name)
			}
		}
		return objs, nil
	case v.Kind == types.JSONArray:
		return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on an array", name)
	case v.Kind != types.JSONObject:
		return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on a scalar", name)
	}
	return []jsonValue{root}, nil
}

// errAnonymousRecord is the error of a populate call that has neither a
// record to take the columns from nor a column definition list.
func errAnonymousRecord(name string) error {
	return pgerr.New(pgerr.FeatureNotSupported, "could not determine row type for result of %s", name).
		WithHint("Provide a non-null record argument, or call the function in the FROM clause using a column definition list.")
}

// errNotRowType is the error of a populate call whose first argument is
// not of a composite type.
func errNotRowType(name string) error {
	return pgerr.New(pgerr.DatatypeMismatch, "first argument of %s must be a row type", name)
}

func registerJSONPopulate() {
	for _, jt := range []uint32{exec.OIDJSON, exec.OIDJSONB} {
		prefix := "json"
		if jt == exec.OIDJSONB {
			prefix = "jsonb"
		}
		name := prefix + "_populate_record"
		exec.Register(&exec.Func{Name: name, Args: []uint32{exec.OIDAnyElement, jt}, Ret: exec.OIDAnyElement, Build: func(args []exec.T) (exec.Fn, exec.T, error) {
			t := args[0]
			if exec.KindOf(t.OID) != exec.KindRecord {
				return nil, exec.T{}, errNotRowType(name)
			}
			return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
				if t.OID == exec.OIDRecord && a[0].IsNull() {
					return exec.Null, errAnonymousRecord(name)
				}
				if a[1].IsNull() {
					return a[0], nil
				}
				objs, err := populateObjects(name, false, jt == exec.OIDJSON, a[1])
				if err != nil {
					return exec.Null, err
				}
				return PopulateRecord(env, t, a[0], objs[0])
			}, t, nil
		}})
		setName := name + "set"
		exec.RegisterSRF(&exec.Func{Name: setName, Args: []uint32{exec.OIDAnyElement, jt}, Ret: exec.OIDAnyElement}, func(args []exec.T) *exec.SRF {
			t := args[0]
			return &exec.SRF{Cols: []exec.ResultColumn{{Name: setName, T: t}}, NullArgs: true, Rows: func(env *exec.Env, a []exec.Datum) ([]exec.Row, error) {
				if exec.KindOf(t.OID) != exec.KindRecord {
					return nil, errNotRowType(setName)
				}
				if a[1].IsNull() {
					return nil, nil
				}
				objs, err := populateObjects(setName, true, jt == exec.OIDJSON, a[1])
				if err != nil {
					return nil, err
				}
				rows := make([]exec.Row, len(objs))
				for i, o := range objs {
					d, err := PopulateRecord(env, t, a[0], o)
					if err != nil {
						return nil, err
					}
					rows[i] = exec.Row{d}
				}
				return rows, nil
			}}
		})
	}
}
