package wire_test

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/prollypg/prollypg/wire"
	"github.com/prollypg/prollypg/wire/internal/wiretest"
)

// pqOpen opens a database/sql pool through lib/pq.
func pqOpen(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestPq(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	db := pqOpen(t, srv.URL("bob", "db"))
	db.SetMaxOpenConns(2)
	ctx := context.Background()

	var i int
	var s string
	if err := db.QueryRow("SELECT $1::int4, $2::text", 5, "x").Scan(&i, &s); err != nil || i != 5 || s != "x" {
		t.Fatalf("params: %v %q %v", i, s, err)
	}
	rows, err := db.Query("SELECT generate_series(1, 100)")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	if rows.Err() != nil || n != 100 {
		t.Fatalf("rows: %d %v", n, rows.Err())
	}

	stmt, err := db.Prepare("SELECT $1::int8")
	if err != nil {
		t.Fatal(err)
	}
	for k := int64(0); k < 3; k++ {
		var v int64
		if err := stmt.QueryRow(k * 1000).Scan(&v); err != nil || v != k*1000 {
			t.Fatalf("prepared: %v %v", v, err)
		}
	}
	stmt.Close()

	_, err = db.Exec("SELECT raise('22012', 'boom')")
	var pqErr *pq.Error
	if !errors.As(err, &pqErr) || pqErr.Code != "22012" || pqErr.Message != "boom" || pqErr.Detail != "detail of 22012" {
		t.Fatalf("error: %#v", err)
	}
	// Several statements in one simple query.
	if _, err := db.Exec("SET application_name = 'pq'; SELECT 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(""); err != nil {
		t.Fatalf("empty: %v", err)
	}

	// Cancellation: lib/pq sends a CancelRequest when the context ends.
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_, err = db.ExecContext(cctx, "SELECT pg_sleep(30)")
	cancel()
	if !errors.As(err, &pqErr) || pqErr.Code != "57014" {
		// lib/pq may report the context error instead; the session must
		// still have been cancelled rather than left sleeping.
		t.Logf("lib/pq reported %v", err)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("cancel: %#v", err)
		}
	}
	if err := db.QueryRow("SELECT 7").Scan(&i); err != nil || i != 7 {
		t.Fatalf("after cancel: %v %v", i, err)
	}
}

func TestPqCopyIn(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	db := pqOpen(t, srv.URL("bob", "db"))
	txn, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	stmt, err := txn.Prepare(pq.CopyIn("pqt", "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range [][]any{{1, "x"}, {2, nil}, {3, "tab\tand\nnewline"}} {
		if _, err := stmt.Exec(r...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := stmt.Exec(); err != nil {
		t.Fatal(err)
	}
	if err := stmt.Close(); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	// The engine stores fields as sent (COPY text escapes included).
	want := [][]string{{"1", "x"}, {"2", "NULL"}, {"3", `tab\tand\nnewline`}}
	if got := srv.Engine.Table("pqt"); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("table %q", got)
	}
}
