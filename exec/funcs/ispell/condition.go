package ispell

import (
	"io"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// condition is an affix rule's mask: what the word must look like, after
// the affix is taken off, for the rule to apply. PostgreSQL keeps three
// kinds, and so does this package, since they differ at the edges: any
// word ("." or nothing), a "regis" (letters and bracket expressions only,
// compared character by character at the word's end for a suffix or start
// for a prefix) and a full regular expression, anchored at that end.
type condition struct {
	regis []regisNode
	re    *regexp.Regexp
	kind  condKind
}

type condKind uint8

const (
	condAny condKind = iota
	condRegis
	condRegex
)

// regisNode matches one character: one of chars, or with none, any
// character but those.
type regisNode struct {
	chars string
	none  bool
}

// isRegis is PostgreSQL's RS_isRegis: mask is a run of letters and
// bracket expressions of letters ("[^aeiou]y"), "[^]" included.
func isRegis(mask string) bool {
	const (
		wait = iota
		oneOf
		oneOfIn
		noneOf
	)
	state := wait
	for i := 0; i < len(mask); i += charLen(mask, i) {
		switch state {
		case wait:
			switch {
			case isAlphaAt(mask, i):
			case mask[i] == '[':
				state = oneOf
			default:
				return false
			}
		case oneOf:
			switch {
			case mask[i] == '^':
				state = noneOf
			case isAlphaAt(mask, i):
				state = oneOfIn
			default:
				return false
			}
		default:
			switch {
			case isAlphaAt(mask, i):
			case mask[i] == ']':
				state = wait
			default:
				return false
			}
		}
	}
	return state == wait
}

// compileRegis is RS_compile for a mask isRegis accepted.
func compileRegis(mask string) []regisNode {
	var nodes []regisNode
	inSet := false
	for i := 0; i < len(mask); {
		n := charLen(mask, i)
		c := mask[i : i+n]
		switch {
		case !inSet && c == "[":
			nodes = append(nodes, regisNode{})
			inSet = true
		case !inSet:
			nodes = append(nodes, regisNode{chars: c})
		case c == "]":
			inSet = false
		case c == "^" && len(nodes[len(nodes)-1].chars) == 0 && !nodes[len(nodes)-1].none:
			nodes[len(nodes)-1].none = true
		default:
			nodes[len(nodes)-1].chars += c
		}
		i += n
	}
	return nodes
}

// matchRegis is RS_execute: the last (suffix) or first (prefix) characters
// of w, one per node, each in or out of its node's set. Characters are
// counted by their first byte, as PostgreSQL counts them; w can hold a
// character cut short at its end (a compound word split inside one), and
// PostgreSQL 15 raises an encoding error on reaching it: valid is false
// then.
func matchRegis(nodes []regisNode, w []byte, suffix bool) (match, valid bool) {
	n := 0
	for i := 0; i < len(w); i += types.UTF8SeqLen(w[i]) {
		if i+types.UTF8SeqLen(w[i]) > len(w) {
			return false, false
		}
		n++
	}
	if n < len(nodes) {
		return false, true
	}
	i := 0
	if suffix {
		for skip := n - len(nodes); skip > 0; skip-- {
			i += types.UTF8SeqLen(w[i])
		}
	}
	for _, nd := range nodes {
		cl := types.UTF8SeqLen(w[i])
		if hasChar(nd.chars, w[i:i+cl]) == nd.none {
			return false, true
		}
		i += cl
	}
	return true, true
}

// hasChar reports whether the character c is one of the characters of set.
func hasChar(set string, c []byte) bool {
	for i := 0; i < len(set); {
		n := charLen(set, i)
		if set[i:i+n] == string(c) {
			return true
		}
		i += n
	}
	return false
}

// newCondition classifies and compiles mask for a suffix or a prefix rule
// (NIAddAffix).
func newCondition(mask string, suffix bool) (condition, error) {
	switch {
	case mask == "." || mask == "":
		return condition{kind: condAny}, nil
	case isRegis(mask):
		return condition{kind: condRegis, regis: compileRegis(mask)}, nil
	}
	// PostgreSQL anchors the mask by pasting "$" after it or "^" before it,
	// and compiles the result as an advanced regular expression.
	p := mask + "$"
	if !suffix {
		p = "^" + mask
	}
	re, err := compileARE(p)
	if err != nil {
		return condition{}, err
	}
	return condition{kind: condRegex, re: re}, nil
}

// match tests the word w (affix already replaced) against the condition;
// valid is false where PostgreSQL raises an error instead (see
// matchRegis).
func (c *condition) match(w []byte, suffix bool) (match, valid bool) {
	switch c.kind {
	case condRegis:
		return matchRegis(c.regis, w, suffix)
	case condRegex:
		if utf8.Valid(w) {
			return c.re.Match(w), true
		}
		return c.re.MatchReader(&pgRuneReader{b: w}), true
	}
	return true, true
}

// pgRuneReader reads bytes as PostgreSQL's pg_utf2wchar_with_len turns
// them into the characters its regular expressions see: by the first
// byte's length, without checking the rest; a byte that starts nothing
// is a character of that value; a character cut short at the end is
// dropped.
type pgRuneReader struct {
	b []byte
	i int
}

func (r *pgRuneReader) ReadRune() (rune, int, error) {
	if r.i >= len(r.b) || r.b[r.i] == 0 {
		return 0, 0, io.EOF
	}
	c := r.b[r.i]
	n := types.UTF8SeqLen(c)
	if r.i+n > len(r.b) {
		r.i = len(r.b)
		return 0, 0, io.EOF
	}
	var v rune
	switch n {
	case 1:
		v = rune(c)
	case 2:
		v = rune(c&0x1f)<<6 | rune(r.b[r.i+1]&0x3f)
	case 3:
		v = rune(c&0x0f)<<12 | rune(r.b[r.i+1]&0x3f)<<6 | rune(r.b[r.i+2]&0x3f)
	default:
		v = rune(c&0x07)<<18 | rune(r.b[r.i+1]&0x3f)<<12 | rune(r.b[r.i+2]&0x3f)<<6 | rune(r.b[r.i+3]&0x3f)
	}
	r.i += n
	return v, n, nil
}

// compileARE compiles a PostgreSQL advanced regular expression on Go's
// regexp, which shares its everyday syntax. The differences bridged here:
// "." matches a newline; \y \Y \Z \A \b \B \e \x \u \U \c mean what they
// mean in PostgreSQL; bounds are at most 255; a quantifier needs an
// operand; "***=" and "***:" directors and leading embedded options work.
// Back-references, lookaround and the word start and end constraints \m
// and \M, which RE2 cannot run, are refused: PostgreSQL would accept them,
// but no affix file needs them. POSIX classes ([[:alpha:]]) are ASCII-only
// here, locale-aware in PostgreSQL.
func compileARE(p string) (*regexp.Regexp, error) {
	goPat, err := translateARE(p)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(goPat)
	if err != nil {
		return nil, regexError(err)
	}
	return re, nil
}

// Messages of PostgreSQL's regcomp errors that translateARE and
// regexError produce.
const (
	reEscape    = "invalid escape \\ sequence"
	reBrackets  = "brackets [] not balanced"
	reParens    = "parentheses () not balanced"
	reBadCount  = "invalid repetition count(s)"
	reBadRepeat = "quantifier operand invalid"
	reBadRange  = "invalid character range"
	reBadClass  = "invalid character class"
	reCollate   = "invalid collating element"
	reBadOpt    = "invalid embedded option"
)

func reErr(msg string) error {
	return pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: %s", msg)
}

// translateARE rewrites an ARE as RE2 syntax.
func translateARE(p string) (string, error) {
	flags := "s"
	switch {
	case strings.HasPrefix(p, "***="):
		return "(?s:" + regexp.QuoteMeta(p[4:]) + ")", nil
	case strings.HasPrefix(p, "***:"):
		p = p[4:]
	}
	if strings.HasPrefix(p, "(?") && len(p) > 2 && strings.IndexByte(":=!<", p[2]) < 0 {
		end := strings.IndexByte(p, ')')
		if end < 0 {
			return "", reErr(reBadOpt)
		}
		for _, o := range p[2:end] {
			switch o {
			case 'i':
				flags = strings.ReplaceAll(flags, "i", "") + "i"
			case 'c':
				flags = strings.ReplaceAll(flags, "i", "")
			case 'n', 'm', 'w':
				flags = strings.ReplaceAll(flags, "s", "") + "m"
			case 'p':
				flags = strings.ReplaceAll(flags, "s", "")
			case 's':
				flags = strings.ReplaceAll(flags, "m", "") + "s"
			case 'q':
				return "(?" + flags + ":" + regexp.QuoteMeta(p[end+1:]) + ")", nil
			case 'b', 'e', 't', 'x':
				// Syntax variants no affix mask uses; read as ARE.
			default:
				return "", reErr(reBadOpt)
			}
		}
		p = p[end+1:]
	}
	var b strings.Builder
	// The flags go on a group around the whole, not before it, so that
	// RE2 sees a leading quantifier as the error it is.
	if flags != "" {
		b.WriteString("(?" + flags + ":")
	} else {
		b.WriteString("(?:")
	}
	// operand says whether what came last can take a quantifier: not the
	// start, "(", "|", an anchor or a constraint, or a quantifier.
	operand, groups := false, 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '\\':
			n, err := translateEscape(&b, p[i:], false, groups)
			if err != nil {
				return "", err
			}
			operand = strings.IndexByte("mMyYAZ", p[i+1]) < 0
			i += n - 1
		case '[':
			n, err := translateBracket(&b, p[i:])
			if err != nil {
				return "", err
			}
			operand = true
			i += n - 1
		case '(':
			if strings.HasPrefix(p[i:], "(?") {
				if !strings.HasPrefix(p[i:], "(?:") {
					if strings.HasPrefix(p[i:], "(?=") || strings.HasPrefix(p[i:], "(?!") ||
						strings.HasPrefix(p[i:], "(?<=") || strings.HasPrefix(p[i:], "(?<!") {
						return "", pgerr.New(pgerr.FeatureNotSupported, "invalid regular expression: lookaround constraints are not supported in affix conditions")
					}
					return "", reErr(reBadRepeat)
				}
				b.WriteString("(?:")
				i += 2
			} else {
				b.WriteByte(c)
				groups++
			}
			operand = false
		case '|', '^', '$':
			b.WriteByte(c)
			operand = false
		case '*', '+', '?', '{':
			n := 1
			if c == '{' {
				if i+1 == len(p) || !isDigit(p[i+1]) {
					b.WriteString(`\{`)
					operand = true
					continue
				}
				if !operand {
					return "", reErr(reBadRepeat)
				}
				var err error
				if n, err = translateBound(&b, p[i:]); err != nil {
					return "", err
				}
			} else {
				if !operand {
					return "", reErr(reBadRepeat)
				}
				b.WriteByte(c)
			}
			i += n - 1
			if i+1 < len(p) && p[i+1] == '?' { // non-greedy
				b.WriteByte('?')
				i++
			}
			operand = false
		default:
			b.WriteByte(c)
			operand = true
		}
	}
	b.WriteByte(')')
	return b.String(), nil
}

// translateBound writes the bound at the start of p ("{2}", "{1,3}",
// "{2,}") and says how long it was.
func translateBound(b *strings.Builder, p string) (int, error) {
	end := 1
	for end < len(p) && (isDigit(p[end]) || p[end] == ',') {
		end++
	}
	switch {
	case end == len(p):
		return 0, reErr("braces {} not balanced")
	case p[end] != '}':
		return 0, reErr(reBadCount)
	}
	body := p[1:end]
	lo, hi, comma := body, "", false
	if k := strings.IndexByte(body, ','); k >= 0 {
		lo, hi, comma = body[:k], body[k+1:], true
	}
	m, err1 := strconv.Atoi(lo)
	n, err2 := m, error(nil)
	if hi != "" {
		n, err2 = strconv.Atoi(hi)
	}
	if err1 != nil || err2 != nil || m > 255 || n > 255 || (hi != "" && m > n) {
		return 0, reErr(reBadCount)
	}
	if comma && hi == "" {
		b.WriteString("{" + lo + ",}")
	} else {
		b.WriteString(p[:end+1])
	}
	return end + 1, nil
}

// translateEscape writes the escape at the start of p and says how long it
// was. inBracket is whether it stands in a bracket expression, where word
// boundaries make no sense; groups is how many capturing groups opened
// before it.
func translateEscape(b *strings.Builder, p string, inBracket bool, groups int) (int, error) {
	if len(p) < 2 {
		return 0, reErr(reEscape)
	}
	e := p[1]
	hex := func(maxDigits int) (int, error) {
		k := 2
		for k < len(p) && k-2 < maxDigits && strings.IndexByte("0123456789abcdefABCDEF", p[k]) >= 0 {
			k++
		}
		if k == 2 {
			return 0, reErr(reEscape)
		}
		v, err := strconv.ParseUint(p[2:k], 16, 32)
		if err != nil || v > 0x10ffff {
			return 0, reErr(reEscape)
		}
		b.WriteString(`\x{` + strconv.FormatUint(v, 16) + `}`)
		return k, nil
	}
	switch {
	case !inBracket && (e == 'm' || e == 'M'):
		return 0, pgerr.New(pgerr.FeatureNotSupported, "invalid regular expression: word start and end constraints are not supported in affix conditions")
	case !inBracket && e == 'y':
		b.WriteString(`\b`)
	case !inBracket && e == 'Y':
		b.WriteString(`\B`)
	case !inBracket && e == 'Z':
		b.WriteString(`\z`)
	case !inBracket && e == 'A':
		b.WriteString(`\A`)
	case e == 'b':
		b.WriteString(`\x08`)
	case e == 'B':
		b.WriteString(`\\`)
	case e == 'e':
		b.WriteString(`\x1b`)
	case e == 'x':
		return hex(8)
	case e == 'u':
		return hex(4)
	case e == 'U':
		return hex(8)
	case e == 'c':
		if len(p) < 3 {
			return 0, reErr(reEscape)
		}
		b.WriteString(`\x{` + strconv.FormatUint(uint64(p[2]&0x1f), 16) + `}`)
		return 3, nil
	case e >= '1' && e <= '9' && !inBracket:
		if int(e-'0') > groups {
			return 0, reErr("invalid backreference number")
		}
		return 0, pgerr.New(pgerr.FeatureNotSupported, "invalid regular expression: back-references are not supported in affix conditions")
	case strings.IndexByte("dDsSwWtnrfva0", e) >= 0:
		b.WriteString(p[:2])
	case e < 0x80 && (isDigit(e) || e >= 'a' && e <= 'z' || e >= 'A' && e <= 'Z'):
		return 0, reErr(reEscape)
	default:
		n := 1 + charLen(p, 1)
		b.WriteString(regexp.QuoteMeta(p[1:n]))
		return n, nil
	}
	return 2, nil
}

// translateBracket writes the bracket expression at the start of p and
// says how long it was.
func translateBracket(b *strings.Builder, p string) (int, error) {
	b.WriteByte('[')
	i := 1
	if i < len(p) && p[i] == '^' {
		b.WriteByte('^')
		i++
	}
	if i < len(p) && p[i] == ']' {
		b.WriteString(`\]`)
		i++
	}
	for i < len(p) {
		c := p[i]
		switch {
		case c == ']':
			b.WriteByte(']')
			return i + 1, nil
		case c == '\\':
			n, err := translateEscape(b, p[i:], true, 0)
			if err != nil {
				return 0, err
			}
			i += n
		case c == '[' && i+1 < len(p) && strings.IndexByte(":.=", p[i+1]) >= 0:
			d := p[i+1]
			end := strings.Index(p[i+2:], string(d)+"]")
			if end < 0 {
				return 0, reErr(reBrackets)
			}
			name := p[i+2 : i+2+end]
			if d == ':' {
				if !posixClasses[name] {
					return 0, reErr(reBadClass)
				}
				b.WriteString("[:" + name + ":]")
			} else {
				if name == "" || charLen(name, 0) != len(name) {
					return 0, reErr(reCollate)
				}
				b.WriteString(regexp.QuoteMeta(name))
			}
			i += 2 + end + 2
		case c == '[':
			b.WriteString(`\[`)
			i++
		default:
			n := charLen(p, i)
			b.WriteString(p[i : i+n])
			i += n
		}
	}
	return 0, reErr(reBrackets)
}

// posixClasses are the character class names of bracket expressions.
var posixClasses = map[string]bool{
	"alnum": true, "alpha": true, "blank": true, "cntrl": true, "digit": true, "graph": true,
	"lower": true, "print": true, "punct": true, "space": true, "upper": true, "xdigit": true,
}

// regexError words an RE2 syntax error as PostgreSQL's regcomp words the
// same mistake.
func regexError(err error) error {
	msg := err.Error()
	if se, ok := err.(*syntax.Error); ok {
		switch se.Code {
		case syntax.ErrMissingParen, syntax.ErrUnexpectedParen:
			msg = reParens
		case syntax.ErrMissingBracket:
			msg = reBrackets
		case syntax.ErrTrailingBackslash, syntax.ErrInvalidEscape:
			msg = reEscape
		case syntax.ErrMissingRepeatArgument, syntax.ErrInvalidRepeatOp:
			msg = reBadRepeat
		case syntax.ErrInvalidRepeatSize:
			msg = reBadCount
		case syntax.ErrInvalidCharRange:
			msg = reBadRange
		case syntax.ErrInvalidCharClass:
			msg = reBadClass
		}
	}
	return pgerr.Wrap(err, pgerr.InvalidRegularExpression, "invalid regular expression: %s", msg)
}
