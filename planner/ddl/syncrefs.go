package ddl

import (
	"context"
	"slices"

	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// fkRefs returns the references a table's foreign keys make.
func fkRefs(t *sqldef.Table) []sqldef.ForeignKeyRef {
	if t == nil {
		return nil
	}
	var out []sqldef.ForeignKeyRef
	for _, fk := range t.ForeignKeys {
		out = append(out, sqldef.ForeignKeyRef{RefSchema: fk.RefSchema, RefTable: fk.RefTable, Schema: t.Schema, Table: t.Name, Name: fk.Name})
	}
	return out
}

// SyncRefs updates the records root derives from table records — foreign
// key references and inheritance — for a table record replaced from old to
// new (either may be nil: created, dropped).
func SyncRefs(ctx context.Context, root versioning.RootValue, old, new *sqldef.Table) (versioning.RootValue, error) {
	root, err := syncInheritance(ctx, root, old, new)
	if err != nil {
		return root, err
	}
	before, after := fkRefs(old), fkRefs(new)
	for _, r := range before {
		if !slices.Contains(after, r) {
			if root, err = root.DropForeignKeyRef(ctx, r); err != nil {
				return root, err
			}
		}
	}
	for _, r := range after {
		if !slices.Contains(before, r) {
			if root, err = root.PutForeignKeyRef(ctx, r); err != nil {
				return root, err
			}
		}
	}
	return root, nil
}

// syncInheritance updates root's inheritance records for a table record
// replaced from old to new (either may be nil: created, dropped).
func syncInheritance(ctx context.Context, root versioning.RootValue, old, new *sqldef.Table) (versioning.RootValue, error) {
	var before, after []sqldef.TableName
	var oldName, newName sqldef.TableName
	if old != nil {
		before, oldName = parentsOf(old), sqldef.TableName{Schema: old.Schema, Name: old.Name}
	}
	if new != nil {
		after, newName = parentsOf(new), sqldef.TableName{Schema: new.Schema, Name: new.Name}
	}
	var err error
	for _, p := range before {
		if oldName != newName || !slices.Contains(after, p) {
			if root, err = root.DropInheritance(ctx, p, oldName); err != nil {
				return root, err
			}
		}
	}
	for _, p := range after {
		if oldName != newName || !slices.Contains(before, p) {
			if root, err = root.PutInheritance(ctx, p, newName); err != nil {
				return root, err
			}
		}
	}
	return root, nil
}

// parentsOf returns the parents a table record names.
func parentsOf(t *sqldef.Table) []sqldef.TableName {
	if t == nil {
		return nil
	}
	return t.Inherits
}
