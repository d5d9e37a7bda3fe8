package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"go.uber.org/zap"
)

// MaxChunkSize is the largest chunk Put accepts, in bytes. Prolly nodes stay
// under 16 KiB; the bound keeps any one chunk far inside a Badger batch.
const MaxChunkSize = 4 << 20

// DefaultCacheBytes is the chunk cache's bound when Options.CacheBytes is 0.
const DefaultCacheBytes = 256 << 20

// readBatch is how many chunks GetMany and HasMany read from Badger in one
// read transaction.
const readBatch = 64

// Options configure Open. The zero value is ready to use.
type Options struct {
	// CacheBytes bounds the chunk cache: the sum of the cached chunks'
	// lengths plus a small overhead per entry. 0 means DefaultCacheBytes; a
	// negative value disables the cache (every Get of a written chunk reads
	// Badger), which benchmarks use to measure cold reads.
	CacheBytes int64
	// Logger receives Badger's warnings and errors and the store's own
	// messages. nil logs nothing.
	Logger *zap.Logger
	// Redo replays the journal's redo records (redo.go); without it,
	// UpdateRefRedo is refused, and Open fails on a journal that holds
	// redo records.
	Redo RedoFunc
}

// DB is a store on disk: chunks and refs in a Badger database, with a chunk
// cache in front and a write buffer behind Put.
//
// DB is safe for concurrent use. Close waits for calls in progress that
// touch Badger; every call that begins after Close fails with ErrClosed.
type DB struct {
	bdb     *badger.DB
	dir     string
	log     *zap.Logger
	cache   *cache
	pending *pending
	syncer  syncer
	stats   counters

	// flushMu serialises flushes of the write buffer.
	flushMu sync.Mutex
	// refMu serialises ref transactions, so that they never conflict with
	// one another inside Badger, and fills of refs.
	refMu sync.Mutex
	refs  refCache
	// dirty holds the refs moved since the last checkpoint, which Badger
	// does not have yet (the journal does); guarded by refMu.
	dirty map[string]refEntry

	// journalMu serialises appends to the journal (journal.go), so that its
	// records are in the order of the calls; it is taken after refMu and
	// flushMu when a call holds them.
	journalMu sync.Mutex
	journal   *journal
	spare     []chunkRecord // scratch for the chunks of one journal append

	// reach, when set (SetReach), finds the fresh chunks a ref update
	// reaches, which are then all that the update journals; gen is the
	// generation Put tags fresh chunks with (Generation, DropFresh).
	reach atomic.Pointer[ReachFunc]
	gen   atomic.Uint64

	// redo replays redo records (Options.Redo); redoRecords counts those
	// the journal holds since its last restart.
	redo        RedoFunc
	redoRecords atomic.Int64
	redoSpills  atomic.Uint64 // spills begun (RedoEpoch); changed under refMu
	// replaying is set while Open replays the journal, alone.
	replaying bool

	// closeMu is held shared by every call that touches Badger or the write
	// buffer, and exclusively by Close. It is never held while a caller's
	// callback runs, so a callback may call the store (or Close it).
	closeMu sync.RWMutex
	// closed is set by Close under closeMu; the cache-hit path of Get reads
	// it without the lock.
	closed atomic.Bool

	// bopts are the options Badger was opened with, for the GC's reopen
	// (gc.go); bdb changes only under closeMu held exclusively.
	bopts badger.Options
	// flushes asks the background flusher (flusher) to write the buffer;
	// closed by Close.
	flushes chan struct{}

	// badgerTs is the commit timestamp of the last write to Badger, which
	// runs in managed mode (see badgerUpdate).
	badgerTs atomic.Uint64
	// gcMu is held for the whole of a garbage collection (one at a time);
	// barrier is the running GC's write barrier, or the last GC's
	// validator of ref updates, nil before any GC (invariant 9); set under
	// refMu; sweeps counts the GC's delete batches, so that a read that
	// began before one does not cache what it deleted (readChunk).
	gcMu    sync.Mutex
	barrier atomic.Pointer[barrier]
	sweeps  atomic.Uint64
}

// Open opens the store in dir, creating it if dir is missing or empty. A
// directory that holds anything other than one of our stores gives an error
// wrapping ErrNotStore; a store of another format version, one wrapping
// ErrFormatVersion; one whose Badger tables fail their checksums, one
// wrapping ErrCorrupt. Badger locks the directory: one DB at a time.
func Open(dir string, opts Options) (*DB, error) {
	return open(dir, opts, nil)
}

// open is Open with a hook that adjusts the Badger options after ours, for
// the benchmarks that compare Badger settings; Open passes nil.
func open(dir string, opts Options, tune func(*badger.Options)) (*DB, error) {
	log := opts.Logger
	if log == nil {
		log = zap.NewNop()
	}
	cacheBytes := opts.CacheBytes
	if cacheBytes == 0 {
		cacheBytes = DefaultCacheBytes
	}
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	bo := badgerOptions(dir, log)
	if tune != nil {
		tune(&bo)
	}
	if err := removeEmptyLogs(dir, log); err != nil {
		return nil, err
	}
	bdb, err := badger.OpenManaged(bo)
	if err != nil {
		// Badger flattens the errors it wraps into text, so a table that
		// fails its checksum is known only by the message of
		// y.ErrChecksumMismatch.
		if strings.Contains(err.Error(), "checksum mismatch") {
			return nil, fmt.Errorf("store: opening %s: %v: %w", dir, err, ErrCorrupt)
		}
		return nil, fmt.Errorf("store: opening %s: %w", dir, err)
	}
	db := &DB{
		bdb:     bdb,
		dir:     dir,
		log:     log,
		cache:   newCache(cacheBytes),
		pending: newPending(),
		bopts:   bo,
		flushes: make(chan struct{}, 1),
		redo:    opts.Redo,
	}
	db.gen.Store(1) // 0 stands for "no writer generation" (WithWriterGeneration)
	db.badgerTs.Store(bdb.MaxVersion())
	bdb.SetDiscardTs(bdb.MaxVersion()) // Badger does not keep it across opens
	if err := db.initFormat(); err != nil {
		_ = bdb.Close()
		return nil, err
	}
	if err := db.openJournal(); err != nil {
		_ = bdb.Close()
		return nil, err
	}
	db.syncer.fsync = db.journal.sync
	go db.flusher()
	log.Debug("store opened", zap.String("dir", dir), zap.Int64("cache_bytes", max(cacheBytes, 0)))
	return db, nil
}

// badgerOptions returns the Badger options for a store in dir. Chunks are
// immutable values of about 4 KiB (16 KiB at most for tree nodes, a few MiB
// at most for anything), written about once, never changed, and deleted only
// by garbage collection (gc.go); refs are few and tiny.
//
// BenchmarkBadgerConfig compares these settings with values kept in the LSM
// tree (with and without Snappy and a block cache). On a shared 2-core VM
// with 4 KiB chunks that compress 2:1 (one run of a second each; figures
// from runs under load varied by up to 2x, the ranking did not):
//
//	                 Put+Flush          cold Get (our cache off)
//	ours             17 µs, 235 MB/s    8.1 µs,  9 allocs,  4.5 KB
//	inline           39 µs, 105 MB/s   14.6 µs, 17 allocs, 16.7 KB
//	inline+snappy    42 µs,  97 MB/s   12.6 µs, 17 allocs, 17.8 KB
//
// and those runs write only 0.5 GB: the inline settings would also pay for
// rewriting every chunk at each level of compaction as the store grows.
func badgerOptions(dir string, log *zap.Logger) badger.Options {
	o := badger.DefaultOptions(dir)
	o.Logger = newBadgerLogger(log)

	// We sync explicitly: UpdateRefs(durable) and Sync call DB.Sync, which
	// fsyncs the WAL and the value log, once for every group of concurrent
	// commits (see syncer). Syncing every write would sync every WriteBatch
	// of chunks, which nothing needs.
	o.SyncWrites = false

	// Chunks never change and refs need only their current value.
	o.NumVersionsToKeep = 1

	// No conflict detection. refMu serialises our read-write transactions,
	// and they read at the newest version, so Badger's check could never
	// find a conflict. It is not free either: with it on, Badger's oracle
	// asserts that no commit is older than the discard timestamp, which each
	// write moves to its own, while the flusher's write batches, a
	// checkpoint's ref update and the journal's replay take timestamps and
	// commit in whatever order they finish. A batch that committed after a
	// later ref update ended the process with a bare "Assert failed"
	// (TestWriteBatchOutlivesRefUpdate).
	o.DetectConflicts = false

	// Key-value separation: a value of valueThreshold bytes or more lives in
	// the value log, and the LSM tree holds only its 21-byte key and a
	// pointer. A chunk is then written once (to the value log) instead of
	// once to the WAL and again at every level of compaction, the LSM tree
	// stays small enough to live in the page cache, and a lookup costs an
	// LSM search plus one read from the memory-mapped value log. Small
	// chunks (commits, tiny maps) and refs stay in the tree, where a read
	// costs one search. The value log needs garbage collection only for
	// deleted or overwritten values: our GC runs it (gc.go, reclaim).
	o.ValueThreshold = valueThreshold

	// No compression: the LSM tree holds hashes and value pointers, which do
	// not compress, and Badger never compresses the value log. Without
	// compression (or encryption) Badger reads table blocks straight from
	// the memory-mapped files, so it needs no block cache of its own: the
	// chunk cache above holds what is worth holding, already verified, and
	// the page cache the rest.
	o.Compression = options.None
	o.BlockCacheSize = 0
	o.IndexCacheSize = 0 // table indexes stay in memory; they are small

	// Memtables hold keys and value pointers, about 100 bytes a chunk, so
	// one of 32 MiB covers some 300,000 chunks (over 1 GiB of data) before
	// it is flushed. Badger allocates each memtable's arena up front on the
	// Go heap (size plus 15% for the largest batch), where it counts towards
	// the GC's heap target, so we take half Badger's default size and three
	// memtables (the active one and two waiting to be flushed) instead of
	// five: at most about 110 MiB instead of 370 MiB, for every open store.
	// Transactions are limited to 15% of a memtable (4.8 MiB), which the
	// WriteBatch of a flush splits into several; a ref update is far
	// smaller.
	o.MemTableSize = 32 << 20
	o.NumMemtables = 3

	// Two compactors (the minimum that is not zero): the machine is shared
	// with the SQL engine, and a write-once store compacts little.
	o.NumCompactors = 2

	// Close compacts level 0 into the level below. The garbage collector
	// relies on it (gc.go, reclaim): a chunk's deletion frees its value
	// only once a compaction drops the tombstone with the value, and
	// Badger's Flatten leaves alone a tree whose only level is 0, which is
	// where a store smaller than a few memtables keeps everything. It
	// costs a Close the compaction of at most a few tables of keys and
	// value pointers.
	o.CompactL0OnClose = true

	// Verify each table's checksums when Badger opens it (at Open, and
	// after a flush or compaction writes it). The tables hold the refs and
	// the value pointers, which the chunk hashes do not protect; they are
	// small, so this costs little, and unlike verification on every block
	// read it costs nothing on the read path. (Value-log entries carry
	// checksums too, but the BLAKE3 check of every chunk read subsumes them,
	// so VerifyValueChecksum stays off.)
	o.ChecksumVerificationMode = options.OnTableRead

	// Our Stats count what callers need; Badger's expvar metrics cost
	// atomic updates on every read.
	o.MetricsEnabled = false
	return o
}

// valueThreshold is the smallest value kept in Badger's value log rather
// than in the LSM tree; see badgerOptions.
const valueThreshold = 512

// removeEmptyLogs removes the empty memtable logs (*.mem) and value-log
// files (*.vlog) of the Badger database in dir. Badger creates such a file
// and then sizes it; a process killed in between leaves it empty, and
// Badger (v4.9.6) then refuses to open the directory ("while opening
// memtables ... Create a new file"). An empty file holds nothing, not even
// its header. GC's reopening of Badger creates these files often enough
// that TestGCAfterKill found this.
func removeEmptyLogs(dir string, log *zap.Logger) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !(strings.HasSuffix(name, ".mem") || strings.HasSuffix(name, ".vlog")) {
			continue
		}
		info, err := e.Info()
		if err != nil || info.Size() != 0 {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("store: removing the empty Badger file %s: %w", name, err)
		}
		log.Warn("store: removed an empty Badger file left by a crash", zap.String("dir", dir), zap.String("file", name))
	}
	return nil
}

// checkDir accepts a missing directory, an empty one, and one that holds a
// Badger database (which initFormat examines further).
func checkDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		if fi, serr := os.Stat(dir); serr == nil && !fi.IsDir() {
			return fmt.Errorf("store: %s is not a directory: %w", dir, ErrNotStore)
		}
		return fmt.Errorf("store: %w", err)
	case len(entries) == 0:
		return nil
	}
	for _, e := range entries {
		if e.Name() == "MANIFEST" && e.Type().IsRegular() {
			return nil
		}
	}
	return fmt.Errorf("store: %s holds %q and no store: %w", dir, entries[0].Name(), ErrNotStore)
}

// initFormat checks the format version of an opened Badger database, and
// records it in a database that is empty (new, or created by an Open that
// crashed before recording it).
func (db *DB) initFormat() error {
	bdb, dir := db.bdb, db.dir
	var (
		found   bool
		version uint64
		empty   bool
	)
	err := bdb.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte(formatKey))
		if errors.Is(err, badger.ErrKeyNotFound) {
			it := txn.NewIterator(badger.IteratorOptions{})
			defer it.Close()
			it.Rewind()
			empty = !it.Valid()
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		return item.Value(func(v []byte) error {
			n, k := binary.Uvarint(v)
			if k <= 0 || k != len(v) {
				return fmt.Errorf("store: %s: unreadable format version %x: %w", dir, v, ErrFormatVersion)
			}
			version = n
			return nil
		})
	})
	switch {
	case err != nil:
		return fmt.Errorf("store: %s: reading format version: %w", dir, err)
	case found && version == 1:
		// Version 1 had no journal; the empty journal Open creates next is its
		// upgrade, recorded below.
	case found && version != formatVersion:
		return fmt.Errorf("store: %s has format version %d, want %d: %w", dir, version, formatVersion, ErrFormatVersion)
	case found:
		return nil
	case !empty:
		return fmt.Errorf("store: %s is a Badger database without a format version: %w", dir, ErrNotStore)
	}
	err = db.badgerUpdate(func(txn *badger.Txn) error {
		return txn.Set([]byte(formatKey), binary.AppendUvarint(nil, formatVersion))
	})
	if err == nil {
		err = bdb.Sync()
	}
	if err != nil {
		return fmt.Errorf("store: %s: recording format version: %w", dir, err)
	}
	return nil
}

// Get returns the chunk of addr; the error wraps ErrNotFound if it is absent
// and ErrCorrupt if its stored bytes do not hash to addr. The slice is
// shared: do not modify it. A cache hit does not allocate.
func (db *DB) Get(ctx context.Context, addr Address) ([]byte, error) {
	db.stats.gets.Add(1)
	if db.closed.Load() {
		return nil, ErrClosed
	}
	if data, ok := db.cache.get(addr); ok {
		db.stats.cacheHits.Add(1)
		return data, nil
	}
	if data, ok, _ := db.pending.get(addr); ok {
		return data, nil
	}
	db.closeMu.RLock()
	defer db.closeMu.RUnlock()
	if db.closed.Load() {
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var data []byte
	seq := db.sweeps.Load() // before the transaction: see readChunk
	err := db.bdb.View(func(txn *badger.Txn) error {
		var err error
		data, err = db.readChunk(txn, addr, seq)
		return err
	})
	if err != nil {
		return nil, err
	}
	return data, nil
}

// GetMany calls fn with each present chunk of addrs (once for each time it
// occurs in addrs), in no particular order, and then, if some were absent,
// returns an error wrapping ErrNotFound. It stops at the first other error,
// from fn or the store, and returns it. fn may call the store; the slices it
// receives are shared, as Get's are.
func (db *DB) GetMany(ctx context.Context, addrs []Address, fn func(Address, []byte) error) error {
	if db.closed.Load() {
		return ErrClosed
	}
	var misses []Address
	for _, a := range addrs {
		db.stats.gets.Add(1)
		data, ok := db.cache.get(a)
		if ok {
			db.stats.cacheHits.Add(1)
		} else if data, ok, _ = db.pending.get(a); !ok {
			misses = append(misses, a)
			continue
		}
		if err := fn(a, data); err != nil {
			return err
		}
	}
	// Read the misses from Badger (after the buffer: a chunk that leaves the
	// buffer is on disk for every transaction begun afterwards), in key
	// order, which is the LSM tree's, and in batches, so that no lock or
	// transaction is held while fn runs.
	slices.SortFunc(misses, func(a, b Address) int { return bytes.Compare(a[:], b[:]) })
	type read struct {
		data []byte
		ok   bool
	}
	var absent []Address
	reads := make([]read, 0, min(len(misses), readBatch))
	for len(misses) > 0 {
		batch := misses[:min(len(misses), readBatch)]
		misses = misses[len(batch):]
		reads = reads[:0]
		seq := db.sweeps.Load() // before the transaction: see readChunk
		err := db.view(ctx, func(txn *badger.Txn) error {
			for _, a := range batch {
				data, err := db.readChunk(txn, a, seq)
				if errors.Is(err, ErrNotFound) {
					absent = append(absent, a)
				} else if err != nil {
					return err
				}
				reads = append(reads, read{data, err == nil})
			}
			return nil
		})
		if err != nil {
			return err
		}
		for i, r := range reads {
			if !r.ok {
				continue
			}
			if err := fn(batch[i], r.data); err != nil {
				return err
			}
		}
	}
	return manyNotFound(absent)
}

// Has reports whether the chunk of addr is present (buffered or written).
// A fresh chunk (see SetReach) counts only if it is also on disk: it may
// be dropped, and a caller that skips writing what the store has must not
// build on a chunk, or a subtree below it, that is not kept; writing it
// again keeps it.
func (db *DB) Has(ctx context.Context, addr Address) (bool, error) {
	if db.closed.Load() {
		return false, ErrClosed
	}
	if db.cache.contains(addr) {
		return true, nil
	}
	if _, ok, fresh := db.pending.get(addr); ok && !db.droppable(fresh) {
		return true, nil
	}
	var ok bool
	err := db.view(ctx, func(txn *badger.Txn) error {
		var err error
		ok, err = hasChunk(txn, addr)
		return err
	})
	return ok, err
}

// HasMany returns the addresses of addrs that are absent, in the order of
// addrs; fresh chunks count as absent, as for Has.
func (db *DB) HasMany(ctx context.Context, addrs []Address) ([]Address, error) {
	if db.closed.Load() {
		return nil, ErrClosed
	}
	// Cache and buffer first, and only then Badger: a chunk that leaves the
	// buffer is on disk for every transaction begun afterwards.
	var unknown []Address
	for _, a := range addrs {
		if db.cache.contains(a) {
			continue
		}
		if _, ok, fresh := db.pending.get(a); !ok || db.droppable(fresh) {
			unknown = append(unknown, a)
		}
	}
	var absent []Address
	for len(unknown) > 0 {
		batch := unknown[:min(len(unknown), readBatch)]
		unknown = unknown[len(batch):]
		err := db.view(ctx, func(txn *badger.Txn) error {
			for _, a := range batch {
				ok, err := hasChunk(txn, a)
				if err != nil {
					return err
				}
				if !ok {
					absent = append(absent, a)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return absent, nil
}

// Put adds chunk to the store and returns its address. It takes ownership
// of chunk, which must not be modified afterwards. The chunk is readable at
// once; it reaches Badger at the next flush (Flush, a checkpoint, Close, or
// the background flusher's, which a Put that takes the write buffer past
// 16 MiB asks for; past 64 MiB that Put writes the buffer itself and returns
// any error of that write). Putting a chunk that is cached costs a
// hash and a lookup; one that is on disk but not cached is buffered and
// written again (see writeChunks).
func (db *DB) Put(ctx context.Context, chunk []byte) (Address, error) {
	if len(chunk) > MaxChunkSize {
		return Address{}, tooLarge(len(chunk))
	}
	addr := Hash(chunk)
	if db.closed.Load() {
		return Address{}, ErrClosed
	}
	// A running GC keeps whatever is written, skipped or not (invariant 9).
	if b := db.barrier.Load(); b != nil && b.collecting() {
		b.record(addr)
	}
	// A cached chunk is buffered or on disk: see the invariants of the
	// package doc.
	if db.cache.contains(addr) {
		return addr, nil
	}
	db.closeMu.RLock()
	defer db.closeMu.RUnlock()
	if db.closed.Load() {
		return Address{}, ErrClosed
	}
	reach := db.reach.Load() != nil
	added, size := db.pending.add(addr, chunk, writerGeneration(ctx))
	if !added {
		return addr, nil
	}
	db.stats.wrote(len(chunk))
	if !reach {
		// After pending.add: see the package doc. A fresh chunk that may be
		// dropped is cached only once journaled (invariant 10).
		db.cache.add(addr, chunk)
	}
	switch {
	case db.replaying:
		// Open's replay of redo records writes the buffer itself, and the
		// journal must not be appended to before it restarts.
	case size > maxPending:
		// The flusher has fallen behind: the writer waits for it.
		if err := db.flushLocked(false); err != nil {
			return addr, err
		}
	case db.flushDue():
		select {
		case db.flushes <- struct{}{}:
		default: // a flush is already asked for
		}
	}
	return addr, nil
}

// flushDue reports whether the write buffer should go to Badger: its
// journaled chunks are past pendingLimit, or its fresh ones past
// freshLimit (then they are all journaled first); without a reach
// function, every chunk is journaled at the next flush or ref update, and
// the whole buffer counts.
func (db *DB) flushDue() bool {
	fresh, journaled := db.pending.sizes()
	if db.reach.Load() == nil {
		return fresh+journaled > pendingLimit
	}
	other, redo := db.pending.sizesRedo()
	return journaled > pendingLimit || other > freshLimit || redo > redoSpillLimit
}

// flusher writes the write buffer to Badger whenever a Put finds it past
// pendingLimit, off the path of the statement whose Put that was: writing
// 16 MiB takes tens of milliseconds, which one client's statement waited
// for when Put flushed itself. It stops when Close closes db.flushes.
func (db *DB) flusher() {
	for range db.flushes {
		db.closeMu.RLock()
		if !db.closed.Load() {
			if err := db.flushLocked(false); err != nil {
				db.log.Warn("store: writing the write buffer failed; its chunks stay buffered", zap.Error(err))
			}
		}
		db.closeMu.RUnlock()
	}
}

// Flush writes the chunks buffered by Put to Badger, without syncing.
func (db *DB) Flush(ctx context.Context) error {
	db.closeMu.RLock()
	defer db.closeMu.RUnlock()
	if db.closed.Load() {
		return ErrClosed
	}
	return db.flushLocked(true)
}

// Sync fsyncs everything written to Badger so far (not the chunks still
// buffered: Flush first for those). Concurrent calls share one fsync.
func (db *DB) Sync() error {
	db.closeMu.RLock()
	defer db.closeMu.RUnlock()
	if db.closed.Load() {
		return ErrClosed
	}
	return db.syncer.syncAll()
}

// Ref returns the address ref name points at, and whether it exists.
func (db *DB) Ref(ctx context.Context, name string) (Address, bool, error) {
	if err := checkRefName(name); err != nil {
		return Address{}, false, err
	}
	if db.closed.Load() {
		return Address{}, false, ErrClosed
	}
	if e, hit := db.refs.get(name); hit {
		return e.addr, e.ok, nil
	}
	db.closeMu.RLock()
	defer db.closeMu.RUnlock()
	if db.closed.Load() {
		return Address{}, false, ErrClosed
	}
	db.refMu.Lock()
	defer db.refMu.Unlock()
	return db.refLocked(name)
}

// ListRefs calls fn with every ref whose name starts with prefix, in name
// order, and stops at the first error fn returns. fn sees the refs as they
// were when ListRefs began, and may call the store.
func (db *DB) ListRefs(ctx context.Context, prefix string, fn func(name string, addr Address) error) error {
	refs := map[string]Address{}
	// Under refMu, Badger's refs and those not yet checkpointed are one
	// consistent state. closeMu comes first, as in Ref and UpdateRefs: a
	// Close waiting between the two would otherwise deadlock them.
	db.closeMu.RLock()
	if db.closed.Load() {
		db.closeMu.RUnlock()
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		db.closeMu.RUnlock()
		return err
	}
	db.refMu.Lock()
	err := db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{
			Prefix:         append([]byte{refPrefix}, prefix...),
			PrefetchValues: true,
			PrefetchSize:   64,
		})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			name := string(item.Key()[1:])
			var a Address
			err := item.Value(func(v []byte) error { return decodeRef(name, v, &a) })
			if err != nil {
				return err
			}
			refs[name] = a
		}
		return nil
	})
	for name, e := range db.dirty {
		switch {
		case !strings.HasPrefix(name, prefix):
		case e.ok:
			refs[name] = e.addr
		default:
			delete(refs, name)
		}
	}
	db.refMu.Unlock()
	db.closeMu.RUnlock()
	if err != nil {
		return err
	}
	names := make([]string, 0, len(refs))
	for name := range refs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := fn(name, refs[name]); err != nil {
			return err
		}
	}
	return nil
}

// UpdateRefs applies updates in one Badger transaction: all of them or none.
// An update whose ref's current value is not its Old fails the call with an
// error wrapping ErrRefConflict; one whose New is neither zero nor a present
// chunk fails it with ErrDanglingRef. Before the transaction, the chunks
// buffered by Put are written. With durable set, UpdateRefs returns only
// after the refs and every chunk written before them are synced to disk;
// concurrent durable calls share fsyncs. If that sync fails, the refs have
// moved (readers see them) but may not survive a crash, and the error says so.
func (db *DB) UpdateRefs(ctx context.Context, updates []RefUpdate, durable bool) error {
	if err := checkRefUpdates(updates); err != nil {
		return err
	}
	for {
		err := db.updateRefs(ctx, updates, durable)
		if !errors.Is(err, errBarrierMoved) {
			return err
		}
	}
}

// errBarrierMoved: a GC began or ended while UpdateRefs ran; it starts
// over, to record its updates in the barrier that now stands.
var errBarrierMoved = errors.New("store: GC barrier moved")

// updateRefs is one attempt of UpdateRefs.
func (db *DB) updateRefs(ctx context.Context, updates []RefUpdate, durable bool) error {
	b, err := db.enterRefUpdate(ctx, updates)
	if err != nil {
		return err
	}
	defer db.closeMu.RUnlock()
	reached, all := db.reachedFresh(ctx, updates)
	ticket, err := db.commitRefs(updates, b, reached, all)
	if err != nil {
		return err
	}

	if durable {
		if err := db.syncer.syncTo(ticket); err != nil {
			return fmt.Errorf("store: refs updated but not synced: %w", err)
		}
	}
	if db.checkpointDue() {
		if err := db.checkpoint(false); err != nil {
			// The update stands; the journal only grows until a later
			// checkpoint succeeds.
			db.log.Error("store: checkpoint failed", zap.Error(err))
		}
	}
	return nil
}

// enterRefUpdate begins an attempt of a ref update: a running GC keeps
// every new target and marks what it reaches (invariant 9), before any
// lock is taken, as Put records, since the mark reads the store and a
// sweep batch holds the barrier while it waits for closeMu; then closeMu
// is taken shared (the caller releases it, unless an error is returned)
// and every new target is checked to be cached, buffered or on disk
// (chunks before refs). It returns the barrier the updates went through,
// which the commit checks still stands.
func (db *DB) enterRefUpdate(ctx context.Context, updates []RefUpdate) (*barrier, error) {
	b := db.barrier.Load()
	if b != nil {
		if err := b.recordRefs(ctx, updates); err != nil {
			return nil, err
		}
	}
	db.closeMu.RLock()
	err := func() error {
		if db.closed.Load() {
			return ErrClosed
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, u := range updates {
			if u.New.IsZero() {
				continue
			}
			ok, err := db.hasLocked(u.New)
			if err != nil {
				return err
			}
			if !ok {
				return danglingRef(u.Name, u.New)
			}
		}
		return nil
	}()
	if err != nil {
		db.closeMu.RUnlock()
		return nil, err
	}
	return b, nil
}

// commitRefs checks and applies the compare-and-set of UpdateRefs: it
// checks every ref's current value, journals the updates (after the fresh
// chunks they reach, or all of them: see writeJournal), and applies them in memory (the ref cache and dirty;
// Badger gets them at the next checkpoint); it returns the sync ticket
// that covers the journal records. bar is the GC barrier the updates were
// recorded in (nil: none); if another stands now, it fails with
// errBarrierMoved (BeginGC raises the barrier under refMu, so an update
// applied here either precedes the GC's reading of the refs or was
// recorded). The caller holds closeMu shared.
func (db *DB) commitRefs(updates []RefUpdate, bar *barrier, reached []Address, all bool) (uint64, error) {
	if len(updates) == 0 {
		return db.writeJournal(nil, nil, true) // the caller asks for what it Put to be durable
	}
	db.refMu.Lock()
	defer db.refMu.Unlock()
	if db.barrier.Load() != bar {
		return 0, errBarrierMoved
	}
	// refMu keeps every other ref writer out until the updates are applied,
	// so the values checked here are still current when they are, and the
	// journal records only an update that happens (journal.go, invariant 2).
	for _, u := range updates {
		cur, _, err := db.refLocked(u.Name)
		if err != nil {
			return 0, err
		}
		if cur != u.Old {
			return 0, refConflict(u.Name, u.Old, cur)
		}
	}
	ticket, err := db.writeJournal(updates, reached, all)
	if err != nil {
		return 0, err
	}
	if db.dirty == nil {
		db.dirty = map[string]refEntry{}
	}
	for _, u := range updates {
		e := refEntry{u.New, !u.New.IsZero()}
		db.dirty[u.Name] = e
		db.refs.set(u.Name, e.addr, e.ok)
	}
	return ticket, nil
}

// setRefs writes refs to Badger in txn, deleting those that do not exist.
func setRefs(txn *badger.Txn, refs map[string]refEntry) error {
	for name, e := range refs {
		key := refKey(name)
		var err error
		if e.ok {
			err = txn.Set(key, bytes.Clone(e.addr[:]))
		} else {
			err = txn.Delete(key)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// refLocked returns ref name's value, from the ref cache, the refs not yet
// checkpointed, or Badger; it fills the cache. The caller holds refMu.
func (db *DB) refLocked(name string) (Address, bool, error) {
	if e, hit := db.refs.get(name); hit {
		return e.addr, e.ok, nil
	}
	if e, ok := db.dirty[name]; ok {
		db.refs.set(name, e.addr, e.ok)
		return e.addr, e.ok, nil
	}
	var (
		addr Address
		ok   bool
	)
	err := db.bdb.View(func(txn *badger.Txn) error {
		var err error
		addr, ok, err = readRef(txn, name)
		return err
	})
	if err == nil {
		db.refs.set(name, addr, ok)
	}
	return addr, ok, err
}

// writeJournal appends fresh chunks and then updates (if any) to the
// journal, and returns the sync ticket that covers them: every fresh chunk
// if all is set, else those of reached still fresh (another call may have
// journaled some meanwhile; its record precedes this one's). Journaled
// chunks are cached.
func (db *DB) writeJournal(updates []RefUpdate, reached []Address, all bool) (uint64, error) {
	db.journalMu.Lock()
	defer db.journalMu.Unlock()
	var chunks []chunkRecord
	if all {
		chunks = db.pending.journalAll(db.spare)
	} else {
		chunks = db.pending.journal(reached, db.spare)
	}
	wrote, err := db.journal.append(chunks, updates)
	reach := db.reach.Load() != nil
	for _, c := range chunks {
		db.stats.bytesJournaled.Add(uint64(len(c.data)))
		if reach {
			db.cache.add(c.addr, c.data) // journaled, so in the buffer until on disk
		}
	}
	clear(chunks) // the list is kept for reuse, not the chunks
	db.spare = chunks[:0]
	if err != nil {
		return 0, err
	}
	if !wrote {
		return db.syncer.written.Load(), nil // covers every earlier record
	}
	return db.syncer.wrote(), nil
}

// journalSize returns the journal's length in bytes.
func (db *DB) journalSize() int64 {
	db.journalMu.Lock()
	defer db.journalMu.Unlock()
	return db.journal.size
}

// checkpoint writes everything the journal holds to Badger, syncs Badger,
// and starts the journal over (invariant 3); unless force is set, only if
// the journal is still past journalLimit. The caller holds closeMu.
func (db *DB) checkpoint(force bool) error {
	db.refMu.Lock()
	defer db.refMu.Unlock()
	db.flushMu.Lock()
	defer db.flushMu.Unlock()
	db.journalMu.Lock()
	defer db.journalMu.Unlock()
	if !force && db.journal.size <= journalLimit && db.redoRecords.Load() <= redoCheckpointRecords {
		return nil // another commit checkpointed first
	}
	// The journal's redo records go with it: the chunks they made, and the
	// kept chunks they may reach (redo.go's reachedRedo), must be on disk
	// when Badger is synced below.
	db.pending.keepGenerations(redoGeneration, limboGeneration, keptFresh)
	// Without a reach function the fresh chunks go to Badger with the rest,
	// and the sync below covers them too; with one, they stay fresh: no ref
	// reaches them (the journal would hold them if one did).
	if db.reach.Load() == nil {
		all := db.pending.journalAll(db.spare)
		clear(all)
		db.spare = all[:0]
	}
	if err := db.writeCur(); err != nil {
		return fmt.Errorf("store: checkpoint: %w", err)
	}
	if len(db.dirty) > 0 {
		if err := db.badgerUpdate(func(txn *badger.Txn) error { return setRefs(txn, db.dirty) }); err != nil {
			return fmt.Errorf("store: checkpoint: writing %d refs: %w", len(db.dirty), err)
		}
	}
	if err := db.bdb.Sync(); err != nil {
		return fmt.Errorf("store: checkpoint: %w", err)
	}
	clear(db.dirty)
	if err := db.journal.restart(db.journal.epoch + 1); err != nil {
		return err
	}
	db.redoRecords.Store(0)
	return nil
}

// Badger runs in managed mode: the store chooses the timestamps of its
// writes and reads everything at the newest version. In Badger's own mode a
// read transaction waits until every write given a timestamp before it has
// reached the memtable, so a chunk read that missed the cache stalled behind
// a write buffer's flush in progress (measured: a fifth of the clients'
// time at 8 clients of pgbench -N went to that wait). The store needs no
// snapshot: a chunk is immutable, and one that is no longer buffered has
// been written (invariant 6); refs are read from Badger only under refMu,
// which every ref write holds. Every version but the newest is garbage at
// once, so the discard timestamp follows the writes.

// badgerUpdate runs fn in a Badger read-write transaction and commits it
// at a new timestamp.
func (db *DB) badgerUpdate(fn func(*badger.Txn) error) error {
	ts := db.badgerTs.Add(1)
	txn := db.bdb.NewTransactionAt(math.MaxUint64, true)
	defer txn.Discard()
	if err := fn(txn); err != nil {
		return err
	}
	if err := txn.CommitAt(ts, nil); err != nil {
		return err
	}
	db.bdb.SetDiscardTs(ts)
	return nil
}

// newWriteBatch returns a Badger write batch that commits at a new
// timestamp, which becomes the discard timestamp at once: no reader wants
// an older version, and a compaction that meets the batch's tombstones
// before the batch ends may as well drop what they delete.
func (db *DB) newWriteBatch() *badger.WriteBatch {
	ts := db.badgerTs.Add(1)
	db.bdb.SetDiscardTs(ts)
	return db.bdb.NewWriteBatchAt(ts)
}

// openJournal opens the journal, replays its records into Badger, syncs
// Badger and starts the journal over, so that Badger holds everything
// that was acknowledged before the store was last closed or killed.
func (db *DB) openJournal() error {
	j, data, err := openJournal(db.dir)
	if err != nil {
		return err
	}
	db.journal = j
	if len(data) == 0 {
		return nil
	}
	var chunks, refRecords, redoRecords int
	wb := db.newWriteBatch()
	defer func() { wb.Cancel() }()
	refs := map[string]refEntry{}
	db.replaying = true
	defer func() { db.replaying = false }()
	for {
		kind, payload, n, ok := nextRecord(data, j.epoch)
		if !ok {
			break // the end, or a record never acknowledged (journal.go)
		}
		data = data[n:]
		switch kind {
		case recordChunk:
			addr, chunk := Address(payload[:AddressSize]), payload[AddressSize:]
			if Hash(chunk) != addr {
				return fmt.Errorf("store: journal: chunk %s does not hash to its address: %w", addr, ErrCorrupt)
			}
			key := append([]byte{chunkPrefix}, addr[:]...)
			if err := wb.Set(key, chunk); err != nil {
				return fmt.Errorf("store: replaying the journal: %w", err)
			}
			chunks++
		case recordRefs:
			updates, err := decodeRefs(payload)
			if err != nil {
				return err
			}
			for _, u := range updates {
				refs[u.Name] = refEntry{u.New, !u.New.IsZero()}
			}
			refRecords++
		case recordRedo:
			// The redo reads what the records before it wrote.
			if err := wb.Flush(); err != nil {
				return fmt.Errorf("store: replaying the journal: %w", err)
			}
			wb = db.newWriteBatch()
			u, err := db.replayRedo(context.Background(), payload, refs)
			if err != nil {
				return err
			}
			refs[u.Name] = refEntry{u.New, true}
			redoRecords++
			if db.pending.size() > pendingLimit {
				if err := db.writeReplayed(); err != nil {
					return err
				}
			}
		}
	}
	if err := db.writeReplayed(); err != nil {
		return err
	}
	if err := wb.Flush(); err != nil {
		return fmt.Errorf("store: replaying the journal: %w", err)
	}
	// A huge set of refs would exceed one Badger transaction; the journal
	// of a checkpoint interval holds few distinct refs.
	if err := db.badgerUpdate(func(txn *badger.Txn) error { return setRefs(txn, refs) }); err != nil {
		return fmt.Errorf("store: replaying the journal's refs: %w", err)
	}
	for name, e := range refs {
		db.refs.set(name, e.addr, e.ok) // a redo record's replay read (and cached) its old value
	}
	if err := db.bdb.Sync(); err != nil {
		return fmt.Errorf("store: replaying the journal: %w", err)
	}
	if len(data) > 0 && data[0] != 0 {
		// What follows the last record is preallocated zeros, an earlier
		// epoch's records (the file keeps its length), or a write that was
		// never acknowledged; only the last two are worth a word.
		db.log.Info("store: the journal's records end before its bytes do (an earlier epoch's records, or a write never acknowledged); they are ignored", zap.Int("bytes", len(data)))
	}
	db.log.Info("store: replayed the journal", zap.Int("chunks", chunks), zap.Int("ref_updates", refRecords), zap.Int("redo_records", redoRecords), zap.Int("refs", len(refs)))
	// A new epoch even when nothing replayed: bytes left past the valid
	// records (a torn write, pages a crash kept out of order) must never
	// be read as records once new ones are appended before them.
	return j.restart(j.epoch + 1)
}

// writeReplayed writes to Badger, unsynced, the chunks that replaying redo
// records Put: Open syncs Badger before it starts the journal over.
func (db *DB) writeReplayed() error {
	all := db.pending.journalAll(db.spare)
	clear(all)
	db.spare = all[:0]
	if err := db.writeCur(); err != nil {
		return fmt.Errorf("store: replaying the journal: %w", err)
	}
	return nil
}

// Stats returns the store's counters.
func (db *DB) Stats() Stats {
	s := db.stats.snapshot()
	s.SyncRequests, s.Syncs = db.syncer.requests.Load(), db.syncer.syncs.Load()
	return s
}

// Check reads the whole store and verifies it: every chunk hashes to its
// address, every ref is well formed and points at a present chunk, the
// format version is recorded, no key is foreign to the layout, and every
// cached or buffered chunk still hashes to its address (which catches a
// caller that modified a slice it was given). The error joins what it found
// (at most ten problems) and wraps ErrCorrupt. Check costs a read of every
// chunk: it is for tests and for repair tools.
func (db *DB) Check(ctx context.Context) error {
	var errs []error
	report := func(err error) error {
		errs = append(errs, err)
		if len(errs) >= 10 {
			return errStopCheck
		}
		return nil
	}
	err := db.view(ctx, func(txn *badger.Txn) error {
		if _, err := txn.Get([]byte(formatKey)); err != nil {
			if err := report(fmt.Errorf("store: format version: %v: %w", err, ErrCorrupt)); err != nil {
				return err
			}
		}
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: false})
		defer it.Close()
		n := 0
		for it.Rewind(); it.Valid(); it.Next() {
			if n++; n%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			item := it.Item()
			key := item.Key()
			var problem error
			switch {
			case len(key) == chunkKeyLen && key[0] == chunkPrefix:
				addr := Address(key[1:])
				err := item.Value(func(v []byte) error {
					if Hash(v) != addr {
						problem = corrupt(addr)
					}
					return nil
				})
				if err != nil {
					return err
				}
			case len(key) > 1 && key[0] == refPrefix:
				name := string(key[1:])
				var a Address
				if err := item.Value(func(v []byte) error { return decodeRef(name, v, &a) }); err != nil {
					if !errors.Is(err, ErrCorrupt) {
						return err
					}
					problem = err
				} else if ok, err := hasChunk(txn, a); err != nil {
					return err
				} else if !ok {
					problem = fmt.Errorf("store: ref %q: chunk %s is absent: %w", name, a, ErrCorrupt)
				}
			case string(key) == formatKey:
			default:
				problem = fmt.Errorf("store: unknown key %q: %w", key, ErrCorrupt)
			}
			if problem != nil {
				if err := report(problem); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopCheck) {
		return err
	}
	if err := db.checkDirtyRefs(&errs); err != nil {
		return err
	}
	for _, a := range db.cache.modified() {
		errs = append(errs, fmt.Errorf("store: cached chunk %s was modified: %w", a, ErrCorrupt))
	}
	for _, a := range db.pending.modified() {
		errs = append(errs, fmt.Errorf("store: buffered chunk %s was modified: %w", a, ErrCorrupt))
	}
	return errors.Join(errs...)
}

// checkDirtyRefs adds to errs a problem for every ref moved since the last
// checkpoint that points at an absent chunk.
func (db *DB) checkDirtyRefs(errs *[]error) error {
	db.closeMu.RLock()
	defer db.closeMu.RUnlock()
	if db.closed.Load() {
		return ErrClosed
	}
	db.refMu.Lock()
	dirty := maps.Clone(db.dirty)
	db.refMu.Unlock()
	for name, e := range dirty {
		if !e.ok {
			continue
		}
		ok, err := db.hasLocked(e.addr)
		if err != nil {
			return err
		}
		if !ok {
			*errs = append(*errs, fmt.Errorf("store: ref %q: chunk %s is absent: %w", name, e.addr, ErrCorrupt))
		}
	}
	return nil
}

// errStopCheck ends Check's scan once it has found enough problems.
var errStopCheck = errors.New("store: check: too many problems")

// Close writes the buffered chunks, closes Badger and releases the
// directory. It waits for calls in progress; later calls fail with
// ErrClosed, as does a second Close.
func (db *DB) Close() error {
	db.closeMu.Lock()
	defer db.closeMu.Unlock()
	if db.closed.Load() {
		return ErrClosed
	}
	db.closed.Store(true)
	close(db.flushes) // no Put sends after closed is set: it holds closeMu
	// A checkpoint leaves the journal empty, so that the next Open has
	// nothing to replay; if it fails, the journal still holds everything
	// and the next Open replays it.
	ferr := db.checkpoint(true)
	if ferr != nil {
		db.log.Error("store: checkpoint at close failed; the next open replays the journal", zap.String("dir", db.dir), zap.Error(ferr))
	}
	cerr := db.bdb.Close()
	if cerr != nil {
		cerr = fmt.Errorf("store: closing %s: %w", db.dir, cerr)
	}
	jerr := db.journal.close()
	return errors.Join(ferr, cerr, jerr)
}

// view runs fn in a Badger read transaction, holding closeMu shared. fn must
// not call back into the caller's code.
func (db *DB) view(ctx context.Context, fn func(txn *badger.Txn) error) error {
	db.closeMu.RLock()
	defer db.closeMu.RUnlock()
	if db.closed.Load() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return db.bdb.View(fn)
}

// hasLocked reports whether addr is cached, buffered or on disk. The caller
// holds closeMu shared.
func (db *DB) hasLocked(addr Address) (bool, error) {
	if db.cache.contains(addr) {
		return true, nil
	}
	if _, ok, _ := db.pending.get(addr); ok {
		return true, nil
	}
	var ok bool
	err := db.bdb.View(func(txn *badger.Txn) error {
		var err error
		ok, err = hasChunk(txn, addr)
		return err
	})
	return ok, err
}

// readChunk reads the chunk of addr from Badger in txn, verifies it, caches
// it and returns it. The copy out of Badger is its one allocation beyond
// Badger's own. The error wraps ErrNotFound or ErrCorrupt as the case may be.
// seq is db.sweeps as it was before txn began: if a GC's sweep deleted
// chunks since, the chunk is not cached, since it may be one of them, read
// from a snapshot older than the delete and dropped from the cache before
// this read could cache it (invariant 7).
func (db *DB) readChunk(txn *badger.Txn, addr Address, seq uint64) ([]byte, error) {
	key := pooledChunkKey(addr)
	defer chunkKeys.Put(key)
	item, err := txn.Get(key[:])
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, notFound(addr)
	}
	if err != nil {
		return nil, fmt.Errorf("store: reading chunk %s: %w", addr, err)
	}
	data, err := item.ValueCopy(nil)
	if err != nil {
		return nil, fmt.Errorf("store: reading chunk %s: %w", addr, err)
	}
	db.stats.diskReads.Add(1)
	if Hash(data) != addr {
		db.log.Error("store: corrupt chunk", zap.String("dir", db.dir), zap.Stringer("addr", addr))
		return nil, corrupt(addr)
	}
	db.cache.addIfCurrent(addr, data, seq, &db.sweeps)
	return data, nil
}

// flushLocked writes the write buffer to Badger; unless force is set, only
// if it exceeds pendingLimit. The caller holds closeMu (either way).
func (db *DB) flushLocked(force bool) error {
	db.flushMu.Lock()
	defer db.flushMu.Unlock()
	fresh, journaled := db.pending.sizes()
	if !force && fresh+journaled <= maxPending && !db.flushDue() {
		return nil // another Put flushed first
	}
	// Redo chunks go to Badger on their own, synced (redo.go).
	if _, redo := db.pending.sizesRedo(); redo > redoSpillLimit {
		if err := db.spillRedo(context.Background()); err != nil {
			return err
		}
	}
	// Journal before Badger (journal.go, invariant 1): what this flush
	// writes unsynced is then durable with the next sync. Fresh chunks wait
	// for a ref update that reaches them, or to be dropped, unless they are
	// too many to keep in memory (or nothing tells what reaches them).
	if other, _ := db.pending.sizesRedo(); force || db.reach.Load() == nil || other > freshLimit {
		if _, err := db.writeJournal(nil, nil, true); err != nil {
			return err
		}
	}
	return db.writeCur()
}

// writeCur writes the buffer's journaled chunks (cur) to Badger, without
// syncing. The caller holds flushMu (or is Open, alone).
func (db *DB) writeCur() error {
	batch := db.pending.take()
	if batch == nil {
		return nil
	}
	err := db.writeChunks(batch)
	db.pending.done(err == nil)
	if err != nil {
		return fmt.Errorf("store: writing %d chunks: %w", len(batch), err)
	}
	return nil
}

// writeChunks writes batch to Badger with a WriteBatch. It does not look
// for chunks already on disk: Put skips cached chunks, so a buffered chunk
// is rarely on disk (one evicted from the cache and made again), while
// checking cost an LSM lookup per chunk on every commit's path (about 7 µs
// each, 7% of a write transaction's CPU under pgbench -N). A chunk written
// again leaves its older copy in the value log as garbage. The caller
// holds flushMu.
func (db *DB) writeChunks(batch map[Address][]byte) error {
	keys := make([]byte, 0, len(batch)*chunkKeyLen) // one allocation for every key
	wb := db.newWriteBatch()
	defer wb.Cancel()
	for a, chunk := range batch {
		off := len(keys)
		keys = append(keys, chunkPrefix)
		keys = append(keys, a[:]...)
		if err := wb.Set(keys[off:off+chunkKeyLen:off+chunkKeyLen], chunk); err != nil {
			return err
		}
	}
	return wb.Flush()
}
