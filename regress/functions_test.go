package regress

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestFunctionsOverWire checks, through pgx, the patterns applications
// use: a trigger keeping updated_at, RAISE NOTICE reaching the client as
// a NoticeResponse, an exception block undoing its own changes only, and
// a trigger firing for COPY.
func TestFunctionsOverWire(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c, notices := connectWithNotices(t, ctx, srv)
	defer c.Close(ctx)

	exec(t, ctx, c, `CREATE TABLE post (id int PRIMARY KEY, title text, updated_at timestamptz NOT NULL DEFAULT '2000-01-01')`)
	exec(t, ctx, c, `CREATE FUNCTION set_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at = now();
  RETURN NEW;
END $$`)
	exec(t, ctx, c, `CREATE TRIGGER post_updated BEFORE UPDATE ON post FOR EACH ROW EXECUTE FUNCTION set_updated_at()`)
	exec(t, ctx, c, `INSERT INTO post VALUES (1, 'hello')`)
	before := time.Now().Add(-time.Minute)
	exec(t, ctx, c, `UPDATE post SET title = 'hello, world' WHERE id = 1`)
	var updated time.Time
	if err := c.QueryRow(ctx, `SELECT updated_at FROM post WHERE id = 1`).Scan(&updated); err != nil {
		t.Fatal(err)
	}
	if updated.Before(before) {
		t.Errorf("updated_at = %v, want about now", updated)
	}

	exec(t, ctx, c, `DO $$ BEGIN RAISE NOTICE 'rows: %', (SELECT count(*) FROM post); END $$`)
	if got := notices.take(); len(got) != 1 || got[0].Message != "rows: 1" || got[0].Severity != "NOTICE" {
		t.Errorf("notices = %+v, want one NOTICE \"rows: 1\"", got)
	}

	// The inner block's insert is undone when it fails; the outer one's
	// stays.
	exec(t, ctx, c, `CREATE TABLE ledger (id int PRIMARY KEY, note text)`)
	exec(t, ctx, c, `CREATE FUNCTION book() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ledger VALUES (1, 'outer');
  BEGIN
    INSERT INTO ledger VALUES (2, 'inner');
    INSERT INTO ledger VALUES (1, 'duplicate');
  EXCEPTION WHEN unique_violation THEN
    RETURN 'rolled back: ' || SQLERRM;
  END;
  RETURN 'unreachable';
END $$`)
	var msg string
	if err := c.QueryRow(ctx, `SELECT book()`).Scan(&msg); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(msg, "rolled back: duplicate key value") {
		t.Errorf("book() = %q", msg)
	}
	var notes []string
	rows, err := c.Query(ctx, `SELECT note FROM ledger ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		notes = append(notes, n)
	}
	if rows.Err() != nil || strings.Join(notes, ",") != "outer" {
		t.Errorf("ledger = %v (%v), want [outer]", notes, rows.Err())
	}

	// An error the function does not catch reaches the client with its
	// CONTEXT.
	_, err = c.Exec(ctx, `DO $$ BEGIN RAISE EXCEPTION 'boom' USING ERRCODE = '22023', HINT = 'h'; END $$`)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "22023" || pe.Message != "boom" || pe.Hint != "h" || !strings.Contains(pe.Where, "PL/pgSQL function") {
		t.Errorf("RAISE EXCEPTION: %v (%+v)", err, pe)
	}

	// COPY fires the table's triggers.
	exec(t, ctx, c, `CREATE TABLE tag (name text PRIMARY KEY)`)
	exec(t, ctx, c, `CREATE FUNCTION lower_tag() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.name := lower(NEW.name); RETURN NEW; END $$`)
	exec(t, ctx, c, `CREATE TRIGGER tag_lower BEFORE INSERT ON tag FOR EACH ROW EXECUTE FUNCTION lower_tag()`)
	if _, err := c.PgConn().CopyFrom(ctx, strings.NewReader("GO\nRust\n"), "COPY tag FROM STDIN"); err != nil {
		t.Fatal(err)
	}
	var tags string
	if err := c.QueryRow(ctx, `SELECT string_agg(name, ',' ORDER BY name) FROM tag`).Scan(&tags); err != nil {
		t.Fatal(err)
	}
	if tags != "go,rust" {
		t.Errorf("tags = %q, want go,rust", tags)
	}
}

// TestFunctionChangeSeenByOtherSessions checks that a function replaced
// or dropped by one connection is what another connection's next
// statement runs, though that connection's cached plans (pgx prepares
// and caches every query) read tables nobody changed.
func TestFunctionChangeSeenByOtherSessions(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	a, err := pgx.Connect(ctx, srv.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(ctx)
	b, err := pgx.Connect(ctx, srv.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(ctx)

	exec(t, ctx, a, `CREATE TABLE item (id int PRIMARY KEY, n int)`)
	exec(t, ctx, a, `INSERT INTO item VALUES (1, 10)`)
	exec(t, ctx, a, `CREATE FUNCTION price(n int) RETURNS int LANGUAGE sql AS 'SELECT n * 2'`)
	exec(t, ctx, a, `CREATE FUNCTION total() RETURNS int LANGUAGE plpgsql AS $$
BEGIN RETURN (SELECT sum(price(n)) FROM item); END $$`)
	const direct = `SELECT price(n) FROM item WHERE id = 1`
	const nested = `SELECT total() FROM item WHERE id = 1`
	for range 2 { // the second run reuses the plans
		wantCached(t, ctx, a, 20, direct)
		wantCached(t, ctx, a, 20, nested)
	}

	exec(t, ctx, b, `CREATE OR REPLACE FUNCTION price(n int) RETURNS int LANGUAGE sql AS 'SELECT n * 3'`)
	wantCached(t, ctx, a, 30, direct)
	wantCached(t, ctx, a, 30, nested)
	exec(t, ctx, b, `DROP FUNCTION price(int)`)
	wantError(t, ctx, a, "42883", direct)
	wantError(t, ctx, a, "42883", nested)

	// A new trigger function body fires at once too.
	exec(t, ctx, a, `CREATE FUNCTION stamp() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.n := 1; RETURN NEW; END $$`)
	exec(t, ctx, a, `CREATE TRIGGER item_stamp BEFORE INSERT ON item FOR EACH ROW EXECUTE FUNCTION stamp()`)
	const insert = `INSERT INTO item VALUES ($1, 0) RETURNING n`
	wantCached(t, ctx, a, 1, insert, 2)
	exec(t, ctx, b, `CREATE OR REPLACE FUNCTION stamp() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.n := 2; RETURN NEW; END $$`)
	wantCached(t, ctx, a, 2, insert, 3)

}

// wantCached checks the one int sql gives, run as a prepared statement
// pgx caches: the second run of a query reuses the server's plan.
func wantCached(t *testing.T, ctx context.Context, c *pgx.Conn, want int, sql string, args ...any) {
	t.Helper()
	var got int
	if err := c.QueryRow(ctx, sql, args...).Scan(&got); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if got != want {
		t.Errorf("%s: got %d, want %d", sql, got, want)
	}
}

// TestProcListsEveryFunction: pg_proc lists the set-returning functions,
// the dolt_* commands among them, with their result types, so that \df
// and tools that read pg_proc find every function a call resolves to.
func TestProcListsEveryFunction(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	wantRows(t, ctx, c, `SELECT proname, proretset, pg_get_function_result(oid), pg_get_function_arguments(oid)
		FROM pg_proc WHERE proname IN ('dolt_commit', 'regexp_matches') ORDER BY 1, 4`,
		"dolt_commit | t | SETOF text | ",
		"dolt_commit | t | SETOF text | VARIADIC text[]",
		"regexp_matches | t | SETOF text[] | text, text",
		"regexp_matches | t | SETOF text[] | text, text, text")
	if got := one(t, ctx, c, "SELECT count(DISTINCT oid) = count(*) FROM pg_proc"); got != "t" {
		t.Errorf("pg_proc's OIDs are not unique")
	}
	if got := one(t, ctx, c, "SELECT p.oid::regproc::text FROM pg_proc p WHERE proname = 'dolt_commit' AND pronargs = 1"); got != "dolt_commit" {
		t.Errorf("regproc of dolt_commit: %s", got)
	}
}

// TestCallOutputsOverWire checks CALL of a procedure with OUT and INOUT
// parameters through pgx's extended protocol: bind parameters for its
// inputs, the row of its outputs described and returned in binary.
func TestCallOutputsOverWire(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c, _ := connectWithNotices(t, ctx, srv)
	defer c.Close(ctx)

	exec(t, ctx, c, `CREATE PROCEDURE transfer(IN amount numeric, INOUT balance numeric, OUT note text)
LANGUAGE plpgsql AS $$
BEGIN
  balance := balance - amount;
  note := 'paid ' || amount;
END $$`)
	var balance float64
	var note string
	if err := c.QueryRow(ctx, `CALL transfer($1, $2, NULL)`, 25, 100).Scan(&balance, &note); err != nil {
		t.Fatal(err)
	}
	if balance != 75 || note != "paid 25" {
		t.Errorf("CALL transfer = (%v, %q), want (75, \"paid 25\")", balance, note)
	}
	// A procedure without outputs returns no row, only its tag.
	exec(t, ctx, c, `CREATE PROCEDURE noop(x int) LANGUAGE sql AS $$ SELECT x $$`)
	tag, err := c.Exec(ctx, `CALL noop($1)`, 1)
	if err != nil || tag.String() != "CALL" {
		t.Errorf("CALL noop = %q, %v; want CALL", tag.String(), err)
	}
}

// TestTxidStatus checks txid_status of the ids of a committed and of a
// rolled-back transaction, which a client reads after they end (an
// outbox poller, say), through pgx.
func TestTxidStatus(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c, _ := connectWithNotices(t, ctx, srv)
	defer c.Close(ctx)

	idOf := func(commit bool) int64 {
		tx, err := c.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var id int64
		if err := tx.QueryRow(ctx, `SELECT txid_current()`).Scan(&id); err != nil {
			t.Fatal(err)
		}
		if commit {
			err = tx.Commit(ctx)
		} else {
			err = tx.Rollback(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	committed, aborted := idOf(true), idOf(false)
	if aborted <= committed {
		t.Errorf("ids %d then %d, want increasing", committed, aborted)
	}
	for id, want := range map[int64]string{committed: "committed", aborted: "aborted"} {
		var got string
		if err := c.QueryRow(ctx, `SELECT txid_status($1)`, id).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("txid_status(%d) = %q, want %q", id, got, want)
		}
	}
}
