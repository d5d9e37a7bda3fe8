package types

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strings"
	"unicode/utf8"
)

// TSOp is the kind of a tsquery node; the operators have PostgreSQL's
// codes (OP_NOT 1 to OP_PHRASE 4), which its binary format carries.
type TSOp uint8

// The tsquery node kinds.
const (
	TSValue  TSOp = iota // a lexeme
	TSNot                // !
	TSAnd                // &
	TSOr                 // |
	TSPhrase             // <N>, <-> being <1>
	tsStop               // a stop word's place, removed by CleanStopWords
)

// tsPriority is PostgreSQL's tsearch_op_priority: ! binds tightest, then
// <->, &, |.
func (op TSOp) priority() int {
	switch op {
	case TSNot:
		return 4
	case TSPhrase:
		return 3
	case TSAnd:
		return 2
	case TSOr:
		return 1
	}
	return 0
}

// The weights a tsquery lexeme may be restricted to (:AB), as bits.
const (
	TSWeightD uint8 = 1 << iota
	TSWeightC
	TSWeightB
	TSWeightA
)

// TSQueryNode is a node of a tsquery: a lexeme (TSValue), ! over Right, or
// a binary operator over Left and Right. Nodes in a Datum are never
// modified; functions that change a query copy the nodes they change.
type TSQueryNode struct {
	Op       TSOp
	Lexeme   string // TSValue: the lexeme
	Weights  uint8  // TSValue: TSWeight bits, 0 for any
	Prefix   bool   // TSValue: :* matches lexemes beginning with Lexeme
	Distance int16  // TSPhrase: the distance, 0 to TSMaxPosition+1
	Left     *TSQueryNode
	Right    *TSQueryNode
}

// TSQuery is a tsquery; a nil Root is the empty query, which matches
// nothing.
type TSQuery struct {
	Root *TSQueryNode
}

// TSQueryOperand turns an operand of query text into nodes: the operand as
// written for tsquery input, the normalized lexemes of a text search
// configuration for to_tsquery. It appends to out the operand's items in
// postfix order (operands before their operator) and returns it;
// PushStop marks a stop word's place.
type TSQueryOperand func(out []*TSQueryNode, word string, weights uint8, prefix bool) ([]*TSQueryNode, error)

// ParseTSQuery reads tsquery text input (tsqueryin): lexemes as a tsvector
// writes them, with :* and weights, combined by ! & | <N> <-> and
// parentheses. notice is the NOTICE PostgreSQL raises for a query without
// lexemes (the empty query), or "".
func ParseTSQuery(s string) (q TSQuery, notice string, err error) {
	return ParseTSQueryWith(s, TSQueryStandard, func(out []*TSQueryNode, word string, weights uint8, prefix bool) ([]*TSQueryNode, error) {
		return append(out, &TSQueryNode{Lexeme: word, Weights: weights, Prefix: prefix}), nil
	})
}

// PushStop appends a stop word's place to a postfix list.
func PushStop(out []*TSQueryNode) []*TSQueryNode { return append(out, &TSQueryNode{Op: tsStop}) }

// PushOp appends an operator to a postfix list; distance counts for
// TSPhrase only.
func PushOp(out []*TSQueryNode, op TSOp, distance int16) []*TSQueryNode {
	if op != TSPhrase {
		distance = 0
	}
	return append(out, &TSQueryNode{Op: op, Distance: distance})
}

// tsQueryParser is PostgreSQL's tsquery parser state: a tokenizer over the
// input, the state (waiting for an operand or an operator) and the depth
// of open parentheses.
type tsQueryParser struct {
	tok         tsTokenizer
	syntax      TSQuerySyntax
	operand     TSQueryOperand
	waitOperand bool
	first       bool // no operand yet: the end of input is an empty query
	depth       int
	out         []*TSQueryNode // postfix
}

const (
	tsTokEnd = iota
	tsTokVal
	tsTokOp
	tsTokOpen
	tsTokClose
	tsTokErr
)

// TSQuerySyntax selects how query text reads.
type TSQuerySyntax uint8

// The query syntaxes.
const (
	TSQueryStandard  TSQuerySyntax = iota // tsquery input and to_tsquery
	TSQueryPlain                          // plainto_tsquery, phraseto_tsquery: the whole text is one operand
	TSQueryWebSearch                      // websearch_to_tsquery: "quoted phrases", or, -word
)

// ParseTSQueryWith parses query text in a syntax, turning each operand
// into nodes with operand; the result has stop words removed
// (CleanStopWords). notice is as for ParseTSQuery, or PostgreSQL's NOTICE
// for a query of stop words only.
func ParseTSQueryWith(s string, syntax TSQuerySyntax, operand TSQueryOperand) (q TSQuery, notice string, err error) {
	return parseTSQuery(tsTokenizer{in: s, typ: "tsquery", query: true, web: syntax == TSQueryWebSearch}, syntax, operand)
}

// Notices of queries without lexemes.
const (
	tsNoLexemes     = "text-search query doesn't contain lexemes: \"%s\""
	TSOnlyStopWords = "text-search query contains only stop words or doesn't contain lexemes, ignored"
)

func parseTSQuery(tok tsTokenizer, syntax TSQuerySyntax, operand TSQueryOperand) (q TSQuery, notice string, err error) {
	p := &tsQueryParser{tok: tok, syntax: syntax, operand: operand, waitOperand: true, first: true}
	if err := p.makepol(); err != nil {
		return TSQuery{}, "", err
	}
	if len(p.out) == 0 {
		return TSQuery{}, fmt.Sprintf(tsNoLexemes, tok.in), nil
	}
	root, err := fromPostfix(p.out, tok.in)
	if err != nil {
		return TSQuery{}, "", err
	}
	if HasStopWords(root) {
		if root = CleanStopWords(root); root == nil {
			return TSQuery{}, TSOnlyStopWords, nil
		}
	}
	return TSQuery{Root: root}, "", nil
}

// fromPostfix builds the tree of a postfix item list.
func fromPostfix(items []*TSQueryNode, s string) (*TSQueryNode, error) {
	var stack []*TSQueryNode
	for _, it := range items {
		switch it.Op {
		case TSValue, tsStop:
			stack = append(stack, it)
		case TSNot:
			if len(stack) < 1 {
				return nil, newError(CodeSyntaxError, "syntax error in tsquery: \"%s\"", s)
			}
			it.Right = stack[len(stack)-1]
			stack[len(stack)-1] = it
		default:
			if len(stack) < 2 {
				return nil, newError(CodeSyntaxError, "syntax error in tsquery: \"%s\"", s)
			}
			it.Left, it.Right = stack[len(stack)-2], stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			stack[len(stack)-1] = it
		}
	}
	if len(stack) != 1 {
		return nil, newError(CodeSyntaxError, "syntax error in tsquery: \"%s\"", s)
	}
	return stack[0], nil
}

// makepol is PostgreSQL's makepol: operators wait on a stack until one of
// lower priority (or a closing parenthesis) comes; ! is right-associative.
func (p *tsQueryParser) makepol() error {
	type pending struct {
		op       TSOp
		distance int16
	}
	var stack []pending
	clean := func(op TSOp) {
		for len(stack) > 0 {
			top := stack[len(stack)-1]
			if op != TSNot && op.priority() > top.op.priority() || op == TSNot && op.priority() >= top.op.priority() {
				break
			}
			stack = stack[:len(stack)-1]
			p.out = PushOp(p.out, top.op, top.distance)
		}
	}
	for {
		tok, op, distance, err := p.token()
		if err != nil {
			return err
		}
		switch tok {
		case tsTokEnd:
			clean(TSOr)
			return nil
		case tsTokOp:
			clean(op)
			stack = append(stack, pending{op, distance})
		case tsTokOpen:
			if err := p.makepol(); err != nil {
				return err
			}
		case tsTokClose:
			clean(TSOr)
			return nil
		case tsTokErr:
			return p.tok.syntaxError()
		}
	}
}

// token reads the next token (gettoken_query_standard); a value is pushed
// through the operand function at once.
func (p *tsQueryParser) token() (tok int, op TSOp, distance int16, err error) {
	switch p.syntax {
	case TSQueryPlain:
		if p.tok.at >= len(p.tok.in) {
			return tsTokEnd, 0, 0, nil
		}
		word := p.tok.in[p.tok.at:]
		p.tok.at = len(p.tok.in)
		p.out, err = p.operand(p.out, word, 0, false)
		return tsTokVal, 0, 0, err
	case TSQueryWebSearch:
		return p.webToken()
	}
	in := p.tok.in
	for ; ; p.tok.at++ {
		c := p.peek()
		if p.waitOperand {
			switch {
			case c == '!':
				return p.not()
			case c == '(':
				p.tok.at++
				p.first = false
				p.depth++
				return tsTokOpen, 0, 0, nil
			case c == ':':
				return tsTokErr, 0, 0, nil
			case !tsIsSpace(c):
				word, _, ok, err := p.tok.next()
				if err != nil {
					return 0, 0, 0, err
				}
				if !ok {
					if p.first {
						return tsTokEnd, 0, 0, nil
					}
					return 0, 0, 0, newError(CodeSyntaxError, "no operand in tsquery: \"%s\"", in)
				}
				if len(word) > TSMaxLexemeBytes {
					return 0, 0, 0, newError(CodeSyntaxError, "word is too long in tsquery: \"%s\"", in)
				}
				weights, prefix := p.modifiers()
				if p.out, err = p.operand(p.out, word, weights, prefix); err != nil {
					return 0, 0, 0, err
				}
				p.waitOperand, p.first = false, false
				return tsTokVal, 0, 0, nil
			}
			continue
		}
		switch {
		case c == '&':
			p.tok.at++
			p.waitOperand = true
			return tsTokOp, TSAnd, 0, nil
		case c == '|':
			p.tok.at++
			p.waitOperand = true
			return tsTokOp, TSOr, 0, nil
		case c == '<':
			d, ok, err := p.phraseOperator()
			if err != nil {
				return 0, 0, 0, err
			}
			if ok {
				p.waitOperand = true
				return tsTokOp, TSPhrase, d, nil
			}
			return tsTokErr, 0, 0, nil
		case c == ')':
			p.tok.at++
			p.depth--
			if p.depth < 0 {
				return tsTokErr, 0, 0, nil
			}
			return tsTokClose, 0, 0, nil
		case c == 0:
			if p.depth != 0 {
				return tsTokErr, 0, 0, nil
			}
			return tsTokEnd, 0, 0, nil
		case !tsIsSpace(c):
			return tsTokErr, 0, 0, nil
		}
	}
}

// peek returns the byte at the parser's position, 0 at the end of the
// input (C's NUL, which PostgreSQL's parser tests for).
func (p *tsQueryParser) peek() byte {
	if p.tok.at < len(p.tok.in) {
		return p.tok.in[p.tok.at]
	}
	return 0
}

// not takes the ! (or websearch's -) at the parser's position.
func (p *tsQueryParser) not() (tok int, op TSOp, distance int16, err error) {
	p.tok.at++
	p.first = false
	return tsTokOp, TSNot, 0, nil
}

// webToken reads the next token of websearch_to_tsquery's syntax
// (gettoken_query_websearch): words with an implicit & between them, "a
// phrase" as one operand, -word for !, "or" for |; other operator
// characters are skipped.
func (p *tsQueryParser) webToken() (tok int, op TSOp, distance int16, err error) {
	in := p.tok.in
	for ; ; p.tok.at++ {
		c := p.peek()
		if p.waitOperand {
			switch {
			case c == '-':
				return p.not()
			case c == '"':
				start := p.tok.at + 1
				end := strings.IndexByte(in[start:], '"')
				if end < 0 {
					end = len(in) - start
				}
				p.tok.at = min(start+end+1, len(in))
				if p.out, err = p.operand(p.out, in[start:start+end], 0, false); err != nil {
					return 0, 0, 0, err
				}
				p.waitOperand, p.first = false, false
				return tsTokVal, 0, 0, nil
			case c != 0 && tsIsOperator(c):
				continue
			case !tsIsSpace(c):
				word, _, ok, err := p.tok.next()
				if err != nil {
					return 0, 0, 0, err
				}
				if !ok {
					if !p.first {
						// An operator wants an operand.
						p.out = PushStop(p.out)
					}
					return tsTokEnd, 0, 0, nil
				}
				if p.out, err = p.operand(p.out, word, 0, false); err != nil {
					return 0, 0, 0, err
				}
				p.waitOperand, p.first = false, false
				return tsTokVal, 0, 0, nil
			}
			continue
		}
		switch {
		case c == 0:
			return tsTokEnd, 0, 0, nil
		case p.webOr():
			p.waitOperand = true
			return tsTokOp, TSOr, 0, nil
		case tsIsOperator(c):
			continue
		case !tsIsSpace(c):
			p.waitOperand = true
			return tsTokOp, TSAnd, 0, nil
		}
	}
}

// webOr reads the word "or" (any case) standing alone with an operand
// somewhere after it (parse_or_operator).
func (p *tsQueryParser) webOr() bool {
	in := p.tok.in
	i := p.tok.at
	if len(in)-i < 2 || !strings.EqualFold(in[i:i+2], "or") {
		return false
	}
	i += 2
	if i >= len(in) {
		return false
	}
	if c := in[i]; c == '-' || c == '_' || isAlnumByte(c) {
		return false
	}
	for {
		_, n := utf8.DecodeRuneInString(in[i:])
		i += n
		if i >= len(in) {
			return false
		}
		if !tsIsSpace(in[i]) {
			break
		}
	}
	p.tok.at += 2
	return true
}

// isAlnumByte is t_isalnum for one byte; a multibyte character is a
// letter for this purpose.
func isAlnumByte(c byte) bool {
	return tsIsDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// modifiers reads the :*AB after an operand (get_modifiers).
func (p *tsQueryParser) modifiers() (weights uint8, prefix bool) {
	in := p.tok.in
	if p.tok.at >= len(in) || in[p.tok.at] != ':' {
		return 0, false
	}
	for p.tok.at++; p.tok.at < len(in); p.tok.at++ {
		switch in[p.tok.at] {
		case 'a', 'A':
			weights |= TSWeightA
		case 'b', 'B':
			weights |= TSWeightB
		case 'c', 'C':
			weights |= TSWeightC
		case 'd', 'D':
			weights |= TSWeightD
		case '*':
			prefix = true
		default:
			return weights, prefix
		}
	}
	return weights, prefix
}

// phraseOperator reads <N> or <-> at the current position
// (parse_phrase_operator); like PostgreSQL's it wants a character after
// the closing '>'.
func (p *tsQueryParser) phraseOperator() (int16, bool, error) {
	in := p.tok.in
	i := p.tok.at + 1
	distance := 1
	switch {
	case i < len(in) && in[i] == '-':
		i++
	case i < len(in) && tsIsDigit(in[i]):
		n := 0
		for ; i < len(in) && tsIsDigit(in[i]); i++ {
			n = min(n*10+int(in[i]-'0'), 1<<30)
		}
		if n > TSMaxPosition+1 {
			return 0, false, newError(CodeInvalidParameterValue, "distance in phrase operator must be an integer value between zero and %d inclusive", TSMaxPosition+1)
		}
		distance = n
	default:
		return 0, false, nil
	}
	if i >= len(in) || in[i] != '>' || i+1 >= len(in) {
		return 0, false, nil
	}
	p.tok.at = i + 1
	return int16(distance), true, nil
}

// CleanStopWords removes the stop words' places from a query, adjusting
// phrase distances so that the words around them keep their distance
// (clean_stopword_intree). It returns nil when nothing but stop words was
// left.
func CleanStopWords(n *TSQueryNode) *TSQueryNode {
	r, _, _ := cleanStop(n)
	return r
}

func cleanStop(n *TSQueryNode) (res *TSQueryNode, ladd, radd int) {
	switch n.Op {
	case TSValue:
		return n, 0, 0
	case tsStop:
		return nil, 0, 0
	case TSNot:
		r, l, rr := cleanStop(n.Right)
		if r == nil {
			return nil, l, rr
		}
		c := *n
		c.Right = r
		return &c, l, rr
	}
	left, lladd, lradd := cleanStop(n.Left)
	right, rladd, rradd := cleanStop(n.Right)
	isPhrase := n.Op == TSPhrase
	dist := 0
	if isPhrase {
		dist = int(n.Distance)
	}
	switch {
	case left == nil && right == nil:
		if isPhrase {
			d := lladd + dist + rladd
			return nil, d, d
		}
		d := max(lladd, rladd)
		return nil, d, d
	case left == nil:
		if isPhrase {
			return right, lladd + dist + rladd, rradd
		}
		return right, rladd, rradd
	case right == nil:
		if isPhrase {
			return left, lladd, lradd + dist + rradd
		}
		return left, lladd, lradd
	}
	c := *n
	c.Left, c.Right = left, right
	if isPhrase {
		c.Distance = int16(min(int(c.Distance)+lradd+rladd, TSMaxPosition+1))
		return &c, lladd, rradd
	}
	return &c, 0, 0
}

// HasStopWords reports whether the tree holds a stop word's place.
func HasStopWords(n *TSQueryNode) bool {
	if n == nil {
		return false
	}
	return n.Op == tsStop || HasStopWords(n.Left) || HasStopWords(n.Right)
}

// AppendTSQuery appends the text form of q (tsqueryout): operators with
// spaces around them and parentheses only where priorities (or the order
// of phrase operators) need them.
func AppendTSQuery(dst []byte, q TSQuery) []byte {
	if q.Root == nil {
		return dst
	}
	return appendTSNode(dst, q.Root, -1, false)
}

func appendTSNode(dst []byte, n *TSQueryNode, parentPriority int, rightPhrase bool) []byte {
	switch n.Op {
	case TSValue:
		dst = appendTSQuoted(dst, n.Lexeme)
		if n.Weights != 0 || n.Prefix {
			dst = append(dst, ':')
			if n.Prefix {
				dst = append(dst, '*')
			}
			for i, w := range []uint8{TSWeightA, TSWeightB, TSWeightC, TSWeightD} {
				if n.Weights&w != 0 {
					dst = append(dst, "ABCD"[i])
				}
			}
		}
		return dst
	case TSNot:
		pr := n.Op.priority()
		if pr < parentPriority {
			dst = append(dst, "( "...)
		}
		dst = append(dst, '!')
		dst = appendTSNode(dst, n.Right, pr, false)
		if pr < parentPriority {
			dst = append(dst, " )"...)
		}
		return dst
	}
	pr := n.Op.priority()
	paren := pr < parentPriority || n.Op == TSPhrase && rightPhrase
	if paren {
		dst = append(dst, "( "...)
	}
	dst = appendTSNode(dst, n.Left, pr, false)
	switch n.Op {
	case TSOr:
		dst = append(dst, " | "...)
	case TSAnd:
		dst = append(dst, " & "...)
	case TSPhrase:
		if n.Distance != 1 {
			dst = append(dst, " <"...)
			dst = AppendInt(dst, int64(n.Distance))
			dst = append(dst, "> "...)
		} else {
			dst = append(dst, " <-> "...)
		}
	}
	dst = appendTSNode(dst, n.Right, pr, n.Op == TSPhrase)
	if paren {
		dst = append(dst, " )"...)
	}
	return dst
}

// TSQueryItems returns the number of nodes of q (numnode).
func TSQueryItems(n *TSQueryNode) int {
	if n == nil {
		return 0
	}
	return 1 + TSQueryItems(n.Left) + TSQueryItems(n.Right)
}

// tsQuerySize is the size of PostgreSQL's tsquery (its VARSIZE): a
// header, 12 bytes per item and each lexeme NUL-terminated.
func tsQuerySize(n *TSQueryNode) int {
	size := 0
	var walk func(*TSQueryNode)
	walk = func(n *TSQueryNode) {
		if n == nil {
			return
		}
		size += 12
		if n.Op == TSValue {
			size += len(n.Lexeme) + 1
		}
		walk(n.Left)
		walk(n.Right)
	}
	walk(n)
	return 8 + size
}

// CompareTSQuery orders tsqueries as PostgreSQL's tsquery_cmp: by number
// of items, then size, then node by node (QTNodeCompare): operators
// before lexemes, higher operator codes first, then the operands, right
// one first, then larger phrase distances first; lexemes by their legacy
// CRC-32 as a signed number, larger first, then bytewise. Weights and
// prefix flags are not compared, so 'a:A' = 'a:B' as in PostgreSQL.
func CompareTSQuery(a, b TSQuery) int {
	if c := cmp.Compare(TSQueryItems(a.Root), TSQueryItems(b.Root)); c != 0 {
		return c
	}
	if c := cmp.Compare(tsQuerySize(a.Root), tsQuerySize(b.Root)); c != 0 {
		return c
	}
	if a.Root == nil {
		return 0
	}
	return compareTSNode(a.Root, b.Root)
}

// CompareTSNodes orders two nodes by themselves, not their operands, as
// QTNodeCompare begins: operators before lexemes, higher operator codes
// first, lexemes by CompareTSOperands. 0 for two nodes of one operator.
func CompareTSNodes(a, b *TSQueryNode) int {
	av, bv := a.Op == TSValue, b.Op == TSValue
	switch {
	case av != bv && av:
		return 1
	case av != bv:
		return -1
	case av:
		return CompareTSOperands(a, b)
	}
	return cmp.Compare(b.Op, a.Op)
}

func compareTSNode(a, b *TSQueryNode) int {
	if c := CompareTSNodes(a, b); c != 0 || a.Op == TSValue {
		return c
	}
	if c := compareTSNode(a.Right, b.Right); c != 0 {
		return c
	}
	if a.Op != TSNot {
		if c := compareTSNode(a.Left, b.Left); c != 0 {
			return c
		}
	}
	if a.Op == TSPhrase {
		return cmp.Compare(b.Distance, a.Distance)
	}
	return 0
}

// CompareTSOperands orders two lexeme nodes as QTNodeCompare: by their
// lexemes' legacy CRC-32 as a signed number, larger first, then bytewise.
func CompareTSOperands(a, b *TSQueryNode) int {
	if c := cmp.Compare(TSLexemeCRC(b.Lexeme), TSLexemeCRC(a.Lexeme)); c != 0 {
		return c
	}
	return strings.Compare(a.Lexeme, b.Lexeme)
}

// TSLexemeCRC is the valcrc PostgreSQL keeps with a tsquery operand: its
// "legacy" CRC-32 (the reflected table driven most significant byte
// first), as a signed number.
func TSLexemeCRC(s string) int32 {
	crc := ^uint32(0)
	for i := 0; i < len(s); i++ {
		crc = crc32.IEEETable[byte(crc>>24)^s[i]] ^ crc<<8
	}
	return int32(^crc)
}

// AppendTSQueryKey appends an encoding of q whose bytewise order is
// CompareTSQuery's, equal exactly when CompareTSQuery is 0: the counts,
// then the nodes in the order the comparison visits them.
func AppendTSQueryKey(dst []byte, q TSQuery) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(TSQueryItems(q.Root)))
	dst = binary.BigEndian.AppendUint32(dst, uint32(tsQuerySize(q.Root)))
	var walk func(*TSQueryNode)
	walk = func(n *TSQueryNode) {
		if n.Op == TSValue {
			// Larger CRCs first: the complement of the CRC with its sign
			// bit flipped into unsigned order.
			dst = append(dst, 0x10)
			dst = binary.BigEndian.AppendUint32(dst, ^(uint32(TSLexemeCRC(n.Lexeme)) ^ 1<<31))
			dst = append(dst, n.Lexeme...)
			dst = append(dst, 0) // lexemes hold no NUL: ends it before any longer one
			return
		}
		dst = append(dst, byte(TSPhrase-n.Op)) // higher codes first, all below 0x10
		walk(n.Right)
		if n.Op != TSNot {
			walk(n.Left)
		}
		if n.Op == TSPhrase {
			dst = binary.BigEndian.AppendUint16(dst, ^uint16(n.Distance))
		}
	}
	if q.Root != nil {
		walk(q.Root)
	}
	return dst
}

// AppendTSQueryBinary appends q in tsquerysend's format: the number of
// items, then the items in PostgreSQL's order (an operator, its right
// operand, its left operand): a lexeme as type 1, weights, prefix flag and
// NUL-terminated text; an operator as type 2, its code and, for a phrase,
// an int16 distance.
func AppendTSQueryBinary(dst []byte, q TSQuery) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(TSQueryItems(q.Root)))
	var walk func(*TSQueryNode)
	walk = func(n *TSQueryNode) {
		if n.Op == TSValue {
			dst = append(dst, 1, n.Weights, 0)
			if n.Prefix {
				dst[len(dst)-1] = 1
			}
			dst = append(dst, n.Lexeme...)
			dst = append(dst, 0)
			return
		}
		dst = append(dst, 2, byte(n.Op))
		if n.Op == TSPhrase {
			dst = binary.BigEndian.AppendUint16(dst, uint16(n.Distance))
		}
		walk(n.Right)
		if n.Left != nil {
			walk(n.Left)
		}
	}
	if q.Root != nil {
		walk(q.Root)
	}
	return dst
}

// ParseTSQueryBinary reads tsqueryrecv's format.
func ParseTSQueryBinary(b []byte) (TSQuery, error) {
	if len(b) < 4 {
		return TSQuery{}, errInsufficientData
	}
	n := int(binary.BigEndian.Uint32(b))
	b = b[4:]
	if n > len(b)/2 {
		return TSQuery{}, errBinary("invalid size of tsquery")
	}
	var read func(depth int) (*TSQueryNode, error)
	read = func(depth int) (*TSQueryNode, error) {
		if n == 0 || depth > 1000 {
			return nil, errBinary("malformed tsquery: operand not found")
		}
		n--
		if len(b) < 2 {
			return nil, errInsufficientData
		}
		switch b[0] {
		case 1:
			if len(b) < 4 {
				return nil, errInsufficientData
			}
			node := &TSQueryNode{Weights: b[1], Prefix: b[2] != 0}
			end := strings.IndexByte(string(b[3:]), 0)
			if end < 0 {
				return nil, errInsufficientData
			}
			if node.Weights > 15 {
				return nil, errBinary("invalid tsquery: invalid weight bitmap")
			}
			node.Lexeme = string(b[3 : 3+end])
			if len(node.Lexeme) > TSMaxLexemeBytes {
				return nil, errBinary("invalid tsquery: operand too long")
			}
			b = b[4+end:]
			return node, nil
		case 2:
			node := &TSQueryNode{Op: TSOp(b[1])}
			b = b[2:]
			switch node.Op {
			case TSNot, TSAnd, TSOr:
			case TSPhrase:
				if len(b) < 2 {
					return nil, errInsufficientData
				}
				node.Distance = int16(binary.BigEndian.Uint16(b))
				b = b[2:]
			default:
				return nil, errBinary("unrecognized operator type %d", node.Op)
			}
			var err error
			if node.Right, err = read(depth + 1); err != nil {
				return nil, err
			}
			if node.Op != TSNot {
				if node.Left, err = read(depth + 1); err != nil {
					return nil, err
				}
			}
			return node, nil
		}
		return nil, errBinary("unrecognized tsquery node type: %d", b[0])
	}
	if n == 0 {
		if len(b) != 0 {
			return TSQuery{}, errExtraData
		}
		return TSQuery{}, nil
	}
	root, err := read(0)
	if err != nil {
		return TSQuery{}, err
	}
	if n != 0 || len(b) != 0 {
		return TSQuery{}, errExtraData
	}
	return TSQuery{Root: root}, nil
}
