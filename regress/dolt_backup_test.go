package regress

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// dbState is what a restore must reproduce of a database, read through
// SQL: its working root, branches, tags, remotes, and the status and
// rows of main's working set.
func dbState(t *testing.T, ctx context.Context, c *pgx.Conn) string {
	t.Helper()
	return strings.Join([]string{
		one(t, ctx, c, "SELECT dolt_hashof_db()"),
		strings.Join(textRows(t, ctx, c, "SELECT name, hash FROM dolt_branches ORDER BY name"), ";"),
		strings.Join(textRows(t, ctx, c, "SELECT tag_name, tag_hash, message FROM dolt_tags ORDER BY tag_name"), ";"),
		strings.Join(textRows(t, ctx, c, "SELECT name, url FROM dolt.remotes ORDER BY name"), ";"),
		strings.Join(textRows(t, ctx, c, "SELECT table_name, staged, status FROM dolt_status ORDER BY 1, 2"), ";"),
		strings.Join(textRows(t, ctx, c, "SELECT id, v FROM small ORDER BY id"), ";"),
	}, "\n")
}

// backupSource fills database postgres of srv with what a backup must
// carry, after the statements load: a table small with a committed row, a
// tag, a remote, a branch feature with a commit of its own and an
// uncommitted row, and on main a staged and an unstaged row; it returns
// sessions on main and on feature.
func backupSource(t *testing.T, ctx context.Context, srv *testserver.Server, load ...string) (main, feature *pgx.Conn) {
	t.Helper()
	a := connect(t, ctx, srv.DSN("postgres"))
	for _, sql := range load {
		exec(t, ctx, a, sql)
	}
	exec(t, ctx, a, "CREATE TABLE small (id int PRIMARY KEY, v text)")
	exec(t, ctx, a, "INSERT INTO small VALUES (1, 'committed')")
	exec(t, ctx, a, "SELECT dolt_commit('-Am', 'load')")
	exec(t, ctx, a, "SELECT dolt_tag('v1', '-m', 'the load')")
	exec(t, ctx, a, "SELECT dolt_branch('feature')")
	exec(t, ctx, a, "SELECT dolt_remote('add', 'origin', 'file:///elsewhere')")
	exec(t, ctx, a, "INSERT INTO small VALUES (2, 'staged only')")
	exec(t, ctx, a, "SELECT dolt_add('.')")
	exec(t, ctx, a, "INSERT INTO small VALUES (3, 'unstaged')")
	f := connect(t, ctx, srv.DSN("postgres@feature"))
	exec(t, ctx, f, "INSERT INTO small VALUES (10, 'feature')")
	exec(t, ctx, f, "SELECT dolt_commit('-am', 'on feature')")
	exec(t, ctx, f, "INSERT INTO small VALUES (11, 'feature, uncommitted')")
	return a, f
}

// TestDoltBackup syncs a database with a branch, a tag, a remote, staged
// and unstaged changes to a file:// backup; changes one row and syncs
// again (the second sync adds a handful of chunks to the backup); then
// restores it as a new database on the server, which must equal the
// original in everything dbState reads, the working set's uncommitted
// rows included.
func TestDoltBackup(t *testing.T) {
	ctx := testserver.Context(t)
	dir := t.TempDir() + "/backup"
	url := "file://" + dir
	srv := testserver.Start(t)
	a, f := backupSource(t, ctx, srv,
		"CREATE TABLE big (id int PRIMARY KEY, v text)",
		"INSERT INTO big SELECT g, 'row ' || g FROM generate_series(1, 100000) g")

	exec(t, ctx, a, "SELECT dolt_backup('add', 'bak', $1)", url)
	wantRows(t, ctx, a, "SELECT name, url, params FROM dolt_backups", "bak | "+url+" | {}")
	wantRows(t, ctx, a, "SELECT dolt_backup('sync', 'bak')", "0")
	first := remoteChunks(t, dir)
	exec(t, ctx, a, "UPDATE big SET v = 'changed' WHERE id = 50000")
	exec(t, ctx, a, "SELECT dolt_commit('-am', 'one row')") // row 3 is committed with it
	exec(t, ctx, a, "INSERT INTO small VALUES (4, 'uncommitted')")
	exec(t, ctx, a, "SELECT dolt_backup('sync', 'bak')")
	n := remoteChunks(t, dir) - first
	t.Logf("the first sync sent %d chunks; one changed row of 100,000 and a row of the working set, %d", first, n)
	if first < 100 || n == 0 || n > 20 {
		t.Errorf("syncs sent %d chunks, then %d for one row", first, n)
	}
	again := remoteChunks(t, dir)
	exec(t, ctx, a, "SELECT dolt_backup('sync', 'bak')")
	if got := remoteChunks(t, dir); got != again {
		t.Errorf("a sync with nothing new sent %d chunks", got-again)
	}

	if got := one(t, ctx, a, "SELECT dolt_backup('restore', $1, 'restored')", url); got != "0" {
		t.Errorf("dolt_backup('restore') = %s", got)
	}
	r := connect(t, ctx, srv.DSN("restored"))
	if x, y := dbState(t, ctx, a), dbState(t, ctx, r); x != y {
		t.Errorf("the restored database differs from the original:\n%s\nrestored:\n%s", x, y)
	}
	wantRows(t, ctx, r, "SELECT id, v FROM small ORDER BY id", "1 | committed", "2 | staged only", "3 | unstaged", "4 | uncommitted")
	rf := connect(t, ctx, srv.DSN("restored@feature"))
	wantRows(t, ctx, rf, "SELECT id FROM small ORDER BY id", "1", "10", "11")
	if x, y := one(t, ctx, f, "SELECT dolt_hashof_db()"), one(t, ctx, rf, "SELECT dolt_hashof_db()"); x != y {
		t.Errorf("feature's working root is %s, restored %s", x, y)
	}
	wantRows(t, ctx, r, "SELECT count(*) FROM dolt_backups", "0") // where copies go is not copied

	wantErrorText(t, ctx, a, "42P04", "database 'restored' already exists, use '--force' to overwrite",
		"SELECT dolt_backup('restore', '"+url+"', 'restored')")
	exec(t, ctx, r, "INSERT INTO small VALUES (5, 'diverged')")
	exec(t, ctx, a, "SELECT dolt_backup('restore', '--force', $1, 'restored')", url)
	r = connect(t, ctx, srv.DSN("restored"))
	wantRows(t, ctx, r, "SELECT count(*) FROM small WHERE id = 5", "0")
	// A backup's branches are a remote's: dolt_clone reads it.
	exec(t, ctx, a, "SELECT dolt_clone($1, 'cloned')", url)
	wantRows(t, ctx, connect(t, ctx, srv.DSN("cloned")), "SELECT count(*) FROM big", "100000")
}

// TestDoltBackupSurface checks the arguments and errors of dolt_backup
// against Dolt's words, dolt.dolt_backups, and the rights a sync and a
// restore need.
func TestDoltBackupSurface(t *testing.T) {
	ctx := testserver.Context(t)
	urlA, urlB := "file://"+t.TempDir()+"/a", "file://"+t.TempDir()+"/b"
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	for _, c := range []struct{ code, text, sql string }{
		{"22023", "use 'dolt_backups' table to list backups", "SELECT dolt_backup()"},
		{"22023", "unrecognized dolt_backup parameter 'typo'", "SELECT dolt_backup('typo', 'name', 'url')"},
		{"22023", "usage: dolt_backup('add', 'name', 'url')", "SELECT dolt_backup('add', 'name')"},
		{"22023", "usage: dolt_backup('restore', 'remote_url', 'new_db_name', ['--force'])", "SELECT dolt_backup('restore', 'x')"},
		{"42704", "backup 'does_not_exist' not found", "SELECT dolt_backup('sync', 'does_not_exist')"},
		{"42704", "backup 'no_such_backup' not found", "SELECT dolt_backup('remove', 'no_such_backup')"},
		{"XX000", "restore failed", "SELECT dolt_backup('restore', 'file:///nonexistent/pgserver/backup', 'new_db')"},
	} {
		wantErrorText(t, ctx, a, c.code, c.text, c.sql)
	}
	exec(t, ctx, a, "SELECT dolt_backup('add', 'backup_a', $1)", urlA)
	exec(t, ctx, a, "SELECT dolt_backup('add', 'backup_b', $1)", urlB)
	wantErrorText(t, ctx, a, "42710", "backup 'backup_a' already exists", "SELECT dolt_backup('add', 'backup_a', 'file:///x')")
	wantErrorText(t, ctx, a, "42710", "address conflict with a remote: 'backup_a' -> "+urlA, "SELECT dolt_backup('add', 'again', '"+urlA+"')")
	wantRows(t, ctx, a, "SELECT name FROM dolt.dolt_backups ORDER BY name", "backup_a", "backup_b")
	wantRows(t, ctx, a, "SELECT dolt_backup('rm', 'backup_a')", "0")
	wantRows(t, ctx, a, "SELECT name, url FROM dolt.backups", "backup_b | "+urlB)
	wantRows(t, ctx, a, "SELECT dolt_backup('remove', 'backup_b')", "0")
	wantRows(t, ctx, a, "SELECT count(*) FROM dolt_backups", "0")

	// A sync writes the server's files, a restore reads them and creates
	// a database.
	exec(t, ctx, a, "SELECT dolt_backup('sync-url', $1)", urlA)
	exec(t, ctx, a, "CREATE ROLE alice LOGIN")
	alice := connect(t, ctx, "postgres://alice@"+srv.Addr()+"/postgres?sslmode=disable")
	wantError(t, ctx, alice, "42501", "SELECT dolt_backup('sync-url', $1)", urlB)
	wantError(t, ctx, alice, "42501", "SELECT dolt_backup('restore', $1, 'mine')", urlA)
	exec(t, ctx, a, "GRANT pg_write_server_files, pg_read_server_files TO alice")
	exec(t, ctx, alice, "SELECT dolt_backup('sync-url', $1)", urlB)
	wantError(t, ctx, alice, "42501", "SELECT dolt_backup('restore', $1, 'mine')", urlA)
	exec(t, ctx, a, "ALTER ROLE alice CREATEDB")
	exec(t, ctx, alice, "SELECT dolt_backup('restore', $1, 'mine')", urlA)
}

// TestDoltBackupCancelled cuts a sync short with statement_timeout (a
// tenth of the time the first, as large, sync took): the sync fails with
// 57014 and the backup restores to what the sync before it copied; the
// next sync completes.
func TestDoltBackupCancelled(t *testing.T) {
	ctx := testserver.Context(t)
	url := "file://" + t.TempDir() + "/backup"
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE small (id int PRIMARY KEY, v text)")
	exec(t, ctx, a, "CREATE TABLE big (id int PRIMARY KEY, v text)")
	exec(t, ctx, a, "INSERT INTO big SELECT g, repeat('x', 50) || g FROM generate_series(1, 200000) g")
	exec(t, ctx, a, "INSERT INTO small VALUES (1, 'before')")
	began := time.Now()
	exec(t, ctx, a, "SELECT dolt_backup('sync-url', $1)", url)
	took := time.Since(began)
	before := dbState(t, ctx, a)

	exec(t, ctx, a, "CREATE TABLE big2 (id int PRIMARY KEY, v text)")
	exec(t, ctx, a, "INSERT INTO big2 SELECT g, repeat('y', 50) || g FROM generate_series(1, 200000) g")
	exec(t, ctx, a, "INSERT INTO small VALUES (2, 'after')")
	exec(t, ctx, a, "SELECT dolt_commit('-Am', 'more')") // the sync's own flush is not what is timed
	// A tenth of the first sync's time: the second copies as much, so the
	// cut comes in the middle of the copy, well before the refs move (at a
	// third it sometimes came after, when the copy ran fast).
	exec(t, ctx, a, "SET statement_timeout = "+strconv.Itoa(int(max(took/10, time.Millisecond)/time.Millisecond)))
	wantError(t, ctx, a, "57014", "SELECT dolt_backup('sync-url', $1)", url)
	exec(t, ctx, a, "SET statement_timeout = 0")
	t.Logf("the full sync took %v; the second was cut at a tenth of that", took)

	exec(t, ctx, a, "SELECT dolt_backup('restore', $1, 'cut')", url)
	if got := dbState(t, ctx, connect(t, ctx, srv.DSN("cut"))); got != before {
		t.Errorf("after a cut sync the backup restores\n%s\nwant\n%s", got, before)
	}
	exec(t, ctx, a, "SELECT dolt_backup('sync-url', $1)", url)
	exec(t, ctx, a, "SELECT dolt_backup('restore', $1, 'whole')", url)
	w := connect(t, ctx, srv.DSN("whole"))
	if x, y := dbState(t, ctx, a), dbState(t, ctx, w); x != y {
		t.Errorf("the sync after the cut restores\n%s\nwant\n%s", y, x)
	}
	wantRows(t, ctx, w, "SELECT count(*) FROM big2", "200000")
}
