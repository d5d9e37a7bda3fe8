package exec

import (
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// SetElement is the new value of an array column assigned through
// subscripts (UPDATE t SET a[i][j] = v, a[lo:hi] = arr): Arr is the value
// assigned into, the column's or that of an earlier assignment to it in
// the same statement. Lower and Upper are as a Subscript's; with Slice,
// Val is an array whose elements fill the slice.
type SetElement struct {
	Arr          Expr
	Lower, Upper []Expr
	Slice        bool
	Val          Expr
	T            T
}

func (e *SetElement) Type() T { return e.T }

func (e *SetElement) Eval(env *Env, row Row) (Datum, error) {
	arr, err := e.Arr.Eval(env, row)
	if err != nil {
		return Null, err
	}
	n := len(e.Upper)
	var lo, hi [types.MaxDim]int64
	var hasLo, hasHi [types.MaxDim]bool
	bound := func(x Expr) (int64, bool, error) {
		if x == nil {
			return 0, false, nil
		}
		d, err := x.Eval(env, row)
		if err != nil {
			return 0, false, err
		}
		if d.IsNull() {
			return 0, false, pgerr.New(pgerr.NullValueNotAllowed, "array subscript in assignment must not be null")
		}
		return d.I, true, nil
	}
	for i := 0; i < n; i++ {
		if e.Slice {
			if lo[i], hasLo[i], err = bound(e.Lower[i]); err != nil {
				return Null, err
			}
		}
		if hi[i], hasHi[i], err = bound(e.Upper[i]); err != nil {
			return Null, err
		}
	}
	v, err := e.Val.Eval(env, row)
	if err != nil {
		return Null, err
	}
	elem := ElemType(e.T).OID
	if !e.Slice {
		return AssignElements(arr, elem, hi[:n], v)
	}
	if v.IsNull() {
		if arr.IsNull() {
			return DArray(&Array{Elem: elem}), nil
		}
		return arr, nil // assigning a NULL array to a slice changes nothing
	}
	return AssignSlice(arr, elem, lo[:n], hi[:n], hasLo[:n], hasHi[:n], v.Array().Elems)
}

func errSubscript(format string, args ...any) *pgerr.Error {
	return pgerr.New(pgerr.ArraySubscriptError, format, args...)
}

// AssignElements is array_set_element: d with the element at subscripts
// idx set to v. A NULL or empty array becomes one holding v alone; a
// one-dimensional one grows to take idx, NULLs filling any gap; the
// subscripts of a multidimensional one must lie within it.
func AssignElements(d Datum, elem uint32, idx []int64, v Datum) (Datum, error) {
	if len(idx) == 1 {
		return AssignElement(d, elem, idx[0], v)
	}
	if d.IsNull() || len(d.Array().Elems) == 0 {
		a := &Array{Elem: elem, Dims: make([]int32, len(idx)), Lower: make([]int32, len(idx)), Elems: []Datum{v}, HasNul: v.IsNull()}
		for i, x := range idx {
			a.Dims[i], a.Lower[i] = 1, int32(x)
		}
		return DArray(a), nil
	}
	a := d.Array()
	if len(a.Dims) != len(idx) {
		return Null, errSubscript("wrong number of array subscripts")
	}
	off := 0
	for i, x := range idx {
		k := x - int64(a.Lower[i])
		if k < 0 || k >= int64(a.Dims[i]) {
			return Null, errSubscript("array subscript out of range")
		}
		off = off*int(a.Dims[i]) + int(k)
	}
	out := &Array{Elem: elem, Dims: a.Dims, Lower: a.Lower, Elems: append([]Datum(nil), a.Elems...)}
	out.Elems[off] = v
	out.HasNul = hasNull(out.Elems)
	return DArray(out), nil
}

// AssignSlice is array_set_slice: d with the slice lo:hi (bounds not
// given taking the array's own; dimensions past the subscripts whole)
// filled, in row-major order, from src. An empty array takes the slice's
// shape, which must then be fully given; a one-dimensional array grows to
// take the slice, NULLs filling any gap; a slice of a multidimensional
// one must lie within it.
func AssignSlice(d Datum, elem uint32, lo, hi []int64, hasLo, hasHi []bool, src []Datum) (Datum, error) {
	if d.IsNull() || len(d.Array().Elems) == 0 {
		return newSlice(elem, lo, hi, hasLo, hasHi, src)
	}
	a := d.Array()
	nd := len(a.Dims)
	if nd < len(lo) {
		return Null, errSubscript("wrong number of array subscripts")
	}
	var l, u [types.MaxDim]int64
	for i := 0; i < nd; i++ {
		lb, ub := int64(a.Lower[i]), int64(a.Lower[i])+int64(a.Dims[i])-1
		l[i], u[i] = lb, ub
		if i < len(lo) && hasLo[i] {
			l[i] = lo[i]
		}
		if i < len(lo) && hasHi[i] {
			u[i] = hi[i]
		}
		if l[i] > u[i] {
			return Null, errSubscript("upper bound cannot be less than lower bound")
		}
		if nd > 1 && (l[i] < lb || u[i] > ub) {
			return Null, errSubscript("array subscript out of range")
		}
	}
	items := int64(1)
	for i := 0; i < nd; i++ {
		items *= u[i] - l[i] + 1
	}
	if items > int64(len(src)) {
		return Null, errSubscript("source array too small")
	}
	if nd == 1 {
		return assignSlice1(a, elem, l[0], u[0], src)
	}
	out := &Array{Elem: elem, Dims: a.Dims, Lower: a.Lower, Elems: append([]Datum(nil), a.Elems...)}
	var idx [types.MaxDim]int64
	copy(idx[:nd], l[:nd])
	for k := 0; ; k++ {
		off := 0
		for i := 0; i < nd; i++ {
			off = off*int(a.Dims[i]) + int(idx[i]-int64(a.Lower[i]))
		}
		out.Elems[off] = src[k]
		i := nd - 1 // advance the last subscript fastest
		for ; i >= 0; i-- {
			if idx[i] < u[i] {
				idx[i]++
				break
			}
			idx[i] = l[i]
		}
		if i < 0 {
			break
		}
	}
	out.HasNul = hasNull(out.Elems)
	return DArray(out), nil
}

// newSlice is the array a slice assignment makes of an empty one.
func newSlice(elem uint32, lo, hi []int64, hasLo, hasHi []bool, src []Datum) (Datum, error) {
	out := &Array{Elem: elem, Dims: make([]int32, len(lo)), Lower: make([]int32, len(lo))}
	items := int64(1)
	for i := range lo {
		if !hasLo[i] || !hasHi[i] {
			return Null, errSubscript("array slice subscript must provide both boundaries").
				WithDetail("When assigning to a slice of an empty array value, slice boundaries must be fully specified.")
		}
		if lo[i] > hi[i] {
			return Null, errSubscript("upper bound cannot be less than lower bound")
		}
		out.Dims[i], out.Lower[i] = int32(hi[i]-lo[i]+1), int32(lo[i])
		items *= hi[i] - lo[i] + 1
	}
	if items > int64(MaxArrayElems) {
		return Null, pgerr.New(pgerr.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", MaxArrayElems)
	}
	if items > int64(len(src)) {
		return Null, errSubscript("source array too small")
	}
	out.Elems = append([]Datum(nil), src[:items]...)
	out.HasNul = hasNull(out.Elems)
	return DArray(out), nil
}

// assignSlice1 assigns the slice l:u of one-dimensional array a.
func assignSlice1(a *Array, elem uint32, l, u int64, src []Datum) (Datum, error) {
	lb := int64(a.Lower[0])
	ub := lb + int64(a.Dims[0]) - 1
	newLb, newUb := min(lb, l), max(ub, u)
	if newUb-newLb+1 > int64(MaxArrayElems) {
		return Null, pgerr.New(pgerr.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", MaxArrayElems)
	}
	out := &Array{Elem: elem, Dims: []int32{int32(newUb - newLb + 1)}, Lower: []int32{int32(newLb)}}
	out.Elems = make([]Datum, newUb-newLb+1)
	copy(out.Elems[lb-newLb:], a.Elems)
	copy(out.Elems[l-newLb:u-newLb+1], src)
	out.HasNul = hasNull(out.Elems)
	return DArray(out), nil
}
