package regress

import (
	"context"
	"fmt"
	"math/rand"
	"net/url"
	"os"
	osexec "os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// The version-control SQL surface over the wire: the dolt_* functions,
// the system tables, branch databases and revisions.

func queryStrings(t *testing.T, ctx context.Context, c *pgx.Conn, sql string, args ...any) []string {
	t.Helper()
	rows, err := c.Query(ctx, sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, v := range vals {
			parts = append(parts, fmt.Sprint(v))
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func queryString(t *testing.T, ctx context.Context, c *pgx.Conn, sql string, args ...any) string {
	t.Helper()
	var s string
	if err := c.QueryRow(ctx, sql, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}

func wantState(t *testing.T, ctx context.Context, c *pgx.Conn, state, sql string, args ...any) {
	t.Helper()
	_, err := c.Exec(ctx, sql, args...)
	if got := sqlstate(err); got != state {
		t.Fatalf("%s: got %v (SQLSTATE %q), want SQLSTATE %s", sql, err, got, state)
	}
}

func wantRows(t *testing.T, ctx context.Context, c *pgx.Conn, want []string, sql string, args ...any) {
	t.Helper()
	got := queryStrings(t, ctx, c, sql, args...)
	if !slices.Equal(got, want) {
		t.Fatalf("%s:\n got %q\nwant %q", sql, got, want)
	}
}

func TestDoltWorkflow(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))

	exec(t, ctx, c, "CREATE TABLE users (id int PRIMARY KEY, name text)")
	exec(t, ctx, c, "INSERT INTO users VALUES (1, 'Joe')")
	wantRows(t, ctx, c, []string{"public.users|false|new table"}, "SELECT * FROM dolt_status")
	wantRows(t, ctx, c, []string{"{0}"}, "SELECT dolt_add('users')::text")
	wantRows(t, ctx, c, []string{"public.users|true|new table"}, "SELECT * FROM dolt.status")
	hash := queryString(t, ctx, c, "SELECT dolt_commit('-m', 'Add Joe to users')::text")
	if len(hash) != 34 || hash[0] != '{' || hash[33] != '}' {
		t.Fatalf("dolt_commit returned %q", hash)
	}
	wantRows(t, ctx, c, []string{hash[1:33]}, "SELECT dolt_hashof('HEAD')")
	wantRows(t, ctx, c, nil, "SELECT * FROM dolt_status")
	wantRows(t, ctx, c, []string{"Add Joe to users|2", "Initialize data repository|1"}, "SELECT message, commit_order FROM dolt_log")
	wantState(t, ctx, c, "55000", "SELECT dolt_commit('-m', 'nothing')")
	wantState(t, ctx, c, "22023", "SELECT dolt_commit()")
	exec(t, ctx, c, "SELECT dolt_commit('--allow-empty', '-m', 'empty')")

	// -a stages changed tables, not new ones; -A stages everything.
	exec(t, ctx, c, "UPDATE users SET name = 'Joseph' WHERE id = 1")
	exec(t, ctx, c, "CREATE TABLE notes (id int PRIMARY KEY)")
	exec(t, ctx, c, "SELECT dolt_commit('-am', 'rename Joe')")
	wantRows(t, ctx, c, []string{"public.notes|false|new table"}, "SELECT * FROM dolt_status")
	exec(t, ctx, c, "SELECT dolt_commit('-Am', 'notes')")
	wantRows(t, ctx, c, nil, "SELECT * FROM dolt_status")

	// Branches.
	exec(t, ctx, c, "SELECT dolt_branch('feature')")
	wantState(t, ctx, c, "42710", "SELECT dolt_branch('feature')")
	wantState(t, ctx, c, "42602", "SELECT dolt_branch('bad..name')")
	wantState(t, ctx, c, "22023", "SELECT dolt_checkout('nope')")
	wantState(t, ctx, c, "55000", "SELECT dolt_branch('-d', 'main')")
	wantRows(t, ctx, c, []string{`{0,"Switched to branch 'feature'"}`}, "SELECT dolt_checkout('feature')::text")
	wantRows(t, ctx, c, []string{"feature"}, "SELECT active_branch()")
	exec(t, ctx, c, "INSERT INTO users VALUES (2, 'Ann')")
	exec(t, ctx, c, "SELECT dolt_commit('-am', 'Ann')")
	wantRows(t, ctx, c, []string{"feature|Ann|false", "main|notes|false"}, "SELECT name, latest_commit_message, dirty FROM dolt_branches ORDER BY name")
	exec(t, ctx, c, "SELECT dolt_checkout('main')")
	wantRows(t, ctx, c, []string{"1|Joseph"}, "SELECT * FROM users")
	wantRows(t, ctx, c, []string{"Ann"}, "SELECT message FROM dolt_log('main..feature')")
	wantRows(t, ctx, c, []string{"1|Joseph", "2|Ann"}, `SELECT * FROM "postgres@feature".public.users ORDER BY id`)
	wantRows(t, ctx, c, []string{"1|Joe"}, `SELECT * FROM "postgres@HEAD~3".public.users`)
	wantState(t, ctx, c, "25006", `INSERT INTO "postgres@feature".public.users VALUES (3, 'x')`)
	wantRows(t, ctx, c, []string{"1|Joe|Joseph"}, `SELECT * FROM users AS OF 'HEAD~3' o JOIN public.users AS OF 'main' AS n USING (id)`)
	wantRows(t, ctx, c, []string{"2"}, `SELECT count(*) FROM users as of 'feature' -- AS OF 'x'`)
	wantState(t, ctx, c, "22023", `SELECT * FROM users AS OF 'nope'`)
	wantRows(t, ctx, c, []string{"1"}, "SELECT count(*) FROM dolt_branches WHERE name = 'feature' AND hash = dolt_hashof('feature')")
	mb := queryString(t, ctx, c, "SELECT dolt_merge_base('main', 'feature')")
	wantRows(t, ctx, c, []string{mb}, "SELECT dolt_hashof('main')")

	// Tags, a copy and a rename.
	exec(t, ctx, c, "SELECT dolt_tag('v1', 'feature', '-m', 'first release')")
	wantState(t, ctx, c, "42710", "SELECT dolt_tag('v1')")
	wantRows(t, ctx, c, []string{"v1|first release"}, "SELECT tag_name, message FROM dolt_tags")
	wantRows(t, ctx, c, []string{"true"}, "SELECT tag_hash = dolt_hashof('feature') FROM dolt_tags")
	exec(t, ctx, c, "SELECT dolt_branch('-c', 'feature', 'feature2')")
	exec(t, ctx, c, "SELECT dolt_branch('-m', 'feature2', 'feature3')")
	wantRows(t, ctx, c, []string{"feature", "feature3", "main"}, "SELECT name FROM dolt_branches ORDER BY name")
	exec(t, ctx, c, "SELECT dolt_branch('-d', 'feature3')")
	exec(t, ctx, c, "SELECT dolt_tag('-d', 'v1')")
	wantRows(t, ctx, c, nil, "SELECT * FROM dolt_tags")

	// Staging and unstaging, restoring and cleaning.
	exec(t, ctx, c, "INSERT INTO users VALUES (9, 'tmp')")
	exec(t, ctx, c, "SELECT dolt_add('.')")
	exec(t, ctx, c, "SELECT dolt_reset('users')")
	wantRows(t, ctx, c, []string{"public.users|false|modified"}, "SELECT * FROM dolt_status")
	exec(t, ctx, c, "SELECT dolt_checkout('users')")
	wantRows(t, ctx, c, nil, "SELECT * FROM dolt_status")
	exec(t, ctx, c, "CREATE TABLE scratch (x int)")
	exec(t, ctx, c, "SELECT dolt_clean()")
	wantState(t, ctx, c, "42P01", "SELECT * FROM scratch")
	exec(t, ctx, c, "DELETE FROM users")
	exec(t, ctx, c, "SELECT dolt_reset('--hard')")
	wantRows(t, ctx, c, []string{"1|Joseph"}, "SELECT * FROM users")
	exec(t, ctx, c, "SELECT dolt_reset('--hard', 'HEAD~1')")
	wantRows(t, ctx, c, []string{"rename Joe"}, "SELECT message FROM dolt_log LIMIT 1")

	// dolt_commit inside a transaction block commits the transaction too.
	exec(t, ctx, c, "BEGIN")
	exec(t, ctx, c, "INSERT INTO users VALUES (5, 'Eve')")
	exec(t, ctx, c, "SELECT dolt_commit('-am', 'Eve')")
	exec(t, ctx, c, "ROLLBACK")
	wantRows(t, ctx, c, []string{"1|Joseph", "5|Eve"}, "SELECT * FROM users ORDER BY id")
	wantRows(t, ctx, c, []string{"Eve"}, "SELECT message FROM dolt_log LIMIT 1")
	wantRows(t, ctx, c, []string{"7"}, "SELECT count(*) FROM dolt_commits")
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
	first := queryString(t, ctx, c, "SELECT dolt_hashof('HEAD')")
	exec(t, ctx, c, "INSERT INTO t VALUES (2, 'main')")
	exec(t, ctx, c, "SELECT dolt_commit('-am', 'two')")

	for _, db := range []string{"postgres@feature", "postgres/feature"} {
		f := connect(t, ctx, srv.DSN(url.PathEscape(db)))
		wantRows(t, ctx, f, []string{db}, "SELECT current_database()")
		wantRows(t, ctx, f, []string{"feature"}, "SELECT active_branch()")
		wantRows(t, ctx, f, []string{"1"}, "SELECT count(*) FROM t")
	}
	f := connect(t, ctx, srv.DSN("postgres@feature"))
	exec(t, ctx, f, "INSERT INTO t VALUES (3, 'feature')")
	wantRows(t, ctx, c, []string{"1|main", "2|main"}, "SELECT * FROM t ORDER BY k")
	wantRows(t, ctx, f, []string{"1|main", "3|feature"}, "SELECT * FROM t ORDER BY k")

	// Sessions on one branch share its working set.
	f2 := connect(t, ctx, srv.DSN("postgres@feature"))
	wantRows(t, ctx, f2, []string{"1|main", "3|feature"}, "SELECT * FROM t ORDER BY k")

	for _, rev := range []string{"v1", first, first[:10], "main~1"} {
		r := connect(t, ctx, srv.DSN(url.PathEscape("postgres@"+rev)))
		wantRows(t, ctx, r, []string{"1|main"}, "SELECT * FROM t")
		wantRows(t, ctx, r, []string{"postgres@" + rev}, "SELECT current_database()")
		wantState(t, ctx, r, "25006", "INSERT INTO t VALUES (9, 'x')")
		wantState(t, ctx, r, "25006", "SELECT dolt_commit('--allow-empty', '-m', 'x')")
		wantState(t, ctx, r, "25006", "CREATE TABLE u (x int)")
	}
	_, err := pgx.Connect(ctx, srv.DSN("postgres@nope"))
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

	ha := queryString(t, ctx, a, "SELECT dolt_hashof_table('t')")
	hb := queryString(t, ctx, b, "SELECT dolt_hashof_table('t')")
	if ha != hb {
		t.Fatalf("equal tables hash differently: %s vs %s", ha, hb)
	}
	exec(t, ctx, a, "SELECT dolt_commit('-am', 'a')")
	exec(t, ctx, b, "SELECT dolt_commit('-am', 'b')")
	wantRows(t, ctx, c, []string{"true"}, "SELECT dolt_hashof_table('t', 'a') = dolt_hashof_table('t', 'b')")
	wantRows(t, ctx, c, []string{"true"}, "SELECT dolt_hashof_db('a') = dolt_hashof_db('b')")
	wantRows(t, ctx, c, []string{"false"}, "SELECT dolt_hashof('a') = dolt_hashof('b')")
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
	head := queryString(t, ctx, c, "SELECT dolt_hashof('HEAD')")
	srv.Kill()

	srv = testserver.StartDir(t, dir)
	c = connect(t, ctx, srv.DSN("postgres"))
	wantRows(t, ctx, c, []string{head}, "SELECT dolt_hashof('HEAD')")
	wantRows(t, ctx, c, []string{"feature", "main"}, "SELECT name FROM dolt_branches ORDER BY name")
	wantRows(t, ctx, c, []string{"v1"}, "SELECT tag_name FROM dolt_tags")
	wantRows(t, ctx, c, []string{"public.t|true|modified", "public.t|false|modified"}, "SELECT * FROM dolt_status")
	wantRows(t, ctx, c, []string{"1", "2", "3"}, "SELECT k FROM t ORDER BY k")
	wantRows(t, ctx, c, []string{"1", "2"}, `SELECT k FROM "postgres@STAGED".public.t ORDER BY k`)
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
