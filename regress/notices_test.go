package regress

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestClientMinMessages checks that notices and warnings below
// client_min_messages never reach the client, that INFO always does, and
// that the setting takes only PostgreSQL's level names (what PostgreSQL
// 15 gives for the same statements).
func TestClientMinMessages(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c, notices := connectWithNotices(t, ctx, srv)
	defer c.Close(ctx)

	raise := `DO $$BEGIN RAISE NOTICE 'n'; RAISE WARNING 'w'; RAISE INFO 'i'; END$$`
	for _, tc := range []struct {
		level string
		want  string
	}{
		{"notice", "NOTICE n|WARNING w|INFO i|NOTICE table \"nosuch\" does not exist, skipping"},
		{"warning", "WARNING w|INFO i"},
		{"error", "INFO i"},
	} {
		exec(t, ctx, c, "SET client_min_messages = "+tc.level)
		notices.take()
		exec(t, ctx, c, raise)
		exec(t, ctx, c, `DROP TABLE IF EXISTS nosuch`)
		var got []string
		for _, n := range notices.take() {
			got = append(got, n.Severity+" "+n.Message)
		}
		if s := strings.Join(got, "|"); s != tc.want {
			t.Errorf("client_min_messages = %s: notices %q, want %q", tc.level, s, tc.want)
		}
	}
	exec(t, ctx, c, "SET client_min_messages = DEBUG")
	var shown string
	if err := c.QueryRow(ctx, `SHOW client_min_messages`).Scan(&shown); err != nil || shown != "debug2" {
		t.Errorf("SHOW client_min_messages = %q, %v; want debug2", shown, err)
	}
	_, err := c.Exec(ctx, `SET client_min_messages = bogus`)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "22023" || !strings.HasPrefix(pe.Hint, "Available values: debug5") {
		t.Errorf("SET client_min_messages = bogus: %v, want 22023 with the available values", err)
	}
}

// noticeLog collects the notices a connection receives.
type noticeLog struct {
	mu      sync.Mutex
	notices []*pgconn.Notice
}

// take returns the notices received since the last take.
func (l *noticeLog) take() []*pgconn.Notice {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.notices
	l.notices = nil
	return n
}

// connectWithNotices connects to srv's postgres database, keeping the
// notices the server sends.
func connectWithNotices(t *testing.T, ctx context.Context, srv *testserver.Server) (*pgx.Conn, *noticeLog) {
	t.Helper()
	cfg, err := pgx.ParseConfig(srv.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	l := &noticeLog{}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		l.mu.Lock()
		l.notices = append(l.notices, n)
		l.mu.Unlock()
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, l
}
