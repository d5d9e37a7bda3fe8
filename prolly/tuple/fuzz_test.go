package tuple

import (
	"bytes"
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// FuzzValidate feeds arbitrary bytes to Validate. Whatever it accepts must
// be safe to read at every index and must be canonical: rebuilding it from
// its fields gives the same bytes.
func FuzzValidate(f *testing.F) {
	var b Builder
	for _, fields := range [][][]byte{
		{},
		{{}},
		{nil},
		{[]byte("ab"), nil, []byte("c")},
		{bytes.Repeat([]byte{1}, 256), nil},
		{nil, nil, nil, nil, nil, nil, nil, nil, []byte("x")},
	} {
		f.Add([]byte(build(&b, fields)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if Validate(data) != nil {
			return
		}
		tup := Tuple(data)
		n := tup.Count()
		fields := make([][]byte, n)
		for i := -1; i <= n; i++ {
			v, null := tup.Field(i)
			if i >= 0 && i < n && !null {
				fields[i] = v
			}
		}
		var b Builder
		if again := build(&b, fields); !bytes.Equal(again, data) {
			t.Fatalf("Validate accepted %x, but its fields rebuild as %x", data, again)
		}
	})
}

// FuzzBuild builds tuples from fuzzed fields, some repeated to cross the
// offset width boundaries, and reads them back.
func FuzzBuild(f *testing.F) {
	f.Add([]byte("hello world"), []byte{3, 0, 5, 0xFF, 1}, uint16(0))
	f.Add([]byte{1, 2, 3}, []byte{0xFF, 0xFF, 0xFF}, uint16(300))
	f.Add([]byte("x"), []byte{1, 1}, uint16(65535))
	f.Fuzz(func(t *testing.T, data, shape []byte, repeat uint16) {
		if len(shape) > 64 {
			shape = shape[:64]
		}
		// Each shape byte makes a field: 0xFF is NULL, else its length
		// (mod 32) in bytes taken from data; the first field is repeated
		// `repeat` times over.
		var fields [][]byte
		r := data
		for i, s := range shape {
			if s == 0xFF {
				fields = append(fields, nil)
				continue
			}
			n := min(int(s%32), len(r))
			fv := r[:n:n]
			r = r[n:]
			if i == 0 {
				fv = bytes.Repeat(fv, int(repeat)%70000)
			}
			fields = append(fields, fv)
		}
		var b Builder
		tup := build(&b, fields)
		checkTuple(t, tup, fields)
		if out := b.AppendTo([]byte{7}); !bytes.Equal(out[1:], tup) {
			t.Fatalf("AppendTo and Build differ")
		}
	})
}

// FuzzPayloads feeds arbitrary bytes to every payload decoder: no panic,
// and what the numeric decoder accepts re-encodes to the same bytes.
func FuzzPayloads(f *testing.F) {
	for _, s := range []string{"0", "-0", "1.50", "1E+16", "1E-300", "NaN", "-NaN", "sNaN", "-Infinity",
		"123456789012345678901234567890.123456789"} {
		d, _, _ := apd.NewFromString(s)
		f.Add(AppendNumeric(nil, d))
	}
	f.Add(AppendFloat64(nil, math.NaN()))
	f.Fuzz(func(t *testing.T, b []byte) {
		var d apd.Decimal
		if err := DecodeNumeric(b, &d); err == nil {
			if re := AppendNumeric(nil, &d); !bytes.Equal(re, b) {
				t.Fatalf("numeric %x decodes as %s, which encodes as %x", b, d.String(), re)
			}
		}
		if v, err := DecodeFloat64(b); err == nil && !bytes.Equal(AppendFloat64(nil, v), b) {
			t.Fatalf("float64 %x changed", b)
		}
		if v, err := DecodeFloat32(b); err == nil && !bytes.Equal(AppendFloat32(nil, v), b) {
			t.Fatalf("float32 %x changed", b)
		}
		_, _ = DecodeBool(b)
		_, _ = DecodeInt16(b)
		_, _ = DecodeInt32(b)
		_, _ = DecodeInt64(b)
		_, _, _, _ = DecodeInterval(b)
	})
}

// FuzzNumeric round-trips decimals built from fuzzed parts, exponents and
// coefficients of every size included.
func FuzzNumeric(f *testing.F) {
	f.Add([]byte{150}, int32(-2), uint8(0))
	f.Add([]byte{}, int32(0), uint8(4))
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}, int32(math.MinInt32), uint8(1))
	f.Fuzz(func(t *testing.T, coeff []byte, exp int32, flags uint8) {
		d := new(apd.Decimal)
		d.Coeff.SetBytes(coeff)
		d.Exponent = exp
		d.Negative = flags&4 != 0
		d.Form = []apd.Form{apd.Finite, apd.Infinite, apd.NaN, apd.NaNSignaling}[flags&3]
		enc := AppendNumeric(nil, d)
		var got apd.Decimal
		if err := DecodeNumeric(enc, &got); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if !sameDecimal(&got, d) {
			t.Fatalf("%+v decoded as %+v", d, &got)
		}
	})
}
