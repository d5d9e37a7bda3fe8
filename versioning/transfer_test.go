package versioning

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/store/remotestore"
	"github.com/prollypg/prollypg/store/remotestore/s3test"
)

// remoteURL returns the file:// URL of a new, empty remote directory.
func remoteURL(t *testing.T) string {
	return "file://" + t.TempDir() + "/remote"
}

// addOrigin records the remote origin at url in r.
func addOrigin(t *testing.T, r *Repo, url string) Remote {
	t.Helper()
	ctx := context.Background()
	if err := r.AddRemote(ctx, Remote{Name: "origin", URL: url}); err != nil {
		t.Fatal(err)
	}
	rm, err := r.Remote(ctx, "origin")
	if err != nil {
		t.Fatal(err)
	}
	return rm
}

// push pushes branch to origin's branch of the same name.
func push(t *testing.T, r *Repo, rm Remote, branch string, force bool) PushResult {
	t.Helper()
	res, err := r.Push(context.Background(), rm, RefSpec{Src: headsPrefix + branch, Dst: headsPrefix + branch}, PushOptions{Force: force})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// remoteHead returns the remote's branch head.
func remoteHead(t *testing.T, url, branch string) store.Address {
	t.Helper()
	rst, err := remotestore.Open(context.Background(), url, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rst.Close()
	a, _, err := rst.Ref(context.Background(), headsPrefix+branch)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// checkRemote reads back everything the remote's refs reach.
func checkRemote(t *testing.T, url string) {
	t.Helper()
	rst, err := remotestore.Open(context.Background(), url, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rst.Close()
	checkStore(t, rst)
}

// TestTransferRoundTrip pushes a 100,000-row database to a file://
// remote, clones it into another store, changes a row on each side in
// turn and moves the change across with a push and a fetch, comparing
// the commits and root values of both sides; each incremental transfer
// must copy a handful of chunks, not the table.
func TestTransferRoundTrip(t *testing.T) {
	ctx := context.Background()
	url := remoteURL(t)
	stA, stB := openStore(t), openStore(t)
	a, err := CreateDatabase(ctx, stA, "db", sig("a", 1))
	if err != nil {
		t.Fatal(err)
	}
	setWorking(t, a, DefaultBranch, bigTable(t, stA, 100_000))
	commitAll(t, a, DefaultBranch, "big", 10)
	if err := a.CreateTag(ctx, "v1", &Tag{Commit: mustHead(t, a), Tagger: sig("a", 11), Message: "first"}); err != nil {
		t.Fatal(err)
	}
	rmA := addOrigin(t, a, url)
	first := push(t, a, rmA, DefaultBranch, false)
	t.Logf("first push: %d chunks, %d bytes", first.Stats.Chunks, first.Stats.Bytes)
	if first.Stats.Chunks < 100 {
		t.Errorf("the first push copied %d chunks; the table alone has more", first.Stats.Chunks)
	}
	if _, err := a.Push(ctx, rmA, RefSpec{Src: tagsPrefix + "v1", Dst: tagsPrefix + "v1"}, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	checkRemote(t, url)

	b, cloned, err := Clone(ctx, stB, "copy", url, CloneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cloned.Chunks != first.Stats.Chunks+1 { // and the tag object
		t.Errorf("the clone copied %d chunks, the push %d and a tag", cloned.Chunks, first.Stats.Chunks)
	}
	sameHeads := func(what string) {
		t.Helper()
		ha, err := a.BranchHead(ctx, DefaultBranch)
		if err != nil {
			t.Fatal(err)
		}
		hb, err := b.BranchHead(ctx, DefaultBranch)
		if err != nil {
			t.Fatal(err)
		}
		if ha != hb {
			t.Fatalf("%s: heads differ: %s and %s", what, ha, hb)
		}
		if ra, rb := mustRootOf(t, a, DefaultBranch).Addr(), mustRootOf(t, b, DefaultBranch).Addr(); ra != rb {
			t.Fatalf("%s: working roots differ: %s and %s", what, ra, rb)
		}
	}
	sameHeads("after the clone")
	if _, tag, err := b.Tag(ctx, "v1"); err != nil || tag.Message != "first" {
		t.Fatalf("the clone's tag v1: %v, %v", tag, err)
	}
	rmB, err := b.Remote(ctx, "origin")
	if err != nil || rmB.URL != url {
		t.Fatalf("the clone's origin: %+v, %v", rmB, err)
	}
	if up, ok := rmB.Upstream(DefaultBranch); !ok || up != DefaultBranch {
		t.Errorf("the clone's main tracks %q, %v", up, ok)
	}
	checkStore(t, stB)

	// One row changed in the clone, pushed: a path of the table and the
	// commit travel.
	setWorking(t, b, DefaultBranch, putRows(t, mustRootOf(t, b, DefaultBranch), map[int]string{500: "changed in b"}))
	commitAll(t, b, DefaultBranch, "one row", 20)
	res := push(t, b, rmB, DefaultBranch, false)
	t.Logf("push of one changed row of 100,000: %d chunks, %d bytes (%d read)", res.Stats.Chunks, res.Stats.Bytes, res.Stats.Read)
	if res.Stats.Chunks == 0 || res.Stats.Chunks > 12 {
		t.Errorf("a one-row push copied %d chunks, want a commit, a root value and a path", res.Stats.Chunks)
	}

	// Fetched into the first database and merged (a fast-forward).
	st, err := a.Fetch(ctx, rmA, FetchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fetch of one changed row: %d chunks", st.Chunks)
	if st.Chunks != res.Stats.Chunks {
		t.Errorf("the fetch copied %d chunks, the push %d", st.Chunks, res.Stats.Chunks)
	}
	tracked, ok, err := a.RemoteBranchHead(ctx, "origin/main")
	if err != nil || !ok || tracked != res.New {
		t.Fatalf("origin/main is %s (%v, %v), want %s", tracked, ok, err, res.New)
	}
	if c, err := a.ResolveCommit(ctx, "remotes/origin/main", store.Address{}); err != nil || c != res.New {
		t.Fatalf("remotes/origin/main resolves to %s, %v", c, err)
	}
	out, err := a.MergeBranch(ctx, DefaultBranch, MergeSpec{Theirs: tracked, TheirsName: "origin/main", Author: sig("a", 30), Committer: sig("a", 30)})
	if err != nil || !out.FastForward {
		t.Fatalf("merging origin/main: %+v, %v", out, err)
	}
	sameHeads("after push and pull")
	checkStore(t, stA)
	checkRemote(t, url)

	// The tracking branch keeps its chunks through a GC of a store where
	// nothing else reaches them.
	if err := a.CreateBranch(ctx, "old", first.New, false); err != nil {
		t.Fatal(err)
	}
	if err := a.Reset(ctx, DefaultBranch, first.New, ResetHard); err != nil {
		t.Fatal(err)
	}
	if _, err := GC(ctx, stA, nil); err != nil {
		t.Fatal(err)
	}
	checkStore(t, stA)
	if _, err := LoadCommit(ctx, stA, tracked); err != nil {
		t.Fatalf("GC removed the commit of origin/main: %v", err)
	}
}

// TestPushRace runs two pushes of diverged histories to one branch at
// once: one wins, the other is rejected as not a fast-forward, and the
// remote holds the winner's history whole; pushes to different branches
// at once both land (the manifest's compare-and-set retries).
func TestPushRace(t *testing.T) {
	ctx := context.Background()
	url := remoteURL(t)
	st := openStore(t)
	a, err := CreateDatabase(ctx, st, "a", sig("a", 1))
	if err != nil {
		t.Fatal(err)
	}
	setWorking(t, a, DefaultBranch, putRows(t, mustRootOf(t, a, DefaultBranch), map[int]string{1: "base"}))
	commitAll(t, a, DefaultBranch, "base", 10)
	rmA := addOrigin(t, a, url)
	push(t, a, rmA, DefaultBranch, false)
	b, _, err := Clone(ctx, st, "b", url, CloneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rmB, _ := b.Remote(ctx, "origin")
	for i, r := range []*Repo{a, b} {
		setWorking(t, r, DefaultBranch, putRows(t, mustRootOf(t, r, DefaultBranch), map[int]string{2 + i: r.Name()}))
		commitAll(t, r, DefaultBranch, "diverge "+r.Name(), int64(20+i))
		if err := r.CreateBranch(ctx, "side-"+r.Name(), mustHead(t, r), false); err != nil {
			t.Fatal(err)
		}
	}
	for round := 0; round < 2; round++ {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		heads := make([]store.Address, 2)
		for i, job := range []struct {
			r  *Repo
			rm Remote
		}{{a, rmA}, {b, rmB}} {
			branch := DefaultBranch
			if round == 1 {
				branch = "side-" + job.r.Name()
			}
			heads[i] = mustHead(t, job.r)
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = job.r.Push(ctx, job.rm, RefSpec{Src: headsPrefix + branch, Dst: headsPrefix + branch}, PushOptions{})
			}()
		}
		wg.Wait()
		if round == 1 {
			for i, err := range errs {
				if err != nil {
					t.Fatalf("push to its own branch %d: %v", i, err)
				}
				if got := remoteHead(t, url, "side-"+[]string{"a", "b"}[i]); got != heads[i] {
					t.Errorf("side branch %d is %s, pushed %s", i, got, heads[i])
				}
			}
			continue
		}
		var rejected *PushRejectedError
		winners := 0
		for i, err := range errs {
			switch {
			case err == nil:
				winners++
				if got := remoteHead(t, url, DefaultBranch); got != heads[i] {
					t.Errorf("the winner pushed %s, the remote has %s", heads[i], got)
				}
			case errors.As(err, &rejected):
			default:
				t.Fatalf("push %d: %v", i, err)
			}
		}
		if winners != 1 {
			t.Fatalf("%d pushes won: %v", winners, errs)
		}
		if rejected == nil || rejected.Reason != "non-fast-forward" {
			t.Errorf("the loser's error: %v", rejected)
		}
	}
	checkRemote(t, url)
}

// pushedTable pushes a database whose table holds n rows to a new
// remote, and returns the remote's URL and the commit pushed.
func pushedTable(t *testing.T, n int) (string, store.Address) {
	t.Helper()
	url := remoteURL(t)
	src, err := CreateDatabase(context.Background(), store.NewMemory(), "src", sig("a", 1))
	if err != nil {
		t.Fatal(err)
	}
	setWorking(t, src, DefaultBranch, bigTable(t, src.Store(), n))
	head := commitAll(t, src, DefaultBranch, "big", 10)
	push(t, src, addOrigin(t, src, url), DefaultBranch, false)
	return url, head
}

// mustHead returns r's main head.
func mustHead(t *testing.T, r *Repo) store.Address {
	t.Helper()
	h, err := r.BranchHead(context.Background(), DefaultBranch)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// failingStore is a transfer's destination that fails every Put after
// the first n: a transfer cut short.
type failingStore struct {
	transferStore
	n int
}

var errCut = errors.New("cut")

func (f *failingStore) Put(ctx context.Context, chunk []byte) (store.Address, error) {
	if f.n == 0 {
		return store.Address{}, errCut
	}
	f.n--
	return f.transferStore.Put(ctx, chunk)
}

// TestTransferInterrupted cuts copies short after various numbers of
// chunks, into a store and into a remote, and retries them: whatever the
// destination held after the cut, it held whole subtrees (the retry
// stops at what it holds, so a hole would stay and fail the check); a
// remote whose push was cut shows none of it.
func TestTransferInterrupted(t *testing.T) {
	ctx := context.Background()
	src := store.NewMemory()
	r, err := CreateDatabase(ctx, src, "db", sig("a", 1))
	if err != nil {
		t.Fatal(err)
	}
	setWorking(t, r, DefaultBranch, bigTable(t, src, 20_000))
	commitAll(t, r, DefaultBranch, "big", 10)
	setWorking(t, r, DefaultBranch, putRows(t, mustRootOf(t, r, DefaultBranch), map[int]string{7: "x"}))
	head := commitAll(t, r, DefaultBranch, "small", 20)
	full, err := copyChunks(ctx, src, store.NewMemory(), []store.Address{head}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{0, 1, 2, 5, 30, full.Chunks / 2, full.Chunks - 1} {
		t.Run(fmt.Sprintf("store/%d", cut), func(t *testing.T) {
			dst := store.NewMemory()
			if _, err := copyChunks(ctx, src, &failingStore{dst, cut}, []store.Address{head}, nil, nil); !errors.Is(err, errCut) {
				t.Fatalf("the cut copy: %v", err)
			}
			if _, err := copyChunks(ctx, src, dst, []store.Address{head}, nil, nil); err != nil {
				t.Fatal(err)
			}
			if err := dst.UpdateRefs(ctx, []store.RefUpdate{{Name: "db/db/heads/main", New: head}}, true); err != nil {
				t.Fatal(err)
			}
			checkStore(t, dst)
		})
	}
	url := remoteURL(t)
	for _, cut := range []int{3, full.Chunks - 1} {
		rst, err := remotestore.Open(ctx, url, true)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := copyChunks(ctx, src, &failingStore{rst, cut}, []store.Address{head}, nil, nil); !errors.Is(err, errCut) {
			t.Fatalf("the cut push: %v", err)
		}
		rst.Close()
		if got := remoteHead(t, url, DefaultBranch); !got.IsZero() {
			t.Fatalf("a cut push moved the remote's branch to %s", got)
		}
	}
	rm := addOrigin(t, r, url)
	res := push(t, r, rm, DefaultBranch, false)
	if res.New != head || remoteHead(t, url, DefaultBranch) != head {
		t.Fatalf("the retried push: %+v", res)
	}
	checkRemote(t, url)
}

// cancellingStore is a store.DB that cancels a context once it has taken
// n chunks: a statement cancelled in the middle of a fetch.
type cancellingStore struct {
	*store.DB
	n      int
	cancel context.CancelFunc
}

func (c *cancellingStore) Put(ctx context.Context, chunk []byte) (store.Address, error) {
	if c.n--; c.n == 0 {
		c.cancel()
	}
	return c.DB.Put(ctx, chunk)
}

// TestFetchCancelled cancels fetches at several points: the fetch fails
// with the context's error and moves no ref, the store holds whole
// subtrees only, and a fetch with a live context completes.
func TestFetchCancelled(t *testing.T) {
	ctx := context.Background()
	url, head := pushedTable(t, 20_000)
	for _, n := range []int{1, 10, 60} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			cs := &cancellingStore{DB: openStore(t)}
			r, err := CreateDatabase(ctx, cs, "db", sig("b", 1))
			if err != nil {
				t.Fatal(err)
			}
			rm := addOrigin(t, r, url)
			cctx, cancel := context.WithCancel(ctx)
			cs.cancel = cancel
			cs.n = n
			if _, err := r.Fetch(cctx, rm, FetchOptions{}); !errors.Is(err, context.Canceled) {
				t.Fatalf("the cancelled fetch: %v", err)
			}
			if _, ok, err := r.RemoteBranchHead(ctx, "origin/main"); ok || err != nil {
				t.Fatalf("a cancelled fetch moved origin/main (%v)", err)
			}
			if _, err := r.Fetch(ctx, rm, FetchOptions{}); err != nil {
				t.Fatal(err)
			}
			if got, _, _ := r.RemoteBranchHead(ctx, "origin/main"); got != head {
				t.Fatalf("origin/main is %s after the retry, want %s", got, head)
			}
			checkStore(t, cs.DB)
		})
	}
}

// collectingStore is a store.DB that runs a whole garbage collection
// when it has taken n chunks: one that begins and ends in the middle of
// a fetch, removing what the fetch wrote before it and keeping what
// comes after, which refers to it.
type collectingStore struct {
	*store.DB
	t *testing.T
	n int
}

func (c *collectingStore) Put(ctx context.Context, chunk []byte) (store.Address, error) {
	if c.n--; c.n == 0 {
		res, err := GC(ctx, c.DB, nil)
		if err != nil {
			c.t.Errorf("GC: %v", err)
		}
		c.t.Logf("the GC during the fetch removed %d chunks", res.ChunksRemoved)
	}
	return c.DB.Put(ctx, chunk)
}

// TestFetchDuringGC runs a GC in the middle of a fetch and of a clone:
// they copy again what the GC removed and complete, and the store holds
// everything their refs reach.
func TestFetchDuringGC(t *testing.T) {
	ctx := context.Background()
	url, head := pushedTable(t, 20_000)

	cs := &collectingStore{DB: openStore(t), t: t}
	r, err := CreateDatabase(ctx, cs, "db", sig("b", 1))
	if err != nil {
		t.Fatal(err)
	}
	rm := addOrigin(t, r, url)
	cs.n = 50
	if _, err := r.Fetch(ctx, rm, FetchOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := r.RemoteBranchHead(ctx, "origin/main"); got != head {
		t.Fatalf("origin/main is %s, want %s", got, head)
	}
	checkStore(t, cs.DB)

	fresh := &collectingStore{DB: openStore(t), t: t, n: 30}
	c, _, err := Clone(ctx, fresh, "copy", url, CloneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := mustHead(t, c); got != head {
		t.Fatalf("the clone's main is %s, want %s", got, head)
	}
	checkStore(t, fresh.DB)
}

// TestTransferLarge pushes and clones a 1,000,000-row table (40 MB): the
// remote gets a few table files, not a file or an fsync per chunk, and
// the clone syncs its store about once.
func TestTransferLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1,000,000-row table")
	}
	testTransferLarge(t, remoteURL(t))
}

// TestTransferLargeS3 is TestTransferLarge through an s3:// remote on a
// real SeaweedFS.
func TestTransferLargeS3(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1,000,000-row table")
	}
	srv := s3test.Start(t)
	for _, kv := range srv.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	testTransferLarge(t, srv.URL("large", "db"))
}

func testTransferLarge(t *testing.T, url string) {
	ctx := context.Background()
	stA, stB := openStore(t), openStore(t)
	a, err := CreateDatabase(ctx, stA, "db", sig("a", 1))
	if err != nil {
		t.Fatal(err)
	}
	setWorking(t, a, DefaultBranch, bigTable(t, stA, 1_000_000))
	commitAll(t, a, DefaultBranch, "big", 10)
	began := time.Now()
	res := push(t, a, addOrigin(t, a, url), DefaultBranch, false)
	pushed := time.Since(began)
	rst, err := remotestore.Open(ctx, url, false)
	if err != nil {
		t.Fatal(err)
	}
	tables := 0
	rst.ListTables(func(string) { tables++ })
	rst.Close()
	began = time.Now()
	_, st, err := Clone(ctx, stB, "copy", url, CloneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("push: %d chunks, %d bytes, %d table files, %v; clone: %d chunks, %v, %d fsyncs of the store",
		res.Stats.Chunks, res.Stats.Bytes, tables, pushed, st.Chunks, time.Since(began), stB.Stats().Syncs)
	if max := 1 + int(res.Stats.Bytes>>25); tables > max {
		t.Errorf("%d table files for %d bytes, want at most %d", tables, res.Stats.Bytes, max)
	}
	if n := stB.Stats().Syncs; n > 3 {
		t.Errorf("the clone synced its store %d times", n)
	}
}

// TestTransferProgress checks that a transfer reports its progress to the
// function WithTransferProgress gives it, ending with every chunk copied.
func TestTransferProgress(t *testing.T) {
	ctx := context.Background()
	url := remoteURL(t)
	st := openStore(t)
	a, err := CreateDatabase(ctx, st, "db", sig("a", 1))
	if err != nil {
		t.Fatal(err)
	}
	setWorking(t, a, DefaultBranch, bigTable(t, st, 20_000))
	commitAll(t, a, DefaultBranch, "big", 10)
	rm := addOrigin(t, a, url)
	var calls int
	var last TransferStats
	pctx := WithTransferProgress(ctx, 0, func(s TransferStats, elapsed time.Duration) {
		if s.Chunks < last.Chunks || elapsed < 0 {
			t.Errorf("progress went back: %+v after %+v", s, last)
		}
		calls++
		last = s
	})
	res, err := a.Push(pctx, rm, RefSpec{Src: headsPrefix + DefaultBranch, Dst: headsPrefix + DefaultBranch}, PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || last.Chunks != res.Stats.Chunks || last.Bytes != res.Stats.Bytes {
		t.Errorf("%d progress reports, the last %+v; the push copied %+v", calls, last, res.Stats)
	}
}
