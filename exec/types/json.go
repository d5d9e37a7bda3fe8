package types

import (
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
)

// JSONKind is the kind of a JSONB node.
type JSONKind uint8

// The JSONB node kinds.
const (
	JSONNull JSONKind = iota
	JSONString
	JSONNumber
	JSONBool
	JSONArray
	JSONObject
)

// JSONB is a jsonb value as a tree. Objects keep their pairs in jsonb's
// order (shorter keys first, then bytewise) without duplicate keys; numbers
// are numerics in this package's canonical form. A JSONB is immutable once
// built; parsers return fresh trees that share nothing with their input.
type JSONB struct {
	Kind  JSONKind
	Bool  bool         // JSONBool
	Str   string       // JSONString
	Num   *apd.Decimal // JSONNumber
	Elems []JSONB      // JSONArray
	Pairs []JSONBPair  // JSONObject
}

// Field returns the value of key in an object, found by binary search in
// jsonb key order; ok is false if v is not an object or has no such key.
func (v *JSONB) Field(key string) (val *JSONB, ok bool) {
	if v.Kind != JSONObject {
		return nil, false
	}
	i := sort.Search(len(v.Pairs), func(i int) bool { return !jsonKeyLess(v.Pairs[i].Key, key) })
	if i < len(v.Pairs) && v.Pairs[i].Key == key {
		return &v.Pairs[i].Value, true
	}
	return nil, false
}

// Index returns element i of an array, counting from the end when i is
// negative as PostgreSQL's -> operator does; ok is false out of range or
// if v is not an array.
func (v *JSONB) Index(i int) (val *JSONB, ok bool) {
	if v.Kind != JSONArray {
		return nil, false
	}
	if i < 0 {
		i += len(v.Elems)
	}
	if i < 0 || i >= len(v.Elems) {
		return nil, false
	}
	return &v.Elems[i], true
}

// JSONBPair is one key/value pair of a JSONB object.
type JSONBPair struct {
	Key   string
	Value JSONB
}

// json token types
const (
	jtInvalid = iota
	jtString
	jtNumber
	jtObjectStart
	jtObjectEnd
	jtArrayStart
	jtArrayEnd
	jtComma
	jtColon
	jtTrue
	jtFalse
	jtNull
	jtEnd
)

// json error kinds (PostgreSQL's JsonParseErrorType)
const (
	jeSuccess = iota
	jeEscapingInvalid
	jeEscapingRequired
	jeExpectedArrayNext
	jeExpectedColon
	jeExpectedEnd
	jeExpectedJSON
	jeExpectedMore
	jeExpectedObjectFirst
	jeExpectedObjectNext
	jeExpectedString
	jeInvalidToken
	jeUnicodeCodePointZero
	jeUnicodeEscapeFormat
	jeUnicodeHighSurrogate
	jeUnicodeLowSurrogate
)

// jsonLexer is PostgreSQL's JsonLexContext over one input.
type jsonLexer struct {
	in         string
	tokStart   int // -1 at end of input
	tokEnd     int
	tokType    int
	lineNumber int
	lineStart  int
	deescape   bool   // jsonb: de-escape strings, check surrogates and \u0000
	strval     []byte // the de-escaped string of the last string token
}

var punctTokens = [256]uint8{'{': jtObjectStart, '}': jtObjectEnd, '[': jtArrayStart, ']': jtArrayEnd, ',': jtComma, ':': jtColon}

func jsonAlnum(c byte) bool {
	return isAlnum(c) || c == '_' || c >= 0x80
}

// lex reads the next token.
func (l *jsonLexer) lex() int {
	s := l.tokEnd
	for s < len(l.in) && (l.in[s] == ' ' || l.in[s] == '\t' || l.in[s] == '\n' || l.in[s] == '\r') {
		if l.in[s] == '\n' {
			l.lineNumber++
			l.lineStart = s + 1
		}
		s++
	}
	l.tokStart = s
	if s >= len(l.in) {
		l.tokStart = -1
		l.tokEnd = s
		l.tokType = jtEnd
		return jeSuccess
	}
	switch c := l.in[s]; c {
	case '{', '}', '[', ']', ',', ':':
		l.tokEnd = s + 1
		l.tokType = int(punctTokens[c])
	case '"':
		if r := l.lexString(); r != jeSuccess {
			return r
		}
		l.tokType = jtString
	case '-':
		if r := l.lexNumber(s + 1); r != jeSuccess {
			return r
		}
		l.tokType = jtNumber
	default:
		if isDigit(c) {
			if r := l.lexNumber(s); r != jeSuccess {
				return r
			}
			l.tokType = jtNumber
			return jeSuccess
		}
		p := s
		for p < len(l.in) && jsonAlnum(l.in[p]) {
			p++
		}
		if p == s {
			l.tokEnd = s + 1
			return jeInvalidToken
		}
		l.tokEnd = p
		switch l.in[s:p] {
		case "true":
			l.tokType = jtTrue
		case "false":
			l.tokType = jtFalse
		case "null":
			l.tokType = jtNull
		default:
			return jeInvalidToken
		}
	}
	return jeSuccess
}

func (l *jsonLexer) lexNumber(s int) int {
	bad := false
	n := len(l.in)
	if s < n && l.in[s] == '0' {
		s++
	} else if s < n && l.in[s] >= '1' && l.in[s] <= '9' {
		for s < n && isDigit(l.in[s]) {
			s++
		}
	} else {
		bad = true
	}
	if s < n && l.in[s] == '.' {
		s++
		if s == n || !isDigit(l.in[s]) {
			bad = true
		} else {
			for s < n && isDigit(l.in[s]) {
				s++
			}
		}
	}
	if s < n && (l.in[s] == 'e' || l.in[s] == 'E') {
		s++
		if s < n && (l.in[s] == '+' || l.in[s] == '-') {
			s++
		}
		if s == n || !isDigit(l.in[s]) {
			bad = true
		} else {
			for s < n && isDigit(l.in[s]) {
				s++
			}
		}
	}
	for s < n && jsonAlnum(l.in[s]) {
		s++
		bad = true
	}
	l.tokEnd = s
	if bad {
		return jeInvalidToken
	}
	return jeSuccess
}

func (l *jsonLexer) charEnd(s int) int {
	if s >= len(l.in) {
		return s
	}
	if l.in[s] < utf8.RuneSelf {
		return s + 1
	}
	_, n := utf8.DecodeRuneInString(l.in[s:])
	return s + n
}

func (l *jsonLexer) lexString() int {
	s := l.tokStart
	n := len(l.in)
	hi := -1
	l.strval = l.strval[:0]
	for {
		s++
		if s >= n {
			l.tokEnd = s
			return jeInvalidToken
		}
		c := l.in[s]
		if c == '"' {
			break
		}
		if c < 32 {
			l.tokEnd = s
			return jeEscapingRequired
		}
		if c == '\\' {
			s++
			if s >= n {
				l.tokEnd = s
				return jeInvalidToken
			}
			if l.in[s] == 'u' {
				ch := 0
				for i := 1; i <= 4; i++ {
					s++
					if s >= n {
						l.tokEnd = s
						return jeInvalidToken
					}
					v, ok := hexVal(l.in[s])
					if !ok {
						l.tokEnd = l.charEnd(s)
						return jeUnicodeEscapeFormat
					}
					ch = ch*16 + int(v)
				}
				if l.deescape {
					if ch >= 0xd800 && ch <= 0xdbff {
						if hi != -1 {
							l.tokEnd = l.charEnd(s)
							return jeUnicodeHighSurrogate
						}
						hi = ch
						continue
					} else if ch >= 0xdc00 && ch <= 0xdfff {
						if hi == -1 {
							l.tokEnd = l.charEnd(s)
							return jeUnicodeLowSurrogate
						}
						ch = ((hi & 0x3ff) << 10) + (ch & 0x3ff) + 0x10000
						hi = -1
					}
					if hi != -1 {
						l.tokEnd = l.charEnd(s)
						return jeUnicodeLowSurrogate
					}
					if ch == 0 {
						l.tokEnd = l.charEnd(s)
						return jeUnicodeCodePointZero
					}
					l.strval = utf8.AppendRune(l.strval, rune(ch))
				}
				continue
			}
			if l.deescape {
				if hi != -1 {
					l.tokEnd = l.charEnd(s)
					return jeUnicodeLowSurrogate
				}
				switch l.in[s] {
				case '"', '\\', '/':
					l.strval = append(l.strval, l.in[s])
				case 'b':
					l.strval = append(l.strval, '\b')
				case 'f':
					l.strval = append(l.strval, '\f')
				case 'n':
					l.strval = append(l.strval, '\n')
				case 'r':
					l.strval = append(l.strval, '\r')
				case 't':
					l.strval = append(l.strval, '\t')
				default:
					l.tokStart = s
					l.tokEnd = l.charEnd(s)
					return jeEscapingInvalid
				}
			} else {
				switch l.in[s] {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				default:
					l.tokStart = s
					l.tokEnd = l.charEnd(s)
					return jeEscapingInvalid
				}
			}
			continue
		}
		if l.deescape {
			if hi != -1 {
				l.tokEnd = l.charEnd(s)
				return jeUnicodeLowSurrogate
			}
			l.strval = append(l.strval, c)
		}
	}
	if hi != -1 {
		l.tokEnd = l.charEnd(s)
		return jeUnicodeLowSurrogate
	}
	l.tokEnd = s + 1
	return jeSuccess
}

// parseError is report_parse_error.
func (l *jsonLexer) parseError(kind int) int {
	if l.tokStart < 0 || l.tokStart >= len(l.in) {
		return jeExpectedMore
	}
	return kind
}

// jsonParser builds JSONB trees while it parses (build=false only
// validates).
type jsonParser struct {
	l     jsonLexer
	build bool
	err   error // a semantic error (numeric overflow) raised while building
}

func (p *jsonParser) parseValue(out *JSONB) int {
	switch p.l.tokType {
	case jtObjectStart:
		return p.parseObject(out)
	case jtArrayStart:
		return p.parseArray(out)
	}
	return p.parseScalar(out)
}

func (p *jsonParser) parseScalar(out *JSONB) int {
	l := &p.l
	switch l.tokType {
	case jtString, jtNumber, jtTrue, jtFalse, jtNull:
	default:
		return l.parseError(jeExpectedJSON)
	}
	if p.build {
		switch l.tokType {
		case jtString:
			*out = JSONB{Kind: JSONString, Str: string(l.strval)}
		case jtNumber:
			d := new(apd.Decimal)
			if err := ParseNumeric(d, l.in[l.tokStart:l.tokEnd]); err != nil && p.err == nil {
				p.err = err
			}
			*out = JSONB{Kind: JSONNumber, Num: d}
		case jtTrue:
			*out = JSONB{Kind: JSONBool, Bool: true}
		case jtFalse:
			*out = JSONB{Kind: JSONBool}
		default:
			*out = JSONB{Kind: JSONNull}
		}
	}
	return l.lex()
}

func (p *jsonParser) parseObject(out *JSONB) int {
	l := &p.l
	if r := l.lex(); r != jeSuccess {
		return r
	}
	var pairs []JSONBPair
	switch l.tokType {
	case jtString:
		for {
			if l.tokType != jtString {
				return l.parseError(jeExpectedString)
			}
			key := ""
			if p.build {
				key = string(l.strval)
			}
			if r := l.lex(); r != jeSuccess {
				return r
			}
			if l.tokType != jtColon {
				return l.parseError(jeExpectedColon)
			}
			if r := l.lex(); r != jeSuccess {
				return r
			}
			var v JSONB
			if r := p.parseValue(&v); r != jeSuccess {
				return r
			}
			if p.build {
				pairs = append(pairs, JSONBPair{Key: key, Value: v})
			}
			if l.tokType != jtComma {
				break
			}
			if r := l.lex(); r != jeSuccess {
				return r
			}
		}
	case jtObjectEnd:
	default:
		return l.parseError(jeExpectedObjectFirst)
	}
	if l.tokType != jtObjectEnd {
		return l.parseError(jeExpectedObjectNext)
	}
	if p.build {
		*out = JSONB{Kind: JSONObject, Pairs: uniqueSortPairs(pairs)}
	}
	return l.lex()
}

func (p *jsonParser) parseArray(out *JSONB) int {
	l := &p.l
	if r := l.lex(); r != jeSuccess {
		return r
	}
	var elems []JSONB
	if l.tokType != jtArrayEnd {
		for {
			var v JSONB
			if r := p.parseValue(&v); r != jeSuccess {
				return r
			}
			if p.build {
				elems = append(elems, v)
			}
			if l.tokType != jtComma {
				break
			}
			if r := l.lex(); r != jeSuccess {
				return r
			}
		}
	}
	if l.tokType != jtArrayEnd {
		return l.parseError(jeExpectedArrayNext)
	}
	if p.build {
		if elems == nil {
			elems = []JSONB{}
		}
		*out = JSONB{Kind: JSONArray, Elems: elems}
	}
	return l.lex()
}

// jsonKeyLess is jsonb's key order: shorter first, then bytewise.
func jsonKeyLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// uniqueSortPairs sorts pairs in jsonb key order, keeping the last of
// duplicate keys, as uniqueifyJsonbObject does.
func uniqueSortPairs(pairs []JSONBPair) []JSONBPair {
	if pairs == nil {
		return []JSONBPair{}
	}
	if len(pairs) <= 16 {
		for i := 1; i < len(pairs); i++ {
			for j := i; j > 0 && jsonKeyLess(pairs[j].Key, pairs[j-1].Key); j-- {
				pairs[j], pairs[j-1] = pairs[j-1], pairs[j]
			}
		}
	} else {
		sort.SliceStable(pairs, func(i, j int) bool { return jsonKeyLess(pairs[i].Key, pairs[j].Key) })
	}
	out := pairs[:0]
	for i := 0; i < len(pairs); i++ {
		if i+1 < len(pairs) && pairs[i+1].Key == pairs[i].Key {
			continue // a later duplicate wins
		}
		out = append(out, pairs[i])
	}
	return out
}

func (p *jsonParser) run(out *JSONB) int {
	l := &p.l
	l.lineNumber = 1
	if r := l.lex(); r != jeSuccess {
		return r
	}
	if r := p.parseValue(out); r != jeSuccess {
		return r
	}
	if l.tokType != jtEnd {
		return l.parseError(jeExpectedEnd)
	}
	return jeSuccess
}

// jsonError is json_ereport_error for error kind r.
func (l *jsonLexer) jsonError(r int) error {
	tok := ""
	if l.tokStart >= 0 && l.tokStart <= l.tokEnd && l.tokEnd <= len(l.in) {
		tok = l.in[l.tokStart:l.tokEnd]
	}
	var detail string
	switch r {
	case jeEscapingInvalid:
		detail = fmt.Sprintf("Escape sequence \"\\%s\" is invalid.", tok)
	case jeEscapingRequired:
		detail = fmt.Sprintf("Character with value 0x%02x must be escaped.", l.in[l.tokEnd])
	case jeExpectedEnd:
		detail = fmt.Sprintf("Expected end of input, but found \"%s\".", tok)
	case jeExpectedArrayNext:
		detail = fmt.Sprintf("Expected \",\" or \"]\", but found \"%s\".", tok)
	case jeExpectedColon:
		detail = fmt.Sprintf("Expected \":\", but found \"%s\".", tok)
	case jeExpectedJSON:
		detail = fmt.Sprintf("Expected JSON value, but found \"%s\".", tok)
	case jeExpectedMore:
		detail = "The input string ended unexpectedly."
	case jeExpectedObjectFirst:
		detail = fmt.Sprintf("Expected string or \"}\", but found \"%s\".", tok)
	case jeExpectedObjectNext:
		detail = fmt.Sprintf("Expected \",\" or \"}\", but found \"%s\".", tok)
	case jeExpectedString:
		detail = fmt.Sprintf("Expected string, but found \"%s\".", tok)
	case jeInvalidToken:
		detail = fmt.Sprintf("Token \"%s\" is invalid.", tok)
	case jeUnicodeCodePointZero:
		detail = "\\u0000 cannot be converted to text."
	case jeUnicodeEscapeFormat:
		detail = "\"\\u\" must be followed by four hexadecimal digits."
	case jeUnicodeHighSurrogate:
		detail = "Unicode high surrogate must not follow a high surrogate."
	case jeUnicodeLowSurrogate:
		detail = "Unicode low surrogate must follow a high surrogate."
	}
	e := &Error{Code: CodeInvalidTextRepresentation, Message: "invalid input syntax for type json", Detail: detail, Where: l.context()}
	if r == jeUnicodeCodePointZero {
		e.Code = CodeUntranslatableCharacter
		e.Message = "unsupported Unicode escape sequence"
	}
	return e
}

// context is report_json_context: the current line up to the end of the
// offending token, at most about 50 bytes of it.
func (l *jsonLexer) context() string {
	lineStart := l.lineStart
	end := l.tokEnd
	if end > len(l.in) {
		end = len(l.in)
	}
	start := lineStart
	for end-start >= 50 {
		if l.in[start] >= 0x80 {
			_, n := utf8.DecodeRuneInString(l.in[start:])
			start += n
		} else {
			start++
		}
	}
	if start-lineStart <= 3 {
		start = lineStart
	}
	prefix, suffix := "", ""
	if start > lineStart {
		prefix = "..."
	}
	if l.tokType != jtEnd && end < len(l.in) && l.in[end] != '\n' && l.in[end] != '\r' {
		suffix = "..."
	}
	return fmt.Sprintf("JSON data, line %d: %s%s%s", l.lineNumber, prefix, l.in[start:end], suffix)
}

// ValidateJSON is json_in: it checks that s is valid JSON. A json value is
// stored and printed exactly as given.
func ValidateJSON(s string) error {
	p := jsonParser{l: jsonLexer{in: s}}
	if r := p.run(nil); r != jeSuccess {
		return p.l.jsonError(r)
	}
	return nil
}

// ParseJSONB is jsonb_in.
func ParseJSONB(s string) (JSONB, error) {
	p := jsonParser{l: jsonLexer{in: s, deescape: true}, build: true}
	var out JSONB
	if r := p.run(&out); r != jeSuccess {
		return JSONB{}, p.l.jsonError(r)
	}
	if p.err != nil {
		return JSONB{}, p.err
	}
	return out, nil
}

// AppendJSONB appends jsonb_out's text: `{"a": 1, "b": [1, 2]}`.
func AppendJSONB(dst []byte, v *JSONB) []byte {
	switch v.Kind {
	case JSONNull:
		return append(dst, "null"...)
	case JSONBool:
		if v.Bool {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case JSONNumber:
		if v.Num == nil {
			return append(dst, '0')
		}
		return AppendNumeric(dst, v.Num)
	case JSONString:
		return AppendJSONString(dst, v.Str)
	case JSONArray:
		dst = append(dst, '[')
		for i := range v.Elems {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendJSONB(dst, &v.Elems[i])
		}
		return append(dst, ']')
	case JSONObject:
		dst = append(dst, '{')
		for i := range v.Pairs {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendJSONString(dst, v.Pairs[i].Key)
			dst = append(dst, ": "...)
			dst = AppendJSONB(dst, &v.Pairs[i].Value)
		}
		return append(dst, '}')
	}
	return dst
}

// AppendJSONString appends s as a JSON string literal the way PostgreSQL's
// escape_json does.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		default:
			if c < ' ' {
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			} else {
				dst = append(dst, c)
			}
		}
	}
	return append(dst, '"')
}

// AppendJSONBBinary appends jsonb_send's format: version byte 1, then the
// text form.
func AppendJSONBBinary(dst []byte, v *JSONB) []byte {
	dst = append(dst, 1)
	return AppendJSONB(dst, v)
}

// ParseJSONBBinary is jsonb_recv.
func ParseJSONBBinary(b []byte) (JSONB, error) {
	if len(b) < 1 {
		return JSONB{}, errInsufficientData
	}
	if b[0] != 1 {
		return JSONB{}, newError(CodeInternalError, "unsupported jsonb version number %d", b[0])
	}
	if err := ValidateUTF8(b[1:]); err != nil {
		return JSONB{}, err
	}
	return ParseJSONB(string(b[1:]))
}

// ParseJSONBinary is json_recv: the text, validated.
func ParseJSONBinary(b []byte) (string, error) {
	if err := ValidateUTF8(b); err != nil {
		return "", err
	}
	s := string(b)
	if err := ValidateJSON(s); err != nil {
		return "", err
	}
	return s, nil
}
