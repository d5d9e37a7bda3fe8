package regress

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// Objects other than tables under version control: views, types,
// functions and sequences no column owns are listed, staged, restored,
// diffed, patched, merged and read at past revisions like tables.

func TestDoltObjectsStatusAndStaging(t *testing.T) {
	ctx := testserver.Context(t)
	c := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE t (id int PRIMARY KEY)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'table')")

	exec(t, ctx, c, "CREATE VIEW v AS SELECT id FROM t")
	exec(t, ctx, c, "CREATE TYPE mood AS ENUM ('sad', 'ok')")
	exec(t, ctx, c, "CREATE FUNCTION f(x int) RETURNS int LANGUAGE sql AS 'SELECT x + 1'")
	exec(t, ctx, c, "CREATE SEQUENCE s")
	// A schema's views are the rows of its dolt_schemas, as Doltgres
	// keeps them.
	wantRows(t, ctx, c, "SELECT table_name, staged, status FROM dolt_status ORDER BY table_name",
		"public.dolt_schemas | f | new table", "public.f(integer) | f | new function", "public.mood | f | new type",
		"public.s | f | new sequence")

	// dolt_add stages by name: a function without its arguments means
	// every overload.
	status(t, ctx, c, "SELECT dolt_add('v', 'public.f')")
	wantRows(t, ctx, c, "SELECT table_name, staged, status FROM dolt_status ORDER BY staged DESC, table_name",
		"public.dolt_schemas | t | new table", "public.f(integer) | t | new function",
		"public.mood | f | new type", "public.s | f | new sequence")
	status(t, ctx, c, "SELECT dolt_reset('v')")
	wantRows(t, ctx, c, "SELECT table_name FROM dolt_status WHERE staged", "public.f(integer)")
	status(t, ctx, c, "SELECT dolt_add('.')")
	status(t, ctx, c, "SELECT dolt_commit('-m', 'objects')")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_status", "0")
	wantRows(t, ctx, c, "SELECT table_name, schema_change FROM dolt.diff WHERE commit_hash = hashof('HEAD') ORDER BY 1",
		"public.dolt_schemas | t", "public.f(integer) | t", "public.mood | t", "public.s | t")
	wantRows(t, ctx, c, "SELECT to_table_name, diff_type FROM dolt_diff_summary('HEAD~', 'HEAD') ORDER BY 1",
		"public.dolt_schemas | added", "public.f(integer) | added", "public.mood | added", "public.s | added")

	// dolt_checkout restores changed objects from the staged root.
	exec(t, ctx, c, "CREATE OR REPLACE FUNCTION f(x int) RETURNS int LANGUAGE sql AS 'SELECT x + 2'")
	exec(t, ctx, c, "DROP VIEW v")
	wantRows(t, ctx, c, "SELECT table_name, status FROM dolt_status ORDER BY 1",
		"public.dolt_schemas | deleted", "public.f(integer) | modified")
	status(t, ctx, c, "SELECT dolt_checkout('v', 'f(integer)')")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_status", "0")
	wantRows(t, ctx, c, "SELECT f(1), (SELECT count(*) FROM v)", "2 | 0")

	// A sequence's position is data; dolt_commit -a stages changed
	// objects the head has and leaves new ones.
	exec(t, ctx, c, "SELECT nextval('s')")
	exec(t, ctx, c, "ALTER TYPE mood ADD VALUE 'happy'")
	exec(t, ctx, c, "CREATE VIEW w AS SELECT 1 AS one")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'tracked')")
	wantRows(t, ctx, c, "SELECT table_name, staged, status FROM dolt_status", "public.dolt_schemas | f | modified")
	wantRows(t, ctx, c, "SELECT to_table_name, data_change, schema_change FROM dolt_diff_summary('HEAD~', 'HEAD') ORDER BY 1",
		"public.mood | f | t", "public.s | t | f")
}

// applyPatch runs dolt_patch(from, to)'s statements on branch, made at
// from, and commits them.
func applyPatch(t *testing.T, ctx context.Context, c *pgx.Conn, branch, from, to string) {
	t.Helper()
	stmts := textRows(t, ctx, c, "SELECT statement FROM dolt_patch($1, $2) ORDER BY statement_order", from, to)
	status(t, ctx, c, "SELECT dolt_checkout('-b', $1, $2)", branch, from)
	for _, s := range stmts {
		exec(t, ctx, c, s)
	}
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'patched')")
}

// samePatched checks that branch, patched, has main's contents: equal
// databases but for the views' CREATE VIEW statements as written, which
// the patch writes its own way (patchobjects.go).
func samePatched(t *testing.T, ctx context.Context, c *pgx.Conn, branch, what string) {
	t.Helper()
	if diff := textRows(t, ctx, c, "SELECT from_table_name || ' ' || to_table_name || ' ' || diff_type FROM dolt_diff_summary('main', $1) WHERE to_table_name <> 'public.dolt_schemas'", branch); len(diff) > 0 {
		t.Errorf("%s: %s differs from main: %v", what, branch, diff)
	}
	if diff := textRows(t, ctx, c, "SELECT diff_type, from_name, to_name FROM dolt_diff('main', $1, 'dolt_schemas') WHERE diff_type <> 'modified'", branch); len(diff) > 0 {
		t.Errorf("%s: %s's views differ from main's: %v", what, branch, diff)
	}
}

func TestDoltObjectsPatch(t *testing.T) {
	ctx := testserver.Context(t)
	c := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE t (id int PRIMARY KEY, n int)")
	exec(t, ctx, c, "INSERT INTO t VALUES (1, 1)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'base')")

	exec(t, ctx, c, "CREATE TYPE mood AS ENUM ('sad', 'ok')")
	exec(t, ctx, c, "CREATE DOMAIN pos AS int CHECK (VALUE > 0)")
	exec(t, ctx, c, "CREATE SEQUENCE s START 10")
	exec(t, ctx, c, "SELECT nextval('s')")
	exec(t, ctx, c, `CREATE FUNCTION bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN NEW.n := NEW.n + 1; RETURN NEW; END $$`)
	exec(t, ctx, c, "CREATE FUNCTION twice(x int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT 2 * x'")
	exec(t, ctx, c, "CREATE TABLE u (id int PRIMARY KEY, m mood, p pos)")
	exec(t, ctx, c, "CREATE TRIGGER tb BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION bump()")
	exec(t, ctx, c, "CREATE VIEW v AS SELECT id, n FROM t WHERE n > 0")
	exec(t, ctx, c, "CREATE VIEW vv AS SELECT id FROM v")
	exec(t, ctx, c, "INSERT INTO t VALUES (2, 2)")
	exec(t, ctx, c, "INSERT INTO u VALUES (1, 'ok', 3)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'objects')")
	applyPatch(t, ctx, c, "p1", "main~1", "main")
	samePatched(t, ctx, c, "p1", "patch adding objects")

	status(t, ctx, c, "SELECT dolt_checkout('main')")
	exec(t, ctx, c, "ALTER TYPE mood ADD VALUE 'happy'")
	exec(t, ctx, c, "ALTER TYPE mood ADD VALUE 'meh' BEFORE 'ok'")
	exec(t, ctx, c, "ALTER DOMAIN pos ADD CONSTRAINT small CHECK (VALUE < 100)")
	exec(t, ctx, c, "CREATE OR REPLACE FUNCTION twice(x int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT x + x'")
	exec(t, ctx, c, "DROP TRIGGER tb ON t")
	exec(t, ctx, c, "CREATE TRIGGER ta BEFORE UPDATE ON t FOR EACH ROW EXECUTE FUNCTION bump()")
	exec(t, ctx, c, "DROP VIEW vv")
	exec(t, ctx, c, "CREATE OR REPLACE VIEW v AS SELECT id, n, twice(n) AS n2 FROM t WHERE n > 0")
	exec(t, ctx, c, "DROP SEQUENCE s")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'changes')")
	applyPatch(t, ctx, c, "p2", "main~1", "main")
	samePatched(t, ctx, c, "p2", "patch changing objects")

	status(t, ctx, c, "SELECT dolt_checkout('main')")
	exec(t, ctx, c, "DROP VIEW v")
	exec(t, ctx, c, "DROP TRIGGER ta ON t")
	exec(t, ctx, c, "DROP FUNCTION bump()")
	exec(t, ctx, c, "DROP TABLE u")
	exec(t, ctx, c, "DROP TYPE mood")
	exec(t, ctx, c, "DROP DOMAIN pos")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'drops')")
	wantRows(t, ctx, c, "SELECT table_name, statement FROM dolt_patch('HEAD~', 'HEAD') ORDER BY statement_order",
		"public.v | DROP VIEW public.v;", `public.t | DROP TRIGGER "ta" ON "t";`, `public.u | DROP TABLE "u";`,
		"public.bump() | DROP FUNCTION public.bump();", "public.mood | DROP TYPE public.mood;", "public.pos | DROP DOMAIN public.pos;")
	applyPatch(t, ctx, c, "p3", "main~1", "main")
	if a, b := one(t, ctx, c, "SELECT dolt_hashof_db('p3')"), one(t, ctx, c, "SELECT dolt_hashof_db('main')"); a != b {
		t.Errorf("patch dropping objects: database %s, want %s", a, b)
	}
	// dolt_schema_diff lists tables only, as Doltgres's does; the
	// function's change is in dolt_diff_summary.
	wantRows(t, ctx, c, "SELECT to_table_name FROM dolt_schema_diff('HEAD~2', 'HEAD~1') WHERE to_table_name LIKE 'public.tw%'")
	wantRows(t, ctx, c, "SELECT to_table_name FROM dolt_diff_summary('HEAD~2', 'HEAD~1') WHERE to_table_name LIKE 'public.tw%'",
		"public.twice(integer)")
}

func TestDoltObjectsMerge(t *testing.T) {
	ctx := testserver.Context(t)
	c := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	exec(t, ctx, c, "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'base')")
	status(t, ctx, c, "SELECT dolt_branch('a')")
	status(t, ctx, c, "SELECT dolt_branch('b')")
	status(t, ctx, c, "SELECT dolt_branch('same')")

	// Different functions added on two branches merge.
	status(t, ctx, c, "SELECT dolt_checkout('a')")
	exec(t, ctx, c, "CREATE FUNCTION ga() RETURNS int LANGUAGE sql AS 'SELECT 10'")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'ga')")
	status(t, ctx, c, "SELECT dolt_checkout('main')")
	exec(t, ctx, c, "CREATE FUNCTION gm() RETURNS int LANGUAGE sql AS 'SELECT 20'")
	exec(t, ctx, c, "CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 2'")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'gm')")
	status(t, ctx, c, "SELECT dolt_merge('a')")
	wantRows(t, ctx, c, "SELECT ga() + gm()", "30")

	// The same change on both sides merges.
	onBranch(t, ctx, c, "same", "same", "CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 2'")
	status(t, ctx, c, "SELECT dolt_merge('same')")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_schema_conflicts", "0")

	// Redefined differently on both sides: a conflict of the field
	// changed, ours kept until resolved, commits refused meanwhile.
	onBranch(t, ctx, c, "b", "b", "CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 3'")
	status(t, ctx, c, "SELECT dolt_merge('b')")
	wantRows(t, ctx, c, `SELECT dolt_conflict_id, base_value, our_value, their_value FROM "dolt_conflicts_f()"`,
		"definition | SELECT 1 | SELECT 2 | SELECT 3")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_schema_conflicts", "0")
	wantRows(t, ctx, c, "SELECT table_name, status FROM dolt_status WHERE status = 'conflict'", "public.f() | conflict")
	wantRows(t, ctx, c, "SELECT f()", "2")
	wantError(t, ctx, c, "55000", "SELECT dolt_commit('-am', 'too early')")
	status(t, ctx, c, "SELECT dolt_conflicts_resolve('--theirs', 'f')")
	wantRows(t, ctx, c, "SELECT f()", "3")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'merged b')")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_status", "0")
}

func TestDoltObjectsTimeTravel(t *testing.T) {
	ctx := testserver.Context(t)
	c := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE t (id int PRIMARY KEY, n int)")
	exec(t, ctx, c, "INSERT INTO t VALUES (1, 10)")
	exec(t, ctx, c, "CREATE FUNCTION k() RETURNS int LANGUAGE sql AS 'SELECT 1'")
	exec(t, ctx, c, "CREATE VIEW v AS SELECT id, n * k() AS x FROM t")
	exec(t, ctx, c, "CREATE VIEW vv AS SELECT x FROM v")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'one')")
	exec(t, ctx, c, "INSERT INTO t VALUES (2, 20)")
	exec(t, ctx, c, "CREATE OR REPLACE FUNCTION k() RETURNS int LANGUAGE sql AS 'SELECT 2'")
	exec(t, ctx, c, "CREATE OR REPLACE VIEW v AS SELECT id, n + k() AS x FROM t")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'two')")

	// The view as of a revision is its definition then over its tables
	// then; the function it calls is today's.
	wantRows(t, ctx, c, `SELECT * FROM "postgres@HEAD~1".public.v`, "1 | 20")
	wantRows(t, ctx, c, "SELECT * FROM v AS OF 'HEAD~1'", "1 | 20")
	wantRows(t, ctx, c, "SELECT * FROM vv AS OF 'HEAD~1'", "20")
	wantRows(t, ctx, c, "SELECT * FROM v ORDER BY id", "1 | 12", "2 | 22")
	wantError(t, ctx, c, "25006", `INSERT INTO "postgres@HEAD~1".public.t VALUES (3, 3)`)
}

// TestDoltTriggersAndSequencesStaged: as in Doltgres, a table's triggers
// and its serial column's sequence are listed and staged by their own
// names (schema.table.trigger, schema.sequence): staging the table leaves
// them, dolt_add('.') takes all, dolt_clean of the table takes them with
// it, and dolt_diff_stat lists functions and sequences beside tables.
func TestDoltTriggersAndSequencesStaged(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE s (id serial PRIMARY KEY)")
	exec(t, ctx, c, "CREATE TABLE tr (v int8)")
	exec(t, ctx, c, "CREATE FUNCTION triple() RETURNS trigger AS $$ BEGIN NEW.v := NEW.v * 3; RETURN NEW; END $$ LANGUAGE plpgsql")
	exec(t, ctx, c, "CREATE TRIGGER x3 BEFORE INSERT ON tr FOR EACH ROW EXECUTE FUNCTION triple()")
	wantRows(t, ctx, c, "SELECT table_name, staged, status FROM dolt_status ORDER BY 1",
		"public.s | f | new table", "public.s_id_seq | f | new sequence", "public.tr | f | new table",
		"public.tr.x3 | f | new trigger", "public.triple() | f | new function")

	wantRows(t, ctx, c, "SELECT dolt_add('s', 'tr', 'triple()')", "0")
	wantRows(t, ctx, c, "SELECT table_name FROM dolt_status WHERE NOT staged ORDER BY 1", "public.s_id_seq", "public.tr.x3")
	wantRows(t, ctx, c, "SELECT dolt_add('s_id_seq', 'tr.x3')", "0")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_status WHERE NOT staged", "0")
	status(t, ctx, c, "SELECT dolt_commit('-m', 'objects')")

	// A trigger dropped alone is a trigger's change, not the table's.
	exec(t, ctx, c, "DROP TRIGGER x3 ON tr")
	wantRows(t, ctx, c, "SELECT table_name, staged, status FROM dolt_status ORDER BY 1", "public.tr.x3 | f | deleted")
	status(t, ctx, c, "SELECT dolt_reset('--hard')")
	exec(t, ctx, c, "INSERT INTO tr VALUES (2)")
	wantRows(t, ctx, c, "SELECT v FROM tr", "6")
	wantRows(t, ctx, c, "SELECT table_name, staged, status FROM dolt_status ORDER BY 1", "public.tr | f | modified")

	exec(t, ctx, c, "CREATE OR REPLACE FUNCTION triple() RETURNS trigger AS $$ BEGIN NEW.v := NEW.v * 30; RETURN NEW; END $$ LANGUAGE plpgsql")
	exec(t, ctx, c, "INSERT INTO s DEFAULT VALUES")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'more')")
	wantRows(t, ctx, c, "SELECT table_name FROM dolt_diff_stat('HEAD~', 'HEAD') ORDER BY 1",
		"public.s", "public.s_id_seq", "public.tr", "public.triple()")

	exec(t, ctx, c, "CREATE TABLE n (id serial PRIMARY KEY)")
	exec(t, ctx, c, "CREATE FUNCTION f() RETURNS int AS 'SELECT 1' LANGUAGE sql")
	wantRows(t, ctx, c, "SELECT dolt_clean('n', 'f()')", "0")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_status", "0")
}

// TestDoltSequencesFollowTheWorkingSet: a sequence's values follow its
// record in the branch's working set when a version-control operation
// replaces it, back or forward, as Doltgres's do: dolt_reset --hard to a
// commit gives that commit's next value again (also when the session drew
// its last value from exactly the record the reset restores), dolt_merge
// takes the merged position, and a branch draws from its own.
func TestDoltSequencesFollowTheWorkingSet(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE s (id serial PRIMARY KEY, v text)")
	exec(t, ctx, c, "INSERT INTO s (v) VALUES ('a')")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'one row')")
	// A session's commits are by user@client address, as Doltgres's are.
	wantRows(t, ctx, c, "SELECT committer, email FROM dolt_log LIMIT 1", "postgres | postgres@127.0.0.1")
	exec(t, ctx, c, "INSERT INTO s (v) VALUES ('b'), ('c')")
	status(t, ctx, c, "SELECT dolt_reset('--hard')")
	wantRows(t, ctx, c, "INSERT INTO s (v) VALUES ('b') RETURNING id", "2")
	status(t, ctx, c, "SELECT dolt_reset('--hard')")
	wantRows(t, ctx, c, "INSERT INTO s (v) VALUES ('b') RETURNING id", "2")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'two rows')")

	status(t, ctx, c, "SELECT dolt_branch('other')")
	other := connect(t, ctx, srv.DSN("postgres/other"))
	wantRows(t, ctx, other, "INSERT INTO s (v) VALUES ('x'), ('y') RETURNING id", "3", "4")
	status(t, ctx, other, "SELECT dolt_commit('-Am', 'other rows')")
	wantRows(t, ctx, c, "SELECT nextval('s_id_seq')", "3") // main's own position
	status(t, ctx, c, "SELECT dolt_reset('--hard')")
	status(t, ctx, c, "SELECT dolt_merge('other')")
	wantRows(t, ctx, c, "INSERT INTO s (v) VALUES ('z') RETURNING id", "5")
}

// TestDoltOperators: an operator (CREATE OPERATOR) is an object of its
// own, named by its operand types, as a function is: listed, staged,
// diffed, patched and merged, after the function it stands for.
func TestDoltOperators(t *testing.T) {
	ctx := testserver.Context(t)
	c := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE t (id int PRIMARY KEY)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'base')")
	status(t, ctx, c, "SELECT dolt_branch('other')")

	exec(t, ctx, c, "CREATE FUNCTION addabs(int, int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT abs($1) + abs($2)'")
	exec(t, ctx, c, "CREATE OPERATOR |+| (FUNCTION = addabs, LEFTARG = int, RIGHTARG = int)")
	exec(t, ctx, c, "CREATE OPERATOR ~~~ (FUNCTION = reverse, RIGHTARG = text)")
	wantRows(t, ctx, c, "SELECT table_name, staged, status FROM dolt_status ORDER BY table_name",
		"public.addabs(integer, integer) | f | new function", "public.|+|(integer, integer) | f | new operator",
		"public.~~~(text) | f | new operator")
	status(t, ctx, c, "SELECT dolt_add('public.|+|', 'addabs')")
	wantRows(t, ctx, c, "SELECT table_name FROM dolt_status WHERE NOT staged", "public.~~~(text)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'operators')")
	wantRows(t, ctx, c, "SELECT to_table_name, diff_type FROM dolt_diff_summary('HEAD~', 'HEAD') ORDER BY 1",
		"public.addabs(integer, integer) | added", "public.|+|(integer, integer) | added", "public.~~~(text) | added")
	wantRows(t, ctx, c, "SELECT statement FROM dolt_patch('HEAD~', 'HEAD') ORDER BY statement_order",
		`CREATE OR REPLACE FUNCTION public.addabs(integer, integer)
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
AS $function$SELECT abs($1) + abs($2)$function$;`,
		"CREATE OPERATOR public.|+| (FUNCTION = public.addabs, LEFTARG = integer, RIGHTARG = integer);",
		"CREATE OPERATOR public.~~~ (FUNCTION = pg_catalog.reverse, RIGHTARG = text);")
	applyPatch(t, ctx, c, "patched", "main~1", "main")
	wantRows(t, ctx, c, "SELECT 2 |+| -3, ~~~ 'abc'", "5 | cba")
	samePatched(t, ctx, c, "patched", "patch adding operators")

	// An operator added on another branch merges in, and works.
	status(t, ctx, c, "SELECT dolt_checkout('other')")
	wantError(t, ctx, c, "42883", "SELECT 2 |+| -3")
	exec(t, ctx, c, "CREATE OPERATOR === (FUNCTION = int4eq, LEFTARG = int, RIGHTARG = int)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'eq')")
	status(t, ctx, c, "SELECT dolt_checkout('main')")
	status(t, ctx, c, "SELECT dolt_merge('other')")
	wantRows(t, ctx, c, "SELECT 2 |+| -3, 1 === 1, 1 === 2", "5 | t | f")
	wantRows(t, ctx, c, "SELECT oprname FROM pg_operator ORDER BY 1", "===", "|+|", "~~~")

	// Dropped, it is a deleted object, and the patch drops it before
	// the function.
	exec(t, ctx, c, "DROP FUNCTION addabs(int, int) CASCADE")
	wantRows(t, ctx, c, "SELECT table_name, status FROM dolt_status ORDER BY 1",
		"public.addabs(integer, integer) | deleted", "public.|+|(integer, integer) | deleted")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'drop')")
	wantRows(t, ctx, c, "SELECT statement FROM dolt_patch('HEAD~', 'HEAD') ORDER BY statement_order",
		"DROP OPERATOR public.|+| (integer, integer);", "DROP FUNCTION public.addabs(integer, integer);")
}

// TestDoltCasts checks that user-defined casts take part in version
// control as operators do: listed, staged and committed, diffed, patched
// (CREATE CAST after its function, DROP CAST before it) and merged.
func TestDoltCasts(t *testing.T) {
	ctx := testserver.Context(t)
	c := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE t (id int PRIMARY KEY)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'base')")
	status(t, ctx, c, "SELECT dolt_branch('other')")

	exec(t, ctx, c, "CREATE FUNCTION int_to_date(int) RETURNS date LANGUAGE sql IMMUTABLE AS 'SELECT $1::text::date'")
	exec(t, ctx, c, "CREATE CAST (int AS date) WITH FUNCTION int_to_date(int) AS ASSIGNMENT")
	wantRows(t, ctx, c, "SELECT table_name, staged, status FROM dolt_status ORDER BY table_name",
		"pg_catalog.cast(integer AS date) | f | new cast", "public.int_to_date(integer) | f | new function")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'cast')")
	wantRows(t, ctx, c, "SELECT statement FROM dolt_patch('HEAD~', 'HEAD') ORDER BY statement_order",
		`CREATE OR REPLACE FUNCTION public.int_to_date(integer)
 RETURNS date
 LANGUAGE sql
 IMMUTABLE
AS $function$SELECT $1::text::date$function$;`,
		"CREATE CAST (integer AS date) WITH FUNCTION public.int_to_date(integer) AS ASSIGNMENT;")
	applyPatch(t, ctx, c, "patched", "main~1", "main")
	wantRows(t, ctx, c, "SELECT 20240102::date", "2024-01-02")
	samePatched(t, ctx, c, "patched", "patch adding a cast")

	// A cast added on another branch merges in, and works.
	status(t, ctx, c, "SELECT dolt_checkout('other')")
	wantError(t, ctx, c, "42846", "SELECT 20240102::date")
	exec(t, ctx, c, "CREATE CAST (date AS int) WITHOUT FUNCTION")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'binary')")
	status(t, ctx, c, "SELECT dolt_checkout('main')")
	status(t, ctx, c, "SELECT dolt_merge('other')")
	wantRows(t, ctx, c, "SELECT 20240102::date, '2000-01-02'::date::int", "2024-01-02 | 1")
	wantRows(t, ctx, c, "SELECT castmethod FROM pg_cast ORDER BY 1", "b", "f")

	// Dropped with its function, it is a deleted object, and the patch
	// drops it before the function.
	exec(t, ctx, c, "DROP FUNCTION int_to_date(int) CASCADE")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'drop')")
	wantRows(t, ctx, c, "SELECT statement FROM dolt_patch('HEAD~', 'HEAD') ORDER BY statement_order",
		"DROP CAST (integer AS date);", "DROP FUNCTION public.int_to_date(integer);")
}
