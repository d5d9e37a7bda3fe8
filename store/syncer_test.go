package store

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSyncerGroupsAndCovers checks the group-commit contract: every syncTo
// returns after an fsync that began after its write, and concurrent callers
// share fsyncs.
func TestSyncerGroupsAndCovers(t *testing.T) {
	var (
		s       syncer
		fsyncs  atomic.Int64
		started atomic.Uint64 // written count when the latest fsync began
	)
	s.fsync = func() error {
		started.Store(s.written.Load())
		fsyncs.Add(1)
		time.Sleep(2 * time.Millisecond)
		return nil
	}
	const callers = 40
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			ticket := s.wrote()
			if err := s.syncTo(ticket); err != nil {
				t.Error(err)
			}
			if started.Load() < ticket {
				t.Errorf("syncTo(%d) returned, but the last fsync began at %d", ticket, started.Load())
			}
		})
	}
	wg.Wait()
	if n := fsyncs.Load(); n >= callers || n == 0 {
		t.Fatalf("%d fsyncs for %d concurrent callers", n, callers)
	}
	before := fsyncs.Load()
	if err := s.syncAll(); err != nil || fsyncs.Load() != before {
		t.Fatalf("syncAll with nothing new written: %v, %d fsyncs", err, fsyncs.Load()-before)
	}
}
