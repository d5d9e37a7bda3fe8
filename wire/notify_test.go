package wire_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
	"github.com/jackc/pgx/v5"

	"github.com/prollypg/prollypg/wire"
	"github.com/prollypg/prollypg/wire/internal/wiretest"
)

// quietFor is how long a test waits to be sure that nothing arrives.
const quietFor = 150 * time.Millisecond

// TestNotificationTiming checks where NotificationResponse goes, as
// PostgreSQL 15 sends it: before the ParameterStatus reports and the
// ReadyForQuery that end a batch outside a transaction block, at once to
// a session waiting idle, never inside a transaction block or in the
// middle of an extended-protocol batch.
func TestNotificationTiming(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	a := wiretest.Connect(t, srv.HostPort(), "u", "db")
	b := wiretest.Connect(t, srv.HostPort(), "u", "db")
	noteFrom := func(r *wiretest.Raw, channel, payload string) string {
		return fmt.Sprintf("Notification %d %s %s", r.PID, channel, payload)
	}

	// The notifying session's own notification precedes ParameterStatus
	// and ReadyForQuery.
	a.Send(&pgproto3.Query{String: "LISTEN ch; SET application_name = x; NOTIFY ch, 'self'"})
	expect(t, a.UntilReady(), "CommandComplete LISTEN", "CommandComplete SET", "CommandComplete NOTIFY",
		noteFrom(a, "ch", "self"), "ParameterStatus application_name=x", "Ready I")

	// An idle listener gets another session's notification without
	// sending anything, and stays in step afterwards.
	b.Send(&pgproto3.Query{String: "NOTIFY ch, 'hello'"})
	expect(t, b.Results(), "CommandComplete NOTIFY", "Ready I")
	expect(t, []string{a.Receive()}, noteFrom(b, "ch", "hello"))
	if got := a.Quiet(quietFor); got != "" {
		t.Fatalf("after the notification: %s", got)
	}
	a.Send(&pgproto3.Query{String: "SELECT 1"})
	expect(t, a.Results(), "RowDescription ?column?:23:0", "DataRow 1", "CommandComplete SELECT 1", "Ready I")

	// Several in one transaction arrive in order; a rolled-back one never.
	b.Send(&pgproto3.Query{String: "NOTIFY ch, '1'; NOTIFY ch, '2'; NOTIFY ch"})
	expect(t, b.Results(), "CommandComplete NOTIFY", "CommandComplete NOTIFY", "CommandComplete NOTIFY", "Ready I")
	expect(t, []string{a.Receive(), a.Receive(), a.Receive()}, noteFrom(b, "ch", "1"), noteFrom(b, "ch", "2"), noteFrom(b, "ch", ""))
	b.Send(&pgproto3.Query{String: "BEGIN; NOTIFY ch, 'dropped'; ROLLBACK"})
	expect(t, b.Results(), "CommandComplete BEGIN", "CommandComplete NOTIFY", "CommandComplete ROLLBACK", "Ready I")
	if got := a.Quiet(quietFor); got != "" {
		t.Fatalf("rolled back notification delivered: %s", got)
	}

	// Inside a transaction block nothing arrives, even at ReadyForQuery;
	// the COMMIT's ReadyForQuery brings it.
	a.Send(&pgproto3.Query{String: "BEGIN"})
	expect(t, a.Results(), "CommandComplete BEGIN", "Ready T")
	b.Send(&pgproto3.Query{String: "NOTIFY ch, 'later'"})
	expect(t, b.Results(), "CommandComplete NOTIFY", "Ready I")
	if got := a.Quiet(quietFor); got != "" {
		t.Fatalf("delivered inside a transaction block: %s", got)
	}
	a.Send(&pgproto3.Query{String: "SELECT 1"})
	expect(t, a.Results(), "RowDescription ?column?:23:0", "DataRow 1", "CommandComplete SELECT 1", "Ready T")
	a.Send(&pgproto3.Query{String: "COMMIT"})
	expect(t, a.Results(), "CommandComplete COMMIT", noteFrom(b, "ch", "later"), "Ready I")

	// In the middle of an extended batch nothing arrives until Sync.
	a.Send(&pgproto3.Parse{Query: "SELECT 2"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Flush{})
	expect(t, []string{a.Receive(), a.Receive(), a.Receive(), a.Receive()},
		"ParseComplete", "BindComplete", "DataRow 2", "CommandComplete SELECT 1")
	b.Send(&pgproto3.Query{String: "NOTIFY ch, 'batch'"})
	expect(t, b.Results(), "CommandComplete NOTIFY", "Ready I")
	if got := a.Quiet(quietFor); got != "" {
		t.Fatalf("delivered in the middle of a batch: %s", got)
	}
	a.Send(&pgproto3.Sync{})
	expect(t, a.Results(), noteFrom(b, "ch", "batch"), "Ready I")

	// A message that has begun to arrive is not interrupted: the
	// notification waits for its ReadyForQuery, and no byte is lost.
	q, err := (&pgproto3.Query{String: "SELECT 3"}).Encode(nil)
	if err != nil {
		t.Fatal(err)
	}
	a.Write(q[:3])
	time.Sleep(20 * time.Millisecond)
	b.Send(&pgproto3.Query{String: "NOTIFY ch, 'split'"})
	expect(t, b.Results(), "CommandComplete NOTIFY", "Ready I")
	time.Sleep(20 * time.Millisecond)
	a.Write(q[3:])
	expect(t, a.Results(), "RowDescription ?column?:23:0", "DataRow 3", "CommandComplete SELECT 1",
		noteFrom(b, "ch", "split"), "Ready I")

	// Woken again and again while idle, the session still reads its
	// client's messages whole.
	for i := range 20 {
		b.Send(&pgproto3.Query{String: fmt.Sprintf("NOTIFY ch, 'n%d'", i)})
		expect(t, b.Results(), "CommandComplete NOTIFY", "Ready I")
		expect(t, []string{a.Receive()}, noteFrom(b, "ch", fmt.Sprintf("n%d", i)))
	}
	a.Send(&pgproto3.Query{String: "UNLISTEN *"})
	expect(t, a.Results(), "CommandComplete UNLISTEN", "Ready I")
	b.Send(&pgproto3.Query{String: "NOTIFY ch, 'gone'"})
	expect(t, b.Results(), "CommandComplete NOTIFY", "Ready I")
	if got := a.Quiet(quietFor); got != "" {
		t.Fatalf("delivered after UNLISTEN *: %s", got)
	}
}

// TestNotificationShutdown checks that a listener waiting idle still ends
// at once on Shutdown, with FATAL 57P01, after a wake for a notification.
func TestNotificationShutdown(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	a := wiretest.Connect(t, srv.HostPort(), "u", "db")
	b := wiretest.Connect(t, srv.HostPort(), "u", "db")
	a.Send(&pgproto3.Query{String: "LISTEN ch"})
	expect(t, a.Results(), "CommandComplete LISTEN", "Ready I")
	b.Send(&pgproto3.Query{String: "NOTIFY ch"})
	expect(t, b.Results(), "CommandComplete NOTIFY", "Ready I")
	expect(t, []string{a.Receive()}, fmt.Sprintf("Notification %d ch ", b.PID))
	if err := srv.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	expect(t, a.Results(), "Error FATAL 57P01 terminating connection due to administrator command", "EOF")
}

// TestNotificationTLS checks the idle wake over TLS, whose reads the
// wake's deadline interrupts below the record layer: a pgx listener
// blocked in WaitForNotification gets each notification, and its
// queries between the wakes still work.
func TestNotificationTLS(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{TLS: wiretest.TLSConfig(t)})
	connect := func() *pgx.Conn {
		cfg, err := pgx.ParseConfig("postgres://u@" + srv.HostPort() + "/db?sslmode=require")
		if err != nil {
			t.Fatal(err)
		}
		c, err := pgx.ConnectConfig(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	l, n := connect(), connect()
	if _, err := l.Exec(t.Context(), "LISTEN ch"); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		got := make(chan string, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			nt, err := l.WaitForNotification(ctx)
			if err != nil {
				got <- err.Error()
				return
			}
			got <- nt.Payload
		}()
		time.Sleep(10 * time.Millisecond)
		if _, err := n.Exec(t.Context(), fmt.Sprintf("NOTIFY ch, 'p%d'", i), pgx.QueryExecModeSimpleProtocol); err != nil {
			t.Fatal(err)
		}
		if g := <-got; g != fmt.Sprintf("p%d", i) {
			t.Fatalf("listener got %q", g)
		}
		var v int
		if err := l.QueryRow(t.Context(), "SELECT 1").Scan(&v); err != nil || v != 1 {
			t.Fatalf("SELECT 1 after a wake: %v %v", v, err)
		}
	}
}
