package versioning

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// TestObjectMergeRules checks how both merges treat objects other than
// tables (views here; types and functions share the rules): added on
// different sides they merge, changed alike on both they merge, changed
// differently they fail the merge of transactions and are recorded as
// a schema conflict by the merge of branches, which either side
// resolves.
func TestObjectMergeRules(t *testing.T) {
	ctx := context.Background()
	base, err := NewRootValue(ctx, store.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	view := func(name, query string) *sqldef.View {
		return &sqldef.View{Schema: "public", Name: name, Query: query, Columns: []sqldef.ViewColumn{{Name: "x", Type: 23, Typmod: -1}}}
	}
	put := func(r RootValue, vs ...*sqldef.View) RootValue {
		t.Helper()
		for _, v := range vs {
			if r, err = r.PutView(ctx, v); err != nil {
				t.Fatal(err)
			}
		}
		return r
	}
	base = put(base, view("v", "SELECT 1 AS x"))

	// Added on different sides.
	ours, theirs := put(base, view("a", "SELECT 2 AS x")), put(base, view("b", "SELECT 3 AS x"))
	want := put(base, view("a", "SELECT 2 AS x"), view("b", "SELECT 3 AS x"))
	for _, merge := range []func() (RootValue, error){
		func() (RootValue, error) { return MergeRoots(ctx, base, ours, theirs, nil) },
		func() (RootValue, error) {
			res, err := Merge(ctx, base, ours, theirs, MergeOptions{})
			return res.Root, err
		},
	} {
		if got, err := merge(); err != nil || got.Addr() != want.Addr() {
			t.Errorf("merge of views added on both sides: %v; root differs from applying both: %v", err, got.Addr() != want.Addr())
		}
	}

	// Changed alike on both sides.
	same := put(base, view("v", "SELECT 4 AS x"))
	if got, err := MergeRoots(ctx, base, same, same, nil); err != nil || got.Addr() != same.Addr() {
		t.Errorf("MergeRoots of a view changed alike: %v", err)
	}
	if res, err := Merge(ctx, base, same, same, MergeOptions{}); err != nil || !res.Clean() || res.Root.Addr() != same.Addr() {
		t.Errorf("Merge of a view changed alike: %+v, %v", res, err)
	}

	// Changed differently on both sides.
	ours, theirs = put(base, view("v", "SELECT 5 AS x")), put(base, view("v", "SELECT 6 AS x"))
	if _, err := MergeRoots(ctx, base, ours, theirs, nil); !errors.Is(err, ErrConflict) {
		t.Errorf("MergeRoots of a view changed differently: %v, want ErrConflict", err)
	}
	res, err := Merge(ctx, base, ours, theirs, MergeOptions{FromRoot: "theirs"})
	if err != nil || res.SchemaConflicts != 1 {
		t.Fatalf("Merge of a view changed differently: %+v, %v; want one schema conflict", res, err)
	}
	if v, _, _ := res.Root.View(ctx, "public", "v"); v == nil || v.Query != "SELECT 5 AS x" {
		t.Errorf("view in conflict = %+v, want ours until resolved", v)
	}
	tc, ok, err := res.Root.Conflicts(ctx, "public", "v")
	if err != nil || !ok || tc.Kind != KindView || !slices.Equal(tc.ObjectFields(), []string{"definition"}) || tc.TheirsRecord == nil {
		t.Fatalf("conflict record = %+v, %v, %v", tc, ok, err)
	}
	for _, side := range []struct {
		theirs bool
		query  string
	}{{false, "SELECT 5 AS x"}, {true, "SELECT 6 AS x"}} {
		r, err := ResolveConflicts(ctx, res.Root, "public", "v", side.theirs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c, _ := r.HasConflicts(ctx); c {
			t.Errorf("theirs=%v: conflicts left after resolving", side.theirs)
		}
		if v, _, _ := r.View(ctx, "public", "v"); v == nil || v.Query != side.query {
			t.Errorf("theirs=%v: resolved view = %+v, want %q", side.theirs, v, side.query)
		}
	}

	// Dropped on one side, changed on the other.
	dropped, err := base.DropView(ctx, "public", "v")
	if err != nil {
		t.Fatal(err)
	}
	if res, err := Merge(ctx, base, ours, dropped, MergeOptions{}); err != nil || res.SchemaConflicts != 1 {
		t.Errorf("Merge of a view changed and dropped: %+v, %v", res, err)
	} else if r, err := ResolveConflicts(ctx, res.Root, "public", "v", true, nil); err != nil {
		t.Fatal(err)
	} else if _, ok, _ := r.View(ctx, "public", "v"); ok {
		t.Error("resolving with theirs kept the view theirs dropped")
	}
}

// TestStageObjects checks that objects other than tables stage by name
// and with dolt_commit -a's rule: changed ones, not new ones.
func TestStageObjects(t *testing.T) {
	ctx := context.Background()
	head, err := NewRootValue(ctx, store.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	fn := &sqldef.Function{Schema: "public", Name: "f", Kind: 'f', Returns: 23, Language: "sql", Body: "SELECT 1", Volatility: 'v',
		Args: []sqldef.FuncArg{{Type: 23, Mode: 'i'}}}
	if head, err = head.PutFunction(ctx, fn); err != nil {
		t.Fatal(err)
	}
	changed := *fn
	changed.Body = "SELECT 2"
	working, _ := head.PutFunction(ctx, &changed)
	working, _ = working.PutView(ctx, &sqldef.View{Schema: "public", Name: "v", Query: "SELECT 1"})
	names, err := working.ObjectsNamed(ctx, "public", "f")
	if err != nil || len(names) != 1 || names[0].BaseName() != "f" {
		t.Fatalf("ObjectsNamed(f) = %v, %v", names, err)
	}
	staged, err := StageObjects(ctx, head, working, names)
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := staged.Function(ctx, "public", "f", []uint32{23}); got == nil || got.Body != "SELECT 2" {
		t.Errorf("staged f = %+v", got)
	}
	if _, ok, _ := staged.View(ctx, "public", "v"); ok {
		t.Error("staging f staged v")
	}
	tracked, err := StageTracked(ctx, head, head, working)
	if err != nil {
		t.Fatal(err)
	}
	if tracked.Addr() != staged.Addr() {
		t.Error("dolt_commit -a's staging differs from staging the changed function alone")
	}
}

// TestSequenceMergeRules checks that a sequence no column owns,
// redefined differently on both sides, is a conflict of the merge of
// branches, while its position advanced on both sides keeps the further.
func TestSequenceMergeRules(t *testing.T) {
	ctx := context.Background()
	base, err := NewRootValue(ctx, store.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	seq := func(inc, last int64) *sqldef.Sequence {
		return &sqldef.Sequence{Schema: "public", Name: "s", Type: 20, Start: 1, Increment: inc, Min: 1, Max: 1 << 40, Cache: 1, Last: last, Called: last > 1}
	}
	base, _ = base.PutSequence(ctx, seq(1, 1))
	ours, _ := base.PutSequence(ctx, seq(1, 5))
	theirs, _ := base.PutSequence(ctx, seq(1, 9))
	if res, err := Merge(ctx, base, ours, theirs, MergeOptions{}); err != nil || !res.Clean() {
		t.Fatalf("Merge of a sequence advanced on both sides: %+v, %v", res, err)
	} else if s, _, _ := res.Root.Sequence(ctx, "public", "s"); s == nil || s.Last != 9 {
		t.Errorf("merged sequence = %+v, want the further position", s)
	}
	theirs, _ = base.PutSequence(ctx, seq(2, 1))
	ours, _ = base.PutSequence(ctx, seq(3, 1))
	res, err := Merge(ctx, base, ours, theirs, MergeOptions{})
	if err != nil || res.SchemaConflicts != 1 {
		t.Fatalf("Merge of a sequence redefined on both sides: %+v, %v", res, err)
	}
	if tc, ok, _ := res.Root.Conflicts(ctx, "public", "s"); !ok || tc.Kind != KindSequence {
		t.Errorf("conflict record = %+v", tc)
	}
}
