package regress

import (
	"testing"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestBranchPermissions: the agent works on its own branches,
// commits there, and is refused (42501, naming the branch) on every way of
// changing main; it cannot create branches outside its namespace nor edit
// the permissions; an admin merges its work.
func TestBranchPermissions(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	admin := connect(t, ctx, srv.DSN("postgres"))
	for _, sql := range []string{
		"CREATE TABLE t (id int PRIMARY KEY)",
		"CREATE ROLE agent LOGIN",
		"GRANT ALL ON t TO agent",
		"SELECT dolt_commit('-Am', 'init')",
		`DELETE FROM dolt_branch_control WHERE "user" = '%'`,
		"INSERT INTO dolt_branch_control VALUES ('%', '%', 'agent', '%', 'read'), ('%', 'agent/%', 'agent', '%', 'write')",
		"INSERT INTO dolt_branch_namespace_control VALUES ('%', '%', 'postgres', '%'), ('%', 'agent/%', 'agent', '%')",
	} {
		exec(t, ctx, admin, sql)
	}
	wantRows(t, ctx, admin, "SELECT branch, \"user\", permissions FROM dolt.branch_control ORDER BY branch",
		"% | agent | read", "agent/% | agent | write")

	agent := connect(t, ctx, "postgres://agent@"+srv.Addr()+"/postgres?sslmode=disable")
	wantError(t, ctx, agent, "42501", "INSERT INTO t VALUES (1)")
	wantError(t, ctx, agent, "42501", "SELECT dolt_branch('feature')")
	exec(t, ctx, agent, "SELECT dolt_checkout('-b', 'agent/work')")
	exec(t, ctx, agent, "INSERT INTO t VALUES (2)")
	exec(t, ctx, agent, "SELECT dolt_commit('-am', 'agent work')")
	exec(t, ctx, agent, "SELECT dolt_checkout('main')")
	for _, sql := range []string{
		"SELECT dolt_merge('agent/work')",
		"SELECT dolt_reset('--hard', 'HEAD~1')",
		"SELECT dolt_commit('--allow-empty', '-m', 'x')",
		"SELECT dolt_branch('-D', 'main')",
		"SELECT dolt_branch('-m', 'main', 'agent/main')",
		"CREATE TABLE u (a int)",
		`DELETE FROM dolt_branch_control`,
		"INSERT INTO dolt_branch_control VALUES ('%', 'main', 'agent', '%', 'admin')",
	} {
		wantError(t, ctx, agent, "42501", sql)
	}
	onMain := connect(t, ctx, "postgres://agent@"+srv.Addr()+"/postgres/main?sslmode=disable")
	wantError(t, ctx, onMain, "42501", "UPDATE t SET id = id")
	wantRows(t, ctx, onMain, "SELECT count(*) FROM t", "0")

	exec(t, ctx, admin, "SELECT dolt_merge('agent/work')")
	wantRows(t, ctx, admin, "SELECT * FROM t", "2")
}
