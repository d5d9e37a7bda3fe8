package exec

import (
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// Enum support functions: enum_first, enum_last and enum_range over the
// labels of an argument's enum type, in sort order. Only the argument's
// type matters to enum_first, enum_last and one-argument enum_range, so
// they are not strict: enum_first(NULL::mood) is mood's first label.
func init() {
	Register(&Func{Name: "enum_first", Args: []uint32{OIDAnyEnum}, Ret: OIDAnyEnum, Build: enumEnd(false)})
	Register(&Func{Name: "enum_last", Args: []uint32{OIDAnyEnum}, Ret: OIDAnyEnum, Build: enumEnd(true)})
	Register(&Func{Name: "enum_range", Args: []uint32{OIDAnyEnum}, Ret: OIDAnyArray, Build: func(args []T) (Fn, T, error) {
		t := args[0]
		return func(env *Env, _ []Datum) (Datum, error) {
			return enumRange(env, t, Null, Null)
		}, ArrayType(t), nil
	}})
	Register(&Func{Name: "enum_range", Args: []uint32{OIDAnyEnum, OIDAnyEnum}, Ret: OIDAnyArray, Build: func(args []T) (Fn, T, error) {
		t := args[0]
		return func(env *Env, a []Datum) (Datum, error) {
			return enumRange(env, t, a[0], a[1])
		}, ArrayType(t), nil
	}})
}

// enumEnd builds enum_first (last false) or enum_last.
func enumEnd(last bool) func(args []T) (Fn, T, error) {
	return func(args []T) (Fn, T, error) {
		t := args[0]
		return func(env *Env, _ []Datum) (Datum, error) {
			ut, err := enumType(env, t)
			if err != nil || len(ut.Labels) == 0 {
				return Null, err
			}
			i := 0
			if last {
				i = len(ut.Labels) - 1
			}
			return DEnum(ut.Labels[i], ut.Sorts[i]), nil
		}, t, nil
	}
}

// enumRange returns the labels of enum t from lo to hi inclusive, a NULL
// bound meaning the first or the last label.
func enumRange(env *Env, t T, lo, hi Datum) (Datum, error) {
	ut, err := enumType(env, t)
	if err != nil {
		return Null, err
	}
	var elems []Datum
	for i, s := range ut.Sorts {
		if (lo.IsNull() || s >= lo.F) && (hi.IsNull() || s <= hi.F) {
			elems = append(elems, DEnum(ut.Labels[i], s))
		}
	}
	if elems == nil {
		elems = []Datum{}
	}
	return NewArray(t.OID, elems), nil
}

// enumType finds the labels of enum type t.
func enumType(env *Env, t T) (*types.UserType, error) {
	if KindOf(t.OID) != KindEnum {
		return nil, pgerr.New(pgerr.WrongObjectType, "%s is not an enum", TypeNameIn(env.Settings, t.OID))
	}
	return LookupUserType(t, env.Settings)
}

// RelabelEnum returns d, a value of type t, with every value of enum type
// enum whose sort order is sort relabelled to label, looking into arrays
// and records; changed reports whether anything was. ALTER TYPE ...
// RENAME VALUE rewrites stored rows with it, as rows and index keys carry
// an enum's label next to its sort order.
func RelabelEnum(d Datum, t T, enum uint32, sort float64, label string) (out Datum, changed bool) {
	switch {
	case d.IsNull():
		return d, false
	case d.Kind == KindEnum && t.OID == enum && d.F == sort:
		return DEnum(label, sort), true
	case d.Kind == KindArray:
		a := d.Array()
		elem := ElemType(t)
		var elems []Datum
		for i, e := range a.Elems {
			if ne, ok := RelabelEnum(e, elem, enum, sort, label); ok {
				if elems == nil {
					elems = append([]Datum(nil), a.Elems...)
				}
				elems[i] = ne
			}
		}
		if elems == nil {
			return d, false
		}
		na := *a
		na.Elems = elems
		return DArray(&na), true
	case d.Kind == KindRecord:
		r := d.Record()
		var fields []Datum
		for i, f := range r.Fields {
			if nf, ok := RelabelEnum(f, r.Types[i], enum, sort, label); ok {
				if fields == nil {
					fields = append([]Datum(nil), r.Fields...)
				}
				fields[i] = nf
			}
		}
		if fields == nil {
			return d, false
		}
		return DRecord(&Record{Type: r.Type, Fields: fields, Types: r.Types}), true
	}
	return d, false
}

// MayHoldEnum reports whether a column of type t can hold values of enum
// type enum: the enum itself, its array, or a composite.
func MayHoldEnum(t T, enum uint32) bool {
	if t.OID == enum || t.OID == uint32(types.ArrayOf(types.Oid(enum))) {
		return true
	}
	k := KindOf(t.OID)
	return k == KindRecord || k == KindArray && KindOf(ElemType(t).OID) == KindRecord
}
