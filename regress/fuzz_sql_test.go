package regress

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// FuzzSQL sends each input to a real server as one simple query, inside a
// transaction block that is rolled back, and fails on what no client
// input may cause: a panic of the engine (which the server turns into the
// statement's XX000 "internal error: ..."; PostgreSQL's own XX000 errors,
// such as float8_accum's on a malformed state array, are answers), a
// dropped connection, a statement that outlives statement_timeout by far,
// or a server that no longer accepts connections.
//
// Its seed corpus, run by every `go test`, calls each built-in function
// of pg_proc, each operator of pg_operator and each cast of pg_cast with
// edge values of its argument types (NULL, zero, the extremes, NaN and
// infinities, empty strings and arrays, the calendar's limits), as the
// server's own catalog lists them: a new function is covered the day it
// is registered. `go test ./regress -run '^$' -fuzz FuzzSQL` then mutates
// those statements.
func FuzzSQL(f *testing.F) {
	ctx := testserver.Context(f)
	srv := testserver.Start(f)
	conn, err := pgconn.Connect(ctx, srv.DSN("postgres"))
	if err != nil {
		f.Fatal(err)
	}
	defer func() { conn.Close(context.Background()) }()
	// The built-in extensions' functions are in pg_proc once installed.
	if _, err := conn.Exec(ctx, `CREATE EXTENSION citext; CREATE EXTENSION hstore; CREATE EXTENSION pg_trgm;
		CREATE EXTENSION pgcrypto; CREATE EXTENSION "uuid-ossp"`).ReadAll(); err != nil {
		f.Fatal(err)
	}
	seeds := fuzzSeeds(f, ctx, conn)
	for _, seed := range seeds {
		f.Add(seed)
	}
	f.Logf("%d seed statements", len(seeds))
	if _, err := conn.Exec(ctx, fuzzSetup).ReadAll(); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		if strings.ContainsRune(sql, 0) {
			return // the protocol's strings cannot hold NUL
		}
		if conn.IsClosed() {
			var err error
			if conn, err = pgconn.Connect(ctx, srv.DSN("postgres")); err != nil {
				t.Fatalf("the server takes no connection after an earlier input: %v", err)
			}
			if _, err := conn.Exec(ctx, fuzzSetup).ReadAll(); err != nil {
				t.Fatal(err)
			}
		}
		qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		_, err := conn.Exec(qctx, "BEGIN; "+sql).ReadAll()
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "XX000" && strings.HasPrefix(pe.Message, "internal error: ") {
			t.Fatalf("%s\n%s (a panic: the server's log has its stack)", sql, pe.Message)
		}
		if conn.IsClosed() {
			t.Fatalf("%s\nthe connection was dropped: %v", sql, err)
		}
		if _, err := conn.Exec(qctx, "ROLLBACK").ReadAll(); err != nil {
			t.Fatalf("%s\nROLLBACK after it: %v", sql, err)
		}
	})
}

// fuzzSetup bounds each input's time, and gives inputs tables to read.
const fuzzSetup = `SET statement_timeout = '1s';
CREATE TABLE IF NOT EXISTS fz (a int PRIMARY KEY, b text, c numeric, d timestamptz, e jsonb, f int[]);
INSERT INTO fz VALUES (1, 'x', 1.5, '2000-01-01', '{"k": [1, null]}', '{1,NULL}'), (2, NULL, NULL, NULL, NULL, NULL)
  ON CONFLICT DO NOTHING`

// fuzzSkipped are the functions the seeds leave out: those that wait,
// end sessions, touch the server's files, or move the repository or the
// session to another branch (dolt_*: their own tests cover them).
var fuzzSkipped = []string{"pg_sleep", "pg_terminate_backend", "pg_cancel_backend", "lo_import", "lo_export",
	"pg_read_file", "pg_read_binary_file", "pg_ls_dir", "pg_stat_file", "dolt_", "pg_advisory_lock",
	"pg_advisory_lock_shared", "pg_advisory_xact_lock", "pg_advisory_xact_lock_shared", "set_config"}

// fuzzEdges are literal values of each type that sit at its edges; a
// type without an entry gets NULL only. The array types' values are
// built from their elements'.
var fuzzEdges = map[string][]string{
	"smallint":                    {"0", "-1", "32767", "-32768"},
	"integer":                     {"0", "-1", "2147483647", "-2147483648"},
	"bigint":                      {"0", "-1", "9223372036854775807", "-9223372036854775808"},
	"numeric":                     {"0", "-1.5", "NaN", "1e-300", "-99999999999999999999999999999.5", "Infinity"},
	"real":                        {"0", "NaN", "Infinity", "-Infinity", "-0", "3.4e38"},
	"double precision":            {"0", "NaN", "Infinity", "-Infinity", "1e308", "5e-324"},
	"text":                        {"", "a", " x ", "ÿ€𝄞", "%_\\", "{}"},
	"character varying":           {"", "a", "ÿ€"},
	"character":                   {"", "a"},
	"name":                        {"", "a"},
	"\"char\"":                    {"", "a"},
	"bytea":                       {`\x`, `\xff00`},
	"boolean":                     {"t", "f"},
	"date":                        {"infinity", "-infinity", "4714-11-24 BC", "5874897-12-31", "2000-02-29"},
	"timestamp without time zone": {"infinity", "-infinity", "4714-11-24 00:00 BC", "294276-12-31 23:59:59", "2000-02-29 12:00"},
	"timestamp with time zone":    {"infinity", "-infinity", "4714-11-24 00:00+00 BC", "294276-12-31 23:59:59+00", "epoch"},
	"time without time zone":      {"24:00", "00:00", "23:59:59.999999"},
	"time with time zone":         {"24:00+15:59", "00:00-15:59"},
	"interval":                    {"0", "-178000000 years", "2147483647 days", "-2147483648 months", "1 microsecond"},
	"json":                        {"{}", "[]", "null", `{"a":[1,{"b":null}]}`, `"x"`},
	"jsonb":                       {"{}", "[]", "null", `{"a":[1,{"b":null}]}`, `"x"`},
	"jsonpath":                    {"$", "$.a[*]", "strict $.**", "$ ? (@ > 1)"},
	"uuid":                        {"00000000-0000-0000-0000-000000000000"},
	"inet":                        {"0.0.0.0/0", "::/0", "255.255.255.255", "::ffff:1.2.3.4/128"},
	"cidr":                        {"0.0.0.0/0", "::/0"},
	"macaddr":                     {"00:00:00:00:00:00", "ff:ff:ff:ff:ff:ff"},
	"bit":                         {"", "1"},
	"bit varying":                 {"", "101"},
	"money":                       {"0", "-92233720368547758.08"},
	"oid":                         {"0", "4294967295"},
	"regclass":                    {"0", "pg_class"},
	"regtype":                     {"0", "integer"},
	"tsvector":                    {"", "a:1 b:2"},
	"tsquery":                     {"a", "!a <-> b"},
	"int4range":                   {"empty", "(,)", "[1,1]"},
	"int8range":                   {"empty", "(,)"},
	"numrange":                    {"empty", "(,)"},
	"daterange":                   {"empty", "(,)"},
	"tsrange":                     {"empty", "(,)"},
	"tstzrange":                   {"empty", "(,)"},
	"point":                       {"(0,0)", "(NaN,Infinity)"},
	"box":                         {"(0,0),(0,0)"},
	"polygon":                     {"((0,0))"},
	"path":                        {"[(0,0)]"},
	"circle":                      {"<(0,0),0>"},
	"line":                        {"{1,0,0}"},
	"lseg":                        {"[(0,0),(0,0)]"},
	"xml":                         {"<a/>", ""},
	"record":                      {"()"},
	"citext":                      {"", "A", "ÿ€", "%_"},
	"hstore":                      {"", `"a"=>"1", "b"=>NULL`, `a=>b, a=>c`},
}

// fuzzPolymorphic are concrete expressions that stand for a polymorphic
// argument type.
var fuzzPolymorphic = map[string][]string{
	"anyelement":            {"1", "'a'::text", "'{}'::int[]"},
	"anycompatible":         {"1", "'a'::text", "1.5"},
	"anynonarray":           {"1", "'a'::text"},
	"anycompatiblenonarray": {"1", "'a'::text"},
	"anyarray":              {"'{}'::int[]", "'{1,NULL}'::int[]", "'{{1,2},{3,4}}'::int[]", "'{a}'::text[]"},
	"anycompatiblearray":    {"'{}'::int[]", "'{1,NULL}'::int[]", "'{{1,2},{3,4}}'::int[]"},
	"anyrange":              {"'empty'::int4range", "'[1,2)'::int4range"},
	"anycompatiblerange":    {"'empty'::int4range", "'[1,2)'::int4range"},
	"anymultirange":         {"'{}'::int4multirange"},
	"anyenum":               {"NULL"},
	"any":                   {"1", "'a'::text", "NULL"},
	"\"any\"":               {"1", "'a'::text", "NULL"},
}

// fuzzArgs returns the expressions the seeds pass for an argument of type
// typ (as format_type prints it): its edge values, typed, and NULL.
func fuzzArgs(typ string) []string {
	if vals, ok := fuzzPolymorphic[typ]; ok {
		return vals
	}
	out := []string{"NULL::" + typ}
	if elem, ok := strings.CutSuffix(typ, "[]"); ok {
		out = append(out, "'{}'::"+typ, "'{NULL}'::"+typ)
		for _, v := range fuzzEdges[elem] {
			out = append(out, quoteLiteral(`{"`+strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v)+`"}`)+"::"+typ)
		}
		return out
	}
	for _, v := range fuzzEdges[typ] {
		out = append(out, quoteLiteral(v)+"::"+typ)
	}
	return out
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// fuzzCombos returns the argument lists of a call with arguments of the
// given types: the i-th list takes the i-th expression of each argument
// (modulo its count), staggered by position so that neighbours differ.
func fuzzCombos(types []string) [][]string {
	args := make([][]string, len(types))
	n := 1
	for i, t := range types {
		args[i] = fuzzArgs(t)
		n = max(n, len(args[i]))
	}
	out := make([][]string, n)
	for k := range out {
		for i := range types {
			out[k] = append(out[k], args[i][(k+i)%len(args[i])])
		}
	}
	return out
}

// fuzzSeeds builds the seed statements from the server's catalog.
func fuzzSeeds(f *testing.F, ctx context.Context, conn *pgconn.PgConn) []string {
	query := func(sql string) [][]string {
		res, err := conn.Exec(ctx, sql).ReadAll()
		if err != nil {
			f.Fatalf("%s: %v", sql, err)
		}
		var rows [][]string
		for _, r := range res[0].Rows {
			row := make([]string, len(r))
			for i, v := range r {
				row[i] = string(v)
			}
			rows = append(rows, row)
		}
		return rows
	}
	var seeds []string
	funcs := query(`SELECT p.proname, p.prokind, p.proretset,
	    coalesce((SELECT string_agg(format_type(t, NULL), ',' ORDER BY o)
	              FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY u(t, o)), '')
	  FROM pg_proc p WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.prokind IN ('f', 'a', 'w')
	  ORDER BY 1, 4`)
next:
	for _, fn := range funcs {
		name, kind, setReturning, argList := fn[0], fn[1], fn[2] == "t", fn[3]
		for _, skip := range fuzzSkipped {
			if name == skip || strings.HasSuffix(skip, "_") && strings.HasPrefix(name, skip) {
				continue next
			}
		}
		var types []string
		if argList != "" {
			types = strings.Split(argList, ",")
		}
		// Each call in the context its kind allows, and an aggregate's
		// first also as a window function over a moving frame.
		for i, args := range fuzzCombos(types) {
			call := fmt.Sprintf("pg_catalog.%s(%s)", quoteIdent(name), strings.Join(args, ", "))
			switch {
			case kind == "w":
				seeds = append(seeds, "SELECT "+call+" OVER (PARTITION BY b ORDER BY a) FROM fz")
			case kind == "a":
				seeds = append(seeds, "SELECT "+call+" FROM fz")
				if i == 0 {
					seeds = append(seeds, "SELECT "+call+" OVER (ORDER BY a ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM fz")
				}
			case setReturning:
				seeds = append(seeds, "SELECT * FROM "+call+" WITH ORDINALITY AS z LIMIT 3")
			default:
				seeds = append(seeds, "SELECT "+call)
			}
		}
	}
	ops := query(`SELECT o.oprname, coalesce(format_type(nullif(o.oprleft, 0), NULL), ''), format_type(o.oprright, NULL)
	  FROM pg_operator o ORDER BY 1, 2, 3`)
	for _, op := range ops {
		types := []string{op[2]}
		if op[1] != "" {
			types = []string{op[1], op[2]}
		}
		for _, args := range fuzzCombos(types) {
			if len(args) == 1 {
				seeds = append(seeds, fmt.Sprintf("SELECT OPERATOR(pg_catalog.%s) %s", op[0], args[0]))
			} else {
				seeds = append(seeds, fmt.Sprintf("SELECT %s OPERATOR(pg_catalog.%s) %s", args[0], op[0], args[1]))
			}
		}
	}
	casts := query(`SELECT format_type(castsource, NULL), format_type(casttarget, NULL) FROM pg_cast ORDER BY 1, 2`)
	for _, c := range casts {
		for _, arg := range fuzzArgs(c[0]) {
			seeds = append(seeds, fmt.Sprintf("SELECT (%s)::%s", arg, c[1]))
		}
	}
	return seeds
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
