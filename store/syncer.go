package store

import (
	"sync"
	"sync/atomic"
)

// syncer turns many requests for durability into few fsyncs (group commit).
// Every completed write to Badger takes a ticket from written; a sync
// records in synced the last ticket issued before it began, since those
// writes are all covered by it. A caller whose ticket is already covered
// returns at once; callers that queue behind a running sync are usually
// covered by the next one, which only one of them performs.
type syncer struct {
	mu      sync.Mutex // held while syncing
	written atomic.Uint64
	synced  atomic.Uint64
	fsync   func() error
	// requests and syncs count calls not already covered and fsyncs done.
	requests, syncs atomic.Uint64
}

// wrote records a completed write and returns its ticket.
func (s *syncer) wrote() uint64 { return s.written.Add(1) }

// syncTo returns once every write up to ticket is synced to disk.
func (s *syncer) syncTo(ticket uint64) error {
	if s.synced.Load() >= ticket {
		return nil
	}
	s.requests.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.synced.Load() >= ticket {
		return nil
	}
	covered := s.written.Load()
	s.syncs.Add(1)
	if err := s.fsync(); err != nil {
		return err
	}
	s.synced.Store(covered) // only this goroutine stores, under mu, so synced grows
	return nil
}

// syncAll returns once every write completed before the call is synced.
func (s *syncer) syncAll() error { return s.syncTo(s.written.Load()) }
