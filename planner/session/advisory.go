package session

import (
	"fmt"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// Advisory locks (pg_advisory_lock and friends), as PostgreSQL's: locks
// on keys the application chooses, one bigint or two ints, per database,
// kept in the engine's lock table with the row locks (exec.RowLocks), so
// that waits, deadlock detection, lock_timeout-free cancellation and
// pg_blocking_pids work alike. A session-level lock is held by the session
// until it is unlocked as many times as it was taken, or the session ends;
// a transaction-level one (_xact_) until the transaction ends. The _shared
// variants take ShareLock, the others ExclusiveLock.

// The advisory lock functions, with PostgreSQL's signatures: each takes
// one bigint key or two integer ones, and is strict.
func init() {
	keys := [][]uint32{{exec.OIDInt8}, {exec.OIDInt4, exec.OIDInt4}}
	for _, name := range []string{
		"pg_advisory_lock", "pg_advisory_lock_shared", "pg_advisory_xact_lock", "pg_advisory_xact_lock_shared",
		"pg_try_advisory_lock", "pg_try_advisory_lock_shared", "pg_try_advisory_xact_lock", "pg_try_advisory_xact_lock_shared",
		"pg_advisory_unlock", "pg_advisory_unlock_shared",
	} {
		fn, ret := advisoryFunc(name)
		for _, args := range keys {
			registerStrict(name, args, ret, fn)
		}
	}
	// Strict as pg_proc says, though it takes no argument.
	registerStrict("pg_advisory_unlock_all", nil, exec.OIDVoid, func(s *Session, _ *exec.Env, _ []exec.Datum) (exec.Datum, error) {
		s.unlockAdvisoryAll()
		return exec.DText(""), nil
	})
}

// advisoryFunc returns the implementation and result type of the advisory
// lock function name.
func advisoryFunc(name string) (sessionFn, uint32) {
	base := strings.TrimSuffix(name, "_shared")
	if base == "pg_advisory_unlock" {
		return func(s *Session, _ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if !s.unlockAdvisory(s.advisoryKey(a)) {
				s.notice(pgerr.NewWarning(pgerr.Warning, "you don't own a lock of type ExclusiveLock"))
				return exec.DBool(false), nil
			}
			return exec.DBool(true), nil
		}, exec.OIDBool
	}
	xact, try := strings.Contains(base, "xact"), strings.HasPrefix(base, "pg_try")
	mode := exec.ExclusiveLock
	if base != name {
		mode = exec.ShareLock
	}
	ret := exec.OIDVoid
	if try {
		ret = exec.OIDBool
	}
	return func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		got, err := s.lockAdvisory(env, s.advisoryKey(a), mode, xact, try)
		if err != nil || !try {
			return exec.DText(""), err
		}
		return exec.DBool(got), nil
	}, ret
}

// advisoryKey names the lock of an advisory function's key arguments
// (not NULL: the functions are strict).
func (s *Session) advisoryKey(a []exec.Datum) exec.RowLockKey {
	parts := make([]string, len(a))
	for i, d := range a {
		parts[i] = fmt.Sprint(d.I)
	}
	return exec.RowLockKey{Space: exec.SpaceAdvisory, Database: s.repo.Name(), Key: strings.Join(parts, ":")}
}

// lockAdvisory takes an advisory lock for the session or its transaction;
// with try, it does not wait and reports whether it got it.
func (s *Session) lockAdvisory(env *exec.Env, k exec.RowLockKey, mode exec.LockMode, xact, try bool) (bool, error) {
	owner := s.advisoryOwner()
	if xact {
		if s.txn == nil || s.txn.Locks == nil {
			return false, pgerr.New(pgerr.FeatureNotSupported, "transaction-level advisory locks are not available on a read-only revision")
		}
		owner = s.txn.LockOwner
	}
	var fresh, got bool
	if try {
		fresh, got = s.e.locks.TryLock(owner, k, mode)
	} else {
		var err error
		_, deadlock := s.lockTimeouts()
		if fresh, _, err = s.e.locks.Lock(env.Ctx, owner, k, mode, deadlock); err != nil {
			return false, err
		}
		got = true
	}
	if got && !xact {
		if s.advisory == nil {
			s.advisory = map[exec.RowLockKey]int{}
		}
		if fresh {
			s.advisory[k] = 0
		}
		s.advisory[k]++
	}
	return got, nil
}

// unlockAdvisory releases one hold of a session-level advisory lock.
func (s *Session) unlockAdvisory(k exec.RowLockKey) bool {
	n, ok := s.advisory[k]
	if !ok {
		return false
	}
	if n > 1 {
		s.advisory[k] = n - 1
		return true
	}
	delete(s.advisory, k)
	return s.e.locks.Release(s.advisoryOwner(), k)
}

// unlockAdvisoryAll releases the session-level advisory locks.
func (s *Session) unlockAdvisoryAll() {
	if o := s.advOwner.Load(); o != 0 {
		s.e.locks.ReleaseAll(o)
	}
	clear(s.advisory)
}

// advisoryOwner is the owner id of the session's session-level locks.
func (s *Session) advisoryOwner() uint64 {
	if o := s.advOwner.Load(); o != 0 {
		return o
	}
	o := s.e.txnIDs.Add(1)
	s.advOwner.Store(o)
	return o
}
