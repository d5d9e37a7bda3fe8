package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// gcStore is what these tests need of DB and Memory.
type gcStore interface {
	chunkStore
	BeginGC(ctx context.Context, m Mark) (*GC, error)
}

// setOf returns a mark of the addresses given, whose ref updates reach
// nothing more than their targets (which the barrier keeps anyway).
func setOf(addrs ...Address) Mark {
	m := map[Address]bool{}
	for _, a := range addrs {
		m[a] = true
	}
	return Mark{
		Live: func(a Address) bool { return m[a] },
		Refs: func(context.Context, []RefUpdate) error { return nil },
	}
}

// TestGCSweep checks what a sweep keeps: the live chunks, and the
// unmarked ones the barrier saw written (new, or put again while cached)
// or named by a ref; and that everything else is gone, from disk and
// cache, after a reopen too.
func TestGCSweep(t *testing.T) {
	t.Run("db", func(t *testing.T) {
		dir := t.TempDir()
		db := openDB(t, dir, Options{})
		testGCSweep(t, db, func() gcStore {
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			db = openDB(t, dir, Options{})
			return db
		})
		db.Close()
	})
	t.Run("memory", func(t *testing.T) {
		m := NewMemory()
		testGCSweep(t, m, func() gcStore { return m })
	})
}

func testGCSweep(t *testing.T, st gcStore, reopen func() gcStore) {
	ctx := context.Background()
	var live, garbage []Address
	var garbageSeeds []uint64
	for i := range 300 {
		a := put(t, st, chunk(uint64(i), 100+i*10)) // both sides of valueThreshold
		if i%3 == 0 {
			live = append(live, a)
		} else {
			garbage = append(garbage, a)
			garbageSeeds = append(garbageSeeds, uint64(i))
		}
	}
	if err := st.UpdateRefs(ctx, []RefUpdate{{Name: "live", New: live[0]}}, true); err != nil {
		t.Fatal(err)
	}
	// Garbage read before the GC (so cached in DB), put again during it:
	// the writer that recreates a chunk must keep it, even though Put
	// skips it as cached.
	rewritten := garbage[:10]
	for _, a := range rewritten {
		if _, err := st.Get(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	g, err := st.BeginGC(ctx, setOf(live...))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.BeginGC(ctx, setOf()); !errors.Is(err, ErrGCRunning) {
		t.Fatalf("second BeginGC: %v, want ErrGCRunning", err)
	}
	for i := range 10 {
		seed := garbageSeeds[i]
		if a := put(t, st, chunk(seed, 100+int(seed)*10)); a != rewritten[i] {
			t.Fatalf("rewritten chunk %d: %s, want %s", i, a, rewritten[i])
		}
	}
	fresh := put(t, st, chunk(1000, 3000))
	// A ref moved during the GC to a garbage chunk keeps it.
	target := garbage[20]
	if err := st.UpdateRefs(ctx, []RefUpdate{{Name: "late", New: target}}, true); err != nil {
		t.Fatal(err)
	}
	stats, err := g.Sweep(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kept := append(append(append([]Address{}, live...), rewritten...), fresh, target)
	removed := len(garbage) - len(rewritten) - 1
	if stats.ChunksRemoved != uint64(removed) {
		t.Errorf("removed %d chunks, want %d", stats.ChunksRemoved, removed)
	}
	if stats.ChunksKept < uint64(len(kept)-1) { // fresh may still be buffered
		t.Errorf("kept %d chunks, want at least %d", stats.ChunksKept, len(kept)-1)
	}
	g.Abort() // no-op after Sweep
	for round := range 2 {
		s := st
		if round == 1 {
			s = reopen()
		}
		for _, a := range kept {
			if _, err := s.Get(ctx, a); err != nil {
				t.Fatalf("round %d: kept chunk %s: %v", round, a, err)
			}
		}
		for _, a := range garbage[10:] {
			if a == target {
				continue
			}
			if _, err := s.Get(ctx, a); !errors.Is(err, ErrNotFound) {
				t.Fatalf("round %d: swept chunk %s: Get = %v, want ErrNotFound", round, a, err)
			}
			if ok, err := s.Has(ctx, a); ok || err != nil {
				t.Fatalf("round %d: swept chunk %s: Has = %v, %v", round, a, ok, err)
			}
		}
		if err := s.Check(ctx); err != nil {
			t.Fatal(err)
		}
		st = s
	}
	// A swept chunk put again is stored again, and the next GC runs.
	if a := put(t, st, chunk(garbageSeeds[11], 100+int(garbageSeeds[11])*10)); a != garbage[11] {
		t.Fatal("chunk 2 changed address")
	}
	if _, err := st.Get(ctx, garbage[11]); err != nil {
		t.Fatal(err)
	}
	g, err = st.BeginGC(ctx, setOf())
	if err != nil {
		t.Fatal(err)
	}
	g.Abort()
}

// TestGCConcurrentWrites sweeps while writers put new chunks, put swept
// and kept ones again and point refs at them, and readers read the live
// ones: afterwards every chunk a writer put or a ref names is present, and
// a swept chunk never stays in the cache.
func TestGCConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	defer func() { db.Close() }()
	const n = 6000
	var live []Address
	all := make([]Address, n)
	for i := range n {
		all[i] = put(t, db, chunk(uint64(i), 600))
		if i%2 == 0 {
			live = append(live, all[i])
		}
	}
	if err := db.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	g, err := db.BeginGC(ctx, setOf(live...))
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg      sync.WaitGroup
		stop    atomic.Bool
		mu      sync.Mutex
		written []Address
		errs    = make(chan error, 8)
	)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ref := fmt.Sprint("w", w)
			var cur Address
			for i := 0; !stop.Load(); i++ {
				// Alternately an old chunk (live or swept) and a new one.
				seed := uint64((i*4 + w) % n)
				if i%2 == 1 {
					seed = uint64(n + i*4 + w)
				}
				a, err := db.Put(ctx, chunk(seed, 600))
				if err != nil {
					errs <- err
					return
				}
				if err := db.UpdateRefs(ctx, []RefUpdate{{Name: ref, Old: cur, New: a}}, false); err != nil {
					errs <- err
					return
				}
				cur = a
				mu.Lock()
				written = append(written, a)
				mu.Unlock()
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			a := all[(i*7)%n]
			if _, err := db.Get(ctx, a); err != nil && !errors.Is(err, ErrNotFound) {
				errs <- err
				return
			}
		}
	}()
	if _, err := g.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(written) == 0 {
		t.Fatal("the writers wrote nothing during the sweep")
	}
	check := func(db *DB) {
		for _, a := range append(live, written...) {
			if _, err := db.Get(ctx, a); err != nil {
				t.Fatalf("chunk %s: %v", a, err)
			}
		}
		if err := db.Check(ctx); err != nil {
			t.Fatal(err)
		}
	}
	check(db)
	// What the cache says is on disk is (invariant 7): after a reopen, with
	// no cache, everything is still there.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openDB(t, dir, Options{})
	check(db)
	t.Logf("%d chunks written during the sweep", len(written))
}

// TestGCDiskSpace fills a store with live and garbage chunks in the
// proportions of a deleted branch, collects, and compares the directory
// with a fresh store that holds only the live chunks.
func TestGCDiskSpace(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100 MB")
	}
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	defer func() { db.Close() }()
	var live []Address
	const n = 24000 // 4 KiB each: 96 MiB, a quarter live
	for i := range n {
		a := put(t, db, chunk(uint64(i), 4096))
		if i%4 == 0 {
			live = append(live, a)
		}
	}
	if err := db.UpdateRefs(ctx, []RefUpdate{{Name: "r", New: live[0]}}, true); err != nil {
		t.Fatal(err)
	}
	g, err := db.BeginGC(ctx, setOf(live...))
	if err != nil {
		t.Fatal(err)
	}
	stats, err := g.Sweep(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := DiskUsage(dir)
	if err != nil {
		t.Fatal(err)
	}
	logFiles(t, dir)

	freshDir := t.TempDir()
	fresh := openDB(t, freshDir, Options{})
	for i := 0; i < n; i += 4 {
		put(t, fresh, chunk(uint64(i), 4096))
	}
	if err := fresh.UpdateRefs(ctx, []RefUpdate{{Name: "r", New: live[0]}}, true); err != nil {
		t.Fatal(err)
	}
	if err := fresh.Close(); err != nil {
		t.Fatal(err)
	}
	want, err := DiskUsage(freshDir)
	if err != nil {
		t.Fatal(err)
	}
	logFiles(t, freshDir)
	t.Logf("before GC %d MiB, after %d MiB (closed: %d MiB), fresh store %d MiB; removed %d chunks, kept %d; sweep %v, reclaim %v",
		stats.DiskBefore>>20, stats.DiskAfter>>20, after>>20, want>>20, stats.ChunksRemoved, stats.ChunksKept, stats.Sweep, stats.Reclaim)
	if float64(after) > 1.2*float64(want) {
		t.Errorf("after GC the store takes %d bytes, a fresh one with the same live data %d", after, want)
	}
	db = openDB(t, dir, Options{})
	for i, a := range live {
		d, err := db.Get(ctx, a)
		if err != nil || !bytes.Equal(d, chunk(uint64(i*4), 4096)) {
			t.Fatalf("live chunk %d: %v", i, err)
		}
	}
}

// logFiles logs the files of dir and their allocated sizes.
func logFiles(t *testing.T, dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		n, _ := DiskUsage(filepath.Join(dir, e.Name()))
		t.Logf("  %-20s %8d KiB", e.Name(), n>>10)
	}
}

// TestGCQuiesced: after a GC whose caller kept the writers out
// (Mark.Quiesced) no validator stays up, and a ref update to a chunk the
// GC removed is checked only as any update is (its target must exist).
func TestGCQuiesced(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir(), Options{})
	defer db.Close()
	kept := put(t, db, chunk(1, 100))
	if err := db.UpdateRefs(ctx, []RefUpdate{{Name: "live", New: kept}}, true); err != nil {
		t.Fatal(err)
	}
	put(t, db, chunk(2, 100))
	for _, quiesced := range []bool{false, true} {
		g, err := db.BeginGC(ctx, Mark{
			Live:     func(a Address) bool { return a == kept },
			Refs:     func(context.Context, []RefUpdate) error { return nil },
			Quiesced: quiesced,
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		if up := db.barrier.Load() != nil; up == quiesced {
			t.Fatalf("quiesced %v: validator up %v", quiesced, up)
		}
	}
}
