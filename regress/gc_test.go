package regress

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// dirSize is the disk space the files under dir take, as du counts it
// (Badger's memory-mapped files are sparse: their lengths say little).
func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil // removed while walking: a collection or a compaction running
			}
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && !fi.IsDir() {
			n += st.Blocks * 512
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDoltGC: dolt_gc() gives back the space of a deleted branch, keeps
// every branch's data and history, and waits for the other sessions' open
// transactions, whose writes it keeps.
func TestDoltGC(t *testing.T) {
	ctx := testserver.Context(t)
	dir := t.TempDir()
	srv := testserver.StartDir(t, dir)
	a := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE big (id int PRIMARY KEY, v text)")
	exec(t, ctx, a, "INSERT INTO big SELECT g, 'kept' FROM generate_series(1, 1000) g")
	exec(t, ctx, a, "SELECT dolt_commit('-Am', 'base')")
	exec(t, ctx, a, "SELECT dolt_checkout('-b', 'scratch')")
	exec(t, ctx, a, "INSERT INTO big SELECT g, repeat('x', 300) FROM generate_series(1001, 60000) g")
	exec(t, ctx, a, "SELECT dolt_commit('-am', 'load')")
	exec(t, ctx, a, "SELECT dolt_checkout('main')")
	exec(t, ctx, a, "SELECT dolt_branch('-D', 'scratch')")
	before := dirSize(t, dir)

	b := connect(t, ctx, srv.DSN("postgres"))
	tx, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO big VALUES (-1, 'open during gc')"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := a.Exec(ctx, "SELECT dolt_gc()")
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("dolt_gc ran beside an open transaction: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("dolt_gc did not end after the transaction did")
	}
	if after := dirSize(t, dir); after*4 > before {
		t.Fatalf("data directory %d bytes after dolt_gc, %d before", after, before)
	}
	wantRows(t, ctx, b, "SELECT count(*), min(id) FROM big", "1001 | -1")
	wantRows(t, ctx, a, "SELECT message FROM dolt_log ORDER BY commit_order DESC LIMIT 1", "base")
	exec(t, ctx, b, "INSERT INTO big VALUES (-2, 'after gc')")
	exec(t, ctx, b, "SELECT dolt_commit('-am', 'after')")
	srv.Stop()
	srv = testserver.StartDir(t, dir)
	c := connect(t, context.Background(), srv.DSN("postgres"))
	wantRows(t, ctx, c, "SELECT count(*) FROM big", "1002")
}

// TestAutoGC: with --gc-threshold-mb the server collects garbage by itself
// once that much was written; an idle open transaction only puts the
// collection off (the server keeps serving), and the data stays whole.
func TestAutoGC(t *testing.T) {
	ctx := testserver.Context(t)
	dir := t.TempDir()
	srv := testserver.StartOpts(t, testserver.Options{DataDir: dir, Args: []string{"--gc-threshold-mb", "4", "--gc-check-interval", "100ms"}})
	a := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE kept (id int PRIMARY KEY, v text)")
	exec(t, ctx, a, "INSERT INTO kept SELECT g, 'kept' FROM generate_series(1, 1000) g")
	exec(t, ctx, a, "SELECT dolt_commit('-Am', 'base')")

	// An idle transaction holds the collection off; other sessions go on.
	idle := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, idle, "BEGIN")
	exec(t, ctx, idle, "SELECT count(*) FROM kept")
	exec(t, ctx, a, "SELECT dolt_checkout('-b', 'scratch')")
	exec(t, ctx, a, "INSERT INTO kept SELECT g, repeat('x', 300) FROM generate_series(1001, 60000) g")
	exec(t, ctx, a, "SELECT dolt_commit('-am', 'load')")
	exec(t, ctx, a, "SELECT dolt_checkout('main')")
	exec(t, ctx, a, "SELECT dolt_branch('-D', 'scratch')")
	before := dirSize(t, dir)
	exec(t, ctx, a, "INSERT INTO kept VALUES (-1, 'while put off')") // not stalled for good
	exec(t, ctx, idle, "COMMIT")

	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if after := dirSize(t, dir); after < before/2 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("no automatic collection: the directory holds %d bytes, %d before", after, before)
		}
	}
	wantRows(t, ctx, a, "SELECT count(*), min(id), max(id) FROM kept", "1001 | -1 | 1000")
}
