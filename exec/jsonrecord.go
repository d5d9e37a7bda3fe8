package exec

import (
	"strconv"

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

// jsonToDatum converts v to a value of type t.
func jsonToDatum(env *Env, t T, v *types.JSONB) (Datum, error) {
	if v == nil || v.Kind == types.JSONNull {
		return Null, nil
	}
	switch {
	case t.OID == OIDJSON || t.OID == OIDJSONB:
		return ParseText(t, string(types.AppendJSONB(nil, v)), env.Settings)
	case IsArrayType(t.OID) && t.OID != OIDInt2Vector && t.OID != OIDOidVector:
		if v.Kind == types.JSONString {
			return ParseText(t, v.Str, env.Settings)
		}
		if v.Kind != types.JSONArray {
			return Null, errExpectedJSONArray()
		}
		return jsonToArray(env, t, v)
	case KindOf(t.OID) == KindRecord && t.OID != OIDRecord:
		switch v.Kind {
		case types.JSONString:
			return ParseText(t, v.Str, env.Settings)
		case types.JSONArray:
			return Null, pgerr.New(pgerr.InvalidParameterValue, "cannot call populate_composite on an array")
		case types.JSONObject:
			return PopulateRecord(env, t, Null, v)
		}
		return Null, pgerr.New(pgerr.InvalidParameterValue, "cannot call populate_composite on a scalar")
	case v.Kind == types.JSONString:
		return ParseText(t, v.Str, env.Settings)
	}
	return ParseText(t, string(types.AppendJSONB(nil, v)), env.Settings)
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
func jsonToArray(env *Env, t T, v *types.JSONB) (Datum, error) {
	var dims []int32
	for e := v; ; e = &e.Elems[0] {
		dims = append(dims, int32(len(e.Elems)))
		if len(e.Elems) == 0 || e.Elems[0].Kind != types.JSONArray {
			break
		}
	}
	elem := ElemType(t)
	var elems []Datum
	var walk func(a *types.JSONB, depth int) error
	walk = func(a *types.JSONB, depth int) error {
		if int32(len(a.Elems)) != dims[depth] {
			return errMalformedJSONArray()
		}
		for i := range a.Elems {
			e := &a.Elems[i]
			if depth+1 < len(dims) {
				if e.Kind != types.JSONArray {
					return errExpectedJSONArray()
				}
				if err := walk(e, depth+1); err != nil {
					return err
				}
				continue
			}
			if e.Kind == types.JSONArray && KindOf(elem.OID) != KindJSON {
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
	if err := walk(v, 0); err != nil {
		return Null, err
	}
	if dims[len(dims)-1] == 0 {
		return NewArray(elem.OID, []Datum{}), nil
	}
	a := &Array{Elem: elem.OID, Elems: elems, Dims: dims, Lower: make([]int32, len(dims))}
	for i := range a.Lower {
		a.Lower[i] = 1
	}
	for _, e := range elems {
		if e.IsNull() {
			a.HasNul = true
			break
		}
	}
	return DArray(a), nil
}

// PopulateRecord returns a record of composite type t whose fields are the
// members of JSON object obj of their names, or base's fields (when base
// is not NULL) where obj has no such member.
//
// An anonymous record type takes its fields from base, named f1, f2 ...
// as ROW(...)'s are.
func PopulateRecord(env *Env, t T, base Datum, obj *types.JSONB) (Datum, error) {
	ut, err := recordShape(env, t, base)
	if err != nil {
		return Null, err
	}
	n := len(ut.FieldTypes)
	r := &Record{Type: t.OID, Fields: make([]Datum, n), Types: make([]T, n)}
	for i := range r.Fields {
		r.Types[i] = T{OID: uint32(ut.FieldTypes[i]), Typmod: ut.FieldTypmods[i]}
		v, ok := obj.Field(ut.FieldNames[i])
		if !ok {
			if !base.IsNull() && i < len(base.Record().Fields) {
				r.Fields[i] = base.Record().Fields[i]
			}
			continue
		}
		if r.Fields[i], err = jsonToDatum(env, r.Types[i], v); err != nil {
			return Null, err
		}
	}
	return DRecord(r), nil
}

// recordShape returns the fields of record type t: a composite type's,
// or base's for an anonymous record.
func recordShape(env *Env, t T, base Datum) (*types.UserType, error) {
	if t.OID != OIDRecord {
		return LookupUserType(t, env.Settings)
	}
	if base.IsNull() {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "could not determine row type for result of populate_record")
	}
	r := base.Record()
	ut := &types.UserType{Oid: types.Oid(OIDRecord)}
	for i, ft := range r.Types {
		ut.FieldNames = append(ut.FieldNames, "f"+strconv.Itoa(i+1))
		ut.FieldTypes = append(ut.FieldTypes, types.Oid(ft.OID))
		ut.FieldTypmods = append(ut.FieldTypmods, ft.Typmod)
	}
	return ut, nil
}

// populateObjects is the object (or, for the set forms, the objects) of a
// populate or to_record call's JSON argument.
func populateObjects(name string, set bool, arg Datum) ([]*types.JSONB, error) {
	v, err := types.ParseJSONB(arg.S)
	if err != nil {
		return nil, err
	}
	switch {
	case set && v.Kind != types.JSONArray:
		return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on a non-array", name)
	case set:
		objs := make([]*types.JSONB, len(v.Elems))
		for i := range v.Elems {
			if v.Elems[i].Kind != types.JSONObject {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "argument of %s must be an array of objects", name)
			}
			objs[i] = &v.Elems[i]
		}
		return objs, nil
	case v.Kind == types.JSONArray:
		return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on an array", name)
	case v.Kind != types.JSONObject:
		return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on a scalar", name)
	}
	return []*types.JSONB{&v}, nil
}

// errNotRowType is the error of a populate call whose first argument is
// not of a composite type.
func errNotRowType(name string) error {
	return pgerr.New(pgerr.DatatypeMismatch, "first argument of %s must be a row type", name)
}

func init() {
	for _, jt := range []uint32{OIDJSON, OIDJSONB} {
		prefix := "json"
		if jt == OIDJSONB {
			prefix = "jsonb"
		}
		name := prefix + "_populate_record"
		Register(&Func{Name: name, Args: []uint32{OIDAnyElement, jt}, Ret: OIDAnyElement, Build: func(args []T) (Fn, T, error) {
			t := args[0]
			if KindOf(t.OID) != KindRecord {
				return nil, T{}, errNotRowType(name)
			}
			return func(env *Env, a []Datum) (Datum, error) {
				if a[1].IsNull() {
					return a[0], nil
				}
				objs, err := populateObjects(name, false, a[1])
				if err != nil {
					return Null, err
				}
				return PopulateRecord(env, t, a[0], objs[0])
			}, t, nil
		}})
		setName := name + "set"
		RegisterSRF(&Func{Name: setName, Args: []uint32{OIDAnyElement, jt}, Ret: OIDAnyElement}, func(args []T) *SRF {
			t := args[0]
			return &SRF{Cols: []ResultColumn{{Name: setName, T: t}}, NullArgs: true, Rows: func(env *Env, a []Datum) ([]Row, error) {
				if KindOf(t.OID) != KindRecord {
					return nil, errNotRowType(setName)
				}
				if a[1].IsNull() {
					return nil, nil
				}
				objs, err := populateObjects(setName, true, a[1])
				if err != nil {
					return nil, err
				}
				rows := make([]Row, len(objs))
				for i, o := range objs {
					d, err := PopulateRecord(env, t, a[0], o)
					if err != nil {
						return nil, err
					}
					rows[i] = Row{d}
				}
				return rows, nil
			}}
		})
	}
}
