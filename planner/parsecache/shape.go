package parsecache

import (
	"strconv"
	"strings"
)

// Literal kinds, as they appear in shapes: control bytes, so that a query
// holding any of them is not cached (shape refuses it).
const (
	kindInt    byte = 1 // an integer that fits int4: an Integer constant
	kindNumber byte = 2 // any other number: a Float constant holding its text
	kindString byte = 3 // a plain '...' string: a String constant
)

// literal is one literal of a query: sql[start:end] is its token.
type literal struct {
	start, end int
	kind       byte
}

// shape appends to key the query's shape, sql with each literal's bytes
// replaced by its kind, and to lits the literals, in order. ok is false
// when the scanner meets anything it does not follow exactly as
// PostgreSQL's lexer would (see invariant 1); the query is then not cached.
func shape(sql string, key []byte, lits []literal) (_ []byte, _ []literal, ok bool) {
	return scanShape(sql, key, lits, true)
}

// StatementKey is the query's text with each literal replaced by one byte
// of its kind, whatever its length: queries that differ only in their
// literals' values have one key (what pg_stat_statements counts together).
// ok is false when the scanner cannot follow the query (shape's rules).
func StatementKey(sql string) (string, bool) {
	key, _, ok := scanShape(sql, make([]byte, 0, len(sql)), nil, false)
	return string(key), ok
}

// scanShape is shape, each literal's bytes replaced by as many bytes of
// its kind (lengths) or by one.
func scanShape(sql string, key []byte, lits []literal, lengths bool) (_ []byte, _ []literal, ok bool) {
	width := func(n int) int {
		if lengths {
			return n
		}
		return 1
	}
	if strings.ContainsAny(sql, "\x00\x01\x02\x03") {
		return key, lits, false // a shape could not tell them from literals
	}
	i := 0
	for i < len(sql) {
		c := sql[i]
		switch {
		case isCommentStart(sql, i):
			j, ok := commentEnd(sql, i)
			if !ok {
				return key, lits, false
			}
			key = append(key, sql[i:j]...)
			i = j
		case c == '\'':
			j, ok := stringEnd(sql, i)
			if !ok {
				return key, lits, false
			}
			key = appendKind(key, kindString, width(j-i))
			lits = append(lits, literal{i, j, kindString})
			i = j
		case c == '"':
			j, ok := quotedEnd(sql, i)
			if !ok {
				return key, lits, false
			}
			key = append(key, sql[i:j]...)
			i = j
		case c == '$':
			// $1 is a parameter; anything else starts a dollar-quoted
			// string (or is an error).
			j := i + 1
			for j < len(sql) && isDigit(sql[j]) {
				j++
			}
			if j == i+1 || (j < len(sql) && isIdentChar(sql[j])) {
				return key, lits, false
			}
			key = append(key, sql[i:j]...)
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < len(sql) && isIdentChar(sql[j]) {
				j++
			}
			if j < len(sql) && prefixesString(sql[i:j], sql[j:]) {
				return key, lits, false // E'..', B'..', X'..', N'..', U&'..'
			}
			key = append(key, sql[i:j]...)
			i = j
		case isDigit(c) || (c == '.' && i+1 < len(sql) && isDigit(sql[i+1])):
			j, kind, ok := numberEnd(sql, i)
			if !ok {
				return key, lits, false
			}
			key = appendKind(key, kind, width(j-i))
			lits = append(lits, literal{i, j, kind})
			i = j
		default:
			key = append(key, c)
			i++
		}
	}
	return key, lits, true
}

func appendKind(key []byte, kind byte, n int) []byte {
	for range n {
		key = append(key, kind)
	}
	return key
}

func isCommentStart(sql string, i int) bool {
	return i+1 < len(sql) && (sql[i] == '-' && sql[i+1] == '-' || sql[i] == '/' && sql[i+1] == '*')
}

// commentEnd returns the end of the comment at sql[i:]: a line comment, or
// a block comment, which nests; ok is false for an unterminated block.
func commentEnd(sql string, i int) (end int, ok bool) {
	if sql[i] == '-' {
		j := i + 2
		for j < len(sql) && sql[j] != '\n' && sql[j] != '\r' {
			j++
		}
		return j, true
	}
	depth := 0
	for j := i; j+1 < len(sql); {
		switch {
		case sql[j] == '/' && sql[j+1] == '*':
			depth++
			j += 2
		case sql[j] == '*' && sql[j+1] == '/':
			depth--
			j += 2
			if depth == 0 {
				return j, true
			}
		default:
			j++
		}
	}
	return 0, false
}

// stringEnd returns the end of the plain string literal at sql[i:]. A
// string followed (across whitespace and comments) by another is one
// literal continued on the next line, or an error; neither is cached.
func stringEnd(sql string, i int) (int, bool) {
	j, ok := quotedEnd(sql, i)
	if !ok {
		return 0, false
	}
	for k := j; k < len(sql); {
		switch {
		case isSpace(sql[k]):
			k++
		case isCommentStart(sql, k):
			if k, ok = commentEnd(sql, k); !ok {
				return 0, false
			}
		case sql[k] == '\'':
			return 0, false
		default:
			return j, true
		}
	}
	return j, true
}

// quotedEnd returns the end of the string or quoted identifier at sql[i:],
// whose quote character doubled stands for itself.
func quotedEnd(sql string, i int) (int, bool) {
	q := sql[i]
	for j := i + 1; j < len(sql); j++ {
		if sql[j] == q {
			if j+1 < len(sql) && sql[j+1] == q {
				j++
				continue
			}
			return j + 1, true
		}
	}
	return 0, false
}

// numberEnd returns the end and kind of the numeric literal at sql[i:].
// Numbers with underscores, a base prefix, or trailing junk are refused,
// as is "1..", which PostgreSQL lexes as an integer and "..".
func numberEnd(sql string, i int) (int, byte, bool) {
	j := i
	for j < len(sql) && isDigit(sql[j]) {
		j++
	}
	integer := true
	if j < len(sql) && sql[j] == '.' {
		if j+1 < len(sql) && sql[j+1] == '.' {
			return 0, 0, false
		}
		integer = false
		j++
		for j < len(sql) && isDigit(sql[j]) {
			j++
		}
	}
	if j < len(sql) && (sql[j] == 'e' || sql[j] == 'E') {
		integer = false
		j++
		if j < len(sql) && (sql[j] == '+' || sql[j] == '-') {
			j++
		}
		if j >= len(sql) || !isDigit(sql[j]) {
			return 0, 0, false
		}
		for j < len(sql) && isDigit(sql[j]) {
			j++
		}
	}
	if j < len(sql) && (isIdentChar(sql[j]) || sql[j] == '.') {
		return 0, 0, false
	}
	if integer {
		if _, err := strconv.ParseInt(sql[i:j], 10, 32); err == nil {
			return j, kindInt, true
		}
	}
	return j, kindNumber, true
}

// prefixesString reports whether the identifier ident, followed by rest,
// is the prefix of a string or quoted identifier (E'...', U&"...").
func prefixesString(ident, rest string) bool {
	if len(ident) != 1 {
		return false
	}
	switch ident[0] {
	case 'e', 'E', 'b', 'B', 'x', 'X', 'n', 'N':
		return rest[0] == '\''
	case 'u', 'U':
		return len(rest) > 1 && rest[0] == '&' && (rest[1] == '\'' || rest[1] == '"')
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '$' }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
