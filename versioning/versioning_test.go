package versioning

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

var who = Signature{Name: "postgres", Email: "postgres@localhost", When: time.Date(2026, 12, 3, 10, 0, 0, 123456000, time.FixedZone("", 3600))}

func openStore(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestDatabases(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	for _, name := range []string{"postgres", "my/db", "x"} {
		if _, err := CreateDatabase(ctx, st, name, who); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := CreateDatabase(ctx, st, "x", who); !errors.Is(err, ErrDatabaseExists) {
		t.Fatalf("creating x twice: %v", err)
	}
	names, err := ListDatabases(ctx, st)
	if err != nil || fmt.Sprint(names) != "[my/db postgres x]" {
		t.Fatalf("ListDatabases = %v, %v", names, err)
	}
	r, err := OpenDatabase(ctx, st, "my/db")
	if err != nil {
		t.Fatal(err)
	}
	head, err := r.BranchHead(ctx, DefaultBranch)
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadCommit(ctx, st, head)
	if err != nil {
		t.Fatal(err)
	}
	if c.Message != "CREATE DATABASE" || len(c.Parents) != 1 || !c.Author.When.Equal(who.When) {
		t.Fatalf("the database's commit: %+v", c)
	}
	if first, err := LoadCommit(ctx, st, c.Parents[0]); err != nil || first.Message != "Initialize data repository" || len(first.Parents) != 0 || first.Root != c.Root {
		t.Fatalf("initial commit: %+v, %v", first, err)
	}
	_, ws, err := r.WorkingSet(ctx, DefaultBranch)
	if err != nil || ws.Working != c.Root || ws.Staged != c.Root {
		t.Fatalf("initial working set %+v, %v; commit root %s", ws, err, c.Root)
	}
	if err := DropDatabase(ctx, st, "my/db"); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDatabase(ctx, st, "my/db"); !errors.Is(err, ErrNoDatabase) {
		t.Fatalf("opening a dropped database: %v", err)
	}
	if err := DropDatabase(ctx, st, "nope"); !errors.Is(err, ErrNoDatabase) {
		t.Fatalf("dropping a missing database: %v", err)
	}
}

func TestCommitEncoding(t *testing.T) {
	c := &Commit{
		Root:      store.Hash([]byte("root")),
		Parents:   []store.Address{store.Hash([]byte("p1")), store.Hash([]byte("p2"))},
		Author:    who,
		Committer: Signature{Name: "ci", Email: "", When: time.UnixMicro(-5).UTC()},
		Message:   "merge feature\n\nwith a body",
	}
	got, err := decodeCommit(c.encode())
	if err != nil {
		t.Fatal(err)
	}
	if got.Root != c.Root || len(got.Parents) != 2 || got.Parents[1] != c.Parents[1] || got.Message != c.Message ||
		!got.Author.When.Equal(c.Author.When) || got.Committer.Name != "ci" {
		t.Fatalf("round trip: %+v", got)
	}
	if _, off := got.Author.When.Zone(); off != 3600 {
		t.Fatalf("zone offset %d, want 3600", off)
	}
	enc := c.encode()
	for n := 0; n < len(enc); n++ {
		if _, err := decodeCommit(enc[:n]); err == nil {
			t.Fatalf("truncated commit of %d bytes decoded", n)
		}
	}
}

func rowKey(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)) }

// withRows returns root with table public.t holding rows whose values are
// the given strings, keyed by position.
func putRows(t *testing.T, root RootValue, edits map[int]string) RootValue {
	t.Helper()
	ctx := context.Background()
	tbl, ok, err := root.Table(ctx, "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	var rows prolly.Map
	if ok {
		rows, err = prolly.Load(ctx, root.Store(), tbl.Rows)
	} else {
		tbl = &sqldef.Table{Schema: "public", Name: "t", Columns: []sqldef.Column{{Name: "v", Type: 25, Typmod: -1}}}
		rows, err = prolly.NewMap(ctx, root.Store())
	}
	if err != nil {
		t.Fatal(err)
	}
	var es []prolly.Edit
	for i := 0; i < 1000; i++ {
		if v, ok := edits[i]; ok {
			if v == "" {
				es = append(es, prolly.Edit{Key: rowKey(i), Delete: true})
			} else {
				es = append(es, prolly.Edit{Key: rowKey(i), Value: []byte(v)})
			}
		}
	}
	if rows, err = rows.Apply(ctx, es); err != nil {
		t.Fatal(err)
	}
	tbl.Rows = rows.Root()
	root, err = root.PutTable(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestHistoryIndependentRoots(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	empty, err := NewRootValue(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	a := putRows(t, empty, map[int]string{1: "one", 2: "two", 3: "three"})
	a, _ = a.PutSequence(ctx, &sqldef.Sequence{Schema: "public", Name: "s", Increment: 1, Max: 100})
	b, _ := empty.PutSequence(ctx, &sqldef.Sequence{Schema: "public", Name: "s", Increment: 1, Max: 100})
	b = putRows(t, b, map[int]string{3: "three", 9: "nine"})
	b = putRows(t, b, map[int]string{1: "uno", 9: ""})
	b = putRows(t, b, map[int]string{2: "two", 1: "one"})
	if a.Addr() != b.Addr() {
		t.Fatalf("same database built two ways: %s vs %s", a.Addr(), b.Addr())
	}
}

func TestCommitTransaction(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	r, err := CreateDatabase(ctx, st, "db", who)
	if err != nil {
		t.Fatal(err)
	}
	_, ws, _ := r.WorkingSet(ctx, DefaultBranch)
	start, err := LoadRootValue(ctx, st, ws.Working)
	if err != nil {
		t.Fatal(err)
	}
	start = putRows(t, start, map[int]string{1: "a", 2: "b", 3: "c"})
	if start, err = r.CommitTransaction(ctx, DefaultBranch, mustRoot(t, r), start, nil); err != nil {
		t.Fatal(err)
	}

	// Two transactions from the same start touching different rows both
	// commit, and the branch ends with both changes.
	t1 := putRows(t, start, map[int]string{1: "a1", 10: "new"})
	t2 := putRows(t, start, map[int]string{2: "", 20: "other"})
	if _, err := r.CommitTransaction(ctx, DefaultBranch, start, t1, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := r.CommitTransaction(ctx, DefaultBranch, start, t2, nil); err != nil {
		t.Fatal(err)
	}
	want := putRows(t, start, map[int]string{1: "a1", 10: "new", 2: "", 20: "other"})
	if got := mustRoot(t, r); got.Addr() != want.Addr() {
		t.Fatalf("after two disjoint transactions the working root is %s, want %s", got.Addr(), want.Addr())
	}

	// A third from the old start that changes row 1 differently conflicts
	// and leaves the branch alone.
	t3 := putRows(t, start, map[int]string{1: "a3"})
	if _, err := r.CommitTransaction(ctx, DefaultBranch, start, t3, nil); !errors.Is(err, ErrConflict) {
		t.Fatalf("conflicting commit: %v", err)
	}
	if got := mustRoot(t, r); got.Addr() != want.Addr() {
		t.Fatal("a failed commit changed the branch")
	}
}

// TestConcurrentCommits races many transactions on disjoint rows: every one
// commits and none is lost.
func TestConcurrentCommits(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	r, err := CreateDatabase(ctx, st, "db", who)
	if err != nil {
		t.Fatal(err)
	}
	start := putRows(t, mustRoot(t, r), map[int]string{0: "seed"})
	if start, err = r.CommitTransaction(ctx, DefaultBranch, mustRoot(t, r), start, nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := 1; w <= 16; w++ {
		mine := putRows(t, start, map[int]string{w: fmt.Sprint("writer ", w)})
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := r.CommitTransaction(ctx, DefaultBranch, start, mine, nil)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	final := mustRoot(t, r)
	tbl, _, _ := final.Table(ctx, "public", "t")
	rows, _ := prolly.Load(ctx, st, tbl.Rows)
	if rows.Count() != 17 {
		t.Fatalf("%d rows after 16 concurrent inserts, want 17", rows.Count())
	}
}

func mustRoot(t *testing.T, r *Repo) RootValue {
	t.Helper()
	ctx := context.Background()
	_, ws, err := r.WorkingSet(ctx, DefaultBranch)
	if err != nil {
		t.Fatal(err)
	}
	root, err := LoadRootValue(ctx, r.Store(), ws.Working)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestGroupCommit races transactions through one Committer: disjoint ones
// all commit, and of two that change the same row differently exactly one
// fails, without failing the others of its batch.
func TestGroupCommit(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	r, err := CreateDatabase(ctx, st, "db", who)
	if err != nil {
		t.Fatal(err)
	}
	var c Committer
	r.SetCommitter(&c)
	start := putRows(t, mustRoot(t, r), map[int]string{0: "seed"})
	if start, err = r.CommitTransaction(ctx, DefaultBranch, mustRoot(t, r), start, nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	const writers = 32
	errs := make([]error, writers+2)
	for w := 0; w < writers+2; w++ {
		rows := map[int]string{w + 1: fmt.Sprint("writer ", w)}
		if w >= writers {
			rows = map[int]string{0: fmt.Sprint("conflicting ", w)}
		}
		mine := putRows(t, start, rows)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[w] = r.CommitTransaction(ctx, DefaultBranch, start, mine, nil)
		}()
	}
	wg.Wait()
	for w, err := range errs[:writers] {
		if err != nil {
			t.Errorf("writer %d: %v", w, err)
		}
	}
	if (errs[writers] == nil) == (errs[writers+1] == nil) {
		t.Fatalf("conflicting writers: %v and %v, want exactly one ErrConflict", errs[writers], errs[writers+1])
	}
	for _, err := range errs[writers:] {
		if err != nil && !errors.Is(err, ErrConflict) {
			t.Fatalf("conflicting writer: %v, want ErrConflict", err)
		}
	}
	tbl, _, _ := mustRoot(t, r).Table(ctx, "public", "t")
	rows, _ := prolly.Load(ctx, st, tbl.Rows)
	if rows.Count() != writers+1 {
		t.Fatalf("%d rows after %d concurrent inserts, want %d", rows.Count(), writers, writers+1)
	}
}
