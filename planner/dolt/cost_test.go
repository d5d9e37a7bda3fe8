package dolt_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/prollypg/prollypg/planner/internal/enginetest"
	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/prolly/sortkey"
	"github.com/prollypg/prollypg/prolly/tuple"
	"github.com/prollypg/prollypg/versioning"
)

// bigRows is the size of the table the cost tests diff.
const bigRows = 1_000_000

// openBig returns a database whose last two commits hold a table big
// (id int8 PRIMARY KEY, v int8) of bigRows rows that differ in ten rows.
// The rows are built through the prolly API, which takes a fraction of
// the time INSERT would; the ten changes are an UPDATE.
func openBig(tb testing.TB) *enginetest.DB {
	tb.Helper()
	ctx := context.Background()
	db := enginetest.Open(tb)
	db.Exec("CREATE TABLE big (id int8 PRIMARY KEY, v int8)")
	repo, err := versioning.OpenDatabase(ctx, db.Store, "postgres")
	if err != nil {
		tb.Fatal(err)
	}
	b := prolly.NewBuilder(db.Store)
	var key []byte
	var tu tuple.Builder
	for i := int64(1); i <= bigRows; i++ {
		tu.Reset()
		tu.AppendInt64(i)
		tu.AppendInt64(i)
		key = sortkey.AppendInt64(key[:0], i, sortkey.Asc)
		if err := b.Add(ctx, key, tu.Build()); err != nil {
			tb.Fatal(err)
		}
	}
	rows, err := b.Finish(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	err = repo.UpdateWorkingRoots(ctx, "main", func(_, _, working versioning.RootValue, ws *versioning.WorkingSet) (*versioning.WorkingSet, error) {
		t, _, err := working.Table(ctx, "public", "big")
		if err != nil {
			return nil, err
		}
		t.Rows = rows.Root()
		w, err := working.PutTable(ctx, t)
		nws := *ws
		nws.Working = w.Addr()
		return &nws, err
	})
	if err != nil {
		tb.Fatal(err)
	}
	db.Exec("SELECT dolt_commit('-Am', 'a million rows')")
	if got := db.Exec("SELECT count(*) FROM big"); got[0] != fmt.Sprint(bigRows) {
		tb.Fatalf("big has %v rows", got)
	}
	db.Exec("UPDATE big SET v = -v WHERE id IN (1, 99999, 200000, 300001, 400000, 500000, 600000, 700000, 800000, 999999)")
	db.Exec("SELECT dolt_commit('-am', 'ten rows')")
	return db
}

const (
	bigDiff = "SELECT count(*) FROM dolt_diff('HEAD~', 'HEAD', 'big')"
	// A scan of every row: count(*) alone reads the tree's counts.
	bigScan = "SELECT count(*) FROM big WHERE v IS NOT NULL"
)

// TestDiffReadsTheChange checks that diffing two commits that differ in
// ten rows of a million-row table reads a few dozen chunks, through the
// table functions and system tables, where a scan reads thousands.
func TestDiffReadsTheChange(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a million-row table")
	}
	db := openBig(t)
	_, scan := db.Gets(bigScan)
	for _, q := range []string{
		bigDiff,
		"SELECT count(*) FROM dolt_diff_big('HEAD~', 'HEAD')",
		"SELECT count(*) FROM dolt_commit_diff_big WHERE from_commit = dolt_hashof('HEAD~') AND to_commit = dolt_hashof('HEAD')",
		"SELECT sum(rows_modified) FROM dolt_diff_stat('HEAD~', 'HEAD')",
		"SELECT count(*) FROM dolt_patch('HEAD~', 'HEAD')",
	} {
		rows, gets := db.Gets(q)
		t.Logf("%s: %v, %d chunks read (a scan reads %d)", q, rows, gets, scan)
		if strings.Join(rows, "") != "10" {
			t.Errorf("%s = %v, want 10", q, rows)
		}
		if gets >= 100 || gets*100 >= scan {
			t.Errorf("%s read %d chunks; want < 100 and < 1%% of a scan's %d", q, gets, scan)
		}
	}
	// The history of the table diffs each commit once: still no scan.
	rows, gets := db.Gets("SELECT count(*) FROM dolt_diff_big WHERE to_commit = dolt_hashof('HEAD')")
	if rows[0] != "10" || gets*100 >= scan {
		t.Errorf("dolt_diff_big: %v rows, %d chunks read; a scan reads %d", rows, gets, scan)
	}
	// Time is measured by BenchmarkDiffVersusScan, not asserted here.
}

// BenchmarkDiffVersusScan compares the ten-row diff of a million-row
// table with a full scan of it:
//
//	go test ./planner/dolt -run '^$' -bench DiffVersusScan
func BenchmarkDiffVersusScan(b *testing.B) {
	db := openBig(b)
	for _, q := range []struct{ name, sql string }{{"diff", bigDiff}, {"scan", bigScan}} {
		b.Run(q.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				db.Exec(q.sql)
			}
		})
	}
}
