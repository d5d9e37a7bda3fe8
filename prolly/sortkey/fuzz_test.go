package sortkey

import (
	"bytes"
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// checkPair round-trips x and y and checks their order, in order o.
func checkPair(t *testing.T, c codec, x, y any, o Order) {
	t.Helper()
	checkRoundTrip(t, c, x, o)
	checkRoundTrip(t, c, y, o)
	checkOrder(t, c, x, y, o)
	checkOrder(t, c, x, nil, o)
}

// FuzzIntegers covers the fixed-width integer family: bool, int2, int4,
// int8, date, time, timestamp and timestamptz.
func FuzzIntegers(f *testing.F) {
	for _, v := range []int64{0, 1, -1, math.MinInt64, math.MaxInt64, math.MinInt32, math.MaxInt32, math.MinInt16, math.MaxInt16, 255, 256} {
		f.Add(v, ^v, uint8(0))
		f.Add(v, v+1, uint8(2))
	}
	f.Fuzz(func(t *testing.T, a, b int64, ob uint8) {
		o := orders[ob%4]
		checkPair(t, codecByName("bool"), a&1 == 1, b&1 == 1, o)
		checkPair(t, codecByName("int2"), int16(a), int16(b), o)
		checkPair(t, codecByName("int4"), int32(a), int32(b), o)
		checkPair(t, codecByName("int8"), a, b, o)
		checkPair(t, codecByName("date"), int32(a), int32(b), o)
		checkPair(t, codecByName("time"), a, b, o)
		checkPair(t, codecByName("timestamp"), a, b, o)
		checkPair(t, codecByName("timestamptz"), a, b, o)
	})
}

// FuzzFloats covers float4 and float8 from raw bit patterns, so every NaN
// payload, -0, subnormals and infinities occur.
func FuzzFloats(f *testing.F) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, math.SmallestNonzeroFloat64} {
		f.Add(math.Float64bits(v), math.Float64bits(-v), uint8(0))
		f.Add(math.Float64bits(v), uint64(math.Float32bits(float32(v))), uint8(3))
	}
	f.Fuzz(func(t *testing.T, a, b uint64, ob uint8) {
		o := orders[ob%4]
		checkPair(t, codecByName("float8"), math.Float64frombits(a), math.Float64frombits(b), o)
		checkPair(t, codecByName("float4"), math.Float32frombits(uint32(a)), math.Float32frombits(uint32(b)), o)
		checkPair(t, codecByName("float4"), math.Float32frombits(uint32(a>>32)), math.Float32frombits(uint32(b)), o)
	})
}

// FuzzNumeric covers numerics parsed from strings, with an extra exponent
// shift to reach exponents apd's parser refuses, and with rescaled aliases.
func FuzzNumeric(f *testing.F) {
	for _, s := range []string{"0", "-0", "1", "1.0", "1.50", "-1.5", "0.001", "1E+100", "-1E-100", "NaN", "-NaN", "sNaN",
		"Infinity", "-Infinity", "12345678901234567890123456789012345678901234567890", "99.99", "100", "1E+2", "0.1", "0.10000000000000000001"} {
		f.Add(s, "1", int32(0), uint8(0))
		f.Add(s, s+"0", int32(-1), uint8(2))
	}
	f.Fuzz(func(t *testing.T, as, bs string, shift int32, ob uint8) {
		if len(as) > 200 || len(bs) > 200 {
			return
		}
		a, _, err := apd.NewFromString(as)
		if err != nil {
			return
		}
		b, _, err := apd.NewFromString(bs)
		if err != nil {
			return
		}
		if e := int64(b.Exponent) + int64(shift); b.Form == apd.Finite && e >= math.MinInt32 && e <= math.MaxInt32 {
			b.Exponent = int32(e)
		}
		if !reducedExponentFits(a) || !reducedExponentFits(b) {
			return
		}
		o := orders[ob%4]
		c := codecByName("numeric")
		checkPair(t, c, a, b, o)
		r := &reader{[]byte(as)}
		checkOrder(t, c, a, aliasNumeric(a, r), o)
	})
}

// FuzzBytes covers text and bytea, whose escapes must keep prefix order.
func FuzzBytes(f *testing.F) {
	for _, s := range []string{"", "\x00", "\x00\x00", "\x00\x01", "\x00\xff", "a", "a\x00", "ab", "\xff", "\xff\xfe", "héllo"} {
		f.Add([]byte(s), []byte(s+"\x00"), uint8(0))
		f.Add([]byte(s), []byte("a"), uint8(2))
	}
	f.Fuzz(func(t *testing.T, a, b []byte, ob uint8) {
		o := orders[ob%4]
		checkPair(t, codecByName("bytea"), a, b, o)
		checkPair(t, codecByName("text"), string(a), string(b), o)
		if enc := AppendText(nil, a, o); !bytes.Equal(enc, AppendTextString(nil, string(a), o)) {
			t.Fatalf("AppendText and AppendTextString differ on %q", a)
		}
	})
}

// FuzzInterval covers intervals, whose order is by total span.
func FuzzInterval(f *testing.F) {
	f.Add(int32(1), int32(0), int64(0), int32(0), int32(30), int64(0), uint8(0))
	f.Add(int32(0), int32(1), int64(0), int32(0), int32(0), int64(usecsPerDay), uint8(1))
	f.Add(int32(math.MaxInt32), int32(math.MaxInt32), int64(math.MaxInt64), int32(math.MinInt32), int32(math.MinInt32), int64(math.MinInt64), uint8(2))
	f.Add(int32(-1), int32(29), int64(usecsPerDay), int32(0), int32(0), int64(-1), uint8(3))
	f.Fuzz(func(t *testing.T, m1, d1 int32, u1 int64, m2, d2 int32, u2 int64, ob uint8) {
		o := orders[ob%4]
		c := codecByName("interval")
		x, y := Interval{m1, d1, u1}, Interval{m2, d2, u2}
		checkPair(t, c, x, y, o)
		checkOrder(t, c, x, aliasInterval(x, &reader{[]byte{ob}}), o)
	})
}

// column is one column of a generated composite key.
type column struct {
	c codec
	o Order
}

// genKey makes the values of one key for cols from r; NULL is nil.
func genKey(cols []column, r *reader) []any {
	vals := make([]any, len(cols))
	for i, col := range cols {
		if r.byte()%8 != 0 {
			vals[i] = col.c.gen(r)
		}
	}
	return vals
}

// FuzzComposite builds two keys of up to eight columns of mixed types and
// orders, the second often equal to the first up to some column (possibly
// written differently), and checks that the concatenated encodings compare
// as the rows do, column by column, and decode column by column.
func FuzzComposite(f *testing.F) {
	f.Add([]byte{0x00, 0x3B, 0x27}, []byte("abcdefghijklmnopqrstuvwxyz"))
	f.Add([]byte{0x29, 0x1A, 0x0C, 0x3D}, []byte{0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0})
	f.Add([]byte{0x0B, 0x0B, 0x0B}, []byte{9, 1, 2, 3, 0, 0, 0, 0, 0, 0, 1, 1, 1})
	f.Fuzz(func(t *testing.T, schema, data []byte) {
		if len(schema) > 8 {
			schema = schema[:8]
		}
		cols := make([]column, len(schema))
		for i, s := range schema {
			cols[i] = column{codecs[int(s&0x3F)%len(codecs)], orders[s>>6]}
		}
		r := &reader{data}
		x := genKey(cols, r)
		y := genKey(cols, r)
		// Make y share a prefix with x: equal values, sometimes aliased.
		same := int(r.byte()) % (len(cols) + 1)
		for i := 0; i < same; i++ {
			y[i] = x[i]
			if x[i] != nil {
				y[i] = cols[i].c.alias(x[i], r)
			}
		}
		for _, vals := range [][]any{x, y} {
			for i, v := range vals {
				if d, ok := v.(*apd.Decimal); ok && !reducedExponentFits(d) {
					vals[i] = nil
				}
			}
		}
		var kx, ky []byte
		want := 0
		for i, col := range cols {
			kx = encodeValue(col.c, kx, x[i], col.o)
			ky = encodeValue(col.c, ky, y[i], col.o)
			if want == 0 {
				want = directed(col.c, x[i], y[i], col.o)
			}
		}
		if got := bytes.Compare(kx, ky); got != want {
			t.Fatalf("compare(%x, %x) = %d, want %d\nx=%#v\ny=%#v", kx, ky, got, want, x, y)
		}
		// Decode x back column by column.
		rest := kx
		for i, col := range cols {
			var v any
			var null bool
			var err error
			rest, v, null, err = col.c.dec(rest, col.o)
			if err != nil {
				t.Fatalf("column %d (%s %s): %v", i, col.c.name, col.o, err)
			}
			if null != (x[i] == nil) || !null && !col.c.same(v, x[i]) {
				t.Fatalf("column %d (%s %s): decoded %#v, want %#v", i, col.c.name, col.o, v, x[i])
			}
		}
		if len(rest) != 0 {
			t.Fatalf("%d bytes left after the last column", len(rest))
		}
	})
}

// FuzzDecode feeds arbitrary bytes to every decoder in every order. None may
// panic, and whatever one accepts must be canonical: encoding the decoded
// value reproduces the consumed bytes.
func FuzzDecode(f *testing.F) {
	for _, tc := range orderCases {
		c := codecByName(tc.codec)
		for _, vs := range tc.groups {
			for _, o := range orders {
				f.Add(c.enc(nil, vs[0], o))
			}
		}
	}
	f.Add([]byte{tagNumeric, numPos, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 20})
	f.Add([]byte{tagNumeric, numNeg, 0x00, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xEB})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, c := range codecs {
			for _, o := range orders {
				rest, v, null, err := c.dec(b, o)
				if err != nil {
					continue
				}
				consumed := b[:len(b)-len(rest)]
				var re []byte
				if null {
					re = AppendNull(nil, o)
				} else {
					re = c.enc(nil, v, o)
				}
				if !bytes.Equal(re, consumed) {
					t.Fatalf("%s %s: decoded %x as %#v, which encodes as %x", c.name, o, consumed, v, re)
				}
				col, srest, err := Split(b)
				if err != nil || !bytes.Equal(col, consumed) || len(srest) != len(rest) {
					t.Fatalf("%s %s: Split(%x) = %x, %v; decoder consumed %x", c.name, o, b, col, err, consumed)
				}
			}
		}
		for rest := b; len(rest) > 0; {
			var err error
			if _, rest, err = Split(rest); err != nil {
				break
			}
		}
	})
}
