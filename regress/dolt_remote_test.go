package regress

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// errorText runs sql and returns its error's SQLSTATE and message.
func errorText(t *testing.T, ctx context.Context, c *pgx.Conn, sql string) (string, string) {
	t.Helper()
	_, err := c.Exec(ctx, sql)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		t.Fatalf("%s: error %v, want one from the server", sql, err)
	}
	return pe.Code, pe.Message
}

// TestDoltRemoteRoundTrip moves a database between two server processes,
// each with its own data directory, through a file:// remote: a push, a
// clone on the other server, a change pushed back, a pull; both sides
// must end with the same database (dolt_hashof_db) and history.
func TestDoltRemoteRoundTrip(t *testing.T) {
	testDoltRemoteRoundTrip(t, "file://"+t.TempDir()+"/remote", nil)
}

// testDoltRemoteRoundTrip is TestDoltRemoteRoundTrip through the remote
// at url, the servers run with env (KEY=VALUE) added to theirs.
func testDoltRemoteRoundTrip(t *testing.T, url string, env []string) {
	ctx := testserver.Context(t)
	srvA, srvB := testserver.StartOpts(t, testserver.Options{Env: env}), testserver.StartOpts(t, testserver.Options{Env: env})
	a := connect(t, ctx, srvA.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE items (id int PRIMARY KEY, label text NOT NULL)")
	exec(t, ctx, a, "INSERT INTO items VALUES (1, 'apple'), (2, 'banana')")
	exec(t, ctx, a, "SELECT dolt_commit('-Am', 'first commit')")
	exec(t, ctx, a, "CREATE SEQUENCE counter START 100 INCREMENT 50")
	one(t, ctx, a, "SELECT nextval('counter')")
	exec(t, ctx, a, "SELECT dolt_commit('-Am', 'second commit')")
	exec(t, ctx, a, "SELECT dolt_remote('add', 'origin', $1)", url)
	if got := status(t, ctx, a, "SELECT dolt_push('origin', 'main')"); got[0] != "0" || !strings.Contains(got[1], "[new branch]") {
		t.Errorf("the first push: %q", got)
	}
	wantRows(t, ctx, a, "SELECT name FROM dolt_remote_branches", "remotes/origin/main")

	b := connect(t, ctx, srvB.DSN("postgres"))
	if got := one(t, ctx, b, "SELECT dolt_clone($1, 'cloned')", url); got != "0" {
		t.Errorf("dolt_clone: %s", got)
	}
	wantError(t, ctx, b, "42P04", "SELECT dolt_clone($1, 'cloned')", url)
	c := connect(t, ctx, srvB.DSN("cloned"))
	same := func(what string) {
		t.Helper()
		ha, hc := one(t, ctx, a, "SELECT dolt_hashof_db()"), one(t, ctx, c, "SELECT dolt_hashof_db()")
		if ha != hc {
			t.Errorf("%s: dolt_hashof_db() %s on the first server, %s on the second", what, ha, hc)
		}
		if x, y := one(t, ctx, a, "SELECT dolt_hashof('main')"), one(t, ctx, c, "SELECT dolt_hashof('main')"); x != y {
			t.Errorf("%s: main is %s on the first server, %s on the second", what, x, y)
		}
	}
	same("after the clone")
	wantRows(t, ctx, c, "SELECT id, label FROM items ORDER BY id", "1 | apple", "2 | banana")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt.commits", "4")
	wantRows(t, ctx, c, "SELECT name, url FROM dolt.remotes", "origin | "+url)
	wantRows(t, ctx, c, "SELECT name, remote, branch FROM dolt_branches", "main | origin | main")
	wantRows(t, ctx, c, "SELECT last_value FROM pg_sequences WHERE sequencename = 'counter'", "100")

	// Changed on the clone, pushed to its upstream, pulled by the first.
	exec(t, ctx, c, "INSERT INTO items VALUES (3, 'cherry')")
	exec(t, ctx, c, "SELECT dolt_commit('-am', 'cherry')")
	exec(t, ctx, c, "SELECT dolt_push('origin')")
	exec(t, ctx, a, "SELECT dolt_fetch('origin', 'main')")
	wantRows(t, ctx, a, "SELECT id FROM items ORDER BY id", "1", "2") // a fetch moves no branch
	wantRows(t, ctx, a, "SELECT count(*) FROM dolt_log('origin/main')", "5")
	if got := status(t, ctx, a, "SELECT dolt_pull('origin')"); strings.Join(got, ",") != "1,0,merge successful" {
		t.Errorf("the pull: %q", got)
	}
	same("after push and pull")
	wantRows(t, ctx, a, "SELECT id, label FROM items ORDER BY id", "1 | apple", "2 | banana", "3 | cherry")

	// Diverged: the second to push is refused, as Dolt words it, then
	// pulls (a merge) and pushes.
	exec(t, ctx, a, "INSERT INTO items VALUES (4, 'date')")
	exec(t, ctx, a, "SELECT dolt_commit('-am', 'date')")
	exec(t, ctx, c, "INSERT INTO items VALUES (5, 'elderberry')")
	exec(t, ctx, c, "SELECT dolt_commit('-am', 'elderberry')")
	exec(t, ctx, a, "SELECT dolt_push('origin', 'main')")
	code, msg := errorText(t, ctx, c, "SELECT dolt_push('origin', 'main')")
	want := "To " + url + "\n ! [rejected]            main -> main (non-fast-forward)\n" +
		"error: failed to push some refs to '" + url + "'\n" +
		"hint: Updates were rejected because the tip of your current branch is behind\n" +
		"hint: its remote counterpart. Integrate the remote changes (e.g.\n" +
		"hint: 'dolt pull ...') before pushing again.\n"
	if code != "XX000" || msg != want {
		t.Errorf("the non-fast-forward push: %s %q, want XX000 %q", code, msg, want)
	}
	if got := status(t, ctx, c, "SELECT dolt_pull('origin')"); strings.Join(got, ",") != "0,0,merge successful" {
		t.Errorf("the merging pull: %q", got)
	}
	exec(t, ctx, c, "SELECT dolt_push('origin', 'main')")
	exec(t, ctx, a, "SELECT dolt_pull('origin')")
	same("after diverging and merging")
	wantRows(t, ctx, a, "SELECT count(*) FROM items", "5")

	// The same pull after a restart of the server: nothing is in memory.
	srvB.Stop()
	srvB = testserver.StartOpts(t, testserver.Options{DataDir: srvB.DataDir, Env: env})
	c = connect(t, ctx, srvB.DSN("cloned"))
	if got := status(t, ctx, c, "SELECT dolt_pull('origin')"); strings.Join(got, ",") != "0,0,Everything up-to-date" {
		t.Errorf("a pull with nothing new: %q", got)
	}
	same("after a restart")
}

// TestDoltRemoteSurface checks the rest of the SQL surface against
// Doltgres's answers: tags, --branch, refspecs into custom tracking
// branches, deleting a remote branch and --prune, pulls with uncommitted
// changes or conflicts, --force, and the errors' words.
func TestDoltRemoteSurface(t *testing.T) {
	ctx := testserver.Context(t)
	url := "file://" + t.TempDir() + "/remote"
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	code, msg := errorText(t, ctx, a, "SELECT dolt_push('origin', 'main')")
	if code != "XX000" || msg != "fatal: remote 'origin' not found.\nPlease make sure the remote exists." {
		t.Errorf("a push to no remote: %s %q", code, msg)
	}
	wantError(t, ctx, a, "42602", "SELECT dolt_remote('add', 'bad/name', $1)", url)
	exec(t, ctx, a, "CREATE TABLE t (id int PRIMARY KEY, v text)")
	exec(t, ctx, a, "INSERT INTO t VALUES (1, 'a'), (2, 'b')")
	exec(t, ctx, a, "SELECT dolt_commit('-Am', 'seed')")
	exec(t, ctx, a, "SELECT dolt_tag('v1.0', '-m', 'first release')")
	exec(t, ctx, a, "SELECT dolt_remote('add', 'origin', $1)", url)
	exec(t, ctx, a, "SELECT dolt_push('origin', 'main')")
	exec(t, ctx, a, "SELECT dolt_push('origin', 'v1.0')")
	exec(t, ctx, a, "SELECT dolt_checkout('-b', 'feature')")
	exec(t, ctx, a, "INSERT INTO t VALUES (3, 'feature-only')")
	exec(t, ctx, a, "SELECT dolt_commit('-am', 'feature work')")
	exec(t, ctx, a, "SELECT dolt_push('-u', 'origin', 'feature')")
	exec(t, ctx, a, "SELECT dolt_checkout('main')")

	exec(t, ctx, a, "SELECT dolt_clone('--branch', 'feature', $1, 'featured')", url)
	f := connect(t, ctx, srv.DSN("featured"))
	wantRows(t, ctx, f, "SELECT active_branch()", "feature")
	wantRows(t, ctx, f, "SELECT id FROM t ORDER BY id", "1", "2", "3")
	wantRows(t, ctx, f, "SELECT tag_name FROM dolt_tags", "v1.0")
	wantRows(t, ctx, f, "SELECT name FROM dolt_remote_branches ORDER BY name", "remotes/origin/feature", "remotes/origin/main")

	exec(t, ctx, a, "SELECT dolt_clone($1, 'observer')", url)
	o := connect(t, ctx, srv.DSN("observer"))
	exec(t, ctx, o, "SELECT dolt_fetch('origin', 'refs/heads/main:refs/remotes/custom/main')")
	wantRows(t, ctx, o, "SELECT name FROM dolt_remote_branches WHERE name = 'remotes/custom/main'", "remotes/custom/main")
	code, msg = errorText(t, ctx, o, "SELECT dolt_fetch('origin', 'garbage')")
	if code != "XX000" || msg != "fetch failed: invalid ref spec: 'garbage'" {
		t.Errorf("fetching a missing branch: %s %q", code, msg)
	}
	exec(t, ctx, a, "SELECT dolt_push('origin', ':feature')")
	exec(t, ctx, o, "SELECT dolt_fetch('--prune', 'origin')")
	wantRows(t, ctx, o, "SELECT name FROM dolt_remote_branches ORDER BY name", "remotes/custom/main", "remotes/origin/main")

	// A pull refuses uncommitted changes, and records conflicts.
	exec(t, ctx, a, "UPDATE t SET v = 'source-edit' WHERE id = 1")
	exec(t, ctx, a, "SELECT dolt_commit('-am', 'source edits row 1')")
	exec(t, ctx, a, "SELECT dolt_push('origin', 'main')")
	exec(t, ctx, o, "UPDATE t SET v = 'clone-edit' WHERE id = 1")
	code, msg = errorText(t, ctx, o, "SELECT dolt_pull('origin')")
	if code != "XX000" || msg != "cannot merge with uncommitted changes" {
		t.Errorf("a pull onto uncommitted changes: %s %q", code, msg)
	}
	exec(t, ctx, o, "SELECT dolt_commit('-am', 'clone edits row 1')")
	code, msg = errorText(t, ctx, o, "SELECT dolt_pull('origin', 'nowhere')")
	if code != "XX000" || msg != `branch "nowhere" not found on remote` {
		t.Errorf("pulling a missing branch: %s %q", code, msg)
	}
	if got := status(t, ctx, o, "SELECT dolt_pull('origin')"); strings.Join(got, ",") != "0,1,merge has unresolved conflicts or constraint violations" {
		t.Errorf("a conflicting pull: %q", got)
	}
	wantRows(t, ctx, o, "SELECT base_v, our_v, their_v FROM dolt_conflicts_t", "a | clone-edit | source-edit")
	exec(t, ctx, o, "SELECT dolt_conflicts_resolve('--ours', 't')")
	exec(t, ctx, o, "SELECT dolt_commit('-am', 'resolved')")
	// Forced: the observer's history replaces the remote's.
	exec(t, ctx, o, "SELECT dolt_reset('--hard', 'HEAD~1')")
	wantError(t, ctx, o, "XX000", "SELECT dolt_push('origin', 'main')")
	exec(t, ctx, o, "SELECT dolt_push('--force', 'origin', 'main')")
	if x, y := one(t, ctx, o, "SELECT dolt_hashof('main')"), one(t, ctx, o, "SELECT dolt_hashof('origin/main')"); x != y {
		t.Errorf("after a forced push origin/main is %s, main %s", y, x)
	}

	// --all pushes every branch.
	exec(t, ctx, o, "SELECT dolt_branch('branch_a')")
	exec(t, ctx, o, "SELECT dolt_push('--all', 'origin')")
	exec(t, ctx, a, "SELECT dolt_clone($1, 'all')", url)
	wantRows(t, ctx, connect(t, ctx, srv.DSN("all")), "SELECT name FROM dolt_remote_branches ORDER BY name",
		"remotes/origin/branch_a", "remotes/origin/main")

	// A file:// remote is the server's files: PostgreSQL's roles for
	// reading and writing them are needed.
	exec(t, ctx, a, "CREATE ROLE alice LOGIN")
	alice := connect(t, ctx, "postgres://alice@"+srv.Addr()+"/observer?sslmode=disable")
	wantError(t, ctx, alice, "42501", "SELECT dolt_fetch('origin')")
	wantError(t, ctx, alice, "42501", "SELECT dolt_push('origin', 'main')")
	wantError(t, ctx, alice, "42501", "SELECT dolt_clone($1, 'mine')", url)
	exec(t, ctx, a, "GRANT pg_read_server_files TO alice")
	exec(t, ctx, alice, "SELECT dolt_fetch('origin')")
	wantError(t, ctx, alice, "42501", "SELECT dolt_push('origin', 'main')")
}

// TestDoltPushFewChunks checks that a push after one changed row of a
// 100,000-row table sends a handful of chunks: the table files the push
// adds to the remote hold no more than that.
func TestDoltPushFewChunks(t *testing.T) {
	ctx := testserver.Context(t)
	dir := t.TempDir() + "/remote"
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE big (id int PRIMARY KEY, v text)")
	exec(t, ctx, a, "INSERT INTO big SELECT g, 'row ' || g FROM generate_series(1, 100000) g")
	exec(t, ctx, a, "SELECT dolt_commit('-Am', 'load')")
	exec(t, ctx, a, "SELECT dolt_remote('add', 'origin', $1)", "file://"+dir)
	exec(t, ctx, a, "SELECT dolt_push('origin', 'main')")
	first := remoteChunks(t, dir)
	exec(t, ctx, a, "UPDATE big SET v = 'changed' WHERE id = 50000")
	exec(t, ctx, a, "SELECT dolt_commit('-am', 'one row')")
	exec(t, ctx, a, "SELECT dolt_push('origin', 'main')")
	n := remoteChunks(t, dir) - first
	t.Logf("the first push sent %d chunks; one changed row of 100,000, %d", first, n)
	if first < 100 || n == 0 || n > 12 {
		t.Errorf("pushes sent %d chunks, then %d for one row", first, n)
	}
}

// remoteChunks counts the chunks of a file:// remote's directory: those
// of the table files its manifest names, from their footers (count
// uint64 | crc32c | "pgtable1").
func remoteChunks(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "manifest"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Tables []string }
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, name := range m.Tables {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		footer := data[len(data)-20:]
		if string(footer[12:]) != "pgtable1" {
			t.Fatalf("table file %s has no footer", name)
		}
		n += int(binary.BigEndian.Uint64(footer))
	}
	return n
}
