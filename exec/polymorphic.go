package exec

import "github.com/prollypg/prollypg/exec/pgerr"

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
const (
	OIDAnyArray              uint32 = 2277
	OIDAnyNonArray           uint32 = 2776
	OIDAnyCompatible         uint32 = 5077
	OIDAnyCompatibleArray    uint32 = 5078
	OIDAnyCompatibleNonArray uint32 = 5079
	OIDAnyEnum               uint32 = 3500 // anyelement that must be an enum
)

func init() {
	typeNames[OIDAnyArray] = "anyarray"
	typeNames[OIDAnyNonArray] = "anynonarray"
	typeNames[OIDAnyCompatible] = "anycompatible"
	typeNames[OIDAnyCompatibleArray] = "anycompatiblearray"
	typeNames[OIDAnyCompatibleNonArray] = "anycompatiblenonarray"
	typeNames[OIDAnyEnum] = "anyenum"
}

// polyFamily tells whether oid is a polymorphic pseudo-type: the family
// ('e' anyelement, 'c' anycompatible, 0 none) and whether it stands for
// an array.
func polyFamily(oid uint32) (family byte, array bool) {
	switch oid {
	case OIDAnyElement, OIDAnyNonArray, OIDAnyEnum:
		return 'e', false
	case OIDAnyArray:
		return 'e', true
	case OIDAnyCompatible, OIDAnyCompatibleNonArray:
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
	}
	return true
}

// resolvePoly binds the polymorphic parameters of params to the argument
// types args: it returns the parameter types with every polymorphic one
// replaced by its actual type, or an error if the arguments disagree or
// leave a family undetermined.
func resolvePoly(params []uint32, args []T) ([]uint32, error) {
	var elem uint32 // anyelement family's element type
	var compat []T  // anycompatible family's known element types
	hasElem, hasCompat := false, false
	for i, p := range params {
		fam, isArr := polyFamily(p)
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
		switch fam {
		case 'e':
			hasElem = true
			if elem != 0 && elem != e {
				return nil, errPolyMismatch
			}
			elem = e
		case 'c':
			hasCompat = true
			compat = append(compat, T{OID: e, Typmod: -1})
		}
	}
	if hasElem && elem == 0 {
		return nil, pgerr.New(pgerr.IndeterminateDatatype, "could not determine polymorphic type because input has type unknown")
	}
	var common uint32
	if hasCompat {
		c, ok := CommonType(compat)
		if !ok {
			return nil, errPolyMismatch
		}
		for _, t := range compat {
			if !CanCoerce(t.OID, c.OID) {
				return nil, errPolyMismatch
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
		case isArr:
			a := ArrayType(T{OID: e}).OID
			if a == 0 {
				return nil, errPolyMismatch
			}
			out[i] = a
		case p == OIDAnyNonArray || p == OIDAnyCompatibleNonArray:
			if IsArrayType(e) {
				return nil, errPolyMismatch
			}
			out[i] = e
		default:
			out[i] = e
		}
	}
	return out, nil
}

// errPolyMismatch marks arguments that cannot bind to a candidate's
// polymorphic parameters; the candidate is then not applicable. It never
// leaves the resolution (lookupIn reports the missing function instead).
var errPolyMismatch error = polyMismatch{}

type polyMismatch struct{}

func (polyMismatch) Error() string { return "polymorphic arguments do not match" }

// polyResult returns the actual type of a polymorphic result ret, given
// the declared params and the resolved argument types.
func polyResult(ret uint32, params []uint32, args []T) T {
	rfam, rArr := polyFamily(ret)
	for i, p := range params {
		fam, isArr := polyFamily(p)
		if fam != rfam || i >= len(args) {
			continue
		}
		e := args[i]
		if isArr {
			e = ElemType(args[i])
		}
		e.Typmod = -1
		if rArr {
			return ArrayType(e)
		}
		return e
	}
	return T{OID: ret, Typmod: -1}
}

// hasPoly reports whether any of params is polymorphic.
func hasPoly(params []uint32) bool {
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
