package exec

import (
	"context"
	"slices"
	"sync"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// RowLocks are the row locks of an engine's transactions, as PostgreSQL
// takes them for UPDATE and DELETE: a transaction that changes a row holds
// its lock until it ends, and another that wants to change the row waits
// for it. One RowLocks serves every session of an engine; locks live in
// memory only, since they matter only between running transactions.
//
// Invariants:
//  1. A lock has one holder, a transaction's owner id; a holder asking
//     again gets it at once.
//  2. Every lock an owner holds is released by ReleaseAll, which the
//     session calls once the transaction's commit is durable (or it rolled
//     back): a waiter that then reads the branch sees the holder's change.
//  3. A waiter whose wait would close a cycle of waiters fails at once
//     with 40P01; every cycle is closed by some wait, so none goes
//     unnoticed. A waiter whose context ends stops waiting.
type RowLocks struct {
	mu      sync.Mutex
	held    map[RowLockKey]*rowLock
	owned   map[uint64][]RowLockKey
	waiting map[uint64]uint64 // owner → the owner whose lock it waits for
}

// RowLockKey names a row: its table (schema + "." + name) on a branch of a
// database, and its primary-map key.
type RowLockKey struct {
	Database, Branch, Table string
	Key                     string
}

type rowLock struct {
	owner uint64
	free  chan struct{} // closed when released
}

// NewRowLocks returns a lock table with no locks.
func NewRowLocks() *RowLocks {
	return &RowLocks{held: map[RowLockKey]*rowLock{}, owned: map[uint64][]RowLockKey{}, waiting: map[uint64]uint64{}}
}

// Lock takes the lock on k for owner, waiting while another owner holds
// it. fresh reports that owner did not hold it before the call; waited,
// that it had to wait for another owner's transaction to end.
func (l *RowLocks) Lock(ctx context.Context, owner uint64, k RowLockKey) (fresh, waited bool, err error) {
	for {
		l.mu.Lock()
		rl := l.held[k]
		if rl == nil {
			l.held[k] = &rowLock{owner: owner, free: make(chan struct{})}
			l.owned[owner] = append(l.owned[owner], k)
			l.mu.Unlock()
			return true, waited, nil
		}
		if rl.owner == owner {
			l.mu.Unlock()
			return false, waited, nil
		}
		for o, ok := rl.owner, true; ok; o, ok = l.waiting[o] {
			if o == owner {
				l.mu.Unlock()
				return false, waited, pgerr.New(pgerr.DeadlockDetected, "deadlock detected").
					WithDetail("Two transactions wait for rows each other has locked.").
					WithHint("See server log for query details.")
			}
		}
		l.waiting[owner] = rl.owner
		free := rl.free
		l.mu.Unlock()
		select {
		case <-free:
		case <-ctx.Done():
		}
		l.mu.Lock()
		delete(l.waiting, owner)
		l.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return false, waited, err
		}
		waited = true
	}
}

// TryLock takes the lock on k for owner if no other owner holds it, without
// waiting (NOWAIT, SKIP LOCKED). ok reports whether owner holds it now.
func (l *RowLocks) TryLock(owner uint64, k RowLockKey) (fresh, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rl := l.held[k]
	switch {
	case rl == nil:
		l.held[k] = &rowLock{owner: owner, free: make(chan struct{})}
		l.owned[owner] = append(l.owned[owner], k)
		return true, true
	case rl.owner == owner:
		return false, true
	}
	return false, false
}

// WaitsFor returns the owner whose lock owner waits for, 0 when it waits
// for none.
func (l *RowLocks) WaitsFor(owner uint64) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waiting[owner]
}

// Holder returns the owner holding the lock on k, 0 for none.
func (l *RowLocks) Holder(k RowLockKey) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if rl := l.held[k]; rl != nil {
		return rl.owner
	}
	return 0
}

// Release releases one lock owner holds, waking its waiters; false when
// owner does not hold it.
func (l *RowLocks) Release(owner uint64, k RowLockKey) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	rl := l.held[k]
	if rl == nil || rl.owner != owner {
		return false
	}
	close(rl.free)
	delete(l.held, k)
	keys := l.owned[owner]
	if i := slices.Index(keys, k); i >= 0 {
		l.owned[owner] = slices.Delete(keys, i, i+1)
	}
	return true
}

// ReleaseAll releases every lock owner holds, waking their waiters.
func (l *RowLocks) ReleaseAll(owner uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range l.owned[owner] {
		if rl := l.held[k]; rl != nil && rl.owner == owner {
			close(rl.free)
			delete(l.held, k)
		}
	}
	delete(l.owned, owner)
}
