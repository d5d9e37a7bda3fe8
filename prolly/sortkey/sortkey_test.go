package sortkey

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// num parses a numeric literal the way apd does ("1.50", "-Inf", "NaN").
func num(s string) *apd.Decimal {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		panic(err)
	}
	return d
}

func nums(ss ...string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = num(s)
	}
	return out
}

func uuid(b ...byte) [16]byte {
	var u [16]byte
	copy(u[:], b)
	return u
}

func negZero64() float64 { return math.Copysign(0, -1) }

const maxSpanMonths = math.MaxInt32

// orderCases lists, for each type, groups of values in ascending PostgreSQL
// order; values within a group are equal to PostgreSQL.
var orderCases = []struct {
	codec  string
	groups [][]any
}{
	{"bool", [][]any{{false}, {true}}},
	{"int2", [][]any{{int16(math.MinInt16)}, {int16(math.MinInt16 + 1)}, {int16(-256)}, {int16(-1)}, {int16(0)}, {int16(1)}, {int16(255)}, {int16(256)}, {int16(math.MaxInt16 - 1)}, {int16(math.MaxInt16)}}},
	{"int4", [][]any{{int32(math.MinInt32)}, {int32(-1 << 24)}, {int32(-1)}, {int32(0)}, {int32(1)}, {int32(1 << 24)}, {int32(math.MaxInt32)}}},
	{"int8", [][]any{{int64(math.MinInt64)}, {int64(math.MinInt64 + 1)}, {int64(math.MinInt32)}, {int64(-1)}, {int64(0)}, {int64(1)}, {int64(math.MaxInt32)}, {int64(math.MaxInt64 - 1)}, {int64(math.MaxInt64)}}},
	{"float8", [][]any{
		{math.Inf(-1)}, {-math.MaxFloat64}, {-1e300}, {-1.5}, {-1.0}, {-math.SmallestNonzeroFloat64 * 2}, {-math.SmallestNonzeroFloat64},
		{0.0, negZero64()},
		{math.SmallestNonzeroFloat64}, {2.2250738585072014e-308}, {0.1}, {1.0}, {1.0000000000000002}, {1e300}, {math.MaxFloat64}, {math.Inf(1)},
		{math.NaN(), math.Float64frombits(0x7FF0000000000001), math.Float64frombits(0xFFF8000000000000), math.Float64frombits(0x7FFFFFFFFFFFFFFF)},
	}},
	{"float4", [][]any{
		{float32(math.Inf(-1))}, {float32(-math.MaxFloat32)}, {float32(-1)}, {float32(-math.SmallestNonzeroFloat32)},
		{float32(0), float32(negZero64())},
		{float32(math.SmallestNonzeroFloat32)}, {float32(1)}, {float32(math.MaxFloat32)}, {float32(math.Inf(1))},
		{float32(math.NaN()), math.Float32frombits(0x7F800001), math.Float32frombits(0xFFC00000)},
	}},
	{"numeric", [][]any{
		nums("-Infinity", "-Inf"),
		{apd.New(-1, math.MaxInt32)},
		nums("-1E+1000"),
		nums("-1E+255"),
		nums("-1E+254"),
		nums("-1E+120"),
		nums("-1E+119"),
		nums("-12345678901234567890123456789"),
		nums("-12345678901234567890123456788"),
		nums("-100", "-1E+2", "-100.000"),
		nums("-99.99"),
		nums("-10.5"),
		nums("-10.05"),
		nums("-10"),
		nums("-1.01"),
		nums("-1", "-1.0", "-1.00", "-10E-1"),
		nums("-0.5"),
		nums("-0.1"),
		nums("-0.000000000000000000000000000001"),
		nums("-1E-121"), // E = -120 and -121 straddle the one-byte varint
		nums("-1E-122"),
		nums("-1E-1000"),
		{apd.New(-1, math.MinInt32)},
		nums("0", "-0", "0.000", "0E+10", "-0E-5"),
		{apd.New(1, math.MinInt32)},
		nums("1E-1000"),
		nums("1E-257"), // E = -256 and -257 straddle one and two varint bytes
		nums("1E-256"),
		nums("1E-122"),
		nums("1E-121"),
		nums("0.000000000000000000000000000001"),
		nums("0.0001"),
		nums("0.001"),
		nums("0.09"),
		nums("0.1", "0.10", "0.100000"),
		nums("0.10000000000000000001"),
		nums("0.11"),
		nums("0.2"),
		nums("0.5"),
		nums("1", "1.0", "1.00", "10E-1", "100E-2"),
		nums("1.000000000000000000000000001"),
		nums("1.01"),
		nums("1.1"),
		nums("1.5", "1.50"),
		nums("9.99"),
		nums("10", "1E+1", "10.0"),
		nums("10.05"),
		nums("10.5"),
		nums("99"),
		nums("100", "1E+2", "100.000"),
		nums("101"),
		nums("119E+0"),
		nums("12345678901234567890"),
		nums("18446744073709551615"),
		nums("18446744073709551616"),
		nums("1E+118"), // E = 119 and 120 straddle the one-byte varint
		nums("1E+119"),
		nums("1.5E+119"),
		nums("1E+120"),
		nums("1E+254"), // E = 255 and 256 straddle one and two varint bytes
		nums("1E+255"),
		nums("1E+1000"),
		{apd.New(1, math.MaxInt32)},
		nums("Infinity", "Inf"),
		nums("NaN", "-NaN", "sNaN"),
	}},
	{"text", [][]any{{""}, {"\x00"}, {"\x00\x00"}, {"\x00\x01"}, {"\x00\xff"}, {"\x01"}, {"a"}, {"a\x00"}, {"a\x00\x00"}, {"a\x00b"}, {"a\x01"}, {"ab"}, {"abc"}, {"b"}, {"z"}, {"é"}, {"\xff"}, {"\xff\x00"}, {"\xff\xff"}}},
	{"bytea", [][]any{{[]byte{}}, {[]byte{0}}, {[]byte{0, 0}}, {[]byte{0, 1}}, {[]byte{1}}, {[]byte("a")}, {[]byte("a\x00")}, {[]byte("ab")}, {[]byte{0xff}}, {[]byte{0xff, 0xff}}}},
	{"date", [][]any{{int32(math.MinInt32)}, {int32(-2451545)}, {int32(-1)}, {int32(0)}, {int32(1)}, {int32(2147483494)}, {int32(math.MaxInt32)}}},
	{"time", [][]any{{int64(0)}, {int64(1)}, {int64(43200000000)}, {int64(usecsPerDay - 1)}, {int64(usecsPerDay)}}},
	{"timestamp", [][]any{{int64(math.MinInt64)}, {int64(-211813488000000000)}, {int64(-1)}, {int64(0)}, {int64(1)}, {int64(9223371331200000000 - 1)}, {int64(math.MaxInt64)}}},
	{"timestamptz", [][]any{{int64(math.MinInt64)}, {int64(-1)}, {int64(0)}, {int64(1)}, {int64(math.MaxInt64)}}},
	{"interval", [][]any{
		{Interval{math.MinInt32, math.MinInt32, math.MinInt64}},
		{Interval{math.MinInt32, math.MinInt32, math.MinInt64 + 1}},
		{Interval{math.MinInt32, 0, 0}},
		{Interval{-1, 0, 0}, Interval{0, -30, 0}, Interval{0, 0, -30 * usecsPerDay}, Interval{0, -29, -usecsPerDay}},
		{Interval{0, -1, 0}, Interval{0, 0, -usecsPerDay}, Interval{1, -31, 0}},
		{Interval{0, 0, -1}},
		{Interval{0, 0, 0}, Interval{1, -30, 0}, Interval{0, 1, -usecsPerDay}, Interval{-1, 29, usecsPerDay}},
		{Interval{0, 0, 1}},
		{Interval{0, 0, 3_600_000_000}},
		{Interval{0, 1, 0}, Interval{0, 0, usecsPerDay}},
		{Interval{0, 1, 1}},
		{Interval{1, 0, 0}, Interval{0, 30, 0}, Interval{0, 29, usecsPerDay}, Interval{0, 0, 30 * usecsPerDay}},
		{Interval{1, 0, 1}},
		{Interval{12, 0, 0}, Interval{0, 360, 0}},
		{Interval{maxSpanMonths, 0, 0}},
		{Interval{math.MaxInt32, math.MaxInt32, math.MaxInt64 - 1}},
		{Interval{math.MaxInt32, math.MaxInt32, math.MaxInt64}},
	}},
	{"uuid", [][]any{{uuid()}, {uuid(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)}, {uuid(0x7f)}, {uuid(0x80)}, {uuid(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)}}},
}

// TestOrder checks every pair of listed values, NULL included, in all four
// orders, and round-trips each value.
func TestOrder(t *testing.T) {
	for _, tc := range orderCases {
		c := codecByName(tc.codec)
		t.Run(tc.codec, func(t *testing.T) {
			type item struct {
				v     any
				group int
			}
			var items []item
			for g, vs := range tc.groups {
				for _, v := range vs {
					items = append(items, item{v, g})
				}
			}
			items = append(items, item{nil, -1})
			// The reference comparison must agree with the listed groups.
			for _, a := range items {
				for _, b := range items {
					if a.v == nil || b.v == nil {
						continue
					}
					want := sign(a.group - b.group)
					if got := sign(c.cmp(a.v, b.v)); got != want {
						t.Fatalf("reference cmp(%#v, %#v) = %d, want %d", a.v, b.v, got, want)
					}
				}
			}
			for _, o := range orders {
				for _, a := range items {
					checkRoundTrip(t, c, a.v, o)
					for _, b := range items {
						checkOrder(t, c, a.v, b.v, o)
					}
				}
			}
		})
	}
}

// TestDescIsComplement checks invariant 3 on every listed value.
func TestDescIsComplement(t *testing.T) {
	for _, tc := range orderCases {
		c := codecByName(tc.codec)
		for _, vs := range tc.groups {
			for _, v := range vs {
				for _, pair := range [][2]Order{{Asc, Desc}, {Asc.NullsFirst(), Desc.NullsLast()}} {
					asc, desc := c.enc(nil, v, pair[0]), c.enc(nil, v, pair[1])
					complement(asc)
					if !bytes.Equal(asc, desc) {
						t.Fatalf("%s %#v: %s is not the complement of %s", c.name, v, pair[1], pair[0])
					}
				}
			}
		}
	}
	if AppendNull(nil, Desc)[0] != ^AppendNull(nil, Asc)[0] || AppendNull(nil, Desc.NullsLast())[0] != ^AppendNull(nil, Asc.NullsFirst())[0] {
		t.Fatal("NULL of DESC is not the complement of NULL of ASC with the other placement")
	}
}

// TestEncodings pins a few exact encodings, so that a format change is
// noticed here and not in a golden root hash.
func TestEncodings(t *testing.T) {
	for _, tc := range []struct {
		enc  []byte
		want string
	}{
		{AppendNull(nil, Asc), "ff"},
		{AppendNull(nil, Desc), "00"},
		{AppendBool(nil, true, Asc), "1001"},
		{AppendInt16(nil, 1, Asc), "118001"},
		{AppendInt32(nil, -1, Asc), "127fffffff"},
		{AppendInt64(nil, 1, Desc), "ec7ffffffffffffffe"},
		{AppendFloat64(nil, 1.5, Asc), "15bff8000000000000"},
		{AppendFloat64(nil, math.NaN(), Asc), "15fff8000000000000"},
		{AppendFloat32(nil, -1, Asc), "14407fffff"},
		{AppendNumeric(nil, num("1.50"), Asc), "1604811e"},     // 0.15E1: exponent 1 → 0x81, last pair 15 → 0x1e
		{AppendNumeric(nil, num("-123.4"), Asc), "16027ce6bb"}, // negative: complement of 0.1234E3 = 83 19 44
		{AppendNumeric(nil, num("0"), Asc), "1603"},
		{AppendNumeric(nil, num("1E+200"), Asc), "1604f8c914"},
		{AppendNumeric(nil, num("NaN"), Desc), "e9f9"},
		{AppendTextString(nil, "a\x00b", Asc), "176100ff620001"},
		{AppendTextString(nil, "a", Desc), "e89efffe"},
		{AppendInterval(nil, Interval{0, 1, 0}, Asc), "1d8000000000141dd76000"},
		{AppendUUID(nil, uuid(1, 2), Asc), "1e01020000000000000000000000000000"},
	} {
		want := bytes.ReplaceAll([]byte(tc.want), []byte(" "), nil)
		if got := []byte(hexs(tc.enc)); !bytes.Equal(got, want) {
			t.Errorf("encoding %s, want %s", got, want)
		}
	}
}

func hexs(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// TestNormalization checks the documented ways decode(encode(x)) ≠ x.
func TestNormalization(t *testing.T) {
	_, f, _, _ := DecodeFloat64(AppendFloat64(nil, negZero64(), Asc), Asc)
	if math.Float64bits(f) != 0 {
		t.Errorf("-0 decodes as %v (bits %x)", f, math.Float64bits(f))
	}
	_, f, _, _ = DecodeFloat64(AppendFloat64(nil, math.Float64frombits(0xFFF0000000000123), Asc), Asc)
	if math.Float64bits(f) != 0x7FF8000000000000 {
		t.Errorf("NaN decodes as bits %x", math.Float64bits(f))
	}
	for in, want := range map[string]string{
		"1.50": "1.5", "100": "1E+2", "-0.000": "0", "0E+7": "0", "-NaN": "NaN", "sNaN": "NaN",
		"-Infinity": "-Infinity", "12.3400E-2": "0.1234", "123456789012345678901234567890": "1.2345678901234567890123456789E+29",
	} {
		var d apd.Decimal
		if _, _, err := DecodeNumeric(AppendNumeric(nil, num(in), Asc), Asc, &d); err != nil {
			t.Fatal(err)
		}
		if d.String() != want {
			t.Errorf("numeric %s decodes as %s, want %s", in, d.String(), want)
		}
	}
	for _, tc := range []struct{ in, want Interval }{
		{Interval{0, 30, 0}, Interval{1, 0, 0}},
		{Interval{0, 0, 720 * 3_600_000_000}, Interval{1, 0, 0}},
		{Interval{0, 0, 25 * 3_600_000_000}, Interval{0, 1, 3_600_000_000}},
		{Interval{0, 0, -3_600_000_000}, Interval{0, 0, -3_600_000_000}},
		{Interval{1, -1, 0}, Interval{0, 29, 0}},
		{Interval{-1, 1, 0}, Interval{0, -29, 0}},
		{Interval{0, 45, 0}, Interval{1, 15, 0}},
		{Interval{math.MaxInt32, math.MaxInt32, math.MaxInt64}, Interval{math.MaxInt32, math.MaxInt32, math.MaxInt64}},
		{Interval{math.MinInt32, math.MinInt32, math.MinInt64}, Interval{math.MinInt32, math.MinInt32, math.MinInt64}},
		{Interval{math.MaxInt32 - 1, 60, 0}, Interval{math.MaxInt32, 30, 0}},
		{Interval{0, math.MaxInt32, math.MaxInt64}, Interval{75141187, 28, 14454775807}},
	} {
		_, got, _, err := DecodeInterval(AppendInterval(nil, tc.in, Asc), Asc)
		if err != nil {
			t.Fatal(err)
		}
		if !sameInterval(got, tc.in) {
			t.Errorf("interval %+v decodes as %+v: not its normal form", tc.in, got)
		}
		if got != tc.want {
			t.Errorf("interval %+v decodes as %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// TestComposite checks a mixed key of several columns and directions.
func TestComposite(t *testing.T) {
	type row struct {
		id   int64
		name any // string or nil
		x    float64
	}
	rows := []row{
		{1, "b", 2}, {1, "b", 1}, {1, "a", 5}, {1, "a", math.NaN()}, {1, nil, 0}, {2, "", 0}, {2, nil, -1},
	}
	enc := func(r row) []byte {
		k := AppendInt64(nil, r.id, Asc)
		if r.name == nil {
			k = AppendNull(k, Desc)
		} else {
			k = AppendTextString(k, r.name.(string), Desc)
		}
		return AppendFloat64(k, r.x, Asc)
	}
	// Sorted by id ASC, name DESC NULLS FIRST, x ASC:
	want := []row{rows[4], rows[1], rows[0], rows[2], rows[3], rows[6], rows[5]}
	for i := 1; i < len(want); i++ {
		if a, b := enc(want[i-1]), enc(want[i]); bytes.Compare(a, b) >= 0 {
			t.Fatalf("%+v (%x) does not sort before %+v (%x)", want[i-1], a, want[i], b)
		}
	}
	k := enc(rows[2])
	var n int
	for rest := k; len(rest) > 0; n++ {
		var err error
		if _, rest, err = Split(rest); err != nil {
			t.Fatal(err)
		}
	}
	if n != 3 {
		t.Fatalf("Split found %d columns, want 3", n)
	}
	rest, id, _, err := DecodeInt64(k, Asc)
	if err != nil || id != 1 {
		t.Fatal(id, err)
	}
	rest, name, null, err := DecodeText(rest, Desc, nil)
	if err != nil || null || string(name) != "a" {
		t.Fatal(name, null, err)
	}
	rest, x, _, err := DecodeFloat64(rest, Asc)
	if err != nil || x != 5 || len(rest) != 0 {
		t.Fatal(x, rest, err)
	}
}

// TestDecodeErrors checks that malformed input gives ErrCorrupt.
func TestDecodeErrors(t *testing.T) {
	var d apd.Decimal
	for name, err := range map[string]error{
		"empty":                   second(DecodeInt64(nil, Asc)),
		"wrong tag":               second(DecodeInt64(AppendInt32(nil, 1, Asc), Asc)),
		"wrong direction":         second(DecodeInt64(AppendInt64(nil, 1, Desc), Asc)),
		"wrong nulls":             second(DecodeInt64(AppendNull(nil, Asc.NullsFirst()), Asc)),
		"truncated":               second(DecodeInt64(AppendInt64(nil, 1, Asc)[:5], Asc)),
		"bool 2":                  second(DecodeBool([]byte{tagBool, 2}, Asc)),
		"-0":                      second(DecodeFloat64(appendUint64(nil, tagFloat8, 0x7FFFFFFFFFFFFFFF, Asc), Asc)),
		"other NaN":               second(DecodeFloat64(appendUint64(nil, tagFloat8, 0xFFF8000000000001, Asc), Asc)),
		"text no end":             second(DecodeText([]byte{tagText, 'a', 0}, Asc, nil)),
		"text bad escape":         second(DecodeText([]byte{tagText, 'a', 0, 2}, Asc, nil)),
		"numeric class":           thirdOf(DecodeNumeric([]byte{tagNumeric, 9}, Asc, &d)),
		"numeric trailing 0 pair": thirdOf(DecodeNumeric([]byte{tagNumeric, numPos, 129, 21, 0}, Asc, &d)),
		"numeric leading 0":       thirdOf(DecodeNumeric([]byte{tagNumeric, numPos, 129, 2}, Asc, &d)),
		"numeric unterminated":    thirdOf(DecodeNumeric([]byte{tagNumeric, numPos, 129, 21}, Asc, &d)),
		"varint long form":        thirdOf(DecodeNumeric([]byte{tagNumeric, numPos, 0xF8, 5, 20}, Asc, &d)),
		"varint zero byte":        thirdOf(DecodeNumeric([]byte{tagNumeric, numPos, 0xF9, 0, 200, 20}, Asc, &d)),
		"interval range":          second(DecodeInterval([]byte{tagInterval, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, Asc)),
		"split unknown":           thirdOf(Split([]byte{0x05})),
	} {
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: error %v, want ErrCorrupt", name, err)
		}
	}
}

func second[T any](_ []byte, _ T, _ bool, err error) error { return err }

func thirdOf[A, B any](_ A, _ B, err error) error { return err }
