package exec

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// errLockTimeout is the cause of a lock wait's end at lock_timeout.
var errLockTimeout = errors.New("exec: lock timeout")

// Isolation is a transaction's isolation level.
type Isolation uint8

const (
	ReadCommitted  Isolation = iota // also READ UNCOMMITTED, as in PostgreSQL
	RepeatableRead                  // one snapshot; a concurrently changed row is 40001
	Serializable                    // as RepeatableRead, and SSI (ssi.go) fails dangerous read/write patterns
)

// ParseIsolation maps transaction_isolation's values to levels.
func ParseIsolation(s string) Isolation {
	switch s {
	case "repeatable read":
		return RepeatableRead
	case "serializable":
		return Serializable
	}
	return ReadCommitted
}

// LockWait is what taking a row lock does when another transaction holds
// it: wait (the default), fail (NOWAIT) or pass the row by (SKIP LOCKED).
type LockWait uint8

const (
	LockBlock LockWait = iota
	LockNoWait
	LockSkip
)

// alwaysTrue is a recheck that every row passes: for a caller that tests
// the newer version of a row itself.
var alwaysTrue Expr = &Const{D: DBool(true), T: TBool}

// rebase records that the statement changed the row of t stored under
// key on top of its committed version now (nil: the row's absence),
// newer than the transaction's snapshot: lockKey found it, and the
// commit-time merge takes the change over it. A row locked but left
// unchanged (a BEFORE trigger skipped it, a MERGE chose no action) is
// not recorded, so the merge keeps the committed version.
func (tx *Txn) rebase(t *Table, key, now []byte) {
	tk := tableKey(t.Def)
	if tx.rebased == nil {
		tx.rebased = map[string]map[string][]byte{}
	}
	if tx.rebased[tk] == nil {
		tx.rebased[tk] = map[string][]byte{}
	}
	tx.rebased[tk][string(key)] = now
}

// vanished removes through w the row stored under key, whose values are
// stored, which a concurrent transaction deleted and committed after this
// one's snapshot (its lock is held): the statement may then insert a row
// under the same key, as PostgreSQL's MERGE does when the row it matched
// is gone. The deletion is based on the row's absence, so the
// commit-time merge takes what the transaction leaves there.
func (tx *Txn) vanished(ctx context.Context, w *TableWriter, key []byte, stored Row) error {
	if err := w.Delete(ctx, key, stored); err != nil {
		return err
	}
	tx.rebase(w.t, key, nil)
	return nil
}

// updateLockMode is the row lock an UPDATE setting the columns sets (by
// position, nil for unchanged) takes: FOR UPDATE when it changes a column
// of a unique index without a predicate or expressions, which a foreign
// key may reference, and FOR NO KEY UPDATE else, so that it does not wait
// for (nor block) the FOR KEY SHARE locks of foreign-key checks, as in
// PostgreSQL.
func updateLockMode(t *Table, sets []Expr) LockMode {
	if anyKeyColumn(t, func(pos int) bool { return pos < len(sets) && sets[pos] != nil }) {
		return ForUpdate
	}
	return ForNoKeyUpdate
}

// anyKeyColumn reports whether pred holds for a column of t a foreign key
// may reference: one of its primary key or of a unique index without a
// predicate (expression columns aside). It allocates nothing: lock modes
// are chosen for every row changed.
func anyKeyColumn(t *Table, pred func(pos int) bool) bool {
	for _, pos := range t.Def.PrimaryKey {
		if pred(pos) {
			return true
		}
	}
	for _, ix := range t.Def.Indexes {
		if !ix.Unique || ix.Where != "" {
			continue
		}
		for _, c := range ix.Columns {
			if c.Column >= 0 && pred(c.Column) {
				return true
			}
		}
	}
	return false
}

// sameKey reports whether two stored versions of a row of t hold the same
// key columns (anyKeyColumn).
func sameKey(t *Table, a, b []byte) (bool, error) {
	ra, err := t.DecodeStoredRow(a)
	if err != nil {
		return false, err
	}
	rb, err := t.DecodeStoredRow(b)
	if err != nil {
		return false, err
	}
	return !anyKeyColumn(t, func(c int) bool { return Compare(ra[c], rb[c]) != 0 }), nil
}

// lockKey takes the row lock of the row of t stored under key and finds
// which version of it the statement must act on:
//
//   - The transaction already held the lock, or no transaction committed
//     a change to the row since the snapshot: row is nil, the statement
//     acts on what it read.
//   - Another transaction changed it and committed (perhaps while this one
//     waited for its lock): in READ COMMITTED, row is the newest committed
//     version (now its tuple) if it still passes recheck, else skip (also
//     when it was deleted); in REPEATABLE READ and SERIALIZABLE, and
//     without recheck, 40001.
//
// With LockNoWait a lock held by another transaction is 55P03, with
// LockSkip it is skip.
func (tx *Txn) lockKey(env *Env, t *Table, key []byte, mode LockMode, wait LockWait, recheck Expr) (row Row, now []byte, skip bool, err error) {
	if tx.Locks == nil || tx.Latest == nil || t.Pinned {
		return nil, nil, false, nil
	}
	fresh, skip, err := tx.takeLock(env, t, key, mode, wait)
	if err != nil || skip || !fresh {
		return nil, nil, skip, err
	}
	latest, err := tx.latestRoot(env.Ctx)
	if err != nil || latest.Addr() == tx.Start.Addr() {
		return nil, nil, false, err
	}
	base, inBase, _, err := tx.committedRow(env.Ctx, tx.Start, t, key)
	if err != nil || !inBase {
		return nil, nil, false, err // a row this transaction inserted: nobody else has it
	}
	now, found, sameDef, err := tx.committedRow(env.Ctx, latest, t, key)
	switch {
	case err != nil:
		return nil, nil, false, err
	case found && bytes.Equal(now, base):
		return nil, nil, false, nil
	case found && sameDef && mode == ForKeyShare:
		// FOR KEY SHARE does not conflict with an update of the row's
		// other columns: PostgreSQL locks the row as it was read and
		// returns that version, whatever the isolation level.
		if same, err := sameKey(t, base, now); err != nil || same {
			return nil, nil, false, err
		}
	case !sameDef || tx.Isolation != ReadCommitted || recheck == nil:
		return nil, nil, false, pgerr.New(pgerr.SerializationFailure, "could not serialize access due to concurrent update")
	case found && tx.Locks.Deleted(tx.rowLockKey(t, key)):
		// Deleted, and a row inserted under its key since: another row,
		// not a new version of this one, which PostgreSQL's EvalPlanQual
		// does not follow to it.
		return nil, nil, true, nil
	case !found && tx.Locks.Moved(tx.rowLockKey(t, key)):
		return nil, nil, false, errMoved()
	case !found:
		return nil, nil, true, nil // deleted and committed meanwhile
	}
	if row, err = t.DecodeStoredRow(now); err != nil {
		return nil, nil, false, err
	}
	ok, err := isTrue(env, recheck, row)
	if err != nil || !ok {
		return nil, nil, !ok, err
	}
	return row, now, false, nil
}

// conflictGone reports, for a row of t an INSERT ... ON CONFLICT DO
// NOTHING finds in its snapshot, whether a concurrent transaction deleted
// it (or moved it to another partition) and committed, so that the new
// row goes in after all. It waits, as PostgreSQL's speculative insertion
// waits for a transaction deleting the conflicting tuple, for one that
// holds the row's FOR UPDATE lock (a delete, a key update), by taking FOR
// KEY SHARE on it for the time of the check.
func (tx *Txn) conflictGone(env *Env, t *Table, key []byte) (bool, error) {
	if tx.Locks == nil || tx.Latest == nil || t.Pinned {
		return false, nil
	}
	if _, inBase, _, err := tx.committedRow(env.Ctx, tx.Start, t, key); err != nil || !inBase {
		return false, err // a row this transaction inserted: nobody else has it
	}
	fresh, _, err := tx.takeLock(env, t, key, ForKeyShare, LockBlock)
	if err != nil {
		return false, err
	}
	if fresh {
		// PostgreSQL's DO NOTHING locks nothing: the lock was only a way
		// to wait.
		defer tx.Locks.Release(tx.LockOwner, tx.rowLockKey(t, key))
	}
	latest, err := tx.latestRoot(env.Ctx)
	if err != nil || latest.Addr() == tx.Start.Addr() {
		return false, err
	}
	_, found, _, err := tx.committedRow(env.Ctx, latest, t, key)
	return !found, err
}

// movedError is lockKey's error for a row a committed UPDATE moved to
// another partition: 40001 for UPDATE, DELETE and SELECT FOR UPDATE, while
// ON CONFLICT DO UPDATE takes the row as gone and inserts, as PostgreSQL
// retries its insertion from the start.
type movedError struct{ error }

func (e movedError) Unwrap() error { return e.error }

func errMoved() error {
	return movedError{pgerr.New(pgerr.SerializationFailure, "tuple to be locked was already moved to another partition due to concurrent update")}
}

// takeLock takes the row lock of the row of t stored under key in mode, as
// lockKey; fresh reports that the transaction did not hold it (or a
// stronger mode) before.
func (tx *Txn) takeLock(env *Env, t *Table, key []byte, mode LockMode, wait LockWait) (fresh, skip bool, err error) {
	k := tx.rowLockKey(t, key)
	if wait != LockBlock {
		var ok bool
		if fresh, ok = tx.Locks.TryLock(tx.LockOwner, k, mode); !ok {
			if wait == LockSkip {
				return false, true, nil
			}
			return false, false, pgerr.New(pgerr.LockNotAvailable, "could not obtain lock on row in relation %q", t.Def.Name)
		}
		return fresh, false, nil
	}
	fresh, _, err = tx.lockWaiting(env.Ctx, k, mode)
	return fresh, false, err
}

// rowLockKey names the lock of the row of t stored under key.
func (tx *Txn) rowLockKey(t *Table, key []byte) RowLockKey {
	return RowLockKey{Space: SpaceRow, Database: tx.Repo.Name(), Branch: tx.Branch, Table: tableKey(t.Def), Key: string(key)}
}

// lockWaiting takes mode on k for the transaction, waiting for other
// transactions up to lock_timeout (then 55P03) and checking for a
// deadlock after deadlock_timeout, both as the statement began. A wait
// makes the branch's newest root be read again (latestRoot): the holder's
// commit is newer than what was read.
func (tx *Txn) lockWaiting(ctx context.Context, k RowLockKey, mode LockMode) (fresh, waited bool, err error) {
	lctx := ctx
	if d := tx.lockWait; d > 0 {
		var cancel context.CancelFunc
		lctx, cancel = context.WithTimeoutCause(ctx, d, errLockTimeout)
		defer cancel()
	}
	fresh, waited, err = tx.Locks.Lock(lctx, tx.LockOwner, k, mode, tx.deadlockWait)
	if waited {
		tx.latest = nil
	}
	if err != nil && context.Cause(lctx) == errLockTimeout && ctx.Err() == nil {
		err = pgerr.New(pgerr.LockNotAvailable, "canceling statement due to lock timeout")
	}
	if tx.Stats != nil && pgerr.CodeOf(err) == pgerr.DeadlockDetected {
		tx.Stats.Deadlocks.Add(1)
	}
	return fresh, waited, err
}

// LockRelation takes mode on table schema.name for the transaction, held
// until it ends (LOCK TABLE, and the table locks of queries): with
// nowait, a conflicting lock is 55P03 at once. waited reports that it
// waited for another transaction.
func (tx *Txn) LockRelation(ctx context.Context, schema, name string, mode LockMode, nowait bool) (waited bool, err error) {
	if tx.Locks == nil {
		return false, nil // a read-only revision: nobody writes it
	}
	k := RowLockKey{Space: SpaceTable, Database: tx.Repo.Name(), Branch: tx.Branch, Table: schema + "." + name}
	if nowait {
		if _, ok := tx.Locks.TryLock(tx.LockOwner, k, mode); !ok {
			return false, pgerr.New(pgerr.LockNotAvailable, "could not obtain lock on relation %q", name)
		}
		return false, nil
	}
	_, waited, err = tx.lockWaiting(ctx, k, mode)
	return waited, err
}

// latestRoot returns the branch's newest committed root, read once per
// statement (and again after a lock was waited for).
func (tx *Txn) latestRoot(ctx context.Context) (versioning.RootValue, error) {
	if tx.latest == nil {
		l, err := tx.Latest(ctx)
		if err != nil {
			return versioning.RootValue{}, err
		}
		tx.latest = &l
	}
	return *tx.latest, nil
}

// committedRow returns the tuple stored under key in t's table as of root,
// and whether root's table has t's definition (a concurrent ALTER would
// make a row of it unreadable with t's layout).
func (tx *Txn) committedRow(ctx context.Context, root versioning.RootValue, t *Table, key []byte) (tuple []byte, found, sameDef bool, err error) {
	rec, ok, err := root.TableRecord(ctx, t.Def.Schema, t.Def.Name)
	if err != nil || !ok {
		return nil, false, false, err
	}
	ct, err := tx.Tables.Decode(rec)
	if err != nil {
		return nil, false, false, err
	}
	def := ct.Def
	rows, err := prolly.Load(ctx, root.Store(), def.Rows)
	if err != nil {
		return nil, false, false, err
	}
	tuple, found, err = rows.Get(ctx, key)
	return tuple, found, sqldef.SameDefinition(def, t.Def), err
}

// RebasedTables implements versioning.RebaseSource.
func (m *MergeIndexer) RebasedTables() [][2]string {
	var out [][2]string
	for tk := range m.tx.rebased {
		schema, name, _ := strings.Cut(tk, ".")
		out = append(out, [2]string{schema, name})
	}
	return out
}

// Rebased implements versioning.RebaseSource: the rows of a table this
// transaction changed on top of a newer committed version, by key.
func (m *MergeIndexer) Rebased(schema, table string) map[string][]byte {
	return m.tx.rebased[schema+"."+table]
}

// maxKeyLocks bounds the locks a transaction takes on values it inserts
// (uniqueLock) and on parent rows its foreign keys reference
// (keyShareParent), which the row locks of its changes do not cover.
const maxKeyLocks = 10000

// uniqueLock is what an insert of a value a primary key or unique index
// holds once does about other transactions, as PostgreSQL's does: it takes
// the lock on the value (index "" names the primary key, whose lock is the
// row's), waiting while another open transaction holds it — one that
// inserted the same value, or deleted the row — and then reports whether
// a transaction that committed after this one's snapshot took the value
// (taken reads the branch's newest committed root; taken(start) says
// whether the snapshot had it). The caller fails with 23505 then.
//
// A transaction takes at most maxKeyLocks of these: past that (a bulk
// load), the commit-time merge alone finds a value taken concurrently
// (23505 at COMMIT), so that the lock table stays small.
func (tx *Txn) uniqueLock(ctx context.Context, t *Table, index string, value []byte, taken func(root versioning.RootValue) (bool, error)) (bool, error) {
	if tx.Locks == nil || tx.Latest == nil || t.Pinned || tx.keyLocks >= maxKeyLocks {
		return false, nil
	}
	tx.keyLocks++
	k := tx.rowLockKey(t, value)
	if index != "" {
		k.Table += "#" + index
	}
	if _, _, err := tx.lockWaiting(ctx, k, ForUpdate); err != nil {
		return false, err
	}
	latest, err := tx.latestRoot(ctx)
	if err != nil || latest.Addr() == tx.Start.Addr() {
		return false, err
	}
	now, err := taken(latest)
	if err != nil || !now {
		return false, err
	}
	before, err := taken(tx.Start)
	return !before, err
}

// keyShareParent takes FOR KEY SHARE on the row of t stored under key,
// which a foreign key of a new or changed row references, as PostgreSQL's
// RI check does: a concurrent delete (or key update) of it is waited for.
// It reports whether the row is still there: after such a delete
// committed, no (23503) in READ COMMITTED, and 40001 in REPEATABLE READ
// and SERIALIZABLE. A concurrent change of other columns is no concern.
func (tx *Txn) keyShareParent(ctx context.Context, t *Table, key []byte) (bool, error) {
	if tx.Locks == nil || tx.Latest == nil || t.Pinned || tx.keyLocks >= maxKeyLocks {
		return true, nil
	}
	tx.keyLocks++
	fresh, _, err := tx.lockWaiting(ctx, tx.rowLockKey(t, key), ForKeyShare)
	if err != nil || !fresh {
		return true, err
	}
	latest, err := tx.latestRoot(ctx)
	if err != nil || latest.Addr() == tx.Start.Addr() {
		return true, err
	}
	_, found, _, err := tx.committedRow(ctx, latest, t, key)
	switch {
	case err != nil:
		return false, err
	case !found && tx.Locks.Moved(tx.rowLockKey(t, key)):
		return false, errMoved()
	case !found && tx.Isolation != ReadCommitted:
		return false, pgerr.New(pgerr.SerializationFailure, "could not serialize access due to concurrent update")
	}
	return found, nil
}

// committedReferencing returns, in READ COMMITTED, the rows of the child
// table ref names in the branch's newest committed root whose columns
// cols equal vals: what PostgreSQL's RI check of a parent's delete sees
// besides the transaction's own view; in REPEATABLE READ and
// SERIALIZABLE such a row is 40001, as PostgreSQL's crosscheck snapshot
// makes it. None when nothing committed since the snapshot.
func (tx *Txn) committedReferencing(ctx context.Context, ref sqldef.ForeignKeyRef, cols []int, vals []Datum) ([]keyedRow, error) {
	if tx.Locks == nil || tx.Latest == nil {
		return nil, nil
	}
	latest, err := tx.latestRoot(ctx)
	if err != nil || latest.Addr() == tx.Start.Addr() {
		return nil, err
	}
	view := tx.viewOf(latest)
	child, ok, err := view.Table(ctx, ref.Schema, ref.Table)
	if err != nil || !ok {
		return nil, err
	}
	rows, err := findReferencing(ctx, view, child, cols, vals)
	if err == nil && len(rows) == 0 {
		// A partitioned child's rows are its partitions', which may have
		// been attached since the snapshot.
		rows, err = descendantsReferencing(ctx, view, child, cols, vals, 0)
	}
	if err == nil && len(rows) > 0 && tx.Isolation != ReadCommitted {
		return nil, pgerr.New(pgerr.SerializationFailure, "could not serialize access due to concurrent update")
	}
	return rows, err
}

// viewOf returns a read-only transaction reading root, for looking at
// what committed since the snapshot.
func (tx *Txn) viewOf(root versioning.RootValue) *Txn {
	return &Txn{Repo: tx.Repo, Branch: tx.Branch, ReadOnly: true, Start: root, root: root, Tables: tx.Tables}
}

// committedView returns a view of the branch's newest committed root, nil
// when nothing committed since the snapshot.
func (tx *Txn) committedView(ctx context.Context) (*Txn, error) {
	latest, err := tx.latestRoot(ctx)
	if err != nil || latest.Addr() == tx.Start.Addr() {
		return nil, err
	}
	return tx.viewOf(latest), nil
}

// descendantsReferencing is findReferencing in the tables that inherit
// from t in view's root, whose columns cols of t are found by name.
func descendantsReferencing(ctx context.Context, view *Txn, t *Table, cols []int, vals []Datum, depth int) ([]keyedRow, error) {
	kids, err := view.Root().Children(ctx, t.Def.Schema, t.Def.Name)
	if err != nil || depth > 32 {
		return nil, err
	}
	for _, k := range kids {
		kid, ok, err := view.Table(ctx, k.Schema, k.Name)
		if err != nil || !ok {
			return nil, err
		}
		kcols := make([]int, len(cols))
		missing := false
		for i, c := range cols {
			kcols[i] = slices.IndexFunc(kid.Cols, func(kc Column) bool { return !kc.Dropped && kc.Name == t.Cols[c].Name })
			missing = missing || kcols[i] < 0
		}
		if missing {
			continue // a child without the columns references nothing
		}
		rows, err := findReferencing(ctx, view, kid, kcols, vals)
		if err == nil && len(rows) == 0 {
			rows, err = descendantsReferencing(ctx, view, kid, kcols, vals, depth+1)
		}
		if err != nil || len(rows) > 0 {
			return rows, err
		}
	}
	return nil, nil
}
