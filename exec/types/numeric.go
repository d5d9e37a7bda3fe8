package types

import (
	"encoding/binary"
	"fmt"

	"github.com/cockroachdb/apd/v3"
)

// A numeric value is an *apd.Decimal in the form this package keeps it in
// (invariant 3 of the package doc):
//
//   - finite values have Exponent ≤ 0 and -Exponent is PostgreSQL's display
//     scale (dscale): 1.50 is Coeff 150, Exponent -2; 1e3 is Coeff 1000,
//     Exponent 0;
//   - zero is never negative;
//   - NaN is Form apd.NaN; ±Infinity is Form apd.Infinite with Negative set
//     for -Infinity.
//
// Every parser here returns values in this form; AppendNumeric prints any
// decimal, but prints a finite one with Exponent > 0 as its integer value.

// Numeric storage limits of PostgreSQL 15.
const (
	numericMaxIntDigits = 131072 // NUMERIC_WEIGHT_MAX+1 base-10000 digits
	numericMaxDscale    = 16383  // NUMERIC_DSCALE_MAX
	numericPos          = 0x0000
	numericNeg          = 0x4000
	numericNaN          = 0xC000
	numericPInf         = 0xD000
	numericNInf         = 0xF000
)

var errNumericOverflow = &Error{Code: CodeNumericValueOutOfRange, Message: "value overflows numeric format"}

// ParseNumeric is numeric_in without a typmod: it sets d from s. Leading and
// trailing whitespace, a sign, digits with one optional point, an optional
// exponent; or NaN, Infinity, inf with optional sign, any case.
func ParseNumeric(d *apd.Decimal, s string) error {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	rest := s[i:]
	special := func(word string, form apd.Form, neg bool) bool {
		if len(rest) >= len(word) && hasPrefixFold(word, rest[:len(word)]) {
			d.SetInt64(0)
			d.Form = form
			d.Negative = neg
			i += len(word)
			return true
		}
		return false
	}
	if special("nan", apd.NaN, false) || special("infinity", apd.Infinite, false) ||
		special("+infinity", apd.Infinite, false) || special("-infinity", apd.Infinite, true) ||
		special("inf", apd.Infinite, false) || special("+inf", apd.Infinite, false) ||
		special("-inf", apd.Infinite, true) {
		for ; i < len(s); i++ {
			if !isSpace(s[i]) {
				return errSyntax("numeric", s)
			}
		}
		return nil
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var digs []byte
	var buf [40]byte
	digs = buf[:0]
	haveDP := false
	after := 0 // digits after the point
	if i < len(s) && s[i] == '.' {
		haveDP = true
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return errSyntax("numeric", s)
	}
	for i < len(s) {
		c := s[i]
		if isDigit(c) {
			if len(digs) > 0 || c != '0' {
				digs = append(digs, c)
			}
			if haveDP {
				after++
			}
			i++
			continue
		}
		if c == '.' {
			if haveDP {
				return errSyntax("numeric", s)
			}
			haveDP = true
			i++
			continue
		}
		break
	}
	exp := int64(0)
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		j := i
		for j < len(s) && isSpace(s[j]) { // strtol skips whitespace
			j++
		}
		eneg := false
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			eneg = s[j] == '-'
			j++
		}
		if j >= len(s) || !isDigit(s[j]) {
			return errSyntax("numeric", s)
		}
		for j < len(s) && isDigit(s[j]) {
			if exp < 1<<40 {
				exp = exp*10 + int64(s[j]-'0')
			}
			j++
		}
		if eneg {
			exp = -exp
		}
		i = j
		if exp >= 1<<30-1 || exp <= -(1<<30-1) {
			for ; i < len(s); i++ {
				if !isSpace(s[i]) {
					return errSyntax("numeric", s)
				}
			}
			return errNumericOverflow
		}
	}
	for ; i < len(s); i++ {
		if !isSpace(s[i]) {
			return errSyntax("numeric", s)
		}
	}
	dscale := int64(after) - exp
	if dscale < 0 {
		dscale = 0
	}
	// integer digits of the value: len(digs) - after + exp
	if len(digs) > 0 && int64(len(digs))-int64(after)+exp > numericMaxIntDigits {
		return errNumericOverflow
	}
	if dscale > numericMaxDscale {
		return errNumericOverflow
	}
	// value = digs × 10^(exp-after); represent with exponent -dscale
	shift := exp - int64(after) + dscale // ≥ 0 zeros to append
	if len(digs) == 0 {
		d.SetInt64(0)
		d.Exponent = int32(-dscale)
		return nil
	}
	if shift > 0 && shift <= 32 {
		for k := int64(0); k < shift; k++ {
			digs = append(digs, '0')
		}
		shift = 0
	}
	if len(digs) <= 19 {
		var u uint64
		for _, c := range digs {
			u = u*10 + uint64(c-'0')
		}
		d.Coeff.SetUint64(u)
	} else if _, ok := d.Coeff.SetString(string(digs), 10); !ok {
		return errSyntax("numeric", s)
	}
	if shift > 0 {
		var p apd.BigInt
		d.Coeff.Mul(&d.Coeff, pow10(&p, shift))
	}
	d.Form = apd.Finite
	d.Negative = neg
	d.Exponent = int32(-dscale)
	return nil
}

func pow10(z *apd.BigInt, n int64) *apd.BigInt {
	return z.Exp(apd.NewBigInt(10), apd.NewBigInt(n), nil)
}

// ParseNumericTypmod is numeric_in with a typmod: ParseNumeric, then
// ApplyNumericTypmod.
func ParseNumericTypmod(d *apd.Decimal, s string, typmod int32) error {
	if err := ParseNumeric(d, s); err != nil {
		return err
	}
	return ApplyNumericTypmod(d, typmod)
}

// ApplyNumericTypmod is apply_typmod: it rounds d (half away from zero) to
// the typmod's scale and fails with 22003 "numeric field overflow" when the
// result needs more integer digits than precision-scale. NaN passes any
// typmod; infinities fail any typmod. typmod -1 does nothing.
func ApplyNumericTypmod(d *apd.Decimal, typmod int32) error {
	precision, scale, ok := NumericTypmodPrecision(typmod)
	if !ok {
		return nil
	}
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return nil
	case apd.Infinite:
		return &Error{Code: CodeNumericValueOutOfRange, Message: "numeric field overflow",
			Detail: fmt.Sprintf("A field with precision %d, scale %d cannot hold an infinite value.", precision, scale)}
	}
	roundNumeric(d, scale)
	maxdigits := precision - scale
	if !d.Coeff.IsUint64() || d.Coeff.Uint64() != 0 {
		// integer digits of |d|, counting negative for values below 0.1
		ddigits := apd.NumDigits(&d.Coeff) + int64(d.Exponent)
		if ddigits > int64(maxdigits) {
			p, m := "10^", maxdigits
			if maxdigits == 0 {
				p, m = "", 1
			}
			return &Error{Code: CodeNumericValueOutOfRange, Message: "numeric field overflow",
				Detail: fmt.Sprintf("A field with precision %d, scale %d must round to an absolute value less than %s%d.", precision, scale, p, m)}
		}
	}
	return nil
}

// roundNumeric rounds finite d to scale digits after the point (scale may be
// negative), half away from zero, leaving it in canonical form with dscale
// max(scale, 0).
func roundNumeric(d *apd.Decimal, scale int32) {
	target := -scale
	if d.Exponent < target {
		var div, q, r apd.BigInt
		pow10(&div, int64(target-d.Exponent))
		q.QuoRem(&d.Coeff, &div, &r)
		r.Add(&r, &r)
		if r.CmpAbs(&div) >= 0 {
			q.Add(&q, apd.NewBigInt(1))
		}
		d.Coeff.Set(&q)
		d.Exponent = target
	}
	if d.Exponent > 0 || (scale >= 0 && d.Exponent > -scale) {
		want := int32(0)
		if scale > 0 {
			want = -scale
		}
		if d.Exponent > want {
			var p apd.BigInt
			d.Coeff.Mul(&d.Coeff, pow10(&p, int64(d.Exponent-want)))
			d.Exponent = want
		}
	}
	if d.Coeff.Sign() == 0 {
		d.Negative = false
	}
}

// AppendNumeric appends numeric_out's text: NaN, Infinity, -Infinity, or
// the digits with exactly dscale (= -Exponent) digits after the point.
func AppendNumeric(dst []byte, d *apd.Decimal) []byte {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return append(dst, "NaN"...)
	case apd.Infinite:
		if d.Negative {
			return append(dst, "-Infinity"...)
		}
		return append(dst, "Infinity"...)
	}
	zero := d.Coeff.Sign() == 0
	if d.Negative && !zero {
		dst = append(dst, '-')
	}
	start := len(dst)
	dst = d.Coeff.Append(dst, 10)
	if d.Coeff.Sign() < 0 { // not produced here, but be safe
		dst = append(dst[:start], dst[start+1:]...)
	}
	if d.Exponent > 0 {
		if !zero {
			for k := int32(0); k < d.Exponent; k++ {
				dst = append(dst, '0')
			}
		}
		return dst
	}
	scale := int(-d.Exponent)
	if scale == 0 {
		return dst
	}
	n := len(dst) - start
	if n <= scale {
		// 0.000ddd: insert "0." and leading zeros
		pad := scale - n + 2
		for k := 0; k < pad; k++ {
			dst = append(dst, 0)
		}
		copy(dst[start+pad:], dst[start:start+n])
		dst[start] = '0'
		dst[start+1] = '.'
		for k := start + 2; k < start+pad; k++ {
			dst[k] = '0'
		}
		return dst
	}
	dst = append(dst, 0)
	p := len(dst) - 1 - scale
	copy(dst[p+1:], dst[p:len(dst)-1])
	dst[p] = '.'
	return dst
}

// AppendNumericBinary appends numeric_send's format: int16 ndigits, int16
// weight, uint16 sign (0x0000 +, 0x4000 -, 0xC000 NaN, 0xD000 +Inf, 0xF000
// -Inf), int16 dscale, then ndigits base-10000 digits as int16, without
// leading or trailing zero digits.
func AppendNumericBinary(dst []byte, d *apd.Decimal) []byte {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return appendNumericHeader(dst, 0, 0, numericNaN, 0)
	case apd.Infinite:
		// PostgreSQL 15 sends dscale 32 for infinities: the bits of its
		// short-header sign field that NUMERIC_DSCALE reads.
		if d.Negative {
			return appendNumericHeader(dst, 0, 0, numericNInf, 32)
		}
		return appendNumericHeader(dst, 0, 0, numericPInf, 32)
	}
	dscale := 0
	if d.Exponent < 0 {
		dscale = int(-d.Exponent)
	}
	var buf [64]byte
	digs := d.Coeff.Append(buf[:0], 10)
	if len(digs) > 0 && digs[0] == '-' {
		digs = digs[1:]
	}
	if len(digs) == 1 && digs[0] == '0' {
		return appendNumericHeader(dst, 0, 0, numericPos, dscale)
	}
	sign := numericPos
	if d.Negative {
		sign = numericNeg
	}
	// decimal point sits after intDigits digits; Exponent > 0 adds zeros
	exp := int(d.Exponent)
	intDigits := len(digs) + exp // may be ≤ 0
	// pad on the left so that the integer part is a multiple of 4
	lead := (4 - ((intDigits%4)+4)%4) % 4
	total := lead + len(digs)
	if exp > 0 {
		total += exp
	}
	trail := (4 - total%4) % 4
	total += trail
	ngroups := total / 4
	weight := (lead+intDigits)/4 - 1
	if lead+intDigits <= 0 {
		weight = -((-(lead + intDigits)) / 4) - 1
	}
	digitAt := func(k int) int { // k-th digit of the padded string
		k -= lead
		if k < 0 || k >= len(digs) {
			return 0
		}
		return int(digs[k] - '0')
	}
	groups := make([]uint16, 0, ngroups)
	for g := 0; g < ngroups; g++ {
		v := 0
		for k := 0; k < 4; k++ {
			v = v*10 + digitAt(g*4+k)
		}
		groups = append(groups, uint16(v))
	}
	for len(groups) > 0 && groups[0] == 0 {
		groups = groups[1:]
		weight--
	}
	for len(groups) > 0 && groups[len(groups)-1] == 0 {
		groups = groups[:len(groups)-1]
	}
	dst = appendNumericHeader(dst, len(groups), weight, sign, dscale)
	for _, g := range groups {
		dst = binary.BigEndian.AppendUint16(dst, g)
	}
	return dst
}

func appendNumericHeader(dst []byte, ndigits, weight, sign, dscale int) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(ndigits))
	dst = binary.BigEndian.AppendUint16(dst, uint16(int16(weight)))
	dst = binary.BigEndian.AppendUint16(dst, uint16(sign))
	return binary.BigEndian.AppendUint16(dst, uint16(dscale))
}

// ParseNumericBinary is numeric_recv: it sets d from the binary format,
// truncating digits hidden by dscale as PostgreSQL does, then applies typmod
// (-1 for none).
func ParseNumericBinary(d *apd.Decimal, b []byte, typmod int32) error {
	if len(b) < 8 {
		return errInsufficientData
	}
	ndigits := int(binary.BigEndian.Uint16(b[0:]))
	weight := int(int16(binary.BigEndian.Uint16(b[2:])))
	sign := binary.BigEndian.Uint16(b[4:])
	dscale := int(binary.BigEndian.Uint16(b[6:]))
	if sign != numericPos && sign != numericNeg && sign != numericNaN && sign != numericPInf && sign != numericNInf {
		return errBinary("invalid sign in external \"numeric\" value")
	}
	if dscale&0x3FFF != dscale {
		return errBinary("invalid scale in external \"numeric\" value")
	}
	if len(b) < 8+2*ndigits {
		return errInsufficientData
	}
	if len(b) > 8+2*ndigits {
		return errExtraData
	}
	digs := make([]byte, 0, 4*ndigits)
	for k := 0; k < ndigits; k++ {
		v := int16(binary.BigEndian.Uint16(b[8+2*k:]))
		if v < 0 || v >= 10000 {
			return errBinary("invalid digit in external \"numeric\" value")
		}
		digs = append(digs, byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
	}
	switch sign {
	case numericNaN:
		d.SetInt64(0)
		d.Form = apd.NaN
		return nil
	case numericPInf, numericNInf:
		d.SetInt64(0)
		d.Form = apd.Infinite
		d.Negative = sign == numericNInf
		return ApplyNumericTypmod(d, typmod)
	}
	// value = digs × 10^((weight+1-ndigits)*4); keep dscale fractional digits
	exp := (weight + 1 - ndigits) * 4
	if exp < -dscale {
		cut := -dscale - exp
		if cut >= len(digs) {
			digs = digs[:0]
		} else {
			digs = digs[:len(digs)-cut]
		}
		exp = -dscale
	}
	if len(digs) == 0 {
		digs = append(digs, '0')
	}
	if _, ok := d.Coeff.SetString(string(digs), 10); !ok {
		return errBinary("invalid digit in external \"numeric\" value")
	}
	d.Form = apd.Finite
	d.Negative = sign == numericNeg
	// now raise exponent to -dscale
	if exp > -dscale {
		var p apd.BigInt
		d.Coeff.Mul(&d.Coeff, pow10(&p, int64(exp+dscale)))
	}
	d.Exponent = int32(-dscale)
	if d.Coeff.Sign() == 0 {
		d.Negative = false
	}
	return ApplyNumericTypmod(d, typmod)
}
