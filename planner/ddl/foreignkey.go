package ddl

import (
	"context"
	"slices"
	"sort"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Foreign keys: the DDL side. A foreign key lives in the referencing
// table's record (ForeignKeys); the root value also keeps a
// ForeignKeyRef per key, keyed by the referenced table, which DELETE and
// UPDATE of that table read to find what references it (exec/fk.go
// enforces both sides). syncRefs keeps those refs equal to the tables'
// keys: every DDL that writes or drops a table record goes through it.

// addForeignKey resolves a FOREIGN KEY or REFERENCES constraint of the
// table being built: the referenced table and columns (its primary key
// when none are named), which must be exactly the columns of its primary
// key or of a unique constraint, in any order.
func (d *tableDDL) addForeignKey(ctx context.Context, con *pg.Constraint, cols []int) error {
	def := d.def
	if err := checkForeignKeyGenerated(def, con, cols); err != nil {
		return err
	}
	refSchema, refName := con.Pktable.Schemaname, con.Pktable.Relname
	var ref *sqldef.Table
	switch {
	case refName == def.Name && (refSchema == "" || refSchema == def.Schema):
		ref = def // a self-reference
	default:
		rel, schema, err := d.a.LookupRelation(ctx, refSchema, refName)
		if err != nil {
			return err
		}
		if rel.Kind != planner.RelTable {
			if rel.Kind == planner.RelNone {
				return planner.WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(con.Pktable)), con.Pktable.Location)
			}
			return pgerr.New(pgerr.WrongObjectType, "referenced relation %q is not a table", refName)
		}
		if planner.IsTempSchema(schema) != planner.IsTempSchema(def.Schema) {
			if planner.IsTempSchema(def.Schema) {
				return pgerr.New(pgerr.InvalidTableDefinition, "constraints on temporary tables may reference only temporary tables")
			}
			return pgerr.New(pgerr.InvalidTableDefinition, "constraints on permanent tables may reference only permanent tables")
		}
		if rel.Table.Unlogged && !def.Unlogged && !planner.IsTempSchema(def.Schema) {
			return pgerr.New(pgerr.InvalidTableDefinition, "constraints on permanent tables may reference only permanent tables")
		}
		ref = rel.Table
	}
	var refCols []int
	if len(con.PkAttrs) == 0 {
		if len(ref.PrimaryKey) == 0 {
			return pgerr.New(pgerr.InvalidForeignKey, "there is no primary key for referenced table %q", ref.Name)
		}
		refCols = slices.Clone(ref.PrimaryKey)
	} else {
		for _, n := range con.PkAttrs {
			name := n.GetString_().GetSval()
			pos := -1
			for i, c := range ref.Columns {
				if !c.Dropped && c.Name == name {
					pos = i
				}
			}
			if pos < 0 {
				return fkColumnMissing(name)
			}
			refCols = append(refCols, pos)
		}
	}
	if len(refCols) != len(cols) {
		return pgerr.New(pgerr.InvalidForeignKey, "number of referencing and referenced columns for foreign key disagree")
	}
	if len(con.PkAttrs) > 0 && !uniqueOn(ref, refCols) {
		return pgerr.New(pgerr.InvalidForeignKey, "there is no unique constraint matching given keys for referenced table %q", ref.Name)
	}
	var names []string
	for _, c := range cols {
		names = append(names, def.Columns[c].Name)
	}
	name := con.Conname
	if name == "" {
		name = d.ns.chooseConstraintName(def.Name, indexNameAddition(names), "fkey")
	} else {
		if planner.ConstraintExists(def, name) {
			return pgerr.New(pgerr.DuplicateObject, "constraint %q for relation %q already exists", name, def.Name)
		}
		d.ns.cons[name] = true
	}
	for i, c := range cols {
		ct, rt := def.Columns[c], ref.Columns[refCols[i]]
		if !comparableKeys(ct.Type, rt.Type) {
			return pgerr.New(pgerr.DatatypeMismatch, "foreign key constraint %q cannot be implemented", name).
				WithDetail("Key columns %q and %q are of incompatible types: %s and %s.", ct.Name, rt.Name, exec.TypeName(ct.Type), exec.TypeName(rt.Type))
		}
	}
	fk := sqldef.ForeignKey{Name: name, Columns: cols, RefSchema: ref.Schema, RefTable: ref.Name, RefColumns: refCols,
		OnDelete: fkAction(con.FkDelAction), OnUpdate: fkAction(con.FkUpdAction), NotValid: con.SkipValidation,
		Deferrable: con.Deferrable || con.Initdeferred, InitiallyDeferred: con.Initdeferred}
	if ref == def {
		fk.RefSchema = def.Schema
	}
	for _, n := range con.FkDelSetCols {
		name := n.GetString_().GetSval()
		pos := d.column(name)
		if pos < 0 {
			return fkColumnMissing(name)
		}
		if !slices.Contains(cols, pos) {
			return pgerr.New(pgerr.InvalidColumnReference, "column %q referenced in ON DELETE SET action must be part of foreign key", name)
		}
		if !slices.Contains(fk.DeleteSetColumns, pos) { // a column named twice counts once
			fk.DeleteSetColumns = append(fk.DeleteSetColumns, pos)
		}
	}
	switch con.FkMatchtype {
	case "f":
		fk.Match = 'f'
	case "p":
		return pgerr.New(pgerr.FeatureNotSupported, "MATCH PARTIAL not yet implemented")
	}
	def.ForeignKeys = append(def.ForeignKeys, fk)
	d.newFKs = append(d.newFKs, len(def.ForeignKeys)-1)
	return nil
}

// fkAction maps the parser's action letter to the stored one: 0 for NO
// ACTION (the default), else PostgreSQL's confdeltype letter.
func fkAction(a string) byte {
	switch a {
	case "r", "c", "n", "d":
		return a[0]
	}
	return 0
}

// uniqueOn reports whether t has a primary key or unique constraint (or
// unique index) on exactly the columns cols, in any order.
func uniqueOn(t *sqldef.Table, cols []int) bool {
	same := func(a []int) bool {
		x, y := slices.Clone(a), slices.Clone(cols)
		sort.Ints(x)
		sort.Ints(y)
		return slices.Equal(x, y)
	}
	if len(t.PrimaryKey) > 0 && same(t.PrimaryKey) {
		return true
	}
	for _, ix := range t.Indexes {
		if !ix.Unique || !ix.Plain() {
			continue
		}
		var ic []int
		for _, c := range ix.Columns {
			ic = append(ic, c.Column)
		}
		if same(ic) {
			return true
		}
	}
	return false
}

// comparableKeys reports whether a referencing column of type fk can
// reference one of type pk, as PostgreSQL decides: the referenced key's
// btree operator family compares the two types (the integers among
// themselves, the floats, text with varchar and name, the dates and
// timestamps), or fk converts to pk implicitly (an integer to numeric,
// not numeric to an integer).
func comparableKeys(fk, pk uint32) bool {
	if fk == pk {
		return true
	}
	family := func(oid uint32) int {
		switch oid {
		case exec.OIDInt2, exec.OIDInt4, exec.OIDInt8:
			return 1
		case exec.OIDFloat4, exec.OIDFloat8:
			return 2
		case exec.OIDText, exec.OIDVarchar, exec.OIDName:
			return 3
		case exec.OIDDate, exec.OIDTimestamp, exec.OIDTimestampTZ:
			return 4
		}
		return 0
	}
	if f := family(fk); f != 0 && f == family(pk) {
		return true
	}
	return exec.CanCoerce(fk, pk)
}

// referencingOthers returns the foreign keys of other tables that
// reference t (a table's references to itself go with it).
func referencingOthers(ctx context.Context, root versioning.RootValue, t *sqldef.Table) ([]sqldef.ForeignKeyRef, error) {
	refs, err := root.ReferencingKeys(ctx, t.Schema, t.Name)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(refs, func(r sqldef.ForeignKeyRef) bool { return r.Schema == t.Schema && r.Table == t.Name }), nil
}

// dropForeignKeys removes the foreign keys refs from their tables.
func (a *analyzer) dropForeignKeys(ctx context.Context, refs []sqldef.ForeignKeyRef) error {
	for _, r := range refs {
		t, ok, err := a.tx.Root().Table(ctx, r.Schema, r.Table)
		if err != nil || !ok {
			return err
		}
		def := cloneTable(t)
		def.ForeignKeys = slices.DeleteFunc(def.ForeignKeys, func(fk sqldef.ForeignKey) bool { return fk.Name == r.Name })
		if err := a.putTable(ctx, def); err != nil {
			return err
		}
	}
	return nil
}

// dependentKeys fails with 2BP01 when foreign keys of other tables
// reference t, unless cascade, which drops them (with a notice).
func (a *analyzer) dependentKeys(ctx context.Context, t *sqldef.Table, what string, cascade bool, onlyCols []int) error {
	refs, err := referencingOthers(ctx, a.tx.Root(), t)
	if err != nil {
		return err
	}
	if onlyCols != nil {
		refs = slices.DeleteFunc(refs, func(r sqldef.ForeignKeyRef) bool {
			child, ok, _ := a.tx.Root().Table(ctx, r.Schema, r.Table)
			if !ok {
				return true
			}
			for _, fk := range child.ForeignKeys {
				if fk.Name == r.Name {
					for _, c := range fk.RefColumns {
						if slices.Contains(onlyCols, c) {
							return false
						}
					}
				}
			}
			return true
		})
	}
	if len(refs) == 0 {
		return nil
	}
	if !cascade {
		r := refs[0]
		return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop %s because other objects depend on it", what).
			WithDetail("constraint %s on table %s depends on %s", r.Name, r.Table, what).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	for _, r := range refs {
		a.cascaded("constraint " + r.Name + " on table " + r.Table)
	}
	return a.dropForeignKeys(ctx, refs)
}

// validateForeignKey checks the rows of t against a new foreign key.
func (a *analyzer) validateForeignKey(ctx context.Context, def *sqldef.Table, fk sqldef.ForeignKey) error {
	t, ok, err := a.tx.Table(ctx, def.Schema, def.Name)
	if err != nil || !ok {
		return err
	}
	return a.tx.CheckForeignKey(ctx, t, fk)
}

// fkColumnMissing is the error for a column a foreign key names that its
// table lacks; a system column has one of its own.
func fkColumnMissing(name string) error {
	if planner.IsSystemColumn(name) {
		return pgerr.New(pgerr.FeatureNotSupported, "system columns cannot be used in foreign keys")
	}
	return pgerr.New(pgerr.UndefinedColumn, "column %q referenced in foreign key constraint does not exist", name)
}
