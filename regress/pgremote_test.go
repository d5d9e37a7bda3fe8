package regress

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// pgURL is a postgres:// remote URL for database db of srv, as user.
func pgURL(srv *testserver.Server, user, db string) string {
	return fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", user, srv.Addr(), db)
}

// TestPgRemoteRoundTrip is TestDoltRemoteRoundTrip with a third server as
// the remote (postgres://): push, clone, push back, pull, a rejected
// non-fast-forward push, a merge, a pull after a restart; both sides end
// with equal dolt_hashof_db. The serving server's own view of the
// database is checked too: its branch and working set moved with the
// pushes.
func TestPgRemoteRoundTrip(t *testing.T) {
	ctx := testserver.Context(t)
	r := testserver.Start(t)
	url := pgURL(r, "postgres", "shared")
	testDoltRemoteRoundTrip(t, url, nil)
	rc := connect(t, ctx, r.DSN("shared"))
	wantRows(t, ctx, rc, "SELECT count(*) FROM items", "5")
	wantRows(t, ctx, rc, "SELECT count(*) FROM dolt_status", "0")
}

// TestPgRemoteRefused checks that the peer functions need the
// REPLICATION attribute (42501, for a push and a fetch), that a role with
// it may push over SCRAM with its password in the URL, and that the
// password shows neither in dolt.remotes nor in errors.
func TestPgRemoteRefused(t *testing.T) {
	ctx := testserver.Context(t)
	r := testserver.StartOpts(t, testserver.Options{Args: []string{"--auth", "scram"}, Env: []string{"PGSERVER_SUPERUSER_PASSWORD=rootpw"}})
	rc := connect(t, ctx, fmt.Sprintf("postgres://postgres:rootpw@%s/postgres?sslmode=disable", r.Addr()))
	exec(t, ctx, rc, "CREATE ROLE plain LOGIN PASSWORD 'plainpw'")
	exec(t, ctx, rc, "CREATE ROLE rep LOGIN REPLICATION PASSWORD 's3cret-pw'")
	wantRows(t, ctx, rc, "SELECT rolname, rolreplication FROM pg_roles WHERE rolname IN ('plain', 'rep') ORDER BY 1", "plain | f", "rep | t")
	exec(t, ctx, rc, "CREATE ROLE notyet LOGIN")
	exec(t, ctx, rc, "ALTER ROLE notyet REPLICATION")
	wantRows(t, ctx, rc, "SELECT rolreplication FROM pg_roles WHERE rolname = 'notyet'", "t")
	pc := connect(t, ctx, fmt.Sprintf("postgres://plain:plainpw@%s/postgres?sslmode=disable", r.Addr()))
	code, msg := errorText(t, ctx, pc, "SELECT * FROM dolt_peer_refs('postgres')")
	if code != "42501" || msg != "permission denied for function dolt_peer_refs" {
		t.Errorf("dolt_peer_refs as a role without REPLICATION: %s %q", code, msg)
	}

	a := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE t (id int PRIMARY KEY)")
	exec(t, ctx, a, "INSERT INTO t VALUES (1)")
	exec(t, ctx, a, "SELECT dolt_commit('-Am', 'one')")
	exec(t, ctx, a, "SELECT dolt_remote('add', 'plain', $1)", fmt.Sprintf("postgres://plain:plainpw@%s/db?sslmode=disable", r.Addr()))
	code, msg = errorText(t, ctx, a, "SELECT dolt_push('plain', 'main')")
	if code != "42501" || !strings.Contains(msg, "permission denied for function dolt_peer_") {
		t.Errorf("a push as a role without REPLICATION: %q", msg)
	}
	if strings.Contains(msg, "plainpw") {
		t.Errorf("the error shows the password: %q", msg)
	}
	wantError(t, ctx, a, "42501", "SELECT dolt_fetch('plain')")

	exec(t, ctx, a, "SELECT dolt_remote('add', 'origin', $1)", fmt.Sprintf("postgres://rep:s3cret-pw@%s/db?sslmode=disable", r.Addr()))
	wantRows(t, ctx, a, "SELECT url FROM dolt.remotes WHERE name = 'origin'", fmt.Sprintf("postgres://rep:xxxxx@%s/db?sslmode=disable", r.Addr()))
	msgs := status(t, ctx, a, "SELECT dolt_push('origin', 'main')")
	if strings.Contains(strings.Join(msgs, " "), "s3cret") {
		t.Errorf("the push's message shows the password: %q", msgs)
	}
	dc := connect(t, ctx, fmt.Sprintf("postgres://postgres:rootpw@%s/db?sslmode=disable", r.Addr()))
	wantRows(t, ctx, dc, "SELECT id FROM t", "1")
	if x, y := one(t, ctx, a, "SELECT dolt_hashof_db()"), one(t, ctx, dc, "SELECT dolt_hashof_db()"); x != y {
		t.Errorf("dolt_hashof_db: %s pushed, %s on the remote", x, y)
	}
}

// TestPgRemoteConcurrentPush pushes from two servers to one at once,
// many times: each time exactly one push wins, the other is told to pull,
// and after it pulls and pushes again, the remote holds both changes.
func TestPgRemoteConcurrentPush(t *testing.T) {
	ctx := testserver.Context(t)
	r := testserver.Start(t)
	url := pgURL(r, "postgres", "shared")
	a := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE t (id int PRIMARY KEY, who text)")
	exec(t, ctx, a, "SELECT dolt_commit('-Am', 'schema')")
	exec(t, ctx, a, "SELECT dolt_remote('add', 'origin', $1)", url)
	exec(t, ctx, a, "SELECT dolt_push('origin', 'main')")
	b := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	exec(t, ctx, b, "SELECT dolt_clone($1, 'shared')", url)
	b = connect(t, ctx, strings.Replace(b.Config().ConnString(), "/postgres?", "/shared?", 1))
	const rounds = 5
	for i := 0; i < rounds; i++ {
		exec(t, ctx, a, fmt.Sprintf("INSERT INTO t VALUES (%d, 'a')", 2*i))
		exec(t, ctx, a, "SELECT dolt_commit('-am', 'a')")
		exec(t, ctx, b, fmt.Sprintf("INSERT INTO t VALUES (%d, 'b')", 2*i+1))
		exec(t, ctx, b, "SELECT dolt_commit('-am', 'b')")
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for j, c := range []*pgx.Conn{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[j] = c.Exec(ctx, "SELECT dolt_push('origin', 'main')")
			}()
		}
		wg.Wait()
		won := 0
		for j, err := range errs {
			switch {
			case err == nil:
				won++
			case strings.Contains(err.Error(), "[rejected]") && strings.Contains(err.Error(), "dolt pull"):
				c := []*pgx.Conn{a, b}[j]
				exec(t, ctx, c, "SELECT dolt_pull('origin')")
				exec(t, ctx, c, "SELECT dolt_push('origin', 'main')")
			default:
				t.Fatalf("round %d: push %d: %v", i, j, err)
			}
		}
		if won != 1 {
			t.Errorf("round %d: %d pushes won at once, want 1", i, won)
		}
		exec(t, ctx, a, "SELECT dolt_pull('origin')")
		exec(t, ctx, b, "SELECT dolt_pull('origin')")
	}
	rc := connect(t, ctx, r.DSN("shared"))
	wantRows(t, ctx, rc, "SELECT count(*) FROM t", strconv.Itoa(2*rounds))
	for _, c := range []*pgx.Conn{a, b} {
		if x, y := one(t, ctx, c, "SELECT dolt_hashof_db()"), one(t, ctx, rc, "SELECT dolt_hashof_db()"); x != y {
			t.Errorf("dolt_hashof_db: %s on a pusher, %s on the remote", x, y)
		}
	}
}

// TestPgRemoteFewChunks checks that a push after one changed row of a
// 100,000-row table sends a handful of chunks, counted by the serving
// server (dolt_peer_stats), and that a push refuses to move a branch of
// the serving server that has uncommitted changes.
func TestPgRemoteFewChunks(t *testing.T) {
	ctx := testserver.Context(t)
	r := testserver.Start(t)
	rc := connect(t, ctx, r.DSN("postgres"))
	received := func() int {
		n, err := strconv.Atoi(one(t, ctx, rc, "SELECT chunks_received FROM dolt_peer_stats()"))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	a := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE big (id int PRIMARY KEY, v text)")
	exec(t, ctx, a, "INSERT INTO big SELECT g, 'row ' || g FROM generate_series(1, 100000) g")
	exec(t, ctx, a, "SELECT dolt_commit('-Am', 'load')")
	exec(t, ctx, a, "SELECT dolt_remote('add', 'origin', $1)", pgURL(r, "postgres", "big"))
	began := time.Now()
	exec(t, ctx, a, "SELECT dolt_push('origin', 'main')")
	took := time.Since(began)
	first := received()
	pushed := one(t, ctx, rc, "SELECT bytes_received FROM dolt_peer_stats()")
	t.Logf("the first push: %d chunks, %s bytes in %v", first, pushed, took)
	exec(t, ctx, a, "UPDATE big SET v = 'changed' WHERE id = 50000")
	exec(t, ctx, a, "SELECT dolt_commit('-am', 'one row')")
	exec(t, ctx, a, "SELECT dolt_push('origin', 'main')")
	n := received() - first
	t.Logf("the first push sent %d chunks; one changed row of 100,000, %d", first, n)
	if first < 100 || n == 0 || n > 12 {
		t.Errorf("pushes sent %d chunks, then %d for one row", first, n)
	}
	// A clone onto a third server, timed.
	cs := testserver.Start(t)
	cc := connect(t, ctx, cs.DSN("postgres"))
	sent := one(t, ctx, rc, "SELECT bytes_sent FROM dolt_peer_stats()")
	began = time.Now()
	exec(t, ctx, cc, "SELECT dolt_clone($1, 'big')", pgURL(r, "postgres", "big"))
	took = time.Since(began)
	t.Logf("the clone: %s bytes sent before, %s after, in %v", sent, one(t, ctx, rc, "SELECT bytes_sent FROM dolt_peer_stats()"), took)
	if x, y := one(t, ctx, a, "SELECT dolt_hashof_db()"), one(t, ctx, connect(t, ctx, cs.DSN("big")), "SELECT dolt_hashof_db()"); x != y {
		t.Errorf("dolt_hashof_db: %s pushed, %s cloned", x, y)
	}
	bc := connect(t, ctx, r.DSN("big"))
	wantRows(t, ctx, bc, "SELECT v FROM big WHERE id = 50000", "changed")
	if x, y := one(t, ctx, a, "SELECT dolt_hashof_db()"), one(t, ctx, bc, "SELECT dolt_hashof_db()"); x != y {
		t.Errorf("dolt_hashof_db: %s pushed, %s on the remote", x, y)
	}

	// Uncommitted changes on the serving side: refused, nothing moves.
	exec(t, ctx, bc, "UPDATE big SET v = 'remote edit' WHERE id = 1")
	exec(t, ctx, a, "UPDATE big SET v = 'again' WHERE id = 2")
	exec(t, ctx, a, "SELECT dolt_commit('-am', 'two')")
	_, msg := errorText(t, ctx, a, "SELECT dolt_push('origin', 'main')")
	if !strings.Contains(msg, "uncommitted") && !strings.Contains(msg, "not committed") {
		t.Errorf("a push onto a branch with uncommitted changes: %q", msg)
	}
	wantRows(t, ctx, bc, "SELECT v FROM big WHERE id IN (1, 2) ORDER BY id", "remote edit", "row 2")
	exec(t, ctx, bc, "SELECT dolt_commit('-am', 'remote edit')")
	wantError(t, ctx, a, "XX000", "SELECT dolt_push('origin', 'main')") // now behind: pull first
	exec(t, ctx, a, "SELECT dolt_pull('origin')")
	exec(t, ctx, a, "SELECT dolt_push('origin', 'main')")
	wantRows(t, ctx, bc, "SELECT v FROM big WHERE id IN (1, 2) ORDER BY id", "remote edit", "again")
}

// TestReplica runs a read replica of a database of a primary
// (--replicate-from): it follows SQL COMMITs and dolt_commits under a
// small write load within a second, refuses writes with 25006, reports
// its lag, and keeps following after the primary restarts.
func TestReplica(t *testing.T) {
	ctx := testserver.Context(t)
	p := testserver.Start(t)
	pc := connect(t, ctx, p.DSN("postgres"))
	exec(t, ctx, pc, "CREATE DATABASE app")
	ac := connect(t, ctx, p.DSN("app"))
	exec(t, ctx, ac, "CREATE TABLE t (id int PRIMARY KEY, v text)")
	exec(t, ctx, ac, "INSERT INTO t VALUES (0, 'zero')")
	exec(t, ctx, ac, "SELECT dolt_commit('-Am', 'seed')")
	exec(t, ctx, ac, "SELECT dolt_branch('b2')")

	r := testserver.StartOpts(t, testserver.Options{Args: []string{
		"--replicate-from", pgURL(p, "postgres", "app"), "--replicate-branches", "main,b2", "--replicate-interval", "100ms"}})
	// caughtUp waits until the replica's database reads as the
	// primary's: the same dolt_hashof_db, which covers the working set.
	var rc *pgx.Conn
	caughtUp := func(what string) time.Duration {
		t.Helper()
		want := one(t, ctx, ac, "SELECT dolt_hashof_db()")
		began := time.Now()
		for deadline := began.Add(10 * time.Second); ; {
			if rc == nil {
				if c, err := pgx.Connect(ctx, r.DSN("app")); err == nil {
					rc = c
					t.Cleanup(func() { c.Close(context.Background()) })
				}
			}
			if rc != nil {
				var got string
				if err := rc.QueryRow(ctx, "SELECT dolt_hashof_db()").Scan(&got); err == nil && got == want {
					return time.Since(began)
				} else if err != nil && rc.IsClosed() {
					rc = nil
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the replica did not catch up within 10s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	caughtUp("the first copy")
	wantRows(t, ctx, rc, "SELECT v FROM t", "zero")

	// A small write load: SQL COMMITs (no dolt_commit) and dolt_commits.
	var worst, total time.Duration
	for i := 1; i <= 20; i++ {
		exec(t, ctx, ac, "INSERT INTO t VALUES ($1, 'row')", i)
		if i%5 == 0 {
			exec(t, ctx, ac, "SELECT dolt_commit('-am', 'batch')")
		}
		d := caughtUp(fmt.Sprintf("write %d", i))
		worst, total = max(worst, d), total+d
	}
	t.Logf("the replica caught up with each write within %v, %v on average", worst, total/20)
	if worst > time.Second {
		t.Errorf("the replica took %v to catch up with a write, want under a second", worst)
	}
	wantRows(t, ctx, rc, "SELECT count(*) FROM t", "21")
	exec(t, ctx, ac, "SELECT dolt_tag('v1', '-m', 'release')")
	for deadline := time.Now().Add(10 * time.Second); one(t, ctx, rc, "SELECT count(*) FROM dolt_tags") != "1"; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the replica did not get the primary's tag")
		}
	}
	if x, y := one(t, ctx, ac, "SELECT dolt_hashof('main')"), one(t, ctx, rc, "SELECT dolt_hashof('main')"); x != y {
		t.Errorf("main: %s on the primary, %s on the replica", x, y)
	}

	// Writes are refused as on a hot standby.
	code, msg := errorText(t, ctx, rc, "INSERT INTO t VALUES (100, 'no')")
	if code != "25006" || msg != "cannot execute INSERT in a read-only transaction" {
		t.Errorf("a write on the replica: %s %q", code, msg)
	}
	wantError(t, ctx, rc, "25006", "SELECT dolt_commit('-Am', 'no')")
	wantError(t, ctx, rc, "25006", "CREATE TABLE no (id int)")
	wantError(t, ctx, rc, "25006", "UPDATE t SET v = 'no'")
	wantError(t, ctx, rc, "25006", "SELECT dolt_branch('local')")
	wantRows(t, ctx, rc, "SELECT branch, local_head = primary_head, last_error IS NULL, lag_ms < 1000 FROM dolt_replication_status() ORDER BY branch",
		"b2 | t | t | t", "main | t | t | t")

	// The primary restarts; the replica follows what it commits next.
	p.Stop()
	time.Sleep(300 * time.Millisecond)
	p = testserver.StartOpts(t, testserver.Options{DataDir: p.DataDir, Port: p.Port})
	ac = connect(t, ctx, p.DSN("app"))
	exec(t, ctx, ac, "INSERT INTO t VALUES (1000, 'after restart')")
	caughtUp("after the primary's restart")
	wantRows(t, ctx, rc, "SELECT v FROM t WHERE id = 1000", "after restart")
}

// TestPgRemoteThroughput times a push and a clone of a table of
// PGREMOTE_ROWS rows (skipped without it) through postgres://, for the
// figures in the notes.
func TestPgRemoteThroughput(t *testing.T) {
	rows, _ := strconv.Atoi(os.Getenv("PGREMOTE_ROWS"))
	if rows <= 0 {
		t.Skip("set PGREMOTE_ROWS to time a push and a clone of that many rows")
	}
	ctx := testserver.Context(t)
	r := testserver.Start(t)
	rc := connect(t, ctx, r.DSN("postgres"))
	a := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE big (id int PRIMARY KEY, v text)")
	exec(t, ctx, a, fmt.Sprintf("INSERT INTO big SELECT g, 'row ' || g FROM generate_series(1, %d) g", rows))
	exec(t, ctx, a, "SELECT dolt_commit('-Am', 'load')")
	exec(t, ctx, a, "SELECT dolt_remote('add', 'origin', $1)", pgURL(r, "postgres", "big"))
	began := time.Now()
	exec(t, ctx, a, "SELECT dolt_push('origin', 'main')")
	took := time.Since(began)
	b, _ := strconv.ParseFloat(one(t, ctx, rc, "SELECT bytes_received FROM dolt_peer_stats()"), 64)
	t.Logf("push of %d rows: %s chunks, %.1f MB in %v: %.1f MB/s", rows, one(t, ctx, rc, "SELECT chunks_received FROM dolt_peer_stats()"), b/1e6, took, b/1e6/took.Seconds())
	cc := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	began = time.Now()
	exec(t, ctx, cc, "SELECT dolt_clone($1, 'big')", pgURL(r, "postgres", "big"))
	took = time.Since(began)
	b, _ = strconv.ParseFloat(one(t, ctx, rc, "SELECT bytes_sent FROM dolt_peer_stats()"), 64)
	t.Logf("clone: %.1f MB in %v: %.1f MB/s", b/1e6, took, b/1e6/took.Seconds())
	exec(t, ctx, a, "UPDATE big SET v = 'changed' WHERE id = 500")
	exec(t, ctx, a, "SELECT dolt_commit('-am', 'one row')")
	before, _ := strconv.Atoi(one(t, ctx, rc, "SELECT chunks_received FROM dolt_peer_stats()"))
	exec(t, ctx, a, "SELECT dolt_push('origin', 'main')")
	after, _ := strconv.Atoi(one(t, ctx, rc, "SELECT chunks_received FROM dolt_peer_stats()"))
	t.Logf("a push of one changed row of %d: %d chunks", rows, after-before)
}

// selfSignedCert writes a self-signed certificate for 127.0.0.1 and its
// key to dir, returning their paths.
func selfSignedCert(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// TestPgRemoteTLS pushes to and clones from a server that takes TLS and
// SCRAM only, with sslmode=require and the password from PGPASSWORD in
// the pushing server's environment rather than in the URL.
func TestPgRemoteTLS(t *testing.T) {
	ctx := testserver.Context(t)
	cert, key := selfSignedCert(t, t.TempDir())
	r := testserver.StartOpts(t, testserver.Options{Args: []string{"--auth", "scram", "--tls-cert", cert, "--tls-key", key},
		Env: []string{"PGSERVER_SUPERUSER_PASSWORD=rootpw"}})
	rc := connect(t, ctx, fmt.Sprintf("postgres://postgres:rootpw@%s/postgres?sslmode=require", r.Addr()))
	exec(t, ctx, rc, "CREATE ROLE rep LOGIN REPLICATION PASSWORD 'tls-pw'")
	env := []string{"PGPASSWORD=tls-pw"}
	a := connect(t, ctx, testserver.StartOpts(t, testserver.Options{Env: env}).DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE t (id int PRIMARY KEY)")
	exec(t, ctx, a, "INSERT INTO t VALUES (1), (2)")
	exec(t, ctx, a, "SELECT dolt_commit('-Am', 'two rows')")
	url := fmt.Sprintf("postgres://rep@%s/secure?sslmode=require", r.Addr())
	exec(t, ctx, a, "SELECT dolt_remote('add', 'origin', $1)", url)
	exec(t, ctx, a, "SELECT dolt_push('origin', 'main')")
	b := testserver.StartOpts(t, testserver.Options{Env: env})
	exec(t, ctx, connect(t, ctx, b.DSN("postgres")), "SELECT dolt_clone($1)", url)
	bc := connect(t, ctx, b.DSN("secure"))
	wantRows(t, ctx, bc, "SELECT id FROM t ORDER BY id", "1", "2")
	if x, y := one(t, ctx, a, "SELECT dolt_hashof_db()"), one(t, ctx, bc, "SELECT dolt_hashof_db()"); x != y {
		t.Errorf("dolt_hashof_db: %s pushed, %s cloned", x, y)
	}
	// A wrong password in the URL: refused by SCRAM, and not shown.
	exec(t, ctx, a, "SELECT dolt_remote('add', 'wrongpw', $1)", fmt.Sprintf("postgres://rep:n0pe-pw@%s/secure?sslmode=require", r.Addr()))
	_, msg := errorText(t, ctx, a, "SELECT dolt_fetch('wrongpw')")
	if strings.Contains(msg, "n0pe-pw") || !strings.Contains(msg, "xxxxx") {
		t.Errorf("a failed login: %q, want the URL with its password masked", msg)
	}
}

// TestPgRemoteSurface: tags, other branches, clone --branch, deleting a
// remote branch and fetch --prune through a postgres:// remote, and what
// the serving server then has.
func TestPgRemoteSurface(t *testing.T) {
	ctx := testserver.Context(t)
	r := testserver.Start(t)
	url := pgURL(r, "postgres", "surf")
	a := connect(t, ctx, testserver.Start(t).DSN("postgres"))
	exec(t, ctx, a, "CREATE TABLE t (id int PRIMARY KEY, v text)")
	exec(t, ctx, a, "INSERT INTO t VALUES (1, 'a'), (2, 'b')")
	exec(t, ctx, a, "SELECT dolt_commit('-Am', 'seed')")
	exec(t, ctx, a, "SELECT dolt_tag('v1.0', '-m', 'first release')")
	exec(t, ctx, a, "SELECT dolt_remote('add', 'origin', $1)", url)
	exec(t, ctx, a, "SELECT dolt_push('origin', 'main')")
	exec(t, ctx, a, "SELECT dolt_push('origin', 'v1.0')")
	exec(t, ctx, a, "SELECT dolt_checkout('-b', 'feature')")
	exec(t, ctx, a, "INSERT INTO t VALUES (3, 'feature-only')")
	exec(t, ctx, a, "SELECT dolt_commit('-am', 'feature work')")
	exec(t, ctx, a, "SELECT dolt_push('-u', 'origin', 'feature')")
	exec(t, ctx, a, "SELECT dolt_checkout('main')")

	rc := connect(t, ctx, r.DSN("surf"))
	wantRows(t, ctx, rc, "SELECT name FROM dolt_branches ORDER BY name", "feature", "main")
	wantRows(t, ctx, rc, "SELECT tag_name FROM dolt_tags", "v1.0")
	fc := connect(t, ctx, r.DSN("surf/feature"))
	wantRows(t, ctx, fc, "SELECT id FROM t ORDER BY id", "1", "2", "3")

	b := testserver.Start(t)
	exec(t, ctx, connect(t, ctx, b.DSN("postgres")), "SELECT dolt_clone('--branch', 'feature', $1, 'featured')", url)
	f := connect(t, ctx, b.DSN("featured"))
	wantRows(t, ctx, f, "SELECT active_branch()", "feature")
	wantRows(t, ctx, f, "SELECT id FROM t ORDER BY id", "1", "2", "3")
	wantRows(t, ctx, f, "SELECT tag_name FROM dolt_tags", "v1.0")
	wantRows(t, ctx, f, "SELECT name FROM dolt_remote_branches ORDER BY name", "remotes/origin/feature", "remotes/origin/main")

	exec(t, ctx, a, "SELECT dolt_push('origin', ':feature')")
	wantRows(t, ctx, rc, "SELECT name FROM dolt_branches ORDER BY name", "main")
	exec(t, ctx, f, "SELECT dolt_fetch('--prune', 'origin')")
	wantRows(t, ctx, f, "SELECT name FROM dolt_remote_branches ORDER BY name", "remotes/origin/main")
	exec(t, ctx, a, "SELECT dolt_tag('v1.0', '-d')")
	exec(t, ctx, a, "SELECT dolt_tag('v1.0', 'HEAD~1')")
	wantError(t, ctx, a, "XX000", "SELECT dolt_push('origin', 'v1.0')") // another tag of that name is there
}

// TestPgBackup backs a database up to another server (dolt_backup to a
// postgres:// URL): the backup is a database there with the original's
// every ref, working sets included, so that the other server's sessions
// read its uncommitted rows too; a second sync mirrors a deleted branch
// and sends nothing it has; a restore from it gives back a database equal
// to the original in everything dbState reads.
func TestPgBackup(t *testing.T) {
	ctx := testserver.Context(t)
	b := testserver.Start(t)
	srv := testserver.Start(t)
	url := pgURL(b, "postgres", "bk")
	a, f := backupSource(t, ctx, srv, "CREATE TABLE more (id int PRIMARY KEY, v text)",
		"INSERT INTO more SELECT g, 'row ' || g FROM generate_series(1, 2000) g")
	exec(t, ctx, a, "SELECT dolt_branch('gone', 'v1')")

	exec(t, ctx, a, "SELECT dolt_backup('add', 'bak', $1)", url)
	wantRows(t, ctx, a, "SELECT dolt_backup('sync', 'bak')", "0")
	bk := connect(t, ctx, b.DSN("bk"))
	wantRows(t, ctx, bk, "SELECT name FROM dolt_branches ORDER BY name", "feature", "gone", "main")
	wantRows(t, ctx, bk, "SELECT tag_name, message FROM dolt_tags", "v1 | the load")
	wantRows(t, ctx, bk, "SELECT id, v FROM small ORDER BY id", "1 | committed", "2 | staged only", "3 | unstaged")
	wantRows(t, ctx, bk, "SELECT table_name, staged, status FROM dolt_status ORDER BY 2", "public.small | f | modified", "public.small | t | modified")
	wantRows(t, ctx, connect(t, ctx, b.DSN("bk@feature")), "SELECT id FROM small ORDER BY id", "1", "10", "11")

	exec(t, ctx, a, "SELECT dolt_branch('-D', 'gone')")
	exec(t, ctx, a, "INSERT INTO small VALUES (4, 'later')")
	exec(t, ctx, a, "SELECT dolt_backup('sync', 'bak')")
	bk = connect(t, ctx, b.DSN("bk"))
	wantRows(t, ctx, bk, "SELECT name FROM dolt_branches ORDER BY name", "feature", "main")
	wantRows(t, ctx, bk, "SELECT v FROM small WHERE id = 4", "later")
	wantRows(t, ctx, bk, "SELECT count(*) FROM more", "2000")
	received := func() string { return one(t, ctx, bk, "SELECT chunks_received FROM dolt_peer_stats()") }
	before := received()
	exec(t, ctx, a, "SELECT dolt_backup('sync', 'bak')")
	if after := received(); after != before {
		t.Errorf("a sync with nothing new sent chunks: %s received before, %s after", before, after)
	}

	wantRows(t, ctx, a, "SELECT dolt_backup('restore', '"+url+"', 'restored')", "0")
	r := connect(t, ctx, srv.DSN("restored"))
	if x, y := dbState(t, ctx, a), dbState(t, ctx, r); x != y {
		t.Errorf("the restored database differs from the original:\n%s\nrestored:\n%s", x, y)
	}
	if x, y := one(t, ctx, f, "SELECT dolt_hashof_db()"), one(t, ctx, connect(t, ctx, srv.DSN("restored@feature")), "SELECT dolt_hashof_db()"); x != y {
		t.Errorf("feature's working root is %s, restored %s", x, y)
	}
}
