package regress

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestErrorPositions checks where errors point, as PostgreSQL 15 reports
// them (positions taken from it): CREATE TABLE's errors point into the
// statement; ALTER TABLE's and renames' do not, since PostgreSQL runs them
// without the statement's text, except a partition bound's.
func TestErrorPositions(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	for _, sql := range []string{
		`CREATE TABLE pa (a int)`,
		`CREATE TABLE lp (a int) PARTITION BY LIST (a)`,
		`CREATE TABLE lp1 PARTITION OF lp FOR VALUES IN (1)`,
		`CREATE TABLE lpd PARTITION OF lp DEFAULT`,
		`CREATE TABLE rp (a int) PARTITION BY RANGE (a)`,
		`CREATE TABLE rp1 PARTITION OF rp FOR VALUES FROM (1) TO (10)`,
		`CREATE TABLE lp2 (a int)`,
		`CREATE TABLE ch (c char(1), v varchar(2), n numeric(3,1), arr char(2)[])`,
	} {
		exec(t, ctx, c, sql)
	}
	for _, tc := range []struct {
		sql      string
		code     string
		position int32
	}{
		{`CREATE TABLE pb (a int, UNIQUE (b))`, "42703", 25},
		{`ALTER TABLE pa ADD CONSTRAINT x UNIQUE (b)`, "42703", 0},
		{`ALTER TABLE pa ADD PRIMARY KEY (b)`, "42703", 0},
		{`ALTER TABLE pa ADD COLUMN a int`, "42701", 0},
		{`ALTER TABLE nonexist ADD COLUMN b int`, "42P01", 0},
		{`ALTER TABLE pa RENAME COLUMN nonexist TO b`, "42703", 0},
		{`ALTER TABLE pg_class DROP COLUMN relname`, "42501", 0},
		{`CREATE TABLE lp1b PARTITION OF lp FOR VALUES IN (2, 1)`, "42P17", 53},
		{`CREATE TABLE lpd2 PARTITION OF lp DEFAULT`, "42P17", 35},
		{`CREATE TABLE rp2 PARTITION OF rp FOR VALUES FROM (5) TO (15)`, "42P17", 51},
		{`ALTER TABLE lp ATTACH PARTITION lp2 FOR VALUES IN (1)`, "42P17", 52},
		// A string literal's input is reported where it is; a length or
		// precision applied after it, a number's conversion and a planner
		// error are not (positions from PostgreSQL 15).
		{`INSERT INTO pa VALUES ('x')`, "22P02", 24},
		{`INSERT INTO pa (a) VALUES (1), ('12.5')`, "22P02", 33},
		{`INSERT INTO pa VALUES (10000000000)`, "22003", 0},
		{`INSERT INTO ch (c) VALUES ('ab')`, "22001", 0},
		{`INSERT INTO ch (v) VALUES ('abc')`, "22001", 0},
		{`INSERT INTO ch (n) VALUES ('123.4')`, "22003", 0},
		{`INSERT INTO ch (arr) VALUES ('{abc}')`, "22001", 0},
		{`INSERT INTO pa VALUES (1) ON CONFLICT (a) DO NOTHING`, "42P10", 0},
		{`SELECT 'x'::int`, "22P02", 8},
		{`SELECT '2147483647'::float4::int4`, "22003", 0},
		{`SELECT 'Infinity'::numeric::int2`, "0A000", 0},
		{`WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM x, x AS y) SELECT * FROM x`, "42P19", 65},
		{`WITH RECURSIVE x(n) AS (SELECT n FROM x UNION ALL SELECT 1) SELECT * FROM x`, "42P19", 39},
		{`WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT count(*) FROM x) SELECT * FROM x`, "42P19", 51},
		{`WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM x ORDER BY 1) SELECT * FROM x`, "0A000", 71},
		{`WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM x LIMIT 10 OFFSET 1) SELECT * FROM x`, "0A000", 78},
		{`WITH RECURSIVE foo(i) AS (SELECT i::numeric(3,0) FROM (VALUES(1),(2)) t(i) UNION ALL SELECT (i+1)::numeric(10,0) FROM foo WHERE i < 10) SELECT * FROM foo`, "42804", 34},
		{`INSERT INTO ch (c) VALUES (DEFAULT, DEFAULT)`, "42601", 37},
		{`INSERT INTO ch (c) SELECT 1, 2`, "42601", 30},
		{`INSERT INTO ch (c, v) SELECT 'a'`, "42601", 20},
	} {
		_, err := c.Exec(ctx, tc.sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			t.Errorf("%s: %v, want an error", tc.sql, err)
			continue
		}
		if pe.Code != tc.code || pe.Position != tc.position {
			t.Errorf("%s: %s %q at %d, want %s at %d", tc.sql, pe.Code, pe.Message, pe.Position, tc.code, tc.position)
		}
	}
}
