package regress

import (
	"strings"
	"testing"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestColumnNames checks the names of unnamed result columns against
// PostgreSQL 15's (FigureColname): a cast is named by its innermost
// argument's strong name or else its outermost type, CASE by its ELSE.
func TestColumnNames(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE cn (a int)")
	rows, err := c.Query(ctx, `SELECT CASE WHEN true THEN 1 ELSE g END, 'a'::varchar::text, g::int::text,
		tableoid::regclass::text, (CASE WHEN true THEN 1 END)::text, now()::date::text, 1::int
		FROM generate_series(1, 1) g, cn`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range rows.FieldDescriptions() {
		names = append(names, f.Name)
	}
	rows.Close()
	if got, want := strings.Join(names, " "), "g text g tableoid text now int4"; got != want {
		t.Errorf("column names: got %q, want %q", got, want)
	}
}
