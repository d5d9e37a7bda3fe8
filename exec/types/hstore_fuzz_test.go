package types

import (
	"slices"
	"testing"
	"unicode/utf8"
)

// FuzzHstore feeds arbitrary text to hstore's input and arbitrary bytes
// to its binary input (valid UTF-8, as text from a client is): no panic,
// errors of PostgreSQL's codes, and every value read prints as text and
// as binary that read back to it.
func FuzzHstore(f *testing.F) {
	for _, s := range []string{
		`a=>1, b=>NULL`, `"a b"=>"c\"d", x=>y, "\\"=>"\\\\"`, `a=>1,a=>2`, `a\=b=>1`, `a=>"1`, `=>1`, ``, `  `,
		`b=>1, aa=>2, a=>3, c=>NULL, d=>"NULL"`, "é=>ü", "a=>1\x00b=>2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			// Text from clients is valid UTF-8 by now (ValidateUTF8).
			return
		}
		h, err := ParseHstore(s)
		if err != nil {
			if e, ok := err.(*Error); !ok || e.Code != CodeInternalError {
				t.Fatalf("%q: error %v", s, err)
			}
		} else {
			check(t, s, h)
		}
		if h, err := ParseHstoreBinary([]byte(s)); err == nil {
			check(t, s, h)
		} else if _, ok := err.(*Error); !ok {
			t.Fatalf("%q: binary error %v is not a *types.Error", s, err)
		}
	})
}

func check(t *testing.T, in string, h Hstore) {
	t.Helper()
	if !slices.IsSortedFunc(h, func(a, b HstorePair) int { return compareHstoreKeys(a.Key, b.Key) }) {
		t.Fatalf("%q: pairs out of order: %v", in, h)
	}
	text := string(AppendHstore(nil, h))
	back, err := ParseHstore(text)
	if err != nil || CompareHstore(back, h) != 0 || len(back) != len(h) {
		t.Fatalf("%q: text %q reads back as %v, %v", in, text, back, err)
	}
	back, err = ParseHstoreBinary(AppendHstoreBinary(nil, h))
	if err != nil || !slices.Equal(back, h) {
		t.Fatalf("%q: binary reads back as %v, %v", in, back, err)
	}
}
