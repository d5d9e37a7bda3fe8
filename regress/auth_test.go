package regress

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestHBA: client authentication rules (--hba) over the real binary:
// per-user and per-branch rules, reject, no matching rule, SIGHUP reload,
// and a bad file on reload leaving the rules in force.
func TestHBA(t *testing.T) {
	ctx := testserver.Context(t)
	rules := filepath.Join(t.TempDir(), "hba.conf")
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(rules, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`# TYPE DATABASE          USER     ADDRESS       METHOD
host    all               postgres 127.0.0.1/32  trust
host    postgres@agent/*  agent    127.0.0.1/32  scram-sha-256
host    postgres          agent    all           reject
`)
	srv := testserver.StartOpts(t, testserver.Options{Args: []string{"--hba", rules}})
	dsn := func(user, pw, db string) string {
		return fmt.Sprintf("postgres://%s:%s@%s/%s?sslmode=disable", user, pw, srv.Addr(), db)
	}
	admin := connect(t, ctx, dsn("postgres", "", "postgres"))
	exec(t, ctx, admin, "CREATE ROLE agent LOGIN PASSWORD 'pw'")
	exec(t, ctx, admin, "CREATE TABLE t (a int)")
	exec(t, ctx, admin, "SELECT dolt_commit('-Am', 't')")
	exec(t, ctx, admin, "SELECT dolt_branch('agent/one')")

	refused := func(user, pw, db, code, msg string) {
		t.Helper()
		_, err := pgx.Connect(ctx, dsn(user, pw, db))
		if sqlstate(err) != code || !strings.Contains(err.Error(), msg) {
			t.Fatalf("%s to %s: %v, want %s %q", user, db, err, code, msg)
		}
	}
	connect(t, ctx, dsn("agent", "pw", "postgres@agent/one"))
	connect(t, ctx, dsn("agent", "pw", "postgres/agent/one"))
	refused("agent", "wrong", "postgres@agent/one", "28P01", `password authentication failed for user "agent"`)
	refused("agent", "pw", "postgres", "28000", `pg_hba.conf rejects connection for host "127.0.0.1", user "agent", database "postgres", no encryption`)
	refused("agent", "pw", "postgres@main", "28000", "pg_hba.conf rejects connection")
	refused("alice", "", "postgres", "28000", `no pg_hba.conf entry for host "127.0.0.1", user "alice", database "postgres", no encryption`)

	// A reload with a bad line keeps the rules in force; a good one takes
	// effect for the next connection.
	write("host all all all trust\nhost all all all sideways\n")
	if err := syscall.Kill(srv.PID(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	refused("agent", "pw", "postgres", "28000", "pg_hba.conf rejects connection")
	write("host all agent all reject\nhost all all all trust\n")
	if err := syscall.Kill(srv.PID(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, err := pgx.Connect(ctx, dsn("agent", "pw", "postgres@agent/one"))
		if sqlstate(err) == "28000" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the reload agent still gets %v", err)
		}
	}
	connect(t, ctx, dsn("alice", "", "postgres")) // alice has no password: trust
	connect(t, ctx, dsn("postgres", "", "postgres"))
}

// TestMaxConnections: beyond --max-connections a connection is refused with
// 53300, and the sessions already open go on; a slot freed is usable.
func TestMaxConnections(t *testing.T) {
	ctx := testserver.Context(t)
	const max = 200
	srv := testserver.StartOpts(t, testserver.Options{Args: []string{"--max-connections", fmt.Sprint(max)}})
	conns := make([]*pgx.Conn, 0, max)
	for range max {
		conns = append(conns, connect(t, ctx, srv.DSN("postgres")))
	}
	if got := one(t, ctx, conns[0], "SHOW max_connections"); got != fmt.Sprint(max) {
		t.Errorf("SHOW max_connections = %s, want %d", got, max)
	}
	_, err := pgx.Connect(ctx, srv.DSN("postgres"))
	if sqlstate(err) != "53300" || !strings.Contains(err.Error(), "sorry, too many clients already") {
		t.Fatalf("connection %d: %v, want 53300", max+1, err)
	}
	for _, c := range conns {
		if got := one(t, ctx, c, "SELECT 1"); got != "1" {
			t.Fatalf("an open session answered %q", got)
		}
	}
	conns[0].Close(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := pgx.Connect(ctx, srv.DSN("postgres"))
		if err == nil {
			c.Close(ctx)
			break
		}
		if sqlstate(err) != "53300" || time.Now().After(deadline) {
			t.Fatalf("after a session ended: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, c := range conns[1:] {
		c.Close(context.Background())
	}
}

// TestIdleInTransactionTimeout: a session idle inside a transaction block
// longer than idle_in_transaction_session_timeout is ended with 25P03, its
// transaction rolled back; outside a block, or busy, it is not.
func TestIdleInTransactionTimeout(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	admin := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, admin, "CREATE TABLE idle_t (a int)")

	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "SET idle_in_transaction_session_timeout = '200ms'")
	time.Sleep(400 * time.Millisecond) // idle outside a block: no limit
	exec(t, ctx, c, "BEGIN")
	exec(t, ctx, c, "INSERT INTO idle_t VALUES (1)")
	exec(t, ctx, c, "SELECT pg_sleep(0.4)") // busy, not idle
	time.Sleep(600 * time.Millisecond)
	_, err := c.Exec(ctx, "INSERT INTO idle_t VALUES (2)")
	if err == nil {
		t.Fatal("the session idle in its transaction block outlived the timeout")
	}
	if sqlstate(err) != "25P03" || !strings.Contains(err.Error(), "terminating connection due to idle-in-transaction timeout") {
		t.Fatalf("after the timeout: %v, want 25P03", err)
	}
	if got := one(t, ctx, admin, "SELECT count(*) FROM idle_t"); got != "0" {
		t.Fatalf("the timed-out transaction's insert is visible: %s rows", got)
	}
}

// TestRoleLimits: a role's CONNECTION LIMIT refuses its next session with
// 53300 while the others go on, and a password past VALID UNTIL fails
// authentication (28P01) like a wrong one.
func TestRoleLimits(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.StartOpts(t, testserver.Options{Args: []string{"--auth", "scram"}, Env: []string{"PGSERVER_SUPERUSER_PASSWORD=su"}})
	dsn := func(user, pw string) string {
		return fmt.Sprintf("postgres://%s:%s@%s/postgres?sslmode=disable", user, pw, srv.Addr())
	}
	admin := connect(t, ctx, dsn("postgres", "su"))
	exec(t, ctx, admin, "CREATE ROLE one LOGIN PASSWORD 'pw' CONNECTION LIMIT 1")
	exec(t, ctx, admin, "CREATE ROLE old LOGIN PASSWORD 'pw' VALID UNTIL '2001-01-01'")
	exec(t, ctx, admin, "CREATE ROLE later LOGIN PASSWORD 'pw' VALID UNTIL '2999-01-01'")

	first := connect(t, ctx, dsn("one", "pw"))
	_, err := pgx.Connect(ctx, dsn("one", "pw"))
	if sqlstate(err) != "53300" || !strings.Contains(err.Error(), `too many connections for role "one"`) {
		t.Fatalf("second session of a role limited to 1: %v, want 53300", err)
	}
	if got := one(t, ctx, first, "SELECT current_user"); got != "one" {
		t.Fatalf("the first session answered %q", got)
	}
	first.Close(ctx)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := pgx.Connect(ctx, dsn("one", "pw"))
		if err == nil {
			c.Close(ctx)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the first session ended: %v", err)
		}
	}
	connect(t, ctx, dsn("postgres", "su")) // superusers are not limited by others' limits

	if _, err := pgx.Connect(ctx, dsn("old", "pw")); sqlstate(err) != "28P01" {
		t.Fatalf("a password past VALID UNTIL: %v, want 28P01", err)
	}
	connect(t, ctx, dsn("later", "pw"))
	exec(t, ctx, admin, "ALTER ROLE old VALID UNTIL 'infinity'")
	connect(t, ctx, dsn("old", "pw"))
}

// TestQueryMemoryLimit: a statement whose sort, hash table or buffer needs
// more than max_query_memory fails with 53200, the session goes on, and a
// smaller statement or a raised limit runs.
func TestQueryMemoryLimit(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.StartOpts(t, testserver.Options{Args: []string{"--max-query-memory-mb", "8"}})
	c := connect(t, ctx, srv.DSN("postgres"))
	if got := one(t, ctx, c, "SHOW max_query_memory"); got != "8MB" {
		t.Errorf("SHOW max_query_memory = %s", got)
	}
	for _, q := range []string{
		"SELECT g, repeat('x', 100) FROM generate_series(1, 200000) g ORDER BY g DESC",                                                            // sort
		"SELECT count(*) FROM (SELECT DISTINCT g, repeat('x', 100) FROM generate_series(1, 200000) g) d",                                          // DISTINCT
		"SELECT count(*) FROM (SELECT g % 150000, max(g) FROM generate_series(1, 300000) g GROUP BY 1) a",                                         // hash aggregate
		"SELECT count(*) FROM generate_series(1, 200000) a JOIN (SELECT g, repeat('x', 100) AS x FROM generate_series(1, 200000) g) b ON a = b.g", // hash join
	} {
		_, err := c.Exec(ctx, q)
		if sqlstate(err) != "53200" || !strings.Contains(err.Error(), "out of memory") {
			t.Errorf("%s: %v, want 53200", q, err)
		}
	}
	wantRows(t, ctx, c, "SELECT g FROM generate_series(1, 1000) g ORDER BY g DESC LIMIT 2", "1000", "999")
	exec(t, ctx, c, "SET max_query_memory = '1GB'")
	wantRows(t, ctx, c, "SELECT count(*) FROM (SELECT g, repeat('x', 100) FROM generate_series(1, 200000) g ORDER BY g DESC) s", "200000")
}
