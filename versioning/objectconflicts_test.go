package versioning

import (
	"context"
	"slices"
	"testing"

	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// TestObjectFieldMerge checks that an object changed on both sides
// merges field by field: fields changed on one side take that side's
// value, fields changed differently conflict (ours kept in them), and
// the conflict is resolved by field (SetObjectField, DropObjectFields)
// or with theirs' values (ResolveConflicts).
func TestObjectFieldMerge(t *testing.T) {
	ctx := context.Background()
	base, err := NewRootValue(ctx, store.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	fn := func(body string, returns uint32, strict bool) *sqldef.Function {
		return &sqldef.Function{Schema: "public", Name: "f", Kind: 'f', Args: []sqldef.FuncArg{{Name: "x", Type: 25, Mode: 'i'}},
			Returns: returns, Language: "plpgsql", Body: body, Volatility: 'v', Strict: strict}
	}
	put := func(r RootValue, f *sqldef.Function) RootValue {
		r, err := r.PutFunction(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	get := func(r RootValue) *sqldef.Function {
		f, ok, err := r.Function(ctx, "public", "f", []uint32{25})
		if err != nil || !ok {
			t.Fatalf("function f: %v, %v", ok, err)
		}
		return f
	}
	base = put(base, fn("one", 25, false))

	// One side's change of each field merges.
	res, err := Merge(ctx, base, put(base, fn("two", 25, false)), put(base, fn("one", 25, true)), MergeOptions{})
	if err != nil || !res.Clean() {
		t.Fatalf("Merge of changes of different fields: %+v, %v", res, err)
	}
	if f := get(res.Root); f.Body != "two" || !f.Strict {
		t.Errorf("merged function = %+v, want ours' body and theirs' strictness", f)
	}
	if want := put(base, fn("two", 25, true)); res.Root.Addr() != want.Addr() {
		t.Error("a field-merged record differs from the same function written directly")
	}

	// The fields both sides changed differently conflict.
	ours, theirs := put(base, fn("two", 700, true)), put(base, fn("three", 20, true))
	res, err = Merge(ctx, base, ours, theirs, MergeOptions{FromRoot: "c"})
	if err != nil || res.SchemaConflicts != 1 {
		t.Fatalf("Merge of a function changed differently: %+v, %v", res, err)
	}
	tc, ok, err := res.Root.Conflicts(ctx, "public", "f(25)")
	if err != nil || !ok {
		t.Fatalf("conflict record: %v, %v", ok, err)
	}
	if got := tc.ObjectFields(); !slices.Equal(got, []string{"return_type", "definition"}) {
		t.Fatalf("fields in conflict = %v", got)
	}
	if f := get(res.Root); f.Body != "two" || f.Returns != 700 || !f.Strict {
		t.Errorf("function in conflict = %+v, want ours in the conflicting fields", f)
	}
	if text, ok, err := ObjectFieldText(KindFunction, tc.TheirsRecord, "definition"); err != nil || !ok || text != "three" {
		t.Errorf("their definition = %q, %v, %v", text, ok, err)
	}

	// One field takes theirs, the other is marked resolved as it is.
	rec, err := CopyObjectField(KindFunction, tc.OursRecord, tc.TheirsRecord, "return_type")
	if err != nil {
		t.Fatal(err)
	}
	r, err := SetObjectField(ctx, res.Root, tc, "return_type", rec, true)
	if err != nil {
		t.Fatal(err)
	}
	if tc, _, _ := r.Conflicts(ctx, "public", "f(25)"); tc == nil || !slices.Equal(tc.ObjectFields(), []string{"definition"}) {
		t.Fatalf("conflict after resolving return_type = %+v", tc)
	}
	if r, err = DropObjectFields(ctx, r, tc, "definition"); err != nil {
		t.Fatal(err)
	}
	if c, _ := r.HasConflicts(ctx); c {
		t.Error("conflicts left after resolving every field")
	}
	if f := get(r); f.Body != "two" || f.Returns != 20 {
		t.Errorf("resolved function = %+v, want ours' body and theirs' result type", f)
	}

	// dolt_conflicts_resolve --theirs takes theirs' values of the
	// conflicting fields only.
	ours = put(base, fn("two", 700, false))
	theirs = put(base, fn("three", 20, true))
	res, err = Merge(ctx, base, put(ours, fn("two", 700, false)), theirs, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, err = ResolveConflicts(ctx, res.Root, "public", "f(25)", true, nil); err != nil {
		t.Fatal(err)
	}
	if want := put(base, fn("three", 20, true)); r.Addr() != want.Addr() {
		t.Errorf("resolved with theirs: %+v", get(r))
	}

	// Dropped on one side: a conflict on the whole object.
	dropped, err := base.DropFunction(ctx, get(base))
	if err != nil {
		t.Fatal(err)
	}
	res, err = Merge(ctx, base, dropped, theirs, MergeOptions{})
	if err != nil || res.SchemaConflicts != 1 {
		t.Fatalf("Merge of a function dropped and changed: %+v, %v", res, err)
	}
	tc, _, _ = res.Root.Conflicts(ctx, "public", "f(25)")
	if tc == nil || !slices.Equal(tc.ObjectFields(), []string{FieldRootObject}) {
		t.Fatalf("conflict of a dropped function = %+v", tc)
	}
	v, _ := tc.ObjectVersion(VersionTheirs)
	if r, err = SetObjectField(ctx, res.Root, tc, FieldRootObject, v, false); err != nil {
		t.Fatal(err)
	}
	if c, _ := r.HasConflicts(ctx); c || get(r).Body != "three" {
		t.Errorf("picking theirs: conflicts %v, function %+v", c, get(r))
	}
}
