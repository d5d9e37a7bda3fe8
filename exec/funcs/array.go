package funcs

import (
	"strconv"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// The array functions and operators of PostgreSQL 15 (arrayfuncs.c,
// array_userfuncs.c): dimensions, ||, array_append/prepend/cat, searching,
// removing and replacing elements, containment, array_to_string,
// array_fill, trim_array; the set-returning unnest and
// generate_subscripts; the aggregate array_agg. Elements are compared as
// IS NOT DISTINCT FROM where PostgreSQL does (array_position, array_remove)
// and with NULLs never matching where it does (@>, &&).

func registerArray() {
	AA, AE := exec.OIDAnyArray, exec.OIDAnyElement
	CA, CE := exec.OIDAnyCompatibleArray, exec.OIDAnyCompatible
	I4, TX := exec.OIDInt4, exec.OIDText
	fixed := func(name string, args []uint32, ret uint32, strict bool, fn exec.Fn) *exec.Func {
		return &exec.Func{Name: name, Args: args, Ret: ret, Strict: strict, Immutable: true, Fn: fn}
	}
	exec.Register(
		fixed("array_ndims", []uint32{AA}, I4, true, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			arr := a[0].Array()
			if len(arr.Elems) == 0 {
				return exec.Null, nil
			}
			return exec.DInt(int64(len(arr.Dims))), nil
		}),
		fixed("array_dims", []uint32{AA}, TX, true, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			arr := a[0].Array()
			if len(arr.Elems) == 0 {
				return exec.Null, nil
			}
			var b []byte
			for i := range arr.Dims {
				b = append(b, '[')
				b = strconv.AppendInt(b, int64(arr.Lower[i]), 10)
				b = append(b, ':')
				b = strconv.AppendInt(b, int64(arr.Lower[i])+int64(arr.Dims[i])-1, 10)
				b = append(b, ']')
			}
			return exec.DText(string(b)), nil
		}),
		fixed("array_length", []uint32{AA, I4}, I4, true, dimFn(func(a *exec.Array, d int) int64 { return int64(a.Dims[d]) })),
		fixed("array_lower", []uint32{AA, I4}, I4, true, dimFn(func(a *exec.Array, d int) int64 { return int64(a.Lower[d]) })),
		fixed("array_upper", []uint32{AA, I4}, I4, true, dimFn(func(a *exec.Array, d int) int64 {
			return int64(a.Lower[d]) + int64(a.Dims[d]) - 1
		})),
		fixed("cardinality", []uint32{AA}, I4, true, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DInt(int64(len(a[0].Array().Elems))), nil
		}),
		fixed("array_append", []uint32{CA, CE}, CA, false, arrayAppend),
		fixed("array_prepend", []uint32{CE, CA}, CA, false, arrayPrepend),
		fixed("array_cat", []uint32{CA, CA}, CA, false, arrayCat),
		fixed("||", []uint32{CA, CE}, CA, false, arrayAppend),
		fixed("||", []uint32{CE, CA}, CA, false, arrayPrepend),
		fixed("||", []uint32{CA, CA}, CA, false, arrayCat),
		fixed("width_bucket", []uint32{CE, CA}, I4, true, widthBucketArray),
		fixed("array_position", []uint32{CA, CE}, I4, false, arrayPosition),
		fixed("array_position", []uint32{CA, CE, I4}, I4, false, arrayPosition),
		fixed("array_positions", []uint32{CA, CE}, exec.OIDInt4Array, false, arrayPositions),
		fixed("array_remove", []uint32{CA, CE}, CA, false, arrayRemove),
		fixed("array_replace", []uint32{CA, CE, CE}, CA, false, arrayReplace),
		// array_larger and array_smaller, the support functions of
		// max and min over arrays, return the second of equal arrays.
		fixed("array_larger", []uint32{AA, AA}, AA, true, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if exec.Compare(a[0], a[1]) > 0 {
				return a[0], nil
			}
			return a[1], nil
		}),
		fixed("array_smaller", []uint32{AA, AA}, AA, true, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if exec.Compare(a[0], a[1]) < 0 {
				return a[0], nil
			}
			return a[1], nil
		}),
		fixed("@>", []uint32{AA, AA}, exec.OIDBool, true, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(arrayContains(a[1].Array(), a[0].Array(), true)), nil
		}),
		fixed("<@", []uint32{AA, AA}, exec.OIDBool, true, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(arrayContains(a[0].Array(), a[1].Array(), true)), nil
		}),
		fixed("&&", []uint32{AA, AA}, exec.OIDBool, true, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(arrayContains(a[0].Array(), a[1].Array(), false)), nil
		}),
		fixed("trim_array", []uint32{AA, I4}, AA, true, trimArray),
		fixed("array_fill", []uint32{AE, exec.OIDInt4Array}, AA, false, arrayFill),
		fixed("array_fill", []uint32{AE, exec.OIDInt4Array, exec.OIDInt4Array}, AA, false, arrayFill),
	)
	for _, args := range [][]uint32{{AA, TX}, {AA, TX, TX}} {
		exec.Register(&exec.Func{Name: "array_to_string", Args: args, Ret: TX, Build: func(ts []exec.T) (exec.Fn, exec.T, error) {
			elem := exec.ElemType(ts[0])
			return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
				if a[0].IsNull() || a[1].IsNull() {
					return exec.Null, nil
				}
				var b []byte
				first := true
				for _, e := range a[0].Array().Elems {
					if e.IsNull() && (len(a) < 3 || a[2].IsNull()) {
						continue
					}
					if !first {
						b = append(b, a[1].S...)
					}
					first = false
					if e.IsNull() {
						b = append(b, a[2].S...)
					} else {
						b = exec.AppendText(b, elem, e, env.Settings)
					}
				}
				return exec.DText(string(b)), nil
			}, exec.TText, nil
		}})
	}
	// information_schema._pg_expandarray, which JDBC's metadata queries
	// call: each element of the first dimension with its position.
	exec.RegisterSRF(&exec.Func{Name: "_pg_expandarray", Args: []uint32{AA}, Ret: exec.OIDRecord}, func(ts []exec.T) *exec.SRF {
		return &exec.SRF{Cols: []exec.ResultColumn{{Name: "x", T: exec.BaseType(exec.ElemType(ts[0]))}, {Name: "n", T: exec.TInt4}},
			Rows: func(_ *exec.Env, a []exec.Datum) ([]exec.Row, error) {
				arr := a[0].Array()
				if len(arr.Dims) == 0 {
					return nil, nil
				}
				stride := 1
				for _, d := range arr.Dims[1:] {
					stride *= int(d)
				}
				rows := make([]exec.Row, arr.Dims[0])
				for i := range rows {
					rows[i] = exec.Row{arr.Elems[i*stride], exec.DInt(int64(i + 1))}
					if len(arr.Dims) > 1 {
						rows[i][0] = exec.Null // a whole sub-array: not an element
					}
				}
				return rows, nil
			}}
	})
	exec.RegisterSRF(&exec.Func{Name: "unnest", Args: []uint32{AA}, Ret: AE}, func(ts []exec.T) *exec.SRF {
		return &exec.SRF{Cols: []exec.ResultColumn{{Name: "unnest", T: exec.BaseType(exec.ElemType(ts[0]))}},
			Rows: func(_ *exec.Env, a []exec.Datum) ([]exec.Row, error) {
				elems := a[0].Array().Elems
				rows := make([]exec.Row, len(elems))
				for i, e := range elems {
					rows[i] = exec.Row{e}
				}
				return rows, nil
			}}
	})
	for _, args := range [][]uint32{{AA, I4}, {AA, I4, exec.OIDBool}} {
		exec.RegisterSRF(&exec.Func{Name: "generate_subscripts", Args: args, Ret: I4}, func([]exec.T) *exec.SRF {
			return &exec.SRF{Cols: []exec.ResultColumn{{Name: "generate_subscripts", T: exec.TInt4}},
				Rows: func(_ *exec.Env, a []exec.Datum) ([]exec.Row, error) {
					arr, d := a[0].Array(), a[1].I
					if len(arr.Elems) == 0 || d < 1 || d > int64(len(arr.Dims)) {
						return nil, nil
					}
					lo, n := int64(arr.Lower[d-1]), int64(arr.Dims[d-1])
					rows := make([]exec.Row, n)
					for i := range rows {
						v := lo + int64(i)
						if len(a) > 2 && a[2].Bool() {
							v = lo + n - 1 - int64(i)
						}
						rows[i] = exec.Row{exec.DInt(v)}
					}
					return rows, nil
				}}
		})
	}
	exec.RegisterAgg(&exec.AggFunc{Name: "array_agg", Args: []uint32{exec.OIDAny}, Ret: exec.OIDAnyArray, KeepNulls: true,
		New: func(ts []exec.T) exec.Accumulator { return &arrayAggAcc{t: exec.BaseType(ts[0])} }})
}

// UnnestMulti is unnest(a, b, ...) in FROM: the arrays side by side, the
// shorter ones padded with NULLs; a NULL array counts as empty.
func UnnestMulti(ts []exec.T) *exec.SRF {
	cols := make([]exec.ResultColumn, len(ts))
	for i, t := range ts {
		cols[i] = exec.ResultColumn{Name: "unnest", T: exec.BaseType(exec.ElemType(t))}
	}
	return &exec.SRF{Cols: cols, NullArgs: true, Rows: func(_ *exec.Env, a []exec.Datum) ([]exec.Row, error) {
		n := 0
		for _, d := range a {
			if !d.IsNull() {
				n = max(n, len(d.Array().Elems))
			}
		}
		rows := make([]exec.Row, n)
		for i := range rows {
			rows[i] = make(exec.Row, len(a))
			for j, d := range a {
				if !d.IsNull() && i < len(d.Array().Elems) {
					rows[i][j] = d.Array().Elems[i]
				}
			}
		}
		return rows, nil
	}}
}

// dimFn makes array_length, array_lower and array_upper: f of dimension
// a[1] (1-based), NULL for an empty array or a dimension it does not have.
func dimFn(f func(a *exec.Array, d int) int64) exec.Fn {
	return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		arr, d := a[0].Array(), a[1].I
		if len(arr.Elems) == 0 || d < 1 || d > int64(len(arr.Dims)) {
			return exec.Null, nil
		}
		return exec.DInt(f(arr, int(d-1))), nil
	}
}

// oneDim returns the lower bound and length of a NULL, empty or
// one-dimensional array, or an error for more dimensions.
func oneDim(d exec.Datum) (lb int64, n int64, err error) {
	if d.IsNull() || len(d.Array().Elems) == 0 {
		return 1, 0, nil
	}
	a := d.Array()
	if len(a.Dims) != 1 {
		return 0, 0, pgerr.New(pgerr.DataException, "argument must be empty or one-dimensional array")
	}
	return int64(a.Lower[0]), int64(a.Dims[0]), nil
}

// elemsOf returns the elements of an array, none for NULL.
func elemsOf(d exec.Datum) []exec.Datum {
	if d.IsNull() {
		return nil
	}
	return d.Array().Elems
}

// arrayOf1 makes a one-dimensional array of elems with lower bound lb.
func arrayOf1(elem uint32, elems []exec.Datum, lb int64) (exec.Datum, error) {
	if lb < -2147483648 || lb+int64(len(elems))-1 > 2147483647 {
		return exec.Null, pgerr.New(pgerr.NumericValueOutOfRange, "integer out of range")
	}
	d := exec.NewArray(elem, elems)
	if len(elems) > 0 {
		d.Array().Lower[0] = int32(lb)
	}
	return d, nil
}

// elemOID is the element type recorded in arr, 0 when arr is NULL.
func elemOID(arr exec.Datum) uint32 {
	if !arr.IsNull() {
		return arr.Array().Elem
	}
	return 0
}

// arrayAppend is array_append(array, elem): a NULL array is empty; the
// lower bound is kept.
func arrayAppend(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	lb, n, err := oneDim(a[0])
	if err != nil {
		return exec.Null, err
	}
	elems := make([]exec.Datum, 0, n+1)
	elems = append(append(elems, elemsOf(a[0])...), a[1])
	return arrayOf1(elemOID(a[0]), elems, lb)
}

// arrayPrepend is array_prepend(elem, array): the lower bound is kept
// (PostgreSQL resets it after inserting below it).
func arrayPrepend(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	lb, n, err := oneDim(a[1])
	if err != nil {
		return exec.Null, err
	}
	elems := make([]exec.Datum, 0, n+1)
	elems = append(append(elems, a[0]), elemsOf(a[1])...)
	return arrayOf1(elemOID(a[1]), elems, lb)
}

// arrayCat is array_cat: a NULL or empty side gives the other; arrays of
// equal rank concatenate along the first dimension; one of rank n-1 is
// added as one more item of the other's first dimension.
func arrayCat(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	switch {
	case a[0].IsNull():
		return a[1], nil
	case a[1].IsNull():
		return a[0], nil
	}
	x, y := a[0].Array(), a[1].Array()
	if len(x.Elems) == 0 {
		return a[1], nil
	}
	if len(y.Elems) == 0 {
		return a[0], nil
	}
	nx, ny := len(x.Dims), len(y.Dims)
	errCat := func(detail string, args ...any) error {
		return pgerr.New(pgerr.ArraySubscriptError, "cannot concatenate incompatible arrays").WithDetail(detail, args...)
	}
	out := &exec.Array{Elem: x.Elem, HasNul: x.HasNul || y.HasNul}
	switch {
	case nx == ny:
		for i := 1; i < nx; i++ {
			if x.Dims[i] != y.Dims[i] || x.Lower[i] != y.Lower[i] {
				return exec.Null, errCat("Arrays with differing element dimensions are not compatible for concatenation.")
			}
		}
		out.Dims = append([]int32{x.Dims[0] + y.Dims[0]}, x.Dims[1:]...)
		out.Lower = append([]int32(nil), x.Lower...)
	case nx == ny-1, nx == ny+1:
		outer, inner := x, y
		if nx < ny {
			outer, inner = y, x
		}
		for i := range inner.Dims {
			if inner.Dims[i] != outer.Dims[i+1] || inner.Lower[i] != outer.Lower[i+1] {
				return exec.Null, errCat("Arrays with differing dimensions are not compatible for concatenation.")
			}
		}
		out.Dims = append([]int32{outer.Dims[0] + 1}, outer.Dims[1:]...)
		out.Lower = append([]int32(nil), outer.Lower...)
	default:
		return exec.Null, errCat("Arrays of %d and %d dimensions are not compatible for concatenation.", nx, ny)
	}
	out.Elems = make([]exec.Datum, 0, len(x.Elems)+len(y.Elems))
	out.Elems = append(append(out.Elems, x.Elems...), y.Elems...)
	return exec.DArray(out), nil
}

// arrayPosition is array_position(array, elem [, start]): the subscript
// of the first element not distinct from elem, at or after start.
func arrayPosition(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	if a[0].IsNull() {
		return exec.Null, nil
	}
	arr := a[0].Array()
	if len(arr.Dims) > 1 {
		return exec.Null, pgerr.New(pgerr.FeatureNotSupported, "searching for elements in multidimensional arrays is not supported")
	}
	if len(arr.Elems) == 0 {
		return exec.Null, nil
	}
	lb := int64(arr.Lower[0])
	from := lb
	if len(a) > 2 {
		if a[2].IsNull() {
			return exec.Null, pgerr.New(pgerr.NullValueNotAllowed, "initial position must not be null")
		}
		from = a[2].I
	}
	for i, e := range arr.Elems {
		if lb+int64(i) >= from && exec.NotDistinct(e, a[1]) {
			return exec.DInt(lb + int64(i)), nil
		}
	}
	return exec.Null, nil
}

// arrayPositions is array_positions(array, elem): every subscript of an
// element not distinct from elem.
func arrayPositions(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	if a[0].IsNull() {
		return exec.Null, nil
	}
	arr := a[0].Array()
	if len(arr.Dims) > 1 {
		return exec.Null, pgerr.New(pgerr.FeatureNotSupported, "searching for elements in multidimensional arrays is not supported")
	}
	out := []exec.Datum{}
	for i, e := range arr.Elems {
		if exec.NotDistinct(e, a[1]) {
			out = append(out, exec.DInt(int64(arr.Lower[0])+int64(i)))
		}
	}
	return exec.NewArray(exec.OIDInt4, out), nil
}

// widthBucketArray is width_bucket(operand, thresholds): the number of
// the bucket operand falls in, 0 below the first threshold, found by
// PostgreSQL's binary search (the thresholds are taken to be sorted).
func widthBucketArray(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	arr := a[1].Array()
	if len(arr.Dims) > 1 {
		return exec.Null, pgerr.New(pgerr.ArraySubscriptError, "thresholds must be one-dimensional array")
	}
	for _, e := range arr.Elems {
		if e.IsNull() {
			return exec.Null, pgerr.New(pgerr.NullValueNotAllowed, "thresholds array must not contain NULLs")
		}
	}
	left, right := 0, len(arr.Elems)
	for left < right {
		mid := (left + right) / 2
		if exec.Compare(a[0], arr.Elems[mid]) < 0 {
			right = mid
		} else {
			left = mid + 1
		}
	}
	return exec.DInt(int64(left)), nil
}

// arrayRemove is array_remove(array, elem): a one-dimensional array
// without the elements not distinct from elem, its lower bound kept.
func arrayRemove(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	if a[0].IsNull() {
		return exec.Null, nil
	}
	arr := a[0].Array()
	if len(arr.Dims) > 1 {
		return exec.Null, pgerr.New(pgerr.FeatureNotSupported, "removing elements from multidimensional arrays is not supported")
	}
	var out []exec.Datum
	for _, e := range arr.Elems {
		if !exec.NotDistinct(e, a[1]) {
			out = append(out, e)
		}
	}
	if len(out) == len(arr.Elems) {
		return a[0], nil
	}
	if len(out) == 0 {
		return exec.DArray(&exec.Array{Elem: arr.Elem}), nil
	}
	return arrayOf1(arr.Elem, out, int64(arr.Lower[0]))
}

// arrayReplace is array_replace(array, from, to), any dimensions.
func arrayReplace(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	if a[0].IsNull() {
		return exec.Null, nil
	}
	arr := a[0].Array()
	out := &exec.Array{Elem: arr.Elem, Dims: arr.Dims, Lower: arr.Lower, Elems: make([]exec.Datum, len(arr.Elems))}
	for i, e := range arr.Elems {
		if exec.NotDistinct(e, a[1]) {
			e = a[2]
		}
		out.Elems[i] = e
		out.HasNul = out.HasNul || e.IsNull()
	}
	return exec.DArray(out), nil
}

// arrayContains is array_contain_compare: whether every (all) or some
// (!all) element of sub equals an element of of. NULLs equal nothing: a
// NULL in sub makes all false.
func arrayContains(sub, of *exec.Array, all bool) bool {
	for _, x := range sub.Elems {
		if x.IsNull() {
			if all {
				return false
			}
			continue
		}
		found := false
		for _, y := range of.Elems {
			if !y.IsNull() && exec.Compare(x, y) == 0 {
				found = true
				break
			}
		}
		switch {
		case found && !all:
			return true
		case !found && all:
			return false
		}
	}
	return all
}

// trimArray is trim_array(array, n): the array without its last n items
// of the first dimension.
func trimArray(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	arr, n := a[0].Array(), a[1].I
	first := int64(0)
	if len(arr.Elems) > 0 {
		first = int64(arr.Dims[0])
	}
	if n < 0 || n > first {
		return exec.Null, pgerr.New(pgerr.ArraySubscriptError, "number of elements to trim must be between 0 and %d", first)
	}
	if n == 0 {
		return a[0], nil
	}
	if n == first {
		return exec.DArray(&exec.Array{Elem: arr.Elem}), nil
	}
	// A slice of the array (array_get_slice): lower bounds become 1.
	per := len(arr.Elems) / int(first)
	out := &exec.Array{Elem: arr.Elem, Dims: append([]int32{int32(first - n)}, arr.Dims[1:]...), Lower: make([]int32, len(arr.Dims))}
	for i := range out.Lower {
		out.Lower[i] = 1
	}
	out.Elems = arr.Elems[:int(first-n)*per]
	for _, e := range out.Elems {
		if e.IsNull() {
			out.HasNul = true
			break
		}
	}
	return exec.DArray(out), nil
}

// arrayFill is array_fill(value, dims [, lower bounds]).
func arrayFill(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	if a[1].IsNull() || len(a) > 2 && a[2].IsNull() {
		return exec.Null, pgerr.New(pgerr.NullValueNotAllowed, "dimension array or low bound array cannot be null")
	}
	dims := a[1].Array()
	if len(dims.Dims) > 1 {
		return exec.Null, pgerr.New(pgerr.ArraySubscriptError, "wrong number of array subscripts").WithDetail("Dimension array must be one dimensional.")
	}
	n := len(dims.Elems)
	lbs := make([]exec.Datum, n)
	if len(a) > 2 {
		lb := a[2].Array()
		if len(lb.Dims) > 1 {
			return exec.Null, pgerr.New(pgerr.ArraySubscriptError, "wrong number of array subscripts").WithDetail("Dimension array must be one dimensional.")
		}
		if len(lb.Elems) != n {
			return exec.Null, pgerr.New(pgerr.ArraySubscriptError, "wrong number of array subscripts").WithDetail("Low bound array has different size than dimensions array.")
		}
		lbs = lb.Elems
	}
	if n > 6 {
		return exec.Null, pgerr.New(pgerr.ProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", n, 6)
	}
	out := &exec.Array{HasNul: a[0].IsNull()}
	total := int64(1)
	for i, d := range dims.Elems {
		if d.IsNull() || lbs[i].IsNull() && len(a) > 2 {
			return exec.Null, pgerr.New(pgerr.NullValueNotAllowed, "dimension values cannot be null")
		}
		lb := int64(1)
		if len(a) > 2 {
			lb = lbs[i].I
		}
		if d.I < 0 {
			return exec.Null, pgerr.New(pgerr.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", exec.MaxArrayElems)
		}
		total *= d.I
		if total > exec.MaxArrayElems {
			return exec.Null, pgerr.New(pgerr.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", exec.MaxArrayElems)
		}
		out.Dims = append(out.Dims, int32(d.I))
		out.Lower = append(out.Lower, int32(lb))
	}
	if n == 0 || total == 0 {
		return exec.DArray(&exec.Array{}), nil
	}
	out.Elems = make([]exec.Datum, total)
	for i := range out.Elems {
		out.Elems[i] = a[0]
	}
	return exec.DArray(out), nil
}

// arrayAggAcc is array_agg: the values (NULLs included) in input order;
// arrays stack into one more dimension.
type arrayAggAcc struct {
	t    exec.T
	vals []exec.Datum
}

func (a *arrayAggAcc) Add(_ *exec.Env, args []exec.Datum) error {
	a.vals = append(a.vals, args[0])
	return nil
}

func (a *arrayAggAcc) Result(*exec.Env) (exec.Datum, error) {
	if len(a.vals) == 0 {
		return exec.Null, nil
	}
	if exec.IsArrayType(a.t.OID) {
		return exec.StackArrays(exec.ElemType(a.t).OID, a.vals, true)
	}
	return exec.NewArray(a.t.OID, a.vals), nil
}
