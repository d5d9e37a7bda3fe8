package planner_test

import (
	"slices"
	"testing"

	"github.com/prollypg/prollypg/planner/internal/enginetest"
)

// TestTempTablesBelongToTheirSession checks that a temporary table is seen
// by unqualified name only in its session, shadows a permanent table of
// the same name there, and goes when its session ends.
func TestTempTablesBelongToTheirSession(t *testing.T) {
	one := enginetest.Open(t)
	two := one.Another()
	one.Exec("CREATE TABLE t (x int)")
	one.Exec("INSERT INTO t VALUES (1)")
	one.Exec("CREATE TEMP TABLE t (x int)")
	one.Exec("INSERT INTO t VALUES (2)")
	if got := one.Exec("SELECT x FROM t"); !slices.Equal(got, []string{"2"}) {
		t.Errorf("session one reads %v, want its temporary table's 2", got)
	}
	if got := two.Exec("SELECT x FROM t"); !slices.Equal(got, []string{"1"}) {
		t.Errorf("session two reads %v, want the permanent table's 1", got)
	}
	// Each session has its own temporary schema.
	two.Exec("CREATE TEMP TABLE t (x int)")
	two.Exec("INSERT INTO t VALUES (3)")
	if got := two.Exec("SELECT x FROM t"); !slices.Equal(got, []string{"3"}) {
		t.Errorf("session two reads %v, want 3", got)
	}
	schemas := func() []string {
		return two.Exec("SELECT nspname FROM pg_namespace WHERE nspname <> 'pg_toast' AND nspname <> 'pg_catalog' AND nspname <> 'information_schema' ORDER BY 1")
	}
	if got := schemas(); !slices.Equal(got, []string{"pg_temp_1", "pg_temp_2", "public"}) {
		t.Errorf("schemas %v", got)
	}
	one.S.Close()
	if got := schemas(); !slices.Equal(got, []string{"pg_temp_2", "public"}) {
		t.Errorf("after session one ended, schemas %v", got)
	}
	if got := two.Exec("SELECT x FROM public.t"); !slices.Equal(got, []string{"1"}) {
		t.Errorf("permanent table reads %v", got)
	}
}

// TestPreparedPlanSeesNewTempTable checks that a prepared statement whose
// plan found a permanent table is planned again once a temporary table of
// the same name shadows it, and after SET search_path.
func TestPreparedPlanSeesNewTempTable(t *testing.T) {
	db := enginetest.Open(t)
	db.Exec("CREATE TABLE t (x int)")
	db.Exec("INSERT INTO t VALUES (1)")
	db.Exec("CREATE SCHEMA s")
	db.Exec("CREATE TABLE s.t (x int)")
	db.Exec("INSERT INTO s.t VALUES (3)")
	st := db.Prepare("SELECT x FROM t")
	if got := db.Run(st); !slices.Equal(got, []string{"1"}) {
		t.Fatalf("before: %v", got)
	}
	db.Exec("SET search_path = s, public")
	if got := db.Run(st); !slices.Equal(got, []string{"3"}) {
		t.Errorf("after SET search_path: %v, want s.t's 3", got)
	}
	db.Exec("CREATE TEMP TABLE t (x int)")
	db.Exec("INSERT INTO t VALUES (2)")
	if got := db.Run(st); !slices.Equal(got, []string{"2"}) {
		t.Errorf("after CREATE TEMP TABLE: %v, want the temporary table's 2", got)
	}
}
