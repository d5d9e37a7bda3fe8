package ddl

import (
	"context"
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// addConstraintUsingIndex runs ADD PRIMARY KEY | UNIQUE USING INDEX: an
// existing unique index of the table becomes the constraint's, renamed
// to the constraint's name when one is given, with PostgreSQL's checks
// (transformIndexConstraint) that the index is one a constraint could
// have made. A primary key's index is the table's row order here, so
// the rows are rewritten under the new key and the index goes.
func (a *analyzer) addConstraintUsingIndex(ctx context.Context, t *exec.Table, def *sqldef.Table, con *pg.Constraint) error {
	fail := func(code pgerr.Code, format string, args ...any) error {
		return planner.WithPos(pgerr.New(code, format, args...), con.Location)
	}
	notUsable := func(format string, args ...any) error {
		return planner.WithPos(pgerr.New(pgerr.WrongObjectType, format, args...).
			WithDetail("Cannot create a primary key or unique constraint using such an index."), con.Location)
	}
	if def.Partitioned() {
		return fail(pgerr.FeatureNotSupported, "ALTER TABLE / ADD CONSTRAINT USING INDEX is not supported on partitioned tables")
	}
	name := con.Indexname
	i := slices.IndexFunc(def.Indexes, func(ix sqldef.Index) bool { return ix.Name == name })
	if i < 0 {
		if def.PrimaryKeyName == name && len(def.PrimaryKey) > 0 {
			return fail(pgerr.ObjectNotInPrerequisite, "index %q is already associated with a constraint", name)
		}
		rel, err := planner.FindRelation(ctx, a.tx.Root(), def.Schema, name)
		if err != nil {
			return err
		}
		if rel.Kind == planner.RelIndex {
			return fail(pgerr.InvalidObjectDefinition, "index %q does not belong to table %q", name, def.Name)
		}
		return fail(pgerr.UndefinedObject, "index %q does not exist", name)
	}
	ix := def.Indexes[i]
	switch {
	case ix.Constraint:
		return fail(pgerr.ObjectNotInPrerequisite, "index %q is already associated with a constraint", name)
	case !ix.Unique:
		return notUsable("%q is not a unique index", name)
	case slices.ContainsFunc(ix.Columns, func(c sqldef.IndexColumn) bool { return c.Expr != "" }):
		return notUsable("index %q contains expressions", name)
	case ix.Where != "":
		return notUsable("%q is a partial index", name)
	case ix.Deferrable && !con.Deferrable:
		return planner.WithPos(pgerr.New(pgerr.WrongObjectType, "%q is a deferrable index", name).
			WithDetail("Cannot create a non-deferrable constraint using a deferrable index."), con.Location)
	}
	for n, c := range ix.Columns {
		if c.Desc || c.NullsFirst || c.Collation != "" && c.Collation != "default" {
			return notUsable("index %q column number %d does not have default sorting behavior", name, n+1)
		}
	}
	cname := con.Conname
	if cname == "" {
		cname = name
	}
	if cname != name {
		if other, err := planner.FindRelation(ctx, a.tx.Root(), def.Schema, cname); err != nil {
			return err
		} else if other.Kind != planner.RelNone {
			return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", cname)
		}
		a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "ALTER TABLE / ADD CONSTRAINT USING INDEX will rename index %q to %q", name, cname))
	}
	if con.Contype != pg.ConstrType_CONSTR_PRIMARY {
		def.Indexes[i].Name, def.Indexes[i].Constraint = cname, true
		return a.putTable(ctx, def)
	}
	if len(def.PrimaryKey) > 0 {
		return pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", def.Name)
	}
	var cols []int
	for _, c := range ix.Columns {
		cols = append(cols, c.Column)
	}
	if err := a.checkNoNulls(ctx, t, cols); err != nil {
		return err
	}
	def.PrimaryKey, def.PrimaryKeyName, def.PrimaryKeyIndexComment = cols, cname, ix.Comment
	for _, c := range cols {
		def.Columns[c].NotNull = true
	}
	def.Indexes = slices.Delete(def.Indexes, i, i+1)
	def, err := a.tx.Rewrite(ctx, t, def, nil)
	if err != nil {
		return err
	}
	return a.putTable(ctx, def)
}
