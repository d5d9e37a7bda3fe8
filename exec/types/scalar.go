package types

import (
	"encoding/binary"
	"math"
	"strconv"
)

// isSpace is C's isspace in the "C" locale, which PostgreSQL's input
// functions use.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlpha(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

func toLower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func trimSpace(s string) string {
	i, j := 0, len(s)
	for i < j && isSpace(s[i]) {
		i++
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

// --- bool ---

// ParseBool is boolin: t/true/y/yes/on/1 and f/false/n/no/off/0, any unique
// prefix, any case, surrounding whitespace.
func ParseBool(s string) (bool, error) {
	v := trimSpace(s)
	if v != "" {
		switch toLower(v[0]) {
		case 't':
			if hasPrefixFold("true", v) {
				return true, nil
			}
		case 'f':
			if hasPrefixFold("false", v) {
				return false, nil
			}
		case 'y':
			if hasPrefixFold("yes", v) {
				return true, nil
			}
		case 'n':
			if hasPrefixFold("no", v) {
				return false, nil
			}
		case 'o':
			if len(v) >= 2 && hasPrefixFold("on", v) {
				return true, nil
			}
			if len(v) >= 2 && hasPrefixFold("off", v) {
				return false, nil
			}
		case '1':
			if len(v) == 1 {
				return true, nil
			}
		case '0':
			if len(v) == 1 {
				return false, nil
			}
		}
	}
	return false, errSyntax("boolean", s)
}

// hasPrefixFold reports whether p is a prefix of word, ignoring ASCII case.
func hasPrefixFold(word, p string) bool {
	if len(p) > len(word) {
		return false
	}
	for i := 0; i < len(p); i++ {
		if toLower(p[i]) != word[i] {
			return false
		}
	}
	return true
}

// AppendBool appends boolout's "t" or "f".
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 't')
	}
	return append(dst, 'f')
}

// AppendBoolBinary appends boolsend's one byte.
func AppendBoolBinary(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}

// ParseBoolBinary is boolrecv: any nonzero byte is true.
func ParseBoolBinary(b []byte) (bool, error) {
	if err := fixedLen(b, 1); err != nil {
		return false, err
	}
	return b[0] != 0, nil
}

func fixedLen(b []byte, n int) error {
	if len(b) < n {
		return errInsufficientData
	}
	if len(b) > n {
		return errExtraData
	}
	return nil
}

// --- integers ---

// parseInt is pg_strtoint16/32/64: optional whitespace, sign, at least one
// digit, optional whitespace. PostgreSQL 15 takes neither underscores nor
// hexadecimal. Overflow is detected while reading digits, before trailing
// garbage is looked at, as PostgreSQL does.
func parseInt(s string, min, max int64, typ string) (int64, error) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return 0, errSyntax(typ, s)
	}
	// accumulate as a negative number, which has the larger range
	var v int64
	for i < len(s) && isDigit(s[i]) {
		d := int64(s[i] - '0')
		if v < min/10 || (v == min/10 && d > -(min%10)) {
			return 0, errOutOfRange(typ, s)
		}
		v = v*10 - d
		i++
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return 0, errSyntax(typ, s)
	}
	if !neg {
		if v < -max {
			return 0, errOutOfRange(typ, s)
		}
		v = -v
	}
	return v, nil
}

// ParseInt2 is int2in.
func ParseInt2(s string) (int16, error) {
	v, err := parseInt(s, math.MinInt16, math.MaxInt16, "smallint")
	return int16(v), err
}

// ParseInt4 is int4in.
func ParseInt4(s string) (int32, error) {
	v, err := parseInt(s, math.MinInt32, math.MaxInt32, "integer")
	return int32(v), err
}

// ParseInt8 is int8in.
func ParseInt8(s string) (int64, error) {
	return parseInt(s, math.MinInt64, math.MaxInt64, "bigint")
}

// AppendInt appends int2out/int4out/int8out's decimal text.
func AppendInt(dst []byte, v int64) []byte { return strconv.AppendInt(dst, v, 10) }

// AppendInt2Binary appends int2send's two big-endian bytes.
func AppendInt2Binary(dst []byte, v int16) []byte {
	return binary.BigEndian.AppendUint16(dst, uint16(v))
}

// AppendInt4Binary appends int4send's four big-endian bytes.
func AppendInt4Binary(dst []byte, v int32) []byte {
	return binary.BigEndian.AppendUint32(dst, uint32(v))
}

// AppendInt8Binary appends int8send's eight big-endian bytes.
func AppendInt8Binary(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(v))
}

// ParseInt2Binary is int2recv.
func ParseInt2Binary(b []byte) (int16, error) {
	if err := fixedLen(b, 2); err != nil {
		return 0, err
	}
	return int16(binary.BigEndian.Uint16(b)), nil
}

// ParseInt4Binary is int4recv.
func ParseInt4Binary(b []byte) (int32, error) {
	if err := fixedLen(b, 4); err != nil {
		return 0, err
	}
	return int32(binary.BigEndian.Uint32(b)), nil
}

// ParseInt8Binary is int8recv.
func ParseInt8Binary(b []byte) (int64, error) {
	if err := fixedLen(b, 8); err != nil {
		return 0, err
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

// ParseOid is oidin. Like PostgreSQL (which uses strtoul), it takes a sign
// and wraps negative values in [-2^31, -1] to their unsigned equivalents:
// "-1" is 4294967295.
func ParseOid(s string) (Oid, error) {
	if s == "" {
		return 0, errSyntax("oid", s)
	}
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return 0, errSyntax("oid", s)
	}
	var v uint64
	overflow := false
	for i < len(s) && isDigit(s[i]) {
		d := uint64(s[i] - '0')
		if v > (math.MaxUint64-d)/10 {
			overflow = true
		}
		v = v*10 + d
		i++
	}
	if overflow {
		return 0, errOutOfRange("oid", s)
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return 0, errSyntax("oid", s)
	}
	if neg {
		v = -v
	}
	r := uint32(v)
	if v != uint64(r) && v != uint64(int64(int32(r))) {
		return 0, errOutOfRange("oid", s)
	}
	return Oid(r), nil
}

// AppendOid appends oidout's unsigned decimal text.
func AppendOid(dst []byte, v Oid) []byte { return strconv.AppendUint(dst, uint64(v), 10) }

// AppendOidBinary appends oidsend's four big-endian bytes.
func AppendOidBinary(dst []byte, v Oid) []byte { return binary.BigEndian.AppendUint32(dst, uint32(v)) }

// ParseOidBinary is oidrecv.
func ParseOidBinary(b []byte) (Oid, error) {
	if err := fixedLen(b, 4); err != nil {
		return 0, err
	}
	return Oid(binary.BigEndian.Uint32(b)), nil
}
