package versioning

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

func sig(name string, sec int64) Signature {
	return Signature{Name: name, Email: name + "@example.com", When: time.Unix(sec, 0).UTC()}
}

// setWorking replaces branch's working root.
func setWorking(t *testing.T, r *Repo, branch string, root RootValue) {
	t.Helper()
	err := r.UpdateWorkingRoots(context.Background(), branch, func(_, _, _ RootValue, ws *WorkingSet) (*WorkingSet, error) {
		nws := *ws
		nws.Working = root.Addr()
		return &nws, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func commitAll(t *testing.T, r *Repo, branch, msg string, sec int64) store.Address {
	t.Helper()
	c, err := r.Commit(context.Background(), branch, CommitOptions{
		Message: msg, Author: sig("a", sec), Committer: sig("a", sec),
		Stage: func(_ context.Context, _, _, working RootValue) (RootValue, error) { return working, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRevisionsAndLog(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	r, err := CreateDatabase(ctx, st, "db", sig("init", 1))
	if err != nil {
		t.Fatal(err)
	}
	init, _ := r.BranchHead(ctx, DefaultBranch)
	root := mustRoot(t, r)
	setWorking(t, r, DefaultBranch, putRows(t, root, map[int]string{1: "one"}))
	c1 := commitAll(t, r, DefaultBranch, "one", 10)
	if _, err := r.Commit(ctx, DefaultBranch, CommitOptions{Message: "empty"}); !errors.Is(err, ErrNothingToCommit) {
		t.Fatalf("empty commit: %v", err)
	}
	if err := r.CreateBranch(ctx, "feature", c1, false); err != nil {
		t.Fatal(err)
	}
	if err := r.CreateBranch(ctx, "feature", c1, false); !errors.Is(err, ErrBranchExists) {
		t.Fatalf("second branch of one name: %v", err)
	}
	for _, bad := range []string{"", "a..b", "x~1", "-x", "HEAD", "a b", "a^"} {
		if err := r.CreateBranch(ctx, bad, c1, false); !errors.Is(err, ErrBadName) {
			t.Errorf("branch %q: %v", bad, err)
		}
	}
	setWorking(t, r, "feature", putRows(t, mustRootOf(t, r, "feature"), map[int]string{2: "two"}))
	c2 := commitAll(t, r, "feature", "two", 20)
	setWorking(t, r, DefaultBranch, putRows(t, mustRoot(t, r), map[int]string{3: "three"}))
	c3 := commitAll(t, r, DefaultBranch, "three", 30)
	if err := r.CreateTag(ctx, "v1", &Tag{Commit: c1, Tagger: sig("t", 40), Message: "first"}); err != nil {
		t.Fatal(err)
	}

	for spec, want := range map[string]store.Address{
		"HEAD": c3, "HEAD~": c1, "HEAD~1": c1, "HEAD^": c1, "HEAD~2": init, "HEAD^^": init, "main~1": c1,
		"feature": c2, "feature^1": c1, "v1": c1, "v1~1": init, c2.String(): c2, c2.String()[:8]: c2,
		"HEAD^0": c3,
	} {
		got, err := r.ResolveCommit(ctx, spec, c3)
		if err != nil || got != want {
			t.Errorf("%q: got %s, %v; want %s", spec, got, err, want)
		}
	}
	for _, spec := range []string{"nope", "HEAD~5", "HEAD^2", "HEAD~x", "", "zzzz"} {
		if _, err := r.ResolveCommit(ctx, spec, c3); !errors.Is(err, ErrNoRevision) {
			t.Errorf("%q: %v, want ErrNoRevision", spec, err)
		}
	}

	log, err := r.Log(ctx, []store.Address{c3, c2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range log {
		order = append(order, e.Commit.Message)
	}
	if fmt.Sprint(order) != "[three two one CREATE DATABASE Initialize data repository]" {
		t.Errorf("log order %v", order)
	}
	only, err := r.Log(ctx, []store.Address{c2}, []store.Address{c3})
	if err != nil || len(only) != 1 || only[0].Addr != c2 {
		t.Errorf("main..feature: %v, %v", only, err)
	}
	base, ok, err := r.MergeBase(ctx, c2, c3)
	if err != nil || !ok || base != c1 {
		t.Errorf("merge base %s, %v, %v; want %s", base, ok, err, c1)
	}

	if err := r.RenameBranch(ctx, "feature", "f2", false); err != nil {
		t.Fatal(err)
	}
	if ok, _ := r.HasBranch(ctx, "feature"); ok {
		t.Error("renamed branch still there")
	}
	if h, err := r.BranchHead(ctx, "f2"); err != nil || h != c2 {
		t.Errorf("renamed branch head %s, %v", h, err)
	}
	if err := r.DeleteBranch(ctx, "f2"); err != nil {
		t.Fatal(err)
	}
	if err := r.Reset(ctx, DefaultBranch, c1, ResetHard); err != nil {
		t.Fatal(err)
	}
	if h, _ := r.BranchHead(ctx, DefaultBranch); h != c1 {
		t.Errorf("reset --hard left head at %s", h)
	}
	_, headRoot, staged, working, _, err := r.Roots(ctx, DefaultBranch)
	if err != nil || staged.Addr() != headRoot.Addr() || working.Addr() != headRoot.Addr() {
		t.Errorf("reset --hard left the working set dirty: %v", err)
	}
}

func mustRootOf(t *testing.T, r *Repo, branch string) RootValue {
	t.Helper()
	_, _, _, working, _, err := r.Roots(context.Background(), branch)
	if err != nil {
		t.Fatal(err)
	}
	return working
}

// bigTable returns a root value whose table public.t holds n rows, built
// in bulk.
func bigTable(t testing.TB, st prolly.ChunkStore, n int) RootValue {
	ctx := context.Background()
	root, err := NewRootValue(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	b := prolly.NewBuilder(st)
	for i := 0; i < n; i++ {
		if err := b.Add(ctx, rowKey(i), []byte(fmt.Sprintf("row %d with some payload", i))); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := b.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	root, err = root.PutTable(ctx, &sqldef.Table{Schema: "public", Name: "t", Columns: []sqldef.Column{{Name: "v", Type: 25, Typmod: -1}}, Rows: rows.Root()})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestCostsFollowTheChange checks DESIGN.md's locality invariant at the
// repository level: a branch writes no table data, and committing one
// changed row of a 1,000,000-row table writes a handful of chunks.
func TestCostsFollowTheChange(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1,000,000-row table")
	}
	ctx := context.Background()
	st := store.NewMemory()
	r, err := CreateDatabase(ctx, st, "db", sig("init", 1))
	if err != nil {
		t.Fatal(err)
	}
	setWorking(t, r, DefaultBranch, bigTable(t, st, 1_000_000))
	c1 := commitAll(t, r, DefaultBranch, "big", 10)

	before := st.Stats().ChunksWritten
	if err := r.CreateBranch(ctx, "feature", c1, false); err != nil {
		t.Fatal(err)
	}
	if n := st.Stats().ChunksWritten - before; n > 1 {
		t.Errorf("creating a branch wrote %d chunks; want only its working set", n)
	}

	before = st.Stats().ChunksWritten
	setWorking(t, r, "feature", putRows(t, mustRootOf(t, r, "feature"), map[int]string{500: "changed"}))
	commitAll(t, r, "feature", "one row", 20)
	n := st.Stats().ChunksWritten - before
	t.Logf("changing and committing one row of 1,000,000 wrote %d chunks", n)
	// The row map's path (height 4 here, plus a re-cut neighbour), the root
	// value's map, two working sets and the commit.
	if n > 12 {
		t.Errorf("one-row commit wrote %d chunks", n)
	}
}

// TestTagsRoundTrip checks tag objects survive encoding and listing.
func TestTagsRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	r, err := CreateDatabase(ctx, st, "db", sig("init", 1))
	if err != nil {
		t.Fatal(err)
	}
	head, _ := r.BranchHead(ctx, DefaultBranch)
	want := &Tag{Commit: head, Tagger: sig("x", 5), Message: "release"}
	if err := r.CreateTag(ctx, "v1.0", want); err != nil {
		t.Fatal(err)
	}
	if err := r.CreateTag(ctx, "v1.0", want); !errors.Is(err, ErrTagExists) {
		t.Errorf("duplicate tag: %v", err)
	}
	tags, err := r.Tags(ctx)
	if err != nil || len(tags) != 1 || tags[0].Name != "v1.0" || tags[0].Tag.Message != "release" || !tags[0].Tag.Tagger.When.Equal(want.Tagger.When) {
		t.Fatalf("tags %+v, %v", tags, err)
	}
	if err := r.DeleteTag(ctx, "v1.0"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Tag(ctx, "v1.0"); !errors.Is(err, ErrNoTag) {
		t.Errorf("deleted tag: %v", err)
	}
	for i := 0; i < len(want.encode()); i++ {
		if _, err := decodeTag(want.encode()[:i]); err == nil {
			t.Fatalf("truncated tag of %d bytes decoded", i)
		}
	}
}
