package planner_test

import (
	"strings"
	"testing"

	"github.com/prollypg/prollypg/planner/internal/enginetest"
)

func TestScratchPatch(t *testing.T) {
	db := enginetest.Open(t)
	show := func(q string) []string {
		rows, err := db.Query(q)
		t.Logf("%s\n  %s\n  err=%v", q, strings.Join(rows, "\n  "), err)
		return rows
	}
	db.Exec("CREATE TABLE t1 (id int PRIMARY KEY)")
	db.Exec("INSERT INTO t1 VALUES (1)")
	show("select * from dolt_diff_stat('HEAD', 'WORKING')")
	show("select * from dolt_diff_summary('HEAD', 'WORKING')")
	db.Exec("select dolt_commit('-Am', 'c1')")
	db.Exec("CREATE SCHEMA s2")
	db.Exec("CREATE TABLE s2.p (k text PRIMARY KEY, v numeric(10,2) DEFAULT 1.5 NOT NULL, d date, CHECK (v > 0))")
	db.Exec("CREATE TABLE kids (id serial PRIMARY KEY, pk text REFERENCES s2.p(k), note text)")
	db.Exec("CREATE INDEX kids_note ON kids (note)")
	db.Exec(`INSERT INTO s2.p VALUES ('a''b', 2.25, '2024-01-02'), ('back\slash', 3, NULL)`)
	db.Exec(`INSERT INTO kids (pk, note) VALUES ('a''b', 'x'), (NULL, NULL)`)
	db.Exec("DELETE FROM t1")
	db.Exec("INSERT INTO t1 VALUES (5), (6)")
	db.Exec("select dolt_commit('-Am', 'c2')")
	db.Exec("ALTER TABLE t1 ADD COLUMN extra text DEFAULT 'zz'")
	db.Exec("UPDATE t1 SET extra = 'changed' WHERE id = 5")
	db.Exec("UPDATE s2.p SET d = '2025-05-05' WHERE k = 'a''b'")
	db.Exec("DROP TABLE kids")
	db.Exec("select dolt_commit('-Am', 'c3')")
	show("select * from dolt_diff_stat('HEAD~2', 'HEAD')")
	show("select * from dolt_diff_summary('HEAD~2', 'HEAD')")
	show("select * from dolt_schema_diff('HEAD~2', 'HEAD')")
	show("select * from dolt_schema_diff('HEAD~2', 'HEAD~')")
	for _, r := range [][2]string{{"HEAD~2", "HEAD~"}, {"HEAD~", "HEAD"}, {"HEAD~2", "HEAD"}, {"HEAD", "HEAD~2"}} {
		stmts := show("select statement from dolt_patch('" + r[0] + "', '" + r[1] + "') order by statement_order")
		target := db.Exec("select dolt_hashof('" + r[1] + "')")[0]
		db.Exec("select dolt_checkout('-B', 'patched', '" + r[0] + "')")
		for _, st := range stmts {
			if _, err := db.Query(st); err != nil {
				t.Errorf("%s: %v", st, err)
			}
		}
		for _, tb := range []string{"t1", "s2.p", "kids"} {
			a, errA := db.Query("select dolt_hashof_table('" + tb + "')")
			b, errB := db.Query("select dolt_hashof_table('" + tb + "', '" + target + "')")
			if strings.Join(a, "") != strings.Join(b, "") || (errA == nil) != (errB == nil) {
				t.Errorf("%v: table %s: %v %v vs %v %v", r, tb, a, errA, b, errB)
			}
		}
		db.Exec("select dolt_reset('--hard')")
		db.Exec("select dolt_checkout('main')")
	}
}
