package funcs

import (
	"strings"
	"unicode/utf8"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// LIKE and ILIKE, as PostgreSQL's like_match.c matches them: % any run of
// characters, _ one character, a backslash escapes the next pattern
// character. An ESCAPE clause is rewritten into backslashes by
// like_escape before matching, as PostgreSQL's grammar arranges.

// likeResult is MatchText's three-valued answer: ABORT means no match is
// possible at any later start either, which cuts the search short.
type likeResult int8

const (
	likeFalse likeResult = iota
	likeTrue
	likeAbort
)

var errLikeEscapeEnd = pgerr.New(pgerr.InvalidEscapeSequence, "LIKE pattern must not end with escape character")

// likeMatch reports whether t matches the LIKE pattern p.
func likeMatch(t, p string) (bool, error) {
	r, err := matchText(t, p)
	return r == likeTrue, err
}

// matchText is PostgreSQL's MatchText over UTF-8: literal characters are
// compared byte by byte (equal characters have equal bytes), while _
// consumes one whole character.
func matchText(t, p string) (likeResult, error) {
	if p == "%" {
		return likeTrue, nil
	}
	for len(t) > 0 && len(p) > 0 {
		switch p[0] {
		case '\\':
			p = p[1:]
			if len(p) == 0 {
				return likeFalse, errLikeEscapeEnd
			}
			if p[0] != t[0] {
				return likeFalse, nil
			}
		case '%':
			p = p[1:]
			for len(p) > 0 {
				if p[0] == '%' {
					p = p[1:]
				} else if p[0] == '_' {
					if len(t) == 0 {
						return likeAbort, nil
					}
					t = t[charLen(t):]
					p = p[1:]
				} else {
					break
				}
			}
			if len(p) == 0 {
				return likeTrue, nil
			}
			first := p[0]
			if first == '\\' {
				if len(p) < 2 {
					return likeFalse, errLikeEscapeEnd
				}
				first = p[1]
			}
			for len(t) > 0 {
				if t[0] == first {
					r, err := matchText(t, p)
					if r != likeFalse || err != nil {
						return r, err
					}
				}
				t = t[charLen(t):]
			}
			return likeAbort, nil
		case '_':
			t = t[charLen(t):]
			p = p[1:]
			continue
		default:
			if p[0] != t[0] {
				return likeFalse, nil
			}
		}
		t, p = t[1:], p[1:]
	}
	if len(t) > 0 {
		return likeFalse, nil
	}
	for len(p) > 0 && p[0] == '%' {
		p = p[1:]
	}
	if len(p) == 0 {
		return likeTrue, nil
	}
	return likeAbort, nil
}

// charLen is the length in bytes of the character s starts with.
func charLen(s string) int {
	if s[0] < utf8.RuneSelf {
		return 1
	}
	_, n := utf8.DecodeRuneInString(s)
	return n
}

// matchBytes is MatchText for bytea, where _ is one byte.
func matchBytes(t, p string) (likeResult, error) {
	if p == "%" {
		return likeTrue, nil
	}
	for len(t) > 0 && len(p) > 0 {
		switch p[0] {
		case '\\':
			p = p[1:]
			if len(p) == 0 {
				return likeFalse, errLikeEscapeEnd
			}
			if p[0] != t[0] {
				return likeFalse, nil
			}
		case '%':
			for len(p) > 0 && (p[0] == '%' || p[0] == '_') {
				if p[0] == '_' {
					if len(t) == 0 {
						return likeAbort, nil
					}
					t = t[1:]
				}
				p = p[1:]
			}
			if len(p) == 0 {
				return likeTrue, nil
			}
			for len(t) > 0 {
				r, err := matchBytes(t, p)
				if r != likeFalse || err != nil {
					return r, err
				}
				t = t[1:]
			}
			return likeAbort, nil
		case '_':
		default:
			if p[0] != t[0] {
				return likeFalse, nil
			}
		}
		t, p = t[1:], p[1:]
	}
	if len(t) > 0 {
		return likeFalse, nil
	}
	for len(p) > 0 && p[0] == '%' {
		p = p[1:]
	}
	if len(p) == 0 {
		return likeTrue, nil
	}
	return likeAbort, nil
}

// likeEscape is like_escape(pattern, escape): the pattern rewritten to use
// backslash as its escape character; an empty escape disables escaping.
func likeEscape(p, esc string) (string, error) {
	if esc == "" {
		return strings.ReplaceAll(p, `\`, `\\`), nil
	}
	if utf8.RuneCountInString(esc) != 1 {
		return "", pgerr.New(pgerr.InvalidEscapeSequence, "invalid escape string").
			WithHint("Escape string must be empty or one character.")
	}
	if esc == `\` {
		return p, nil
	}
	var b strings.Builder
	afterEscape := false
	for len(p) > 0 {
		n := charLen(p)
		c := p[:n]
		switch {
		case afterEscape:
			if c == `\` {
				b.WriteString(`\\`)
			} else {
				b.WriteString(`\`)
				b.WriteString(c)
			}
			afterEscape = false
		case c == esc:
			afterEscape = true
		case c == `\`:
			b.WriteString(`\\`)
		default:
			b.WriteString(c)
		}
		p = p[n:]
	}
	return b.String(), nil
}

func likeFn(not, fold bool) exec.Fn {
	return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		t, p := a[0].S, a[1].S
		if fold {
			t, p = strings.ToLower(t), strings.ToLower(p)
		}
		ok, err := likeMatch(t, p)
		return exec.DBool(ok != not), err
	}
}

func byteaLikeFn(not bool) exec.Fn {
	return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		r, err := matchBytes(a[0].S, a[1].S)
		return exec.DBool((r == likeTrue) != not), err
	}
}

func registerLike() {
	for _, op := range []struct {
		name      string
		not, fold bool
	}{{"~~", false, false}, {"!~~", true, false}, {"~~*", false, true}, {"!~~*", true, true}} {
		fn := likeFn(op.not, op.fold)
		for _, t := range []uint32{exec.OIDText, exec.OIDBpchar, exec.OIDName} {
			exec.Register(&exec.Func{Name: op.name, Args: []uint32{t, exec.OIDText}, Ret: exec.OIDBool, Strict: true, Immutable: true, Fn: fn})
		}
		if !op.fold {
			exec.Register(&exec.Func{Name: op.name, Args: []uint32{exec.OIDBytea, exec.OIDBytea}, Ret: exec.OIDBool, Strict: true, Immutable: true, Fn: byteaLikeFn(op.not)})
		}
	}
	for _, t := range []uint32{exec.OIDText, exec.OIDBytea} {
		ret := t
		exec.Register(&exec.Func{Name: "like_escape", Args: []uint32{t, t}, Ret: ret, Strict: true, Immutable: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			s, err := likeEscape(a[0].S, a[1].S)
			return exec.Datum{Kind: a[0].Kind, S: s}, err
		}})
	}
	exec.Register(&exec.Func{Name: "like", Args: []uint32{exec.OIDText, exec.OIDText}, Ret: exec.OIDBool, Strict: true, Immutable: true, Fn: likeFn(false, false)})
	exec.Register(&exec.Func{Name: "notlike", Args: []uint32{exec.OIDText, exec.OIDText}, Ret: exec.OIDBool, Strict: true, Immutable: true, Fn: likeFn(true, false)})
}

// BpcharCompareOp is a comparison between two char(n) values, which
// PostgreSQL makes without their trailing spaces (bpchareq, bpcharlt).
func BpcharCompareOp(op string) exec.Fn {
	inner := exec.CompareOp(op)
	if inner == nil {
		return nil
	}
	return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		x, y := a[0], a[1]
		x.S, y.S = bpcharTrim(x.S), bpcharTrim(y.S)
		var args [2]exec.Datum
		args[0], args[1] = x, y
		return inner(env, args[:])
	}
}
