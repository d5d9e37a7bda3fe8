package exec

import (
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// ArrayExpr is ARRAY[e1, e2, ...] of type T. With Multi, every element is
// itself an array (a nested ARRAY[...] or an array value), and the result
// has one more dimension: the sub-arrays, which must all have the same
// dimensions, stacked (ExecEvalArrayExpr's multidims case).
type ArrayExpr struct {
	Elems []Expr
	T     T
	Multi bool
}

func (e *ArrayExpr) Type() T { return e.T }

func (e *ArrayExpr) Eval(env *Env, row Row) (Datum, error) {
	elem := ElemType(e.T).OID
	vals := make([]Datum, len(e.Elems))
	for i, x := range e.Elems {
		d, err := x.Eval(env, row)
		if err != nil {
			return Null, err
		}
		vals[i] = d
	}
	if !e.Multi {
		return NewArray(elem, vals), nil
	}
	return StackArrays(elem, vals, false)
}

// StackArrays makes an array of one more dimension from the sub-arrays
// subs. NULL and empty sub-arrays are left out when all are (giving an
// empty array); otherwise they are an error, as are sub-arrays of
// differing dimensions. For array_agg (agg set) the errors are
// accumArrayResultArr's.
func StackArrays(elem uint32, subs []Datum, agg bool) (Datum, error) {
	var first *Array
	haveEmpty := false
	n := 0
	total := 0
	for _, d := range subs {
		if d.IsNull() {
			if agg {
				return Null, pgerr.New(pgerr.NullValueNotAllowed, "cannot accumulate null arrays")
			}
			haveEmpty = true
			continue
		}
		a := d.Array()
		if len(a.Elems) == 0 {
			if agg {
				return Null, pgerr.New(pgerr.ArraySubscriptError, "cannot accumulate empty arrays")
			}
			haveEmpty = true
			continue
		}
		if first == nil {
			first = a
			if len(a.Dims)+1 > types.MaxDim {
				return Null, pgerr.New(pgerr.ProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", len(a.Dims)+1, types.MaxDim)
			}
		} else if !sameShape(first, a) {
			if agg {
				return Null, pgerr.New(pgerr.ArraySubscriptError, "cannot accumulate arrays of different dimensionality")
			}
			return Null, errMatchingDims()
		}
		n++
		total += len(a.Elems)
	}
	if first == nil {
		return DArray(&Array{Elem: elem}), nil
	}
	if haveEmpty {
		return Null, errMatchingDims()
	}
	out := &Array{Elem: elem, Elems: make([]Datum, 0, total)}
	out.Dims = append([]int32{int32(n)}, first.Dims...)
	out.Lower = append([]int32{1}, first.Lower...)
	for _, d := range subs {
		if d.IsNull() {
			continue
		}
		a := d.Array()
		out.Elems = append(out.Elems, a.Elems...)
		out.HasNul = out.HasNul || a.HasNul
	}
	return DArray(out), nil
}

func errMatchingDims() error {
	return pgerr.New(pgerr.ArraySubscriptError, "multidimensional arrays must have array expressions with matching dimensions")
}

// sameShape reports whether two arrays have the same dimensions and lower
// bounds.
func sameShape(a, b *Array) bool {
	if len(a.Dims) != len(b.Dims) {
		return false
	}
	for i := range a.Dims {
		if a.Dims[i] != b.Dims[i] || a.Lower[i] != b.Lower[i] {
			return false
		}
	}
	return true
}

// Subscript is arr[i][j] (one element, of type T) or, with Slice,
// arr[i:j][k:l] (a sub-array of the array's type T). Upper holds the
// subscripts of an element; for a slice, Lower and Upper hold the bounds,
// nil where omitted (arr[:2]).
type Subscript struct {
	Arr          Expr
	Lower, Upper []Expr
	Slice        bool
	T            T
}

func (e *Subscript) Type() T { return e.T }

func (e *Subscript) Eval(env *Env, row Row) (Datum, error) {
	d, err := e.Arr.Eval(env, row)
	if err != nil || d.IsNull() {
		return Null, err
	}
	var lo, hi [types.MaxDim]int64
	var hasLo, hasHi [types.MaxDim]bool
	for i := range e.Upper {
		if e.Slice && e.Lower[i] != nil {
			v, err := e.Lower[i].Eval(env, row)
			if err != nil || v.IsNull() {
				return Null, err
			}
			lo[i], hasLo[i] = v.I, true
		}
		if e.Upper[i] != nil {
			v, err := e.Upper[i].Eval(env, row)
			if err != nil || v.IsNull() {
				return Null, err
			}
			hi[i], hasHi[i] = v.I, true
		}
	}
	a := d.Array()
	if !e.Slice {
		return arrayElement(a, hi[:len(e.Upper)]), nil
	}
	return arraySlice(a, lo[:len(e.Upper)], hi[:len(e.Upper)], hasLo[:len(e.Upper)], hasHi[:len(e.Upper)]), nil
}

// arrayElement is array_get_element: NULL unless there is one subscript
// per dimension, each within its bounds.
func arrayElement(a *Array, idx []int64) Datum {
	if len(idx) != len(a.Dims) || len(a.Elems) == 0 {
		return Null
	}
	off := 0
	for i, x := range idx {
		k := x - int64(a.Lower[i])
		if k < 0 || k >= int64(a.Dims[i]) {
			return Null
		}
		off = off*int(a.Dims[i]) + int(k)
	}
	return a.Elems[off]
}

// arraySlice is array_get_slice: bounds clipped to the array's, omitted
// ones and missing dimensions taking the whole range; an empty range or
// more subscripts than dimensions give an empty array. The result's lower
// bounds are 1.
func arraySlice(a *Array, lo, hi []int64, hasLo, hasHi []bool) Datum {
	empty := DArray(&Array{Elem: a.Elem})
	nd := len(a.Dims)
	if nd < len(lo) || nd == 0 {
		return empty
	}
	var l, u [types.MaxDim]int64
	for i := 0; i < nd; i++ {
		lb, ub := int64(a.Lower[i]), int64(a.Lower[i])+int64(a.Dims[i])-1
		l[i], u[i] = lb, ub
		if i < len(lo) {
			if hasLo[i] && lo[i] > lb {
				l[i] = lo[i]
			}
			if hasHi[i] && hi[i] < ub {
				u[i] = hi[i]
			}
		}
		if l[i] > u[i] {
			return empty
		}
	}
	out := &Array{Elem: a.Elem, Dims: make([]int32, nd), Lower: make([]int32, nd)}
	n := 1
	for i := 0; i < nd; i++ {
		out.Dims[i] = int32(u[i] - l[i] + 1)
		out.Lower[i] = 1
		n *= int(out.Dims[i])
	}
	out.Elems = make([]Datum, 0, n)
	var idx [types.MaxDim]int64
	copy(idx[:nd], l[:nd])
	for {
		off := 0
		for i := 0; i < nd; i++ {
			off = off*int(a.Dims[i]) + int(idx[i]-int64(a.Lower[i]))
		}
		el := a.Elems[off]
		out.HasNul = out.HasNul || el.IsNull()
		out.Elems = append(out.Elems, el)
		// Advance the last subscript fastest (row-major order).
		i := nd - 1
		for ; i >= 0; i-- {
			if idx[i] < u[i] {
				idx[i]++
				break
			}
			idx[i] = l[i]
		}
		if i < 0 {
			return DArray(out)
		}
	}
}

// AssignElement is array_set_element for one-dimensional arrays, the
// UPDATE t SET a[i] = v case: a NULL or empty array becomes [i:i]={v};
// a subscript beyond either end extends the array, filling the gap with
// NULLs.
func AssignElement(d Datum, elem uint32, idx int64, v Datum) (Datum, error) {
	if d.IsNull() || len(d.Array().Elems) == 0 {
		a := &Array{Elem: elem, Dims: []int32{1}, Lower: []int32{int32(idx)}, Elems: []Datum{v}, HasNul: v.IsNull()}
		return DArray(a), nil
	}
	a := d.Array()
	if len(a.Dims) != 1 {
		return Null, pgerr.New(pgerr.ArraySubscriptError, "wrong number of array subscripts")
	}
	lb, n := int64(a.Lower[0]), int64(a.Dims[0])
	newLb, newUb := min(lb, idx), max(lb+n-1, idx)
	if newUb-newLb+1 > int64(MaxArrayElems) {
		return Null, pgerr.New(pgerr.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", MaxArrayElems)
	}
	out := &Array{Elem: elem, Dims: []int32{int32(newUb - newLb + 1)}, Lower: []int32{int32(newLb)}}
	out.Elems = make([]Datum, newUb-newLb+1)
	copy(out.Elems[lb-newLb:], a.Elems)
	out.Elems[idx-newLb] = v
	for _, e := range out.Elems {
		if e.IsNull() {
			out.HasNul = true
			break
		}
	}
	return DArray(out), nil
}

// MaxArrayElems is PostgreSQL's MaxArraySize.
const MaxArrayElems = 134217727

// collectArray is ARRAY(subquery): the first column of every row, as an
// array; a column of arrays (type col) stacks them into one more
// dimension, as array_agg does.
func collectArray(rows Rows, col T) (Datum, error) {
	var vals []Datum
	for {
		r, err := rows.Next()
		if err != nil {
			return Null, err
		}
		if r == nil {
			break
		}
		vals = append(vals, r[0])
	}
	if IsArrayType(col.OID) {
		return StackArrays(ElemType(col).OID, vals, true)
	}
	return NewArray(col.OID, vals), nil
}
