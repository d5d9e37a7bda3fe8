package wire_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/prollypg/prollypg/wire"
	"github.com/prollypg/prollypg/wire/internal/wiretest"
)

func TestShutdownIdleAndBusy(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	idle := wiretest.Connect(t, srv.HostPort(), "u", "db")
	busy := wiretest.Connect(t, srv.HostPort(), "u", "db")
	busy.Send(&pgproto3.Query{String: "SELECT pg_sleep(0.3)"})
	time.Sleep(50 * time.Millisecond)

	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("shutdown returned after %v, before the running statement ended", d)
	}
	// The idle session was told at once; the busy one finished its statement.
	expect(t, idle.Results(), "Error FATAL 57P01 terminating connection due to administrator command", "EOF")
	expect(t, busy.Results(), "RowDescription pg_sleep:2278:0", "DataRow ", "CommandComplete SELECT 1", "Ready I")
	expect(t, busy.Results(), "Error FATAL 57P01 terminating connection due to administrator command", "EOF")
	if n := srv.Engine.Sessions.Load(); n != 0 {
		t.Errorf("%d sessions still open", n)
	}
	// No new connections.
	if c, err := net.DialTimeout("tcp", srv.HostPort(), time.Second); err == nil {
		c.Close()
		t.Error("dial after shutdown succeeded")
	}
}

func TestShutdownDeadline(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	busy := wiretest.Connect(t, srv.HostPort(), "u", "db")
	busy.Send(&pgproto3.Query{String: "SELECT pg_sleep(60)"})
	// A client in the middle of an extended batch is not idle.
	mid := wiretest.Connect(t, srv.HostPort(), "u", "db")
	mid.Send(&pgproto3.Parse{Query: "SELECT 1"}, &pgproto3.Flush{})
	expect(t, []string{mid.Receive()}, "ParseComplete")
	time.Sleep(50 * time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("shutdown: %v", err)
	}
	expect(t, busy.Results(), "RowDescription pg_sleep:2278:0", "Error FATAL 57P01 terminating connection due to administrator command", "EOF")
	expect(t, mid.Results(), "Error FATAL 57P01 terminating connection due to administrator command", "EOF")
}

func TestShutdownDuringStartup(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	r := wiretest.Dial(t, srv.HostPort()) // connected, no startup packet yet
	time.Sleep(50 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	expect(t, []string{r.Receive(), r.Receive()}, "Error FATAL 57P01 terminating connection due to administrator command", "EOF")
}

func TestServeContextAndClose(t *testing.T) {
	e := wiretest.NewEngine()
	srv, err := wire.NewServer(wire.Config{Addr: "127.0.0.1:0", Handler: e})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	r := wiretest.Connect(t, srv.Addr().String(), "u", "db")
	r.Send(&pgproto3.Query{String: "SELECT pg_sleep(60)"})
	time.Sleep(50 * time.Millisecond)
	cancel() // closes the server: listener, connections, statements
	if err := <-done; !errors.Is(err, wire.ErrServerClosed) {
		t.Fatalf("serve: %v", err)
	}
	got := r.Results()
	if got[len(got)-1] != "EOF" {
		t.Fatalf("after close: %q", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for e.Sessions.Load() != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := e.Sessions.Load(); n != 0 {
		t.Fatalf("%d sessions left open", n)
	}
	if err := srv.Close(); err != nil {
		t.Logf("second close: %v", err)
	}
}

func TestConfigValidation(t *testing.T) {
	if _, err := wire.NewServer(wire.Config{}); err == nil {
		t.Error("no handler accepted")
	}
	if _, err := wire.NewServer(wire.Config{Handler: wiretest.NewEngine(), Auth: wire.AuthSCRAM}); err == nil {
		t.Error("SCRAM without passwords accepted")
	}
}

func TestShutdownIdleTLS(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{TLS: wiretest.TLSConfig(t)})
	cfg, err := pgx.ParseConfig("postgres://u@" + srv.HostPort() + "/db?sslmode=require")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := srv.Shutdown(ctx); err != nil || time.Since(start) > 2*time.Second {
		t.Fatalf("shutdown: %v after %v", err, time.Since(start))
	}
	var v int
	err = conn.QueryRow(context.Background(), "SELECT 1").Scan(&v)
	var pgErr *pgconn.PgError
	if err == nil || (errors.As(err, &pgErr) && pgErr.Code != "57P01") {
		t.Fatalf("query after shutdown: %v", err)
	}
}
