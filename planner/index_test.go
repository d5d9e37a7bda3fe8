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
