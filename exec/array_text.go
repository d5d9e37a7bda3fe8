package exec

import (
	"github.com/prollypg/prollypg/exec/types"
)

// text[]: enough of arrays for the functions that take a path or a list of
// keys (#>, #-, jsonb_set, ?|, ...): its text input and output. Values are
// KindArray Datums of text elements.

// OIDTextArray is text[].
const OIDTextArray uint32 = 1009

// TTextArray is text[] without a modifier.
var TTextArray = T{OIDTextArray, -1}

func init() {
	typeNames[OIDTextArray] = "text[]"
}

// parseArrayText parses the input of the array types this package knows;
// ok is false for any other type.
func parseArrayText(t T, s string) (d Datum, ok bool, err error) {
	if t.OID != OIDTextArray {
		return Null, false, nil
	}
	a, err := types.ParseArray(s, types.TextCodec(types.OidText, -1))
	if err != nil {
		return Null, true, err
	}
	out := &Array{Elem: OIDText}
	for _, dim := range a.Dims {
		out.Dims = append(out.Dims, dim.Len)
		out.Lower = append(out.Lower, dim.Lower)
	}
	out.Elems = make([]Datum, len(a.Elems))
	for i, e := range a.Elems {
		if a.IsNull(i) {
			out.HasNul = true
			continue
		}
		out.Elems[i] = DText(e)
	}
	return DArray(out), true, nil
}

// appendArrayText appends array_out's text of an array of text elements.
func appendArrayText(dst []byte, d Datum) []byte {
	a := d.Array()
	ta := types.Array[string]{Elems: make([]string, len(a.Elems))}
	for i := range a.Dims {
		ta.Dims = append(ta.Dims, types.ArrayDim{Len: a.Dims[i], Lower: a.Lower[i]})
	}
	for i, e := range a.Elems {
		if e.IsNull() {
			if ta.Nulls == nil {
				ta.Nulls = make([]bool, len(a.Elems))
			}
			ta.Nulls[i] = true
			continue
		}
		ta.Elems[i] = e.S
	}
	return types.AppendArray(dst, &ta, types.TextCodec(types.OidText, -1))
}

// textArrayOf returns the elements of a one-dimensional text[] (nil for
// NULL elements' strings: the bool says which are NULL).
func textArrayOf(d Datum) []Datum {
	if d.Kind != KindArray {
		return nil
	}
	return d.Array().Elems
}

// textArray makes a one-dimensional text[] of elems (NULL elements as
// Null).
func textArray(elems []Datum) Datum {
	a := &Array{Elem: OIDText, Elems: elems}
	if len(elems) > 0 {
		a.Dims, a.Lower = []int32{int32(len(elems))}, []int32{1}
	}
	for _, e := range elems {
		if e.IsNull() {
			a.HasNul = true
		}
	}
	return DArray(a)
}

// TextArray makes a one-dimensional text[] of elems, for the planner's
// functions that return one.
func TextArray(elems []Datum) Datum { return textArray(elems) }
