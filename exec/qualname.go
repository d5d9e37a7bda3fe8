package exec

import (
	"strings"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// splitOutsideQuotes splits s at sep where sep is not inside double quotes.
func splitOutsideQuotes(s string, sep byte) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"':
			quoted = !quoted
		case s[i] == sep && !quoted:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// UnquoteIdent returns an identifier as written in SQL: "Ab""c" is Ab"c,
// Abc is abc.
func UnquoteIdent(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return strings.ToLower(s)
}

// ParseQualifiedName splits a name given as text (nextval('s.seq'),
// 'tab'::regclass) into its parts, as stringToQualifiedNameList does.
func ParseQualifiedName(s string) ([]string, error) {
	var parts []string
	for _, p := range splitOutsideQuotes(s, '.') {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, pgerr.New(pgerr.InvalidName, "invalid name syntax")
		}
		parts = append(parts, UnquoteIdent(p))
	}
	if len(parts) > 3 {
		return nil, pgerr.New(pgerr.InvalidName, "improper qualified name (too many dotted names): %s", s)
	}
	return parts, nil
}

// SplitSearchPath splits a search_path value into schema names, honouring
// double quotes and folding unquoted names to lower case.
func SplitSearchPath(v string) []string {
	var out []string
	for _, item := range splitOutsideQuotes(v, ',') {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		out = append(out, UnquoteIdent(item))
	}
	return out
}
