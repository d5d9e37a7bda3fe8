package funcs

import "testing"

// TestLikeMatch checks MatchText's rules: % and _ over characters, the
// backslash escape, and the error for a pattern ending in an escape.
func TestLikeMatch(t *testing.T) {
	cases := []struct {
		s, p string
		want bool
		err  bool
	}{
		{"abc", "a%", true, false},
		{"abc", "%c", true, false},
		{"abc", "_b_", true, false},
		{"ábc", "_bc", true, false}, // _ is one character, not one byte
		{"ab", "a_c", false, false},
		{"a%c", `a\%c`, true, false},
		{"abc", `a\%c`, false, false},
		{"", "%", true, false},
		{"", "_", false, false},
		{"abc", "%%%", true, false},
		{"ab", `a\`, false, true},
		{"abc", `abc\`, false, false}, // the escape is never reached
		{"aXbXc", "%X%X%", true, false},
	}
	for _, c := range cases {
		got, err := likeMatch(c.s, c.p)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("%q LIKE %q = %v, %v; want %v, error %v", c.s, c.p, got, err, c.want, c.err)
		}
	}
}

// TestLikeEscape checks like_escape's rewriting into backslash escapes.
func TestLikeEscape(t *testing.T) {
	cases := []struct{ p, esc, want string }{
		{"a|%c", "|", `a\%c`},
		{`a\b`, "|", `a\\b`},
		{`a\%`, "", `a\\%`},
		{"a||b", "|", `a\|b`},
		{`a%`, `\`, `a%`},
	}
	for _, c := range cases {
		got, err := likeEscape(c.p, c.esc)
		if err != nil || got != c.want {
			t.Errorf("like_escape(%q, %q) = %q, %v; want %q", c.p, c.esc, got, err, c.want)
		}
	}
	if _, err := likeEscape("a", "xy"); err == nil {
		t.Error("a two-character escape was accepted")
	}
}

// TestSimilarEscape checks the SIMILAR TO translation, including the lazy
// prefix before the first escape-double-quote.
func TestSimilarEscape(t *testing.T) {
	cases := []struct{ p, esc, want string }{
		{"a%", `\`, "^(?:a.*)$"},
		{"a_(b|c)", `\`, "^(?:a.(?:b|c))$"},
		{`a*#"%#"g*`, "#", `^(?:a*?){1,1}?(.*){1,1}(?:g*)$`},
		{"a.b", `\`, `^(?:a\.b)$`},
	}
	for _, c := range cases {
		got, err := similarEscape(c.p, c.esc, true)
		if err != nil || got != c.want {
			t.Errorf("similar_to_escape(%q, %q) = %q, %v; want %q", c.p, c.esc, got, err, c.want)
		}
	}
}
