package regress

import (
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestCopyFromDomains checks that COPY FROM holds a domain column's
// values to the domain's constraints, as an INSERT does.
func TestCopyFromDomains(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, `CREATE DOMAIN cd_pos int NOT NULL CHECK (VALUE > 0)`)
	exec(t, ctx, c, `CREATE TABLE cd_t (a int, b cd_pos)`)
	if _, err := c.PgConn().CopyFrom(ctx, strings.NewReader("1\t5\n"), "COPY cd_t FROM STDIN"); err != nil {
		t.Fatal(err)
	}
	for data, code := range map[string]string{"2\t\\N\n": "23502", "3\t-1\n": "23514"} {
		_, err := c.PgConn().CopyFrom(ctx, strings.NewReader(data), "COPY cd_t FROM STDIN")
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != code {
			t.Errorf("COPY of %q: got %v, want %s", data, err, code)
		}
	}
	var n int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM cd_t`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("rows: %d, %v", n, err)
	}
}
