package exec

import (
	"slices"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// LockRows is SELECT ... FOR UPDATE (NO KEY UPDATE, SHARE, KEY SHARE): it
// takes the row lock of each row of its Targets that reaches it, where
// PostgreSQL's LockRows node sits, above the sort and below the LIMIT, so
// that a LIMIT counts locked rows and SKIP LOCKED hands each row to one
// taker. The input rows carry, from column RowAt on, the query's FROM row
// (Width columns: the rows of its FROM items side by side). When another
// transaction changed and committed a target's row, the newest version
// takes its place in the FROM row, which must still pass Recheck (the
// query's WHERE) for the row to be returned, recomputed by Exprs (READ
// COMMITTED, PostgreSQL's EvalPlanQual); else the row is passed by
// (Txn.lockKey).
type LockRows struct {
	In      Plan
	Targets []LockTarget
	RowAt   int
	Width   int
	// Exprs compute the input's columns from a FROM row.
	Exprs   []Expr
	Recheck Expr
	Mode    LockMode
	Wait    LockWait
}

// LockTarget is a table whose rows LockRows locks: its row (all its
// columns, in order) is at At in the FROM row. When the rows come from
// the table's members (a partitioned table, or one with children),
// Members are those, and the FROM row's column OIDAt (tableoid) says
// which member a row is of: its lock is that member's row lock.
type LockTarget struct {
	Table   *Table
	At      int
	Members []LockMember
	OIDAt   int
}

// LockMember is a member of a LockTarget: its table's OID, and the map
// from the target's columns to its own (Member.Layout; nil: the same).
type LockMember struct {
	OID    uint32
	Table  *Table
	Layout []int
}

// member returns the table and layout of a target's row from.
func (t *LockTarget) member(from Row) (*Table, []int, bool) {
	if t.Members == nil {
		return t.Table, nil, true
	}
	oid := uint32(from[t.OIDAt].I)
	for i := range t.Members {
		if m := &t.Members[i]; m.OID == oid {
			return m.Table, m.Layout, true
		}
	}
	return nil, nil, false
}

func (p *LockRows) Columns() []ResultColumn { return p.In.Columns() }

func (p *LockRows) Open(env *Env) (Rows, error) {
	in, err := p.In.Open(env)
	if err != nil {
		return nil, err
	}
	// With one target that is the whole FROM row, lockKey rechecks the
	// newer version itself.
	alone := len(p.Targets) == 1 && p.Targets[0].At == 0 && len(p.Targets[0].Table.Cols) == p.Width && p.Targets[0].Members == nil
	return &lockedRows{p: p, env: env, in: in, alone: alone}, nil
}

type lockedRows struct {
	p      *LockRows
	env    *Env
	in     Rows
	alone  bool
	keyBuf []byte
}

func (r *lockedRows) Next() (Row, error) {
	p, alone := r.p, r.alone
next:
	for {
		row, err := r.in.Next()
		if err != nil || row == nil {
			return row, err
		}
		from := row[p.RowAt : p.RowAt+p.Width]
		var newer Row // the FROM row with newer versions, when there are any
		for i := range p.Targets {
			t := &p.Targets[i]
			tr := from[t.At : t.At+len(t.Table.Cols)]
			table, layout, ok := t.member(from)
			if !ok {
				return nil, pgerr.New(pgerr.InternalError, "row of no member of %q to lock", t.Table.Def.Name)
			}
			if layout != nil {
				mr := make(Row, len(table.Cols))
				unmapRow(mr, tr, layout)
				tr = mr
			}
			key, err := table.rowKey(r.keyBuf[:0], tr, 0)
			if err != nil {
				return nil, err
			}
			r.keyBuf = key
			recheck := alwaysTrue
			if alone {
				recheck = p.Recheck
			}
			v, _, skip, err := r.env.Txn.lockKey(r.env, table, key, p.Mode, p.Wait, recheck)
			switch {
			case err != nil:
				return nil, err
			case skip:
				continue next
			case v != nil:
				if newer == nil {
					newer = slices.Clone(from)
				}
				if layout != nil {
					mapRow(newer[t.At:t.At+len(t.Table.Cols)], v, layout)
				} else {
					copy(newer[t.At:], v)
				}
			}
		}
		if newer == nil {
			return row, nil
		}
		if !alone {
			ok, err := isTrue(r.env, p.Recheck, newer)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		out := make(Row, len(p.Exprs))
		for i, e := range p.Exprs {
			if out[i], err = e.Eval(r.env, newer); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

func (r *lockedRows) Close() error { return r.in.Close() }
