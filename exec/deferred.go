package exec

import (
	"context"
	"slices"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Deferrable unique constraints. A key written to the index of a
// DEFERRABLE unique constraint is not checked as the row is written (the
// statement may be moving keys around: UPDATE t SET i = i + 1) but once
// the statement's changes are flushed, or, if the constraint is deferred
// (INITIALLY DEFERRED, or SET CONSTRAINTS ... DEFERRED in the
// transaction), at commit (Txn.CheckDeferred) or when SET CONSTRAINTS ...
// IMMEDIATE ends the deferral. A key violates the constraint when the
// index then holds it more than once.

// Deferrable foreign keys. A check a deferred key would make after a
// statement waits for commit (or SET CONSTRAINTS ... IMMEDIATE), and is
// then made against the transaction's state: a referencing row must find
// its referenced row if it still holds the values it was written with; a
// referenced key deleted or changed (NO ACTION) must no longer be
// referenced, unless the key is back.

// Deferred constraint triggers. The AFTER ROW firing of a DEFERRABLE
// constraint trigger that is deferred waits for commit (FireDeferredTriggers)
// or for SET CONSTRAINTS ... IMMEDIATE, with the rows of its event; a
// statement that fails, or a ROLLBACK TO, drops those its events queued
// (Txn.Mark).

// deferredTrigger is a deferred firing: the call, and what its statement's
// evaluation environment gave the function.
type deferredTrigger struct {
	call     TriggerCall
	settings *Settings
	session  any
}

// deferTrigger queues the firing c of a deferred constraint trigger.
func (tx *Txn) deferTrigger(env *Env, c TriggerCall) {
	c.Old, c.New = slices.Clone(c.Old), slices.Clone(c.New)
	tx.deferredTriggers = append(tx.deferredTriggers, deferredTrigger{call: c, settings: env.Settings, session: env.Session})
}

// FireDeferredTriggers fires the deferred constraint triggers, in the
// order of their events, and those their functions' writes defer in
// turn: COMMIT calls it first, while the transaction can still run
// statements.
func (tx *Txn) FireDeferredTriggers(ctx context.Context) error {
	return tx.fireDeferredTriggers(ctx, func(*sqldef.Trigger) bool { return true })
}

// fireDeferredTriggers fires the deferred firings of the triggers fire
// says, keeping the others.
func (tx *Txn) fireDeferredTriggers(ctx context.Context, fire func(*sqldef.Trigger) bool) error {
	for len(tx.deferredTriggers) > 0 {
		pending := tx.deferredTriggers
		tx.deferredTriggers = nil
		var keep []deferredTrigger
		fired := false
		for i, d := range pending {
			if !fire(d.call.Trigger) {
				keep = append(keep, d)
				continue
			}
			fired = true
			env := &Env{Ctx: ctx, Settings: d.settings, Session: d.session, Txn: tx, TxnStart: tx.StartTime}
			if _, err := tx.FireTrigger(env, &d.call); err != nil {
				tx.deferredTriggers = append(append(keep, pending[i+1:]...), tx.deferredTriggers...)
				return err
			}
		}
		tx.deferredTriggers = append(keep, tx.deferredTriggers...)
		if !fired {
			return nil
		}
	}
	return nil
}

// fkDeferred is a deferred foreign-key check: of the referencing row of
// table schema.table holding vals in fk's columns (child), or of the
// referenced key vals (the child table's types) of ref whose row left
// table parent (parent side).
type fkDeferred struct {
	schema, table string // the table that has the foreign key
	fk            string
	vals          []Datum
	// parent is set for the referenced side: the table the key left and
	// its old row, for the message.
	parent            *Table
	parentRow         Row
	initiallyDeferred bool
}

// deferChildCheck defers the check of c's row to commit.
func (tx *Txn) deferChildCheck(c fkCheck) {
	vals := make([]Datum, len(c.fk.Columns))
	for i, col := range c.fk.Columns {
		vals[i] = c.row[col]
	}
	tx.deferredFKs = append(tx.deferredFKs, fkDeferred{schema: c.t.Def.Schema, table: c.t.Def.Name, fk: c.fk.Name,
		vals: vals, initiallyDeferred: c.fk.InitiallyDeferred})
}

// deferParentCheck defers to commit the NO ACTION check of ev's old key,
// which ref's table references with vals.
func (tx *Txn) deferParentCheck(ev fkEvent, ref sqldef.ForeignKeyRef, fk *sqldef.ForeignKey, vals []Datum) {
	tx.deferredFKs = append(tx.deferredFKs, fkDeferred{schema: ref.Schema, table: ref.Table, fk: fk.Name,
		vals: slices.Clone(vals), parent: ev.t, parentRow: slices.Clone(ev.old), initiallyDeferred: fk.InitiallyDeferred})
}

// checkDeferredFK makes a deferred foreign-key check.
func (tx *Txn) checkDeferredFK(ctx context.Context, c fkDeferred) error {
	t, ok, err := tx.Table(ctx, c.schema, c.table)
	if err != nil || !ok {
		return err
	}
	var fk *sqldef.ForeignKey
	for i := range t.Def.ForeignKeys {
		if t.Def.ForeignKeys[i].Name == c.fk {
			fk = &t.Def.ForeignKeys[i]
		}
	}
	if fk == nil {
		return nil // dropped since
	}
	if c.parent != nil {
		parent, ok, err := tx.Table(ctx, c.parent.Def.Schema, c.parent.Def.Name)
		if err != nil || !ok {
			return err
		}
		if still, err := hasKey(ctx, tx, parent, fk.RefColumns, c.parentRow); err != nil || still {
			return err
		}
	}
	rows, err := findReferencing(ctx, tx, t, fk.Columns, c.vals)
	if err != nil || len(rows) == 0 {
		return err // no row holds the values any more
	}
	if c.parent == nil {
		return checkReference(ctx, tx, t, fk, rows[0].row)
	}
	owner, err := keyOwner(ctx, tx, t, fk)
	if err != nil {
		return err
	}
	p := c.parent
	return pgerr.New(pgerr.ForeignKeyViolation, "update or delete on table %q violates foreign key constraint %q on table %q", p.Def.Name, fk.Name, owner).
		WithDetail("Key (%s)=(%s) is still referenced from table %q.", colNames(p, fk.RefColumns), formatValues(p, fk.RefColumns, c.parentRow), owner).
		WithTable(t.Def.Schema, owner).WithConstraint(fk.Name)
}

// uniqueCheck is a key of a deferrable unique index to check.
type uniqueCheck struct {
	schema, table, index string
	prefix               []byte // the index columns' key
	detail               string // Key (...)=(...) already exists.
	initiallyDeferred    bool
}

// constraintModes are a transaction's SET CONSTRAINTS settings.
type constraintModes struct {
	all    int8            // 0 unset, 1 deferred, -1 immediate
	byName map[string]bool // constraint name -> deferred
}

// deferUnique records a key written to deferrable unique index i.
func (w *TableWriter) deferUnique(i int, row Row, prefix []byte) {
	ix := &w.t.Def.Indexes[i]
	names, values := w.t.keyValues(w.env, ix, w.evals[i], row)
	w.uniques = append(w.uniques, uniqueCheck{
		schema: w.t.Def.Schema, table: w.t.Def.Name, index: ix.Name, prefix: slices.Clone(prefix),
		detail:            "Key (" + names + ")=(" + values + ") already exists.",
		initiallyDeferred: ix.InitiallyDeferred,
	})
}

// checkDeferrable checks, once the statement's changes are in, the keys
// of deferrable unique constraints that are not deferred, and defers the
// others to commit.
func (w *TableWriter) checkDeferrable(ctx context.Context) error {
	for _, c := range w.uniques {
		if w.tx.modes.deferred(c.index, c.initiallyDeferred) {
			w.tx.deferred = append(w.tx.deferred, c)
			continue
		}
		if err := w.tx.checkUniqueKey(ctx, c); err != nil {
			return err
		}
	}
	w.uniques = nil
	return nil
}

// deferred reports whether constraint name is deferred.
func (m constraintModes) deferred(name string, initially bool) bool {
	if d, ok := m.byName[name]; ok {
		return d
	}
	switch m.all {
	case 1:
		return true
	case -1:
		return false
	}
	return initially
}

// checkUniqueKey fails with 23505 if the index holds c's key twice.
func (tx *Txn) checkUniqueKey(ctx context.Context, c uniqueCheck) error {
	t, ok, err := tx.Table(ctx, c.schema, c.table)
	if err != nil || !ok {
		return err
	}
	for i := range t.Def.Indexes {
		ix := &t.Def.Indexes[i]
		if ix.Name != c.index {
			continue
		}
		m, err := tx.indexMap(ctx, t, i)
		if err != nil {
			return err
		}
		it := m.NewIter(ctx, prolly.IterOptions{LowerBound: c.prefix, UpperBound: prefixEnd(c.prefix)})
		n := 0
		for ok := it.First(); ok && n < 2; ok = it.Next() {
			n++
		}
		if err := it.Close(); err != nil {
			return err
		}
		if n > 1 {
			return pgerr.New(pgerr.UniqueViolation, "duplicate key value violates unique constraint %q", c.index).WithDetail("%s", c.detail).
				WithTable(c.schema, c.table).WithConstraint(c.index)
		}
	}
	return nil
}

// CheckDeferred checks the unique keys deferred to commit: COMMIT calls
// it before making the transaction's changes durable.
func (tx *Txn) CheckDeferred(ctx context.Context) error {
	checks := tx.deferred
	tx.deferred = nil
	for _, c := range checks {
		if err := tx.checkUniqueKey(ctx, c); err != nil {
			return err
		}
	}
	fks := tx.deferredFKs
	tx.deferredFKs = nil
	for _, c := range fks {
		if err := tx.checkDeferredFK(ctx, c); err != nil {
			return err
		}
	}
	excls := tx.deferredExcl
	tx.deferredExcl = nil
	for _, c := range excls {
		if err := tx.checkDeferredExclusion(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// SetConstraints runs SET CONSTRAINTS: names (nil for ALL) become deferred
// or immediate for the rest of the transaction; making them immediate
// checks what was deferred for them.
func (tx *Txn) SetConstraints(ctx context.Context, names []string, deferred bool) error {
	if names == nil {
		tx.modes.all = -1
		if deferred {
			tx.modes.all = 1
		}
		tx.modes.byName = nil
	} else {
		if tx.modes.byName == nil {
			tx.modes.byName = map[string]bool{}
		}
		for _, n := range names {
			tx.modes.byName[n] = deferred
		}
	}
	if deferred {
		return nil
	}
	err := tx.fireDeferredTriggers(ctx, func(tr *sqldef.Trigger) bool {
		return !tx.modes.deferred(tr.Name, tr.InitiallyDeferred)
	})
	if err != nil {
		return err
	}
	var keep []uniqueCheck
	for _, c := range tx.deferred {
		if tx.modes.deferred(c.index, c.initiallyDeferred) {
			keep = append(keep, c)
			continue
		}
		if err := tx.checkUniqueKey(ctx, c); err != nil {
			return err
		}
	}
	tx.deferred = keep
	var keepFKs []fkDeferred
	for _, c := range tx.deferredFKs {
		if tx.modes.deferred(c.fk, c.initiallyDeferred) {
			keepFKs = append(keepFKs, c)
			continue
		}
		if err := tx.checkDeferredFK(ctx, c); err != nil {
			return err
		}
	}
	tx.deferredFKs = keepFKs
	var keepExcl []exclusionDeferred
	for _, c := range tx.deferredExcl {
		if tx.modes.deferred(c.name, c.initiallyDeferred) {
			keepExcl = append(keepExcl, c)
			continue
		}
		if err := tx.checkDeferredExclusion(ctx, c); err != nil {
			return err
		}
	}
	tx.deferredExcl = keepExcl
	return nil
}
