package regress

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/lib/pq"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

func connect(t *testing.T, ctx context.Context, dsn string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func exec(t *testing.T, ctx context.Context, c *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := c.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func sqlstate(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// TestDurability checks that acknowledged commits survive kill -9.
func TestDurability(t *testing.T) {
	ctx := testserver.Context(t)
	dir := t.TempDir()
	srv := testserver.StartDir(t, dir)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE kv (k int PRIMARY KEY, v text)")
	for i := 0; i < 50; i++ {
		exec(t, ctx, c, "INSERT INTO kv VALUES ($1, $2)", i, fmt.Sprint("value ", i))
	}
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "UPDATE kv SET v = 'updated' WHERE k < 10"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// An uncommitted change must not survive.
	tx, _ = c.Begin(ctx)
	if _, err := tx.Exec(ctx, "DELETE FROM kv"); err != nil {
		t.Fatal(err)
	}
	srv.Kill()

	srv = testserver.StartDir(t, dir)
	c = connect(t, ctx, srv.DSN("postgres"))
	var n, updated int
	if err := c.QueryRow(ctx, "SELECT k FROM kv ORDER BY k DESC LIMIT 1").Scan(&n); err != nil {
		t.Fatal(err)
	}
	rows, err := c.Query(ctx, "SELECT v FROM kv")
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		count++
		if v == "updated" {
			updated++
		}
	}
	if count != 50 || n != 49 || updated != 10 {
		t.Fatalf("after kill -9: %d rows (max key %d, %d updated), want 50 (49, 10)", count, n, updated)
	}
}

// TestTransactionsAcrossConnections checks snapshot isolation between two
// sessions on one branch, and that a write-write conflict fails with 40001.
func TestTransactionsAcrossConnections(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE acct (id int PRIMARY KEY, bal int NOT NULL)")
	exec(t, ctx, a, "INSERT INTO acct VALUES (1, 100), (2, 100)")

	txa, _ := a.Begin(ctx)
	if _, err := txa.Exec(ctx, "UPDATE acct SET bal = bal - 10 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	var bal int
	if err := b.QueryRow(ctx, "SELECT bal FROM acct WHERE id = 1").Scan(&bal); err != nil || bal != 100 {
		t.Fatalf("b sees %d (%v) before a commits, want 100", bal, err)
	}
	// b changes another row meanwhile: no conflict, both survive.
	exec(t, ctx, b, "UPDATE acct SET bal = bal + 5 WHERE id = 2")
	if err := txa.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[int]int{1: 90, 2: 105} {
		if err := b.QueryRow(ctx, "SELECT bal FROM acct WHERE id = $1", id).Scan(&bal); err != nil || bal != want {
			t.Fatalf("row %d: %d (%v), want %d", id, bal, err, want)
		}
	}

	// Both change row 1 (READ COMMITTED): the second waits for the
	// first's lock, then changes the committed row; both commit.
	txa, _ = a.Begin(ctx)
	txb, _ := b.Begin(ctx)
	if _, err := txa.Exec(ctx, "UPDATE acct SET bal = bal + 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() {
		_, err := txb.Exec(ctx, "UPDATE acct SET bal = bal * 2 WHERE id = 1")
		waited <- err
	}()
	select {
	case err := <-waited:
		t.Fatalf("the second UPDATE of a locked row returned (%v) before the first transaction ended", err)
	case <-time.After(200 * time.Millisecond):
	}
	if err := txa.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-waited; err != nil {
		t.Fatalf("the waiting UPDATE: %v", err)
	}
	if err := txb.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.QueryRow(ctx, "SELECT bal FROM acct WHERE id = 1").Scan(&bal); err != nil || bal != 182 {
		t.Fatalf("row 1 is %d (%v), want (90 + 1) * 2 = 182", bal, err)
	}

	// In REPEATABLE READ the second gets a serialization failure instead.
	exec(t, ctx, b, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	exec(t, ctx, b, "SELECT 1")
	exec(t, ctx, a, "UPDATE acct SET bal = 1 WHERE id = 1")
	if _, err := b.Exec(ctx, "UPDATE acct SET bal = 2 WHERE id = 1"); sqlstate(err) != "40001" {
		t.Fatalf("REPEATABLE READ update of a row changed since the snapshot: %v, want SQLSTATE 40001", err)
	}
	exec(t, ctx, b, "ROLLBACK")
	if err := b.QueryRow(ctx, "SELECT bal FROM acct WHERE id = 1").Scan(&bal); err != nil || bal != 1 {
		t.Fatalf("after the conflict row 1 is %d (%v), want 1", bal, err)
	}

	// Both insert the same unique key under different primary keys: the
	// second inserter waits for the first, as in PostgreSQL, and fails
	// with a unique violation once the first commits.
	exec(t, ctx, a, "CREATE TABLE users (id int PRIMARY KEY, email text UNIQUE)")
	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, b, "BEGIN")
	exec(t, ctx, a, "INSERT INTO users VALUES (1, 'x@example.com')")
	done := execAsync(ctx, b, "INSERT INTO users VALUES (2, 'x@example.com')")
	stillWaiting(t, done, 150*time.Millisecond, "a second inserter of a unique value")
	exec(t, ctx, a, "COMMIT")
	if r := <-done; sqlstate(r.err) != "23505" {
		t.Fatalf("duplicate unique key from two transactions: %v, want SQLSTATE 23505", r.err)
	}
	exec(t, ctx, b, "ROLLBACK")
	var n int
	if err := b.QueryRow(ctx, "SELECT count(*) FROM users").Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d users (%v), want 1", n, err)
	}

	// One deletes a parent while the other gives it a child: the child's
	// foreign-key check waits for the delete, then fails (23503), as in
	// PostgreSQL. In REPEATABLE READ the check fails with 40001.
	exec(t, ctx, a, "CREATE TABLE orders (id int PRIMARY KEY, user_id int REFERENCES users)")
	exec(t, ctx, a, "BEGIN")
	exec(t, ctx, b, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	exec(t, ctx, b, "SELECT 1")
	exec(t, ctx, a, "DELETE FROM users WHERE id = 1")
	done = execAsync(ctx, b, "INSERT INTO orders VALUES (10, 1)")
	stillWaiting(t, done, 150*time.Millisecond, "a child of a parent being deleted")
	exec(t, ctx, a, "COMMIT")
	if r := <-done; sqlstate(r.err) != "40001" {
		t.Fatalf("child of a concurrently deleted parent in REPEATABLE READ: %v, want SQLSTATE 40001", r.err)
	}
	exec(t, ctx, b, "ROLLBACK")
}

// TestErrorsKeepConnection checks SQLSTATEs and that the connection stays
// usable after errors, in and out of transaction blocks.
func TestErrorsKeepConnection(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE u (id int PRIMARY KEY)")
	for sql, code := range map[string]string{
		"SELEKT 1":                             "42601",
		"SELECT * FROM missing":                "42P01",
		"SELECT nope FROM u":                   "42703",
		"SELECT 1/0":                           "22012",
		"INSERT INTO u VALUES ('x')":           "22P02",
		"INSERT INTO u VALUES (NULL)":          "23502",
		"SELECT 'a' + 1":                       "22P02",
		"SELECT 9223372036854775807::int8 + 1": "22003",
	} {
		_, err := c.Exec(ctx, sql)
		if sqlstate(err) != code {
			t.Errorf("%s: %v, want SQLSTATE %s", sql, err, code)
		}
	}
	exec(t, ctx, c, "INSERT INTO u VALUES (1)")
	_, err := c.Exec(ctx, "INSERT INTO u VALUES (1)")
	if sqlstate(err) != "23505" {
		t.Fatalf("duplicate key: %v", err)
	}
	tx, _ := c.Begin(ctx)
	if _, err := tx.Exec(ctx, "INSERT INTO u VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SELECT 1/0"); sqlstate(err) != "22012" {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SELECT 1"); sqlstate(err) != "25P02" {
		t.Fatalf("statement in failed transaction: %v, want 25P02", err)
	}
	_ = tx.Rollback(ctx)
	var n int
	if err := c.QueryRow(ctx, "SELECT id FROM u WHERE id = 2").Scan(&n); !errors.Is(err, pgx.ErrNoRows) {
		t.Fatalf("rolled-back insert visible: %v", err)
	}
}

// TestDrivers runs the same statements through pgx's extended protocol
// (binary results), its simple protocol, COPY, and lib/pq.
func TestDrivers(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE items (id bigint PRIMARY KEY, name text, price float8, ok bool, qty smallint)")
	n, err := c.CopyFrom(ctx, pgx.Identifier{"items"}, []string{"id", "name", "price", "ok", "qty"}, pgx.CopyFromRows([][]any{
		{int64(1), "apple", 1.25, true, int16(3)},
		{int64(2), "pear", 2.5, false, int16(-1)},
		{int64(3), nil, nil, nil, nil},
	}))
	if err != nil || n != 3 {
		t.Fatalf("CopyFrom: %d, %v", n, err)
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeDescribeExec} {
		var (
			name  *string
			price *float64
			ok    *bool
			qty   *int16
		)
		err := c.QueryRow(ctx, "SELECT name, price, ok, qty FROM items WHERE id = $1", mode, int64(2)).Scan(&name, &price, &ok, &qty)
		if err != nil || *name != "pear" || *price != 2.5 || *ok || *qty != -1 {
			t.Fatalf("mode %v: %v %v %v %v, %v", mode, name, price, ok, qty, err)
		}
	}
	// DDL through the extended protocol: prepared in one transaction
	// (Parse, Describe, Sync), executed in the next.
	if _, err := c.Exec(ctx, "CREATE TABLE prepared_ddl (a int)", pgx.QueryExecModeCacheStatement); err != nil {
		t.Fatal(err)
	}
	exec(t, ctx, c, "INSERT INTO prepared_ddl VALUES (7)")
	var seven int
	if err := c.QueryRow(ctx, "SELECT a FROM prepared_ddl").Scan(&seven); err != nil || seven != 7 {
		t.Fatalf("table made by a prepared CREATE TABLE: %d, %v", seven, err)
	}
	db, err := sql.Open("postgres", srv.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var names []string
	rows, err := db.QueryContext(ctx, "SELECT coalesce(name, '?') FROM items WHERE id >= $1 ORDER BY id", 1)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		names = append(names, s)
	}
	if got := strings.Join(names, ","); got != "apple,pear,?" {
		t.Fatalf("lib/pq read %q", got)
	}
}

// TestPasswords checks SCRAM-SHA-256 authentication with roles made in SQL.
func TestPasswords(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.StartOpts(t, testserver.Options{Args: []string{"--auth", "scram"}, Env: []string{"PGSERVER_SUPERUSER_PASSWORD=s3cret"}})
	dsn := func(user, pw string) string {
		return fmt.Sprintf("postgres://%s:%s@%s/postgres?sslmode=disable", user, pw, srv.Addr())
	}
	if _, err := pgx.Connect(ctx, dsn("postgres", "wrong")); sqlstate(err) != "28P01" {
		t.Fatalf("wrong password: %v, want 28P01", err)
	}
	c := connect(t, ctx, dsn("postgres", "s3cret"))
	exec(t, ctx, c, "CREATE USER alice PASSWORD 'wonder'")
	exec(t, ctx, c, "CREATE ROLE bob")
	if _, err := c.Exec(ctx, "CREATE ROLE bob"); sqlstate(err) != "42710" {
		t.Fatalf("duplicate role: %v", err)
	}
	connect(t, ctx, dsn("alice", "wonder"))
	if _, err := pgx.Connect(ctx, dsn("bob", "")); sqlstate(err) != "28P01" {
		t.Fatalf("role without login: %v, want 28P01", err)
	}
	exec(t, ctx, c, "ALTER ROLE alice PASSWORD 'land'")
	if _, err := pgx.Connect(ctx, dsn("alice", "wonder")); sqlstate(err) != "28P01" {
		t.Fatalf("old password after ALTER ROLE: %v", err)
	}
	exec(t, ctx, c, "DROP ROLE alice, bob")
	if _, err := c.Exec(ctx, "DROP ROLE alice"); sqlstate(err) != "42704" {
		t.Fatalf("dropping a missing role: %v", err)
	}
}

// TestCancel checks that cancelling a running statement stops it with
// 57014 and leaves the connection usable.
func TestCancel(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	// A CancelRequest on its own connection, as psql's ^C sends it.
	go func() {
		time.Sleep(200 * time.Millisecond)
		_ = c.PgConn().CancelRequest(ctx)
	}()
	start := time.Now()
	var n int64
	err := c.QueryRow(ctx, "SELECT count(*) FROM generate_series(1, 1000000000) a").Scan(&n)
	if sqlstate(err) != "57014" {
		t.Fatalf("cancelled query: %v (n=%d), want SQLSTATE 57014", err, n)
	}
	t.Logf("cancelled after %v", time.Since(start))
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the statement ran %v despite the cancel", d)
	}
	var one int
	if err := c.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("the connection after a cancel: %v", err)
	}
}

// TestSeveralStatementsInOneQuery sends a simple Query holding several
// statements, as psql -c does: each result set has its RowDescription,
// and later statements see what earlier ones created.
func TestSeveralStatementsInOneQuery(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	results, err := c.PgConn().Exec(ctx, "SELECT 1 AS a; CREATE TABLE m (k int); INSERT INTO m VALUES (7); SELECT k, 'x' AS b FROM m").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range results {
		var names []string
		for _, f := range r.FieldDescriptions {
			names = append(names, f.Name)
		}
		got = append(got, fmt.Sprintf("%s %v %d", r.CommandTag, names, len(r.Rows)))
	}
	want := []string{"SELECT 1 [a] 1", "CREATE TABLE [] 0", "INSERT 0 1 [] 0", "SELECT 1 [k b] 1"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("results %q, want %q", got, want)
	}
}

// TestStatActivity checks pg_stat_activity: every session, with its
// pid, state and query, as monitoring tools read it.
func TestStatActivity(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	var pid int
	if err := b.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	exec(t, ctx, b, "BEGIN")
	exec(t, ctx, b, "SELECT 42")
	var state, query, db string
	err := a.QueryRow(ctx, "SELECT state, query, datname FROM pg_stat_activity WHERE pid = $1", pid).Scan(&state, &query, &db)
	if err != nil || state != "idle in transaction" || query != "SELECT 42" || db != "postgres" {
		t.Fatalf("pg_stat_activity of the other session: %q %q %q (%v)", state, query, db, err)
	}
	var n int
	if err := a.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND pid = pg_backend_pid()").Scan(&n); err != nil || n != 1 {
		t.Fatalf("own session active: %d (%v)", n, err)
	}
	if err := a.QueryRow(ctx, "SELECT numbackends FROM pg_stat_database WHERE datname = 'postgres'").Scan(&n); err != nil || n != 2 {
		t.Fatalf("pg_stat_database numbackends %d (%v), want 2", n, err)
	}
	exec(t, ctx, a, "CREATE TABLE counted (k int PRIMARY KEY)")
	exec(t, ctx, a, "INSERT INTO counted SELECT generate_series(1, 1234)")
	if err := a.QueryRow(ctx, "SELECT n_live_tup FROM pg_stat_user_tables WHERE relname = 'counted'").Scan(&n); err != nil || n != 1234 {
		t.Fatalf("n_live_tup %d (%v), want 1234", n, err)
	}
	b.Close(ctx)
	for i := 0; i < 100; i++ {
		if err := a.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE pid = $1", pid).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("a closed session stays in pg_stat_activity")
}

// TestCancelAndTerminateBackend checks pg_cancel_backend and
// pg_terminate_backend on another session.
func TestCancelAndTerminateBackend(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a := connect(t, ctx, srv.DSN("postgres"))
	b := connect(t, ctx, srv.DSN("postgres"))
	var pid int
	if err := b.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := b.Exec(ctx, "SELECT pg_sleep(10)"); done <- err }()
	var ok bool
	for i := 0; i < 200 && !ok; i++ {
		time.Sleep(10 * time.Millisecond)
		var n int
		if err := a.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND state = 'active'", pid).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			if err := a.QueryRow(ctx, "SELECT pg_cancel_backend($1::int)", pid).Scan(&ok); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := <-done; sqlstate(err) != "57014" {
		t.Fatalf("cancelled statement: %v, want 57014", err)
	}
	exec(t, ctx, b, "SELECT 1") // the session goes on
	if err := a.QueryRow(ctx, "SELECT pg_terminate_backend($1::int)", pid).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend: %v %v", ok, err)
	}
	if _, err := b.Exec(ctx, "SELECT 1"); err == nil {
		t.Fatal("a terminated session still answers")
	}
	if err := a.QueryRow(ctx, "SELECT pg_cancel_backend(999999)").Scan(&ok); err != nil || ok {
		t.Fatalf("pg_cancel_backend of no session: %v %v", ok, err)
	}
}

// TestShowAll checks SHOW ALL's shape: name, setting, description.
func TestShowAll(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	rows, err := c.Query(ctx, "SHOW ALL")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for _, f := range rows.FieldDescriptions() {
		names = append(names, f.Name)
	}
	found := false
	for rows.Next() {
		var name, setting, desc string
		if err := rows.Scan(&name, &setting, &desc); err != nil {
			t.Fatal(err)
		}
		found = found || name == "search_path" && setting == `"$user", public`
	}
	if fmt.Sprint(names) != "[name setting description]" || !found {
		t.Fatalf("SHOW ALL columns %v, search_path found %v", names, found)
	}
}
