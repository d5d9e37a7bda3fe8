package regress

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// Stored generated columns under version control: their expressions are
// part of the table's definition in the root value, so commits, branches
// and merges carry them, as Doltgres's tests expect.

// TestDoltGeneratedColumns: a table with generated columns survives
// dolt_commit, a checkout of another branch and back, and a merge of two
// branches that both inserted rows; each branch computes the columns.
func TestDoltGeneratedColumns(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE t (pk int PRIMARY KEY, c1 int, c2 int GENERATED ALWAYS AS (c1 + 1) STORED)")
	exec(t, ctx, c, "INSERT INTO t (pk, c1) VALUES (1, 10)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'generated')")
	status(t, ctx, c, "SELECT dolt_branch('feat')")

	onBranch(t, ctx, c, "feat", "feat rows", "INSERT INTO t (pk, c1) VALUES (2, 20)", "UPDATE t SET c1 = 11 WHERE pk = 1")
	wantRows(t, ctx, c, "SELECT * FROM t ORDER BY pk", "1 | 10 | 11")
	wantRows(t, ctx, c, "SELECT generation_expression FROM information_schema.columns WHERE table_name = 't' AND column_name = 'c2'", "(c1 + 1)")
	wantError(t, ctx, c, "428C9", "INSERT INTO t VALUES (3, 30, 31)")
	exec(t, ctx, c, "INSERT INTO t (pk, c1) VALUES (3, 30)")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'main rows')")

	got := status(t, ctx, c, "SELECT dolt_merge('feat')")
	if got[2] != "0" {
		t.Fatalf("merge: %v", got)
	}
	wantRows(t, ctx, c, "SELECT * FROM t ORDER BY pk", "1 | 11 | 12", "2 | 20 | 21", "3 | 30 | 31")
	exec(t, ctx, c, "INSERT INTO t (pk, c1) VALUES (4, 40)")
	exec(t, ctx, c, "UPDATE t SET c1 = c1 * 2 WHERE pk = 2")
	wantRows(t, ctx, c, "SELECT * FROM t WHERE pk IN (2, 4) ORDER BY pk", "2 | 40 | 41", "4 | 40 | 41")
	wantRows(t, ctx, c, "SELECT attname FROM pg_attribute WHERE attrelid = 't'::regclass AND attgenerated = 's'", "c2")

	// The diff shows the computed values; the schema diff and the patch
	// write the column's expression as pg_dump does, and the patch's INSERTs leave it
	// to the INSERT.
	wantRows(t, ctx, c, "SELECT to_pk, to_c1, to_c2, from_c2, diff_type FROM dolt_diff('HEAD~1', 'HEAD', 't') ORDER BY to_pk",
		"1 | 11 | 12 | 11 | modified", "2 | 20 | 21 | NULL | added")
	create := one(t, ctx, c, "SELECT to_create_statement FROM dolt_schema_diff('HEAD~3', 'HEAD')")
	if !strings.Contains(create, `"c2" integer GENERATED ALWAYS AS ((c1 + 1)) STORED`) {
		t.Errorf("dolt_schema_diff: %s", create)
	}
	wantRows(t, ctx, c, "SELECT statement FROM dolt_patch('HEAD~1', 'HEAD') WHERE diff_type = 'data' ORDER BY statement_order",
		`UPDATE "t" SET "c1"=11 WHERE "pk"=1;`, `INSERT INTO "t" ("pk","c1") VALUES (2,20);`)
}

// TestDoltMergeRecomputesGenerated: a row changed on both branches in
// different columns merges cell by cell; a generated column reading both
// is computed from the merged cells instead of being a conflict.
func TestDoltMergeRecomputesGenerated(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE s (pk int PRIMARY KEY, a int, b int, total int GENERATED ALWAYS AS (a + b) STORED)")
	exec(t, ctx, c, "CREATE INDEX ON s (total)")
	exec(t, ctx, c, "INSERT INTO s (pk, a, b) VALUES (1, 1, 100), (2, 2, 200)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'init')")
	status(t, ctx, c, "SELECT dolt_branch('feat')")
	onBranch(t, ctx, c, "feat", "a", "UPDATE s SET a = 5 WHERE pk = 1")
	exec(t, ctx, c, "UPDATE s SET b = 500 WHERE pk = 1")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'b')")
	if got := status(t, ctx, c, "SELECT dolt_merge('feat')"); got[2] != "0" {
		t.Fatalf("merge: %v", got)
	}
	wantRows(t, ctx, c, "SELECT * FROM s ORDER BY pk", "1 | 5 | 500 | 505", "2 | 2 | 200 | 202")
	wantRows(t, ctx, c, "SELECT pk FROM s WHERE total = 505", "1")
	wantRows(t, ctx, c, "SELECT count(*) FROM s WHERE total IN (101, 105, 501)", "0")

	// The same cells changed differently on both sides stay a conflict.
	status(t, ctx, c, "SELECT dolt_branch('feat2')")
	onBranch(t, ctx, c, "feat2", "a again", "UPDATE s SET a = 6 WHERE pk = 2")
	exec(t, ctx, c, "UPDATE s SET a = 7 WHERE pk = 2")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'a here')")
	if got := status(t, ctx, c, "SELECT dolt_merge('feat2')"); got[2] == "0" {
		t.Fatalf("merge of a cell changed on both sides: %v", got)
	}
	wantRows(t, ctx, c, "SELECT base_a, our_a, our_total, their_a, their_total FROM dolt_conflicts_s", "2 | 7 | 207 | 6 | 206")
}

// TestCopyGenerated: COPY FROM computes generated columns and refuses
// them in its column list; COPY TO leaves them out unless listed, which
// it refuses too.
func TestCopyGenerated(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE cg (a int PRIMARY KEY, b int GENERATED ALWAYS AS (a * 2) STORED, c text)")
	n, err := c.CopyFrom(ctx, pgx.Identifier{"cg"}, []string{"a", "c"}, pgx.CopyFromRows([][]any{{int32(1), "x"}, {int32(2), nil}}))
	if err != nil || n != 2 {
		t.Fatalf("COPY FROM: %d %v", n, err)
	}
	wantRows(t, ctx, c, "SELECT * FROM cg ORDER BY a", "1 | 2 | x", "2 | 4 | NULL")
	_, err = c.CopyFrom(ctx, pgx.Identifier{"cg"}, []string{"a", "b"}, pgx.CopyFromRows([][]any{{int32(3), int32(6)}}))
	if sqlstate(err) != "42P10" {
		t.Errorf("COPY FROM naming a generated column: %v, want 42P10", err)
	}
	var out strings.Builder
	if _, err := c.PgConn().CopyTo(ctx, &out, "COPY cg TO STDOUT"); err != nil {
		t.Fatal(err)
	}
	if out.String() != "1\tx\n2\t\\N\n" {
		t.Errorf("COPY TO: %q", out.String())
	}
	_, err = c.PgConn().CopyTo(ctx, &out, "COPY cg (a, b) TO STDOUT")
	if sqlstate(err) != "42P10" {
		t.Errorf("COPY TO naming a generated column: %v, want 42P10", err)
	}
}

// TestDoltMergeAddedGeneratedColumn: one branch adds a generated column
// (computing it for the rows it has), the other inserts and changes rows
// without it; the merge computes it for those rows too, on either side
// of the merge.
func TestDoltMergeAddedGeneratedColumn(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE u (pk int PRIMARY KEY, a int)")
	exec(t, ctx, c, "INSERT INTO u VALUES (1, 1), (2, 2)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'init')")
	status(t, ctx, c, "SELECT dolt_branch('feat')")
	status(t, ctx, c, "SELECT dolt_branch('feat2')")
	onBranch(t, ctx, c, "feat", "rows", "INSERT INTO u VALUES (3, 3)", "UPDATE u SET a = 20 WHERE pk = 2")
	exec(t, ctx, c, "ALTER TABLE u ADD COLUMN g int GENERATED ALWAYS AS (a * 10) STORED")
	exec(t, ctx, c, "CREATE INDEX ON u (g)")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'generated')")
	if got := status(t, ctx, c, "SELECT dolt_merge('feat')"); got[2] != "0" {
		t.Fatalf("merge: %v", got)
	}
	wantRows(t, ctx, c, "SELECT * FROM u ORDER BY pk", "1 | 1 | 10", "2 | 20 | 200", "3 | 3 | 30")
	wantRows(t, ctx, c, "SELECT pk FROM u WHERE g = 30", "3")

	// The other way round: the branch merged in adds the column.
	onBranch(t, ctx, c, "feat2", "generated too", "ALTER TABLE u ADD COLUMN g int GENERATED ALWAYS AS (a * 10) STORED")
	exec(t, ctx, c, "INSERT INTO u (pk, a) VALUES (4, 4)")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'row 4')")
	status(t, ctx, c, "SELECT dolt_checkout('feat2')")
	exec(t, ctx, c, "INSERT INTO u (pk, a) VALUES (5, 5)")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'row 5')")
	if got := status(t, ctx, c, "SELECT dolt_merge('main')"); got[2] != "0" {
		t.Fatalf("merge: %v", got)
	}
	wantRows(t, ctx, c, "SELECT * FROM u ORDER BY pk", "1 | 1 | 10", "2 | 20 | 200", "3 | 3 | 30", "4 | 4 | 40", "5 | 5 | 50")
}
