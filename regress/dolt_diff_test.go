package regress

import (
	"slices"
	"testing"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// The diff and history family of the version-control SQL, over the wire:
// dolt_diff, dolt_diff_<table>, dolt_commit_diff_<table>,
// dolt_history_<table>, dolt.diff, dolt_diff_stat, dolt_diff_summary,
// dolt_schema_diff and dolt_patch.

// TestDoltDiffGettingStarted is Doltgres's getting-started example: new
// rows show in dolt_diff_<table> against WORKING, and in dolt.diff.
func TestDoltDiffGettingStarted(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE employees (id int8 PRIMARY KEY, last_name text, first_name text)")
	exec(t, ctx, c, "INSERT INTO employees VALUES (0, 'Sehn', 'Tim'), (1, 'Hendriks', 'Brian'), (2, 'Son', 'Aaron')")
	wantRows(t, ctx, c, "SELECT to_last_name, to_first_name, to_id, to_commit, from_last_name, from_first_name, from_id, diff_type FROM dolt_diff_employees",
		"Sehn | Tim | 0 | WORKING | NULL | NULL | NULL | added",
		"Hendriks | Brian | 1 | WORKING | NULL | NULL | NULL | added",
		"Son | Aaron | 2 | WORKING | NULL | NULL | NULL | added")
	wantRows(t, ctx, c, "SELECT * FROM dolt.diff", "WORKING | public.employees | NULL | NULL | NULL | NULL | t | t | NULL | NULL | NULL")
	wantRows(t, ctx, c, "SELECT commit_hash, table_name FROM dolt_diff", "WORKING | public.employees")
	exec(t, ctx, c, "SELECT dolt_add('employees')")
	wantRows(t, ctx, c, "SELECT commit_hash, table_name, data_change, schema_change FROM dolt.diff", "STAGED | public.employees | t | t")
	exec(t, ctx, c, "SELECT dolt_commit('-m', 'employees')")
	head := one(t, ctx, c, "SELECT dolt_hashof('HEAD')")
	wantRows(t, ctx, c, "SELECT commit_hash, table_name, committer, message, data_change, schema_change FROM dolt.diff",
		head+" | public.employees | postgres | employees | t | t")
	wantRows(t, ctx, c, "SELECT to_id, to_commit = dolt_hashof('HEAD'), to_commit_date IS NOT NULL, from_commit IS NOT NULL, diff_type FROM dolt_diff_employees ORDER BY to_id",
		"0 | t | t | t | added", "1 | t | t | t | added", "2 | t | t | t | added")
}

// TestDoltDiff covers the row diffs between revisions: the table
// functions in both forms, the revision forms, the per-table system
// tables, columns that come and go, tables dropped and created, schemas.
func TestDoltDiff(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE t (pk int PRIMARY KEY, c1 text)")
	exec(t, ctx, c, "CREATE SCHEMA s2")
	exec(t, ctx, c, "CREATE TABLE s2.t (pk int PRIMARY KEY, x int)")
	exec(t, ctx, c, "CREATE TABLE gone (id int PRIMARY KEY)")
	exec(t, ctx, c, "INSERT INTO t VALUES (1, 'one'), (2, 'two')")
	exec(t, ctx, c, "INSERT INTO s2.t VALUES (10, 100)")
	exec(t, ctx, c, "INSERT INTO gone VALUES (7)")
	exec(t, ctx, c, "SELECT dolt_commit('-Am', 'first')")
	c1 := one(t, ctx, c, "SELECT dolt_hashof('HEAD')")
	exec(t, ctx, c, "UPDATE t SET c1 = 'uno' WHERE pk = 1")
	exec(t, ctx, c, "DELETE FROM t WHERE pk = 2")
	exec(t, ctx, c, "ALTER TABLE t ADD COLUMN c2 int")
	exec(t, ctx, c, "INSERT INTO t VALUES (3, 'three', 33)")
	exec(t, ctx, c, "UPDATE s2.t SET x = 101")
	exec(t, ctx, c, "DROP TABLE gone")
	exec(t, ctx, c, "CREATE TABLE fresh (id int PRIMARY KEY, note text)")
	exec(t, ctx, c, "INSERT INTO fresh VALUES (1, 'new')")
	exec(t, ctx, c, "SELECT dolt_commit('-Am', 'second')")
	c2 := one(t, ctx, c, "SELECT dolt_hashof('HEAD')")

	t.Run("columns", func(t *testing.T) {
		// Each side has its revision's columns: c2 only on the to side.
		want := []string{"to_pk", "to_c1", "to_c2", "to_commit", "to_commit_date", "from_pk", "from_c1", "from_commit", "from_commit_date", "diff_type"}
		if got := columnNames(t, ctx, c, "SELECT * FROM dolt_diff('HEAD~', 'HEAD', 't')"); !slices.Equal(got, want) {
			t.Errorf("dolt_diff columns %q, want %q", got, want)
		}
		// The system table has the current columns on both sides.
		want = []string{"to_pk", "to_c1", "to_c2", "to_commit", "to_commit_date", "from_pk", "from_c1", "from_c2", "from_commit", "from_commit_date", "diff_type"}
		if got := columnNames(t, ctx, c, "SELECT * FROM dolt_diff_t"); !slices.Equal(got, want) {
			t.Errorf("dolt_diff_t columns %q, want %q", got, want)
		}
		wantRows(t, ctx, c, "SELECT pg_typeof(to_pk)::text, pg_typeof(to_c2)::text, pg_typeof(to_commit_date)::text FROM dolt_diff('HEAD~', 'HEAD', 't') LIMIT 1",
			"integer | integer | timestamp without time zone")
	})
	t.Run("function", func(t *testing.T) {
		// to_commit and from_commit are the revisions as given, a merge
		// base (from...to) by its hash, as Doltgres reports them.
		q := "SELECT to_pk, to_c1, to_c2, to_commit, from_pk, from_c1, from_commit, diff_type FROM "
		for _, form := range []struct{ call, to, from string }{
			{"dolt_diff('HEAD~', 'HEAD', 't')", "HEAD", "HEAD~"}, {"dolt_diff('" + c1 + "', 'main', 'public.t')", "main", c1},
			{"dolt_diff('HEAD~..HEAD', 't')", "HEAD", "HEAD~"}, {"dolt_diff('HEAD~...HEAD', 't')", "HEAD", c1},
			{"dolt_diff_t('HEAD~', 'HEAD')", "HEAD", "HEAD~"},
		} {
			wantRows(t, ctx, c, q+form.call,
				"1 | uno | NULL | "+form.to+" | 1 | one | "+form.from+" | modified",
				"NULL | NULL | NULL | "+form.to+" | 2 | two | "+form.from+" | removed",
				"3 | three | 33 | "+form.to+" | NULL | NULL | "+form.from+" | added")
		}
		wantRows(t, ctx, c, "SELECT to_pk, to_x, from_x, diff_type FROM dolt_diff('HEAD~', 'HEAD', 's2.t')", "10 | 101 | 100 | modified")
		// Reversed, the same changes the other way.
		wantRows(t, ctx, c, "SELECT to_pk, from_pk, diff_type FROM dolt_diff('HEAD', 'HEAD~', 't')",
			"1 | 1 | modified", "2 | NULL | added", "NULL | 3 | removed")
	})
	t.Run("dropped and created tables", func(t *testing.T) {
		wantRows(t, ctx, c, "SELECT to_id, from_id, diff_type FROM dolt_diff('HEAD~', 'HEAD', 'gone')", "NULL | 7 | removed")
		wantRows(t, ctx, c, "SELECT to_id, to_note, from_id, from_note, diff_type FROM dolt_diff('HEAD~', 'HEAD', 'fresh')", "1 | new | NULL | NULL | added")
		wantRows(t, ctx, c, "SELECT from_table_name, to_table_name, diff_type, data_change, schema_change FROM dolt_diff_summary('HEAD~', 'HEAD')",
			" | public.fresh | added | t | t",
			"public.gone |  | dropped | t | t",
			"public.t | public.t | modified | t | t",
			"s2.t | s2.t | modified | t | f")
	})
	t.Run("working and staged", func(t *testing.T) {
		exec(t, ctx, c, "INSERT INTO t VALUES (4, 'four', 44)")
		defer exec(t, ctx, c, "SELECT dolt_reset('--hard')")
		wantRows(t, ctx, c, "SELECT to_pk, to_commit, from_commit, diff_type FROM dolt_diff('HEAD', 'WORKING', 't')", "4 | WORKING | HEAD | added")
		wantRows(t, ctx, c, "SELECT count(*) FROM dolt_diff('HEAD', 'STAGED', 't')", "0")
		wantRows(t, ctx, c, "SELECT to_pk, to_commit, diff_type FROM dolt_diff_t WHERE to_commit = 'WORKING'", "4 | WORKING | added")
		exec(t, ctx, c, "SELECT dolt_add('t')")
		wantRows(t, ctx, c, "SELECT to_pk, to_commit FROM dolt_diff('HEAD', 'STAGED', 't')", "4 | STAGED")
		wantRows(t, ctx, c, "SELECT commit_hash, table_name FROM dolt.diff WHERE commit_hash IN ('WORKING', 'STAGED')", "STAGED | public.t")
	})
	t.Run("history of changes", func(t *testing.T) {
		wantRows(t, ctx, c, "SELECT to_pk, to_c2, from_pk, from_c2, to_commit = '"+c2+"', diff_type FROM dolt_diff_t ORDER BY to_commit = '"+c2+"' DESC, coalesce(to_pk, from_pk)",
			"1 | NULL | 1 | NULL | t | modified",
			"NULL | NULL | 2 | NULL | t | removed",
			"3 | 33 | NULL | NULL | t | added",
			"1 | NULL | NULL | NULL | f | added",
			"2 | NULL | NULL | NULL | f | added")
		wantRows(t, ctx, c, "SELECT to_pk, to_x FROM s2.dolt_diff_t WHERE to_commit = '"+c1+"'", "10 | 100")
	})
	t.Run("commit diff", func(t *testing.T) {
		wantRows(t, ctx, c, "SELECT to_pk, from_pk, diff_type FROM dolt_commit_diff_t WHERE from_commit = '"+c1+"' AND to_commit = '"+c2+"'",
			"1 | 1 | modified", "NULL | 2 | removed", "3 | NULL | added")
		wantRows(t, ctx, c, "SELECT to_pk, diff_type FROM dolt_commit_diff_t WHERE to_commit = dolt_hashof('HEAD') AND from_commit = dolt_hashof('HEAD~') AND diff_type = 'added'",
			"3 | added")
		// Parameters of a prepared statement, over the extended protocol.
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM dolt_commit_diff_t WHERE from_commit = $1 AND to_commit = $2", c1, c2).Scan(&n); err != nil || n != 3 {
			t.Errorf("prepared dolt_commit_diff_t: %d, %v; want 3", n, err)
		}
		wantError(t, ctx, c, "22023", "SELECT * FROM dolt_commit_diff_t")
		wantError(t, ctx, c, "22023", "SELECT * FROM dolt_commit_diff_t WHERE to_commit = '"+c2+"'")
	})
	t.Run("history", func(t *testing.T) {
		wantRows(t, ctx, c, "SELECT pk, c1, c2, commit_hash = '"+c2+"', committer FROM dolt_history_t ORDER BY commit_hash = '"+c2+"' DESC, pk",
			"1 | uno | NULL | t | postgres",
			"3 | three | 33 | t | postgres",
			"1 | one | NULL | f | postgres",
			"2 | two | NULL | f | postgres")
		wantRows(t, ctx, c, "SELECT pk, x, commit_hash = '"+c1+"' FROM s2.dolt_history_t ORDER BY x", "10 | 100 | t", "10 | 101 | f")
		wantRows(t, ctx, c, "SELECT count(*) FROM dolt_history_t WHERE commit_date IS NOT NULL", "4")
	})
	t.Run("dolt.diff", func(t *testing.T) {
		wantRows(t, ctx, c, "SELECT table_name, message, data_change, schema_change FROM dolt.diff WHERE commit_hash = '"+c2+"'",
			"public.fresh | second | t | t", "public.gone | second | t | t", "public.t | second | t | t", "s2.t | second | t | f")
		wantRows(t, ctx, c, "SELECT table_name FROM dolt_diff WHERE commit_hash = '"+c1+"'", "public.gone", "public.t", "s2.t")
	})
	t.Run("stat", func(t *testing.T) {
		wantRows(t, ctx, c, "SELECT * FROM dolt_diff_stat('HEAD~', 'HEAD')",
			"public.fresh | 0 | 1 | 0 | 0 | 2 | 0 | 0 | 0 | 1 | 0 | 2",
			"public.gone | 0 | 0 | 1 | 0 | 0 | 1 | 0 | 1 | 0 | 1 | 0",
			"public.t | 0 | 1 | 1 | 1 | 3 | 2 | 1 | 2 | 2 | 4 | 6",
			"s2.t | 0 | 0 | 0 | 1 | 0 | 0 | 1 | 1 | 1 | 2 | 2")
		wantRows(t, ctx, c, "SELECT table_name, rows_modified FROM dolt_diff_stat('HEAD~', 'HEAD', 's2.t')", "s2.t | 1")
	})
	t.Run("schema diff", func(t *testing.T) {
		wantRows(t, ctx, c, "SELECT from_table_name, to_table_name, from_create_statement FROM dolt_schema_diff('HEAD~', 'HEAD', 'gone')",
			"public.gone |  | CREATE TABLE \"gone\" (\n  \"id\" integer NOT NULL,\n  PRIMARY KEY (\"id\")\n);")
		wantRows(t, ctx, c, "SELECT to_create_statement FROM dolt_schema_diff('HEAD~', 'HEAD', 't')",
			"CREATE TABLE \"t\" (\n  \"pk\" integer NOT NULL,\n  \"c1\" text,\n  \"c2\" integer,\n  PRIMARY KEY (\"pk\")\n);")
		wantRows(t, ctx, c, "SELECT count(*) FROM dolt_schema_diff('HEAD~', 'HEAD', 's2.t')", "0")
	})
	t.Run("errors", func(t *testing.T) {
		for _, q := range []string{
			"SELECT * FROM dolt_diff('nosuch', 'HEAD', 't')",
			"SELECT * FROM dolt_diff('HEAD', 'nosuch~2', 't')",
			"SELECT * FROM dolt_diff_t('HEAD~5', 'HEAD')",
			"SELECT * FROM dolt_diff_stat('nosuch', 'HEAD')",
			"SELECT * FROM dolt_diff_summary('HEAD', 'nosuch')",
			"SELECT * FROM dolt_schema_diff('nosuch', 'HEAD')",
			"SELECT * FROM dolt_patch('nosuch', 'HEAD')",
			"SELECT * FROM dolt_commit_diff_t WHERE from_commit = 'nosuch' AND to_commit = 'HEAD'",
			"SELECT * FROM dolt_diff('HEAD~', 'HEAD')",
		} {
			wantError(t, ctx, c, "22023", q)
		}
		for _, q := range []string{
			"SELECT * FROM dolt_diff('HEAD~', 'HEAD', 'nosuch')",
			"SELECT * FROM dolt_diff_nosuch('HEAD~', 'HEAD')",
			"SELECT * FROM dolt_diff_nosuch",
			"SELECT * FROM dolt_history_nosuch",
			"SELECT * FROM dolt_commit_diff_nosuch",
			"SELECT * FROM dolt_diff_stat('HEAD~', 'HEAD', 'nosuch')",
			"SELECT * FROM dolt_patch('HEAD~', 'HEAD', 's2.nosuch')",
		} {
			wantError(t, ctx, c, "42P01", q)
		}
	})
}

// TestDoltPatch checks dolt_patch's statements and that running them on
// a branch at the from revision gives the to revision's tables.
func TestDoltPatch(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE t1 (id int PRIMARY KEY, name text, price numeric(8,2))")
	exec(t, ctx, c, "INSERT INTO t1 VALUES (1, 'it''s', 1.50), (2, 'b', NULL), (3, 'c', 3)")
	exec(t, ctx, c, "SELECT dolt_commit('-Am', 'one')")
	exec(t, ctx, c, "CREATE SCHEMA sales")
	exec(t, ctx, c, `CREATE TABLE sales."Order" (id serial PRIMARY KEY, item int REFERENCES t1(id), at timestamptz, tags text, CHECK (item > 0))`)
	exec(t, ctx, c, "CREATE INDEX order_at ON sales.\"Order\" (at)")
	exec(t, ctx, c, `INSERT INTO sales."Order" (item, at, tags) VALUES (1, '2024-01-02 03:04:05+00', 'a "b c"'), (3, NULL, NULL)`)
	exec(t, ctx, c, `UPDATE t1 SET name = E'back\\slash', price = 2 WHERE id = 2`)
	exec(t, ctx, c, "UPDATE sales.\"Order\" SET item = 2 WHERE item = 3")
	exec(t, ctx, c, "DELETE FROM t1 WHERE id = 3")
	exec(t, ctx, c, "SELECT dolt_commit('-Am', 'two')")
	wantRows(t, ctx, c, "SELECT statement_order, table_name, diff_type, statement FROM dolt_patch('HEAD~', 'HEAD', 't1')",
		`1 | public.t1 | data | UPDATE "t1" SET "name"=E'back\\slash',"price"='2.00' WHERE "id"=2;`,
		`2 | public.t1 | data | DELETE FROM "t1" WHERE "id"=3;`)
	wantRows(t, ctx, c, "SELECT DISTINCT from_commit_hash = dolt_hashof('HEAD~'), to_commit_hash = dolt_hashof('HEAD') FROM dolt_patch('HEAD~', 'HEAD')", "t | t")
	stmts := textRows(t, ctx, c, "SELECT statement FROM dolt_patch('HEAD~', 'HEAD') ORDER BY statement_order")
	wantStmts := []string{
		"CREATE SCHEMA sales;",
		`UPDATE "t1" SET "name"=E'back\\slash',"price"='2.00' WHERE "id"=2;`,
		`DELETE FROM "t1" WHERE "id"=3;`,
		"CREATE TABLE \"sales\".\"Order\" (\n  \"id\" serial,\n  \"item\" integer,\n  \"at\" timestamp with time zone,\n  \"tags\" text,\n" +
			"  CONSTRAINT \"Order_item_check\" CHECK ((item > 0)),\n  PRIMARY KEY (\"id\")\n);",
		"CREATE INDEX order_at ON sales.\"Order\" USING btree (at);",
		`INSERT INTO "sales"."Order" ("id","item","at","tags") VALUES (1,1,'2024-01-02 03:04:05+00','a "b c"');`,
		`INSERT INTO "sales"."Order" ("id","item","at","tags") VALUES (2,2,NULL,NULL);`,
		`ALTER TABLE "sales"."Order" ADD CONSTRAINT "Order_item_fkey" FOREIGN KEY (item) REFERENCES public.t1(id);`,
	}
	if !slices.Equal(stmts, wantStmts) {
		t.Errorf("dolt_patch:\n got %q\nwant %q", stmts, wantStmts)
	}
	// Forwards and backwards, the patch gives the other revision's rows.
	for _, r := range [][2]string{{"HEAD~", "HEAD"}, {"HEAD", "HEAD~"}} {
		from, to := one(t, ctx, c, "SELECT dolt_hashof('"+r[0]+"')"), one(t, ctx, c, "SELECT dolt_hashof('"+r[1]+"')")
		stmts := textRows(t, ctx, c, "SELECT statement FROM dolt_patch('"+from+"', '"+to+"') ORDER BY statement_order")
		exec(t, ctx, c, "SELECT dolt_checkout('-B', 'patched', '"+from+"')")
		for _, st := range stmts {
			exec(t, ctx, c, st)
		}
		for _, tb := range []string{"t1", `sales."Order"`} {
			var a, b string
			errA := c.QueryRow(ctx, "SELECT dolt_hashof_table($1)", tb).Scan(&a)
			errB := c.QueryRow(ctx, "SELECT dolt_hashof_table($1, $2)", tb, to).Scan(&b)
			if a != b || (errA == nil) != (errB == nil) {
				t.Errorf("%v: %s after the patch: %q (%v), want %q (%v)", r, tb, a, errA, b, errB)
			}
		}
		exec(t, ctx, c, "SELECT dolt_checkout('main')")
	}
}

// TestDoltBlame: dolt_blame_<table> names, for each row at HEAD by its
// primary key (two columns here), the commit that last added or changed
// it, with that commit's author, date and message; a row deleted and
// added again is the later commit's, uncommitted changes are not shown,
// and a table without a primary key has no blame table.
func TestDoltBlame(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE b (k int, s text, v text, PRIMARY KEY (s, k))")
	exec(t, ctx, c, "INSERT INTO b VALUES (1, 'x', 'one'), (2, 'x', 'two'), (3, 'y', 'three'), (4, 'y', 'four')")
	exec(t, ctx, c, "SELECT dolt_commit('-Am', 'first', '--author', 'John Doe <john@example.com>')")
	exec(t, ctx, c, "UPDATE b SET v = 'TWO' WHERE k = 2")
	exec(t, ctx, c, "DELETE FROM b WHERE k IN (3, 4)")
	exec(t, ctx, c, "SELECT dolt_commit('-am', 'second', '--author', 'Jane Roe <jane@example.com>')")
	exec(t, ctx, c, "INSERT INTO b VALUES (3, 'y', 'again')")
	exec(t, ctx, c, "SELECT dolt_commit('-am', 'third')")
	exec(t, ctx, c, "UPDATE b SET v = 'uncommitted' WHERE k = 1")
	exec(t, ctx, c, "INSERT INTO b VALUES (9, 'z', 'uncommitted')")
	wantRows(t, ctx, c, "SELECT s, k, committer, email, message FROM dolt_blame_b",
		"x | 1 | John Doe | john@example.com | first",
		"x | 2 | Jane Roe | jane@example.com | second",
		"y | 3 | postgres | postgres@127.0.0.1 | third")
	wantRows(t, ctx, c, "SELECT count(*) FROM public.dolt_blame_b WHERE commit = dolt_hashof('HEAD~1') AND commit_date IS NOT NULL", "1")
	if got := one(t, ctx, c, "SELECT message FROM dolt_blame_b WHERE k = $1", 2); got != "second" {
		t.Errorf("dolt_blame_b WHERE k = $1 (2): %s, want second", got)
	}
	exec(t, ctx, c, "CREATE TABLE nokey (a int)")
	wantError(t, ctx, c, "42P01", "SELECT * FROM dolt_blame_nokey")
	wantError(t, ctx, c, "42P01", "SELECT * FROM dolt_blame_nosuch")
}
