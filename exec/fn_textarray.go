package exec

import (
	"strings"
)

// The functions between text and text[]: regexp_match,
// regexp_split_to_array, string_to_array (array_to_string, over any
// array, is in fn_array.go).

// regexSplit is regexp_split_to_array's splitting: empty matches split
// between characters, and a match at the very start or end still makes
// an empty field only when it is not empty.
func regexSplit(s string, ms [][]int) []Datum {
	var out []Datum
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
		out = append(out, DText(s[start:m[0]]))
		start = m[1]
	}
	return append(out, DText(s[start:]))
}

func init() {
	match := func(c *regexCache) Fn {
		return func(_ *Env, a []Datum) (Datum, error) {
			flags := ""
			if len(a) > 2 {
				flags = a[2].S
			}
			f, err := parseReFlags(flags, "regexp_match", false)
			if err != nil {
				return Null, err
			}
			re, err := c.get(a[1].S, f)
			if err != nil {
				return Null, err
			}
			m := re.FindStringSubmatchIndex(a[0].S)
			if m == nil {
				return Null, nil
			}
			var elems []Datum
			if len(m) == 2 {
				elems = []Datum{DText(a[0].S[m[0]:m[1]])}
			}
			for i := 2; i < len(m); i += 2 {
				if m[i] < 0 {
					elems = append(elems, Null)
				} else {
					elems = append(elems, DText(a[0].S[m[i]:m[i+1]]))
				}
			}
			return textArray(elems), nil
		}
	}
	split := func(c *regexCache) Fn {
		return func(_ *Env, a []Datum) (Datum, error) {
			flags := ""
			if len(a) > 2 {
				flags = a[2].S
			}
			f, err := parseReFlags(flags, "regexp_split_to_array", false)
			if err != nil {
				return Null, err
			}
			re, err := c.get(a[1].S, f)
			if err != nil {
				return Null, err
			}
			return textArray(regexSplit(a[0].S, re.FindAllStringIndex(a[0].S, -1))), nil
		}
	}
	tt, ttt := []uint32{OIDText, OIDText}, []uint32{OIDText, OIDText, OIDText}
	Register(&Func{Name: "regexp_match", Args: tt, Ret: OIDTextArray, Strict: true, Build: regexBuild(OIDTextArray, match)},
		&Func{Name: "regexp_match", Args: ttt, Ret: OIDTextArray, Strict: true, Build: regexBuild(OIDTextArray, match)},
		&Func{Name: "regexp_split_to_array", Args: tt, Ret: OIDTextArray, Strict: true, Build: regexBuild(OIDTextArray, split)},
		&Func{Name: "regexp_split_to_array", Args: ttt, Ret: OIDTextArray, Strict: true, Build: regexBuild(OIDTextArray, split)})
	toArray := func(_ *Env, a []Datum) (Datum, error) {
		if a[0].IsNull() {
			return Null, nil
		}
		s := a[0].S
		var nullStr *string
		if len(a) > 2 && !a[2].IsNull() {
			nullStr = &a[2].S
		}
		var parts []string
		switch {
		case s == "":
			return textArray(nil), nil
		case a[1].IsNull():
			for _, r := range s {
				parts = append(parts, string(r))
			}
		case a[1].S == "":
			parts = []string{s}
		default:
			parts = strings.Split(s, a[1].S)
		}
		elems := make([]Datum, len(parts))
		for i, p := range parts {
			if nullStr != nil && p == *nullStr {
				elems[i] = Null
			} else {
				elems[i] = DText(p)
			}
		}
		return textArray(elems), nil
	}
	Register(&Func{Name: "string_to_array", Args: tt, Ret: OIDTextArray, Fn: toArray},
		&Func{Name: "string_to_array", Args: ttt, Ret: OIDTextArray, Fn: toArray})
}

// textArray makes a one-dimensional text[] of elems (NULL elements as
// Null).
func textArray(elems []Datum) Datum { return NewArray(OIDText, elems) }

// textArrayOf returns the elements of a text[] value (nil if d is not an
// array).
func textArrayOf(d Datum) []Datum {
	if d.Kind != KindArray {
		return nil
	}
	return d.Array().Elems
}
