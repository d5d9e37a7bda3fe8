package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// chunkStore is the method set DB and Memory share; the tests run against
// it, and the assertions below keep the two in step.
type chunkStore interface {
	Get(ctx context.Context, addr Address) ([]byte, error)
	GetMany(ctx context.Context, addrs []Address, fn func(Address, []byte) error) error
	Has(ctx context.Context, addr Address) (bool, error)
	HasMany(ctx context.Context, addrs []Address) (absent []Address, err error)
	Put(ctx context.Context, chunk []byte) (Address, error)
	Flush(ctx context.Context) error
	Sync() error
	Ref(ctx context.Context, name string) (Address, bool, error)
	ListRefs(ctx context.Context, prefix string, fn func(name string, addr Address) error) error
	UpdateRefs(ctx context.Context, updates []RefUpdate, durable bool) error
	Stats() Stats
	Check(ctx context.Context) error
	Close() error
}

var (
	_ chunkStore = (*DB)(nil)
	_ chunkStore = (*Memory)(nil)
)

// impl is one way to make a store for the shared tests.
type impl struct {
	name string
	open func(t testing.TB) chunkStore
}

// impls are the stores every shared test runs against: Memory, DB with its
// default cache, DB without a cache (every read of a written chunk goes to
// Badger) and DB with a cache small enough to evict.
var impls = []impl{
	{"memory", func(t testing.TB) chunkStore { return NewMemory() }},
	{"db", func(t testing.TB) chunkStore { return openDB(t, t.TempDir(), Options{}) }},
	{"db-nocache", func(t testing.TB) chunkStore { return openDB(t, t.TempDir(), Options{CacheBytes: -1}) }},
	{"db-tinycache", func(t testing.TB) chunkStore { return openDB(t, t.TempDir(), Options{CacheBytes: 256 << 10}) }},
}

// forEachImpl runs fn as a subtest against a fresh store of every impl, and
// checks and closes the store afterwards.
func forEachImpl(t *testing.T, fn func(t *testing.T, s chunkStore)) {
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			s := im.open(t)
			fn(t, s)
			if err := s.Check(context.Background()); err != nil && !errors.Is(err, ErrClosed) {
				t.Errorf("Check: %v", err)
			}
			if err := s.Close(); err != nil && !errors.Is(err, ErrClosed) {
				t.Errorf("Close: %v", err)
			}
		})
	}
}

// openDB opens a DB in dir and fails the test on error. The test must close
// it (forEachImpl does).
func openDB(t testing.TB, dir string, opts Options) *DB {
	t.Helper()
	db, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	return db
}

// chunk returns a deterministic pseudo-random chunk of n bytes for seed i.
func chunk(i uint64, n int) []byte {
	r := rand.New(rand.NewPCG(i, 0x5eed))
	b := make([]byte, n)
	for j := 0; j+8 <= n; j += 8 {
		binary.LittleEndian.PutUint64(b[j:], r.Uint64())
	}
	for j := n &^ 7; j < n; j++ {
		b[j] = byte(r.Uint32())
	}
	return b
}

// put puts a copy of data (the store takes ownership) and returns its address.
func put(t testing.TB, s chunkStore, data []byte) Address {
	t.Helper()
	a, err := s.Put(context.Background(), bytes.Clone(data))
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	if a != Hash(data) {
		t.Fatalf("Put returned %s, want %s", a, Hash(data))
	}
	return a
}

func TestChunks(t *testing.T) {
	ctx := context.Background()
	forEachImpl(t, func(t *testing.T, s chunkStore) {
		sizes := []int{0, 1, 100, 4096, 4096, 16 << 10, 64 << 10}
		var addrs []Address
		var datas [][]byte
		for i, n := range sizes {
			d := chunk(uint64(i), n)
			datas = append(datas, d)
			addrs = append(addrs, put(t, s, d))
		}
		missing := Hash([]byte("never put"))

		verify := func(t *testing.T, stage string) {
			for i, a := range addrs {
				got, err := s.Get(ctx, a)
				if err != nil || !bytes.Equal(got, datas[i]) {
					t.Fatalf("%s: Get(chunk %d of %d bytes) = %d bytes, %v", stage, i, sizes[i], len(got), err)
				}
				if ok, err := s.Has(ctx, a); !ok || err != nil {
					t.Fatalf("%s: Has(chunk %d) = %v, %v", stage, i, ok, err)
				}
			}
			if _, err := s.Get(ctx, missing); !errors.Is(err, ErrNotFound) {
				t.Fatalf("%s: Get(missing) error = %v, want ErrNotFound", stage, err)
			} else if !strings.Contains(err.Error(), missing.String()) {
				t.Errorf("%s: error %q does not name the address", stage, err)
			}
			if ok, err := s.Has(ctx, missing); ok || err != nil {
				t.Fatalf("%s: Has(missing) = %v, %v", stage, ok, err)
			}

			query := append([]Address{missing}, addrs...)
			query = append(query, Hash([]byte("also missing")))
			absent, err := s.HasMany(ctx, query)
			if err != nil {
				t.Fatal(err)
			}
			if want := []Address{missing, Hash([]byte("also missing"))}; fmt.Sprint(absent) != fmt.Sprint(want) {
				t.Fatalf("%s: HasMany absent = %v, want %v", stage, absent, want)
			}

			seen := map[Address]int{}
			err = s.GetMany(ctx, query, func(a Address, data []byte) error {
				seen[a]++
				if Hash(data) != a {
					return fmt.Errorf("GetMany gave wrong bytes for %s", a)
				}
				return nil
			})
			if !errors.Is(err, ErrNotFound) {
				t.Fatalf("%s: GetMany error = %v, want ErrNotFound", stage, err)
			}
			for _, a := range addrs {
				if seen[a] == 0 {
					t.Fatalf("%s: GetMany skipped %s", stage, a)
				}
			}
			if err := s.GetMany(ctx, addrs, func(Address, []byte) error { return nil }); err != nil {
				t.Fatalf("%s: GetMany of present chunks: %v", stage, err)
			}
			stop := errors.New("stop")
			calls := 0
			err = s.GetMany(ctx, addrs, func(Address, []byte) error { calls++; return stop })
			if !errors.Is(err, stop) || calls != 1 {
				t.Fatalf("%s: GetMany with failing fn = %v after %d calls, want stop after 1", stage, err, calls)
			}
		}
		verify(t, "buffered")
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		verify(t, "flushed")
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestStats(t *testing.T) {
	ctx := context.Background()
	forEachImpl(t, func(t *testing.T, s chunkStore) {
		a := put(t, s, chunk(1, 100))
		put(t, s, chunk(1, 100)) // the same chunk again
		b := put(t, s, chunk(2, 50))
		st := s.Stats()
		if st.ChunksWritten != 2 || st.BytesWritten != 150 {
			t.Fatalf("after 3 Puts of 2 chunks: %+v", st)
		}
		if _, err := s.Get(ctx, a); err != nil {
			t.Fatal(err)
		}
		_, _ = s.Get(ctx, Hash(nil))
		_ = s.GetMany(ctx, []Address{a, b, a}, func(Address, []byte) error { return nil })
		if got := s.Stats().Gets; got != 5 {
			t.Fatalf("Gets = %d after 2 Gets and a GetMany of 3, want 5", got)
		}
	})
}

func TestPutTooLarge(t *testing.T) {
	forEachImpl(t, func(t *testing.T, s chunkStore) {
		if _, err := s.Put(context.Background(), make([]byte, MaxChunkSize+1)); err == nil {
			t.Fatal("Put of a chunk over MaxChunkSize succeeded")
		}
	})
}

func TestRefs(t *testing.T) {
	ctx := context.Background()
	forEachImpl(t, func(t *testing.T, s chunkStore) {
		c1, c2, c3 := put(t, s, chunk(1, 10)), put(t, s, chunk(2, 10)), put(t, s, chunk(3, 10))
		var zero Address

		mustRef := func(name string, want Address) {
			t.Helper()
			got, ok, err := s.Ref(ctx, name)
			if err != nil || ok != !want.IsZero() || got != want {
				t.Fatalf("Ref(%q) = %s, %v, %v; want %s", name, got, ok, err, addrOrNone(want))
			}
		}
		mustConflict := func(err error, name string) {
			t.Helper()
			if !errors.Is(err, ErrRefConflict) {
				t.Fatalf("error = %v, want ErrRefConflict", err)
			}
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("error %q does not name ref %q", err, name)
			}
		}

		mustRef("refs/heads/main", zero)
		// Create.
		if err := s.UpdateRefs(ctx, []RefUpdate{{"refs/heads/main", zero, c1}}, false); err != nil {
			t.Fatal(err)
		}
		mustRef("refs/heads/main", c1)
		// Create again: the ref exists.
		mustConflict(s.UpdateRefs(ctx, []RefUpdate{{"refs/heads/main", zero, c2}}, false), "refs/heads/main")
		// CAS with the wrong old value.
		mustConflict(s.UpdateRefs(ctx, []RefUpdate{{"refs/heads/main", c2, c3}}, true), "refs/heads/main")
		mustRef("refs/heads/main", c1)
		// CAS with the right one, durably.
		if err := s.UpdateRefs(ctx, []RefUpdate{{"refs/heads/main", c1, c2}}, true); err != nil {
			t.Fatal(err)
		}
		mustRef("refs/heads/main", c2)

		// Several refs at once.
		if err := s.UpdateRefs(ctx, []RefUpdate{
			{"refs/heads/feature", zero, c1},
			{"refs/tags/v1", zero, c3},
			{"refs/heads/main", c2, c3},
		}, false); err != nil {
			t.Fatal(err)
		}
		mustRef("refs/heads/feature", c1)
		mustRef("refs/tags/v1", c3)
		mustRef("refs/heads/main", c3)

		// Atomicity: the last update conflicts, so the first two must not apply.
		mustConflict(s.UpdateRefs(ctx, []RefUpdate{
			{"refs/heads/feature", c1, c2},
			{"refs/heads/other", zero, c2},
			{"refs/tags/v1", c1, c2},
		}, false), "refs/tags/v1")
		mustRef("refs/heads/feature", c1)
		mustRef("refs/heads/other", zero)
		mustRef("refs/tags/v1", c3)

		// Delete, and deleting with the wrong old value.
		mustConflict(s.UpdateRefs(ctx, []RefUpdate{{"refs/heads/feature", c2, zero}}, false), "refs/heads/feature")
		if err := s.UpdateRefs(ctx, []RefUpdate{{"refs/heads/feature", c1, zero}}, false); err != nil {
			t.Fatal(err)
		}
		mustRef("refs/heads/feature", zero)

		// Malformed calls change nothing.
		for _, bad := range [][]RefUpdate{
			{{"", zero, c1}},
			{{strings.Repeat("x", MaxRefNameLen+1), zero, c1}},
			{{"refs/heads/x", zero, c1}, {"refs/heads/x", zero, c2}},
		} {
			if err := s.UpdateRefs(ctx, bad, false); err == nil {
				t.Fatalf("UpdateRefs(%v) succeeded", bad)
			}
		}
		mustRef("refs/heads/x", zero)

		// ListRefs, in name order, by prefix.
		if err := s.UpdateRefs(ctx, []RefUpdate{{"refs/heads/b", zero, c1}, {"refs/heads/a", zero, c2}, {"refs/headsx", zero, c1}}, false); err != nil {
			t.Fatal(err)
		}
		list := func(prefix string) string {
			var out []string
			err := s.ListRefs(ctx, prefix, func(name string, a Address) error {
				if _, ok, err := s.Ref(ctx, name); !ok || err != nil { // fn may call the store
					return fmt.Errorf("ListRefs gave %q, which Ref cannot find: %v", name, err)
				}
				out = append(out, name)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return strings.Join(out, " ")
		}
		if got, want := list("refs/heads/"), "refs/heads/a refs/heads/b refs/heads/main"; got != want {
			t.Fatalf("ListRefs(refs/heads/) = %q, want %q", got, want)
		}
		if got, want := list(""), "refs/heads/a refs/heads/b refs/heads/main refs/headsx refs/tags/v1"; got != want {
			t.Fatalf("ListRefs(\"\") = %q, want %q", got, want)
		}
		if got := list("nothing/"); got != "" {
			t.Fatalf("ListRefs(nothing/) = %q", got)
		}
	})
}

func TestDanglingRef(t *testing.T) {
	ctx := context.Background()
	forEachImpl(t, func(t *testing.T, s chunkStore) {
		present := put(t, s, chunk(1, 10))
		absent := Hash([]byte("absent"))
		err := s.UpdateRefs(ctx, []RefUpdate{
			{"refs/heads/ok", Address{}, present},
			{"refs/heads/bad", Address{}, absent},
		}, true)
		if !errors.Is(err, ErrDanglingRef) {
			t.Fatalf("UpdateRefs to an absent chunk: %v, want ErrDanglingRef", err)
		}
		if !strings.Contains(err.Error(), "refs/heads/bad") || !strings.Contains(err.Error(), absent.String()) {
			t.Errorf("error %q names neither the ref nor the chunk", err)
		}
		for _, name := range []string{"refs/heads/ok", "refs/heads/bad"} {
			if _, ok, _ := s.Ref(ctx, name); ok {
				t.Fatalf("ref %q was created by a refused update", name)
			}
		}
	})
}

func TestClosed(t *testing.T) {
	ctx := context.Background()
	forEachImpl(t, func(t *testing.T, s chunkStore) {
		a := put(t, s, chunk(1, 10))
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		noop := func(Address, []byte) error { return nil }
		checks := map[string]error{}
		_, checks["Get"] = s.Get(ctx, a)
		checks["GetMany"] = s.GetMany(ctx, []Address{a}, noop)
		_, checks["Has"] = s.Has(ctx, a)
		_, checks["HasMany"] = s.HasMany(ctx, []Address{a})
		_, checks["Put"] = s.Put(ctx, chunk(2, 10))
		checks["Flush"] = s.Flush(ctx)
		checks["Sync"] = s.Sync()
		_, _, checks["Ref"] = s.Ref(ctx, "refs/heads/main")
		checks["ListRefs"] = s.ListRefs(ctx, "", func(string, Address) error { return nil })
		checks["UpdateRefs"] = s.UpdateRefs(ctx, []RefUpdate{{"r", Address{}, a}}, false)
		checks["Close"] = s.Close()
		for op, err := range checks {
			if !errors.Is(err, ErrClosed) {
				t.Errorf("%s after Close: %v, want ErrClosed", op, err)
			}
		}
	})
}

func TestCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	forEachImpl(t, func(t *testing.T, s chunkStore) {
		a := put(t, s, chunk(1, 10))
		cancel()
		if err := s.UpdateRefs(ctx, []RefUpdate{{"refs/heads/main", Address{}, a}}, false); !errors.Is(err, context.Canceled) {
			t.Fatalf("UpdateRefs with a canceled context: %v", err)
		}
		if _, ok, _ := s.Ref(context.Background(), "refs/heads/main"); ok {
			t.Fatal("canceled UpdateRefs moved the ref")
		}
	})
}

// TestConcurrent runs writers that put chunks, readers that read them, and
// committers that advance one counter ref by compare-and-set, all at once.
// Every successful CAS must count: the final counter equals the number of
// successful updates. Run it with -race.
func TestConcurrent(t *testing.T) {
	ctx := context.Background()
	forEachImpl(t, func(t *testing.T, s chunkStore) {
		const (
			workers = 4
			rounds  = 60
		)
		counterChunk := func(n uint64) []byte {
			return binary.BigEndian.AppendUint64([]byte("counter:"), n)
		}
		if err := s.UpdateRefs(ctx, []RefUpdate{{"refs/counter", Address{}, put(t, s, counterChunk(0))}}, false); err != nil {
			t.Fatal(err)
		}
		var (
			wg        sync.WaitGroup
			mu        sync.Mutex
			successes uint64
			errs      = make(chan error, 3*workers)
		)
		for w := range workers {
			wg.Add(3)
			go func() { // writer and reader of its own chunks
				defer wg.Done()
				var mine []Address
				for i := range rounds {
					d := chunk(uint64(w*1000+i), 512+i*37)
					a, err := s.Put(ctx, d)
					if err != nil {
						errs <- err
						return
					}
					mine = append(mine, a)
					if i%16 == 15 {
						if err := s.Flush(ctx); err != nil {
							errs <- err
							return
						}
					}
					for _, b := range mine[max(0, len(mine)-4):] {
						got, err := s.Get(ctx, b)
						if err != nil || Hash(got) != b {
							errs <- fmt.Errorf("Get(%s) = %v", b, err)
							return
						}
					}
				}
			}()
			go func() { // reader of everyone's chunks, by GetMany and HasMany
				defer wg.Done()
				for i := range rounds {
					var addrs []Address
					for v := range workers {
						addrs = append(addrs, Hash(chunk(uint64(v*1000+i), 512+i*37)))
					}
					err := s.GetMany(ctx, addrs, func(a Address, d []byte) error {
						if Hash(d) != a {
							return fmt.Errorf("GetMany: wrong bytes for %s", a)
						}
						return nil
					})
					if err != nil && !errors.Is(err, ErrNotFound) {
						errs <- err
						return
					}
					if _, err := s.HasMany(ctx, addrs); err != nil {
						errs <- err
						return
					}
				}
			}()
			go func() { // committer
				defer wg.Done()
				for range rounds / 4 {
					cur, _, err := s.Ref(ctx, "refs/counter")
					if err != nil {
						errs <- err
						return
					}
					d, err := s.Get(ctx, cur)
					if err != nil {
						errs <- err
						return
					}
					n := binary.BigEndian.Uint64(d[len("counter:"):])
					next, err := s.Put(ctx, counterChunk(n+1))
					if err != nil {
						errs <- err
						return
					}
					err = s.UpdateRefs(ctx, []RefUpdate{{"refs/counter", cur, next}}, w%2 == 0)
					switch {
					case err == nil:
						mu.Lock()
						successes++
						mu.Unlock()
					case !errors.Is(err, ErrRefConflict):
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		cur, _, err := s.Ref(ctx, "refs/counter")
		if err != nil {
			t.Fatal(err)
		}
		d, err := s.Get(ctx, cur)
		if err != nil {
			t.Fatal(err)
		}
		if n := binary.BigEndian.Uint64(d[len("counter:"):]); n != successes || n == 0 {
			t.Fatalf("counter = %d after %d successful CAS updates", n, successes)
		}
	})
}

func TestGetCachedDoesNotAllocate(t *testing.T) {
	ctx := context.Background()
	for _, im := range impls {
		if im.name == "db-nocache" {
			continue
		}
		t.Run(im.name, func(t *testing.T) {
			s := im.open(t)
			defer s.Close()
			a := put(t, s, chunk(1, 4096))
			if err := s.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Get(ctx, a); err != nil {
				t.Fatal(err)
			}
			if n := testing.AllocsPerRun(200, func() {
				if _, err := s.Get(ctx, a); err != nil {
					t.Fatal(err)
				}
			}); n != 0 {
				t.Fatalf("Get of a cached chunk: %v allocations, want 0", n)
			}
		})
	}
}
