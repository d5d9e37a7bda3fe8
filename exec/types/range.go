package types

import "strings"

// The built-in range types of PostgreSQL 15 (pg_type.dat, pg_range.dat).
const (
	OidInt4Range Oid = 3904
	OidNumRange  Oid = 3906
	OidTsRange   Oid = 3908
	OidTstzRange Oid = 3910
	OidDateRange Oid = 3912
	OidInt8Range Oid = 3926

	OidInt4RangeArray Oid = 3905
	OidNumRangeArray  Oid = 3907
	OidTsRangeArray   Oid = 3909
	OidTstzRangeArray Oid = 3911
	OidDateRangeArray Oid = 3913
	OidInt8RangeArray Oid = 3927

	// The multirange types of the built-in ranges and their arrays.
	OidInt4Multirange Oid = 4451
	OidNumMultirange  Oid = 4532
	OidTsMultirange   Oid = 4533
	OidTstzMultirange Oid = 4534
	OidDateMultirange Oid = 4535
	OidInt8Multirange Oid = 4536

	OidInt4MultirangeArray Oid = 6150
	OidNumMultirangeArray  Oid = 6151
	OidTsMultirangeArray   Oid = 6152
	OidTstzMultirangeArray Oid = 6153
	OidDateMultirangeArray Oid = 6155
	OidInt8MultirangeArray Oid = 6157
)

// BuiltinRange is one row of pg_range for a built-in range type.
type BuiltinRange struct {
	Oid, Subtype, Multirange Oid
	SubOpclass               Oid    // rngsubopc: the subtype's btree opclass
	Canonical, SubDiff       string // rngcanonical ("-" for none), rngsubdiff
}

// BuiltinRanges are pg_range's rows of the built-in range types.
var BuiltinRanges = []BuiltinRange{
	{OidInt4Range, OidInt4, OidInt4Multirange, 1978, "int4range_canonical", "int4range_subdiff"},
	{OidNumRange, OidNumeric, OidNumMultirange, 3125, "-", "numrange_subdiff"},
	{OidTsRange, OidTimestamp, OidTsMultirange, 3128, "-", "tsrange_subdiff"},
	{OidTstzRange, OidTimestampTZ, OidTstzMultirange, 3127, "-", "tstzrange_subdiff"},
	{OidDateRange, OidDate, OidDateMultirange, 3122, "daterange_canonical", "daterange_subdiff"},
	{OidInt8Range, OidInt8, OidInt8Multirange, 3124, "int8range_canonical", "int8range_subdiff"},
}

// RangeSubtypeOf returns the subtype of built-in range type oid, or 0.
func RangeSubtypeOf(oid Oid) Oid {
	for _, r := range BuiltinRanges {
		if r.Oid == oid {
			return r.Subtype
		}
	}
	return 0
}

// MultirangeRange returns the range type of built-in multirange type
// oid, or 0.
func MultirangeRange(oid Oid) Oid {
	for _, r := range BuiltinRanges {
		if r.Multirange == oid {
			return r.Oid
		}
	}
	return 0
}

// RangeOfSubtype returns the built-in range type over subtype, or 0: the
// range type an anyrange result takes from an anyelement argument.
func RangeOfSubtype(subtype Oid) Oid {
	for _, r := range BuiltinRanges {
		if r.Subtype == subtype {
			return r.Oid
		}
	}
	return 0
}

func rangeTypeRows() []Type {
	var t []Type
	for _, r := range BuiltinRanges {
		name := map[Oid]string{OidInt4Range: "int4range", OidNumRange: "numrange", OidTsRange: "tsrange",
			OidTstzRange: "tstzrange", OidDateRange: "daterange", OidInt8Range: "int8range"}[r.Oid]
		align := byte('i')
		if r.Subtype == OidInt8 || r.Subtype == OidTimestamp || r.Subtype == OidTimestampTZ {
			align = 'd'
		}
		t = append(t,
			base(r.Oid, name, -1, false, 'R', false, 0, r.Oid+1, "range_in", "range_out", "range_recv", "range_send", align, 'x', 'r'),
			arrayType(r.Oid+1, "_"+name, r.Oid, align, 'A', 'b'))
	}
	marrays := map[Oid]Oid{OidInt4Multirange: OidInt4MultirangeArray, OidNumMultirange: OidNumMultirangeArray,
		OidTsMultirange: OidTsMultirangeArray, OidTstzMultirange: OidTstzMultirangeArray,
		OidDateMultirange: OidDateMultirangeArray, OidInt8Multirange: OidInt8MultirangeArray}
	for _, r := range BuiltinRanges {
		name := map[Oid]string{OidInt4Range: "int4multirange", OidNumRange: "nummultirange", OidTsRange: "tsmultirange",
			OidTstzRange: "tstzmultirange", OidDateRange: "datemultirange", OidInt8Range: "int8multirange"}[r.Oid]
		align := byte('i')
		if r.Subtype == OidInt8 || r.Subtype == OidTimestamp || r.Subtype == OidTimestampTZ {
			align = 'd'
		}
		arr := marrays[r.Multirange]
		t = append(t,
			base(r.Multirange, name, -1, false, 'R', false, 0, arr, "multirange_in", "multirange_out", "multirange_recv", "multirange_send", align, 'x', 'm'),
			arrayType(arr, "_"+name, r.Multirange, align, 'A', 'b'))
	}
	return t
}

// Range flags, as PostgreSQL's rangetypes.h has them (and its binary
// format sends them).
const (
	RangeEmpty = 0x01
	RangeLBInc = 0x02
	RangeUBInc = 0x04
	RangeLBInf = 0x08
	RangeUBInf = 0x10
)

// ParseRangeText splits a range literal as PostgreSQL's range_parse does:
// the flags (RangeEmpty, RangeLBInc, ...) and the de-quoted text of each
// finite bound, for the subtype's input function to read.
func ParseRangeText(s string) (flags byte, lower, upper string, err error) {
	malformed := func(detail string) error {
		return &Error{Code: CodeInvalidTextRepresentation, Message: "malformed range literal: \"" + s + "\"", Detail: detail}
	}
	p := 0
	for p < len(s) && isRangeSpace(s[p]) {
		p++
	}
	if len(s)-p >= 5 && strings.EqualFold(s[p:p+5], "empty") {
		p += 5
		for p < len(s) && isRangeSpace(s[p]) {
			p++
		}
		if p != len(s) {
			return 0, "", "", malformed("Junk after \"empty\" key word.")
		}
		return RangeEmpty, "", "", nil
	}
	switch {
	case p < len(s) && s[p] == '[':
		flags |= RangeLBInc
		p++
	case p < len(s) && s[p] == '(':
		p++
	default:
		return 0, "", "", malformed("Missing left parenthesis or bracket.")
	}
	lower, inf, p, err := parseRangeBound(s, p, malformed)
	if err != nil {
		return 0, "", "", err
	}
	if inf {
		flags |= RangeLBInf
	}
	if p >= len(s) || s[p] != ',' {
		return 0, "", "", malformed("Missing comma after lower bound.")
	}
	p++
	upper, inf, p, err = parseRangeBound(s, p, malformed)
	if err != nil {
		return 0, "", "", err
	}
	if inf {
		flags |= RangeUBInf
	}
	switch {
	case p < len(s) && s[p] == ']':
		flags |= RangeUBInc
		p++
	case p < len(s) && s[p] == ')':
		p++
	default:
		return 0, "", "", malformed("Too many commas.")
	}
	for p < len(s) && isRangeSpace(s[p]) {
		p++
	}
	if p != len(s) {
		return 0, "", "", malformed("Junk after right parenthesis or bracket.")
	}
	return flags, lower, upper, nil
}

func parseRangeBound(s string, p int, malformed func(string) error) (string, bool, int, error) {
	if p < len(s) && (s[p] == ',' || s[p] == ')' || s[p] == ']') {
		return "", true, p, nil
	}
	var b strings.Builder
	inQuote := false
	for inQuote || p >= len(s) || !(s[p] == ',' || s[p] == ')' || s[p] == ']') {
		if p >= len(s) {
			return "", false, p, malformed("Unexpected end of input.")
		}
		ch := s[p]
		p++
		switch {
		case ch == '\\':
			if p >= len(s) {
				return "", false, p, malformed("Unexpected end of input.")
			}
			b.WriteByte(s[p])
			p++
		case ch == '"':
			switch {
			case !inQuote:
				inQuote = true
			case p < len(s) && s[p] == '"':
				b.WriteByte('"')
				p++
			default:
				inQuote = false
			}
		default:
			b.WriteByte(ch)
		}
	}
	return b.String(), false, p, nil
}

// isRangeSpace is C's isspace in the C locale.
func isRangeSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// AppendRangeBound appends the text of a bound as range_out does: in
// double quotes when empty or holding a quote, backslash, bracket,
// parenthesis, comma or space, with quotes and backslashes doubled.
func AppendRangeBound(dst []byte, v string) []byte {
	quote := v == ""
	for i := 0; i < len(v) && !quote; i++ {
		switch c := v[i]; c {
		case '"', '\\', '(', ')', '[', ']', ',':
			quote = true
		default:
			quote = isRangeSpace(c)
		}
	}
	if quote {
		dst = append(dst, '"')
	}
	for i := 0; i < len(v); i++ {
		if v[i] == '"' || v[i] == '\\' {
			dst = append(dst, v[i])
		}
		dst = append(dst, v[i])
	}
	if quote {
		dst = append(dst, '"')
	}
	return dst
}
