package exec

import (
	"slices"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// Modify is an INSERT, UPDATE or DELETE. Open runs the whole statement,
// then returns the rows of its RETURNING clause (none without one); the
// Rows it returns report how many rows were affected.
type Modify struct {
	Kind   ModifyKind
	Table  *Table
	Source Plan
	// Insert: Targets[i] is the column position of source column i;
	// Defaults[pos] computes a column the source does not give (nil: NULL).
	Targets  []int
	Defaults []Expr
	// Update: Sets[pos] computes the new value of a column from the old row
	// (nil: unchanged).
	Sets []Expr
	// Returning computes output rows from the new row (the old one for
	// DELETE).
	Returning []Expr
	Cols      []ResultColumn
	// Checks are the table's CHECK constraints, tested on every new row.
	Checks []CheckConstraint
	// Generated computes the table's stored generated columns on every
	// new row (generated.go); nil when it has none.
	Generated GeneratedCols
	// UpdatedGenerated, for UPDATE, lists the generated columns whose
	// expressions read a column Sets assigns: as in PostgreSQL, an UPDATE
	// OF trigger on them fires as if they were assigned.
	UpdatedGenerated []int
	// Conflict is an INSERT's ON CONFLICT clause (upsert.go), nil for none.
	Conflict *OnConflict
	// Members, when set, are the tables the statement writes in Table's
	// stead (inherit.go): the leaf partitions an INSERT into a
	// partitioned table routes to, or the tables an UPDATE or DELETE
	// reads through Source, an Append, in its order of parts.
	Members []Member
	// Route routes new rows of a partitioned Table to Members.
	Route *Router
	// Partition is the partition constraint of a partition written
	// directly; nil for other tables.
	Partition *PartitionCheck
	// Recheck, for UPDATE and DELETE, is the WHERE condition over a row of
	// Table alone: READ COMMITTED tests it again on the newest committed
	// version of a row that a concurrent transaction changed (rowlocking.go).
	// Nil when the statement joins other tables: such a row fails with
	// 40001 instead.
	Recheck Expr
}

// ModifyKind says which statement a Modify runs.
type ModifyKind uint8

const (
	Insert ModifyKind = iota
	Update
	Delete
)

func (p *Modify) Columns() []ResultColumn { return p.Cols }

// CountedRows is implemented by the Rows of statements that affect rows.
type CountedRows interface {
	Rows
	Affected() int64
}

func (p *Modify) Open(env *Env) (Rows, error) {
	if p.Table.Virtual != nil {
		if p.Table.VirtualWriter != nil && p.Kind != Insert {
			return p.openVirtualWrite(env)
		}
		return nil, virtualWriteError(p.Kind, p.Table)
	}
	if p.Members != nil {
		return p.openMembers(env)
	}
	t, ok, err := env.Txn.Table(env.Ctx, p.Table.Def.Schema, p.Table.Def.Name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", p.Table.Def.Name)
	}
	trg := newTriggerState(env, t, [...]string{"INSERT", "UPDATE", "DELETE"}[p.Kind], p.assigned(), p.Generated)
	if err := trg.statement(TriggerBefore); err != nil {
		return nil, err
	}
	if trg != nil { // a BEFORE statement trigger may have written the table
		if t, err = env.Txn.current(env.Ctx, t); err != nil {
			return nil, err
		}
	}
	w, err := env.Txn.Writer(env.Ctx, t)
	if err != nil {
		return nil, err
	}
	fks, err := newFKState(env, t, p.Kind) // nil when no foreign key is involved
	if err != nil {
		return nil, err
	}
	src, err := p.Source.Open(env)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	out := &modifiedRows{}
	row := make(Row, len(t.Cols))
	// UPDATE ... FROM and DELETE ... USING read the target's rows joined
	// with other tables: a row matching several times is changed once.
	var lastKey []byte
	updateMode := updateLockMode(t, p.Sets)
	var touched map[string]bool // ON CONFLICT: the rows this statement wrote
	for {
		in, err := src.Next()
		if err != nil {
			return nil, err
		}
		if in == nil {
			break
		}
		var ret Row
		switch p.Kind {
		case Insert:
			if err := p.newRow(env, in, row); err != nil {
				return nil, err
			}
			if trg != nil {
				r, err := trg.beforeRow("INSERT", nil, row)
				if err != nil {
					return nil, err
				}
				if r == nil {
					continue // a BEFORE trigger returned NULL
				}
				copy(row, r)
			}
			if err := p.Generated.compute(env, row); err != nil {
				return nil, err
			}
			if err := checkNotNull(t, row); err != nil {
				return nil, err
			}
			if err := checkConstraints(env, t, p.Checks, row); err != nil {
				return nil, err
			}
			if err := p.checkPartition(env, t, row); err != nil {
				return nil, err
			}
			if p.Conflict != nil {
				upd, skip, err := upsert(env, p.Conflict, p.Checks, p.Generated, w, t, row, nil, nil, &touched, trg)
				if err != nil {
					return nil, err
				}
				if skip {
					continue
				}
				if upd != nil {
					trg.afterRow("UPDATE", upd[0], upd[1])
					fks.changed(t, upd[0], upd[1])
					ret = upd[1]
					break
				}
			}
			if err := w.Insert(env.Ctx, row); err != nil {
				return nil, err
			}
			trg.afterRow("INSERT", nil, slices.Clone(row))
			fks.changed(t, nil, row)
			ret = row
		case Update:
			if p.repeated(src, &lastKey) {
				continue
			}
			key := slices.Clone(src.(keyedRows).Key())
			stored := in // the version in this transaction's maps
			in, skip, err := p.lockRow(env, t, key, in, updateMode)
			if err != nil {
				return nil, err
			}
			if skip {
				continue
			}
			old := slices.Clone(in)
			copy(row, in)
			for pos, e := range p.Sets {
				if e != nil {
					if row[pos], err = e.Eval(env, old); err != nil {
						return nil, err
					}
				}
			}
			p.Generated.clear(row)
			if trg != nil {
				r, err := trg.beforeRow("UPDATE", old, row)
				if err != nil {
					return nil, err
				}
				if r == nil {
					continue // a BEFORE trigger returned NULL
				}
				copy(row, r)
			}
			// Computed from the version of the row lockRow returned: a
			// newer committed one when a concurrent update came first.
			if err := p.Generated.compute(env, row); err != nil {
				return nil, err
			}
			if err := checkNotNull(t, row); err != nil {
				return nil, err
			}
			if err := checkConstraints(env, t, p.Checks, row); err != nil {
				return nil, err
			}
			if err := p.checkPartition(env, t, row); err != nil {
				return nil, err
			}
			if err := w.Update(env.Ctx, key, stored, row); err != nil {
				return nil, err
			}
			trg.afterRow("UPDATE", old, slices.Clone(row))
			fks.changed(t, old, row)
			ret = row
			if len(in) > len(row) {
				ret = append(slices.Clone(row), in[len(row):]...) // RETURNING may read the FROM items
			}
		case Delete:
			if p.repeated(src, &lastKey) {
				continue
			}
			key := slices.Clone(src.(keyedRows).Key())
			stored := in
			in, skip, err := p.lockRow(env, t, key, in, ForUpdate)
			if err != nil {
				return nil, err
			}
			if skip {
				continue
			}
			if trg != nil {
				if r, err := trg.beforeRow("DELETE", in, nil); err != nil || r == nil {
					if err != nil {
						return nil, err
					}
					continue // a BEFORE trigger returned NULL
				}
			}
			if err := w.Delete(env.Ctx, key, stored); err != nil {
				return nil, err
			}
			trg.afterRow("DELETE", slices.Clone(in), nil)
			fks.changed(t, in, nil)
			ret = in
		}
		out.n++
		if len(p.Returning) > 0 {
			r := make(Row, len(p.Returning))
			for i, e := range p.Returning {
				if r[i], err = e.Eval(env, ret); err != nil {
					return nil, err
				}
			}
			out.rows = append(out.rows, r)
		}
	}
	if err := w.Flush(env.Ctx); err != nil {
		return nil, err
	}
	if err := fks.run(); err != nil {
		return nil, err
	}
	if err := trg.flushAfter(); err != nil {
		return nil, err
	}
	return out, nil
}

// assigned returns, for UPDATE, what computes each column the statement
// assigns (nil for the others), which decides the UPDATE OF triggers that
// fire: Sets, and the generation expressions of UpdatedGenerated.
func (p *Modify) assigned() []Expr {
	if len(p.UpdatedGenerated) == 0 {
		return p.Sets
	}
	out := slices.Clone(p.Sets)
	for _, pos := range p.UpdatedGenerated {
		out[pos] = p.Generated[pos]
	}
	return out
}

// checkPartition fails if row is outside the partition written to.
func (p *Modify) checkPartition(env *Env, t *Table, row Row) error {
	if p.Partition == nil {
		return nil
	}
	return p.Partition.check(env, t, row)
}

// newRow fills row, in Table's layout, with an INSERT's values: the
// source row's for the target columns, the defaults for the others.
func (p *Modify) newRow(env *Env, in, row Row) error {
	for pos := range row {
		row[pos] = Null
		if d := p.Defaults[pos]; d != nil && !slices.Contains(p.Targets, pos) {
			var err error
			if row[pos], err = d.Eval(env, nil); err != nil {
				return err
			}
		}
	}
	for i, pos := range p.Targets {
		row[pos] = in[i]
	}
	return nil
}

// repeated reports whether the source's current row has the key of the
// row before it, and remembers the key.
func (p *Modify) repeated(src Rows, last *[]byte) bool {
	key := src.(keyedRows).Key()
	if *last != nil && string(key) == string(*last) {
		return true
	}
	*last = append((*last)[:0], key...)
	return false
}

func checkNotNull(t *Table, row Row) error {
	for i, c := range t.Cols {
		if c.NotNull && !c.Dropped && row[i].IsNull() {
			return pgerr.New(pgerr.NotNullViolation, "null value in column %q of relation %q violates not-null constraint", c.Name, t.Def.Name).
				WithDetail("Failing row contains %s.", formatRow(t, row)).WithTable(t.Def.Schema, t.Def.Name).WithColumn(c.Name)
		}
	}
	return nil
}

// formatRow prints a row as PostgreSQL's error details do: (1, null, abc).
func formatRow(t *Table, row Row) string {
	b := []byte{'('}
	first := true
	for i, c := range t.Cols {
		if c.Dropped {
			continue
		}
		if !first {
			b = append(b, ", "...)
		}
		first = false
		if row[i].IsNull() {
			b = append(b, "null"...)
			continue
		}
		b = AppendText(b, c.Type, row[i], nil)
	}
	return string(append(b, ')'))
}

type modifiedRows struct {
	bufferedRows
	n    int64
	rows []Row
}

func (r *modifiedRows) Next() (Row, error) {
	r.bufferedRows.rows = r.rows
	return r.bufferedRows.Next()
}

func (r *modifiedRows) Affected() int64 { return r.n }
