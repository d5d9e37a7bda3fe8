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

// Materialized views are tables that keep the query that fills them
// (sqldef.Table.MatView): CREATE MATERIALIZED VIEW is CREATE TABLE AS
// with the query kept (createTableAs), REFRESH empties the table and runs
// the query again, and the analysis refuses to write one or to read one
// that WITH NO DATA left unpopulated.

// refreshMatView runs REFRESH MATERIALIZED VIEW [CONCURRENTLY] name [WITH
// [NO] DATA]. CONCURRENTLY, which in PostgreSQL lets readers go on
// meanwhile, changes nothing here beyond its checks: a transaction's
// readers see the old rows until it commits anyway.
func (a *analyzer) refreshMatView(s *pg.RefreshMatViewStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		const tag = "REFRESH MATERIALIZED VIEW"
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		if s.Concurrent && s.SkipData {
			return "", pgerr.New(pgerr.SyntaxError, "REFRESH options CONCURRENTLY and WITH NO DATA cannot be used together")
		}
		rel, schema, err := a.LookupRelation(ctx, s.Relation.Schemaname, s.Relation.Relname)
		if err != nil {
			return "", err
		}
		if rel.Kind == planner.RelNone {
			return "", planner.WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(s.Relation)), s.Relation.Location)
		}
		if rel.Kind != planner.RelTable || rel.Table.MatView == nil {
			return "", pgerr.New(pgerr.WrongObjectType, "%q is not a materialized view", s.Relation.Relname)
		}
		t := rel.Table
		if err := a.requireOwnerOf(t, "materialized view", t.Name); err != nil {
			return "", err
		}
		if s.Concurrent {
			if t.MatView.Unpopulated {
				return "", pgerr.New(pgerr.FeatureNotSupported, "CONCURRENTLY cannot be used when the materialized view is not populated")
			}
			if !hasPlainUniqueIndex(t) {
				return "", pgerr.New(pgerr.ObjectNotInPrerequisite, "cannot refresh materialized view \"%s\" concurrently", planner.QuoteIdent(schema)+"."+planner.QuoteIdent(t.Name)).
					WithHint("Create a unique index with no WHERE clause on one or more columns of the materialized view.")
			}
		}
		var plan exec.Plan
		if !s.SkipData {
			sel, err := planner.ParseSelect(t.MatView.Query)
			if err != nil {
				return "", err
			}
			if plan, err = a.Query(sel); err != nil {
				return "", err
			}
		}
		def := cloneTable(t)
		mv := *t.MatView
		mv.Unpopulated = s.SkipData
		def.MatView = &mv
		if def.Rows, err = a.tx.EmptyMap(ctx); err != nil {
			return "", err
		}
		for i := range def.Indexes {
			def.Indexes[i].Rows = def.Rows
		}
		if err := a.putTable(ctx, def); err != nil {
			return "", err
		}
		if plan != nil {
			if _, err := a.fill(ctx, schema, t.Name, plan); err != nil {
				return "", err
			}
		}
		return tag, nil
	}, nil
}

// dropDependentMatviews fails with 2BP01 if materialized views read
// target ("schema.name"), unless cascade, which drops them and what
// depends on them.
func (a *analyzer) dropDependentMatviews(ctx context.Context, target, what string, cascade bool) error {
	tables, err := a.tx.Root().Tables(ctx)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if t.MatView == nil || !slices.Contains(t.MatView.Depends, target) || t.Schema+"."+t.Name == target {
			continue
		}
		if !cascade {
			return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop %s because other objects depend on it", what).
				WithDetail("materialized view %s depends on %s", t.Name, what).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		a.cascaded("materialized view " + t.Name)
		if err := a.dropDependentViews(ctx, t.Schema, t.Name, "materialized view "+t.Name, true); err != nil {
			return err
		}
		root, err := a.tx.Root().DropTable(ctx, t.Schema, t.Name)
		if err != nil {
			return err
		}
		if root, err = SyncRefs(ctx, root, t, nil); err != nil {
			return err
		}
		a.tx.SetRoot(root)
	}
	return nil
}

// hasPlainUniqueIndex reports whether t has a unique index that REFRESH
// ... CONCURRENTLY can match old rows with new ones by, as PostgreSQL's
// is_usable_unique_index has it: checked at once (not deferrable),
// without a predicate, and on columns only (no expression).
func hasPlainUniqueIndex(t *sqldef.Table) bool {
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		if !ix.Unique || ix.Where != "" || ix.Deferrable || len(ix.Columns) == 0 {
			continue
		}
		if !slices.ContainsFunc(ix.Columns, func(c sqldef.IndexColumn) bool { return c.Column < 0 || c.Expr != "" }) {
			return true
		}
	}
	return false
}
