package types

import (
	"bytes"
	"testing"
)

var tsVectorSeeds = []string{
	`'a b' c:3,1A  a:2B 'it''s' x\\y`, `a:1,2,3 b:4D c:16384`, `'' a`, `a:0`, `a:1A2`, `\`, `'abc`,
	`a:1,1A,1B b:1*`, `ab:1,2 ab:3 ab`, "a\tb\nc",
}

var tsQuerySeeds = []string{
	`a & (b | !c) <-> d:*AB`, `1 <3> (2 <-> a)`, ``, `!!a`, `a <16385> b`, `a <0> b`, `(a`, `a)`, `a <->`,
	`'it''s':* | x\:y`, `!(a & !b) & c`, `a:`, `:a`, `a & | b`,
}

// FuzzTSVector parses arbitrary text as a tsvector: nothing may panic, and
// what parses must print, parse back to the same value and print the same
// text; the binary form must round-trip too.
func FuzzTSVector(f *testing.F) {
	for _, s := range tsVectorSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseTSVector(s)
		if err != nil {
			return
		}
		text := AppendTSVector(nil, v)
		w, err := ParseTSVector(string(text))
		if err != nil {
			t.Fatalf("%q printed %q, which does not parse: %v", s, text, err)
		}
		if CompareTSVector(v, w) != 0 || !bytes.Equal(AppendTSVector(nil, w), text) {
			t.Fatalf("%q printed %q, which reads back as %q", s, text, AppendTSVector(nil, w))
		}
		bin := AppendTSVectorBinary(nil, v)
		b, err := ParseTSVectorBinary(bin)
		if err != nil || CompareTSVector(v, b) != 0 {
			t.Fatalf("%q: binary form does not read back: %v", s, err)
		}
	})
}

// FuzzTSQuery is FuzzTSVector for tsquery.
func FuzzTSQuery(f *testing.F) {
	for _, s := range tsQuerySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, _, err := ParseTSQuery(s)
		if err != nil {
			return
		}
		text := AppendTSQuery(nil, q)
		r, _, err := ParseTSQuery(string(text))
		if err != nil {
			t.Fatalf("%q printed %q, which does not parse: %v", s, text, err)
		}
		if CompareTSQuery(q, r) != 0 || !bytes.Equal(AppendTSQuery(nil, r), text) {
			t.Fatalf("%q printed %q, which reads back as %q", s, text, AppendTSQuery(nil, r))
		}
		b, err := ParseTSQueryBinary(AppendTSQueryBinary(nil, q))
		if err != nil || CompareTSQuery(q, b) != 0 {
			t.Fatalf("%q: binary form does not read back: %v", s, err)
		}
	})
}

// TestTSVectorText checks text I/O against PostgreSQL 15's answers.
func TestTSVectorText(t *testing.T) {
	for _, c := range []struct{ in, out, err string }{
		{`'a b' c:3,1A  a:2B 'it''s' x\\y`, `'a':2B 'a b' 'c':1A,3 'it''s' 'x\\y'`, ""},
		{`a:1,1A,1B b:20000`, `'a':1A 'b':16383`, ""},
		{`ab:1,2 ab:3 ab`, `'ab':1,2,3`, ""},
		{`a:0`, "", `wrong position info in tsvector: "a:0"`},
		{`'abc`, "", `syntax error in tsvector: "'abc"`},
		{`a\`, "", `there is no escaped character: "a\"`},
	} {
		v, err := ParseTSVector(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: error %v, want %s", c.in, err, c.err)
			}
			continue
		}
		if err != nil || string(AppendTSVector(nil, v)) != c.out {
			t.Errorf("%q: %s (%v), want %s", c.in, AppendTSVector(nil, v), err, c.out)
		}
	}
}

// TestTSQueryText checks text I/O against PostgreSQL 15's answers.
func TestTSQueryText(t *testing.T) {
	for _, c := range []struct{ in, out, err string }{
		{`a & (b | !c) <-> d:*AB`, `'a' & ( 'b' | !'c' ) <-> 'd':*AB`, ""},
		{`1 <3> (2 <-> a)`, `'1' <3> ( '2' <-> 'a' )`, ""},
		{`!!a`, `!!'a'`, ""},
		{`a <0> b`, `'a' <0> 'b'`, ""},
		{`a <16385> b`, "", `distance in phrase operator must be an integer value between zero and 16384 inclusive`},
		{`(a`, "", `syntax error in tsquery: "(a"`},
		{`a &`, "", `no operand in tsquery: "a &"`},
	} {
		q, _, err := ParseTSQuery(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: error %v, want %s", c.in, err, c.err)
			}
			continue
		}
		if err != nil || string(AppendTSQuery(nil, q)) != c.out {
			t.Errorf("%q: %s (%v), want %s", c.in, AppendTSQuery(nil, q), err, c.out)
		}
	}
}

// TestTSQueryKeyOrder checks that key bytes order as CompareTSQuery.
func TestTSQueryKeyOrder(t *testing.T) {
	texts := append([]string{`new <-> york`, `moscow`, `sanct <-> peter`, `foo & bar & qq`, `1 & 2 <-> 3`,
		`5 <-> 6`, `a:A`, `a:B`, `!a`, `a | b`, `a <2> b`, `b <-> a`, `ab`, `abc`}, tsQuerySeeds...)
	var qs []TSQuery
	for _, s := range texts {
		if q, _, err := ParseTSQuery(s); err == nil {
			qs = append(qs, q)
		}
	}
	for _, a := range qs {
		for _, b := range qs {
			want := CompareTSQuery(a, b)
			got := bytes.Compare(AppendTSQueryKey(nil, a), AppendTSQueryKey(nil, b))
			if got != want {
				t.Errorf("%s vs %s: keys compare %d, values %d", AppendTSQuery(nil, a), AppendTSQuery(nil, b), got, want)
			}
		}
	}
}
