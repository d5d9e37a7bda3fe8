package planner_test

import (
	"strings"
	"testing"

	"github.com/prollypg/prollypg/planner/internal/enginetest"
)

func TestScratchDiff(t *testing.T) {
	db := enginetest.Open(t)
	db.Exec("CREATE TABLE employees (id int PRIMARY KEY, last_name text, first_name text)")
	db.Exec("INSERT INTO employees VALUES (0, 'Sehn', 'Tim'), (1, 'Hendriks', 'Brian')")
	show := func(q string) {
		rows, err := db.Query(q)
		t.Logf("%s\n  %s\n  err=%v", q, strings.Join(rows, "\n  "), err)
	}
	show("select to_last_name, to_first_name, to_id, to_commit, from_last_name, from_first_name, from_id, diff_type from dolt_diff_employees")
	show("select * from dolt.diff")
	show("select dolt_commit('-Am', 'first')")
	db.Exec("UPDATE employees SET first_name = 'Timothy' WHERE id = 0")
	db.Exec("ALTER TABLE employees ADD COLUMN age int")
	db.Exec("INSERT INTO employees VALUES (2, 'X', 'Y', 33)")
	show("select * from dolt_diff_employees")
	show("select * from dolt_diff('HEAD', 'WORKING', 'employees')")
	show("select * from dolt_diff_employees('HEAD', 'WORKING')")
	show("select * from dolt.diff")
	show("select dolt_commit('-Am', 'second')")
	show("select * from dolt_history_employees")
	show("select * from dolt_commit_diff_employees where from_commit = dolt_hashof('HEAD~') and to_commit = dolt_hashof('HEAD')")
	show("select * from dolt_commit_diff_employees")
	show("select * from dolt_diff('HEAD~..HEAD', 'employees')")
	show("select * from dolt_diff('HEAD~...HEAD', 'employees')")
	show("select * from dolt_diff('nope', 'HEAD', 'employees')")
	show("select * from dolt_diff('HEAD~', 'HEAD', 'nope')")
}
