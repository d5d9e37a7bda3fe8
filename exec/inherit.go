package exec

import (
	"encoding/binary"
	"slices"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Append reads the rows of several plans, one after the other, as
// PostgreSQL's Append does for a table and the tables that inherit from
// it, or a partitioned table's partitions. Every part gives rows in the
// layout of Cols (Scan.Layout maps a descendant's columns).
//
// For UPDATE and DELETE, the rows are keyed: Key is the part's key
// prefixed by the part's index (a uvarint), so that equal keys of two
// tables stay distinct; SplitMemberKey takes them apart.
type Append struct {
	Parts []Plan
	Cols  []ResultColumn
	// Members, when set, numbers the parts in keys instead of their
	// positions: the members of Modify they are, some pruned.
	Members []int
	// OIDs, when set, are the parts' table OIDs: each row gets its
	// part's after its columns, the system column tableoid.
	OIDs []uint32
	// Skip, when set, leaves out the parts it reports, at each
	// execution: pruning by the values of the statement's parameters.
	Skip func(env *Env, part int) bool
}

func (p *Append) Columns() []ResultColumn { return p.Cols }

func (p *Append) Open(env *Env) (Rows, error) {
	parts, members, oids := p.Parts, p.Members, p.OIDs
	if p.Skip != nil {
		parts, members, oids = nil, nil, nil
		for i, part := range p.Parts {
			if p.Skip(env, i) {
				continue
			}
			parts = append(parts, part)
			if p.Members != nil {
				members = append(members, p.Members[i])
			}
			if p.OIDs != nil {
				oids = append(oids, p.OIDs[i])
			}
		}
	}
	r := &appendRows{env: env, parts: parts, members: members, cur: -1}
	if p.OIDs != nil {
		return &oidRows{appendRows: r, oids: oids}, nil
	}
	return r, nil
}

// oidRows are an Append's rows with their table's OID added.
type oidRows struct {
	*appendRows
	oids []uint32
	out  Row
}

func (r *oidRows) Next() (Row, error) {
	row, err := r.appendRows.Next()
	if row == nil || err != nil {
		return row, err
	}
	r.out = append(append(r.out[:0], row...), DInt(int64(r.oids[r.cur])))
	return r.out, nil
}

type appendRows struct {
	env     *Env
	parts   []Plan
	members []int
	cur     int
	in      Rows
	key     []byte
}

func (r *appendRows) Next() (Row, error) {
	for {
		if r.in != nil {
			row, err := r.in.Next()
			if row != nil || err != nil {
				return row, err
			}
			if err := r.in.Close(); err != nil {
				return nil, err
			}
			r.in = nil
		}
		if r.cur+1 >= len(r.parts) {
			return nil, nil
		}
		r.cur++
		in, err := r.parts[r.cur].Open(r.env)
		if err != nil {
			return nil, err
		}
		r.in = in
	}
}

func (r *appendRows) Key() []byte {
	m := r.cur
	if r.members != nil {
		m = r.members[r.cur]
	}
	r.key = binary.AppendUvarint(r.key[:0], uint64(m))
	return append(r.key, r.in.(keyedRows).Key()...)
}

func (r *appendRows) Close() error {
	if r.in != nil {
		return r.in.Close()
	}
	return nil
}

// SplitMemberKey takes apart a key of Append's rows: the index of the
// part the row came from and the row's key in its table.
func SplitMemberKey(k []byte) (int, []byte) {
	i, n := binary.Uvarint(k)
	return int(i), k[n:]
}

// layoutRows reads a descendant table's rows in an ancestor's layout.
type layoutRows struct {
	*scanRows
	layout []int
	out    Row
}

func (r *layoutRows) Next() (Row, error) {
	row, err := r.scanRows.Next()
	if row == nil || err != nil {
		return nil, err
	}
	mapRow(r.out, row, r.layout)
	return r.out, nil
}

// mapRow fills dst, a row of an ancestor's layout, from src, a row of a
// descendant whose columns layout maps.
func mapRow(dst, src Row, layout []int) {
	for i, pos := range layout {
		if pos < 0 {
			dst[i] = Null
		} else {
			dst[i] = src[pos]
		}
	}
}

// unmapRow writes the columns of src, a row of an ancestor's layout, into
// dst, a row of the descendant whose columns layout maps.
func unmapRow(dst, src Row, layout []int) {
	for i, pos := range layout {
		if pos >= 0 {
			dst[pos] = src[i]
		}
	}
}

// Member is a table a Modify writes in its Table's stead: a partition, or
// a table that inherits from Table (or Table itself).
type Member struct {
	Table *Table
	// Layout maps Table's column positions to this table's (-1 where it
	// has no such column); nil when the two have the same columns.
	Layout []int
	Checks []CheckConstraint
	// Generated computes this table's generated columns, in its layout:
	// a child may generate a column its parent stores as given.
	Generated GeneratedCols
	// Conflict is an INSERT's ON CONFLICT clause for this table: its
	// arbiters are the member's indexes that stand for Table's.
	Conflict *OnConflict
}

// memberState is what a membersTarget keeps per member, opened when the
// statement first writes it.
type memberState struct {
	m   *Member
	w   *TableWriter
	fks *fkState
	trg *triggerState // the member's ROW triggers
	// root is the statement table's trigger state, which keeps the
	// member's written rows, in its layout, for its transition tables.
	root *triggerState
	row  Row // a buffer for rows in the member's layout
	// touched are the keys an INSERT ... ON CONFLICT wrote (see upsert).
	touched map[string]bool
}

// openMembers runs a Modify over Members: INSERT routes each row to a
// partition; UPDATE and DELETE change each row in the table it came from,
// an UPDATE moving a row whose new key belongs to another partition.
func (p *Modify) openMembers(env *Env) (Rows, error) {
	mt, err := p.openFamily(env, p.statementEvents(), p.assigned())
	if err != nil {
		return nil, err
	}
	return p.modifyRows(env, mt, make(Row, len(p.Table.Cols)))
}

// membersTarget is a Modify's Members as its rowTarget: each member's
// writer opened when the statement first writes it. Statement triggers
// are those of Table, the table the statement names; ROW triggers are
// each member's (its own, and for a partition those of the partitioned
// tables above it).
type membersTarget struct {
	p      *Modify
	env    *Env
	states []*memberState
	sets   []Expr        // the columns an UPDATE assigns, for UPDATE OF triggers
	trg    *triggerState // Table's statement triggers
	queue  []TriggerCall // the members' AFTER ROW firings, in the order of the rows
	row    Row           // a buffer for rows in Table's layout
	keyBuf []Datum
	// policies are the row-level security checks of new rows, in
	// Table's layout (checkWith).
	policies []PolicyCheck
	// wrote is the OID of the member the last row was written to;
	// locked says it was deleted or updated by ON CONFLICT DO UPDATE.
	wrote  uint32
	locked bool
}

func (mt *membersTarget) written() (uint32, bool) { return mt.wrote, mt.locked }

func (mt *membersTarget) checkWith(checks []PolicyCheck) { mt.policies = checks }

// openFamily readies p's Members for writing, firing Table's BEFORE
// statement triggers of events (as openTable).
func (p *Modify) openFamily(env *Env, events []string, sets []Expr) (*membersTarget, error) {
	mt := &membersTarget{p: p, env: env, states: make([]*memberState, len(p.Members)), sets: sets, row: make(Row, len(p.Table.Cols)), policies: p.Policies}
	t, err := env.Txn.current(env.Ctx, p.Table)
	if err != nil {
		return nil, err
	}
	if mt.trg, err = newTriggerState(env, t, events, sets, p.Generated); err != nil {
		return nil, err
	}
	if err := mt.trg.statement(TriggerBefore); err != nil {
		return nil, err
	}
	return mt, nil
}

// member returns the state of member i, opening its writer.
func (mt *membersTarget) member(i int) (*memberState, error) {
	if s := mt.states[i]; s != nil {
		return s, nil
	}
	p, env := mt.p, mt.env
	m := &p.Members[i]
	t, err := env.Txn.current(env.Ctx, m.Table)
	if err != nil {
		return nil, err
	}
	s := &memberState{m: m, row: make(Row, len(t.Cols)), root: mt.trg}
	if s.w, err = env.Txn.Writer(env.Ctx, t); err != nil {
		return nil, err
	}
	if s.fks, err = newFKState(env, t, p.Kind); err != nil {
		return nil, err
	}
	var sets []Expr
	if mt.sets != nil {
		// The member's columns an UPDATE assigns, for its UPDATE OF
		// triggers.
		sets = make([]Expr, len(t.Cols))
		unmapRowExprs(sets, mt.sets, m.Layout)
	}
	if s.trg, err = newRowTriggers(env, t, sets, t, &mt.queue, s.m.Generated); err != nil {
		return nil, err
	}
	mt.states[i] = s
	return s, nil
}

// unmapRowExprs is unmapRow for expressions by column position.
func unmapRowExprs(dst, src []Expr, layout []int) {
	if layout == nil {
		copy(dst, src)
		return
	}
	for i, pos := range layout {
		if pos >= 0 {
			dst[pos] = src[i]
		}
	}
}

// memberRow returns row, in Table's layout, as a new row of member s:
// its own columns NULL, the others row's. It is built in s.row.
func (s *memberState) memberRow(row Row) Row {
	if s.m.Layout == nil {
		return row
	}
	for i := range s.row {
		s.row[i] = Null
	}
	unmapRow(s.row, row, s.m.Layout)
	return s.row
}

// inTable returns row, of member s, in Table's layout (in dst when the
// layouts differ).
func (s *memberState) inTable(dst, row Row) Row {
	if s.m.Layout == nil {
		return row
	}
	mapRow(dst, row, s.m.Layout)
	return dst
}

// storedRow returns the row stored under key in member s, whose columns
// in Table's layout are in.
func (s *memberState) storedRow(env *Env, key []byte, in Row) (Row, error) {
	if s.m.Layout == nil {
		return slices.Clone(in[:len(s.w.t.Cols)]), nil
	}
	v, ok, err := s.w.lookup(env.Ctx, key)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, pgerr.New(pgerr.InternalError, "row of %q vanished during the statement", s.w.t.Def.Name)
	}
	return s.w.t.decodeRow(v, nil)
}

// afterRow queues the AFTER ROW triggers of member s on a written row,
// in its layout, and keeps the row, in the statement table's layout, for
// that table's transition tables (PostgreSQL's show a partition's rows
// as rows of the table the statement names). The delete and insert that
// move a row to another partition (move) are the statement table's
// UPDATE, which the mover captures.
func (s *memberState) afterRow(event string, old, row Row, move bool) {
	s.trg.afterRow(event, old, row)
	if s.root == nil || !s.root.transitions || move {
		return
	}
	s.root.capture(event, s.inRoot(old), s.inRoot(row))
}

// inRoot returns a copy of row, of member s, in the statement table's
// layout; nil for nil.
func (s *memberState) inRoot(row Row) Row {
	if row == nil {
		return nil
	}
	if s.m.Layout == nil {
		return slices.Clone(row)
	}
	out := make(Row, len(s.m.Layout))
	mapRow(out, row, s.m.Layout)
	return out
}

// insert fires the BEFORE INSERT triggers of member s on row, in its
// layout, and writes it, the second half of a move (afterRow); done is
// false when a trigger skipped it.
func (s *memberState) insert(env *Env, row Row, move bool) (done bool, err error) {
	if done, err := s.beforeInsert(row); err != nil || !done {
		return false, err
	}
	return true, s.write(env, row, move)
}

// beforeInsert fires the BEFORE INSERT triggers of member s on row, in
// its layout, which takes the row they return; false when one skipped
// it.
func (s *memberState) beforeInsert(row Row) (bool, error) {
	if s.trg == nil {
		return true, nil
	}
	r, err := s.trg.beforeRow("INSERT", nil, row)
	if err != nil || r == nil {
		return false, err
	}
	copy(row, r)
	return true, nil
}

// write checks a new row of member s, in its layout, against the
// member's constraints and inserts it, the second half of a move
// (afterRow).
func (s *memberState) write(env *Env, row Row, move bool) error {
	t := s.w.t
	if err := s.m.Generated.compute(env, row); err != nil {
		return err
	}
	if err := checkNotNull(t, row); err != nil {
		return err
	}
	if err := checkConstraints(env, t, s.m.Checks, row); err != nil {
		return err
	}
	if err := s.w.Insert(env.Ctx, row); err != nil {
		return err
	}
	s.afterRow("INSERT", nil, slices.Clone(row), move)
	s.fks.changed(t, nil, row)
	return nil
}

// delete fires the BEFORE DELETE triggers of member s on seen, the
// version of the row stored under key (as old) the statement acts on,
// and deletes it, the first half of a move (afterRow); done is false
// when a trigger skipped it.
func (s *memberState) delete(env *Env, key []byte, old, seen Row, move bool) (done bool, err error) {
	if s.trg != nil {
		if r, err := s.trg.beforeRow("DELETE", seen, nil); err != nil || r == nil {
			return false, err
		}
	}
	if err := s.w.Delete(env.Ctx, key, old); err != nil {
		return false, err
	}
	s.afterRow("DELETE", slices.Clone(seen), nil, move)
	s.fks.changed(s.w.t, seen, nil)
	return true, nil
}

// seenRow is the version of a member's row a statement acts on, in the
// member's layout: old, the version in the transaction's maps, or, when
// a concurrent transaction changed the row (based set), in, its newest
// version in Table's layout, which triggers see as PostgreSQL's see the
// row EvalPlanQual fetched.
func (s *memberState) seenRow(old, in Row, based []byte) Row {
	if based == nil {
		return old
	}
	if s.m.Layout != nil {
		return unmappedRow(old, in, s.m.Layout)
	}
	return slices.Clone(in[:len(old)])
}

// upsertMember handles ON CONFLICT for row, in member i's layout
// (proposed in the statement table's): as upsert does, on the member's
// table. upd is the updated row in the statement table's layout, when
// the existing row was updated instead.
func (mt *membersTarget) upsertMember(s *memberState, i int, row, proposed Row) (upd Row, skip bool, err error) {
	p, env := mt.p, mt.env
	m := s.m
	t := s.w.t
	if err := m.Generated.compute(env, row); err != nil {
		return nil, false, err
	}
	if err := checkConstraints(env, t, m.Checks, row); err != nil {
		return nil, false, err
	}
	rows, skip, err := upsert(env, m.Conflict, m.Checks, m.Generated, s.w, t, row, m.Layout, proposed, &s.touched, s.trg)
	if rows == nil || err != nil {
		return nil, skip, err
	}
	upd = rows[1]
	if m.Layout != nil {
		upd = make(Row, len(m.Layout))
		mapRow(upd, rows[1], m.Layout)
	}
	if p.Route != nil {
		if j, err := p.Route.Route(env, upd, nil); err != nil || j != i {
			return nil, false, pgerr.New(pgerr.FeatureNotSupported, "invalid ON UPDATE specification").
				WithDetail("The result tuple would appear in a different partition than the original tuple.")
		}
	}
	s.afterRow("UPDATE", rows[0], rows[1], false)
	s.fks.changed(t, rows[0], rows[1])
	return upd, false, nil
}

func (mt *membersTarget) insert(row Row) (Row, bool, error) {
	p, env := mt.p, mt.env
	// In the statement table's layout for its NOT NULL and RETURNING;
	// the member computes its own again.
	if err := p.Generated.compute(env, row); err != nil {
		return nil, false, err
	}
	// A partitioned partition written directly keeps its rows within its
	// own bound: checked before routing, as PostgreSQL's
	// ExecFindPartition does.
	if err := p.checkPartition(env, p.Table, row); err != nil {
		return nil, false, err
	}
	if err := checkPolicies(env, p.Table, mt.policies, row); err != nil {
		return nil, false, err
	}
	if err := mt.checkNotNull(row); err != nil {
		return nil, false, err
	}
	if err := checkViewChecks(env, p.Table, p.ViewChecks, row); err != nil {
		return nil, false, err
	}
	i := 0 // a table with descendants that is not partitioned: itself, its family's first member
	if p.Route != nil {
		var err error
		if i, err = p.Route.Route(env, row, mt.keyBuf); err != nil {
			return nil, false, err
		}
	}
	s, err := mt.member(i)
	if err != nil {
		return nil, false, err
	}
	mt.wrote, mt.locked = s.w.t.OID, false
	mrow := s.memberRow(row)
	if done, err := s.beforeInsert(mrow); err != nil || !done {
		return nil, false, err
	}
	if s.trg != nil && p.Route != nil {
		// The trigger may have changed the partition key.
		if j, err := p.Route.Route(env, s.inTable(row, mrow), mt.keyBuf); err != nil || j != i {
			if err == nil {
				err = pgerr.New(pgerr.FeatureNotSupported, "moving row to another partition during a BEFORE FOR EACH ROW trigger is not supported")
			}
			return nil, false, err
		}
	}
	if p.Members[i].Conflict != nil {
		upd, skip, err := mt.upsertMember(s, i, mrow, s.inTable(row, mrow))
		if err != nil || skip {
			return nil, false, err
		}
		if upd != nil {
			mt.locked = true
			return upd, true, nil
		}
	}
	if err := s.write(env, mrow, false); err != nil {
		return nil, false, err
	}
	return s.inTable(row, mrow), true, nil
}

// update updates the row stored under key: in the member it is in, or,
// when its new partition key belongs to another partition, by deleting
// it there and inserting it into that one, as PostgreSQL does (the BEFORE
// UPDATE triggers of the first, then its DELETE triggers and the other's
// INSERT triggers).
func (mt *membersTarget) update(key []byte, stored, in Row, sets []Expr, based []byte) (Row, bool, error) {
	p, env := mt.p, mt.env
	i, s, k, old, err := mt.stored(key, stored)
	if err != nil {
		return nil, false, err
	}
	mt.wrote, mt.locked = s.w.t.OID, false
	row := mt.row
	copy(row, in)
	for pos, e := range sets {
		if e != nil {
			if row[pos], err = e.Eval(env, in); err != nil {
				return nil, false, err
			}
		}
	}
	if err := p.Generated.compute(env, row); err != nil {
		return nil, false, err
	}
	seen := s.seenRow(old, in, based)
	// The new row in the member's layout: its own columns kept.
	updated := row
	if s.m.Layout != nil {
		updated = slices.Clone(seen)
		unmapRow(updated, row, s.m.Layout)
	}
	if s.trg != nil {
		r, err := s.trg.beforeRow("UPDATE", seen, updated)
		if err != nil || r == nil {
			return nil, false, err // nil: a BEFORE trigger returned NULL
		}
		copy(updated, r)
		row = s.inTable(row, updated)
	}
	if err := checkPolicies(env, p.Table, mt.policies, row); err != nil {
		return nil, false, err
	}
	if err := mt.checkNotNull(row); err != nil {
		return nil, false, err
	}
	if err := checkViewChecks(env, p.Table, p.ViewChecks, row); err != nil {
		return nil, false, err
	}
	// A partitioned partition written directly keeps its rows within its
	// own bound; its router only moves them among its partitions.
	if err := p.checkPartition(env, p.Table, row); err != nil {
		return nil, false, err
	}
	to := i
	if p.Route != nil {
		if to, err = p.Route.Route(env, row, nil); err != nil {
			return nil, false, err
		}
	}
	if to != i {
		if done, err := s.delete(env, k, old, seen, true); err != nil || !done {
			return nil, false, err
		}
		if tx := env.Txn; tx.Locks != nil {
			tx.Locks.MarkMoved(tx.LockOwner, tx.rowLockKey(s.w.t, k))
		}
		if based != nil {
			env.Txn.rebase(s.w.t, k, based)
		}
		ts, err := mt.member(to)
		if err != nil {
			return nil, false, err
		}
		mt.wrote = ts.w.t.OID
		mrow := ts.memberRow(row)
		if done, err := ts.insert(env, mrow, true); err != nil || !done {
			return nil, false, err
		}
		if s.root != nil && s.root.transitions {
			s.root.capture("UPDATE", s.inRoot(seen), ts.inRoot(mrow))
		}
		return mt.returned(ts.inTable(row, mrow), in), true, nil
	}
	t := s.w.t
	if err := s.m.Generated.compute(env, updated); err != nil {
		return nil, false, err
	}
	if err := checkNotNull(t, updated); err != nil {
		return nil, false, err
	}
	if err := checkConstraints(env, t, s.m.Checks, updated); err != nil {
		return nil, false, err
	}
	if err := s.w.Update(env.Ctx, k, old, updated); err != nil {
		return nil, false, err
	}
	if based != nil {
		env.Txn.rebase(t, k, based)
	}
	s.afterRow("UPDATE", seen, slices.Clone(updated), false)
	s.fks.changed(t, seen, updated)
	return mt.returned(row, in), true, nil
}

// checkNotNull checks the statement table's NOT NULL columns in row,
// unless the table is partitioned: then the partition a row is routed to
// checks them (it has them all, as ATTACH PARTITION requires), and its
// error names it, as PostgreSQL's does.
func (mt *membersTarget) checkNotNull(row Row) error {
	if mt.p.Route != nil {
		return nil
	}
	return checkNotNull(mt.p.Table, row)
}

// returned is the row RETURNING reads for row, the new row in Table's
// layout made from in: with in's FROM items after it.
func (mt *membersTarget) returned(row, in Row) Row {
	if len(in) > len(row) {
		return append(slices.Clone(row), in[len(row):]...)
	}
	return row
}

// stored splits a source row's key into its member (i, s) and the key in
// that member's table (k), and returns the row's stored version (in
// Table's layout in stored) in the member's layout.
func (mt *membersTarget) stored(key []byte, stored Row) (i int, s *memberState, k []byte, old Row, err error) {
	i, k = SplitMemberKey(key)
	if s, err = mt.member(i); err != nil {
		return 0, nil, nil, nil, err
	}
	old, err = s.storedRow(mt.env, k, stored)
	return i, s, k, old, err
}

func (mt *membersTarget) delete(key []byte, stored, in Row, based []byte) (Row, bool, error) {
	env := mt.env
	_, s, k, old, err := mt.stored(key, stored)
	if err != nil {
		return nil, false, err
	}
	mt.wrote, mt.locked = s.w.t.OID, true
	if done, err := s.delete(env, k, old, s.seenRow(old, in, based), false); err != nil || !done {
		return nil, false, err
	}
	if based != nil {
		env.Txn.rebase(s.w.t, k, based)
	}
	return in, true, nil
}

// lock takes the row lock in the member the key names. The recheck, over
// Table's layout, is tested here rather than by lockKey, which decodes
// the member's row in its own layout.
func (mt *membersTarget) lock(key []byte, mode LockMode, recheck Expr) (Row, []byte, bool, error) {
	p, env := mt.p, mt.env
	i, k := SplitMemberKey(key)
	m := &p.Members[i]
	t, err := env.Txn.current(env.Ctx, m.Table)
	if err != nil {
		return nil, nil, false, err
	}
	check := recheck
	if recheck != nil {
		check = alwaysTrue
	}
	if mode == ForNoKeyUpdate && m.Layout == nil {
		// The member's own unique indexes decide whether the update
		// changes a key (a partition's index on the partition key).
		mode = updateLockMode(t, p.Sets)
	}
	newer, now, skip, err := env.Txn.lockKey(env, t, k, mode, LockBlock, check)
	if err != nil || skip || newer == nil {
		return nil, nil, skip, err
	}
	if m.Layout != nil {
		mapped := make(Row, len(m.Layout))
		mapRow(mapped, newer, m.Layout)
		newer = mapped
	}
	if recheck != nil {
		if ok, err := isTrue(env, recheck, newer); err != nil || !ok {
			return nil, nil, !ok, err
		}
	}
	return newer, now, false, nil
}

func (mt *membersTarget) vanish(key []byte, stored Row) error {
	env := mt.env
	_, s, k, old, err := mt.stored(key, stored)
	if err != nil {
		return err
	}
	return env.Txn.vanished(env.Ctx, s.w, k, old)
}

func (mt *membersTarget) finish() error {
	for _, s := range mt.states {
		if s == nil {
			continue
		}
		if err := s.w.Flush(mt.env.Ctx); err != nil {
			return err
		}
	}
	for _, s := range mt.states {
		if s != nil {
			if err := s.fks.run(); err != nil {
				return err
			}
		}
	}
	for i := range mt.queue {
		if _, err := mt.env.Txn.FireTrigger(mt.env, &mt.queue[i]); err != nil {
			return err
		}
	}
	mt.queue = nil
	return mt.trg.flushAfter()
}

func init() {
	// pg_partition_ancestors(regclass): a partition or partitioned table
	// and the tables above it, psql's \d asks it for foreign keys. An
	// oid (psql's t.tgrelid) is coerced to regclass implicitly, as in
	// PostgreSQL, and a string literal reads as a relation's name.
	RegisterSRF(&Func{Name: "pg_partition_ancestors", Args: []uint32{OIDRegclass}, Ret: OIDRegclass}, partitionAncestors)
}

// partitionAncestors is pg_partition_ancestors.
func partitionAncestors([]T) *SRF {
	{
		return &SRF{Cols: []ResultColumn{{Name: "relid", T: T{OID: OIDRegclass, Typmod: -1}}}, Named: true,
			Rows: func(env *Env, a []Datum) ([]Row, error) {
				tables, err := env.Txn.Catalog().Tables(env.Ctx)
				if err != nil {
					return nil, err
				}
				var cur *sqldef.Table
				for _, t := range tables {
					if ObjectOID('r', t.Schema, t.Name) == uint32(a[0].I) {
						cur = t
					}
				}
				if cur == nil || !cur.Partitioned() && !cur.IsPartition() {
					return nil, nil
				}
				var rows []Row
				for cur != nil {
					rows = append(rows, Row{DInt(int64(ObjectOID('r', cur.Schema, cur.Name)))})
					if !cur.IsPartition() {
						break
					}
					parent := cur.Inherits[0]
					cur = nil
					for _, t := range tables {
						if t.Schema == parent.Schema && t.Name == parent.Name {
							cur = t
						}
					}
				}
				return rows, nil
			}}
	}
}
