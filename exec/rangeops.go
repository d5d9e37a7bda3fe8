package exec

import "github.com/prollypg/prollypg/exec/pgerr"

// The range operators of rangetypes.c, over normalized ranges.

// RangeContains is range @> range.
func RangeContains(r1, r2 *Range) bool {
	switch {
	case r2.Empty:
		return true
	case r1.Empty:
		return false
	}
	return CompareRangeBounds(r1.Lower, true, r2.Lower, true) <= 0 &&
		CompareRangeBounds(r1.Upper, false, r2.Upper, false) >= 0
}

// RangeContainsElem is range @> element.
func RangeContainsElem(r *Range, v Datum) bool {
	if r.Empty {
		return false
	}
	if !r.Lower.Inf {
		c := Compare(r.Lower.Val, v)
		if c > 0 || c == 0 && !r.Lower.Inc {
			return false
		}
	}
	if !r.Upper.Inf {
		c := Compare(r.Upper.Val, v)
		if c < 0 || c == 0 && !r.Upper.Inc {
			return false
		}
	}
	return true
}

// RangeOverlaps is &&.
func RangeOverlaps(r1, r2 *Range) bool {
	if r1.Empty || r2.Empty {
		return false
	}
	if CompareRangeBounds(r1.Lower, true, r2.Lower, true) >= 0 &&
		CompareRangeBounds(r1.Lower, true, r2.Upper, false) <= 0 {
		return true
	}
	return CompareRangeBounds(r2.Lower, true, r1.Lower, true) >= 0 &&
		CompareRangeBounds(r2.Lower, true, r1.Upper, false) <= 0
}

// RangeBefore is <<: r1 entirely left of r2.
func RangeBefore(r1, r2 *Range) bool {
	if r1.Empty || r2.Empty {
		return false
	}
	return CompareRangeBounds(r1.Upper, false, r2.Lower, true) < 0
}

// RangeOverLeft is &<: r1 does not extend right of r2.
func RangeOverLeft(r1, r2 *Range) bool {
	if r1.Empty || r2.Empty {
		return false
	}
	return CompareRangeBounds(r1.Upper, false, r2.Upper, false) <= 0
}

// RangeOverRight is &>: r1 does not extend left of r2.
func RangeOverRight(r1, r2 *Range) bool {
	if r1.Empty || r2.Empty {
		return false
	}
	return CompareRangeBounds(r1.Lower, true, r2.Lower, true) >= 0
}

// RangeAdjacent is -|-.
func RangeAdjacent(r1, r2 *Range) bool {
	if r1.Empty || r2.Empty {
		return false
	}
	return boundsAdjacent(r1, r1.Upper, r2.Lower) || boundsAdjacent(r1, r2.Upper, r1.Lower)
}

// boundsAdjacent is bounds_adjacent: upper bound a meets lower bound b
// with no point between them, for ranges of r's type.
func boundsAdjacent(r *Range, a, b RangeBound) bool {
	c := compareRangeBoundValues(a, false, b, true)
	switch {
	case c < 0:
		if !r.Discrete {
			return false
		}
		// A discrete range type: adjacent when no value lies between.
		r, err := makeRange(r.Sub, true, RangeBound{Val: a.Val, Inc: !a.Inc}, RangeBound{Val: b.Val, Inc: !b.Inc}, false)
		return err == nil && r.Empty
	case c == 0:
		return a.Inc != b.Inc
	}
	return false
}

// RangeUnion is + (strict) and range_merge: the smallest range covering
// both.
func RangeUnion(r1, r2 *Range, strict bool) (Datum, error) {
	switch {
	case r1.Empty:
		return DRange(r2), nil
	case r2.Empty:
		return DRange(r1), nil
	}
	if strict && !RangeOverlaps(r1, r2) && !RangeAdjacent(r1, r2) {
		return Null, pgerr.New(pgerr.DataException, "result of range union would not be contiguous")
	}
	lo, hi := r1.Lower, r1.Upper
	if CompareRangeBounds(r2.Lower, true, lo, true) < 0 {
		lo = r2.Lower
	}
	if CompareRangeBounds(r2.Upper, false, hi, false) > 0 {
		hi = r2.Upper
	}
	return MakeRange(r1.Sub, r1.Discrete, lo, hi, false)
}

// RangeIntersect is *.
func RangeIntersect(r1, r2 *Range) (Datum, error) {
	if r1.Empty || r2.Empty || !RangeOverlaps(r1, r2) {
		return DRange(&Range{Sub: r1.Sub, Discrete: r1.Discrete, Empty: true}), nil
	}
	lo, hi := r1.Lower, r1.Upper
	if CompareRangeBounds(r2.Lower, true, lo, true) > 0 {
		lo = r2.Lower
	}
	if CompareRangeBounds(r2.Upper, false, hi, false) < 0 {
		hi = r2.Upper
	}
	return MakeRange(r1.Sub, r1.Discrete, lo, hi, false)
}

// RangeMinus is -: r1 without the points of r2, which must leave one
// piece.
func RangeMinus(r1, r2 *Range) (Datum, error) {
	if r1.Empty || r2.Empty {
		return DRange(r1), nil
	}
	l1l2 := CompareRangeBounds(r1.Lower, true, r2.Lower, true)
	l1u2 := CompareRangeBounds(r1.Lower, true, r2.Upper, false)
	u1l2 := CompareRangeBounds(r1.Upper, false, r2.Lower, true)
	u1u2 := CompareRangeBounds(r1.Upper, false, r2.Upper, false)
	switch {
	case l1l2 < 0 && u1u2 > 0:
		return Null, pgerr.New(pgerr.DataException, "result of range difference would not be contiguous")
	case l1u2 > 0 || u1l2 < 0:
		return DRange(r1), nil
	case l1l2 >= 0 && u1u2 <= 0:
		return DRange(&Range{Sub: r1.Sub, Discrete: r1.Discrete, Empty: true}), nil
	case l1l2 <= 0 && u1l2 >= 0 && u1u2 <= 0:
		hi := r2.Lower
		hi.Inc = !hi.Inc
		return MakeRange(r1.Sub, r1.Discrete, r1.Lower, hi, false)
	case l1l2 >= 0 && u1u2 >= 0 && l1u2 <= 0:
		lo := r2.Upper
		lo.Inc = !lo.Inc
		return MakeRange(r1.Sub, r1.Discrete, lo, r1.Upper, false)
	}
	return Null, pgerr.New(pgerr.InternalError, "unexpected case in range_minus")
}
