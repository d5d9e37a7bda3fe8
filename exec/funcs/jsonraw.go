package funcs

import "github.com/prollypg/prollypg/exec"
import "github.com/prollypg/prollypg/exec/types"

// json (not jsonb) keeps its text as given, and its operators return the
// parts of that text unchanged ('{"a": [1,  2]}'::json -> 'a' is
// "[1,  2]"). This file walks valid JSON text to find those parts; the
// input was validated on the way in, so the walker trusts its syntax.

func jsonSkipWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// jsonValueEnd returns the end of the value starting at s[i] (no leading
// white space).
func jsonValueEnd(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"':
		i++
		for i < len(s) && s[i] != '"' {
			if s[i] == '\\' {
				i++
			}
			i++
		}
		return i + 1
	case '{', '[':
		depth := 0
		for i < len(s) {
			switch s[i] {
			case '"':
				i = jsonValueEnd(s, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(s) {
		switch s[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// jsonKind is the kind of the value at s[i].
func jsonKind(s string, i int) types.JSONKind {
	if i >= len(s) {
		return types.JSONNull
	}
	switch s[i] {
	case '{':
		return types.JSONObject
	case '[':
		return types.JSONArray
	case '"':
		return types.JSONString
	case 't', 'f':
		return types.JSONBool
	case 'n':
		return types.JSONNull
	}
	return types.JSONNumber
}

// jsonRoot returns the span of the whole value.
func jsonRoot(s string) (int, int) {
	i := jsonSkipWS(s, 0)
	return i, jsonValueEnd(s, i)
}

// jsonElems calls fn with the key (objects) and span of each member of
// the container at s[i]; fn returns false to stop.
func jsonElems(s string, i int, fn func(key string, lo, hi int) bool) {
	obj := s[i] == '{'
	i = jsonSkipWS(s, i+1)
	for i < len(s) && s[i] != '}' && s[i] != ']' {
		key := ""
		if obj {
			end := jsonValueEnd(s, i)
			key = jsonString(s[i:end])
			i = jsonSkipWS(s, end)
			i = jsonSkipWS(s, i+1) // ':'
		}
		end := jsonValueEnd(s, i)
		if !fn(key, i, end) {
			return
		}
		i = jsonSkipWS(s, end)
		if i < len(s) && s[i] == ',' {
			i = jsonSkipWS(s, i+1)
		}
	}
}

// jsonString de-escapes a JSON string literal.
func jsonString(lit string) string {
	v, err := types.ParseJSONB(lit)
	if err != nil || v.Kind != types.JSONString {
		// \u0000 and the like, which json accepts and jsonb does not.
		if len(lit) >= 2 {
			return lit[1 : len(lit)-1]
		}
		return lit
	}
	return v.Str
}

// jsonField finds the last member named key of the object at s[i], as
// json's -> does with duplicate keys.
func jsonField(s string, i int, key string) (lo, hi int, ok bool) {
	if jsonKind(s, i) != types.JSONObject {
		return 0, 0, false
	}
	jsonElems(s, i, func(k string, l, h int) bool {
		if k == key {
			lo, hi, ok = l, h, true
		}
		return true
	})
	return
}

// jsonIndex finds element n of the array at s[i]; n < 0 counts from the
// end.
func jsonIndex(s string, i int, n int64) (lo, hi int, ok bool) {
	if jsonKind(s, i) != types.JSONArray {
		return 0, 0, false
	}
	if n < 0 {
		n += int64(jsonLen(s, i))
		if n < 0 {
			return 0, 0, false
		}
	}
	k := int64(0)
	jsonElems(s, i, func(_ string, l, h int) bool {
		if k == n {
			lo, hi, ok = l, h, true
			return false
		}
		k++
		return true
	})
	return
}

func jsonLen(s string, i int) int {
	n := 0
	jsonElems(s, i, func(string, int, int) bool { n++; return true })
	return n
}

// jsonText is ->>'s text of the value at s[lo:hi]: strings de-escaped,
// null as SQL NULL, anything else as written.
func jsonText(s string, lo, hi int) exec.Datum {
	switch jsonKind(s, lo) {
	case types.JSONNull:
		return exec.Null
	case types.JSONString:
		return exec.DText(jsonString(s[lo:hi]))
	}
	return exec.DText(s[lo:hi])
}
