package regress

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Helpers of the tests that check query results over the wire.

// textRows runs sql with the simple protocol and returns its rows as
// text, values separated by " | ", NULL as NULL.
func textRows(t *testing.T, ctx context.Context, c *pgx.Conn, sql string, args ...any) []string {
	t.Helper()
	rows, err := c.Query(ctx, sql, append([]any{pgx.QueryExecModeSimpleProtocol}, args...)...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var vals []string
		for _, v := range rows.RawValues() {
			if v == nil {
				vals = append(vals, "NULL")
			} else {
				vals = append(vals, string(v))
			}
		}
		out = append(out, strings.Join(vals, " | "))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// one returns the single value sql gives.
func one(t *testing.T, ctx context.Context, c *pgx.Conn, sql string, args ...any) string {
	t.Helper()
	rows := textRows(t, ctx, c, sql, args...)
	if len(rows) != 1 {
		t.Fatalf("%s: %d rows, want 1", sql, len(rows))
	}
	return rows[0]
}

// wantRows checks the rows sql gives, as textRows gives them.
func wantRows(t *testing.T, ctx context.Context, c *pgx.Conn, sql string, want ...string) {
	t.Helper()
	if got := textRows(t, ctx, c, sql); !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", sql, got, want)
	}
}

// wantError checks that sql fails with SQLSTATE code.
func wantError(t *testing.T, ctx context.Context, c *pgx.Conn, code, sql string, args ...any) {
	t.Helper()
	rows, err := c.Query(ctx, sql, args...)
	if err == nil {
		for rows.Next() {
		}
		rows.Close()
		err = rows.Err()
	}
	if got := sqlstate(err); got != code {
		t.Errorf("%s: error %v (SQLSTATE %q), want SQLSTATE %s", sql, err, got, code)
	}
}

// columnNames returns the names of the columns sql gives.
func columnNames(t *testing.T, ctx context.Context, c *pgx.Conn, sql string) []string {
	t.Helper()
	rows, err := c.Query(ctx, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var names []string
	for _, f := range rows.FieldDescriptions() {
		names = append(names, f.Name)
	}
	return names
}

// status runs a dolt_* function and returns its text[] result, read in
// text format.
func status(t *testing.T, ctx context.Context, c *pgx.Conn, sql string, args ...any) []string {
	t.Helper()
	args = append([]any{pgx.QueryResultFormats{pgx.TextFormatCode}}, args...)
	rows, err := c.Query(ctx, sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatalf("%s: no row (%v)", sql, rows.Err())
	}
	raw := rows.RawValues()
	if len(raw) != 1 {
		t.Fatalf("%s: %d columns", sql, len(raw))
	}
	v := string(raw[0])
	if len(v) < 2 || v[0] != '(' || v[len(v)-1] != ')' {
		return []string{v}
	}
	return recordFields(v[1 : len(v)-1])
}

// recordFields splits the text form of a record, without its parentheses,
// into its fields (quoted fields unquoted; an empty unquoted field is
// NULL, returned as "").
func recordFields(s string) []string {
	var fields []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quoted && ch == '"' && i+1 < len(s) && s[i+1] == '"':
			cur.WriteByte('"')
			i++
		case ch == '"':
			quoted = !quoted
		case quoted && ch == '\\' && i+1 < len(s):
			cur.WriteByte(s[i+1])
			i++
		case !quoted && ch == ',':
			fields = append(fields, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(ch)
		}
	}
	return append(fields, cur.String())
}
