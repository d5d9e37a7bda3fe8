package exec

import (
	"context"
	"slices"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// Modify is an INSERT, UPDATE, DELETE or MERGE. Open runs the whole
// statement, then returns the rows of its RETURNING clause (none without
// one); the Rows it returns report how many rows were affected.
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
	// Policies are the row-level security checks of every new row (rls.go),
	// over the statement table's layout: an INSERT's WITH CHECK
	// expressions, or an UPDATE's (a MERGE's are its WHEN clauses'); nil
	// when row security does not apply.
	Policies []PolicyCheck
	// ViewChecks are the WITH CHECK OPTION conditions of the views the
	// statement was written through, innermost first (rls.go); tested on
	// every new row after its constraints, as PostgreSQL tests them.
	ViewChecks []ViewCheck
	// Generated computes the table's stored generated columns on every
	// new row (generated.go); nil when it has none.
	Generated GeneratedCols
	// UpdatedGenerated, for UPDATE, lists the generated columns whose
	// expressions read a column Sets assigns: as in PostgreSQL, an UPDATE
	// OF trigger on them fires as if they were assigned.
	UpdatedGenerated []int
	// Conflict is an INSERT's ON CONFLICT clause (upsert.go), nil for none.
	Conflict *OnConflict
	// InWith marks an UPDATE or DELETE in a WITH clause: the rows it
	// changes are skipped by the statement's other UPDATEs and DELETEs,
	// as PostgreSQL ignores a row the same command already changed.
	InWith bool
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
	// With RecheckJoined, the statement joins other tables (FROM, USING)
	// and Recheck is over the source row, Table's columns and then the
	// other items': the newest version takes the place of Table's columns
	// and the others stay as read, as PostgreSQL's EvalPlanQual redoes a
	// joined row.
	Recheck       Expr
	RecheckJoined bool
	// Merge is a MERGE's join and WHEN clauses (merge.go).
	Merge *MergeClause
	// NoRules marks the original statement that rule.go runs under its
	// relation's rules: it is not handed to them again.
	NoRules bool
	// Where, for an INSERT, is COPY FROM's WHERE: a new row (in Table's
	// layout, its defaults computed) it does not hold for is skipped,
	// before any trigger sees it, as PostgreSQL's CopyFrom does.
	Where Expr
}

// ModifyKind says which statement a Modify runs.
type ModifyKind uint8

const (
	Insert ModifyKind = iota
	Update
	Delete
	Merge
)

func (p *Modify) Columns() []ResultColumn { return p.Cols }

// CountedRows is implemented by the Rows of statements that affect rows.
type CountedRows interface {
	Rows
	Affected() int64
}

func (p *Modify) Open(env *Env) (Rows, error) {
	if rs := p.rulesOn(env); len(rs) > 0 {
		return p.openRules(env, rs) // rule.go
	}
	if p.Table.Virtual != nil {
		if p.Kind != Merge {
			event := [...]string{"INSERT", "UPDATE", "DELETE"}[p.Kind]
			if trs := insteadTriggers(p.Table, event); len(trs) > 0 {
				return p.openInstead(env, event, trs) // instead.go
			}
		}
		_, inserts := p.Table.VirtualWriter.(VirtualInserter)
		if p.Table.VirtualWriter != nil && (p.Kind == Update || p.Kind == Delete || p.Kind == Insert && inserts) {
			return p.openVirtualWrite(env)
		}
		return nil, virtualWriteError(p.Kind, p.Table)
	}
	if p.Kind == Merge {
		return p.openMerge(env)
	}
	if p.Members != nil {
		return p.openMembers(env)
	}
	tt, err := p.openTable(env, p.statementEvents(), p.assigned())
	if err != nil {
		return nil, err
	}
	return p.modifyRows(env, tt, tt.row)
}

// modifyRows runs INSERT, UPDATE or DELETE: each source row goes through
// target (row is a buffer for new rows in Table's layout), and the rows
// written are counted and returned.
func (p *Modify) modifyRows(env *Env, target rowTarget, row Row) (Rows, error) {
	src, err := p.Source.Open(env)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	out := &modifiedRows{}
	// UPDATE ... FROM and DELETE ... USING read the target's rows joined
	// with other tables: a row matching several times is changed once.
	var lastKey []byte
	mode := p.lockMode()
	for {
		in, err := src.Next()
		if err != nil {
			return nil, err
		}
		if in == nil {
			break
		}
		var ret Row
		var done bool
		switch p.Kind {
		case Insert:
			if err := p.newRow(env, p.Targets, in, row); err != nil {
				return nil, err
			}
			if p.Where != nil {
				if ok, err := isTrue(env, p.Where, row); err != nil {
					return nil, err
				} else if !ok {
					continue
				}
			}
			ret, done, err = target.insert(row)
		case Update, Delete:
			if p.repeated(src, &lastKey) {
				continue
			}
			key := slices.Clone(src.(keyedRows).Key())
			if skip, err := env.Txn.changedByOther(env.Ctx, p, key, in); err != nil {
				return nil, err
			} else if skip {
				continue
			}
			stored := in // the version in this transaction's maps
			recheck := p.Recheck
			if p.RecheckJoined {
				recheck = alwaysTrue // the joined row is rechecked below
			}
			newer, based, skip, lerr := target.lock(key, mode, recheck)
			if lerr != nil {
				return nil, lerr
			}
			if skip {
				continue
			}
			if newer != nil && p.RecheckJoined {
				joined := append(slices.Clone(newer[:len(p.Table.Cols)]), in[len(p.Table.Cols):]...)
				if ok, err := isTrue(env, p.Recheck, joined); err != nil {
					return nil, err
				} else if !ok {
					continue
				}
				in = joined
			} else if newer != nil {
				in = newer
			}
			if p.Kind == Update {
				ret, done, err = target.update(key, stored, in, p.Sets, based)
			} else {
				ret, done, err = target.delete(key, stored, in, based)
			}
		}
		if err != nil {
			return nil, err
		}
		if !done {
			continue
		}
		if p.InWith && p.Kind != Insert {
			env.Txn.changedBy(p, src.(keyedRows).Key(), ret)
		}
		oid, locked := target.written()
		if err := p.counted(env, out, ret, oid, locked); err != nil {
			return nil, err
		}
	}
	if err := target.finish(); err != nil {
		return nil, err
	}
	env.Txn.countWrites(p.Table, p.Kind, out.n)
	return out, nil
}

// counted counts a written row in out, with its RETURNING row computed
// from ret; oid is the table it was written to (WrittenTableOID), locked
// whether the row had to be locked first (WrittenXid).
func (p *Modify) counted(env *Env, out *modifiedRows, ret Row, oid uint32, locked bool) error {
	out.n++
	if len(p.Returning) == 0 {
		return nil
	}
	env.writtenOID, env.writtenLocked = oid, locked
	r := make(Row, len(p.Returning))
	for i, e := range p.Returning {
		var err error
		if r[i], err = e.Eval(env, ret); err != nil {
			return err
		}
	}
	out.rows = append(out.rows, r)
	return nil
}

// rowTarget is where a Modify writes its rows, one at a time: its Table
// alone (tableTarget) or the tables of its Members (membersTarget). The
// writes check constraints and fire triggers; each returns the row
// RETURNING reads and whether a row was written (a BEFORE ROW trigger
// may skip it). Keys are those of the Modify's source rows: for
// members, prefixed by the member (SplitMemberKey).
type rowTarget interface {
	// written is the OID of the table the last row written went to (a
	// partition, a child table, or Table itself), and whether the row was
	// deleted or updated by ON CONFLICT DO UPDATE (its xmax is set).
	written() (oid uint32, locked bool)
	// insert writes a new row, in Table's layout.
	insert(row Row) (ret Row, done bool, err error)
	// update replaces the row stored under key: stored is the version
	// in the transaction's maps, in the one the new values are computed
	// from (sets, by column position, over in; in may be wider than the
	// table's columns, the columns of FROM items after them). based,
	// when set, is the newer committed version lock found, which the
	// change is made on top of (Txn.rebase).
	update(key []byte, stored, in Row, sets []Expr, based []byte) (ret Row, done bool, err error)
	// delete removes the row stored under key, as update.
	delete(key []byte, stored, in Row, based []byte) (ret Row, done bool, err error)
	// lock takes the row lock (in mode) of the row stored under key before
	// it is changed, and returns its newest committed version (in Table's
	// layout, and as stored: based) when a concurrent transaction
	// changed it since the snapshot and recheck holds on that version;
	// skip when the row is gone or fails recheck (Txn.lockKey).
	lock(key []byte, mode LockMode, recheck Expr) (newer Row, based []byte, skip bool, err error)
	// vanish drops the row stored under key, which lock found deleted by
	// a concurrent transaction (Txn.vanished); stored as in update.
	vanish(key []byte, stored Row) error
	// finish flushes the writes and runs the foreign key work and the
	// AFTER triggers.
	finish() error
	// checkWith makes checks the row-level security checks of the rows
	// written next (Modify.Policies until then): a MERGE's WHEN clause's.
	checkWith(checks []PolicyCheck)
}

// tableTarget is a Modify's Table as its rowTarget: the table's writer,
// triggers and foreign key work for one execution.
type tableTarget struct {
	p   *Modify
	env *Env
	t   *Table
	w   *TableWriter
	trg *triggerState
	fks *fkState
	row Row // a buffer for a new row
	// touched are the rows an INSERT ... ON CONFLICT wrote (see upsert).
	touched map[string]bool
	// policies are the row-level security checks of new rows (checkWith).
	policies []PolicyCheck
	// locked says the last row written was deleted or updated by ON
	// CONFLICT DO UPDATE (written).
	locked bool
}

func (tt *tableTarget) checkWith(checks []PolicyCheck) { tt.policies = checks }

// openTable readies p's Table for writing, firing the BEFORE statement
// triggers of events (the one of INSERT, UPDATE or DELETE; MERGE's of its
// actions); sets are the columns an UPDATE assigns, for UPDATE OF
// triggers.
func (p *Modify) openTable(env *Env, events []string, sets []Expr) (*tableTarget, error) {
	t, ok, err := env.Txn.Table(env.Ctx, p.Table.Def.Schema, p.Table.Def.Name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", p.Table.Def.Name)
	}
	trg, err := newTriggerState(env, t, events, sets, p.Generated)
	if err != nil {
		return nil, err
	}
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
	return &tableTarget{p: p, env: env, t: t, w: w, trg: trg, fks: fks, row: make(Row, len(t.Cols)), policies: p.Policies}, nil
}

func (tt *tableTarget) insert(row Row) (Row, bool, error) {
	p, env, t, trg := tt.p, tt.env, tt.t, tt.trg
	tt.locked = false
	if trg != nil {
		r, err := trg.beforeRow("INSERT", nil, row)
		if err != nil || r == nil {
			return nil, false, err // nil: a BEFORE trigger returned NULL
		}
		copy(row, r)
	}
	if err := p.Generated.compute(env, row); err != nil {
		return nil, false, err
	}
	if err := checkPolicies(env, t, tt.policies, row); err != nil {
		return nil, false, err
	}
	if err := checkNotNull(t, row); err != nil {
		return nil, false, err
	}
	if err := checkConstraints(env, t, p.Checks, row); err != nil {
		return nil, false, err
	}
	if err := p.checkPartition(env, t, row); err != nil {
		return nil, false, err
	}
	if p.Conflict != nil {
		upd, skip, err := upsert(env, p.Conflict, p.Checks, p.Generated, tt.w, t, row, nil, nil, &tt.touched, trg)
		if err != nil || skip {
			return nil, false, err
		}
		if upd != nil {
			trg.afterRow("UPDATE", upd[0], upd[1])
			tt.fks.changed(t, upd[0], upd[1])
			tt.locked = true
			return upd[1], true, nil
		}
	}
	if err := checkViewChecks(env, t, p.ViewChecks, row); err != nil {
		return nil, false, err
	}
	if err := tt.w.Insert(env.Ctx, row); err != nil {
		return nil, false, err
	}
	trg.afterRow("INSERT", nil, slices.Clone(row))
	tt.fks.changed(t, nil, row)
	return row, true, nil
}

func (tt *tableTarget) update(key []byte, stored, in Row, sets []Expr, based []byte) (Row, bool, error) {
	tt.locked = false
	env, t, trg, row := tt.env, tt.t, tt.trg, tt.row
	old := slices.Clone(in[:len(row)])
	copy(row, in)
	for pos, e := range sets {
		if e != nil {
			var err error
			if row[pos], err = e.Eval(env, in); err != nil {
				return nil, false, err
			}
		}
	}
	tt.p.Generated.clear(row)
	if trg != nil {
		r, err := trg.beforeRow("UPDATE", old, row)
		if err != nil || r == nil {
			return nil, false, err // nil: a BEFORE trigger returned NULL
		}
		copy(row, r)
	}
	// Computed from the version of the row lock returned: a newer
	// committed one when a concurrent update came first.
	if err := tt.p.Generated.compute(env, row); err != nil {
		return nil, false, err
	}
	if err := checkPolicies(env, t, tt.policies, row); err != nil {
		return nil, false, err
	}
	if err := checkNotNull(t, row); err != nil {
		return nil, false, err
	}
	if err := checkConstraints(env, t, tt.p.Checks, row); err != nil {
		return nil, false, err
	}
	if err := tt.p.checkPartition(env, t, row); err != nil {
		return nil, false, err
	}
	if err := checkViewChecks(env, t, tt.p.ViewChecks, row); err != nil {
		return nil, false, err
	}
	if err := tt.w.Update(env.Ctx, key, stored, row); err != nil {
		return nil, false, err
	}
	if based != nil {
		env.Txn.rebase(t, key, based)
	}
	trg.afterRow("UPDATE", old, slices.Clone(row))
	tt.fks.changed(t, old, row)
	if len(in) > len(row) {
		return append(slices.Clone(row), in[len(row):]...), true, nil // RETURNING may read the FROM items
	}
	return row, true, nil
}

func (tt *tableTarget) delete(key []byte, stored, in Row, based []byte) (Row, bool, error) {
	tt.locked = true
	old := in[:len(tt.t.Cols)]
	if tt.trg != nil {
		if r, err := tt.trg.beforeRow("DELETE", old, nil); err != nil || r == nil {
			return nil, false, err // nil: a BEFORE trigger returned NULL
		}
	}
	if err := tt.w.Delete(tt.env.Ctx, key, stored); err != nil {
		return nil, false, err
	}
	if based != nil {
		tt.env.Txn.rebase(tt.t, key, based)
	}
	tt.trg.afterRow("DELETE", slices.Clone(old), nil)
	tt.fks.changed(tt.t, old, nil)
	return in, true, nil
}

func (tt *tableTarget) lock(key []byte, mode LockMode, recheck Expr) (Row, []byte, bool, error) {
	row, now, skip, err := tt.env.Txn.lockKey(tt.env, tt.t, key, mode, LockBlock, recheck)
	return row, now, skip, err
}

func (tt *tableTarget) written() (uint32, bool) { return tt.t.OID, tt.locked }

func (tt *tableTarget) vanish(key []byte, stored Row) error {
	return tt.env.Txn.vanished(tt.env.Ctx, tt.w, key, stored)
}

func (tt *tableTarget) finish() error {
	if err := tt.w.Flush(tt.env.Ctx); err != nil {
		return err
	}
	if err := tt.fks.run(); err != nil {
		return err
	}
	return tt.trg.flushAfter()
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

// newRow fills row, in Table's layout, with an INSERT's values: in[i]
// for column targets[i], the defaults for the others.
func (p *Modify) newRow(env *Env, targets []int, in, row Row) error {
	for pos := range row {
		row[pos] = Null
		if d := p.Defaults[pos]; d != nil && !slices.Contains(targets, pos) {
			var err error
			if row[pos], err = d.Eval(env, nil); err != nil {
				return err
			}
		}
	}
	for i, pos := range targets {
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

// lockMode is the row lock an UPDATE or DELETE takes on each row it
// changes.
func (p *Modify) lockMode() LockMode {
	if p.Kind == Update {
		return updateLockMode(p.Table, p.Sets)
	}
	return ForUpdate
}

// stmtChange is a row an UPDATE or DELETE in WITH changed: by which, and
// its new version (nil when deleted).
type stmtChange struct {
	by  *Modify
	row Row
}

// changedBy records that p, an UPDATE or DELETE in a WITH clause, changed
// the row of its table stored under key in the running statement, to row
// (nil for a delete).
func (tx *Txn) changedBy(p *Modify, key []byte, row Row) {
	if tx.stmtChanged == nil {
		tx.stmtChanged = map[string]stmtChange{}
	}
	if p.Kind == Delete {
		row = nil
	}
	tx.stmtChanged[p.Table.Def.Schema+"."+p.Table.Def.Name+"\x00"+string(key)] = stmtChange{p, slices.Clone(row)}
}

// storedRow returns the row of t stored under key in the transaction's
// root (not the statement's snapshot), nil if there is none.
func (tx *Txn) storedRow(ctx context.Context, t *Table, key []byte) (Row, error) {
	cur, ok, err := tx.Table(ctx, t.Def.Schema, t.Def.Name)
	if err != nil || !ok {
		return nil, err
	}
	m, err := tx.rowsMap(ctx, cur)
	if err != nil {
		return nil, err
	}
	v, ok, err := m.Get(ctx, key)
	if err != nil || !ok {
		return nil, err
	}
	return cur.decodeRow(v, nil)
}

// changedByOther reports whether a Modify other than p changed the row of
// p's table stored under key earlier in the running statement, leaving
// in: the row the same command changed, which PostgreSQL's UPDATE and
// DELETE skip. A row changed since by another command (a function the
// statement called) is 27000, as in PostgreSQL.
func (tx *Txn) changedByOther(ctx context.Context, p *Modify, key []byte, in Row) (bool, error) {
	if len(tx.stmtChanged) == 0 {
		return false, nil
	}
	c, ok := tx.stmtChanged[p.Table.Def.Schema+"."+p.Table.Def.Name+"\x00"+string(key)]
	if !ok || c.by == p {
		return false, nil
	}
	if tx.stmtRoot != nil {
		// The statement reads its snapshot (SnapshotStatement): in is the
		// row as it was before the WITH query changed it. What counts is
		// whether the WITH query's version is still the row's.
		var err error
		if in, err = tx.storedRow(ctx, p.Table, key); err != nil {
			return false, err
		}
		if in == nil {
			// Deleted by the WITH query, and still; or not found where p
			// looks (a partitioned table's rows are its partitions'): the
			// row is the one the WITH query changed.
			return true, nil
		}
	}
	same := c.row != nil && len(c.row) <= len(in)
	for i := 0; same && i < len(c.row); i++ {
		same = Compare(c.row[i], in[i]) == 0
	}
	if same {
		return true, nil
	}
	how := "updated"
	if p.Kind == Delete {
		how = "deleted"
	}
	return false, pgerr.New(pgerr.TriggeredDataChangeViolation, "tuple to be %s was already modified by an operation triggered by the current command", how).
		WithHint("Consider using an AFTER trigger instead of a BEFORE trigger to propagate changes to other rows.")
}

// statementEvents returns the events whose statement triggers the
// statement fires: its own, and for INSERT ... ON CONFLICT DO UPDATE
// UPDATE's too, whether or not a row conflicts, as PostgreSQL fires them
// (BEFORE INSERT, BEFORE UPDATE; AFTER UPDATE, AFTER INSERT).
func (p *Modify) statementEvents() []string {
	events := []string{[...]string{"INSERT", "UPDATE", "DELETE"}[p.Kind]}
	if p.Kind == Insert && p.Conflict != nil && p.Conflict.Update {
		events = append(events, "UPDATE")
	}
	return events
}

// WrittenXid is the system column xmin (Xmax false) or xmax in RETURNING:
// xmin is the writing transaction's id; xmax is 0 for a row inserted or
// updated, and the id for a row deleted or updated by INSERT ... ON
// CONFLICT DO UPDATE, which PostgreSQL locks first (so RETURNING (xmax = 0)
// tells an upsert's inserts from its updates).
type WrittenXid struct{ Xmax bool }

func (x WrittenXid) Eval(env *Env, _ Row) (Datum, error) {
	if x.Xmax && !env.writtenLocked || env.Txn == nil {
		return DInt(0), nil
	}
	return DInt(env.Txn.XID() & 0xFFFFFFFF), nil
}
func (WrittenXid) Type() T { return T{OID: OIDXid, Typmod: -1} }

// WrittenTableOID is the system column tableoid in RETURNING: the OID of
// the table the row was written to, which for a statement on a
// partitioned table or one with inheritance children is the partition or
// child that holds the row.
type WrittenTableOID struct{}

func (WrittenTableOID) Eval(env *Env, _ Row) (Datum, error) { return DInt(int64(env.writtenOID)), nil }
func (WrittenTableOID) Type() T                             { return T{OID: OIDOid, Typmod: -1} }
