package ispell

import (
	"math"
	"unicode"
	"unicode/utf8"

	"github.com/prollypg/prollypg/exec/types"
)

// The character classes below are those of a PostgreSQL database whose
// LC_CTYPE is a UTF-8 locale such as C.UTF-8 or en_US.UTF-8: single bytes
// are classified by the C library's 8-bit table (ASCII only), characters of
// several bytes by the wide-character functions, which follow Unicode.

// charLen is types.UTF8SeqLen of s[i], clamped to the end of s.
func charLen[S ~string | ~[]byte](s S, i int) int {
	n := types.UTF8SeqLen(s[i])
	if i+n > len(s) {
		n = len(s) - i
	}
	return n
}

// isSpace is isspace() for one byte: the six ASCII white-space characters.
// Bytes of multibyte characters are never space.
func isSpace(b byte) bool {
	return b == ' ' || (b >= '\t' && b <= '\r')
}

// isDigit is isdigit() for one byte.
func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// isPrint is isprint() for one byte.
func isPrint(b byte) bool { return b >= 0x20 && b < 0x7f }

// isEq is PostgreSQL's t_iseq: the character at s[i] is the one-byte
// character c.
func isEq[S ~string | ~[]byte](s S, i int, c byte) bool {
	return i < len(s) && s[i] == c
}

// isAlphaAt is PostgreSQL's t_isalpha for the character at s[i]: isalpha()
// for a one-byte character, iswalpha() for a longer one.
func isAlphaAt[S ~string | ~[]byte](s S, i int) bool {
	b := s[i]
	if b < 0x80 {
		return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	var r rune
	switch v := any(s).(type) {
	case string:
		r, _ = utf8.DecodeRuneInString(v[i:])
	case []byte:
		r, _ = utf8.DecodeRune(v[i:])
	default:
		// S is a named string or byte-slice type; none is used here.
		return false
	}
	return isWAlpha(r)
}

// isWAlpha approximates glibc's iswalpha in a UTF-8 locale, whose "alpha"
// class is Unicode's Alphabetic property plus every decimal digit that is
// not ASCII (glibc counts those as letters so that iswalnum holds for them).
func isWAlpha(r rune) bool {
	if r == utf8.RuneError {
		return false
	}
	return unicode.IsLetter(r) ||
		unicode.Is(unicode.Nl, r) ||
		unicode.Is(unicode.Other_Alphabetic, r) ||
		unicode.Is(unicode.Nd, r)
}

// lower folds s to lower case as PostgreSQL's str_tolower and lowerstr do
// in a UTF-8 database with a libc locale: character by character, each
// through towlower. Bytes that are not valid UTF-8 (which PostgreSQL never
// sees, since it validates its input) are kept as they are. When nothing
// changes, s itself is returned, without allocating.
func lower(s string) string {
	i := 0
	for i < len(s) {
		b := s[i]
		if b >= 0x80 {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError && unicode.ToLower(r) != r {
				break
			}
			i += n
			continue
		}
		if b >= 'A' && b <= 'Z' {
			break
		}
		i++
	}
	if i == len(s) {
		return s
	}
	out := make([]byte, i, len(s)+4)
	copy(out, s[:i])
	for i < len(s) {
		b := s[i]
		if b < 0x80 {
			if b >= 'A' && b <= 'Z' {
				b += 'a' - 'A'
			}
			out = append(out, b)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			out = append(out, b)
			i++
			continue
		}
		out = utf8.AppendRune(out, unicode.ToLower(r))
		i += n
	}
	return string(out)
}

// strtol is C's strtol(s, &end, 10) on a 64-bit long (types.Strtol):
// the value, the index just past the digits (0 when there were none, as
// strtol sets end to s) and whether the value overflowed (errno ERANGE),
// in which case it is clamped.
func strtol(s string) (v int64, end int, erange bool) {
	v, rest, erange := types.Strtol(s, math.MinInt64, math.MaxInt64)
	if len(rest) == len(s) {
		return 0, 0, false
	}
	return v, len(s) - len(rest), erange
}

// atoi is glibc's atoi: strtol's value cut to a C int.
func atoi(s string) int32 {
	v, _, _ := strtol(s)
	return int32(v)
}
