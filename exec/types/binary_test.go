package types

import (
	"encoding/hex"
	"errors"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// TestBinaryErrors checks that malformed binary input gives PostgreSQL's
// errors (from the recv functions in numeric.c, arrayfuncs.c, jsonb.c,
// date.c, timestamp.c and pqformat.c) rather than panics.
func TestBinaryErrors(t *testing.T) {
	num := func(b []byte) error {
		var d apd.Decimal
		return ParseNumericBinary(&d, b, -1)
	}
	arr := func(b []byte) error {
		_, err := ParseArrayBinary(b, Int4Codec())
		return err
	}
	cases := []struct {
		name string
		f    func([]byte) error
		hex  string
		code string
		msg  string
	}{
		{"int4 short", func(b []byte) error { _, err := ParseInt4Binary(b); return err }, "000001", "08P01", "insufficient data left in message"},
		{"int4 long", func(b []byte) error { _, err := ParseInt4Binary(b); return err }, "0000000100", "22P03", "incorrect binary data format"},
		{"int8 empty", func(b []byte) error { _, err := ParseInt8Binary(b); return err }, "", "08P01", "insufficient data left in message"},
		{"numeric short", num, "000100", "08P01", "insufficient data left in message"},
		{"numeric sign", num, "0000000012340000", "22P03", "invalid sign in external \"numeric\" value"},
		{"numeric scale", num, "000000000000ffff", "22P03", "invalid scale in external \"numeric\" value"},
		{"numeric digit", num, "00010000000000002710", "22P03", "invalid digit in external \"numeric\" value"},
		{"numeric digits missing", num, "0002000000000000", "08P01", "insufficient data left in message"},
		{"array ndim", arr, "ffffffff0000000000000017", "22P03", "invalid number of dimensions: -1"},
		{"array maxdim", arr, "000000070000000000000017", "54000", "number of array dimensions (7) exceeds the maximum allowed (6)"},
		{"array flags", arr, "000000010000000200000017", "22P03", "invalid array flags"},
		{"array elem type", arr, "000000010000000000000014", "42804", "binary data has array element type 20 instead of expected 23"},
		{"array size", arr, "00000002000000000000001740000000000000014000000000000001", "54000", "array size exceeds the maximum allowed (134217727)"},
		{"array bound", arr, "0000000100000000000000170000000a7ffffffa", "54000", "array lower bound is too large: 2147483642"},
		{"array elem len", arr, "000000010000000000000017000000010000000100000008", "22P03", "insufficient data left in message"},
		{"array elem format", arr, "00000001000000000000001700000001000000010000000500000000ff", "22P03", "improper binary format in array element 1"},
		{"jsonb version", func(b []byte) error { _, err := ParseJSONBBinary(b); return err }, "027b7d", "XX000", "unsupported jsonb version number 2"},
		{"jsonb text", func(b []byte) error { _, err := ParseJSONBBinary(b); return err }, "017b", "22P02", "invalid input syntax for type json"},
		{"date range", func(b []byte) error { _, err := ParseDateBinary(b); return err }, "7ffffff0", "22008", "date out of range"},
		{"time range", func(b []byte) error { _, err := ParseTimeBinary(b, -1); return err }, "ffffffffffffffff", "22008", "time out of range"},
		{"timestamp range", func(b []byte) error { _, err := ParseTimestampBinary(b, -1); return err }, "7ffffffffffffff0", "22008", "timestamp out of range"},
		{"uuid short", func(b []byte) error { _, err := ParseUUIDBinary(b); return err }, "00", "08P01", "insufficient data left in message"},
		{"text utf8", func(b []byte) error { _, err := ParseTextBinary(b); return err }, "61ff", "22021", "invalid byte sequence for encoding \"UTF8\": 0xff"},
	}
	for _, c := range cases {
		b, err := hex.DecodeString(c.hex)
		if err != nil {
			t.Fatal(c.name, err)
		}
		err = c.f(b)
		var e *Error
		if !errors.As(err, &e) || e.Code != c.code || e.Message != c.msg {
			t.Errorf("%s: got %v (%+v), want %s %q", c.name, err, e, c.code, c.msg)
		}
	}
}

// TestNumericBinaryTruncation: numeric_recv drops digits that dscale hides.
func TestNumericBinaryTruncation(t *testing.T) {
	// 1.2345 sent with dscale 2: ndigits 2, weight 0, sign +, dscale 2, digits 1, 2345
	b, _ := hex.DecodeString("00020000000000020001" + "0929")
	var d apd.Decimal
	if err := ParseNumericBinary(&d, b, -1); err != nil {
		t.Fatal(err)
	}
	if got := string(AppendNumeric(nil, &d)); got != "1.23" {
		t.Errorf("got %s, want 1.23", got)
	}
	// numeric(3,1) applied on receive
	if err := ParseNumericBinary(&d, b, NumericTypmod(3, 1)); err != nil {
		t.Fatal(err)
	}
	if got := string(AppendNumeric(nil, &d)); got != "1.2" {
		t.Errorf("got %s, want 1.2", got)
	}
}
