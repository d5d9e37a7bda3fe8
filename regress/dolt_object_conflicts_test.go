package regress

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// Conflicts of objects other than tables, as Doltgres shows its root
// objects' conflicts: a merge merges a function, view, type or sequence
// field by field, and the fields both sides changed differently are rows
// of dolt_conflicts_<object>, resolved by UPDATE of our_value, DELETE, or
// dolt_conflicts_resolve.

// wantErrorText checks that sql fails with SQLSTATE code and a message
// containing text.
func wantErrorText(t *testing.T, ctx context.Context, c *pgx.Conn, code, text, sql string) {
	t.Helper()
	_, err := c.Exec(ctx, sql)
	if got := sqlstate(err); got != code || !strings.Contains(err.Error(), text) {
		t.Errorf("%s: error %v, want SQLSTATE %s saying %q", sql, err, code, text)
	}
}

// objectConflictSetup runs setup, commits it and makes branch theirs
// from it; the session stays on main.
func objectConflictSetup(t *testing.T, setup ...string) (context.Context, *pgx.Conn) {
	ctx := testserver.Context(t)
	c := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	for _, s := range setup {
		exec(t, ctx, c, s)
	}
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'base')")
	status(t, ctx, c, "SELECT dolt_branch('theirs')")
	return ctx, c
}

// mergeTheirs commits stmts on main and merges branch theirs, which must
// conflict.
func mergeTheirs(t *testing.T, ctx context.Context, c *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		exec(t, ctx, c, s)
	}
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'ours')")
	if got := status(t, ctx, c, "SELECT dolt_merge('theirs')"); got[len(got)-1] != "conflicts found" {
		t.Fatalf("dolt_merge('theirs') = %q, want conflicts", got)
	}
}

func TestFunctionFieldConflicts(t *testing.T) {
	const fn = "CREATE OR REPLACE FUNCTION f(x text) RETURNS text LANGUAGE plpgsql %s AS $$ BEGIN RETURN '%s' || x; END; $$"
	def := func(attrs, n string) string { return fmt.Sprintf(fn, attrs, n) }
	ctx, c := objectConflictSetup(t, def("", "1"))

	// A field changed on one side only merges without a conflict.
	onBranch(t, ctx, c, "theirs", "strict", def("STRICT", "1"))
	exec(t, ctx, c, def("", "2"))
	status(t, ctx, c, "SELECT dolt_commit('-am', 'body')")
	if got := status(t, ctx, c, "SELECT dolt_merge('theirs')"); got[len(got)-1] != "merge successful" {
		t.Fatalf("merge of different fields: %q", got)
	}
	wantRows(t, ctx, c, "SELECT f('x'), proisstrict FROM pg_proc WHERE proname = 'f'", "2x | t")

	// Both change the body: one conflict, the field "definition".
	onBranch(t, ctx, c, "theirs", "three", def("STRICT", "3"))
	mergeTheirs(t, ctx, c, def("STRICT", "4"))
	wantRows(t, ctx, c, "SELECT * FROM dolt_conflicts", "public.f(text) | 1")
	if got := columnNames(t, ctx, c, `SELECT * FROM "dolt_conflicts_f(text)"`); strings.Join(got, ",") !=
		"from_root_ish,base_value,our_value,our_diff_type,their_value,their_diff_type,dolt_conflict_id" {
		t.Errorf("columns of the conflicts table: %v", got)
	}
	wantRows(t, ctx, c, `SELECT base_value, our_value, our_diff_type, their_value, their_diff_type, dolt_conflict_id FROM "dolt_conflicts_f(text)"`,
		"BEGIN RETURN '1' || x; END; | BEGIN RETURN '4' || x; END; | modified | BEGIN RETURN '3' || x; END; | modified | definition")
	wantRows(t, ctx, c, `SELECT count(*) FROM public."dolt_conflicts_f(text)" WHERE from_root_ish = hashof('theirs')`, "1")
	wantRows(t, ctx, c, "SELECT f('x')", "4x")
	wantError(t, ctx, c, "55000", "SELECT dolt_commit('-am', 'too early')")

	// Another value stays in conflict until the row is deleted; the
	// function has it at once.
	exec(t, ctx, c, `UPDATE "dolt_conflicts_f(text)" SET our_value = 'BEGIN RETURN ''7'' || x; END;'`)
	wantRows(t, ctx, c, `SELECT our_value FROM "dolt_conflicts_f(text)"`, "BEGIN RETURN '7' || x; END;")
	wantRows(t, ctx, c, "SELECT f('x')", "7x")
	wantErrorText(t, ctx, c, "0A000", "only our_value", `UPDATE "dolt_conflicts_f(text)" SET their_value = 'x'`)
	exec(t, ctx, c, `DELETE FROM "dolt_conflicts_f(text)" WHERE dolt_conflict_id = 'definition'`)
	wantErrorText(t, ctx, c, "42P01", "table not found: dolt_conflicts_f(text)", `SELECT * FROM "dolt_conflicts_f(text)"`)
	wantErrorText(t, ctx, c, "42P01", "table not found", `DELETE FROM "dolt_conflicts_f(text)"`)
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_conflicts", "0")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'merged')")
	wantRows(t, ctx, c, "SELECT f('x')", "7x")

	// Theirs' value resolves the field at once, and so does the
	// ancestor's.
	for _, pick := range []struct{ col, want string }{{"their_value", "5x"}, {"base_value", "7x"}} {
		status(t, ctx, c, "SELECT dolt_branch('-f', 'theirs', 'main')")
		onBranch(t, ctx, c, "theirs", "five", def("STRICT", "5"))
		mergeTheirs(t, ctx, c, def("STRICT", "6"))
		exec(t, ctx, c, `UPDATE "dolt_conflicts_f(text)" SET our_value = `+pick.col+` WHERE dolt_conflict_id = 'definition'`)
		wantErrorText(t, ctx, c, "42P01", "table not found", `SELECT * FROM "dolt_conflicts_f(text)"`)
		wantRows(t, ctx, c, "SELECT f('x')", pick.want)
		status(t, ctx, c, "SELECT dolt_commit('-am', 'picked')")
		if pick.col == "base_value" {
			break
		}
		exec(t, ctx, c, def("STRICT", "7"))
		status(t, ctx, c, "SELECT dolt_commit('-am', 'back to seven')")
	}
}

func TestFunctionResultTypeConflict(t *testing.T) {
	ctx, c := objectConflictSetup(t, "CREATE FUNCTION g(x text) RETURNS int4 LANGUAGE plpgsql AS $$ BEGIN RETURN x || '1'; END; $$")
	// The result type changes by dropping and creating the function.
	onBranch(t, ctx, c, "theirs", "int8", "DROP FUNCTION g(text)",
		"CREATE FUNCTION g(x text) RETURNS int8 LANGUAGE plpgsql AS $$ BEGIN RETURN x || '3'; END; $$")
	mergeTheirs(t, ctx, c, "DROP FUNCTION g(text)",
		"CREATE FUNCTION g(x text) RETURNS float8 LANGUAGE plpgsql AS $$ BEGIN RETURN x || '2'; END; $$")
	wantRows(t, ctx, c, "SELECT * FROM dolt_conflicts", "public.g(text) | 2")
	wantRows(t, ctx, c, `SELECT base_value, our_value, their_value, dolt_conflict_id FROM "dolt_conflicts_g(text)" ORDER BY dolt_conflict_id DESC`,
		"int4 | float8 | int8 | return_type",
		"BEGIN RETURN x || '1'; END; | BEGIN RETURN x || '2'; END; | BEGIN RETURN x || '3'; END; | definition")

	// A type named another way is read as a cast reads it.
	exec(t, ctx, c, `UPDATE "dolt_conflicts_g(text)" SET our_value = 'smallint' WHERE dolt_conflict_id = 'return_type'`)
	wantRows(t, ctx, c, `SELECT our_value FROM "dolt_conflicts_g(text)" WHERE dolt_conflict_id = 'return_type'`, "int2")
	wantError(t, ctx, c, "42704", `UPDATE "dolt_conflicts_g(text)" SET our_value = 'nosuchtype' WHERE dolt_conflict_id = 'return_type'`)

	// Every field takes theirs' value: the conflicts are gone.
	exec(t, ctx, c, `UPDATE "dolt_conflicts_g(text)" SET our_value = their_value`)
	wantErrorText(t, ctx, c, "42P01", "table not found", `SELECT * FROM "dolt_conflicts_g(text)"`)
	wantRows(t, ctx, c, "SELECT g('123456789012'), pg_typeof(g('1'))", "1234567890123 | bigint")
}

func TestDroppedFunctionConflict(t *testing.T) {
	for _, tc := range []struct {
		pick string
		want string // f('x'), or "" when the function is gone
	}{{"ours", ""}, {"theirs", "3x"}, {"ancestor", "1x"}} {
		t.Run(tc.pick, func(t *testing.T) {
			ctx, c := objectConflictSetup(t, "CREATE FUNCTION f(x text) RETURNS text LANGUAGE sql AS $$ SELECT '1' || x $$")
			onBranch(t, ctx, c, "theirs", "three", "CREATE OR REPLACE FUNCTION f(x text) RETURNS text LANGUAGE sql AS $$ SELECT '3' || x $$")
			mergeTheirs(t, ctx, c, "DROP FUNCTION f(text)")
			wantRows(t, ctx, c, `SELECT base_value, our_value, our_diff_type, their_value, their_diff_type, dolt_conflict_id FROM "dolt_conflicts_f(text)"`,
				"ancestor | NULL | deleted | theirs | modified | root_object")
			wantError(t, ctx, c, "22023", `UPDATE "dolt_conflicts_f(text)" SET our_value = 'mine'`)
			exec(t, ctx, c, `UPDATE "dolt_conflicts_f(text)" SET our_value = $1`, tc.pick)
			wantErrorText(t, ctx, c, "42P01", "table not found", `DELETE FROM "dolt_conflicts_f(text)"`)
			if tc.want == "" {
				wantError(t, ctx, c, "42883", "SELECT f('x')")
			} else {
				wantRows(t, ctx, c, "SELECT f('x')", tc.want)
			}
			status(t, ctx, c, "SELECT dolt_commit('-am', 'resolved')")
		})
	}

	// Dropped on their side: keeping ours by deleting the row.
	ctx, c := objectConflictSetup(t, "CREATE FUNCTION f(x text) RETURNS text LANGUAGE sql AS $$ SELECT '1' || x $$")
	onBranch(t, ctx, c, "theirs", "drop", "DROP FUNCTION f(text)")
	mergeTheirs(t, ctx, c, "CREATE OR REPLACE FUNCTION f(x text) RETURNS text LANGUAGE sql AS $$ SELECT '2' || x $$")
	wantRows(t, ctx, c, `SELECT our_value, our_diff_type, their_value, their_diff_type FROM "dolt_conflicts_f(text)"`,
		"ours | modified | NULL | deleted")
	exec(t, ctx, c, `UPDATE "dolt_conflicts_f(text)" SET our_value = 'ours'`) // no change: still in conflict
	exec(t, ctx, c, `DELETE FROM "dolt_conflicts_f(text)"`)
	wantRows(t, ctx, c, "SELECT f('x')", "2x")
}

func TestViewTypeSequenceConflicts(t *testing.T) {
	ctx, c := objectConflictSetup(t,
		"CREATE TABLE t (id int PRIMARY KEY, n int)", "INSERT INTO t VALUES (1, 10)",
		"CREATE VIEW v AS SELECT id, n FROM t", "CREATE TYPE mood AS ENUM ('sad', 'ok')",
		"CREATE SEQUENCE s INCREMENT 1")
	onBranch(t, ctx, c, "theirs", "theirs",
		"CREATE OR REPLACE VIEW v AS SELECT id, n * 3 AS n FROM t",
		"ALTER TYPE mood ADD VALUE 'happy'",
		"ALTER SEQUENCE s INCREMENT 3 CACHE 5")
	mergeTheirs(t, ctx, c,
		"CREATE OR REPLACE VIEW v AS SELECT id, n * 2 AS n FROM t",
		"ALTER TYPE mood ADD VALUE 'meh'",
		"ALTER SEQUENCE s INCREMENT 2 MAXVALUE 1000")
	wantRows(t, ctx, c, "SELECT * FROM dolt_conflicts ORDER BY 1", "public.mood | 1", "public.s | 1", "public.v | 1")

	// A sequence's fields changed on one side merge (theirs' cache, our
	// maximum); the increment conflicts and takes a value of any form.
	wantRows(t, ctx, c, "SELECT base_value, our_value, their_value, dolt_conflict_id FROM dolt_conflicts_s", "1 | 2 | 3 | increment")
	wantRows(t, ctx, c, "SELECT seqincrement, seqmax, seqcache FROM pg_sequence WHERE seqrelid = 's'::regclass", "2 | 1000 | 5")
	wantError(t, ctx, c, "22P02", "UPDATE dolt_conflicts_s SET our_value = 'many'")
	exec(t, ctx, c, "UPDATE dolt_conflicts_s SET our_value = '10'")
	exec(t, ctx, c, "DELETE FROM dolt_conflicts_s")
	wantRows(t, ctx, c, "SELECT nextval('s'), nextval('s')", "1 | 11")

	// A view's definition takes one side's query (with its columns).
	wantRows(t, ctx, c, "SELECT our_value, their_value, dolt_conflict_id FROM dolt_conflicts_v",
		"SELECT t.id, (t.n * 2) AS n FROM public.t | SELECT t.id, (t.n * 3) AS n FROM public.t | definition") // views are kept as analyzed
	wantError(t, ctx, c, "0A000", "UPDATE dolt_conflicts_v SET our_value = 'SELECT 1'")
	exec(t, ctx, c, "UPDATE dolt_conflicts_v SET our_value = their_value")
	wantRows(t, ctx, c, "SELECT n FROM v", "30")

	// dolt_conflicts_resolve takes theirs' labels.
	wantRows(t, ctx, c, "SELECT our_value, their_value FROM dolt_conflicts_mood", "sad, ok, meh | sad, ok, happy")
	status(t, ctx, c, "SELECT dolt_conflicts_resolve('--theirs', 'mood')")
	wantRows(t, ctx, c, "SELECT enum_range(NULL::mood)::text", "{sad,ok,happy}")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_conflicts", "0")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'merged')")
}

// TestSchemaConflictsTable checks dolt_schema_conflicts (a table whose
// column both sides retyped), the implicit conversion of a string
// column's values that ALTER COLUMN ... TYPE makes as Doltgres does, and
// Doltgres's "table not found" for the system tables' names.
func TestSchemaConflictsTable(t *testing.T) {
	ctx, c := objectConflictSetup(t, "CREATE TABLE test (pk int PRIMARY KEY, c0 varchar(20))", "INSERT INTO test VALUES (1, '12')")
	onBranch(t, ctx, c, "theirs", "int", "ALTER TABLE test ALTER COLUMN c0 TYPE int")
	exec(t, ctx, c, "UPDATE test SET c0 = '2024-05-06'")
	exec(t, ctx, c, "ALTER TABLE test ALTER COLUMN c0 TYPE date")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'date')")
	wantRows(t, ctx, c, "SELECT c0 FROM test", "2024-05-06")
	// A value the new type does not read is PostgreSQL's refusal.
	exec(t, ctx, c, "CREATE TABLE words (w text)")
	exec(t, ctx, c, "INSERT INTO words VALUES ('bb')")
	wantErrorText(t, ctx, c, "42804", `column "w" cannot be cast automatically to type integer`, "ALTER TABLE words ALTER COLUMN w TYPE int")
	exec(t, ctx, c, "DROP TABLE words")

	exec(t, ctx, c, "BEGIN")
	status(t, ctx, c, "SELECT dolt_merge('theirs')")
	for _, q := range []string{"SELECT table_name FROM dolt.schema_conflicts", "SELECT table_name FROM dolt_schema_conflicts",
		"SELECT dolt_schema_conflicts.table_name FROM dolt_schema_conflicts"} {
		wantRows(t, ctx, c, q, "test")
	}
	exec(t, ctx, c, "SAVEPOINT probe")
	wantErrorText(t, ctx, c, "42P01", "table not found: schema_conflicts", "SELECT * FROM public.schema_conflicts")
	exec(t, ctx, c, "ROLLBACK TO probe")
	exec(t, ctx, c, "CREATE TABLE schema_conflicts (id int PRIMARY KEY)")
	exec(t, ctx, c, "INSERT INTO schema_conflicts VALUES (1)")
	wantRows(t, ctx, c, "SELECT * FROM schema_conflicts", "1")
	exec(t, ctx, c, "SET search_path = 'dolt'")
	wantRows(t, ctx, c, "SELECT table_name FROM schema_conflicts", "test")
	exec(t, ctx, c, "SET search_path = 'public'")
	exec(t, ctx, c, "ROLLBACK")

	wantErrorText(t, ctx, c, "42P01", "table not found: dolt_nonesuch", "SELECT * FROM dolt_nonesuch")
	wantErrorText(t, ctx, c, "42P01", "table not found: nonesuch", "SELECT * FROM dolt.nonesuch")
	wantErrorText(t, ctx, c, "42P01", `relation "nonesuch" does not exist`, "SELECT * FROM nonesuch")
}
