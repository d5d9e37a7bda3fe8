package versioning

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/prollypg/prollypg/store"
)

// dbRefs returns database name's refs by their names after db/D/,
// without the list of backups (which a backup leaves out).
func dbRefs(t *testing.T, st Store, name string) map[string]store.Address {
	t.Helper()
	refs, err := refsWithPrefix(context.Background(), st, dbPrefix(name))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]store.Address{}
	for n, a := range refs {
		if rest := strings.TrimPrefix(n, dbPrefix(name)); rest != "backups" {
			out[rest] = a
		}
	}
	return out
}

// sameRefs fails unless databases a (in stA) and b (in stB) have the
// same refs pointing at the same chunks: the same branches, tags,
// working sets, remote-tracking branches and remotes.
func sameRefs(t *testing.T, stA Store, a string, stB Store, b string) {
	t.Helper()
	ra, rb := dbRefs(t, stA, a), dbRefs(t, stB, b)
	if len(ra) != len(rb) {
		t.Errorf("%s has %d refs, %s %d: %v, %v", a, len(ra), b, len(rb), ra, rb)
	}
	for n, x := range ra {
		if rb[n] != x {
			t.Errorf("ref %s is %s in %s, %s in %s", n, x, a, rb[n], b)
		}
	}
}

// backupSource builds a database with everything a backup must carry: a
// 20,000-row table committed, an uncommitted row in main's working set,
// a second branch with a commit of its own, a tag, a remote and a
// remote-tracking branch.
func backupSource(t *testing.T, st Store) *Repo {
	t.Helper()
	ctx := context.Background()
	r, err := CreateDatabase(ctx, st, "db", sig("a", 1))
	if err != nil {
		t.Fatal(err)
	}
	setWorking(t, r, DefaultBranch, bigTable(t, st, 20_000))
	c1 := commitAll(t, r, DefaultBranch, "big", 10)
	if err := r.CreateBranch(ctx, "feature", c1, false); err != nil {
		t.Fatal(err)
	}
	setWorking(t, r, "feature", putRows(t, mustRootOf(t, r, "feature"), map[int]string{3: "feature"}))
	commitAll(t, r, "feature", "on feature", 20)
	if err := r.CreateTag(ctx, "v1", &Tag{Commit: c1, Tagger: sig("a", 30), Message: "first"}); err != nil {
		t.Fatal(err)
	}
	if err := r.AddRemote(ctx, Remote{Name: "origin", URL: "file:///nowhere"}); err != nil {
		t.Fatal(err)
	}
	if err := st.UpdateRefs(ctx, []store.RefUpdate{{Name: dbPrefix("db") + "remotes/origin/main", New: c1}}, true); err != nil {
		t.Fatal(err)
	}
	setWorking(t, r, DefaultBranch, putRows(t, mustRootOf(t, r, DefaultBranch), map[int]string{7: "uncommitted"}))
	return r
}

// TestBackupSyncRestore syncs a database to a backup, changes it, syncs
// again (a handful of chunks: a backup's sync is incremental), and
// restores the backup into another store: every ref, working sets
// included, is the original's. A restore onto a taken name fails unless
// forced; one into a store that has the chunks copies none.
func TestBackupSyncRestore(t *testing.T) {
	ctx := context.Background()
	url := remoteURL(t)
	st := openStore(t)
	r := backupSource(t, st)
	if err := r.AddBackup(ctx, Remote{Name: "bak", URL: url}); err != nil {
		t.Fatal(err)
	}
	if err := r.AddBackup(ctx, Remote{Name: "bak", URL: url + "2"}); !errors.Is(err, ErrBackupExists) {
		t.Errorf("a second backup of the name: %v", err)
	}
	if err := r.AddBackup(ctx, Remote{Name: "other", URL: url}); !errors.Is(err, ErrBackupURLConflict) {
		t.Errorf("a second backup of the URL: %v", err)
	}
	first, err := r.SyncBackup(ctx, url, BackupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A change of one row, and a branch deleted: the backup mirrors.
	setWorking(t, r, DefaultBranch, putRows(t, mustRootOf(t, r, DefaultBranch), map[int]string{900: "changed"}))
	commitAll(t, r, DefaultBranch, "one row", 40)
	if err := r.DeleteBranch(ctx, "feature"); err != nil {
		t.Fatal(err)
	}
	second, err := r.SyncBackup(ctx, url, BackupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the first sync copied %d chunks, the second %d", first.Chunks, second.Chunks)
	if first.Chunks < 100 || second.Chunks == 0 || second.Chunks > 20 {
		t.Errorf("syncs copied %d chunks, then %d for one row", first.Chunks, second.Chunks)
	}
	if again, err := r.SyncBackup(ctx, url, BackupOptions{}); err != nil || again.Chunks != 0 {
		t.Errorf("a sync with nothing new copied %d chunks (%v)", again.Chunks, err)
	}

	other := openStore(t)
	if _, _, err := Restore(ctx, other, "copy", url, BackupOptions{}); err != nil {
		t.Fatal(err)
	}
	sameRefs(t, st, "db", other, "copy")
	checkStore(t, other)
	if _, _, err := Restore(ctx, other, "copy", url, BackupOptions{}); !errors.Is(err, ErrDatabaseExists) {
		t.Errorf("a restore onto a taken name: %v", err)
	}
	// Forced onto a database of other content: it becomes the backup's.
	taken, err := CreateDatabase(ctx, other, "taken", sig("b", 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := taken.CreateBranch(ctx, "stale", mustHead(t, taken), false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Restore(ctx, other, "taken", url, BackupOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	sameRefs(t, st, "db", other, "taken")
	// Into the source's own store: everything is there already.
	_, stats, err := Restore(ctx, st, "twin", url, BackupOptions{})
	if err != nil || stats.Chunks != 0 {
		t.Errorf("a restore into a store holding everything copied %d chunks (%v)", stats.Chunks, err)
	}
	sameRefs(t, st, "db", st, "twin")
	if _, err := GC(ctx, st, nil); err != nil {
		t.Errorf("GC with a list of backups: %v", err)
	}
	checkStore(t, st)
	if err := r.RemoveBackup(ctx, "bak"); err != nil {
		t.Fatal(err)
	}
	if err := r.RemoveBackup(ctx, "bak"); !errors.Is(err, ErrNoBackup) {
		t.Errorf("removing a removed backup: %v", err)
	}
}

// TestBackupSyncCancelled cancels syncs at several points: the backup
// stays restorable, to the state of the last complete sync, and the next
// sync completes.
func TestBackupSyncCancelled(t *testing.T) {
	ctx := context.Background()
	url := remoteURL(t)
	r := backupSource(t, openStore(t))
	before := dbRefs(t, r.st, "db")
	if _, err := r.SyncBackup(ctx, url, BackupOptions{}); err != nil {
		t.Fatal(err)
	}
	setWorking(t, r, DefaultBranch, bigTable(t, r.st, 30_000))
	commitAll(t, r, DefaultBranch, "bigger", 50)
	for _, n := range []int{1, 10, 100} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			cctx, cancel := context.WithCancel(ctx)
			src := &Repo{st: &cancellingReads{DB: r.st.(*store.DB), n: n, cancel: cancel}, name: "db"}
			if _, err := src.SyncBackup(cctx, url, BackupOptions{}); !errors.Is(err, context.Canceled) {
				t.Fatalf("the cancelled sync: %v", err)
			}
			other := openStore(t)
			if _, _, err := Restore(ctx, other, "db", url, BackupOptions{}); err != nil {
				t.Fatal(err)
			}
			if got := dbRefs(t, other, "db"); fmt.Sprint(got) != fmt.Sprint(before) {
				t.Errorf("after a cancelled sync the backup restores %v, want %v", got, before)
			}
			checkStore(t, other)
		})
	}
	if _, err := r.SyncBackup(ctx, url, BackupOptions{}); err != nil {
		t.Fatal(err)
	}
	other := openStore(t)
	if _, _, err := Restore(ctx, other, "db", url, BackupOptions{}); err != nil {
		t.Fatal(err)
	}
	sameRefs(t, r.st, "db", other, "db")
}

// cancellingReads is a store.DB that cancels a context once it has been
// read n times: a statement cancelled in the middle of a sync.
type cancellingReads struct {
	*store.DB
	n      int
	cancel context.CancelFunc
}

func (c *cancellingReads) Get(ctx context.Context, a store.Address) ([]byte, error) {
	if c.n--; c.n == 0 {
		c.cancel()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.DB.Get(ctx, a)
}

// GetMany hides store.DB's, so that a transfer reads through Get.
func (c *cancellingReads) GetMany() {}

// TestRestoreDuringGC runs a garbage collection in the middle of a
// restore: it copies again what the GC removed and completes, and the
// store holds everything the restored refs reach.
func TestRestoreDuringGC(t *testing.T) {
	ctx := context.Background()
	url := remoteURL(t)
	src := backupSource(t, openStore(t))
	if _, err := src.SyncBackup(ctx, url, BackupOptions{}); err != nil {
		t.Fatal(err)
	}
	cs := &collectingStore{DB: openStore(t), t: t, n: 40}
	if _, _, err := Restore(ctx, cs, "copy", url, BackupOptions{}); err != nil {
		t.Fatal(err)
	}
	sameRefs(t, src.st, "db", cs.DB, "copy")
	checkStore(t, cs.DB)
}
