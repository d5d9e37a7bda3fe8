package tuple

import (
	"testing"

	"github.com/cockroachdb/apd/v3"
)

var benchNumeric = apd.New(1234567, -2)

// buildRow builds a typical row: (int8 id, text name, float8, numeric, NULL,
// timestamptz, bool).
func buildRow(b *Builder) Tuple {
	b.Reset()
	b.AppendInt64(1_000_001)
	b.AppendString("Joe Bloggs <joe@example.com>")
	b.AppendFloat64(3.25)
	b.AppendNumeric(benchNumeric)
	b.AppendNull()
	b.AppendInt64(789_000_000_000)
	b.AppendBool(true)
	return b.Build()
}

// TestAllocs guards the paths that must not allocate in steady state.
func TestAllocs(t *testing.T) {
	var b Builder
	buildRow(&b) // warm the buffers
	row := buildRow(&b)
	dst := make([]byte, 0, 256)
	var d apd.Decimal
	big := new(apd.Decimal)
	big.Coeff.SetString("1267650600228229401496703205375", 10) // 2^100 - 1
	big.Exponent = -30
	for name, fn := range map[string]func(){
		"numeric < 2^128": func() { dst = AppendNumeric(dst[:0], big) },
		"build":           func() { buildRow(&b) },
		"append to":       func() { dst = b.AppendTo(dst[:0]) },
		"field": func() {
			for i := range row.Count() + 1 {
				_, _ = row.Field(i)
			}
		},
		"validate": func() { _ = Validate(row) },
		"decode": func() {
			f, _ := row.Field(0)
			_, _ = DecodeInt64(f)
			f, _ = row.Field(3)
			_ = DecodeNumeric(f, &d)
		},
	} {
		if n := testing.AllocsPerRun(100, fn); n != 0 {
			t.Errorf("%s: %v allocations per run, want 0", name, n)
		}
	}
}

func BenchmarkBuild(b *testing.B) {
	b.ReportAllocs()
	var bld Builder
	for b.Loop() {
		buildRow(&bld)
	}
}

func BenchmarkField(b *testing.B) {
	b.ReportAllocs()
	var bld Builder
	row := buildRow(&bld)
	n := row.Count()
	for i := 0; b.Loop(); i++ {
		_, _ = row.Field(i % n)
	}
}

func BenchmarkFieldWide(b *testing.B) {
	// 200 fields of 400 bytes: 2-byte offsets, a multi-byte count.
	b.ReportAllocs()
	var bld Builder
	field := make([]byte, 400)
	for range 200 {
		bld.Append(field)
	}
	row := bld.Build()
	for i := 0; b.Loop(); i++ {
		_, _ = row.Field(i % 200)
	}
}

func BenchmarkValidate(b *testing.B) {
	b.ReportAllocs()
	var bld Builder
	row := buildRow(&bld)
	b.SetBytes(int64(len(row)))
	for b.Loop() {
		_ = Validate(row)
	}
}

func BenchmarkNumeric(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 32)
	var d apd.Decimal
	for b.Loop() {
		buf = AppendNumeric(buf[:0], benchNumeric)
		_ = DecodeNumeric(buf, &d)
	}
}
