package exec

// LockRows is SELECT ... FOR UPDATE (NO KEY UPDATE, SHARE, KEY SHARE) over one table:
// it takes the row lock of each row that reaches it, where PostgreSQL's
// LockRows node sits, above the sort and below the LIMIT, so that a LIMIT
// counts locked rows and SKIP LOCKED hands each row to one taker. A row
// another transaction changed and committed is returned in its newest
// version if it still passes Recheck (READ COMMITTED), and passed by if
// not (Txn.lockKey).
type LockRows struct {
	In Plan
	// Table is the table read; the input row holds a row of it (all its
	// columns) from column RowAt on.
	Table *Table
	RowAt int
	// Exprs compute the input's columns from a row of Table: the output
	// for a newer version of a row than the one read.
	Exprs   []Expr
	Recheck Expr
	Mode    LockMode
	Wait    LockWait
}

func (p *LockRows) Columns() []ResultColumn { return p.In.Columns() }

func (p *LockRows) Open(env *Env) (Rows, error) {
	in, err := p.In.Open(env)
	if err != nil {
		return nil, err
	}
	return &lockedRows{p: p, env: env, in: in}, nil
}

type lockedRows struct {
	p      *LockRows
	env    *Env
	in     Rows
	keyBuf []byte
}

func (r *lockedRows) Next() (Row, error) {
	p := r.p
	for {
		row, err := r.in.Next()
		if err != nil || row == nil {
			return row, err
		}
		key, err := p.Table.rowKey(r.keyBuf[:0], row[p.RowAt:p.RowAt+len(p.Table.Cols)], 0)
		if err != nil {
			return nil, err
		}
		r.keyBuf = key
		newer, _, skip, err := r.env.Txn.lockKey(r.env, p.Table, key, p.Mode, p.Wait, p.Recheck)
		switch {
		case err != nil:
			return nil, err
		case skip:
			continue
		case newer != nil:
			out := make(Row, len(p.Exprs))
			for i, e := range p.Exprs {
				if out[i], err = e.Eval(r.env, newer); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
		return row, nil
	}
}

func (r *lockedRows) Close() error { return r.in.Close() }
