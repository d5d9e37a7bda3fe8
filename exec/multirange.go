package exec

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// Multiranges (multirangetypes.c): a KindMultirange Datum holds a
// *Multirange, its ranges non-empty, sorted and neither overlapping nor
// adjacent, as multirange_canonicalize leaves them. Only the built-in
// range types have multirange types here.

// Multirange is one multirange value; never modified once in a Datum.
type Multirange struct {
	Ranges []*Range
}

// DMultirange returns a multirange Datum.
func DMultirange(m *Multirange) Datum { return Datum{Kind: KindMultirange, X: m} }

// Multirange returns the multirange of a KindMultirange Datum.
func (d Datum) Multirange() *Multirange { return d.X.(*Multirange) }

// IsMultirangeType reports whether oid is a multirange type.
func IsMultirangeType(oid uint32) bool { return types.MultirangeRange(types.Oid(oid)) != 0 }

// MultirangeOf returns the multirange type of range type oid, or 0.
func MultirangeOf(oid uint32) uint32 {
	for _, r := range types.BuiltinRanges {
		if uint32(r.Oid) == oid {
			return uint32(r.Multirange)
		}
	}
	return 0
}

// MakeMultirange is multirange_canonicalize: the ranges sorted, empty
// ones dropped, overlapping and adjacent ones merged.
func MakeMultirange(ranges []*Range) (Datum, error) {
	in := slices.Clone(ranges)
	slices.SortStableFunc(in, compareRange)
	var out []*Range
	for _, r := range in {
		if r.Empty {
			continue
		}
		if len(out) == 0 {
			out = append(out, r)
			continue
		}
		last := out[len(out)-1]
		switch {
		case RangeAdjacent(last, r):
			d, err := RangeUnion(last, r, false)
			if err != nil {
				return Null, err
			}
			out[len(out)-1] = d.Range()
		case RangeBefore(last, r):
			out = append(out, r)
		default:
			d, err := RangeUnion(last, r, true)
			if err != nil {
				return Null, err
			}
			out[len(out)-1] = d.Range()
		}
	}
	return DMultirange(&Multirange{Ranges: out}), nil
}

// compareMultirange is multirange_cmp: range by range, a shorter
// multirange first when one is a prefix of the other.
func compareMultirange(a, b *Multirange) int {
	for i := 0; ; i++ {
		switch {
		case i >= len(a.Ranges) && i >= len(b.Ranges):
			return 0
		case i >= len(a.Ranges):
			return -1
		case i >= len(b.Ranges):
			return 1
		}
		if c := compareRange(a.Ranges[i], b.Ranges[i]); c != 0 {
			return c
		}
	}
}

// parseMultirangeText is multirange_in for multirange type t.
func parseMultirangeText(t T, s string, st *Settings) (Datum, error) {
	rt := T{OID: uint32(types.MultirangeRange(types.Oid(t.OID))), Typmod: -1}
	malformed := func(detail string) error {
		return pgerr.New(pgerr.InvalidTextRepresentation, "malformed multirange literal: \"%s\"", s).WithDetail("%s", detail)
	}
	p := 0
	for p < len(s) && isCSpace(s[p]) {
		p++
	}
	if p >= len(s) || s[p] != '{' {
		return Null, malformed("Missing left brace.")
	}
	p++
	const (
		before = iota
		inRange
		inRangeEscaped
		inRangeQuoted
		inRangeQuotedEscaped
		after
		finished
	)
	state, seen, begin := before, 0, 0
	var ranges []*Range
	for ; ; p++ {
		if p >= len(s) {
			return Null, malformed("Unexpected end of input.")
		}
		ch := s[p]
		if isCSpace(ch) {
			continue
		}
		switch state {
		case before:
			switch {
			case ch == '[' || ch == '(':
				begin, state = p, inRange
			case ch == '}' && seen == 0:
				state = finished
			case len(s)-p >= 5 && strings.EqualFold(s[p:p+5], "empty"):
				seen++
				p += 4
				state = after
			default:
				return Null, malformed("Expected range start.")
			}
		case inRange:
			switch ch {
			case ']', ')':
				d, err := parseRangeText(rt, s[begin:p+1], st)
				if err != nil {
					return Null, err
				}
				ranges = append(ranges, d.Range())
				seen++
				state = after
			case '"':
				state = inRangeQuoted
			case '\\':
				state = inRangeEscaped
			}
		case inRangeEscaped:
			state = inRange
		case inRangeQuoted:
			switch {
			case ch == '"' && p+1 < len(s) && s[p+1] == '"':
				p++
			case ch == '"':
				state = inRange
			case ch == '\\':
				state = inRangeQuotedEscaped
			}
		case inRangeQuotedEscaped:
			state = inRangeQuoted
		case after:
			switch ch {
			case ',':
				state = before
			case '}':
				state = finished
			default:
				return Null, malformed("Expected comma or end of multirange.")
			}
		}
		if state == finished {
			break
		}
	}
	for p++; p < len(s) && isCSpace(s[p]); p++ {
	}
	if p != len(s) {
		return Null, malformed("Junk after closing right brace.")
	}
	return MakeMultirange(ranges)
}

// isCSpace is C's isspace in the C locale.
func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// appendMultirangeText is multirange_out.
func appendMultirangeText(dst []byte, d Datum, st *Settings) []byte {
	dst = append(dst, '{')
	for i, r := range d.Multirange().Ranges {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendRangeText(dst, DRange(r), st)
	}
	return append(dst, '}')
}

// appendMultirangeBinary is multirange_send: the number of ranges, then
// each range's length and range_send bytes.
func appendMultirangeBinary(dst []byte, d Datum) ([]byte, error) {
	m := d.Multirange()
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(m.Ranges)))
	for _, r := range m.Ranges {
		at := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		var err error
		if dst, err = appendRangeBinary(dst, DRange(r)); err != nil {
			return nil, err
		}
		binary.BigEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	}
	return dst, nil
}

// decodeMultirangeBinary is multirange_recv for ranges of subtype sub.
func decodeMultirangeBinary(sub T, discrete bool, b []byte) (Datum, error) {
	short := pgerr.New(pgerr.ProtocolViolation, "insufficient data left in message")
	if len(b) < 4 {
		return Null, short
	}
	n := binary.BigEndian.Uint32(b)
	b = b[4:]
	var ranges []*Range
	for i := uint32(0); i < n; i++ {
		if len(b) < 4 {
			return Null, short
		}
		l := binary.BigEndian.Uint32(b)
		if uint64(l) > uint64(len(b)-4) {
			return Null, short
		}
		d, err := decodeRangeBinary(sub, discrete, b[4:4+l])
		if err != nil {
			return Null, err
		}
		ranges, b = append(ranges, d.Range()), b[4+l:]
	}
	if len(b) != 0 {
		return Null, pgerr.New(pgerr.InvalidBinaryRepresentation, "incorrect binary data format")
	}
	return MakeMultirange(ranges)
}

// appendMultirangeField stores a multirange: its range type's subtype
// OID, marked as a stored range's (rangeFieldSub), the number of ranges,
// then each range's length and stored flags and bounds.
func appendMultirangeField(dst []byte, t T, d Datum) []byte {
	r := types.MultirangeRange(types.Oid(t.OID))
	sub := uint32(types.RangeSubtypeOf(r))
	if RangeTypeDiscrete(uint32(r)) {
		sub |= rangeFieldDiscrete
	}
	dst = binary.BigEndian.AppendUint32(dst, sub)
	m := d.Multirange()
	dst = binary.AppendUvarint(dst, uint64(len(m.Ranges)))
	var body []byte
	for _, x := range m.Ranges {
		body = appendRangeBody(body[:0], x)
		dst = binary.AppendUvarint(dst, uint64(len(body)))
		dst = append(dst, body...)
	}
	return dst
}

func decodeMultirangeField(f []byte) (Datum, error) {
	bad := pgerr.New(pgerr.DataCorrupted, "corrupt stored multirange")
	if len(f) < 4 {
		return Null, bad
	}
	sub, discrete := splitRangeFieldSub(binary.BigEndian.Uint32(f))
	f = f[4:]
	n, k := binary.Uvarint(f)
	if k <= 0 || n > uint64(len(f)) {
		return Null, bad
	}
	f = f[k:]
	m := &Multirange{Ranges: make([]*Range, 0, n)}
	for i := uint64(0); i < n; i++ {
		l, k := binary.Uvarint(f)
		if k <= 0 || l > uint64(len(f)-k) {
			return Null, bad
		}
		r, err := decodeRangeBody(sub, discrete, f[k:k+int(l)])
		if err != nil {
			return Null, err
		}
		m.Ranges, f = append(m.Ranges, r), f[k+int(l):]
	}
	if len(f) != 0 {
		return Null, bad
	}
	return DMultirange(m), nil
}

func appendMultirangeHashKey(dst []byte, m *Multirange) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(m.Ranges)))
	for _, r := range m.Ranges {
		dst = appendRangeHashKey(dst, r)
	}
	return dst
}

// The operators between a range and a multirange.

// span returns the first lower and the last upper bound of non-empty m.
func (m *Multirange) span() (lo, hi RangeBound) {
	return m.Ranges[0].Lower, m.Ranges[len(m.Ranges)-1].Upper
}

// Span returns the smallest range covering m, empty for an empty m: the
// position operators (<<, &<, -|-, ...) of a multirange are its span's.
func (m *Multirange) Span() *Range {
	if len(m.Ranges) == 0 {
		return &Range{Empty: true}
	}
	lo, hi := m.span()
	return &Range{Sub: m.Ranges[0].Sub, Discrete: m.Ranges[0].Discrete, Lower: lo, Upper: hi}
}

// RangeContainsMultirange is range @> multirange.
func RangeContainsMultirange(r *Range, m *Multirange) bool {
	switch {
	case len(m.Ranges) == 0:
		return true
	case r.Empty:
		return false
	}
	lo, hi := m.span()
	return CompareRangeBounds(r.Lower, true, lo, true) <= 0 && CompareRangeBounds(hi, false, r.Upper, false) <= 0
}

// MultirangeContainsRange is multirange @> range (range <@ multirange).
func MultirangeContainsRange(m *Multirange, r *Range) bool {
	if r.Empty {
		return true
	}
	for _, x := range m.Ranges {
		if RangeContains(x, r) {
			return true
		}
	}
	return false
}

// MultirangeContainsElem is multirange @> element.
func MultirangeContainsElem(m *Multirange, v Datum) bool {
	for _, x := range m.Ranges {
		if RangeContainsElem(x, v) {
			return true
		}
	}
	return false
}

// RangeOverlapsMultirange is range && multirange.
func RangeOverlapsMultirange(r *Range, m *Multirange) bool {
	for _, x := range m.Ranges {
		if RangeOverlaps(r, x) {
			return true
		}
	}
	return false
}

// RangeBeforeMultirange is range << multirange; after is >>.
func RangeBeforeMultirange(r *Range, m *Multirange) bool {
	if r.Empty || len(m.Ranges) == 0 {
		return false
	}
	lo, _ := m.span()
	return CompareRangeBounds(r.Upper, false, lo, true) < 0
}

// RangeAfterMultirange is range >> multirange.
func RangeAfterMultirange(r *Range, m *Multirange) bool {
	if r.Empty || len(m.Ranges) == 0 {
		return false
	}
	_, hi := m.span()
	return CompareRangeBounds(r.Lower, true, hi, false) > 0
}

// RangeOverLeftMultirange is range &< multirange.
func RangeOverLeftMultirange(r *Range, m *Multirange) bool {
	if r.Empty || len(m.Ranges) == 0 {
		return false
	}
	_, hi := m.span()
	return CompareRangeBounds(r.Upper, false, hi, false) <= 0
}

// RangeOverRightMultirange is range &> multirange.
func RangeOverRightMultirange(r *Range, m *Multirange) bool {
	if r.Empty || len(m.Ranges) == 0 {
		return false
	}
	lo, _ := m.span()
	return CompareRangeBounds(r.Lower, true, lo, true) >= 0
}

// RangeAdjacentMultirange is range -|- multirange.
func RangeAdjacentMultirange(r *Range, m *Multirange) bool {
	if r.Empty || len(m.Ranges) == 0 {
		return false
	}
	lo, hi := m.span()
	return boundsAdjacent(r, r.Upper, lo) || boundsAdjacent(r, hi, r.Lower)
}
