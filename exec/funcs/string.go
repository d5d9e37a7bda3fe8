package funcs

import (
	"crypto/md5"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"golang.org/x/text/unicode/norm"
)

// The string functions of PostgreSQL's varlena.c and oracle_compat.c,
// counting characters (not bytes) in UTF-8 as PostgreSQL does.

// textOf returns the text output of an argument of type t, for the
// functions over "any" (concat, format, anytextcat).
func textOf(env *exec.Env, t exec.T, d exec.Datum) string {
	switch t.OID {
	case exec.OIDText, exec.OIDVarchar, exec.OIDName, exec.OIDUnknown, exec.OIDBpchar:
		return d.S
	}
	return string(exec.AppendText(nil, t, d, env.Settings))
}

// bpcharTrim drops char(n)'s padding, which char_length and the like do
// not count.
func bpcharTrim(s string) string { return strings.TrimRight(s, " ") }

func errNegativeSubstring() error {
	return pgerr.New(pgerr.SubstringError, "negative substring length not allowed")
}

// substr is substring(s from start for count) over characters; count < 0
// with hasCount is an error, as PostgreSQL's text_substring has it.
func substr(s string, start, count int64, hasCount bool) (string, error) {
	if hasCount && count < 0 {
		return "", errNegativeSubstring()
	}
	end := int64(1 << 62)
	if hasCount {
		end = start + count
		if count > 0 && end < start { // overflow
			end = 1 << 62
		}
	}
	if start < 1 {
		start = 1
	}
	if end <= start {
		return "", nil
	}
	lo := runeOffset(s, start)
	if end-start >= int64(len(s)) {
		return s[lo:], nil
	}
	hi := lo + runeOffset(s[lo:], end-start+1)
	return s[lo:hi], nil
}

// byteSubstr is substring over bytes, for bytea.
func byteSubstr(s string, start, count int64, hasCount bool) (string, error) {
	if hasCount && count < 0 {
		return "", errNegativeSubstring()
	}
	end := int64(len(s)) + 1
	if hasCount && start+count < end {
		end = start + count
	}
	if start < 1 {
		start = 1
	}
	if end <= start || start > int64(len(s)) {
		return "", nil
	}
	return s[start-1 : end-1], nil
}

// trimChars trims characters of set from the ends of s.
func trimChars(s, set string, left, right bool) string {
	in := func(r rune) bool { return strings.ContainsRune(set, r) }
	if left {
		s = strings.TrimLeftFunc(s, in)
	}
	if right {
		s = strings.TrimRightFunc(s, in)
	}
	return s
}

func trimBytes(s, set string, left, right bool) string {
	if left {
		for len(s) > 0 && strings.IndexByte(set, s[0]) >= 0 {
			s = s[1:]
		}
	}
	if right {
		for len(s) > 0 && strings.IndexByte(set, s[len(s)-1]) >= 0 {
			s = s[:len(s)-1]
		}
	}
	return s
}

// pad is lpad/rpad: s cut or filled with fill to n characters.
func pad(s string, n int64, fill string, left bool) (string, error) {
	if n <= 0 {
		return "", nil
	}
	cur := int64(utf8.RuneCountInString(s))
	if cur >= n {
		return s[:runeOffset(s, n+1)], nil
	}
	if fill == "" {
		return s, nil
	}
	if n > 1<<28 {
		return "", pgerr.New(pgerr.ProgramLimitExceeded, "requested length too large")
	}
	var b strings.Builder
	need := n - cur
	fr := []rune(fill)
	var padding strings.Builder
	for i := int64(0); i < need; i++ {
		padding.WriteRune(fr[i%int64(len(fr))])
	}
	if left {
		b.WriteString(padding.String())
		b.WriteString(s)
	} else {
		b.WriteString(s)
		b.WriteString(padding.String())
	}
	return b.String(), nil
}

// initcap upper-cases the first letter of each run of letters and digits
// and lower-cases the rest.
func initcap(s string) string {
	var b strings.Builder
	inWord := false
	for _, r := range s {
		if inWord {
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(unicode.ToUpper(r))
		}
		inWord = unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	return b.String()
}

// splitPart is split_part(s, delim, n); n < 0 counts from the end.
func splitPart(s, delim string, n int64) (string, error) {
	if n == 0 {
		return "", pgerr.New(pgerr.InvalidParameterValue, "field position must not be zero")
	}
	if s == "" {
		return "", nil
	}
	if delim == "" {
		if n == 1 || n == -1 {
			return s, nil
		}
		return "", nil
	}
	parts := strings.Split(s, delim)
	if n < 0 {
		n += int64(len(parts)) + 1
		if n < 1 {
			return "", nil
		}
	}
	if n > int64(len(parts)) {
		return "", nil
	}
	return parts[n-1], nil
}

func translate(s, from, to string) string {
	fr, tr := []rune(from), []rune(to)
	var b strings.Builder
	for _, r := range s {
		i := -1
		for j, f := range fr {
			if f == r {
				i = j
				break
			}
		}
		switch {
		case i < 0:
			b.WriteRune(r)
		case i < len(tr):
			b.WriteRune(tr[i])
		}
	}
	return b.String()
}

func chr(c int64) (string, error) {
	switch {
	case c < 0:
		return "", pgerr.New(pgerr.InvalidParameterValue, "character number must be positive")
	case c == 0:
		return "", pgerr.New(pgerr.ProgramLimitExceeded, "null character not permitted")
	case c < 0 || c > 0x10FFFF:
		return "", pgerr.New(pgerr.ProgramLimitExceeded, "requested character too large for encoding: %d", c)
	case c >= 0xD800 && c <= 0xDFFF:
		return "", pgerr.New(pgerr.ProgramLimitExceeded, "requested character not valid for encoding: %d", c)
	}
	return string(rune(c)), nil
}

// QuoteIdent is quote_ident: s as an SQL identifier, quoted when it must be.
func QuoteIdent(s string) string { return types.QuoteIdent(s) }

// QuoteLiteral is quote_literal: s as a string literal, with an E prefix when it holds
// a backslash.
func QuoteLiteral(s string) string {
	var b strings.Builder
	if strings.IndexByte(s, '\\') >= 0 {
		b.WriteByte('E')
	}
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\'' || c == '\\' {
			b.WriteByte(c)
		}
		b.WriteByte(c)
	}
	b.WriteByte('\'')
	return b.String()
}

func toHex(v int64, bits int) string {
	if bits == 32 {
		return strconv.FormatUint(uint64(uint32(v)), 16)
	}
	return strconv.FormatUint(uint64(v), 16)
}

// encode is encode(bytea, format).
func encode(b, format string) (string, error) {
	switch strings.ToLower(format) {
	case "hex":
		return hex.EncodeToString([]byte(b)), nil
	case "base64":
		s := base64.StdEncoding.EncodeToString([]byte(b))
		var out strings.Builder
		for len(s) > 76 {
			out.WriteString(s[:76])
			out.WriteByte('\n')
			s = s[76:]
		}
		out.WriteString(s)
		return out.String(), nil
	case "escape":
		var out strings.Builder
		for i := 0; i < len(b); i++ {
			c := b[i]
			switch {
			case c == '\\':
				out.WriteString(`\\`)
			case c == 0 || c >= 0x80:
				out.WriteString(`\` + strconv.FormatInt(int64(c)+01000, 8)[1:])
			default:
				out.WriteByte(c)
			}
		}
		return out.String(), nil
	}
	return "", pgerr.New(pgerr.InvalidParameterValue, "unrecognized encoding: \"%s\"", format)
}

// decode is decode(text, format).
func decode(s, format string) (string, error) {
	switch strings.ToLower(format) {
	case "hex":
		var out []byte
		for i := 0; i < len(s); {
			c := s[i]
			if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
				i++
				continue
			}
			hi := unhex(c)
			if hi < 0 {
				return "", pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal digit: \"%c\"", c)
			}
			if i+1 >= len(s) {
				return "", pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal data: odd number of digits")
			}
			lo := unhex(s[i+1])
			if lo < 0 {
				return "", pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal digit: \"%c\"", s[i+1])
			}
			out = append(out, byte(hi<<4|lo))
			i += 2
		}
		return string(out), nil
	case "base64":
		clean := strings.Map(func(r rune) rune {
			if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
				return -1
			}
			return r
		}, s)
		out, err := base64.StdEncoding.DecodeString(clean)
		if err != nil {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid base64 end sequence").
				WithHint("Input data is missing padding, is truncated, or is otherwise corrupted.")
		}
		return string(out), nil
	case "escape":
		var out []byte
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c != '\\' {
				out = append(out, c)
				continue
			}
			switch {
			case i+1 < len(s) && s[i+1] == '\\':
				out = append(out, '\\')
				i++
			case i+3 < len(s) && s[i+1] >= '0' && s[i+1] <= '3' && s[i+2] >= '0' && s[i+2] <= '7' && s[i+3] >= '0' && s[i+3] <= '7':
				out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
				i += 3
			default:
				return "", pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s", "bytea")
			}
		}
		return string(out), nil
	}
	return "", pgerr.New(pgerr.InvalidParameterValue, "unrecognized encoding: \"%s\"", format)
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// strFn registers a strict, immutable function.
func strFn(name string, args []uint32, ret uint32, fn exec.Fn) {
	exec.Register(&exec.Func{Name: name, Args: args, Ret: ret, Strict: true, Immutable: true, Fn: fn})
}

func registerString() {
	t1 := []uint32{exec.OIDText}
	t2 := []uint32{exec.OIDText, exec.OIDText}
	t3 := []uint32{exec.OIDText, exec.OIDText, exec.OIDText}
	ti := []uint32{exec.OIDText, exec.OIDInt4}

	// Concatenation: text || text, and text || any non-array value.
	strFn("||", t2, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DText(a[0].S + a[1].S), nil })
	strFn("||", []uint32{exec.OIDBytea, exec.OIDBytea}, exec.OIDBytea, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DBytes(a[0].S + a[1].S), nil })
	for i := 0; i < 2; i++ {
		args := []uint32{exec.OIDText, exec.OIDAnyNonArray}
		if i == 1 {
			args = []uint32{exec.OIDAnyNonArray, exec.OIDText}
		}
		other := 1 - i
		// anytextcat and textanycat cast the other side to text (so
		// true || 'x' is "truex"), unlike concat, which prints it.
		exec.Register(&exec.Func{Name: "||", Args: args, Ret: exec.OIDText, Strict: true, Build: func(ts []exec.T) (exec.Fn, exec.T, error) {
			cast := exec.CastFn(ts[other], exec.TText, true)
			if cast == nil {
				return nil, exec.T{}, exec.NoFuncError("||", ts)
			}
			return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
				o, err := cast(env, a[other:other+1])
				if err != nil {
					return exec.Null, err
				}
				if other == 1 {
					return exec.DText(a[0].S + o.S), nil
				}
				return exec.DText(o.S + a[1].S), nil
			}, exec.TText, nil
		}})
	}
	exec.Register(&exec.Func{Name: "concat", Args: []uint32{exec.OIDAny}, Variadic: true, Ret: exec.OIDText, Build: func(ts []exec.T) (exec.Fn, exec.T, error) {
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			var b strings.Builder
			for i, d := range a {
				if !d.IsNull() {
					b.WriteString(textOf(env, ts[i], d))
				}
			}
			return exec.DText(b.String()), nil
		}, exec.TText, nil
	}})
	exec.Register(&exec.Func{Name: "concat_ws", Args: []uint32{exec.OIDText, exec.OIDAny}, Variadic: true, Ret: exec.OIDText, Build: func(ts []exec.T) (exec.Fn, exec.T, error) {
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if a[0].IsNull() {
				return exec.Null, nil
			}
			var b strings.Builder
			first := true
			for i, d := range a[1:] {
				if d.IsNull() {
					continue
				}
				if !first {
					b.WriteString(a[0].S)
				}
				first = false
				b.WriteString(textOf(env, ts[i+1], d))
			}
			return exec.DText(b.String()), nil
		}, exec.TText, nil
	}})

	charLength := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DInt(int64(utf8.RuneCountInString(a[0].S))), nil
	}
	bpLength := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DInt(int64(utf8.RuneCountInString(bpcharTrim(a[0].S)))), nil
	}
	byteLength := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DInt(int64(len(a[0].S))), nil }
	for _, name := range []string{"char_length", "character_length"} {
		strFn(name, t1, exec.OIDInt4, charLength)
		strFn(name, []uint32{exec.OIDBpchar}, exec.OIDInt4, bpLength)
	}
	strFn("length", []uint32{exec.OIDBpchar}, exec.OIDInt4, bpLength)
	strFn("length", []uint32{exec.OIDBytea}, exec.OIDInt4, byteLength)
	strFn("octet_length", t1, exec.OIDInt4, byteLength)
	strFn("octet_length", []uint32{exec.OIDBpchar}, exec.OIDInt4, byteLength)
	strFn("octet_length", []uint32{exec.OIDBytea}, exec.OIDInt4, byteLength)
	strFn("bit_length", t1, exec.OIDInt4, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DInt(8 * int64(len(a[0].S))), nil })
	strFn("bit_length", []uint32{exec.OIDBytea}, exec.OIDInt4, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DInt(8 * int64(len(a[0].S))), nil })
	strFn("initcap", t1, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DText(initcap(a[0].S)), nil })

	for _, tr := range []struct {
		name        string
		left, right bool
	}{{"btrim", true, true}, {"ltrim", true, false}, {"rtrim", false, true}} {
		tr := tr
		strFn(tr.name, t1, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DText(trimChars(a[0].S, " ", tr.left, tr.right)), nil
		})
		strFn(tr.name, t2, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DText(trimChars(a[0].S, a[1].S, tr.left, tr.right)), nil
		})
		strFn(tr.name, []uint32{exec.OIDBytea, exec.OIDBytea}, exec.OIDBytea, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBytes(trimBytes(a[0].S, a[1].S, tr.left, tr.right)), nil
		})
	}
	for _, left := range []bool{true, false} {
		left := left
		name := "rpad"
		if left {
			name = "lpad"
		}
		strFn(name, ti, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			s, err := pad(a[0].S, a[1].I, " ", left)
			return exec.DText(s), err
		})
		strFn(name, []uint32{exec.OIDText, exec.OIDInt4, exec.OIDText}, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			s, err := pad(a[0].S, a[1].I, a[2].S, left)
			return exec.DText(s), err
		})
	}
	strFn("left", ti, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		s, n := a[0].S, a[1].I
		if n < 0 {
			n += int64(utf8.RuneCountInString(s))
			if n < 0 {
				n = 0
			}
		}
		return exec.DText(s[:runeOffset(s, n+1)]), nil
	})
	strFn("right", ti, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		s, n := a[0].S, a[1].I
		total := int64(utf8.RuneCountInString(s))
		if n < 0 {
			n = -n
			if n > total {
				n = total
			}
			return exec.DText(s[runeOffset(s, n+1):]), nil
		}
		if n > total {
			n = total
		}
		return exec.DText(s[runeOffset(s, total-n+1):]), nil
	})
	strFn("repeat", ti, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		n := a[1].I
		if n <= 0 {
			return exec.DText(""), nil
		}
		if int64(len(a[0].S))*n > 1<<30 {
			return exec.Null, pgerr.New(pgerr.ProgramLimitExceeded, "requested length too large")
		}
		return exec.DText(strings.Repeat(a[0].S, int(n))), nil
	})
	strFn("replace", t3, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if a[1].S == "" {
			return a[0], nil
		}
		return exec.DText(strings.ReplaceAll(a[0].S, a[1].S, a[2].S)), nil
	})
	strFn("reverse", t1, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		r := []rune(a[0].S)
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return exec.DText(string(r)), nil
	})
	strpos := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		i := strings.Index(a[0].S, a[1].S)
		if i < 0 {
			return exec.DInt(0), nil
		}
		return exec.DInt(int64(utf8.RuneCountInString(a[0].S[:i])) + 1), nil
	}
	strFn("strpos", t2, exec.OIDInt4, strpos)
	strFn("position", t2, exec.OIDInt4, strpos)
	strFn("position", []uint32{exec.OIDBytea, exec.OIDBytea}, exec.OIDInt4, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DInt(int64(strings.Index(a[0].S, a[1].S)) + 1), nil
	})
	for _, name := range []string{"substr", "substring"} {
		strFn(name, ti, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			s, err := substr(a[0].S, a[1].I, 0, false)
			return exec.DText(s), err
		})
		strFn(name, []uint32{exec.OIDText, exec.OIDInt4, exec.OIDInt4}, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			s, err := substr(a[0].S, a[1].I, a[2].I, true)
			return exec.DText(s), err
		})
		strFn(name, []uint32{exec.OIDBytea, exec.OIDInt4}, exec.OIDBytea, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			s, err := byteSubstr(a[0].S, a[1].I, 0, false)
			return exec.DBytes(s), err
		})
		strFn(name, []uint32{exec.OIDBytea, exec.OIDInt4, exec.OIDInt4}, exec.OIDBytea, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			s, err := byteSubstr(a[0].S, a[1].I, a[2].I, true)
			return exec.DBytes(s), err
		})
	}
	overlay := func(s, repl string, from, count int64) (string, error) {
		head, err := substr(s, 1, from-1, true)
		if err != nil {
			return "", err
		}
		if from+count != int64(int32(from+count)) {
			return "", pgerr.New(pgerr.NumericValueOutOfRange, "integer out of range")
		}
		tail, _ := substr(s, from+count, 0, false)
		return head + repl + tail, nil
	}
	strFn("overlay", []uint32{exec.OIDText, exec.OIDText, exec.OIDInt4, exec.OIDInt4}, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		s, err := overlay(a[0].S, a[1].S, a[2].I, a[3].I)
		return exec.DText(s), err
	})
	strFn("overlay", []uint32{exec.OIDText, exec.OIDText, exec.OIDInt4}, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		s, err := overlay(a[0].S, a[1].S, a[2].I, int64(utf8.RuneCountInString(a[1].S)))
		return exec.DText(s), err
	})
	strFn("split_part", []uint32{exec.OIDText, exec.OIDText, exec.OIDInt4}, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		s, err := splitPart(a[0].S, a[1].S, a[2].I)
		return exec.DText(s), err
	})
	strFn("translate", t3, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DText(translate(a[0].S, a[1].S, a[2].S)), nil
	})
	strFn("ascii", t1, exec.OIDInt4, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if a[0].S == "" {
			return exec.DInt(0), nil
		}
		r, _ := utf8.DecodeRuneInString(a[0].S)
		return exec.DInt(int64(r)), nil
	})
	strFn("chr", []uint32{exec.OIDInt4}, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		s, err := chr(a[0].I)
		return exec.DText(s), err
	})
	md5Fn := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		sum := md5.Sum([]byte(a[0].S))
		return exec.DText(hex.EncodeToString(sum[:])), nil
	}
	strFn("md5", t1, exec.OIDText, md5Fn)
	strFn("md5", []uint32{exec.OIDBytea}, exec.OIDText, md5Fn)
	for name, h := range map[string]func([]byte) []byte{
		"sha224": func(b []byte) []byte { s := sha256.Sum224(b); return s[:] },
		"sha256": func(b []byte) []byte { s := sha256.Sum256(b); return s[:] },
		"sha384": func(b []byte) []byte { s := sha512.Sum384(b); return s[:] },
		"sha512": func(b []byte) []byte { s := sha512.Sum512(b); return s[:] },
	} {
		h := h
		strFn(name, []uint32{exec.OIDBytea}, exec.OIDBytea, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBytes(string(h([]byte(a[0].S)))), nil
		})
	}
	strFn("to_hex", []uint32{exec.OIDInt4}, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DText(toHex(a[0].I, 32)), nil })
	strFn("to_hex", []uint32{exec.OIDInt8}, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DText(toHex(a[0].I, 64)), nil })
	strFn("quote_ident", t1, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DText(QuoteIdent(a[0].S)), nil })
	// Unicode normalization (normalize, IS [NOT] form NORMALIZED), the
	// form NFC unless given.
	normalize := func(a []exec.Datum) (string, norm.Form, error) {
		form := "NFC"
		if len(a) > 1 {
			form = strings.ToUpper(strings.TrimSpace(a[1].S))
		}
		f, ok := map[string]norm.Form{"NFC": norm.NFC, "NFD": norm.NFD, "NFKC": norm.NFKC, "NFKD": norm.NFKD}[form]
		if !ok {
			return "", 0, pgerr.New(pgerr.InvalidParameterValue, "invalid normalization form: %s", a[1].S)
		}
		return a[0].S, f, nil
	}
	for _, args := range [][]uint32{t1, t2} {
		strFn("normalize", args, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			s, f, err := normalize(a)
			if err != nil {
				return exec.Null, err
			}
			return exec.DText(f.String(s)), nil
		})
		strFn("is_normalized", args, exec.OIDBool, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			s, f, err := normalize(a)
			if err != nil {
				return exec.Null, err
			}
			return exec.DBool(f.IsNormalString(s)), nil
		})
	}
	strFn("quote_literal", t1, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DText(QuoteLiteral(a[0].S)), nil })
	exec.Register(&exec.Func{Name: "quote_literal", Args: []uint32{exec.OIDAny}, Ret: exec.OIDText, Strict: true, Build: func(ts []exec.T) (exec.Fn, exec.T, error) {
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DText(QuoteLiteral(textOf(env, ts[0], a[0]))), nil
		}, exec.TText, nil
	}})
	exec.Register(&exec.Func{Name: "quote_nullable", Args: t1, Ret: exec.OIDText, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if a[0].IsNull() {
			return exec.DText("NULL"), nil
		}
		return exec.DText(QuoteLiteral(a[0].S)), nil
	}})
	exec.Register(&exec.Func{Name: "quote_nullable", Args: []uint32{exec.OIDAny}, Ret: exec.OIDText, Build: func(ts []exec.T) (exec.Fn, exec.T, error) {
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if a[0].IsNull() {
				return exec.DText("NULL"), nil
			}
			return exec.DText(QuoteLiteral(textOf(env, ts[0], a[0]))), nil
		}, exec.TText, nil
	}})
	startsWith := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DBool(strings.HasPrefix(a[0].S, a[1].S)), nil
	}
	strFn("starts_with", t2, exec.OIDBool, startsWith)
	strFn("^@", t2, exec.OIDBool, startsWith)
	strFn("encode", []uint32{exec.OIDBytea, exec.OIDText}, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		s, err := encode(a[0].S, a[1].S)
		return exec.DText(s), err
	})
	strFn("decode", t2, exec.OIDBytea, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		s, err := decode(a[0].S, a[1].S)
		return exec.DBytes(s), err
	})
	strFn("text", []uint32{exec.OIDBpchar}, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DText(bpcharTrim(a[0].S)), nil })
}

func errByteIndex(n, max int64) error {
	return pgerr.New(pgerr.ArraySubscriptError, "index %d out of valid range, 0..%d", n, max)
}

func registerBytea() {
	B, I4, I8 := exec.OIDBytea, exec.OIDInt4, exec.OIDInt8
	strFn("get_byte", []uint32{B, I4}, I4, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		n := a[1].I
		if n < 0 || n >= int64(len(a[0].S)) {
			return exec.Null, errByteIndex(n, int64(len(a[0].S))-1)
		}
		return exec.DInt(int64(a[0].S[n])), nil
	})
	strFn("set_byte", []uint32{B, I4, I4}, B, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		n := a[1].I
		if n < 0 || n >= int64(len(a[0].S)) {
			return exec.Null, errByteIndex(n, int64(len(a[0].S))-1)
		}
		b := []byte(a[0].S)
		b[n] = byte(a[2].I)
		return exec.DBytes(string(b)), nil
	})
	strFn("get_bit", []uint32{B, I8}, I4, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		n := a[1].I
		if n < 0 || n >= 8*int64(len(a[0].S)) {
			return exec.Null, errByteIndex(n, 8*int64(len(a[0].S))-1)
		}
		return exec.DInt(int64(a[0].S[n/8]>>(n%8)) & 1), nil
	})
	strFn("set_bit", []uint32{B, I8, I4}, B, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		n := a[1].I
		if n < 0 || n >= 8*int64(len(a[0].S)) {
			return exec.Null, errByteIndex(n, 8*int64(len(a[0].S))-1)
		}
		if a[2].I != 0 && a[2].I != 1 {
			return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "new bit must be 0 or 1")
		}
		b := []byte(a[0].S)
		b[n/8] = b[n/8]&^(1<<(n%8)) | byte(a[2].I)<<(n%8)
		return exec.DBytes(string(b)), nil
	})
	strFn("overlay", []uint32{B, B, I4, I4}, B, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return byteOverlay(a[0].S, a[1].S, a[2].I, a[3].I)
	})
	strFn("overlay", []uint32{B, B, I4}, B, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return byteOverlay(a[0].S, a[1].S, a[2].I, int64(len(a[1].S)))
	})
	strFn("bit_count", []uint32{B}, I8, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		n := 0
		for i := 0; i < len(a[0].S); i++ {
			for c := a[0].S[i]; c != 0; c &= c - 1 {
				n++
			}
		}
		return exec.DInt(int64(n)), nil
	})
}

func byteOverlay(s, repl string, from, count int64) (exec.Datum, error) {
	head, err := byteSubstr(s, 1, from-1, true)
	if err != nil {
		return exec.Null, err
	}
	tail, _ := byteSubstr(s, from+count, 0, false)
	return exec.DBytes(head + repl + tail), nil
}

// unistr decodes \XXXX, \+XXXXXX, \uXXXX and \UXXXXXXXX escapes (and \\),
// joining UTF-16 surrogate pairs, as PostgreSQL's unistr does.
func unistr(s string) (string, error) {
	errEscape := func() error {
		return pgerr.New(pgerr.InvalidParameterValue, "invalid Unicode escape").
			WithHint("Unicode escapes must be \\XXXX, \\+XXXXXX, \\uXXXX, or \\UXXXXXXXX.")
	}
	errPair := pgerr.New(pgerr.InvalidParameterValue, "invalid Unicode surrogate pair")
	hexAt := func(i, n int) (rune, bool) {
		if i+n > len(s) {
			return 0, false
		}
		var v rune
		for _, c := range s[i : i+n] {
			h := unhex(byte(c))
			if c > 0x7f || h < 0 {
				return 0, false
			}
			v = v<<4 | rune(h)
		}
		return v, true
	}
	var b strings.Builder
	var high rune
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			if high != 0 {
				return "", errPair
			}
			b.WriteByte(s[i])
			i++
			continue
		}
		if i+1 < len(s) && s[i+1] == '\\' {
			if high != 0 {
				return "", errPair
			}
			b.WriteByte('\\')
			i += 2
			continue
		}
		var cp rune
		var ok bool
		switch {
		case i+1 < len(s) && s[i+1] == '+':
			cp, ok = hexAt(i+2, 6)
			i += 8
		case i+1 < len(s) && s[i+1] == 'u':
			cp, ok = hexAt(i+2, 4)
			i += 6
		case i+1 < len(s) && s[i+1] == 'U':
			cp, ok = hexAt(i+2, 8)
			i += 10
		default:
			cp, ok = hexAt(i+1, 4)
			i += 5
		}
		if !ok {
			return "", errEscape()
		}
		if cp > 0x10FFFF {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid Unicode code point: %04X", cp)
		}
		switch {
		case high != 0:
			if cp < 0xDC00 || cp > 0xDFFF {
				return "", errPair
			}
			cp = 0x10000 + (high-0xD800)<<10 + (cp - 0xDC00)
			high = 0
		case cp >= 0xD800 && cp <= 0xDBFF:
			high = cp
			continue
		case cp >= 0xDC00 && cp <= 0xDFFF:
			return "", errPair
		}
		b.WriteRune(cp)
	}
	if high != 0 {
		return "", errPair
	}
	return b.String(), nil
}

func registerUnistr() {
	strFn("unistr", []uint32{exec.OIDText}, exec.OIDText, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		s, err := unistr(a[0].S)
		return exec.DText(s), err
	})
}

// registerTextPattern registers the text pattern comparison operators
// (~<~ ~<=~ ~>=~ ~>~, text_pattern_ops' order): byte by byte, whatever
// the collation. The server's text order is already that (C collation),
// so they compare as the plain operators do.
func registerTextPattern() {
	T, B := exec.OIDText, exec.OIDBool
	for _, op := range []struct {
		name string
		ok   func(c int) bool
	}{
		{"~<~", func(c int) bool { return c < 0 }},
		{"~<=~", func(c int) bool { return c <= 0 }},
		{"~>=~", func(c int) bool { return c >= 0 }},
		{"~>~", func(c int) bool { return c > 0 }},
	} {
		exec.Register(&exec.Func{Name: op.name, Args: []uint32{T, T}, Ret: B, Strict: true, Immutable: true,
			Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
				return exec.DBool(op.ok(strings.Compare(a[0].S, a[1].S))), nil
			}})
	}
}
