package versioning

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// withTestTable returns root with table public.t of testTable (columns v0,
// v1, an index on v1), empty, written to root's store.
func withTestTable(t testing.TB, root RootValue) RootValue {
	t.Helper()
	ctx := context.Background()
	empty, err := prolly.NewMap(ctx, root.Store())
	if err != nil {
		t.Fatal(err)
	}
	tbl := &sqldef.Table{Schema: "public", Name: "t", PrimaryKey: []int{0},
		Columns: []sqldef.Column{{Name: "v0", Type: 25, Typmod: -1}, {Name: "v1", Type: 25, Typmod: -1}},
		Indexes: []sqldef.Index{{Name: "t_v1", Columns: []sqldef.IndexColumn{{Column: 1}}, Rows: empty.Root()}},
		Rows:    empty.Root()}
	if root, err = root.PutTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	return root
}

// rowsFrom returns rows from..from+n-1 whose second field is tag and i,
// padded to size bytes (past MaxInlineValue, stored as blobs).
func rowsFrom(from, n, size int, tag string) map[int][]byte {
	rows := map[int][]byte{}
	for i := from; i < from+n; i++ {
		v := fmt.Sprintf("%s %d ", tag, i)
		rows[i] = row(fmt.Sprint(i), v+strings.Repeat("x", max(size-len(v), 0)))
	}
	return rows
}

// markRefs marks, as GC would, what the refs that keep accepts and the
// root values extra reach.
func markRefs(t testing.TB, st Store, keep func(name string) bool, extra ...store.Address) *marker {
	t.Helper()
	ctx := context.Background()
	m := &marker{cs: st, seen: map[store.Address]struct{}{}}
	err := st.ListRefs(ctx, "", func(name string, a store.Address) error {
		if keep != nil && !keep(name) {
			return nil
		}
		return m.ref(ctx, name, a)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range extra {
		if err := m.rootValue(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// checkStore reads back everything every ref reaches, through the public
// API rather than the mark's code: every commit of every branch and tag
// and every root of every working set, with prolly's Check of the root
// value's map and of every table's, index's and conflict's map; plus the
// root values extra. It returns the number of maps checked.
func checkStore(t testing.TB, st Store, extra ...store.Address) int {
	t.Helper()
	ctx := context.Background()
	checked := map[store.Address]bool{}
	checkMap := func(a store.Address) {
		if a.IsZero() || checked[a] {
			return
		}
		checked[a] = true
		m, err := prolly.Load(ctx, st, a)
		if err == nil {
			err = m.Check(ctx)
		}
		if err != nil {
			t.Fatalf("map %s: %v", a, err)
		}
	}
	checkTable := func(tbl *sqldef.Table) {
		checkMap(tbl.Rows)
		for _, ix := range tbl.Indexes {
			checkMap(ix.Rows)
		}
	}
	checkRoot := func(a store.Address) {
		if a.IsZero() || checked[a] {
			return
		}
		checkMap(a)
		root, err := LoadRootValue(ctx, st, a)
		if err != nil {
			t.Fatal(err)
		}
		tables, err := root.Tables(ctx)
		if err != nil {
			t.Fatalf("root %s: %v", a, err)
		}
		for _, tbl := range tables {
			checkTable(tbl)
		}
		conflicts, err := root.AllConflicts(ctx)
		if err != nil {
			t.Fatalf("root %s: %v", a, err)
		}
		for _, c := range conflicts {
			checkMap(c.Rows)
			checkMap(c.Violations)
			for _, tbl := range []*sqldef.Table{c.Base, c.Ours, c.Theirs} {
				if tbl != nil {
					checkTable(tbl)
				}
			}
		}
	}
	seenCommits := map[store.Address]bool{}
	checkHistory := func(head store.Address) {
		stack := []store.Address{head}
		for len(stack) > 0 {
			a := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if a.IsZero() || seenCommits[a] {
				continue
			}
			seenCommits[a] = true
			c, err := LoadCommit(ctx, st, a)
			if err != nil {
				t.Fatal(err)
			}
			checkRoot(c.Root)
			stack = append(stack, c.Parents...)
		}
	}
	err := st.ListRefs(ctx, "", func(name string, a store.Address) error {
		switch {
		case name == rolesRef:
			_, _, err := LoadRoles(ctx, st)
			return err
		case strings.Contains(name, "/heads/"):
			checkHistory(a)
		case strings.Contains(name, "/tags/"):
			b, err := st.Get(ctx, a)
			if err != nil {
				return err
			}
			tag, err := decodeTag(b)
			if err != nil {
				return err
			}
			checkHistory(tag.Commit)
		case strings.Contains(name, "/ws/"):
			b, err := st.Get(ctx, a)
			if err != nil {
				return err
			}
			ws, err := decodeWorkingSet(b)
			if err != nil {
				return err
			}
			checkRoot(ws.Working)
			checkRoot(ws.Staged)
			checkRoot(ws.PreMerge)
			checkHistory(ws.MergeCommit)
		case strings.Contains(name, "/remotes/"): // a remote-tracking branch
			checkHistory(a)
		case strings.HasSuffix(name, "/remotes"), strings.HasSuffix(name, "/backups"), name == branchControlRef:
			if _, err := st.Get(ctx, a); err != nil {
				return err
			}
		default:
			return fmt.Errorf("ref %q of unknown kind", name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range extra {
		checkRoot(a)
	}
	return len(checked)
}

// minus returns the chunks of a that b lacks.
func minus(a, b *marker) []store.Address {
	var out []store.Address
	for x := range a.seen { // no walk is running
		if !b.live(x) {
			out = append(out, x)
		}
	}
	return out
}

// TestGCRemovesUnreachable builds a repository with a tag, a branch merged
// with conflicts and then deleted (its commit kept by the working set), a
// second branch with commits and uncommitted changes, and two uncommitted
// root values; deletes the second branch; collects, keeping one of the
// root values: exactly the chunks the refs and that root value reach
// remain, the deleted branch's and the other root value's are gone, and
// everything left reads back.
func TestGCRemovesUnreachable(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	if err := UpdateRoles(ctx, st, func(roles map[string]*sqldef.Role) error {
		roles["postgres"] = &sqldef.Role{Name: "postgres", Superuser: true}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	r, err := CreateDatabase(ctx, st, "db", who)
	if err != nil {
		t.Fatal(err)
	}
	root := editRows(t, withTestTable(t, mustRootOf(t, r, DefaultBranch)), rowsFrom(0, 500, 40, "base"))
	setWorking(t, r, DefaultBranch, root)
	base := commitAll(t, r, DefaultBranch, "load", 1)
	if err := r.CreateTag(ctx, "v1", &Tag{Commit: base, Tagger: who, Message: "v1"}); err != nil {
		t.Fatal(err)
	}
	if err := r.AddRemote(ctx, Remote{Name: "origin", URL: "file:///tmp/origin"}); err != nil {
		t.Fatal(err)
	}
	if err := UpdateBranchControl(ctx, st, func(bc *BranchControl) error {
		bc.Namespace = append(bc.Namespace, BranchNamespace{"%", "%", "postgres", "%"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	// A merge with a row conflict, from a branch then deleted: the working
	// set's merge commit and conflict record keep its data.
	if err := r.CreateBranch(ctx, "theirs", base, false); err != nil {
		t.Fatal(err)
	}
	setWorking(t, r, "theirs", editRows(t, mustRootOf(t, r, "theirs"), map[int][]byte{1: row("1", "theirs"), 700: row("700", strings.Repeat("t", 3000))}))
	theirs := commitAll(t, r, "theirs", "theirs", 2)
	setWorking(t, r, DefaultBranch, editRows(t, mustRootOf(t, r, DefaultBranch), map[int][]byte{1: row("1", "ours")}))
	commitAll(t, r, DefaultBranch, "ours", 3)
	out, err := r.MergeBranch(ctx, DefaultBranch, MergeSpec{Theirs: theirs, TheirsName: "theirs", Author: who, Committer: who, Indexes: testEncoder{}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Result.Conflicts == 0 {
		t.Fatalf("merge outcome %+v, want a conflict", out)
	}
	if err := r.DeleteBranch(ctx, "theirs"); err != nil {
		t.Fatal(err)
	}

	// The branch to delete: commits and uncommitted changes of its own.
	if err := r.CreateBranch(ctx, "feature", base, false); err != nil {
		t.Fatal(err)
	}
	for c := range 3 {
		setWorking(t, r, "feature", editRows(t, mustRootOf(t, r, "feature"), rowsFrom(1000+c*100, 100, 3000, "feature")))
		commitAll(t, r, "feature", fmt.Sprint("feature ", c), int64(10+c))
	}
	setWorking(t, r, "feature", editRows(t, mustRootOf(t, r, "feature"), rowsFrom(2000, 10, 100, "uncommitted")))

	// Root values no ref names, as transactions hold them.
	kept := editRows(t, mustRootOf(t, r, DefaultBranch), rowsFrom(5000, 10, 3000, "kept"))
	lost := editRows(t, mustRootOf(t, r, DefaultBranch), rowsFrom(6000, 10, 3000, "lost"))

	featureOnly := markRefs(t, st, func(name string) bool { return strings.HasSuffix(name, "/feature") })
	if err := r.DeleteBranch(ctx, "feature"); err != nil {
		t.Fatal(err)
	}
	survivors := markRefs(t, st, nil, kept.Addr())
	lostOnly := markRefs(t, st, func(string) bool { return false }, lost.Addr())
	doomed := append(minus(featureOnly, survivors), minus(lostOnly, survivors)...)
	if len(doomed) < 100 {
		t.Fatalf("only %d chunks unique to the deleted branch and the lost root", len(doomed))
	}
	before := checkStore(t, st, kept.Addr())

	res, err := GC(ctx, st, func(context.Context) ([]store.Address, error) { return []store.Address{kept.Addr()}, nil })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
	if res.Marked != len(survivors.seen) || res.ChunksKept != uint64(res.Marked) {
		t.Errorf("marked %d chunks and kept %d, want %d: exactly the reachable ones", res.Marked, res.ChunksKept, len(survivors.seen))
	}
	if res.ChunksRemoved < uint64(len(doomed)) {
		t.Errorf("removed %d chunks, fewer than the %d unique to the deleted data", res.ChunksRemoved, len(doomed))
	}
	for _, a := range doomed {
		if _, err := st.Get(ctx, a); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unreachable chunk %s: Get = %v, want ErrNotFound", a, err)
		}
	}
	if after := checkStore(t, st, kept.Addr()); after != before {
		t.Errorf("%d maps checked after GC, %d before", after, before)
	}
	if err := st.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if c, _, err := r.CommitRoot(ctx, theirs); err != nil || c.Addr().IsZero() {
		t.Fatalf("the merge commit: %v", err)
	}

	// Nothing left to collect.
	res, err = GC(ctx, st, func(context.Context) ([]store.Address, error) { return []store.Address{kept.Addr()}, nil })
	if err != nil || res.ChunksRemoved != 0 {
		t.Fatalf("second GC: %+v, %v; want nothing removed", res, err)
	}
	// Without the extra root, its chunks go.
	if _, err := GC(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadRootValue(ctx, st, kept.Addr()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("root value no longer passed: %v, want ErrNotFound", err)
	}
	if remotes, err := r.Remotes(ctx); err != nil || len(remotes) != 1 {
		t.Fatalf("remotes after GC: %v, %v", remotes, err)
	}
	if bc, _, err := LoadBranchControl(ctx, st); err != nil || len(bc.Namespace) != 1 {
		t.Fatalf("branch permissions after GC: %v, %v", bc, err)
	}
	checkStore(t, st)
}

// TestGCRefusesUnknownRefs checks that a ref the mark does not understand
// fails the collection before anything is removed.
func TestGCRefusesUnknownRefs(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	if _, err := CreateDatabase(ctx, st, "db", who); err != nil {
		t.Fatal(err)
	}
	a, err := st.Put(ctx, []byte("something"))
	if err != nil {
		t.Fatal(err)
	}
	garbage, _ := st.Put(ctx, []byte("garbage"))
	if err := st.UpdateRefs(ctx, []store.RefUpdate{{Name: "db/db/remotes/origin", New: a}}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := GC(ctx, st, nil); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("GC with an unknown ref: %v, want ErrCorrupt", err)
	}
	if ok, _ := st.Has(ctx, garbage); !ok {
		t.Fatal("a failed GC removed a chunk")
	}
}

// TestGCDiskSpace loads 80,000 rows on a branch through prolly, commits
// four updates of 5% of them, deletes the branch and collects: the
// directory then takes within 20% of a fresh store holding only the live
// data (the same chunks and refs, copied).
func TestGCDiskSpace(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 80,000 rows")
	}
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { st.Close() }()
	r, err := CreateDatabase(ctx, st, "db", who)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	payload := func() []byte {
		p := make([]byte, 100)
		for i := range p {
			p[i] = byte('a' + rng.IntN(26))
		}
		return p
	}
	bulk := func(name string, n int) (prolly.Map, *sqldef.Table) {
		b := prolly.NewBuilder(st)
		for i := range n {
			if err := b.Add(ctx, rowKey(i), payload()); err != nil {
				t.Fatal(err)
			}
		}
		rows, err := b.Finish(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return rows, &sqldef.Table{Schema: "public", Name: name, Columns: []sqldef.Column{{Name: "v", Type: 25, Typmod: -1}}, Rows: rows.Root()}
	}
	// Live: 40,000 rows on main.
	_, small := bulk("live", 40000)
	root, err := mustRootOf(t, r, DefaultBranch).PutTable(ctx, small)
	if err != nil {
		t.Fatal(err)
	}
	setWorking(t, r, DefaultBranch, root)
	base := commitAll(t, r, DefaultBranch, "live data", 1)

	// Garbage: 80,000 rows and four updates on a branch then deleted.
	if err := r.CreateBranch(ctx, "load", base, false); err != nil {
		t.Fatal(err)
	}
	const n = 80000
	rows, big := bulk("big", n)
	if root, err = mustRootOf(t, r, "load").PutTable(ctx, big); err != nil {
		t.Fatal(err)
	}
	setWorking(t, r, "load", root)
	commitAll(t, r, "load", "load", 2)
	for u := range 4 {
		var edits []prolly.Edit
		for i := 0; i < n; i += 20 {
			edits = append(edits, prolly.Edit{Key: rowKey(i + rng.IntN(20)), Value: payload()})
		}
		if rows, err = rows.Apply(ctx, edits); err != nil {
			t.Fatal(err)
		}
		big.Rows = rows.Root()
		if root, err = root.PutTable(ctx, big); err != nil {
			t.Fatal(err)
		}
		setWorking(t, r, "load", root)
		commitAll(t, r, "load", fmt.Sprint("update ", u), int64(3+u))
	}
	if err := r.DeleteBranch(ctx, "load"); err != nil {
		t.Fatal(err)
	}
	res, err := GC(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	live := markRefs(t, st, nil)
	checkStore(t, st)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := store.DiskUsage(dir)
	if err != nil {
		t.Fatal(err)
	}
	afterJournal, _ := store.DiskUsage(dir + "/chunks.journal")

	// The fresh store: the live chunks and the refs, copied.
	st, err = store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	freshDir := t.TempDir()
	fresh, err := store.Open(freshDir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for a := range live.seen {
		data, err := st.Get(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fresh.Put(ctx, append([]byte(nil), data...)); err != nil {
			t.Fatal(err)
		}
	}
	var updates []store.RefUpdate
	if err := st.ListRefs(ctx, "", func(name string, a store.Address) error {
		updates = append(updates, store.RefUpdate{Name: name, New: a})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := fresh.UpdateRefs(ctx, updates, true); err != nil {
		t.Fatal(err)
	}
	if err := fresh.Close(); err != nil {
		t.Fatal(err)
	}
	want, err := store.DiskUsage(freshDir)
	if err != nil {
		t.Fatal(err)
	}
	wantJournal, _ := store.DiskUsage(freshDir + "/chunks.journal")
	t.Logf("GC: marked %d chunks in %v; kept %d chunks (%d KiB), removed %d (%d KiB); sweep %v, reclaim %v",
		res.Marked, res.Mark, res.ChunksKept, res.BytesKept>>10, res.ChunksRemoved, res.BytesRemoved>>10, res.Sweep, res.Reclaim)
	t.Logf("directory: %d KiB before GC, %d KiB after (%d KiB closed, journal %d KiB); fresh store %d KiB (journal %d KiB)",
		res.DiskBefore>>10, res.DiskAfter>>10, after>>10, afterJournal>>10, want>>10, wantJournal>>10)
	if float64(after) > 1.2*float64(want) {
		t.Errorf("after GC the directory takes %d KiB, a fresh store with the live data %d KiB", after>>10, want>>10)
	}
	if a, w := after-afterJournal, want-wantJournal; float64(a) > 1.2*float64(w) {
		t.Errorf("after GC Badger takes %d KiB, in a fresh store %d KiB", a>>10, w>>10)
	}
	if res.DiskBefore < 2*after {
		t.Errorf("GC freed too little: %d KiB before, %d KiB after", res.DiskBefore>>10, after>>10)
	}
}

// txnRoots is what a SQL layer would keep for GC: the start and current
// root of every running transaction. Reading a root from a ref and
// registering it happen under mu, as GC's call of roots does, so that a
// root read before the call is in its answer.
type txnRoots struct {
	mu    sync.Mutex
	roots map[int][]store.Address
}

func (tr *txnRoots) set(w int, roots ...store.Address) {
	tr.mu.Lock()
	tr.roots[w] = roots
	tr.mu.Unlock()
}

func (tr *txnRoots) all(context.Context) ([]store.Address, error) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []store.Address
	for _, rs := range tr.roots {
		out = append(out, rs...)
	}
	return out, nil
}

// begin reads main's working root and registers it as w's start.
func (tr *txnRoots) begin(ctx context.Context, r *Repo, w int) (RootValue, error) {
	return tr.beginOn(ctx, r, w, DefaultBranch)
}

// beginOn reads branch's working root and registers it as w's start.
func (tr *txnRoots) beginOn(ctx context.Context, r *Repo, w int, branch string) (RootValue, error) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	_, _, _, working, _, err := r.Roots(ctx, branch)
	if err == nil {
		tr.roots[w] = []store.Address{working.Addr()}
	}
	return working, err
}

// TestGCConcurrent collects, twice, while four writers commit transactions
// (and now and then a commit) and a reader reads old commits: afterwards
// every ref checks clean and every committed row is there.
func TestGCConcurrent(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	r, err := CreateDatabase(ctx, st, "db", who)
	if err != nil {
		t.Fatal(err)
	}
	setWorking(t, r, DefaultBranch, editRows(t, withTestTable(t, mustRootOf(t, r, DefaultBranch)), rowsFrom(0, 300, 100, "seed")))
	commitAll(t, r, DefaultBranch, "seed", 1)
	// Garbage to collect: a branch with data of its own, deleted.
	if err := r.CopyBranch(ctx, DefaultBranch, "junk", false); err != nil {
		t.Fatal(err)
	}
	setWorking(t, r, "junk", editRows(t, mustRootOf(t, r, "junk"), rowsFrom(9000, 200, 3000, "junk")))
	commitAll(t, r, "junk", "junk", 2)
	if err := r.DeleteBranch(ctx, "junk"); err != nil {
		t.Fatal(err)
	}

	tr := &txnRoots{roots: map[int][]store.Address{}}
	var (
		wg        sync.WaitGroup
		stop      atomic.Bool
		committed [4][]int
		commits   atomic.Int64
		dangling  atomic.Int64
		errs      = make(chan error, 8)
	)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer tr.set(w)
			for i := 0; !stop.Load() && i < 1000; i++ {
				start, err := tr.begin(ctx, r, w)
				if err != nil {
					errs <- err
					return
				}
				key := 1000 + w*1000 + i
				cur := editRows(t, start, rowsFrom(key, 1, 200+i%3*1500, fmt.Sprint("writer ", w)))
				tr.set(w, start.Addr(), cur.Addr())
				if _, err := r.CommitTransaction(ctx, DefaultBranch, start, cur, testEncoder{}); errors.Is(err, store.ErrDanglingRef) {
					// A GC ran whole between a write and the commit
					// and removed what only this transaction reached
					// (the Committer's working set): it fails, as a
					// serialization failure would.
					dangling.Add(1)
					continue
				} else if err != nil {
					errs <- fmt.Errorf("writer %d, transaction %d: %w", w, i, err)
					return
				}
				committed[w] = append(committed[w], key)
				if w == 0 && i%10 == 9 {
					_, err := r.Commit(ctx, DefaultBranch, CommitOptions{Message: fmt.Sprint("commit ", i), Author: who, Committer: who,
						Stage: func(_ context.Context, _, _, working RootValue) (RootValue, error) { return working, nil }})
					if errors.Is(err, store.ErrDanglingRef) {
						// The same race for a commit's own chunks: it
						// fails rather than point the branch at a hole.
						dangling.Add(1)
					} else if err != nil {
						errs <- err
						return
					} else {
						commits.Add(1)
					}
				}
			}
		}()
	}
	var reads atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			head, err := r.BranchHead(ctx, DefaultBranch)
			if err != nil {
				errs <- err
				return
			}
			log, err := r.Log(ctx, []store.Address{head}, nil)
			if err != nil {
				errs <- err
				return
			}
			for _, e := range log {
				root, _, err := r.CommitRoot(ctx, e.Addr)
				if err != nil {
					errs <- fmt.Errorf("reading commit %s: %w", e.Addr, err)
					return
				}
				if _, err := tableRowsErr(ctx, root); err != nil {
					errs <- fmt.Errorf("reading commit %s: %w", e.Addr, err)
					return
				}
				reads.Add(1)
			}
		}
	}()
	var results []GCResult
	for range 2 {
		time.Sleep(100 * time.Millisecond)
		res, err := GC(ctx, st, tr.all)
		if err != nil {
			stop.Store(true)
			wg.Wait()
			t.Fatal(err)
		}
		results = append(results, res)
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, res := range results {
		t.Logf("GC: %d refs, %d extra roots, marked %d, removed %d, mark %v, sweep %v, reclaim %v",
			res.Refs, res.ExtraRoots, res.Marked, res.ChunksRemoved, res.Mark, res.Sweep, res.Reclaim)
	}
	if results[0].ChunksRemoved == 0 {
		t.Error("the first GC removed nothing")
	}
	final := mustRootOf(t, r, DefaultBranch)
	got, err := tableRowsErr(ctx, final)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for w := range committed {
		for _, k := range committed[w] {
			if _, ok := got[string(rowKey(k))]; !ok {
				t.Fatalf("writer %d's committed row %d is missing", w, k)
			}
			n++
		}
	}
	t.Logf("%d transactions and %d commits committed, %d old commits read, %d transactions refused as dangling", n, commits.Load(), reads.Load(), dangling.Load())
	checkStore(t, st)
	if err := st.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// tableRowsErr reads every row and index entry of table t.
func tableRowsErr(ctx context.Context, root RootValue) (map[string]bool, error) {
	tbl, ok, err := root.Table(ctx, "public", "t")
	if err != nil || !ok {
		return nil, err
	}
	out := map[string]bool{}
	for i, a := range append([]store.Address{tbl.Rows}, tbl.Indexes[0].Rows) {
		m, err := prolly.Load(ctx, root.Store(), a)
		if err != nil {
			return nil, err
		}
		it := m.NewIter(ctx, prolly.IterOptions{})
		for ok := it.First(); ok; ok = it.Next() {
			if _, err := it.Value(); err != nil {
				return nil, err
			}
			if i == 0 {
				out[string(it.Key())] = true
			}
		}
		if err := it.Close(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

const (
	gcCrashDirEnv = "PROLLYPG_GC_CRASH_DIR"
	gcCrashSeed   = "PROLLYPG_GC_CRASH_SEED"
)

// TestGCCrashChild is the child process of TestGCAfterKill: it commits
// transactions and makes and deletes branches on the store in the
// directory it is given while GC runs in a loop, printing each committed
// row, until it is killed.
func TestGCCrashChild(t *testing.T) {
	dir := os.Getenv(gcCrashDirEnv)
	if dir == "" {
		t.Skip("helper process of TestGCAfterKill")
	}
	seed, _ := strconv.ParseUint(os.Getenv(gcCrashSeed), 10, 64)
	rng := rand.New(rand.NewPCG(seed, 3))
	ctx := context.Background()
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := CreateDatabase(ctx, st, "db", who)
	if err != nil {
		t.Fatal(err)
	}
	setWorking(t, r, DefaultBranch, editRows(t, withTestTable(t, mustRootOf(t, r, DefaultBranch)), rowsFrom(0, 100, 100, "seed")))
	commitAll(t, r, DefaultBranch, "seed", 1)
	tr := &txnRoots{roots: map[int][]store.Address{}}
	go func() {
		for {
			if _, err := GC(ctx, st, tr.all); err != nil {
				fmt.Printf("GC FAILED %v\n", err)
				os.Stdout.Sync()
				return
			}
			fmt.Println("GC")
		}
	}()
	for i := 0; ; i++ {
		start, err := tr.begin(ctx, r, 0)
		if err != nil {
			t.Fatal(err)
		}
		cur := editRows(t, start, rowsFrom(1000+i, 1, 100+rng.IntN(3400), "row"))
		tr.set(0, start.Addr(), cur.Addr())
		if _, err := r.CommitTransaction(ctx, DefaultBranch, start, cur, testEncoder{}); errors.Is(err, store.ErrDanglingRef) {
			fmt.Println("DANGLING") // see TestGCConcurrent
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("COMMITTED %d\n", 1000+i)
		if i%5 == 4 {
			// Garbage: a branch loaded with rows and deleted.
			branch := fmt.Sprint("junk", i)
			// Built from roots no GC is told of: if a sweep removes
			// part of it before the ref moves, the move must fail
			// (store.ErrDanglingRef), never leave a ref to a hole.
			if err := r.CopyBranch(ctx, DefaultBranch, branch, false); err != nil {
				t.Fatal(err)
			}
			// Registered as a transaction's roots are, or a GC that runs
			// whole between the build and the ref update could remove
			// what it wrote (see GC).
			jstart, err := tr.beginOn(ctx, r, 1, branch)
			if err != nil {
				t.Fatal(err)
			}
			junk := editRows(t, jstart, rowsFrom(5000, 50, 3000, branch))
			tr.set(1, jstart.Addr(), junk.Addr())
			err = r.UpdateWorkingRoots(ctx, branch, func(_, _, _ RootValue, ws *WorkingSet) (*WorkingSet, error) {
				nws := *ws
				nws.Working = junk.Addr()
				return &nws, nil
			})
			if err == nil {
				// The commit is built outside any registered
				// transaction too: its head move may fail the same way.
				_, err = r.Commit(ctx, branch, CommitOptions{
					Message: branch, Author: sig("a", int64(i)), Committer: sig("a", int64(i)),
					Stage: func(_ context.Context, _, _, working RootValue) (RootValue, error) { return working, nil },
				})
			}
			switch {
			case errors.Is(err, store.ErrDanglingRef):
				fmt.Println("DANGLING")
			case err != nil:
				t.Fatal(err)
			}
			if err := r.DeleteBranch(ctx, branch); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestGCAfterKill kills a process that collects garbage in a loop while it
// commits, at a random moment: the store opens, every ref's data reads
// back, and every row reported committed is there.
func TestGCAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	for round := range 3 {
		t.Run(fmt.Sprint(round), testGCAfterKill)
	}
}

func testGCAfterKill(t *testing.T) {
	dir := t.TempDir()
	seed := uint64(time.Now().UnixNano())
	delay := time.Duration(300+seed%2000) * time.Millisecond
	t.Logf("seed %d, kill after %v", seed, delay)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestGCCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), gcCrashDirEnv+"="+dir, gcCrashSeed+"="+strconv.FormatUint(seed, 10))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		mu        sync.Mutex
		committed = -1
		gcs       int
		dangling  int
		failed    string
		rows      []int
		tail      []string
		done      = make(chan struct{})
	)
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			tail = append(tail, line)
			if len(tail) > 40 {
				tail = tail[1:]
			}
			if rest, ok := strings.CutPrefix(line, "COMMITTED "); ok {
				committed, _ = strconv.Atoi(rest)
				rows = append(rows, committed)
			} else if line == "GC" {
				gcs++
			} else if line == "DANGLING" {
				dangling++
			} else if strings.HasPrefix(line, "GC FAILED") || strings.HasPrefix(line, "--- FAIL") {
				failed = line
			}
			mu.Unlock()
		}
	}()
	time.Sleep(delay)
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	<-done
	_ = cmd.Wait()
	mu.Lock()
	defer mu.Unlock()
	if failed != "" {
		t.Fatalf("%s; the child's last lines:\n%s", failed, strings.Join(tail, "\n"))
	}
	t.Logf("killed after %d GCs and %d committed rows (%d updates refused as dangling)", gcs, len(rows), dangling)

	st, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	bg := context.Background()
	if err := st.Check(bg); err != nil {
		t.Fatal(err)
	}
	if committed < 0 {
		return // killed before the first commit
	}
	checkStore(t, st)
	r, err := OpenDatabase(bg, st, "db")
	if err != nil {
		t.Fatal(err)
	}
	got, err := tableRowsErr(bg, mustRootOf(t, r, DefaultBranch))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range rows {
		if !got[string(rowKey(k))] {
			t.Fatalf("committed row %d missing after kill -9", k)
		}
	}
	// And the store collects again.
	if _, err := GC(bg, st, nil); err != nil {
		t.Fatal(err)
	}
	checkStore(t, st)
}
