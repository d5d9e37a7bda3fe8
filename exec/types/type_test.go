package types

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestFormatType checks format_type(oid, typmod) against PostgreSQL 15:
//
//	CREATE TABLE tt(a interval year, ..., dd char);
//	SELECT attname, atttypmod, format_type(atttypid, atttypmod) FROM pg_attribute ...;
//	SELECT format_type(oid, -1) FROM pg_type WHERE oid IN (...);
func TestFormatType(t *testing.T) {
	cases := []struct {
		oid    Oid
		typmod int32
		want   string
	}{
		{OidInterval, 327679, "interval year"},
		{OidInterval, 196607, "interval month"},
		{OidInterval, 589823, "interval day"},
		{OidInterval, 67174399, "interval hour"},
		{OidInterval, 134283263, "interval minute"},
		{OidInterval, 268500991, "interval second"},
		{OidInterval, 458751, "interval year to month"},
		{OidInterval, 67698687, "interval day to hour"},
		{OidInterval, 201916415, "interval day to minute"},
		{OidInterval, 470351871, "interval day to second"},
		{OidInterval, 201392127, "interval hour to minute"},
		{OidInterval, 469827583, "interval hour to second"},
		{OidInterval, 402718719, "interval minute to second"},
		{OidInterval, 2147418115, "interval(3)"},
		{OidInterval, 268435458, "interval second(2)"},
		{OidInterval, 470286336, "interval day to second(0)"},
		{OidInterval, -1, "interval"},
		{OidTimestamp, 3, "timestamp(3) without time zone"},
		{OidTimestampTZ, 0, "timestamp(0) with time zone"},
		{OidTime, 2, "time(2) without time zone"},
		{OidTimeTZ, 4, "time(4) with time zone"},
		{OidNumeric, 655366, "numeric(10,2)"},
		{OidNumeric, 327684, "numeric(5,0)"},
		{OidNumeric, 198658, "numeric(3,-2)"},
		{OidNumeric, 131081, "numeric(2,5)"},
		{OidVarchar, 14, "character varying(10)"},
		{OidBpchar, 7, "character(3)"},
		{OidBpchar, -1, "bpchar"},
		{OidBpchar, 5, "character(1)"},
		{OidVarcharArray, 9, "character varying(5)[]"},
		{OidCharArray, -1, `"char"[]`},
		{OidBool, -1, "boolean"},
		{OidBytea, -1, "bytea"},
		{OidChar, -1, `"char"`},
		{OidName, -1, "name"},
		{OidInt8, -1, "bigint"},
		{OidInt2, -1, "smallint"},
		{OidInt4, -1, "integer"},
		{OidRegproc, -1, "regproc"},
		{OidText, -1, "text"},
		{OidOid, -1, "oid"},
		{OidJSON, -1, "json"},
		{OidFloat4, -1, "real"},
		{OidFloat8, -1, "double precision"},
		{OidUnknown, -1, "unknown"},
		{OidVarchar, -1, "character varying"},
		{OidDate, -1, "date"},
		{OidTime, -1, "time without time zone"},
		{OidTimestamp, -1, "timestamp without time zone"},
		{OidTimestampTZ, -1, "timestamp with time zone"},
		{OidTimeTZ, -1, "time with time zone"},
		{OidNumeric, -1, "numeric"},
		{OidRegclass, -1, "regclass"},
		{OidRegtype, -1, "regtype"},
		{OidUUID, -1, "uuid"},
		{OidJSONB, -1, "jsonb"},
		{OidRecord, -1, "record"},
		{OidRecordArray, -1, "record[]"},
		{OidVoid, -1, "void"},
		{OidBoolArray, -1, "boolean[]"},
		{OidBpcharArray, -1, "bpchar[]"},
		{OidVarcharArray, -1, "character varying[]"},
		{OidTimestampTZArray, -1, "timestamp with time zone[]"},
		{OidInt4Array, -1, "integer[]"},
		{99999, -1, "???"},
	}
	for _, c := range cases {
		if got := FormatType(c.oid, c.typmod); got != c.want {
			t.Errorf("FormatType(%d, %d) = %q, want %q", c.oid, c.typmod, got, c.want)
		}
	}
}

// TestTypeTable checks the pg_type facts for internal consistency and a few
// rows against `SELECT ... FROM pg_type` on PostgreSQL 15.
func TestTypeTable(t *testing.T) {
	seen := map[Oid]bool{}
	for _, ty := range Types {
		if seen[ty.Oid] {
			t.Fatalf("duplicate oid %d", ty.Oid)
		}
		seen[ty.Oid] = true
	}
	for _, ty := range Types {
		if ty.Array != 0 {
			a := Lookup(ty.Array)
			if a == nil || a.Elem != ty.Oid || !a.IsArray || a.Name != "_"+ty.Name {
				t.Errorf("%s: array type %d does not point back", ty.Name, ty.Array)
			}
			if ArrayOf(ty.Oid) != ty.Array || ElemOf(ty.Array) != ty.Oid {
				t.Errorf("%s: ArrayOf/ElemOf disagree", ty.Name)
			}
		}
		if ty.Delim != ',' && ty.Name != "box" && ty.Name != "_box" {
			t.Errorf("%s: delim %q", ty.Name, ty.Delim)
		}
	}
	// 20|int8|8|t|N|,|0|1016|int8in|int8out|int8recv|int8send|d|p|b|f
	i8 := Lookup(OidInt8)
	if i8.Name != "int8" || i8.Len != 8 || !i8.ByVal || i8.Category != 'N' || i8.Array != 1016 ||
		i8.Input != "int8in" || i8.Output != "int8out" || i8.Receive != "int8recv" || i8.Send != "int8send" || i8.Align != 'd' {
		t.Errorf("int8 row: %+v", *i8)
	}
	// 1186|interval|16|f|T|,|0|1187|interval_in|interval_out|...|d|p|b|t
	iv := Lookup(OidInterval)
	if iv.Len != 16 || iv.ByVal || iv.Category != 'T' || !iv.Preferred || iv.TypmodIn != "intervaltypmodin" {
		t.Errorf("interval row: %+v", *iv)
	}
	// 19|name|64|f|S|,|18|1003
	if n := Lookup(OidName); n.Len != 64 || n.Elem != OidChar || n.Category != 'S' {
		t.Errorf("name row: %+v", *n)
	}
	if a := Lookup(OidNumericArray); a.TypmodIn != "numerictypmodin" || a.Elem != OidNumeric {
		t.Errorf("_numeric row: %+v", *a)
	}
}

func TestTypmods(t *testing.T) {
	if CharTypmod(10) != 14 || CharTypmodLen(14) != 10 || CharTypmodLen(-1) != -1 {
		t.Error("char typmod")
	}
	for _, ps := range [][2]int32{{10, 2}, {5, 0}, {3, -2}, {2, 5}, {1000, 1000}, {1000, -1000}} {
		tm := NumericTypmod(ps[0], ps[1])
		p, s, ok := NumericTypmodPrecision(tm)
		if !ok || p != ps[0] || s != ps[1] {
			t.Errorf("numeric(%d,%d): typmod %d gives %d,%d", ps[0], ps[1], tm, p, s)
		}
	}
	if NumericTypmod(10, 2) != 655366 || NumericTypmod(3, -2) != 198658 {
		t.Error("numeric typmod values differ from PostgreSQL's")
	}
	if IntervalTypmod(IntervalDay|IntervalHour|IntervalMinute|IntervalSecond, 0) != 470286336 ||
		IntervalTypmod(IntervalFullRange, 3) != 2147418115 {
		t.Error("interval typmod values differ from PostgreSQL's")
	}
}

// TestRelativeDates checks 'now', 'today', 'tomorrow', 'yesterday' and
// 'epoch' against a fixed clock.
func TestRelativeDates(t *testing.T) {
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2022, 3, 4, 5, 6, 7, 890000000, time.UTC) // 2022-03-03 21:06:07.89 in LA
	st := &Settings{TimeZone: la, Now: func() time.Time { return now }, ExtraFloatDigits: 1}
	cases := []struct{ typ, in, want string }{
		{"date", "today", "2022-03-03"},
		{"date", "tomorrow", "2022-03-04"},
		{"date", "yesterday", "2022-03-02"},
		{"date", "now", "2022-03-03"},
		{"date", "epoch", "1970-01-01"},
		{"timestamp", "now", "2022-03-03 21:06:07.89"},
		{"timestamp", "today", "2022-03-03 00:00:00"},
		{"timestamp", "tomorrow 10:00", "2022-03-04 10:00:00"},
		{"timestamp", "yesterday allballs", "2022-03-02 00:00:00"},
		{"timestamp", "epoch", "1970-01-01 00:00:00"},
		{"timestamptz", "now", "2022-03-03 21:06:07.89-08"},
		{"timestamptz", "today", "2022-03-03 00:00:00-08"},
		{"timestamptz", "epoch", "1969-12-31 16:00:00-08"},
		{"timestamptz", "today UTC", "2022-03-02 16:00:00-08"},
		{"time", "now", "21:06:07.89"},
		{"time", "allballs", "00:00:00"},
	}
	for _, c := range cases {
		got, err := evalText(c.typ, c.in, st, -1)
		if err != nil || got != c.want {
			t.Errorf("%s %q: got %q, %v; want %q", c.typ, c.in, got, err, c.want)
		}
	}
}

// TestCharTypmodInput checks the assignment (non-explicit) length rules of
// varchar(n) and char(n), as in pg-regress varchar.sql and char.sql:
// INSERT INTO VARCHAR_TBL (f1) VALUES ('abcde') fails for varchar(4).
func TestCharTypmodInput(t *testing.T) {
	cases := []struct {
		oid      Oid
		n        int32
		in, want string
		explicit bool
		err      string
	}{
		{OidVarchar, 4, "abcde", "", false, "value too long for type character varying(4)"},
		{OidVarchar, 4, "abcd    ", "abcd", false, ""},
		{OidVarchar, 4, "ab", "ab", false, ""},
		{OidVarchar, 4, "abcde", "abcd", true, ""},
		{OidVarchar, 2, "åäö", "åä", true, ""},
		{OidVarchar, 2, "åä ", "åä", false, ""},
		{OidBpchar, 4, "abcde", "", false, "value too long for type character(4)"},
		{OidBpchar, 4, "a", "a   ", false, ""},
		{OidBpchar, 4, "abcd  ", "abcd", false, ""},
		{OidBpchar, 3, "é", "é  ", false, ""},
		{OidBpchar, 1, "ab", "a", true, ""},
	}
	for _, c := range cases {
		var got string
		var err error
		if c.oid == OidVarchar {
			got, err = ApplyVarcharTypmod(c.in, CharTypmod(c.n), c.explicit)
		} else {
			got, err = ApplyBpcharTypmod(c.in, CharTypmod(c.n), c.explicit)
		}
		if c.err != "" {
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeStringDataRightTrunc || e.Message != c.err {
				t.Errorf("%q into %d: got %q, %v; want %q", c.in, c.n, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q into %d: got %q, %v; want %q", c.in, c.n, got, err, c.want)
		}
	}
}

func TestByteaEscapeAndErrors(t *testing.T) {
	// SET bytea_output = escape; SELECT E'\\x00410a5c7f80ff'::bytea;
	b, _ := ParseBytea(nil, `\x00410a5c7f80ff`)
	if got := string(AppendByteaEscape(nil, b)); got != `\000A\012\\\177\200\377` {
		t.Errorf("escape output %q", got)
	}
	for in, msg := range map[string]string{
		`\x1`:    "invalid hexadecimal data: odd number of digits",
		`\x1 2`:  `invalid hexadecimal digit: " "`,
		`\xé0`:   `invalid hexadecimal digit: "é"`,
		`a\b`:    "invalid input syntax for type bytea",
		`\400`:   "invalid input syntax for type bytea",
		`trail\`: "invalid input syntax for type bytea",
	} {
		_, err := ParseBytea(nil, in)
		if err == nil || err.Error() != msg {
			t.Errorf("%q: got %v, want %q", in, err, msg)
		}
	}
}

func TestValidateUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"ok é":         "",
		"a\x00b":       `invalid byte sequence for encoding "UTF8": 0x00`,
		"\xc3\x28":     `invalid byte sequence for encoding "UTF8": 0xc3 0x28`,
		"\xe2\x82":     `invalid byte sequence for encoding "UTF8": 0xe2 0x82`,
		"x\xff":        `invalid byte sequence for encoding "UTF8": 0xff`,
		"\xed\xa0\x80": `invalid byte sequence for encoding "UTF8": 0xed 0xa0 0x80`,
	} {
		err := ValidateUTF8([]byte(in))
		if (err == nil) != (want == "") || (err != nil && err.Error() != want) {
			t.Errorf("%q: got %v, want %q", in, err, want)
		}
	}
	if _, err := ParseNameBinary([]byte(strings.Repeat("a", 64))); err == nil || err.Error() != "identifier too long" {
		t.Errorf("name of 64 bytes: %v", err)
	}
}

func TestTimeConversions(t *testing.T) {
	tm := time.Date(1999, 1, 8, 4, 5, 6, 789000000, time.FixedZone("", -8*3600))
	ts := TimestampTZFromTime(tm)
	if got := string(AppendTimestampTZ(nil, ts, nil)); got != "1999-01-08 12:05:06.789+00" {
		t.Errorf("TimestampTZFromTime: %s", got)
	}
	if !ts.Time().Equal(tm) {
		t.Errorf("Time() = %v, want %v", ts.Time(), tm)
	}
	old := time.Date(-100, 3, 1, 0, 0, 0, 1000, time.UTC) // 101 BC, before 1970: floor division
	if !TimestampTZFromTime(old).Time().Equal(old) {
		t.Error("round trip before 1970")
	}
	if d, ok := DateFromYMD(2000, 2, 29); !ok || d != 59 {
		t.Errorf("DateFromYMD = %d, %v", d, ok)
	}
	if y, m, d := Date(-1).YMD(); y != 1999 || m != 12 || d != 31 {
		t.Errorf("YMD = %d-%d-%d", y, m, d)
	}
	var err error = &Error{Code: "22P02", Message: "x"}
	if s, ok := err.(interface{ SQLState() string }); !ok || s.SQLState() != "22P02" {
		t.Error("SQLState")
	}
}

// TestByteaEscapeArray: SET bytea_output = escape;
// SELECT '{"\\x0001ff",NULL,"abc\\\\"}'::bytea[] gives {"\\000\\001\\377",NULL,"abc\\\\"}.
func TestByteaEscapeArray(t *testing.T) {
	c := ByteaCodec(&Settings{ByteaEscape: true})
	a, err := ParseArray(`{"\\x0001ff",NULL,"abc\\\\"}`, c)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(AppendArray(nil, &a, c)); got != `{"\\000\\001\\377",NULL,"abc\\\\"}` {
		t.Errorf("got %s", got)
	}
}
