package ddl

import (
	"context"
	"errors"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Temporary tables. A session's temporary relations live in a schema of
// its own, pg_temp_N, as in PostgreSQL: unqualified names find them before
// any other (the temporary schema heads the search path for relations),
// pg_temp names it explicitly, and the session drops the schema when it
// ends. Like everything else they are kept in the branch's root value, so
// other sessions see them in the catalogs (as PostgreSQL shows other
// backends' pg_temp_N) but never by an unqualified name. A schema left by
// a session that did not end cleanly is emptied by the next session given
// its number, as PostgreSQL does with a crashed backend's.

// ensureTempSchema creates the session's temporary schema in the
// transaction's root if it is not there, emptying a stale one.
func (a *analyzer) ensureTempSchema(ctx context.Context) (string, error) {
	if err := a.s.RequireDatabase(ctx, 'T'); err != nil {
		return "", err
	}
	// A temporary relation is about to be made: it may shadow the
	// relation a plan's unqualified name found.
	a.s.InvalidatePlans()
	name := a.s.TempSchemaName()
	if _, ok, err := a.tx.Schema(ctx, name); err != nil || ok {
		if ok && !a.s.TempSchemaReady() {
			if err := a.dropSchemaContents(ctx, name); err != nil {
				return "", err
			}
			a.s.MarkTempSchemaReady()
		}
		return name, err
	}
	root, err := a.tx.Root().PutSchema(ctx, sqldef.Schema{Name: name, Owner: a.s.User()})
	if err != nil {
		return "", err
	}
	a.tx.SetRoot(root)
	a.s.MarkTempSchemaReady()
	return name, nil
}

// EmptySchema drops every table and sequence of schema in tx, for the
// session that empties its temporary schema as it ends.
func EmptySchema(ctx context.Context, s planner.Session, tx *exec.Txn, schema string) error {
	return newAnalyzer(planner.NewAnalyzer(ctx, s, tx)).dropSchemaContents(ctx, schema)
}

// dropSchemaContents drops every table and sequence of schema.
func (a *analyzer) dropSchemaContents(ctx context.Context, schema string) error {
	root := a.tx.Root()
	tables, err := root.TablesIn(ctx, schema)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if root, err = root.DropTable(ctx, schema, t.Name); err != nil {
			return err
		}
		if root, err = SyncRefs(ctx, root, t, nil); err != nil {
			return err
		}
	}
	seqs, err := root.Sequences(ctx)
	if err != nil {
		return err
	}
	for _, q := range seqs {
		if q.Schema == schema {
			if root, err = root.DropSequence(ctx, schema, q.Name); err != nil {
				return err
			}
		}
	}
	views, err := root.Views(ctx)
	if err != nil {
		return err
	}
	for _, v := range views {
		if v.Schema == schema {
			if root, err = root.DropView(ctx, schema, v.Name); err != nil {
				return err
			}
		}
	}
	a.tx.SetRoot(root)
	return nil
}

// newRelationName resolves where CREATE TABLE, CREATE TABLE AS and CREATE
// SEQUENCE put rv: its schema (the temporary one for TEMP relations), and
// skip when the name is taken and IF NOT EXISTS was given (after
// PostgreSQL's notice); a taken name is 42P07 otherwise.
func (a *analyzer) newRelationName(ctx context.Context, rv *pg.RangeVar, ifNotExists bool) (schema string, skip bool, err error) {
	if rv.Schemaname == "pg_catalog" {
		// PostgreSQL allows it only with allow_system_table_mods, which
		// is off (pg_dump would not find such a table).
		return "", false, pgerr.New(pgerr.InsufficientPrivilege, "permission denied to create \"pg_catalog.%s\"", rv.Relname).
			WithDetail("System catalog modifications are currently disallowed.")
	}
	if rv.Relpersistence == "u" && (rv.Schemaname == "pg_temp" || rv.Schemaname != "" && rv.Schemaname == a.s.TempSchema()) {
		return "", false, planner.WithPos(pgerr.New(pgerr.InvalidTableDefinition, "only temporary relations may be created in temporary schemas"), rv.Location)
	}
	if rv.Relpersistence == "t" {
		schema, err = a.tempCreationSchema(ctx, rv.Schemaname)
	} else if schema, err = a.creationSchema(ctx, rv.Schemaname, rv.Location); err == nil {
		var pe *pgerr.Error
		if err = a.requireSchemaCreate(ctx, schema); errors.As(err, &pe) {
			err = planner.WithPos(pe, rv.Location)
		}
	}
	if err != nil {
		return "", false, err
	}
	rel, err := planner.FindRelation(ctx, a.tx.Root(), schema, rv.Relname)
	switch {
	case err != nil:
		return "", false, err
	case rel.Kind == planner.RelNone:
		return schema, false, nil
	case ifNotExists:
		a.s.Notice(pgerr.New(pgerr.DuplicateTable, "relation %q already exists, skipping", rv.Relname))
		return schema, true, nil
	}
	return "", false, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", rv.Relname)
}

// tempCreationSchema returns the schema a CREATE TEMP relation goes in:
// the temporary schema, which an explicit schema must name.
func (a *analyzer) tempCreationSchema(ctx context.Context, schema string) (string, error) {
	if schema != "" && schema != "pg_temp" && schema != a.s.TempSchema() {
		return "", pgerr.New(pgerr.InvalidTableDefinition, "cannot create temporary relation in non-temporary schema")
	}
	return a.ensureTempSchema(ctx)
}
