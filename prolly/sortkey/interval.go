package sortkey

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Interval is a PostgreSQL interval: months, days and microseconds, kept
// apart as PostgreSQL keeps them. PostgreSQL 17's -infinity and infinity
// are every field at its minimum and every field at its maximum.
type Interval struct {
	Months int32
	Days   int32
	Micros int64
}

const (
	usecsPerDay   = 86_400_000_000
	usecsPerMonth = 30 * usecsPerDay
)

// AppendInterval appends an interval ordered as PostgreSQL orders intervals:
// by total span, Months·30 days + Days·24 h + Micros, computed exactly in 128
// bits. Intervals of equal span ('1 month', '30 days', '720 hours') compare
// equal in PostgreSQL, so they encode identically here.
func AppendInterval(dst []byte, iv Interval, o Order) []byte {
	hi, lo := intervalSpan(iv)
	// |span| < 2^74, so the low 80 bits hold it; flip the sign bit (bit 79).
	m := o.mask()
	w := uint64(m) * 0x0101010101010101
	dst = append(dst, tagInterval^m)
	dst = binary.BigEndian.AppendUint16(dst, (uint16(hi)^1<<15)^uint16(w))
	return binary.BigEndian.AppendUint64(dst, lo^w)
}

// DecodeInterval decodes an interval column from the front of b. The result
// is the normalized interval of the encoded span: all fields of one sign
// (that of the span), |Days| < 30 and |Micros| < 24 h, except that a span
// too large for that keeps Months at its int32 limit and puts the excess in
// Days, then Micros. So '30 days' and '720 hours' decode as '1 mon', '-1
// hour' stays '-01:00:00', and ±infinity decode as themselves. Spans no
// interval can have are rejected.
func DecodeInterval(b []byte, o Order) (rest []byte, iv Interval, null bool, err error) {
	p, rest, null, err := fixed(b, tagInterval, o, 10)
	if err != nil || null {
		return rest, Interval{}, null, err
	}
	w := uint64(o.mask()) * 0x0101010101010101
	h := binary.BigEndian.Uint16(p) ^ uint16(w) ^ 1<<15
	hi := uint64(int64(int16(h)))
	lo := binary.BigEndian.Uint64(p[2:]) ^ w
	iv, ok := normalizeSpan(hi, lo)
	if !ok {
		return nil, Interval{}, false, corrupt("interval: span out of range")
	}
	return rest, iv, false, nil
}

// intervalSpan returns the span of iv in microseconds as a 128-bit two's
// complement number (hi, lo), as PostgreSQL's interval_cmp_value computes it.
func intervalSpan(iv Interval) (hi, lo uint64) {
	days := int64(iv.Months)*30 + int64(iv.Days) // |days| < 2^37
	ud := uint64(days)
	if days < 0 {
		ud = -ud
	}
	hi, lo = bits.Mul64(ud, usecsPerDay)
	if days < 0 {
		hi, lo = neg128(hi, lo)
	}
	var c uint64
	lo, c = bits.Add64(lo, uint64(iv.Micros), 0)
	hi, _ = bits.Add64(hi, uint64(iv.Micros>>63), c)
	return hi, lo
}

// normalizeSpan returns the normalized interval (see DecodeInterval) with
// the span (hi, lo), or false if no interval has that span. It divides the
// magnitude greedily into months, days and microseconds, truncating toward
// zero and clamping months and days at their limits; when some interval
// has the span, the greedy choice leaves a remainder that fits Micros.
func normalizeSpan(hi, lo uint64) (Interval, bool) {
	neg := int64(hi) < 0
	if neg {
		hi, lo = neg128(hi, lo)
	}
	// Magnitude limits of the fields for this sign.
	limMD, limU := uint64(math.MaxInt32), uint64(math.MaxInt64)
	if neg {
		limMD, limU = 1<<31, 1<<63
	}
	if hi >= usecsPerDay { // cannot happen for 80-bit input; keeps Div64 safe
		return Interval{}, false
	}
	months, r := bits.Div64(hi, lo, usecsPerMonth)
	rhi, rlo := uint64(0), r
	if months > limMD {
		months = limMD
		ph, pl := bits.Mul64(limMD, usecsPerMonth)
		var borrow uint64
		rlo, borrow = bits.Sub64(lo, pl, 0)
		rhi, _ = bits.Sub64(hi, ph, borrow)
	}
	days, u := bits.Div64(rhi, rlo, usecsPerDay)
	uhi := uint64(0)
	if days > limMD {
		days = limMD
		ph, pl := bits.Mul64(limMD, usecsPerDay)
		var borrow uint64
		u, borrow = bits.Sub64(rlo, pl, 0)
		uhi, _ = bits.Sub64(rhi, ph, borrow)
	}
	if uhi != 0 || u > limU {
		return Interval{}, false
	}
	if neg {
		return Interval{Months: int32(-int64(months)), Days: int32(-int64(days)), Micros: int64(-u)}, true
	}
	return Interval{Months: int32(months), Days: int32(days), Micros: int64(u)}, true
}

// neg128 returns the two's complement negation of (hi, lo).
func neg128(hi, lo uint64) (uint64, uint64) {
	lo, c := bits.Add64(^lo, 1, 0)
	hi, _ = bits.Add64(^hi, 0, c)
	return hi, lo
}
