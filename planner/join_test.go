package planner_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/prollypg/prollypg/planner/internal/enginetest"
)

// TestJoinLooksUpFewRows proves that a join of a few rows with a large
// table reads only their matches from it, through its primary key or an
// index (exec.HashJoin's lookups), by counting the chunks each statement
// reads: a join that read the large table whole would read as many as a
// scan of it. It covers inner joins in either order, a secondary index,
// USING and LEFT JOIN with the WHERE condition on the side they keep
// (checked before the join, planJoin), a LEFT JOIN that a WHERE condition
// on its padded side makes inner, and a LEFT JOIN inside a correlated
// subquery.
func TestJoinLooksUpFewRows(t *testing.T) {
	db := enginetest.Open(t)
	loadAccounts(t, db, 20000)
	db.Exec("CREATE TABLE xfer (id int PRIMARY KEY, acct int, amount int)")
	db.Exec("CREATE INDEX xfer_acct ON xfer (acct)")
	for start := 1; start <= 20000; start += 1000 {
		var b strings.Builder
		b.WriteString("INSERT INTO xfer VALUES ")
		for i := start; i < start+1000; i++ {
			if i > start {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "(%d, %d, %d)", i, (i*7)%20000+1, i)
		}
		db.Exec(b.String())
	}
	checkFewReads(t, db, "the join read the table whole", []fewReads{
		{"SELECT x.id, a.name FROM xfer x JOIN acct a ON a.id = x.acct WHERE x.id = 5", []string{"5 | name00036"}},
		{"SELECT x.id, a.name FROM acct a JOIN xfer x ON a.id = x.acct WHERE x.id = 5", []string{"5 | name00036"}},
		{"SELECT a.id, x.id FROM acct a JOIN xfer x ON x.acct = a.id WHERE a.id = 36", []string{"36 | 5"}},
		{"SELECT id, name, amount FROM acct JOIN xfer USING (id) WHERE acct.id = 9", []string{"9 | name00009 | 9"}},
		{"SELECT x.id, a.id FROM xfer x LEFT JOIN acct a ON a.id = x.acct + 100000 WHERE x.id = 7", []string{"7 | NULL"}},
		// A LEFT JOIN whose WHERE drops its padded rows is an inner one.
		{"SELECT x.id, a.name FROM xfer x LEFT JOIN acct a ON a.id = x.acct WHERE a.id = 36", []string{"5 | name00036"}},
		{"SELECT a.id, (SELECT count(*) FROM xfer x LEFT JOIN acct b ON b.id = x.acct WHERE x.acct = a.id) FROM acct a WHERE a.id = 36",
			[]string{"36 | 1"}},
	})
}

// TestOrderByReadsIndexOrder proves that ORDER BY ... LIMIT on the
// primary key or an index reads a few rows in the index's order (forward
// or backward) instead of sorting the table, and so do min and max, a
// table's count(*) reads its tree's counts, and a scalar subquery (in
// arithmetic too) bounds an index scan, by counting the chunks each statement reads against a
// scan of the whole table.
func TestOrderByReadsIndexOrder(t *testing.T) {
	db := enginetest.Open(t)
	loadAccounts(t, db, 20000)
	db.Exec("CREATE INDEX acct_branch_balance ON acct (branch, balance)")
	checkFewReads(t, db, "it sorted the table", []fewReads{
		{"SELECT id FROM acct ORDER BY id DESC LIMIT 2", []string{"20000", "19999"}},
		{"SELECT id FROM acct WHERE id < 500 ORDER BY id DESC LIMIT 2", []string{"499", "498"}},
		{"SELECT id FROM acct ORDER BY id LIMIT 2 OFFSET 5", []string{"6", "7"}},
		{"SELECT id, balance FROM acct WHERE branch = 7 ORDER BY balance DESC LIMIT 2", []string{"19907 | 199070", "19807 | 198070"}},
		{"SELECT id FROM acct ORDER BY branch, balance LIMIT 2", []string{"100", "200"}},
		{"SELECT max(id) FROM acct", []string{"20000"}},
		{"SELECT count(*) FROM acct", []string{"20000"}},
		{"SELECT min(balance) FROM acct WHERE branch = 3", []string{"30"}},
		{"SELECT name FROM acct WHERE id = (SELECT max(id) - 0 FROM acct)", []string{"name20000"}},
		{"SELECT name FROM acct WHERE id = (SELECT max(id) FROM acct) - 3 * 2", []string{"name19994"}},
		{"SELECT count(*) FROM acct WHERE id > (SELECT min(id) FROM acct WHERE id > 19990)::int8 + 5", []string{"4"}},
	})
}

// TestKeyInListsAndSubqueries checks key conditions with many values: an
// IN list longer than an index scan looks up one by one (it reads one
// range, and the filter decides: a primary key's scan once returned only
// the range's first row), and x IN (SELECT ...), whose values bound the
// scan when they are few, read in chunks.
func TestKeyInListsAndSubqueries(t *testing.T) {
	db := enginetest.Open(t)
	loadAccounts(t, db, 20000)
	var list []string
	for i := 1; i <= 5000; i++ {
		list = append(list, fmt.Sprint(i*3))
	}
	in := strings.Join(list, ", ")
	for sql, want := range map[string]string{
		"SELECT count(*), min(id), max(id) FROM acct WHERE id IN (" + in + ")":                           "5000 | 3 | 15000",
		"SELECT count(*) FROM acct WHERE id IN (" + in + ") AND branch IN (" + in + ")":                  "1650",
		"SELECT count(*) FROM acct WHERE id IN (SELECT id * 2 FROM acct WHERE id <= 6000)":               "6000",
		"SELECT count(*) FROM acct WHERE id NOT IN (SELECT id FROM acct WHERE id > 10)":                  "10",
		"SELECT count(*) FROM acct WHERE id IN (SELECT NULL::int UNION ALL SELECT 5 UNION ALL SELECT 5)": "1",
	} {
		if rows, err := db.Query(sql); err != nil || !slices.Equal(rows, []string{want}) {
			t.Errorf("%s: %v, %v; want %s", sql[:min(len(sql), 90)], rows, err, want)
		}
	}
	checkFewReads(t, db, "the subquery's values did not bound the scan", []fewReads{
		{"SELECT id, name FROM acct WHERE id IN (SELECT id + 1 FROM acct WHERE id IN (10, 20))", []string{"11 | name00011", "21 | name00021"}},
	})
}

// TestExpressionIndexLookup proves that a condition on an indexed
// expression reads through its index: lower(name) = '...' reads a path,
// not the table.
func TestExpressionIndexLookup(t *testing.T) {
	db := enginetest.Open(t)
	loadAccounts(t, db, 20000)
	db.Exec("CREATE INDEX acct_upper_name ON acct (upper(name))")
	checkFewReads(t, db, "the expression's index was not used", []fewReads{
		{"SELECT id FROM acct WHERE upper(name) = 'NAME12345'", []string{"12345"}},
	})
}

// fewReads is a statement and the rows it gives.
type fewReads struct {
	sql  string
	want []string
}

// checkFewReads runs each statement on db, a table acct of loadAccounts,
// and checks its rows, and that it read fewer than a fifth of the chunks
// a scan of acct reads; failing, it says what reading more means.
func checkFewReads(t *testing.T, db *enginetest.DB, failure string, cases []fewReads) {
	t.Helper()
	_, scanGets := db.Gets("SELECT count(*) FROM acct WHERE name <> ''")
	for _, tc := range cases {
		rows, gets := db.Gets(tc.sql)
		if !slices.Equal(rows, tc.want) {
			t.Errorf("%s: %v, want %v", tc.sql, rows, tc.want)
		}
		if gets*5 > scanGets {
			t.Errorf("%s: read %d chunks, a scan of the table %d: %s", tc.sql, gets, scanGets, failure)
		}
	}
}

// TestCorrelatedExists checks EXISTS and NOT EXISTS of a correlated
// subquery that a hash lookup serves (exec.HashLookup's exists, without
// running the subquery per outer row): matches, NULL keys on both sides,
// duplicates, a constant among the keys, and the first executions that
// read through the index before the table is hashed.
func TestCorrelatedExists(t *testing.T) {
	db := enginetest.Open(t)
	db.Exec("CREATE TABLE o (id int PRIMARY KEY, k int, g int)")
	db.Exec("CREATE TABLE i (id int PRIMARY KEY, k int, g int)")
	db.Exec("CREATE INDEX i_k ON i (k)")
	db.Exec("INSERT INTO o SELECT g, CASE WHEN g % 10 = 0 THEN NULL ELSE g % 500 END, g % 3 FROM generate_series(1, 2000) g")
	db.Exec("INSERT INTO i SELECT g, CASE WHEN g % 7 = 0 THEN NULL ELSE g % 250 END, g % 2 FROM generate_series(1, 1000) g")
	// The counts are PostgreSQL 15's for the same tables.
	for _, c := range []struct{ sql, want string }{
		{"SELECT count(*) FROM o WHERE EXISTS (SELECT 1 FROM i WHERE i.k = o.k)", "900"},
		{"SELECT count(*) FROM o WHERE NOT EXISTS (SELECT 1 FROM i WHERE i.k = o.k)", "1100"},
		{"SELECT count(*) FROM o WHERE EXISTS (SELECT i.id, i.k * 2 FROM i WHERE i.k = o.k AND i.g = 1)", "500"},
		{"SELECT count(*) FROM o WHERE NOT EXISTS (SELECT 1 FROM i WHERE i.k = o.k AND i.g = 1)", "1500"},
		{"SELECT count(*) FROM o WHERE EXISTS (SELECT 1 FROM i WHERE i.k = o.k AND i.g = o.g)", "300"},
		{"SELECT count(*) FROM o WHERE o.id <= 100 AND EXISTS (SELECT 1 FROM i WHERE i.k = o.k)", "90"},
	} {
		rows, err := db.Query(c.sql)
		if err != nil || !slices.Equal(rows, []string{c.want}) {
			t.Errorf("%s: %v, %v; want %s", c.sql, rows, err, c.want)
		}
	}
}
