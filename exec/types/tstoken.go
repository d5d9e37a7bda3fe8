package types

// tsTokenizer reads the lexemes of tsvector and tsquery text input, as
// PostgreSQL's gettoken_tsvector: a word ends at a space (or, in a query,
// at an operator character or a colon); '...' quotes, with ” for a quote;
// a backslash escapes any character. In a tsvector a word may carry
// positions (word:1,2A). Web search input (websearch_to_tsquery) has
// neither quoting nor escapes and ends words at a double quote.
type tsTokenizer struct {
	in    string
	at    int    // next byte to read
	typ   string // "tsvector" or "tsquery", for messages
	query bool   // operators delimit words; no positions
	web   bool   // websearch_to_tsquery's variant
}

// The tokenizer's states, named as in PostgreSQL.
const (
	tsWaitWord = iota
	tsWaitEndWord
	tsWaitNextChar
	tsWaitEndCmplx
	tsWaitCharCmplx
	tsWaitPosInfo
	tsInPosInfo
	tsWaitPosDelim
)

func tsIsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func tsIsDigit(c byte) bool { return '0' <= c && c <= '9' }

// tsIsOperator reports whether c is one of the characters that end a word
// in a tsquery.
func tsIsOperator(c byte) bool {
	return c == '!' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<'
}

func (t *tsTokenizer) syntaxError() error {
	return newError(CodeSyntaxError, "syntax error in %s: \"%s\"", t.typ, t.in)
}

// next returns the next word and its positions; ok is false at the end of
// the input. It leaves t.at on the byte after the token (in a query, on
// the operator or colon that ended it).
func (t *tsTokenizer) next() (word string, pos []TSPosition, ok bool, err error) {
	state, oldState := tsWaitWord, tsWaitWord
	var buf []byte
	for ; ; t.at++ {
		var c byte // 0 at the end of the input, as C's NUL
		if t.at < len(t.in) {
			c = t.in[t.at]
		}
		switch state {
		case tsWaitWord:
			switch {
			case c == 0:
				return "", nil, false, nil
			case !t.web && c == '\'':
				state = tsWaitEndCmplx
			case !t.web && c == '\\':
				state, oldState = tsWaitNextChar, tsWaitEndWord
			case t.query && tsIsOperator(c) || t.web && c == '"':
				return "", nil, false, t.syntaxError()
			case !tsIsSpace(c):
				buf = append(buf, c)
				state = tsWaitEndWord
			}
		case tsWaitNextChar:
			if c == 0 {
				return "", nil, false, newError(CodeSyntaxError, "there is no escaped character: \"%s\"", t.in)
			}
			buf = append(buf, c)
			state = oldState
		case tsWaitEndWord:
			switch {
			case !t.web && c == '\\':
				state, oldState = tsWaitNextChar, tsWaitEndWord
			case tsIsSpace(c) || c == 0 || t.query && tsIsOperator(c) || t.web && c == '"':
				if len(buf) == 0 {
					return "", nil, false, t.syntaxError()
				}
				return string(buf), nil, true, nil
			case c == ':':
				if len(buf) == 0 {
					return "", nil, false, t.syntaxError()
				}
				if t.query {
					return string(buf), nil, true, nil
				}
				state = tsInPosInfo
			default:
				buf = append(buf, c)
			}
		case tsWaitEndCmplx:
			switch {
			case !t.web && c == '\'':
				state = tsWaitCharCmplx
			case !t.web && c == '\\':
				state, oldState = tsWaitNextChar, tsWaitEndCmplx
			case c == 0:
				return "", nil, false, t.syntaxError()
			default:
				buf = append(buf, c)
			}
		case tsWaitCharCmplx:
			if !t.web && c == '\'' {
				buf = append(buf, c)
				state = tsWaitEndCmplx
				continue
			}
			if len(buf) == 0 {
				return "", nil, false, t.syntaxError()
			}
			if t.query {
				return string(buf), nil, true, nil
			}
			state = tsWaitPosInfo
			t.at-- // look at this character again
		case tsWaitPosInfo:
			if c != ':' {
				return string(buf), nil, true, nil
			}
			state = tsInPosInfo
		case tsInPosInfo:
			if !tsIsDigit(c) {
				return "", nil, false, t.syntaxError()
			}
			// atoi reads every digit; the digits after the first are
			// then skipped by the delimiter state.
			n := 0
			for i := t.at; i < len(t.in) && tsIsDigit(t.in[i]); i++ {
				n = min(n*10+int(t.in[i]-'0'), TSMaxPosition+1)
			}
			if n == 0 {
				return "", nil, false, newError(CodeSyntaxError, "wrong position info in tsvector: \"%s\"", t.in)
			}
			pos = append(pos, NewTSPosition(n, 0))
			state = tsWaitPosDelim
		case tsWaitPosDelim:
			last := &pos[len(pos)-1]
			weight := -1
			switch c {
			case ',':
				state = tsInPosInfo
			case 'a', 'A', '*':
				weight = 3
			case 'b', 'B':
				weight = 2
			case 'c', 'C':
				weight = 1
			case 'd', 'D':
				weight = 0
			default:
				if tsIsSpace(c) || c == 0 {
					return string(buf), pos, true, nil
				}
				if !tsIsDigit(c) {
					return "", nil, false, t.syntaxError()
				}
			}
			if weight >= 0 {
				if last.Weight() != 0 {
					return "", nil, false, t.syntaxError()
				}
				*last = last.WithWeight(uint8(weight))
			}
		}
	}
}
