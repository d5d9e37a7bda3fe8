package regress

import (
	"testing"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestZeroColumnRows checks that a query of no columns (SELECT FROM t,
// or * of a table whose columns are all dropped) answers with a
// RowDescription of no fields and a DataRow of no values per row, as
// PostgreSQL does, in both protocols.
func TestZeroColumnRows(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c, _ := connectWithNotices(t, ctx, srv)
	defer c.Close(ctx)
	exec(t, ctx, c, `CREATE TABLE z (a int, b int)`)
	exec(t, ctx, c, `INSERT INTO z VALUES (1, 2), (3, 4)`)
	exec(t, ctx, c, `ALTER TABLE z DROP a`)
	exec(t, ctx, c, `ALTER TABLE z DROP b`)
	for _, q := range []string{`SELECT FROM z`, `SELECT * FROM z`} {
		res, err := c.PgConn().Exec(ctx, q).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if len(res) != 1 || len(res[0].FieldDescriptions) != 0 || len(res[0].Rows) != 2 || res[0].CommandTag.String() != "SELECT 2" {
			t.Errorf("%s (simple): %d results, want one of 2 rows of no fields", q, len(res))
		}
		rows, err := c.Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		if err := rows.Err(); err != nil || n != 2 {
			t.Errorf("%s (extended): %d rows, %v; want 2", q, n, err)
		}
	}
}
