package exec

import "github.com/prollypg/prollypg/exec/pgerr"

// OuterRef reads value Idx of Env.Outer: inside a correlated subquery, a
// column of the enclosing query (see SubPlan.Args).
type OuterRef struct {
	Idx int
	T   T
}

func (e *OuterRef) Eval(env *Env, _ Row) (Datum, error) { return env.Outer[e.Idx], nil }
func (e *OuterRef) Type() T                             { return e.T }

// SubKind is the kind of a subquery used as an expression.
type SubKind uint8

const (
	ExistsSub SubKind = iota // EXISTS (q)
	ScalarSub                // (q): its one value, NULL without rows
	AnySub                   // x op ANY (q), x IN (q)
	AllSub                   // x op ALL (q)
	ArraySub                 // ARRAY(q): its one column's values as an array
)

// SubPlan is a subquery used as an expression. A correlated subquery reads
// columns of the enclosing query: the planner makes those Args, evaluated
// over the enclosing row, and the subquery reads them as OuterRefs, in a
// fresh Env per evaluation. A subquery without Args is uncorrelated: it
// runs once per execution of the enclosing query and its result is kept
// in the Env's frame.
type SubPlan struct {
	Kind SubKind
	Plan Plan
	Args []Expr
	// AnySub, AllSub: Left are the left operands, over the enclosing row.
	// Test compares them with one row of the subquery; it is evaluated
	// over a row holding the Left values, then the subquery's columns.
	Left []Expr
	Test Expr
	// When Test is the conjunction of LeftKeys[i] = RightKeys[i] (each pair
	// of one type, LeftKeys reading only the Left values and RightKeys only
	// the subquery's columns), an uncorrelated AnySub probes a hash table.
	LeftKeys, RightKeys []Expr
	T                   T
}

func (e *SubPlan) Type() T { return e.T }

// subResult is an uncorrelated subquery's result, kept for the execution.
type subResult struct {
	d    Datum // ExistsSub, ScalarSub
	err  error
	rows []Row // AnySub, AllSub
	// The hash table of rows by RightKeys (hashed AnySub), and the rows
	// with a NULL key, which can only make the result NULL.
	table     *keyTable
	nullRows  []Row
	keyedRows []Row
	// Scratch space of compareAll, reused from row to row (a subplan is
	// not evaluated again while its own comparison runs).
	test []Datum
	key  []Datum
	buf  []byte
}

func (e *SubPlan) Eval(env *Env, row Row) (Datum, error) {
	if len(e.Args) == 0 {
		res, err := e.cached(env)
		if err != nil {
			return Null, err
		}
		switch e.Kind {
		case ExistsSub, ScalarSub, ArraySub:
			return res.d, res.err
		}
		return e.compareAll(env, row, res)
	}
	outer := make([]Datum, len(e.Args))
	for i, a := range e.Args {
		var err error
		if outer[i], err = a.Eval(env, row); err != nil {
			return Null, err
		}
	}
	if e.Kind == ExistsSub {
		if l, ok := hashLookupOf(e.Plan); ok {
			if found, ok, err := l.exists(env, outer); ok || err != nil {
				return DBool(found), err
			}
		}
	}
	cenv := env.child(outer)
	switch e.Kind {
	case ExistsSub, ScalarSub, ArraySub:
		return e.value(cenv)
	}
	left, err := e.left(env, row)
	if err != nil {
		return Null, err
	}
	rows, err := e.Plan.Open(cenv)
	if err != nil {
		return Null, err
	}
	defer rows.Close()
	st := newQuantified(e.Kind)
	for {
		r, err := rows.Next()
		if err != nil {
			return Null, err
		}
		if r == nil {
			return st.result(), nil
		}
		if done, err := st.test(env, e.Test, left, r); done || err != nil {
			return st.result(), err
		}
	}
}

// SubqueryKeys stands, among the values an IndexScan's key column must
// equal (IndexScan.Eq), for the values of the key of an uncorrelated
// x IN (subquery) that hashes its rows (one pair of LeftKeys and
// RightKeys): each of them is an alternative, as in x IN (1, 2, 3). It is
// never evaluated as an expression.
type SubqueryKeys struct{ Sub *SubPlan }

func (e *SubqueryKeys) Eval(*Env, Row) (Datum, error) {
	return Null, pgerr.New(pgerr.InternalError, "subquery keys evaluated as a value")
}

func (e *SubqueryKeys) Type() T { return e.Sub.RightKeys[0].Type() }

// values returns the subquery's key values that are not NULL, computing
// its result on first use as its evaluation would.
func (e *SubqueryKeys) values(env *Env) ([]Datum, error) {
	res, err := e.Sub.cached(env)
	if err != nil {
		return nil, err
	}
	out := make([]Datum, 0, res.table.len())
	for i := range res.table.len() {
		out = append(out, res.table.key(i)[0])
	}
	return out, nil
}

// value runs an EXISTS, scalar or ARRAY subquery.
func (e *SubPlan) value(env *Env) (Datum, error) {
	rows, err := e.Plan.Open(env)
	if err != nil {
		return Null, err
	}
	defer rows.Close()
	if e.Kind == ArraySub {
		return collectArray(rows, e.Plan.Columns()[0].T)
	}
	first, err := rows.Next()
	if err != nil {
		return Null, err
	}
	if e.Kind == ExistsSub {
		return DBool(first != nil), nil
	}
	if first == nil {
		return Null, nil
	}
	d := first[0]
	second, err := rows.Next()
	if err != nil {
		return Null, err
	}
	if second != nil {
		return Null, pgerr.New(pgerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")
	}
	return d, nil
}

// hashLookupOf returns the HashLookup a subquery's plan reads, under
// projections (EXISTS (SELECT 1 FROM t WHERE t.x = outer.y)): whether
// any row exists does not depend on what is projected.
func hashLookupOf(p Plan) (*HashLookup, bool) {
	for {
		switch x := p.(type) {
		case *Project:
			p = x.In
		case *HashLookup:
			return x, true
		default:
			return nil, false
		}
	}
}

// cached returns the result of an uncorrelated subquery, computing it on
// first use in env's frame.
func (e *SubPlan) cached(env *Env) (*subResult, error) {
	if v, ok := env.local(e); ok {
		return v.(*subResult), nil
	}
	res := &subResult{}
	switch e.Kind {
	case ExistsSub, ScalarSub, ArraySub:
		res.d, res.err = e.value(env)
	default:
		rows, err := drain(env, e.Plan)
		if err != nil {
			return nil, err
		}
		res.rows = rows
		if e.Kind == AnySub && e.RightKeys != nil {
			if err := e.hash(env, res); err != nil {
				return nil, err
			}
		}
	}
	env.bind(e, res)
	return res, nil
}

// hash builds the table of an uncorrelated, hashable AnySub.
func (e *SubPlan) hash(env *Env, res *subResult) error {
	nl := len(e.Left)
	scratch := make(Row, nl+len(e.Plan.Columns()))
	key := make([]Datum, len(e.RightKeys))
	res.table = newKeyTable(len(key))
	var buf []byte
	for _, r := range res.rows {
		copy(scratch[nl:], r)
		for i, k := range e.RightKeys {
			var err error
			if key[i], err = k.Eval(env, scratch); err != nil {
				return err
			}
		}
		if hasNull(key) {
			res.nullRows = append(res.nullRows, r)
			continue
		}
		var h uint64
		h, buf = hashDatums(buf, key)
		if err := env.hold(r); err != nil {
			return err
		}
		res.table.add(h, key)
		res.keyedRows = append(res.keyedRows, r)
	}
	return nil
}

// left evaluates the left operands into the start of a test row.
func (e *SubPlan) left(env *Env, row Row) (Row, error) {
	out := make(Row, len(e.Left)+len(e.Plan.Columns()))
	for i, l := range e.Left {
		var err error
		if out[i], err = l.Eval(env, row); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// compareAll evaluates ANY or ALL against the kept rows of an
// uncorrelated subquery.
func (e *SubPlan) compareAll(env *Env, row Row, res *subResult) (Datum, error) {
	if len(res.rows) == 0 {
		return DBool(e.Kind == AllSub), nil
	}
	if res.test == nil {
		res.test = make(Row, len(e.Left)+len(e.Plan.Columns()))
		res.key = make([]Datum, len(e.LeftKeys))
	}
	left := res.test
	for i, l := range e.Left {
		var err error
		if left[i], err = l.Eval(env, row); err != nil {
			return Null, err
		}
	}
	candidates := res.rows
	if res.table != nil {
		key := res.key
		for i, k := range e.LeftKeys {
			var err error
			if key[i], err = k.Eval(env, left); err != nil {
				return Null, err
			}
		}
		if !hasNull(key) {
			var h uint64
			h, res.buf = hashDatums(res.buf, key)
			if res.table.first(h, key) >= 0 {
				return DBool(true), nil
			}
			// No row equals the operands; only rows with NULLs can still
			// make the answer NULL rather than false.
			candidates = res.nullRows
		}
	}
	st := newQuantified(e.Kind)
	for _, r := range candidates {
		if done, err := st.test(env, e.Test, left, r); done || err != nil {
			return st.result(), err
		}
	}
	return st.result(), nil
}

// quantified accumulates the three-valued result of ANY or ALL.
type quantified struct {
	all     bool
	decided bool // ANY found true, or ALL found false
	sawNull bool
}

func newQuantified(k SubKind) *quantified { return &quantified{all: k == AllSub} }

// test compares the left values (at the start of scratch) with one
// subquery row; it reports whether the result is decided.
func (q *quantified) test(env *Env, test Expr, scratch, r Row) (bool, error) {
	nl := len(scratch) - len(r)
	copy(scratch[nl:], r)
	d, err := test.Eval(env, scratch)
	if err != nil {
		return true, err
	}
	switch {
	case d.IsNull():
		q.sawNull = true
	case d.Bool() != q.all:
		q.decided = true
		return true, nil
	}
	return false, nil
}

func (q *quantified) result() Datum {
	switch {
	case q.decided:
		return DBool(!q.all)
	case q.sawNull:
		return Null
	}
	return DBool(q.all)
}
