package regress

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestCopyForceOptions checks COPY's CSV FORCE options against what
// PostgreSQL 15 does with the same data (copy2.sql's cases): FORCE_QUOTE
// quotes every non-NULL value of its columns, FORCE_NOT_NULL reads an
// unquoted null string as an empty string, FORCE_NULL a quoted one as
// NULL; and a row COPY FROM cannot insert names its line in CONTEXT.
func TestCopyForceOptions(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, `CREATE TABLE cf_y (col1 text, col2 text)`)
	exec(t, ctx, c, `INSERT INTO cf_y VALUES ('Jackson, Sam', E'\\h'), ('It is "perfect".', E'\t'), ('', NULL)`)
	for sql, want := range map[string]string{
		`COPY cf_y TO STDOUT WITH CSV FORCE QUOTE col2 ESCAPE E'\\'`:             "\"Jackson, Sam\",\"\\\\h\"\n\"It is \\\"perfect\\\".\",\"\t\"\n\"\",\n",
		`COPY cf_y TO STDOUT (FORMAT CSV, FORCE_QUOTE *)`:                        "\"Jackson, Sam\",\"\\h\"\n\"It is \"\"perfect\"\".\",\"\t\"\n\"\",\n",
		`COPY (SELECT 1 AS a, 'x' AS b) TO STDOUT (FORMAT CSV, FORCE_QUOTE (b))`: "1,\"x\"\n",
	} {
		var out bytes.Buffer
		if _, err := c.PgConn().CopyTo(ctx, &out, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if out.String() != want {
			t.Errorf("%s:\n got %q\nwant %q", sql, out.String(), want)
		}
	}

	exec(t, ctx, c, `CREATE TABLE cf_force (a int NOT NULL, b text NOT NULL, c text, d text)`)
	copyIn := func(sql, data string) error {
		_, err := c.PgConn().CopyFrom(ctx, strings.NewReader(data), sql)
		return err
	}
	if err := copyIn(`COPY cf_force (a, b, c) FROM STDIN (FORMAT csv, FORCE_NOT_NULL (b), FORCE_NULL (c))`, "1,,\"\"\n"); err != nil {
		t.Fatal(err)
	}
	if err := copyIn(`COPY cf_force (a, b, c, d) FROM STDIN (FORMAT csv, FORCE_NOT_NULL (c, d), FORCE_NULL (c, d))`, "2,'a',,\"\"\n"); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := c.QueryRow(ctx, `SELECT string_agg(format('%s|%s|%s', b, coalesce(c, 'NULL'), coalesce(d, 'NULL')), ';' ORDER BY a) FROM cf_force`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if want := "|NULL|NULL;'a'||NULL"; got != want {
		t.Errorf("rows: got %q, want %q", got, want)
	}

	for _, tc := range []struct{ sql, data, code, msg, where string }{
		{`COPY cf_force (a, b, c) FROM STDIN (FORMAT csv, FORCE_NULL (b))`, "3,\"\",\"\"\n", "23502",
			`null value in column "b" of relation "cf_force" violates not-null constraint`, `COPY cf_force, line 1: "3,"","""`},
		{`COPY cf_force (a, b) FROM STDIN`, "x\ty\n", "22P02", `invalid input syntax for type integer: "x"`, `COPY cf_force, line 1, column a: "x"`},
		{`COPY cf_y FROM STDIN (FORMAT CSV, FORCE_QUOTE (col2))`, "", "0A000", "COPY force quote only available using COPY TO", ""},
		{`COPY cf_y FROM STDIN (FORCE_NOT_NULL (col2))`, "", "0A000", "COPY force not null available only in CSV mode", ""},
		{`COPY cf_y FROM STDIN (FORMAT CSV, FORCE_NOT_NULL (nope))`, "", "42703", `column "nope" of relation "cf_y" does not exist`, ""},
		{`COPY cf_y FROM STDIN (FORMAT CSV, FORCE_NULL (col1), FORCE_NULL (col2))`, "", "42601", "conflicting or redundant options", ""},
	} {
		err := copyIn(tc.sql, tc.data)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != tc.code || pe.Message != tc.msg || pe.Where != tc.where {
			t.Errorf("%s: got %v (where %q), want %s %s (where %q)", tc.sql, err, whereOf(pe), tc.code, tc.msg, tc.where)
		}
	}
	var out bytes.Buffer
	_, err := c.PgConn().CopyTo(ctx, &out, `COPY cf_y TO STDOUT (FORCE_QUOTE (col2))`)
	if pe := (*pgconn.PgError)(nil); !errors.As(err, &pe) || pe.Code != "0A000" {
		t.Errorf("FORCE_QUOTE in text format: got %v, want 0A000", err)
	}
}

func whereOf(pe *pgconn.PgError) string {
	if pe == nil {
		return ""
	}
	return pe.Where
}
