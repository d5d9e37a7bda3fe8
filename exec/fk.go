package exec

import (
	"bytes"
	"context"
	"slices"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/prolly/sortkey"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Foreign keys: enforcement. A statement that changes a table records
// what referential integrity needs, and acts on it when its changes are
// flushed, as PostgreSQL's referential triggers fire at the end of the
// statement:
//
//   - parent side: a deleted row, or an updated one whose referenced
//     columns changed, may be referenced by rows of other tables (found
//     through the root value's ForeignKeyRefs). NO ACTION and RESTRICT fail
//     if such rows exist (NO ACTION only if no row of the table has the old
//     key any more); CASCADE deletes or updates them, SET NULL and SET
//     DEFAULT set their columns, and what those changes do to further
//     tables is handled the same way, until nothing is left;
//   - child side: each inserted row, each row whose referencing columns
//     changed (the statement's and those SET DEFAULT wrote), must find its
//     key in the referenced table, now that the statement's changes are in.
//
// A table with no foreign keys and none referencing it records nothing,
// and so does one whose internal triggers are disabled (ALTER TABLE ...
// DISABLE TRIGGER ALL): its keys are not checked, and keys referencing it
// take no action on its deletes and updates.
// The checks of a deferred key (DEFERRABLE, deferred initially or by SET
// CONSTRAINTS) wait for commit (deferred.go); its actions do not. CHECK
// constraints are not re-evaluated on rows a cascade changes.

// fkState collects one statement's referential work.
type fkState struct {
	env      *Env
	childFKs bool // the table has foreign keys
	parents  bool // foreign keys reference the table
	events   []fkEvent
	checks   []fkCheck
}

// fkEvent is a row of a referenced table that was deleted (new nil) or
// updated.
type fkEvent struct {
	t        *Table
	old, new Row
}

// fkCheck is a row whose foreign key fk must find its referenced row.
type fkCheck struct {
	t   *Table
	fk  *sqldef.ForeignKey
	row Row
}

// maxCascadeRows bounds the rows cascades may touch in one statement, so
// that a cycle of ON UPDATE CASCADE keys cannot loop forever.
const maxCascadeRows = 10_000_000

// newFKState prepares the referential work of a statement of kind on t.
func newFKState(env *Env, t *Table, kind ModifyKind) (*fkState, error) {
	off := t.Def.SystemTriggersDisabled // DISABLE TRIGGER ALL
	s := &fkState{env: env, childFKs: kind != Delete && len(t.Def.ForeignKeys) > 0 && !off}
	if kind != Insert && !off {
		for cur := t; cur != nil && !s.parents; {
			refs, err := env.Txn.Catalog().ReferencingKeys(env.Ctx, cur.Def.Schema, cur.Def.Name)
			if err != nil {
				return nil, err
			}
			s.parents = len(refs) > 0
			if cur, err = partitionParent(env.Ctx, env.Txn, cur); err != nil {
				return nil, err
			}
		}
	}
	if !s.childFKs && !s.parents {
		return nil, nil
	}
	return s, nil
}

// changed records a row change of the statement: old nil for an insert,
// row nil for a delete. The rows are copied.
func (s *fkState) changed(t *Table, old, row Row) {
	if s == nil {
		return
	}
	if s.parents && old != nil {
		s.events = append(s.events, fkEvent{t: t, old: slices.Clone(old), new: slices.Clone(row)})
	}
	if s.childFKs && row != nil {
		s.addChecks(t, old, row)
	}
}

// addChecks records the foreign keys of t that row must satisfy: all of
// them for a new row, those whose columns changed for an updated one.
func (s *fkState) addChecks(t *Table, old, row Row) {
	var cp Row
	for i := range t.Def.ForeignKeys {
		fk := &t.Def.ForeignKeys[i]
		if old != nil && !colsChanged(fk.Columns, old, row) {
			continue
		}
		if cp == nil {
			cp = slices.Clone(row)
		}
		s.checks = append(s.checks, fkCheck{t: t, fk: fk, row: cp})
	}
}

// colsChanged reports whether row differs from old in one of cols.
func colsChanged(cols []int, old, row Row) bool {
	for _, c := range cols {
		if old[c].IsNull() != row[c].IsNull() || !old[c].IsNull() && Compare(old[c], row[c]) != 0 {
			return true
		}
	}
	return false
}

// run does the statement's referential work; the statement's changes
// are in the transaction's root.
func (s *fkState) run() error {
	if s == nil {
		return nil
	}
	ctx, tx := s.env.Ctx, s.env.Txn
	touched := 0
	for len(s.events) > 0 {
		// One round: the events so far, grouped by the tables they
		// reach; their changes make the next round's events.
		events := s.events
		s.events = nil
		byChild := map[string][]childChange{}
		var order []string
		for _, ev := range events {
			// Keys that reference a partitioned table reference its
			// partitions' rows: the event is one of each ancestor's too.
			for ev.t != nil && !ev.t.Def.SystemTriggersDisabled {
				refs, err := tx.Catalog().ReferencingKeys(ctx, ev.t.Def.Schema, ev.t.Def.Name)
				if err != nil {
					return err
				}
				for _, ref := range refs {
					changes, err := s.referencing(ev, ref)
					if err != nil {
						return err
					}
					k := ref.Schema + "." + ref.Table
					if len(changes) > 0 && byChild[k] == nil {
						order = append(order, k)
					}
					byChild[k] = append(byChild[k], changes...)
					touched += len(changes)
				}
				if ev, err = ev.inParent(ctx, tx); err != nil {
					return err
				}
			}
		}
		if touched > maxCascadeRows {
			return pgerr.New(pgerr.Code("54000"), "too many rows changed by cascading foreign key actions")
		}
		for _, k := range order {
			if err := s.apply(byChild[k]); err != nil {
				return err
			}
		}
	}
	for _, c := range s.checks {
		if c.t.Def.SystemTriggersDisabled {
			continue // a cascade's change to a table whose keys are off
		}
		if c.fk.Deferrable && tx.modes.deferred(c.fk.Name, c.fk.InitiallyDeferred) {
			tx.deferChildCheck(c)
			continue
		}
		if err := checkReference(ctx, tx, c.t, c.fk, c.row); err != nil {
			return err
		}
	}
	return nil
}

// keyOwner returns the name of the table that declared foreign key fk
// of t: t, or the partitioned ancestor a partition's copy comes from.
func keyOwner(ctx context.Context, tx *Txn, t *Table, fk *sqldef.ForeignKey) (string, error) {
	for inherited := fk.Inherited; inherited; {
		parent, err := partitionParent(ctx, tx, t)
		if parent == nil || err != nil {
			return t.Def.Name, err
		}
		i := slices.IndexFunc(parent.Def.ForeignKeys, func(k sqldef.ForeignKey) bool { return k.Name == fk.Name })
		if i < 0 {
			break
		}
		t, inherited = parent, parent.Def.ForeignKeys[i].Inherited
	}
	return t.Def.Name, nil
}

// partitionParent returns the partitioned table t is a partition of,
// nil if none.
func partitionParent(ctx context.Context, tx *Txn, t *Table) (*Table, error) {
	if !t.Def.IsPartition() || len(t.Def.Inherits) == 0 {
		return nil, nil
	}
	p := t.Def.Inherits[0]
	parent, ok, err := tx.Table(ctx, p.Schema, p.Name)
	if err != nil || !ok {
		return nil, err
	}
	return parent, nil
}

// inParent returns the event as one of the partitioned table ev.t is a
// partition of, its rows in that table's layout; t nil if none.
func (ev fkEvent) inParent(ctx context.Context, tx *Txn) (fkEvent, error) {
	parent, err := partitionParent(ctx, tx, ev.t)
	if parent == nil || err != nil {
		return fkEvent{}, err
	}
	layout := columnsByName(parent, ev.t)
	out := fkEvent{t: parent, old: make(Row, len(parent.Cols))}
	mapRow(out.old, ev.old, layout)
	if ev.new != nil {
		out.new = make(Row, len(parent.Cols))
		mapRow(out.new, ev.new, layout)
	}
	return out, nil
}

// columnsByName maps the columns of from to those of to with the same
// names (-1 where to has none), as Scan.Layout does.
func columnsByName(from, to *Table) []int {
	layout := make([]int, len(from.Cols))
	for i, c := range from.Cols {
		layout[i] = -1
		if c.Dropped {
			continue
		}
		for _, d := range to.Cols {
			if !d.Dropped && d.Name == c.Name {
				layout[i] = d.Pos
			}
		}
	}
	return layout
}

// childChange is an action on a referencing row: delete it (row nil) or
// write row.
type childChange struct {
	t        *Table
	key      []byte
	old, row Row
	fk       *sqldef.ForeignKey // for SET DEFAULT's check of the new value
}

// referencing finds the rows of ref's table that reference ev's old row
// through foreign key ref, and the action to take on each (or fails for
// NO ACTION and RESTRICT).
func (s *fkState) referencing(ev fkEvent, ref sqldef.ForeignKeyRef) ([]childChange, error) {
	ctx, tx := s.env.Ctx, s.env.Txn
	child, ok, err := tx.Table(ctx, ref.Schema, ref.Table)
	if err != nil || !ok {
		return nil, err
	}
	var fk *sqldef.ForeignKey
	for i := range child.Def.ForeignKeys {
		if child.Def.ForeignKeys[i].Name == ref.Name {
			fk = &child.Def.ForeignKeys[i]
		}
	}
	if fk == nil {
		return nil, nil
	}
	if ev.new != nil && !colsChanged(fk.RefColumns, ev.old, ev.new) {
		return nil, nil
	}
	vals := make([]Datum, len(fk.RefColumns))
	for i, c := range fk.RefColumns {
		if ev.old[c].IsNull() {
			return nil, nil
		}
		// The value as the child column holds it.
		v, err := convertKey(ev.t.Cols[c].Type, child.Cols[fk.Columns[i]].Type, ev.old[c])
		if err != nil {
			return nil, nil // no child value can equal it
		}
		vals[i] = v
	}
	rows, err := findReferencing(ctx, tx, child, fk.Columns, vals)
	if err != nil {
		return nil, err
	}
	action := fk.OnDelete
	if ev.new != nil {
		action = fk.OnUpdate
	}
	if len(rows) == 0 && (action == 0 || action == 'a' || action == 'r') {
		// In READ COMMITTED PostgreSQL's check reads a fresh snapshot:
		// a child a concurrent transaction committed (perhaps while this
		// one waited for the parent row's lock) counts.
		if rows, err = tx.committedReferencing(ctx, ref, fk.Columns, vals); err != nil {
			return nil, err
		}
	} else if tx.Isolation != ReadCommitted && tx.Locks != nil && tx.Latest != nil {
		// A cascade in REPEATABLE READ or SERIALIZABLE that would miss
		// children committed since the snapshot is 40001, as PostgreSQL's
		// crosscheck snapshot makes it.
		view, err := tx.committedView(ctx)
		if err != nil {
			return nil, err
		}
		var now []keyedRow
		if view != nil {
			if vc, ok, err := view.Table(ctx, ref.Schema, ref.Table); err != nil {
				return nil, err
			} else if ok {
				if now, err = findReferencing(ctx, view, vc, fk.Columns, vals); err != nil {
					return nil, err
				}
			}
			if len(now) > len(rows) {
				return nil, pgerr.New(pgerr.SerializationFailure, "could not serialize access due to concurrent update")
			}
		}
	}
	if len(rows) == 0 {
		return nil, nil
	}
	switch action {
	case 0, 'a', 'r':
		if action != 'r' {
			// NO ACTION: fine if the table still has the key, and
			// checked at commit when the key is deferred.
			if still, err := hasKey(ctx, tx, ev.t, fk.RefColumns, ev.old); err != nil || still {
				return nil, err
			}
			if fk.Deferrable && tx.modes.deferred(fk.Name, fk.InitiallyDeferred) {
				tx.deferParentCheck(ev, ref, fk, vals)
				return nil, nil
			}
		}
		owner, err := keyOwner(ctx, tx, child, fk)
		if err != nil {
			return nil, err
		}
		return nil, pgerr.New(pgerr.ForeignKeyViolation, "update or delete on table %q violates foreign key constraint %q on table %q", ev.t.Def.Name, fk.Name, owner).
			WithDetail("Key (%s)=(%s) is still referenced from table %q.", colNames(ev.t, fk.RefColumns), formatValues(ev.t, fk.RefColumns, ev.old), owner).
			WithTable(child.Def.Schema, owner).WithConstraint(fk.Name)
	}
	var defaults []Datum
	if action == 'd' {
		if defaults, err = columnDefaults(s.env, child, fk.Columns); err != nil {
			return nil, err
		}
	}
	out := make([]childChange, 0, len(rows))
	for _, r := range rows {
		c := childChange{t: child, key: r.key, old: r.row}
		switch {
		case action == 'c' && ev.new == nil:
			// CASCADE on delete: the row goes.
		case action == 'c':
			c.row = slices.Clone(r.row)
			for i, col := range fk.Columns {
				v, err := convertKey(ev.t.Cols[fk.RefColumns[i]].Type, child.Cols[col].Type, ev.new[fk.RefColumns[i]])
				if err != nil {
					return nil, err
				}
				c.row[col] = v
			}
		case action == 'n':
			c.row = slices.Clone(r.row)
			for _, col := range fk.Columns {
				if setsColumn(fk, ev, col) {
					c.row[col] = Null
				}
			}
		case action == 'd':
			c.row = slices.Clone(r.row)
			for i, col := range fk.Columns {
				if setsColumn(fk, ev, col) {
					c.row[col] = defaults[i]
				}
			}
			c.fk = fk
		}
		out = append(out, c)
	}
	return out, nil
}

// apply writes the actions on one referencing table and records what they
// do to the tables that reference it in turn.
func (s *fkState) apply(changes []childChange) error {
	ctx, tx := s.env.Ctx, s.env.Txn
	t := changes[0].t
	cur, ok, err := tx.Table(ctx, t.Def.Schema, t.Def.Name)
	if err != nil || !ok {
		return err
	}
	w, err := tx.Writer(ctx, cur)
	if err != nil {
		return err
	}
	// A cascade's change is an UPDATE of the row: its generated columns
	// follow.
	gen, err := tx.generated(ctx, cur)
	if err != nil {
		return err
	}
	for _, c := range mergeChildChanges(changes) {
		if c.row == nil {
			if err := w.Delete(ctx, c.key, c.old); err != nil {
				return err
			}
		} else {
			if err := gen.compute(s.env, c.row); err != nil {
				return err
			}
			if err := checkNotNull(cur, c.row); err != nil {
				return err
			}
			if err := w.Update(ctx, c.key, c.old, c.row); err != nil {
				return err
			}
			for _, fk := range c.fks {
				s.checks = append(s.checks, fkCheck{t: cur, fk: fk, row: c.row})
			}
		}
		s.events = append(s.events, fkEvent{t: cur, old: c.old, new: c.row})
	}
	return w.Flush(ctx)
}

// mergedChange is the one change a round makes to a referencing row.
type mergedChange struct {
	key      []byte
	old, row Row
	fks      []*sqldef.ForeignKey
}

// mergeChildChanges combines the actions one round takes on each row: a
// row that several keys reach (a table with keys owner and worker to the
// same parent, both ON UPDATE CASCADE) takes the columns each action
// changes, and a delete takes precedence, so that no action undoes
// another by writing its copy of the old row.
func mergeChildChanges(changes []childChange) []*mergedChange {
	byKey := map[string]*mergedChange{}
	var out []*mergedChange
	for _, c := range changes {
		m := byKey[string(c.key)]
		if m == nil {
			m = &mergedChange{key: c.key, old: c.old, row: slices.Clone(c.row)}
			if c.fk != nil {
				m.fks = append(m.fks, c.fk)
			}
			byKey[string(c.key)] = m
			out = append(out, m)
			continue
		}
		if m.row == nil {
			continue // deleted already
		}
		if c.row == nil {
			m.row, m.fks = nil, nil
			continue
		}
		for i := range c.row {
			if colsChanged([]int{i}, c.old, c.row) {
				m.row[i] = c.row[i]
			}
		}
		if c.fk != nil {
			m.fks = append(m.fks, c.fk)
		}
	}
	return out
}

// columnDefaults evaluates the defaults of t's columns cols for SET
// DEFAULT, through the planner's analysis of them.
func columnDefaults(env *Env, t *Table, cols []int) ([]Datum, error) {
	out := make([]Datum, len(cols))
	if env.Txn.Defaults == nil {
		return out, nil
	}
	exprs, err := env.Txn.Defaults(env.Ctx, t)
	if err != nil {
		return nil, err
	}
	for i, c := range cols {
		if exprs[c] == nil {
			continue
		}
		if out[i], err = exprs[c].Eval(env, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// convertKey converts a key value of type from to type to, as the other
// side of a foreign key holds it.
func convertKey(from, to T, d Datum) (Datum, error) {
	if from.OID == to.OID || d.IsNull() {
		return d, nil
	}
	fn := CastFn(from, T{OID: to.OID, Typmod: -1}, false)
	if fn == nil {
		return d, nil
	}
	return fn(nil, []Datum{d})
}

// keyedRow is a stored row and its primary-map key.
type keyedRow struct {
	key []byte
	row Row
}

// findReferencing returns the rows of t whose columns cols equal vals:
// through an index led by those columns when t has one, else by reading
// every row.
func findReferencing(ctx context.Context, tx *Txn, t *Table, cols []int, vals []Datum) ([]keyedRow, error) {
	rowsMap, err := tx.rowsMap(ctx, t)
	if err != nil {
		return nil, err
	}
	var out []keyedRow
	// The primary key led by the columns.
	if t.HasPrimaryKey() && len(t.Def.PrimaryKey) >= len(cols) && slices.Equal(t.Def.PrimaryKey[:len(cols)], cols) {
		prefix, err := keyPrefix(t, nil, cols, vals)
		if err != nil {
			return nil, err
		}
		it := rowsMap.NewIter(ctx, prolly.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
		for ok := it.First(); ok; ok = it.Next() {
			v, err := it.Value()
			if err != nil {
				it.Close()
				return nil, err
			}
			row, err := t.decodeRow(v, nil)
			if err != nil {
				it.Close()
				return nil, err
			}
			out = append(out, keyedRow{slices.Clone(it.Key()), row})
		}
		return out, it.Close()
	}
	// A secondary index led by them.
	for i := range t.Def.Indexes {
		ix := &t.Def.Indexes[i]
		if len(ix.Columns) < len(cols) || !ix.Plain() {
			continue
		}
		lead := true
		for j, c := range cols {
			lead = lead && ix.Columns[j].Column == c
		}
		if !lead {
			continue
		}
		prefix, err := keyPrefix(t, ix, cols, vals)
		if err != nil {
			return nil, err
		}
		m, err := tx.indexMap(ctx, t, i)
		if err != nil {
			return nil, err
		}
		it := m.NewIter(ctx, prolly.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
		for ok := it.First(); ok; ok = it.Next() {
			pk := it.Key()
			for range ix.Columns {
				if _, pk, err = sortkey.Split(pk); err != nil {
					it.Close()
					return nil, err
				}
			}
			v, found, err := rowsMap.Get(ctx, pk)
			if err != nil || !found {
				it.Close()
				if err == nil {
					err = pgerr.New(pgerr.DataCorrupted, "index entry of relation %q points at a missing row", t.Def.Name)
				}
				return nil, err
			}
			row, err := t.decodeRow(v, nil)
			if err != nil {
				it.Close()
				return nil, err
			}
			out = append(out, keyedRow{slices.Clone(pk), row})
		}
		return out, it.Close()
	}
	// Every row.
	err = eachRow(ctx, tx, t, func(key []byte, row Row) error {
		for i, c := range cols {
			if row[c].IsNull() || Compare(row[c], vals[i]) != 0 {
				return nil
			}
		}
		out = append(out, keyedRow{slices.Clone(key), slices.Clone(row)})
		return nil
	})
	return out, err
}

// keyPrefix encodes vals, values of columns cols, as the leading key
// columns of index ix (nil: the primary key) of t.
func keyPrefix(t *Table, ix *sqldef.Index, cols []int, vals []Datum) ([]byte, error) {
	var dst []byte
	for i, c := range cols {
		o := primaryOrder
		if ix != nil {
			o = IndexOrder(ix.Columns[i])
		}
		d, side := keyDatum(t.Cols[c].Type, t.Cols[c].Type, vals[i])
		if side != 0 {
			return nil, pgerr.New(pgerr.NumericValueOutOfRange, "key value out of range")
		}
		var err error
		if dst, err = appendKey(dst, t.Cols[c].Type, d, o); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// PrimaryKey encodes vals, values of t's primary key columns in key
// order, as the key of t's row map. A value out of its integer column's
// range, which no row holds, is an error.
func PrimaryKey(t *Table, vals []Datum) ([]byte, error) {
	if !t.HasPrimaryKey() || len(vals) != len(t.Def.PrimaryKey) {
		return nil, pgerr.New(pgerr.InternalError, "%d values for the primary key of %s", len(vals), t.Def.Name)
	}
	return keyPrefix(t, nil, t.Def.PrimaryKey, vals)
}

// hasKey reports whether t has a row whose columns cols equal those of
// row (in the transaction's current state).
func hasKey(ctx context.Context, tx *Txn, t *Table, cols []int, row Row) (bool, error) {
	cur, ok, err := tx.Table(ctx, t.Def.Schema, t.Def.Name)
	if err != nil || !ok {
		return false, err
	}
	vals := make([]Datum, len(cols))
	for i, c := range cols {
		vals[i] = row[c]
	}
	return lookupKey(ctx, tx, cur, cols, vals)
}

// lookupKey reports whether t has a row whose columns cols equal vals
// (values of those columns' types), through its primary key or a unique
// index on exactly those columns; a partitioned table's rows are its
// partitions'.
func lookupKey(ctx context.Context, tx *Txn, t *Table, cols []int, vals []Datum) (bool, error) {
	if !t.Def.Partitioned() {
		return lookupOwnKey(ctx, tx, t, cols, vals)
	}
	names, err := tx.Catalog().Children(ctx, t.Def.Schema, t.Def.Name)
	if err != nil {
		return false, err
	}
	for _, n := range names {
		part, ok, err := tx.Table(ctx, n.Schema, n.Name)
		if err != nil || !ok {
			return false, err
		}
		layout := columnsByName(t, part)
		pcols := make([]int, len(cols))
		for i, c := range cols {
			pcols[i] = layout[c]
		}
		if found, err := lookupKey(ctx, tx, part, pcols, vals); err != nil || found {
			return found, err
		}
	}
	return false, nil
}

// lookupOwnKey is lookupKey on the rows t stores itself.
func lookupOwnKey(ctx context.Context, tx *Txn, t *Table, cols []int, vals []Datum) (bool, error) {
	sameSet := func(a []int) []int {
		// The positions in vals of a's columns, if a is cols reordered.
		if len(a) != len(cols) {
			return nil
		}
		order := make([]int, len(a))
		for i, c := range a {
			j := slices.Index(cols, c)
			if j < 0 {
				return nil
			}
			order[i] = j
		}
		return order
	}
	if order := sameSet(t.Def.PrimaryKey); t.HasPrimaryKey() && order != nil {
		key, err := keyPrefix(t, nil, t.Def.PrimaryKey, reorder(vals, order))
		if err != nil {
			return false, nil
		}
		m, err := tx.rowsMap(ctx, t)
		if err != nil {
			return false, err
		}
		if found, err := m.Has(ctx, key); err != nil || !found {
			return found, err
		}
		return tx.keyShareParent(ctx, t, key)
	}
	for i := range t.Def.Indexes {
		ix := &t.Def.Indexes[i]
		var ic []int
		for _, c := range ix.Columns {
			ic = append(ic, c.Column)
		}
		order := sameSet(ic)
		if !ix.Unique || order == nil || !ix.Plain() {
			continue
		}
		prefix, err := keyPrefix(t, ix, ic, reorder(vals, order))
		if err != nil {
			return false, nil
		}
		m, err := tx.indexMap(ctx, t, i)
		if err != nil {
			return false, err
		}
		it := m.NewIter(ctx, prolly.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
		found := it.First()
		var pk []byte
		if found {
			pk = bytes.Clone(it.Key()[len(prefix):]) // the entry ends with the row's primary-map key
		}
		if err := it.Close(); err != nil || !found {
			return false, err
		}
		return tx.keyShareParent(ctx, t, pk)
	}
	// No unique key on the columns (the constraint that had one is gone):
	// read the rows.
	found := false
	err := eachRow(ctx, tx, t, func(_ []byte, row Row) error {
		for i, c := range cols {
			if row[c].IsNull() || Compare(row[c], vals[i]) != 0 {
				return nil
			}
		}
		found = true
		return nil
	})
	return found, err
}

func reorder(vals []Datum, order []int) []Datum {
	out := make([]Datum, len(order))
	for i, j := range order {
		out[i] = vals[j]
	}
	return out
}

// checkReference fails with 23503 unless row of t finds the row foreign
// key fk references (MATCH SIMPLE: a NULL column exempts it; MATCH FULL:
// all must be NULL or none).
func checkReference(ctx context.Context, tx *Txn, t *Table, fk *sqldef.ForeignKey, row Row) error {
	nulls := 0
	for _, c := range fk.Columns {
		if row[c].IsNull() {
			nulls++
		}
	}
	switch {
	case nulls == len(fk.Columns):
		return nil
	case nulls > 0 && fk.Match == 'f':
		return pgerr.New(pgerr.ForeignKeyViolation, "insert or update on table %q violates foreign key constraint %q", t.Def.Name, fk.Name).
			WithDetail("MATCH FULL does not allow mixing of null and nonnull key values.").WithTable(t.Def.Schema, t.Def.Name).WithConstraint(fk.Name)
	case nulls > 0:
		return nil
	}
	parent, ok, err := tx.Table(ctx, fk.RefSchema, fk.RefTable)
	if err != nil {
		return err
	}
	found := false
	if ok {
		vals := make([]Datum, len(fk.Columns))
		convertible := true
		for i, c := range fk.Columns {
			v, err := convertKey(t.Cols[c].Type, parent.Cols[fk.RefColumns[i]].Type, row[c])
			if err != nil {
				convertible = false
				break
			}
			vals[i] = v
		}
		if convertible {
			if found, err = lookupKey(ctx, tx, parent, fk.RefColumns, vals); err != nil {
				return err
			}
		}
	}
	if !found {
		return pgerr.New(pgerr.ForeignKeyViolation, "insert or update on table %q violates foreign key constraint %q", t.Def.Name, fk.Name).
			WithDetail("Key (%s)=(%s) is not present in table %q.", colNames(t, fk.Columns), formatValues(t, fk.Columns, row), fk.RefTable).
			WithTable(t.Def.Schema, t.Def.Name).WithConstraint(fk.Name)
	}
	return nil
}

// CheckForeignKey checks every row of t against foreign key fk: ALTER
// TABLE ADD FOREIGN KEY and VALIDATE CONSTRAINT.
func (tx *Txn) CheckForeignKey(ctx context.Context, t *Table, fk sqldef.ForeignKey) error {
	return eachRow(ctx, tx, t, func(_ []byte, row Row) error {
		return checkReference(ctx, tx, t, &fk, row)
	})
}

// setsColumn reports whether fk's SET NULL or SET DEFAULT action for ev
// sets referencing column col: every key column, but on DELETE only
// those of its column list when it has one (ON DELETE SET NULL (a)).
func setsColumn(fk *sqldef.ForeignKey, ev fkEvent, col int) bool {
	return ev.new != nil || len(fk.DeleteSetColumns) == 0 || slices.Contains(fk.DeleteSetColumns, col)
}
