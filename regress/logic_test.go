package regress

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/prollypg/prollypg/regress/internal/testserver"
)

var (
	rewrite = flag.Bool("rewrite", false, "rewrite the expected results of testdata/*.test from the PostgreSQL at -pg")
	pgDSN   = flag.String("pg", "", "with -rewrite: a real PostgreSQL 15 to take expected results from, e.g. postgres://postgres@127.0.0.1:54399/postgres")
)

// A logic test file is a sequence of records separated by blank lines:
//
//	statement ok
//	SQL
//
//	statement error [pgcode CODE] [message regexp]
//	SQL
//
//	query [rowsort]
//	SQL
//	----
//	expected rows, one a line, values separated by " | ", NULL for NULL
//
// Each file runs against a fresh server. Expected results come from a real
// PostgreSQL 15 (go test ./regress -run TestLogic -rewrite -pg DSN).
type record struct {
	kind    string // "statement" or "query"
	line    int
	errCode string // statement error: the SQLSTATE, "" for any
	errRe   string
	wantErr bool
	rowsort bool
	header  string   // the directive line, as written
	pre     []string // comment lines before the record
	sql     string
	want    []string
}

func parseLogic(path string) ([]*record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []*record
	sc := bufio.NewScanner(f)
	line := 0
	var cur *record
	var comments []string
	inResults := false
	flush := func() {
		if cur != nil {
			cur.sql = strings.TrimSpace(cur.sql)
			recs = append(recs, cur)
		}
		cur, inResults = nil, false
	}
	for sc.Scan() {
		line++
		text := sc.Text()
		switch {
		case cur == nil && text == "":
		case cur == nil && strings.HasPrefix(text, "#"):
			comments = append(comments, text)
		case cur == nil:
			fields := strings.Fields(text)
			cur = &record{kind: fields[0], line: line, header: text, pre: comments}
			comments = nil
			switch {
			case fields[0] == "statement" && len(fields) > 1 && fields[1] == "ok":
			case fields[0] == "statement" && len(fields) > 1 && fields[1] == "error":
				cur.wantErr = true
				rest := fields[2:]
				if len(rest) >= 2 && rest[0] == "pgcode" {
					cur.errCode, rest = rest[1], rest[2:]
				}
				cur.errRe = strings.Join(rest, " ")
			case fields[0] == "query":
				cur.rowsort = slices.Contains(fields[1:], "rowsort")
			default:
				return nil, fmt.Errorf("%s:%d: unknown directive %q", path, line, text)
			}
		case text == "" && (cur.kind == "statement" || inResults):
			flush()
		case cur.kind == "query" && text == "----":
			inResults = true
		case inResults:
			cur.want = append(cur.want, text)
		default:
			cur.sql += text + "\n"
		}
	}
	flush()
	return recs, sc.Err()
}

// runRecord runs one record and returns its rows or error.
func runRecord(ctx context.Context, conn *pgx.Conn, r *record) ([]string, error) {
	if r.kind == "statement" {
		_, err := conn.Exec(ctx, r.sql, pgx.QueryExecModeSimpleProtocol)
		return nil, err
	}
	rows, err := conn.Query(ctx, r.sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, err
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
	if r.rowsort {
		slices.Sort(out)
	}
	return out, rows.Err()
}

func TestLogic(t *testing.T) {
	files, err := filepath.Glob("testdata/*.test")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/*.test files")
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".test"), func(t *testing.T) {
			recs, err := parseLogic(path)
			if err != nil {
				t.Fatal(err)
			}
			ctx := testserver.Context(t)
			var dsn string
			if *rewrite {
				dsn = freshPostgresDB(ctx, t, filepath.Base(path))
			} else {
				// The dictionaries of textsearch_*.test read their
				// files here (PostgreSQL's recording needs them in its
				// $SHAREDIR/tsearch_data).
				tsearch, err := filepath.Abs("testdata/tsearch_data")
				if err != nil {
					t.Fatal(err)
				}
				dsn = testserver.StartOpts(t, testserver.Options{Args: []string{"--tsearch-data", tsearch}}).DSN("postgres")
			}
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			for _, r := range recs {
				got, err := runRecord(ctx, conn, r)
				where := fmt.Sprintf("%s:%d", path, r.line)
				if *rewrite {
					var pe *pgconn.PgError
					switch {
					case r.kind == "query" && err == nil:
						r.want = got
					case (err != nil) != r.wantErr:
						t.Errorf("%s: PostgreSQL says %v for %q", where, err, r.sql)
					case r.wantErr && r.errCode == "" && r.errRe == "" && errors.As(err, &pe):
						// A bare "statement error" learns PostgreSQL's.
						r.header = "statement error pgcode " + pe.Code + " " + regexp.QuoteMeta(pe.Message)
					}
					continue
				}
				if r.wantErr {
					checkError(t, where, r, err)
					continue
				}
				if err != nil {
					t.Errorf("%s: %s\nunexpected error: %v", where, r.sql, err)
					continue
				}
				if r.kind == "query" && !slices.Equal(got, r.want) {
					t.Errorf("%s: %s\ngot:\n%s\nwant:\n%s", where, r.sql, strings.Join(got, "\n"), strings.Join(r.want, "\n"))
				}
			}
			if *rewrite {
				if err := writeLogic(path, recs); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func checkError(t *testing.T, where string, r *record, err error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: %s\nsucceeded, want an error", where, r.sql)
		return
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		t.Errorf("%s: %s\nnot a PostgreSQL error: %v", where, r.sql, err)
		return
	}
	if r.errCode != "" && pe.Code != r.errCode {
		t.Errorf("%s: %s\nSQLSTATE %s (%s), want %s", where, r.sql, pe.Code, pe.Message, r.errCode)
	}
	if r.errRe != "" && !regexp.MustCompile(r.errRe).MatchString(pe.Message) {
		t.Errorf("%s: %s\nmessage %q does not match %q", where, r.sql, pe.Message, r.errRe)
	}
}

// freshPostgresDB creates an empty database on the reference PostgreSQL.
func freshPostgresDB(ctx context.Context, t *testing.T, name string) string {
	if *pgDSN == "" {
		t.Fatal("-rewrite needs -pg")
	}
	admin, err := pgx.Connect(ctx, *pgDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	db := "logic_" + strings.NewReplacer(".", "_", "-", "_").Replace(strings.TrimSuffix(name, ".test"))
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+db); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+db+" TEMPLATE template0"); err != nil {
		t.Fatal(err)
	}
	cfg, err := pgx.ParseConfig(*pgDSN)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Host, cfg.Port, db)
}

// writeLogic rewrites a file from its records, with their current
// expectations.
func writeLogic(path string, recs []*record) error {
	var b strings.Builder
	for i, r := range recs {
		if i > 0 {
			b.WriteString("\n")
		}
		for _, c := range r.pre {
			b.WriteString(c + "\n")
		}
		b.WriteString(r.header + "\n" + r.sql + "\n")
		if r.kind == "query" {
			b.WriteString("----\n")
			for _, w := range r.want {
				b.WriteString(w + "\n")
			}
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
