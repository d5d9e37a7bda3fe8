package sortkey

import (
	"testing"

	"github.com/cockroachdb/apd/v3"
)

const benchTextNulString = "the quick\x00brown fox\x00jumps over the lazy dog"

var (
	benchText    = []byte("the quick brown fox jumps over the lazy dog")
	benchTextNul = []byte(benchTextNulString)
	benchNumeric = apd.New(123456789, -4) // 12345.6789
)

// appendComposite writes a typical secondary-index key: (int8, text DESC,
// float8, timestamptz) followed by the int8 primary key.
func appendComposite(dst []byte) []byte {
	dst = AppendInt64(dst, 42, Asc)
	dst = AppendText(dst, benchText, Desc)
	dst = AppendFloat64(dst, 3.25, Asc)
	dst = AppendTimestampTZ(dst, 789_000_000_000, Asc)
	return AppendInt64(dst, 1_000_001, Asc)
}

// TestAllocs guards the paths that must not allocate when dst has room.
func TestAllocs(t *testing.T) {
	buf := make([]byte, 0, 256)
	dec := make([]byte, 0, 256)
	var d apd.Decimal
	for name, fn := range map[string]func(){
		"int2":        func() { buf = AppendInt16(buf[:0], -7, Desc) },
		"int4":        func() { buf = AppendInt32(buf[:0], -7, Asc) },
		"int8":        func() { buf = AppendInt64(buf[:0], -7, Asc) },
		"float4":      func() { buf = AppendFloat32(buf[:0], 1.5, Desc) },
		"float8":      func() { buf = AppendFloat64(buf[:0], 1.5, Asc) },
		"text":        func() { buf = AppendText(buf[:0], benchTextNul, Asc) },
		"text desc":   func() { buf = AppendTextString(buf[:0], benchTextNulString, Desc) },
		"numeric":     func() { buf = AppendNumeric(buf[:0], benchNumeric, Desc) },
		"interval":    func() { buf = AppendInterval(buf[:0], Interval{1, 2, 3}, Asc) },
		"composite":   func() { buf = appendComposite(buf[:0]) },
		"null":        func() { buf = AppendNull(buf[:0], Asc) },
		"decode int8": func() { _, _, _, _ = DecodeInt64(AppendInt64(buf[:0], 5, Asc), Asc) },
		"decode text": func() {
			_, dec, _, _ = DecodeText(AppendText(buf[:0], benchTextNul, Desc), Desc, dec[:0])
		},
		"decode numeric": func() {
			_, _, _ = DecodeNumeric(AppendNumeric(buf[:0], benchNumeric, Asc), Asc, &d)
		},
		"split": func() {
			for rest := appendComposite(buf[:0]); len(rest) > 0; {
				_, rest, _ = Split(rest)
			}
		},
	} {
		if n := testing.AllocsPerRun(100, fn); n != 0 {
			t.Errorf("%s: %v allocations per run, want 0", name, n)
		}
	}
}

func BenchmarkAppendInt64(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 64)
	for i := 0; b.Loop(); i++ {
		buf = AppendInt64(buf[:0], int64(i), Asc)
	}
}

func BenchmarkAppendFloat64(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 64)
	for i := 0; b.Loop(); i++ {
		buf = AppendFloat64(buf[:0], float64(i)*0.5, Desc)
	}
}

func BenchmarkAppendText(b *testing.B) {
	for _, bc := range []struct {
		name string
		v    []byte
		o    Order
	}{{"asc", benchText, Asc}, {"asc-nul", benchTextNul, Asc}, {"desc", benchText, Desc}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.v)))
			buf := make([]byte, 0, 128)
			for b.Loop() {
				buf = AppendText(buf[:0], bc.v, bc.o)
			}
		})
	}
}

func BenchmarkAppendNumeric(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 64)
	for b.Loop() {
		buf = AppendNumeric(buf[:0], benchNumeric, Asc)
	}
}

func BenchmarkAppendComposite(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 128)
	for b.Loop() {
		buf = appendComposite(buf[:0])
	}
}

func BenchmarkDecodeInt64(b *testing.B) {
	b.ReportAllocs()
	key := AppendInt64(nil, 12345, Asc)
	for b.Loop() {
		_, _, _, _ = DecodeInt64(key, Asc)
	}
}

func BenchmarkDecodeText(b *testing.B) {
	b.ReportAllocs()
	key := AppendText(nil, benchText, Asc)
	dst := make([]byte, 0, 128)
	for b.Loop() {
		_, dst, _, _ = DecodeText(key, Asc, dst[:0])
	}
}

func BenchmarkDecodeNumeric(b *testing.B) {
	b.ReportAllocs()
	key := AppendNumeric(nil, benchNumeric, Asc)
	var d apd.Decimal
	for b.Loop() {
		_, _, _ = DecodeNumeric(key, Asc, &d)
	}
}

func BenchmarkSplitComposite(b *testing.B) {
	b.ReportAllocs()
	key := appendComposite(nil)
	for b.Loop() {
		for rest := key; len(rest) > 0; {
			_, rest, _ = Split(rest)
		}
	}
}
