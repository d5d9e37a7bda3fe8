package exec

import (
	"bytes"
	"context"
	"errors"
	"slices"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/versioning"
)

// OnConflict is an INSERT's ON CONFLICT clause. Before a row is inserted,
// the arbiters (unique constraints) are searched for a row with the same
// key, the statement's earlier rows included; with one, the row is not
// inserted: DO NOTHING drops it, DO UPDATE updates the existing row
// instead (if Where holds), and the statement counts and returns that.
type OnConflict struct {
	// Arbiters name the unique constraints searched: "" the primary key,
	// else a unique index. Any means all of the table's (DO NOTHING with
	// no conflict target).
	Arbiters []string
	Any      bool
	Update   bool
	// Sets compute, by column position, the updated row's values from the
	// existing row followed by the proposed one (EXCLUDED); nil keeps a
	// column. Where filters the updates the same way.
	Sets  []Expr
	Where Expr
	// Existing are the row-level security checks of the row DO UPDATE
	// would update (the UPDATE policies' USING expressions, as an error,
	// not a filter), Updated those of the row it makes; both over the
	// statement table's layout (rls.go).
	Existing, Updated []PolicyCheck
	// ViewChecks are the check options of the views the statement was
	// written through, which the row DO UPDATE makes must pass too (over
	// the statement table's layout).
	ViewChecks []ViewCheck
	// Table is the statement's table, whose name policy errors give.
	Table *Table
}

// conflict looks for a row conflicting with row through the arbiters of
// c; it returns its primary-map key and values. A row a concurrent
// transaction inserted under the primary key is waited for (uniqueLock);
// once committed it conflicts too, and based is its stored tuple: a DO
// UPDATE acts on it, as PostgreSQL's does in READ COMMITTED.
func (w *TableWriter) conflict(ctx context.Context, c *OnConflict, row Row) (key []byte, old Row, based []byte, err error) {
	key, old, err = w.conflictInView(ctx, c, row)
	if err != nil || key != nil {
		return key, old, nil, err
	}
	// Not in the transaction's view: a concurrent transaction may have
	// inserted the row. Each arbiter's value lock waits for it
	// (uniqueLock), then the committed row, if any, is the conflict.
	t := w.t
	for _, a := range w.arbiters(c) {
		var value []byte
		if a < 0 {
			if value, err = t.rowKey(nil, row, 0); err != nil {
				return nil, nil, nil, err
			}
		} else {
			ix := &t.Def.Indexes[a]
			prefix, in, nulls, err := t.indexKeyOf(w.env, nil, ix, w.evals[a], row, nil)
			if err != nil {
				return nil, nil, nil, err
			}
			if !in || nulls && !ix.NullsNotDistinct {
				continue
			}
			value = prefix
		}
		name := ""
		if a >= 0 {
			name = t.Def.Indexes[a].Name
		}
		var found, now []byte
		taken, err := w.tx.uniqueLock(ctx, t, name, value, func(root versioning.RootValue) (bool, error) {
			k := value
			if a >= 0 {
				var ok bool
				var err error
				if k, ok, err = indexEntryIn(ctx, root, t, name, value); err != nil || !ok {
					return false, err
				}
			}
			tuple, ok, _, err := w.tx.committedRow(ctx, root, t, k)
			if ok && root.Addr() != w.tx.Start.Addr() {
				found, now = k, tuple
			}
			return ok, err
		})
		switch {
		case err != nil:
			return nil, nil, nil, err
		case !taken || found == nil:
			continue
		case w.tx.Isolation != ReadCommitted:
			// A row the snapshot cannot see is 40001 in REPEATABLE READ
			// and SERIALIZABLE.
			return nil, nil, nil, pgerr.New(pgerr.SerializationFailure, "could not serialize access due to concurrent update")
		case !c.Update:
			return found, nil, nil, nil
		}
		if old, err = t.DecodeStoredRow(now); err != nil {
			return nil, nil, nil, err
		}
		return found, old, now, nil
	}
	return nil, nil, nil, nil
}

// arbiters returns the arbiters of c among w's table's unique keys: -1
// for the primary key, else the index's position.
func (w *TableWriter) arbiters(c *OnConflict) []int {
	t := w.t
	var out []int
	if t.HasPrimaryKey() && (c.Any || slices.Contains(c.Arbiters, "")) {
		out = append(out, -1)
	}
	for i := range t.Def.Indexes {
		if ix := &t.Def.Indexes[i]; ix.Unique && (c.Any || slices.Contains(c.Arbiters, ix.Name)) {
			out = append(out, i)
		}
	}
	return out
}

// conflictInView is conflict within the transaction's view.
func (w *TableWriter) conflictInView(ctx context.Context, c *OnConflict, row Row) ([]byte, Row, error) {
	t := w.t
	check := func(arbiter string) bool {
		if c.Any {
			return true
		}
		for _, a := range c.Arbiters {
			if a == arbiter {
				return true
			}
		}
		return false
	}
	if t.HasPrimaryKey() && check("") {
		key, err := t.rowKey(nil, row, 0)
		if err != nil {
			return nil, nil, err
		}
		if v, ok, err := w.lookup(ctx, key); err != nil {
			return nil, nil, err
		} else if ok {
			old, err := t.decodeRow(v, nil)
			return key, old, err
		}
	}
	for i := range t.Def.Indexes {
		ix := &t.Def.Indexes[i]
		if !ix.Unique || !check(ix.Name) {
			continue
		}
		prefix, in, nulls, err := t.indexKeyOf(w.env, nil, ix, w.evals[i], row, nil)
		if err != nil {
			return nil, nil, err
		}
		if !in || nulls && !ix.NullsNotDistinct {
			continue
		}
		pk, err := w.indexEntry(ctx, i, prefix)
		if err != nil || pk == nil {
			if err != nil {
				return nil, nil, err
			}
			continue
		}
		v, ok, err := w.lookup(ctx, pk)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return nil, nil, pgerr.New(pgerr.DataCorrupted, "index entry of relation %q points at a missing row", t.Def.Name)
		}
		old, err := t.decodeRow(v, nil)
		return pk, old, err
	}
	// Exclusion constraints arbitrate DO NOTHING: any row the new one
	// would conflict with.
	for i := range t.Def.Exclusions {
		x := &t.Def.Exclusions[i]
		if !check(x.Name) {
			continue
		}
		if len(w.pending) > 0 {
			if err := w.spill(ctx); err != nil {
				return nil, nil, err
			}
		}
		if key, old, err := w.exclusionConflict(ctx, i, nil, row, false); err != nil || key != nil {
			return key, old, err
		}
	}
	return nil, nil, nil
}

// indexEntry returns the primary key of a present entry of index i that
// starts with prefix (the index columns' key), pending edits included;
// nil if there is none.
func (w *TableWriter) indexEntry(ctx context.Context, i int, prefix []byte) ([]byte, error) {
	if w.ixPresent[i] == nil || w.ixPresent[i][string(prefix)] > 0 {
		for k, present := range w.ixEdits[i] {
			if present && bytes.HasPrefix([]byte(k), prefix) {
				return []byte(k[len(prefix):]), nil
			}
		}
	}
	it := w.indexes[i].NewIter(ctx, prolly.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if present, edited := w.ixEdits[i][string(it.Key())]; !edited || present {
			return bytes.Clone(it.Key()[len(prefix):]), it.Err()
		}
	}
	return nil, it.Err()
}

// upsert handles a proposed row of an INSERT with ON CONFLICT: skip is
// true when nothing is to be written (DO NOTHING, or DO UPDATE whose WHERE
// fails); upd holds the old and new rows when the existing row was updated
// instead; both empty mean insert the row. touched collects the keys the
// statement wrote, which DO UPDATE may not reach twice.
//
// When t is a member of a Modify with another layout, layout maps the
// statement table's columns to t's and proposed is row in the statement
// table's layout, which c's expressions read. trg, when set, fires the table's BEFORE UPDATE
// row triggers on the new row. gen computes t's generated columns.
func upsert(env *Env, c *OnConflict, checks []CheckConstraint, gen GeneratedCols, w *TableWriter, t *Table, row Row, layout []int, proposed Row, touched *map[string]bool, trg *triggerState) (upd []Row, skip bool, err error) {
	if *touched == nil {
		*touched = map[string]bool{}
	}
	key, old, based, err := w.conflict(env.Ctx, c, row)
	if err != nil {
		return nil, false, err
	}
	// stored is the row's version in the transaction's maps, which the
	// writer replaces: none for a row a concurrent transaction inserted.
	stored := old
	if based != nil {
		stored = nil
	}
	if key != nil && c.Update && based == nil {
		// DO UPDATE locks the row first, in the mode its SET calls for
		// (as PostgreSQL's ExecOnConflictUpdate), and acts on its newest
		// committed version if a concurrent transaction changed it
		// (lockKey).
		sets := c.Sets
		if layout != nil {
			sets = make([]Expr, len(t.Cols))
			unmapRowExprs(sets, c.Sets, layout)
		}
		newer, now, gone, err := env.Txn.lockKey(env, t, key, updateLockMode(t, sets), LockBlock, alwaysTrue)
		if errors.As(err, new(movedError)) {
			gone, err = true, nil
		}
		switch {
		case err != nil:
			return nil, false, err
		case gone:
			// Deleted meanwhile: the row goes in, in place of the one
			// the snapshot holds.
			if err := env.Txn.vanished(env.Ctx, w, key, stored); err != nil {
				return nil, false, err
			}
			key = nil
		case newer != nil:
			old, based = newer, now
		}
	}
	if key != nil && !c.Update && based == nil {
		gone, err := env.Txn.conflictGone(env, t, key)
		if err != nil {
			return nil, false, err
		}
		if gone {
			if err := env.Txn.vanished(env.Ctx, w, key, stored); err != nil {
				return nil, false, err
			}
			key = nil
		}
	}
	if key == nil {
		if t.HasPrimaryKey() {
			k, err := t.rowKey(nil, row, 0)
			if err != nil {
				return nil, false, err
			}
			(*touched)[string(k)] = true
		}
		return nil, false, nil
	}
	if !c.Update {
		return nil, true, nil
	}
	if (*touched)[string(key)] {
		return nil, false, pgerr.New(pgerr.CardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time").
			WithHint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.")
	}
	seen := old // the existing row as c's expressions see it
	if layout != nil {
		seen = make(Row, len(layout))
		mapRow(seen, old, layout)
	} else {
		proposed = row
	}
	both := append(slices.Clone(seen), proposed...)
	if c.Where != nil {
		ok, err := isTrue(env, c.Where, both)
		if err != nil || !ok {
			return nil, true, err
		}
	}
	if err := checkPolicies(env, c.Table, c.Existing, seen); err != nil {
		return nil, false, err
	}
	nrow := slices.Clone(seen)
	for pos, e := range c.Sets {
		if e == nil {
			continue
		}
		if nrow[pos], err = e.Eval(env, both); err != nil {
			return nil, false, err
		}
	}
	if layout != nil {
		nrow = unmappedRow(old, nrow, layout)
	}
	gen.clear(nrow)
	if trg != nil {
		r, err := trg.beforeRow("UPDATE", old, nrow)
		if err != nil || r == nil {
			return nil, r == nil, err
		}
		nrow = slices.Clone(r)
	}
	if err := gen.compute(env, nrow); err != nil {
		return nil, false, err
	}
	if len(c.Updated) > 0 {
		in := nrow
		if layout != nil {
			in = make(Row, len(layout))
			mapRow(in, nrow, layout)
		}
		if err := checkPolicies(env, c.Table, c.Updated, in); err != nil {
			return nil, false, err
		}
	}
	if err := checkNotNull(t, nrow); err != nil {
		return nil, false, err
	}
	if err := checkConstraints(env, t, checks, nrow); err != nil {
		return nil, false, err
	}
	if len(c.ViewChecks) > 0 {
		in := nrow
		if layout != nil {
			in = make(Row, len(layout))
			mapRow(in, nrow, layout)
		}
		if err := checkViewChecks(env, c.Table, c.ViewChecks, in); err != nil {
			return nil, false, err
		}
	}
	if stored == nil {
		err = w.write(env.Ctx, key, nil, nrow)
	} else {
		err = w.Update(env.Ctx, key, stored, nrow)
	}
	if err != nil {
		return nil, false, err
	}
	if based != nil {
		env.Txn.rebase(t, key, based)
	}
	(*touched)[string(key)] = true
	if t.HasPrimaryKey() {
		if k, err := t.rowKey(nil, nrow, 0); err == nil {
			(*touched)[string(k)] = true
		}
	}
	return []Row{old, nrow}, false, nil
}

// unmappedRow returns base with the columns of src, a row in the layout
// layout maps from, written over it.
func unmappedRow(base, src Row, layout []int) Row {
	out := slices.Clone(base)
	unmapRow(out, src, layout)
	return out
}
