package regress

import (
	"testing"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// User-defined types under version control: they are committed,
// branched and merged like views, and enum columns diff.

func TestUserTypesBranchAndMerge(t *testing.T) {
	ctx := testserver.Context(t)
	c := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	exec(t, ctx, c, "CREATE TYPE mood AS ENUM ('sad', 'ok')")
	exec(t, ctx, c, "CREATE DOMAIN pos AS int CHECK (VALUE > 0)")
	exec(t, ctx, c, "CREATE TABLE t (id int PRIMARY KEY, m mood, p pos)")
	exec(t, ctx, c, "INSERT INTO t VALUES (1, 'ok', 1)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'init')")
	status(t, ctx, c, "SELECT dolt_branch('feat')")
	status(t, ctx, c, "SELECT dolt_branch('clash')")

	// Types added on both sides merge.
	status(t, ctx, c, "SELECT dolt_checkout('feat')")
	exec(t, ctx, c, "CREATE TYPE color AS ENUM ('red')")
	exec(t, ctx, c, "INSERT INTO t VALUES (2, 'sad', 2)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'feat')")
	status(t, ctx, c, "SELECT dolt_checkout('main')")
	exec(t, ctx, c, "CREATE DOMAIN small AS int CHECK (VALUE < 10)")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'main')")
	status(t, ctx, c, "SELECT dolt_merge('feat')")
	wantRows(t, ctx, c, "SELECT typname FROM pg_type WHERE typname IN ('mood', 'color', 'small', 'pos') ORDER BY 1",
		"color", "mood", "pos", "small")
	wantRows(t, ctx, c, "SELECT id, m, p FROM t ORDER BY id", "1 | ok | 1", "2 | sad | 2")
	wantError(t, ctx, c, "23514", "INSERT INTO t VALUES (3, 'ok', -1)")

	// dolt_commit -a stages changes of types the head has.
	// The same enum changed differently on both sides is a conflict of
	// its labels that keeps ours until resolved.
	onBranch(t, ctx, c, "clash", "clash", "ALTER TYPE mood ADD VALUE 'happy'")
	exec(t, ctx, c, "ALTER TYPE mood ADD VALUE 'meh'")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'meh')")
	status(t, ctx, c, "SELECT dolt_merge('clash')")
	wantRows(t, ctx, c, "SELECT dolt_conflict_id, base_value, our_value, their_value FROM dolt_conflicts_mood",
		"labels | sad, ok | sad, ok, meh | sad, ok, happy")
	wantRows(t, ctx, c, "SELECT enum_range(NULL::mood)::text", "{sad,ok,meh}")
	status(t, ctx, c, "SELECT dolt_conflicts_resolve('--ours', 'mood')")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'merged clash')")
	wantRows(t, ctx, c, "SELECT enum_range(NULL::mood)::text", "{sad,ok,meh}")
}

func TestUserTypesDiff(t *testing.T) {
	ctx := testserver.Context(t)
	c := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	exec(t, ctx, c, "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')")
	exec(t, ctx, c, "CREATE TABLE t (id int PRIMARY KEY, m mood)")
	exec(t, ctx, c, "INSERT INTO t VALUES (1, 'ok'), (2, 'sad')")
	status(t, ctx, c, "SELECT dolt_commit('-Am', 'one')")
	exec(t, ctx, c, "UPDATE t SET m = 'happy' WHERE id = 1")
	exec(t, ctx, c, "DELETE FROM t WHERE id = 2")
	status(t, ctx, c, "SELECT dolt_commit('-am', 'two')")
	wantRows(t, ctx, c, "SELECT from_m, to_m, diff_type FROM dolt_diff('HEAD~', 'HEAD', 't') ORDER BY from_id",
		"ok | happy | modified", "sad | NULL | removed")
	wantRows(t, ctx, c, "SELECT statement FROM dolt_patch('HEAD~', 'HEAD', 't') ORDER BY statement_order",
		`UPDATE "t" SET "m"='happy' WHERE "id"=1;`, `DELETE FROM "t" WHERE "id"=2;`)
}
