package versioning

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// TestFunctionRecords checks that overloads are distinct objects, that a
// database's root does not depend on the order functions were created
// in, and that a function changed differently on both sides fails the
// merge of transactions and is a conflict of the merge of branches,
// while one side's change is taken.
func TestFunctionRecords(t *testing.T) {
	ctx := context.Background()
	base, err := NewRootValue(ctx, store.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	f := func(body string, args ...uint32) *sqldef.Function {
		fn := &sqldef.Function{Schema: "public", Name: "f", Kind: 'f', Returns: 23, Language: "sql", Body: body, Volatility: 'v'}
		for _, a := range args {
			fn.Args = append(fn.Args, sqldef.FuncArg{Type: a, Mode: 'i'})
		}
		return fn
	}
	put := func(r RootValue, fns ...*sqldef.Function) RootValue {
		for _, fn := range fns {
			var err error
			if r, err = r.PutFunction(ctx, fn); err != nil {
				t.Fatal(err)
			}
		}
		return r
	}
	a := put(base, f("SELECT 1", 23), f("SELECT 2", 25))
	b := put(base, f("SELECT 2", 25), f("SELECT 1", 23))
	if a.Addr() != b.Addr() {
		t.Error("the order functions were created in changed the root")
	}
	named, err := a.FunctionsNamed(ctx, "public", "f")
	if err != nil || len(named) != 2 {
		t.Fatalf("FunctionsNamed = %d functions, %v; want 2", len(named), err)
	}
	if got, ok, _ := a.Function(ctx, "public", "f", []uint32{25}); !ok || got.Body != "SELECT 2" {
		t.Errorf("Function(f(text)) = %+v, %v", got, ok)
	}

	ours := put(a, f("SELECT 10", 23))
	theirs := put(a, f("SELECT 20", 23))
	if _, err := MergeRoots(ctx, a, ours, theirs, nil); !errors.Is(err, ErrConflict) {
		t.Errorf("MergeRoots of a function changed on both sides: %v, want ErrConflict", err)
	}
	if res, err := Merge(ctx, a, ours, theirs, MergeOptions{}); err != nil || res.SchemaConflicts != 1 {
		t.Errorf("Merge of a function changed on both sides: %d schema conflicts, %v; want 1", res.SchemaConflicts, err)
	}
	oneSide := put(a, f("SELECT 3", 25))
	merged, err := MergeRoots(ctx, a, ours, oneSide, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := merged.Function(ctx, "public", "f", []uint32{25}); got == nil || got.Body != "SELECT 3" {
		t.Errorf("merged f(text) = %+v, want theirs", got)
	}
	if got, _, _ := merged.Function(ctx, "public", "f", []uint32{23}); got == nil || got.Body != "SELECT 10" {
		t.Errorf("merged f(int) = %+v, want ours", got)
	}
}

// TestTriggersMerge checks that triggers are part of a table's
// definition: added on both sides they merge by name, and changed
// differently on both they conflict.
func TestTriggersMerge(t *testing.T) {
	base := &sqldef.Table{Schema: "public", Name: "t", Columns: []sqldef.Column{{Name: "id", Type: 23, Typmod: -1}}}
	ours, theirs := *base, *base
	ours.Triggers = []sqldef.Trigger{{Name: "a", Timing: 'b', Events: []string{"INSERT"}, FuncSchema: "public", FuncName: "fa"}}
	theirs.Triggers = []sqldef.Trigger{{Name: "b", Timing: 'a', Events: []string{"UPDATE"}, FuncSchema: "public", FuncName: "fb"}}
	if sqldef.SameDefinition(base, &ours) {
		t.Error("a new trigger is not a definition change")
	}
	md := mergeDefinitions(base, &ours, &theirs)
	if md.conflict != "" || len(md.def.Triggers) != 2 {
		t.Fatalf("merged triggers: %+v, conflict %q", md.def, md.conflict)
	}
	theirs.Triggers = []sqldef.Trigger{{Name: "a", Timing: 'a', Events: []string{"INSERT"}, FuncSchema: "public", FuncName: "fa"}}
	if md := mergeDefinitions(base, &ours, &theirs); md.conflict == "" {
		t.Error("a trigger created differently on both sides merged")
	}
}

// TestOperatorRecords checks that operators are function records of
// their own keys: apart from a function of the same name and argument
// types, listed by Operators and OperatorsNamed and not by Functions and
// FunctionsNamed, and merged field by field, their definition one field.
func TestOperatorRecords(t *testing.T) {
	ctx := context.Background()
	base, err := NewRootValue(ctx, store.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	op := func(proc string, args ...uint32) *sqldef.Function {
		o := &sqldef.Function{Schema: "public", Name: "===", Kind: 'o', Returns: 16, Operator: &sqldef.Operator{Proc: proc}}
		for _, a := range args {
			o.Args = append(o.Args, sqldef.FuncArg{Type: a, Mode: 'i'})
		}
		return o
	}
	fn := &sqldef.Function{Schema: "public", Name: "===", Kind: 'f', Returns: 16, Language: "sql", Body: "SELECT true",
		Args: []sqldef.FuncArg{{Type: 23, Mode: 'i'}, {Type: 23, Mode: 'i'}}}
	put := func(r RootValue, fs ...*sqldef.Function) RootValue {
		t.Helper()
		for _, f := range fs {
			var err error
			if r, err = r.PutFunction(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
		return r
	}
	r := put(base, op("pg_catalog.int4eq", 23, 23), op("public.pre", 25), fn)
	if ops, err := r.OperatorsNamed(ctx, "public", "==="); err != nil || len(ops) != 2 {
		t.Errorf("OperatorsNamed = %d operators, %v; want 2", len(ops), err)
	}
	if fs, err := r.FunctionsNamed(ctx, "public", "==="); err != nil || len(fs) != 1 || fs[0].Kind != 'f' {
		t.Errorf("FunctionsNamed = %v, %v; want the function alone", fs, err)
	}
	if fs, err := r.Functions(ctx); err != nil || len(fs) != 1 {
		t.Errorf("Functions = %d, %v; want 1", len(fs), err)
	}
	if got, ok, _ := r.Operator(ctx, "public", "===", 0, 25); !ok || !got.IsPrefix() || got.Operator.Proc != "public.pre" {
		t.Errorf("Operator(=== text) = %+v, %v", got, ok)
	}
	if names, err := r.ObjectsNamed(ctx, "public", "==="); err != nil || len(names) != 3 {
		t.Errorf("ObjectsNamed = %v, %v; want the function and both operators", names, err)
	}

	ours := put(r, op("public.ours", 23, 23))
	theirs := put(r, op("public.theirs", 23, 23))
	if res, err := Merge(ctx, r, ours, theirs, MergeOptions{}); err != nil || res.SchemaConflicts != 1 {
		t.Errorf("Merge of an operator changed on both sides: %d schema conflicts, %v; want 1", res.SchemaConflicts, err)
	}
	dropped, err := r.DropFunction(ctx, op("", 23, 23))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := dropped.Operator(ctx, "public", "===", 23, 23); ok {
		t.Error("DropFunction left the operator")
	}
	if _, ok, _ := dropped.Function(ctx, "public", "===", []uint32{23, 23}); !ok {
		t.Error("DropFunction of the operator dropped the function")
	}
}

// TestCastRecords checks that casts are function records of their own
// keys: listed by Cast and Casts, not by Functions or FunctionsNamed,
// and dropped by DropFunction.
func TestCastRecords(t *testing.T) {
	ctx := context.Background()
	r, err := NewRootValue(ctx, store.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	cast := &sqldef.Function{Schema: "pg_catalog", Name: "cast", Kind: 'c', Args: []sqldef.FuncArg{{Type: 23, Mode: 'i'}}, Returns: 1082,
		Cast: &sqldef.Cast{Proc: "public.to_date", ProcArgs: []uint32{23}, Context: 'a', Method: 'f'}}
	fn := &sqldef.Function{Schema: "pg_catalog", Name: "cast", Kind: 'f', Returns: 1082, Language: "sql", Body: "SELECT null::date",
		Args: []sqldef.FuncArg{{Type: 23, Mode: 'i'}}}
	for _, f := range []*sqldef.Function{cast, fn} {
		if r, err = r.PutFunction(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if got, ok, err := r.Cast(ctx, 23, 1082); err != nil || !ok || got.Cast.Proc != "public.to_date" {
		t.Errorf("Cast(23, 1082) = %+v, %v, %v", got, ok, err)
	}
	if cs, err := r.Casts(ctx); err != nil || len(cs) != 1 {
		t.Errorf("Casts = %d, %v; want 1", len(cs), err)
	}
	if fs, err := r.FunctionsNamed(ctx, "pg_catalog", "cast"); err != nil || len(fs) != 1 || fs[0].Kind != 'f' {
		t.Errorf("FunctionsNamed = %v, %v; want the function alone", fs, err)
	}
	if fs, err := r.Functions(ctx); err != nil || len(fs) != 1 {
		t.Errorf("Functions = %d, %v; want 1", len(fs), err)
	}
	if r, err = r.DropFunction(ctx, cast); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := r.Cast(ctx, 23, 1082); ok {
		t.Error("DropFunction left the cast")
	}
	if _, ok, _ := r.Function(ctx, "pg_catalog", "cast", []uint32{23}); !ok {
		t.Error("DropFunction of the cast dropped the function")
	}
}

// TestTableSettingsMerge checks that the table settings one side turns on
// survive a merge with a definition change on the other: DISABLE TRIGGER
// ALL, the clustered primary key, and an index's access method and
// clustered mark.
func TestTableSettingsMerge(t *testing.T) {
	base := &sqldef.Table{Schema: "public", Name: "t", Columns: []sqldef.Column{{Name: "id", Type: 23, Typmod: -1}},
		PrimaryKey: []int{0}, PrimaryKeyName: "t_pkey", Indexes: []sqldef.Index{{Name: "t_id", Columns: []sqldef.IndexColumn{{Column: 0}}}}}
	ours, theirs := *base, *base
	ours.Columns = append(slices.Clone(base.Columns), sqldef.Column{Name: "v", Type: 25, Typmod: -1})
	theirs.SystemTriggersDisabled = true
	theirs.SetClustered("t_pkey")
	md := mergeDefinitions(base, &ours, &theirs)
	if md.conflict != "" {
		t.Fatalf("conflict %q", md.conflict)
	}
	if !md.def.SystemTriggersDisabled || md.def.ClusteredIndex() != "t_pkey" || len(md.def.Columns) != 2 {
		t.Errorf("merged: triggers disabled %v, clustered %q, %d columns; want true, t_pkey, 2",
			md.def.SystemTriggersDisabled, md.def.ClusteredIndex(), len(md.def.Columns))
	}
	theirs = *base
	theirs.Indexes = []sqldef.Index{{Name: "t_id", Columns: []sqldef.IndexColumn{{Column: 0, Opclass: "int4_ops"}}, Method: "brin", Clustered: true}}
	md = mergeDefinitions(base, &ours, &theirs)
	if md.conflict != "" || md.def.Indexes[0].Method != "brin" || md.def.ClusteredIndex() != "t_id" {
		t.Errorf("merged index %+v, conflict %q; want theirs' brin index, clustered", md.def.Indexes, md.conflict)
	}
}
