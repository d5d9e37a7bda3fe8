package regress

import (
	"strings"
	"testing"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// The system tables the user writes, dolt.docs and each schema's
// dolt_ignore (empty until their first row creates them, then ordinary
// tables, versioned like the user's), and the per-schema dolt_schemas
// and dolt_procedures.

func TestDoltDocs(t *testing.T) {
	ctx := testserver.Context(t)
	c := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	wantRows(t, ctx, c, "SELECT * FROM dolt.docs")
	if got := columnNames(t, ctx, c, "SELECT * FROM dolt_docs"); len(got) != 2 || got[0] != "doc_name" || got[1] != "doc_text" {
		t.Errorf("dolt_docs columns %q", got)
	}
	wantError(t, ctx, c, "42P01", "SELECT * FROM docs")
	wantError(t, ctx, c, "23502", "INSERT INTO dolt_docs VALUES (NULL, 'text')")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_status", "0")
	// ON CONFLICT on the table not stored yet meets only the rows the
	// statement inserts.
	wantError(t, ctx, c, "21000", "INSERT INTO dolt.docs VALUES ('a', '1'), ('a', '2') ON CONFLICT (doc_name) DO UPDATE SET doc_text = excluded.doc_text")
	wantError(t, ctx, c, "42P10", "INSERT INTO dolt.docs VALUES ('a', '1') ON CONFLICT (doc_text) DO NOTHING")
	exec(t, ctx, c, "BEGIN")
	wantRows(t, ctx, c, "INSERT INTO dolt.docs VALUES ('a', '1'), ('a', '2') ON CONFLICT DO NOTHING RETURNING doc_text", "1")
	exec(t, ctx, c, "ROLLBACK")

	// A prepared read planned before the table exists sees its rows
	// once it does.
	if _, err := c.Prepare(ctx, "docs", "SELECT doc_name FROM dolt_docs ORDER BY 1"); err != nil {
		t.Fatal(err)
	}
	exec(t, ctx, c, "INSERT INTO dolt.docs VALUES ('README.md', 'hello'), ('LICENSE.md', 'MIT')")
	rows, err := c.Query(ctx, "docs")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	if rows.Close(); len(names) != 2 || names[0] != "LICENSE.md" {
		t.Errorf("prepared read of dolt_docs: %q (%v)", names, rows.Err())
	}

	// Once stored, it is a table with a primary key.
	wantError(t, ctx, c, "23505", "INSERT INTO dolt.docs VALUES ('README.md', 'again')")
	exec(t, ctx, c, "INSERT INTO dolt_docs VALUES ('README.md', 'hi') ON CONFLICT (doc_name) DO UPDATE SET doc_text = excluded.doc_text")
	wantRows(t, ctx, c, "SELECT * FROM dolt.docs ORDER BY doc_name", "LICENSE.md | MIT", "README.md | hi")
	wantRows(t, ctx, c, "SELECT table_name, staged, status FROM dolt_status", "dolt.docs | f | new table")
	wantRows(t, ctx, c, "SELECT to_table_name, diff_type FROM dolt_diff_summary('HEAD', 'WORKING', 'docs')", "dolt.docs | added")
	wantRows(t, ctx, c, "SELECT to_table_name, diff_type FROM dolt_diff_summary('HEAD', 'WORKING', 'dolt_docs')", "dolt.docs | added")
	wantRows(t, ctx, c, "SELECT diff_type, to_doc_name FROM dolt_diff('HEAD', 'WORKING', 'docs') ORDER BY 2",
		"added | LICENSE.md", "added | README.md")

	// A table of the user's named docs is another table; with dolt on
	// the search path after it, docs is the user's.
	exec(t, ctx, c, "CREATE TABLE docs (id int PRIMARY KEY)")
	exec(t, ctx, c, "SET search_path = dolt")
	wantRows(t, ctx, c, "SELECT count(*) FROM docs", "2")
	exec(t, ctx, c, "SET search_path = public, dolt")
	wantRows(t, ctx, c, "SELECT count(*) FROM docs", "0")
	exec(t, ctx, c, "SET search_path = public")

	// Committed and branched like any table.
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'docs')")
	status(t, ctx, c, "SELECT dolt_checkout('-b', 'other')")
	exec(t, ctx, c, "DELETE FROM dolt_docs WHERE doc_name = 'LICENSE.md'")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'no license')")
	status(t, ctx, c, "SELECT dolt_checkout('main')")
	wantRows(t, ctx, c, "SELECT doc_name FROM dolt.docs ORDER BY 1", "LICENSE.md", "README.md")
	status(t, ctx, c, "SELECT dolt_merge('other')")
	wantRows(t, ctx, c, "SELECT doc_name FROM dolt.docs", "README.md")
}

func TestDoltIgnore(t *testing.T) {
	ctx := testserver.Context(t)
	c := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	wantRows(t, ctx, c, "SELECT * FROM dolt_ignore")
	wantRows(t, ctx, c, "INSERT INTO dolt_ignore VALUES ('tmp_*', true), ('tmp_keep', false), ('scratch?', true) RETURNING pattern",
		"tmp_*", "tmp_keep", "scratch?")
	wantRows(t, ctx, c, "SELECT * FROM public.dolt_ignore ORDER BY pattern", "scratch? | t", "tmp_* | t", "tmp_keep | f")
	wantError(t, ctx, c, "42P01", "SELECT * FROM nosuchschema.dolt_ignore")

	for _, name := range []string{"kept", "tmp_a", "tmp_keep", "scratch1", "scratch12"} {
		exec(t, ctx, c, "CREATE TABLE "+name+" (id int)")
	}
	status(t, ctx, c, "SELECT dolt_add('.')")
	wantRows(t, ctx, c, "SELECT table_name, staged FROM dolt_status ORDER BY 1",
		"public.dolt_ignore | t", "public.kept | t", "public.scratch1 | f", "public.scratch12 | t",
		"public.tmp_a | f", "public.tmp_keep | t")
	wantRows(t, ctx, c, "SELECT table_name, staged, ignored FROM dolt.status_ignored WHERE table_name LIKE '%s%' ORDER BY 1",
		"public.scratch1 | f | t", "public.scratch12 | t | f")

	// Naming an ignored table stages it; a table already staged or
	// committed is no longer new, and its changes are staged.
	status(t, ctx, c, "SELECT dolt_add('tmp_a')")
	exec(t, ctx, c, "CREATE TABLE tmp_b (id int)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'tables')")
	wantRows(t, ctx, c, "SELECT table_name, staged FROM dolt_status ORDER BY 1", "public.scratch1 | f", "public.tmp_b | f")
	exec(t, ctx, c, "INSERT INTO tmp_a VALUES (1)")
	status(t, ctx, c, "SELECT dolt_add('-A')")
	wantRows(t, ctx, c, "SELECT table_name, staged FROM dolt_status ORDER BY 1",
		"public.scratch1 | f", "public.tmp_a | t", "public.tmp_b | f")

	// Each schema has its own patterns.
	exec(t, ctx, c, "CREATE SCHEMA s")
	exec(t, ctx, c, "INSERT INTO s.dolt_ignore VALUES ('kept', true)")
	exec(t, ctx, c, "CREATE TABLE s.kept (id int)")
	exec(t, ctx, c, "CREATE TABLE s.tmp_c (id int)")
	status(t, ctx, c, "SELECT dolt_add('.')")
	wantRows(t, ctx, c, "SELECT table_name, staged FROM dolt_status WHERE table_name LIKE 's.%' ORDER BY 1",
		"s.dolt_ignore | t", "s.kept | f", "s.tmp_c | t")

	// dolt_clean leaves ignored tables, unless named.
	exec(t, ctx, c, "CREATE TABLE tmp_d (id int)")
	exec(t, ctx, c, "CREATE TABLE other (id int)")
	status(t, ctx, c, "SELECT dolt_clean()")
	wantRows(t, ctx, c, "SELECT table_name FROM dolt_status WHERE NOT staged ORDER BY 1", "public.scratch1", "public.tmp_b", "public.tmp_d", "s.kept")
	status(t, ctx, c, "SELECT dolt_clean('tmp_d')")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_status WHERE table_name = 'public.tmp_d'", "0")

	// Patterns of both kinds, neither more specific: staging fails.
	exec(t, ctx, c, "INSERT INTO dolt_ignore VALUES ('*_x', false)")
	exec(t, ctx, c, "CREATE TABLE tmp_x (id int)")
	wantError(t, ctx, c, "55000", "SELECT dolt_add('.')")
}

func TestDoltSchemas(t *testing.T) {
	ctx := testserver.Context(t)
	c := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	exec(t, ctx, c, "CREATE VIEW v1 AS   SELECT 1 AS one")
	exec(t, ctx, c, "CREATE SCHEMA s")
	exec(t, ctx, c, "CREATE VIEW s.v1 AS SELECT 2 AS two")
	wantRows(t, ctx, c, "SELECT type, name, fragment FROM dolt_schemas", "view | v1 | CREATE VIEW v1 AS   SELECT 1 AS one")
	wantRows(t, ctx, c, "SELECT name, fragment FROM s.dolt_schemas", "v1 | CREATE VIEW s.v1 AS SELECT 2 AS two")
	wantRows(t, ctx, c, "SELECT * FROM dolt_procedures")
	wantError(t, ctx, c, "42P01", "SELECT * FROM nosuchschema.dolt_schemas")

	// The views of a schema change as the rows of its dolt_schemas.
	wantRows(t, ctx, c, "SELECT table_name, staged, status FROM dolt_status ORDER BY 1",
		"public.dolt_schemas | f | new table", "s | f | new schema", "s.dolt_schemas | f | new table")
	status(t, ctx, c, "SELECT dolt_add('dolt_schemas')")
	wantRows(t, ctx, c, "SELECT table_name, staged FROM dolt_status ORDER BY 1",
		"public.dolt_schemas | t", "s | f", "s.dolt_schemas | f")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'views')")
	exec(t, ctx, c, "CREATE VIEW v2 AS SELECT 2 AS two")
	exec(t, ctx, c, "DROP VIEW s.v1")
	wantRows(t, ctx, c, "SELECT from_table_name, to_table_name, diff_type, data_change, schema_change FROM dolt_diff_summary('HEAD', 'WORKING') ORDER BY 1",
		"public.dolt_schemas | public.dolt_schemas | modified | t | f", "s.dolt_schemas |  | dropped | t | t")
	wantRows(t, ctx, c, "SELECT diff_type, from_name, to_name, to_fragment FROM dolt_diff('HEAD', 'WORKING', 'dolt_schemas')",
		"added | NULL | v2 | CREATE VIEW v2 AS SELECT 2 AS two")
	wantRows(t, ctx, c, "SELECT diff_type, from_name FROM dolt_diff('HEAD', 'WORKING', 's.dolt_schemas')", "removed | v1")
	// The delta functions take other objects' names too.
	exec(t, ctx, c, "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'")
	wantRows(t, ctx, c, "SELECT to_table_name, diff_type FROM dolt_diff_summary('HEAD', 'WORKING', 'f()')", "public.f() | added")
	wantRows(t, ctx, c, "SELECT to_table_name, diff_type FROM dolt_diff_summary('HEAD', 'WORKING', 'v2')", "public.dolt_schemas | modified")
	status(t, ctx, c, "SELECT dolt_checkout('s.dolt_schemas')")
	wantRows(t, ctx, c, "SELECT name FROM s.dolt_schemas", "v1")
}

func TestDoltColumnDiff(t *testing.T) {
	ctx := testserver.Context(t)
	c := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE t (id int PRIMARY KEY, a int, b text)")
	exec(t, ctx, c, "INSERT INTO t VALUES (1, 1, 'x'), (2, 2, 'y')")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'create')")
	wantRows(t, ctx, c, "SELECT table_name, column_name, diff_type, message FROM dolt.column_diff",
		"public.t | id | added | create", "public.t | a | added | create", "public.t | b | added | create")

	// A changed value modifies its column only; a new column is added,
	// a dropped one removed, a retyped one modified.
	exec(t, ctx, c, "UPDATE t SET b = 'z' WHERE id = 2")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'update')")
	exec(t, ctx, c, "ALTER TABLE t ADD COLUMN c int")
	exec(t, ctx, c, "ALTER TABLE t DROP COLUMN a")
	exec(t, ctx, c, "ALTER TABLE t ALTER COLUMN b TYPE varchar(10)")
	status(t, ctx, c, "SELECT dolt_add('t')")
	exec(t, ctx, c, "INSERT INTO t VALUES (3, 'w', 3)")
	wantRows(t, ctx, c, "SELECT commit_hash, column_name, diff_type FROM dolt_column_diff WHERE message IS NULL OR message <> 'create' ORDER BY commit_hash = 'WORKING' DESC, commit_hash = 'STAGED' DESC",
		"WORKING | id | modified", "WORKING | b | modified", "WORKING | c | modified",
		"STAGED | b | modified", "STAGED | c | added", "STAGED | a | removed",
		one(t, ctx, c, "SELECT dolt_hashof('HEAD')")+" | b | modified")
}

func TestDoltWorkspaceOfMissingTable(t *testing.T) {
	ctx := testserver.Context(t)
	c := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE t (id int PRIMARY KEY)")
	exec(t, ctx, c, "INSERT INTO t VALUES (1)")
	wantRows(t, ctx, c, "SELECT id, staged, diff_type, to_id FROM dolt_workspace_t", "0 | f | added | 1")
	// A table the schema does not have: no changes; a schema that does
	// not exist: no such relation.
	wantRows(t, ctx, c, "SELECT * FROM public.dolt_workspace_nosuch")
	exec(t, ctx, c, "CREATE SCHEMA s")
	wantRows(t, ctx, c, "SELECT * FROM s.dolt_workspace_t")
	wantError(t, ctx, c, "42P01", "SELECT * FROM nosuchschema.dolt_workspace_t")

	// A parent a commit does not have is an invalid ancestor spec.
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'one')")
	rows, err := c.Query(ctx, "SELECT dolt_hashof('HEAD^2')")
	if err == nil {
		rows.Close()
		err = rows.Err()
	}
	if err == nil || !strings.Contains(err.Error(), "invalid ancestor spec") || sqlstate(err) != "22023" {
		t.Errorf("HEAD^2 of a commit with one parent: %v", err)
	}
}
