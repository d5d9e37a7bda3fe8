package exec

import (
	"encoding/binary"
	"strings"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/prolly/tuple"
)

// Arrays. Every scalar type has an array type (pg_type.typarray, in
// exec/types); a value of one is a KindArray Datum pointing to an immutable
// *Array whose Elems are Datums of the element type, NULL elements as Null.
// An array type's modifier is its element's: varchar(10)[] has the typmod
// of varchar(10), as atttypmod has it in PostgreSQL.

// OIDTextArray is text[].
const OIDTextArray uint32 = 1009

// OIDXMLArray is xml[].
const OIDXMLArray uint32 = 143

// OIDInt4Array is int4[].
const OIDInt4Array uint32 = 1007

// TTextArray is text[] without a modifier.
var TTextArray = T{OIDTextArray, -1}

// IsArrayType reports whether oid is an array type.
func IsArrayType(oid uint32) bool { return types.ElemOf(types.Oid(oid)) != 0 }

// ElemType returns the element type of array type t, keeping its modifier
// (the zero T if t is not an array type).
func ElemType(t T) T {
	e := types.ElemOf(types.Oid(t.OID))
	if e == 0 {
		return T{}
	}
	return T{OID: uint32(e), Typmod: t.Typmod}
}

// VariadicElem is the type each argument gathered by a VARIADIC
// parameter of array type arr binds to (pg_proc.provariadic): its element
// type; anyelement for anyarray, anycompatible for anycompatiblearray,
// "any" for "any"; 0 when arr is not an array.
func VariadicElem(arr uint32) uint32 {
	switch arr {
	case OIDAnyArray:
		return OIDAnyElement
	case OIDAnyCompatibleArray:
		return OIDAnyCompatible
	case OIDAny:
		return OIDAny
	}
	return ElemType(T{OID: arr, Typmod: -1}).OID
}

// ArrayType returns the array type of elements of type elem (the zero T
// if elem has none).
func ArrayType(elem T) T {
	a := types.ArrayOf(types.Oid(elem.OID))
	if a == 0 {
		return T{}
	}
	return T{OID: uint32(a), Typmod: elem.Typmod}
}

// NewArray returns a one-dimensional array of elems, of element type elem
// (an empty array if elems is empty). It keeps elems.
func NewArray(elem uint32, elems []Datum) Datum {
	a := &Array{Elem: elem, Elems: elems}
	if len(elems) > 0 {
		a.Dims, a.Lower = []int32{int32(len(elems))}, []int32{1}
	}
	for _, e := range elems {
		if e.IsNull() {
			a.HasNul = true
			break
		}
	}
	return DArray(a)
}

// nitems is the number of elements the dimensions dims describe.
func (a *Array) nitems() int {
	if len(a.Dims) == 0 {
		return 0
	}
	n := 1
	for _, d := range a.Dims {
		n *= int(d)
	}
	return n
}

// elemCodec is the element codec the generic array I/O of exec/types uses
// for Datums of type elem. Binary output of a Datum fails only for a
// malformed stored jsonb, which cannot happen: its text was normalised on
// input.
func elemCodec(elem T, st *Settings) *types.ElemCodec[Datum] {
	delim := byte(',')
	if t := types.Lookup(types.Oid(elem.OID)); t != nil {
		delim = t.Delim // box's is ';'
	}
	return &types.ElemCodec[Datum]{
		Oid:        types.Oid(elem.OID),
		Delim:      delim,
		AppendText: func(dst []byte, d Datum) []byte { return AppendText(dst, elem, d, st) },
		ParseText:  func(s string) (Datum, error) { return ParseText(elem, s, st) },
		AppendBinary: func(dst []byte, d Datum) []byte {
			out, err := AppendBinary(dst, elem, d)
			if err != nil {
				return dst
			}
			return out
		},
		ParseBinary: func(b []byte) (Datum, error) { return DecodeBinary(elem, b) },
	}
}

// toTypesArray views a as the generic array of exec/types (sharing its
// elements; the NULL flags are made only when some element is NULL).
func toTypesArray(a *Array) types.Array[Datum] {
	ta := types.Array[Datum]{Elems: a.Elems}
	if len(a.Elems) == 0 {
		return ta
	}
	ta.Dims = make([]types.ArrayDim, len(a.Dims))
	for i := range a.Dims {
		ta.Dims[i] = types.ArrayDim{Len: a.Dims[i], Lower: a.Lower[i]}
	}
	for i, e := range a.Elems {
		if e.IsNull() {
			if ta.Nulls == nil {
				ta.Nulls = make([]bool, len(a.Elems))
			}
			ta.Nulls[i] = true
		}
	}
	return ta
}

// fromTypesArray makes an Array of elements of type elem from the generic
// array of exec/types.
func fromTypesArray(elem uint32, ta types.Array[Datum]) Datum {
	a := &Array{Elem: elem, Elems: ta.Elems}
	if len(ta.Elems) == 0 {
		a.Elems = nil
		return DArray(a)
	}
	a.Dims = make([]int32, len(ta.Dims))
	a.Lower = make([]int32, len(ta.Dims))
	for i, d := range ta.Dims {
		a.Dims[i], a.Lower[i] = d.Len, d.Lower
	}
	for i := range ta.Elems {
		if ta.IsNull(i) {
			a.Elems[i], a.HasNul = Null, true
		}
	}
	return DArray(a)
}

// parseArray is array_in for array type t. Elements are read without
// their modifier (but interval's, which its input needs), as PostgreSQL
// reads a literal; CastFn applies it afterwards, explicitly or not.
func parseArray(t T, s string, st *Settings) (Datum, error) {
	elem := ElemType(t)
	if elem.OID != OIDInterval {
		elem.Typmod = -1
	}
	ta, err := types.ParseArray(s, elemCodec(elem, st))
	if err != nil {
		return Null, err
	}
	return fromTypesArray(elem.OID, ta), nil
}

// appendArray is array_out for an array of elements of type elem.
func appendArray(dst []byte, elem T, d Datum, st *Settings) []byte {
	a := d.Array()
	if elem.OID == 0 {
		elem = T{OID: a.Elem, Typmod: -1}
	}
	ta := toTypesArray(a)
	return types.AppendArray(dst, &ta, elemCodec(elem, st))
}

// appendArrayBinary is array_send.
func appendArrayBinary(dst []byte, t T, d Datum) []byte {
	ta := toTypesArray(d.Array())
	return types.AppendArrayBinary(dst, &ta, elemCodec(ElemType(t), nil))
}

// decodeArrayBinary is array_recv.
func decodeArrayBinary(t T, b []byte) (Datum, error) {
	elem := ElemType(t)
	ta, err := types.ParseArrayBinary(b, elemCodec(elem, nil))
	if err != nil {
		return Null, err
	}
	return fromTypesArray(elem.OID, ta), nil
}

// Stored arrays: a tuple field holding a format byte (1), the number of
// dimensions as a uvarint, each dimension's length and lower bound as
// varints, then a nested prolly/tuple with one field per element in
// row-major order, each encoded as a column of the element type is
// (appendField), NULL elements as NULL fields.

const arrayFormat1 = 1

// appendArrayField returns the stored form of array d of type t.
func appendArrayField(dst []byte, t T, d Datum) []byte {
	a := d.Array()
	dst = append(dst, arrayFormat1)
	if len(a.Elems) == 0 {
		return binary.AppendUvarint(dst, 0)
	}
	dst = binary.AppendUvarint(dst, uint64(len(a.Dims)))
	for i := range a.Dims {
		dst = binary.AppendVarint(dst, int64(a.Dims[i]))
		dst = binary.AppendVarint(dst, int64(a.Lower[i]))
	}
	elem := ElemType(t)
	var b tuple.Builder
	for _, e := range a.Elems {
		appendField(&b, elem, e)
	}
	return b.AppendTo(dst)
}

// decodeArrayField reads an array of type t stored by appendArrayField.
func decodeArrayField(t T, f []byte) (Datum, error) {
	elem := ElemType(t)
	if len(f) == 0 || f[0] != arrayFormat1 {
		return Null, errCorruptArray()
	}
	f = f[1:]
	ndim, n := binary.Uvarint(f)
	if n <= 0 || ndim > types.MaxDim {
		return Null, errCorruptArray()
	}
	f = f[n:]
	a := &Array{Elem: elem.OID}
	if ndim == 0 {
		return DArray(a), nil
	}
	a.Dims, a.Lower = make([]int32, ndim), make([]int32, ndim)
	nitems := 1
	for i := range a.Dims {
		l, n := binary.Varint(f)
		if n <= 0 || l < 0 {
			return Null, errCorruptArray()
		}
		f = f[n:]
		lo, n := binary.Varint(f)
		if n <= 0 {
			return Null, errCorruptArray()
		}
		f = f[n:]
		a.Dims[i], a.Lower[i] = int32(l), int32(lo)
		nitems *= int(l)
	}
	tup := tuple.Tuple(f)
	if err := tuple.Validate(f); err != nil || tup.Count() != nitems {
		return Null, errCorruptArray()
	}
	a.Elems = make([]Datum, nitems)
	for i := range a.Elems {
		field, null := tup.Field(i)
		if null {
			a.HasNul = true
			continue
		}
		e, err := decodeField(elem, field)
		if err != nil {
			return Null, err
		}
		a.Elems[i] = e
	}
	return DArray(a), nil
}

func errCorruptArray() error { return pgerr.New(pgerr.DataCorrupted, "corrupt stored array") }

// mapArray returns array d with f applied to each non-NULL element, as
// elements of type elem.
func mapArray(d Datum, elem uint32, f func(Datum) (Datum, error)) (Datum, error) {
	a := d.Array()
	out := &Array{Elem: elem, Dims: a.Dims, Lower: a.Lower, Elems: make([]Datum, len(a.Elems))}
	for i, e := range a.Elems {
		if e.IsNull() {
			out.HasNul = true
			continue
		}
		v, err := f(e)
		if err != nil {
			return Null, err
		}
		if v.IsNull() {
			out.HasNul = true
		}
		out.Elems[i] = v
	}
	return DArray(out), nil
}

// arrayCast converts an array element by element (array_map), or returns
// nil if the element types have no cast. The target's modifier is applied
// by CastFn, through applyTypmod.
func arrayCast(from, to T) Fn {
	fe, te := ElemType(from), ElemType(to)
	fe.Typmod, te.Typmod = -1, -1
	conv := castKind(fe, te)
	if conv == nil {
		return nil
	}
	return func(env *Env, a []Datum) (Datum, error) {
		var arg [1]Datum
		return mapArray(a[0], te.OID, func(e Datum) (Datum, error) {
			arg[0] = e
			return conv(env, arg[:])
		})
	}
}

// The vector types of the catalogs (pg_index.indkey, indclass): arrays of
// int2 or oid with lower bound 0, whose text form is the elements
// separated by spaces.
const (
	OIDInt2Vector = uint32(types.OidInt2Vector)
	OIDOidVector  = uint32(types.OidOidVector)
)

// parseVector is int2vectorin and oidvectorin.
func parseVector(t T, s string) (Datum, error) {
	elem := ElemType(t)
	var elems []Datum
	for _, f := range strings.Fields(s) {
		d, err := ParseText(elem, f, nil)
		if err != nil {
			return Null, err
		}
		elems = append(elems, d)
	}
	d := NewArray(elem.OID, elems)
	if len(elems) > 0 {
		d.Array().Lower[0] = 0
	}
	return d, nil
}

// appendVector is int2vectorout and oidvectorout.
func appendVector(dst []byte, d Datum) []byte {
	for i, e := range d.Array().Elems {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = types.AppendInt(dst, e.I)
	}
	return dst
}
