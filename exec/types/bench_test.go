package types

import (
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
)

func BenchmarkParseInt8(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ParseInt8(" -1234567890123 "); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendInt8(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 32)
	for i := 0; i < b.N; i++ {
		buf = AppendInt(buf[:0], -1234567890123)
	}
}

func BenchmarkParseFloat8(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ParseFloat8("1234.5678e-3"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendFloat8(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 32)
	for i := 0; i < b.N; i++ {
		buf = AppendFloat8(buf[:0], 1234.5678e-3, 1)
	}
}

func BenchmarkParseNumeric(b *testing.B) {
	b.ReportAllocs()
	var d apd.Decimal
	for i := 0; i < b.N; i++ {
		if err := ParseNumeric(&d, "12345.6789"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendNumeric(b *testing.B) {
	b.ReportAllocs()
	var d apd.Decimal
	_ = ParseNumeric(&d, "12345.6789")
	buf := make([]byte, 0, 32)
	for i := 0; i < b.N; i++ {
		buf = AppendNumeric(buf[:0], &d)
	}
}

func BenchmarkAppendNumericBinary(b *testing.B) {
	b.ReportAllocs()
	var d apd.Decimal
	_ = ParseNumeric(&d, "12345.6789")
	buf := make([]byte, 0, 32)
	for i := 0; i < b.N; i++ {
		buf = AppendNumericBinary(buf[:0], &d)
	}
}

func BenchmarkParseDate(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ParseDate("1999-01-08", nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendDate(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 32)
	for i := 0; i < b.N; i++ {
		buf = AppendDate(buf[:0], Date(i%100000), nil)
	}
}

func BenchmarkParseTimestamp(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ParseTimestamp("1999-01-08 04:05:06.789", -1, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseTimestampTZ(b *testing.B) {
	b.ReportAllocs()
	ny, _ := time.LoadLocation("America/New_York")
	st := &Settings{TimeZone: ny}
	for i := 0; i < b.N; i++ {
		if _, err := ParseTimestampTZ("1999-01-08 04:05:06.789", -1, st); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendTimestamp(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = AppendTimestamp(buf[:0], Timestamp(int64(i)*1000003), nil)
	}
}

func BenchmarkAppendTimestampTZ(b *testing.B) {
	b.ReportAllocs()
	ny, _ := time.LoadLocation("America/New_York")
	st := &Settings{TimeZone: ny}
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = AppendTimestampTZ(buf[:0], TimestampTZ(int64(i)*1000003), st)
	}
}

func BenchmarkParseInterval(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ParseInterval("1 year 2 mons 3 days 04:05:06", -1, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendInterval(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 64)
	iv := Interval{Months: 14, Days: 3, Micros: 14706000000}
	for i := 0; i < b.N; i++ {
		buf = AppendInterval(buf[:0], iv, nil)
	}
}

func BenchmarkParseJSONB(b *testing.B) {
	b.ReportAllocs()
	s := `{"name": "widget", "tags": ["a", "b", "c"], "price": 12.50, "stock": {"warehouse": 12, "store": 3}, "active": true}`
	b.SetBytes(int64(len(s)))
	for i := 0; i < b.N; i++ {
		if _, err := ParseJSONB(s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendJSONB(b *testing.B) {
	b.ReportAllocs()
	v, _ := ParseJSONB(`{"name": "widget", "tags": ["a", "b", "c"], "price": 12.50, "stock": {"warehouse": 12, "store": 3}, "active": true}`)
	buf := make([]byte, 0, 256)
	for i := 0; i < b.N; i++ {
		buf = AppendJSONB(buf[:0], &v)
	}
}

func BenchmarkParseArrayInt4(b *testing.B) {
	b.ReportAllocs()
	c := Int4Codec()
	for i := 0; i < b.N; i++ {
		if _, err := ParseArray("{1,2,3,4,5,6,7,8,9,10}", c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendArrayText(b *testing.B) {
	b.ReportAllocs()
	c := TextCodec(OidText, -1)
	a, _ := ParseArray(`{alpha,"b c",NULL,"",delta}`, c)
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = AppendArray(buf[:0], &a, c)
	}
}
