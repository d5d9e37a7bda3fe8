package exec

import (
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// Polymorphic parameters, as PostgreSQL resolves them
// (check_generic_type_consistency and enforce_generic_type_consistency in
// parse_coerce.c). Two independent families:
//
//	anyelement, anyarray, anynonarray: every argument of the family
//	    must agree on one element type (an anyarray argument contributes
//	    its element type); unknown literals take it.
//	anycompatible, anycompatiblearray, anycompatiblenonarray: the
//	    arguments' element types are unified to their common type, as a
//	    CASE or UNION would; all-unknown arguments resolve as text.
//
// A polymorphic result type is the family's element type, or its array.
//
// A range argument bound to anyrange (anycompatiblerange) contributes its
// subtype to the family's element type, and a range result is the
// range type of such an argument; a multirange bound to anymultirange
// contributes its range type. Only the built-in range types have
// multirange types.
const (
	OIDAnyArray                uint32 = 2277
	OIDAnyNonArray             uint32 = 2776
	OIDAnyCompatible           uint32 = 5077
	OIDAnyCompatibleArray      uint32 = 5078
	OIDAnyCompatibleNonArray   uint32 = 5079
	OIDAnyEnum                 uint32 = 3500 // anyelement that must be an enum
	OIDAnyRange                uint32 = 3831
	OIDAnyMultiRange           uint32 = 4537
	OIDAnyCompatibleRange      uint32 = 5080
	OIDAnyCompatibleMultiRange uint32 = 4538
)

func init() {
	typeNames[OIDAnyArray] = "anyarray"
	typeNames[OIDAnyNonArray] = "anynonarray"
	typeNames[OIDAnyCompatible] = "anycompatible"
	typeNames[OIDAnyCompatibleArray] = "anycompatiblearray"
	typeNames[OIDAnyCompatibleNonArray] = "anycompatiblenonarray"
	typeNames[OIDAnyEnum] = "anyenum"
	typeNames[OIDAnyRange] = "anyrange"
	typeNames[OIDAnyMultiRange] = "anymultirange"
	typeNames[OIDAnyCompatibleRange] = "anycompatiblerange"
	typeNames[OIDAnyCompatibleMultiRange] = "anycompatiblemultirange"
}

// polyFamily tells whether oid is a polymorphic pseudo-type: the family
// ('e' anyelement, 'c' anycompatible, 0 none) and whether it stands for
// an array.
func polyFamily(oid uint32) (family byte, array bool) {
	switch oid {
	case OIDAnyElement, OIDAnyNonArray, OIDAnyEnum, OIDAnyRange, OIDAnyMultiRange:
		return 'e', false
	case OIDAnyArray:
		return 'e', true
	case OIDAnyCompatible, OIDAnyCompatibleNonArray, OIDAnyCompatibleRange, OIDAnyCompatibleMultiRange:
		return 'c', false
	case OIDAnyCompatibleArray:
		return 'c', true
	}
	return 0, false
}

// IsPolymorphic reports whether oid is a polymorphic pseudo-type.
func IsPolymorphic(oid uint32) bool {
	f, _ := polyFamily(oid)
	return f != 0
}

// polyAccepts reports whether an argument of type arg can bind to the
// polymorphic parameter param at all (before the families are checked).
func polyAccepts(arg, param uint32) bool {
	if arg == OIDUnknown {
		return true
	}
	switch param {
	case OIDAnyArray, OIDAnyCompatibleArray:
		return IsArrayType(arg)
	case OIDAnyNonArray, OIDAnyCompatibleNonArray:
		return !IsArrayType(arg)
	case OIDAnyEnum:
		return KindOf(arg) == KindEnum
	case OIDAnyRange, OIDAnyCompatibleRange:
		return KindOf(arg) == KindRange
	case OIDAnyMultiRange, OIDAnyCompatibleMultiRange:
		return KindOf(arg) == KindMultirange
	}
	return true
}

// isMultirangePoly reports whether oid is anymultirange or
// anycompatiblemultirange.
func isMultirangePoly(oid uint32) bool {
	return oid == OIDAnyMultiRange || oid == OIDAnyCompatibleMultiRange
}

// rangePolyArg returns the range type an argument of type arg bound to
// range pseudo-type p gives its family: a multirange's range type.
func rangePolyArg(p uint32, arg T) T {
	if isMultirangePoly(p) {
		if r := types.MultirangeRange(types.Oid(arg.OID)); r != 0 {
			return T{OID: uint32(r), Typmod: -1}
		}
	}
	return T{OID: arg.OID, Typmod: -1}
}

// isRangePoly reports whether oid is a range member of a family.
func isRangePoly(oid uint32) bool {
	switch oid {
	case OIDAnyRange, OIDAnyMultiRange, OIDAnyCompatibleRange, OIDAnyCompatibleMultiRange:
		return true
	}
	return false
}

// resolvePoly binds the polymorphic parameters of params to the argument
// types args: it returns the parameter types with every polymorphic one
// replaced by its actual type, or an error if the arguments disagree
// (a *polyMismatch) or leave a family undetermined.
//
// An argument type may itself be polymorphic where CREATE AGGREGATE
// checks its functions over its declared types: it binds only to the
// same pseudo-type, tells nothing of its family's type, and a family
// left undetermined by it stays polymorphic (PostgreSQL's allow_poly).
// As in check_generic_type_consistency, an element pseudo-type
// (anyelement) does not agree with an actual element type beside it.
func resolvePoly(params []uint32, args []T) ([]uint32, error) {
	return resolvePolyIn(params, args, nil)
}

// rangeElem returns the subtype of range type t, the element type it
// gives its polymorphic family; 0 when the catalog of st does not tell.
func rangeElem(t T, st *Settings) uint32 {
	sub, err := RangeSubtype(t, st)
	if err != nil {
		return 0
	}
	return sub.OID
}

// resolvePolyIn is resolvePoly where the session's settings st find the
// subtypes of user range types.
func resolvePolyIn(params []uint32, args []T, st *Settings) ([]uint32, error) {
	var rangeT [2]uint32 // the range type of each family ('e', 'c')
	var elem uint32      // anyelement family's element type
	elemFrom := -1       // the argument that gave it
	var compat []T       // anycompatible family's known element types
	hasElem, hasCompat := false, false
	polyIn := map[byte]bool{}     // families with a polymorphic argument
	polyElemIn := map[byte]bool{} // ... of an element pseudo-type
	for i, p := range params {
		fam, isArr := polyFamily(p)
		if fam != 0 && IsPolymorphic(args[i].OID) {
			if args[i].OID != p {
				return nil, mismatch("argument of type %s does not bind to %s", TypeName(args[i].OID), TypeName(p))
			}
			polyIn[fam], polyElemIn[fam] = true, polyElemIn[fam] || !isArr
			continue
		}
		if fam == 0 || args[i].OID == OIDUnknown {
			if fam == 'e' {
				hasElem = true
			} else if fam == 'c' {
				hasCompat = true
			}
			continue
		}
		e := args[i].OID
		if isArr {
			e = ElemType(args[i]).OID
		}
		if isRangePoly(p) {
			rt := rangePolyArg(p, args[i])
			if e = rangeElem(rt, st); e == 0 {
				e = rt.OID // a user range without the catalog: itself
			}
			fi := 0
			if fam == 'c' {
				fi = 1
			}
			if rangeT[fi] != 0 && rangeT[fi] != rt.OID {
				return nil, mismatch(`arguments declared "anyrange" are not all alike`).withDetail(T{OID: rangeT[fi]}, rt)
			}
			rangeT[fi] = rt.OID
		}
		switch fam {
		case 'e':
			hasElem = true
			if elem != 0 && elem != e {
				return nil, notAlike(params[elemFrom], args[elemFrom], p, args[i])
			}
			elem, elemFrom = e, i
		case 'c':
			hasCompat = true
			compat = append(compat, T{OID: e, Typmod: -1})
		}
	}
	if polyElemIn['e'] && elem != 0 || polyElemIn['c'] && len(compat) > 0 {
		return nil, mismatch("a polymorphic argument does not agree with an actual one")
	}
	if hasElem && elem == 0 && !polyIn['e'] {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "could not determine polymorphic type because input has type unknown")
	}
	var common uint32
	if rangeT[1] != 0 && rangeElem(T{OID: rangeT[1]}, st) != 0 {
		// A range's subtype is the family's type: the other arguments
		// must convert to it (check_generic_type_consistency).
		common = rangeElem(T{OID: rangeT[1]}, st)
		for _, t := range compat {
			if !CanCoerce(t.OID, common) {
				return nil, mismatch("arguments of anycompatible family cannot be cast to a common type")
			}
		}
	} else if hasCompat && (len(compat) > 0 || !polyIn['c']) {
		c, ok := CommonType(compat)
		if !ok {
			for _, t := range compat {
				if TypeCategory(t.OID) != TypeCategory(c.OID) {
					return nil, mismatch("argument types %s and %s cannot be matched", TypeName(c.OID), TypeName(t.OID))
				}
			}
			return nil, mismatch("arguments of anycompatible family cannot be cast to a common type")
		}
		for _, t := range compat {
			if !CanCoerce(t.OID, c.OID) {
				return nil, mismatch("arguments of anycompatible family cannot be cast to a common type")
			}
		}
		common = c.OID
	}
	out := make([]uint32, len(params))
	for i, p := range params {
		out[i] = p
		fam, isArr := polyFamily(p)
		e := elem
		if fam == 'c' {
			e = common
		}
		switch {
		case fam == 0:
		case e == 0:
			// Undetermined but for polymorphic arguments: it stays so.
		case isRangePoly(p):
			r := rangeT[0]
			if fam == 'c' {
				r = rangeT[1]
			}
			if r == 0 {
				// Several range types may share a subtype: an unknown
				// literal's cannot be deduced from it.
				return nil, pgerr.New(pgerr.DatatypeMismatch, "could not determine polymorphic type %s because input has type unknown", TypeName(p))
			}
			out[i] = r
			if isMultirangePoly(p) {
				if out[i] = MultirangeOf(r); out[i] == 0 {
					return nil, mismatch("could not find multirange type for data type %s", TypeName(rangeElem(T{OID: r}, st)))
				}
			}
		case isArr:
			a := ArrayType(T{OID: e}).OID
			if a == 0 {
				return nil, mismatch("could not find array type for data type %s", TypeName(e))
			}
			out[i] = a
		case p == OIDAnyNonArray || p == OIDAnyCompatibleNonArray:
			if IsArrayType(e) {
				return nil, mismatch("type matched to %s is an array type: %s", TypeName(p), TypeName(e))
			}
			out[i] = e
		default:
			out[i] = e
		}
	}
	return out, nil
}

// polyMismatch is arguments that cannot bind to a candidate's
// polymorphic parameters, with PostgreSQL's error for it: in the
// resolution the candidate is then not applicable (lookupIn reports the
// missing function instead); Func.Resolve reports it.
type polyMismatch struct{ err *pgerr.Error }

func (m *polyMismatch) Error() string { return m.err.Error() }

func mismatch(format string, args ...any) *polyMismatch {
	return &polyMismatch{pgerr.New(pgerr.DatatypeMismatch, format, args...)}
}

// withDetail names the two types that disagree.
func (m *polyMismatch) withDetail(a, b T) error {
	m.err = m.err.WithDetail("%s versus %s", TypeName(a.OID), TypeName(b.OID))
	return m
}

func isPolyMismatch(err error) bool {
	_, ok := err.(*polyMismatch)
	return ok
}

// notAlike is the mismatch of two arguments of the anyelement family
// whose element types differ, as enforce_generic_type_consistency words
// it.
func notAlike(p1 uint32, a1 T, p2 uint32, a2 T) error {
	arr1, arr2 := p1 == OIDAnyArray, p2 == OIDAnyArray
	switch {
	case arr1 && arr2:
		return mismatch(`arguments declared "anyarray" are not all alike`).withDetail(a1, a2)
	case arr1 || arr2:
		if arr2 {
			a1, a2 = a2, a1
		}
		return mismatch("argument declared anyarray is not consistent with argument declared anyelement").withDetail(a1, a2)
	}
	return mismatch(`arguments declared "anyelement" are not all alike`).withDetail(a1, a2)
}

// polyResult returns the actual type of a polymorphic result ret, given
// the declared params and the resolved argument types.
func polyResult(ret uint32, params []uint32, args []T) T {
	return polyResultIn(ret, params, args, nil)
}

// polyResultIn is polyResult where st finds user range types' subtypes.
func polyResultIn(ret uint32, params []uint32, args []T, st *Settings) T {
	rfam, rArr := polyFamily(ret)
	for i, p := range params {
		fam, isArr := polyFamily(p)
		if fam != rfam || i >= len(args) || IsPolymorphic(args[i].OID) {
			continue
		}
		if isRangePoly(ret) {
			var r uint32
			switch {
			case isRangePoly(p):
				r = rangePolyArg(p, args[i]).OID
			case !isArr:
				r = uint32(types.RangeOfSubtype(types.Oid(args[i].OID)))
			}
			if r == 0 {
				continue
			}
			if isMultirangePoly(ret) {
				r = MultirangeOf(r)
			}
			return T{OID: r, Typmod: -1}
		}
		e := args[i]
		if isArr {
			e = ElemType(args[i])
		}
		if isRangePoly(p) {
			e = T{OID: rangeElem(rangePolyArg(p, args[i]), st)}
			if e.OID == 0 {
				continue
			}
		}
		e.Typmod = -1
		if rArr {
			return ArrayType(e)
		}
		return e
	}
	return T{OID: ret, Typmod: -1}
}

// HasPolymorphic reports whether any of params is polymorphic.
func HasPolymorphic(params []uint32) bool {
	for _, p := range params {
		if IsPolymorphic(p) {
			return true
		}
	}
	return false
}

// CommonType is PostgreSQL's select_common_type over the types of a CASE,
// a UNION column or an ARRAY[...]: unknowns are ignored (all unknown gives
// text); the first known type is the candidate, and a later one replaces
// it when it is of the same category and preferred, or the candidate
// converts to it implicitly and not back. ok is false when two types are
// of different categories (the caller reports "cannot be matched").
func CommonType(ts []T) (T, bool) {
	var cand T
	found := false
	for _, t := range ts {
		if t.OID == OIDUnknown {
			continue
		}
		if !found {
			cand, found = T{OID: t.OID, Typmod: -1}, true
			continue
		}
		if t.OID == cand.OID {
			continue
		}
		if TypeCategory(t.OID) != TypeCategory(cand.OID) {
			return cand, false
		}
		if !IsPreferredType(cand.OID) && CanCoerce(cand.OID, t.OID) && !CanCoerce(t.OID, cand.OID) {
			cand = T{OID: t.OID, Typmod: -1}
		}
	}
	if !found {
		return TText, true
	}
	return cand, true
}

// PolyType returns the actual type of declared, a result or OUT
// argument type of a user function whose input types params were bound
// to args (as LookupIn resolved them): declared itself unless it is
// polymorphic.
func PolyType(declared uint32, params []uint32, args []T) T {
	return PolyTypeIn(nil, declared, params, args)
}

// PolyTypeIn is PolyType where the session's settings st find the
// subtypes of user range types.
func PolyTypeIn(st *Settings, declared uint32, params []uint32, args []T) T {
	if !IsPolymorphic(declared) {
		return T{OID: declared, Typmod: -1}
	}
	return polyResultIn(declared, params, args, st)
}

// PolySignatureDetail is PostgreSQL's check_valid_polymorphic_signature:
// a polymorphic result (or OUT argument) type ret needs an input of its
// family to be deduced from; a range one, a range input. It returns the
// DETAIL of the "cannot determine result data type" error (42P13), ""
// when ret can be determined from inputs.
func PolySignatureDetail(ret uint32, inputs []uint32) string {
	fam, _ := polyFamily(ret)
	if fam == 0 {
		return ""
	}
	var want string
	ok := func(p uint32) bool { f, _ := polyFamily(p); return f == fam }
	switch {
	case ret == OIDAnyRange || ret == OIDAnyMultiRange:
		// Several range types can share an element type.
		want = "anyrange or anymultirange"
		ok = func(p uint32) bool { return p == OIDAnyRange || p == OIDAnyMultiRange }
	case ret == OIDAnyCompatibleRange || ret == OIDAnyCompatibleMultiRange:
		want = "anycompatiblerange or anycompatiblemultirange"
		ok = func(p uint32) bool { return p == OIDAnyCompatibleRange || p == OIDAnyCompatibleMultiRange }
	case fam == 'e':
		want = "anyelement, anyarray, anynonarray, anyenum, anyrange, or anymultirange"
	default:
		want = "anycompatible, anycompatiblearray, anycompatiblenonarray, anycompatiblerange, or anycompatiblemultirange"
	}
	for _, p := range inputs {
		if ok(p) {
			return ""
		}
	}
	return "A result of type " + TypeName(ret) + " requires at least one input of type " + want + "."
}
