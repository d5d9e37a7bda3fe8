package regress

import (
	"testing"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// dolt_rebase: an interactive rebase's plan in dolt.rebase, edited and
// applied; aborted; a rebase at once.

func TestDoltRebase(t *testing.T) {
	ctx := testserver.Context(t)
	c := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE t (pk int PRIMARY KEY)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'table')")
	status(t, ctx, c, "SELECT dolt_branch('b')")
	exec(t, ctx, c, "INSERT INTO t VALUES (0)")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'row 0')")
	status(t, ctx, c, "SELECT dolt_checkout('b')")
	for _, row := range []string{"1", "2", "3", "4"} {
		exec(t, ctx, c, "INSERT INTO t VALUES ("+row+")")
		status(t, ctx, c, "SELECT dolt_commit('-am', 'row "+row+"')")
	}
	wantError(t, ctx, c, "42P01", "SELECT * FROM dolt_rebase")

	got := status(t, ctx, c, "SELECT dolt_rebase('-i', 'main')")
	if len(got) != 2 || got[0] != "0" || got[1] != "interactive rebase started on branch dolt_rebase_b; adjust the rebase plan in the dolt_rebase table, then continue rebasing by calling dolt_rebase('--continue')" {
		t.Errorf("dolt_rebase('-i', 'main') = %q", got)
	}
	wantRows(t, ctx, c, "SELECT active_branch()", "dolt_rebase_b")
	wantRows(t, ctx, c, "SELECT rebase_order, action, commit_message FROM dolt.rebase ORDER BY 1",
		"1 | pick | row 1", "2 | pick | row 2", "3 | pick | row 3", "4 | pick | row 4")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_rebase WHERE commit_hash = dolt_hashof('b~3')", "1")
	// The plan is the rebase's state: staging or cleaning everything
	// leaves it.
	status(t, ctx, c, "SELECT dolt_add('.')")
	status(t, ctx, c, "SELECT dolt_clean()")
	wantRows(t, ctx, c, "SELECT table_name, staged FROM dolt_status", "dolt.rebase | f")

	// An action that is none fails, changing nothing.
	exec(t, ctx, c, "UPDATE dolt_rebase SET action = 'bogus' WHERE rebase_order = 2")
	wantError(t, ctx, c, "22023", "SELECT dolt_rebase('--continue')")
	exec(t, ctx, c, "UPDATE dolt.rebase SET action = 'reword', commit_message = 'rows 1 and 3' WHERE rebase_order = 1")
	exec(t, ctx, c, "UPDATE dolt.rebase SET action = 'drop' WHERE rebase_order = 2")
	exec(t, ctx, c, "UPDATE dolt.rebase SET action = 'fixup' WHERE rebase_order = 3")
	exec(t, ctx, c, "UPDATE dolt.rebase SET action = 'squash' WHERE rebase_order = 4")
	got = status(t, ctx, c, "SELECT dolt_rebase('--continue')")
	if len(got) != 2 || got[1] != "Successfully rebased and updated refs/heads/b" {
		t.Errorf("dolt_rebase('--continue') = %q", got)
	}
	wantRows(t, ctx, c, "SELECT active_branch()", "b")
	wantRows(t, ctx, c, "SELECT message FROM dolt_log LIMIT 3", "rows 1 and 3\n\nrow 4", "row 0", "table")
	wantRows(t, ctx, c, "SELECT pk FROM t ORDER BY pk", "0", "1", "3", "4")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_status", "0")
	wantRows(t, ctx, c, "SELECT count(*) FROM dolt_branches WHERE name LIKE 'dolt_rebase%'", "0")

	// Aborted, the branch is as it was.
	status(t, ctx, c, "SELECT dolt_checkout('main')")
	exec(t, ctx, c, "INSERT INTO t VALUES (5)")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'row 5')")
	status(t, ctx, c, "SELECT dolt_checkout('b')")
	head := one(t, ctx, c, "SELECT dolt_hashof('HEAD')")
	status(t, ctx, c, "SELECT dolt_rebase('--interactive', 'main')")
	status(t, ctx, c, "SELECT dolt_rebase('--abort')")
	wantRows(t, ctx, c, "SELECT active_branch(), dolt_hashof('HEAD') = '"+head+"'", "b | t")

	// At once, every commit picked; a change that conflicts fails.
	status(t, ctx, c, "SELECT dolt_rebase('main')")
	wantRows(t, ctx, c, "SELECT message FROM dolt_log LIMIT 3", "rows 1 and 3\n\nrow 4", "row 5", "row 0")
	exec(t, ctx, c, "INSERT INTO t VALUES (6)")
	wantError(t, ctx, c, "55000", "SELECT dolt_rebase('main')") // uncommitted changes
	status(t, ctx, c, "SELECT dolt_reset('--hard')")
	status(t, ctx, c, "SELECT dolt_checkout('main')")
	exec(t, ctx, c, "CREATE TABLE u (id int PRIMARY KEY, v int)")
	exec(t, ctx, c, "INSERT INTO u VALUES (1, 1)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'u')")
	status(t, ctx, c, "SELECT dolt_checkout('b')")
	status(t, ctx, c, "SELECT dolt_rebase('main')")
	exec(t, ctx, c, "UPDATE u SET v = 2")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'v is 2')")
	status(t, ctx, c, "SELECT dolt_checkout('main')")
	exec(t, ctx, c, "UPDATE u SET v = 3")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'v is 3')")
	status(t, ctx, c, "SELECT dolt_checkout('b')")
	head = one(t, ctx, c, "SELECT dolt_hashof('HEAD')")
	wantError(t, ctx, c, "55000", "SELECT dolt_rebase('main')")
	wantRows(t, ctx, c, "SELECT dolt_hashof('HEAD') = '"+head+"', v FROM u", "t | 2")
}
