package planner_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prollypg/prollypg/planner/internal/enginetest"
)

// TestExplainAnalyze checks EXPLAIN ANALYZE's figures: each node's actual
// rows and loops, the rows a filter removed, the summary's times, and that
// the explained statement ran (an UPDATE's change is made) while the plan
// it ran stays as it was for later executions.
func TestExplainAnalyze(t *testing.T) {
	db := enginetest.Open(t)
	loadAccounts(t, db, 2000)
	lines, err := db.Query("EXPLAIN ANALYZE SELECT name FROM acct WHERE id BETWEEN 11 AND 30 AND branch <> 15")
	if err != nil {
		t.Fatal(err)
	}
	want := []*regexp.Regexp{
		regexp.MustCompile(`^Index Scan using acct_pkey on acct  \(cost=\d+\.\d\d\.\.\d+\.\d\d rows=\d+ width=\d+\) \(actual time=\d+\.\d{3}\.\.\d+\.\d{3} rows=19 loops=1\)$`),
		regexp.MustCompile(`^  Index Cond: \(\(id >= 11\) AND \(id <= 30\)\)$`),
		regexp.MustCompile(`^  Filter: \(branch <> 15\)$`),
		regexp.MustCompile(`^  Rows Removed by Filter: 1$`),
		regexp.MustCompile(`^Planning Time: \d+\.\d{3} ms$`),
		regexp.MustCompile(`^Execution Time: \d+\.\d{3} ms$`),
	}
	if len(lines) != len(want) {
		t.Fatalf("EXPLAIN ANALYZE: %q", lines)
	}
	for i, re := range want {
		if !re.MatchString(lines[i]) {
			t.Errorf("line %d: %q, want %s", i, lines[i], re)
		}
	}

	// A join's inputs, each run once; a LIMIT stops its input early.
	lines, err = db.Query("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT a.id FROM acct a JOIN acct b ON b.id = a.branch WHERE a.id <= 300 LIMIT 5")
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(lines, "\n")
	for _, s := range []string{"Limit (actual rows=5 loops=1)", "Hash Cond: (", "Index Cond: (id <= 300)"} {
		if !strings.Contains(plan, s) {
			t.Errorf("plan lacks %q:\n%s", s, plan)
		}
	}

	if _, err := db.Query("EXPLAIN ANALYZE UPDATE acct SET name = 'changed' WHERE id = 7"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if rows, err := db.Query("SELECT name FROM acct WHERE id BETWEEN 6 AND 8 ORDER BY id"); err != nil || !slices.Equal(rows, []string{"name00006", "changed", "name00008"}) {
			t.Fatalf("after EXPLAIN ANALYZE UPDATE: %v, %v", rows, err)
		}
	}
}

// TestExplainJSON checks the JSON format: one document that parses, with
// PostgreSQL's keys, the inputs under Plans with their relationship.
func TestExplainJSON(t *testing.T) {
	db := enginetest.Open(t)
	loadAccounts(t, db, 100)
	for _, sql := range []string{
		"EXPLAIN (FORMAT JSON) SELECT a.name FROM acct a JOIN acct b ON b.id = a.branch WHERE a.balance > 10 ORDER BY a.name",
		"EXPLAIN (FORMAT JSON, ANALYZE) SELECT a.name FROM acct a JOIN acct b ON b.id = a.branch WHERE a.balance > 10 ORDER BY a.name",
	} {
		lines, err := db.Query(sql)
		if err != nil || len(lines) != 1 {
			t.Fatalf("%s: %q, %v", sql, lines, err)
		}
		var doc []struct {
			Plan          map[string]any
			ExecutionTime *float64 `json:"Execution Time"`
		}
		if err := json.Unmarshal([]byte(lines[0]), &doc); err != nil || len(doc) != 1 {
			t.Fatalf("%s: %v\n%s", sql, err, lines[0])
		}
		root := doc[0].Plan
		if root["Node Type"] != "Sort" || root["Sort Key"] == nil || root["Total Cost"] == nil {
			t.Errorf("%s: root %v", sql, root)
		}
		join := root["Plans"].([]any)[0].(map[string]any)
		if join["Node Type"] != "Hash Join" || join["Parent Relationship"] != "Outer" || join["Hash Cond"] != "(a.branch = b.id)" {
			t.Errorf("%s: join %v", sql, join)
		}
		scan := join["Plans"].([]any)[0].(map[string]any)
		if scan["Node Type"] != "Seq Scan" || scan["Relation Name"] != "acct" || scan["Alias"] != "a" || scan["Filter"] != "(balance > 10)" {
			t.Errorf("%s: scan %v", sql, scan)
		}
		analyzed := strings.Contains(sql, "ANALYZE")
		if _, ok := scan["Actual Rows"]; ok != analyzed || (doc[0].ExecutionTime != nil) != analyzed {
			t.Errorf("%s: actual figures %v, execution time %v", sql, scan["Actual Rows"], doc[0].ExecutionTime)
		}
		if analyzed && scan["Actual Rows"] != float64(99) {
			t.Errorf("%s: actual rows %v, want 99", sql, scan["Actual Rows"])
		}
	}
}
