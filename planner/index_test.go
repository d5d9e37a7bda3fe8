package planner_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/planner/internal/enginetest"
)

// loadAccounts creates a table of n rows with a primary key, a secondary
// index and a text column nothing indexes.
func loadAccounts(t *testing.T, db *enginetest.DB, n int) {
	db.Exec("CREATE TABLE acct (id int PRIMARY KEY, branch int NOT NULL, name text, balance int8)")
	for start := 1; start <= n; start += 1000 {
		var b strings.Builder
		b.WriteString("INSERT INTO acct VALUES ")
		for i := start; i < start+1000 && i <= n; i++ {
			if i > start {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "(%d, %d, 'name%05d', %d)", i, i%100, i, i*10)
		}
		db.Exec(b.String())
	}
}

// TestIndexScanReadsOnlyItsRange proves that key conditions narrow what
// is read: it counts the chunks a statement reads from the store. A full
// scan of the table reads every leaf; a point lookup reads one path from
// the root, whatever the table's size.
func TestIndexScanReadsOnlyItsRange(t *testing.T) {
	db := enginetest.Open(t)
	loadAccounts(t, db, 20000)

	full, fullGets := db.Gets("SELECT id FROM acct WHERE name = 'name12345'")
	if !slices.Equal(full, []string{"12345"}) {
		t.Fatalf("full scan: %v", full)
	}
	point, pointGets := db.Gets("SELECT id, name FROM acct WHERE id = 12345")
	if !slices.Equal(point, []string{"12345 | name12345"}) {
		t.Fatalf("point: %v", point)
	}
	t.Logf("chunks read: full scan %d, point lookup %d", fullGets, pointGets)
	if fullGets < 50 || pointGets*10 > fullGets {
		t.Errorf("point lookup read %d chunks, full scan %d: the key was not used", pointGets, fullGets)
	}

	// A parameter is bound only at execution; the bounds follow it.
	rows, paramGets := db.Gets("SELECT id FROM acct WHERE id = $1", exec.DInt(777))
	if !slices.Equal(rows, []string{"777"}) || paramGets > pointGets+2 {
		t.Errorf("parameter lookup: %v in %d reads", rows, paramGets)
	}

	// A range of 20 rows reads a leaf or two more than a point.
	rows, rangeGets := db.Gets("SELECT id FROM acct WHERE id BETWEEN 5001 AND 5020 AND balance > 0")
	if len(rows) != 20 || rows[0] != "5001" || rows[19] != "5020" || rangeGets > pointGets+4 {
		t.Errorf("range: %d rows in %d reads", len(rows), rangeGets)
	}

	// UPDATE and DELETE find their rows the same way.
	_, updGets := db.Gets("UPDATE acct SET balance = balance + 1 WHERE id = 4242")
	_, delGets := db.Gets("DELETE FROM acct WHERE id = 4243")
	if updGets*5 > fullGets || delGets*5 > fullGets {
		t.Errorf("update read %d chunks, delete %d; a full scan reads %d", updGets, delGets, fullGets)
	}
	if got := db.Exec("SELECT id, balance FROM acct WHERE id IN (4244, 4243, 4242) ORDER BY id"); !slices.Equal(got, []string{"4242 | 42421", "4244 | 42440"}) {
		t.Errorf("after update and delete: %v", got)
	}
}

// TestSecondaryIndexScan counts the chunks read through a secondary
// index: its entries in range, then one primary-key lookup per row.
func TestSecondaryIndexScan(t *testing.T) {
	db := enginetest.Open(t)
	loadAccounts(t, db, 20000)
	_, fullGets := db.Gets("SELECT id FROM acct WHERE name = 'name12345'")
	db.Exec("CREATE INDEX ON acct (branch)")
	db.Exec("CREATE UNIQUE INDEX acct_name ON acct (name DESC)")

	rows, gets := db.Gets("SELECT id FROM acct WHERE name = 'name12345'")
	if !slices.Equal(rows, []string{"12345"}) || gets*10 > fullGets {
		t.Errorf("unique index lookup: %v in %d reads; a full scan reads %d", rows, gets, fullGets)
	}
	// 200 rows of branch 42: the index entries, then a primary-key lookup
	// of a few chunks per row, whatever the table's size.
	rows, gets = db.Gets("SELECT id FROM acct WHERE branch = 42")
	if len(rows) != 200 || gets > 3*200+20 {
		t.Errorf("branch 42: %d rows in %d reads", len(rows), gets)
	}
	// With a closed range on the primary key, the key range wins.
	rows, gets = db.Gets("SELECT id FROM acct WHERE branch = 42 AND id BETWEEN 1 AND 1000")
	if len(rows) != 10 || rows[0] != "42" || gets > 20 {
		t.Errorf("branch 42, ids to 1000: %v in %d reads", rows, gets)
	}
	rows, gets = db.Gets("SELECT id FROM acct WHERE name > 'name19995'")
	if len(rows) != 5 || gets*10 > fullGets {
		t.Errorf("DESC range: %v in %d reads", rows, gets)
	}
	t.Logf("full scan %d reads, index %d", fullGets, gets)
}

// BenchmarkPointSelect runs a prepared point lookup through the session,
// without the wire protocol: planning is reused, the key is bound at Open.
func BenchmarkPointSelect(b *testing.B) {
	db := enginetest.Open(b)
	db.Exec("CREATE TABLE kv (k int PRIMARY KEY, v text NOT NULL)")
	for start := 0; start < 10000; start += 1000 {
		var sb strings.Builder
		sb.WriteString("INSERT INTO kv VALUES ")
		for i := start; i < start+1000; i++ {
			if i > start {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "(%d, 'value %d')", i, i)
		}
		db.Exec(sb.String())
	}
	st := db.Prepare("SELECT v FROM kv WHERE k = $1")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rows := db.Run(st, exec.DInt(int64(i%10000)))
		if len(rows) != 1 {
			b.Fatal(rows)
		}
	}
}

// TestIndexBoundsDecideConditions checks the conditions an index scan's
// bounds decide exactly, which no filter tests again (exactCond): integer
// keys compared with integers, NULLs, values outside the column's range,
// IN lists, several conditions on one column; and those whose bounds only
// narrow what is read, which a filter still decides: an IN list past
// exec.MaxSpans values, a subquery's values before an equality, LIKE, a
// second equality on one column. A hash join that looks the scanned side
// up by the other's keys tests the scan's decided conditions itself.
func TestIndexBoundsDecideConditions(t *testing.T) {
	db := enginetest.Open(t)
	loadAccounts(t, db, 20000)
	db.Exec("CREATE TABLE pair (a int, b int, PRIMARY KEY (a, b))")
	db.Exec("INSERT INTO pair SELECT g / 10, g % 10 FROM generate_series(0, 99999) g")
	db.Exec("CREATE INDEX acct_branch ON acct (branch)")
	var list []string
	for i := 1; i <= 5000; i++ {
		list = append(list, fmt.Sprint(i*3))
	}
	for _, tc := range []struct {
		sql    string
		want   []string
		filter bool // the plan keeps a filter
	}{
		{"SELECT count(*) FROM acct WHERE id BETWEEN 5 AND 104", []string{"100"}, false},
		{"SELECT sum(balance) FROM acct WHERE id > 19998", []string{"399990"}, false},
		{"SELECT count(*) FROM acct WHERE id >= 10 AND id < 20 AND id > 15", []string{"4"}, false},
		{"SELECT name FROM acct WHERE id = 3000000000", nil, false},
		{"SELECT count(*) FROM acct WHERE id < 3000000000 AND id > 19990::int8", []string{"10"}, false},
		{"SELECT count(*) FROM acct WHERE id = NULL", []string{"0"}, false},
		{"SELECT count(*) FROM acct WHERE id IN (5, 7, NULL, 7)", []string{"2"}, false},
		{"SELECT count(*) FROM acct WHERE branch = 7 AND id < 1000", []string{"10"}, true},
		{"SELECT count(*) FROM acct WHERE id = 5 AND id = 6", []string{"0"}, true},
		{"SELECT count(*) FROM acct WHERE id > 5.5 AND id < 8", []string{"2"}, true},
		{"SELECT count(*) FROM acct WHERE id IN (" + strings.Join(list, ", ") + ")", []string{"5000"}, true},
		{"SELECT count(*) FROM pair WHERE a IN (SELECT g FROM generate_series(1, 5000) g) AND b = 5", []string{"5000"}, true},
		{"SELECT count(*) FROM pair WHERE a IN (1, 2, 3) AND b > 5", []string{"12"}, false},
		{"SELECT x.id, y.id FROM acct x JOIN acct y ON y.id = x.branch WHERE x.id = 113 AND y.id BETWEEN 20 AND 19000", nil, false},
		{"SELECT x.id, y.id FROM acct x JOIN acct y ON y.id = x.branch WHERE x.id = 113 AND y.id BETWEEN 2 AND 19000", []string{"113 | 13"}, false},
	} {
		rows, err := db.Query(tc.sql)
		if err != nil || !slices.Equal(rows, tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.sql[:min(len(tc.sql), 100)], rows, err, tc.want)
		}
		plan, err := db.Query("EXPLAIN " + tc.sql)
		if err != nil {
			t.Fatal(err)
		}
		if filtered := slices.ContainsFunc(plan, func(l string) bool { return strings.Contains(l, "Filter") }); filtered != tc.filter {
			t.Errorf("%s: plan %q, want a filter: %v", tc.sql[:min(len(tc.sql), 100)], plan, tc.filter)
		}
	}
}

// TestIndexOr checks an OR whose alternatives indexes serve (exec.IndexOr):
// it reads few chunks of the table, returns a row two alternatives find
// once, keeps the whole predicate's other conditions and NULL logic, and
// UPDATE and DELETE write through it; an OR with an alternative no index
// serves selectively reads the table.
func TestIndexOr(t *testing.T) {
	db := enginetest.Open(t)
	loadAccounts(t, db, 20000)
	db.Exec("CREATE INDEX acct_name ON acct (name)")
	db.Exec("CREATE INDEX acct_branch ON acct (branch)")
	checkFewReads(t, db, "the OR read the table", []fewReads{
		{"SELECT id FROM acct WHERE name = 'name00042' OR id = 7 ORDER BY id", []string{"7", "42"}},
		{"SELECT id FROM acct WHERE name = 'name00042' OR id = 42 OR id BETWEEN 100 AND 102 ORDER BY id", []string{"42", "100", "101", "102"}},
		{"SELECT count(*) FROM acct WHERE name = 'name00042' OR name = NULL OR id = NULL", []string{"1"}},
	})
	for sql, want := range map[string]string{
		"SELECT count(*) FROM acct WHERE (name = 'name00042' OR branch = 17) AND id < 1000": "11",
		"SELECT count(*) FROM acct WHERE NOT (name = 'name00042' OR id = 9)":                "19998",
	} {
		if rows, err := db.Query(sql); err != nil || !slices.Equal(rows, []string{want}) {
			t.Errorf("%s: %v, %v; want %s", sql, rows, err, want)
		}
	}
	if rows, err := db.Query("UPDATE acct SET balance = -1 WHERE name = 'name00005' OR id = 6 OR id = 5 RETURNING id"); err != nil || len(rows) != 2 {
		t.Fatalf("UPDATE through an OR: %v, %v", rows, err)
	}
	if rows, err := db.Query("DELETE FROM acct WHERE name = 'name00008' OR branch = 99 RETURNING id"); err != nil || len(rows) != 201 {
		t.Fatalf("DELETE through an OR: %d rows, %v", len(rows), err)
	}
	if rows, err := db.Query("SELECT count(*) FROM acct WHERE balance = -1 OR branch = 99 OR name = 'name00008'"); err != nil || !slices.Equal(rows, []string{"2"}) {
		t.Fatalf("after UPDATE and DELETE: %v, %v", rows, err)
	}
	_, scan := db.Gets("SELECT count(*) FROM acct WHERE name <> ''")
	if rows, gets := db.Gets("SELECT count(*) FROM acct WHERE name = 'name00042' OR balance > 10"); !slices.Equal(rows, []string{"19796"}) || gets < scan/2 {
		t.Errorf("an OR with an unindexed alternative: %v in %d chunks (a scan reads %d)", rows, gets, scan)
	}
}
