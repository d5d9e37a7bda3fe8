package regress

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestGenericPlans runs simple-protocol queries whose shapes get generic
// plans (planner/session/generic.go) through what may change under a kept
// plan: the literals, the search path, the table's definition, literals
// the parameter's type cannot read, and literals outside a comparison.
func TestGenericPlans(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connectSimple(t, ctx, srv.DSN("postgres"))
	for _, sql := range []string{
		`CREATE SCHEMA ga`, `CREATE SCHEMA gb`,
		`CREATE TABLE ga.t (id int PRIMARY KEY, v text)`, `CREATE TABLE gb.t (id int PRIMARY KEY, v text)`,
		`INSERT INTO ga.t SELECT g, 'a' || g FROM generate_series(1, 100) g`,
		`INSERT INTO gb.t SELECT g, 'b' || g FROM generate_series(1, 100) g`,
		`SET search_path = ga`,
	} {
		exec(t, ctx, c, sql)
	}
	one := func(sql string) string {
		t.Helper()
		var v string
		if err := c.QueryRow(ctx, sql).Scan(&v); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return v
	}
	for i := 0; i < 50; i++ {
		id := 1 + rand.Intn(100)
		if got, want := one(fmt.Sprintf(`SELECT v FROM t WHERE id = %d`, id)), fmt.Sprintf("a%d", id); got != want {
			t.Fatalf("id %d: got %q, want %q", id, got, want)
		}
	}
	if got := one(`SELECT count(*)::text FROM t WHERE id BETWEEN 10 AND 19 AND v <> 'a15'`); got != "9" {
		t.Fatalf("BETWEEN: got %s", got)
	}
	if got := one(`SELECT count(*)::text FROM t WHERE id BETWEEN 20 AND 39 AND v <> 'a25'`); got != "19" {
		t.Fatalf("BETWEEN again: got %s", got)
	}
	exec(t, ctx, c, `SET search_path = gb`)
	if got := one(`SELECT v FROM t WHERE id = 7`); got != "b7" {
		t.Fatalf("after SET search_path: got %q", got)
	}
	exec(t, ctx, c, `ALTER TABLE gb.t ALTER COLUMN v TYPE varchar(10)`)
	exec(t, ctx, c, `UPDATE gb.t SET v = 'x' || id WHERE id = 8`)
	if got := one(`SELECT v FROM t WHERE id = 8`); got != "x8" {
		t.Fatalf("after ALTER TABLE: got %q", got)
	}
	// Numbers keep their own type: 1.5 is no integer id.
	var n int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM t WHERE id = 1.5`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("id = 1.5: %d, %v", n, err)
	}
	if err := c.QueryRow(ctx, `SELECT count(*) FROM t WHERE id = 2.0`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("id = 2.0: %d, %v", n, err)
	}
	// A literal the column's type cannot read fails as the literal does,
	// the first time and once the shape has a plan.
	var first *pgconn.PgError
	for i := 0; i < 3; i++ {
		_, err := c.Exec(ctx, fmt.Sprintf(`SELECT v FROM t WHERE id = '%s'`, []string{"1", "x", "y"}[i]))
		var pe *pgconn.PgError
		if i == 0 {
			if err != nil {
				t.Fatalf("id = '1': %v", err)
			}
			continue
		}
		if !errors.As(err, &pe) || pe.Code != "22P02" {
			t.Fatalf("id = 'x': got %v, want 22P02", err)
		}
		if first == nil {
			first = pe
		} else if pe.Position != first.Position {
			t.Fatalf("position %d, then %d", first.Position, pe.Position)
		}
	}
	// Literals outside a comparison keep the query's own analysis.
	for i := 1; i <= 3; i++ {
		if got := one(fmt.Sprintf(`SELECT %d || v FROM t WHERE id = %d`, i, i)); got != fmt.Sprintf("%db%d", i, i) {
			t.Fatalf("literal in the select list: got %q", got)
		}
	}
	// Such literals are pinned: a shape's plan serves the queries that
	// hold the same values there, and another value is analyzed anew.
	for i, prefix := range []string{"p", "p", "p", "q", "p"} {
		id := 10 + i
		if got, want := one(fmt.Sprintf(`SELECT %s || v FROM t WHERE id = %d`, "'"+prefix+"'", id)), fmt.Sprintf("%sb%d", prefix, id); got != want {
			t.Fatalf("pinned literal %q: got %q, want %q", prefix, got, want)
		}
	}
	exec(t, ctx, c, `DROP TABLE gb.t`)
	exec(t, ctx, c, `CREATE TABLE gb.t (id text, v text)`)
	exec(t, ctx, c, `INSERT INTO gb.t VALUES ('7', 'new')`)
	if got := one(`SELECT v FROM t WHERE id = '7'`); got != "new" {
		t.Fatalf("after the table was recreated: got %q", got)
	}
}

// TestGenericPlansOfRowChanges: UPDATE, DELETE and INSERT of one shape
// with other literals each time (pgbench's way) act on their own values,
// whatever the kept plan was made with: a SET value and a VALUES item
// take the column's type (text, bigint, numeric), numbers in arithmetic
// keep theirs (an int added to a numeric column, a fraction to an int
// column is rounded as PostgreSQL rounds it), and a literal the column
// cannot read still fails with the column's error.
func TestGenericPlansOfRowChanges(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connectSimple(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, `CREATE TABLE acc (id int PRIMARY KEY, bal bigint NOT NULL, note text, amt numeric, n int)`)
	for i := 1; i <= 20; i++ {
		exec(t, ctx, c, fmt.Sprintf(`INSERT INTO acc VALUES (%d, %d, 'n%d', %d.5, 0)`, i, 10*i, i, i))
	}
	for i := 1; i <= 20; i++ {
		exec(t, ctx, c, fmt.Sprintf(`UPDATE acc SET bal = bal + %d, note = 'u%d', amt = amt * 2, n = n + %d.6 WHERE id = %d`, -i, i, i, i))
	}
	for i := 1; i <= 5; i++ {
		exec(t, ctx, c, fmt.Sprintf(`DELETE FROM acc WHERE id = %d`, 2*i))
	}
	wantRows(t, ctx, c, `SELECT id, bal, note, amt, n FROM acc WHERE id IN (1, 3, 12, 20) ORDER BY id`,
		"1 | 9 | u1 | 3.0 | 2", "3 | 27 | u3 | 7.0 | 4", "12 | 108 | u12 | 25.0 | 13", "20 | 180 | u20 | 41.0 | 21")
	wantRows(t, ctx, c, `SELECT count(*) FROM acc`, "15")
	wantError(t, ctx, c, "22P02", `UPDATE acc SET bal = 'x' WHERE id = 1`)
	wantError(t, ctx, c, "22P02", `INSERT INTO acc VALUES (30, 'y', 'n', 1, 1)`)
	wantError(t, ctx, c, "23505", `INSERT INTO acc VALUES (1, 1, 'dup', 1, 1)`)
	exec(t, ctx, c, `INSERT INTO acc VALUES (31, 3100000000, 'big', 0.25, 7)`)
	wantRows(t, ctx, c, `SELECT bal, amt FROM acc WHERE id = 31`, "3100000000 | 0.25")
	// A string inside a VALUES item's expression is pinned, the numbers
	// beside it are parameters.
	for i := 1; i <= 4; i++ {
		exec(t, ctx, c, fmt.Sprintf(`INSERT INTO acc VALUES (%d, %d, upper('%s') || %d, 1, 1)`, 40+i, i, []string{"k", "k", "m", "k"}[i-1], i))
	}
	wantRows(t, ctx, c, `SELECT id, bal, note FROM acc WHERE id > 40 ORDER BY id`, "41 | 1 | K1", "42 | 2 | K2", "43 | 3 | M3", "44 | 4 | K4")
}

// connectSimple connects to dsn with a connection whose queries all use
// the simple protocol (literals inline, as pgbench sends them); it is
// closed when the test ends.
func connectSimple(t *testing.T, ctx context.Context, dsn string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}
