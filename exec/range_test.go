package exec

import (
	"testing"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

var (
	tInt4Range = T{OID: uint32(types.OidInt4Range), Typmod: -1}
	tNumRange  = T{OID: uint32(types.OidNumRange), Typmod: -1}
	tDateRange = T{OID: uint32(types.OidDateRange), Typmod: -1}
)

func mustRange(t *testing.T, rt T, s string) Datum {
	t.Helper()
	d, err := ParseText(rt, s, nil)
	if err != nil {
		t.Fatalf("%s %q: %v", TypeName(rt.OID), s, err)
	}
	return d
}

func rangeText(rt T, d Datum) string { return string(AppendText(nil, rt, d, nil)) }

func TestRangeTextCanonical(t *testing.T) {
	for _, c := range []struct {
		t       T
		in, out string
	}{
		{tInt4Range, "[1,5)", "[1,5)"},
		{tInt4Range, "(1,5]", "[2,6)"},
		{tInt4Range, "(1,2)", "empty"},
		{tInt4Range, "[3,3]", "[3,4)"},
		{tInt4Range, "[,]", "(,)"},
		{tInt4Range, "  EmPtY ", "empty"},
		{tNumRange, "( 1.5 , 2 ]", "(1.5,2]"},
		{tNumRange, "[1.0,1.0)", "empty"},
		{tNumRange, `["1","2"]`, "[1,2]"},
		{tDateRange, "(2000-01-01,infinity]", "[2000-01-02,infinity]"},
		{tDateRange, "(-infinity,2000-01-01]", "(-infinity,2000-01-02)"},
	} {
		if got := rangeText(c.t, mustRange(t, c.t, c.in)); got != c.out {
			t.Errorf("%s %q = %q, want %q", TypeName(c.t.OID), c.in, got, c.out)
		}
	}
}

func TestRangeTextErrors(t *testing.T) {
	for _, c := range []struct {
		in     string
		code   string
		detail string
	}{
		{"", "22P02", "Missing left parenthesis or bracket."},
		{"[1,5", "22P02", "Unexpected end of input."},
		{"[1)", "22P02", "Missing comma after lower bound."},
		{"[1,2,3]", "22P02", "Too many commas."},
		{"[1,2] x", "22P02", "Junk after right parenthesis or bracket."},
		{"empty x", "22P02", "Junk after \"empty\" key word."},
		{"[5,1]", "22000", ""},
		{"[1,2147483647]", "22003", ""},
	} {
		_, err := ParseText(tInt4Range, c.in, nil)
		if err == nil {
			t.Errorf("%q: no error", c.in)
			continue
		}
		code := string(pgerr.CodeOf(err))
		if se, ok := err.(interface{ SQLState() string }); ok {
			code = se.SQLState()
		}
		if code != c.code {
			t.Errorf("%q: code %s (%v), want %s", c.in, code, err, c.code)
		}
		if te, ok := err.(*types.Error); ok && te.Detail != c.detail {
			t.Errorf("%q: detail %q, want %q", c.in, te.Detail, c.detail)
		}
	}
}

func TestRangeQuoting(t *testing.T) {
	for in, out := range map[string]string{"": `""`, "a b": `"a b"`, `a"b`: `"a""b"`, `a\b`: `"a\\b"`, "a,b": `"a,b"`, "ab": "ab"} {
		if got := string(types.AppendRangeBound(nil, in)); got != out {
			t.Errorf("bound %q = %s, want %s", in, got, out)
		}
		_, lo, _, err := types.ParseRangeText("[" + out + ",)")
		if err != nil || lo != in {
			t.Errorf("bound %s reads back as %q, %v", out, lo, err)
		}
	}
}

func TestRangeOperators(t *testing.T) {
	r := func(s string) *Range { return mustRange(t, tInt4Range, s).Range() }
	n := func(s string) *Range { return mustRange(t, tNumRange, s).Range() }
	for _, c := range []struct {
		name string
		got  bool
		want bool
	}{
		{"contains", RangeContains(r("[1,10)"), r("[2,3)")), true},
		{"contains empty", RangeContains(r("empty"), r("empty")), true},
		{"contains elem upper", RangeContainsElem(r("[1,10)"), DInt(10)), false},
		{"overlaps touching", RangeOverlaps(n("[1,5)"), n("[5,6)")), false},
		{"overlaps", RangeOverlaps(n("[1,5]"), n("[5,6)")), true},
		{"before", RangeBefore(n("[1,5)"), n("[5,6)")), true},
		{"overleft", RangeOverLeft(n("[1,5)"), n("[2,6)")), true},
		{"overright", RangeOverRight(n("[1,5)"), n("[2,6)")), false},
		{"adjacent", RangeAdjacent(n("[1,5)"), n("[5,6)")), true},
		{"adjacent discrete", RangeAdjacent(r("[1,5]"), r("[6,7)")), true},
		{"adjacent gap", RangeAdjacent(n("[1,5]"), n("[5,6)")), false},
		{"order empty first", compareRange(r("empty"), r("(,1)")) < 0, true},
		{"order lower inf first", compareRange(r("(,1)"), r("[0,1)")) < 0, true},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	check := func(name string, d Datum, err error, want string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := rangeText(tInt4Range, d); got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	d, err := RangeUnion(r("[1,5)"), r("[5,10)"), true)
	check("union", d, err, "[1,10)")
	d, err = RangeIntersect(r("[1,5)"), r("[3,10)"))
	check("intersect", d, err, "[3,5)")
	d, err = RangeIntersect(r("[1,2)"), r("[3,10)"))
	check("intersect disjoint", d, err, "empty")
	d, err = RangeMinus(r("[1,10)"), r("[5,20)"))
	check("minus", d, err, "[1,5)")
	d, err = RangeUnion(r("[1,2)"), r("[5,6)"), false)
	check("merge", d, err, "[1,6)")
	if _, err := RangeUnion(r("[1,2)"), r("[5,6)"), true); pgerr.CodeOf(err) != pgerr.DataException {
		t.Errorf("union of disjoint ranges: %v", err)
	}
	if _, err := RangeMinus(r("[1,10)"), r("[3,5)")); pgerr.CodeOf(err) != pgerr.DataException {
		t.Errorf("difference in two pieces: %v", err)
	}
}

func TestRangeStorageRoundTrip(t *testing.T) {
	for _, c := range []struct {
		t T
		s string
	}{{tInt4Range, "[1,5)"}, {tInt4Range, "empty"}, {tNumRange, "(,2.5]"}, {tDateRange, "[2000-01-01,)"}} {
		d := mustRange(t, c.t, c.s)
		back, err := decodeRangeField(appendRangeField(nil, d))
		if err != nil || Compare(d, back) != 0 {
			t.Errorf("%s: stored and read back as %s, %v", c.s, rangeText(c.t, back), err)
		}
		b, err := AppendBinary(nil, c.t, d)
		if err != nil {
			t.Fatal(err)
		}
		mt := T{OID: MultirangeOf(c.t.OID), Typmod: -1}
		m, err := MakeMultirange([]*Range{d.Range()})
		if err != nil {
			t.Fatal(err)
		}
		if mb, err := decodeMultirangeField(appendMultirangeField(nil, mt, m)); err != nil || Compare(m, mb) != 0 {
			t.Errorf("%s: stored multirange read back as %s, %v", c.s, AppendText(nil, mt, mb, nil), err)
		}
		if back, err = DecodeBinary(c.t, b); err != nil || Compare(d, back) != 0 {
			t.Errorf("%s: binary round trip %v", c.s, err)
		}
	}
}

// FuzzParseRange checks that a range literal that parses prints as a
// literal that parses back to the same range, and that the split of a
// literal into bounds survives quoting.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"[1,5)", "empty", "(,10]", `[" a ","b\"c")`, "( 1.5 , 2 ]", `["",""]`, "[a,a]", `(\\,a)`, "{[1,3), empty, (2,5]}", "{}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if flags, lo, hi, err := types.ParseRangeText(s); err == nil && flags&types.RangeEmpty == 0 {
			var b []byte
			b = append(b, '(')
			if flags&types.RangeLBInf == 0 {
				b = types.AppendRangeBound(b, lo)
			}
			b = append(b, ',')
			if flags&types.RangeUBInf == 0 {
				b = types.AppendRangeBound(b, hi)
			}
			b = append(b, ')')
			f2, lo2, hi2, err := types.ParseRangeText(string(b))
			if err != nil || lo2 != lo || hi2 != hi || f2&(types.RangeLBInf|types.RangeUBInf) != flags&(types.RangeLBInf|types.RangeUBInf) {
				t.Fatalf("%q -> %q: %q %q %v", s, b, lo2, hi2, err)
			}
		}
		mt := T{OID: uint32(types.OidNumMultirange), Typmod: -1}
		if d, err := ParseText(mt, s, nil); err == nil {
			out := string(AppendText(nil, mt, d, nil))
			d2, err := ParseText(mt, out, nil)
			if err != nil || Compare(d, d2) != 0 {
				t.Fatalf("nummultirange %q -> %q: %v", s, out, err)
			}
		}
		for _, rt := range []T{tInt4Range, tNumRange} {
			d, err := ParseText(rt, s, nil)
			if err != nil {
				continue
			}
			out := rangeText(rt, d)
			d2, err := ParseText(rt, out, nil)
			if err != nil || Compare(d, d2) != 0 {
				t.Fatalf("%s %q -> %q: %v", TypeName(rt.OID), s, out, err)
			}
		}
	})
}
