package parsecache

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"github.com/prollypg/prollypg/planner/pgtree"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Bounds of one cache: queries longer than maxQuery are parsed every time
// (OLTP statements are short; long ones are rarely repeated and their
// trees are big), and the shapes held, and those seen once, take at most
// maxShapeBytes each before the set is emptied.
const (
	maxQuery      = 2048
	maxShapeBytes = 32 << 10
)

// Cache holds the trees of the query shapes a session repeats. A shape is
// cached the second time it is parsed, so that queries run once cost only
// the scan. The zero value is not ready; use New. A Cache is used by one
// goroutine at a time.
type Cache struct {
	shapes     map[string]*entry
	shapeBytes int
	seen       map[string]struct{} // shapes parsed once
	seenBytes  int

	key  []byte // scratch for the shape being looked up
	lits []literal
}

// entry is a cached shape: a tree whose A_Const nodes take each query's
// literal values, or nil for a shape found not cacheable.
type entry struct {
	tree   *pg.ParseResult
	consts [][]constant // by literal, the nodes that hold its value
	stat   any          // Lease.SetStat's
	leased bool
	lease  Lease // handed out while leased, so that leasing allocates nothing
	// plan is what the cache's user keeps with the shape (its generic
	// plan), dropped with the entry.
	plan any
}

// constant is an A_Const holding a literal's value, negated when the
// grammar folded a minus sign into it.
type constant struct {
	node *pg.A_Const
	neg  bool
}

// New returns an empty cache.
func New() *Cache {
	return &Cache{shapes: map[string]*entry{}, seen: map[string]struct{}{}}
}

// Lease is a cached tree handed out by Parse; Release returns it to the
// cache. Release it once: the cache hands the same Lease out again with
// the tree, so a late second Release would free the next holder's. A nil
// Lease does nothing.
type Lease struct{ e *entry }

// Release makes the tree available to the next query of its shape, which
// overwrites its constants: the tree must not be used after.
func (l *Lease) Release() {
	if l != nil && l.e != nil {
		l.e.leased = false
		l.e = nil
	}
}

// Literals returns, for each literal of the query in order, the
// constants of the leased tree that hold its value (at least one each):
// the tree's own nodes, to be read before Release.
func (l *Lease) Literals() [][]*pg.A_Const {
	out := make([][]*pg.A_Const, len(l.e.consts))
	for i, cs := range l.e.consts {
		for _, c := range cs {
			out[i] = append(out[i], c.node)
		}
	}
	return out
}

// Plan returns what SetPlan kept with the lease's shape, nil if nothing.
func (l *Lease) Plan() any { return l.e.plan }

// Stat returns what the session keeps with the lease's shape for
// pg_stat_statements, nil if nothing; SetStat keeps v with it.
func (l *Lease) Stat() any { return l.e.stat }

// SetStat keeps v with the lease's shape (Stat).
func (l *Lease) SetStat(v any) { l.e.stat = v }

// SetPlan keeps p with the lease's shape for the queries of that shape
// that follow, until the shape leaves the cache.
func (l *Lease) SetPlan(p any) { l.e.plan = p }

// Parse returns sql's parse tree. When the tree comes from the cache, the
// lease is not nil, and the tree is valid until the lease is released
// (invariant 3); otherwise the tree is the caller's. Errors are the
// parser's, and are not cached.
func (c *Cache) Parse(sql string) (*pg.ParseResult, *Lease, error) {
	if len(sql) > maxQuery {
		tree, err := pg.Parse(sql)
		return tree, nil, err
	}
	var ok bool
	c.key, c.lits, ok = shape(sql, c.key[:0], c.lits[:0])
	if !ok {
		tree, err := pg.Parse(sql)
		return tree, nil, err
	}
	if e := c.shapes[string(c.key)]; e != nil {
		if e.tree == nil || e.leased {
			tree, err := pg.Parse(sql)
			return tree, nil, err
		}
		e.fill(sql, c.lits)
		return e.tree, e.lend(), nil
	}
	tree, err := pg.Parse(sql)
	if err != nil {
		return nil, nil, err
	}
	if _, twice := c.seen[string(c.key)]; !twice {
		if c.seenBytes+len(c.key) > maxShapeBytes {
			clear(c.seen)
			c.seenBytes = 0
		}
		c.seen[string(c.key)] = struct{}{}
		c.seenBytes += len(c.key)
		return tree, nil, nil
	}
	if c.shapeBytes+len(c.key) > maxShapeBytes {
		clear(c.shapes)
		c.shapeBytes = 0
	}
	e := newEntry(tree, sql, c.lits)
	c.shapes[string(c.key)] = e
	c.shapeBytes += len(c.key)
	if e.tree == nil {
		return tree, nil, nil
	}
	return tree, e.lend(), nil
}

// lend leases e's tree.
func (e *entry) lend() *Lease {
	e.leased = true
	e.lease.e = e
	return &e.lease
}

// newEntry makes the entry of a shape from its first tree; its tree is nil
// when the shape cannot be cached (invariants 1 and 2).
func newEntry(tree *pg.ParseResult, sql string, lits []literal) *entry {
	if len(tree.Stmts) != 1 {
		return &entry{}
	}
	if !cacheable(tree.Stmts[0].GetStmt()) {
		return &entry{}
	}
	e := &entry{tree: tree, consts: make([][]constant, len(lits))}
	ok := true
	walkConsts(tree.ProtoReflect(), func(n *pg.A_Const) {
		i, neg, found := literalAt(sql, lits, int(n.Location))
		if !found {
			return // TRUE, NULL, a keyword's typmod: the same in every query of the shape
		}
		if !holds(n, sql[lits[i].start:lits[i].end], lits[i].kind, neg) {
			ok = false
		}
		e.consts[i] = append(e.consts[i], constant{n, neg})
	})
	for _, cs := range e.consts {
		if len(cs) == 0 {
			ok = false // a literal the grammar consumed: float(24), int[3]
		}
	}
	if !ok {
		return &entry{}
	}
	return e
}

// cacheable reports whether statements of n's kind may be cached
// (invariant 2): queries, and the transaction control statements every
// explicit transaction of an OLTP client sends (BEGIN, COMMIT, END,
// ROLLBACK), which are executed at once and keep nothing of their tree.
func cacheable(n *pg.Node) bool {
	return n.GetSelectStmt() != nil || n.GetInsertStmt() != nil || n.GetUpdateStmt() != nil ||
		n.GetDeleteStmt() != nil || n.GetTransactionStmt() != nil
}

// literalAt finds the literal whose constant is at location loc: the
// literal starting there, or the one after a minus sign there that the
// grammar folded into its constant.
func literalAt(sql string, lits []literal, loc int) (i int, neg, found bool) {
	if loc < 0 || loc >= len(sql) {
		return 0, false, false
	}
	start, neg := loc, false
	if sql[loc] == '-' {
		start, neg = loc+1, true
		for start < len(sql) && isSpace(sql[start]) {
			start++
		}
	}
	for i, l := range lits {
		if l.start == start {
			return i, neg, true
		}
	}
	return 0, false, false
}

// holds reports whether constant n holds the value of literal token tok.
func holds(n *pg.A_Const, tok string, kind byte, neg bool) bool {
	switch kind {
	case kindInt:
		v, ok := n.Val.(*pg.A_Const_Ival)
		return ok && v.Ival != nil && v.Ival.Ival == intValue(tok, neg)
	case kindNumber:
		v, ok := n.Val.(*pg.A_Const_Fval)
		return ok && v.Fval != nil && v.Fval.Fval == numberValue(tok, neg)
	case kindString:
		v, ok := n.Val.(*pg.A_Const_Sval)
		return !neg && ok && v.Sval != nil && v.Sval.Sval == stringValue(tok)
	}
	return false
}

// fill writes the literals of sql, a query of e's shape, into e's tree.
func (e *entry) fill(sql string, lits []literal) {
	for i, l := range lits {
		tok := sql[l.start:l.end]
		for _, c := range e.consts[i] {
			switch l.kind {
			case kindInt:
				c.node.Val.(*pg.A_Const_Ival).Ival.Ival = intValue(tok, c.neg)
			case kindNumber:
				c.node.Val.(*pg.A_Const_Fval).Fval.Fval = numberValue(tok, c.neg)
			case kindString:
				c.node.Val.(*pg.A_Const_Sval).Sval.Sval = stringValue(tok)
			}
		}
	}
}

// intValue is the value of an int4-sized integer token (shape checked it).
func intValue(tok string, neg bool) int32 {
	v, _ := strconv.ParseInt(tok, 10, 32)
	if neg {
		v = -v
	}
	return int32(v)
}

// numberValue is the text PostgreSQL keeps for a numeric token.
func numberValue(tok string, neg bool) string {
	if neg {
		return "-" + tok
	}
	return tok
}

// stringValue is the value of a plain string token.
func stringValue(tok string) string {
	s := tok[1 : len(tok)-1]
	if strings.Contains(s, "''") {
		s = strings.ReplaceAll(s, "''", "'")
	}
	return s
}

// walkConsts calls fn for every A_Const in the tree m.
func walkConsts(m protoreflect.Message, fn func(*pg.A_Const)) {
	pgtree.Walk(m, func(m protoreflect.Message) bool {
		c, ok := m.Interface().(*pg.A_Const)
		if ok {
			fn(c)
		}
		return !ok
	})
}
