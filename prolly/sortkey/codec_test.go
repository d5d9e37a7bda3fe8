package sortkey

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// codec ties one type's encoder and decoder to a reference comparison that
// follows PostgreSQL, not the encoding, so tests can check one against the
// other.
type codec struct {
	name string
	enc  func(dst []byte, v any, o Order) []byte
	dec  func(b []byte, o Order) (rest []byte, v any, null bool, err error)
	// cmp is PostgreSQL's ascending comparison of two non-NULL values.
	cmp func(a, b any) int
	// same reports whether got is what decoding the encoding of want must
	// give: want itself up to the documented normalization.
	same func(got, want any) bool
	// gen makes a value from fuzz bytes.
	gen func(r *reader) any
	// alias returns a value equal to v in PostgreSQL's eyes, possibly
	// written differently (1.0 for 1, '30 days' for '1 mon').
	alias func(v any, r *reader) any
}

func identity(v any, _ *reader) any { return v }

func sameExact(got, want any) bool { return fmt.Sprintf("%#v", got) == fmt.Sprintf("%#v", want) }

// intCodec builds the codec of an integer-like type.
func intCodec[T int16 | int32 | int64](name string, enc func([]byte, T, Order) []byte,
	dec func([]byte, Order) ([]byte, T, bool, error), gen func(r *reader) T) codec {
	return codec{
		name: name,
		enc:  func(dst []byte, v any, o Order) []byte { return enc(dst, v.(T), o) },
		dec: func(b []byte, o Order) ([]byte, any, bool, error) {
			rest, v, null, err := dec(b, o)
			return rest, v, null, err
		},
		cmp:   func(a, b any) int { return cmp.Compare(a.(T), b.(T)) },
		same:  sameExact,
		gen:   func(r *reader) any { return gen(r) },
		alias: identity,
	}
}

var codecs = []codec{
	{
		name: "bool",
		enc:  func(dst []byte, v any, o Order) []byte { return AppendBool(dst, v.(bool), o) },
		dec: func(b []byte, o Order) ([]byte, any, bool, error) {
			rest, v, null, err := DecodeBool(b, o)
			return rest, v, null, err
		},
		cmp: func(a, b any) int {
			x, y := a.(bool), b.(bool)
			switch {
			case x == y:
				return 0
			case y:
				return -1
			}
			return 1
		},
		same:  sameExact,
		gen:   func(r *reader) any { return r.byte()&1 == 1 },
		alias: identity,
	},
	intCodec("int2", AppendInt16, DecodeInt16, func(r *reader) int16 { return int16(r.uint64()) }),
	intCodec("int4", AppendInt32, DecodeInt32, func(r *reader) int32 { return int32(r.uint64()) }),
	intCodec("int8", AppendInt64, DecodeInt64, func(r *reader) int64 { return int64(r.uint64()) }),
	intCodec("date", AppendDate, DecodeDate, func(r *reader) int32 { return int32(r.uint64()) }),
	intCodec("time", AppendTime, DecodeTime, func(r *reader) int64 { return int64(r.uint64() % (usecsPerDay + 1)) }),
	intCodec("timestamp", AppendTimestamp, DecodeTimestamp, func(r *reader) int64 { return int64(r.uint64()) }),
	intCodec("timestamptz", AppendTimestampTZ, DecodeTimestampTZ, func(r *reader) int64 { return int64(r.uint64()) }),
	{
		name: "float4",
		enc:  func(dst []byte, v any, o Order) []byte { return AppendFloat32(dst, v.(float32), o) },
		dec: func(b []byte, o Order) ([]byte, any, bool, error) {
			rest, v, null, err := DecodeFloat32(b, o)
			return rest, v, null, err
		},
		cmp: func(a, b any) int { return cmpFloat(float64(a.(float32)), float64(b.(float32))) },
		same: func(got, want any) bool {
			g, w := got.(float32), want.(float32)
			switch {
			case w != w:
				return math.Float32bits(g) == canonicalNaN32
			case w == 0:
				return math.Float32bits(g) == 0
			}
			return g == w
		},
		gen: func(r *reader) any { return genFloat32(r) },
		alias: func(v any, r *reader) any {
			f := v.(float32)
			switch {
			case f == 0:
				return float32(math.Copysign(0, float64(r.byte()&1)-0.5))
			case f != f:
				return math.Float32frombits((math.Float32bits(f) | uint32(r.byte())) ^ uint32(r.byte()&1)<<31)
			}
			return f
		},
	},
	{
		name: "float8",
		enc:  func(dst []byte, v any, o Order) []byte { return AppendFloat64(dst, v.(float64), o) },
		dec: func(b []byte, o Order) ([]byte, any, bool, error) {
			rest, v, null, err := DecodeFloat64(b, o)
			return rest, v, null, err
		},
		cmp: func(a, b any) int { return cmpFloat(a.(float64), b.(float64)) },
		same: func(got, want any) bool {
			g, w := got.(float64), want.(float64)
			switch {
			case w != w:
				return math.Float64bits(g) == canonicalNaN64
			case w == 0:
				return math.Float64bits(g) == 0
			}
			return g == w
		},
		gen: func(r *reader) any { return genFloat64(r) },
		alias: func(v any, r *reader) any {
			f := v.(float64)
			switch {
			case f == 0:
				return math.Copysign(0, float64(r.byte()&1)-0.5)
			case f != f:
				return math.Float64frombits((math.Float64bits(f) | uint64(r.byte())) ^ uint64(r.byte()&1)<<63)
			}
			return f
		},
	},
	{
		name: "numeric",
		enc:  func(dst []byte, v any, o Order) []byte { return AppendNumeric(dst, v.(*apd.Decimal), o) },
		dec: func(b []byte, o Order) ([]byte, any, bool, error) {
			d := new(apd.Decimal)
			rest, null, err := DecodeNumeric(b, o, d)
			return rest, d, null, err
		},
		cmp:   func(a, b any) int { return cmpNumeric(a.(*apd.Decimal), b.(*apd.Decimal)) },
		same:  func(got, want any) bool { return sameNumeric(got.(*apd.Decimal), want.(*apd.Decimal)) },
		gen:   func(r *reader) any { return genNumeric(r) },
		alias: func(v any, r *reader) any { return aliasNumeric(v.(*apd.Decimal), r) },
	},
	{
		name: "text",
		enc:  func(dst []byte, v any, o Order) []byte { return AppendTextString(dst, v.(string), o) },
		dec: func(b []byte, o Order) ([]byte, any, bool, error) {
			rest, v, null, err := DecodeText(b, o, nil)
			return rest, string(v), null, err
		},
		cmp:   func(a, b any) int { return cmp.Compare(a.(string), b.(string)) },
		same:  sameExact,
		gen:   func(r *reader) any { return string(r.bytes()) },
		alias: identity,
	},
	{
		name: "bytea",
		enc:  func(dst []byte, v any, o Order) []byte { return AppendBytea(dst, v.([]byte), o) },
		dec: func(b []byte, o Order) ([]byte, any, bool, error) {
			rest, v, null, err := DecodeBytea(b, o, nil)
			return rest, v, null, err
		},
		cmp:   func(a, b any) int { return bytes.Compare(a.([]byte), b.([]byte)) },
		same:  func(got, want any) bool { return bytes.Equal(got.([]byte), want.([]byte)) },
		gen:   func(r *reader) any { return r.bytes() },
		alias: identity,
	},
	{
		name: "interval",
		enc:  func(dst []byte, v any, o Order) []byte { return AppendInterval(dst, v.(Interval), o) },
		dec: func(b []byte, o Order) ([]byte, any, bool, error) {
			rest, v, null, err := DecodeInterval(b, o)
			return rest, v, null, err
		},
		cmp:   func(a, b any) int { return spanOf(a.(Interval)).Cmp(spanOf(b.(Interval))) },
		same:  func(got, want any) bool { return sameInterval(got.(Interval), want.(Interval)) },
		gen:   func(r *reader) any { return genInterval(r) },
		alias: func(v any, r *reader) any { return aliasInterval(v.(Interval), r) },
	},
	{
		name: "uuid",
		enc:  func(dst []byte, v any, o Order) []byte { return AppendUUID(dst, v.([16]byte), o) },
		dec: func(b []byte, o Order) ([]byte, any, bool, error) {
			rest, v, null, err := DecodeUUID(b, o)
			return rest, v, null, err
		},
		cmp: func(a, b any) int {
			x, y := a.([16]byte), b.([16]byte)
			return bytes.Compare(x[:], y[:])
		},
		same: sameExact,
		gen: func(r *reader) any {
			var u [16]byte
			binary.BigEndian.PutUint64(u[:], r.uint64())
			binary.BigEndian.PutUint64(u[8:], r.uint64())
			return u
		},
		alias: identity,
	},
}

// codecByName returns the codec named name.
func codecByName(name string) codec {
	for _, c := range codecs {
		if c.name == name {
			return c
		}
	}
	panic("no codec " + name)
}

var orders = []Order{Asc, Asc.NullsFirst(), Desc, Desc.NullsLast()}

// cmpFloat is PostgreSQL's float8_cmp_internal: NaN is above everything and
// equal to itself, -0 equals 0.
func cmpFloat(a, b float64) int {
	an, bn := a != a, b != b
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// numRank orders the classes of numerics: -Infinity, finite, Infinity, NaN.
func numRank(d *apd.Decimal) int {
	switch d.Form {
	case apd.Infinite:
		if d.Negative {
			return 0
		}
		return 2
	case apd.NaN, apd.NaNSignaling:
		return 3
	}
	return 1
}

// cmpNumeric is PostgreSQL's numeric comparison over apd values.
func cmpNumeric(a, b *apd.Decimal) int {
	ra, rb := numRank(a), numRank(b)
	if ra != rb || ra != 1 {
		return cmp.Compare(ra, rb)
	}
	return a.Cmp(b)
}

// sameNumeric reports whether got is the documented normalization of want.
func sameNumeric(got, want *apd.Decimal) bool {
	var exp apd.Decimal
	switch want.Form {
	case apd.NaN, apd.NaNSignaling:
		exp.Form = apd.NaN
	case apd.Infinite:
		exp.Form, exp.Negative = apd.Infinite, want.Negative
	default:
		exp.Reduce(want)
	}
	return got.Form == exp.Form && got.Negative == exp.Negative &&
		got.Exponent == exp.Exponent && got.Coeff.Cmp(&exp.Coeff) == 0
}

// reducedExponentFits reports whether the reduced form of d has an int32
// exponent, the domain in which DecodeNumeric succeeds.
func reducedExponentFits(d *apd.Decimal) bool {
	if d.Form != apd.Finite || d.Coeff.Sign() == 0 {
		return true
	}
	s := d.Coeff.String()
	z := len(s) - len(bytes.TrimRight([]byte(s), "0"))
	return int64(d.Exponent)+int64(z) <= math.MaxInt32
}

// spanOf is PostgreSQL's interval_cmp_value, computed with math/big.
func spanOf(iv Interval) *big.Int {
	s := big.NewInt(int64(iv.Months))
	s.Mul(s, big.NewInt(30))
	s.Add(s, big.NewInt(int64(iv.Days)))
	s.Mul(s, big.NewInt(usecsPerDay))
	return s.Add(s, big.NewInt(iv.Micros))
}

// sameInterval reports whether got is the normalized interval of want's span.
func sameInterval(got, want Interval) bool {
	if spanOf(got).Cmp(spanOf(want)) != 0 {
		return false
	}
	s := spanOf(got).Sign()
	sign := func(x int64) bool { return x == 0 || (x > 0) == (s > 0) }
	if !sign(int64(got.Months)) || !sign(int64(got.Days)) || !sign(got.Micros) {
		return false
	}
	clamped := got.Months == math.MaxInt32 || got.Months == math.MinInt32
	if !clamped && (got.Days >= 30 || got.Days <= -30 || got.Micros >= usecsPerDay || got.Micros <= -usecsPerDay) {
		return false
	}
	return true
}

// reader hands out fuzz bytes as values; past the end it gives zeros.
type reader struct{ b []byte }

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) uint64() uint64 {
	// A length byte first, so short inputs give small values often.
	n := int(r.byte() % 9)
	var u uint64
	for range n {
		u = u<<8 | uint64(r.byte())
	}
	if r.byte()&1 == 1 {
		u = -u
	}
	return u
}

func (r *reader) bytes() []byte {
	n := int(r.byte() % 12)
	out := make([]byte, 0, n)
	for range n {
		c := r.byte()
		if c >= 0xF0 { // make zeros and 0xFF common
			c = []byte{0x00, 0x00, 0xFF, 0x01}[c&3]
		}
		out = append(out, c)
	}
	return out
}

func genFloat64(r *reader) float64 {
	switch r.byte() % 8 {
	case 0:
		return math.Float64frombits(r.uint64())
	case 1:
		return []float64{math.Inf(-1), math.Inf(1), math.NaN(), 0, math.Copysign(0, -1),
			math.MaxFloat64, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64}[r.byte()%8]
	}
	return float64(int64(r.uint64())) / float64(1+r.byte()%8)
}

func genFloat32(r *reader) float32 {
	switch r.byte() % 8 {
	case 0:
		return math.Float32frombits(uint32(r.uint64()))
	case 1:
		return []float32{float32(math.Inf(-1)), float32(math.Inf(1)), float32(math.NaN()), 0,
			float32(math.Copysign(0, -1)), math.MaxFloat32, math.SmallestNonzeroFloat32, 1}[r.byte()%8]
	}
	return float32(int32(r.uint64())) / float32(1+r.byte()%8)
}

func genNumeric(r *reader) *apd.Decimal {
	d := new(apd.Decimal)
	switch r.byte() % 16 {
	case 0:
		d.Form = apd.NaN
	case 1:
		d.Form = apd.NaNSignaling
	case 2:
		d.Form = apd.Infinite
	case 3:
		d.Form, d.Negative = apd.Infinite, true
	default:
		n := int(r.byte() % 14)
		buf := make([]byte, n)
		for i := range buf {
			buf[i] = r.byte()
		}
		d.Coeff.SetBytes(buf)
		d.Negative = r.byte()&1 == 1
		d.Exponent = int32(int8(r.byte()))
		if r.byte()%8 == 0 {
			d.Exponent = int32(r.uint64())
		}
	}
	if r.byte()&1 == 1 {
		d.Negative = !d.Negative
	}
	return d
}

// aliasNumeric returns d with k more trailing zeros and k less exponent.
func aliasNumeric(d *apd.Decimal, r *reader) *apd.Decimal {
	e := new(apd.Decimal).Set(d)
	if d.Form != apd.Finite {
		if r.byte()&1 == 1 {
			e.Negative = !e.Negative // -NaN is NaN; but ±Infinity must keep the sign
			if d.Form == apd.Infinite {
				e.Negative = d.Negative
			}
		}
		return e
	}
	k := int32(r.byte() % 5)
	if int64(e.Exponent)-int64(k) < math.MinInt32 {
		return e
	}
	for range k {
		e.Coeff.Mul(&e.Coeff, apd.NewBigInt(10))
	}
	e.Exponent -= k
	if e.Coeff.Sign() == 0 && r.byte()&1 == 1 {
		e.Negative = !e.Negative
	}
	return e
}

func genInterval(r *reader) Interval {
	switch r.byte() % 16 {
	case 0:
		return Interval{math.MinInt32, math.MinInt32, math.MinInt64}
	case 1:
		return Interval{math.MaxInt32, math.MaxInt32, math.MaxInt64}
	}
	return Interval{Months: int32(r.uint64()), Days: int32(r.uint64()), Micros: int64(r.uint64())}
}

// aliasInterval moves a month into 30 days or a day into 24 hours when the
// fields allow it, keeping the span.
func aliasInterval(iv Interval, r *reader) Interval {
	switch r.byte() % 3 {
	case 1:
		if iv.Months > math.MinInt32 && iv.Days <= math.MaxInt32-30 {
			iv.Months--
			iv.Days += 30
		}
	case 2:
		if iv.Days > math.MinInt32 && iv.Micros <= math.MaxInt64-usecsPerDay {
			iv.Days--
			iv.Micros += usecsPerDay
		}
	}
	return iv
}

// sign returns -1, 0 or 1.
func sign(c int) int { return cmp.Compare(c, 0) }

// directed applies Order o to an ascending comparison of two values, either
// of which may be NULL (nil).
func directed(c codec, a, b any, o Order) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil || b == nil:
		r := 1 // a is NULL and NULLs are last
		if b == nil {
			r = -1
		}
		if o.IsNullsFirst() {
			r = -r
		}
		return r
	}
	r := sign(c.cmp(a, b))
	if o.IsDesc() {
		r = -r
	}
	return r
}

// encodeValue encodes v, or NULL if v is nil.
func encodeValue(c codec, dst []byte, v any, o Order) []byte {
	if v == nil {
		return AppendNull(dst, o)
	}
	return c.enc(dst, v, o)
}

// checkRoundTrip encodes v in order o, decodes it and checks the result,
// that the decoder consumed exactly the encoding, and that Split agrees.
func checkRoundTrip(t *testing.T, c codec, v any, o Order) []byte {
	t.Helper()
	tail := []byte{0x42, 0x00, 0xFF}
	enc := encodeValue(c, nil, v, o)
	in := append(append([]byte(nil), enc...), tail...)
	rest, got, null, err := c.dec(in, o)
	if err != nil {
		t.Fatalf("%s %s: decode(%x) of %#v: %v", c.name, o, enc, v, err)
	}
	if !bytes.Equal(rest, tail) {
		t.Fatalf("%s %s: decode(%x) left %x, want %x", c.name, o, enc, rest, tail)
	}
	if null != (v == nil) {
		t.Fatalf("%s %s: decode(%x) null=%v for %#v", c.name, o, enc, null, v)
	}
	if v != nil && !c.same(got, v) {
		t.Fatalf("%s %s: decode(encode(%#v)) = %#v", c.name, o, v, got)
	}
	if v != nil {
		if re := c.enc(nil, got, o); !bytes.Equal(re, enc) {
			t.Fatalf("%s %s: encode(decode(%x)) = %x", c.name, o, enc, re)
		}
	}
	col, rest, err := Split(in)
	if err != nil || !bytes.Equal(col, enc) || !bytes.Equal(rest, tail) {
		t.Fatalf("%s %s: Split(%x) = %x, %x, %v", c.name, o, in, col, rest, err)
	}
	return enc
}

// checkOrder checks that the encodings of a and b in order o compare as
// PostgreSQL compares a and b.
func checkOrder(t *testing.T, c codec, a, b any, o Order) {
	t.Helper()
	ea, eb := encodeValue(c, nil, a, o), encodeValue(c, nil, b, o)
	want := directed(c, a, b, o)
	if got := bytes.Compare(ea, eb); got != want {
		t.Fatalf("%s %s: compare(%#v, %#v) = %d, want %d (encodings %x, %x)", c.name, o, a, b, got, want, ea, eb)
	}
	if want != 0 && (bytes.HasPrefix(ea, eb) || bytes.HasPrefix(eb, ea)) {
		t.Fatalf("%s %s: %x and %x: one is a prefix of the other", c.name, o, ea, eb)
	}
}
