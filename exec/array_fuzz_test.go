package exec

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/prolly/tuple"
)

// fuzzArrayTypes are the array types the fuzz targets exercise, chosen by
// the input's first byte.
var fuzzArrayTypes = []T{
	{uint32(types.OidInt4Array), -1}, {uint32(types.OidInt8Array), -1}, {OIDTextArray, -1},
	{uint32(types.OidFloat8Array), -1}, {uint32(types.OidBoolArray), -1}, {uint32(types.OidNumericArray), -1},
	{uint32(types.OidByteaArray), -1}, {uint32(types.OidTimestampTZArray), -1}, {uint32(types.OidUUIDArray), -1},
	{uint32(types.OidJSONBArray), -1}, {uint32(types.OidIntervalArray), -1}, {uint32(types.OidVarcharArray), 3 + types.VarHdrSz},
}

func fuzzType(sel byte) T { return fuzzArrayTypes[int(sel)%len(fuzzArrayTypes)] }

// isPGError reports whether err carries a SQLSTATE, as every input error
// must.
func isPGError(err error) bool {
	var te *types.Error
	var pe *pgerr.Error
	return errors.As(err, &te) || errors.As(err, &pe)
}

// checkArrayRoundTrip checks that an array value prints, reads back, and
// survives the binary format and the stored row encoding unchanged.
func checkArrayRoundTrip(t *testing.T, typ T, d Datum) {
	text := AppendText(nil, typ, d, nil)
	d2, err := ParseText(typ, string(text), nil)
	if err != nil {
		t.Fatalf("%s: output %q does not read back: %v", TypeName(typ.OID), text, err)
	}
	if text2 := AppendText(nil, typ, d2, nil); !bytes.Equal(text, text2) {
		t.Fatalf("%s: %q reads back as %q", TypeName(typ.OID), text, text2)
	}
	bin, err := AppendBinary(nil, typ, d)
	if err != nil {
		t.Fatalf("%s: binary output of %q: %v", TypeName(typ.OID), text, err)
	}
	d3, err := DecodeBinary(typ, bin)
	if err != nil {
		t.Fatalf("%s: binary of %q does not read back: %v", TypeName(typ.OID), text, err)
	}
	if text3 := AppendText(nil, typ, d3, nil); !bytes.Equal(text, text3) {
		t.Fatalf("%s: binary round trip of %q gives %q", TypeName(typ.OID), text, text3)
	}
	var b tuple.Builder
	appendField(&b, typ, d)
	field, _ := b.Build().Field(0)
	d4, err := decodeField(typ, field)
	if err != nil {
		t.Fatalf("%s: stored %q does not decode: %v", TypeName(typ.OID), text, err)
	}
	if text4 := AppendText(nil, typ, d4, nil); !bytes.Equal(text, text4) || Compare(d, d4) != 0 {
		t.Fatalf("%s: stored %q decodes as %q", TypeName(typ.OID), text, text4)
	}
}

// FuzzArrayText feeds arbitrary text to array_in for several element
// types: it must fail with a SQLSTATE or give a value that round-trips.
func FuzzArrayText(f *testing.F) {
	for _, s := range []string{
		"{1,2,3}", "{{1,2},{3,4}}", "[0:1]={1,2}", "{}", `{a,NULL,"",""," x",\"}`, "{{{1}}}",
		`{"2020-01-01 10:00+02",infinity}`, `{"\\x00ff",NULL}`, `{"{\"a\": [1]}",null}`, "{1.5,NaN,-0}",
		"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", `{"1 day",-2h}`, "[1:2][3:4]={{1,2},{3,4}}", "{1,2", "{{1},{2,3}}",
		"{ 1 , 2 }", `{"ab\"c"}`, "{abc,abcd}",
	} {
		for sel := range fuzzArrayTypes {
			f.Add(byte(sel), s)
		}
	}
	f.Fuzz(func(t *testing.T, sel byte, s string) {
		if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
			return // the protocol delivers only UTF-8 text without NULs
		}
		typ := fuzzType(sel)
		d, err := ParseText(typ, s, nil)
		if err != nil {
			if !isPGError(err) {
				t.Fatalf("%s: %q: error without SQLSTATE: %v", TypeName(typ.OID), s, err)
			}
			return
		}
		checkArrayRoundTrip(t, typ, d)
	})
}

// FuzzArrayBinary feeds arbitrary bytes to array_recv.
func FuzzArrayBinary(f *testing.F) {
	for sel, typ := range fuzzArrayTypes {
		for _, s := range []string{"{1,2,3}", "{{1,NULL},{3,4}}", "[-2:-1]={1,2}", "{}"} {
			if d, err := ParseText(typ, s, nil); err == nil {
				if b, err := AppendBinary(nil, typ, d); err == nil {
					f.Add(byte(sel), b)
				}
			}
		}
		f.Add(byte(sel), []byte{0, 0, 0, 1, 0, 0, 0, 0})
	}
	f.Fuzz(func(t *testing.T, sel byte, b []byte) {
		typ := fuzzType(sel)
		d, err := DecodeBinary(typ, b)
		if err != nil {
			if !isPGError(err) {
				t.Fatalf("%s: %x: error without SQLSTATE: %v", TypeName(typ.OID), b, err)
			}
			return
		}
		checkArrayRoundTrip(t, typ, d)
	})
}
