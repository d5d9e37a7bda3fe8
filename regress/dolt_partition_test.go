package regress

import (
	"testing"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// Partitioned tables under version control: each partition is a table
// of its own in the root value, with its parent link, so commits,
// branches, merges and diffs see partitions as they see tables.

func TestDoltPartitionsMerge(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE m (id int, day int, v text, PRIMARY KEY (id, day)) PARTITION BY RANGE (day)")
	exec(t, ctx, c, "CREATE TABLE m_lo PARTITION OF m FOR VALUES FROM (0) TO (10)")
	exec(t, ctx, c, "CREATE TABLE m_hi PARTITION OF m FOR VALUES FROM (10) TO (20)")
	exec(t, ctx, c, "INSERT INTO m VALUES (1, 1, 'base')")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'partitioned m')")
	status(t, ctx, c, "SELECT dolt_branch('feat')")

	// Rows go to different partitions on the two branches.
	onBranch(t, ctx, c, "feat", "feat rows", "INSERT INTO m VALUES (2, 15, 'feat')")
	exec(t, ctx, c, "INSERT INTO m VALUES (3, 5, 'main')")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'main rows')")

	got := status(t, ctx, c, "SELECT dolt_merge('feat')")
	if got[0] == "" || got[1] != "0" || got[2] != "0" {
		t.Fatalf("merge returned %v, want a merge commit without conflicts", got)
	}
	wantRows(t, ctx, c, "SELECT tableoid::regclass::text, id, v FROM m ORDER BY id",
		"m_lo | 1 | base", "m_hi | 2 | feat", "m_lo | 3 | main")
	wantRows(t, ctx, c, "SELECT count(*) FROM ONLY m", "0")
	// The merged partitions still route and check rows.
	exec(t, ctx, c, "INSERT INTO m VALUES (4, 18, 'after')")
	wantRows(t, ctx, c, "SELECT id FROM m_hi ORDER BY id", "2", "4")
	wantError(t, ctx, c, "23514", "INSERT INTO m_lo VALUES (5, 15, 'wrong partition')")
	wantRows(t, ctx, c, "SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = 'm'::regclass ORDER BY 1", "m_hi", "m_lo")

	// dolt_diff of a partition shows its rows.
	wantRows(t, ctx, c, "SELECT diff_type, to_id, to_day, to_v FROM dolt_diff('HEAD~', 'HEAD', 'm_hi')",
		"added | 2 | 15 | feat")
	wantRows(t, ctx, c, "SELECT to_id, to_v, diff_type FROM dolt_diff_m_hi WHERE to_commit = 'WORKING'",
		"4 | after | added")
	wantRows(t, ctx, c, "SELECT table_name FROM dolt_status ORDER BY 1", "public.m_hi")
}

func TestDoltPartitionsOnBranches(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE l (k int, v text) PARTITION BY LIST (k)")
	exec(t, ctx, c, "CREATE TABLE l1 PARTITION OF l FOR VALUES IN (1)")
	exec(t, ctx, c, "INSERT INTO l VALUES (1, 'one')")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'l')")
	status(t, ctx, c, "SELECT dolt_branch('feat')")

	// A partition created and attached on a branch merges in with it.
	status(t, ctx, c, "SELECT dolt_checkout('feat')")
	exec(t, ctx, c, "CREATE TABLE l2 (k int, v text)")
	exec(t, ctx, c, "INSERT INTO l2 VALUES (2, 'two')")
	exec(t, ctx, c, "ALTER TABLE l ATTACH PARTITION l2 FOR VALUES IN (2)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'l2')")
	status(t, ctx, c, "SELECT dolt_checkout('main')")
	wantError(t, ctx, c, "23514", "INSERT INTO l VALUES (2, 'no partition on main')")
	got := status(t, ctx, c, "SELECT dolt_merge('feat')")
	if got[1] != "1" {
		t.Fatalf("merge returned %v, want a fast-forward", got)
	}
	wantRows(t, ctx, c, "SELECT tableoid::regclass::text, k, v FROM l ORDER BY k", "l1 | 1 | one", "l2 | 2 | two")
	wantRows(t, ctx, c, "SELECT pg_get_expr(relpartbound, oid) FROM pg_class WHERE relname = 'l2'", "FOR VALUES IN (2)")

	// Time travel reads the partitions as they were.
	wantRows(t, ctx, c, "SELECT k FROM l AS OF 'HEAD~' ORDER BY k", "1")
}
