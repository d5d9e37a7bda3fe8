package planner

import (
	"context"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner/dolt"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// The version-control relations of FROM, as the analyzer meets them: the
// system tables (dolt.log, dolt_diff_<table>, ...) and table functions
// (dolt_diff(from, to, table), ...), which package dolt builds, and time
// travel: a revision-qualified name, "db@rev".schema.table, reads the
// table as of that revision (pinned, read-only); a view's so named is its
// definition then, over the relations as of that revision. AS OF 'rev'
// is rewritten to that form (dolt.RewriteAsOf).

// systemTableFor returns the system table a FROM name refers to, if any
// (dolt.SystemTable), or the conflicts table of an object other than a
// table (dolt.ObjectConflictsTable).
func (a *analyzer) systemTableFor(ctx context.Context, schema, name string) (*exec.Table, bool, error) {
	t, ok, err := dolt.SystemTable(ctx, a.s, analyzerCatalog{a}, schema, name)
	if ok && dolt.Unstored(t) {
		// Planned again once its first row stores it: the plan depends
		// on a table that does not exist yet.
		a.deps = append(a.deps, t.Def)
	}
	if ok || err != nil {
		return t, ok, err
	}
	return dolt.ObjectConflictsTable(ctx, a.s, a.tx.Root(), schema, name)
}

// missingSystemTable is the error for a relation of FROM that nothing
// defines named as the system tables are: Doltgres's words
// (dolt.MissingSystemTable); nil for other names.
func missingSystemTable(rv *pg.RangeVar) error {
	if err := dolt.MissingSystemTable(rv.Schemaname, rv.Relname); err != nil {
		return WithPos(err, rv.Location)
	}
	return nil
}

// storedSystemTable finds the stored user-writable system table a name
// means by another of its names (dolt.StoredName): dolt_docs is
// dolt.docs.
func (a *analyzer) storedSystemTable(ctx context.Context, schema, name string) (*exec.Table, bool, error) {
	sc, rel, ok := dolt.StoredName(schema, name)
	if !ok {
		return nil, false, nil
	}
	return a.lookupTable(ctx, sc, rel)
}

// analyzerCatalog is the analyzer's view of the transaction's root as
// dolt.SystemTable asks for it.
type analyzerCatalog struct{ a *analyzer }

// LookupTable finds a stored table by schema and name, or by name along
// the search path.
func (c analyzerCatalog) LookupTable(ctx context.Context, schema, name string) (*sqldef.Table, bool, error) {
	t, ok, err := c.a.lookupTable(ctx, schema, name)
	if err != nil || !ok || t.Virtual != nil {
		return nil, false, err
	}
	return t.Def, true, nil
}

// HasSchema reports whether the schema exists.
func (c analyzerCatalog) HasSchema(ctx context.Context, schema string) (bool, error) {
	if IsSystemSchema(schema) {
		return true, nil
	}
	_, ok, err := c.a.tx.Schema(ctx, schema)
	return ok, err
}

// revisionTable resolves a revision-qualified table name,
// "db@rev".schema.table: the table as of rev, pinned and read-only.
func (a *analyzer) revisionTable(rv *pg.RangeVar) (*exec.Table, error) {
	db, rev, ok := strings.Cut(rv.Catalogname, "@")
	if !ok {
		db, rev, ok = strings.Cut(rv.Catalogname, "/")
	}
	if db != a.s.Repo().Name() {
		return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: %s.%s.%s", rv.Catalogname, rv.Schemaname, rv.Relname), rv.Location)
	}
	if !ok {
		return nil, nil // the session's own database
	}
	env := &exec.Env{Ctx: a.ctx, Txn: a.tx, Session: a.s}
	root, err := dolt.ResolveRoot(a.s, env, rev)
	if err != nil {
		return nil, err
	}
	schemas := []string{a.s.ResolveSchemaName(rv.Schemaname)}
	if rv.Schemaname == dolt.AnySchema {
		schemas = a.s.RelationPath() // AS OF on an unqualified name (dolt.RewriteAsOf)
	}
	var def *sqldef.Table
	for _, sc := range schemas {
		if def, ok, err = root.Table(a.ctx, sc, rv.Relname); err != nil {
			return nil, err
		} else if ok {
			break
		}
	}
	if def != nil {
		return a.pinTable(def, root), nil
	}
	for _, sc := range schemas {
		v, ok, err := root.View(a.ctx, sc, rv.Relname)
		if err != nil {
			return nil, err
		}
		if ok {
			return a.revisionView(v, rv.Catalogname)
		}
	}
	return nil, WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist at revision %q", rv.Relname, rev), rv.Location)
}

// revisionView plans view v as of a revision: its definition then, and
// the relations it reads as of the same revision. The functions its
// query calls are today's: a revision's functions cannot be called (as
// in PostgreSQL, a function is looked up in the catalog when planned,
// and the session has one catalog).
func (a *analyzer) revisionView(v *sqldef.View, catalog string) (*exec.Table, error) {
	sel, err := ParseSelect(v.Query)
	if err != nil {
		return nil, err
	}
	pinViewQuery(sel, v, catalog)
	return a.viewRelation(a.ctx, v, sel)
}

// pinTable returns the table of def read from a past revision's root.
func (a *analyzer) pinTable(def *sqldef.Table, root Catalog) *exec.Table {
	t := exec.NewTable(def)
	t.Pinned = true
	if a.pinnedRoots == nil {
		a.pinnedRoots = map[*exec.Table]Catalog{}
	}
	a.pinnedRoots[t] = root
	return t
}

// checkWritableTable refuses to write a table pinned to a revision.
func checkWritableTable(t *exec.Table) error {
	if t.Pinned {
		return pgerr.New(pgerr.ReadOnlySQLTransaction, "cannot write table %q of a past revision", t.Def.Name)
	}
	if t.Def != nil && t.Def.MatView != nil {
		return pgerr.New(pgerr.WrongObjectType, "cannot change materialized view %q", t.Def.Name)
	}
	return nil
}

// systemFunction plans a version-control table function in FROM, if name
// is one: its arguments must be constants, known at planning.
func (a *analyzer) systemFunction(fc *pg.FuncCall) (*exec.Table, bool, error) {
	name := OpName(fc.Funcname)
	plan, ok := dolt.TableFunction(name)
	if !ok {
		return nil, false, nil
	}
	env := &exec.Env{Ctx: a.ctx, Txn: a.tx, Settings: a.s.Settings(), Session: a.s}
	var args []exec.Datum
	for _, n := range fc.Args {
		e, err := a.expr(n, &scope{})
		if err != nil {
			return nil, true, err
		}
		d, err := e.Eval(env, nil)
		if pgerr.CodeOf(err) == pgerr.UndefinedParameter {
			// The function's columns depend on its arguments (the table a
			// diff is of), and a statement's columns are fixed when it is
			// planned, before its parameters are bound.
			return nil, true, WithPos(pgerr.New(pgerr.FeatureNotSupported, "the arguments of %s must be constants, not parameters", name).
				WithHint("Write the revisions and table name into the query text."), ExprLocation(n))
		}
		if err != nil {
			return nil, true, err
		}
		if !d.IsNull() && d.Kind != exec.KindText {
			d = exec.DText(string(exec.AppendText(nil, e.Type(), d, env.Settings)))
		}
		args = append(args, d)
	}
	t, err := plan(a.s, env, args)
	return t, true, err
}
