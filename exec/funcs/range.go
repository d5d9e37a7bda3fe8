package funcs

import (
	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// The range functions and operators of PostgreSQL 15 (rangetypes.c):
// the constructors of the built-in range types, the bound accessors,
// containment, overlap, position and adjacency, union, intersection and
// difference. Comparison (=, <, ...) is the generic one over Compare,
// which orders ranges as range_cmp does.

func registerRange() {
	R, E := exec.OIDAnyRange, exec.OIDAnyElement
	B := exec.OIDBool
	fixed := func(name string, args []uint32, ret uint32, fn exec.Fn) *exec.Func {
		return &exec.Func{Name: name, Args: args, Ret: ret, Strict: true, Immutable: true, Fn: fn}
	}
	for _, r := range types.BuiltinRanges {
		name := exec.TypeName(uint32(r.Oid))
		sub := uint32(r.Subtype)
		exec.Register(
			&exec.Func{Name: name, Args: []uint32{sub, sub}, Ret: uint32(r.Oid), Immutable: true, Fn: RangeConstructor(sub)},
			&exec.Func{Name: name, Args: []uint32{sub, sub, exec.OIDText}, Ret: uint32(r.Oid), Immutable: true, Fn: RangeConstructor(sub)},
		)
	}
	rr := func(f func(r1, r2 *exec.Range) bool) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(f(a[0].Range(), a[1].Range())), nil
		}
	}
	rrr := func(f func(r1, r2 *exec.Range) (exec.Datum, error)) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return f(a[0].Range(), a[1].Range()) }
	}
	contains, containedBy := rr(exec.RangeContains), rr(func(r1, r2 *exec.Range) bool { return exec.RangeContains(r2, r1) })
	containsElem := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DBool(exec.RangeContainsElem(a[0].Range(), a[1])), nil
	}
	elemContainedBy := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DBool(exec.RangeContainsElem(a[1].Range(), a[0])), nil
	}
	overlaps, before := rr(exec.RangeOverlaps), rr(exec.RangeBefore)
	after := rr(func(r1, r2 *exec.Range) bool { return exec.RangeBefore(r2, r1) })
	overleft, overright, adjacent := rr(exec.RangeOverLeft), rr(exec.RangeOverRight), rr(exec.RangeAdjacent)
	union := rrr(func(r1, r2 *exec.Range) (exec.Datum, error) { return exec.RangeUnion(r1, r2, true) })
	merge := rrr(func(r1, r2 *exec.Range) (exec.Datum, error) { return exec.RangeUnion(r1, r2, false) })
	intersect, minus := rrr(exec.RangeIntersect), rrr(exec.RangeMinus)
	bound := func(upper bool) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			r := a[0].Range()
			b := r.Lower
			if upper {
				b = r.Upper
			}
			if r.Empty || b.Inf {
				return exec.Null, nil
			}
			return b.Val, nil
		}
	}
	flag := func(f func(r *exec.Range) bool) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DBool(f(a[0].Range())), nil }
	}
	exec.Register(
		fixed("lower", []uint32{R}, E, bound(false)),
		fixed("upper", []uint32{R}, E, bound(true)),
		fixed("isempty", []uint32{R}, B, flag(func(r *exec.Range) bool { return r.Empty })),
		fixed("lower_inc", []uint32{R}, B, flag(func(r *exec.Range) bool { return !r.Empty && r.Lower.Inc })),
		fixed("upper_inc", []uint32{R}, B, flag(func(r *exec.Range) bool { return !r.Empty && r.Upper.Inc })),
		fixed("lower_inf", []uint32{R}, B, flag(func(r *exec.Range) bool { return !r.Empty && r.Lower.Inf })),
		fixed("upper_inf", []uint32{R}, B, flag(func(r *exec.Range) bool { return !r.Empty && r.Upper.Inf })),
		fixed("range_merge", []uint32{R, R}, R, merge),
		fixed("@>", []uint32{R, R}, B, contains),
		fixed("@>", []uint32{R, E}, B, containsElem),
		fixed("<@", []uint32{R, R}, B, containedBy),
		fixed("<@", []uint32{E, R}, B, elemContainedBy),
		fixed("&&", []uint32{R, R}, B, overlaps),
		fixed("<<", []uint32{R, R}, B, before),
		fixed(">>", []uint32{R, R}, B, after),
		fixed("&<", []uint32{R, R}, B, overleft),
		fixed("&>", []uint32{R, R}, B, overright),
		fixed("-|-", []uint32{R, R}, B, adjacent),
		fixed("+", []uint32{R, R}, R, union),
		fixed("*", []uint32{R, R}, R, intersect),
		fixed("-", []uint32{R, R}, R, minus),
		fixed("range_contains", []uint32{R, R}, B, contains),
		fixed("range_contains_elem", []uint32{R, E}, B, containsElem),
		fixed("range_contained_by", []uint32{R, R}, B, containedBy),
		fixed("elem_contained_by_range", []uint32{E, R}, B, elemContainedBy),
		fixed("range_overlaps", []uint32{R, R}, B, overlaps),
		fixed("range_before", []uint32{R, R}, B, before),
		fixed("range_after", []uint32{R, R}, B, after),
		fixed("range_overleft", []uint32{R, R}, B, overleft),
		fixed("range_overright", []uint32{R, R}, B, overright),
		fixed("range_adjacent", []uint32{R, R}, B, adjacent),
		fixed("range_union", []uint32{R, R}, R, union),
		fixed("range_intersect", []uint32{R, R}, R, intersect),
		fixed("range_minus", []uint32{R, R}, R, minus),
		// The SUBTYPE_DIFF functions of float ranges (float8range).
		fixed("float8mi", []uint32{exec.OIDFloat8, exec.OIDFloat8}, exec.OIDFloat8, exec.FloatArith("-", exec.TFloat8)),
		fixed("float4mi", []uint32{exec.OIDFloat4, exec.OIDFloat4}, exec.OIDFloat4, exec.FloatArith("-", exec.TFloat4)),
	)
	exec.RegisterAgg(&exec.AggFunc{Name: "range_intersect_agg", Args: []uint32{R},
		New: func([]exec.T) exec.Accumulator { return &rangeIntersectAcc{} }})
}

// RangeConstructor is range_constructor2 and range_constructor3 for a
// range of subtype sub: NULL bounds are infinite, the bounds are '[)'
// unless a third argument says otherwise.
func RangeConstructor(sub uint32) exec.Fn {
	return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		flags := "[)"
		if len(a) > 2 {
			if a[2].IsNull() {
				return exec.Null, pgerr.New(pgerr.DataException, "range constructor flags argument must not be null")
			}
			flags = a[2].S
		}
		if len(flags) != 2 || (flags[0] != '[' && flags[0] != '(') || (flags[1] != ']' && flags[1] != ')') {
			return exec.Null, pgerr.New(pgerr.SyntaxError, "invalid range bound flags").
				WithHint(`Valid values are "[]", "[)", "(]", and "()".`)
		}
		lo := exec.RangeBound{Val: a[0], Inf: a[0].IsNull(), Inc: flags[0] == '['}
		hi := exec.RangeBound{Val: a[1], Inf: a[1].IsNull(), Inc: flags[1] == ']'}
		return exec.MakeRange(sub, lo, hi, false)
	}
}

// rangeIntersectAcc is range_intersect_agg: the intersection of the
// group's ranges, NULL for no rows.
type rangeIntersectAcc struct {
	acc exec.Datum
}

func (a *rangeIntersectAcc) Add(_ *exec.Env, args []exec.Datum) error {
	if a.acc.IsNull() {
		a.acc = args[0]
		return nil
	}
	d, err := exec.RangeIntersect(a.acc.Range(), args[0].Range())
	a.acc = d
	return err
}

func (a *rangeIntersectAcc) Result(*exec.Env) (exec.Datum, error) { return a.acc, nil }
