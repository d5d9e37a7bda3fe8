package funcs

import (
	"strings"
	"unicode/utf8"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// format(formatstr, args...) as PostgreSQL's text_format: %[n$][-][width]
// then s (the value's text), I (quote_ident) or L (quote_literal); %% is a
// percent sign. width may be * or *n$, taking the width from an argument.

// formatHint is the HINT of format()'s syntax errors.
const formatHint = "For a single \"%\" use \"%%\"."

func errFormat(msg string) *pgerr.Error {
	return pgerr.New(pgerr.InvalidParameterValue, "%s", msg)
}

func formatText(env *exec.Env, f string, types []exec.T, args []exec.Datum) (string, error) {
	var b strings.Builder
	next := 0 // the next argument, 0-based
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		i++
		if i >= len(f) {
			return "", errFormat("unterminated format() type specifier").WithHint("%s", formatHint)
		}
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		// [n$]
		readNum := func() (int, bool, error) {
			start := i
			n := 0
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				n = n*10 + int(f[i]-'0')
				if n > 1<<30 {
					return 0, false, errFormat("number is out of range")
				}
				i++
			}
			return n, i > start, nil
		}
		argPos := -1
		n, ok, err := readNum()
		if err != nil {
			return "", err
		}
		left, width, widthArg := false, 0, -2
		if ok {
			if i < len(f) && f[i] == '$' {
				if n == 0 {
					return "", errFormat("format specifies argument 0, but arguments are numbered from 1")
				}
				argPos = n - 1
				i++
			} else {
				width = n
				goto typ
			}
		}
		// flags
		for i < len(f) && f[i] == '-' {
			left = true
			i++
		}
		// width: digits, * or *n$
		if i < len(f) && f[i] == '*' {
			i++
			widthArg = -1
			n, ok, err := readNum()
			if err != nil {
				return "", err
			}
			if ok {
				if i >= len(f) || f[i] != '$' {
					return "", errFormat("unterminated format() type specifier").WithHint("%s", formatHint)
				}
				if n == 0 {
					return "", errFormat("format specifies argument 0, but arguments are numbered from 1")
				}
				widthArg = n - 1
				i++
			}
		} else {
			n, _, err := readNum()
			if err != nil {
				return "", err
			}
			width = n
		}
	typ:
		if i >= len(f) {
			return "", errFormat("unterminated format() type specifier").WithHint("%s", formatHint)
		}
		if widthArg != -2 {
			wi := widthArg
			if wi == -1 {
				wi = next
			}
			if wi >= len(args) {
				return "", errFormat("too few arguments for format()")
			}
			next = wi + 1
			wd := args[wi]
			if !wd.IsNull() {
				w, err := exec.CastFn(types[wi], exec.TInt4, false)(env, []exec.Datum{wd})
				if err != nil {
					return "", err
				}
				width = int(w.I)
				if width < 0 {
					left, width = true, -width
				}
			}
		}
		c := f[i]
		if c != 's' && c != 'I' && c != 'L' {
			r, _ := utf8.DecodeRuneInString(f[i:])
			return "", errFormat("unrecognized format() type specifier \""+string(r)+"\"").WithHint("%s", formatHint)
		}
		ai := argPos
		if ai < 0 {
			ai = next
		}
		if ai >= len(args) {
			return "", errFormat("too few arguments for format()")
		}
		next = ai + 1
		d := args[ai]
		var s string
		switch {
		case d.IsNull() && c == 'I':
			return "", pgerr.New(pgerr.NullValueNotAllowed, "null values cannot be formatted as an SQL identifier")
		case d.IsNull() && c == 'L':
			s = "NULL"
		case d.IsNull():
		case c == 'I':
			s = QuoteIdent(textOf(env, types[ai], d))
		case c == 'L':
			s = QuoteLiteral(textOf(env, types[ai], d))
		default:
			s = textOf(env, types[ai], d)
		}
		if pad := width - utf8.RuneCountInString(s); pad > 0 {
			if left {
				b.WriteString(s)
				b.WriteString(strings.Repeat(" ", pad))
			} else {
				b.WriteString(strings.Repeat(" ", pad))
				b.WriteString(s)
			}
		} else {
			b.WriteString(s)
		}
	}
	return b.String(), nil
}

func registerFormat() {
	build := func(ts []exec.T) (exec.Fn, exec.T, error) {
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if a[0].IsNull() {
				return exec.Null, nil
			}
			s, err := formatText(env, a[0].S, ts[1:], a[1:])
			return exec.DText(s), err
		}, exec.TText, nil
	}
	exec.Register(&exec.Func{Name: "format", Args: []uint32{exec.OIDText}, Ret: exec.OIDText, Build: build},
		&exec.Func{Name: "format", Args: []uint32{exec.OIDText, exec.OIDAny}, Variadic: true, Ret: exec.OIDText, Build: build})
}
