package funcs

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The token types of PostgreSQL's default text search parser, numbered
// as ts_token_type('default') lists them.
const (
	tokASCIIWord      = 1
	tokWord           = 2
	tokNumWord        = 3
	tokEmail          = 4
	tokURL            = 5
	tokHost           = 6
	tokSFloat         = 7
	tokVersion        = 8
	tokHWordNumPart   = 9
	tokHWordPart      = 10
	tokHWordASCIIPart = 11
	tokBlank          = 12
	tokTag            = 13
	tokProtocol       = 14
	tokNumHWord       = 15
	tokASCIIHWord     = 16
	tokHWord          = 17
	tokURLPath        = 18
	tokFile           = 19
	tokFloat          = 20
	tokInt            = 21
	tokUint           = 22
	tokEntity         = 23
	tokTypes          = 23
)

// tokenTypes are the aliases and descriptions of the token types, by
// number less one.
var tokenTypes = [tokTypes]struct{ alias, description string }{
	{"asciiword", "Word, all ASCII"},
	{"word", "Word, all letters"},
	{"numword", "Word, letters and digits"},
	{"email", "Email address"},
	{"url", "URL"},
	{"host", "Host"},
	{"sfloat", "Scientific notation"},
	{"version", "Version number"},
	{"hword_numpart", "Hyphenated word part, letters and digits"},
	{"hword_part", "Hyphenated word part, all letters"},
	{"hword_asciipart", "Hyphenated word part, all ASCII"},
	{"blank", "Space symbols"},
	{"tag", "XML tag"},
	{"protocol", "Protocol head"},
	{"numhword", "Hyphenated word, letters and digits"},
	{"asciihword", "Hyphenated word, all ASCII"},
	{"hword", "Hyphenated word, all letters"},
	{"url_path", "URL path"},
	{"file", "File or path name"},
	{"float", "Decimal notation"},
	{"int", "Signed integer"},
	{"uint", "Unsigned integer"},
	{"entity", "XML entity"},
}

// textToken is one token of a document: its type and its text.
type textToken struct {
	typ  int
	text string
}

// parseText splits a document into tokens as PostgreSQL's default parser
// does for the kinds of text people search: words (hyphenated ones also
// as their parts), numbers, e-mail addresses, hosts, URLs (with their host
// and path), file names, XML tags and entities; everything else is blank.
// It is a scanner written for those token rules, not a copy of
// PostgreSQL's state machine, so unusual mixtures may split differently.
func parseText(s string) []textToken {
	var toks []textToken
	blankFrom := -1
	flushBlank := func(i int) {
		if blankFrom >= 0 {
			toks = append(toks, textToken{tokBlank, s[blankFrom:i]})
			blankFrom = -1
		}
	}
	for i := 0; i < len(s); {
		found, end := scanToken(s, i)
		if found == nil {
			if s[i] == '<' {
				// What might have been a tag begins a blank of its own.
				flushBlank(i)
			}
			if blankFrom < 0 {
				blankFrom = i
			}
			_, n := utf8.DecodeRuneInString(s[i:])
			i += n
			continue
		}
		flushBlank(i)
		toks = append(toks, found...)
		i = end
	}
	flushBlank(len(s))
	return toks
}

// scanToken returns the tokens that start at s[i:] and where they end, or
// nil if a blank character is there.
func scanToken(s string, i int) ([]textToken, int) {
	c := s[i]
	switch {
	case c == '<':
		if end := scanTag(s, i); end > 0 {
			return []textToken{{tokTag, s[i:end]}}, end
		}
		return nil, 0
	case c == '&':
		if end := scanEntity(s, i); end > 0 {
			return []textToken{{tokEntity, s[i:end]}}, end
		}
		return nil, 0
	case c == '/':
		if end := scanFilePath(s, i); end > i+1 {
			return []textToken{{tokFile, s[i:end]}}, end
		}
		return nil, 0
	case c == '+' || c == '-':
		if i+1 < len(s) && isDigit(s[i+1]) {
			return scanNumber(s, i)
		}
		return nil, 0
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	if !isWordRune(r) {
		return nil, 0
	}
	if end := scanProtocol(s, i); end > 0 {
		return []textToken{{tokProtocol, s[i:end]}}, end
	}
	if toks, end := scanEmail(s, i); end > 0 {
		return toks, end
	}
	if toks, end := scanHost(s, i); end > 0 {
		return toks, end
	}
	if isDigit(c) {
		if j := digitsEnd(s, i); j >= len(s) || !isWordRune(firstRune(s[j:])) || s[j] == '.' || s[j] == 'e' || s[j] == 'E' {
			if toks, end := scanNumber(s, i); end > 0 {
				return toks, end
			}
		}
	}
	return scanWord(s, i)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isWordRune(r rune) bool { return unicode.IsLetter(r) || r < utf8.RuneSelf && isDigit(byte(r)) }

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }

func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// wordEnd returns the end of the run of letters and digits at s[i:].
func wordEnd(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			break
		}
		i += n
	}
	return i
}

// scanTag reads <name attr="v" ...> or </name>, returning its end or 0.
func scanTag(s string, i int) int {
	j := i + 1
	if j < len(s) && (s[j] == '/' || s[j] == '?' || s[j] == '!') {
		j++
	}
	name := func() bool {
		if j >= len(s) || !(s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] == '_') {
			return false
		}
		for j < len(s) && (isASCIIAlnum(s[j]) || strings.IndexByte("_:.-", s[j]) >= 0) {
			j++
		}
		return true
	}
	if !name() {
		return 0
	}
	for {
		spaces := j
		for j < len(s) && isSpaceByte(s[j]) {
			j++
		}
		if j >= len(s) {
			return 0
		}
		switch s[j] {
		case '>':
			return j + 1
		case '/', '?':
			if j+1 < len(s) && s[j+1] == '>' {
				return j + 2
			}
			return 0
		}
		if j == spaces || !name() {
			return 0
		}
		if j < len(s) && s[j] == '=' {
			j++
			if j < len(s) && (s[j] == '"' || s[j] == '\'') {
				q := s[j]
				end := strings.IndexByte(s[j+1:], q)
				if end < 0 {
					return 0
				}
				j += end + 2
			} else {
				for j < len(s) && !isSpaceByte(s[j]) && s[j] != '>' {
					j++
				}
			}
		}
	}
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isASCIIAlnum(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// scanEntity reads &name; &#123; or &#x7b;, returning its end or 0.
func scanEntity(s string, i int) int {
	j := i + 1
	switch {
	case j+1 < len(s) && s[j] == '#' && (s[j+1] == 'x' || s[j+1] == 'X'):
		j += 2
		k := j
		for j < len(s) && strings.IndexByte("0123456789abcdefABCDEF", s[j]) >= 0 {
			j++
		}
		if j == k {
			return 0
		}
	case j < len(s) && s[j] == '#':
		j++
		k := j
		j = digitsEnd(s, j)
		if j == k {
			return 0
		}
	default:
		k := j
		for j < len(s) && isASCIIAlnum(s[j]) {
			j++
		}
		if j == k || isDigit(s[k]) {
			return 0
		}
	}
	if j < len(s) && s[j] == ';' {
		return j + 1
	}
	return 0
}

// scanProtocol reads letters followed by "://", returning its end or 0.
func scanProtocol(s string, i int) int {
	j := i
	for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
		j++
	}
	if j > i && strings.HasPrefix(s[j:], "://") {
		return j + 3
	}
	return 0
}

// hostEnd reads a host name (labels of letters, digits, '-' and '_'
// joined by dots) at s[i:] and returns its end, or 0 if there is none: a
// host has two labels at least, the last of two characters or more and
// not all digits.
func hostEnd(s string, i int) int {
	j, labels := i, 0
	lastFrom := i
	for {
		k := j
		for j < len(s) && (isWordRune(firstRune(s[j:])) || j > k && (s[j] == '-' || s[j] == '_')) {
			_, n := utf8.DecodeRuneInString(s[j:])
			j += n
		}
		if j == k || s[j-1] == '-' || s[j-1] == '_' {
			return 0
		}
		labels++
		lastFrom = k
		if j+1 < len(s) && s[j] == '.' && isWordRune(firstRune(s[j+1:])) {
			j++
			continue
		}
		break
	}
	last := s[lastFrom:j]
	if labels < 2 || utf8.RuneCountInString(last) < 2 || digitsEnd(last, 0) == len(last) {
		return 0
	}
	return j
}

// scanEmail reads local@host.
func scanEmail(s string, i int) ([]textToken, int) {
	j := i
	for j < len(s) && (isASCIIAlnum(s[j]) || strings.IndexByte("._+-", s[j]) >= 0) {
		j++
	}
	if j == i || j+1 >= len(s) || s[j] != '@' {
		return nil, 0
	}
	end := hostEnd(s, j+1)
	if end == 0 {
		return nil, 0
	}
	return []textToken{{tokEmail, s[i:end]}}, end
}

// urlPathEnd returns the end of a URL path at s[i:] ('/' and at least one
// more character), or i.
func urlPathEnd(s string, i int) int {
	if i >= len(s) || s[i] != '/' {
		return i
	}
	j := i + 1
	for j < len(s) && (isASCIIAlnum(s[j]) || strings.IndexByte("/-_.~?=&%+:;,#@!$*()'", s[j]) >= 0 || s[j] >= utf8.RuneSelf) {
		j++
	}
	if j == i+1 {
		return i
	}
	return j
}

// scanFilePath reads a path of letters, digits, '.', '_', '-' and '/'.
func scanFilePath(s string, i int) int {
	j := i
	for j < len(s) && (isWordRune(firstRune(s[j:])) || strings.IndexByte("._-/", s[j]) >= 0) {
		_, n := utf8.DecodeRuneInString(s[j:])
		j += n
	}
	for j > i && (s[j-1] == '.' || s[j-1] == '-') {
		j--
	}
	return j
}

// scanHost reads a host (with a port), a URL (a host and a path) or a file
// name (dotted or with slashes).
func scanHost(s string, i int) ([]textToken, int) {
	// A number such as 4.2 or 1.2.3 is not a host.
	if j := digitsEnd(s, i); j > i && j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
		return nil, 0
	}
	if end := hostEnd(s, i); end > 0 {
		host := end
		if end+1 < len(s) && s[end] == ':' && isDigit(s[end+1]) {
			host = digitsEnd(s, end+1)
		}
		if path := urlPathEnd(s, host); path > host {
			return []textToken{{tokURL, s[i:path]}, {tokHost, s[i:host]}, {tokURLPath, s[host:path]}}, path
		}
		return []textToken{{tokHost, s[i:host]}}, host
	}
	// A name with a dot or a slash is a file name.
	end := scanFilePath(s, i)
	name := s[i:end]
	if strings.ContainsAny(name, "/") || dottedName(name) {
		return []textToken{{tokFile, name}}, end
	}
	return nil, 0
}

// dottedName reports whether name is words joined by dots (gist.h).
func dottedName(name string) bool {
	parts := strings.Split(name, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || wordEnd(p, 0) != len(p) {
			return false
		}
	}
	return true
}

// scanNumber reads an optionally signed number: an integer, a decimal, a
// number with an exponent, or a version (two dots or more).
func scanNumber(s string, i int) ([]textToken, int) {
	j := i
	signed := s[j] == '+' || s[j] == '-'
	if signed {
		j++
	}
	k := j
	j = digitsEnd(s, j)
	if j == k {
		return nil, 0
	}
	typ := tokUint
	if signed {
		typ = tokInt
	}
	dots := 0
	for j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
		j = digitsEnd(s, j+1)
		dots++
	}
	switch {
	case dots >= 2 && !signed:
		typ = tokVersion
	case dots == 1:
		typ = tokFloat
	}
	if dots <= 1 && j+1 < len(s) && (s[j] == 'e' || s[j] == 'E') {
		e := j + 1
		if e < len(s) && (s[e] == '+' || s[e] == '-') {
			e++
		}
		if e < len(s) && isDigit(s[e]) {
			j = digitsEnd(s, e)
			typ = tokSFloat
		}
	}
	return []textToken{{typ, s[i:j]}}, j
}

// wordKind classifies a run of letters and digits: ASCII letters only,
// letters only, or letters and digits.
func wordKind(w string) int {
	kind := tokASCIIWord
	for _, r := range w {
		switch {
		case r < utf8.RuneSelf && isDigit(byte(r)):
			return tokNumWord
		case r >= utf8.RuneSelf:
			kind = tokWord
		}
	}
	return kind
}

// scanWord reads a word, or a hyphenated word followed by its parts.
func scanWord(s string, i int) ([]textToken, int) {
	end := wordEnd(s, i)
	parts := []string{s[i:end]}
	for end+1 < len(s) && s[end] == '-' && isWordRune(firstRune(s[end+1:])) {
		next := wordEnd(s, end+1)
		part := s[end+1 : next]
		// readline-4.2 is a word and a number.
		if digitsEnd(part, 0) == len(part) && next+1 < len(s) && s[next] == '.' && isDigit(s[next+1]) {
			break
		}
		parts = append(parts, part)
		end = next
	}
	if len(parts) == 1 {
		return []textToken{{wordKind(parts[0]), parts[0]}}, end
	}
	compound := tokASCIIHWord
	toks := []textToken{{}}
	for i, p := range parts {
		if i > 0 {
			toks = append(toks, textToken{tokBlank, "-"})
		}
		typ := tokHWordASCIIPart
		switch wordKind(p) {
		case tokNumWord:
			typ, compound = tokHWordNumPart, tokNumHWord
		case tokWord:
			typ = tokHWordPart
			if compound == tokASCIIHWord {
				compound = tokHWord
			}
		}
		toks = append(toks, textToken{typ, p})
	}
	toks[0] = textToken{compound, s[i:end]}
	return toks, end
}
