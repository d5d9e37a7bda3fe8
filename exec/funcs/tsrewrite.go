package funcs

import (
	"cmp"
	"slices"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// ts_rewrite(query, target, substitute), as PostgreSQL's tsquery_rewrite:
// the query is flattened (a & (b & c) is one & of three) and its operands
// sorted, then every occurrence of target, or of a subset of an & or |
// that target's operands form, is replaced by substitute.

// qtNode is a query node with any number of operands (QTNode): an & or |
// flattened, ! with one, <N> with two (right, then left, as PostgreSQL
// stores them).
type qtNode struct {
	n        *types.TSQueryNode // the operator or lexeme (its operands not used)
	child    []*qtNode
	noChange bool // a substitute just put in: not searched again
}

func toQT(n *types.TSQueryNode) *qtNode {
	q := &qtNode{n: n}
	if n.Op != types.TSValue {
		q.child = append(q.child, toQT(n.Right))
		if n.Op != types.TSNot {
			q.child = append(q.child, toQT(n.Left))
		}
	}
	return q
}

// flatten merges the operands of nested & and | into one node (QTNTernary).
func (q *qtNode) flatten() {
	for _, c := range q.child {
		c.flatten()
	}
	if op := q.n.Op; op != types.TSAnd && op != types.TSOr {
		return
	}
	var out []*qtNode
	for _, c := range q.child {
		if c.n.Op == q.n.Op {
			out = append(out, c.child...)
		} else {
			out = append(out, c)
		}
	}
	q.child = out
}

// sort orders the operands of every & and | (QTNSort).
func (q *qtNode) sort() {
	for _, c := range q.child {
		c.sort()
	}
	if len(q.child) > 1 && q.n.Op != types.TSPhrase {
		slices.SortStableFunc(q.child, compareQT)
	}
}

// compareQT is QTNodeCompare.
func compareQT(a, b *qtNode) int {
	if c := types.CompareTSNodes(a.n, b.n); c != 0 || a.n.Op == types.TSValue {
		return c
	}
	if c := cmp.Compare(len(b.child), len(a.child)); c != 0 {
		return c
	}
	for i := range a.child {
		if c := compareQT(a.child[i], b.child[i]); c != 0 {
			return c
		}
	}
	if a.n.Op == types.TSPhrase {
		return cmp.Compare(b.n.Distance, a.n.Distance)
	}
	return 0
}

func (q *qtNode) copy() *qtNode {
	c := &qtNode{n: q.n}
	for _, ch := range q.child {
		c.child = append(c.child, ch.copy())
	}
	return c
}

// replaceAt replaces node by subs where it matches target (findeq): the
// whole node, or the operands of an & or | that match target's.
func replaceAt(node, target, subs *qtNode) *qtNode {
	if node.noChange || node.n.Op != target.n.Op {
		return node
	}
	substitute := func() *qtNode {
		if subs == nil {
			return nil
		}
		c := subs.copy()
		c.noChange = true
		return c
	}
	if node.n.Op == types.TSValue || len(node.child) == len(target.child) {
		if compareQT(node, target) == 0 {
			return substitute()
		}
		return node
	}
	if len(node.child) < len(target.child) || len(target.child) == 0 {
		return node
	}
	// Both sorted: one pass finds the operands target's match.
	matched := make([]bool, len(node.child))
	n, i, j := 0, 0, 0
	for i < len(node.child) && j < len(target.child) {
		switch c := compareQT(node.child[i], target.child[j]); {
		case c == 0:
			matched[i] = true
			n++
			i++
			j++
		case c < 0:
			i++
		default:
			j = len(target.child) + 1
		}
	}
	if n != len(target.child) {
		return node
	}
	var kept []*qtNode
	for i, c := range node.child {
		if !matched[i] {
			kept = append(kept, c)
		}
	}
	if s := substitute(); s != nil {
		kept = append(kept, s)
	}
	node.child = kept
	node.sort()
	return node
}

// rewrite replaces target by subs in the tree (dofindsubquery), dropping
// operands replaced by nothing and operators left with one operand.
func rewrite(node, target, subs *qtNode) *qtNode {
	node = replaceAt(node, target, subs)
	if node == nil || node.noChange || node.n.Op == types.TSValue {
		return node
	}
	var kept []*qtNode
	for _, c := range node.child {
		if c = rewrite(c, target, subs); c != nil {
			kept = append(kept, c)
		}
	}
	node.child = kept
	switch {
	case len(kept) == 0:
		return nil
	case len(kept) == 1 && node.n.Op != types.TSNot:
		return kept[0]
	}
	return node
}

// toBinary turns a tree back into binary operators (QTNBinary, QTN2QT).
func (q *qtNode) toBinary() *types.TSQueryNode {
	if q.n.Op == types.TSValue {
		return q.n
	}
	child := slices.Clone(q.child)
	for len(child) > 2 {
		pair := &qtNode{n: q.n, child: []*qtNode{child[0], child[1]}}
		child[0], child[1] = pair, child[len(child)-1]
		child = child[:len(child)-1]
	}
	out := &types.TSQueryNode{Op: q.n.Op, Distance: q.n.Distance, Right: child[0].toBinary()}
	if len(child) > 1 {
		out.Left = child[1].toBinary()
	}
	return out
}

// rewriteTSQuery is ts_rewrite(query, target, substitute).
func rewriteTSQuery(query, target, subst types.TSQuery) types.TSQuery {
	if query.Root == nil || target.Root == nil {
		return query
	}
	tree := toQT(query.Root)
	tree.flatten()
	tree.sort()
	ex := toQT(target.Root)
	ex.flatten()
	ex.sort()
	var subs *qtNode
	if subst.Root != nil {
		subs = toQT(subst.Root)
	}
	tree = rewrite(tree, ex, subs)
	if tree == nil {
		return types.TSQuery{}
	}
	return types.TSQuery{Root: tree.toBinary()}
}

// queryRunner is the session as the functions that take a query as text
// need it (planner's Session).
type queryRunner interface {
	QueryRows(env *exec.Env, sql string) ([]exec.ResultColumn, []exec.Row, error)
}

// runQuery runs the SQL text a function was given.
func runQuery(env *exec.Env, name, sql string) ([]exec.ResultColumn, []exec.Row, error) {
	r, ok := env.Session.(queryRunner)
	if !ok {
		return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "%s() cannot be called outside a session's statement", name)
	}
	return r.QueryRows(env, sql)
}

// rewriteTSQueryBy is ts_rewrite(query, select): each row of the query
// gives a target and its substitute, applied in turn.
func rewriteTSQueryBy(env *exec.Env, query types.TSQuery, sql string) (types.TSQuery, error) {
	cols, rows, err := runQuery(env, "ts_rewrite", sql)
	if err != nil {
		return types.TSQuery{}, err
	}
	if len(cols) != 2 || cols[0].T.OID != exec.OIDTSQuery || cols[1].T.OID != exec.OIDTSQuery {
		return types.TSQuery{}, pgerr.New(pgerr.InvalidParameterValue, "ts_rewrite query must return two tsquery columns")
	}
	if query.Root == nil {
		return query, nil
	}
	tree := toQT(query.Root)
	tree.flatten()
	tree.sort()
	for _, row := range rows {
		if row[0].IsNull() || row[0].TSQuery().Root == nil {
			continue
		}
		ex := toQT(row[0].TSQuery().Root)
		ex.flatten()
		ex.sort()
		var subs *qtNode
		if !row[1].IsNull() && row[1].TSQuery().Root != nil {
			subs = toQT(row[1].TSQuery().Root)
		}
		if tree = rewrite(tree, ex, subs); tree == nil {
			return types.TSQuery{}, nil
		}
		// Unlike a single rewrite, each row's result is flattened and
		// sorted again, as PostgreSQL does between the rows.
		tree.clearNoChange()
		tree.flatten()
		tree.sort()
	}
	return types.TSQuery{Root: tree.toBinary()}, nil
}

// clearNoChange lets the substitutes put in be searched by the next
// target (QTNClearFlags).
func (q *qtNode) clearNoChange() {
	q.noChange = false
	for _, c := range q.child {
		c.clearNoChange()
	}
}

func registerTSRewrite() {
	Q := exec.OIDTSQuery
	exec.Register(&exec.Func{Name: "ts_rewrite", Args: []uint32{Q, Q, Q}, Ret: Q, Strict: true, Immutable: true,
		Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DTSQuery(rewriteTSQuery(a[0].TSQuery(), a[1].TSQuery(), a[2].TSQuery())), nil
		}})
	exec.Register(&exec.Func{Name: "ts_rewrite", Args: []uint32{Q, exec.OIDText}, Ret: Q, Strict: true,
		Fn: func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			q, err := rewriteTSQueryBy(env, a[0].TSQuery(), a[1].S)
			return exec.DTSQuery(q), err
		}})
	statCols := []exec.ResultColumn{{Name: "word", T: exec.TText}, {Name: "ndoc", T: exec.TInt4}, {Name: "nentry", T: exec.TInt4}}
	for _, args := range [][]uint32{{exec.OIDText}, {exec.OIDText, exec.OIDText}} {
		exec.RegisterSRF(&exec.Func{Name: "ts_stat", Args: args, Ret: exec.OIDRecord}, func([]exec.T) *exec.SRF {
			return &exec.SRF{Cols: statCols, Rows: tsStat}
		})
	}
}

// tsStat is ts_stat(select[, weights]): for each lexeme of the tsvectors
// the query returns, the documents holding it and its occurrences (of
// the given weights).
func tsStat(env *exec.Env, a []exec.Datum) ([]exec.Row, error) {
	weights := 0
	if len(a) > 1 {
		for _, c := range a[1].S {
			w, err := weightOf(string(c))
			if err != nil {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "unrecognized weight: \"%c\"", c)
			}
			weights |= 1 << w
		}
	}
	cols, rows, err := runQuery(env, "ts_stat", a[0].S)
	if err != nil {
		return nil, err
	}
	if len(cols) != 1 || cols[0].T.OID != exec.OIDTSVector {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "ts_stat query must return one tsvector column")
	}
	type stat struct{ ndoc, nentry int64 }
	stats := map[string]*stat{}
	for _, row := range rows {
		if row[0].IsNull() {
			continue
		}
		for _, l := range row[0].TSVector() {
			n := int64(0)
			if len(l.Pos) == 0 && weights == 0 {
				n = 1 // once, unless weights are asked for: it has none
			}
			for _, p := range l.Pos {
				if weights == 0 || weights&(1<<p.Weight()) != 0 {
					n++
				}
			}
			if n == 0 {
				continue
			}
			s := stats[l.Word]
			if s == nil {
				s = &stat{}
				stats[l.Word] = s
			}
			s.ndoc++
			s.nentry += n
		}
	}
	words := make([]string, 0, len(stats))
	for w := range stats {
		words = append(words, w)
	}
	slices.Sort(words)
	out := make([]exec.Row, len(words))
	for i, w := range words {
		out[i] = exec.Row{exec.DText(w), exec.DInt(stats[w].ndoc), exec.DInt(stats[w].nentry)}
	}
	return out, nil
}
