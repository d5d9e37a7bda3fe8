package versioning

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/prolly/tuple"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// testEncoder indexes a row of the test tables by its fields at the
// index's column positions, raw, then the row key; it is enough to
// check which entries a merge leaves.
type testEncoder struct{}

func (testEncoder) IndexEntries(_ context.Context, t *sqldef.Table, key, row []byte) ([]IndexEntry, error) {
	out := make([]IndexEntry, len(t.Indexes))
	for i, ix := range t.Indexes {
		var k []byte
		for _, c := range ix.Columns {
			f, _ := CellOf(t, row, c.Column)
			k = append(append(k, f...), 0)
		}
		out[i] = IndexEntry{Key: append(k, key...)}
		if ix.Unique {
			out[i].Unique = len(k)
		}
	}
	return out, nil
}

// row builds a row tuple of text fields; "" is NULL.
func row(fields ...string) []byte {
	var b tuple.Builder
	for _, f := range fields {
		if f == "" {
			b.AppendNull()
		} else {
			b.AppendString(f)
		}
	}
	return bytes.Clone(b.Build())
}

// testTable returns a root holding table public.t with columns v0, v1
// and an index on v1 (unique if asked), filled with rows.
func testTable(t *testing.T, unique bool, rows map[int][]byte) RootValue {
	t.Helper()
	ctx := context.Background()
	root, err := NewRootValue(ctx, store.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	empty, _ := prolly.NewMap(ctx, root.Store())
	tbl := &sqldef.Table{Schema: "public", Name: "t", PrimaryKey: []int{0},
		Columns: []sqldef.Column{{Name: "v0", Type: 25, Typmod: -1}, {Name: "v1", Type: 25, Typmod: -1}},
		Indexes: []sqldef.Index{{Name: "t_v1", Columns: []sqldef.IndexColumn{{Column: 1}}, Unique: unique, Rows: empty.Root()}},
		Rows:    empty.Root()}
	if root, err = root.PutTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	return editRows(t, root, rows)
}

// editRows returns root with rows of table t set (nil value: deleted),
// its index kept in step.
func editRows(t *testing.T, root RootValue, rows map[int][]byte) RootValue {
	t.Helper()
	ctx := context.Background()
	def, _, err := root.Table(ctx, "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	var edits []RowEdit
	for i := 0; i < 10000; i++ {
		if v, ok := rows[i]; ok {
			edits = append(edits, RowEdit{Key: rowKey(i), Row: v, Delete: v == nil})
		}
	}
	if def, err = WriteRows(ctx, root.Store(), def, edits, testEncoder{}); err != nil {
		t.Fatal(err)
	}
	if root, err = root.PutTable(ctx, def); err != nil {
		t.Fatal(err)
	}
	return root
}

func mustMerge(t *testing.T, base, ours, theirs RootValue) MergeResult {
	t.Helper()
	res, err := Merge(context.Background(), base, ours, theirs, MergeOptions{Indexes: testEncoder{}, FromRoot: "theirs"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// tableRows returns the rows of table t in root by key number.
func tableRows(t *testing.T, root RootValue) map[string]string {
	t.Helper()
	ctx := context.Background()
	def, _, _ := root.Table(ctx, "public", "t")
	m, err := prolly.Load(ctx, root.Store(), def.Rows)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	it := m.NewIter(ctx, prolly.IterOptions{})
	for ok := it.First(); ok; ok = it.Next() {
		v, _ := it.Value()
		out[fmt.Sprintf("%x", it.Key())] = fmt.Sprintf("%q", v)
	}
	it.Close()
	return out
}

// TestMergeDisjointEdits: edits of different rows on two branches merge
// to exactly the root that applying both edit sets gives (rows and index).
func TestMergeDisjointEdits(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 20; iter++ {
		baseRows := map[int][]byte{}
		for i := 0; i < 500; i++ {
			baseRows[i] = row(fmt.Sprint("k", i), fmt.Sprint("v", rng.Intn(50)))
		}
		base := testTable(t, false, baseRows)
		ours, theirs, both := map[int][]byte{}, map[int][]byte{}, map[int][]byte{}
		for n := rng.Intn(60); n > 0; n-- {
			k := rng.Intn(700)
			side := ours
			if k%2 == 1 {
				side = theirs
			}
			var v []byte
			if rng.Intn(4) > 0 {
				v = row(fmt.Sprint("k", k), fmt.Sprint("w", rng.Intn(50)))
			} else if _, exists := baseRows[k]; !exists {
				continue
			}
			side[k], both[k] = v, v
		}
		res := mustMerge(t, base, editRows(t, base, ours), editRows(t, base, theirs))
		if !res.Clean() {
			t.Fatalf("disjoint edits conflicted: %+v", res)
		}
		if want := editRows(t, base, both); res.Root.Addr() != want.Addr() {
			t.Fatalf("iteration %d: merged root differs from applying both edit sets", iter)
		}
	}
}

// TestMergeCells: one row changed in different columns on two sides
// takes both changes, and its index entry is the merged row's.
func TestMergeCells(t *testing.T) {
	base := testTable(t, false, map[int][]byte{1: row("a", "b"), 2: row("c", "d")})
	ours := editRows(t, base, map[int][]byte{1: row("A", "b")})
	theirs := editRows(t, base, map[int][]byte{1: row("a", "B")})
	res := mustMerge(t, base, ours, theirs)
	if !res.Clean() {
		t.Fatalf("cell-level merge conflicted: %+v", res)
	}
	want := editRows(t, base, map[int][]byte{1: row("A", "B")})
	if res.Root.Addr() != want.Addr() {
		t.Fatalf("merged rows %v, want %v", tableRows(t, res.Root), tableRows(t, want))
	}
}

// TestMergeConflicts: a cell changed differently on both sides, and a
// row deleted on one side and changed on the other, are recorded with
// their three versions; the table keeps ours.
func TestMergeConflicts(t *testing.T) {
	ctx := context.Background()
	base := testTable(t, false, map[int][]byte{1: row("a", "b"), 2: row("c", "d"), 3: row("e", "f")})
	ours := editRows(t, base, map[int][]byte{1: row("a", "ours"), 2: nil, 3: row("e", "g")})
	theirs := editRows(t, base, map[int][]byte{1: row("a", "theirs"), 2: row("c", "D"), 3: row("E", "f")})
	res := mustMerge(t, base, ours, theirs)
	if res.Conflicts != 2 || res.SchemaConflicts != 0 || len(res.Tables) != 1 {
		t.Fatalf("result %+v, want 2 row conflicts in one table", res)
	}
	tc, ok, err := res.Root.Conflicts(ctx, "public", "t")
	if err != nil || !ok || tc.FromRoot != "theirs" {
		t.Fatalf("conflicts record: %+v, %v, %v", tc, ok, err)
	}
	m, _ := tc.rowConflicts(ctx, res.Root.Store())
	want := map[string]ConflictRow{
		string(rowKey(1)): {row("a", "b"), row("a", "ours"), row("a", "theirs")},
		string(rowKey(2)): {row("c", "d"), nil, row("c", "D")},
	}
	it := m.NewIter(ctx, prolly.IterOptions{})
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		v, _ := it.Value()
		got, err := decodeConflictRow(v)
		w := want[string(it.Key())]
		if err != nil || !bytes.Equal(got.Base, w.Base) || !bytes.Equal(got.Ours, w.Ours) || !bytes.Equal(got.Theirs, w.Theirs) ||
			(got.Ours == nil) != (w.Ours == nil) {
			t.Fatalf("conflict %x: %+v, %v; want %+v", it.Key(), got, err, w)
		}
		n++
	}
	it.Close()
	if n != 2 {
		t.Fatalf("%d conflicts recorded", n)
	}
	// Row 3 merged cell by cell; rows 1 and 2 are ours'.
	wantRoot := editRows(t, base, map[int][]byte{1: row("a", "ours"), 2: nil, 3: row("E", "g")})
	def, _, _ := res.Root.Table(ctx, "public", "t")
	wantDef, _, _ := wantRoot.Table(ctx, "public", "t")
	if def.Rows != wantDef.Rows || def.Indexes[0].Rows != wantDef.Indexes[0].Rows {
		t.Fatalf("table after a conflicted merge: %v, want %v", tableRows(t, res.Root), tableRows(t, wantRoot))
	}
	if c, _ := res.Root.HasConflicts(ctx); !c {
		t.Fatal("HasConflicts is false")
	}
	// Taking theirs writes their rows and clears the record.
	resolved, err := ResolveConflicts(ctx, res.Root, "public", "t", true, testEncoder{})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := resolved.HasConflicts(ctx); c {
		t.Fatal("conflicts remain after resolving with theirs")
	}
	wantRoot = editRows(t, base, map[int][]byte{1: row("a", "theirs"), 2: row("c", "D"), 3: row("E", "g")})
	def, _, _ = resolved.Table(ctx, "public", "t")
	wantDef, _, _ = wantRoot.Table(ctx, "public", "t")
	if def.Rows != wantDef.Rows || def.Indexes[0].Rows != wantDef.Indexes[0].Rows {
		t.Fatalf("table after --theirs: %v, want %v", tableRows(t, resolved), tableRows(t, wantRoot))
	}
}

// addColumn returns root with a column appended to table t.
func addColumn(t *testing.T, root RootValue, c sqldef.Column) RootValue {
	t.Helper()
	ctx := context.Background()
	def, _, _ := root.Table(ctx, "public", "t")
	def.Columns = append(def.Columns, c)
	root, err := root.PutTable(ctx, def)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestMergeAddedColumns: columns added on both sides (with different
// names) are both kept, theirs' after ours'; rows of the side without a
// column read its Missing value, and a row changed on both sides merges.
func TestMergeAddedColumns(t *testing.T) {
	ctx := context.Background()
	base := testTable(t, false, map[int][]byte{1: row("a", "b"), 2: row("c", "d")})
	ours := addColumn(t, base, sqldef.Column{Name: "x", Type: 25, Typmod: -1, Missing: row("mx")})
	ours = editRows(t, ours, map[int][]byte{1: row("a", "b", "X1")})
	theirs := addColumn(t, base, sqldef.Column{Name: "y", Type: 25, Typmod: -1, Missing: row("my")})
	theirs = editRows(t, theirs, map[int][]byte{1: row("A", "b", "Y1"), 3: row("n", "o", "Y3")})
	res := mustMerge(t, base, ours, theirs)
	if !res.Clean() {
		t.Fatalf("added columns conflicted: %+v", res)
	}
	def, _, _ := res.Root.Table(ctx, "public", "t")
	if len(def.Columns) != 4 || def.Columns[2].Name != "x" || def.Columns[3].Name != "y" {
		t.Fatalf("merged columns %+v", def.Columns)
	}
	got := tableRows(t, res.Root)
	for k, v := range map[int][]byte{
		1: row("A", "b", "X1", "Y1"), // merged cell by cell
		2: row("c", "d"),             // untouched: reads both Missing values
		3: row("n", "o", "mx", "Y3"), // theirs' new row, moved past ours' column
	} {
		if w := fmt.Sprintf("%q", v); got[fmt.Sprintf("%x", rowKey(k))] != w {
			t.Errorf("row %d = %s, want %s", k, got[fmt.Sprintf("%x", rowKey(k))], w)
		}
	}
	// The same column added on both sides differently is a schema conflict.
	theirs2 := addColumn(t, base, sqldef.Column{Name: "x", Type: 23, Typmod: -1})
	res = mustMerge(t, base, editRows(t, ours, map[int][]byte{2: row("c", "e")}), editRows(t, theirs2, map[int][]byte{2: row("C", "d")}))
	if res.SchemaConflicts != 1 {
		t.Fatalf("conflicting column definitions: %+v", res)
	}
}

// TestMergeUniqueViolation: two sides inserting different rows with the
// same unique key keep both rows and record both as violations.
func TestMergeUniqueViolation(t *testing.T) {
	ctx := context.Background()
	base := testTable(t, true, map[int][]byte{1: row("a", "b")})
	ours := editRows(t, base, map[int][]byte{2: row("c", "same")})
	theirs := editRows(t, base, map[int][]byte{3: row("d", "same")})
	res := mustMerge(t, base, ours, theirs)
	if res.Violations != 2 || res.Conflicts != 0 {
		t.Fatalf("result %+v, want 2 violations", res)
	}
	tc, _, _ := res.Root.Conflicts(ctx, "public", "t")
	m, _ := tc.violationMap(ctx, res.Root.Store())
	it := m.NewIter(ctx, prolly.IterOptions{})
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		v, _ := it.Value()
		viol, err := decodeViolation(it.Key(), v)
		if err != nil || viol.Kind != ViolationUnique || viol.Info != `{"Columns": ["v1"], "Name": "t_v1"}` {
			t.Fatalf("violation %+v, %v", viol, err)
		}
	}
}
