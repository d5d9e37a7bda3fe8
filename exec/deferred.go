package exec

import (
	"context"
	"slices"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/prolly"
)

// Deferrable unique constraints. A key written to the index of a
// DEFERRABLE unique constraint is not checked as the row is written (the
// statement may be moving keys around: UPDATE t SET i = i + 1) but once
// the statement's changes are flushed, or, if the constraint is deferred
// (INITIALLY DEFERRED, or SET CONSTRAINTS ... DEFERRED in the
// transaction), at commit (Txn.CheckDeferred) or when SET CONSTRAINTS ...
// IMMEDIATE ends the deferral. A key violates the constraint when the
// index then holds it more than once.

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
		m, err := prolly.Load(ctx, tx.Root.Store(), ix.Rows)
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
	return nil
}
