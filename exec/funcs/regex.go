package funcs

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	regexp2 "github.com/dlclark/regexp2/v2"
	"github.com/dlclark/regexp2/v2/compat"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// PostgreSQL's regular expressions (Spencer's ARE) run here on Go's RE2,
// which shares their everyday syntax. The differences this file bridges:
// "." matches a newline unless the n flag says otherwise; \m \M \y \Y
// are word boundaries; \Z ends the string; flags come as a string (i, g,
// n, x, q, ...). An expression with back-references (\1) or lookaround
// ((?=re), (?!re), (?<=re), (?<!re)), which RE2 cannot run, runs on a
// backtracking engine instead (regexp2, in its RE2-compatible mode), which
// may take long on pathological ones: a match is given up after
// backtrackTimeout.

// reFlags are the parsed flags of a regexp function call.
type reFlags struct {
	fold, global, newline, partial, weird, expanded, quote bool
}

// parseReFlags reads a flags string as PostgreSQL's parse_re_flags does.
func parseReFlags(s string, fn string, allowGlobal bool) (reFlags, error) {
	var f reFlags
	for _, c := range s {
		switch c {
		case 'g':
			if !allowGlobal {
				return f, pgerr.New(pgerr.InvalidParameterValue, "%s() does not support the \"global\" option", fn).
					WithHint("Use the regexp_matches function instead.")
			}
			f.global = true
		case 'b', 'e':
		case 'c':
			f.fold = false
		case 'i':
			f.fold = true
		case 'm', 'n':
			f.newline, f.partial, f.weird = true, false, false
		case 'p':
			f.partial, f.newline, f.weird = true, false, false
		case 'q':
			f.quote = true
		case 's':
			f.newline, f.partial, f.weird = false, false, false
		case 't':
			f.expanded = false
		case 'w':
			f.weird, f.newline, f.partial = true, false, false
		case 'x':
			f.expanded = true
		default:
			return f, pgerr.New(pgerr.InvalidParameterValue, "invalid regular expression option: \"%c\"", c)
		}
	}
	return f, nil
}

// translateRegex rewrites a PostgreSQL ARE as an RE2 expression; backtrack
// says it uses back-references or lookaround, which only the backtracking
// engine runs.
func translateRegex(p string, f reFlags) (re string, backtrack bool, err error) {
	var b strings.Builder
	// Flags: s lets . match \n (PostgreSQL's default); m makes ^ and $
	// match at lines.
	prefix := "(?s"
	switch {
	case f.newline:
		prefix = "(?m"
	case f.partial:
		prefix = "(?"
	case f.weird:
		prefix = "(?sm"
	}
	if f.fold {
		prefix += "i"
	}
	if prefix == "(?" {
		prefix = ""
	} else {
		prefix += ")"
	}
	b.WriteString(prefix)
	switch {
	case strings.HasPrefix(p, "***="):
		f.quote, p = true, p[4:]
	case strings.HasPrefix(p, "***:"):
		p = p[4:]
	}
	if f.quote {
		b.WriteString(regexp.QuoteMeta(p))
		return b.String(), false, nil
	}
	// Embedded options (?xyz) at the start.
	if strings.HasPrefix(p, "(?") {
		if end := strings.IndexByte(p, ')'); end > 2 {
			opts := p[2:end]
			if strings.Trim(opts, "bceimnpqstwx") == "" {
				ef, _ := parseReFlags(opts, "regexp", true)
				if ef.fold || ef.newline || ef.expanded || ef.quote {
					f2 := f
					f2.fold = f.fold || ef.fold
					f2.newline = f.newline || ef.newline
					f2.expanded = f.expanded || ef.expanded
					f2.quote = ef.quote
					return translateRegex(p[end+1:], f2)
				}
				p = p[end+1:]
			}
		}
	}
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		if f.expanded && !inClass {
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
				continue
			}
			if c == '#' {
				for i < len(p) && p[i] != '\n' {
					i++
				}
				continue
			}
		}
		switch {
		case c == '\\' && i+1 < len(p):
			i++
			e := p[i]
			switch {
			case e == 'm' || e == 'M' || e == 'y':
				b.WriteString(`\b`)
			case e == 'Y':
				b.WriteString(`\B`)
			case e == 'Z':
				b.WriteString(`\z`)
			case e >= '1' && e <= '9' && !inClass:
				backtrack = true
				b.WriteByte('\\')
				b.WriteByte(e)
			case e == 'u' && i+4 < len(p):
				b.WriteString(`\x{` + p[i+1:i+5] + `}`)
				i += 4
			case e == 'U' && i+8 < len(p):
				b.WriteString(`\x{` + p[i+1:i+9] + `}`)
				i += 8
			case e == 'e':
				b.WriteString(`\x1b`)
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		case inClass:
			if c == '[' && i+1 < len(p) && (p[i+1] == ':' || p[i+1] == '.' || p[i+1] == '=') {
				end := strings.Index(p[i+2:], string(p[i+1])+"]")
				if end >= 0 {
					b.WriteString(p[i : i+2+end+2])
					i += 2 + end + 1
					continue
				}
			}
			if c == ']' {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteString(`\]`)
				i++
			}
		case c == '(' && (strings.HasPrefix(p[i:], "(?=") || strings.HasPrefix(p[i:], "(?!") || strings.HasPrefix(p[i:], "(?<=") || strings.HasPrefix(p[i:], "(?<!")):
			backtrack = true
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), backtrack, nil
}

// matcher is a compiled regular expression: RE2's *regexp.Regexp, or the
// backtracking engine's adapter, which has the same methods.
type matcher interface {
	MatchString(s string) bool
	FindStringSubmatchIndex(s string) []int
	FindAllStringIndex(s string, n int) [][]int
	FindAllStringSubmatchIndex(s string, n int) [][]int
}

// backtrackTimeout bounds one match of the backtracking engine, which
// statement_timeout cannot interrupt.
const backtrackTimeout = 30 * time.Second

// compileRegex compiles a PostgreSQL regular expression with flags.
func compileRegex(p string, f reFlags) (matcher, error) {
	s, backtrack, err := translateRegex(p, f)
	if err != nil {
		return nil, err
	}
	if backtrack {
		re, err := regexp2.Compile(s, regexp2.RE2)
		if err != nil {
			return nil, pgerr.Wrap(err, pgerr.InvalidRegularExpression, "invalid regular expression: %v", err)
		}
		re.MatchTimeout = backtrackTimeout
		return compat.Wrap(re), nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, regexError(err)
	}
	return re, nil
}

// recoverMatchFailure turns the panic with which the backtracking
// engine's adapter reports a match it gave up (too long, too deep) into
// PostgreSQL's error for a failed match; other panics go on. The engine's
// timeout error (no sentinel, "match timeout after ...") quotes the whole
// input, which the client's error does not.
func recoverMatchFailure(err *error) {
	r := recover()
	if r == nil {
		return
	}
	e, ok := r.(error)
	switch {
	case ok && errors.Is(e, regexp2.ErrBacktrackingStackLimit):
		*err = pgerr.New(pgerr.InvalidRegularExpression, "regular expression failed: too complex (backtracking stack exhausted)")
	case ok && strings.HasPrefix(e.Error(), "match timeout"):
		*err = pgerr.New(pgerr.InvalidRegularExpression, "regular expression failed: match took longer than %v", backtrackTimeout)
	default:
		panic(r)
	}
}

// regexError words an RE2 syntax error the way PostgreSQL's regcomp
// reports the same mistake.
func regexError(err error) error {
	msg := "invalid regular expression: " + err.Error()
	if se, ok := err.(*syntax.Error); ok {
		switch se.Code {
		case syntax.ErrMissingParen, syntax.ErrUnexpectedParen:
			msg = "invalid regular expression: parentheses () not balanced"
		case syntax.ErrMissingBracket:
			msg = "invalid regular expression: brackets [] not balanced"
		case syntax.ErrTrailingBackslash:
			msg = "invalid regular expression: invalid escape \\ sequence"
		case syntax.ErrMissingRepeatArgument:
			msg = "invalid regular expression: quantifier operand invalid"
		case syntax.ErrInvalidRepeatSize, syntax.ErrInvalidRepeatOp:
			msg = "invalid regular expression: invalid repetition count(s)"
		case syntax.ErrInvalidCharRange:
			msg = "invalid regular expression: invalid character range"
		case syntax.ErrInvalidEscape:
			msg = "invalid regular expression: invalid escape \\ sequence"
		}
	}
	return pgerr.Wrap(err, pgerr.InvalidRegularExpression, "%s", msg)
}

// regexCache remembers the last expression compiled at one call site, so
// that a constant pattern compiles once per statement, not once per row.
// It is safe for concurrent use: a racing store only costs a compile.
type regexCache struct {
	last atomic.Pointer[cachedRegex]
}

type cachedRegex struct {
	pattern string
	flags   reFlags
	re      matcher
}

func (c *regexCache) get(p string, f reFlags) (matcher, error) {
	if e := c.last.Load(); e != nil && e.pattern == p && e.flags == f {
		return e.re, nil
	}
	re, err := compileRegex(p, f)
	if err != nil {
		return nil, err
	}
	c.last.Store(&cachedRegex{pattern: p, flags: f, re: re})
	return re, nil
}

// regexBuild wraps a regexp function so that each call site gets its own
// cache.
func regexBuild(ret uint32, mk func(c *regexCache) exec.Fn) func([]exec.T) (exec.Fn, exec.T, error) {
	return func([]exec.T) (exec.Fn, exec.T, error) {
		fn := mk(&regexCache{})
		return func(env *exec.Env, args []exec.Datum) (d exec.Datum, err error) {
			defer recoverMatchFailure(&err)
			return fn(env, args)
		}, exec.T{OID: ret, Typmod: -1}, nil
	}
}

// regexReplace is regexp_replace's substitution: \1..\9 the groups, \& the
// whole match, \\ a backslash.
func regexExpand(dst []byte, repl, src string, m []int) []byte {
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '\\' || i+1 >= len(repl) {
			dst = append(dst, c)
			continue
		}
		i++
		e := repl[i]
		switch {
		case e >= '1' && e <= '9':
			g := int(e - '0')
			if 2*g+1 < len(m) && m[2*g] >= 0 {
				dst = append(dst, src[m[2*g]:m[2*g+1]]...)
			}
		case e == '&':
			dst = append(dst, src[m[0]:m[1]]...)
		case e == '\\':
			dst = append(dst, '\\')
		default:
			dst = append(dst, '\\', e)
		}
	}
	return dst
}

// runeOffset returns the byte offset of the n-th (1-based) character of s,
// len(s) if s is shorter.
func runeOffset(s string, n int64) int {
	i := 0
	for k := int64(1); k < n && i < len(s); k++ {
		i += charLen(s[i:])
	}
	return i
}

func regexReplace(re matcher, src, repl string, start int64, n int64, global bool) string {
	off := runeOffset(src, start)
	matches := re.FindAllStringSubmatchIndex(src[off:], -1)
	var out []byte
	out = append(out, src[:off]...)
	pos := off
	for k, m := range matches {
		if n > 0 && int64(k+1) != n {
			continue
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += off
			}
		}
		out = append(out, src[pos:m[0]]...)
		out = regexExpand(out, repl, src, m)
		pos = m[1]
		if !global {
			break
		}
	}
	out = append(out, src[pos:]...)
	return string(out)
}

// similarEscape is similar_to_escape(pattern, escape): a SIMILAR TO
// pattern as the POSIX expression PostgreSQL matches it with.
func similarEscape(p, esc string, hasEsc bool) (string, error) {
	var e rune = '\\'
	useEsc := true
	if hasEsc {
		switch utf8.RuneCountInString(esc) {
		case 0:
			useEsc = false
		case 1:
			e, _ = utf8.DecodeRuneInString(esc)
		default:
			return "", pgerr.New(pgerr.InvalidEscapeSequence, "invalid escape string").
				WithHint("Escape string must be empty or one character.")
		}
	}
	var b strings.Builder
	b.WriteString("^(?:")
	nquotes, afterEscape, inClass := 0, false, false
	// PostgreSQL's regex engine matches the part before the first
	// separator as short as it can (its greediness follows the {1,1}?);
	// RE2 needs its quantifiers made lazy to agree.
	lazy := func(b *strings.Builder) {
		if nquotes == 0 && strings.Contains(p, string(e)+`"`) {
			b.WriteByte('?')
		}
	}
	for _, c := range p {
		switch {
		case afterEscape:
			if c == '"' && !inClass {
				switch nquotes {
				case 0:
					b.WriteString("){1,1}?(")
				case 1:
					b.WriteString("){1,1}(?:")
				default:
					return "", pgerr.New(pgerr.InvalidRegularExpression, "SQL regular expression may not contain more than two escape-double-quote separators")
				}
				nquotes++
			} else {
				b.WriteByte('\\')
				b.WriteRune(c)
			}
			afterEscape = false
		case useEsc && c == e:
			afterEscape = true
		case inClass:
			if c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
			if c == ']' {
				inClass = false
			}
		case c == '[':
			b.WriteByte('[')
			inClass = true
		case c == '%':
			b.WriteString(".*")
			lazy(&b)
		case c == '*' || c == '+' || c == '?':
			b.WriteRune(c)
			lazy(&b)
		case c == '}':
			b.WriteRune(c)
			lazy(&b)
		case c == '_':
			b.WriteByte('.')
		case c == '(':
			b.WriteString("(?:")
		case c == '\\' || c == '.' || c == '^' || c == '$':
			b.WriteByte('\\')
			b.WriteRune(c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteString(")$")
	return b.String(), nil
}

// substringRegex is substring(text, pattern): the first parenthesized
// group's match, or the whole match without groups; NULL without a match.
func substringRegex(re matcher, s string) exec.Datum {
	m := re.FindStringSubmatchIndex(s)
	if m == nil {
		return exec.Null
	}
	if len(m) > 2 {
		if m[2] < 0 {
			return exec.Null
		}
		return exec.DText(s[m[2]:m[3]])
	}
	return exec.DText(s[m[0]:m[1]])
}

func registerRegex() {
	for _, op := range []struct {
		name      string
		not, fold bool
	}{{"~", false, false}, {"!~", true, false}, {"~*", false, true}, {"!~*", true, true}} {
		op := op
		for _, t := range []uint32{exec.OIDText, exec.OIDBpchar, exec.OIDName} {
			exec.Register(&exec.Func{Name: op.name, Args: []uint32{t, exec.OIDText}, Ret: exec.OIDBool, Strict: true,
				Build: regexBuild(exec.OIDBool, func(c *regexCache) exec.Fn {
					return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
						re, err := c.get(a[1].S, reFlags{fold: op.fold})
						if err != nil {
							return exec.Null, err
						}
						return exec.DBool(re.MatchString(a[0].S) != op.not), nil
					}
				})})
		}
	}
	tt := []uint32{exec.OIDText, exec.OIDText}
	exec.Register(&exec.Func{Name: "similar_to_escape", Args: tt, Ret: exec.OIDText, Strict: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		s, err := similarEscape(a[0].S, a[1].S, true)
		return exec.DText(s), err
	}})
	exec.Register(&exec.Func{Name: "similar_to_escape", Args: []uint32{exec.OIDText}, Ret: exec.OIDText, Strict: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		s, err := similarEscape(a[0].S, "", false)
		return exec.DText(s), err
	}})
	exec.Register(&exec.Func{Name: "similar_escape", Args: tt, Ret: exec.OIDText, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if a[0].IsNull() {
			return exec.Null, nil
		}
		s, err := similarEscape(a[0].S, a[1].S, !a[1].IsNull())
		return exec.DText(s), err
	}})
	exec.Register(&exec.Func{Name: "substring", Args: tt, Ret: exec.OIDText, Strict: true,
		Build: regexBuild(exec.OIDText, func(c *regexCache) exec.Fn {
			return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
				re, err := c.get(a[1].S, reFlags{})
				if err != nil {
					return exec.Null, err
				}
				return substringRegex(re, a[0].S), nil
			}
		})})
	exec.Register(&exec.Func{Name: "substring", Args: []uint32{exec.OIDText, exec.OIDText, exec.OIDText}, Ret: exec.OIDText, Strict: true,
		Build: regexBuild(exec.OIDText, func(c *regexCache) exec.Fn {
			return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
				p, err := similarEscape(a[1].S, a[2].S, true)
				if err != nil {
					return exec.Null, err
				}
				re, err := c.get(p, reFlags{})
				if err != nil {
					return exec.Null, err
				}
				return substringRegex(re, a[0].S), nil
			}
		})})
	// regexp_replace(source, pattern, replacement [, start [, n]] [, flags])
	replace := func(c *regexCache) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			start, n, flags, hasN := int64(1), int64(0), "", false
			switch len(a) {
			case 4:
				if a[3].Kind == exec.KindText {
					flags = a[3].S
				} else {
					start = a[3].I
				}
			case 5:
				start, n, hasN = a[3].I, a[4].I, true
			case 6:
				start, n, flags, hasN = a[3].I, a[4].I, a[5].S, true
			}
			if start <= 0 {
				return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", "start", start)
			}
			if n < 0 {
				return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", "n", n)
			}
			f, err := parseReFlags(flags, "regexp_replace", true)
			if err != nil {
				return exec.Null, err
			}
			// With n given, 0 replaces every match and n the n-th only;
			// without, the g flag decides.
			global := f.global || (hasN && n == 0)
			if !hasN && !f.global {
				n = 1
			}
			f.global = false
			re, err := c.get(a[1].S, f)
			if err != nil {
				return exec.Null, err
			}
			return exec.DText(regexReplace(re, a[0].S, a[2].S, start, n, global || n > 0)), nil
		}
	}
	for _, args := range [][]uint32{
		{exec.OIDText, exec.OIDText, exec.OIDText}, {exec.OIDText, exec.OIDText, exec.OIDText, exec.OIDText},
		{exec.OIDText, exec.OIDText, exec.OIDText, exec.OIDInt4}, {exec.OIDText, exec.OIDText, exec.OIDText, exec.OIDInt4, exec.OIDInt4},
		{exec.OIDText, exec.OIDText, exec.OIDText, exec.OIDInt4, exec.OIDInt4, exec.OIDText},
	} {
		exec.Register(&exec.Func{Name: "regexp_replace", Args: args, Ret: exec.OIDText, Strict: true, Build: regexBuild(exec.OIDText, replace)})
	}
	// regexp_like(string, pattern [, flags])
	like := func(c *regexCache) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			flags := ""
			if len(a) > 2 {
				flags = a[2].S
			}
			f, err := parseReFlags(flags, "regexp_like", false)
			if err != nil {
				return exec.Null, err
			}
			re, err := c.get(a[1].S, f)
			if err != nil {
				return exec.Null, err
			}
			return exec.DBool(re.MatchString(a[0].S)), nil
		}
	}
	exec.Register(&exec.Func{Name: "regexp_like", Args: tt, Ret: exec.OIDBool, Strict: true, Build: regexBuild(exec.OIDBool, like)},
		&exec.Func{Name: "regexp_like", Args: []uint32{exec.OIDText, exec.OIDText, exec.OIDText}, Ret: exec.OIDBool, Strict: true, Build: regexBuild(exec.OIDBool, like)})
	// regexp_count(string, pattern [, start [, flags]])
	count := func(c *regexCache) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			start, flags := int64(1), ""
			if len(a) > 2 {
				start = a[2].I
			}
			if len(a) > 3 {
				flags = a[3].S
			}
			if start <= 0 {
				return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", "start", start)
			}
			f, err := parseReFlags(flags, "regexp_count", false)
			if err != nil {
				return exec.Null, err
			}
			re, err := c.get(a[1].S, f)
			if err != nil {
				return exec.Null, err
			}
			s := a[0].S[runeOffset(a[0].S, start):]
			return exec.DInt(int64(len(re.FindAllStringIndex(s, -1)))), nil
		}
	}
	for _, args := range [][]uint32{tt, {exec.OIDText, exec.OIDText, exec.OIDInt4}, {exec.OIDText, exec.OIDText, exec.OIDInt4, exec.OIDText}} {
		exec.Register(&exec.Func{Name: "regexp_count", Args: args, Ret: exec.OIDInt4, Strict: true, Build: regexBuild(exec.OIDInt4, count)})
	}
	// regexp_instr(string, pattern [, start [, N [, endoption [, flags [, subexpr]]]]])
	// and regexp_substr(string, pattern [, start [, N [, flags [, subexpr]]]])
	nth := func(substr bool) func(c *regexCache) exec.Fn {
		return func(c *regexCache) exec.Fn {
			return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
				start, n, endopt, flags, sub := int64(1), int64(1), int64(0), "", int64(0)
				i := 2
				next := func() (exec.Datum, bool) {
					if i < len(a) {
						i++
						return a[i-1], true
					}
					return exec.Null, false
				}
				if d, ok := next(); ok {
					start = d.I
				}
				if d, ok := next(); ok {
					n = d.I
				}
				if !substr {
					if d, ok := next(); ok {
						endopt = d.I
					}
				}
				if d, ok := next(); ok {
					flags = d.S
				}
				if d, ok := next(); ok {
					sub = d.I
				}
				name := "regexp_instr"
				if substr {
					name = "regexp_substr"
				}
				for _, chk := range []struct {
					what string
					v    int64
					bad  bool
				}{{"start", start, start <= 0}, {"n", n, n <= 0}, {"endoption", endopt, endopt != 0 && endopt != 1}, {"subexpr", sub, sub < 0}} {
					if chk.bad {
						return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", chk.what, chk.v)
					}
				}
				f, err := parseReFlags(flags, name, false)
				if err != nil {
					return exec.Null, err
				}
				re, err := c.get(a[1].S, f)
				if err != nil {
					return exec.Null, err
				}
				src := a[0].S
				off := runeOffset(src, start)
				all := re.FindAllStringSubmatchIndex(src[off:], int(n))
				none := exec.DInt(0)
				if substr {
					none = exec.Null
				}
				if int64(len(all)) < n {
					return none, nil
				}
				m := all[n-1]
				if int(sub) >= len(m)/2 {
					return none, nil
				}
				lo, hi := m[2*sub], m[2*sub+1]
				if lo < 0 {
					return none, nil
				}
				if substr {
					return exec.DText(src[off+lo : off+hi]), nil
				}
				pos := off + lo
				if endopt == 1 {
					pos = off + hi
				}
				return exec.DInt(int64(utf8.RuneCountInString(src[:pos])) + 1), nil
			}
		}
	}
	for k := 2; k <= 7; k++ {
		args := []uint32{exec.OIDText, exec.OIDText, exec.OIDInt4, exec.OIDInt4, exec.OIDInt4, exec.OIDText, exec.OIDInt4}[:k]
		exec.Register(&exec.Func{Name: "regexp_instr", Args: args, Ret: exec.OIDInt4, Strict: true, Build: regexBuild(exec.OIDInt4, nth(false))})
		if k <= 6 {
			args := []uint32{exec.OIDText, exec.OIDText, exec.OIDInt4, exec.OIDInt4, exec.OIDText, exec.OIDInt4}[:k]
			exec.Register(&exec.Func{Name: "regexp_substr", Args: args, Ret: exec.OIDText, Strict: true, Build: regexBuild(exec.OIDText, nth(true))})
		}
	}
}
