package wire_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"github.com/prollypg/prollypg/wire"
	"github.com/prollypg/prollypg/wire/internal/wiretest"
)

// pgxConnect opens a pgx connection; mode sets the default exec mode, and
// context cancellation sends a CancelRequest (not pgx's default of closing
// the socket).
func pgxConnect(t testing.TB, srv *wiretest.Server, mode pgx.QueryExecMode, edit ...func(*pgx.ConnConfig)) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(srv.URL("alice", "db"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = mode
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, CancelRequestDelay: 0, DeadlineDelay: 5 * time.Second}
	}
	for _, f := range edit {
		f(cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// pgxModes are the exec modes the tests run under.
var pgxModes = []pgx.QueryExecMode{
	pgx.QueryExecModeCacheStatement,
	pgx.QueryExecModeCacheDescribe,
	pgx.QueryExecModeDescribeExec,
	pgx.QueryExecModeExec,
	pgx.QueryExecModeSimpleProtocol,
}

func TestPgxQueries(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	for _, mode := range pgxModes {
		t.Run(mode.String(), func(t *testing.T) {
			ctx := context.Background()
			conn := pgxConnect(t, srv, mode)

			var one int
			if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
				t.Fatalf("SELECT 1: %v %v", one, err)
			}

			// Parameters round-trip, in binary where pgx chooses it.
			var i4 int32
			var i8 int64
			var s string
			var b bool
			var null *string
			err := conn.QueryRow(ctx, "SELECT $1::int4, $2::int8, $3::text, $4::bool, $5::text", int32(-7), int64(1)<<40, "it's", true, nil).
				Scan(&i4, &i8, &s, &b, &null)
			if err != nil || i4 != -7 || i8 != 1<<40 || s != "it's" || !b || null != nil {
				t.Fatalf("params: %v %v %q %v %v %v", i4, i8, s, b, null, err)
			}
			if mode != pgx.QueryExecModeSimpleProtocol && mode != pgx.QueryExecModeExec {
				var raw []byte
				if err := conn.QueryRow(ctx, "SELECT $1::bytea", []byte{0, 1, 2, 255}).Scan(&raw); err != nil || !bytes.Equal(raw, []byte{0, 1, 2, 255}) {
					t.Fatalf("bytea: %v %v", raw, err)
				}
			}

			// Streaming many rows.
			rows, err := conn.Query(ctx, "SELECT generate_series(1, 10000)")
			if err != nil {
				t.Fatal(err)
			}
			n, sum := 0, 0
			for rows.Next() {
				var v int
				if err := rows.Scan(&v); err != nil {
					t.Fatal(err)
				}
				n++
				sum += v
			}
			if rows.Err() != nil || n != 10000 || sum != 10000*10001/2 {
				t.Fatalf("series: %d rows, sum %d, %v", n, sum, rows.Err())
			}
			if tag := rows.CommandTag(); tag.String() != "SELECT 10000" {
				t.Fatalf("tag %q", tag)
			}

			// Errors carry every field.
			_, err = conn.Exec(ctx, "SELECT raise('22012', 'division by zero')")
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != "22012" || pgErr.Message != "division by zero" ||
				pgErr.Severity != "ERROR" || pgErr.Detail != "detail of 22012" || pgErr.Hint != "hint of 22012" ||
				pgErr.Position != 8 || pgErr.Routine != "wiretest" {
				t.Fatalf("error: %#v", err)
			}
			_, err = conn.Exec(ctx, "SELEKT 1")
			if !errors.As(err, &pgErr) || pgErr.Code != "42601" || pgErr.Position != 1 {
				t.Fatalf("syntax error: %v", err)
			}
			// The connection is still good.
			if err := conn.QueryRow(ctx, "SELECT 2").Scan(&one); err != nil || one != 2 {
				t.Fatalf("after error: %v %v", one, err)
			}

			// Empty query.
			if _, err := conn.Exec(ctx, ""); err != nil {
				t.Fatalf("empty: %v", err)
			}
		})
	}
}

func TestPgxTextAndBinaryResults(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	conn := pgxConnect(t, srv, pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	for _, f := range []int16{pgx.TextFormatCode, pgx.BinaryFormatCode} {
		rows, err := conn.Query(ctx, "SELECT generate_series(1, 3)", pgx.QueryResultFormats{f})
		if err != nil {
			t.Fatal(err)
		}
		var got []int32
		for rows.Next() {
			if rows.FieldDescriptions()[0].Format != f {
				t.Fatalf("format %d, want %d", rows.FieldDescriptions()[0].Format, f)
			}
			var v int32
			rows.Scan(&v)
			got = append(got, v)
		}
		if rows.Err() != nil || !slices.Equal(got, []int32{1, 2, 3}) {
			t.Fatalf("format %d: %v %v", f, got, rows.Err())
		}
	}
}

func TestPgxPreparedStatements(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	conn := pgxConnect(t, srv, pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	sd, err := conn.Prepare(ctx, "double", "SELECT $1::int8, $1::text")
	if err != nil {
		t.Fatal(err)
	}
	if len(sd.ParamOIDs) != 1 || sd.ParamOIDs[0] != 20 || len(sd.Fields) != 2 {
		t.Fatalf("description: %+v", sd)
	}
	for i := int64(0); i < 5; i++ {
		var a int64
		var b string
		if err := conn.QueryRow(ctx, "double", i).Scan(&a, &b); err != nil || a != i || b != fmt.Sprint(i) {
			t.Fatalf("run %d: %v %q %v", i, a, b, err)
		}
	}
	if _, err := conn.Prepare(ctx, "double", "SELECT $1::int8, $1::text"); err != nil {
		t.Fatalf("pgx re-prepare of the same statement: %v", err)
	}
	if err := conn.Deallocate(ctx, "double"); err != nil {
		t.Fatal(err)
	}
	// Duplicate names at the protocol level.
	pc := conn.PgConn()
	if _, err := pc.Prepare(ctx, "dup", "SELECT 1", nil); err != nil {
		t.Fatal(err)
	}
	_, err = pc.Prepare(ctx, "dup", "SELECT 1", nil)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42P05" {
		t.Fatalf("duplicate: %v", err)
	}
}

func TestPgxTransactionsAndSettings(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	conn := pgxConnect(t, srv, pgx.QueryExecModeCacheStatement, func(c *pgx.ConnConfig) {
		c.RuntimeParams["application_name"] = "wiretest-app"
		c.RuntimeParams["options"] = "-c TimeZone=Asia/Tokyo"
	})
	ctx := context.Background()
	pc := conn.PgConn()
	if got := pc.ParameterStatus("application_name"); got != "wiretest-app" {
		t.Errorf("application_name %q", got)
	}
	if got := pc.ParameterStatus("TimeZone"); got != "Asia/Tokyo" {
		t.Errorf("TimeZone from options %q", got)
	}
	if got := pc.ParameterStatus("server_version"); got != "15.8" {
		t.Errorf("server_version %q", got)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if pc.TxStatus() != 'T' {
		t.Fatalf("status %c after BEGIN", pc.TxStatus())
	}
	if _, err := tx.Exec(ctx, "SELECT raise('40001', 'conflict')"); err == nil {
		t.Fatal("no error")
	}
	if pc.TxStatus() != 'E' {
		t.Fatalf("status %c after error", pc.TxStatus())
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if pc.TxStatus() != 'I' {
		t.Fatalf("status %c after ROLLBACK", pc.TxStatus())
	}
	if _, err := conn.Exec(ctx, "SET TimeZone = 'Europe/Paris'"); err != nil {
		t.Fatal(err)
	}
	if got := pc.ParameterStatus("TimeZone"); got != "Europe/Paris" {
		t.Errorf("TimeZone after SET: %q", got)
	}
	var tz string
	if err := conn.QueryRow(ctx, "SHOW timezone").Scan(&tz); err != nil || tz != "Europe/Paris" {
		t.Errorf("SHOW: %q %v", tz, err)
	}
}

func TestPgxNotices(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	var notices []*pgconn.Notice
	conn := pgxConnect(t, srv, pgx.QueryExecModeCacheStatement, func(c *pgx.ConnConfig) {
		c.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n) }
	})
	var s string
	if err := conn.QueryRow(context.Background(), "SELECT notice('watch out')").Scan(&s); err != nil {
		t.Fatal(err)
	}
	if len(notices) != 1 || notices[0].Message != "watch out" || notices[0].Severity != "NOTICE" ||
		notices[0].Code != "00000" || notices[0].Detail != "notice detail" {
		t.Fatalf("notices: %+v", notices)
	}
}

func TestPgxCancel(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		conn := pgxConnect(t, srv, mode)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		start := time.Now()
		_, err := conn.Exec(ctx, "SELECT pg_sleep(30)")
		cancel()
		if err == nil || time.Since(start) > 5*time.Second {
			t.Fatalf("%v: cancel: %v after %v", mode, err, time.Since(start))
		}
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "57014" || pgErr.Message != "canceling statement due to user request" {
			t.Fatalf("%v: error %#v", mode, err)
		}
		// The session survives the cancel.
		var one int
		if err := conn.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
			t.Fatalf("%v: after cancel: %v", mode, err)
		}
	}
}

func TestPgxBatchSkipsToSync(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	conn := pgxConnect(t, srv, pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	b := &pgx.Batch{}
	b.Queue("SELECT 1")
	b.Queue("SELECT raise('23505', 'dup')")
	b.Queue("SELECT 3")
	br := conn.SendBatch(ctx, b)
	var v int
	if err := br.QueryRow().Scan(&v); err != nil || v != 1 {
		t.Fatalf("first: %v %v", v, err)
	}
	_, err := br.Exec()
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		t.Fatalf("second: %v", err)
	}
	if err := br.QueryRow().Scan(&v); err == nil {
		t.Fatal("third ran after an error in the batch")
	}
	br.Close()
	if err := conn.QueryRow(ctx, "SELECT 4").Scan(&v); err != nil || v != 4 {
		t.Fatalf("after batch: %v %v", v, err)
	}
}

func TestPgxCopy(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	conn := pgxConnect(t, srv, pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "CREATE TABLE people (id int4, name text)"); err != nil {
		t.Fatal(err)
	}
	rows := [][]any{{int32(1), "ann"}, {int32(2), nil}, {int32(3), "tab\there"}}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"people"}, []string{"id", "name"}, pgx.CopyFromRows(rows))
	if err != nil || n != 3 {
		t.Fatalf("CopyFrom: %d %v", n, err)
	}
	want := [][]string{{"1", "ann"}, {"2", "NULL"}, {"3", "tab\there"}}
	if got := srv.Engine.Table("people"); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("table %q", got)
	}
	// And back through SELECT.
	var names []string
	r, err := conn.Query(ctx, "SELECT name FROM people")
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var s *string
		r.Scan(&s)
		if s == nil {
			names = append(names, "NULL")
		} else {
			names = append(names, *s)
		}
	}
	if r.Err() != nil || !slices.Equal(names, []string{"ann", "NULL", "tab\there"}) {
		t.Fatalf("select: %q %v", names, r.Err())
	}

	// Text COPY in and out through pgconn.
	pc := conn.PgConn()
	tag, err := pc.CopyFrom(ctx, strings.NewReader("a\tb\nc\t\\N\n"), "COPY pairs (x, y) FROM STDIN")
	if err != nil || tag.RowsAffected() != 2 {
		t.Fatalf("text CopyFrom: %v %v", tag, err)
	}
	var out bytes.Buffer
	tag, err = pc.CopyTo(ctx, &out, "COPY pairs TO STDOUT")
	if err != nil || tag.String() != "COPY 2" || out.String() != "a\tb\nc\t\\N\n" {
		t.Fatalf("CopyTo: %q %v %v", out.String(), tag, err)
	}
	out.Reset()
	if _, err = pc.CopyTo(ctx, &out, "COPY pairs TO STDOUT WITH (FORMAT csv)"); err != nil || out.String() != "a,b\nc,\n" {
		t.Fatalf("CopyTo csv: %q %v", out.String(), err)
	}
	tag, err = pc.CopyFrom(ctx, strings.NewReader("1,\"x,y\"\n"), "COPY csvt (a, b) FROM STDIN CSV")
	if err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("csv CopyFrom: %v %v", tag, err)
	}
	if got := srv.Engine.Table("csvt"); len(got) != 1 || got[0][1] != "x,y" {
		t.Fatalf("csv table %q", got)
	}

	// A reader that fails makes pgx send CopyFail.
	_, err = pc.CopyFrom(ctx, &failingReader{}, "COPY pairs FROM STDIN")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "57014" || !strings.Contains(pgErr.Message, "COPY from stdin failed") {
		t.Fatalf("CopyFail: %#v", err)
	}
	var v int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&v); err != nil {
		t.Fatalf("after CopyFail: %v", err)
	}
}

// failingReader returns some data, then an error.
type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n > 0 {
		return 0, errors.New("disk on fire")
	}
	r.n++
	return copy(p, "x\ty\n"), nil
}
