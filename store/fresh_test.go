package store

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
)

// parentChunk returns a chunk in the toy format of toyReach: 'p', a
// distinguishing byte, then the addresses of its children.
func parentChunk(tag byte, children ...Address) []byte {
	b := []byte{'p', tag}
	for _, c := range children {
		b = append(b, c[:]...)
	}
	return b
}

// toyReach is a ReachFunc over parentChunk's format: a chunk starting
// with 'p' refers to the addresses after its second byte; any other
// chunk to nothing.
func toyReach(db *DB) ReachFunc {
	return func(ctx context.Context, updates []RefUpdate, fresh func(Address) bool, leave func(Address) error) error {
		var walk func(a Address) error
		walk = func(a Address) error {
			if !fresh(a) {
				return nil
			}
			data, err := db.Get(ctx, a)
			if err != nil {
				return err
			}
			if len(data) > 2 && data[0] == 'p' {
				for rest := data[2:]; len(rest) >= AddressSize; rest = rest[AddressSize:] {
					if err := walk(Address(rest[:AddressSize])); err != nil {
						return err
					}
				}
			}
			return leave(a)
		}
		for _, u := range updates {
			if !u.New.IsZero() {
				if err := walk(u.New); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// writer returns a context carrying generation gen, as a registered
// writer's calls do.
func writer(gen uint64) context.Context {
	var g atomic.Uint64
	g.Store(gen)
	return WithWriterGeneration(context.Background(), &g)
}

func putAs(t *testing.T, db *DB, ctx context.Context, data []byte) Address {
	t.Helper()
	a, err := db.Put(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestFreshJournalsOnlyReached checks that with a reach function a ref
// update journals the fresh chunks it reaches and nothing else, that a
// drop removes the unreached ones of ended writers, and that what the ref
// reaches survives a reopen.
func TestFreshJournalsOnlyReached(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	db.SetReach(toyReach(db))
	ctx := context.Background()
	w := writer(db.Generation())
	leaf := putAs(t, db, w, chunk(1, 3000))
	garbage := putAs(t, db, w, chunk(2, 3000))
	unrelated := putAs(t, db, w, parentChunk(9, garbage))
	parent := putAs(t, db, w, parentChunk(1, leaf))
	if err := db.UpdateRefs(ctx, []RefUpdate{{Name: "refs/heads/main", New: parent}}, true); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a     Address
		fresh bool
	}{{leaf, false}, {parent, false}, {garbage, true}, {unrelated, true}} {
		if got := db.pending.isFresh(c.a); got != c.fresh {
			t.Errorf("chunk %s: fresh %v, want %v", c.a, got, c.fresh)
		}
	}
	// A fresh chunk does not count as present for a copy into the store.
	if ok, err := db.Has(ctx, garbage); ok || err != nil {
		t.Errorf("Has(fresh) = %v, %v; want false", ok, err)
	}
	if absent, err := db.HasMany(ctx, []Address{leaf, garbage}); err != nil || !slices.Equal(absent, []Address{garbage}) {
		t.Errorf("HasMany = %v, %v; want only the fresh chunk absent", absent, err)
	}
	// The writer has ended: a drop below the next generation removes
	// what no ref reached, and nothing else.
	n, _ := db.DropFresh(db.NextGeneration())
	if n != 2 {
		t.Errorf("dropped %d chunks, want 2", n)
	}
	if _, err := db.Get(ctx, garbage); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(dropped) = %v, want ErrNotFound", err)
	}
	if err := db.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openDB(t, dir, Options{})
	defer db.Close()
	for _, a := range []Address{leaf, parent} {
		if _, err := db.Get(ctx, a); err != nil {
			t.Errorf("after reopen, Get(%s): %v", a, err)
		}
	}
}

// TestFreshGenerations checks which fresh chunks a drop keeps: those of a
// writer of the cut's generation or later, those a later writer put
// again, and those put with no writer generation.
func TestFreshGenerations(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{})
	defer db.Close()
	db.SetReach(toyReach(db))
	g1 := db.Generation()
	g2 := db.NextGeneration()
	old := putAs(t, db, writer(g1), chunk(1, 100))
	again := putAs(t, db, writer(g1), chunk(2, 100))
	putAs(t, db, writer(g2), chunk(2, 100)) // a writer of g2 builds on it
	current := putAs(t, db, writer(g2), chunk(3, 100))
	noWriter := putAs(t, db, context.Background(), chunk(4, 100))
	if n, _ := db.DropFresh(g2); n != 1 {
		t.Errorf("dropped %d chunks, want 1", n)
	}
	if db.pending.isFresh(old) {
		t.Error("the chunk of an ended generation was kept")
	}
	for _, a := range []Address{again, current, noWriter} {
		if !db.pending.isFresh(a) {
			t.Errorf("chunk %s was dropped", a)
		}
	}
	if n, _ := db.DropFresh(db.NextGeneration()); n != 2 {
		t.Errorf("dropped %d chunks, want 2 (the chunk without a writer stays)", n)
	}
	if !db.pending.isFresh(noWriter) {
		t.Error("a chunk put without a writer generation was dropped")
	}
}

// TestFreshFlushBound checks that fresh chunks past freshLimit are
// journaled and written rather than kept in memory without bound, when no
// one drops them.
func TestFreshFlushBound(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 32 MiB")
	}
	db := openDB(t, t.TempDir(), Options{CacheBytes: -1})
	defer db.Close()
	db.SetReach(toyReach(db))
	w := writer(db.Generation())
	for i := uint64(0); db.pending.size() <= freshLimit+(64<<10); i++ {
		putAs(t, db, w, chunk(i, 64<<10))
	}
	if err := db.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if fresh, journaled := db.pending.sizes(); fresh != 0 || journaled != 0 {
		t.Errorf("after a flush: %d fresh and %d journaled bytes buffered, want none", fresh, journaled)
	}
}
