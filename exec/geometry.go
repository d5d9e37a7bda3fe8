package exec

// What the planner needs to know of the geometric types beyond their
// functions (exec/funcs/geometry.go): their casts, which pg_cast lists as
// the one-argument functions named after the target type, the types that
// have no btree operator class, and subscripting (point[0] is x).

import "github.com/prollypg/prollypg/exec/types"

// IsGeometric reports whether oid is point, lseg, path, box, polygon,
// line or circle.
func IsGeometric(oid uint32) bool { return types.IsGeometric(types.Oid(oid)) }

// geometryCast is the cast between two geometric types: the function
// named after the target taking the source (point(box), polygon(path),
// ...), as PostgreSQL's pg_cast has them; nil for none (line has none).
func geometryCast(from, to uint32) Fn {
	for _, f := range funcs[TypeName(to)] {
		if len(f.Args) == 1 && f.Args[0] == from && f.Ret == to && !f.Variadic {
			return f.Fn
		}
	}
	return nil
}

// GeometryAssignable reports whether the cast from one geometric type to
// another applies in assignment (castcontext 'a'): point to box, box and
// path to polygon, polygon to path. The others are explicit only.
func GeometryAssignable(from, to uint32) bool {
	switch {
	case from == OIDPoint && to == OIDBox,
		from == OIDPath && to == OIDPolygon,
		from == OIDBox && to == OIDPolygon,
		from == OIDPolygon && to == OIDPath:
		return true
	}
	return false
}

// HasBtreeOrdering reports whether a type has a default btree operator
// class, which ORDER BY, DISTINCT, GROUP BY and UNION need: the geometric
// types have none (box's = compares areas, outside any operator class).
func HasBtreeOrdering(oid uint32) bool {
	return !IsGeometric(oid)
}

// GeometrySubscript is the subscripting of the fixed-size geometric types
// (PostgreSQL's raw_array_subscript_handler over their typelem): point and
// line subscript their float8 coordinates from 0, lseg and box their two
// points. It returns the element type and the function of (value, index),
// which is NULL for an index out of range; ok is false for the other
// types.
func GeometrySubscript(oid uint32) (elem T, fn Fn, ok bool) {
	n := 0
	switch oid {
	case OIDPoint:
		elem, n = TFloat8, 2
	case OIDLine:
		elem, n = TFloat8, 3
	case OIDLSeg, OIDBox:
		elem, n = T{OID: OIDPoint, Typmod: -1}, 2
	default:
		return T{}, nil, false
	}
	return elem, func(_ *Env, a []Datum) (Datum, error) {
		i := a[1].I
		if i < 0 || i >= int64(n) || len(a[0].S) < 8*n {
			return Null, nil
		}
		if elem.OID == OIDFloat8 {
			return DFloat(geometryFloat(a[0].S, int(i))), nil
		}
		return DGeometry(a[0].S[16*i : 16*i+16]), nil
	}, true
}

// geometryFloat reads the i-th float8 of canonical geometric bytes.
func geometryFloat(s string, i int) float64 {
	return types.DecodePoint(s[8*i:]).X
}
