package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// rawBadger opens the Badger database under a store directly, with Badger's
// logging silenced, for tests that tamper with it.
func rawBadger(t *testing.T, dir string) *badger.DB {
	t.Helper()
	bdb, err := badger.Open(badgerOptions(dir, zap.NewNop()))
	if err != nil {
		t.Fatalf("opening Badger in %s: %v", dir, err)
	}
	return bdb
}

func TestReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	refd := put(t, db, chunk(1, 4096))
	if err := db.UpdateRefs(ctx, []RefUpdate{{"refs/heads/main", Address{}, refd}}, false); err != nil {
		t.Fatal(err)
	}
	unflushed := put(t, db, chunk(2, 4096)) // written by Close
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = openDB(t, dir, Options{})
	defer db.Close()
	if got, ok, err := db.Ref(ctx, "refs/heads/main"); got != refd || !ok || err != nil {
		t.Fatalf("after reopen, Ref = %s, %v, %v; want %s", got, ok, err, refd)
	}
	for i, a := range []Address{refd, unflushed} {
		d, err := db.Get(ctx, a)
		if err != nil || !bytes.Equal(d, chunk(uint64(i+1), 4096)) {
			t.Fatalf("after reopen, Get(%s) = %d bytes, %v", a, len(d), err)
		}
	}
	if st := db.Stats(); st.DiskReads != 2 || st.CacheHits != 0 {
		t.Fatalf("reads after reopen: %+v; want 2 disk reads", st)
	}
	if err := db.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestOpenLocked(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	defer db.Close()
	if db2, err := Open(dir, Options{}); err == nil {
		db2.Close()
		t.Fatal("a second Open of the same directory succeeded")
	}
}

func TestNotStore(t *testing.T) {
	t.Run("unrelated file", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(dir, Options{}); !errors.Is(err, ErrNotStore) {
			t.Fatalf("Open: %v, want ErrNotStore", err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Fatalf("Open wrote into a directory that is not a store: %v", ents)
		}
	})
	t.Run("a file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(path, Options{}); !errors.Is(err, ErrNotStore) {
			t.Fatalf("Open: %v, want ErrNotStore", err)
		}
	})
	t.Run("foreign badger", func(t *testing.T) {
		dir := t.TempDir()
		bdb := rawBadger(t, dir)
		if err := bdb.Update(func(txn *badger.Txn) error { return txn.Set([]byte("user:1"), []byte("x")) }); err != nil {
			t.Fatal(err)
		}
		bdb.Close()
		if _, err := Open(dir, Options{}); !errors.Is(err, ErrNotStore) {
			t.Fatalf("Open: %v, want ErrNotStore", err)
		}
	})
	t.Run("missing and empty", func(t *testing.T) {
		for _, dir := range []string{filepath.Join(t.TempDir(), "a", "b"), t.TempDir()} {
			db := openDB(t, dir, Options{})
			if err := db.Check(context.Background()); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}
	})
}

func TestFormatVersion(t *testing.T) {
	for _, v := range [][]byte{binary.AppendUvarint(nil, formatVersion+1), {0xff}} {
		dir := t.TempDir()
		db := openDB(t, dir, Options{})
		db.Close()
		bdb := rawBadger(t, dir)
		if err := bdb.Update(func(txn *badger.Txn) error { return txn.Set([]byte(formatKey), v) }); err != nil {
			t.Fatal(err)
		}
		bdb.Close()
		if _, err := Open(dir, Options{}); !errors.Is(err, ErrFormatVersion) {
			t.Fatalf("Open of a store with format %x: %v, want ErrFormatVersion", v, err)
		}
	}
}

// TestFormatUpgrade: a store of format 1 (before the journal) opens, keeps
// its data, and is recorded as the current format.
func TestFormatUpgrade(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	a := put(t, db, chunk(1, 100))
	if err := db.UpdateRefs(ctx, []RefUpdate{{Name: "refs/heads/main", New: a}}, true); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := os.Remove(filepath.Join(dir, journalFileName)); err != nil {
		t.Fatal(err)
	}
	bdb := rawBadger(t, dir)
	if err := bdb.Update(func(txn *badger.Txn) error { return txn.Set([]byte(formatKey), binary.AppendUvarint(nil, 1)) }); err != nil {
		t.Fatal(err)
	}
	bdb.Close()
	db = openDB(t, dir, Options{})
	if got, ok, err := db.Ref(ctx, "refs/heads/main"); err != nil || !ok || got != a {
		t.Fatalf("ref after upgrade: %v %v %v", got, ok, err)
	}
	db.Close()
	bdb = rawBadger(t, dir)
	defer bdb.Close()
	err := bdb.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte(formatKey))
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error {
			if n, _ := binary.Uvarint(v); n != formatVersion {
				t.Errorf("format after upgrade: %d", n)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCorruptChunk(t *testing.T) {
	ctx := context.Background()
	for _, size := range []int{100, 4096} { // in the LSM tree and in the value log
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			dir := t.TempDir()
			db := openDB(t, dir, Options{})
			good := put(t, db, chunk(1, size))
			bad := put(t, db, chunk(2, size))
			if err := db.UpdateRefs(ctx, []RefUpdate{{"refs/heads/main", Address{}, bad}}, true); err != nil {
				t.Fatal(err)
			}
			db.Close()

			bdb := rawBadger(t, dir)
			err := bdb.Update(func(txn *badger.Txn) error { return txn.Set(chunkKey(bad), chunk(3, size)) })
			if err != nil {
				t.Fatal(err)
			}
			bdb.Close()

			logCore, logs := observer.New(zap.ErrorLevel)
			db = openDB(t, dir, Options{Logger: zap.New(logCore)})
			defer db.Close()
			for range 2 { // and not cached after the first failure
				d, err := db.Get(ctx, bad)
				if !errors.Is(err, ErrCorrupt) || d != nil {
					t.Fatalf("Get of a corrupt chunk = %d bytes, %v; want ErrCorrupt", len(d), err)
				}
				if !strings.Contains(err.Error(), bad.String()) {
					t.Fatalf("error %q does not name the chunk", err)
				}
			}
			if logs.Len() == 0 {
				t.Error("corruption was not logged")
			}
			err = db.GetMany(ctx, []Address{good, bad}, func(Address, []byte) error { return nil })
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("GetMany: %v, want ErrCorrupt", err)
			}
			if _, err := db.Get(ctx, good); err != nil {
				t.Fatalf("Get of the good chunk: %v", err)
			}
			if err := db.Check(ctx); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), bad.String()) {
				t.Fatalf("Check: %v, want ErrCorrupt naming %s", err, bad)
			}
		})
	}
}

func TestCorruptTable(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	var updates []RefUpdate
	for i := range 200 {
		a := put(t, db, chunk(uint64(i), 100))
		updates = append(updates, RefUpdate{Name: fmt.Sprintf("refs/heads/b%03d", i), New: a})
	}
	if err := db.UpdateRefs(context.Background(), updates, true); err != nil {
		t.Fatal(err)
	}
	db.Close() // Badger writes the memtable to a table
	tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	if len(tables) == 0 {
		t.Fatal("no table written")
	}
	data, err := os.ReadFile(tables[0])
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/3] ^= 0x40
	if err := os.WriteFile(tables[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	if db, err := Open(dir, Options{}); !errors.Is(err, ErrCorrupt) {
		if err == nil {
			db.Close()
		}
		t.Fatalf("Open with a damaged table: %v, want ErrCorrupt", err)
	}
}

func TestCorruptRef(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	db.Close()
	bdb := rawBadger(t, dir)
	if err := bdb.Update(func(txn *badger.Txn) error { return txn.Set(refKey("refs/heads/main"), []byte{1, 2, 3}) }); err != nil {
		t.Fatal(err)
	}
	bdb.Close()
	db = openDB(t, dir, Options{})
	defer db.Close()
	if _, _, err := db.Ref(ctx, "refs/heads/main"); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Ref of a malformed ref: %v, want ErrCorrupt", err)
	}
	if err := db.ListRefs(ctx, "", func(string, Address) error { return nil }); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("ListRefs over a malformed ref: %v, want ErrCorrupt", err)
	}
	if err := db.Check(ctx); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Check: %v, want ErrCorrupt", err)
	}
}

func TestCheckFindsModifiedChunk(t *testing.T) {
	ctx := context.Background()
	forEachImpl(t, func(t *testing.T, s chunkStore) {
		d := chunk(1, 100)
		a, err := s.Put(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		d[0] ^= 1 // breaks the ownership rule
		if err := s.Check(ctx); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), a.String()) {
			t.Fatalf("Check after modifying a chunk: %v", err)
		}
		d[0] ^= 1
	})
}

// TestPutKnownChunk checks that a cached chunk is not written again, and
// that one put again after it left the cache (written a second time) stays
// readable and leaves a store that passes Check.
func TestPutKnownChunk(t *testing.T) {
	ctx := context.Background()
	for _, cache := range []int64{0, -1} {
		db := openDB(t, t.TempDir(), Options{CacheBytes: cache})
		a := put(t, db, chunk(1, 4096))
		if err := db.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		before := db.syncer.written.Load()
		put(t, db, chunk(1, 4096))
		if err := db.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if after := db.syncer.written.Load(); cache == 0 && after != before {
			t.Fatalf("a cached chunk was written again (%d writes, then %d)", before, after)
		}
		if _, err := db.Get(ctx, a); err != nil {
			t.Fatal(err)
		}
		if err := db.Check(ctx); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
}

// TestFlushOnFullBuffer checks that the background flusher writes the
// buffer once it holds more than pendingLimit bytes, and that a Put past
// maxPending writes it itself.
func TestFlushOnFullBuffer(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 17 MiB")
	}
	db := openDB(t, t.TempDir(), Options{CacheBytes: -1})
	defer db.Close()
	i := 0
	for ; db.pending.size() <= pendingLimit; i++ {
		put(t, db, chunk(uint64(i), 16<<10))
	}
	for deadline := time.Now().Add(30 * time.Second); db.syncer.written.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no flush 30 s after the buffer passed %d bytes", pendingLimit)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); db.pending.size() > pendingLimit; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still buffered 30 s after the flush began", db.pending.size())
		}
	}

	// With the flusher held up (flushMu taken, as a flush in progress
	// would), the buffer grows to maxPending and the Put past it waits
	// for the flush and then writes the buffer itself.
	db.flushMu.Lock()
	for db.pending.size() <= maxPending-(16<<10) {
		put(t, db, chunk(uint64(i), 16<<10))
		i++
	}
	written := db.syncer.written.Load()
	done := make(chan struct{})
	go func() {
		put(t, db, chunk(uint64(i), 16<<10))
		put(t, db, chunk(uint64(i+1), 16<<10))
		close(done)
	}()
	select {
	case <-done:
		t.Fatal("a Put past maxPending returned while a flush was in progress")
	case <-time.After(50 * time.Millisecond):
	}
	db.flushMu.Unlock()
	<-done
	if db.syncer.written.Load() == written {
		t.Fatal("the Put past maxPending wrote nothing")
	}
}

// The kill -9 test re-executes the test binary as a child process, which
// runs TestCrashChild: it opens the store in the directory named by
// crashDirEnv, puts chunks derived from the seed in crashSeedEnv, moves a
// ref durably, prints "COMMITTED <address>" and sleeps until killed.
const (
	crashDirEnv    = "PROLLYPG_STORE_CRASH_DIR"
	crashSeedEnv   = "PROLLYPG_STORE_CRASH_SEED"
	crashChunksEnv = "PROLLYPG_STORE_CRASH_CHUNKS"
	crashChunks    = 300
)

func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("helper process of TestDurableAfterKill")
	}
	seed, err := strconv.ParseUint(os.Getenv(crashSeedEnv), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseUint(os.Getenv(crashChunksEnv), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The ref moves durably every 256 chunks, so that a long run passes
	// journalLimit and checkpoints on the way.
	var last, ref Address
	for i := range n {
		if last, err = db.Put(ctx, chunk(seed+i, 4096)); err != nil {
			t.Fatal(err)
		}
		if i%256 == 255 || i == n-1 {
			if err := db.UpdateRefs(ctx, []RefUpdate{{"refs/heads/main", ref, last}}, true); err != nil {
				t.Fatal(err)
			}
			ref = last
		}
	}
	// Work in progress when the kill comes, which may or may not survive.
	for i := range uint64(crashChunks) {
		if _, err := db.Put(ctx, chunk(seed+n+i, 4096)); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Printf("COMMITTED %s\n", last)
	os.Stdout.Sync()
	time.Sleep(time.Minute)
	t.Fatal("not killed")
}

func TestDurableAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	t.Run("journal", func(t *testing.T) { testDurableAfterKill(t, crashChunks) })
	// Past journalLimit: the child checkpoints before the kill, and what
	// it commits after is in the restarted journal.
	t.Run("checkpointed", func(t *testing.T) { testDurableAfterKill(t, journalLimit/4096+2000) })
}

func testDurableAfterKill(t *testing.T, chunks uint64) {
	dir := t.TempDir()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	committed := killChildAt(t, "TestCrashChild", "COMMITTED ", crashDirEnv+"="+dir,
		crashSeedEnv+"="+strconv.FormatUint(seed, 10), crashChunksEnv+"="+strconv.FormatUint(chunks, 10))
	want, err := ParseAddress(committed)
	if err != nil {
		t.Fatal(err)
	}

	db := openDB(t, dir, Options{})
	defer db.Close()
	bg := context.Background()
	got, ok, err := db.Ref(bg, "refs/heads/main")
	if err != nil || !ok || got != want {
		t.Fatalf("after kill -9, Ref = %s, %v, %v; want %s", got, ok, err, want)
	}
	for i := range chunks {
		d := chunk(seed+i, 4096)
		g, err := db.Get(bg, Hash(d))
		if err != nil || !bytes.Equal(g, d) {
			t.Fatalf("after kill -9, chunk %d: %d bytes, %v", i, len(g), err)
		}
	}
	if err := db.Check(bg); err != nil {
		t.Fatal(err)
	}
}

// killChildAt runs the test binary's test (a child process helper) with
// env added, kills it (SIGKILL) once it prints a line starting with
// prefix, and returns the rest of that line.
func killChildAt(t *testing.T, test, prefix string, env ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var line string
	found := false
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if line, found = strings.CutPrefix(sc.Text(), prefix); found {
			break
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !found {
		t.Fatalf("%s printed no %q line (scan error %v)", test, prefix, sc.Err())
	}
	return line
}

// chunkKey returns the Badger key of the chunk of addr.
func chunkKey(addr Address) []byte {
	k := make([]byte, chunkKeyLen)
	k[0] = chunkPrefix
	copy(k[1:], addr[:])
	return k
}

// TestRefCache checks that Ref, served from the ref cache, follows every
// update: an absent ref looked up, then created, moved and deleted, and
// the same values after reopening.
func TestRefCache(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	a, b := put(t, db, chunk(1, 100)), put(t, db, chunk(2, 100))
	want := func(db *DB, addr Address, ok bool) {
		t.Helper()
		got, gotOK, err := db.Ref(ctx, "heads/x")
		if err != nil || got != addr || gotOK != ok {
			t.Fatalf("Ref = %v, %v, %v; want %v, %v", got, gotOK, err, addr, ok)
		}
	}
	want(db, Address{}, false)
	for _, u := range []RefUpdate{{Name: "heads/x", New: a}, {Name: "heads/x", Old: a, New: b}} {
		if err := db.UpdateRefs(ctx, []RefUpdate{u}, false); err != nil {
			t.Fatal(err)
		}
		want(db, u.New, true)
	}
	if err := db.UpdateRefs(ctx, []RefUpdate{{Name: "heads/x", Old: a, New: a}}, false); !errors.Is(err, ErrRefConflict) {
		t.Fatalf("stale update: %v", err)
	}
	want(db, b, true)
	db.Close()
	db = openDB(t, dir, Options{})
	defer db.Close()
	want(db, b, true)
	if err := db.UpdateRefs(ctx, []RefUpdate{{Name: "heads/x", Old: b}}, false); err != nil {
		t.Fatal(err)
	}
	want(db, Address{}, false)
}
