package wire_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/lib/pq"

	"github.com/prollypg/prollypg/wire"
	"github.com/prollypg/prollypg/wire/internal/wiretest"
)

// passwords: alice's is stored in clear, vera's as a SCRAM verifier.
func passwords(t *testing.T) wire.PasswordFunc {
	verifier, err := wire.SCRAMVerifier("v3ra-pw")
	if err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context, user string) (string, error) {
		switch user {
		case "alice":
			return "s3cret", nil
		case "vera":
			return verifier, nil
		}
		return "", wire.ErrUnknownUser
	}
}

// pgxTry connects with pgx and returns the connection error.
func pgxTry(t *testing.T, srv *wiretest.Server, user, password, sslmode string) error {
	t.Helper()
	cfg, err := pgx.ParseConfig("postgres://" + srv.HostPort() + "/db?sslmode=" + sslmode)
	if err != nil {
		t.Fatal(err)
	}
	cfg.User, cfg.Password = user, password
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var v int
	return conn.QueryRow(ctx, "SELECT 1").Scan(&v)
}

// pqTry connects with lib/pq and returns the error of a first query.
func pqTry(t *testing.T, srv *wiretest.Server, user, password, sslmode string) error {
	t.Helper()
	c, err := pq.NewConnector("host=127.0.0.1 port=" + strconv.Itoa(srv.Port) + " dbname=db sslmode=" + sslmode +
		" user=" + user + " password='" + password + "' connect_timeout=10")
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	defer db.Close()
	var v int
	return db.QueryRow("SELECT 1").Scan(&v)
}

// isAuthFailure reports a FATAL 28P01 from either driver.
func isAuthFailure(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "28P01" && pgErr.Severity == "FATAL"
	}
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		return pqErr.Code == "28P01" && pqErr.Severity == "FATAL"
	}
	return false
}

func TestPasswordAuthentication(t *testing.T) {
	for _, method := range []wire.AuthMethod{wire.AuthSCRAM, wire.AuthCleartext} {
		for _, tlsOn := range []bool{false, true} {
			cfg := wire.Config{Auth: method, Password: passwords(t)}
			sslmode := "disable"
			if tlsOn {
				cfg.TLS, sslmode = wiretest.TLSConfig(t), "require"
			}
			srv := wiretest.Start(t, cfg)
			name := method.String() + "/" + sslmode
			try := map[string]func(*testing.T, *wiretest.Server, string, string, string) error{"pgx": pgxTry, "pq": pqTry}
			for driver, f := range try {
				if err := f(t, srv, "alice", "s3cret", sslmode); err != nil {
					t.Errorf("%s %s: right password: %v", name, driver, err)
				}
				if err := f(t, srv, "vera", "v3ra-pw", sslmode); err != nil {
					t.Errorf("%s %s: right password, stored verifier: %v", name, driver, err)
				}
				if err := f(t, srv, "alice", "wrong", sslmode); !isAuthFailure(err) {
					t.Errorf("%s %s: wrong password: %v", name, driver, err)
				}
				if err := f(t, srv, "mallory", "s3cret", sslmode); !isAuthFailure(err) {
					t.Errorf("%s %s: unknown user: %v", name, driver, err)
				}
			}
		}
	}
}

func TestPsqlPassword(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{Auth: wire.AuthSCRAM, Password: passwords(t)})
	_, errOut, code := psql(t, srv, []string{"PGPASSWORD=wrong", "PGUSER=alice"}, "", "-U", "alice", "-c", "SELECT 1")
	if code == 0 || !strings.Contains(errOut, `password authentication failed for user "alice"`) {
		t.Fatalf("wrong password: %d %q", code, errOut)
	}
	out, errOut, code := psql(t, srv, []string{"PGPASSWORD=s3cret"}, "", "-U", "alice", "-At", "-c", "SELECT 1")
	if code != 0 || out != "1\n" {
		t.Fatalf("right password: %d %q %q", code, out, errOut)
	}
}

// TestFailedLoginsSlowed: repeated wrong passwords from one address are
// answered ever more slowly, and the right password still gets in.
func TestFailedLoginsSlowed(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{Auth: wire.AuthSCRAM, Password: passwords(t)})
	for i := 1; i <= 4; i++ {
		began := time.Now()
		if err := pgxTry(t, srv, "alice", "wrong", "disable"); !isAuthFailure(err) {
			t.Fatalf("wrong password %d: %v", i, err)
		}
		if took := time.Since(began); i == 4 && took < 250*time.Millisecond {
			t.Errorf("the 4th failure in a row was answered after %v, want at least 250ms", took)
		}
	}
	if err := pgxTry(t, srv, "alice", "s3cret", "disable"); err != nil {
		t.Fatalf("right password after failures: %v", err)
	}
}

// TestChannelBinding: over TLS a client that requires channel binding
// (pgx's channel_binding=require) gets SCRAM-SHA-256-PLUS and logs in;
// without TLS it is not offered.
func TestChannelBinding(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{Auth: wire.AuthSCRAM, Password: passwords(t), TLS: wiretest.TLSConfig(t)})
	ctx := context.Background()
	url := func(sslmode string) string {
		return fmt.Sprintf("postgres://alice:s3cret@%s/db?sslmode=%s&channel_binding=require", srv.HostPort(), sslmode)
	}
	c, err := pgx.Connect(ctx, url("require"))
	if err != nil {
		t.Fatalf("channel binding over TLS: %v", err)
	}
	c.Close(ctx)
	if _, err := pgx.Connect(ctx, url("disable")); err == nil || !strings.Contains(err.Error(), "channel binding") {
		t.Fatalf("channel binding without TLS: %v", err)
	}
}

// TestRequireTLSOffLoopback: with RequireTLSOffLoopback, a connection from
// another address must be encrypted (FATAL 28000 with PostgreSQL's
// message otherwise); one from a loopback address need not be.
func TestRequireTLSOffLoopback(t *testing.T) {
	var remote net.IP
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			remote = n.IP
			break
		}
	}
	if remote == nil {
		t.Skip("this machine has no address but loopback ones")
	}
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := wiretest.Start(t, wire.Config{Listener: ln, TLS: wiretest.TLSConfig(t), RequireTLSOffLoopback: true})
	ctx := context.Background()
	url := func(host, sslmode string) string {
		return fmt.Sprintf("postgres://alice@%s/db?sslmode=%s", net.JoinHostPort(host, strconv.Itoa(srv.Port)), sslmode)
	}
	_, err = pgx.Connect(ctx, url(remote.String(), "disable"))
	var pe *pgconn.PgError
	want := fmt.Sprintf(`no pg_hba.conf entry for host "%s", user "alice", database "db", no encryption`, remote)
	if !errors.As(err, &pe) || pe.Code != "28000" || pe.Message != want {
		t.Fatalf("unencrypted from %s: %v, want 28000 %q", remote, err, want)
	}
	for _, c := range []struct{ host, sslmode string }{{remote.String(), "require"}, {"127.0.0.1", "disable"}} {
		conn, err := pgx.Connect(ctx, url(c.host, c.sslmode))
		if err != nil {
			t.Fatalf("from %s with sslmode=%s: %v", c.host, c.sslmode, err)
		}
		conn.Close(ctx)
	}
	if _, err := wire.NewServer(wire.Config{RequireTLSOffLoopback: true}); err == nil {
		t.Error("RequireTLSOffLoopback without TLS was accepted")
	}
}
