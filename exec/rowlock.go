package exec

import (
	"context"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// RowLocks is the lock table of an engine's transactions: the row locks
// PostgreSQL takes for UPDATE, DELETE and SELECT ... FOR UPDATE/NO KEY
// UPDATE/SHARE/KEY SHARE, the table locks of LOCK TABLE and the advisory
// locks, each in PostgreSQL's modes with PostgreSQL's conflicts. A
// transaction holds its locks until it ends; another that asks for a
// conflicting mode waits. One RowLocks serves every session of an engine;
// locks live in memory only, since they matter only between running
// transactions.
//
// Invariants:
//  1. An owner (a transaction's or a session's id) holds a set of modes on
//     a key; two owners never hold conflicting modes on one key, and an
//     owner's own modes never conflict with each other.
//  2. Every lock an owner holds is released by ReleaseAll, which the
//     session calls once the transaction's commit is durable (or it rolled
//     back): a waiter that then reads the branch sees the holder's change.
//  3. A waiter that has waited deadlock_timeout looks for a cycle of
//     waiters through itself and fails with 40P01 if there is one; every
//     cycle has such a waiter, so none goes unnoticed, and the victim is
//     the first whose timeout runs out, as in PostgreSQL. A waiter whose
//     context ends stops waiting.
type RowLocks struct {
	mu      sync.Mutex
	held    map[RowLockKey]*lockEntry
	owned   map[uint64][]RowLockKey
	waiting map[uint64]lockWant // owner → the lock it waits for
	waitSeq uint64              // the last lockWant.seq given
	// moving holds the rows each owner deleted or moved to another
	// partition (an UPDATE of the partition key); once its commit is
	// published, moved holds them, so that a transaction that waited for
	// such a row's lock fails with 40001 (a moved row) rather than taking
	// the row for deleted, or takes a row the owner inserted under a key it
	// deleted for another row, not a new version of the one it waited
	// for, as in PostgreSQL. moved is bounded by maxMoved.
	moving map[uint64][]movedRow
	moved  map[RowLockKey]movedKind
	// grants logs, per owner, each mode granted it in order, so that a
	// rollback to a savepoint gives back what was taken after it.
	grants map[uint64][]lockWant
	// strong counts the table locks held in SHARE mode or stronger, the
	// only ones a query's ACCESS SHARE or ROW EXCLUSIVE can wait for.
	strong atomic.Int64
}

// strongModes are the table modes from SHARE up (bit i for mode i).
const strongModes = 1<<ShareLock | 1<<ShareRowExclusiveLock | 1<<ExclusiveLock | 1<<AccessExclusiveLock

// StrongTableLocks reports whether some transaction holds a table lock a
// query's own table lock would conflict with: without one, a statement
// that ends with its transaction need not take its table locks.
func (l *RowLocks) StrongTableLocks() bool { return l.strong.Load() > 0 }

// maxMoved bounds the moved rows remembered; past it the oldest go (a
// waiter for one of them then takes the row for deleted, or a row
// inserted again under its key for its new version).
const maxMoved = 10000

// movedKind says what became of a row its lock's holder changed.
type movedKind uint8

const (
	rowDeleted  movedKind = iota + 1 // deleted (and perhaps a new row inserted under its key)
	rowMigrated                      // moved to another partition
)

// movedRow is a row an owner deleted or moved, published at its commit.
type movedRow struct {
	key  RowLockKey
	kind movedKind
}

// LockSpace says what a lock key names, which decides the modes' conflicts.
type LockSpace uint8

const (
	SpaceRow      LockSpace = iota // a table's row: ForKeyShare ... ForUpdate
	SpaceTable                     // a table (LOCK TABLE): AccessShare ... AccessExclusive
	SpaceAdvisory                  // an advisory lock: ShareLock or ExclusiveLock
)

// RowLockKey names a lockable object: a row by its table (schema + "." +
// name) on a branch of a database and its primary-map key; a table by its
// name with Key empty; an advisory lock by its key.
type RowLockKey struct {
	Space                   LockSpace
	Database, Branch, Table string
	Key                     string
}

// LockMode is a lock's strength; its meaning depends on the key's space.
type LockMode uint8

// Row lock modes, weakest first.
const (
	ForKeyShare LockMode = iota + 1
	ForShare
	ForNoKeyUpdate
	ForUpdate
)

// Table lock modes (also advisory: ShareLock and ExclusiveLock), weakest
// first, numbered as PostgreSQL's lockdefs.h.
const (
	AccessShareLock LockMode = iota + 1
	RowShareLock
	RowExclusiveLock
	ShareUpdateExclusiveLock
	ShareLock
	ShareRowExclusiveLock
	ExclusiveLock
	AccessExclusiveLock
)

// rowConflicts[m] is the set (bit i for mode i) of row modes m conflicts
// with (PostgreSQL's tupleLockExtraInfo / MultiXactStatus table).
var rowConflicts = [...]uint16{
	ForKeyShare:    1 << ForUpdate,
	ForShare:       1<<ForNoKeyUpdate | 1<<ForUpdate,
	ForNoKeyUpdate: 1<<ForShare | 1<<ForNoKeyUpdate | 1<<ForUpdate,
	ForUpdate:      1<<ForKeyShare | 1<<ForShare | 1<<ForNoKeyUpdate | 1<<ForUpdate,
}

// tableConflicts[m] is the set of table modes m conflicts with
// (PostgreSQL's LockConflicts).
var tableConflicts = [...]uint16{
	AccessShareLock:          1 << AccessExclusiveLock,
	RowShareLock:             1<<ExclusiveLock | 1<<AccessExclusiveLock,
	RowExclusiveLock:         1<<ShareLock | 1<<ShareRowExclusiveLock | 1<<ExclusiveLock | 1<<AccessExclusiveLock,
	ShareUpdateExclusiveLock: 1<<ShareUpdateExclusiveLock | 1<<ShareLock | 1<<ShareRowExclusiveLock | 1<<ExclusiveLock | 1<<AccessExclusiveLock,
	ShareLock:                1<<RowExclusiveLock | 1<<ShareUpdateExclusiveLock | 1<<ShareRowExclusiveLock | 1<<ExclusiveLock | 1<<AccessExclusiveLock,
	ShareRowExclusiveLock:    1<<RowExclusiveLock | 1<<ShareUpdateExclusiveLock | 1<<ShareLock | 1<<ShareRowExclusiveLock | 1<<ExclusiveLock | 1<<AccessExclusiveLock,
	ExclusiveLock:            1<<RowShareLock | 1<<RowExclusiveLock | 1<<ShareUpdateExclusiveLock | 1<<ShareLock | 1<<ShareRowExclusiveLock | 1<<ExclusiveLock | 1<<AccessExclusiveLock,
	AccessExclusiveLock:      0x1fe,
}

// conflicts returns the modes that mode conflicts with in space s.
func conflicts(s LockSpace, mode LockMode) uint16 {
	if s == SpaceRow {
		return rowConflicts[mode]
	}
	return tableConflicts[mode]
}

type lockEntry struct {
	holders map[uint64]uint16 // owner → the modes it holds (bit i for mode i)
	changed chan struct{}     // closed, and replaced, when a holder releases
}

type lockWant struct {
	key  RowLockKey
	mode LockMode
	seq  uint64 // when the wait began: waiters for a key are served in this order
}

// NewRowLocks returns a lock table with no locks.
func NewRowLocks() *RowLocks {
	return &RowLocks{held: map[RowLockKey]*lockEntry{}, owned: map[uint64][]RowLockKey{}, waiting: map[uint64]lockWant{},
		moving: map[uint64][]movedRow{}, moved: map[RowLockKey]movedKind{}, grants: map[uint64][]lockWant{}}
}

// blockers returns the owners other than owner holding modes on e that
// conflict with mode.
func (e *lockEntry) blockers(s LockSpace, owner uint64, mode LockMode) []uint64 {
	var out []uint64
	c := conflicts(s, mode)
	for o, held := range e.holders {
		if o != owner && held&c != 0 {
			out = append(out, o)
		}
	}
	return out
}

// blocked reports whether another owner holds a mode on e that conflicts
// with mode: blockers without the slice, for the path of every lock taken.
func (e *lockEntry) blocked(s LockSpace, owner uint64, mode LockMode) bool {
	c := conflicts(s, mode)
	for o, held := range e.holders {
		if o != owner && held&c != 0 {
			return true
		}
	}
	return false
}

// grant records that owner holds mode on k; the caller holds l.mu and
// checked that nothing conflicts. fresh reports that owner did not already
// hold mode or a stronger one.
func (l *RowLocks) grant(owner uint64, k RowLockKey, e *lockEntry, mode LockMode) (fresh bool) {
	if e == nil {
		e = &lockEntry{holders: map[uint64]uint16{}, changed: make(chan struct{})}
		l.held[k] = e
	}
	held, had := e.holders[owner]
	if !had {
		l.owned[owner] = append(l.owned[owner], k)
	}
	if held&(1<<mode) == 0 {
		l.grants[owner] = append(l.grants[owner], lockWant{key: k, mode: mode})
		if k.Space == SpaceTable && (1<<mode)&strongModes != 0 {
			l.strong.Add(1)
		}
	}
	e.holders[owner] = held | 1<<mode
	return held>>mode == 0
}

// Lock takes mode on k for owner, waiting while other owners hold
// conflicting modes. fresh reports that owner did not hold mode or a
// stronger one before the call; waited, that it had to wait for another
// owner's transaction to end. After deadlockTimeout of waiting it checks
// for a deadlock (40P01).
func (l *RowLocks) Lock(ctx context.Context, owner uint64, k RowLockKey, mode LockMode, deadlockTimeout time.Duration) (fresh, waited bool, err error) {
	var timer <-chan time.Time
	for {
		l.mu.Lock()
		e := l.held[k]
		// Once waiting, owner is served in turn: a waiter for a
		// conflicting mode that began to wait first goes before it, as in
		// PostgreSQL's lock queue; otherwise whoever woke first after a
		// release would win, and a job taken in FIFO order could go to a
		// later comer.
		ahead := waited && len(l.ahead(owner, k, mode)) > 0
		if !ahead && (e == nil || !e.blocked(k.Space, owner, mode)) {
			if !waited && l.moved[k] != 0 {
				delete(l.moved, k) // a new row under the key: the move is old news
			}
			fresh = l.grant(owner, k, e, mode)
			l.leaveQueue(owner, k)
			l.mu.Unlock()
			return fresh, waited, nil
		}
		if timer == nil && e != nil && l.simpleDeadlock(owner, k, e, mode) {
			l.mu.Unlock()
			return false, waited, errDeadlock()
		}
		if _, ok := l.waiting[owner]; !ok {
			l.waitSeq++
			l.waiting[owner] = lockWant{k, mode, l.waitSeq}
		}
		if e == nil {
			// Blocked by the queue alone: an entry without holders gives
			// the waiters a channel to wait on.
			e = &lockEntry{holders: map[uint64]uint16{}, changed: make(chan struct{})}
			l.held[k] = e
		}
		changed := e.changed
		l.mu.Unlock()
		if timer == nil {
			t := time.NewTimer(max(deadlockTimeout, time.Millisecond))
			defer t.Stop()
			timer = t.C
		}
		select {
		case <-changed:
		case <-ctx.Done():
		case <-timer:
			l.mu.Lock()
			cycle := l.inCycle(owner)
			if cycle {
				l.leaveQueue(owner, k)
			}
			l.mu.Unlock()
			if cycle {
				return false, waited, errDeadlock()
			}
			timer = make(chan time.Time) // checked once, as PostgreSQL does
			continue
		}
		if err := ctx.Err(); err != nil {
			l.mu.Lock()
			l.leaveQueue(owner, k)
			l.mu.Unlock()
			return false, waited, err
		}
		waited = true
	}
}

// ahead returns the owners waiting for k since before owner, for modes
// that conflict with mode. A waiter that owner's own locks on k block
// waits for owner anyway: owner goes before it, as PostgreSQL's ProcSleep
// puts a process ahead of the waiters its locks conflict with (else two
// upgrades of a shared lock would deadlock on the queue). The caller
// holds l.mu.
func (l *RowLocks) ahead(owner uint64, k RowLockKey, mode LockMode) []uint64 {
	me, ok := l.waiting[owner]
	if !ok {
		return nil
	}
	var mine uint16
	if e := l.held[k]; e != nil {
		mine = e.holders[owner]
	}
	var out []uint64
	c := conflicts(k.Space, mode)
	for o, w := range l.waiting {
		if o != owner && w.key == k && w.seq < me.seq && c&(1<<w.mode) != 0 && conflicts(k.Space, w.mode)&mine == 0 {
			out = append(out, o)
		}
	}
	return out
}

// leaveQueue ends owner's wait for k, if it waited, and wakes the other
// waiters, which may have waited for their turn behind it. The caller
// holds l.mu.
func (l *RowLocks) leaveQueue(owner uint64, k RowLockKey) {
	if _, ok := l.waiting[owner]; !ok {
		return
	}
	delete(l.waiting, owner)
	e := l.held[k]
	if e == nil {
		return
	}
	close(e.changed)
	if len(e.holders) == 0 {
		delete(l.held, k)
		return
	}
	e.changed = make(chan struct{})
}

func errDeadlock() error {
	return pgerr.New(pgerr.DeadlockDetected, "deadlock detected").
		WithDetail("Two transactions wait for locks each other holds.").
		WithHint("See server log for query details.")
}

// simpleDeadlock reports whether owner, about to wait for mode on k,
// holds a mode on k that another waiter for k waits for, while that
// waiter holds one owner would wait for: two upgrades of one lock, which
// PostgreSQL fails at once (ProcSleep's early deadlock) rather than after
// deadlock_timeout. The caller holds l.mu.
func (l *RowLocks) simpleDeadlock(owner uint64, k RowLockKey, e *lockEntry, mode LockMode) bool {
	mine := e.holders[owner]
	if mine == 0 {
		return false
	}
	for o, w := range l.waiting {
		if o != owner && w.key == k && conflicts(k.Space, w.mode)&mine != 0 && conflicts(k.Space, mode)&e.holders[o] != 0 {
			return true
		}
	}
	return false
}

// inCycle reports whether owner's wait leads, through the owners it waits
// for, back to owner. The caller holds l.mu.
func (l *RowLocks) inCycle(owner uint64) bool {
	seen := map[uint64]bool{}
	var visit func(o uint64) bool
	visit = func(o uint64) bool {
		w, ok := l.waiting[o]
		if !ok || seen[o] {
			return false
		}
		seen[o] = true
		var blockers []uint64
		if e := l.held[w.key]; e != nil {
			blockers = e.blockers(w.key.Space, o, w.mode)
		}
		for _, b := range append(blockers, l.ahead(o, w.key, w.mode)...) {
			if b == owner || visit(b) {
				return true
			}
		}
		return false
	}
	return visit(owner)
}

// TryLock takes mode on k for owner if no other owner holds a conflicting
// mode, without waiting (NOWAIT, SKIP LOCKED). ok reports whether owner
// holds it now.
func (l *RowLocks) TryLock(owner uint64, k RowLockKey, mode LockMode) (fresh, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.held[k]
	if e != nil && e.blocked(k.Space, owner, mode) {
		return false, false
	}
	return l.grant(owner, k, e, mode), true
}

// WaitsFor returns the owners holding the lock owner waits for, in modes
// that conflict with the one it wants, and those waiting for it ahead of
// owner for such modes; none when it waits for nothing.
func (l *RowLocks) WaitsFor(owner uint64) []uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, ok := l.waiting[owner]
	if !ok {
		return nil
	}
	var out []uint64
	if e := l.held[w.key]; e != nil {
		out = e.blockers(w.key.Space, owner, w.mode)
	}
	// Waiters ahead in the queue block it too, as pg_blocking_pids
	// counts them in PostgreSQL.
	for _, o := range l.ahead(owner, w.key, w.mode) {
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// LockInfo is one granted or awaited lock, as pg_locks shows it.
type LockInfo struct {
	Key     RowLockKey
	Owner   uint64
	Mode    LockMode
	Granted bool
}

// Snapshot returns every lock held or awaited now.
func (l *RowLocks) Snapshot() []LockInfo {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []LockInfo
	for k, e := range l.held {
		for o, modes := range e.holders {
			for m := LockMode(1); m <= AccessExclusiveLock; m++ {
				if modes&(1<<m) != 0 {
					out = append(out, LockInfo{Key: k, Owner: o, Mode: m, Granted: true})
				}
			}
		}
	}
	for o, w := range l.waiting {
		out = append(out, LockInfo{Key: w.key, Owner: o, Mode: w.mode})
	}
	return out
}

// Release releases the modes owner holds on k, waking its waiters; false
// when owner holds none.
func (l *RowLocks) Release(owner uint64, k RowLockKey) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.held[k]
	if e == nil {
		return false
	}
	if _, ok := e.holders[owner]; !ok {
		return false
	}
	l.drop(owner, k, e)
	keys := l.owned[owner]
	if i := slices.Index(keys, k); i >= 0 {
		l.owned[owner] = slices.Delete(keys, i, i+1)
	}
	return true
}

// drop removes owner from e's holders and wakes e's waiters; the caller
// holds l.mu.
func (l *RowLocks) drop(owner uint64, k RowLockKey, e *lockEntry) {
	if k.Space == SpaceTable {
		l.strong.Add(-int64(bits.OnesCount16(e.holders[owner] & strongModes)))
	}
	delete(e.holders, owner)
	close(e.changed)
	if len(e.holders) == 0 {
		delete(l.held, k)
		return
	}
	e.changed = make(chan struct{})
}

// MarkMoved records that owner moved the row k names to another
// partition; PublishMoved makes that known once owner's commit is.
func (l *RowLocks) MarkMoved(owner uint64, k RowLockKey) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.moving[owner] = append(l.moving[owner], movedRow{k, rowMigrated})
}

// MarkDeleted records that owner deleted the row k names; PublishMoved
// makes that known once owner's commit is.
func (l *RowLocks) MarkDeleted(owner uint64, k RowLockKey) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.moving[owner] = append(l.moving[owner], movedRow{k, rowDeleted})
}

// PublishMoved makes the deletes and moves of owner, which committed,
// known to the transactions waiting for those rows; call it before
// ReleaseAll. A row moved is a row deleted too: the move, marked after
// the delete, is what stays.
func (l *RowLocks) PublishMoved(owner uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range l.moving[owner] {
		if len(l.moved) >= maxMoved {
			clear(l.moved)
		}
		l.moved[m.key] = m.kind
	}
}

// Moved reports whether a committed transaction moved the row k names to
// another partition.
func (l *RowLocks) Moved(k RowLockKey) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.moved[k] == rowMigrated
}

// Deleted reports whether a committed transaction deleted the row k names
// (a row under k now is another one, which it or a later transaction
// inserted).
func (l *RowLocks) Deleted(k RowLockKey) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.moved[k] == rowDeleted
}

// LockMark returns a mark of the locks owner holds now (a savepoint's).
func (l *RowLocks) LockMark(owner uint64) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.grants[owner])
}

// RollbackLocks gives back the modes owner was granted since mark, waking
// their waiters, as a rollback to a savepoint releases the locks its
// subtransaction took in PostgreSQL.
func (l *RowLocks) RollbackLocks(owner uint64, mark int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	log := l.grants[owner]
	if mark >= len(log) {
		return
	}
	for _, g := range slices.Backward(log[mark:]) {
		e := l.held[g.key]
		if e == nil {
			continue
		}
		held := e.holders[owner] &^ (1 << g.mode)
		if g.key.Space == SpaceTable && (1<<g.mode)&strongModes != 0 && e.holders[owner]&(1<<g.mode) != 0 {
			l.strong.Add(-1)
		}
		if held != 0 {
			e.holders[owner] = held
			close(e.changed)
			e.changed = make(chan struct{})
			continue
		}
		l.drop(owner, g.key, e)
		if keys := l.owned[owner]; len(keys) > 0 {
			if i := slices.Index(keys, g.key); i >= 0 {
				l.owned[owner] = slices.Delete(keys, i, i+1)
			}
		}
	}
	l.grants[owner] = log[:mark]
}

// ReleaseAll releases every lock owner holds, waking their waiters.
func (l *RowLocks) ReleaseAll(owner uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.moving, owner)
	delete(l.grants, owner)
	for _, k := range l.owned[owner] {
		if e := l.held[k]; e != nil {
			if _, ok := e.holders[owner]; ok {
				l.drop(owner, k, e)
			}
		}
	}
	delete(l.owned, owner)
}
