package funcs

import (
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// parseIdent is parse_ident: a qualified identifier split into its
// parts, quoted ones kept as written, unquoted ones folded to lower case;
// strict refuses anything after the last part.
func parseIdent(s string, strict bool) ([]string, error) {
	invalid := func(detail string) error {
		e := pgerr.New(pgerr.InvalidParameterValue, "string is not a valid identifier: \"%s\"", s)
		if detail != "" {
			e = e.WithDetail("%s", detail)
		}
		return e
	}
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' }
	identStart := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80 }
	identCont := func(c byte) bool { return identStart(c) || c >= '0' && c <= '9' || c == '$' }
	var parts []string
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	afterDot := false
	for {
		switch {
		case i < len(s) && s[i] == '"':
			var b strings.Builder
			i++
			for {
				j := strings.IndexByte(s[i:], '"')
				if j < 0 {
					return nil, invalid("String has unclosed double quotes.")
				}
				b.WriteString(s[i : i+j])
				i += j + 1
				if i < len(s) && s[i] == '"' {
					b.WriteByte('"')
					i++
					continue
				}
				break
			}
			if b.Len() == 0 {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "string is not a valid identifier: \"%s\"", s).
					WithDetail("Quoted identifier must not be empty.")
			}
			parts = append(parts, b.String())
		case i < len(s) && identStart(s[i]):
			j := i
			for j < len(s) && identCont(s[j]) {
				j++
			}
			parts = append(parts, strings.ToLower(s[i:j]))
			i = j
		case i < len(s) && s[i] == '.' && !afterDot:
			return nil, invalid("No valid identifier before \".\".")
		case afterDot:
			return nil, invalid("No valid identifier after \".\".")
		default:
			return nil, invalid("")
		}
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i < len(s) && s[i] == '.' {
			i++
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			afterDot = true
			continue
		}
		if i < len(s) && strict {
			return nil, invalid("")
		}
		return parts, nil
	}
}

func registerIdentFuncs() {
	TX := exec.OIDText
	parse := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		strict := len(a) < 2 || a[1].I != 0
		parts, err := parseIdent(a[0].S, strict)
		if err != nil {
			return exec.Null, err
		}
		elems := make([]exec.Datum, len(parts))
		for i, p := range parts {
			elems[i] = exec.DText(p)
		}
		return textArray(elems), nil
	}
	strFn("parse_ident", []uint32{TX}, exec.OIDTextArray, parse)
	strFn("parse_ident", []uint32{TX, exec.OIDBool}, exec.OIDTextArray, parse)

	// num_nulls and num_nonnulls count their arguments' NULLs (not
	// strict: a NULL argument is what they count).
	count := func(nulls bool) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			n := 0
			for _, d := range a {
				if d.IsNull() == nulls {
					n++
				}
			}
			return exec.DInt(int64(n)), nil
		}
	}
	exec.Register(&exec.Func{Name: "num_nulls", Args: []uint32{exec.OIDAny}, Variadic: true, Ret: exec.OIDInt4, Immutable: true, Fn: count(true)},
		&exec.Func{Name: "num_nonnulls", Args: []uint32{exec.OIDAny}, Variadic: true, Ret: exec.OIDInt4, Immutable: true, Fn: count(false)})
}
