package regress

import (
	"fmt"
	"math/rand"
	"net/url"
	"os"
	osexec "os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// The version-control SQL surface over the wire: the dolt_* functions,
// the system tables, branch databases and revisions.

func TestDoltWorkflow(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))

	exec(t, ctx, c, "CREATE TABLE users (id int PRIMARY KEY, name text)")
	exec(t, ctx, c, "INSERT INTO users VALUES (1, 'Joe')")
	wantRows(t, ctx, c, "SELECT * FROM dolt_status", "public.users | f | new table")
	wantRows(t, ctx, c, "SELECT dolt_add('users')", "0")
	wantRows(t, ctx, c, "SELECT * FROM dolt.status", "public.users | t | new table")
	// Doltgres's result shapes: a status integer, the commit's hash as text.
	hash := one(t, ctx, c, "SELECT dolt_commit('-m', 'Add Joe to users')")
	if len(hash) != 32 {
		t.Fatalf("dolt_commit returned %q", hash)
	}
	wantRows(t, ctx, c, "SELECT dolt_hashof('HEAD')", hash)
	wantRows(t, ctx, c, "SELECT * FROM dolt_status")
	wantRows(t, ctx, c, "SELECT message, commit_order FROM dolt_log", "Add Joe to users | 3", "CREATE DATABASE | 2", "Initialize data repository | 1")
	wantError(t, ctx, c, "55000", "SELECT dolt_commit('-m', 'nothing')")
	wantRows(t, ctx, c, "SELECT dolt_commit('--skip-empty', '-m', 'nothing') IS NULL", "t")
	wantError(t, ctx, c, "22023", "SELECT dolt_commit()")
	exec(t, ctx, c, "SELECT dolt_commit('--allow-empty', '-m', 'empty')")

	// -a stages changed tables, not new ones; -A stages everything.
	exec(t, ctx, c, "UPDATE users SET name = 'Joseph' WHERE id = 1")
	exec(t, ctx, c, "CREATE TABLE notes (id int PRIMARY KEY)")
	exec(t, ctx, c, "SELECT dolt_commit('-am', 'rename Joe')")
	wantRows(t, ctx, c, "SELECT * FROM dolt_status", "public.notes | f | new table")
	exec(t, ctx, c, "SELECT dolt_commit('-Am', 'notes')")
	wantRows(t, ctx, c, "SELECT * FROM dolt_status")

	// Branches.
	exec(t, ctx, c, "SELECT dolt_branch('feature')")
	wantError(t, ctx, c, "42710", "SELECT dolt_branch('feature')")
	wantError(t, ctx, c, "42602", "SELECT dolt_branch('bad..name')")
	wantError(t, ctx, c, "22023", "SELECT dolt_checkout('nope')")
	wantError(t, ctx, c, "55000", "SELECT dolt_branch('-d', 'main')")
	wantRows(t, ctx, c, "SELECT dolt_checkout('feature')::text", `(0,"Switched to branch 'feature'")`)
	wantRows(t, ctx, c, "SELECT active_branch()", "feature")
	exec(t, ctx, c, "INSERT INTO users VALUES (2, 'Ann')")
	exec(t, ctx, c, "SELECT dolt_commit('-am', 'Ann')")
	wantRows(t, ctx, c, "SELECT name, latest_commit_message, dirty FROM dolt_branches ORDER BY name", "feature | Ann | f", "main | notes | f")
	exec(t, ctx, c, "SELECT dolt_checkout('main')")
	wantRows(t, ctx, c, "SELECT * FROM users", "1 | Joseph")
	wantRows(t, ctx, c, "SELECT message FROM dolt_log('main..feature')", "Ann")
	wantError(t, ctx, c, "0A000", "SELECT * FROM dolt_log($1)", "main") // columns are fixed at planning
	wantError(t, ctx, c, "0A000", "SELECT * FROM dolt_log($1::text)", "main")
	wantRows(t, ctx, c, `SELECT * FROM "postgres@feature".public.users ORDER BY id`, "1 | Joseph", "2 | Ann")
	wantRows(t, ctx, c, `SELECT * FROM "postgres@HEAD~3".public.users`, "1 | Joe")
	wantError(t, ctx, c, "25006", `INSERT INTO "postgres@feature".public.users VALUES (3, 'x')`)
	wantRows(t, ctx, c, `SELECT * FROM users AS OF 'HEAD~3' o JOIN public.users AS OF 'main' AS n USING (id)`, "1 | Joe | Joseph")
	wantRows(t, ctx, c, `SELECT count(*) FROM users as of 'feature' -- AS OF 'x'`, "2")
	// The rewritten statement is longer than the one sent: its text is
	// the rewritten one (it once was sliced out of the original).
	wantRows(t, ctx, c, `select * from users as of 'feature';`, "1 | Joseph", "2 | Ann")
	if _, err := c.Exec(ctx, `select * from users as of 'feature'`); err != nil {
		t.Errorf("AS OF, extended protocol: %v", err)
	}
	wantError(t, ctx, c, "22023", `SELECT * FROM users AS OF 'nope'`)
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_branches WHERE name = 'feature' AND hash = dolt_hashof('feature')", "1")
	wantRows(t, ctx, c, "SELECT * FROM dolt_branch_status('main', 'feature', 'main')", "feature | 1 | 0", "main | 0 | 0")
	mb := one(t, ctx, c, "SELECT dolt_merge_base('main', 'feature')")
	wantRows(t, ctx, c, "SELECT dolt_hashof('main')", mb)

	// Tags, a copy and a rename.
	exec(t, ctx, c, "SELECT dolt_tag('v1', 'feature', '-m', 'first release')")
	wantError(t, ctx, c, "42710", "SELECT dolt_tag('v1')")
	wantRows(t, ctx, c, "SELECT tag_name, message FROM dolt_tags", "v1 | first release")
	wantRows(t, ctx, c, "SELECT tag_hash = dolt_hashof('feature') FROM dolt_tags", "t")
	exec(t, ctx, c, "SELECT dolt_branch('-c', 'feature', 'feature2')")
	exec(t, ctx, c, "SELECT dolt_branch('-m', 'feature2', 'feature3')")
	wantRows(t, ctx, c, "SELECT name FROM dolt_branches ORDER BY name", "feature", "feature3", "main")
	wantError(t, ctx, c, "55000", "SELECT dolt_branch('-d', 'feature3')") // not merged into main
	exec(t, ctx, c, "SELECT dolt_branch('-D', 'feature3')")
	exec(t, ctx, c, "SELECT dolt_tag('-d', 'v1')")
	wantRows(t, ctx, c, "SELECT * FROM dolt_tags")

	// Staging and unstaging, restoring and cleaning.
	exec(t, ctx, c, "INSERT INTO users VALUES (9, 'tmp')")
	exec(t, ctx, c, "SELECT dolt_add('.')")
	exec(t, ctx, c, "SELECT dolt_reset('users')")
	wantRows(t, ctx, c, "SELECT * FROM dolt_status", "public.users | f | modified")
	exec(t, ctx, c, "SELECT dolt_checkout('users')")
	wantRows(t, ctx, c, "SELECT * FROM dolt_status")
	exec(t, ctx, c, "CREATE TABLE scratch (x int)")
	exec(t, ctx, c, "CREATE VIEW scratch_v AS SELECT 1 AS one")
	exec(t, ctx, c, "CREATE FUNCTION scratch_f() RETURNS int LANGUAGE sql AS 'SELECT 1'")
	exec(t, ctx, c, "SELECT dolt_clean()")
	wantError(t, ctx, c, "42P01", "SELECT * FROM scratch")
	wantError(t, ctx, c, "42P01", "SELECT * FROM scratch_v")
	wantError(t, ctx, c, "42883", "SELECT scratch_f()")
	wantRows(t, ctx, c, "SELECT * FROM dolt_status")
	exec(t, ctx, c, "DELETE FROM users")
	exec(t, ctx, c, "SELECT dolt_reset('--hard')")
	wantRows(t, ctx, c, "SELECT * FROM users", "1 | Joseph")
	exec(t, ctx, c, "SELECT dolt_reset('--hard', 'HEAD~1')")
	wantRows(t, ctx, c, "SELECT message FROM dolt_log LIMIT 1", "rename Joe")

	// dolt_commit inside a transaction block commits the transaction too.
	exec(t, ctx, c, "BEGIN")
	exec(t, ctx, c, "INSERT INTO users VALUES (5, 'Eve')")
	exec(t, ctx, c, "SELECT dolt_commit('-am', 'Eve')")
	exec(t, ctx, c, "ROLLBACK")
	wantRows(t, ctx, c, "SELECT * FROM users ORDER BY id", "1 | Joseph", "5 | Eve")
	wantRows(t, ctx, c, "SELECT message FROM dolt_log LIMIT 1", "Eve")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_commits", "8")
}

// TestBranchDatabases connects to branches and revisions by database name.
func TestBranchDatabases(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE t (k int PRIMARY KEY, v text)")
	exec(t, ctx, c, "INSERT INTO t VALUES (1, 'main')")
	exec(t, ctx, c, "SELECT dolt_commit('-Am', 'one')")
	exec(t, ctx, c, "SELECT dolt_tag('v1')")
	exec(t, ctx, c, "SELECT dolt_branch('feature')")
	first := one(t, ctx, c, "SELECT dolt_hashof('HEAD')")
	exec(t, ctx, c, "INSERT INTO t VALUES (2, 'main')")
	exec(t, ctx, c, "SELECT dolt_commit('-am', 'two')")

	for _, db := range []string{"postgres@feature", "postgres/feature"} {
		f := connect(t, ctx, srv.DSN(url.PathEscape(db)))
		wantRows(t, ctx, f, "SELECT current_database()", db)
		wantRows(t, ctx, f, "SELECT active_branch()", "feature")
		wantRows(t, ctx, f, "SELECT count(*) FROM t", "1")
	}
	f := connect(t, ctx, srv.DSN("postgres@feature"))
	exec(t, ctx, f, "INSERT INTO t VALUES (3, 'feature')")
	wantRows(t, ctx, c, "SELECT * FROM t ORDER BY k", "1 | main", "2 | main")
	wantRows(t, ctx, f, "SELECT * FROM t ORDER BY k", "1 | main", "3 | feature")

	// Sessions on one branch share its working set.
	f2 := connect(t, ctx, srv.DSN("postgres@feature"))
	wantRows(t, ctx, f2, "SELECT * FROM t ORDER BY k", "1 | main", "3 | feature")

	// A branch other sessions work on is not deleted or renamed from
	// under them, unless forced.
	wantError(t, ctx, c, "55006", "SELECT dolt_branch('-d', 'feature')")
	wantError(t, ctx, c, "55006", "SELECT dolt_branch('-m', 'feature', 'feature2')")
	exec(t, ctx, c, "SELECT dolt_branch('scratch')")
	sc := connect(t, ctx, srv.DSN("postgres@scratch"))
	wantError(t, ctx, c, "55006", "SELECT dolt_branch('-d', 'scratch')")
	sc.Close(ctx)
	// The server ends the session once it reads the Terminate: wait for it.
	var err error
	for i := 0; i < 100; i++ {
		if _, err = c.Exec(ctx, "SELECT dolt_branch('-d', 'scratch')"); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("deleting a branch no session uses: %v", err)
	}

	for _, rev := range []string{"v1", first, first[:10], "main~1"} {
		r := connect(t, ctx, srv.DSN(url.PathEscape("postgres@"+rev)))
		wantRows(t, ctx, r, "SELECT * FROM t", "1 | main")
		wantRows(t, ctx, r, "SELECT current_database()", "postgres@"+rev)
		wantError(t, ctx, r, "25006", "INSERT INTO t VALUES (9, 'x')")
		wantError(t, ctx, r, "25006", "SELECT dolt_commit('--allow-empty', '-m', 'x')")
		wantError(t, ctx, r, "25006", "CREATE TABLE u (x int)")
	}
	_, err = pgx.Connect(ctx, srv.DSN("postgres@nope"))
	if got := sqlstate(err); got != "3D000" {
		t.Fatalf("unknown branch: %v (%s), want 3D000", err, got)
	}
}

// TestHistoryIndependenceThroughSQL builds one table two ways on two
// branches — different insert orders, with updates and deletes in between
// — and checks that the tables hash alike.
func TestHistoryIndependenceThroughSQL(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE t (k int PRIMARY KEY, v text, n int)")
	exec(t, ctx, c, "CREATE INDEX t_v ON t (v)")
	exec(t, ctx, c, "SELECT dolt_commit('-Am', 'schema')")
	exec(t, ctx, c, "SELECT dolt_branch('a')")
	exec(t, ctx, c, "SELECT dolt_branch('b')")
	a := connect(t, ctx, srv.DSN("postgres@a"))
	b := connect(t, ctx, srv.DSN("postgres@b"))

	const n = 3000
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < n; i += 100 {
		exec(t, ctx, a, "INSERT INTO t SELECT g, 'v' || g, g * 2 FROM generate_series($1::int, $2::int) g", i, i+99)
	}
	order := rng.Perm(n)
	batch := &pgx.Batch{}
	for _, k := range order {
		batch.Queue("INSERT INTO t VALUES ($1, $2, $3)", k, "wrong", -1)
		if k%7 == 0 {
			batch.Queue("DELETE FROM t WHERE k = $1", k)
			batch.Queue("INSERT INTO t VALUES ($1, 'again', 0)", k)
		}
	}
	if err := b.SendBatch(ctx, batch).Close(); err != nil {
		t.Fatal(err)
	}
	exec(t, ctx, b, "UPDATE t SET v = 'v' || k, n = k * 2")
	exec(t, ctx, b, "INSERT INTO t VALUES (-1, 'gone', 0)")
	exec(t, ctx, b, "DELETE FROM t WHERE k < 0")

	ha := one(t, ctx, a, "SELECT dolt_hashof_table('t')")
	hb := one(t, ctx, b, "SELECT dolt_hashof_table('t')")
	if ha != hb {
		t.Fatalf("equal tables hash differently: %s vs %s", ha, hb)
	}
	exec(t, ctx, a, "SELECT dolt_commit('-am', 'a')")
	exec(t, ctx, b, "SELECT dolt_commit('-am', 'b')")
	wantRows(t, ctx, c, "SELECT dolt_hashof_table('t', 'a') = dolt_hashof_table('t', 'b')", "t")
	wantRows(t, ctx, c, "SELECT dolt_hashof_db('a') = dolt_hashof_db('b')", "t")
	wantRows(t, ctx, c, "SELECT dolt_hashof('a') = dolt_hashof('b')", "f")
}

// TestVersionsSurviveRestart checks that branches, tags, commits and the
// working and staged changes survive a restart (and a kill -9).
func TestVersionsSurviveRestart(t *testing.T) {
	ctx := testserver.Context(t)
	dir := t.TempDir()
	srv := testserver.StartDir(t, dir)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE t (k int PRIMARY KEY)")
	exec(t, ctx, c, "INSERT INTO t VALUES (1)")
	exec(t, ctx, c, "SELECT dolt_commit('-Am', 'one')")
	exec(t, ctx, c, "SELECT dolt_tag('v1')")
	exec(t, ctx, c, "SELECT dolt_branch('feature')")
	exec(t, ctx, c, "INSERT INTO t VALUES (2)")
	exec(t, ctx, c, "SELECT dolt_add('t')")
	exec(t, ctx, c, "INSERT INTO t VALUES (3)")
	head := one(t, ctx, c, "SELECT dolt_hashof('HEAD')")
	srv.Kill()

	srv = testserver.StartDir(t, dir)
	c = connect(t, ctx, srv.DSN("postgres"))
	wantRows(t, ctx, c, "SELECT dolt_hashof('HEAD')", head)
	wantRows(t, ctx, c, "SELECT name FROM dolt_branches ORDER BY name", "feature", "main")
	wantRows(t, ctx, c, "SELECT tag_name FROM dolt_tags", "v1")
	wantRows(t, ctx, c, "SELECT * FROM dolt_status", "public.t | t | modified", "public.t | f | modified")
	wantRows(t, ctx, c, "SELECT k FROM t ORDER BY k", "1", "2", "3")
	wantRows(t, ctx, c, `SELECT k FROM "postgres@STAGED".public.t ORDER BY k`, "1", "2")
}

// TestPsqlBranchSwitch uses psql's \c to move between branch databases.
func TestPsqlBranchSwitch(t *testing.T) {
	psql, err := osexec.LookPath("psql")
	if err != nil {
		t.Skip("psql not installed")
	}
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE t (k int)")
	exec(t, ctx, c, "SELECT dolt_commit('-Am', 't')")
	exec(t, ctx, c, "SELECT dolt_branch('feature')")
	script := `\c postgres@feature
INSERT INTO t VALUES (1);
SELECT current_database(), active_branch(), count(*) FROM t;
\c postgres/feature
SELECT current_database(), active_branch(), count(*) FROM t;
\c postgres
SELECT current_database(), active_branch(), count(*) FROM t;
`
	cmd := osexec.Command(psql, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", srv.Host, "-p", strconv.Itoa(srv.Port), "-U", "postgres", "-d", "postgres")
	cmd.Stdin = strings.NewReader(script)
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	want := "postgres@feature|feature|1\npostgres/feature|feature|1\npostgres|main|0\n"
	if string(out) != want {
		t.Fatalf("psql printed:\n%s\nwant:\n%s", out, want)
	}
}

// TestAsOfTimestamp reads tables as of a time: the commit HEAD had then.
func TestAsOfTimestamp(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE ts_t (k int PRIMARY KEY)")
	exec(t, ctx, c, "INSERT INTO ts_t VALUES (1)")
	exec(t, ctx, c, "SELECT dolt_commit('-Am', 'one', '--date', '2030-01-01T00:00:00Z')")
	exec(t, ctx, c, "INSERT INTO ts_t VALUES (2)")
	exec(t, ctx, c, "SELECT dolt_commit('-am', 'two', '--date', '2031-01-01T00:00:00Z')")
	wantRows(t, ctx, c, "SELECT count(*) FROM ts_t AS OF '2030-06-01'", "1")
	wantRows(t, ctx, c, "SELECT count(*) FROM ts_t AS OF '2031-06-01 00:00:00+00'", "2")
	wantRows(t, ctx, c, `SELECT count(*) FROM "postgres@2030-12-31".public.ts_t`, "1")
	wantError(t, ctx, c, "22023", "SELECT count(*) FROM ts_t AS OF '2000-01-01'")
}

// TestDoltFunctionsTakeBindParameters calls the version-control functions
// through the extended protocol with their arguments as bind parameters,
// as drivers and ORMs send them: they are resolved like any function
// (planner/sessionfuncs.go), so $n gets their parameter type.
func TestDoltFunctionsTakeBindParameters(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE bound (id int PRIMARY KEY)")
	var hash string
	if err := c.QueryRow(ctx, "SELECT dolt_commit('-Am', $1)", "bound table").Scan(&hash); err != nil || len(hash) != 32 {
		t.Fatalf("dolt_commit with a bind parameter: %v %v", hash, err)
	}
	var status int
	if err := c.QueryRow(ctx, "SELECT dolt_branch($1, $2)", "feature", "main").Scan(&status); err != nil || status != 0 {
		t.Fatalf("dolt_branch with bind parameters: %v", err)
	}
	var same bool
	if err := c.QueryRow(ctx, "SELECT dolt_hashof($1) = dolt_hashof($2)", "main", "feature").Scan(&same); err != nil || !same {
		t.Fatalf("dolt_hashof: %v %v", same, err)
	}
	var msg string
	if err := c.QueryRow(ctx, "SELECT message FROM dolt_log WHERE commit_hash = $1", hash).Scan(&msg); err != nil || msg != "bound table" {
		t.Fatalf("the commit made with a bound message: %q %v", msg, err)
	}
	wantError(t, ctx, c, "42883", "SELECT dolt_merge_base($1)", "main")
	// A record result in binary, as pgx decodes it (record_send's format).
	for sql, want := range map[string]string{
		"SELECT dolt_checkout('main')":        "[[0 Already on branch 'main']]",
		"SELECT ROW(1, 'a'::text, NULL::int)": "[[1 a <nil>]]",
	} {
		rows, err := c.Query(ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		var vals []any
		if rows.Next() {
			vals, err = rows.Values()
		}
		rows.Close()
		if err != nil || fmt.Sprint(vals) != want {
			t.Fatalf("%s in binary: %v %v (%v)", sql, vals, err, rows.Err())
		}
	}
	// Their results are Doltgres's OUT columns, in FROM too.
	wantRows(t, ctx, c, "SELECT length(hash) FROM dolt_commit('--allow-empty', '-m', 'empty')", "32")
	wantRows(t, ctx, c, "SELECT status, message FROM dolt_checkout('feature')", "0 | Switched to branch 'feature'")
}

// TestUse: Doltgres's USE moves the session to another database, branch or
// revision as connecting to that name would; not inside a transaction
// block.
func TestUse(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE DATABASE test")
	exec(t, ctx, c, "USE test")
	exec(t, ctx, c, "CREATE TABLE t1 (pk int PRIMARY KEY)")
	exec(t, ctx, c, "INSERT INTO t1 VALUES (1), (2)")
	exec(t, ctx, c, "SELECT dolt_commit('-Am', 'initial')")
	exec(t, ctx, c, "SELECT dolt_checkout('-b', 'b1')")
	exec(t, ctx, c, "INSERT INTO t1 VALUES (3)")
	exec(t, ctx, c, "SELECT dolt_commit('-am', 'b1')")
	exec(t, ctx, c, "SELECT dolt_tag('tag1')")
	exec(t, ctx, c, "INSERT INTO t1 VALUES (4)")
	exec(t, ctx, c, `USE "test/main"`)
	wantRows(t, ctx, c, "SELECT count(*) FROM t1", "2")
	exec(t, ctx, c, "USE test/b1;")
	wantRows(t, ctx, c, "SELECT count(*), active_branch() FROM t1", "4 | b1")
	exec(t, ctx, c, "use 'test/tag1'")
	wantRows(t, ctx, c, "SELECT count(*) FROM t1", "3")
	wantError(t, ctx, c, "25006", "INSERT INTO t1 VALUES (5)")
	wantError(t, ctx, c, "3D000", "USE nope")
	exec(t, ctx, c, "USE postgres")
	wantError(t, ctx, c, "42P01", "SELECT * FROM t1")
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "USE test"); sqlstate(err) != "25001" {
		t.Fatalf("USE in a transaction block: %v, want 25001", err)
	}
	tx.Rollback(ctx)
}

// TestRemotesBookkeeping: dolt_remote adds and removes the database's
// remotes, which dolt.remotes lists with Doltgres's columns; with dolt on
// the search path the system tables answer to their short names, after
// the user's tables.
func TestRemotesBookkeeping(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	wantRows(t, ctx, c, "SELECT dolt_remote('add', 'origin', 'file:///tmp/origin')", "0")
	wantRows(t, ctx, c, "SELECT name, url, fetch_specs::text, params::text FROM dolt.remotes",
		`origin | file:///tmp/origin | ["refs/heads/*:refs/remotes/origin/*"] | {}`)
	wantError(t, ctx, c, "42710", "SELECT dolt_remote('add', 'origin', 'file:///elsewhere')")
	wantError(t, ctx, c, "42P01", "SELECT * FROM remotes")
	exec(t, ctx, c, "CREATE TABLE remotes (id int PRIMARY KEY)")
	exec(t, ctx, c, "SET search_path = dolt")
	wantRows(t, ctx, c, "SELECT name FROM remotes", "origin")
	exec(t, ctx, c, "SET search_path = public, dolt")
	wantRows(t, ctx, c, "SELECT * FROM remotes")
	exec(t, ctx, c, "SELECT dolt_remote('remove', 'origin')")
	wantError(t, ctx, c, "22023", "SELECT dolt_remote('rm', 'origin')")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_remotes", "0")
}

// TestWorkspaceTable: dolt_workspace_<table> lists the staged changes, then
// the unstaged ones, numbered from 0.
func TestWorkspaceTable(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE test (id int PRIMARY KEY, v text)")
	exec(t, ctx, c, "SELECT dolt_commit('-Am', 'test')")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_workspace_test", "0")
	exec(t, ctx, c, "INSERT INTO test VALUES (10, 'a')")
	exec(t, ctx, c, "SELECT dolt_add('test')")
	exec(t, ctx, c, "UPDATE test SET v = 'b'")
	wantRows(t, ctx, c, "SELECT id, staged, diff_type, to_id, to_v, from_id, from_v FROM dolt_workspace_test ORDER BY id",
		"0 | t | added | 10 | a | NULL | NULL", "1 | f | modified | 10 | b | 10 | a")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt.remote_branches", "0")
}

// TestDoltCommandResults checks results and errors of the commands that
// Doltgres's users read: dolt_revert's fields, and dolt_checkout and
// dolt_branch refusing, in Dolt's words.
func TestDoltCommandResults(t *testing.T) {
	ctx := testserver.Context(t)
	c := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE t (id int PRIMARY KEY)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'one')")
	exec(t, ctx, c, "INSERT INTO t VALUES (1)")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'two')")
	if got := status(t, ctx, c, "SELECT dolt_revert('HEAD')"); len(got) != 4 || len(got[0]) != 32 || got[1] != "0" || got[3] != "0" {
		t.Errorf("dolt_revert = %q, want {hash, 0, 0, 0}", got)
	}
	wantRows(t, ctx, c, "SELECT message FROM dolt_log LIMIT 1", `Revert "two"`)

	// dolt_reset --soft: with a revision, HEAD included, it moves the
	// head only; without one it unstages, as Dolt's does.
	exec(t, ctx, c, "INSERT INTO t VALUES (2)")
	status(t, ctx, c, "SELECT dolt_add('t')")
	status(t, ctx, c, "SELECT dolt_reset('--soft', 'HEAD')")
	wantRows(t, ctx, c, "SELECT table_name, staged FROM dolt_status", "public.t | t")
	status(t, ctx, c, "SELECT dolt_reset('--soft')")
	wantRows(t, ctx, c, "SELECT table_name, staged FROM dolt_status", "public.t | f")
	status(t, ctx, c, "SELECT dolt_reset('--hard')")

	status(t, ctx, c, "SELECT dolt_tag('v1', 'HEAD')")
	for sql, words := range map[string]string{
		"SELECT dolt_checkout('v1')":       "detached head",
		"SELECT dolt_checkout('nosuch')":   "'nosuch' did not match any table",
		"SELECT dolt_branch('-d', 'main')": "Cannot delete checked out branch 'main'",
	} {
		_, err := c.Exec(ctx, sql)
		if err == nil || !strings.Contains(err.Error(), words) {
			t.Errorf("%s: %v, want an error saying %q", sql, err, words)
		}
	}
}

// TestDoltRm: dolt_rm removes tables from the working and staged sets
// (the removal staged); with --cached from the staged set only; a table a
// foreign key references is refused. A column's sequence is an object of
// its own, as in Doltgres: named to be unstaged, dropped with its table.
func TestDoltRm(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE a (id serial PRIMARY KEY, v text)")
	exec(t, ctx, c, "CREATE TABLE b (x int)")
	exec(t, ctx, c, "CREATE TABLE gone (id serial PRIMARY KEY)")
	exec(t, ctx, c, "SELECT dolt_add('.')")
	wantRows(t, ctx, c, "SELECT dolt_rm('--cached', 'a', 'b')", "0")
	wantRows(t, ctx, c, "SELECT table_name, staged, status FROM dolt_status ORDER BY 1, 2",
		"public.a | f | new table", "public.a_id_seq | t | new sequence", "public.b | f | new table",
		"public.gone | t | new table", "public.gone_id_seq | t | new sequence")
	wantRows(t, ctx, c, "SELECT dolt_rm('--cached', 'a_id_seq')", "0")
	wantRows(t, ctx, c, "SELECT dolt_rm('gone')", "0")
	wantRows(t, ctx, c, "SELECT table_name, staged, status FROM dolt_status ORDER BY 1, 2",
		"public.a | f | new table", "public.a_id_seq | f | new sequence", "public.b | f | new table")
	exec(t, ctx, c, "SELECT dolt_commit('-Am', 'two tables')")
	exec(t, ctx, c, "CREATE TABLE child (id int REFERENCES a (id))")
	wantError(t, ctx, c, "2BP01", "SELECT dolt_rm('a')")
	wantRows(t, ctx, c, "SELECT dolt_rm('b')", "0")
	wantRows(t, ctx, c, "SELECT table_name, staged, status FROM dolt_status ORDER BY 1, 2",
		"public.b | t | deleted", "public.child | f | new table")
	wantError(t, ctx, c, "42P01", "SELECT count(*) FROM b")
	wantRows(t, ctx, c, "SELECT count(*) FROM a", "0")
}
