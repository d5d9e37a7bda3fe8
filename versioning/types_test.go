package versioning

import (
	"context"
	"errors"
	"testing"

	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

func moodType(labels ...string) *sqldef.Type {
	t := &sqldef.Type{Schema: "public", Name: "mood", Kind: 'e'}
	for i, l := range labels {
		t.Labels = append(t.Labels, sqldef.EnumLabel{Label: l, Sort: float64(i + 1)})
	}
	return t
}

// Types are keyed by name like every other object: creating them in any
// order, or creating and dropping others on the way, gives one root.
func TestTypesHistoryIndependent(t *testing.T) {
	ctx := context.Background()
	empty, err := NewRootValue(ctx, store.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	complexType := &sqldef.Type{Schema: "public", Name: "complex", Kind: 'c', Fields: []sqldef.ViewColumn{{Name: "r", Type: 701, Typmod: -1}, {Name: "i", Type: 701, Typmod: -1}}}
	posint := &sqldef.Type{Schema: "public", Name: "posint", Kind: 'd', Base: 23, BaseTypmod: -1, Checks: []sqldef.Check{{Name: "posint_check", Expr: "VALUE > 0"}}}

	a, _ := empty.PutType(ctx, moodType("sad", "ok", "happy"))
	a, _ = a.PutType(ctx, complexType)
	a, _ = a.PutType(ctx, posint)

	b, _ := empty.PutType(ctx, posint)
	b, _ = b.PutType(ctx, &sqldef.Type{Schema: "public", Name: "gone", Kind: 'e'})
	b, _ = b.PutType(ctx, moodType("sad", "happy"))
	b, _ = b.PutType(ctx, complexType)
	b, _ = b.DropType(ctx, "public", "gone")
	b, _ = b.PutType(ctx, moodType("sad", "ok", "happy"))
	if a.Addr() != b.Addr() {
		t.Fatalf("same types built two ways: %s vs %s", a.Addr(), b.Addr())
	}
	types, err := a.Types(ctx)
	if err != nil || len(types) != 3 || types[0].Name != "complex" || types[1].Name != "mood" || types[2].Name != "posint" {
		t.Fatalf("Types() = %v, %v", types, err)
	}
	if got, ok, _ := a.Type(ctx, "public", "mood"); !ok || len(got.Labels) != 3 || got.Labels[2].Label != "happy" {
		t.Fatalf("Type(mood) = %+v, %v", got, ok)
	}
}

// A type changed differently by two transactions, or on two branches,
// does not merge; changed on one side only, it takes that side.
func TestTypesMerge(t *testing.T) {
	ctx := context.Background()
	base, _ := NewRootValue(ctx, store.NewMemory())
	base, _ = base.PutType(ctx, moodType("sad", "happy"))
	ours, _ := base.PutType(ctx, moodType("sad", "ok", "happy"))
	theirs, _ := base.PutType(ctx, moodType("sad", "happy", "ecstatic"))
	if _, err := MergeRoots(ctx, base, ours, theirs, nil); !errors.Is(err, ErrConflict) {
		t.Fatalf("MergeRoots of a type changed on both sides: %v, want ErrConflict", err)
	}
	if res, err := Merge(ctx, base, ours, theirs, MergeOptions{}); err != nil || res.SchemaConflicts != 1 {
		t.Fatalf("Merge of a type changed on both sides: %d schema conflicts, %v; want 1", res.SchemaConflicts, err)
	}
	other, _ := base.PutType(ctx, &sqldef.Type{Schema: "public", Name: "other", Kind: 'e'})
	merged, err := MergeRoots(ctx, base, ours, other, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ours.PutType(ctx, &sqldef.Type{Schema: "public", Name: "other", Kind: 'e'})
	if merged.Addr() != want.Addr() {
		t.Fatal("merge of disjoint type changes differs from applying both")
	}
}
