package regress

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// denied runs sql and fails the test unless it fails with 42501.
func denied(t *testing.T, ctx context.Context, c *pgx.Conn, sql string) {
	t.Helper()
	if _, err := c.Exec(ctx, sql); sqlstate(err) != "42501" {
		t.Fatalf("%s: %v, want 42501", sql, err)
	}
}

// TestPrivileges: the case over the real server with several
// roles: a role without privileges is refused (42501) on every path and its
// connection stays usable; a GRANT in one session takes effect at the next
// statement of another, prepared statements included; membership carries
// privileges; owners grant their own objects.
func TestPrivileges(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	admin := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, admin, "CREATE TABLE secret (id int PRIMARY KEY, v text)")
	exec(t, ctx, admin, "INSERT INTO secret VALUES (1, 'x')")
	exec(t, ctx, admin, "CREATE ROLE alice LOGIN")
	exec(t, ctx, admin, "CREATE ROLE bob LOGIN")
	exec(t, ctx, admin, "REVOKE ALL ON secret FROM PUBLIC")

	alice := connect(t, ctx, "postgres://alice@"+srv.Addr()+"/postgres?sslmode=disable")
	for _, sql := range []string{
		"SELECT * FROM secret",
		"DROP TABLE secret",
		"INSERT INTO secret VALUES (2, 'y')",
		"UPDATE secret SET v = 'z'",
		"DELETE FROM secret",
		"TRUNCATE secret",
		"ALTER TABLE secret ADD COLUMN w int",
		"CREATE INDEX ON secret (v)",
		"GRANT SELECT ON secret TO alice",
		"CREATE DATABASE x",
		"CREATE TABLE mine (a int)", // PostgreSQL 15: nobody but the owner creates in public
		"CREATE ROLE carol",
		"SET ROLE postgres",
		"SELECT * FROM secret WHERE id IN (SELECT id FROM secret)",
	} {
		denied(t, ctx, alice, sql)
	}
	var one int
	if err := alice.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("connection after refusals: %v", err)
	}

	// A prepared statement planned while refused runs once granted, and is
	// refused again after REVOKE, without being prepared again.
	if _, err := alice.Prepare(ctx, "readsecret", "SELECT v FROM secret WHERE id = $1"); sqlstate(err) != "42501" {
		t.Fatalf("prepare before GRANT: %v", err)
	}
	exec(t, ctx, admin, "GRANT SELECT ON secret TO alice")
	if _, err := alice.Prepare(ctx, "readsecret", "SELECT v FROM secret WHERE id = $1"); err != nil {
		t.Fatal(err)
	}
	var v string
	if err := alice.QueryRow(ctx, "readsecret", 1).Scan(&v); err != nil || v != "x" {
		t.Fatalf("after GRANT: %q, %v", v, err)
	}
	denied(t, ctx, alice, "UPDATE secret SET v = 'z'") // SELECT only
	exec(t, ctx, admin, "REVOKE SELECT ON secret FROM alice")
	if err := alice.QueryRow(ctx, "readsecret", 1).Scan(&v); sqlstate(err) != "42501" {
		t.Fatalf("prepared statement after REVOKE: %v, want 42501", err)
	}

	// Membership: a group's privileges are its members'.
	exec(t, ctx, admin, "CREATE ROLE readers")
	exec(t, ctx, admin, "GRANT SELECT, UPDATE ON secret TO readers")
	exec(t, ctx, admin, "GRANT readers TO alice")
	exec(t, ctx, alice, "UPDATE secret SET v = 'by alice' WHERE id = 1")
	exec(t, ctx, admin, "REVOKE readers FROM alice")
	denied(t, ctx, alice, "SELECT * FROM secret")

	// Owners: alice creates where she may, owns it, and grants it on.
	exec(t, ctx, admin, "GRANT CREATE ON SCHEMA public TO alice")
	exec(t, ctx, alice, "CREATE TABLE mine (a int)")
	exec(t, ctx, alice, "INSERT INTO mine VALUES (1)")
	bob := connect(t, ctx, "postgres://bob@"+srv.Addr()+"/postgres?sslmode=disable")
	denied(t, ctx, bob, "SELECT * FROM mine")
	exec(t, ctx, alice, "GRANT SELECT ON mine TO bob")
	if err := bob.QueryRow(ctx, "SELECT a FROM mine").Scan(&one); err != nil || one != 1 {
		t.Fatalf("bob after alice's GRANT: %v", err)
	}
	exec(t, ctx, bob, "GRANT SELECT ON mine TO PUBLIC")     // no grant option: a warning, nothing granted
	denied(t, ctx, bob, "GRANT SELECT ON secret TO PUBLIC") // no privilege at all
	var acl, owner string
	if err := admin.QueryRow(ctx, "SELECT relowner::regrole::text, array_to_string(relacl, ',') FROM pg_class WHERE relname = 'mine'").Scan(&owner, &acl); err != nil {
		t.Fatal(err)
	}
	if owner != "alice" || acl != "alice=arwdDxt/alice,bob=r/alice" {
		t.Fatalf("mine: owner %s, acl %s", owner, acl)
	}
	exec(t, ctx, admin, "ALTER TABLE mine OWNER TO bob")
	exec(t, ctx, bob, "DROP TABLE mine")

	// SET ROLE: a superuser becomes alice and is refused as she is.
	exec(t, ctx, admin, "SET ROLE alice")
	denied(t, ctx, admin, "SELECT * FROM secret")
	exec(t, ctx, admin, "RESET ROLE")
	exec(t, ctx, admin, "SELECT * FROM secret")
}

// TestSignalBackendPrivileges: pg_terminate_backend and pg_cancel_backend
// check who asks, as PostgreSQL's do: a role signals only backends of
// roles it is a member of (or any but superusers' through
// pg_signal_backend), never a superuser's; not even through a SECURITY
// DEFINER function its owner made. The superuser's session survives.
func TestSignalBackendPrivileges(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	admin := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, admin, "CREATE ROLE alice LOGIN")
	exec(t, ctx, admin, "CREATE ROLE bob LOGIN")
	exec(t, ctx, admin, "CREATE ROLE signaller LOGIN")
	exec(t, ctx, admin, "GRANT pg_signal_backend TO signaller")
	var adminPID, bobPID int
	if err := admin.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&adminPID); err != nil {
		t.Fatal(err)
	}
	bob := connect(t, ctx, "postgres://bob@"+srv.Addr()+"/postgres?sslmode=disable")
	if err := bob.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&bobPID); err != nil {
		t.Fatal(err)
	}
	alice := connect(t, ctx, "postgres://alice@"+srv.Addr()+"/postgres?sslmode=disable")
	for _, sql := range []string{
		fmt.Sprintf("SELECT pg_terminate_backend(%d)", adminPID),
		fmt.Sprintf("SELECT pg_cancel_backend(%d)", adminPID),
		fmt.Sprintf("SELECT pg_terminate_backend(%d)", bobPID),
	} {
		denied(t, ctx, alice, sql)
	}
	// A SECURITY DEFINER function runs as its owner, who is no superuser.
	exec(t, ctx, admin, fmt.Sprintf("CREATE FUNCTION kill_admin() RETURNS bool LANGUAGE sql SECURITY DEFINER AS 'SELECT pg_terminate_backend(%d)'", adminPID))
	exec(t, ctx, admin, "ALTER FUNCTION kill_admin() OWNER TO signaller")
	denied(t, ctx, alice, "SELECT kill_admin()")
	signaller := connect(t, ctx, "postgres://signaller@"+srv.Addr()+"/postgres?sslmode=disable")
	denied(t, ctx, signaller, fmt.Sprintf("SELECT pg_terminate_backend(%d)", adminPID))
	var ok bool
	if err := signaller.QueryRow(ctx, fmt.Sprintf("SELECT pg_terminate_backend(%d)", bobPID)).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_signal_backend terminating bob: %v, %v", ok, err)
	}
	var one int
	if err := admin.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("the superuser's session after the attempts: %v", err)
	}
}

// TestDatabasePrivileges: CONNECT is checked when a session opens (FATAL
// 42501), CREATE when a schema is made, TEMPORARY when a temporary table
// is; a GRANT lets the role in, a database's owner needs no grant.
func TestDatabasePrivileges(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	admin := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, admin, "CREATE ROLE alice LOGIN")
	exec(t, ctx, admin, "CREATE DATABASE shop")
	exec(t, ctx, admin, "REVOKE CONNECT, TEMPORARY ON DATABASE shop FROM PUBLIC")
	dsn := "postgres://alice@" + srv.Addr() + "/shop?sslmode=disable"
	if _, err := pgx.Connect(ctx, dsn); sqlstate(err) != "42501" {
		t.Fatalf("connecting without CONNECT: %v, want 42501", err)
	}
	exec(t, ctx, admin, "GRANT CONNECT ON DATABASE shop TO alice")
	alice := connect(t, ctx, dsn)
	denied(t, ctx, alice, "CREATE SCHEMA s")
	denied(t, ctx, alice, "CREATE TEMP TABLE tt (a int)")
	exec(t, ctx, admin, "GRANT CREATE, TEMP ON DATABASE shop TO alice")
	exec(t, ctx, alice, "CREATE SCHEMA s")
	exec(t, ctx, alice, "CREATE TEMP TABLE tt (a int)")
	exec(t, ctx, admin, "REVOKE ALL ON DATABASE shop FROM alice")
	exec(t, ctx, admin, "ALTER DATABASE shop OWNER TO alice")
	connect(t, ctx, dsn) // the owner holds CONNECT
}

// TestPrivilegesVersioned: grants are data of the branch they were made on:
// a GRANT on a branch is not in force on main until it is merged.
func TestPrivilegesVersioned(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	admin := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, admin, "CREATE TABLE t (id int PRIMARY KEY)")
	exec(t, ctx, admin, "CREATE ROLE alice LOGIN")
	exec(t, ctx, admin, "SELECT dolt_commit('-Am', 'table t')")
	exec(t, ctx, admin, "SELECT dolt_branch('grants')")
	onBranch := connect(t, ctx, srv.DSN("postgres/grants"))
	exec(t, ctx, onBranch, "GRANT SELECT ON t TO alice")
	var status string
	if err := onBranch.QueryRow(ctx, "SELECT status FROM dolt_status WHERE table_name = 'public.t'").Scan(&status); err != nil || status != "modified" {
		t.Fatalf("dolt_status after GRANT: %q, %v", status, err)
	}
	exec(t, ctx, onBranch, "SELECT dolt_commit('-am', 'grant')")

	aliceMain := connect(t, ctx, "postgres://alice@"+srv.Addr()+"/postgres?sslmode=disable")
	denied(t, ctx, aliceMain, "SELECT * FROM t")
	aliceBranch := connect(t, ctx, "postgres://alice@"+srv.Addr()+"/postgres/grants?sslmode=disable")
	exec(t, ctx, aliceBranch, "SELECT * FROM t")

	exec(t, ctx, admin, "SELECT dolt_merge('grants')")
	exec(t, ctx, aliceMain, "SELECT * FROM t")

	// Time travel reads the past with today's privileges: a REVOKE is not
	// undone by reading a revision from before it.
	exec(t, ctx, admin, "REVOKE SELECT ON t FROM alice")
	exec(t, ctx, admin, "SELECT dolt_commit('-am', 'revoke')")
	denied(t, ctx, aliceMain, "SELECT * FROM t")
	denied(t, ctx, aliceMain, "SELECT * FROM t AS OF 'HEAD~1'")
	denied(t, ctx, aliceMain, `SELECT * FROM "postgres@grants".public.t`)
	onBranch2 := connect(t, ctx, "postgres://alice@"+srv.Addr()+"/postgres/grants?sslmode=disable")
	exec(t, ctx, onBranch2, "SELECT * FROM t") // the branch keeps its own grant
	old := one(t, ctx, admin, "SELECT dolt_hashof('HEAD~1')")
	aliceOld := connect(t, ctx, "postgres://alice@"+srv.Addr()+"/postgres@"+old+"?sslmode=disable")
	denied(t, ctx, aliceOld, "SELECT * FROM t") // an old commit: today's privileges, main's
}

// TestColumnPrivilegesAndPolicies: column privileges and row-level
// security over the real server with two sessions: a GRANT on a column,
// a REVOKE, and a policy made in one session take effect at the next
// statement of the other, prepared statements included.
func TestColumnPrivilegesAndPolicies(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	admin := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, admin, "CREATE TABLE staff (id int PRIMARY KEY, name text, pay int, boss text)")
	exec(t, ctx, admin, "INSERT INTO staff VALUES (1, 'ann', 10, 'carol'), (2, 'ben', 20, 'dave')")
	exec(t, ctx, admin, "CREATE ROLE carol LOGIN")
	carol := connect(t, ctx, "postgres://carol@"+srv.Addr()+"/postgres?sslmode=disable")

	if _, err := carol.Prepare(ctx, "names", "SELECT name FROM staff WHERE id = $1"); sqlstate(err) != "42501" {
		t.Fatalf("prepare before GRANT: %v, want 42501", err)
	}
	exec(t, ctx, admin, "GRANT SELECT (id, name) ON staff TO carol")
	if _, err := carol.Prepare(ctx, "names", "SELECT name FROM staff WHERE id = $1"); err != nil {
		t.Fatal(err)
	}
	var name string
	if err := carol.QueryRow(ctx, "names", 2).Scan(&name); err != nil || name != "ben" {
		t.Fatalf("after GRANT: %q, %v", name, err)
	}
	denied(t, ctx, carol, "SELECT pay FROM staff")
	denied(t, ctx, carol, "SELECT name FROM staff WHERE pay > 0")
	denied(t, ctx, carol, "UPDATE staff SET name = 'x'")

	// A policy made in the other session filters the prepared statement's
	// rows at its next run.
	exec(t, ctx, admin, "GRANT SELECT (boss) ON staff TO carol")
	exec(t, ctx, admin, "ALTER TABLE staff ENABLE ROW LEVEL SECURITY")
	exec(t, ctx, admin, "CREATE POLICY mine ON staff USING (boss = current_user)")
	if err := carol.QueryRow(ctx, "names", 2).Scan(&name); err != pgx.ErrNoRows {
		t.Fatalf("row of another boss after the policy: %q, %v", name, err)
	}
	if err := carol.QueryRow(ctx, "names", 1).Scan(&name); err != nil || name != "ann" {
		t.Fatalf("own row after the policy: %q, %v", name, err)
	}

	// COPY TO shows only the rows the policies let through.
	var out bytes.Buffer
	if _, err := carol.PgConn().CopyTo(ctx, &out, "COPY staff (id, boss) TO STDOUT"); err != nil || out.String() != "1\tcarol\n" {
		t.Fatalf("COPY TO under the policy: %q, %v", out.String(), err)
	}
	if _, err := carol.PgConn().CopyTo(ctx, &out, "COPY staff TO STDOUT"); sqlstate(err) != "42501" {
		t.Fatalf("COPY TO of a column not granted: %v, want 42501", err)
	}

	// REVOKE on the column refuses the prepared statement again.
	exec(t, ctx, admin, "REVOKE SELECT (name) ON staff FROM carol")
	if err := carol.QueryRow(ctx, "names", 1).Scan(&name); sqlstate(err) != "42501" {
		t.Fatalf("after REVOKE: %v, want 42501", err)
	}
}
