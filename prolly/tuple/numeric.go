package tuple

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/cockroachdb/apd/v3"
)

// Numeric payload header bits (see the package doc).
const (
	numFormMask  = 0x03
	numFinite    = 0
	numInfinite  = 1
	numNaN       = 2
	numSNaN      = 3
	numNegative  = 0x04
	numExpShift  = 3
	numExpBias   = 16 // inline exponent x = exponent + 16
	numExpInline = 15 // inline exponents are -15..15
)

// AppendNumeric appends the numeric payload of d: its exact Form, sign,
// exponent and coefficient, so the scale survives (1.50 stays 1.50).
// d.Coeff must be non-negative, as apd requires; its magnitude is written.
// The call does not allocate for coefficients below 2^128.
func AppendNumeric(dst []byte, d *apd.Decimal) []byte {
	var h byte
	switch d.Form {
	case apd.Infinite:
		h = numInfinite
	case apd.NaN:
		h = numNaN
	case apd.NaNSignaling:
		h = numSNaN
	}
	if d.Negative {
		h |= numNegative
	}
	if h&numFormMask != numFinite {
		return append(dst, h)
	}
	e := d.Exponent
	if e >= -numExpInline && e <= numExpInline {
		return appendCoeff(append(dst, h|byte(e+numExpBias)<<numExpShift), &d.Coeff)
	}
	dst = append(dst, h)
	dst = binary.AppendUvarint(dst, uint64(int64(e)<<1^int64(e)>>63))
	return appendCoeff(dst, &d.Coeff)
}

// appendCoeff appends the big-endian magnitude of c without leading zeros.
func appendCoeff(dst []byte, c *apd.BigInt) []byte {
	if c.IsUint64() {
		return appendUint(dst, c.Uint64(), false)
	}
	words := c.Bits() // little-endian words of |c|, no leading zeros
	top := len(words) - 1
	for top >= 0 && words[top] == 0 {
		top--
	}
	if top < 0 {
		return dst
	}
	dst = appendUint(dst, uint64(words[top]), false)
	for i := top - 1; i >= 0; i-- {
		dst = appendUint(dst, uint64(words[i]), true)
	}
	return dst
}

// appendUint appends u big-endian: all bits.UintSize/8 bytes if full, else
// without leading zero bytes (nothing for 0).
func appendUint(dst []byte, u uint64, full bool) []byte {
	k := bits.UintSize / 8
	if !full {
		k = (bits.Len64(u) + 7) / 8
	}
	for i := k - 1; i >= 0; i-- {
		dst = append(dst, byte(u>>(8*i)))
	}
	return dst
}

// DecodeNumeric decodes a numeric payload into d, setting Form, Negative,
// Exponent and Coeff. On error d is undefined.
func DecodeNumeric(b []byte, d *apd.Decimal) error {
	if len(b) == 0 {
		return corrupt("empty numeric payload")
	}
	h := b[0]
	neg := h&numNegative != 0
	x := h >> numExpShift
	if form := h & numFormMask; form != numFinite {
		if x != 0 || len(b) != 1 {
			return corrupt("non-finite numeric payload %x", b)
		}
		d.Form = [...]apd.Form{numInfinite: apd.Infinite, numNaN: apd.NaN, numSNaN: apd.NaNSignaling}[form]
		d.Negative, d.Exponent = neg, 0
		d.Coeff.SetUint64(0)
		return nil
	}
	coeff := b[1:]
	var e int64
	if x != 0 {
		e = int64(x) - numExpBias
	} else {
		u, k := binary.Uvarint(coeff)
		if k <= 0 || k > 1 && coeff[k-1] == 0 {
			return corrupt("numeric exponent varint")
		}
		e = int64(u>>1) ^ -int64(u&1)
		if e >= -numExpInline && e <= numExpInline || e < math.MinInt32 || e > math.MaxInt32 {
			return corrupt("numeric exponent %d", e)
		}
		coeff = coeff[k:]
	}
	if len(coeff) > 0 && coeff[0] == 0 {
		return corrupt("numeric coefficient has a leading zero byte")
	}
	if len(coeff) <= 8 {
		var u uint64
		for _, c := range coeff {
			u = u<<8 | uint64(c)
		}
		d.Coeff.SetUint64(u)
	} else {
		d.Coeff.SetBytes(coeff)
	}
	d.Form, d.Negative, d.Exponent = apd.Finite, neg, int32(e)
	return nil
}
