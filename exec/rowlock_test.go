package exec

import (
	"context"
	"testing"
	"time"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// TestLockConflicts checks the row and table modes against PostgreSQL's
// conflict tables, and that an owner's own modes never conflict.
func TestLockConflicts(t *testing.T) {
	row := RowLockKey{Space: SpaceRow, Table: "public.t", Key: "k"}
	// rowCompat[a][b]: whether another owner may hold b while a is held.
	rowCompat := map[LockMode][4]bool{
		ForKeyShare:    {true, true, true, false},
		ForShare:       {true, true, false, false},
		ForNoKeyUpdate: {true, false, false, false},
		ForUpdate:      {false, false, false, false},
	}
	for held, compat := range rowCompat {
		for i, ok := range compat {
			l := NewRowLocks()
			if _, got := l.TryLock(1, row, held); !got {
				t.Fatal("first lock refused")
			}
			if _, got := l.TryLock(2, row, LockMode(i+1)); got != ok {
				t.Errorf("row mode %d while %d is held: got %v, want %v", i+1, held, got, ok)
			}
			l.ReleaseAll(2)
			if _, got := l.TryLock(1, row, LockMode(i+1)); !got {
				t.Errorf("owner's own %d after %d refused", i+1, held)
			}
		}
	}
	table := RowLockKey{Space: SpaceTable, Table: "public.t"}
	for a := AccessShareLock; a <= AccessExclusiveLock; a++ {
		for b := AccessShareLock; b <= AccessExclusiveLock; b++ {
			if (tableConflicts[a]&(1<<b) != 0) != (tableConflicts[b]&(1<<a) != 0) {
				t.Errorf("table modes %d and %d conflict one way only", a, b)
			}
		}
	}
	l := NewRowLocks()
	l.TryLock(1, table, RowExclusiveLock)
	if _, ok := l.TryLock(2, table, RowExclusiveLock); !ok {
		t.Error("two ROW EXCLUSIVE locks conflict")
	}
	if _, ok := l.TryLock(3, table, ShareLock); ok {
		t.Error("SHARE granted beside ROW EXCLUSIVE")
	}
	if l.StrongTableLocks() {
		t.Error("ROW EXCLUSIVE counted as a strong table lock")
	}
	l.ReleaseAll(1)
	l.ReleaseAll(2)
	l.TryLock(3, table, AccessExclusiveLock)
	l.TryLock(3, table, ShareLock)
	if !l.StrongTableLocks() {
		t.Error("ACCESS EXCLUSIVE not counted as a strong table lock")
	}
	l.ReleaseAll(3)
	if l.StrongTableLocks() {
		t.Error("strong table locks left after their release")
	}
}

// TestDeadlockTimeout: the waiter whose deadlock_timeout runs out first
// is the victim; the other keeps waiting and gets its lock once the
// victim's locks are released. Two upgrades of one lock fail at once.
func TestDeadlockTimeout(t *testing.T) {
	ctx := context.Background()
	l := NewRowLocks()
	k1 := RowLockKey{Space: SpaceRow, Key: "1"}
	k2 := RowLockKey{Space: SpaceRow, Key: "2"}
	l.TryLock(1, k1, ForUpdate)
	l.TryLock(2, k2, ForUpdate)
	first := make(chan error, 1)
	go func() {
		_, _, err := l.Lock(ctx, 1, k2, ForUpdate, time.Hour)
		first <- err
	}()
	for len(l.WaitsFor(1)) == 0 {
		time.Sleep(time.Millisecond)
	}
	_, _, err := l.Lock(ctx, 2, k1, ForUpdate, 10*time.Millisecond)
	if pgerr.CodeOf(err) != pgerr.DeadlockDetected {
		t.Fatalf("closing the cycle: %v, want 40P01", err)
	}
	l.ReleaseAll(2)
	if err := <-first; err != nil {
		t.Fatalf("the other waiter: %v", err)
	}

	tk := RowLockKey{Space: SpaceTable, Table: "public.t"}
	l.TryLock(3, tk, AccessShareLock)
	l.TryLock(4, tk, AccessShareLock)
	go func() { _, _, err := l.Lock(ctx, 3, tk, AccessExclusiveLock, time.Hour); first <- err }()
	for len(l.WaitsFor(3)) == 0 {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	if _, _, err := l.Lock(ctx, 4, tk, AccessExclusiveLock, time.Hour); pgerr.CodeOf(err) != pgerr.DeadlockDetected || time.Since(start) > time.Second {
		t.Fatalf("second upgrade: %v after %v, want 40P01 at once", err, time.Since(start))
	}
	l.ReleaseAll(4)
	if err := <-first; err != nil {
		t.Fatalf("first upgrade: %v", err)
	}
}

// TestLockQueue checks that waiters for a row are served in the order they
// began to wait, and that a waiter already holding a lock on the row goes
// ahead of the waiters its lock blocks (no deadlock on the queue), as in
// PostgreSQL's lock manager.
func TestLockQueue(t *testing.T) {
	ctx := context.Background()
	row := RowLockKey{Space: SpaceRow, Table: "public.t", Key: "k"}
	waitFor := func(l *RowLocks, owner uint64) {
		for deadline := time.Now().Add(5 * time.Second); len(l.WaitsFor(owner)) == 0; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("owner %d never waited", owner)
			}
		}
	}
	lock := func(l *RowLocks, owner uint64, mode LockMode, got chan<- uint64) {
		if _, _, err := l.Lock(ctx, owner, row, mode, time.Minute); err != nil {
			t.Error(err)
		}
		got <- owner
	}
	for range 20 { // whichever goroutine wakes first, the order holds
		l := NewRowLocks()
		l.TryLock(1, row, ForShare)
		got := make(chan uint64, 2)
		go lock(l, 2, ForUpdate, got)
		waitFor(l, 2)
		go lock(l, 3, ForUpdate, got)
		waitFor(l, 3)
		l.ReleaseAll(1)
		if first := <-got; first != 2 {
			t.Fatalf("owner %d got the lock first, want 2 (the first waiter)", first)
		}
		l.ReleaseAll(2)
		<-got
	}

	// 1 and 3 share the row; 2 waits to update it; 3 then wants to
	// update it too: 3 goes ahead of 2, which waits for 3's share anyway,
	// and gets the lock once 1 is gone.
	l := NewRowLocks()
	l.TryLock(1, row, ForShare)
	got := make(chan uint64, 2)
	go lock(l, 2, ForUpdate, got)
	waitFor(l, 2)
	l.TryLock(3, row, ForShare)
	go lock(l, 3, ForUpdate, got)
	waitFor(l, 3)
	l.ReleaseAll(1)
	if first := <-got; first != 3 {
		t.Fatalf("owner %d got the lock first, want 3 (which held a share of it)", first)
	}
	l.ReleaseAll(3)
	<-got
}
