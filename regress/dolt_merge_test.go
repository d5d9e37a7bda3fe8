package regress

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// Merging branches over the wire: dolt_merge and its conflicts, as
// Doltgres has them.

// mergeSetup creates table t (id, a, b) with an index on b, commits it on
// main and makes branch feat.
func mergeSetup(t *testing.T) (context.Context, *pgx.Conn) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE t (id int PRIMARY KEY, a int, b text)")
	exec(t, ctx, c, "CREATE INDEX t_b ON t (b)")
	exec(t, ctx, c, "INSERT INTO t VALUES (1, 1, 'x'), (2, 2, 'y'), (3, 3, 'z')")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'init')")
	status(t, ctx, c, "SELECT dolt_branch('feat')")
	return ctx, c
}

// onBranch runs statements on branch and commits them there, returning
// to main.
func onBranch(t *testing.T, ctx context.Context, c *pgx.Conn, branch, msg string, stmts ...string) {
	t.Helper()
	status(t, ctx, c, "SELECT dolt_checkout($1)", branch)
	for _, s := range stmts {
		exec(t, ctx, c, s)
	}
	status(t, ctx, c, "SELECT dolt_commit('-am', $1)", msg)
	status(t, ctx, c, "SELECT dolt_checkout('main')")
}

func TestDoltMergeFastForward(t *testing.T) {
	ctx, c := mergeSetup(t)
	onBranch(t, ctx, c, "feat", "feat", "INSERT INTO t VALUES (4, 4, 'w')")
	var featHead string
	c.QueryRow(ctx, "SELECT hashof('feat')").Scan(&featHead)
	got := status(t, ctx, c, "SELECT dolt_merge('feat')")
	if got[0] != featHead || got[1] != "1" || got[2] != "0" {
		t.Fatalf("fast-forward merge returned %v, want head %s", got, featHead)
	}
	wantRows(t, ctx, c, "SELECT id FROM t ORDER BY id", "1", "2", "3", "4")
	if got := status(t, ctx, c, "SELECT dolt_merge('feat')"); got[3] != "Everything up-to-date" {
		t.Fatalf("merging again: %v", got)
	}
}

func TestDoltMergeNoFF(t *testing.T) {
	ctx, c := mergeSetup(t)
	onBranch(t, ctx, c, "feat", "feat", "INSERT INTO t VALUES (4, 4, 'w')")
	got := status(t, ctx, c, "SELECT dolt_merge('feat', '--no-ff', '-m', 'no ff merge')")
	if got[1] != "0" || got[2] != "0" || got[0] == "" {
		t.Fatalf("--no-ff merge returned %v", got)
	}
	wantRows(t, ctx, c, "SELECT message FROM dolt_log LIMIT 1", "no ff merge")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_commit_ancestors WHERE commit_hash = hashof('HEAD')", "2")
}

func TestDoltMergeThreeWay(t *testing.T) {
	ctx, c := mergeSetup(t)
	onBranch(t, ctx, c, "feat", "feat change",
		"UPDATE t SET b = 'xx' WHERE id = 1", // the same row as main, another column
		"INSERT INTO t VALUES (4, 4, 'w')")
	exec(t, ctx, c, "UPDATE t SET a = 10 WHERE id = 1")
	exec(t, ctx, c, "INSERT INTO t VALUES (5, 5, 'v')")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'main change')")
	var mainHead, featHead string
	c.QueryRow(ctx, "SELECT hashof('main'), hashof('feat')").Scan(&mainHead, &featHead)
	got := status(t, ctx, c, "SELECT dolt_merge('feat')")
	if got[0] == "" || got[1] != "0" || got[2] != "0" {
		t.Fatalf("three-way merge returned %v", got)
	}
	wantRows(t, ctx, c, "SELECT * FROM t ORDER BY id", "1 | 10 | xx", "2 | 2 | y", "3 | 3 | z", "4 | 4 | w", "5 | 5 | v")
	wantRows(t, ctx, c, "SELECT message FROM dolt_log LIMIT 1", "Merge branch 'feat' into main")
	wantRows(t, ctx, c, "SELECT parent_hash, parent_index FROM dolt_commit_ancestors WHERE commit_hash = hashof('HEAD') ORDER BY parent_index",
		mainHead+" | 0", featHead+" | 1")
	// The index answers for the merged row, not for either side's.
	exec(t, ctx, c, "SET enable_seqscan = off")
	if plan := strings.Join(textRows(t, ctx, c, "EXPLAIN SELECT * FROM t WHERE b = 'xx'"), "\n"); !strings.Contains(plan, "Index") {
		t.Fatalf("the query does not use the index:\n%s", plan)
	}
	wantRows(t, ctx, c, "SELECT * FROM t WHERE b = 'xx'", "1 | 10 | xx")
	wantRows(t, ctx, c, "SELECT * FROM t WHERE b = 'x'")
	wantRows(t, ctx, c, "SELECT * FROM dolt_status")
}

// conflictSetup makes row 2 change differently on main and feat and
// merges feat, leaving a conflict.
func conflictSetup(t *testing.T) (context.Context, *pgx.Conn) {
	ctx, c := mergeSetup(t)
	onBranch(t, ctx, c, "feat", "feat change", "UPDATE t SET a = 21 WHERE id = 2", "UPDATE t SET b = 'xx' WHERE id = 1")
	exec(t, ctx, c, "UPDATE t SET a = 20 WHERE id = 2")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'main change')")
	got := status(t, ctx, c, "SELECT dolt_merge('feat')")
	if got[0] != "" || got[2] != "1" {
		t.Fatalf("conflicted merge returned %v", got)
	}
	return ctx, c
}

func TestDoltMergeConflicts(t *testing.T) {
	ctx, c := conflictSetup(t)
	wantRows(t, ctx, c, "SELECT * FROM dolt_conflicts", "t | 1")
	wantRows(t, ctx, c, "SELECT base_a, our_a, our_diff_type, their_a, their_diff_type FROM dolt_conflicts_t", "2 | 20 | modified | 21 | modified")
	wantRows(t, ctx, c, "SELECT status FROM dolt_status WHERE status = 'conflict'", "conflict")
	wantRows(t, ctx, c, "SELECT is_merging, target, unmerged_tables FROM dolt_merge_status", "t | main | t")
	wantRows(t, ctx, c, "SELECT * FROM t ORDER BY id", "1 | 1 | xx", "2 | 20 | y", "3 | 3 | z")
	if _, err := c.Exec(ctx, "SELECT dolt_commit('-am', 'too early')"); sqlstate(err) != "55000" {
		t.Fatalf("commit with conflicts: %v", err)
	}
	status(t, ctx, c, "SELECT dolt_conflicts_resolve('--theirs', 't')")
	wantRows(t, ctx, c, "SELECT * FROM dolt_conflicts")
	wantRows(t, ctx, c, "SELECT a FROM t WHERE id = 2", "21")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'merged')")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_commit_ancestors WHERE commit_hash = hashof('HEAD')", "2")
	wantRows(t, ctx, c, "SELECT is_merging FROM dolt_merge_status", "f")
}

func TestDoltMergeResolveBySQL(t *testing.T) {
	ctx, c := conflictSetup(t)
	exec(t, ctx, c, "UPDATE dolt_conflicts_t SET our_a = their_a + 100")
	wantRows(t, ctx, c, "SELECT a FROM t WHERE id = 2", "121")
	exec(t, ctx, c, "DELETE FROM dolt_conflicts_t WHERE base_id = 2")
	wantRows(t, ctx, c, "SELECT * FROM dolt_conflicts")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'merged by hand')")
	wantRows(t, ctx, c, "SELECT * FROM t ORDER BY id", "1 | 1 | xx", "2 | 121 | y", "3 | 3 | z")
}

func TestDoltMergeResolveOurs(t *testing.T) {
	ctx, c := conflictSetup(t)
	status(t, ctx, c, "SELECT dolt_conflicts_resolve('--ours', '.')")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'ours')")
	wantRows(t, ctx, c, "SELECT * FROM t ORDER BY id", "1 | 1 | xx", "2 | 20 | y", "3 | 3 | z")
}

func TestDoltMergeAbort(t *testing.T) {
	ctx, c := conflictSetup(t)
	status(t, ctx, c, "SELECT dolt_merge('--abort')")
	wantRows(t, ctx, c, "SELECT * FROM dolt_conflicts")
	wantRows(t, ctx, c, "SELECT * FROM t ORDER BY id", "1 | 1 | x", "2 | 20 | y", "3 | 3 | z")
	wantRows(t, ctx, c, "SELECT is_merging FROM dolt_merge_status", "f")
	wantRows(t, ctx, c, "SELECT * FROM dolt_status")
}

func TestDoltMergeDirty(t *testing.T) {
	ctx, c := mergeSetup(t)
	exec(t, ctx, c, "CREATE TABLE other (k int PRIMARY KEY)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'other')")
	onBranch(t, ctx, c, "feat", "feat", "INSERT INTO t VALUES (4, 4, 'w')")
	exec(t, ctx, c, "INSERT INTO t VALUES (9, 9, 'dirty')")
	_, err := c.Exec(ctx, "SELECT dolt_merge('feat')")
	if sqlstate(err) != "55000" || !strings.Contains(err.Error(), "local changes would be stomped by merge") {
		t.Fatalf("merge over uncommitted changes to its table: %v", err)
	}
	// Changes to another table are carried over.
	exec(t, ctx, c, "DELETE FROM t WHERE id = 9")
	exec(t, ctx, c, "INSERT INTO other VALUES (1)")
	status(t, ctx, c, "SELECT dolt_merge('feat', '--no-ff')")
	wantRows(t, ctx, c, "SELECT id FROM t ORDER BY id", "1", "2", "3", "4")
	wantRows(t, ctx, c, "SELECT table_name, staged, status FROM dolt_status", "public.other | f | modified")
}

func TestDoltMergeUniqueViolation(t *testing.T) {
	ctx, c := mergeSetup(t)
	exec(t, ctx, c, "CREATE UNIQUE INDEX t_a ON t (a)")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'unique a')")
	status(t, ctx, c, "SELECT dolt_branch('-f', 'feat', 'main')")
	onBranch(t, ctx, c, "feat", "feat", "INSERT INTO t VALUES (4, 7, 'f')")
	exec(t, ctx, c, "INSERT INTO t VALUES (5, 7, 'm')")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'main')")
	got := status(t, ctx, c, "SELECT dolt_merge('feat')")
	if got[2] != "2" {
		t.Fatalf("merge with a unique violation returned %v", got)
	}
	wantRows(t, ctx, c, "SELECT * FROM dolt_constraint_violations", "t | 2")
	wantRows(t, ctx, c, "SELECT violation_type, id, a FROM dolt_constraint_violations_t ORDER BY id", "unique index | 4 | 7", "unique index | 5 | 7")
	if _, err := c.Exec(ctx, "SELECT dolt_commit('-am', 'too early')"); sqlstate(err) != "55000" {
		t.Fatalf("commit with violations: %v", err)
	}
	exec(t, ctx, c, "DELETE FROM t WHERE id = 4")
	exec(t, ctx, c, "DELETE FROM dolt_constraint_violations_t")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'fixed')")
	wantRows(t, ctx, c, "SELECT id, a FROM t WHERE a = 7", "5 | 7")
}

func TestDoltCherryPickAndRevert(t *testing.T) {
	ctx, c := mergeSetup(t)
	onBranch(t, ctx, c, "feat", "add four", "INSERT INTO t VALUES (4, 4, 'w')")
	onBranch(t, ctx, c, "feat", "change one", "UPDATE t SET b = 'one' WHERE id = 1")
	got := status(t, ctx, c, "SELECT dolt_cherry_pick('feat')")
	if got[0] == "" || got[1] != "0" || got[2] != "0" || got[3] != "0" {
		t.Fatalf("cherry-pick returned %v", got)
	}
	wantRows(t, ctx, c, "SELECT * FROM t ORDER BY id", "1 | 1 | one", "2 | 2 | y", "3 | 3 | z")
	wantRows(t, ctx, c, "SELECT message FROM dolt_log LIMIT 1", "change one")
	exec(t, ctx, c, "UPDATE t SET a = 30 WHERE id = 3")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'three')")
	status(t, ctx, c, "SELECT dolt_revert('HEAD~1')")
	wantRows(t, ctx, c, "SELECT * FROM t ORDER BY id", "1 | 1 | x", "2 | 2 | y", "3 | 30 | z")
	wantRows(t, ctx, c, "SELECT message FROM dolt_log LIMIT 1", `Revert "change one"`)
	exec(t, ctx, c, "SET enable_seqscan = off")
	wantRows(t, ctx, c, "SELECT id FROM t WHERE b = 'x'", "1")
}

func TestDoltMergeForeignKeyViolation(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE parent (id int PRIMARY KEY)")
	exec(t, ctx, c, "CREATE TABLE child (id int PRIMARY KEY, pid int REFERENCES parent (id))")
	exec(t, ctx, c, "INSERT INTO parent VALUES (1), (2)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'init')")
	status(t, ctx, c, "SELECT dolt_branch('feat')")
	onBranch(t, ctx, c, "feat", "drop parent 2", "DELETE FROM parent WHERE id = 2")
	exec(t, ctx, c, "INSERT INTO child VALUES (10, 2)")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'child of 2')")
	got := status(t, ctx, c, "SELECT dolt_merge('feat')")
	if got[2] != "1" {
		t.Fatalf("merge breaking a foreign key returned %v", got)
	}
	wantRows(t, ctx, c, "SELECT * FROM dolt_constraint_violations", "child | 1")
	wantRows(t, ctx, c, "SELECT violation_type, id, pid FROM dolt_constraint_violations_child", "foreign key | 10 | 2")
}

// TestPreviewMergeConflicts: the previews say what a merge would leave to
// resolve, per table and row by row, and change nothing.
func TestPreviewMergeConflicts(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	for _, sql := range []string{
		"CREATE TABLE t1 (pk int PRIMARY KEY, c1 int)",
		"CREATE TABLE t2 (pk int PRIMARY KEY)",
		"INSERT INTO t1 VALUES (1, 10), (2, 20)",
		"SELECT dolt_commit('-Am', 'base')",
		"SELECT dolt_checkout('-b', 'branch1')",
		"UPDATE t1 SET c1 = c1 + 100",
		"INSERT INTO t2 VALUES (1)",
		"SELECT dolt_commit('-am', 'branch1')",
		"SELECT dolt_checkout('main')",
		"UPDATE t1 SET c1 = 200 WHERE pk = 1",
		"SELECT dolt_commit('-am', 'main')",
	} {
		exec(t, ctx, c, sql)
	}
	before := one(t, ctx, c, "SELECT dolt_hashof_db()")
	wantRows(t, ctx, c, "SELECT * FROM dolt_preview_merge_conflicts_summary('main', 'branch1')", "public.t1 | 1 | 0")
	wantRows(t, ctx, c, "SELECT base_pk, base_c1, our_c1, our_diff_type, their_c1, their_diff_type FROM dolt_preview_merge_conflicts('main', 'branch1', 't1')",
		"1 | 10 | 200 | modified | 110 | modified")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_preview_merge_conflicts('main', 'branch1', 't2')", "0")
	wantRows(t, ctx, c, "SELECT * FROM dolt_preview_merge_conflicts_summary('branch1', 'main')", "public.t1 | 1 | 0")
	wantRows(t, ctx, c, "SELECT dolt_hashof_db()", before)
	wantError(t, ctx, c, "22023", "SELECT * FROM dolt_preview_merge_conflicts_summary('main', 'nope')")
	wantError(t, ctx, c, "42P01", "SELECT * FROM dolt_preview_merge_conflicts('main', 'branch1', 'nope')")
}
