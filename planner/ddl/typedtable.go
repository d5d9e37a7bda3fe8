package ddl

import (
	"context"
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Typed tables (CREATE TABLE ... OF type, ALTER TABLE ... OF | NOT OF):
// a table whose columns are a composite type's attributes, which records
// the type (sqldef.Table.OfType, pg_class.reloftype). A type with
// typed tables is not altered or dropped under them.

// typedTableElts returns the elements CREATE TABLE ... OF type stands for:
// a column per attribute of the type, with the options (constraints,
// defaults) the statement gives it WITH OPTIONS, then the statement's
// table constraints; and the type, as the table records it.
func (a *analyzer) typedTableElts(ctx context.Context, s *pg.CreateStmt) ([]*pg.Node, string, error) {
	t, err := a.ofType(ctx, s.OfTypename)
	if err != nil {
		return nil, "", err
	}
	options := map[string]*pg.ColumnDef{}
	var out, constraints []*pg.Node
	for _, elt := range s.TableElts {
		if cd := elt.GetColumnDef(); cd != nil {
			if !slices.ContainsFunc(t.Fields, func(f sqldef.ViewColumn) bool { return f.Name == cd.Colname }) {
				return nil, "", pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", cd.Colname)
			}
			for _, c := range cd.Constraints {
				switch c.GetConstraint().GetContype() {
				case pg.ConstrType_CONSTR_IDENTITY:
					return nil, "", pgerr.New(pgerr.FeatureNotSupported, "identity columns are not supported on typed tables")
				case pg.ConstrType_CONSTR_GENERATED:
					return nil, "", pgerr.New(pgerr.FeatureNotSupported, "generated columns are not supported on typed tables")
				}
			}
			options[cd.Colname] = cd
			continue
		}
		constraints = append(constraints, elt)
	}
	for _, f := range t.Fields {
		tn, err := a.typeNameOf(exec.T{OID: f.Type, Typmod: f.Typmod})
		if err != nil {
			return nil, "", err
		}
		cd := &pg.ColumnDef{Colname: f.Name, TypeName: tn, IsLocal: true, Location: -1}
		if o := options[f.Name]; o != nil {
			cd.Constraints, cd.RawDefault = o.Constraints, o.RawDefault
		}
		out = append(out, &pg.Node{Node: &pg.Node_ColumnDef{ColumnDef: cd}})
	}
	return append(out, constraints...), t.Schema + "." + t.Name, nil
}

// ofType returns the composite type a typed table is of, which the
// current role must be allowed to use.
func (a *analyzer) ofType(ctx context.Context, tn *pg.TypeName) (*sqldef.Type, error) {
	schema, name := planner.SplitName(planner.NameList(tn.Names))
	t, err := a.LookupType(ctx, schema, name)
	if err != nil {
		return nil, err
	}
	if t == nil {
		rt, _, err := a.ResolveType(tn)
		if err != nil {
			return nil, err
		}
		return nil, pgerr.New(pgerr.WrongObjectType, "type %s is not a composite type", types.FormatType(types.Oid(rt.OID), -1))
	}
	if t.Kind != 'c' {
		return nil, pgerr.New(pgerr.WrongObjectType, "type %s is not a composite type", name)
	}
	return t, a.RequireTypeNameUsage(tn)
}

// typeNameOf returns a parse tree's type name for t, as a column
// definition gives it.
func (a *analyzer) typeNameOf(t exec.T) (*pg.TypeName, error) {
	r, err := pg.Parse("SELECT NULL::" + exec.FormatTypeIn(a.s.Settings(), t.OID, t.Typmod))
	if err != nil {
		return nil, err
	}
	return r.Stmts[0].Stmt.GetSelectStmt().GetTargetList()[0].GetResTarget().GetVal().GetTypeCast().GetTypeName(), nil
}

// addOf runs ALTER TABLE ... OF type: the table's columns must be the
// type's attributes, in order, of the same types.
func (a *analyzer) addOf(ctx context.Context, def *sqldef.Table, tn *pg.TypeName) error {
	t, err := a.ofType(ctx, tn)
	if err != nil {
		return err
	}
	if len(def.Inherits) > 0 {
		return pgerr.New(pgerr.WrongObjectType, "typed tables cannot inherit")
	}
	var cols []sqldef.Column
	for _, c := range def.Columns {
		if !c.Dropped {
			cols = append(cols, c)
		}
	}
	for i, f := range t.Fields {
		if i >= len(cols) {
			return pgerr.New(pgerr.DatatypeMismatch, "table is missing column %q", f.Name)
		}
		if cols[i].Name != f.Name {
			return pgerr.New(pgerr.DatatypeMismatch, "table has column %q where type requires %q", cols[i].Name, f.Name)
		}
		if cols[i].Type != f.Type || cols[i].Typmod != f.Typmod {
			return pgerr.New(pgerr.DatatypeMismatch, "table %q has different type for column %q", def.Name, f.Name)
		}
	}
	if len(cols) > len(t.Fields) {
		return pgerr.New(pgerr.DatatypeMismatch, "table has extra column %q", cols[len(t.Fields)].Name)
	}
	def.OfType = t.Schema + "." + t.Name
	return a.putTable(ctx, def)
}

// dropOf runs ALTER TABLE ... NOT OF.
func (a *analyzer) dropOf(ctx context.Context, def *sqldef.Table) error {
	if def.OfType == "" {
		return pgerr.New(pgerr.WrongObjectType, "%q is not a typed table", def.Name)
	}
	def.OfType = ""
	return a.putTable(ctx, def)
}

// typedTables returns the tables of type t.
func (a *analyzer) typedTables(ctx context.Context, t *sqldef.Type) ([]*sqldef.Table, error) {
	tables, err := a.tx.Root().Tables(ctx)
	if err != nil {
		return nil, err
	}
	var out []*sqldef.Table
	for _, tb := range tables {
		if tb.OfType == t.Schema+"."+t.Name {
			out = append(out, tb)
		}
	}
	return out, nil
}

// typedTableColumns refuses the ALTER TABLE commands that would make a
// typed table's columns differ from its type's attributes; ALTER TYPE
// ... CASCADE changes them from the type (alterTypedTables).
func typedTableColumns(cmd pg.AlterTableType) error {
	switch cmd {
	case pg.AlterTableType_AT_AddColumn:
		return pgerr.New(pgerr.WrongObjectType, "cannot add column to typed table")
	case pg.AlterTableType_AT_DropColumn:
		return pgerr.New(pgerr.WrongObjectType, "cannot drop column from typed table")
	case pg.AlterTableType_AT_AlterColumnType:
		return pgerr.New(pgerr.WrongObjectType, "cannot alter column type of typed table")
	}
	return nil
}

// typedTablesOf returns the typed tables of t; unless cascade, there
// must be none, as a change to t would leave them behind.
func (a *analyzer) typedTablesOf(ctx context.Context, t *sqldef.Type, cascade bool) ([]*exec.Table, error) {
	defs, err := a.typedTables(ctx, t)
	if err != nil || len(defs) == 0 {
		return nil, err
	}
	if !cascade {
		return nil, pgerr.New(pgerr.DependentObjectsStillExist, "cannot alter type %q because it is the type of a typed table", t.Name).
			WithHint("Use ALTER ... CASCADE to alter the typed tables too.")
	}
	var out []*exec.Table
	for _, d := range defs {
		tb, ok, err := a.tx.Table(ctx, d.Schema, d.Name)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, tb)
		}
	}
	return out, nil
}

// alterTypedTables runs ALTER TYPE ... CASCADE's change on each typed
// table of the type (and, through alter, on their descendants).
func (a *analyzer) alterTypedTables(ctx context.Context, typed []*exec.Table, alter func(*exec.Table) error) error {
	for _, tb := range typed {
		if err := alter(tb); err != nil {
			return err
		}
	}
	return nil
}

// dropCascadedTables drops tables a DROP ... CASCADE takes with it (the
// typed tables of a type, the tables whose partition key reads a column
// of it or calls a function), each named in the cascade's notice.
func (a *analyzer) dropCascadedTables(ctx context.Context, typed []*sqldef.Table) error {
	drop := &pg.DropStmt{RemoveType: pg.ObjectType_OBJECT_TABLE, Behavior: pg.DropBehavior_DROP_CASCADE}
	for _, tb := range typed {
		a.cascaded("table " + tb.Name)
		drop.Objects = append(drop.Objects, pg.MakeListNode([]*pg.Node{pg.MakeStrNode(tb.Schema), pg.MakeStrNode(tb.Name)}))
	}
	_, err := a.dropTables(ctx, drop)
	return err
}
