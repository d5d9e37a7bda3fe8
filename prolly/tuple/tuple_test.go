package tuple

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// build makes a tuple from fields; a nil field is NULL.
func build(b *Builder, fields [][]byte) Tuple {
	b.Reset()
	for _, f := range fields {
		if f == nil {
			b.AppendNull()
		} else {
			b.Append(f)
		}
	}
	return b.Build()
}

// checkTuple validates t and checks that it holds exactly fields, and that
// rebuilding gives the same bytes.
func checkTuple(t *testing.T, tup Tuple, fields [][]byte) {
	t.Helper()
	if err := Validate(tup); err != nil {
		t.Fatalf("Validate(%x): %v", tup, err)
	}
	if tup.Count() != len(fields) {
		t.Fatalf("Count() = %d, want %d", tup.Count(), len(fields))
	}
	for i, want := range fields {
		got, null := tup.Field(i)
		if null != (want == nil) || !bytes.Equal(got, want) {
			t.Fatalf("Field(%d) = %q, %v; want %q", i, trunc(got), null, trunc(want))
		}
		if !null && got == nil {
			t.Fatalf("Field(%d) of a non-NULL field is nil", i)
		}
		if cap(got) != len(got) {
			t.Fatalf("Field(%d) has capacity %d past its length %d", i, cap(got), len(got))
		}
		if tup.IsNull(i) != null {
			t.Fatalf("IsNull(%d) disagrees with Field", i)
		}
	}
	for _, i := range []int{-1, len(fields), len(fields) + 1, math.MaxInt} {
		if f, null := tup.Field(i); !null || f != nil {
			t.Fatalf("Field(%d) of %d fields = %q, %v; want NULL", i, len(fields), f, null)
		}
	}
	var b Builder
	if again := build(&b, fields); !bytes.Equal(again, tup) {
		t.Fatalf("rebuilding gives %x, want %x", again, tup)
	}
}

func trunc(b []byte) string {
	if len(b) > 16 {
		return fmt.Sprintf("%q…(%d bytes)", b[:16], len(b))
	}
	return fmt.Sprintf("%q", b)
}

func TestExamples(t *testing.T) {
	var b Builder
	for _, tc := range []struct {
		fields [][]byte
		want   string
	}{
		{nil, ""},
		{[][]byte{{}}, "2001"},
		{[][]byte{nil}, "240101"},
		{[][]byte{[]byte("ab"), nil, []byte("c")}, "2403020202616263"},
		{[][]byte{[]byte("x"), []byte("yz")}, "20020178797a"},
	} {
		got := build(&b, tc.fields)
		if hex.EncodeToString(got) != tc.want {
			t.Errorf("%q: got %x, want %s", tc.fields, got, tc.want)
		}
		checkTuple(t, got, tc.fields)
	}
}

// TestOffsetWidths crosses the data sizes where the offset width changes.
func TestOffsetWidths(t *testing.T) {
	var b Builder
	for _, tc := range []struct {
		size  int
		width int
	}{{0, 1}, {255, 1}, {256, 2}, {65535, 2}, {65536, 4}, {1 << 20, 4}} {
		for _, shape := range []string{"one", "split", "null-first", "null-last", "many"} {
			big := bytes.Repeat([]byte{0xAB}, tc.size)
			var fields [][]byte
			switch shape {
			case "one":
				fields = [][]byte{big}
			case "split":
				fields = [][]byte{big[:tc.size/2], {}, big[tc.size/2:]}
			case "null-first":
				fields = [][]byte{nil, big}
			case "null-last":
				fields = [][]byte{big, nil}
			case "many":
				for i := 0; i < tc.size; i += 1 + i/3 {
					fields = append(fields, big[i:min(tc.size, i+1+i/3)])
					if i%7 == 0 {
						fields = append(fields, nil)
					}
				}
			}
			tup := build(&b, fields)
			checkTuple(t, tup, fields)
			if len(fields) == 0 {
				continue
			}
			if got := 1 << (tup[0] & widthMask); got != tc.width {
				t.Errorf("%d bytes (%s): offset width %d, want %d", tc.size, shape, got, tc.width)
			}
		}
	}
}

// TestManyFields checks counts whose uvarint takes more than a byte, and
// NULL bitmaps of several bytes.
func TestManyFields(t *testing.T) {
	var b Builder
	for _, n := range []int{1, 7, 8, 9, 127, 128, 129, 1600, 20000} {
		fields := make([][]byte, n)
		for i := range fields {
			if i%3 != 1 {
				fields[i] = []byte(fmt.Sprint(i))
			}
		}
		checkTuple(t, build(&b, fields), fields)
		for i := range fields {
			fields[i] = nil
		}
		fields[n-1] = []byte{}
		checkTuple(t, build(&b, fields), fields)
	}
}

// TestFewerFields is the ADD COLUMN rule: an old row reads as a new row with
// NULL trailing fields, and Count tells them apart.
func TestFewerFields(t *testing.T) {
	var b Builder
	b.AppendInt64(1)
	b.AppendString("Joe")
	old := append(Tuple(nil), b.Build()...)
	b.AppendNull() // the new column, explicitly NULL
	newer := b.Build()
	for _, tup := range []Tuple{old, newer} {
		if _, null := tup.Field(2); !null {
			t.Fatalf("%x: field 2 is not NULL", tup)
		}
		if f, _ := tup.Field(1); string(f) != "Joe" {
			t.Fatalf("%x: field 1 = %q", tup, f)
		}
	}
	if old.Count() != 2 || newer.Count() != 3 {
		t.Fatalf("Count() = %d, %d; want 2, 3", old.Count(), newer.Count())
	}
}

// TestAppendTo checks that AppendTo appends after existing bytes and that
// Size predicts the length.
func TestAppendTo(t *testing.T) {
	var b Builder
	b.Append([]byte("hello"))
	b.AppendNull()
	b.AppendFloat64(math.Copysign(0, -1))
	prefix := []byte("prefix")
	out := b.AppendTo(append([]byte(nil), prefix...))
	if !bytes.HasPrefix(out, prefix) || !bytes.Equal(out[len(prefix):], b.Build()) || len(out)-len(prefix) != b.Size() {
		t.Fatalf("AppendTo = %x, Build = %x, Size = %d", out, b.Build(), b.Size())
	}
	f, _ := Tuple(out[len(prefix):]).Field(2)
	if v, err := DecodeFloat64(f); err != nil || math.Float64bits(v) != 1<<63 {
		t.Fatalf("-0 came back as %v (%x), %v", v, math.Float64bits(v), err)
	}
}

// TestValidateRejects checks that Validate rejects each non-canonical or
// broken form.
func TestValidateRejects(t *testing.T) {
	for name, hx := range map[string]string{
		"version 0":             "0001" + "61",
		"version 2":             "4001" + "61",
		"reserved bits":         "2801" + "61",
		"width code 3":          "2301" + "61",
		"count zero":            "2000",
		"count missing":         "20",
		"count not minimal":     "208100" + "61",
		"count too large":       "20ff7f",
		"count overflows":       "20ffffffffffffffffff01",
		"bitmap without nulls":  "240100",
		"bitmap truncated":      "2402",
		"bitmap high bits":      "240103",
		"offsets truncated":     "200301",
		"offset past end":       "200205" + "6162",
		"offsets decrease":      "2003020161626364",
		"null field not empty":  "24020101" + "61",
		"last null not empty":   "24020200" + "61",
		"wide offsets for 2 B":  "2102" + "0100" + "6162",
		"narrow offsets for 2K": "2002" + "01" + strings.Repeat("61", 300),
	} {
		b, err := hex.DecodeString(hx)
		if err != nil {
			t.Fatal(name, err)
		}
		if err := Validate(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Validate(%x) = %v, want ErrCorrupt", name, b, err)
		}
	}
}

func TestPayloads(t *testing.T) {
	for _, v := range []int16{0, 1, -1, math.MinInt16, math.MaxInt16} {
		if got, err := DecodeInt16(AppendInt16(nil, v)); err != nil || got != v {
			t.Fatalf("int16 %d: %d, %v", v, got, err)
		}
	}
	for _, v := range []int32{0, 1, -1, math.MinInt32, math.MaxInt32} {
		if got, err := DecodeInt32(AppendInt32(nil, v)); err != nil || got != v {
			t.Fatalf("int32 %d: %d, %v", v, got, err)
		}
	}
	for _, v := range []int64{0, 1, -1, math.MinInt64, math.MaxInt64} {
		if got, err := DecodeInt64(AppendInt64(nil, v)); err != nil || got != v {
			t.Fatalf("int64 %d: %d, %v", v, got, err)
		}
	}
	for _, u := range []uint64{0, 1 << 63, 0x7FF8000000000001, 0xFFF0000000000123, math.Float64bits(math.Inf(-1)), 0x3FF8000000000000} {
		if got, err := DecodeFloat64(AppendFloat64(nil, math.Float64frombits(u))); err != nil || math.Float64bits(got) != u {
			t.Fatalf("float64 bits %x: %x, %v", u, math.Float64bits(got), err)
		}
		if got, err := DecodeFloat32(AppendFloat32(nil, math.Float32frombits(uint32(u>>32)))); err != nil || math.Float32bits(got) != uint32(u>>32) {
			t.Fatalf("float32 bits %x: %x, %v", uint32(u>>32), math.Float32bits(got), err)
		}
	}
	for _, v := range []bool{false, true} {
		if got, err := DecodeBool(AppendBool(nil, v)); err != nil || got != v {
			t.Fatalf("bool %v: %v, %v", v, got, err)
		}
	}
	if m, d, u, err := DecodeInterval(AppendInterval(nil, 1, -30, math.MinInt64)); err != nil || m != 1 || d != -30 || u != math.MinInt64 {
		t.Fatalf("interval: %d %d %d %v", m, d, u, err)
	}
	for name, err := range map[string]error{
		"int16 short":    second(DecodeInt16([]byte{1})),
		"int32 long":     second(DecodeInt32(make([]byte, 5))),
		"int64 empty":    second(DecodeInt64(nil)),
		"float32 short":  second(DecodeFloat32(make([]byte, 3))),
		"float64 long":   second(DecodeFloat64(make([]byte, 9))),
		"bool 2":         second(DecodeBool([]byte{2})),
		"bool empty":     second(DecodeBool(nil)),
		"interval short": fourth(DecodeInterval(make([]byte, 15))),
	} {
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func fourth(_, _ int32, _ int64, err error) error { return err }

// sameDecimal reports whether a and b are identical in every field the
// payload keeps.
func sameDecimal(a, b *apd.Decimal) bool {
	if a.Form != b.Form || a.Negative != b.Negative {
		return false
	}
	if a.Form != apd.Finite {
		return true
	}
	return a.Exponent == b.Exponent && a.Coeff.Cmp(&b.Coeff) == 0
}

func TestNumeric(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // hex of the payload, or "" to skip
	}{
		{"0", "80"},
		{"-0", "84"},
		{"0.00", "70"},
		{"1.50", "7096"},
		{"-1.50", "7496"},
		{"1", "8001"},
		{"100", "8064"},
		{"1E+2", "9001"},
		{"123.456", "6801e240"},
		{"1E+15", "f801"},
		{"1E+16", "002001"},
		{"1E-16", "001f01"},
		{"12345678901234567890123456789012345678901234567890", ""},
		{"-0.000000000000000000000000000000000000001", ""},
		{"NaN", "02"},
		{"-NaN", "06"},
		{"sNaN", "03"},
		{"Infinity", "01"},
		{"-Infinity", "05"},
	} {
		d, _, err := apd.NewFromString(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		enc := AppendNumeric(nil, d)
		if tc.want != "" && hex.EncodeToString(enc) != tc.want {
			t.Errorf("%s: payload %x, want %s", tc.in, enc, tc.want)
		}
		var got apd.Decimal
		if err := DecodeNumeric(enc, &got); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if !sameDecimal(&got, d) || got.String() != d.String() {
			t.Errorf("%s: decoded %s (%+v)", tc.in, got.String(), got)
		}
	}
	for _, d := range []*apd.Decimal{apd.New(7, math.MaxInt32), apd.New(-7, math.MinInt32), apd.New(math.MaxInt64, -20)} {
		var got apd.Decimal
		if err := DecodeNumeric(AppendNumeric(nil, d), &got); err != nil || !sameDecimal(&got, d) {
			t.Fatalf("%s: decoded %s, %v", d, got.String(), err)
		}
	}
	var d apd.Decimal
	for name, hx := range map[string]string{
		"empty":             "",
		"NaN with bytes":    "0201",
		"Inf with exponent": "09",
		"leading zero":      "800001",
		"inline exp as var": "0002",
		"varint not min":    "008000",
		"varint truncated":  "0080",
		"exponent too big":  "00feffffff1f",
	} {
		b, _ := hex.DecodeString(hx)
		if err := DecodeNumeric(b, &d); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: DecodeNumeric(%x) = %v, want ErrCorrupt", name, b, err)
		}
	}
}
