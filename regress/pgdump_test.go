package regress

import (
	"bytes"
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// dumpSchema is a database as users dump it: two schemas, serial and
// identity columns, a composite primary key, foreign keys, unique and
// check constraints, partial and expression indexes, a partitioned
// table, views, comments,
// a stand-alone sequence, a text search configuration and dictionary,
// names that need quoting, values that COPY
// must escape, and the version-control tables the user writes (dolt.docs
// in a schema the database has only for them).
const dumpSchema = `
CREATE SCHEMA inv;
COMMENT ON SCHEMA inv IS 'inventory';
CREATE TABLE public.customers (
  id serial PRIMARY KEY,
  email text NOT NULL UNIQUE,
  name varchar(100) DEFAULT 'anon',
  balance numeric(12,2) DEFAULT 0 CHECK (balance >= 0),
  created timestamptz DEFAULT '2020-01-01 00:00:00+00',
  tags text[],
  data jsonb,
  photo bytea
);
COMMENT ON TABLE customers IS 'people who buy';
COMMENT ON COLUMN customers.email IS 'contact';
CREATE TABLE inv.items (
  sku text, warehouse int, qty int NOT NULL DEFAULT 0, price numeric,
  PRIMARY KEY (sku, warehouse)
);
CREATE TABLE inv.orders (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  customer_id int REFERENCES customers(id) ON DELETE CASCADE,
  sku text, warehouse int, note text,
  FOREIGN KEY (sku, warehouse) REFERENCES inv.items(sku, warehouse)
);
CREATE INDEX orders_note_idx ON inv.orders (lower(note));
CREATE INDEX orders_partial ON inv.orders (customer_id) WHERE note IS NOT NULL;
CREATE VIEW inv.big_orders AS
  SELECT o.id, c.email FROM inv.orders o JOIN customers c ON c.id = o.customer_id WHERE o.warehouse > 1;
COMMENT ON VIEW inv.big_orders IS 'orders from the second warehouse on';
CREATE SEQUENCE standalone START 100 INCREMENT 5;
CREATE TABLE "Weird Schema" ("select" int PRIMARY KEY, "Mixed Case" text DEFAULT 'it''s',
  seq int DEFAULT nextval('standalone'), at timestamptz, ratio numeric(10,3),
  CONSTRAINT positive CHECK ("select" > 0));
COMMENT ON CONSTRAINT positive ON "Weird Schema" IS 'no zero';
CREATE TABLE inv.moves (id int, item text, at date, PRIMARY KEY (id, at)) PARTITION BY RANGE (at);
CREATE TABLE inv.moves_2020 PARTITION OF inv.moves FOR VALUES FROM ('2020-01-01') TO ('2021-01-01');
CREATE TABLE inv.moves_2021 PARTITION OF inv.moves FOR VALUES FROM ('2021-01-01') TO ('2022-01-01');
CREATE INDEX moves_item ON inv.moves (item);
INSERT INTO inv.moves VALUES (1, 's1', '2020-02-02'), (2, NULL, '2021-02-02');
CREATE TEXT SEARCH DICTIONARY inv.stems (TEMPLATE = snowball, LANGUAGE = english);
CREATE TEXT SEARCH CONFIGURATION inv.search (COPY = english);
ALTER TEXT SEARCH CONFIGURATION inv.search ALTER MAPPING FOR asciiword WITH inv.stems;
COMMENT ON TEXT SEARCH CONFIGURATION inv.search IS 'item search';
CREATE TYPE inv.mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN inv.posint AS int CHECK (VALUE > 0);
CREATE TABLE inv.feelings (id int PRIMARY KEY, m inv.mood, n inv.posint, touched timestamptz);
CREATE FUNCTION inv.touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.touched := '2000-01-01'; RETURN NEW; END $$;
CREATE TRIGGER feelings_touch BEFORE UPDATE ON inv.feelings FOR EACH ROW EXECUTE FUNCTION inv.touch();
CREATE FUNCTION inv.add1(x int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT x + 1';
INSERT INTO inv.feelings VALUES (1, 'ok', 3, NULL), (2, 'happy', inv.add1(4), NULL);
INSERT INTO customers (email, name, balance, tags, data, photo) VALUES
  ('a@x', 'Ann', 10.5, '{a,b}', '{"k": [1, 2]}', '\x00ff'),
  ('b@x', NULL, 0, '{}', NULL, NULL),
  ('c@x', E'tab\there\nnew "q" \\ back\r', 3, '{"x y",NULL,"\"","back\\slash"}', '"s"', '\x');
INSERT INTO inv.items VALUES ('s1', 1, 5, 1.5), ('s2', 2, 0, NULL), (E'\\.', 3, 1, -0.25);
INSERT INTO inv.orders (customer_id, sku, warehouse, note) VALUES
  (1, 's1', 1, 'Hello'), (3, 's2', 2, NULL), (NULL, NULL, NULL, '');
INSERT INTO dolt.docs VALUES ('README.md', 'read me');
INSERT INTO dolt_ignore VALUES ('tmp_*', true);
INSERT INTO "Weird Schema" ("select", "Mixed Case", at, ratio) VALUES
  (1, DEFAULT, '2021-03-04 05:06:07.123456+00', 1.5), (2, NULL, NULL, NULL), (3, '\N', '1999-12-31 23:59:59+00', -2);
`

// dumpTables are the tables of dumpSchema, each with an ORDER BY.
var dumpTables = map[string]string{
	"public.customers":        "id",
	"inv.items":               "sku, warehouse",
	"inv.orders":              "id",
	`public."Weird Schema"`:   `"select"`,
	"inv.moves_2020":          "id",
	"inv.moves_2021":          "id",
	"inv.feelings":            "id",
	"public.customers_id_seq": "1",
	"inv.orders_id_seq":       "1",
	"public.standalone":       "1",
	"dolt.docs":               "doc_name",
	"public.dolt_ignore":      "pattern",
}

// TestPgDump dumps a database with PostgreSQL 15's pg_dump, loads the
// script into a fresh server with psql, and compares the two: every
// table's rows and content hash, the sequences, and the statements the
// script holds. Its custom format goes through pg_restore too, and a
// branch dumps as the database "db@branch".
func TestPgDump(t *testing.T) {
	pgDump, psql := pgTool(t, "pg_dump"), pgTool(t, "psql")
	ctx := testserver.Context(t)
	src := testserver.Start(t)
	c := connect(t, ctx, src.DSN("postgres"))
	exec(t, ctx, c, dumpSchema)

	script := runTool(t, pgDump, "-h", src.Host, "-p", strconv.Itoa(src.Port), "-U", "postgres", "postgres")
	for _, want := range []string{
		"CREATE SCHEMA inv;",
		"COMMENT ON SCHEMA inv IS 'inventory';",
		"CREATE TABLE public.customers (",
		"    email text NOT NULL,",
		"    balance numeric(12,2) DEFAULT 0,",
		"CONSTRAINT customers_balance_check CHECK ((balance >= (0)::numeric))",
		"CREATE SEQUENCE public.customers_id_seq",
		"ALTER SEQUENCE public.customers_id_seq OWNED BY public.customers.id;",
		"ALTER TABLE ONLY public.customers ALTER COLUMN id SET DEFAULT nextval('public.customers_id_seq'::regclass);",
		"ALTER TABLE inv.orders ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (",
		"    seq integer DEFAULT nextval('public.standalone'::regclass),",
		"ADD CONSTRAINT items_pkey PRIMARY KEY (sku, warehouse);",
		"ADD CONSTRAINT customers_email_key UNIQUE (email);",
		"ADD CONSTRAINT orders_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES public.customers(id) ON DELETE CASCADE;",
		"ADD CONSTRAINT orders_sku_warehouse_fkey FOREIGN KEY (sku, warehouse) REFERENCES inv.items(sku, warehouse);",
		"CREATE INDEX orders_note_idx ON inv.orders USING btree (lower(note));",
		"CREATE INDEX orders_partial ON inv.orders USING btree (customer_id) WHERE (note IS NOT NULL);",
		"CREATE VIEW inv.big_orders AS",
		"JOIN public.customers c",
		"COMMENT ON VIEW inv.big_orders IS 'orders from the second warehouse on';",
		"COMMENT ON COLUMN public.customers.email IS 'contact';",
		`COMMENT ON CONSTRAINT positive ON public."Weird Schema" IS 'no zero';`,
		"COPY public.customers (id, email, name, balance, created, tags, data, photo) FROM stdin;",
		"COPY inv.items (sku, warehouse, qty, price) FROM stdin;",
		"ALTER TABLE ONLY inv.moves ATTACH PARTITION inv.moves_2020 FOR VALUES FROM ('2020-01-01') TO ('2021-01-01');",
		"CREATE INDEX moves_item ON ONLY inv.moves USING btree (item);",
		"CREATE TYPE inv.mood AS ENUM (",
		"CREATE DOMAIN inv.posint AS integer",
		"CREATE FUNCTION inv.touch() RETURNS trigger",
		"CREATE TRIGGER feelings_touch BEFORE UPDATE ON inv.feelings FOR EACH ROW EXECUTE FUNCTION inv.touch();",
		"ALTER INDEX inv.moves_item ATTACH PARTITION inv.moves_2020_item_idx;",
		"ALTER INDEX inv.moves_pkey ATTACH PARTITION inv.moves_2021_pkey;",
		"SELECT pg_catalog.setval('public.customers_id_seq', 3, true);",
		"SELECT pg_catalog.setval('public.standalone', 110, true);",
		"CREATE TEXT SEARCH DICTIONARY inv.stems (",
		"CREATE TEXT SEARCH CONFIGURATION inv.search (",
		"    ADD MAPPING FOR asciiword WITH inv.stems;",
		"COMMENT ON TEXT SEARCH CONFIGURATION inv.search IS 'item search';",
		"CREATE SCHEMA dolt;",
		"CREATE TABLE dolt.docs (",
		"COPY public.dolt_ignore (pattern, ignored) FROM stdin;",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("the dump lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(script)
	}
	// The public schema keeps initdb's comment and privileges: nothing
	// to restore.
	for _, unwanted := range []string{"COMMENT ON SCHEMA public", "REVOKE"} {
		if strings.Contains(script, unwanted) {
			t.Errorf("the dump has %q", unwanted)
		}
	}

	dst := testserver.Start(t)
	file := filepath.Join(t.TempDir(), "dump.sql")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	runTool(t, psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", dst.Host, "-p", strconv.Itoa(dst.Port), "-U", "postgres", "-f", file, "postgres")
	d := connect(t, ctx, dst.DSN("postgres"))
	sameContents(t, ctx, c, d)
	// The sequences continue where they were.
	for _, conn := range []*pgx.Conn{c, d} {
		wantRows(t, ctx, conn, "INSERT INTO customers (email) VALUES ('d@x') RETURNING id", "4")
		wantRows(t, ctx, conn, "INSERT INTO inv.orders (note) VALUES ('next') RETURNING id", "4")
	}

	// The custom format, restored by pg_restore into a new database.
	archive := filepath.Join(t.TempDir(), "dump.custom")
	runTool(t, pgDump, "-Fc", "-f", archive, "-h", src.Host, "-p", strconv.Itoa(src.Port), "-U", "postgres", "postgres")
	exec(t, ctx, d, "CREATE DATABASE restored")
	runTool(t, pgTool(t, "pg_restore"), "--exit-on-error", "-h", dst.Host, "-p", strconv.Itoa(dst.Port), "-U", "postgres", "-d", "restored", archive)
	sameContents(t, ctx, c, connect(t, ctx, dst.DSN("restored")))

	// A branch is a database of its own name.
	for _, sql := range []string{
		"SELECT dolt_commit('-Am', 'dumped')",
		"SELECT dolt_branch('old')",
		"DELETE FROM inv.orders",
		"SELECT dolt_commit('-Am', 'emptied')",
	} {
		exec(t, ctx, c, sql)
	}
	old := runTool(t, pgDump, "--data-only", "-t", "inv.orders", "-h", src.Host, "-p", strconv.Itoa(src.Port), "-U", "postgres", "postgres@old")
	if !strings.Contains(old, "1\t1\ts1\t1\tHello\n") {
		t.Errorf("the dump of branch old lacks its orders:\n%s", old)
	}
	if strings.Contains(old, "customers") {
		t.Errorf("-t inv.orders dumped other tables:\n%s", old)
	}
}

// sameContents compares the tables of dumpSchema in two databases: rows
// and content hashes.
func sameContents(t *testing.T, ctx context.Context, a, b *pgx.Conn) {
	t.Helper()
	for table, order := range dumpTables {
		sql := "SELECT * FROM " + table + " ORDER BY " + order
		if got, want := textRows(t, ctx, b, sql), textRows(t, ctx, a, sql); !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", sql, got, want)
		}
		if strings.HasSuffix(table, "_seq") || strings.HasSuffix(table, "standalone") {
			continue
		}
		sql = "SELECT dolt_hashof_table('" + strings.ReplaceAll(table, "'", "''") + "')"
		if got, want := one(t, ctx, b, sql), one(t, ctx, a, sql); got != want {
			t.Errorf("%s: %s, want %s", sql, got, want)
		}
	}
}

// pgTool finds a PostgreSQL client program, PostgreSQL 15's first; the
// test is skipped without it.
// TestLargeObjectsThroughLibpq: libpq's large object functions, which
// call the server through the protocol's fastpath (FunctionCall), work
// with psql's \lo_import and \lo_export, and pg_dump and pg_restore carry
// large objects with their owner and bytes. A role that may not read a
// table dumps the tables it may read.
func TestLargeObjectsThroughLibpq(t *testing.T) {
	pgDump, psql := pgTool(t, "pg_dump"), pgTool(t, "psql")
	ctx := testserver.Context(t)
	dataDir := t.TempDir()
	srv := testserver.StartDir(t, dataDir)
	host, port := srv.Host, strconv.Itoa(srv.Port)
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.bin"), filepath.Join(dir, "out.bin")
	data := bytes.Repeat([]byte("large object \x00\xff "), 5000) // past one read of pg_dump's
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	runTool(t, psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", port, "-U", "postgres", "-c", "\\lo_import "+in+" 'imported'", "postgres")
	c := connect(t, ctx, srv.DSN("postgres"))
	var oid uint32
	if err := c.QueryRow(ctx, "SELECT oid FROM pg_largeobject_metadata").Scan(&oid); err != nil {
		t.Fatal(err)
	}
	// Its pages are reached from the root value: a garbage collection
	// keeps them, and they are on disk when the server is killed.
	exec(t, ctx, c, "SELECT dolt_gc()")
	c.Close(ctx)
	srv.Kill()
	srv = testserver.StartDir(t, dataDir)
	host, port = srv.Host, strconv.Itoa(srv.Port)
	c = connect(t, ctx, srv.DSN("postgres"))
	runTool(t, psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", port, "-U", "postgres", "-c", fmt.Sprintf("\\lo_export %d %s", oid, out), "postgres")
	if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("\\lo_export gave %d bytes (%v), want the %d imported", len(got), err, len(data))
	}

	archive := filepath.Join(dir, "dump.custom")
	runTool(t, pgDump, "-Fc", "-f", archive, "-h", host, "-p", port, "-U", "postgres", "postgres")
	exec(t, ctx, c, "CREATE DATABASE restored")
	runTool(t, pgTool(t, "pg_restore"), "--exit-on-error", "-h", host, "-p", port, "-U", "postgres", "-d", "restored", archive)
	var got []byte
	if err := connect(t, ctx, srv.DSN("restored")).QueryRow(ctx, "SELECT lo_get($1)", oid).Scan(&got); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("restored large object: %d bytes (%v), want %d", len(got), err, len(data))
	}

	exec(t, ctx, c, "CREATE TABLE visible (a int)")
	exec(t, ctx, c, "INSERT INTO visible VALUES (7)")
	exec(t, ctx, c, "CREATE TABLE hidden (a int)")
	exec(t, ctx, c, "CREATE ROLE reader LOGIN")
	exec(t, ctx, c, "GRANT SELECT ON visible TO reader")
	script := runTool(t, pgDump, "-t", "public.visible", "-h", host, "-p", port, "-U", "reader", "postgres")
	if !strings.Contains(script, "COPY public.visible (a) FROM stdin;\n7\n") {
		t.Errorf("reader's dump of visible:\n%s", script)
	}
}

func pgTool(t *testing.T, name string) string {
	t.Helper()
	if p := filepath.Join("/usr/lib/postgresql/15/bin", name); fileExists(p) {
		return p
	}
	p, err := osexec.LookPath(name)
	if err != nil {
		t.Skipf("%s not installed", name)
	}
	return p
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// runTool runs a program and returns its standard output; it fails the test
// with the program's standard error if the program fails.
func runTool(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := osexec.Command(name, args...)
	cmd.Env = append(os.Environ(), "PGCLIENTENCODING=UTF8", "PGCONNECT_TIMEOUT=10")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}
