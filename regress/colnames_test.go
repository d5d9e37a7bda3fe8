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
	names := columnNames(t, ctx, c, `SELECT CASE WHEN true THEN 1 ELSE g END, 'a'::varchar::text, g::int::text,
		tableoid::regclass::text, (CASE WHEN true THEN 1 END)::text, now()::date::text, 1::int
		FROM generate_series(1, 1) g, cn`)
	if got, want := strings.Join(names, " "), "g text g tableoid text now int4"; got != want {
		t.Errorf("column names: got %q, want %q", got, want)
	}
}

// TestFunctionColumnNames checks that a function in FROM whose one column
// is an OUT parameter keeps that name under a table alias, as PostgreSQL
// 15 does (json_array_elements' value), while others take the alias.
func TestFunctionColumnNames(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	names := columnNames(t, ctx, c, `SELECT * FROM json_array_elements('[1]') q, jsonb_array_elements_text('[2]') r, generate_series(1, 1) g, unnest(ARRAY[1]) u`)
	if got, want := strings.Join(names, " "), "value value g u"; got != want {
		t.Errorf("column names: got %q, want %q", got, want)
	}
}
