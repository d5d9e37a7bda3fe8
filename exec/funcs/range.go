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
			&exec.Func{Name: name, Args: []uint32{sub, sub}, Ret: uint32(r.Oid), Immutable: true, Fn: RangeConstructor(sub, exec.RangeTypeDiscrete(uint32(r.Oid)))},
			&exec.Func{Name: name, Args: []uint32{sub, sub, exec.OIDText}, Ret: uint32(r.Oid), Immutable: true, Fn: RangeConstructor(sub, exec.RangeTypeDiscrete(uint32(r.Oid)))},
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
// range of subtype sub, discrete if its type has a canonical function:
// NULL bounds are infinite, the bounds are '[)' unless a third argument
// says otherwise.
func RangeConstructor(sub uint32, discrete bool) exec.Fn {
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
		return exec.MakeRange(sub, discrete, lo, hi, false)
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

// registerMultirange registers the multirange constructors of the
// built-in range types, their accessors, the operators between ranges,
// multiranges and elements, and range_agg.
func registerMultirange() {
	R, M, E, B := exec.OIDAnyRange, exec.OIDAnyMultiRange, exec.OIDAnyElement, exec.OIDBool
	build := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		rs := make([]*exec.Range, 0, len(a))
		for _, d := range a {
			if d.IsNull() {
				return exec.Null, pgerr.New(pgerr.NullValueNotAllowed, "multirange values cannot contain null members")
			}
			rs = append(rs, d.Range())
		}
		return exec.MakeMultirange(rs)
	}
	fixed := func(name string, args []uint32, ret uint32, fn exec.Fn) *exec.Func {
		return &exec.Func{Name: name, Args: args, Ret: ret, Strict: true, Immutable: true, Fn: fn}
	}
	for _, r := range types.BuiltinRanges {
		name := exec.TypeName(uint32(r.Multirange))
		rt, mt := uint32(r.Oid), uint32(r.Multirange)
		exec.Register(
			&exec.Func{Name: name, Ret: mt, Immutable: true, Fn: build},
			fixed(name, []uint32{rt}, mt, build),
			&exec.Func{Name: name, Args: []uint32{rt}, Variadic: true, Ret: mt, Immutable: true, Fn: build},
		)
		exec.RegisterAgg(&exec.AggFunc{Name: "range_agg", Args: []uint32{rt}, Ret: mt,
			New: func([]exec.T) exec.Accumulator { return &rangeAggAcc{} }})
	}
	span := func(d exec.Datum) *exec.Range {
		if d.Kind == exec.KindMultirange {
			return d.Multirange().Span()
		}
		return d.Range()
	}
	pos := func(f func(r1, r2 *exec.Range) bool) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(f(span(a[0]), span(a[1]))), nil
		}
	}
	mm := func(f func(m1, m2 *exec.Multirange) bool) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(f(a[0].Multirange(), a[1].Multirange())), nil
		}
	}
	mContains := func(m1, m2 *exec.Multirange) bool {
		for _, x := range m2.Ranges {
			if !exec.MultirangeContainsRange(m1, x) {
				return false
			}
		}
		return true
	}
	mOverlaps := func(m1, m2 *exec.Multirange) bool {
		for _, x := range m1.Ranges {
			if exec.RangeOverlapsMultirange(x, m2) {
				return true
			}
		}
		return false
	}
	after := func(r1, r2 *exec.Range) bool { return exec.RangeBefore(r2, r1) }
	bound := func(upper bool) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			s := a[0].Multirange().Span()
			b := s.Lower
			if upper {
				b = s.Upper
			}
			if s.Empty || b.Inf {
				return exec.Null, nil
			}
			return b.Val, nil
		}
	}
	exec.Register(
		fixed("multirange", []uint32{R}, M, build),
		fixed("lower", []uint32{M}, E, bound(false)),
		fixed("upper", []uint32{M}, E, bound(true)),
		fixed("isempty", []uint32{M}, B, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(len(a[0].Multirange().Ranges) == 0), nil
		}),
		&exec.Func{Name: "range_merge", Args: []uint32{M}, Ret: R, Strict: true, Immutable: true, Build: func(args []exec.T) (exec.Fn, exec.T, error) {
			rt := exec.T{OID: uint32(types.MultirangeRange(types.Oid(args[0].OID))), Typmod: -1}
			sub := uint32(types.RangeSubtypeOf(types.Oid(rt.OID)))
			return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
				s := a[0].Multirange().Span()
				if s.Empty {
					s = &exec.Range{Sub: sub, Discrete: exec.RangeTypeDiscrete(rt.OID), Empty: true}
				}
				return exec.DRange(s), nil
			}, rt, nil
		}},
		fixed("@>", []uint32{R, M}, B, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(exec.RangeContainsMultirange(a[0].Range(), a[1].Multirange())), nil
		}),
		fixed("<@", []uint32{M, R}, B, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(exec.RangeContainsMultirange(a[1].Range(), a[0].Multirange())), nil
		}),
		fixed("@>", []uint32{M, R}, B, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(exec.MultirangeContainsRange(a[0].Multirange(), a[1].Range())), nil
		}),
		fixed("<@", []uint32{R, M}, B, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(exec.MultirangeContainsRange(a[1].Multirange(), a[0].Range())), nil
		}),
		fixed("@>", []uint32{M, M}, B, mm(mContains)),
		fixed("<@", []uint32{M, M}, B, mm(func(m1, m2 *exec.Multirange) bool { return mContains(m2, m1) })),
		fixed("@>", []uint32{M, E}, B, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(exec.MultirangeContainsElem(a[0].Multirange(), a[1])), nil
		}),
		fixed("<@", []uint32{E, M}, B, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(exec.MultirangeContainsElem(a[1].Multirange(), a[0])), nil
		}),
		fixed("&&", []uint32{R, M}, B, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(exec.RangeOverlapsMultirange(a[0].Range(), a[1].Multirange())), nil
		}),
		fixed("&&", []uint32{M, R}, B, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(exec.RangeOverlapsMultirange(a[1].Range(), a[0].Multirange())), nil
		}),
		fixed("&&", []uint32{M, M}, B, mm(mOverlaps)),
	)
	for _, args := range [][]uint32{{R, M}, {M, R}, {M, M}} {
		exec.Register(
			fixed("<<", args, B, pos(exec.RangeBefore)),
			fixed(">>", args, B, pos(after)),
			fixed("&<", args, B, pos(exec.RangeOverLeft)),
			fixed("&>", args, B, pos(exec.RangeOverRight)),
			fixed("-|-", args, B, pos(exec.RangeAdjacent)),
		)
	}
}

// rangeAggAcc is range_agg: the multirange of the group's ranges, NULL
// for no rows.
type rangeAggAcc struct {
	ranges []*exec.Range
	any    bool
}

func (a *rangeAggAcc) Add(_ *exec.Env, args []exec.Datum) error {
	a.ranges, a.any = append(a.ranges, args[0].Range()), true
	return nil
}

func (a *rangeAggAcc) Result(*exec.Env) (exec.Datum, error) {
	if !a.any {
		return exec.Null, nil
	}
	return exec.MakeMultirange(a.ranges)
}
