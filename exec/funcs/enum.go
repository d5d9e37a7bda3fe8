package funcs

import (
	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// Enum support functions: enum_first, enum_last and enum_range over the
// labels of an argument's enum type, in sort order. Only the argument's
// type matters to enum_first, enum_last and one-argument enum_range, so
// they are not strict: enum_first(NULL::mood) is mood's first label.
func registerEnum() {
	exec.Register(&exec.Func{Name: "enum_first", Args: []uint32{exec.OIDAnyEnum}, Ret: exec.OIDAnyEnum, Build: enumEnd(false)})
	exec.Register(&exec.Func{Name: "enum_last", Args: []uint32{exec.OIDAnyEnum}, Ret: exec.OIDAnyEnum, Build: enumEnd(true)})
	exec.Register(&exec.Func{Name: "enum_range", Args: []uint32{exec.OIDAnyEnum}, Ret: exec.OIDAnyArray, Build: func(args []exec.T) (exec.Fn, exec.T, error) {
		t := args[0]
		return func(env *exec.Env, _ []exec.Datum) (exec.Datum, error) {
			return enumRange(env, t, exec.Null, exec.Null)
		}, exec.ArrayType(t), nil
	}})
	exec.Register(&exec.Func{Name: "enum_range", Args: []uint32{exec.OIDAnyEnum, exec.OIDAnyEnum}, Ret: exec.OIDAnyArray, Build: func(args []exec.T) (exec.Fn, exec.T, error) {
		t := args[0]
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return enumRange(env, t, a[0], a[1])
		}, exec.ArrayType(t), nil
	}})
}

// enumEnd builds enum_first (last false) or enum_last.
func enumEnd(last bool) func(args []exec.T) (exec.Fn, exec.T, error) {
	return func(args []exec.T) (exec.Fn, exec.T, error) {
		t := args[0]
		return func(env *exec.Env, _ []exec.Datum) (exec.Datum, error) {
			ut, err := enumType(env, t)
			if err != nil || len(ut.Labels) == 0 {
				return exec.Null, err
			}
			i := 0
			if last {
				i = len(ut.Labels) - 1
			}
			return exec.DEnum(ut.Labels[i], ut.Sorts[i]), nil
		}, t, nil
	}
}

// enumRange returns the labels of enum t from lo to hi inclusive, a NULL
// bound meaning the first or the last label.
func enumRange(env *exec.Env, t exec.T, lo, hi exec.Datum) (exec.Datum, error) {
	ut, err := enumType(env, t)
	if err != nil {
		return exec.Null, err
	}
	var elems []exec.Datum
	for i, s := range ut.Sorts {
		if (lo.IsNull() || s >= lo.F) && (hi.IsNull() || s <= hi.F) {
			elems = append(elems, exec.DEnum(ut.Labels[i], s))
		}
	}
	if elems == nil {
		elems = []exec.Datum{}
	}
	return exec.NewArray(t.OID, elems), nil
}

// enumType finds the labels of enum type t.
func enumType(env *exec.Env, t exec.T) (*types.UserType, error) {
	if exec.KindOf(t.OID) != exec.KindEnum {
		return nil, pgerr.New(pgerr.WrongObjectType, "%s is not an enum", exec.TypeNameIn(env.Settings, t.OID))
	}
	return exec.LookupUserType(t, env.Settings)
}

// RelabelEnum returns d, a value of type t, with every value of enum type
// enum whose sort order is sort relabelled to label, looking into arrays
// and records; changed reports whether anything was. ALTER TYPE ...
// RENAME VALUE rewrites stored rows with it, as rows and index keys carry
// an enum's label next to its sort order.
func RelabelEnum(d exec.Datum, t exec.T, enum uint32, sort float64, label string) (out exec.Datum, changed bool) {
	switch {
	case d.IsNull():
		return d, false
	case d.Kind == exec.KindEnum && t.OID == enum && d.F == sort:
		return exec.DEnum(label, sort), true
	case d.Kind == exec.KindArray:
		a := d.Array()
		elem := exec.ElemType(t)
		var elems []exec.Datum
		for i, e := range a.Elems {
			if ne, ok := RelabelEnum(e, elem, enum, sort, label); ok {
				if elems == nil {
					elems = append([]exec.Datum(nil), a.Elems...)
				}
				elems[i] = ne
			}
		}
		if elems == nil {
			return d, false
		}
		na := *a
		na.Elems = elems
		return exec.DArray(&na), true
	case d.Kind == exec.KindRecord:
		r := d.Record()
		var fields []exec.Datum
		for i, f := range r.Fields {
			if nf, ok := RelabelEnum(f, r.Types[i], enum, sort, label); ok {
				if fields == nil {
					fields = append([]exec.Datum(nil), r.Fields...)
				}
				fields[i] = nf
			}
		}
		if fields == nil {
			return d, false
		}
		return exec.DRecord(&exec.Record{Type: r.Type, Fields: fields, Types: r.Types}), true
	}
	return d, false
}

// MayHoldEnum reports whether a column of type t can hold values of enum
// type enum: the enum itself, its array, or a composite.
func MayHoldEnum(t exec.T, enum uint32) bool {
	if t.OID == enum || t.OID == uint32(types.ArrayOf(types.Oid(enum))) {
		return true
	}
	k := exec.KindOf(t.OID)
	return k == exec.KindRecord || k == exec.KindArray && exec.KindOf(exec.ElemType(t).OID) == exec.KindRecord
}
