package types

// Tests of the geometric types' text and binary forms: PostgreSQL's
// outputs for a few inputs, and a fuzz target for the parsers.

import "testing"

var geoOids = []Oid{OidPoint, OidLSeg, OidPath, OidBox, OidPolygon, OidLine, OidCircle}

func TestGeometryText(t *testing.T) {
	for _, c := range []struct {
		oid     Oid
		in, out string
	}{
		{OidPoint, " ( 1 , 2 ) ", "(1,2)"},
		{OidPoint, "(nan,-inf)", "(NaN,-Infinity)"},
		{OidPoint, "(1e300,-0)", "(1e+300,-0)"},
		{OidLSeg, "1,2,3,4", "[(1,2),(3,4)]"},
		{OidBox, "(1,2),(3,4)", "(3,4),(1,2)"},
		{OidPath, "(1,2,3,4)", "((1,2),(3,4))"},
		{OidPath, "[1,2,3,4]", "[(1,2),(3,4)]"},
		{OidPolygon, "1,2,3,4,5,6", "((1,2),(3,4),(5,6))"},
		{OidLine, "[(1,2),(3,5)]", "{1.5,-1,0.5}"},
		{OidCircle, "1,2,3", "<(1,2),3>"},
	} {
		v, err := ParseGeometry(c.oid, c.in)
		if err != nil {
			t.Errorf("%d %q: %v", c.oid, c.in, err)
			continue
		}
		if got := string(AppendGeometry(nil, c.oid, v, 1)); got != c.out {
			t.Errorf("%d %q: got %q, want %q", c.oid, c.in, got, c.out)
		}
	}
	for _, c := range []struct {
		oid Oid
		in  string
	}{
		{OidPoint, "(1,2"}, {OidPoint, ""}, {OidBox, "(1,2),(3,4), "}, {OidPolygon, "[(1,2),(3,4)]"},
		{OidPath, "1,2,3"}, {OidLine, "{0,0,1}"}, {OidLine, "(1,2),(1,2)"}, {OidCircle, "<(1,2),-3>"},
	} {
		if _, err := ParseGeometry(c.oid, c.in); err == nil {
			t.Errorf("%d %q: no error", c.oid, c.in)
		}
	}
}

// FuzzGeometry parses arbitrary text as each geometric type: whatever
// parses must print, parse back to the same canonical bytes, and read back
// from its binary form unchanged. Nothing may panic.
func FuzzGeometry(f *testing.F) {
	for _, s := range []string{"(1,2)", "1,2,3,4", "[(1,2),(3,4)]", "((1,2),(3,4),(5,6))", "{1,2,3}",
		"<(1,2),3>", "(nan,inf)", "  ( 1e300 , -0 ) ", "(1,2,3,4)", "(0x1p3,2)"} {
		for i := range geoOids {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, sel uint8, s string) {
		oid := geoOids[int(sel)%len(geoOids)]
		v, err := ParseGeometry(oid, s)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("%d %q: error %T %v", oid, s, err, err)
			}
			return
		}
		text := AppendGeometry(nil, oid, v, 1)
		v2, err := ParseGeometry(oid, string(text))
		if err != nil {
			t.Fatalf("%d %q: output %q does not parse: %v", oid, s, text, err)
		}
		if v2 != v {
			t.Fatalf("%d %q: output %q reads back as another value", oid, s, text)
		}
		v3, err := ParseGeometryBinary(oid, []byte(v))
		if err != nil || v3 != v {
			t.Fatalf("%d %q: binary round trip: %v", oid, s, err)
		}
	})
}
