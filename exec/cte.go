package exec

import (
	"errors"
	"slices"
)

// CTE is a common table expression of a WITH clause. It is computed at
// most once per execution of the With that binds it, however many
// CTEScans read it, and only as far as they read (so that a recursive CTE
// under a LIMIT stops).
//
// A Modifying CTE (INSERT, UPDATE or DELETE in WITH) runs to its end when
// the With opens, before the body, so that it runs once whatever the body
// reads; its rows are its RETURNING rows.
type CTE struct {
	Name      string
	Plan      Plan
	Modifying bool
}

// With binds CTEs, then runs Body, whose CTEScans (and those of the
// subqueries in it) read them.
type With struct {
	CTEs []*CTE
	Body Plan
}

func (p *With) Columns() []ResultColumn { return p.Body.Columns() }

func (p *With) Open(env *Env) (Rows, error) {
	cenv := env.child(env.Outer)
	bufs := make([]*cteBuffer, len(p.CTEs))
	for i, c := range p.CTEs {
		bufs[i] = &cteBuffer{env: cenv, plan: c.Plan}
		cenv.bind(c, bufs[i])
	}
	for i, c := range p.CTEs {
		if !c.Modifying {
			continue
		}
		if env.Txn != nil {
			env.Txn.SnapshotStatement()
		}
		for n := 0; ; n++ {
			row, err := bufs[i].row(n)
			if err != nil {
				closeBuffers(bufs)
				return nil, err
			}
			if row == nil {
				break
			}
		}
	}
	body, err := p.Body.Open(cenv)
	if err != nil {
		closeBuffers(bufs)
		return nil, err
	}
	if c, ok := body.(CountedRows); ok {
		return &countedWithRows{withRows{body: body, bufs: bufs}, c}, nil
	}
	return &withRows{body: body, bufs: bufs}, nil
}

type withRows struct {
	body Rows
	bufs []*cteBuffer
}

// countedWithRows is withRows over an INSERT, UPDATE or DELETE, whose
// count it reports.
type countedWithRows struct {
	withRows
	c CountedRows
}

func (r *countedWithRows) Affected() int64 { return r.c.Affected() }

func (r *withRows) Next() (Row, error) { return r.body.Next() }

func (r *withRows) Close() error {
	return errors.Join(r.body.Close(), closeBuffers(r.bufs))
}

func closeBuffers(bufs []*cteBuffer) error {
	var err error
	for _, b := range bufs {
		if b.in != nil {
			err = errors.Join(err, b.in.Close())
			b.in = nil
		}
	}
	return err
}

// cteBuffer holds the rows of a CTE computed so far; readers pull more
// from the CTE's plan on demand.
type cteBuffer struct {
	env  *Env
	plan Plan
	rows []Row
	in   Rows
	done bool
	err  error
}

// row returns row i of the CTE, nil past its end.
func (b *cteBuffer) row(i int) (Row, error) {
	for i >= len(b.rows) && !b.done {
		if b.err != nil {
			return nil, b.err
		}
		if b.in == nil {
			if b.in, b.err = b.plan.Open(b.env); b.err != nil {
				return nil, b.err
			}
		}
		row, err := b.in.Next()
		if err != nil {
			b.err = err
			return nil, err
		}
		if row == nil {
			b.done = true
			b.err = b.in.Close()
			b.in = nil
			return nil, b.err
		}
		if err := b.env.hold(row); err != nil {
			return nil, err
		}
		b.rows = append(b.rows, slices.Clone(row))
	}
	if i >= len(b.rows) {
		return nil, b.err
	}
	return b.rows[i], nil
}

// CTEScan reads the rows of a CTE bound by an enclosing With.
type CTEScan struct {
	CTE  *CTE
	Cols []ResultColumn
}

func (p *CTEScan) Columns() []ResultColumn { return p.Cols }

func (p *CTEScan) Open(env *Env) (Rows, error) {
	v, ok := env.lookup(p.CTE)
	if !ok {
		return nil, errors.New("exec: CTE " + p.CTE.Name + " is not bound")
	}
	return &cteScanRows{buf: v.(*cteBuffer)}, nil
}

type cteScanRows struct {
	buf *cteBuffer
	i   int
}

func (r *cteScanRows) Next() (Row, error) {
	row, err := r.buf.row(r.i)
	if row != nil {
		r.i++
	}
	return row, err
}

func (r *cteScanRows) Close() error { return nil }

// RecursiveUnion is the body of WITH RECURSIVE: NonRec's rows, then the
// rows of Rec run again and again over the rows the previous round gave
// (its WorkTableScans read them) until a round gives none. Without All,
// rows already returned are dropped, and do not feed the next round.
type RecursiveUnion struct {
	NonRec, Rec Plan
	All         bool
	Cols        []ResultColumn
}

func (p *RecursiveUnion) Columns() []ResultColumn { return p.Cols }

// workTable is the rows of the previous round, as WorkTableScans see them.
type workTable struct{ rows []Row }

func (p *RecursiveUnion) Open(env *Env) (Rows, error) {
	wenv := env.child(env.Outer)
	wt := &workTable{}
	wenv.bind(p, wt)
	in, err := p.NonRec.Open(wenv)
	if err != nil {
		return nil, err
	}
	r := &recursiveRows{p: p, env: wenv, wt: wt, in: in}
	if !p.All {
		r.seen = newKeyTable(len(p.Cols))
	}
	return r, nil
}

type recursiveRows struct {
	p    *RecursiveUnion
	env  *Env
	wt   *workTable
	in   Rows
	next []Row // the rows of this round: the next round's work table
	seen *keyTable
	buf  []byte
}

func (r *recursiveRows) Next() (Row, error) {
	for r.in != nil {
		row, err := r.in.Next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			if err := r.in.Close(); err != nil {
				return nil, err
			}
			r.in = nil
			if len(r.next) == 0 {
				return nil, nil
			}
			r.wt.rows, r.next = r.next, nil
			if r.env.Ctx != nil {
				if err := r.env.Ctx.Err(); err != nil {
					return nil, err
				}
			}
			if r.in, err = r.p.Rec.Open(r.env); err != nil {
				return nil, err
			}
			continue
		}
		if r.seen != nil && !firstTime(r.seen, &r.buf, row) {
			continue
		}
		if err := r.env.hold(row); err != nil {
			return nil, err
		}
		row = slices.Clone(row)
		r.next = append(r.next, row)
		return row, nil
	}
	return nil, nil
}

func (r *recursiveRows) Close() error {
	if r.in != nil {
		return r.in.Close()
	}
	return nil
}

// WorkTableScan reads the rows of the previous round of a RecursiveUnion.
type WorkTableScan struct {
	Union *RecursiveUnion
	Cols  []ResultColumn
}

func (p *WorkTableScan) Columns() []ResultColumn { return p.Cols }

func (p *WorkTableScan) Open(env *Env) (Rows, error) {
	v, ok := env.lookup(p.Union)
	if !ok {
		return nil, errors.New("exec: work table is not bound")
	}
	return &bufferedRows{rows: v.(*workTable).rows}, nil
}
