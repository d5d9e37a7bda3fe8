package exec

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/prolly/tuple"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Txn is a SQL transaction on one branch of a database: the working root it
// began from and the root its finished statements have made. Statements
// read Root and write through TableWriters, whose edits become part of Root
// when the statement ends. A Txn is used by one session at a time.
type Txn struct {
	Repo     *versioning.Repo
	Branch   string
	ReadOnly bool
	Queried  bool // a statement has run: the read-write mode can no longer change
	Start    versioning.RootValue
	// root is the transaction's state but for the deferred changes of
	// tables (deferred): Root writes those into it.
	root versioning.RootValue
	// StartTime is when the transaction began: now() and
	// CURRENT_TIMESTAMP for all of its statements.
	StartTime time.Time

	// Tables, when set, shares decoded tables with other transactions.
	Tables *TableCache
	// deferred are the unique checks SET CONSTRAINTS or INITIALLY
	// DEFERRED put off until commit; modes the SET CONSTRAINTS settings.
	deferred []uniqueCheck
	// deferredFKs are the foreign-key checks deferred to commit.
	deferredFKs []fkDeferred
	// deferredExcl are the exclusion checks deferred to commit.
	deferredExcl []exclusionDeferred
	// deferredTriggers are the firings of deferred constraint triggers,
	// in the order of their events, waiting for commit (deferred.go).
	deferredTriggers []deferredTrigger
	modes            constraintModes
	// IndexEval, when set, analyzes the expressions and predicate of an
	// index that has them (indexeval.go); the planner provides it.
	IndexEval func(ctx context.Context, t *Table, ix *sqldef.Index) (*IndexEval, error)
	// Defaults, when set, analyzes the column defaults of a table (nil
	// where a column has none): a foreign key's ON ... SET DEFAULT needs
	// them, and only the planner can analyze SQL.
	Defaults func(ctx context.Context, t *Table) ([]Expr, error)
	// Generated, when set, analyzes the generation expressions of a
	// table's stored generated columns (nil when it has none), for the
	// rows written other than by a statement's Modify: a foreign key's
	// cascades, a merge's combined rows. The planner provides it.
	Generated func(ctx context.Context, t *Table) (GeneratedCols, error)
	// FireTrigger, when set, runs a trigger's function (trigger.go); the
	// planner provides it.
	FireTrigger FireTriggerFunc
	// FireRule, when set, runs a rewrite rule's action for a row
	// (rule.go); the planner provides it.
	FireRule FireRuleFunc
	// TriggerDepth is how many trigger functions are running, nested
	// (pg_trigger_depth).
	TriggerDepth int

	// RowIDs, when set, draws the hidden row ids of keyless tables for
	// every transaction of the engine (rowid.go); without it, ids are
	// drawn from the transaction's own view, which only a lone writer may
	// rely on.
	RowIDs *RowIDs
	// XIDs, when set, draws the transaction's id (xid.go); xid is it, 0
	// until drawn.
	XIDs *XIDs
	xid  int64
	// Sequences, when set, draws nextval's values for every transaction
	// of the engine (seqvalues.go); seqAdvances are the positions this
	// transaction's nextval and setval left its sequences at, by schema
	// + "." + name, which its commit applies (txnseq.go). They are not
	// part of a Mark: a failed statement does not take values back.
	Sequences   *SequenceValues
	seqAdvances map[string]versioning.SequenceAdvance

	// Locks, when set, are the engine's row locks: UPDATE and DELETE take
	// the lock of each row they change, held by LockOwner until the
	// transaction ends (rowlocking.go). Latest returns the branch's newest
	// committed root, which a change of a row locked after another
	// transaction committed it is based on; Isolation decides whether
	// that is allowed (READ COMMITTED) or a serialization failure.
	Locks     *RowLocks
	LockOwner uint64
	// Stats, when set, are the database's cumulative statistics, which
	// the transaction's scans and writers add to (cumstats.go).
	Stats *DatabaseStats
	// LockTimeouts, when set, returns lock_timeout, how long a lock is
	// waited for before 55P03 (0: forever), and deadlock_timeout, how
	// long before a waiter checks for a deadlock. It is read once per
	// statement (BeginStatement), not per row.
	LockTimeouts           func() (lock, deadlock time.Duration)
	lockWait, deadlockWait time.Duration
	Latest                 func(ctx context.Context) (versioning.RootValue, error)
	Isolation              Isolation
	// WriteBuffer, when set, returns how many bytes of changes a
	// statement's TableWriter holds in memory before it applies them to its
	// maps (maintenance_work_mem); read once per statement. Without it,
	// DefaultWriteBuffer.
	WriteBuffer func() int64
	writeBuffer int64
	// stmtChanged are the rows the running statement's UPDATEs and
	// DELETEs in WITH changed, by table and key (Modify.InWith).
	stmtChanged map[string]stmtChange
	// SSI, when set, tracks the engine's serializable transactions
	// (ssi.go); serial is this one's state there, made at its first read
	// or write when it is SERIALIZABLE.
	SSI    *SSI
	serial *SerialXact
	// keyLocks counts the locks uniqueLock and keyShareParent took.
	keyLocks int
	// rebased holds, by table and primary-map key, the committed version
	// of each row this transaction changed on top of a version newer than
	// its snapshot: the commit-time merge takes the change over it. A nil
	// version is the row's absence: a concurrent transaction deleted it
	// (see vanished).
	rebased map[string]map[string][]byte
	// latest caches Latest for the running statement (BeginStatement
	// clears it): one read of the branch per statement rather than per
	// row locked. A lock waited for reads it again.
	latest *versioning.RootValue

	// changed are the keys the transaction's writers changed, by table
	// (ChangedKeys); untracked is set once Root changed otherwise (DDL,
	// version-control functions), which the merges then diff.
	changed   map[string]*changedKeys
	untracked bool

	// stmtRoot, when set, is what the running statement's scans read
	// (SnapshotStatement); stmtTables its decoded tables.
	stmtRoot   *versioning.RootValue
	stmtTables map[string]*Table

	tables map[string]*Table // decoded records of root, by schema + "." + name
	// deferred holds, by table, the changes of the statements that wrote
	// the table since its record in root was last written: on the table's
	// maps as deferred edits (prolly's overlay), which the transaction's
	// scans and lookups read (rowsMap, indexMap), and which Root writes
	// into root. A transaction's few rows are then written once, at its
	// commit, instead of a new path of each tree per statement. The map
	// is replaced, never modified, so that a Mark can share it.
	deferredTables map[string]*deferredTable
	// rowIDs are the highest row ids drawn, by schema + "." + name: a
	// trigger inserting into the table its statement is writing, and
	// that statement, draw ids after each other's, not the same ones.
	rowIDs map[string]int64
}

// NewTxn begins a transaction from root.
func NewTxn(repo *versioning.Repo, branch string, readOnly bool, root versioning.RootValue) *Txn {
	return &Txn{Repo: repo, Branch: branch, ReadOnly: readOnly, Start: root, root: root, StartTime: time.Now()}
}

// Root returns the transaction's state: the root its finished statements
// have made. It writes the tables' deferred changes into the root first;
// the executor's own scans read them where they are, through Catalog and
// rowsMap.
func (tx *Txn) Root() versioning.RootValue {
	if len(tx.deferredTables) > 0 {
		if err := tx.materialize(context.Background()); err != nil {
			// Only a failing chunk store gets here; the statement
			// fails (the session turns a panic into XX000), and
			// the deferred changes stay for a later try.
			panic(fmt.Errorf("exec: writing a transaction's deferred changes: %w", err))
		}
	}
	return tx.root
}

// Catalog returns the transaction's root without writing its deferred
// changes: every definition in it is current, but the row maps of a table
// with deferred changes lack them. It is for name resolution and catalog
// reads on the path of every statement, which must not write the
// transaction's rows each time; rows are read through Table and scans.
func (tx *Txn) Catalog() versioning.RootValue { return tx.root }

// CatalogVersion identifies a transaction's catalog at one moment: two
// are equal exactly when they are of the same transaction and its Catalog
// was the same root value, so that what was analyzed against one holds
// for the other without looking at any definition.
type CatalogVersion struct {
	tx   *Txn
	root store.Address
}

// CatalogVersion returns the version of the transaction's catalog now.
func (tx *Txn) CatalogVersion() CatalogVersion {
	return CatalogVersion{tx: tx, root: tx.root.Addr()}
}

// TableDefinition returns the definition part of table schema.name's
// record in Catalog (versioning.TableDefinition): equal bytes, equal
// definitions. It is nil when the table is missing or its record has no
// separate definition.
func (tx *Txn) TableDefinition(ctx context.Context, schema, name string) ([]byte, error) {
	rec, _, err := tx.root.TableRecord(ctx, schema, name)
	if err != nil {
		return nil, err
	}
	return versioning.TableDefinition(rec), nil
}

// SetCatalog replaces the transaction's root by r, derived from Catalog
// by changes to objects other than tables (a sequence's state): decoded
// tables and deferred changes stay.
func (tx *Txn) SetCatalog(r versioning.RootValue) { tx.root = r }

// Table returns the table schema.name as of Root.
func (tx *Txn) Table(ctx context.Context, schema, name string) (*Table, bool, error) {
	key := schema + "." + name // tableKey
	if t, ok := tx.tables[key]; ok {
		return t, true, nil
	}
	rec, ok, err := tx.root.TableRecord(ctx, schema, name)
	if !ok || err != nil {
		return nil, false, err
	}
	t, err := tx.Tables.Decode(rec)
	if err != nil {
		return nil, false, err
	}
	if tx.tables == nil {
		tx.tables = map[string]*Table{}
	}
	tx.tables[key] = t
	return t, true, nil
}

// tableKey is how the transaction's maps name a table.
func tableKey(def *sqldef.Table) string { return def.Schema + "." + def.Name }

// current returns the version of t a scan reads: the transaction's, so
// that a statement sees the statements before it, or t itself when it is
// pinned to another revision. While a statement with data-modifying WITH
// queries runs, scans read the root it began with (SnapshotStatement).
func (tx *Txn) current(ctx context.Context, t *Table) (*Table, error) {
	if t.Pinned {
		return t, nil
	}
	if tx.stmtRoot != nil {
		if cur, ok, err := tx.stmtTable(ctx, t.Def); ok || err != nil {
			return cur, err
		}
	}
	cur, ok, err := tx.Table(ctx, t.Def.Schema, t.Def.Name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", t.Def.Name)
	}
	return cur, nil
}

// SnapshotStatement makes the scans of the running statement read its
// root as it is now, whatever the statement then writes: PostgreSQL runs
// the sub-statements of a WITH and the main query on one snapshot, so
// that none sees the others' changes to their tables (only their
// RETURNING rows, through the CTE). BeginStatement ends it. Writers still
// write on top of everything written before them.
func (tx *Txn) SnapshotStatement() {
	if tx.stmtRoot == nil {
		root := tx.Root()
		tx.stmtRoot, tx.stmtTables = &root, nil
	}
}

// stmtTable returns def's table as of the statement's snapshot; false if
// the table is not in it.
func (tx *Txn) stmtTable(ctx context.Context, def *sqldef.Table) (*Table, bool, error) {
	key := tableKey(def)
	if t, ok := tx.stmtTables[key]; ok {
		return t, true, nil
	}
	rec, ok, err := tx.stmtRoot.TableRecord(ctx, def.Schema, def.Name)
	if !ok || err != nil {
		return nil, false, err
	}
	t, err := tx.Tables.Decode(rec)
	if err != nil {
		return nil, false, err
	}
	if tx.stmtTables == nil {
		tx.stmtTables = map[string]*Table{}
	}
	tx.stmtTables[key] = t
	return t, true, nil
}

// cacheTable records t, whose stored record is rec, as the transaction's
// version of its table.
func (tx *Txn) cacheTable(rec []byte, t *Table) {
	if tx.Tables != nil {
		tx.Tables.put(rec, t)
	}
	if tx.tables == nil {
		tx.tables = map[string]*Table{}
	}
	tx.tables[t.Def.Schema+"."+t.Def.Name] = t
}

// SetRoot replaces Root, forgetting decoded tables of the old one. The
// keys the writers changed no longer tell the whole change: commit-time
// merges diff the transaction's maps from then on.
func (tx *Txn) SetRoot(r versioning.RootValue) {
	if r.Addr() != tx.Root().Addr() {
		tx.untracked = true
		tx.XID() // a catalog change writes
	}
	tx.setRoot(r)
}

// Mark is a transaction's state to go back to (RestoreMark): its root
// and its deferred changes.
type Mark struct {
	root           versioning.RootValue
	deferredTables map[string]*deferredTable
	// triggers is how many deferred trigger firings were queued: those
	// of the statements undone after the mark are dropped.
	triggers int
}

// Mark returns the transaction's state, without writing its deferred
// changes.
func (tx *Txn) Mark() Mark { return Mark{tx.root, tx.deferredTables, len(tx.deferredTriggers)} }

// RestoreMark puts back a state Mark returned (a failed statement's, a
// savepoint's): unlike SetRoot, what the writers changed since then still
// covers the change.
func (tx *Txn) RestoreMark(m Mark) {
	if m.triggers < len(tx.deferredTriggers) {
		tx.deferredTriggers = tx.deferredTriggers[:m.triggers]
	}
	if m.root.Addr() != tx.root.Addr() || !sameDeferred(m.deferredTables, tx.deferredTables) {
		tx.root, tx.deferredTables, tx.tables = m.root, m.deferredTables, nil
	}
}

func (tx *Txn) setRoot(r versioning.RootValue) {
	if r.Addr() != tx.root.Addr() || len(tx.deferredTables) > 0 {
		tx.root, tx.deferredTables, tx.tables = r, nil, nil
	}
}

// RebasedMark records the rows rebased so far, for a savepoint;
// RollbackRebased forgets those rebased after it, whose changes a ROLLBACK
// TO undid: the merge must not take them over the committed versions.
func (tx *Txn) RebasedMark() map[string]map[string][]byte {
	m := make(map[string]map[string][]byte, len(tx.rebased))
	for tk, rows := range tx.rebased {
		m[tk] = maps.Clone(rows)
	}
	return m
}

// RollbackRebased puts the rebased rows back as RebasedMark recorded them.
// The mark stays as it was, for a later ROLLBACK TO the same savepoint.
func (tx *Txn) RollbackRebased(mark map[string]map[string][]byte) {
	tx.rebased = nil
	for tk, rows := range mark {
		if tx.rebased == nil {
			tx.rebased = map[string]map[string][]byte{}
		}
		tx.rebased[tk] = maps.Clone(rows)
	}
}

// HasRebased reports whether the transaction changed a row on top of a
// newer committed version than its snapshot's (see lockKey).
func (tx *Txn) HasRebased() bool { return len(tx.rebased) > 0 }

// BeginStatement marks the start of a statement.
func (tx *Txn) BeginStatement() {
	tx.latest, tx.lockWait, tx.deadlockWait = nil, 0, time.Second
	tx.stmtChanged = nil
	tx.stmtRoot, tx.stmtTables = nil, nil
	if tx.LockTimeouts != nil {
		tx.lockWait, tx.deadlockWait = tx.LockTimeouts()
	}
	tx.writeBuffer = DefaultWriteBuffer
	if tx.WriteBuffer != nil {
		if b := tx.WriteBuffer(); b > 0 {
			tx.writeBuffer = max(b, minWriteBuffer)
		}
	}
}

// writeBufferBytes is the running statement's write buffer: the one
// BeginStatement read, DefaultWriteBuffer for a transaction that runs no
// statement of its own (DDL's internal ones).
func (tx *Txn) writeBufferBytes() int64 {
	if tx.writeBuffer == 0 {
		return DefaultWriteBuffer
	}
	return tx.writeBuffer
}

// DefaultWriteBuffer is a statement's write buffer when Txn.WriteBuffer is
// not set: PostgreSQL's default maintenance_work_mem. minWriteBuffer keeps
// a tiny setting from applying the changes row by row.
const (
	DefaultWriteBuffer = 64 << 20
	minWriteBuffer     = 1 << 20
)

// Rebase moves the transaction onto a newer committed root: start becomes
// its snapshot, and root — start with the transaction's own changes merged
// in — its state. Rows it had changed on top of newer versions than its
// old snapshot are ordinary changes of the new one.
func (tx *Txn) Rebase(start, root versioning.RootValue) {
	tx.Start = start
	tx.setRoot(root) // the same changes, onto another snapshot
	tx.rebased = nil
}

// CheckWritable fails with 25006 in a read-only transaction.
func (tx *Txn) CheckWritable() error {
	if tx.ReadOnly {
		return pgerr.New(pgerr.ReadOnlySQLTransaction, "cannot execute statement in a read-only transaction")
	}
	return nil
}

// rowEdit is a pending change of one row: its new value, or its deletion.
type rowEdit struct {
	val []byte // nil: deleted
}

// TableWriter collects one statement's changes to one table: rows of the
// primary map and entries of each secondary index. Reads through it see the
// table as of the statement's start plus its own changes. Flush applies
// everything and stores the new table record in the transaction's root.
//
// The changes wait in memory up to the transaction's write buffer
// (maintenance_work_mem); past it, the writer applies them to its own
// copies of the maps (spill), whose new chunks go to the store, and starts
// a new buffer. A statement's memory thus stays bounded whatever the
// number of rows it writes, and its changes stay invisible to everything
// but the writer until Flush: the maps are immutable values, and the
// transaction's root still holds the old ones.
type TableWriter struct {
	tx *Txn
	t  *Table
	// dt are the table's deferred changes the writer began on (nil:
	// none); its maps carry them.
	dt      *deferredTable
	rows    prolly.Map
	indexes []prolly.Map
	pending map[string]rowEdit
	ixEdits []map[string]bool // per index: key -> present
	// ixPresent counts, per unique index (nil for others), the entries
	// ixEdits holds as present by their unique prefix (the index
	// columns), so that a uniqueness check is a lookup, not a scan of
	// every buffered entry.
	ixPresent []map[string]int
	nextID    int64
	tb        tuple.Builder
	keyBuf    []byte
	ixBuf     []byte
	// uniques are the keys written to deferrable unique indexes, checked
	// when the statement's changes are flushed, or at commit.
	uniques []uniqueCheck
	// moves are the rows an UPDATE gave a primary key another row held
	// at the time, written when the statement's changes are flushed if
	// that row has left the key by then (UPDATE t SET id = id + 1).
	moves []keyMove
	// evals compute the entries of indexes with expressions or a
	// predicate (nil for plain ones); env evaluates them.
	evals []*IndexEval
	// exclEvals compute the elements and predicates of the exclusion
	// constraints that have them, by position, analyzed on first use.
	exclEvals map[int]*IndexEval
	env       *Env
	// buffered approximates the bytes pending and ixEdits hold; spilled
	// is set once rows and indexes hold changes of the writer's (spill).
	buffered int64
	spilled  bool
}

// editOverhead approximates the memory of a buffered edit beyond its key
// and value: the map entry, the string and slice headers.
const editOverhead = 64

// buffer records n bytes of new buffered edits, and spills the buffer
// once it is over the transaction's write buffer.
func (w *TableWriter) buffer(ctx context.Context, n int) error {
	w.buffered += int64(n + editOverhead)
	if w.buffered <= w.tx.writeBufferBytes() {
		return nil
	}
	return w.spill(ctx)
}

// spill applies the buffered edits to the writer's maps and empties the
// buffer.
func (w *TableWriter) spill(ctx context.Context) error {
	w.tx.noteChanged(w)
	rows, err := w.rows.Apply(ctx, sortedEdits(w.pending))
	if err != nil {
		return err
	}
	w.rows = rows
	for i := range w.indexes {
		if w.indexes[i], err = w.indexes[i].Apply(ctx, prolly.SetEdits(w.ixEdits[i])); err != nil {
			return err
		}
		clear(w.ixEdits[i])
		clear(w.ixPresent[i])
	}
	clear(w.pending)
	w.buffered, w.spilled = 0, true
	return nil
}

// Writer returns a writer for table t.
func (tx *Txn) Writer(ctx context.Context, t *Table) (*TableWriter, error) {
	if err := tx.CheckWritable(); err != nil {
		return nil, err
	}
	tx.XID() // a writing transaction has an id, as in PostgreSQL
	// The writer begins on the table's maps with the transaction's
	// deferred edits (txndefer.go, invariant 2).
	dt := tx.deferredOf(t)
	rows, err := tx.rowsMap(ctx, t)
	if err != nil {
		return nil, err
	}
	w := &TableWriter{tx: tx, t: t, dt: dt, rows: rows, pending: map[string]rowEdit{}, nextID: t.Def.NextRowID, env: &Env{Ctx: ctx, Txn: tx}}
	if dt != nil {
		w.nextID = max(w.nextID, dt.nextID)
	}
	for i := range t.Def.Indexes {
		m, err := tx.indexMap(ctx, t, i)
		if err != nil {
			return nil, err
		}
		w.indexes = append(w.indexes, m)
		w.ixEdits = append(w.ixEdits, map[string]bool{})
		var present map[string]int
		if t.Def.Indexes[i].Unique {
			present = map[string]int{}
		}
		w.ixPresent = append(w.ixPresent, present)
		ie, err := tx.indexEval(ctx, t, &t.Def.Indexes[i])
		if err != nil {
			return nil, err
		}
		w.evals = append(w.evals, ie)
	}
	return w, nil
}

// Table returns the table being written.
func (w *TableWriter) Table() *Table { return w.t }

// lookup returns the row stored under key, pending changes included.
func (w *TableWriter) lookup(ctx context.Context, key []byte) ([]byte, bool, error) {
	if e, ok := w.pending[string(key)]; ok {
		return e.val, e.val != nil, nil
	}
	return w.rows.Get(ctx, key)
}

// Insert adds row, failing with 23505 if its primary key is taken or a
// unique index already holds its values.
func (w *TableWriter) Insert(ctx context.Context, row Row) error {
	key, err := w.key(row)
	if err != nil {
		return err
	}
	if w.t.HasPrimaryKey() {
		err = w.checkKey(ctx, key, row)
	}
	if err == nil {
		err = w.write(ctx, key, nil, row)
	}
	// SSI's check of the write comes after the uniqueness checks, and
	// also when they fail, as PostgreSQL's index insertion does: a
	// serialization failure masked by the unique violation is reported.
	if err == nil || pgerr.CodeOf(err) == pgerr.UniqueViolation {
		if e := w.tx.ssiWrite(w.t, key, ssiInsert); e != nil {
			return e
		}
	}
	return err
}

// checkKey fails with 23505 if the primary key of a new row is taken: in
// the transaction's view, or by a concurrent transaction, whose end it
// waits for (uniqueLock).
func (w *TableWriter) checkKey(ctx context.Context, key []byte, row Row) error {
	if _, exists, err := w.lookup(ctx, key); err != nil {
		return err
	} else if exists {
		return w.uniqueViolation(w.t.Def.PrimaryKeyName, w.t.Def.PrimaryKey, row)
	}
	return w.checkConcurrentKey(ctx, key, row)
}

// checkConcurrentKey is checkKey's second half, for a key the caller
// found free in the transaction's view: it fails with 23505 if a
// concurrent transaction took it, once that one ends.
func (w *TableWriter) checkConcurrentKey(ctx context.Context, key []byte, row Row) error {
	taken, err := w.tx.uniqueLock(ctx, w.t, "", key, func(root versioning.RootValue) (bool, error) {
		_, found, _, err := w.tx.committedRow(ctx, root, w.t, key)
		return found, err
	})
	if err != nil {
		return err
	}
	if taken {
		return w.uniqueViolation(w.t.Def.PrimaryKeyName, w.t.Def.PrimaryKey, row)
	}
	return nil
}

// key returns the primary-map key of a new row, drawing a row id for
// tables without a primary key.
func (w *TableWriter) key(row Row) ([]byte, error) {
	id := int64(0)
	if !w.t.HasPrimaryKey() {
		if w.tx.rowIDs == nil {
			w.tx.rowIDs = map[string]int64{}
		}
		k := tableKey(w.t.Def)
		if w.tx.RowIDs != nil {
			id = w.tx.RowIDs.Draw(w.tx.Repo.Name(), w.tx.Branch, k, max(w.nextID, w.tx.rowIDs[k]))
		} else {
			id = max(w.nextID, w.tx.rowIDs[k]) + 1
		}
		w.nextID = id
		w.tx.rowIDs[k] = id
	}
	k, err := w.t.rowKey(w.keyBuf[:0], row, id)
	if err != nil {
		return nil, err
	}
	w.keyBuf = k
	return slices.Clone(k), nil
}

// Update replaces the row stored under key, old, by row. The key may
// change (an update of primary key columns).
func (w *TableWriter) Update(ctx context.Context, key []byte, old, row Row) error {
	newKey := key
	if w.t.HasPrimaryKey() {
		k, err := w.t.rowKey(w.keyBuf[:0], row, 0)
		if err != nil {
			return err
		}
		w.keyBuf = k
		if !bytes.Equal(k, key) {
			newKey = slices.Clone(k)
			_, held, err := w.lookup(ctx, newKey)
			if err != nil {
				return err
			}
			if !held {
				if err := w.checkConcurrentKey(ctx, newKey, row); err != nil {
					return err
				}
			}
			if err := w.tx.ssiWrite(w.t, key, ssiIndexed); err != nil {
				return err
			}
			if err := w.tx.ssiWrite(w.t, newKey, ssiInsert); err != nil {
				return err
			}
			if err := w.removeIndexEntries(key, old); err != nil {
				return err
			}
			w.pending[string(key)] = rowEdit{}
			if held {
				// Another row of the table holds the key: the statement
				// may yet move it away. Checked once the statement's
				// rows are all written (resolveMoves).
				w.moves = append(w.moves, keyMove{key: newKey, row: slices.Clone(row)})
				return w.buffer(ctx, len(key))
			}
			return w.write(ctx, newKey, nil, row)
		}
	}
	if w.tx.serial != nil || w.tx.Isolation == Serializable {
		kind := ssiUpdate
		if w.indexedChange(old, row) {
			kind = ssiIndexed
		}
		if err := w.tx.ssiWrite(w.t, key, kind); err != nil {
			return err
		}
	}
	return w.write(ctx, newKey, old, row)
}

// keyMove is a row whose update gave it the primary key another row of
// the table held (TableWriter.moves).
type keyMove struct {
	key []byte
	row Row
}

// resolveMoves writes the rows whose new primary keys other rows held
// when they were updated, as SQL checks a constraint once the statement
// is done rather than row by row: UPDATE t SET id = id + 1 succeeds in
// any order of its rows. A move whose key is still held, after every
// move that could free it, fails with 23505.
func (w *TableWriter) resolveMoves(ctx context.Context) error {
	for len(w.moves) > 0 {
		rest := w.moves[:0]
		for _, m := range w.moves {
			_, held, err := w.lookup(ctx, m.key)
			if err != nil {
				return err
			}
			if held {
				rest = append(rest, m)
				continue
			}
			if err := w.checkConcurrentKey(ctx, m.key, m.row); err != nil {
				return err
			}
			if err := w.write(ctx, m.key, nil, m.row); err != nil {
				return err
			}
		}
		if len(rest) == len(w.moves) {
			m := rest[0]
			w.moves = nil
			return w.uniqueViolation(w.t.Def.PrimaryKeyName, w.t.Def.PrimaryKey, m.row)
		}
		w.moves = rest
	}
	return nil
}

// indexedChange reports whether an update of old to row changes a column
// of an index, so that PostgreSQL would not update it in place (HOT) but
// add entries to every index.
func (w *TableWriter) indexedChange(old, row Row) bool {
	changed := func(pos int) bool {
		return pos < 0 || pos < len(old) && pos < len(row) && Compare(old[pos], row[pos]) != 0
	}
	for _, pos := range w.t.Def.PrimaryKey {
		if changed(pos) {
			return true
		}
	}
	for _, ix := range w.t.Def.Indexes {
		for _, c := range ix.Columns {
			if changed(c.Column) {
				return true
			}
		}
	}
	return false
}

// Delete removes the row stored under key, whose values are old.
func (w *TableWriter) Delete(ctx context.Context, key []byte, old Row) error {
	if err := w.tx.ssiWrite(w.t, key, ssiDelete); err != nil {
		return err
	}
	if tx := w.tx; tx.Locks != nil && tx.Latest != nil && !w.t.Pinned {
		tx.Locks.MarkDeleted(tx.LockOwner, tx.rowLockKey(w.t, key))
	}
	if err := w.removeIndexEntries(key, old); err != nil {
		return err
	}
	w.pending[string(key)] = rowEdit{}
	return w.buffer(ctx, len(key))
}

// write stores row under key, replacing old (nil for a new row), and keeps
// the secondary indexes in step.
func (w *TableWriter) write(ctx context.Context, key []byte, old, row Row) error {
	if len(w.t.Def.Exclusions) > 0 {
		if err := w.checkExclusions(ctx, key, row); err != nil {
			return err
		}
	}
	if old != nil {
		if err := w.removeIndexEntries(key, old); err != nil {
			return err
		}
	}
	for i := range w.t.Def.Indexes {
		ix := &w.t.Def.Indexes[i]
		k, in, nulls, err := w.t.indexKeyOf(w.env, w.ixBuf[:0], ix, w.evals[i], row, key)
		if err != nil {
			return err
		}
		if !in {
			continue // a partial index the row is not in
		}
		w.ixBuf = k
		distinct := ix.Unique && (ix.NullsNotDistinct || !nulls)
		if distinct && ix.Deferrable {
			w.deferUnique(i, row, k[:len(k)-len(key)]) // deferred.go
		} else if distinct {
			if err := w.checkUnique(ctx, i, row, len(k)-len(key)); err != nil {
				return err
			}
		}
		w.setIndexEntry(i, k, len(key), true)
	}
	val := slices.Clone(w.t.encodeRow(&w.tb, row))
	if val == nil {
		val = []byte{} // a row of no columns; nil would delete it
	}
	w.pending[string(key)] = rowEdit{val: val}
	// About one entry per index, added or removed, each some columns and
	// the key.
	return w.buffer(ctx, len(key)+len(val)+len(w.ixEdits)*(2*len(key)+editOverhead))
}

func (w *TableWriter) removeIndexEntries(key []byte, old Row) error {
	for i := range w.t.Def.Indexes {
		k, in, _, err := w.t.indexKeyOf(w.env, w.ixBuf[:0], &w.t.Def.Indexes[i], w.evals[i], old, key)
		if err != nil {
			return err
		}
		if !in {
			continue
		}
		w.ixBuf = k
		w.setIndexEntry(i, k, len(key), false)
	}
	return nil
}

// setIndexEntry buffers the entry k of index i, whose last keyLen bytes
// are the row's primary-map key, as present or removed.
func (w *TableWriter) setIndexEntry(i int, k []byte, keyLen int, present bool) {
	was := w.ixEdits[i][string(k)]
	w.ixEdits[i][string(k)] = present
	counts := w.ixPresent[i]
	if counts == nil || was == present {
		return
	}
	prefix := string(k[:len(k)-keyLen])
	if present {
		counts[prefix]++
	} else if counts[prefix]--; counts[prefix] <= 0 {
		delete(counts, prefix)
	}
}

// checkUnique fails if index i holds an entry whose first prefixLen bytes
// (the index columns) equal those of w.ixBuf, unless a column is NULL
// (NULLs are distinct, as in PostgreSQL by default).
func (w *TableWriter) checkUnique(ctx context.Context, i int, row Row, prefixLen int) error {
	ix := &w.t.Def.Indexes[i]
	prefix := w.ixBuf[:prefixLen]
	taken := w.ixPresent[i][string(prefix)] > 0
	if !taken {
		it := w.indexes[i].NewIter(ctx, prolly.IterOptions{LowerBound: prefix})
		for ok := it.First(); ok && bytes.HasPrefix(it.Key(), prefix); ok = it.Next() {
			if present, edited := w.ixEdits[i][string(it.Key())]; !edited || present {
				taken = true
				break
			}
		}
		if err := it.Close(); err != nil {
			return err
		}
	}
	if !taken {
		var err error
		// The row's own entry does not count: a row written on top of
		// a version a concurrent transaction committed (ON CONFLICT DO
		// UPDATE of a row inserted meanwhile) replaces that version.
		own := w.ixBuf[prefixLen:]
		taken, err = w.tx.uniqueLock(ctx, w.t, ix.Name, prefix, func(root versioning.RootValue) (bool, error) {
			k, ok, err := indexEntryIn(ctx, root, w.t, ix.Name, prefix)
			return ok && !bytes.Equal(k, own), err
		})
		if err != nil || !taken {
			return err
		}
	}
	names, values := w.t.keyValues(w.env, ix, w.evals[i], row)
	return pgerr.New(pgerr.UniqueViolation, "duplicate key value violates unique constraint %q", ix.Name).
		WithDetail("Key (%s)=(%s) already exists.", names, values).WithTable(w.t.Def.Schema, w.t.Def.Name).WithConstraint(ix.Name)
}

// indexEntryIn returns the primary-map key of the first entry of index
// name of t's table in root that begins with prefix (the index columns),
// and whether there is one.
func indexEntryIn(ctx context.Context, root versioning.RootValue, t *Table, name string, prefix []byte) ([]byte, bool, error) {
	def, ok, err := root.Table(ctx, t.Def.Schema, t.Def.Name)
	if err != nil || !ok {
		return nil, false, err
	}
	for i := range def.Indexes {
		if def.Indexes[i].Name != name {
			continue
		}
		m, err := prolly.Load(ctx, root.Store(), def.Indexes[i].Rows)
		if err != nil {
			return nil, false, err
		}
		it := m.NewIter(ctx, prolly.IterOptions{LowerBound: prefix})
		var key []byte
		found := it.First() && bytes.HasPrefix(it.Key(), prefix)
		if found {
			key = bytes.Clone(it.Key()[len(prefix):])
		}
		return key, found, it.Close()
	}
	return nil, false, nil
}

func (w *TableWriter) uniqueViolation(name string, cols []int, row Row) error {
	return pgerr.New(pgerr.UniqueViolation, "duplicate key value violates unique constraint %q", name).
		WithDetail("Key (%s)=(%s) already exists.", w.colNames(cols), w.formatValues(cols, row)).WithTable(w.t.Def.Schema, w.t.Def.Name).WithConstraint(name)
}

func (w *TableWriter) colNames(cols []int) string {
	var b []byte
	for i, c := range cols {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, w.t.Cols[c].Name...)
	}
	return string(b)
}

func (w *TableWriter) formatValues(cols []int, row Row) string {
	var b []byte
	for i, c := range cols {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = AppendText(b, w.t.Cols[c].Type, row[c], nil)
	}
	return string(b)
}

// Flush applies the statement's changes and stores the table's new record
// in the transaction's root.
func (w *TableWriter) Flush(ctx context.Context) error {
	if err := w.resolveMoves(ctx); err != nil {
		return err
	}
	if len(w.pending) == 0 && !w.spilled {
		return nil
	}
	if err := w.rebase(ctx); err != nil {
		return err
	}
	w.tx.noteChanged(w)
	if w.deferrable(ctx) {
		return w.deferEdits(ctx)
	}
	def := *w.t.Def
	rows, err := w.rows.Apply(ctx, sortedEdits(w.pending))
	if err != nil {
		return err
	}
	def.Rows = rows.Root()
	def.NextRowID = w.nextID
	def.Indexes = slices.Clone(def.Indexes)
	for i, m := range w.indexes {
		m, err = m.Apply(ctx, prolly.SetEdits(w.ixEdits[i]))
		if err != nil {
			return err
		}
		def.Indexes[i].Rows = m.Root()
	}
	root, rec, err := w.tx.root.PutTableRecord(ctx, &def)
	if err != nil {
		return err
	}
	if w.dt != nil {
		w.tx.dropDeferred(tableKey(&def)) // the maps written held them
	}
	// Only this table's record changed, and only in the roots of its maps:
	// the decoded tables of the root stay valid, and this one's new version
	// is the old one with the new record (no decode of it, in this
	// transaction or, through the shared cache, the next).
	nt := *w.t
	nt.Def = &def
	w.tx.root = root
	w.tx.cacheTable(rec, &nt)
	return w.checkDeferrable(ctx)
}

// rebase makes the writer's edits apply to the table as it is now. The
// statement's own triggers may have written the table since the writer
// began (a BEFORE ROW trigger inserting into it, say): their changes are
// kept, and the statement's go on top, unless both changed the same row
// or index entry, which fails as PostgreSQL fails a row changed by a
// trigger of the statement that changes it.
func (w *TableWriter) rebase(ctx context.Context) error {
	if w.tx.deferredTables[tableKey(w.t.Def)] != w.dt {
		// Another writer of the statement (a trigger's) changed the
		// table since this one began. Both states are written, so that
		// the diff below goes from the writer's base to the table now.
		if err := w.writeBase(ctx); err != nil {
			return err
		}
		if err := w.tx.materializeTable(ctx, w.t.Def); err != nil {
			return err
		}
	}
	cur, ok, err := w.tx.Table(ctx, w.t.Def.Schema, w.t.Def.Name)
	if err != nil || !ok || cur.Def.Rows == w.t.Def.Rows && cur.Def.NextRowID == w.t.Def.NextRowID {
		return err
	}
	if len(cur.Def.Indexes) != len(w.t.Def.Indexes) {
		return pgerr.New(pgerr.ObjectInUse, "cannot ALTER TABLE %q because it is being used by active queries in this session", w.t.Def.Name)
	}
	cs := w.tx.root.Store()
	var mine *prolly.Map
	if w.spilled {
		mine = &w.rows
	}
	rows, err := rebaseMap(ctx, cs, w.t.Def.Rows, cur.Def.Rows, mine, func(k []byte) (string, bool) {
		e, ok := w.pending[string(k)]
		if e.val == nil {
			return "deleted", ok
		}
		return "updated", ok
	})
	if err != nil {
		return err
	}
	indexes := make([]prolly.Map, len(w.indexes))
	for i := range w.indexes {
		edits := w.ixEdits[i]
		var mine *prolly.Map
		if w.spilled {
			mine = &w.indexes[i]
		}
		if indexes[i], err = rebaseMap(ctx, cs, w.t.Def.Indexes[i].Rows, cur.Def.Indexes[i].Rows, mine, func(k []byte) (string, bool) {
			_, ok := edits[string(k)]
			return "updated", ok
		}); err != nil {
			return err
		}
	}
	w.t, w.rows, w.indexes = cur, rows, indexes
	w.nextID = max(w.nextID, cur.Def.NextRowID)
	return nil
}

// rebaseMap returns the map the writer's buffered edits are to apply to
// once the table moved from from to to: the map at to, failing if an
// entry changed from from to to is one the writer edits too; edited says
// whether it does, and how ("updated", "deleted"). mine, when the writer
// spilled, is its map (from with the spilled edits): the result is then
// mine with the changes from from to to, which must not touch entries the
// spilled edits changed either.
func rebaseMap(ctx context.Context, cs prolly.ChunkStore, from, to store.Address, mine *prolly.Map, edited func([]byte) (string, bool)) (prolly.Map, error) {
	fm, err := prolly.Load(ctx, cs, from)
	if err != nil {
		return prolly.Map{}, err
	}
	tm, err := prolly.Load(ctx, cs, to)
	if err != nil {
		return prolly.Map{}, err
	}
	conflict := func(how string) error {
		return pgerr.New(pgerr.TriggeredDataChangeViolation, "tuple to be %s was already modified by an operation triggered by the current command", how).
			WithHint("Consider using an AFTER trigger instead of a BEFORE trigger to propagate changes to other rows.")
	}
	var theirs []prolly.Edit
	d := prolly.NewDiffer(ctx, fm, tm)
	for {
		diff, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return prolly.Map{}, err
		}
		if how, ok := edited(diff.Key); ok {
			return prolly.Map{}, conflict(how)
		}
		if mine == nil {
			continue
		}
		v, ok, err := mine.Get(ctx, diff.Key)
		if err != nil {
			return prolly.Map{}, err
		}
		if ok != (diff.Kind != prolly.Added) || !bytes.Equal(v, diff.From) {
			if !ok {
				return prolly.Map{}, conflict("deleted")
			}
			return prolly.Map{}, conflict("updated")
		}
		theirs = append(theirs, prolly.Edit{Key: bytes.Clone(diff.Key), Value: bytes.Clone(diff.To), Delete: diff.Kind == prolly.Removed})
	}
	if mine == nil {
		return tm, nil
	}
	return mine.Apply(ctx, theirs)
}

func sortedEdits(pending map[string]rowEdit) []prolly.Edit {
	edits := make([]prolly.Edit, 0, len(pending))
	for k, e := range pending {
		edits = append(edits, prolly.Edit{Key: []byte(k), Value: e.val, Delete: e.val == nil})
	}
	slices.SortFunc(edits, func(a, b prolly.Edit) int { return bytes.Compare(a.Key, b.Key) })
	return edits
}

// Schema returns the schema name as of Root.
func (tx *Txn) Schema(ctx context.Context, name string) (*sqldef.Schema, bool, error) {
	return tx.root.Schema(ctx, name)
}
