package types

import (
	"errors"
	"strings"
	"testing"
)

// TestJSONErrorContext checks multi-line and long inputs, whose CONTEXT
// lines PostgreSQL 15 gives as (psql, SELECT E'...'::jsonb):
func TestJSONErrorContext(t *testing.T) {
	cases := []struct{ in, detail, where string }{
		{"{\n\"a\": 1,\n  \"b\": x}", `Token "x" is invalid.`, `JSON data, line 3:   "b": x...`},
		{"[1,\n2,\n3 4]", `Expected "," or "]", but found "4".`, `JSON data, line 3: 3 4...`},
		{`{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa":` + "\n tru}", `Token "tru" is invalid.`, `JSON data, line 2:  tru...`},
		{"\"abc\ndef\"", `Character with value 0x0a must be escaped.`, `JSON data, line 1: "abc`},
		{`["` + strings.Repeat("é", 28) + `", x]`, `Token "x" is invalid.`, `JSON data, line 1: ...` + strings.Repeat("é", 22) + `", x...`},
	}
	for _, c := range cases {
		_, err := ParseJSONB(c.in)
		var e *Error
		if !errors.As(err, &e) || e.Detail != c.detail || e.Where != c.where {
			t.Errorf("%q: got %+v, want detail %q where %q", c.in, e, c.detail, c.where)
		}
	}
}

// TestJSONBNormalise checks jsonb_out's normalisation (pg-regress
// jsonb.sql): key order by length then bytes, the last duplicate wins,
// numbers as numeric, strings re-escaped.
func TestJSONBNormalise(t *testing.T) {
	cases := map[string]string{
		`{"b":1,"a":2,"aa":3,"":4}`:                    `{"": 4, "a": 2, "b": 1, "aa": 3}`,
		`{"a":1,"a":2}`:                                `{"a": 2}`,
		`[1.0, 1e2, 1E-2, -0, 0.10]`:                   `[1.0, 100, 0.01, 0, 0.10]`,
		`"\u00e9\t\u0001\/"`:                           `"é\t\u0001/"`,
		` { "x" : [ ] , "y" : { } } `:                  `{"x": [], "y": {}}`,
		`[{"b": [true, false, null]}, "\ud83d\ude00"]`: `[{"b": [true, false, null]}, "😀"]`,
	}
	for in, want := range cases {
		v, err := ParseJSONB(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got := string(AppendJSONB(nil, &v)); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}

func TestJSONBAccess(t *testing.T) {
	v, err := ParseJSONB(`{"bb": [10, 20, 30], "a": {"c": null}, "ccc": "x"}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "bb", "ccc"} {
		if _, ok := v.Field(k); !ok {
			t.Errorf("Field(%q) not found", k)
		}
	}
	if _, ok := v.Field("b"); ok {
		t.Error("Field(b) found")
	}
	bb, _ := v.Field("bb")
	if e, ok := bb.Index(-1); !ok || string(AppendJSONB(nil, e)) != "30" {
		t.Errorf("Index(-1) = %v", e)
	}
	if _, ok := bb.Index(3); ok {
		t.Error("Index(3) found")
	}
}
