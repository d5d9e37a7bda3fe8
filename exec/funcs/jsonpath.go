package funcs

import (
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// A subset of SQL/JSON path (PostgreSQL's jsonpath) for the @? and @@
// operators and the jsonb_path_* functions: lax and strict modes, $ and
// @, .key, ."key", .*, [*], [n], [n to m], last, filters ?(...),
// comparisons, && || !, exists(...), starts with, like_regex, is
// unknown, arithmetic, $variables, and the methods type(), size(),
// double(), abs(), floor(), ceiling(). Paths arrive as text (there is no
// jsonpath type here) and are parsed once per call site.

// jpNode is a parsed path expression.
type jpNode struct {
	op    string // "$", "@", "key", "any", "index", "filter", "lit", "var", "cmp", "and", "or", "not", "exists", "unknown", "starts", "like", "arith", "neg", "method", "last", "seq"
	key   string // member name, variable name, operator or method
	lit   types.JSONB
	args  []*jpNode // operands; for index: pairs of (from, to) (to nil: single)
	chain *jpNode   // the next accessor in a path
	re    *regexCache
	flags string
}

type jpPath struct {
	strict bool
	expr   *jpNode
}

type jpLexer struct {
	s   string
	pos int
}

func errJSONPathSyntax(msg string) error {
	return pgerr.New(pgerr.SyntaxError, "%s", msg)
}

func (l *jpLexer) skip() {
	for l.pos < len(l.s) && unicode.IsSpace(rune(l.s[l.pos])) {
		l.pos++
	}
}

func (l *jpLexer) peek(tok string) bool {
	l.skip()
	return strings.HasPrefix(l.s[l.pos:], tok)
}

func (l *jpLexer) eat(tok string) bool {
	if l.peek(tok) {
		l.pos += len(tok)
		return true
	}
	return false
}

// word reads an identifier-like token (keys, keywords, method names).
func (l *jpLexer) word() string {
	l.skip()
	start := l.pos
	for l.pos < len(l.s) {
		c := rune(l.s[l.pos])
		if c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c) || c >= 0x80 {
			l.pos++
			continue
		}
		break
	}
	return l.s[start:l.pos]
}

func (l *jpLexer) peekWord(w string) bool {
	save := l.pos
	got := l.word()
	l.pos = save
	return got == w
}

func (l *jpLexer) str() (string, error) {
	l.skip()
	if l.pos >= len(l.s) || l.s[l.pos] != '"' {
		return "", errJSONPathSyntax("syntax error in jsonpath")
	}
	end := l.pos + 1
	for end < len(l.s) && l.s[end] != '"' {
		if l.s[end] == '\\' {
			end++
		}
		end++
	}
	if end >= len(l.s) {
		return "", errJSONPathSyntax("unterminated quoted string in jsonpath")
	}
	v, err := types.ParseJSONB(l.s[l.pos : end+1])
	if err != nil {
		return "", errJSONPathSyntax("syntax error in jsonpath")
	}
	l.pos = end + 1
	return v.Str, nil
}

func parseJSONPath(s string) (*jpPath, error) {
	if strings.TrimSpace(s) == "" {
		return nil, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type jsonpath: \"%s\"", s)
	}
	l := &jpLexer{s: s}
	p := &jpPath{}
	if l.peekWord("strict") {
		l.word()
		p.strict = true
	} else if l.peekWord("lax") {
		l.word()
	}
	e, err := l.orExpr()
	if err != nil {
		return nil, err
	}
	l.skip()
	if l.pos != len(l.s) {
		return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near \"%s\" of jsonpath input", l.s[l.pos:])
	}
	p.expr = e
	return p, nil
}

func (l *jpLexer) orExpr() (*jpNode, error) {
	left, err := l.andExpr()
	if err != nil {
		return nil, err
	}
	for l.eat("||") {
		right, err := l.andExpr()
		if err != nil {
			return nil, err
		}
		left = &jpNode{op: "or", args: []*jpNode{left, right}}
	}
	return left, nil
}

func (l *jpLexer) andExpr() (*jpNode, error) {
	left, err := l.notExpr()
	if err != nil {
		return nil, err
	}
	for l.eat("&&") {
		right, err := l.notExpr()
		if err != nil {
			return nil, err
		}
		left = &jpNode{op: "and", args: []*jpNode{left, right}}
	}
	return left, nil
}

func (l *jpLexer) notExpr() (*jpNode, error) {
	if l.peek("!") && !l.peek("!=") {
		l.eat("!")
		l.skip()
		if !l.eat("(") {
			return nil, errJSONPathSyntax("syntax error in jsonpath")
		}
		e, err := l.orExpr()
		if err != nil {
			return nil, err
		}
		if !l.eat(")") {
			return nil, errJSONPathSyntax("syntax error in jsonpath")
		}
		return &jpNode{op: "not", args: []*jpNode{e}}, nil
	}
	return l.predicate()
}

func (l *jpLexer) predicate() (*jpNode, error) {
	if l.peekWord("exists") {
		l.word()
		if !l.eat("(") {
			return nil, errJSONPathSyntax("syntax error in jsonpath")
		}
		e, err := l.orExpr()
		if err != nil {
			return nil, err
		}
		if !l.eat(")") {
			return nil, errJSONPathSyntax("syntax error in jsonpath")
		}
		return &jpNode{op: "exists", args: []*jpNode{e}}, nil
	}
	left, err := l.additive()
	if err != nil {
		return nil, err
	}
	for _, op := range []string{"==", "!=", "<>", "<=", ">=", "<", ">"} {
		if l.eat(op) {
			right, err := l.additive()
			if err != nil {
				return nil, err
			}
			if op == "<>" {
				op = "!="
			}
			return &jpNode{op: "cmp", key: op, args: []*jpNode{left, right}}, nil
		}
	}
	switch {
	case l.peekWord("starts"):
		l.word()
		if l.word() != "with" {
			return nil, errJSONPathSyntax("syntax error in jsonpath")
		}
		right, err := l.additive()
		if err != nil {
			return nil, err
		}
		return &jpNode{op: "starts", args: []*jpNode{left, right}}, nil
	case l.peekWord("like_regex"):
		l.word()
		pat, err := l.str()
		if err != nil {
			return nil, err
		}
		n := &jpNode{op: "like", key: pat, args: []*jpNode{left}, re: &regexCache{}}
		if l.peekWord("flag") {
			l.word()
			if n.flags, err = l.str(); err != nil {
				return nil, err
			}
		}
		return n, nil
	case l.peekWord("is"):
		l.word()
		if l.word() != "unknown" {
			return nil, errJSONPathSyntax("syntax error in jsonpath")
		}
		return &jpNode{op: "unknown", args: []*jpNode{left}}, nil
	}
	return left, nil
}

func (l *jpLexer) additive() (*jpNode, error) {
	left, err := l.multiplicative()
	if err != nil {
		return nil, err
	}
	for {
		l.skip()
		if l.pos < len(l.s) && (l.s[l.pos] == '+' || l.s[l.pos] == '-') {
			op := string(l.s[l.pos])
			l.pos++
			right, err := l.multiplicative()
			if err != nil {
				return nil, err
			}
			left = &jpNode{op: "arith", key: op, args: []*jpNode{left, right}}
			continue
		}
		return left, nil
	}
}

func (l *jpLexer) multiplicative() (*jpNode, error) {
	left, err := l.unary()
	if err != nil {
		return nil, err
	}
	for {
		l.skip()
		if l.pos < len(l.s) && (l.s[l.pos] == '*' || l.s[l.pos] == '/' || l.s[l.pos] == '%') {
			op := string(l.s[l.pos])
			l.pos++
			right, err := l.unary()
			if err != nil {
				return nil, err
			}
			left = &jpNode{op: "arith", key: op, args: []*jpNode{left, right}}
			continue
		}
		return left, nil
	}
}

func (l *jpLexer) unary() (*jpNode, error) {
	l.skip()
	if l.pos < len(l.s) && (l.s[l.pos] == '-' || l.s[l.pos] == '+') {
		neg := l.s[l.pos] == '-'
		l.pos++
		e, err := l.unary()
		if err != nil {
			return nil, err
		}
		if !neg {
			return e, nil
		}
		return &jpNode{op: "neg", args: []*jpNode{e}}, nil
	}
	return l.accessorExpr()
}

// primary reads a path start, literal or parenthesized expression.
func (l *jpLexer) primary() (*jpNode, error) {
	l.skip()
	if l.pos >= len(l.s) {
		return nil, errJSONPathSyntax("syntax error at end of jsonpath input")
	}
	c := l.s[l.pos]
	switch {
	case c == '$':
		l.pos++
		if w := l.word(); w != "" {
			return &jpNode{op: "var", key: w}, nil
		}
		if l.peek(`"`) {
			name, err := l.str()
			if err != nil {
				return nil, err
			}
			return &jpNode{op: "var", key: name}, nil
		}
		return &jpNode{op: "$"}, nil
	case c == '@':
		l.pos++
		return &jpNode{op: "@"}, nil
	case c == '"':
		s, err := l.str()
		if err != nil {
			return nil, err
		}
		return &jpNode{op: "lit", lit: types.JSONB{Kind: types.JSONString, Str: s}}, nil
	case c == '(':
		l.pos++
		e, err := l.orExpr()
		if err != nil {
			return nil, err
		}
		if !l.eat(")") {
			return nil, errJSONPathSyntax("syntax error in jsonpath")
		}
		return e, nil
	case c >= '0' && c <= '9' || c == '.':
		start := l.pos
		for l.pos < len(l.s) && (l.s[l.pos] >= '0' && l.s[l.pos] <= '9' || l.s[l.pos] == '.' || l.s[l.pos] == 'e' || l.s[l.pos] == 'E' ||
			(l.pos > start && (l.s[l.pos] == '+' || l.s[l.pos] == '-') && (l.s[l.pos-1] == 'e' || l.s[l.pos-1] == 'E'))) {
			if l.s[l.pos] == '.' && l.pos+1 < len(l.s) && !(l.s[l.pos+1] >= '0' && l.s[l.pos+1] <= '9') {
				break
			}
			l.pos++
		}
		v, err := types.ParseJSONB(l.s[start:l.pos])
		if err != nil || v.Kind != types.JSONNumber {
			return nil, pgerr.New(pgerr.SyntaxError, "trailing junk after numeric literal at or near \"%s\" of jsonpath input", l.s[start:l.pos])
		}
		return &jpNode{op: "lit", lit: v}, nil
	}
	switch w := l.word(); w {
	case "true", "false":
		return &jpNode{op: "lit", lit: types.JSONB{Kind: types.JSONBool, Bool: w == "true"}}, nil
	case "null":
		return &jpNode{op: "lit", lit: types.JSONB{Kind: types.JSONNull}}, nil
	case "last":
		return &jpNode{op: "last"}, nil
	}
	return nil, errJSONPathSyntax("syntax error in jsonpath")
}

// accessorExpr is a primary followed by accessors, filters and methods.
func (l *jpLexer) accessorExpr() (*jpNode, error) {
	head, err := l.primary()
	if err != nil {
		return nil, err
	}
	tail := head
	add := func(n *jpNode) {
		tail.chain = n
		tail = n
	}
	for {
		l.skip()
		switch {
		case l.eat(".*"):
			add(&jpNode{op: "any"})
		case l.peek(".") && !l.peek(".."):
			l.pos++
			l.skip()
			var name string
			if l.peek(`"`) {
				if name, err = l.str(); err != nil {
					return nil, err
				}
				add(&jpNode{op: "key", key: name})
				continue
			}
			name = l.word()
			if name == "" {
				if l.pos >= len(l.s) {
					return nil, errJSONPathSyntax("syntax error at end of jsonpath input")
				}
				return nil, errJSONPathSyntax("syntax error in jsonpath")
			}
			if l.eat("(") {
				if !l.eat(")") {
					return nil, errJSONPathSyntax("syntax error in jsonpath")
				}
				add(&jpNode{op: "method", key: name})
				continue
			}
			add(&jpNode{op: "key", key: name})
		case l.eat("[*]"):
			add(&jpNode{op: "index"})
		case l.eat("["):
			n := &jpNode{op: "index"}
			for {
				from, err := l.additive()
				if err != nil {
					return nil, err
				}
				var to *jpNode
				if l.peekWord("to") {
					l.word()
					if to, err = l.additive(); err != nil {
						return nil, err
					}
				}
				n.args = append(n.args, from, to)
				if !l.eat(",") {
					break
				}
			}
			if !l.eat("]") {
				return nil, errJSONPathSyntax("syntax error in jsonpath")
			}
			add(n)
		case l.eat("?"):
			if !l.eat("(") {
				return nil, errJSONPathSyntax("syntax error in jsonpath")
			}
			pred, err := l.orExpr()
			if err != nil {
				return nil, err
			}
			if !l.eat(")") {
				return nil, errJSONPathSyntax("syntax error in jsonpath")
			}
			add(&jpNode{op: "filter", args: []*jpNode{pred}})
		default:
			return head, nil
		}
	}
}

// jpCtx is the state of one evaluation.
type jpCtx struct {
	strict bool
	root   *types.JSONB
	vars   *types.JSONB
	last   int // the index of the last element, inside []
}

// jpTri is SQL/JSON's three-valued logic: 1 true, 0 false, -1 unknown.
type jpTri int8

// eval evaluates a path or expression node (and its chain) with current
// item cur, appending results to out.
func (c *jpCtx) eval(n *jpNode, cur *types.JSONB, out []types.JSONB) ([]types.JSONB, error) {
	var items []types.JSONB
	switch n.op {
	case "$":
		items = []types.JSONB{*c.root}
	case "@":
		items = []types.JSONB{*cur}
	case "lit":
		items = []types.JSONB{n.lit}
	case "last":
		items = []types.JSONB{{Kind: types.JSONNumber, Num: apd.New(int64(c.last), 0)}}
	case "var":
		v, ok := jbField(c.vars, n.key)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedObject, "could not find jsonpath variable \"%s\"", n.key)
		}
		items = []types.JSONB{*v}
	case "cmp", "and", "or", "not", "exists", "unknown", "starts", "like":
		t, err := c.pred(n, cur)
		if err != nil {
			return nil, err
		}
		if t < 0 {
			items = []types.JSONB{{Kind: types.JSONNull}}
		} else {
			items = []types.JSONB{{Kind: types.JSONBool, Bool: t == 1}}
		}
	case "arith", "neg":
		v, err := c.arith(n, cur)
		if err != nil {
			return nil, err
		}
		items = v
	default:
		return nil, errJSONPathSyntax("syntax error in jsonpath")
	}
	for i := range items {
		var err error
		if out, err = c.chain(n.chain, &items[i], out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// chain applies accessors from n on to item v.
func (c *jpCtx) chain(n *jpNode, v *types.JSONB, out []types.JSONB) ([]types.JSONB, error) {
	if n == nil {
		return append(out, *v), nil
	}
	switch n.op {
	case "key":
		switch {
		case v.Kind == types.JSONObject:
			f, ok := jbField(v, n.key)
			if !ok {
				if c.strict {
					return nil, pgerr.New(pgerr.SQLJSONMemberNotFound, "JSON object does not contain key \"%s\"", n.key)
				}
				return out, nil
			}
			return c.chain(n.chain, f, out)
		case v.Kind == types.JSONArray && !c.strict:
			var err error
			for i := range v.Elems {
				if out, err = c.chain(n, &v.Elems[i], out); err != nil {
					return nil, err
				}
			}
			return out, nil
		case c.strict:
			return nil, pgerr.New(pgerr.SQLJSONMemberNotFound, "jsonpath member accessor can only be applied to an object")
		}
		return out, nil
	case "any":
		var err error
		switch v.Kind {
		case types.JSONObject:
			for i := range v.Pairs {
				if out, err = c.chain(n.chain, &v.Pairs[i].Value, out); err != nil {
					return nil, err
				}
			}
		case types.JSONArray:
			if !c.strict {
				for i := range v.Elems {
					if out, err = c.chain(n, &v.Elems[i], out); err != nil {
						return nil, err
					}
				}
			}
		}
		return out, nil
	case "index":
		elems := v.Elems
		if v.Kind != types.JSONArray {
			if c.strict {
				return nil, pgerr.New(pgerr.SQLJSONArrayNotFound, "jsonpath array accessor can only be applied to an array")
			}
			elems = []types.JSONB{*v}
		}
		var err error
		if n.args == nil {
			for i := range elems {
				if out, err = c.chain(n.chain, &elems[i], out); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
		saved := c.last
		c.last = len(elems) - 1
		defer func() { c.last = saved }()
		for k := 0; k < len(n.args); k += 2 {
			from, err := c.index(n.args[k], v)
			if err != nil {
				return nil, err
			}
			to := from
			if n.args[k+1] != nil {
				if to, err = c.index(n.args[k+1], v); err != nil {
					return nil, err
				}
			}
			for i := from; i <= to; i++ {
				if i < 0 || i >= len(elems) {
					if c.strict {
						return nil, pgerr.New(pgerr.InvalidSQLJSONSubscript, "jsonpath array subscript is out of bounds")
					}
					continue
				}
				if out, err = c.chain(n.chain, &elems[i], out); err != nil {
					return nil, err
				}
			}
		}
		return out, nil
	case "filter":
		if v.Kind == types.JSONArray && !c.strict {
			var err error
			for i := range v.Elems {
				if out, err = c.chain(n, &v.Elems[i], out); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
		t, err := c.pred(n.args[0], v)
		if err != nil {
			return nil, err
		}
		if t == 1 {
			return c.chain(n.chain, v, out)
		}
		return out, nil
	case "method":
		r, err := c.method(n.key, v)
		if err != nil {
			return nil, err
		}
		for i := range r {
			if out, err = c.chain(n.chain, &r[i], out); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, errJSONPathSyntax("syntax error in jsonpath")
}

func (c *jpCtx) index(n *jpNode, cur *types.JSONB) (int, error) {
	r, err := c.eval(n, cur, nil)
	if err != nil {
		return 0, err
	}
	if len(r) != 1 || r[0].Kind != types.JSONNumber {
		return 0, pgerr.New(pgerr.InvalidSQLJSONSubscript, "jsonpath array subscript is not a single numeric value")
	}
	f, _ := r[0].Num.Float64()
	return int(f), nil
}

func (c *jpCtx) method(name string, v *types.JSONB) ([]types.JSONB, error) {
	num := func(f func(*apd.Decimal) *apd.Decimal) ([]types.JSONB, error) {
		if v.Kind == types.JSONArray && !c.strict {
			var out []types.JSONB
			for i := range v.Elems {
				r, err := c.method(name, &v.Elems[i])
				if err != nil {
					return nil, err
				}
				out = append(out, r...)
			}
			return out, nil
		}
		if v.Kind != types.JSONNumber {
			return nil, pgerr.New(pgerr.NonNumericSQLJSONItem, "jsonpath item method .%s() can only be applied to a numeric value", name)
		}
		return []types.JSONB{{Kind: types.JSONNumber, Num: f(v.Num)}}, nil
	}
	switch name {
	case "type":
		return []types.JSONB{{Kind: types.JSONString, Str: exec.JSONBTypeName(v)}}, nil
	case "size":
		n := 1
		if v.Kind == types.JSONArray {
			n = len(v.Elems)
		} else if c.strict {
			return nil, pgerr.New(pgerr.SQLJSONArrayNotFound, "jsonpath item method .size() can only be applied to an array")
		}
		return []types.JSONB{{Kind: types.JSONNumber, Num: apd.New(int64(n), 0)}}, nil
	case "abs":
		return num(func(d *apd.Decimal) *apd.Decimal { return new(apd.Decimal).Abs(d) })
	case "floor":
		return num(func(d *apd.Decimal) *apd.Decimal {
			r := new(apd.Decimal)
			exec.NumericContext.Floor(r, d)
			return exec.RoundNumeric(r, 0, false)
		})
	case "ceiling":
		return num(func(d *apd.Decimal) *apd.Decimal {
			r := new(apd.Decimal)
			exec.NumericContext.Ceil(r, d)
			return exec.RoundNumeric(r, 0, false)
		})
	case "double":
		if v.Kind == types.JSONString {
			f, err := strconv.ParseFloat(strings.TrimSpace(v.Str), 64)
			if err != nil {
				return nil, pgerr.New(pgerr.NonNumericSQLJSONItem, "jsonpath item method .double() can only be applied to a string or numeric value")
			}
			d, _, _ := apd.NewFromString(strconv.FormatFloat(f, 'g', -1, 64))
			return []types.JSONB{{Kind: types.JSONNumber, Num: d}}, nil
		}
		return num(func(d *apd.Decimal) *apd.Decimal { return d })
	}
	return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near \"%s\" of jsonpath input", name)
}

func (c *jpCtx) arith(n *jpNode, cur *types.JSONB) ([]types.JSONB, error) {
	operand := func(e *jpNode, side string) (*apd.Decimal, error) {
		r, err := c.eval(e, cur, nil)
		if err != nil {
			return nil, err
		}
		if !c.strict && len(r) == 1 && r[0].Kind == types.JSONArray && len(r[0].Elems) == 1 {
			r = r[0].Elems
		}
		if len(r) != 1 || r[0].Kind != types.JSONNumber {
			return nil, pgerr.New(pgerr.SingletonSQLJSONItemRequired, "%s operand of jsonpath operator %s is not a single numeric value", side, n.key)
		}
		return r[0].Num, nil
	}
	if n.op == "neg" {
		r, err := c.eval(n.args[0], cur, nil)
		if err != nil {
			return nil, err
		}
		if !c.strict {
			r = unwrapAll(r)
		}
		out := make([]types.JSONB, len(r))
		for i := range r {
			if r[i].Kind != types.JSONNumber {
				return nil, pgerr.New(pgerr.NonNumericSQLJSONItem, "operand of unary jsonpath operator - is not a numeric value")
			}
			out[i] = types.JSONB{Kind: types.JSONNumber, Num: new(apd.Decimal).Neg(r[i].Num)}
		}
		return out, nil
	}
	x, err := operand(n.args[0], "left")
	if err != nil {
		return nil, err
	}
	y, err := operand(n.args[1], "right")
	if err != nil {
		return nil, err
	}
	r, err := exec.NumericArith(n.key)(nil, []exec.Datum{exec.DNumeric(x), exec.DNumeric(y)})
	if err != nil {
		return nil, err
	}
	return []types.JSONB{{Kind: types.JSONNumber, Num: r.Numeric()}}, nil
}

// pred evaluates a predicate to true, false or unknown; errors inside
// lax predicates are unknown.
func (c *jpCtx) pred(n *jpNode, cur *types.JSONB) (jpTri, error) {
	switch n.op {
	case "and":
		l, err := c.pred(n.args[0], cur)
		if err != nil || l == 0 {
			return l, err
		}
		r, err := c.pred(n.args[1], cur)
		if err != nil {
			return 0, err
		}
		if l == 1 {
			return r, nil
		}
		if r == 0 {
			return 0, nil
		}
		return -1, nil
	case "or":
		l, err := c.pred(n.args[0], cur)
		if err != nil || l == 1 {
			return l, err
		}
		r, err := c.pred(n.args[1], cur)
		if err != nil {
			return 0, err
		}
		if l == 0 {
			return r, nil
		}
		if r == 1 {
			return 1, nil
		}
		return -1, nil
	case "not":
		t, err := c.pred(n.args[0], cur)
		if t >= 0 {
			t = 1 - t
		}
		return t, err
	case "unknown":
		t, err := c.pred(n.args[0], cur)
		if err != nil {
			return 0, err
		}
		if t < 0 {
			return 1, nil
		}
		return 0, nil
	case "exists":
		r, err := c.eval(n.args[0], cur, nil)
		if err != nil {
			if c.strict {
				return -1, nil
			}
			return -1, nil
		}
		if len(r) > 0 {
			return 1, nil
		}
		return 0, nil
	case "cmp", "starts", "like":
		left, err := c.eval(n.args[0], cur, nil)
		if err != nil {
			return -1, nil
		}
		var right []types.JSONB
		if len(n.args) > 1 {
			if right, err = c.eval(n.args[1], cur, nil); err != nil {
				return -1, nil
			}
		}
		if !c.strict {
			left, right = unwrapAll(left), unwrapAll(right)
		}
		found, unknown := false, false
		for i := range left {
			switch n.op {
			case "starts":
				if len(right) != 1 || right[0].Kind != types.JSONString || left[i].Kind != types.JSONString {
					unknown = true
					continue
				}
				if strings.HasPrefix(left[i].Str, right[0].Str) {
					found = true
				}
			case "like":
				if left[i].Kind != types.JSONString {
					unknown = true
					continue
				}
				f, err := parseReFlags(strings.ReplaceAll(n.flags, "s", ""), "like_regex", false)
				if err != nil {
					return 0, err
				}
				re, err := n.re.get(n.key, f)
				if err != nil {
					return 0, err
				}
				if re.MatchString(left[i].Str) {
					found = true
				}
			default:
				for j := range right {
					t := jpCompare(n.key, &left[i], &right[j])
					if t == 1 {
						found = true
					} else if t < 0 {
						unknown = true
					}
				}
			}
			if found && !c.strict {
				return 1, nil
			}
		}
		switch {
		case unknown:
			return -1, nil
		case found:
			return 1, nil
		}
		return 0, nil
	}
	// A path used as a predicate: only a boolean result counts.
	r, err := c.eval(n, cur, nil)
	if err != nil || len(r) != 1 || r[0].Kind != types.JSONBool {
		return -1, nil
	}
	if r[0].Bool {
		return 1, nil
	}
	return 0, nil
}

func unwrapAll(items []types.JSONB) []types.JSONB {
	var out []types.JSONB
	for _, it := range items {
		if it.Kind == types.JSONArray {
			out = append(out, it.Elems...)
		} else {
			out = append(out, it)
		}
	}
	return out
}

// jpCompare compares two scalar items; items of different types, or
// containers, are not comparable (unknown), except that null equals
// only null.
func jpCompare(op string, a, b *types.JSONB) jpTri {
	var c int
	switch {
	case a.Kind == types.JSONNull || b.Kind == types.JSONNull:
		if a.Kind != b.Kind {
			return triOf(op == "!=")
		}
		c = 0
	case a.Kind != b.Kind || a.Kind == types.JSONArray || a.Kind == types.JSONObject:
		return -1
	case a.Kind == types.JSONString:
		c = strings.Compare(a.Str, b.Str)
	case a.Kind == types.JSONNumber:
		c = a.Num.Cmp(b.Num)
	case a.Kind == types.JSONBool:
		switch {
		case a.Bool == b.Bool:
			c = 0
		case a.Bool:
			c = 1
		default:
			c = -1
		}
	}
	switch op {
	case "==":
		return triOf(c == 0)
	case "!=":
		return triOf(c != 0)
	case "<":
		return triOf(c < 0)
	case "<=":
		return triOf(c <= 0)
	case ">":
		return triOf(c > 0)
	}
	return triOf(c >= 0)
}

func triOf(b bool) jpTri {
	if b {
		return 1
	}
	return 0
}

// jsonPathCache keeps the last path parsed at a call site; it is safe
// for concurrent use (a racing store costs a parse).
type jsonPathCache struct {
	last atomic.Pointer[cachedPath]
}

type cachedPath struct {
	src  string
	path *jpPath
}

func (pc *jsonPathCache) get(s string) (*jpPath, error) {
	if c := pc.last.Load(); c != nil && c.src == s {
		return c.path, nil
	}
	p, err := parseJSONPath(s)
	if err != nil {
		return nil, err
	}
	pc.last.Store(&cachedPath{src: s, path: p})
	return p, nil
}

// runJSONPath evaluates a path over a jsonb value with variables.
func runJSONPath(p *jpPath, target, vars exec.Datum) ([]types.JSONB, error) {
	root, err := parseJB(target)
	if err != nil {
		return nil, err
	}
	v := types.JSONB{Kind: types.JSONObject}
	if !vars.IsNull() && vars.S != "" {
		if v, err = parseJB(vars); err != nil {
			return nil, err
		}
		if v.Kind != types.JSONObject {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "\"vars\" argument is not an object").
				WithDetail("Jsonpath parameters should be encoded as key-value pairs of \"vars\" object.")
		}
	}
	c := &jpCtx{strict: p.strict, root: &root, vars: &v}
	return c.eval(p.expr, &root, nil)
}

func registerJSONPath() {
	JB, TX := exec.OIDJSONB, exec.OIDText
	// kind: exists, match, first, array
	build := func(kind string, operator bool) func([]exec.T) (exec.Fn, exec.T, error) {
		return func(ts []exec.T) (exec.Fn, exec.T, error) {
			// Parsed paths are cached per call site.
			cache := &jsonPathCache{}
			ret := map[string]exec.T{"exists": exec.TBool, "match": exec.TBool, "first": exec.TJSONB, "array": exec.TJSONB}[kind]
			return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
				p, err := cache.get(a[1].S)
				if err != nil {
					return exec.Null, err
				}
				vars, silent := exec.Null, false
				if len(a) > 2 {
					vars = a[2]
				}
				if len(a) > 3 {
					silent = a[3].Bool()
				}
				if operator {
					silent = true // the @? and @@ operators suppress errors
				}
				items, err := runJSONPath(p, a[0], vars)
				if err != nil {
					if silent {
						return exec.Null, nil
					}
					return exec.Null, err
				}
				switch kind {
				case "exists":
					return exec.DBool(len(items) > 0), nil
				case "match":
					if len(items) == 1 && items[0].Kind == types.JSONBool {
						return exec.DBool(items[0].Bool), nil
					}
					if len(items) == 1 && items[0].Kind == types.JSONNull {
						return exec.Null, nil
					}
					if silent {
						return exec.Null, nil
					}
					return exec.Null, pgerr.New(pgerr.SingletonSQLJSONItemRequired, "single boolean result is expected")
				case "first":
					if len(items) == 0 {
						return exec.Null, nil
					}
					return outJB(&items[0]), nil
				}
				arr := types.JSONB{Kind: types.JSONArray, Elems: items}
				if arr.Elems == nil {
					arr.Elems = []types.JSONB{}
				}
				return outJB(&arr), nil
			}, ret, nil
		}
	}
	exec.Register(&exec.Func{Name: "@?", Args: []uint32{JB, TX}, Ret: exec.OIDBool, Strict: true, Build: build("exists", true)},
		&exec.Func{Name: "@@", Args: []uint32{JB, TX}, Ret: exec.OIDBool, Strict: true, Build: build("match", true)})
	for name, kind := range map[string]string{"jsonb_path_exists": "exists", "jsonb_path_match": "match",
		"jsonb_path_query_first": "first", "jsonb_path_query_array": "array"} {
		exec.Register(&exec.Func{Name: name, Args: []uint32{JB, TX}, Ret: JB, Strict: true, Build: build(kind, false)},
			&exec.Func{Name: name, Args: []uint32{JB, TX, JB}, Ret: JB, Strict: true, Build: build(kind, false)},
			&exec.Func{Name: name, Args: []uint32{JB, TX, JB, exec.OIDBool}, Ret: JB, Strict: true, Build: build(kind, false)})
	}
}
