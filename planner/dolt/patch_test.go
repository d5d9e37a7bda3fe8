package dolt_test

import (
	"slices"
	"testing"

	"github.com/prollypg/prollypg/planner/internal/enginetest"
)

// TestPatchRoundTrip checks that running dolt_patch(a, b)'s statements on
// a branch at a gives b: the same rows (dolt_hashof_table) for every
// table b has, and none of the tables it lacks.
func TestPatchRoundTrip(t *testing.T) {
	db := enginetest.Open(t)
	db.Exec("CREATE TABLE t1 (id int PRIMARY KEY, v text)")
	db.Exec("INSERT INTO t1 VALUES (1, 'one'), (2, NULL), (3, 'three')")
	db.Exec("SELECT dolt_commit('-Am', 'c1')")
	db.Exec("CREATE SCHEMA s2")
	db.Exec("CREATE TABLE s2.p (k text PRIMARY KEY, v numeric(10,2) DEFAULT 1.5 NOT NULL, d date, j jsonb, CHECK (v > 0))")
	db.Exec("CREATE TABLE kids (id serial PRIMARY KEY, pk text REFERENCES s2.p(k), note text, at timestamptz)")
	db.Exec("CREATE INDEX kids_note ON kids (note)")
	db.Exec(`INSERT INTO s2.p VALUES ('a''b', 2.25, '2024-01-02', '{"x": [1, "y"]}'), ('back\slash', 3, NULL, NULL)`)
	db.Exec(`INSERT INTO kids (pk, note, at) VALUES ('a''b', 'x', '2024-03-04 05:06:07+02'), (NULL, NULL, NULL)`)
	db.Exec("DELETE FROM t1 WHERE id = 1")
	db.Exec("UPDATE t1 SET v = 'two' WHERE id = 2")
	db.Exec("INSERT INTO t1 VALUES (5, 'five'), (6, E'tab\\there')")
	db.Exec("SELECT dolt_commit('-Am', 'c2')")
	db.Exec("UPDATE s2.p SET d = '2025-05-05', v = 9 WHERE k = 'a''b'")
	db.Exec("DROP TABLE kids")
	db.Exec("UPDATE t1 SET v = NULL WHERE id = 3")
	db.Exec("SELECT dolt_commit('-Am', 'c3')")
	db.Exec("SELECT dolt_tag('c3')")
	db.Exec("SELECT dolt_tag('c2', 'HEAD~')")
	db.Exec("SELECT dolt_tag('c1', 'HEAD~2')")

	tables := []string{"t1", "s2.p", "kids"}
	for _, r := range [][2]string{{"c1", "c2"}, {"c2", "c3"}, {"c1", "c3"}, {"c3", "c1"}, {"c2", "c1"}} {
		stmts := db.Exec("SELECT statement FROM dolt_patch('" + r[0] + "', '" + r[1] + "') ORDER BY statement_order")
		db.Exec("SELECT dolt_checkout('-B', 'patched', '" + r[0] + "')")
		for _, st := range stmts {
			if _, err := db.Query(st); err != nil {
				t.Errorf("%v: %s: %v", r, st, err)
			}
		}
		for _, tb := range tables {
			got, gotErr := db.Query("SELECT dolt_hashof_table('" + tb + "')")
			want, wantErr := db.Query("SELECT dolt_hashof_table('" + tb + "', '" + r[1] + "')")
			if !slices.Equal(got, want) || (gotErr == nil) != (wantErr == nil) {
				t.Errorf("%v: table %s is %v (%v), want %v (%v)\npatch: %q", r, tb, got, gotErr, want, wantErr, stmts)
			}
		}
		db.Exec("SELECT dolt_checkout('main')")
	}
}

// TestPatchAddColumn checks a patch that adds a column: the rows read
// the same, though rows stored before the column came (which read its
// default without storing it) and rows the patch inserts are not stored
// alike, so their hashes differ.
func TestPatchAddColumn(t *testing.T) {
	db := enginetest.Open(t)
	db.Exec("CREATE TABLE t1 (id int PRIMARY KEY)")
	db.Exec("INSERT INTO t1 VALUES (1), (2)")
	db.Exec("SELECT dolt_commit('-Am', 'c1')")
	db.Exec("DELETE FROM t1 WHERE id = 1")
	db.Exec("INSERT INTO t1 VALUES (5)")
	db.Exec("ALTER TABLE t1 ADD COLUMN extra text DEFAULT 'zz'")
	db.Exec("UPDATE t1 SET extra = 'changed' WHERE id = 5")
	db.Exec("SELECT dolt_commit('-Am', 'c2')")
	stmts := db.Exec("SELECT statement FROM dolt_patch('HEAD~', 'HEAD') ORDER BY statement_order")
	want := []string{
		`ALTER TABLE "t1" ADD COLUMN "extra" text DEFAULT 'zz'::text;`,
		`DELETE FROM "t1" WHERE "id"=1;`,
		`INSERT INTO "t1" ("id","extra") VALUES (5,'changed');`,
	}
	if !slices.Equal(stmts, want) {
		t.Errorf("patch:\n%q\nwant\n%q", stmts, want)
	}
	db.Exec("SELECT dolt_checkout('-b', 'patched', 'HEAD~')")
	for _, st := range stmts {
		db.Exec(st)
	}
	got := db.Exec("SELECT * FROM t1 ORDER BY id")
	if w := db.Exec(`SELECT * FROM "postgres@main".public.t1 ORDER BY id`); !slices.Equal(got, w) {
		t.Errorf("patched t1 = %v, want %v", got, w)
	}
}
