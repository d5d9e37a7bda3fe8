package types

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// Bit strings (bit(n) and bit varying(n), PostgreSQL's varbit.c). A value
// is held as its text form, one '0' or '1' byte per bit: that is what it
// prints as, and comparing two such strings bytewise is PostgreSQL's
// bit_cmp (the bits in order, a proper prefix first), so a bit string
// sorts, hashes and keys as its text does.

// CodeStringDataLengthMismatch is 22026, a bit string of the wrong length.
const CodeStringDataLengthMismatch = "22026"

// ParseBit reads bit_in's input: binary digits, or a literal's B'...'
// and X'...' forms (a leading 'b' or 'x', either case).
func ParseBit(s string) (string, error) {
	if len(s) > 0 && (s[0] == 'x' || s[0] == 'X') {
		return parseHexBits(s[1:])
	}
	if len(s) > 0 && (s[0] == 'b' || s[0] == 'B') {
		s = s[1:]
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '0' && s[i] != '1' {
			return "", &Error{Code: CodeInvalidTextRepresentation, Message: fmt.Sprintf("%q is not a valid binary digit", string(s[i]))}
		}
	}
	return s, nil
}

// parseHexBits reads hexadecimal digits, four bits each.
func parseHexBits(s string) (string, error) {
	var b strings.Builder
	b.Grow(4 * len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			return "", &Error{Code: CodeInvalidTextRepresentation, Message: fmt.Sprintf("%q is not a valid hexadecimal digit", string(c))}
		}
		for k := 3; k >= 0; k-- {
			b.WriteByte('0' + (v>>k)&1)
		}
	}
	return b.String(), nil
}

// ApplyBitTypmod fits bits to bit(n) (varying false) or bit varying(n):
// bit(n) takes exactly n bits, bit varying(n) at most n. An explicit cast
// cuts what is too long and pads bit(n) with zeros; an assignment or input
// fails instead. typmod -1 leaves the value alone.
func ApplyBitTypmod(bits string, typmod int32, varying, explicit bool) (string, error) {
	n := int(typmod)
	if typmod < 0 || len(bits) == n || varying && len(bits) < n {
		return bits, nil
	}
	if !explicit {
		if varying {
			return "", &Error{Code: CodeStringDataRightTrunc, Message: fmt.Sprintf("bit string too long for type bit varying(%d)", n)}
		}
		return "", &Error{Code: CodeStringDataLengthMismatch, Message: fmt.Sprintf("bit string length %d does not match type bit(%d)", len(bits), n)}
	}
	if len(bits) > n {
		return bits[:n], nil
	}
	return bits + strings.Repeat("0", n-len(bits)), nil
}

// BitsToInt is bittoint4 and bittoint8: the bits as an unsigned number of
// size bits (32 or 64), read as two's complement.
func BitsToInt(bits string, size int) (int64, error) {
	if len(bits) > size {
		name := "integer"
		if size == 64 {
			name = "bigint"
		}
		return 0, &Error{Code: CodeNumericValueOutOfRange, Message: name + " out of range"}
	}
	var v uint64
	for i := 0; i < len(bits); i++ {
		v = v<<1 | uint64(bits[i]-'0')
	}
	if size == 32 {
		return int64(int32(uint32(v))), nil
	}
	return int64(v), nil
}

// varbitMaxLen is PostgreSQL's VARBITMAXLEN, the longest bit string.
const varbitMaxLen = math.MaxInt32 - 7

// IntToBits is bitfromint4 and bitfromint8: the n low bits of v, or v
// sign-extended when n is wider than its size. As PostgreSQL's, a length
// of 0 or less, or past the largest a bit string may have, means 1.
func IntToBits(v int64, size, n int) string {
	if n <= 0 || n > varbitMaxLen {
		n = 1
	}
	b := make([]byte, n)
	for i := 0; i < n; i++ {
		shift := n - 1 - i
		var bit int64
		if shift >= size {
			bit = (v >> (size - 1)) & 1
		} else {
			bit = (v >> shift) & 1
		}
		b[i] = '0' + byte(bit)
	}
	return string(b)
}

// BitLogic applies a bitwise AND, OR or XOR (op '&', '|', '#') to two bit
// strings of one length.
func BitLogic(op byte, x, y string) (string, error) {
	if len(x) != len(y) {
		word := map[byte]string{'&': "AND", '|': "OR", '#': "XOR"}[op]
		return "", &Error{Code: CodeStringDataLengthMismatch, Message: "cannot " + word + " bit strings of different sizes"}
	}
	b := []byte(x)
	for i := range b {
		p, q := x[i] == '1', y[i] == '1'
		var r bool
		switch op {
		case '&':
			r = p && q
		case '|':
			r = p || q
		default:
			r = p != q
		}
		b[i] = '0'
		if r {
			b[i] = '1'
		}
	}
	return string(b), nil
}

// BitNot is ~: every bit flipped.
func BitNot(x string) string {
	b := []byte(x)
	for i := range b {
		b[i] ^= 1 // '0' <-> '1'
	}
	return string(b)
}

// BitShift shifts left by n (right when n is negative), keeping the
// length and filling with zeros.
func BitShift(x string, n int64) string {
	l := int64(len(x))
	if n >= l || -n >= l {
		return strings.Repeat("0", len(x))
	}
	if n >= 0 {
		return x[n:] + strings.Repeat("0", int(n))
	}
	return strings.Repeat("0", int(-n)) + x[:l+n]
}

// AppendBitBinary is bit_send: the length in bits, then the bits packed
// eight to a byte, first bit highest.
func AppendBitBinary(dst []byte, bits string) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(bits)))
	var cur byte
	for i := 0; i < len(bits); i++ {
		cur = cur<<1 | (bits[i] - '0')
		if i%8 == 7 {
			dst = append(dst, cur)
			cur = 0
		}
	}
	if r := len(bits) % 8; r != 0 {
		dst = append(dst, cur<<(8-r))
	}
	return dst
}

// ParseBitBinary is bit_recv.
func ParseBitBinary(b []byte) (string, error) {
	if len(b) < 4 {
		return "", &Error{Code: CodeInvalidBinaryRepresent, Message: "insufficient data left in message"}
	}
	n := int(binary.BigEndian.Uint32(b))
	b = b[4:]
	if n < 0 || (n+7)/8 != len(b) {
		return "", &Error{Code: CodeInvalidBinaryRepresent, Message: "invalid length in external bit string"}
	}
	out := make([]byte, n)
	for i := range out {
		out[i] = '0' + (b[i/8]>>(7-i%8))&1
	}
	return string(out), nil
}
