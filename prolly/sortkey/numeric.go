package sortkey

import (
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"
)

// Numeric classes, the byte after the numeric tag (ASC).
const (
	numNegInf byte = 0x01
	numNeg    byte = 0x02
	numZero   byte = 0x03
	numPos    byte = 0x04
	numPosInf byte = 0x05
	numNaN    byte = 0x06
)

// AppendNumeric appends a numeric in PostgreSQL order:
// -Infinity < negatives < 0 < positives < Infinity < NaN. Numerically equal
// values encode identically whatever their exponent (1.0, 1.00 and 10E-1
// all encode as 1), every zero (-0, 0E+5) encodes as 0, and NaN and sNaN of
// either sign encode as NaN. d.Coeff must be non-negative, as apd requires.
// Precision and exponent are unbounded; the call allocates only for a
// coefficient of 2^64 or more.
func AppendNumeric(dst []byte, d *apd.Decimal, o Order) []byte {
	m := o.mask()
	dst = append(dst, tagNumeric^m)
	switch d.Form {
	case apd.Infinite:
		if d.Negative {
			return append(dst, numNegInf^m)
		}
		return append(dst, numPosInf^m)
	case apd.NaN, apd.NaNSignaling:
		return append(dst, numNaN^m)
	}
	if d.Coeff.Sign() == 0 {
		return append(dst, numZero^m)
	}
	var buf [40]byte
	digits := coeffDigits(buf[:0], &d.Coeff)
	e := int64(d.Exponent) + int64(len(digits))
	for digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	inner := m
	if d.Negative {
		dst = append(dst, numNeg^m)
		inner = ^m
	} else {
		dst = append(dst, numPos^m)
	}
	n := len(dst)
	dst = appendOrderedVarint(dst, e)
	for i := 0; i < len(digits); i += 2 {
		p := (digits[i] - '0') * 10
		if i+1 < len(digits) {
			p += digits[i+1] - '0'
		}
		x := 2*p + 1
		if i+2 >= len(digits) {
			x--
		}
		dst = append(dst, x)
	}
	if inner != 0 {
		complement(dst[n:])
	}
	return dst
}

// coeffDigits appends the decimal digits of |c| to buf.
func coeffDigits(buf []byte, c *apd.BigInt) []byte {
	if c.IsUint64() {
		return strconv.AppendUint(buf, c.Uint64(), 10)
	}
	buf = c.Append(buf, 10)
	if buf[0] == '-' {
		buf = buf[1:]
	}
	return buf
}

// maxFastPairs is the most digit pairs whose value fits a uint64 (10^18).
const maxFastPairs = 9

// DecodeNumeric decodes a numeric column from the front of b into d. d gets
// the reduced value (see AppendNumeric): Form, Negative, Exponent and Coeff
// are all set, NaN is positive NaN, zero is 0 with exponent 0, and a finite
// nonzero coefficient has no trailing zeros. A value whose reduced exponent
// does not fit an int32 (only 10E+2147483647 and the like, far outside
// PostgreSQL's numeric range) is reported as an error. d is left unchanged
// for NULL and undefined on error.
func DecodeNumeric(b []byte, o Order, d *apd.Decimal) (rest []byte, null bool, err error) {
	b, null, err = head(b, tagNumeric, o)
	if err != nil || null {
		return b, null, err
	}
	if len(b) == 0 {
		return nil, false, corrupt("numeric: missing class")
	}
	m := o.mask()
	class := b[0] ^ m
	b = b[1:]
	switch class {
	case numNegInf, numPosInf:
		d.Form, d.Negative, d.Exponent = apd.Infinite, class == numNegInf, 0
		d.Coeff.SetInt64(0)
		return b, false, nil
	case numNaN:
		d.Form, d.Negative, d.Exponent = apd.NaN, false, 0
		d.Coeff.SetInt64(0)
		return b, false, nil
	case numZero:
		d.Form, d.Negative, d.Exponent = apd.Finite, false, 0
		d.Coeff.SetInt64(0)
		return b, false, nil
	case numNeg, numPos:
	default:
		return nil, false, corrupt("numeric: class %#02x", class)
	}
	inner := m
	if class == numNeg {
		inner = ^m
	}
	b, e, err := decodeOrderedVarint(b, inner)
	if err != nil {
		return nil, false, err
	}
	// Find the last pair (the first even byte) and check every pair.
	pairs := 0
	for {
		if pairs >= len(b) {
			return nil, false, corrupt("numeric: unterminated digits")
		}
		x := b[pairs] ^ inner
		pairs++
		if x > 199 || pairs == 1 && x < 20 {
			return nil, false, corrupt("numeric: digit byte %#02x", x)
		}
		if x&1 == 0 {
			if x == 0 {
				return nil, false, corrupt("numeric: zero last digit pair")
			}
			break
		}
	}
	digitBytes := b[:pairs]
	rest = b[pairs:]
	last := (digitBytes[pairs-1] ^ inner) / 2
	n := int64(2 * pairs)
	if last%10 == 0 {
		n--
	}
	exp := e - n
	if e < math.MinInt64/2 || exp < math.MinInt32 || exp > math.MaxInt32 {
		return nil, false, corrupt("numeric: exponent %d out of range", exp)
	}
	if pairs <= maxFastPairs {
		var c uint64
		for _, x := range digitBytes {
			c = c*100 + uint64((x^inner)>>1)
		}
		if n&1 != 0 {
			c /= 10
		}
		d.Coeff.SetUint64(c)
	} else {
		s := make([]byte, 0, 2*pairs)
		for _, x := range digitBytes {
			p := (x ^ inner) >> 1
			s = append(s, '0'+p/10, '0'+p%10)
		}
		if _, ok := d.Coeff.SetString(string(s[:n]), 10); !ok {
			return nil, false, corrupt("numeric: bad digits")
		}
	}
	d.Form, d.Negative, d.Exponent = apd.Finite, class == numNeg, int32(exp)
	return rest, false, nil
}

// skipNumeric returns the length of the numeric payload (class and what
// follows) at the front of b, written in order mask m.
func skipNumeric(b []byte, m byte) (int, error) {
	if len(b) == 0 {
		return 0, corrupt("numeric: missing class")
	}
	switch class := b[0] ^ m; class {
	case numNegInf, numPosInf, numNaN, numZero:
		return 1, nil
	case numNeg, numPos:
		inner := m
		if class == numNeg {
			inner = ^m
		}
		rest, _, err := decodeOrderedVarint(b[1:], inner)
		if err != nil {
			return 0, err
		}
		for i, x := range rest {
			if (x^inner)&1 == 0 {
				return len(b) - len(rest) + i + 1, nil
			}
		}
		return 0, corrupt("numeric: unterminated digits")
	default:
		return 0, corrupt("numeric: class %#02x", class)
	}
}

// Order-preserving varint bounds: one byte holds -120..119.
const (
	varintSmallMin = -120
	varintSmallMax = 119
	varintBias     = 128 // one-byte encoding is v + varintBias
	varintPosBase  = 0xF7
	varintNegBase  = 0x08
)

// appendOrderedVarint appends v so that bytewise order is numeric order and
// no encoding is a prefix of another (see the package doc).
func appendOrderedVarint(dst []byte, v int64) []byte {
	switch {
	case v >= varintSmallMin && v <= varintSmallMax:
		return append(dst, byte(v+varintBias))
	case v > 0:
		k := byteLen(uint64(v))
		dst = append(dst, byte(varintPosBase+k))
		return appendBigEndian(dst, uint64(v), k)
	default:
		k := byteLen(uint64(^v))
		dst = append(dst, byte(varintNegBase-k))
		return appendBigEndian(dst, uint64(v), k)
	}
}

// decodeOrderedVarint reads what appendOrderedVarint wrote, with every byte
// XORed with m, and rejects non-minimal forms.
func decodeOrderedVarint(b []byte, m byte) (rest []byte, v int64, err error) {
	if len(b) == 0 {
		return nil, 0, corrupt("varint: empty")
	}
	t := b[0] ^ m
	if t >= varintNegBase && t <= varintPosBase {
		return b[1:], int64(t) - varintBias, nil
	}
	var k int
	if t > varintPosBase {
		k = int(t - varintPosBase)
	} else {
		k = int(varintNegBase - t)
	}
	if len(b) < 1+k {
		return nil, 0, corrupt("varint: truncated")
	}
	var u uint64
	for _, x := range b[1 : 1+k] {
		u = u<<8 | uint64(x^m)
	}
	first := (b[1] ^ m)
	if t > varintPosBase {
		v = int64(u)
		if v < 0 || k > 1 && first == 0 || v <= varintSmallMax {
			return nil, 0, corrupt("varint: non-canonical")
		}
		return b[1+k:], v, nil
	}
	if k < 8 {
		u |= ^uint64(0) << (8 * k)
	}
	v = int64(u)
	if v >= 0 || k > 1 && first == 0xFF || v >= varintSmallMin {
		return nil, 0, corrupt("varint: non-canonical")
	}
	return b[1+k:], v, nil
}

// byteLen is the number of bytes in the minimal big-endian form of u (≥ 1).
func byteLen(u uint64) int {
	k := 1
	for u >>= 8; u != 0; u >>= 8 {
		k++
	}
	return k
}

// appendBigEndian appends the low k bytes of u, most significant first.
func appendBigEndian(dst []byte, u uint64, k int) []byte {
	for i := k - 1; i >= 0; i-- {
		dst = append(dst, byte(u>>(8*i)))
	}
	return dst
}
