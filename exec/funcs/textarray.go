package funcs

import (
	"strings"

	"github.com/prollypg/prollypg/exec"
)

// The functions between text and text[]: regexp_match,
// regexp_split_to_array, string_to_array (array_to_string, over any
// array, is in array.go).

// regexSplit is regexp_split_to_array's splitting: empty matches split
// between characters, and a match at the very start or end still makes
// an empty field only when it is not empty.
func regexSplit(s string, ms [][]int) []exec.Datum {
	var out []exec.Datum
	start := 0
	for _, m := range ms {
		if m[1] == m[0] {
			if m[0] == 0 || m[0] >= len(s) {
				continue
			}
		}
		if m[0] == m[1] && m[0] == start {
			continue
		}
		out = append(out, exec.DText(s[start:m[0]]))
		start = m[1]
	}
	return append(out, exec.DText(s[start:]))
}

func registerTextArray() {
	match := func(c *regexCache) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (_ exec.Datum, err error) {
			defer recoverMatchFailure(&err)
			flags := ""
			if len(a) > 2 {
				flags = a[2].S
			}
			f, err := parseReFlags(flags, "regexp_match", false)
			if err != nil {
				return exec.Null, err
			}
			re, err := c.get(a[1].S, f)
			if err != nil {
				return exec.Null, err
			}
			m := re.FindStringSubmatchIndex(a[0].S)
			if m == nil {
				return exec.Null, nil
			}
			var elems []exec.Datum
			if len(m) == 2 {
				elems = []exec.Datum{exec.DText(a[0].S[m[0]:m[1]])}
			}
			for i := 2; i < len(m); i += 2 {
				if m[i] < 0 {
					elems = append(elems, exec.Null)
				} else {
					elems = append(elems, exec.DText(a[0].S[m[i]:m[i+1]]))
				}
			}
			return textArray(elems), nil
		}
	}
	split := func(c *regexCache) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (_ exec.Datum, err error) {
			defer recoverMatchFailure(&err)
			flags := ""
			if len(a) > 2 {
				flags = a[2].S
			}
			f, err := parseReFlags(flags, "regexp_split_to_array", false)
			if err != nil {
				return exec.Null, err
			}
			re, err := c.get(a[1].S, f)
			if err != nil {
				return exec.Null, err
			}
			return textArray(regexSplit(a[0].S, re.FindAllStringIndex(a[0].S, -1))), nil
		}
	}
	tt, ttt := []uint32{exec.OIDText, exec.OIDText}, []uint32{exec.OIDText, exec.OIDText, exec.OIDText}
	exec.Register(&exec.Func{Name: "regexp_match", Args: tt, Ret: exec.OIDTextArray, Strict: true, Build: regexBuild(exec.OIDTextArray, match)},
		&exec.Func{Name: "regexp_match", Args: ttt, Ret: exec.OIDTextArray, Strict: true, Build: regexBuild(exec.OIDTextArray, match)},
		&exec.Func{Name: "regexp_split_to_array", Args: tt, Ret: exec.OIDTextArray, Strict: true, Build: regexBuild(exec.OIDTextArray, split)},
		&exec.Func{Name: "regexp_split_to_array", Args: ttt, Ret: exec.OIDTextArray, Strict: true, Build: regexBuild(exec.OIDTextArray, split)})
	toArray := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if a[0].IsNull() {
			return exec.Null, nil
		}
		return textArray(splitString(a)), nil
	}
	exec.Register(&exec.Func{Name: "string_to_array", Args: tt, Ret: exec.OIDTextArray, Fn: toArray},
		&exec.Func{Name: "string_to_array", Args: ttt, Ret: exec.OIDTextArray, Fn: toArray})
}

// textArray makes a one-dimensional text[] of elems (NULL elements as
// Null).
func textArray(elems []exec.Datum) exec.Datum { return exec.NewArray(exec.OIDText, elems) }

// textArrayOf returns the elements of a text[] value (nil if d is not an
// array).
func textArrayOf(d exec.Datum) []exec.Datum {
	if d.Kind != exec.KindArray {
		return nil
	}
	return d.Array().Elems
}

// splitString splits string_to_array's and string_to_table's arguments
// (string, delimiter[, null string]) into the elements: a NULL delimiter
// splits into characters, an empty one leaves the string whole, and
// pieces equal to the null string are NULL. The string must not be NULL.
func splitString(a []exec.Datum) []exec.Datum {
	s := a[0].S
	var parts []string
	switch {
	case s == "":
		return []exec.Datum{}
	case a[1].IsNull():
		for _, r := range s {
			parts = append(parts, string(r))
		}
	case a[1].S == "":
		parts = []string{s}
	default:
		parts = strings.Split(s, a[1].S)
	}
	nullStr := len(a) > 2 && !a[2].IsNull()
	elems := make([]exec.Datum, len(parts))
	for i, p := range parts {
		if nullStr && p == a[2].S {
			elems[i] = exec.Null
		} else {
			elems[i] = exec.DText(p)
		}
	}
	return elems
}
