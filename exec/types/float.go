package types

import (
	"encoding/binary"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// cStrtod scans the longest prefix of s that C's strtod (glibc) accepts,
// after leading whitespace: decimal and hexadecimal floats, "inf",
// "infinity", "nan" and "nan(chars)", any case. It returns the value, the
// end of the scanned prefix (start if nothing was scanned), and whether the
// result over- or underflowed (strtod's ERANGE; for underflow the value is 0).
func cStrtod(s string, start int, bits int) (v float64, end int, erange bool) {
	i := start
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	numStart := i
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	rest := s[i:]
	if len(rest) >= 3 && hasPrefixFold("infinity", rest[:3]) {
		n := 3
		if len(rest) >= 8 && hasPrefixFold("infinity", rest[:8]) {
			n = 8
		}
		if neg {
			return math.Inf(-1), i + n, false
		}
		return math.Inf(1), i + n, false
	}
	if len(rest) >= 3 && hasPrefixFold("nan", rest[:3]) {
		n := 3
		if len(rest) > 3 && rest[3] == '(' {
			j := 4
			for j < len(rest) && (isDigit(rest[j]) || isAlpha(rest[j]) || rest[j] == '_') {
				j++
			}
			if j < len(rest) && rest[j] == ')' {
				n = j + 1
			}
		}
		return cNaN, i + n, false
	}
	if len(rest) >= 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X') {
		if v, n, ok := scanHexFloat(rest, bits); ok {
			under := v == 0 && strings.ContainsAny(strings.ToLower(rest[2:n]), "123456789abcdef")
			if p := strings.IndexAny(rest[:n], "pP"); p >= 0 {
				under = v == 0 && strings.ContainsAny(strings.ToLower(rest[2:p]), "123456789abcdef")
			}
			if neg {
				v = -v
			}
			return v, i + n, math.IsInf(v, 0) || under
		}
		// "0x" without hex digits: strtod reads the "0"
		if neg {
			return math.Copysign(0, -1), i + 1, false
		}
		return 0, i + 1, false
	}
	j := i
	digits, nonzero := 0, false
	for j < len(s) && isDigit(s[j]) {
		nonzero = nonzero || s[j] != '0'
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isDigit(s[j]) {
			nonzero = nonzero || s[j] != '0'
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, start, false
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			j = k
		}
	}
	v, err := strconv.ParseFloat(s[numStart:j], bits)
	if err != nil {
		// only range errors are possible on this well-formed prefix
		return v, j, true
	}
	if v == 0 && nonzero {
		return v, j, true
	}
	return v, j, false
}

// scanHexFloat reads a C hexadecimal float ("0x1.8p3", "0x10") at the start
// of s.
func scanHexFloat(s string, bits int) (float64, int, bool) {
	j := 2
	digits := 0
	for j < len(s) && isHex(s[j]) {
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isHex(s[j]) {
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	mant := s[:j]
	exp := "p0"
	if j < len(s) && (s[j] == 'p' || s[j] == 'P') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			exp = s[j:k]
			j = k
		}
	}
	v, err := strconv.ParseFloat(mant+exp, bits)
	if err != nil && !math.IsInf(v, 0) {
		return 0, 0, false
	}
	return v, j, true
}

func isHex(c byte) bool {
	return isDigit(c) || (c|0x20) >= 'a' && (c|0x20) <= 'f'
}

// cNaN is C's NAN, the NaN that PostgreSQL's input functions store
// (math.NaN has a different payload, which binary output would show).
var cNaN = math.Float64frombits(0x7FF8000000000000)

// parseFloat is float8in_internal / float4in.
func parseFloat(s string, bits int, typ string) (float64, error) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i == len(s) {
		return 0, errSyntax(typ, s)
	}
	v, end, erange := cStrtod(s, i, bits)
	if end == i {
		return 0, errSyntax(typ, s)
	}
	if erange {
		// float8in reports the number it read, float4in the whole input
		num := s[i:end]
		if bits == 32 {
			num = s
		}
		return 0, &Error{Code: CodeNumericValueOutOfRange,
			Message: "\"" + num + "\" is out of range for type " + typ}
	}
	for end < len(s) && isSpace(s[end]) {
		end++
	}
	if end != len(s) {
		return 0, errSyntax(typ, s)
	}
	return v, nil
}

// ParseFloat8 is float8in.
func ParseFloat8(s string) (float64, error) { return parseFloat(s, 64, "double precision") }

// ParseFloat4 is float4in.
func ParseFloat4(s string) (float32, error) {
	v, err := parseFloat(s, 32, "real")
	return float32(v), err
}

// AppendFloat8 appends float8out's text. extraFloatDigits is the
// extra_float_digits setting (PostgreSQL's default is 1): above 0 the output
// is the shortest text that reads back exactly ("0.1", "1e+100", "-0"); at 0
// or below it is printf's %.*g with 15+extraFloatDigits digits.
func AppendFloat8(dst []byte, v float64, extraFloatDigits int) []byte {
	return appendFloat(dst, v, extraFloatDigits, 64)
}

// AppendFloat4 appends float4out's text; see AppendFloat8 (6 digits base).
func AppendFloat4(dst []byte, v float32, extraFloatDigits int) []byte {
	return appendFloat(dst, float64(v), extraFloatDigits, 32)
}

func appendFloat(dst []byte, v float64, efd int, bits int) []byte {
	switch {
	case math.IsNaN(v):
		return append(dst, "NaN"...)
	case math.IsInf(v, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(v, -1):
		return append(dst, "-Infinity"...)
	}
	if efd <= 0 {
		p := 15
		if bits == 32 {
			p = 6
		}
		p += efd
		if p < 1 {
			p = 1
		}
		return strconv.AppendFloat(dst, v, 'g', p, 64)
	}
	// Shortest round-trip digits, laid out as PostgreSQL's Ryu code does:
	// fixed notation for decimal exponents in [-4, 15) (float4: [-4, 6)).
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], v, 'e', -1, bits)
	// e is [-]d[.ddd]e±XX
	k := 0
	neg := false
	if e[0] == '-' {
		neg = true
		k = 1
	}
	ePos := len(e) - 1
	for e[ePos] != 'e' {
		ePos--
	}
	exp := 0
	for _, c := range e[ePos+2:] {
		exp = exp*10 + int(c-'0')
	}
	if e[ePos+1] == '-' {
		exp = -exp
	}
	limit := 15
	if bits == 32 {
		limit = 6
	}
	var digs [24]byte
	nd := 0
	for _, c := range e[k:ePos] {
		if c != '.' {
			digs[nd] = c
			nd++
		}
	}
	for prec := nd; prec < 20 && onMidpoint(v, bits, digs[:nd], exp); prec++ {
		// PostgreSQL's Ryu never prints a decimal that lies exactly halfway
		// to a neighbouring float (it rejects the interval's bounds); Go's
		// shortest form may. Take more digits, correctly rounded, until the
		// decimal is strictly inside.
		e = strconv.AppendFloat(buf[:0], v, 'e', prec, bits)
		ePos = len(e) - 1
		for e[ePos] != 'e' {
			ePos--
		}
		nd = 0
		for _, c := range e[k:ePos] {
			if c != '.' {
				digs[nd] = c
				nd++
			}
		}
	}
	if exp < -4 || exp >= limit {
		return append(dst, e...)
	}
	if neg {
		dst = append(dst, '-')
	}
	if exp < 0 {
		dst = append(dst, '0', '.')
		for i := -1; i > exp; i-- {
			dst = append(dst, '0')
		}
		return append(dst, digs[:nd]...)
	}
	// integer part has exp+1 digits
	if nd <= exp+1 {
		dst = append(dst, digs[:nd]...)
		for i := nd; i <= exp; i++ {
			dst = append(dst, '0')
		}
		return dst
	}
	dst = append(dst, digs[:exp+1]...)
	dst = append(dst, '.')
	return append(dst, digs[exp+1:nd]...)
}

// onMidpoint reports whether the decimal digs × 10^(exp-len(digs)+1)
// equals, exactly, the midpoint between v and one of its neighbouring
// floats of the given size. Cheap 2-adic and 5-adic tests rule out almost
// every value before exact arithmetic is needed.
func onMidpoint(v float64, bits int, digs []byte, exp int) bool {
	var m uint64
	var e2 int
	var pow2 bool
	if bits == 32 {
		b := math.Float32bits(float32(v))
		mant, ex := uint64(b&(1<<23-1)), int(b>>23&0xff)
		if ex == 0 {
			m, e2 = mant, -149
		} else {
			m, e2 = mant|1<<23, ex-150
		}
		pow2 = mant == 0 && ex > 1
	} else {
		b := math.Float64bits(v)
		mant, ex := b&(1<<52-1), int(b>>52&0x7ff)
		if ex == 0 {
			m, e2 = mant, -1074
		} else {
			m, e2 = mant|1<<52, ex-1075
		}
		pow2 = mant == 0 && ex > 1
	}
	if m == 0 {
		return false
	}
	var d uint64
	for _, c := range digs {
		d = d*10 + uint64(c-'0')
	}
	q := exp - len(digs) + 1 // value = d × 10^q
	v2, v5 := 0, 0
	for t := d; t%2 == 0; t /= 2 {
		v2++
	}
	for t := d; t%5 == 0; t /= 5 {
		v5++
	}
	if v5+q < 0 {
		return false // a midpoint M·2^p has no factor 5 in its denominator
	}
	// the upper midpoint (2m+1)·2^(e2-1) and the lower one (2m-1)·2^(e2-1),
	// or (4m-1)·2^(e2-2) below a power of two
	type mid struct {
		odd uint64
		p   int
	}
	mids := [2]mid{{2*m + 1, e2 - 1}, {2*m - 1, e2 - 1}}
	if pow2 {
		mids[1] = mid{4*m - 1, e2 - 2}
	}
	for _, md := range mids {
		if v2+q != md.p {
			continue
		}
		// exact: d·10^q == odd·2^p
		lhs := new(big.Int).SetUint64(d)
		rhs := new(big.Int).SetUint64(md.odd)
		if q >= 0 {
			lhs.Mul(lhs, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(q)), nil))
		} else {
			rhs.Mul(rhs, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-q)), nil))
		}
		if md.p >= 0 {
			rhs.Lsh(rhs, uint(md.p))
		} else {
			lhs.Lsh(lhs, uint(-md.p))
		}
		if lhs.Cmp(rhs) == 0 {
			return true
		}
	}
	return false
}

// AppendFloat8Binary appends float8send's eight big-endian IEEE bytes.
func AppendFloat8Binary(dst []byte, v float64) []byte {
	return binary.BigEndian.AppendUint64(dst, math.Float64bits(v))
}

// AppendFloat4Binary appends float4send's four big-endian IEEE bytes.
func AppendFloat4Binary(dst []byte, v float32) []byte {
	return binary.BigEndian.AppendUint32(dst, math.Float32bits(v))
}

// ParseFloat8Binary is float8recv.
func ParseFloat8Binary(b []byte) (float64, error) {
	if err := fixedLen(b, 8); err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.BigEndian.Uint64(b)), nil
}

// ParseFloat4Binary is float4recv.
func ParseFloat4Binary(b []byte) (float32, error) {
	if err := fixedLen(b, 4); err != nil {
		return 0, err
	}
	return math.Float32frombits(binary.BigEndian.Uint32(b)), nil
}
