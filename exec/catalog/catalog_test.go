package catalog_test

import (
	"context"
	"testing"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// render prints every catalog relation's rows.
func render(t *testing.T, root versioning.RootValue) string {
	t.Helper()
	snap, err := catalog.NewSnapshot(&catalog.Source{Ctx: context.Background(), Root: root, Database: "db", SearchPath: []string{"public"}})
	if err != nil {
		t.Fatal(err)
	}
	out := ""
	for _, v := range catalog.Views() {
		rows, err := v.Rows(snap)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		for _, r := range rows {
			if len(r) != len(v.Cols) {
				t.Fatalf("%s.%s: row of %d values for %d columns", v.Schema, v.Name, len(r), len(v.Cols))
			}
			// Values in their text form: arrays are pointers, which %v
			// would print as addresses.
			out += v.Name
			for i, d := range r {
				out += " " + string(exec.AppendText(nil, v.Cols[i].Type, d, nil))
			}
			out += "\n"
		}
	}
	return out
}

// TestCatalogIsAFunctionOfContent builds the same objects in two orders,
// through different intermediate states, and checks that every catalog
// relation shows the same rows, OIDs included (invariant 1).
func TestCatalogIsAFunctionOfContent(t *testing.T) {
	ctx := context.Background()
	cs := store.NewMemory()
	tables := []*sqldef.Table{
		{Schema: "public", Name: "a", Columns: []sqldef.Column{{Name: "id", Type: exec.OIDInt4, Typmod: -1, NotNull: true}, {Name: "v", Type: exec.OIDText, Typmod: -1, Default: "'x'"}},
			PrimaryKey: []int{0}, PrimaryKeyName: "a_pkey", Checks: []sqldef.Check{{Name: "a_id_check", Expr: "id > 0"}}},
		{Schema: "s", Name: "b", Columns: []sqldef.Column{{Name: "k", Type: exec.OIDInt8, Typmod: -1}},
			Indexes: []sqldef.Index{{Name: "b_k_idx", Columns: []sqldef.IndexColumn{{Column: 0, Desc: true, NullsFirst: true}}}}},
	}
	seq := &sqldef.Sequence{Schema: "public", Name: "q", Type: exec.OIDInt8, Start: 1, Increment: 1, Min: 1, Max: 1 << 62, Cache: 1, Last: 1}
	build := func(order []int, detour bool) versioning.RootValue {
		root, err := versioning.NewRootValue(ctx, cs)
		if err != nil {
			t.Fatal(err)
		}
		if root, err = root.PutSchema(ctx, sqldef.Schema{Name: "s", Owner: "postgres"}); err != nil {
			t.Fatal(err)
		}
		if detour {
			if root, err = root.PutTable(ctx, &sqldef.Table{Schema: "public", Name: "gone"}); err != nil {
				t.Fatal(err)
			}
		}
		for _, i := range order {
			if root, err = root.PutTable(ctx, tables[i]); err != nil {
				t.Fatal(err)
			}
		}
		if root, err = root.PutSequence(ctx, seq); err != nil {
			t.Fatal(err)
		}
		if detour {
			if root, err = root.DropTable(ctx, "public", "gone"); err != nil {
				t.Fatal(err)
			}
		}
		return root
	}
	x, y := build([]int{0, 1}, false), build([]int{1, 0}, true)
	if x.Addr() != y.Addr() {
		t.Fatalf("equal content, different roots")
	}
	rx, ry := render(t, x), render(t, y)
	if rx != ry {
		t.Errorf("catalogs differ:\n%s\n---\n%s", rx, ry)
	}
	if catalog.TableOID("public", "a") == catalog.TableOID("s", "a") || catalog.TableOID("public", "a") == catalog.IndexOID("public", "a") {
		t.Errorf("OIDs of distinct objects collide")
	}
}
