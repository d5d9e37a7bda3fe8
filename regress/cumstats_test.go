package regress

import (
	"fmt"
	"testing"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestCumulativeStats checks the counters of pg_stat_user_tables,
// pg_stat_user_indexes and pg_stat_database (exec.CumulativeStats): scans
// by kind and index and the rows
// they read, rows inserted, updated and deleted (a rolled-back insert
// counts, as in PostgreSQL), transactions committed and rolled back, and
// a deadlock; a branch's session sees its database's counters.
func TestCumulativeStats(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE st (id int PRIMARY KEY, v int)")
	exec(t, ctx, c, "INSERT INTO st SELECT g, g FROM generate_series(1, 10) g")
	table := func() string {
		return one(t, ctx, c, "SELECT concat_ws(' ', seq_scan, seq_tup_read, idx_scan, idx_tup_fetch, n_tup_ins, n_tup_upd, n_tup_del, n_live_tup) FROM pg_stat_user_tables WHERE relname = 'st'")
	}
	if got := table(); got != "0 0 0 0 10 0 0 10" {
		t.Fatalf("after the load: %s", got)
	}
	xacts := func() (int, int) {
		var commit, rollback int
		row := one(t, ctx, c, "SELECT xact_commit || ' ' || xact_rollback FROM pg_stat_database WHERE datname = current_database()")
		if _, err := fmt.Sscan(row, &commit, &rollback); err != nil {
			t.Fatal(err)
		}
		return commit, rollback
	}
	commit0, rollback0 := xacts()
	exec(t, ctx, c, "SELECT count(*) FROM st WHERE v > 3")
	exec(t, ctx, c, "SELECT v FROM st WHERE id = 4")
	exec(t, ctx, c, "UPDATE st SET v = 0 WHERE id IN (1, 2)")
	exec(t, ctx, c, "DELETE FROM st WHERE id = 10")
	exec(t, ctx, c, "BEGIN")
	exec(t, ctx, c, "INSERT INTO st VALUES (100, 100)")
	exec(t, ctx, c, "ROLLBACK")
	// The UPDATE and DELETE read their rows through the primary key too.
	if got := table(); got != "1 10 3 4 11 2 1 9" {
		t.Errorf("after a scan, a lookup, an UPDATE, a DELETE and a rolled-back INSERT: %s", got)
	}
	commit1, rollback1 := xacts()
	// The xacts query itself commits, and so did the table query before.
	if commit1-commit0 != 6 || rollback1-rollback0 != 1 {
		t.Errorf("transactions: %d committed, %d rolled back; want 6 and 1", commit1-commit0, rollback1-rollback0)
	}
	// Per index: the primary key's served the three reads by key; an
	// index nothing read shows none (the query tools find unused
	// indexes with).
	exec(t, ctx, c, "CREATE INDEX st_v ON st (v)")
	exec(t, ctx, c, "SELECT id FROM st WHERE v = 7")
	wantRows(t, ctx, c, "SELECT indexrelname, idx_scan, idx_tup_read, idx_tup_fetch FROM pg_stat_user_indexes WHERE relname = 'st' ORDER BY 1",
		"st_pkey | 3 | 4 | 4", "st_v | 1 | 1 | 1")
	exec(t, ctx, c, "CREATE INDEX st_unused ON st (v, id)")
	wantRows(t, ctx, c, "SELECT indexrelname FROM pg_stat_user_indexes WHERE idx_scan = 0", "st_unused")
	b := connect(t, ctx, srv.DSN("postgres@main"))
	wantRows(t, ctx, b, "SELECT seq_scan, idx_scan FROM pg_stat_user_tables WHERE relname = 'st'", "1 | 4")

	// A deadlock: each session holds a row the other then waits for.
	exec(t, ctx, c, "SET deadlock_timeout = '50ms'")
	exec(t, ctx, b, "SET deadlock_timeout = '50ms'")
	exec(t, ctx, c, "BEGIN")
	exec(t, ctx, b, "BEGIN")
	exec(t, ctx, c, "UPDATE st SET v = 1 WHERE id = 3")
	exec(t, ctx, b, "UPDATE st SET v = 1 WHERE id = 4")
	done := make(chan error, 1)
	go func() {
		_, err := b.Exec(ctx, "UPDATE st SET v = 2 WHERE id = 3")
		done <- err
	}()
	_, errC := c.Exec(ctx, "UPDATE st SET v = 2 WHERE id = 4")
	errB := <-done
	if (errC == nil) == (errB == nil) {
		t.Fatalf("deadlock: %v, %v; want one error", errC, errB)
	}
	exec(t, ctx, c, "ROLLBACK")
	exec(t, ctx, b, "ROLLBACK")
	wantRows(t, ctx, c, "SELECT deadlocks FROM pg_stat_database WHERE datname = 'postgres'", "1")
}

// TestPgStatStatements checks pg_stat_statements: absent until the
// extension is created (42P01, as PostgreSQL); one row per statement shape
// whatever its literals' values, with PostgreSQL's normalized
// text, calls, rows and times; a failed statement not counted;
// pg_stat_statements_reset forgets them, for superusers only.
func TestPgStatStatements(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	s := connectSimple(t, ctx, srv.DSN("postgres"))
	wantError(t, ctx, c, "42P01", "SELECT * FROM pg_stat_statements")
	exec(t, ctx, c, "CREATE EXTENSION pg_stat_statements")
	exec(t, ctx, c, "CREATE TABLE ss (id int PRIMARY KEY, v text)")
	exec(t, ctx, c, "INSERT INTO ss SELECT g, 'v' || g FROM generate_series(1, 50) g")
	exec(t, ctx, c, "SELECT pg_stat_statements_reset()")
	for _, id := range []int{1, 22, 333} {
		exec(t, ctx, c, "SELECT v FROM ss WHERE id = $1", id) // extended protocol, a parameter
		exec(t, ctx, s, "SELECT v FROM ss WHERE id = "+fmt.Sprint(id))
	}
	exec(t, ctx, s, "UPDATE ss SET v = 'x' WHERE id < 10")
	wantError(t, ctx, s, "22P02", "SELECT v FROM ss WHERE id = 'a'")
	wantRows(t, ctx, c, "SELECT query, calls, rows, min_exec_time <= mean_exec_time AND mean_exec_time <= max_exec_time FROM pg_stat_statements WHERE query LIKE '%ss%' ORDER BY query",
		// A parameter and a literal are two shapes, as in PostgreSQL
		// (a Param and a Const jumble apart), with one normalized text.
		"SELECT v FROM ss WHERE id = $1 | 3 | 2 | t",
		"SELECT v FROM ss WHERE id = $1 | 3 | 2 | t",
		"UPDATE ss SET v = $1 WHERE id < $2 | 1 | 9 | t")
	exec(t, ctx, c, "CREATE ROLE plain LOGIN")
	p := connect(t, ctx, "postgres://plain@"+srv.Addr()+"/postgres?sslmode=disable")
	wantError(t, ctx, p, "42501", "SELECT pg_stat_statements_reset()")
	exec(t, ctx, c, "SELECT pg_stat_statements_reset()")
	wantRows(t, ctx, c, "SELECT count(*) FROM pg_stat_statements WHERE query LIKE '%ss%'", "0")
	exec(t, ctx, c, "SELECT * FROM pg_stat_statements") // every column has a value of its type
}
