package regress

import (
	"context"
	"errors"
	"slices"
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

// TestUpsertStatementTriggers checks that INSERT ... ON CONFLICT DO
// UPDATE fires UPDATE's statement triggers as well as INSERT's, in
// PostgreSQL's order (taken from PostgreSQL 15), and DO NOTHING INSERT's
// alone.
func TestUpsertStatementTriggers(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c, log := connectWithNotices(t, ctx, srv)
	for _, sql := range []string{
		`CREATE TABLE ups (a int PRIMARY KEY, b int)`,
		`CREATE FUNCTION ups_note() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE '% % %', TG_WHEN, TG_OP, TG_LEVEL; RETURN NULL; END $$`,
		`CREATE TRIGGER s1 BEFORE INSERT ON ups FOR EACH STATEMENT EXECUTE FUNCTION ups_note()`,
		`CREATE TRIGGER s2 BEFORE UPDATE ON ups FOR EACH STATEMENT EXECUTE FUNCTION ups_note()`,
		`CREATE TRIGGER s3 AFTER INSERT ON ups FOR EACH STATEMENT EXECUTE FUNCTION ups_note()`,
		`CREATE TRIGGER s4 AFTER UPDATE ON ups FOR EACH STATEMENT EXECUTE FUNCTION ups_note()`,
	} {
		exec(t, ctx, c, sql)
	}
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{`INSERT INTO ups VALUES (1, 1) ON CONFLICT (a) DO UPDATE SET b = excluded.b`,
			[]string{"BEFORE INSERT STATEMENT", "BEFORE UPDATE STATEMENT", "AFTER UPDATE STATEMENT", "AFTER INSERT STATEMENT"}},
		{`INSERT INTO ups VALUES (1, 2) ON CONFLICT (a) DO NOTHING`,
			[]string{"BEFORE INSERT STATEMENT", "AFTER INSERT STATEMENT"}},
	} {
		log.take()
		exec(t, ctx, c, tc.sql)
		var got []string
		for _, n := range log.take() {
			got = append(got, n.Message)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: notices %q, want %q", tc.sql, got, tc.want)
		}
	}
}
