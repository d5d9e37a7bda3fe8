package remotestore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/prollypg/prollypg/store"
)

func open(t *testing.T, dir string) *Store {
	t.Helper()
	return openURL(t, "file://"+dir, os.Getenv)
}

// openURL opens the remote at url, the environment's settings looked up
// by getenv.
func openURL(t *testing.T, url string, getenv func(string) string) *Store {
	t.Helper()
	s, err := openStore(context.Background(), url, true, getenv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func put(t *testing.T, s *Store, data string) store.Address {
	t.Helper()
	a, err := s.Put(context.Background(), []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestRoundTrip writes chunks across several table files and a ref,
// reads them back through another handle, and checks what a handle sees
// before its writes are published.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	testRoundTrip(t, func(t *testing.T) *Store { return open(t, dir) })
}

func testRoundTrip(t *testing.T, open func(*testing.T) *Store) {
	ctx := context.Background()
	w := open(t)
	w.tableBytes = 1000 // a table file every few chunks
	var addrs []store.Address
	for i := 0; i < 200; i++ {
		addrs = append(addrs, put(t, w, fmt.Sprintf("chunk %d %0100d", i, i)))
	}
	r := open(t)
	if ok, _ := r.Has(ctx, addrs[0]); ok {
		t.Fatal("another handle sees chunks that no manifest names")
	}
	if err := w.UpdateRefs(ctx, []store.RefUpdate{{Name: "refs/heads/main", New: addrs[199]}}, true); err != nil {
		t.Fatal(err)
	}
	if ok, _ := r.Has(ctx, addrs[0]); ok {
		t.Fatal("a handle saw a new manifest without a refresh")
	}
	if err := r.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if absent, err := r.HasMany(ctx, addrs); err != nil || len(absent) != 0 {
		t.Fatalf("after the update: %d absent, %v", len(absent), err)
	}
	got := 0
	err := r.GetMany(ctx, addrs, func(a store.Address, b []byte) error {
		if store.Hash(b) != a {
			return fmt.Errorf("chunk %s has other bytes", a)
		}
		got++
		return nil
	})
	if err != nil || got != len(addrs) {
		t.Fatalf("GetMany: %d chunks, %v", got, err)
	}
	if a, ok, _ := r.Ref(ctx, "refs/heads/main"); !ok || a != addrs[199] {
		t.Fatalf("refs/heads/main is %s, %v", a, ok)
	}
	if tables := len(w.man.Tables); tables < 10 {
		t.Errorf("%d table files for 200 chunks of 100 bytes, 1000 bytes each", tables)
	}
	if _, err := r.Get(ctx, store.Hash([]byte("nowhere"))); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an absent chunk: %v", err)
	}
	err = w.UpdateRefs(ctx, []store.RefUpdate{{Name: "refs/heads/x", New: store.Hash([]byte("nowhere"))}}, true)
	if !errors.Is(err, store.ErrDanglingRef) {
		t.Errorf("a ref to an absent chunk: %v", err)
	}
}

// TestCompareAndSet runs writers that each add a ref of their own, and
// two that race for one: no update is lost, and exactly one racer wins.
func TestCompareAndSet(t *testing.T) {
	dir := t.TempDir()
	testCompareAndSet(t, "file://"+dir, os.Getenv)
}

func testCompareAndSet(t *testing.T, url string, getenv func(string) string) {
	ctx := context.Background()
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := openStore(ctx, url, true, getenv)
			if err != nil {
				errs[i] = err
				return
			}
			defer s.Close()
			a, _ := s.Put(ctx, []byte(fmt.Sprintf("writer %d", i)))
			errs[i] = s.UpdateRefs(ctx, []store.RefUpdate{
				{Name: fmt.Sprintf("refs/heads/b%d", i), New: a},
			}, true)
			if errs[i] == nil && i < 2 {
				errs[i] = s.UpdateRefs(ctx, []store.RefUpdate{{Name: "refs/heads/contested", New: a}}, true)
			}
		}()
	}
	wg.Wait()
	conflicts := 0
	for i, err := range errs {
		if errors.Is(err, store.ErrRefConflict) && i < 2 {
			conflicts++
		} else if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	if conflicts != 1 {
		t.Errorf("%d of the two racers lost", conflicts)
	}
	r := openURL(t, url, getenv)
	for i := 0; i < n; i++ {
		a, ok, _ := r.Ref(ctx, fmt.Sprintf("refs/heads/b%d", i))
		if b, err := r.Get(ctx, a); !ok || err != nil || string(b) != fmt.Sprintf("writer %d", i) {
			t.Errorf("writer %d's ref: %v %v %q", i, ok, err, b)
		}
	}
	if r.man.Version != n+1 {
		t.Errorf("manifest version %d after %d swaps", r.man.Version, n+1)
	}
}

// TestCorruption flips a byte of a chunk and of an index: the chunk's
// read fails with ErrCorrupt, the index's Open.
func TestCorruption(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := open(t, dir)
	a := put(t, w, "some chunk")
	if err := w.UpdateRefs(ctx, []store.RefUpdate{{Name: "refs/heads/main", New: a}}, true); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, w.man.Tables[0])
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) {
		t.Helper()
		b := append([]byte(nil), data...)
		b[i] ^= 1
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	flip(0)
	r := open(t, dir)
	if _, err := r.Get(ctx, a); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("a flipped chunk byte: %v", err)
	}
	flip(len("some chunk") + 3)
	if _, err := Open(ctx, "file://"+dir, false); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("a flipped index byte: %v", err)
	}
}
