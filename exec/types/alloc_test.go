package types

import (
	"testing"
	"time"
)

// TestOutputAllocs guards invariant 4 of the package doc: the output paths
// of the fixed-size types append into the caller's buffer without
// allocating.
func TestOutputAllocs(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	styles := []*Settings{
		{ExtraFloatDigits: 1},
		{DateStyle: DateStylePostgres, TimeZone: ny, ExtraFloatDigits: 0},
		{DateStyle: DateStyleSQL, DateOrder: DateOrderDMY, TimeZone: ny, IntervalStyle: IntervalStyleSQLStandard},
		{DateStyle: DateStyleGerman, IntervalStyle: IntervalStyleISO8601},
		{IntervalStyle: IntervalStylePostgresVerbose},
	}
	buf := make([]byte, 0, 256)
	ts, _ := ParseTimestamp("1999-01-08 04:05:06.789", -1, nil)
	tstz, _ := ParseTimestampTZ("1999-07-08 04:05:06.789+02", -1, nil)
	bc, _ := ParseTimestamp("0044-03-15 12:00 BC", -1, nil)
	d, _ := ParseDate("2024-02-29", nil)
	iv, _ := ParseInterval("-1 year 2 mons 3 days 04:05:06.789", -1, nil)
	u, _ := ParseUUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")
	for _, st := range styles {
		efd := st.ExtraFloatDigits
		paths := map[string]func(){
			"int":         func() { buf = AppendInt(buf[:0], -9223372036854775808) },
			"oid":         func() { buf = AppendOid(buf[:0], 4294967295) },
			"bool":        func() { buf = AppendBool(buf[:0], true) },
			"float8":      func() { buf = AppendFloat8(buf[:0], 1234.5678e-9, efd) },
			"float8 big":  func() { buf = AppendFloat8(buf[:0], 1e300, efd) },
			"float4":      func() { buf = AppendFloat4(buf[:0], 1.1, efd) },
			"date":        func() { buf = AppendDate(buf[:0], d, st) },
			"time":        func() { buf = AppendTime(buf[:0], 45296789012) },
			"timestamp":   func() { buf = AppendTimestamp(buf[:0], ts, st) },
			"timestampBC": func() { buf = AppendTimestamp(buf[:0], bc, st) },
			"timestamptz": func() { buf = AppendTimestampTZ(buf[:0], tstz, st) },
			"interval":    func() { buf = AppendInterval(buf[:0], iv, st) },
			"uuid":        func() { buf = AppendUUID(buf[:0], u) },
			"binary": func() {
				buf = AppendInt8Binary(buf[:0], 1)
				buf = AppendFloat8Binary(buf, 1.5)
				buf = AppendDateBinary(buf, d)
				buf = AppendTimestampBinary(buf, int64(ts))
				buf = AppendIntervalBinary(buf, iv)
			},
		}
		for name, f := range paths {
			if n := testing.AllocsPerRun(100, f); n != 0 {
				t.Errorf("%s (style %d): %v allocations per run", name, st.DateStyle, n)
			}
		}
	}
}
