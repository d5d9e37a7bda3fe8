package versioning

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Resolution of what a merge recorded: dolt_conflicts_resolve, and DELETE
// from the dolt_conflicts_<table> and dolt_constraint_violations_<table>
// tables.

// ResolveConflicts resolves the conflicts of table schema.name in root:
// with ours the table stays as it is; with theirs every conflicting row
// takes theirs' version (a schema conflict: theirs' whole table; an
// object's conflict: theirs' values of the fields in conflict, or theirs'
// object if it was dropped on one side).
// Constraint violations are left for the user.
func ResolveConflicts(ctx context.Context, root RootValue, schema, name string, theirs bool, enc IndexEncoder) (RootValue, error) {
	tc, ok, err := root.Conflicts(ctx, schema, name)
	if err != nil || !ok {
		return root, err
	}
	if tc.Kind != 0 {
		if theirs {
			if root, err = takeTheirFields(ctx, root, tc); err != nil {
				return RootValue{}, err
			}
		}
		return DropObjectFields(ctx, root, tc, tc.ObjectFields()...)
	}
	if theirs && tc.SchemaConflict != "" {
		if tc.Theirs == nil {
			root, err = root.DropTable(ctx, schema, name)
		} else {
			root, err = root.PutTable(ctx, tc.Theirs)
		}
		if err != nil {
			return RootValue{}, err
		}
	} else if theirs {
		if root, err = takeTheirRows(ctx, root, tc, enc); err != nil {
			return RootValue{}, err
		}
	}
	tc.SchemaConflict = ""
	tc.Rows = store.Address{}
	return root.PutConflicts(ctx, tc)
}

// takeTheirRows writes theirs' version of every conflicting row of tc in
// its table.
func takeTheirRows(ctx context.Context, root RootValue, tc *TableConflicts, enc IndexEncoder) (RootValue, error) {
	rows, err := tc.rowConflicts(ctx, root.Store())
	if err != nil {
		return RootValue{}, err
	}
	var edits []RowEdit
	it := rows.NewIter(ctx, prolly.IterOptions{})
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.Value()
		if err != nil {
			it.Close()
			return RootValue{}, err
		}
		cr, err := decodeConflictRow(v)
		if err != nil {
			it.Close()
			return RootValue{}, err
		}
		edits = append(edits, RowEdit{Key: bytes.Clone(it.Key()), Row: bytes.Clone(cr.Theirs), Delete: cr.Theirs == nil})
	}
	if err := it.Close(); err != nil {
		return RootValue{}, err
	}
	def, ok, err := root.Table(ctx, tc.Schema, tc.Name)
	if err != nil {
		return RootValue{}, err
	}
	if !ok {
		return RootValue{}, fmt.Errorf("%w: conflicts of missing table %q.%q", ErrCorrupt, tc.Schema, tc.Name)
	}
	if def, err = WriteRows(ctx, root.Store(), def, edits, enc); err != nil {
		return RootValue{}, err
	}
	return root.PutTable(ctx, def)
}

// RowEdit sets or removes one stored row.
type RowEdit struct {
	Key    []byte
	Row    []byte
	Delete bool
}

// WriteRows returns def with edits (in increasing key order) applied to
// its rows and its indexes kept in step. It checks no constraint: it
// puts back rows that a merge had.
func WriteRows(ctx context.Context, cs prolly.ChunkStore, def *sqldef.Table, edits []RowEdit, enc IndexEncoder) (*sqldef.Table, error) {
	rows, err := prolly.Load(ctx, cs, def.Rows)
	if err != nil {
		return nil, err
	}
	all := make([]bool, len(def.Indexes))
	entries := make([]map[string]bool, len(def.Indexes))
	for i := range all {
		all[i], entries[i] = true, map[string]bool{}
	}
	pe := make([]prolly.Edit, len(edits))
	for i, e := range edits {
		pe[i] = prolly.Edit{Key: e.Key, Value: e.Row, Delete: e.Delete}
		if len(def.Indexes) == 0 {
			continue
		}
		old, ok, err := rows.Get(ctx, e.Key)
		if err != nil {
			return nil, err
		}
		var olds [][]byte
		if ok {
			olds = [][]byte{bytes.Clone(old)}
		}
		final := e.Row
		if e.Delete {
			final = nil
		}
		if err := indexEntryEdits(ctx, enc, def, entries, all, e.Key, olds, final); err != nil {
			return nil, err
		}
	}
	if rows, err = rows.Apply(ctx, pe); err != nil {
		return nil, err
	}
	out := *def
	out.Rows = rows.Root()
	out.Indexes = append([]sqldef.Index(nil), def.Indexes...)
	for i := range out.Indexes {
		m, err := prolly.Load(ctx, cs, out.Indexes[i].Rows)
		if err != nil {
			return nil, err
		}
		if m, err = m.Apply(ctx, prolly.SetEdits(entries[i])); err != nil {
			return nil, err
		}
		out.Indexes[i].Rows = m.Root()
	}
	return &out, nil
}

// DeleteConflicts marks the row conflicts of table schema.name under keys
// resolved, leaving the table as it is. With violations set, keys are
// keys of its constraint violations instead.
func DeleteConflicts(ctx context.Context, root RootValue, schema, name string, keys [][]byte, violations bool) (RootValue, error) {
	tc, ok, err := root.Conflicts(ctx, schema, name)
	if err != nil || !ok || len(keys) == 0 {
		return root, err
	}
	addr := &tc.Rows
	if violations {
		addr = &tc.Violations
	}
	m, err := loadOrEmpty(ctx, root.Store(), *addr)
	if err != nil {
		return RootValue{}, err
	}
	sorted := append([][]byte(nil), keys...)
	slices.SortFunc(sorted, bytes.Compare)
	var edits []prolly.Edit
	for i, k := range sorted {
		if i > 0 && bytes.Equal(k, sorted[i-1]) {
			continue
		}
		edits = append(edits, prolly.Edit{Key: k, Delete: true})
	}
	if m, err = m.Apply(ctx, edits); err != nil {
		return RootValue{}, err
	}
	*addr = m.Root()
	return root.PutConflicts(ctx, tc)
}
