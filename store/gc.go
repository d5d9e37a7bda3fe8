package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/dgraph-io/badger/v4"
	"go.uber.org/zap"
)

// Garbage collection: BeginGC raises a write barrier, the caller marks the
// chunks it knows to be live, and GC.Sweep deletes every other chunk that
// the barrier did not see written; ref updates are marked (and refused if
// they reach a removed chunk) from BeginGC on. The package doc states the
// protocol as invariant 9; this file implements it for DB and Memory.

// ErrGCRunning is returned by BeginGC while another collection of the same
// store is in progress.
var ErrGCRunning = errors.New("store: a garbage collection is already running")

// GCStats counts what one collection kept and removed. Byte counts are the
// chunks' lengths; DiskBefore and DiskAfter are what the store's directory
// occupies on disk (allocated blocks, as du counts them), before the sweep
// and after the space was reclaimed (DB only; zero for Memory).
type GCStats struct {
	ChunksKept, ChunksRemoved uint64
	BytesKept, BytesRemoved   uint64
	DiskBefore, DiskAfter     int64
	// Sweep is the time spent deleting, Reclaim the time spent compacting
	// Badger and rewriting its value log afterwards.
	Sweep, Reclaim time.Duration
}

// GC is a garbage collection in progress, from BeginGC to Sweep or Abort.
// While it lasts, the store records every address passed to Put (also
// those Put skips because the chunk is cached or buffered) and every ref
// target, which Sweep keeps, and passes every ref update to Mark.Refs. A GC is used by one goroutine; the store
// stays safe for concurrent use meanwhile.
type GC struct {
	c     collector
	bar   *barrier
	prev  *barrier // the validator that stood before, restored by Abort
	mark  Mark
	swept bool // chunks may have been removed: the mark validates from now on
	ended bool
}

// collector is what a store does for a GC it began.
type collector interface {
	sweep(ctx context.Context, g *GC, m Mark) (GCStats, error)
	endGC(g *GC)
}

// Mark is the caller's mark phase, as Sweep uses it.
type Mark struct {
	// Live reports whether the mark reached a chunk. It is called from
	// Sweep's goroutine and, concurrently, may see Refs add to the set.
	Live func(Address) bool
	// Refs marks everything the new values of updates reach (the zero
	// address: a deleted ref, reaches nothing), so that Live reports it
	// from then on. From BeginGC until the GC ends, UpdateRefs calls it
	// with each call's updates before it applies them, holding the
	// barrier (no chunk is deleted meanwhile; calls are serialised), and
	// concurrently with the caller's own mark. If part of what they reach is gone (a writer
	// built on a chunk the sweep removed), it must fail, with an error
	// wrapping ErrDanglingRef, and add nothing to the live set: the
	// UpdateRefs call then fails with that error and changes nothing. Refs
	// may read the store; it must not write it.
	Refs func(ctx context.Context, updates []RefUpdate) error
	// Quiesced says that no writer holds chunks from before the GC once
	// it ends (the caller kept every other writer out while it ran): no
	// validator stays up after the sweep, and ref updates go back to
	// costing nothing extra.
	Quiesced bool
}

// Sweep deletes every chunk of the store that the mark's Live rejects and
// that the barrier did not record, then ends the GC (the barrier stops
// recording and goes on validating ref updates) and, for DB, reclaims the
// disk space. Sweep may be called once; after an
// error, some unreachable chunks may remain, never a live one missing.
func (g *GC) Sweep(ctx context.Context) (GCStats, error) {
	if g.ended {
		return GCStats{}, errors.New("store: GC already ended")
	}
	defer g.end()
	return g.c.sweep(ctx, g, g.mark)
}

// Abort ends the GC without deleting anything. It does nothing after Sweep
// or a previous Abort.
func (g *GC) Abort() {
	if !g.ended {
		g.end()
	}
}

func (g *GC) end() {
	g.ended = true
	g.c.endGC(g)
}

// barrier records the addresses written and the ref updates made while a
// GC runs. Its mutex is also held by the sweep while it deletes a batch,
// and by the mark of a ref update (Mark.Refs), so that recording an
// address, marking a ref's closure, and deleting a chunk never
// interleave: a Put either records first (and the chunk is kept) or waits
// for the batch and then finds the chunk neither cached nor on disk (and
// writes it again); a ref update either marks its closure before a batch
// (which then keeps it) or after (and finds any deleted chunk missing).
//
// Once a sweep has removed chunks, the barrier stays up without
// recording: its mark (the last GC's, whose live set grows with what it
// validates) goes on checking every ref update until the next GC, since a
// writer may have built, before or during that GC, on chunks it removed.
type barrier struct {
	mu       sync.Mutex
	recorded map[Address]struct{} // nil: no GC running, the barrier only validates
	mark     func(ctx context.Context, updates []RefUpdate) error
}

// newBarrier returns the barrier of a GC that marks ref updates with mark.
func newBarrier(mark func(context.Context, []RefUpdate) error) *barrier {
	return &barrier{recorded: make(map[Address]struct{}), mark: mark}
}

// validator returns a barrier that checks ref updates with mark and
// records nothing.
func validator(mark func(context.Context, []RefUpdate) error) *barrier {
	return &barrier{mark: mark}
}

// collecting reports whether a GC is running (and Puts must be recorded).
func (b *barrier) collecting() bool { return b.recorded != nil }

// record adds a to the recorded set, waiting for a sweep batch in progress.
func (b *barrier) record(a Address) {
	b.mu.Lock()
	b.recorded[a] = struct{}{}
	b.mu.Unlock()
}

// recordRefs marks what the new values of updates reach and records them;
// an error of the mark (part of what they reach was removed) fails the ref
// update.
func (b *barrier) recordRefs(ctx context.Context, updates []RefUpdate) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.mark(ctx, updates); err != nil {
		return err
	}
	if b.recorded != nil {
		for _, u := range updates {
			if !u.New.IsZero() {
				b.recorded[u.New] = struct{}{}
			}
		}
	}
	return nil
}

// gcBatch is how many unmarked chunks DB's sweep deletes in one Badger
// write batch, holding the barrier's lock (which Puts wait for) meanwhile.
const gcBatch = 1024

// gcDiscardRatio is the share of garbage past which a value-log file is
// rewritten by the reclaim phase: a file with less stays as it is.
const gcDiscardRatio = 0.05

// BeginGC starts a garbage collection: it raises the write barrier and then
// checkpoints, so that Badger holds every chunk written before the barrier
// and the journal and write buffer hold only chunks the barrier recorded.
// It fails with ErrGCRunning if another GC of this store is in progress.
// The caller then marks the live chunks (m.Live reports them) and calls
// Sweep, or Abort; every ref update from now on goes through m.Refs.
func (db *DB) BeginGC(ctx context.Context, m Mark) (*GC, error) {
	if !db.gcMu.TryLock() {
		return nil, ErrGCRunning
	}
	db.closeMu.RLock()
	defer db.closeMu.RUnlock()
	if db.closed.Load() {
		db.gcMu.Unlock()
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		db.gcMu.Unlock()
		return nil, err
	}
	bar := newBarrier(m.Refs)
	prev := db.barrier.Load()
	db.setBarrier(bar) // before the checkpoint: invariant 9
	if err := db.checkpoint(true); err != nil {
		db.setBarrier(prev)
		db.gcMu.Unlock()
		return nil, fmt.Errorf("store: beginning GC: %w", err)
	}
	db.log.Info("store: GC began", zap.String("dir", db.dir))
	return &GC{c: db, bar: bar, prev: prev, mark: m}, nil
}

// endGC replaces the GC's barrier by a validator of its mark, or by the
// barrier that stood before if nothing was swept, and lets the next GC
// begin.
func (db *DB) endGC(g *GC) {
	db.setBarrier(g.after())
	db.gcMu.Unlock()
}

// after returns the barrier that stands once g ends.
func (g *GC) after() *barrier {
	switch {
	case g.mark.Quiesced:
		return nil // nobody can have built on what it or an earlier GC removed
	case g.swept:
		return validator(g.mark.Refs)
	}
	return g.prev
}

// setBarrier raises or lowers the barrier, under refMu (see commitRefs).
func (db *DB) setBarrier(b *barrier) {
	db.refMu.Lock()
	db.barrier.Store(b)
	db.refMu.Unlock()
}

// sweep deletes the chunks in Badger that are neither live nor recorded,
// in batches, then lowers the barrier and reclaims the disk space.
func (db *DB) sweep(ctx context.Context, g *GC, m Mark) (GCStats, error) {
	var st GCStats
	st.DiskBefore, _ = DiskUsage(db.dir)
	began := time.Now()
	var (
		next    = []byte{chunkPrefix}
		cands   []candidate
		victims []Address
	)
	for next != nil {
		var err error
		cands, next, err = db.scanChunks(ctx, next, cands[:0], m.Live, &st)
		if err != nil {
			return st, err
		}
		if len(cands) == 0 {
			continue
		}
		g.swept = true
		victims, err = db.deleteBatch(g.bar, m.Live, cands, victims[:0], &st)
		if err != nil {
			return st, err
		}
	}
	// Nothing is deleted past this point: the barrier stops recording.
	db.setBarrier(g.after())
	st.Sweep = time.Since(began)
	db.log.Info("store: GC swept",
		zap.Uint64("chunks_kept", st.ChunksKept), zap.Uint64("bytes_kept", st.BytesKept),
		zap.Uint64("chunks_removed", st.ChunksRemoved), zap.Uint64("bytes_removed", st.BytesRemoved),
		zap.Duration("took", st.Sweep))
	began = time.Now()
	err := db.reclaim(ctx)
	st.Reclaim = time.Since(began)
	st.DiskAfter, _ = DiskUsage(db.dir)
	db.log.Info("store: GC reclaimed disk space", zap.Int64("disk_before", st.DiskBefore),
		zap.Int64("disk_after", st.DiskAfter), zap.Duration("took", st.Reclaim), zap.Error(err))
	return st, err
}

// candidate is a chunk in Badger that the mark did not reach.
type candidate struct {
	addr Address
	size int64
}

// scanChunks reads chunk keys from start on and appends to cands those
// that live rejects, counting the others as kept in st, until it has
// gcBatch candidates; it returns the key to continue from, nil at the end.
// Each call is one read transaction, holding closeMu shared.
func (db *DB) scanChunks(ctx context.Context, start []byte, cands []candidate, live func(Address) bool, st *GCStats) ([]candidate, []byte, error) {
	var next []byte
	err := db.view(ctx, func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{chunkPrefix}})
		defer it.Close()
		n := 0
		for it.Seek(start); it.Valid(); it.Next() {
			if n++; n%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			item := it.Item()
			key := item.Key()
			if len(key) != chunkKeyLen {
				continue // Check reports it; the sweep leaves it alone
			}
			addr := Address(key[1:])
			size := item.ValueSize()
			if live(addr) {
				st.ChunksKept++
				st.BytesKept += uint64(size)
				continue
			}
			cands = append(cands, candidate{addr, size})
			if len(cands) == gcBatch {
				next = append(append([]byte(nil), key...), 0)
				return nil
			}
		}
		return nil
	})
	return cands, next, err
}

// deleteBatch deletes from Badger the candidates that are still not live
// (a ref update may have marked one since the scan), that the barrier has
// not recorded, and that the write buffer does not hold, and drops them
// from the cache. It holds the barrier's lock and then closeMu shared
// throughout, so no Put, ref update or mark of one can name a victim
// meanwhile (invariant 9). (The barrier first: a ref update's mark holds
// it while it reads the store, which takes closeMu.)
func (db *DB) deleteBatch(bar *barrier, live func(Address) bool, cands []candidate, victims []Address, st *GCStats) ([]Address, error) {
	bar.mu.Lock()
	defer bar.mu.Unlock()
	db.closeMu.RLock()
	defer db.closeMu.RUnlock()
	if db.closed.Load() {
		return victims, ErrClosed
	}
	wb := db.newWriteBatch()
	defer wb.Cancel()
	keys := make([]byte, 0, len(cands)*chunkKeyLen)
	for _, c := range cands {
		if _, ok := bar.recorded[c.addr]; ok || live(c.addr) {
			st.ChunksKept++
			st.BytesKept += uint64(c.size)
			continue
		}
		if _, ok, _ := db.pending.get(c.addr); ok {
			// Put before the barrier rose, after BeginGC's checkpoint took
			// the buffer: the flush to come writes it again.
			st.ChunksKept++
			st.BytesKept += uint64(c.size)
			continue
		}
		off := len(keys)
		keys = append(keys, chunkPrefix)
		keys = append(keys, c.addr[:]...)
		if err := wb.Delete(keys[off : off+chunkKeyLen : off+chunkKeyLen]); err != nil {
			return victims, fmt.Errorf("store: GC: deleting: %w", err)
		}
		victims = append(victims, c.addr)
		st.ChunksRemoved++
		st.BytesRemoved += uint64(c.size)
	}
	if err := wb.Flush(); err != nil {
		return victims, fmt.Errorf("store: GC: deleting %d chunks: %w", len(victims), err)
	}
	// A read that began before the deletes and caches what it read must
	// not cache a victim after it left the cache (readChunk).
	db.sweeps.Add(1)
	for _, a := range victims {
		db.cache.remove(a)
	}
	return victims, nil
}

// reclaim makes Badger give back the space of the deleted chunks. Deleting
// a key writes a tombstone; the value's bytes go only when a compaction
// drops the tombstone with the value it shadows (counting them as garbage
// of their value-log file) and a value-log GC then rewrites the file's
// live values elsewhere and removes the file. Badger never rewrites the
// value-log file it is writing, and has no call that flushes the memtable
// holding the tombstones, so reclaim reopens Badger (Close flushes the
// memtables; Open starts a new value-log file), flattens the LSM tree into
// one level, and runs the value-log GC until no file has more than
// gcDiscardRatio of garbage. Badger deletes a rewritten file without
// syncing what it moved, so the value-log GC runs on a Badger reopened
// with SyncWrites, and reclaim reopens it once more without.
func (db *DB) reclaim(ctx context.Context) error {
	if err := db.reopenBadger(true); err != nil {
		return err
	}
	err := db.compactAndCollect(ctx)
	if rerr := db.reopenBadger(false); rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

// compactAndCollect flattens Badger's LSM tree and runs its value-log GC
// until it has nothing to rewrite; it holds closeMu shared.
func (db *DB) compactAndCollect(ctx context.Context) error {
	db.closeMu.RLock()
	defer db.closeMu.RUnlock()
	if db.closed.Load() {
		return ErrClosed
	}
	if err := db.bdb.Flatten(2); err != nil {
		return fmt.Errorf("store: GC: compacting: %w", err)
	}
	for rewrites := 0; ; rewrites++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := db.bdb.RunValueLogGC(gcDiscardRatio)
		if errors.Is(err, badger.ErrNoRewrite) {
			db.log.Debug("store: GC: value log collected", zap.Int("files_rewritten", rewrites))
			return nil
		}
		if err != nil {
			return fmt.Errorf("store: GC: collecting the value log: %w", err)
		}
	}
}

// reopenBadger closes Badger and opens it again, with SyncWrites as given;
// it checkpoints first and empties the journal's preallocated space, which
// may have grown with the garbage. It holds closeMu exclusively, so every
// call that touches Badger waits (cache hits do not). If Badger fails to
// open again, the store is closed.
func (db *DB) reopenBadger(syncWrites bool) error {
	db.closeMu.Lock()
	defer db.closeMu.Unlock()
	if db.closed.Load() {
		return ErrClosed
	}
	if err := db.checkpoint(true); err != nil {
		return fmt.Errorf("store: GC: %w", err)
	}
	db.journalMu.Lock()
	err := db.journal.shrink()
	db.journalMu.Unlock()
	if err != nil {
		db.log.Warn("store: GC: shrinking the journal", zap.Error(err))
	}
	if err := db.bdb.Close(); err != nil {
		db.closed.Store(true)
		_ = db.journal.close()
		return fmt.Errorf("store: GC: closing Badger: %w", err)
	}
	o := db.bopts
	o.SyncWrites = syncWrites
	bdb, err := badger.OpenManaged(o)
	if err != nil {
		db.closed.Store(true)
		_ = db.journal.close()
		db.log.Error("store: GC: reopening Badger failed; the store is closed", zap.String("dir", db.dir), zap.Error(err))
		return fmt.Errorf("store: GC: reopening %s: %w", db.dir, err)
	}
	bdb.SetDiscardTs(db.badgerTs.Load()) // Badger does not keep it across opens
	db.bdb = bdb
	return nil
}

// DiskUsage returns the bytes the files under dir occupy on disk: their
// allocated blocks, as du counts them (a sparse file counts only what was
// written).
func DiskUsage(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if s, ok := info.Sys().(*syscall.Stat_t); ok {
			total += s.Blocks * 512
		} else {
			total += info.Size()
		}
		return nil
	})
	return total, err
}

// BeginGC starts a garbage collection of the in-memory store; see
// DB.BeginGC. Memory needs no checkpoint: its chunks are all in one map.
func (m *Memory) BeginGC(ctx context.Context, mark Mark) (*GC, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	if m.gc != nil && m.gc.collecting() {
		return nil, ErrGCRunning
	}
	g := &GC{c: m, bar: newBarrier(mark.Refs), prev: m.gc, mark: mark}
	m.gc = g.bar
	return g, nil
}

// sweep deletes every chunk neither live nor recorded: it lists the
// chunks, asks Live without a lock, and deletes, holding the barrier and
// then the store's lock, those still not live nor recorded.
func (m *Memory) sweep(ctx context.Context, g *GC, mark Mark) (GCStats, error) {
	var st GCStats
	began := time.Now()
	m.mu.RLock()
	addrs := make([]Address, 0, len(m.chunks))
	for a := range m.chunks {
		addrs = append(addrs, a)
	}
	m.mu.RUnlock()
	var dead []Address
	for _, a := range addrs {
		if !mark.Live(a) {
			dead = append(dead, a)
		}
	}
	g.bar.mu.Lock()
	defer g.bar.mu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return st, ErrClosed
	}
	g.swept = true
	for _, a := range dead {
		if _, ok := g.bar.recorded[a]; ok || mark.Live(a) {
			continue
		}
		st.ChunksRemoved++
		st.BytesRemoved += uint64(len(m.chunks[a]))
		delete(m.chunks, a)
	}
	for _, c := range m.chunks {
		st.ChunksKept++
		st.BytesKept += uint64(len(c))
	}
	st.Sweep = time.Since(began)
	return st, nil
}

// endGC replaces the barrier as DB's does.
func (m *Memory) endGC(g *GC) {
	m.mu.Lock()
	m.gc = g.after()
	m.mu.Unlock()
}
