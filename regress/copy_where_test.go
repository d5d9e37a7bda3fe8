package regress

import (
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestCopyWhere checks COPY FROM ... WHERE and COPY's option and column
// list errors against what PostgreSQL 15 does with the same statements:
// the condition sees the row with its defaults (an explicit NULL stays
// NULL), rows it does not hold for are skipped, and what it may not
// contain fails before any data is read.
func TestCopyWhere(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, `CREATE TABLE cw (a int, b int DEFAULT 7, c text)`)
	copyIn := func(sql, data string) (int64, error) {
		tag, err := c.PgConn().CopyFrom(ctx, strings.NewReader(data), sql)
		return tag.RowsAffected(), err
	}
	if n, err := copyIn(`COPY cw FROM STDIN WHERE a > 1 AND b = 7`, "1\t\\N\tx\n2\t\\N\ty\n3\t5\tz\n"); err != nil || n != 0 {
		t.Fatalf("COPY ... WHERE over explicit NULLs: %d rows, %v; want 0", n, err)
	}
	if n, err := copyIn(`COPY cw (a, c) FROM STDIN WHERE b = 7`, "4\tw\n"); err != nil || n != 1 {
		t.Fatalf("COPY ... WHERE over a default: %d rows, %v; want 1", n, err)
	}
	wantRows(t, ctx, c, "SELECT a, b, c FROM cw ORDER BY a", "4 | 7 | w")
	for _, tc := range []struct{ sql, code, msg string }{
		{`COPY cw FROM STDIN (FORMAT csv, FORMAT csv)`, "42601", "conflicting or redundant options"},
		{`COPY cw FROM STDIN (freeze off, freeze on)`, "42601", "conflicting or redundant options"},
		{`COPY cw (a, c, a) FROM STDIN`, "42701", `column "a" specified more than once`},
		{`COPY cw (a) FROM STDIN (FORMAT csv, FORCE_NOT_NULL (c))`, "42P10", `FORCE_NOT_NULL column "c" not referenced by COPY`},
		{`COPY cw FROM STDIN WHERE d > 1`, "42703", `column "d" does not exist`},
		{`COPY cw FROM STDIN WHERE a = max(b)`, "42803", "aggregate functions are not allowed in COPY FROM WHERE conditions"},
		{`COPY cw FROM STDIN WHERE a IN (SELECT 1)`, "0A000", "cannot use subquery in COPY FROM WHERE condition"},
		{`COPY cw FROM STDIN WHERE a IN (generate_series(1, 5))`, "0A000", "set-returning functions are not allowed in COPY FROM WHERE conditions"},
		{`COPY cw FROM STDIN WHERE a = row_number() OVER (ORDER BY b)`, "42P20", "window functions are not allowed in COPY FROM WHERE conditions"},
	} {
		_, err := copyIn(tc.sql, "")
		wantCopyError(t, tc.sql, err, tc.code, tc.msg)
	}
	exec(t, ctx, c, `CREATE VIEW cwv AS SELECT 1 AS a`)
	_, err := copyIn(`COPY cwv FROM STDIN`, "")
	wantCopyError(t, "COPY cwv FROM STDIN", err, "42809", `cannot copy to view "cwv"`)
}

func wantCopyError(t *testing.T, sql string, err error, code, msg string) {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != code || pe.Message != msg {
		t.Errorf("%s: got %v, want %s %s", sql, err, code, msg)
	}
}
