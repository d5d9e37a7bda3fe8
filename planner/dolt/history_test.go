package dolt_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/planner/internal/enginetest"
)

// TestHistoryFilters: dolt_history_<table> filtered by commit_hash reads
// that commit's rows only, and filtered by its whole primary key looks the
// row up in each version instead of reading them all; both give the rows
// the same conditions give when nothing is pushed down (id + 0 = ...),
// across a version that added a column, a version whose primary key was
// another, NULL and out-of-range values and parameters.
func TestHistoryFilters(t *testing.T) {
	db := enginetest.Open(t)
	db.Exec("CREATE TABLE h (id int PRIMARY KEY, v int)")
	db.Exec("INSERT INTO h SELECT g, 0 FROM generate_series(1, 20000) g")
	db.Exec("SELECT dolt_commit('-Am', 'rows')")
	for _, id := range []string{"7", "8", "7"} {
		db.Exec("UPDATE h SET v = v + 1 WHERE id = " + id)
		db.Exec("SELECT dolt_commit('-am', 'bump " + id + "')")
	}
	db.Exec("ALTER TABLE h ADD COLUMN note text")
	db.Exec("UPDATE h SET note = 'seven' WHERE id = 7")
	db.Exec("SELECT dolt_commit('-am', 'a column')")
	// A version keyed by another column: read whole, then filtered.
	db.Exec("CREATE TABLE k (id int, v int)")
	db.Exec("INSERT INTO k VALUES (1, 10), (2, 20)")
	db.Exec("SELECT dolt_commit('-Am', 'k keyless')")
	db.Exec("ALTER TABLE k ADD PRIMARY KEY (id)")
	db.Exec("UPDATE k SET v = 11 WHERE id = 1")
	db.Exec("SELECT dolt_commit('-am', 'k keyed')")

	head := db.Exec("SELECT dolt_hashof('HEAD~3')")[0]
	sorted := func(rows []string) string { slices.Sort(rows); return strings.Join(rows, "; ") }
	for _, c := range []struct{ pushed, plain string }{
		{"SELECT id, v, note, commit_hash FROM dolt_history_h WHERE id = 7",
			"SELECT id, v, note, commit_hash FROM dolt_history_h WHERE id + 0 = 7"},
		{"SELECT id, v, commit_hash FROM dolt_history_h WHERE id = 8::int8 AND v > 0",
			"SELECT id, v, commit_hash FROM dolt_history_h WHERE id + 0 = 8 AND v > 0"},
		{"SELECT count(*), sum(v) FROM dolt_history_h WHERE commit_hash = '" + head + "'",
			"SELECT count(*), sum(v) FROM dolt_history_h WHERE commit_hash || '' = '" + head + "'"},
		{"SELECT id, v FROM dolt_history_h WHERE commit_hash = '" + head + "' AND id = 7",
			"SELECT id, v FROM dolt_history_h WHERE commit_hash || '' = '" + head + "' AND id + 0 = 7"},
		{"SELECT count(*) FROM dolt_history_h WHERE id = 99999999999", "SELECT 0"},
		{"SELECT count(*) FROM dolt_history_h WHERE id = NULL", "SELECT 0"},
		{"SELECT id, v, commit_hash FROM dolt_history_k WHERE id = 1",
			"SELECT id, v, commit_hash FROM dolt_history_k WHERE id + 0 = 1"},
	} {
		if got, want := sorted(db.Exec(c.pushed)), sorted(db.Exec(c.plain)); got != want {
			t.Errorf("%s:\n got %s\nwant %s", c.pushed, got, want)
		}
	}
	param := "SELECT count(*), max(v) FROM dolt_history_h WHERE id = $1"
	if got := db.Exec(param, exec.DInt(7)); strings.Join(got, "") != "7 | 2" {
		t.Errorf("%s with 7: %v, want 7 | 2 (seven commits hold h)", param, got)
	}

	_, all := db.Gets("SELECT count(*) FROM dolt_history_h WHERE v IS NOT NULL")
	for _, q := range []string{
		"SELECT count(*) FROM dolt_history_h WHERE id = 7",
		"SELECT count(*) FROM dolt_history_h WHERE commit_hash = '" + head + "'",
	} {
		_, gets := db.Gets(q)
		t.Logf("%s: %d chunks read; the whole history reads %d", q, gets, all)
		if gets*3 >= all {
			t.Errorf("%s read %d chunks; the whole history reads %d", q, gets, all)
		}
	}
	if _, gets := db.Gets("SELECT count(*) FROM dolt_history_h WHERE id = 7"); gets >= 100 {
		t.Errorf("the history of one row read %d chunks", gets)
	}
}
