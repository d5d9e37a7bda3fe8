package types

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
)

// fuzzSettings are the settings the datetime fuzz targets cycle through.
var fuzzSettings = func() []*Settings {
	ny, _ := time.LoadLocation("America/New_York")
	kol, _ := time.LoadLocation("Asia/Kolkata")
	now := func() time.Time { return time.Date(2021, 6, 7, 8, 9, 10, 0, time.UTC) }
	return []*Settings{
		{ExtraFloatDigits: 1, Now: now},
		{DateStyle: DateStylePostgres, DateOrder: DateOrderDMY, TimeZone: ny, IntervalStyle: IntervalStylePostgresVerbose, Now: now},
		{DateStyle: DateStyleSQL, DateOrder: DateOrderMDY, TimeZone: kol, IntervalStyle: IntervalStyleSQLStandard, Now: now},
		{DateStyle: DateStyleGerman, DateOrder: DateOrderDMY, TimeZone: ny, IntervalStyle: IntervalStyleISO8601, Now: now},
	}
}()

func addTextSeeds(f *testing.F) {
	for i, c := range pgCases {
		if i%3 == 0 {
			f.Add(uint8(i), c.in)
		}
	}
}

// FuzzTextRoundTrip parses arbitrary text as each scalar type; whatever
// parses must print, parse back to the same value, and print the same text
// again (parse(format(x)) == x). Nothing may panic.
func FuzzTextRoundTrip(f *testing.F) {
	addTextSeeds(f)
	f.Fuzz(func(t *testing.T, sel uint8, s string) {
		st := fuzzSettings[int(sel>>4)%len(fuzzSettings)]
		// the output style that reads back unambiguously under st
		iso := *st
		iso.DateStyle = DateStyleISO
		switch sel % 16 {
		case 0:
			if v, err := ParseInt4(s); err == nil {
				if v2, err := ParseInt4(string(AppendInt(nil, int64(v)))); err != nil || v2 != v {
					t.Fatalf("int4 %q: %d -> %d, %v", s, v, v2, err)
				}
			}
			if v, err := ParseInt8(s); err == nil {
				if v2, err := ParseInt8(string(AppendInt(nil, v))); err != nil || v2 != v {
					t.Fatalf("int8 %q: %d -> %d, %v", s, v, v2, err)
				}
			}
			_, _ = ParseInt2(s)
			if v, err := ParseOid(s); err == nil {
				if v2, err := ParseOid(string(AppendOid(nil, v))); err != nil || v2 != v {
					t.Fatalf("oid %q", s)
				}
			}
		case 1:
			if v, err := ParseFloat8(s); err == nil {
				out := AppendFloat8(nil, v, 1)
				v2, err := ParseFloat8(string(out))
				if err != nil || (v2 != v && !(math.IsNaN(v) && math.IsNaN(v2))) || math.Signbit(v) != math.Signbit(v2) && !math.IsNaN(v) {
					t.Fatalf("float8 %q: %v -> %q -> %v, %v", s, v, out, v2, err)
				}
				_ = AppendFloat8(nil, v, -7)
			}
			if v, err := ParseFloat4(s); err == nil {
				out := AppendFloat4(nil, v, 1)
				v2, err := ParseFloat4(string(out))
				if err != nil || (v2 != v && !(v != v && v2 != v2)) {
					t.Fatalf("float4 %q: %v -> %q -> %v, %v", s, v, out, v2, err)
				}
			}
		case 2:
			var d, d2 apd.Decimal
			if err := ParseNumeric(&d, s); err == nil {
				out := AppendNumeric(nil, &d)
				if err := ParseNumeric(&d2, string(out)); err != nil {
					t.Fatalf("numeric %q -> %q: %v", s, out, err)
				}
				if out2 := AppendNumeric(nil, &d2); !bytes.Equal(out, out2) {
					t.Fatalf("numeric %q: %q -> %q", s, out, out2)
				}
				var d3 apd.Decimal
				if err := ParseNumericBinary(&d3, AppendNumericBinary(nil, &d), -1); err != nil {
					t.Fatalf("numeric %q binary: %v", s, err)
				}
				if out3 := AppendNumeric(nil, &d3); !bytes.Equal(out, out3) {
					t.Fatalf("numeric %q: binary round trip %q -> %q", s, out, out3)
				}
				_ = ApplyNumericTypmod(&d, NumericTypmod(int32(sel%7)+1, int32(sel%5)-2))
			}
		case 3:
			if v, err := ParseBool(s); err == nil {
				if v2, _ := ParseBool(string(AppendBool(nil, v))); v2 != v {
					t.Fatal("bool")
				}
			}
			if u, err := ParseUUID(s); err == nil {
				if u2, err := ParseUUID(string(AppendUUID(nil, u))); err != nil || u2 != u {
					t.Fatal("uuid")
				}
			}
			for _, cidr := range []bool{false, true} {
				if v, err := ParseInet(s, cidr); err == nil {
					checkInetRoundTrip(t, v, cidr)
				}
			}
		case 4:
			if b, err := ParseBytea(nil, s); err == nil {
				b2, err := ParseBytea(nil, string(AppendBytea(nil, b)))
				if err != nil || !bytes.Equal(b, b2) {
					t.Fatalf("bytea hex %q", s)
				}
				b3, err := ParseBytea(nil, string(AppendByteaEscape(nil, b)))
				if err != nil || !bytes.Equal(b, b3) {
					t.Fatalf("bytea escape %q", s)
				}
			}
		case 5:
			if v, err := ParseDate(s, st); err == nil {
				if v2, err := ParseDate(string(AppendDate(nil, v, st)), st); err != nil || v2 != v {
					t.Fatalf("date %q: %d -> %q -> %d, %v", s, v, AppendDate(nil, v, st), v2, err)
				}
			}
		case 6:
			if v, err := ParseTime(s, -1, st); err == nil {
				if v2, err := ParseTime(string(AppendTime(nil, v)), -1, st); err != nil || v2 != v {
					t.Fatalf("time %q: %d -> %d, %v", s, v, v2, err)
				}
			}
		case 7:
			if v, err := ParseTimestamp(s, -1, st); err == nil {
				out := AppendTimestamp(nil, v, st)
				if v2, err := ParseTimestamp(string(out), -1, st); err != nil || v2 != v {
					t.Fatalf("timestamp %q: %d -> %q -> %d, %v", s, v, out, v2, err)
				}
			}
		case 8:
			if v, err := ParseTimestampTZ(s, -1, st); err == nil {
				out := AppendTimestampTZ(nil, v, &iso)
				if v2, err := ParseTimestampTZ(string(out), -1, &iso); err != nil || v2 != v {
					t.Fatalf("timestamptz %q: %d -> %q -> %d, %v", s, v, out, v2, err)
				}
				_ = AppendTimestampTZ(nil, v, st)
			}
		case 9:
			// PostgreSQL cannot read back an interval whose time part is the
			// most negative int64 either ("-2562047788:00:54.775808"), nor,
			// in the verbose style, one of the most negative int32 days or
			// months ("@ 2147483648 days ago" is out of range).
			if v, err := ParseInterval(s, -1, st); err == nil && v.Micros != math.MinInt64 &&
				!(st.IntervalStyle == IntervalStylePostgresVerbose && (v.Days == math.MinInt32 || v.Months == math.MinInt32)) {
				out := AppendInterval(nil, v, st)
				if v2, err := ParseInterval(string(out), -1, st); err != nil || v2 != v {
					t.Fatalf("interval %q: %+v -> %q -> %+v, %v", s, v, out, v2, err)
				}
			}
		case 10, 11:
			if v, err := ParseJSONB(s); err == nil {
				out := AppendJSONB(nil, &v)
				v2, err := ParseJSONB(string(out))
				if err != nil {
					t.Fatalf("jsonb %q -> %q: %v", s, out, err)
				}
				if out2 := AppendJSONB(nil, &v2); !bytes.Equal(out, out2) {
					t.Fatalf("jsonb %q: %q -> %q", s, out, out2)
				}
				if ValidateJSON(string(out)) != nil {
					t.Fatalf("jsonb output %q is not json", out)
				}
			}
			_ = ValidateJSON(s)
		case 12:
			c := Int4Codec()
			if a, err := ParseArray(s, c); err == nil {
				out := AppendArray(nil, &a, c)
				a2, err := ParseArray(string(out), c)
				if err != nil || !bytes.Equal(AppendArray(nil, &a2, c), out) {
					t.Fatalf("int4[] %q -> %q: %v", s, out, err)
				}
			}
		case 13:
			c := TextCodec(OidText, -1)
			if a, err := ParseArray(s, c); err == nil {
				out := AppendArray(nil, &a, c)
				a2, err := ParseArray(string(out), c)
				if err != nil || !bytes.Equal(AppendArray(nil, &a2, c), out) {
					t.Fatalf("text[] %q -> %q: %v", s, out, err)
				}
				b := AppendArrayBinary(nil, &a, c)
				a3, err := ParseArrayBinary(b, c)
				if err != nil || !bytes.Equal(AppendArray(nil, &a3, c), out) {
					t.Fatalf("text[] %q binary: %v", s, err)
				}
			}
		case 14:
			_, _ = ApplyVarcharTypmod(s, int32(sel%9)+VarHdrSz, sel&1 == 0)
			_, _ = ApplyBpcharTypmod(s, int32(sel%9)+VarHdrSz, sel&1 == 0)
			_ = ParseName(s)
			_ = AppendChar(nil, ParseChar(s))
		case 15:
			c := IntervalCodec(-1, st)
			if a, err := ParseArray(s, c); err == nil {
				_ = AppendArray(nil, &a, c)
			}
		}
	})
}

// FuzzBinaryDecoders feeds arbitrary bytes to every binary decoder: none
// may panic, and what decodes must encode to bytes that decode to the same
// value.
func FuzzBinaryDecoders(f *testing.F) {
	for i, c := range pgBinaryCases {
		b := make([]byte, len(c.hex)/2)
		for k := range b {
			b[k] = unhex(c.hex[2*k])<<4 | unhex(c.hex[2*k+1])
		}
		f.Add(uint8(i), b)
	}
	f.Fuzz(func(t *testing.T, sel uint8, b []byte) {
		st := fuzzSettings[int(sel>>5)%len(fuzzSettings)]
		switch sel % 20 {
		case 0:
			roundTripBinary(t, b, BoolCodec())
			roundTripBinary(t, b, Int2Codec())
		case 1:
			roundTripBinary(t, b, Int4Codec())
			roundTripBinary(t, b, OidCodec())
		case 2:
			roundTripBinary(t, b, Int8Codec())
		case 3:
			roundTripBinary(t, b, Float4Codec(st))
			roundTripBinary(t, b, Float8Codec(st))
		case 4:
			roundTripBinary(t, b, NumericCodec(-1))
			roundTripBinary(t, b, NumericCodec(NumericTypmod(5, 2)))
		case 5:
			roundTripBinary(t, b, TextCodec(OidText, -1))
			roundTripBinary(t, b, TextCodec(OidBpchar, CharTypmod(3)))
			roundTripBinary(t, b, TextCodec(OidName, -1))
		case 6:
			roundTripBinary(t, b, ByteaCodec(st))
			roundTripBinary(t, b, CharCodec())
		case 7:
			roundTripBinary(t, b, UUIDCodec())
			if v, err := ParseInetBinary(b, sel&0x20 != 0); err == nil {
				checkInetRoundTrip(t, v, sel&0x20 != 0)
			}
		case 8:
			roundTripBinary(t, b, DateCodec(st))
		case 9:
			roundTripBinary(t, b, TimeCodec(-1, st))
			roundTripBinary(t, b, TimeCodec(2, st))
		case 10:
			roundTripBinary(t, b, TimestampCodec(-1, st))
			roundTripBinary(t, b, TimestampTZCodec(3, st))
		case 11:
			roundTripBinary(t, b, IntervalCodec(-1, st))
		case 12:
			roundTripBinary(t, b, JSONCodec())
			roundTripBinary(t, b, JSONBCodec())
		case 13:
			roundTripArrayBinary(t, b, Int4Codec())
		case 14:
			roundTripArrayBinary(t, b, TextCodec(OidText, -1))
		case 15:
			roundTripArrayBinary(t, b, NumericCodec(-1))
		case 16:
			roundTripArrayBinary(t, b, Float8Codec(st))
			roundTripArrayBinary(t, b, BoolCodec())
		case 17:
			roundTripArrayBinary(t, b, DateCodec(st))
			roundTripArrayBinary(t, b, IntervalCodec(-1, st))
		case 18:
			roundTripArrayBinary(t, b, JSONBCodec())
			roundTripArrayBinary(t, b, UUIDCodec())
		case 19:
			// zone abbreviations in other styles need not read back
			// (Asia/Kolkata prints IST, which reads as Israel time), as in
			// PostgreSQL; ISO output always does
			iso := *st
			iso.DateStyle = DateStyleISO
			roundTripArrayBinary(t, b, TimestampTZCodec(-1, &iso))
			roundTripArrayBinary(t, b, ByteaCodec(st))
		}
	})
}

func unhex(c byte) byte {
	v, _ := hexVal(c)
	return v
}

func roundTripBinary[T any](t *testing.T, b []byte, c *ElemCodec[T]) {
	v, err := c.ParseBinary(b)
	if err != nil {
		if _, ok := err.(*Error); !ok {
			t.Fatalf("oid %d: error %v is not an *Error", c.Oid, err)
		}
		return
	}
	text := c.AppendText(nil, v)
	b2 := c.AppendBinary(nil, v)
	v2, err := c.ParseBinary(b2)
	if err != nil {
		t.Fatalf("oid %d: re-decoding %x: %v", c.Oid, b2, err)
	}
	if text2 := c.AppendText(nil, v2); !bytes.Equal(text, text2) {
		t.Fatalf("oid %d: %x gives %q, then %x gives %q", c.Oid, b, text, b2, text2)
	}
}

func roundTripArrayBinary[T any](t *testing.T, b []byte, c *ElemCodec[T]) {
	a, err := ParseArrayBinary(b, c)
	if err != nil {
		return
	}
	text := AppendArray(nil, &a, c)
	b2 := AppendArrayBinary(nil, &a, c)
	a2, err := ParseArrayBinary(b2, c)
	if err != nil {
		t.Fatalf("array of %d: re-decoding: %v", c.Oid, err)
	}
	if text2 := AppendArray(nil, &a2, c); !bytes.Equal(text, text2) {
		t.Fatalf("array of %d: %q then %q", c.Oid, text, text2)
	}
	if a3, err := ParseArray(string(text), c); err != nil || !bytes.Equal(AppendArray(nil, &a3, c), text) {
		t.Fatalf("array of %d: text %q does not read back: %v", c.Oid, text, err)
	}
}
