package exec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// A statement's changes to a table are kept deferred on the table's maps
// (Txn.deferred) rather than written into new trees when the statement
// ends: a transaction's statements then build each changed path once, at
// the commit, and a READ COMMITTED statement's new snapshot carries them
// over without a merge (RebaseDeferred). This was the bulk of a small
// write transaction's work: the same row's path rebuilt, hashed and
// stored after each statement and again at each rebase.
//
// Invariants:
//  1. A deferred table's record in root is the one its edits apply to:
//     base is that record's row map. Anything that replaces root (setRoot,
//     RestoreMark) replaces the deferred tables with it.
//  2. Every read of a deferred table's rows by the transaction goes
//     through rowsMap and indexMap, which add the edits; everything else
//     reads Root, which writes them first. A writer begins on the table's
//     maps with its deferred edits and ends by deferring its own on top
//     of them, or by writing both; if another writer changed the table
//     meanwhile (a trigger's), both are written before the writer's
//     changes are carried over (TableWriter.rebase). Statements other than
//     queries and row changes (DDL, COPY, utilities) begin with
//     WriteDeferred: they take tables' records as definitions and write
//     records derived from them.
//  3. Deferring is only an order of work: the commit and every reader
//     see the same rows as if each statement had written its trees.

// deferredTable is one table's deferred changes.
type deferredTable struct {
	schema, name string
	base         store.Address // the row map of the table's record in root
	rows         prolly.Map
	indexes      []prolly.Map
	nextID       int64
}

// maxDeferredRows bounds the rows one statement may defer, and
// maxDeferredEdits the edits a table may hold deferred; a bigger statement
// writes its trees as before (its cost is in its rows then, not in
// rebuilding paths), and so does one that would pass the table's bound.
const (
	maxDeferredRows  = 1024
	maxDeferredEdits = 4096
)

// deferrable reports whether the writer's changes may be deferred: a small
// statement, written on maps with nothing deferred, on the table's current
// record, whose deferrable
// unique checks (which read the written index) do not wait for Flush, and
// whose scans do not read a snapshot of the statement's own (a table of
// the snapshot would have the deferred table's base: see deferredOf).
func (w *TableWriter) deferrable(ctx context.Context) bool {
	if w.spilled || len(w.pending) > maxDeferredRows || len(w.uniques) > 0 || w.tx.stmtRoot != nil ||
		w.rows.Deferred()+len(w.pending) > maxDeferredEdits || w.tx.deferredTables[tableKey(w.t.Def)] != w.dt {
		return false
	}
	// The table's record must still be the one the writer began on: a
	// trigger's DDL may have changed its definition (added an index)
	// without touching its rows.
	cur, ok, err := w.tx.Table(ctx, w.t.Def.Schema, w.t.Def.Name)
	return err == nil && ok && (cur.Def == w.t.Def || cur.Def.Rows == w.t.Def.Rows && sqldef.SameDefinition(cur.Def, w.t.Def))
}

// writeBase makes the writer's base concrete: the deferred edits it began
// on are written into maps of their own, which w.t then names. A writer
// that spilled keeps its maps, which hold them already.
func (w *TableWriter) writeBase(ctx context.Context) error {
	if w.dt == nil {
		return nil
	}
	def, rows, indexes, err := w.dt.write(ctx, w.t.Def)
	if err != nil {
		return err
	}
	if !w.spilled {
		w.rows, w.indexes = rows, indexes
	}
	nt := *w.t
	nt.Def = def
	w.t, w.dt = &nt, nil
	return nil
}

// write writes the deferred edits into maps of their own and returns
// base, the table's definition they apply to, naming those maps, and the
// maps.
func (dt *deferredTable) write(ctx context.Context, base *sqldef.Table) (*sqldef.Table, prolly.Map, []prolly.Map, error) {
	def := *base
	rows, err := dt.rows.Materialize(ctx)
	if err != nil {
		return nil, prolly.Map{}, nil, err
	}
	def.Rows = rows.Root()
	def.NextRowID = max(def.NextRowID, dt.nextID)
	def.Indexes = slices.Clone(def.Indexes)
	indexes := make([]prolly.Map, len(dt.indexes))
	for i, m := range dt.indexes {
		if indexes[i], err = m.Materialize(ctx); err != nil {
			return nil, prolly.Map{}, nil, err
		}
		def.Indexes[i].Rows = indexes[i].Root()
	}
	return &def, rows, indexes, nil
}

// dropDeferred forgets a table's deferred changes, which a record just
// written holds.
func (tx *Txn) dropDeferred(key string) {
	if tx.deferredTables[key] == nil {
		return
	}
	next := maps.Clone(tx.deferredTables)
	delete(next, key)
	if len(next) == 0 {
		next = nil
	}
	tx.deferredTables = next
}

// deferEdits ends the writer's statement by deferring its changes.
func (w *TableWriter) deferEdits(ctx context.Context) error {
	dt := &deferredTable{schema: w.t.Def.Schema, name: w.t.Def.Name, base: w.t.Def.Rows, nextID: w.nextID}
	var err error
	if dt.rows, err = w.rows.Defer(sortedEdits(w.pending)); err != nil {
		return err
	}
	dt.indexes = make([]prolly.Map, len(w.indexes))
	for i, m := range w.indexes {
		if dt.indexes[i], err = m.Defer(prolly.SetEdits(w.ixEdits[i])); err != nil {
			return err
		}
	}
	next := maps.Clone(w.tx.deferredTables)
	if next == nil {
		next = map[string]*deferredTable{}
	}
	next[tableKey(w.t.Def)] = dt
	w.tx.deferredTables = next
	return w.checkDeferrable(ctx)
}

// deferredOf returns the deferred changes of t, when t is the
// transaction's version of its table and has some.
func (tx *Txn) deferredOf(t *Table) *deferredTable {
	if len(tx.deferredTables) == 0 || t.Pinned {
		return nil
	}
	if dt := tx.deferredTables[tableKey(t.Def)]; dt != nil && dt.base == t.Def.Rows && len(dt.indexes) == len(t.Def.Indexes) {
		return dt
	}
	return nil
}

// rowsMap returns the row map of t with the transaction's deferred changes.
func (tx *Txn) rowsMap(ctx context.Context, t *Table) (prolly.Map, error) {
	if dt := tx.deferredOf(t); dt != nil {
		return dt.rows, nil
	}
	return prolly.Load(ctx, tx.root.Store(), t.Def.Rows)
}

// indexMap returns the map of t's index i with the transaction's deferred
// changes.
func (tx *Txn) indexMap(ctx context.Context, t *Table, i int) (prolly.Map, error) {
	if dt := tx.deferredOf(t); dt != nil {
		return dt.indexes[i], nil
	}
	return prolly.Load(ctx, tx.root.Store(), t.Def.Indexes[i].Rows)
}

// materialize writes every table's deferred changes into root.
func (tx *Txn) materialize(ctx context.Context) error {
	for _, k := range slices.Sorted(maps.Keys(tx.deferredTables)) {
		if err := tx.materializeOne(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

// materializeTable writes def's table's deferred changes into root, if it
// has any.
func (tx *Txn) materializeTable(ctx context.Context, def *sqldef.Table) error {
	if tx.deferredTables[tableKey(def)] == nil {
		return nil
	}
	return tx.materializeOne(ctx, tableKey(def))
}

func (tx *Txn) materializeOne(ctx context.Context, key string) error {
	dt := tx.deferredTables[key]
	t, ok, err := tx.Table(ctx, dt.schema, dt.name)
	if err != nil {
		return err
	}
	if !ok || t.Def.Rows != dt.base || len(t.Def.Indexes) != len(dt.indexes) {
		return fmt.Errorf("exec: table %q.%q changed under its deferred changes", dt.schema, dt.name)
	}
	def, _, _, err := dt.write(ctx, t.Def)
	if err != nil {
		return err
	}
	root, rec, err := tx.root.PutTableRecord(ctx, def)
	if err != nil {
		return err
	}
	nt := *t
	nt.Def = def
	tx.root = root
	tx.dropDeferred(key)
	tx.cacheTable(rec, &nt)
	return nil
}

// sameDeferred reports whether two deferred sets are the same one.
func sameDeferred(a, b map[string]*deferredTable) bool {
	if len(a) != len(b) {
		return false
	}
	for k, dt := range a {
		if b[k] != dt {
			return false
		}
	}
	return true
}

// RebaseDeferred moves a transaction whose changes are all deferred onto
// latest, a newer committed root, without merging: its snapshot and root
// become latest and its deferred edits apply to latest's tables. That is
// the merge's result when no row the transaction changed was changed
// since its snapshot and no constraint spans rows: it reports false,
// having changed nothing, when it cannot tell so cheaply (see
// replayableOn), and the caller merges as before.
func (tx *Txn) RebaseDeferred(ctx context.Context, latest versioning.RootValue) (bool, error) {
	tables, _, ok, err := tx.replayableOn(ctx, latest)
	if !ok || err != nil {
		return false, err
	}
	next, err := tx.deferredOn(ctx, tables)
	if err != nil {
		return false, err
	}
	// Rows changed on top of newer versions than the old snapshot are
	// ordinary changes of the new one, as in Rebase.
	tx.Start, tx.root, tx.tables, tx.deferredTables, tx.rebased = latest, latest, nil, next, nil
	return true, nil
}

// deferredOn returns the transaction's deferred changes carried over to
// tables, the versions of its deferred tables in a newer root, by key.
func (tx *Txn) deferredOn(ctx context.Context, tables map[string]*Table) (map[string]*deferredTable, error) {
	cs := tx.root.Store()
	next := make(map[string]*deferredTable, len(tx.deferredTables))
	for key, dt := range tx.deferredTables {
		lt := tables[key]
		nd := &deferredTable{schema: dt.schema, name: dt.name, base: lt.Def.Rows, nextID: max(dt.nextID, lt.Def.NextRowID)}
		m, err := prolly.Load(ctx, cs, lt.Def.Rows)
		if err != nil {
			return nil, err
		}
		nd.rows = m.WithDeferredOf(dt.rows)
		nd.indexes = make([]prolly.Map, len(dt.indexes))
		for i := range dt.indexes {
			if m, err = prolly.Load(ctx, cs, lt.Def.Indexes[i].Rows); err != nil {
				return nil, err
			}
			nd.indexes[i] = m.WithDeferredOf(dt.indexes[i])
		}
		next[key] = nd
	}
	return next, nil
}

// DeferredEdits returns the transaction's changes as edits of onto's
// tables, onto being a root newer than its snapshot: applying them gives
// the commit-time merge's result, in one pass over each changed tree
// instead of writing the transaction's own trees and then merging them
// (the committer applies a batch's together). False when replayableOn
// cannot tell it is; the commit then merges Root.
func (tx *Txn) DeferredEdits(ctx context.Context, onto versioning.RootValue) ([]versioning.TableEdits, bool, error) {
	_, unique, ok, err := tx.replayableOn(ctx, onto)
	if !ok || err != nil {
		return nil, false, err
	}
	edits := make([]versioning.TableEdits, 0, len(tx.deferredTables))
	for key, dt := range tx.deferredTables {
		te := versioning.TableEdits{Schema: dt.schema, Name: dt.name, Rows: dt.rows.DeferredEdits(), NextRowID: dt.nextID, Unique: unique[key]}
		te.Indexes = make([][]prolly.Edit, len(dt.indexes))
		for i, m := range dt.indexes {
			te.Indexes[i] = m.DeferredEdits()
		}
		edits = append(edits, te)
	}
	return edits, true, nil
}

// WriteDeferred writes every table's deferred changes into the
// transaction's root, as Root does, reporting a failure as an error. A
// statement other than a query or a row change calls it before its
// analysis: DDL reads tables' records as the catalog holds them and writes
// records derived from them, which must not lose rows still deferred.
func (tx *Txn) WriteDeferred(ctx context.Context) error {
	if len(tx.deferredTables) == 0 {
		return nil
	}
	return tx.materialize(ctx)
}

// HasDeferred reports whether the transaction holds deferred changes.
func (tx *Txn) HasDeferred() bool { return len(tx.deferredTables) > 0 }

// replayableOn reports whether the transaction's deferred edits, applied
// to root's versions of their tables (root descends from its snapshot),
// surely give the three-way merge's result, and returns those tables by
// key, with the unique keys its rows take in each (uniqueKeysFree). It
// reports false some change is not deferred (root moved from the
// snapshot otherwise, changes the writers did not track), a row's
// foreign key finds no parent in root with the transaction's changes
// (referencesHold), a unique key a row takes is another row's in root, an
// edit deletes a row
// of a table a foreign key references (a concurrent child may reference
// the row), a table's definition changed, or a changed row does not hold
// in root the version the change was made on: the snapshot's, or for a
// rebased row (changed on top of a version committed after the snapshot,
// under its row lock, in a table without secondary indexes) that version.
func (tx *Txn) replayableOn(ctx context.Context, root versioning.RootValue) (map[string]*Table, map[string][]versioning.UniqueKey, bool, error) {
	tables, ok, err := tx.replayableRowsOn(ctx, root)
	if !ok || err != nil {
		return nil, nil, false, err
	}
	if ok, err := tx.referencesHold(ctx, root, tables); !ok || err != nil {
		return nil, nil, false, err
	}
	var unique map[string][]versioning.UniqueKey
	var ix *MergeIndexer
	for key, dt := range tx.deferredTables {
		lt := tables[key]
		if !slices.ContainsFunc(lt.Def.Indexes, func(ix sqldef.Index) bool { return ix.Unique }) {
			continue
		}
		if ix == nil {
			ix = NewMergeIndexer(tx)
		}
		keys, ok, err := tx.uniqueKeysFree(ctx, ix, lt, dt)
		if !ok || err != nil {
			return nil, nil, false, err
		}
		if unique == nil {
			unique = map[string][]versioning.UniqueKey{}
		}
		unique[key] = keys
	}
	return tables, unique, true, nil
}

// referencesHold reports whether the rows the transaction inserts or
// changes in tables with foreign keys find their parents in root (a newer
// root than its snapshot; tables are the deferred tables' versions there)
// with the transaction's own changes, as in the root the commit makes.
// The writers checked them in the snapshot with the transaction's
// changes, and hold the parents' KEY SHARE locks, which a concurrent
// DELETE of a parent waits for; what a version-control operation did to
// a parent table since, the check finds. A foreign key whose parent table
// root holds as the snapshot did needs no check.
func (tx *Txn) referencesHold(ctx context.Context, root versioning.RootValue, tables map[string]*Table) (bool, error) {
	var view *Txn
	for key, dt := range tx.deferredTables {
		lt := tables[key]
		var check []*sqldef.ForeignKey
		for i := range lt.Def.ForeignKeys {
			fk := &lt.Def.ForeignKeys[i]
			was, ok, err := tx.Start.TableRecord(ctx, fk.RefSchema, fk.RefTable)
			if err != nil {
				return false, err
			}
			now, ok2, err := root.TableRecord(ctx, fk.RefSchema, fk.RefTable)
			if err != nil {
				return false, err
			}
			if ok && ok2 && bytes.Equal(was, now) {
				parent, err := tx.Tables.Decode(now)
				if err != nil {
					return false, err
				}
				if !parent.Def.Partitioned() {
					continue // the parent's rows are the snapshot's (a partitioned one's are its partitions')
				}
			}
			check = append(check, fk)
		}
		if len(check) == 0 {
			continue
		}
		if view == nil {
			// root with the transaction's changes, for reading only
			view = NewTxn(tx.Repo, tx.Branch, true, root)
			view.Tables, view.IndexEval = tx.Tables, tx.IndexEval
			var err error
			if view.deferredTables, err = tx.deferredOn(ctx, tables); err != nil {
				return false, err
			}
		}
		for _, e := range dt.rows.DeferredEdits() {
			if e.Delete {
				continue
			}
			row, err := lt.decodeRow(e.Value, nil)
			if err != nil {
				return false, err
			}
			for _, fk := range check {
				err := checkReference(ctx, view, lt, fk, row)
				var pe *pgerr.Error
				if errors.As(err, &pe) && pe.Code == pgerr.ForeignKeyViolation {
					return false, nil // the merge reports it
				}
				if err != nil {
					return false, err
				}
			}
		}
	}
	return true, nil
}

// uniqueKeysFree reports whether the unique keys the rows dt inserts or
// changes take are free in lt, the table in a newer root than the
// snapshot (no entry of another row has them), and returns them. The
// writers checked them in the transaction's snapshot, under the key's
// lock (uniqueLock); a transaction that committed since may have taken
// one, and the committer's batch checks its transactions against each
// other by the keys returned (versioning.TableEdits.Unique). Not ok: the
// merge decides, and reports the duplicate.
func (tx *Txn) uniqueKeysFree(ctx context.Context, ix *MergeIndexer, lt *Table, dt *deferredTable) ([]versioning.UniqueKey, bool, error) {
	cs := tx.root.Store()
	maps := make([]prolly.Map, len(lt.Def.Indexes))
	var keys []versioning.UniqueKey
	for _, e := range dt.rows.DeferredEdits() {
		if e.Delete {
			continue
		}
		entries, err := ix.IndexEntries(ctx, lt.Def, e.Key, e.Value)
		if err != nil {
			return nil, false, err
		}
		for i, en := range entries {
			if en.Unique == 0 {
				continue
			}
			prefix := en.Key[:en.Unique]
			keys = append(keys, versioning.UniqueKey{Index: i, Prefix: prefix})
			if maps[i].Store() == nil {
				if maps[i], err = prolly.Load(ctx, cs, lt.Def.Indexes[i].Rows); err != nil {
					return nil, false, err
				}
			}
			it := maps[i].NewIter(ctx, prolly.IterOptions{LowerBound: prefix})
			taken := false
			for ok := it.First(); ok && !taken && bytes.HasPrefix(it.Key(), prefix); ok = it.Next() {
				taken = !bytes.Equal(it.Key(), en.Key) // the row's own entry is no other's
			}
			if err := it.Close(); err != nil || taken {
				return nil, false, err
			}
		}
	}
	return keys, true, nil
}

// replayableRowsOn is replayableOn but for unique keys.
func (tx *Txn) replayableRowsOn(ctx context.Context, root versioning.RootValue) (map[string]*Table, bool, error) {
	if tx.untracked || tx.root.Addr() != tx.Start.Addr() {
		return nil, false, nil
	}
	for tk, rows := range tx.rebased {
		if len(rows) > 0 && tx.deferredTables[tk] == nil {
			return nil, false, nil
		}
	}
	cs := tx.root.Store()
	tables := make(map[string]*Table, len(tx.deferredTables))
	for key, dt := range tx.deferredTables {
		t, ok, err := tx.Table(ctx, dt.schema, dt.name)
		if err != nil || !ok {
			return nil, false, err
		}
		if t.Def.Rows != dt.base {
			return nil, false, nil
		}
		startRec, ok, err := tx.root.TableRecord(ctx, dt.schema, dt.name)
		if err != nil || !ok {
			return nil, false, err
		}
		rec, ok, err := root.TableRecord(ctx, dt.schema, dt.name)
		if err != nil || !ok {
			return nil, false, err
		}
		if d := versioning.TableDefinition(rec); d == nil || !bytes.Equal(d, versioning.TableDefinition(startRec)) {
			return nil, false, nil
		}
		lt, err := tx.Tables.Decode(rec)
		if err != nil {
			return nil, false, err
		}
		rebased := tx.rebased[key]
		if lt.Def.Rows == t.Def.Rows && len(rebased) == 0 && !slices.ContainsFunc(dt.rows.DeferredEdits(), func(e prolly.Edit) bool { return e.Delete }) {
			// No one changed the table's rows since the snapshot (a
			// single client's every statement, and often a commit's):
			// each changed row holds its snapshot version in root.
			tables[key] = lt
			continue
		}
		startRows, err := prolly.Load(ctx, cs, t.Def.Rows)
		if err != nil {
			return nil, false, err
		}
		rootRows, err := prolly.Load(ctx, cs, lt.Def.Rows)
		if err != nil {
			return nil, false, err
		}
		if len(rebased) > 0 && len(t.Def.Indexes) > 0 {
			// The writer took out the index entries of the snapshot's
			// version of a rebased row; root holds those of the version
			// it was rebased on, which the merge's applyRebased removes.
			return nil, false, nil
		}
		based := 0
		referenced := -1 // unknown yet; then 0 or 1
		for _, e := range dt.rows.DeferredEdits() {
			if e.Delete && referenced < 0 {
				refs, err := root.ReferencingKeys(ctx, dt.schema, dt.name)
				if err != nil {
					return nil, false, err
				}
				referenced = min(len(refs), 1)
			}
			if e.Delete && referenced > 0 {
				return nil, false, nil // a concurrent child may reference the row
			}
			sv, sok, err := startRows.Get(ctx, e.Key)
			if err != nil {
				return nil, false, err
			}
			if was, ok := rebased[string(e.Key)]; ok {
				sv, sok = was, was != nil
				based++
			}
			rv, rok, err := rootRows.Get(ctx, e.Key)
			if err != nil {
				return nil, false, err
			}
			if sok != rok || !bytes.Equal(sv, rv) {
				return nil, false, nil
			}
		}
		if based != len(rebased) {
			return nil, false, nil // a rebased row the edits no longer change
		}
		tables[key] = lt
	}
	return tables, true, nil
}
