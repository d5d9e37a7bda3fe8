package types

import (
	"bytes"
	"encoding/hex"
	"testing"
	"time"
)

// pgBinaryCase is the binary send output of one literal on PostgreSQL 15
// (TimeZone UTC, DateStyle ISO), from testdata/gen_pgbinary.py.
type pgBinaryCase struct {
	typ  string
	in   string // text literal
	hex  string // encode(<typsend>('<in>'::typ), 'hex')
	text string // the value's text output
}

// checkBinary parses c.in as text, checks that the binary form matches
// PostgreSQL's, then decodes PostgreSQL's bytes and checks the text form.
func checkBinary[T any](t *testing.T, c pgBinaryCase, ec *ElemCodec[T]) {
	t.Helper()
	want, err := hex.DecodeString(c.hex)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ec.ParseText(c.in)
	if err != nil {
		t.Errorf("%s %q: %v", c.typ, c.in, err)
		return
	}
	if got := ec.AppendBinary(nil, v); !bytes.Equal(got, want) {
		t.Errorf("%s %q: send gives %x, want %s", c.typ, c.in, got, c.hex)
	}
	v2, err := ec.ParseBinary(want)
	if err != nil {
		t.Errorf("%s %q: recv: %v", c.typ, c.in, err)
		return
	}
	if got := string(ec.AppendText(nil, v2)); got != c.text {
		t.Errorf("%s %q: recv then out gives %q, want %q", c.typ, c.in, got, c.text)
	}
}

func checkArrayBinary[T any](t *testing.T, c pgBinaryCase, ec *ElemCodec[T]) {
	t.Helper()
	want, _ := hex.DecodeString(c.hex)
	a, err := ParseArray(c.in, ec)
	if err != nil {
		t.Errorf("%s %q: %v", c.typ, c.in, err)
		return
	}
	if got := AppendArrayBinary(nil, &a, ec); !bytes.Equal(got, want) {
		t.Errorf("%s %q: send gives %x, want %s", c.typ, c.in, got, c.hex)
	}
	a2, err := ParseArrayBinary(want, ec)
	if err != nil {
		t.Errorf("%s %q: recv: %v", c.typ, c.in, err)
		return
	}
	if got := string(AppendArray(nil, &a2, ec)); got != c.text {
		t.Errorf("%s %q: recv then out gives %q, want %q", c.typ, c.in, got, c.text)
	}
}

func TestPostgresBinary(t *testing.T) {
	st := &Settings{ExtraFloatDigits: 1, TimeZone: time.UTC}
	for _, c := range pgBinaryCases {
		switch c.typ {
		case "bool":
			checkBinary(t, c, BoolCodec())
		case "int2":
			checkBinary(t, c, Int2Codec())
		case "int4":
			checkBinary(t, c, Int4Codec())
		case "int8":
			checkBinary(t, c, Int8Codec())
		case "oid":
			checkBinary(t, c, OidCodec())
		case "float4":
			checkBinary(t, c, Float4Codec(st))
		case "float8":
			checkBinary(t, c, Float8Codec(st))
		case "numeric":
			checkBinary(t, c, NumericCodec(-1))
		case "text":
			checkBinary(t, c, TextCodec(OidText, -1))
		case "varchar":
			checkBinary(t, c, TextCodec(OidVarchar, -1))
		case "bpchar":
			checkBinary(t, c, TextCodec(OidBpchar, -1))
		case "name":
			checkBinary(t, c, TextCodec(OidName, -1))
		case "char":
			checkBinary(t, c, CharCodec())
		case "bytea":
			checkBinary(t, c, ByteaCodec(st))
		case "uuid":
			checkBinary(t, c, UUIDCodec())
		case "date":
			checkBinary(t, c, DateCodec(st))
		case "time":
			checkBinary(t, c, TimeCodec(-1, st))
		case "timestamp":
			checkBinary(t, c, TimestampCodec(-1, st))
		case "timestamptz":
			checkBinary(t, c, TimestampTZCodec(-1, st))
		case "interval":
			checkBinary(t, c, IntervalCodec(-1, st))
		case "json":
			checkBinary(t, c, JSONCodec())
		case "jsonb":
			checkBinary(t, c, JSONBCodec())
		case "int4[]":
			checkArrayBinary(t, c, Int4Codec())
		case "int2[]":
			checkArrayBinary(t, c, Int2Codec())
		case "int8[]":
			checkArrayBinary(t, c, Int8Codec())
		case "text[]":
			checkArrayBinary(t, c, TextCodec(OidText, -1))
		case "numeric[]":
			checkArrayBinary(t, c, NumericCodec(-1))
		case "bool[]":
			checkArrayBinary(t, c, BoolCodec())
		case "float8[]":
			checkArrayBinary(t, c, Float8Codec(st))
		case "date[]":
			checkArrayBinary(t, c, DateCodec(st))
		case "interval[]":
			checkArrayBinary(t, c, IntervalCodec(-1, st))
		case "uuid[]":
			checkArrayBinary(t, c, UUIDCodec())
		case "jsonb[]":
			checkArrayBinary(t, c, JSONBCodec())
		case "bytea[]":
			checkArrayBinary(t, c, ByteaCodec(st))
		case "timestamptz[]":
			checkArrayBinary(t, c, TimestampTZCodec(-1, st))
		default:
			t.Fatalf("no codec for %s", c.typ)
		}
	}
}
