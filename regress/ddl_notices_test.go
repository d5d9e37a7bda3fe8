package regress

import (
	"strings"
	"testing"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestDDLNotices checks the notices DDL statements send, which logic
// tests do not see: each statement's, as PostgreSQL 15 sends them for
// the same script (severity and message; details aside).
func TestDDLNotices(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c, notices := connectWithNotices(t, ctx, srv)
	defer c.Close(ctx)

	for _, tc := range []struct{ sql, want string }{
		{`CREATE TABLE p (a int CONSTRAINT con1 CHECK (a > 0))`, ``},
		{`CREATE TABLE c (a int CONSTRAINT con1 CHECK (a > 0)) INHERITS (p)`,
			`NOTICE merging column "a" with inherited definition|NOTICE merging constraint "con1" with inherited definition`},
		{`ALTER TABLE c ADD CONSTRAINT con2 CHECK (a < 10)`, ``},
		{`ALTER TABLE p ADD CONSTRAINT con2 CHECK (a < 10)`, `NOTICE merging constraint "con2" with inherited definition`},
		{`CREATE DOMAIN d AS int`, ``},
		{`CREATE TABLE foo (f1 int, f2 d)`, ``},
		{`DROP DOMAIN d CASCADE`, `NOTICE drop cascades to column f2 of table foo`},
		{`CREATE TABLE cwi (a int)`, ``},
		{`CREATE UNIQUE INDEX cwi_a ON cwi (a)`, ``},
		{`ALTER TABLE cwi ADD CONSTRAINT cwi_pk PRIMARY KEY USING INDEX cwi_a`,
			`NOTICE ALTER TABLE / ADD CONSTRAINT USING INDEX will rename index "cwi_a" to "cwi_pk"`},
		{`REINDEX (VERBOSE) TABLE cwi`, `INFO index "cwi_pk" was reindexed`},
		{`CREATE TABLE noix (a int)`, ``},
		{`REINDEX TABLE noix`, `NOTICE table "noix" has no indexes to reindex`},
		{`REINDEX TABLE CONCURRENTLY noix`, `NOTICE table "noix" has no indexes that can be reindexed concurrently`},
		{`CREATE TABLE withtext (a text)`, ``},
		{`REINDEX TABLE withtext`, ``},
		{`REINDEX SCHEMA CONCURRENTLY pg_catalog`, `WARNING cannot reindex system catalogs concurrently, skipping all`},
		{`CREATE FUNCTION plusone9(a int) RETURNS int AS $$ SELECT a + 1 $$ LANGUAGE sql IMMUTABLE`, ``},
		{`CREATE TABLE partitioned9 (a int, b int) PARTITION BY RANGE (a, plusone9(b))`, ``},
		{`DROP FUNCTION plusone9(int) CASCADE`, `NOTICE drop cascades to table partitioned9`},
	} {
		exec(t, ctx, c, tc.sql)
		var got []string
		for _, n := range notices.take() {
			got = append(got, n.Severity+" "+n.Message)
		}
		if s := strings.Join(got, "|"); s != tc.want {
			t.Errorf("%s: notices %q, want %q", tc.sql, s, tc.want)
		}
	}
}
