package exec

import (
	"encoding/binary"
	"math"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/prolly/tuple"
)

// Range types (rangetypes.c). A range value is a *Range in a KindRange
// Datum: empty, or two bounds each infinite or a value of the subtype,
// inclusive or not. Values are always normalized as PostgreSQL's
// make_range leaves them: infinite bounds exclusive, lower <= upper,
// equal bounds not both inclusive made empty, and discrete ranges
// (int4range, int8range, daterange) in their canonical '[)' form.
// Comparing two ranges compares their bounds with Compare, so a range
// orders and hashes without knowing its subtype.

// Range is one range value; never modified once in a Datum.
type Range struct {
	// Sub is the subtype's OID, which the text output of the bounds
	// needs and which a user range type's OID does not tell.
	Sub uint32
	// Discrete ranges are those of a type with a canonical function
	// (int4range, int8range, daterange), kept in '[)' form.
	Discrete bool
	Empty    bool
	Lower    RangeBound
	Upper    RangeBound
}

// RangeBound is one bound of a non-empty range.
type RangeBound struct {
	Val Datum // Null when infinite
	Inf bool
	Inc bool
}

// DRange returns a range Datum.
func DRange(r *Range) Datum { return Datum{Kind: KindRange, X: r} }

// Range returns the range of a KindRange Datum.
func (d Datum) Range() *Range { return d.X.(*Range) }

// IsRangeType reports whether oid is a range type (built-in or user).
func IsRangeType(oid uint32) bool {
	if types.RangeSubtypeOf(types.Oid(oid)) != 0 {
		return true
	}
	cat, array := types.UserCategoryOf(types.Oid(oid))
	return cat == types.UserRange && !array
}

// RangeSubtype returns the subtype of range type t: built-in ones are
// known, a user range type's is in the session's catalog.
func RangeSubtype(t T, st *Settings) (T, error) {
	if s := types.RangeSubtypeOf(types.Oid(t.OID)); s != 0 {
		return T{OID: uint32(s), Typmod: -1}, nil
	}
	ut, err := LookupUserType(t, st)
	if err != nil {
		return T{}, err
	}
	if ut.RangeSubtype == 0 {
		return T{}, pgerr.New(pgerr.WrongObjectType, "type %s is not a range type", ut.Name)
	}
	return T{OID: uint32(ut.RangeSubtype), Typmod: -1}, nil
}

// RangeTypeDiscrete reports whether range type oid has a canonical
// function: the discrete built-in ranges. A user range type has none
// (CANONICAL functions are not supported), whatever its subtype.
func RangeTypeDiscrete(oid uint32) bool {
	switch types.Oid(oid) {
	case types.OidInt4Range, types.OidInt8Range, types.OidDateRange:
		return true
	}
	return false
}

// MakeRange builds the range of the given bounds as make_range does:
// it checks their order, makes equal exclusive bounds empty and
// canonicalizes a discrete range.
func MakeRange(sub uint32, discrete bool, lo, hi RangeBound, empty bool) (Datum, error) {
	r, err := makeRange(sub, discrete, lo, hi, empty)
	if err != nil {
		return Null, err
	}
	return DRange(r), nil
}

func makeRange(sub uint32, discrete bool, lo, hi RangeBound, empty bool) (*Range, error) {
	r, err := serializeRange(sub, discrete, lo, hi, empty)
	if err != nil || r.Empty || !discrete {
		return r, err
	}
	lo, hi = r.Lower, r.Upper
	changed := false
	if !lo.Inf && !lo.Inc && rangeFinite(sub, lo.Val) {
		v, err := rangeSucc(sub, lo.Val)
		if err != nil {
			return nil, err
		}
		lo, changed = RangeBound{Val: v, Inc: true}, true
	}
	if !hi.Inf && hi.Inc && rangeFinite(sub, hi.Val) {
		v, err := rangeSucc(sub, hi.Val)
		if err != nil {
			return nil, err
		}
		hi, changed = RangeBound{Val: v}, true
	}
	if !changed {
		return r, nil
	}
	return serializeRange(sub, discrete, lo, hi, false)
}

// serializeRange is range_serialize: the order check and emptiness.
func serializeRange(sub uint32, discrete bool, lo, hi RangeBound, empty bool) (*Range, error) {
	if empty {
		return &Range{Sub: sub, Discrete: discrete, Empty: true}, nil
	}
	if lo.Inf {
		lo = RangeBound{Inf: true}
	}
	if hi.Inf {
		hi = RangeBound{Inf: true}
	}
	if !lo.Inf && !hi.Inf {
		switch c := Compare(lo.Val, hi.Val); {
		case c > 0:
			return nil, pgerr.New(pgerr.DataException, "range lower bound must be less than or equal to range upper bound")
		case c == 0 && !(lo.Inc && hi.Inc):
			return &Range{Sub: sub, Discrete: discrete, Empty: true}, nil
		}
	}
	return &Range{Sub: sub, Discrete: discrete, Lower: lo, Upper: hi}, nil
}

// rangeFinite reports whether v is finite: daterange_canonical leaves
// infinite dates, and their inclusivity, as they are.
func rangeFinite(sub uint32, v Datum) bool {
	return sub != OIDDate || v.I != int64(types.DateInfinity) && v.I != int64(types.DateNegInfinity)
}

// rangeSucc is the next value of a discrete subtype, for the canonical
// functions.
func rangeSucc(sub uint32, v Datum) (Datum, error) {
	switch sub {
	case OIDInt4:
		if v.I >= math.MaxInt32 {
			return Null, IntRangeError("integer")
		}
	case OIDInt8:
		if v.I == math.MaxInt64 {
			return Null, IntRangeError("bigint")
		}
	}
	v.I++
	return v, nil
}

// CompareRangeBounds is range_cmp_bounds: the order of two bounds,
// lower or upper, where an exclusive lower bound is just above its
// value and an exclusive upper bound just below it.
func CompareRangeBounds(b1 RangeBound, lower1 bool, b2 RangeBound, lower2 bool) int {
	if c := compareRangeBoundValues(b1, lower1, b2, lower2); c != 0 || b1.Inf || b2.Inf {
		return c
	}
	switch {
	case !b1.Inc && !b2.Inc:
		if lower1 == lower2 {
			return 0
		}
		return -infSign(lower1)
	case !b1.Inc:
		return -infSign(lower1)
	case !b2.Inc:
		return infSign(lower2)
	}
	return 0
}

// compareRangeBoundValues is range_cmp_bound_values: bounds' values
// alone, inclusivity ignored.
func compareRangeBoundValues(b1 RangeBound, lower1 bool, b2 RangeBound, lower2 bool) int {
	switch {
	case b1.Inf && b2.Inf:
		if lower1 == lower2 {
			return 0
		}
		return infSign(lower1)
	case b1.Inf:
		return infSign(lower1)
	case b2.Inf:
		return -infSign(lower2)
	}
	return Compare(b1.Val, b2.Val)
}

// infSign is -1 for a lower bound's infinity, 1 for an upper's.
func infSign(lower bool) int {
	if lower {
		return -1
	}
	return 1
}

// compareRange is range_cmp, the btree order: empty first, then by
// lower bound, then by upper bound.
func compareRange(a, b *Range) int {
	switch {
	case a.Empty && b.Empty:
		return 0
	case a.Empty:
		return -1
	case b.Empty:
		return 1
	}
	if c := CompareRangeBounds(a.Lower, true, b.Lower, true); c != 0 {
		return c
	}
	return CompareRangeBounds(a.Upper, false, b.Upper, false)
}

// rangeFlags are a range's flags in PostgreSQL's encoding.
func rangeFlags(r *Range) byte {
	if r.Empty {
		return types.RangeEmpty
	}
	var f byte
	if r.Lower.Inc {
		f |= types.RangeLBInc
	}
	if r.Upper.Inc {
		f |= types.RangeUBInc
	}
	if r.Lower.Inf {
		f |= types.RangeLBInf
	}
	if r.Upper.Inf {
		f |= types.RangeUBInf
	}
	return f
}

// parseRangeText is range_in.
func parseRangeText(t T, s string, st *Settings) (Datum, error) {
	sub, err := RangeSubtype(t, st)
	if err != nil {
		return Null, err
	}
	flags, ls, us, err := types.ParseRangeText(s)
	if te, ok := err.(*types.Error); ok {
		// As a pgerr.Error, so that the planner adds the literal's
		// position to the DETAIL.
		e := pgerr.New(pgerr.Code(te.Code), "%s", te.Message)
		if te.Detail != "" {
			e = e.WithDetail("%s", te.Detail)
		}
		return Null, e
	}
	lo := RangeBound{Inf: flags&types.RangeLBInf != 0, Inc: flags&types.RangeLBInc != 0}
	hi := RangeBound{Inf: flags&types.RangeUBInf != 0, Inc: flags&types.RangeUBInc != 0}
	if flags&types.RangeEmpty == 0 {
		if !lo.Inf {
			if lo.Val, err = ParseText(sub, ls, st); err != nil {
				return Null, err
			}
		}
		if !hi.Inf {
			if hi.Val, err = ParseText(sub, us, st); err != nil {
				return Null, err
			}
		}
	}
	return MakeRange(sub.OID, RangeTypeDiscrete(t.OID), lo, hi, flags&types.RangeEmpty != 0)
}

// appendRangeText is range_out.
func appendRangeText(dst []byte, d Datum, st *Settings) []byte {
	r := d.Range()
	if r.Empty {
		return append(dst, "empty"...)
	}
	sub := T{OID: r.Sub, Typmod: -1}
	if r.Lower.Inc {
		dst = append(dst, '[')
	} else {
		dst = append(dst, '(')
	}
	if !r.Lower.Inf {
		dst = types.AppendRangeBound(dst, string(AppendText(nil, sub, r.Lower.Val, st)))
	}
	dst = append(dst, ',')
	if !r.Upper.Inf {
		dst = types.AppendRangeBound(dst, string(AppendText(nil, sub, r.Upper.Val, st)))
	}
	if r.Upper.Inc {
		return append(dst, ']')
	}
	return append(dst, ')')
}

// appendRangeBinary is range_send: the flags byte, then each finite
// bound as a length and the subtype's binary form.
func appendRangeBinary(dst []byte, d Datum) ([]byte, error) {
	r := d.Range()
	dst = append(dst, rangeFlags(r))
	if r.Empty {
		return dst, nil
	}
	sub := T{OID: r.Sub, Typmod: -1}
	for _, b := range []RangeBound{r.Lower, r.Upper} {
		if b.Inf {
			continue
		}
		at := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		var err error
		if dst, err = AppendBinary(dst, sub, b.Val); err != nil {
			return nil, err
		}
		binary.BigEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	}
	return dst, nil
}

// decodeRangeBinary is range_recv for a range of subtype sub.
func decodeRangeBinary(sub T, discrete bool, b []byte) (Datum, error) {
	if len(b) < 1 {
		return Null, pgerr.New(pgerr.ProtocolViolation, "insufficient data left in message")
	}
	flags := b[0]
	b = b[1:]
	if flags&^(types.RangeEmpty|types.RangeLBInc|types.RangeUBInc|types.RangeLBInf|types.RangeUBInf) != 0 {
		return Null, pgerr.New(pgerr.InvalidBinaryRepresentation, "invalid range flags")
	}
	lo := RangeBound{Inf: flags&types.RangeLBInf != 0, Inc: flags&types.RangeLBInc != 0}
	hi := RangeBound{Inf: flags&types.RangeUBInf != 0, Inc: flags&types.RangeUBInc != 0}
	empty := flags&types.RangeEmpty != 0
	read := func(bd *RangeBound) error {
		if empty || bd.Inf {
			return nil
		}
		if len(b) < 4 {
			return pgerr.New(pgerr.ProtocolViolation, "insufficient data left in message")
		}
		n := binary.BigEndian.Uint32(b)
		if uint64(n) > uint64(len(b)-4) {
			return pgerr.New(pgerr.ProtocolViolation, "insufficient data left in message")
		}
		v, err := DecodeBinary(sub, b[4:4+n])
		if err != nil {
			return err
		}
		bd.Val, b = v, b[4+n:]
		return nil
	}
	if err := read(&lo); err != nil {
		return Null, err
	}
	if err := read(&hi); err != nil {
		return Null, err
	}
	if len(b) != 0 {
		return Null, pgerr.New(pgerr.InvalidBinaryRepresentation, "incorrect binary data format")
	}
	return MakeRange(sub.OID, discrete, lo, hi, empty)
}

// Stored ranges: the subtype's OID (its top bit set for a discrete
// range), the flags, then the bounds as a tuple of two fields of the
// subtype, each as a row stores it (NULL when infinite or empty), so that
// decoding needs no catalog and every subtype a column can hold can be a
// range's.

// appendRangeField appends d as a stored range.
func appendRangeField(dst []byte, d Datum) []byte {
	r := d.Range()
	dst = binary.BigEndian.AppendUint32(dst, rangeFieldSub(r))
	return appendRangeBody(dst, r)
}

// appendRangeBody appends r's flags and bounds.
func appendRangeBody(dst []byte, r *Range) []byte {
	dst = append(dst, rangeFlags(r))
	var b tuple.Builder
	sub := T{OID: r.Sub, Typmod: -1}
	for _, bd := range []RangeBound{r.Lower, r.Upper} {
		if r.Empty || bd.Inf {
			b.AppendNull()
		} else {
			appendField(&b, sub, bd.Val)
		}
	}
	return b.AppendTo(dst)
}

// rangeFieldDiscrete marks a discrete range's stored subtype OID, which
// is below 2^31 (types.UserTypeOID).
const rangeFieldDiscrete = 1 << 31

func rangeFieldSub(r *Range) uint32 {
	if r.Discrete {
		return r.Sub | rangeFieldDiscrete
	}
	return r.Sub
}

// splitRangeFieldSub is the inverse of rangeFieldSub.
func splitRangeFieldSub(v uint32) (T, bool) {
	return T{OID: v &^ rangeFieldDiscrete, Typmod: -1}, v&rangeFieldDiscrete != 0
}

func errCorruptRange() error { return pgerr.New(pgerr.DataCorrupted, "corrupt stored range") }

func decodeRangeField(f []byte) (Datum, error) {
	if len(f) < 4 {
		return Null, errCorruptRange()
	}
	sub, discrete := splitRangeFieldSub(binary.BigEndian.Uint32(f))
	r, err := decodeRangeBody(sub, discrete, f[4:])
	if err != nil {
		return Null, err
	}
	return DRange(r), nil
}

// decodeRangeBody decodes what appendRangeBody appended: stored ranges
// are normalized already.
func decodeRangeBody(sub T, discrete bool, f []byte) (*Range, error) {
	if len(f) < 1 || tuple.Validate(f[1:]) != nil {
		return nil, errCorruptRange()
	}
	flags, tup := f[0], tuple.Tuple(f[1:])
	if tup.Count() != 2 {
		return nil, errCorruptRange()
	}
	r := &Range{Sub: sub.OID, Discrete: discrete, Empty: flags&types.RangeEmpty != 0}
	if r.Empty {
		return r, nil
	}
	for i, bd := range []*RangeBound{&r.Lower, &r.Upper} {
		bd.Inf = flags&[]byte{types.RangeLBInf, types.RangeUBInf}[i] != 0
		bd.Inc = flags&[]byte{types.RangeLBInc, types.RangeUBInc}[i] != 0
		if bd.Inf {
			continue
		}
		v, null := tup.Field(i)
		if null {
			return nil, errCorruptRange()
		}
		d, err := decodeField(sub, v)
		if err != nil {
			return nil, err
		}
		bd.Val = d
	}
	return r, nil
}

// appendRangeHashKey appends the canonical encoding of a range for
// hashing (appendHashKey).
func appendRangeHashKey(dst []byte, r *Range) []byte {
	dst = append(dst, rangeFlags(r))
	if !r.Empty {
		if !r.Lower.Inf {
			dst = appendHashKey(dst, r.Lower.Val)
		}
		if !r.Upper.Inf {
			dst = appendHashKey(dst, r.Upper.Val)
		}
	}
	return dst
}
