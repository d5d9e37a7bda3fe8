package exec

import (
	"context"
	"math"
	"slices"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/prolly"
)

// ResultColumn describes one output column, as RowDescription reports it.
type ResultColumn struct {
	Name     string
	T        T
	TableOID uint32
	AttNum   int16
}

// Plan is an immutable description of a row source, made by the planner and
// reusable across executions (prepared statements). Open starts one
// execution.
type Plan interface {
	Columns() []ResultColumn
	Open(env *Env) (Rows, error)
}

// Rows is one execution of a Plan: a stream of rows. Next returns nil at the
// end. A returned Row is valid until the next call of Next. Rows are used
// by one goroutine; Close them when done.
type Rows interface {
	Next() (Row, error)
	Close() error
}

// keyedRows is a row source over a table that can say which stored row it
// returned last: the input of UPDATE and DELETE.
type keyedRows interface {
	Rows
	Key() []byte
}

// Scan reads a table's rows in primary key order, within optional key
// bounds [Lower, Upper).
type Scan struct {
	Table        *Table
	Lower, Upper []byte
	Cols         []ResultColumn
	// Alias is the name the query gives the table (FROM t AS a), for
	// EXPLAIN; empty when it is the table's own.
	Alias string
	// Layout, when set, reads the rows of a table that inherits from
	// another in its ancestor's column layout (see Append): column i of a
	// row is the table's column Layout[i], NULL where that is -1.
	Layout []int
	// Reverse reads the rows from the last key to the first.
	Reverse bool
}

func (p *Scan) Columns() []ResultColumn { return p.Cols }

func (p *Scan) Open(env *Env) (Rows, error) {
	if p.Table.Virtual != nil {
		return openVirtual(env, p.Table)
	}
	t, m, err := p.readTable(env)
	if err != nil {
		return nil, err
	}
	it := m.NewIter(env.Ctx, prolly.IterOptions{LowerBound: p.Lower, UpperBound: p.Upper})
	r := &scanRows{ctx: env.Ctx, t: t, it: it, reverse: p.Reverse, tx: env.Txn}
	if p.Reverse || p.Lower != nil || p.Upper != nil {
		r.index = primaryKeyIndex(t)
	}
	if p.Layout != nil {
		return &layoutRows{scanRows: r, layout: p.Layout, out: make(Row, len(p.Layout))}, nil
	}
	return r, nil
}

// readTable returns the transaction's version of the scanned table and
// its rows' map, the table's read noted for serializable transactions.
func (p *Scan) readTable(env *Env) (*Table, prolly.Map, error) {
	t, err := env.Txn.current(env.Ctx, p.Table)
	if err != nil {
		return nil, prolly.Map{}, err
	}
	if err := env.Txn.ssiReadTable(t); err != nil {
		return nil, prolly.Map{}, err
	}
	m, err := env.Txn.rowsMap(env.Ctx, t)
	return t, m, err
}

type scanRows struct {
	ctx     context.Context
	t       *Table
	it      *prolly.Iter
	started bool
	reverse bool
	row     Row
	n       int
	// tx counts the scan in its statistics at Close: index names the
	// primary key's index for a read in key order or within key bounds
	// (an index scan of it), "" for a sequential one; rows are the rows
	// returned.
	tx    *Txn
	index string
	rows  int64
}

// CancelCheckRows is how many rows a scan reads between looks at its
// context: often enough to stop a cancelled statement at once, rarely
// enough to cost nothing.
const CancelCheckRows = 1024

func (r *scanRows) Next() (Row, error) {
	if r.n++; r.n%CancelCheckRows == 0 {
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
	}
	var ok bool
	switch {
	case !r.started && r.reverse:
		r.started = true
		ok = r.it.Last()
	case !r.started:
		r.started = true
		ok = r.it.First()
	case r.reverse:
		ok = r.it.Prev()
	default:
		ok = r.it.Next()
	}
	if !ok {
		return nil, r.it.Err()
	}
	v, err := r.it.Value()
	if err != nil {
		return nil, err
	}
	r.rows++
	r.row, err = r.t.decodeRow(v, r.row)
	return r.row, err
}

func (r *scanRows) Key() []byte { return r.it.Key() }
func (r *scanRows) Close() error {
	r.tx.countScan(r.t, r.index, r.rows)
	r.tx = nil
	return r.it.Close()
}

// Filter passes the rows for which Pred is true.
type Filter struct {
	In   Plan
	Pred Expr
}

func (p *Filter) Columns() []ResultColumn { return p.In.Columns() }

func (p *Filter) Open(env *Env) (Rows, error) {
	in, err := p.In.Open(env)
	if err != nil {
		return nil, err
	}
	return &filterRows{env: env, in: in, pred: p.Pred}, nil
}

type filterRows struct {
	env  *Env
	in   Rows
	pred Expr
}

func (r *filterRows) Next() (Row, error) {
	for {
		row, err := r.in.Next()
		if row == nil || err != nil {
			return nil, err
		}
		ok, err := isTrue(r.env, r.pred, row)
		if err != nil {
			return nil, err
		}
		if ok {
			return row, nil
		}
	}
}

func (r *filterRows) Key() []byte  { return r.in.(keyedRows).Key() }
func (r *filterRows) Close() error { return r.in.Close() }

// Project computes output columns from each input row.
type Project struct {
	In    Plan
	Exprs []Expr
	Cols  []ResultColumn
}

func (p *Project) Columns() []ResultColumn { return p.Cols }

func (p *Project) Open(env *Env) (Rows, error) {
	in, err := p.In.Open(env)
	if err != nil {
		return nil, err
	}
	return &projectRows{env: env, in: in, exprs: p.Exprs, out: make(Row, len(p.Exprs))}, nil
}

type projectRows struct {
	env   *Env
	in    Rows
	exprs []Expr
	out   Row
}

func (r *projectRows) Next() (Row, error) {
	row, err := r.in.Next()
	if row == nil || err != nil {
		return nil, err
	}
	for i, e := range r.exprs {
		if r.out[i], err = e.Eval(r.env, row); err != nil {
			return nil, err
		}
	}
	return r.out, nil
}

func (r *projectRows) Close() error { return r.in.Close() }

// Values is a constant list of rows (VALUES, or SELECT without FROM, whose
// single row is empty).
type Values struct {
	Rows [][]Expr
	Cols []ResultColumn
}

func (p *Values) Columns() []ResultColumn { return p.Cols }

func (p *Values) Open(env *Env) (Rows, error) {
	return &valuesRows{env: env, p: p}, nil
}

type valuesRows struct {
	env *Env
	p   *Values
	i   int
	out Row
}

func (r *valuesRows) Next() (Row, error) {
	if r.i >= len(r.p.Rows) {
		return nil, nil
	}
	exprs := r.p.Rows[r.i]
	r.i++
	if r.out == nil {
		r.out = make(Row, 0, len(exprs)) // never nil: nil ends the rows
	}
	r.out = r.out[:0]
	for _, e := range exprs {
		d, err := e.Eval(r.env, nil)
		if err != nil {
			return nil, err
		}
		r.out = append(r.out, d)
	}
	return r.out, nil
}

func (r *valuesRows) Close() error { return nil }

// SortKey is one ORDER BY item over the input's columns.
type SortKey struct {
	Col        int
	Desc       bool
	NullsFirst bool
}

// Sort orders its input. It holds every row in memory.
//
// TODO(spill): sort runs to disk past a memory budget.
type Sort struct {
	In   Plan
	Keys []SortKey
}

func (p *Sort) Columns() []ResultColumn { return p.In.Columns() }

func (p *Sort) Open(env *Env) (Rows, error) {
	rows, err := drain(env, p.In)
	if err != nil {
		return nil, err
	}
	SortLikePostgres(rows, func(a, b Row) int { return CompareRows(a, b, p.Keys) })
	return &bufferedRows{rows: rows}, nil
}

// openBounded opens the sort for a consumer that reads only its first
// bound rows (a LIMIT and OFFSET above it): a bounded sort (topN), as
// PostgreSQL's tuplesort_set_bound, which ignores bounds past INT_MAX/2.
func (p *Sort) openBounded(env *Env, bound int64) (Rows, error) {
	if bound > math.MaxInt32/2 {
		return p.Open(env)
	}
	in, err := p.In.Open(env)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	s := &topN{cmp: func(a, b Row) int { return CompareRows(a, b, p.Keys) }, bound: int(bound)}
	for {
		row, err := in.Next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			break
		}
		if !s.heap { // past it, the sort holds bound rows whatever it reads
			if err := env.hold(row); err != nil {
				return nil, err
			}
		}
		s.add(slices.Clone(row))
	}
	return &bufferedRows{rows: s.sorted()}, nil
}

// CompareRows orders two rows by keys as ORDER BY does: NULLs last
// unless a key says NULLS FIRST, DESC reversing the values' order.
func CompareRows(a, b Row, keys []SortKey) int {
	for _, k := range keys {
		x, y := a[k.Col], b[k.Col]
		var c int
		switch {
		case x.IsNull() && y.IsNull():
			c = 0
		case x.IsNull() || y.IsNull():
			// NULLs sort as larger than everything unless NULLS FIRST; DESC
			// flips the order but not the NULL placement we were given.
			c = 1
			if y.IsNull() {
				c = -1
			}
			if k.NullsFirst {
				c = -c
			}
			return c
		default:
			c = Compare(x, y)
		}
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// bufferedRows returns rows from memory.
type bufferedRows struct {
	rows []Row
	i    int
}

func (r *bufferedRows) Next() (Row, error) {
	if r.i >= len(r.rows) {
		return nil, nil
	}
	r.i++
	return r.rows[r.i-1], nil
}

func (r *bufferedRows) Close() error { return nil }

// Limit passes at most Count rows after skipping Offset; nil expressions
// mean no limit and no offset.
type Limit struct {
	In            Plan
	Count, Offset Expr
}

func (p *Limit) Columns() []ResultColumn { return p.In.Columns() }

func (p *Limit) Open(env *Env) (Rows, error) { return p.open(env, true) }

// open opens the limit; bound says whether a sort below may be bounded by
// it (not under WITH TIES, whose last rows are past the count).
func (p *Limit) open(env *Env, bound bool) (Rows, error) {
	count, offset := int64(-1), int64(0)
	for _, x := range []struct {
		e    Expr
		dst  *int64
		nm   string
		code pgerr.Code
	}{{p.Count, &count, "LIMIT", "2201W"}, {p.Offset, &offset, "OFFSET", "2201X"}} {
		if x.e == nil {
			continue
		}
		d, err := x.e.Eval(env, nil)
		if err != nil {
			return nil, err
		}
		if d.IsNull() {
			continue
		}
		if d.I < 0 {
			// invalid_row_count_in_limit_clause, ..._in_result_offset_clause
			return nil, pgerr.New(x.code, "%s must not be negative", x.nm)
		}
		*x.dst = d.I
	}
	var in Rows
	var err error
	if s, ok := p.In.(*Sort); ok && bound && count >= 0 {
		in, err = s.openBounded(env, count+offset)
	} else {
		in, err = p.In.Open(env)
	}
	if err != nil {
		return nil, err
	}
	return &limitRows{in: in, left: count, skip: offset}, nil
}

type limitRows struct {
	in   Rows
	left int64 // -1: unlimited
	skip int64
}

func (r *limitRows) Next() (Row, error) {
	for r.skip > 0 {
		row, err := r.in.Next()
		if row == nil || err != nil {
			return nil, err
		}
		r.skip--
	}
	if r.left == 0 {
		return nil, nil
	}
	if r.left > 0 {
		r.left--
	}
	return r.in.Next()
}

func (r *limitRows) Close() error { return r.in.Close() }
