package ddl

import (
	"context"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// reindex runs REINDEX INDEX|TABLE|SCHEMA|DATABASE|SYSTEM [CONCURRENTLY]
// name: each index named is built again from its table's rows and
// replaces the stored one if the two differ. Indexes change with their
// tables' rows in every statement, and a Prolly tree of the same entries
// has the same root whatever its history, so rebuilding a sound index
// gives the map it has and changes nothing: REINDEX checks an index, and
// repairs one a bug left wrong (the rebuilt map is stored). A partitioned table's indexes are rebuilt
// in its partitions; system catalogs are views computed from the root and
// have nothing to rebuild.
func (a *analyzer) reindex(s *pg.ReindexStmt) (planner.Utility, error) {
	concurrently, verbose := false, false
	for _, p := range s.Params {
		if d := p.GetDefElem(); d != nil && (d.Defname == "concurrently" || d.Defname == "verbose") {
			on := d.Arg == nil || d.Arg.GetBoolean() == nil || d.Arg.GetBoolean().Boolval
			if d.Defname == "verbose" {
				verbose = on
			} else {
				concurrently = on
			}
		}
	}
	var what string
	switch s.Kind {
	case pg.ReindexObjectType_REINDEX_OBJECT_SCHEMA:
		what = "REINDEX SCHEMA"
	case pg.ReindexObjectType_REINDEX_OBJECT_DATABASE:
		what = "REINDEX DATABASE"
	case pg.ReindexObjectType_REINDEX_OBJECT_SYSTEM:
		what = "REINDEX SYSTEM"
	}
	if a.s.InTransactionBlock() && (what != "" || concurrently) {
		if what == "" || concurrently {
			what = "REINDEX CONCURRENTLY"
		}
		return nil, pgerr.New(pgerr.ActiveSQLTransaction, "%s cannot run inside a transaction block", what)
	}
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		switch s.Kind {
		case pg.ReindexObjectType_REINDEX_OBJECT_INDEX:
			return "REINDEX", a.reindexIndex(ctx, s.Relation)
		case pg.ReindexObjectType_REINDEX_OBJECT_TABLE:
			return "REINDEX", a.reindexTable(ctx, s.Relation, concurrently, verbose)
		case pg.ReindexObjectType_REINDEX_OBJECT_SCHEMA:
			return "REINDEX", a.reindexSchema(ctx, s.Name, concurrently)
		default: // DATABASE, SYSTEM
			if s.Name != "" && s.Name != a.s.Database() && !strings.HasPrefix(a.s.Database(), s.Name+"@") && !strings.HasPrefix(a.s.Database(), s.Name+"/") {
				return "", pgerr.New(pgerr.FeatureNotSupported, "can only reindex the currently open database")
			}
			if s.Kind == pg.ReindexObjectType_REINDEX_OBJECT_SYSTEM {
				return "REINDEX", nil
			}
			return "REINDEX", a.reindexSchema(ctx, "", false)
		}
	}, nil
}

// reindexIndex rebuilds one index, or a partitioned index's partitions'.
func (a *analyzer) reindexIndex(ctx context.Context, rv *pg.RangeVar) error {
	rel, _, err := a.LookupRelation(ctx, rv.Schemaname, rv.Relname)
	switch {
	case err != nil:
		return err
	case rel.Kind == planner.RelNone:
		return planner.WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", rv.Relname), rv.Location)
	case rel.Kind != planner.RelIndex:
		return pgerr.New(pgerr.WrongObjectType, "%q is not an index", rv.Relname)
	}
	if err := a.requireOwnerOf(rel.Table, "index", rv.Relname); err != nil {
		return err
	}
	if rel.Table.Partitioned() && a.s.InTransactionBlock() {
		return pgerr.New(pgerr.ActiveSQLTransaction, "REINDEX INDEX cannot run inside a transaction block")
	}
	if rel.Index < 0 {
		return nil // the primary key's index is the table's own map of rows
	}
	return a.rebuildIndexes(ctx, rel.Table, rel.Table.Indexes[rel.Index].Name)
}

// reindexTable rebuilds every index of a table (of its partitions, for a
// partitioned one). VERBOSE reports each index of a table as
// PostgreSQL's reindex_relation does; CONCURRENTLY skips exclusion
// constraints' indexes, with a warning.
func (a *analyzer) reindexTable(ctx context.Context, rv *pg.RangeVar, concurrently, verbose bool) error {
	rel, _, err := a.LookupRelation(ctx, rv.Schemaname, rv.Relname)
	switch {
	case err != nil:
		return err
	case rel.Kind == planner.RelNone:
		return planner.WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", rv.Relname), rv.Location)
	case rel.Kind != planner.RelTable:
		return pgerr.New(pgerr.WrongObjectType, "%q is not a table or materialized view", rv.Relname)
	}
	if err := a.requireTableOwner(rel.Table); err != nil {
		return err
	}
	if rel.Table.Partitioned() && a.s.InTransactionBlock() {
		return pgerr.New(pgerr.ActiveSQLTransaction, "REINDEX TABLE cannot run inside a transaction block")
	}
	t := rel.Table
	if !t.Partitioned() {
		names := indexNames(t)
		if concurrently {
			for _, x := range t.Exclusions {
				a.s.Notice(pgerr.NewWarning(pgerr.Warning, "cannot reindex exclusion constraint index \"%s.%s\" concurrently, skipping", t.Schema, x.Name))
			}
		}
		// A table with a column whose values may be toasted has, in
		// PostgreSQL, a TOAST table, whose index is reindexed with it.
		toast := slices.ContainsFunc(t.Columns, func(c sqldef.Column) bool { return !c.Dropped && columnStorage(c) != 'p' })
		switch {
		case toast:
		case len(names) == 0 && len(t.Exclusions) == 0 && concurrently:
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "table %q has no indexes that can be reindexed concurrently", t.Name))
			return nil
		case len(names) == 0 && len(t.Exclusions) == 0:
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "table %q has no indexes to reindex", t.Name))
			return nil
		}
		if verbose && !concurrently {
			for _, n := range names {
				a.s.Notice(pgerr.NewInfo(pgerr.SuccessfulCompletion, "index %q was reindexed", n))
			}
		}
	}
	return a.rebuildIndexes(ctx, t, "")
}

// reindexSchema rebuilds the indexes of the tables of a schema (every
// schema of the database when schema is "") that the current role owns;
// PostgreSQL skips the others too. REINDEX SCHEMA is the schema's
// owner's; CONCURRENTLY skips the system catalogs, with a warning.
func (a *analyzer) reindexSchema(ctx context.Context, schema string, concurrently bool) error {
	if schema != "" {
		if ok, err := a.existingSchema(ctx, schema); err != nil {
			return err
		} else if !ok {
			return pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", schema)
		}
		if sc, ok, err := a.tx.Root().Schema(ctx, schema); err != nil {
			return err
		} else if ok {
			au, err := a.Authority()
			if err != nil {
				return err
			}
			if !au.Owns(sc.Owner) {
				return pgerr.New(pgerr.InsufficientPrivilege, "must be owner of schema %s", schema)
			}
		}
		if concurrently && schema == "pg_catalog" {
			a.s.Notice(pgerr.NewWarning(pgerr.FeatureNotSupported, "cannot reindex system catalogs concurrently, skipping all"))
			return nil
		}
	}
	tables, err := a.tx.Root().Tables(ctx)
	if err != nil {
		return err
	}
	au, err := a.Authority()
	if err != nil {
		return err
	}
	for _, t := range tables {
		if schema != "" && t.Schema != schema || !au.Owns(t.Owner) || t.Partitioned() {
			continue // a partitioned table's partitions are among the tables
		}
		if err := a.rebuildIndexes(ctx, t, ""); err != nil {
			return err
		}
	}
	return nil
}

// rebuildIndexes builds the index named (every index when name is "") of
// t again, in t's partitions when t is partitioned, and stores the
// rebuilt maps that differ.
func (a *analyzer) rebuildIndexes(ctx context.Context, t *sqldef.Table, name string) error {
	tables := []*sqldef.Table{t}
	if t.Partitioned() {
		// The partitions' indexes carry names of their own: all of them
		// are rebuilt.
		var err error
		if tables, err = a.descendants(ctx, t); err != nil {
			return err
		}
		name = ""
	}
	for _, tt := range tables {
		if tt.Partitioned() {
			continue
		}
		var ixs []int
		for i, ix := range tt.Indexes {
			if name == "" || ix.Name == name {
				ixs = append(ixs, i)
			}
		}
		if len(ixs) == 0 {
			continue
		}
		def := cloneTable(tt)
		if err := a.buildNewIndexes(ctx, def, ixs); err != nil {
			return err
		}
		if slices.EqualFunc(def.Indexes, tt.Indexes, func(x, y sqldef.Index) bool { return x.Rows == y.Rows }) {
			continue // sound: nothing to store
		}
		if err := a.putTable(ctx, def); err != nil {
			return err
		}
	}
	return nil
}

// indexNames returns the names of t's indexes: its primary key's first,
// then the others'.
func indexNames(t *sqldef.Table) []string {
	var names []string
	if len(t.PrimaryKey) > 0 {
		names = append(names, t.PrimaryKeyName)
	}
	for _, ix := range t.Indexes {
		names = append(names, ix.Name)
	}
	return names
}
