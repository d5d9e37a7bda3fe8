package ddl

import (
	"context"
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// addInherit runs ALTER TABLE child INHERIT parent, as PostgreSQL's
// ATExecAddInherit: the child must already have every column of the
// parent, of the same type and NOT NULL where the parent's is, and every
// inheritable CHECK constraint, with the same definition; they then count
// one more parent each.
func (a *analyzer) addInherit(ctx context.Context, def *sqldef.Table, rv *pg.RangeVar) error {
	if def.IsPartition() {
		return pgerr.New(pgerr.WrongObjectType, "cannot change inheritance of a partition")
	}
	if def.Partitioned() {
		return pgerr.New(pgerr.WrongObjectType, "cannot change inheritance of partitioned table")
	}
	rel, schema, err := a.LookupRelation(ctx, rv.Schemaname, rv.Relname)
	if err != nil {
		return err
	}
	switch {
	case rel.Kind == planner.RelNone:
		return planner.WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(rv)), rv.Location)
	case rel.Kind != planner.RelTable:
		return pgerr.New(pgerr.WrongObjectType, "%q is not a table", rv.Relname)
	case rel.Table.Partitioned():
		return pgerr.New(pgerr.WrongObjectType, "cannot inherit from partitioned table %q", rv.Relname)
	case rel.Table.IsPartition():
		return pgerr.New(pgerr.WrongObjectType, "cannot inherit from a partition")
	case planner.IsTempSchema(schema) != planner.IsTempSchema(def.Schema):
		return pgerr.New(pgerr.WrongObjectType, "cannot inherit from temporary relation %q", rv.Relname)
	}
	parent := rel.Table
	pname := sqldef.TableName{Schema: schema, Name: parent.Name}
	if schema == def.Schema && parent.Name == def.Name {
		return pgerr.New(pgerr.DuplicateTable, "circular inheritance not allowed").
			WithDetail("%q is already a child of %q.", def.Name, def.Name)
	}
	if slices.Contains(def.Inherits, pname) {
		return pgerr.New(pgerr.DuplicateTable, "relation %q would be inherited from more than once", parent.Name)
	}
	// The parent must not descend from the child.
	for anc := []sqldef.TableName{pname}; len(anc) > 0; {
		n := anc[0]
		anc = anc[1:]
		if n.Schema == def.Schema && n.Name == def.Name {
			return pgerr.New(pgerr.DuplicateTable, "circular inheritance not allowed").
				WithDetail("%q is already a child of %q.", parent.Name, def.Name)
		}
		t, ok, err := a.tx.Root().Table(ctx, n.Schema, n.Name)
		if err != nil {
			return err
		}
		if ok {
			anc = append(anc, t.Inherits...)
		}
	}
	if tr := rowTransitionTrigger(def); tr != "" {
		return pgerr.New(pgerr.FeatureNotSupported, "trigger %q prevents table %q from becoming an inheritance child", tr, def.Name).
			WithDetail("ROW triggers with transition tables are not supported in inheritance hierarchies.")
	}
	if err := mergeInheritedColumns(parent, def, false); err != nil {
		return err
	}
	if err := mergeInheritedChecks(parent, def, false); err != nil {
		return err
	}
	def.Inherits = append(slices.Clone(def.Inherits), pname)
	return a.putTable(ctx, def)
}

// mergeInheritedColumns checks that def, becoming a child of parent
// (INHERIT) or its partition, has each of parent's columns with its type,
// NOT NULL and generation expression, and counts them inherited; a
// partition's are no longer its own (PostgreSQL's
// MergeAttributesIntoExisting).
func mergeInheritedColumns(parent, def *sqldef.Table, partition bool) error {
	for _, pc := range parent.Columns {
		if pc.Dropped {
			continue
		}
		i := planner.ColumnIndex(def, pc.Name)
		if i < 0 {
			return pgerr.New(pgerr.DatatypeMismatch, "child table is missing column %q", pc.Name)
		}
		c := &def.Columns[i]
		if c.Type != pc.Type || c.Typmod != pc.Typmod {
			return pgerr.New(pgerr.DatatypeMismatch, "child table %q has different type for column %q", def.Name, pc.Name)
		}
		if pc.NotNull && !c.NotNull {
			return pgerr.New(pgerr.DatatypeMismatch, "column %q in child table must be marked NOT NULL", pc.Name)
		}
		if pc.Generated != 0 && c.Generated == 0 {
			return pgerr.New(pgerr.DatatypeMismatch, "column %q in child table must be a generated column", pc.Name)
		}
		if pc.Generated != 0 && c.Default != pc.Default {
			return pgerr.New(pgerr.DatatypeMismatch, "column %q in child table has a conflicting generation expression", pc.Name)
		}
		c.InhCount++
		if partition {
			c.NotLocal = true
		}
	}
	return nil
}

// mergeInheritedChecks checks that def, becoming a child of parent
// (INHERIT) or its partition, has each of parent's inheritable CHECK
// constraints, by name and expression and not NO INHERIT, and counts them
// inherited; a partition's are no longer its own (PostgreSQL's
// MergeConstraintsIntoExisting).
func mergeInheritedChecks(parent, def *sqldef.Table, partition bool) error {
	for _, pk := range parent.Checks {
		if pk.NoInherit {
			continue
		}
		i := slices.IndexFunc(def.Checks, func(c sqldef.Check) bool { return c.Name == pk.Name })
		if i < 0 {
			return pgerr.New(pgerr.DatatypeMismatch, "child table is missing constraint %q", pk.Name)
		}
		c := &def.Checks[i]
		if c.Expr != pk.Expr {
			return pgerr.New(pgerr.DatatypeMismatch, "child table %q has different definition for check constraint %q", def.Name, pk.Name)
		}
		if c.NoInherit {
			return pgerr.New(pgerr.DatatypeMismatch, "constraint %q conflicts with non-inherited constraint on child table %q", pk.Name, def.Name)
		}
		c.InhCount++
		if partition {
			c.NotLocal = true
		}
	}
	return nil
}

// dropInherit runs ALTER TABLE child NO INHERIT parent: the columns and
// constraints the child had from the parent count one parent fewer, and
// become the child's own when no parent is left.
func (a *analyzer) dropInherit(ctx context.Context, def *sqldef.Table, rv *pg.RangeVar) error {
	if def.IsPartition() {
		return pgerr.New(pgerr.WrongObjectType, "cannot change inheritance of a partition")
	}
	rel, schema, err := a.LookupRelation(ctx, rv.Schemaname, rv.Relname)
	if err != nil {
		return err
	}
	if rel.Kind == planner.RelNone {
		return planner.WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(rv)), rv.Location)
	}
	pname := sqldef.TableName{Schema: schema, Name: rv.Relname}
	i := slices.Index(def.Inherits, pname)
	if rel.Kind != planner.RelTable || i < 0 {
		return pgerr.New(pgerr.UndefinedTable, "relation %q is not a parent of relation %q", rv.Relname, def.Name)
	}
	parent := rel.Table
	for _, pc := range parent.Columns {
		if pc.Dropped {
			continue
		}
		if j := slices.IndexFunc(def.Columns, func(c sqldef.Column) bool { return !c.Dropped && c.Name == pc.Name }); j >= 0 {
			c := &def.Columns[j]
			if c.InhCount > 0 {
				c.InhCount--
			}
			if c.InhCount == 0 {
				c.NotLocal = false
			}
		}
	}
	for _, pk := range parent.Checks {
		if j := slices.IndexFunc(def.Checks, func(c sqldef.Check) bool { return c.Name == pk.Name }); j >= 0 && !pk.NoInherit {
			ck := &def.Checks[j]
			if ck.InhCount > 0 {
				ck.InhCount--
			}
			if ck.InhCount == 0 {
				ck.NotLocal = false
			}
		}
	}
	def.Inherits = slices.Delete(slices.Clone(def.Inherits), i, i+1)
	return a.putTable(ctx, def)
}
