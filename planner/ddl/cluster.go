package ddl

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// cluster runs CLUSTER [VERBOSE] [table [USING index]]. A table's rows are
// stored in its primary key's order (or its row ids'), which no index
// changes, so CLUSTER has nothing to rewrite: it checks what PostgreSQL
// checks and records the index it was given as the table's clustered one
// (pg_index.indisclustered), which a later CLUSTER of the table uses.
// Without a table it clusters every table that has a clustered index,
// which here leaves them as they are.
func (a *analyzer) cluster(s *pg.ClusterStmt) (planner.Utility, error) {
	if s.Relation == nil && a.s.InTransactionBlock() {
		return nil, pgerr.New(pgerr.ActiveSQLTransaction, "CLUSTER cannot run inside a transaction block")
	}
	return func(ctx context.Context) (string, error) {
		if s.Relation == nil {
			return "CLUSTER", nil
		}
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		rel, _, err := a.LookupRelation(ctx, s.Relation.Schemaname, s.Relation.Relname)
		switch {
		case err != nil:
			return "", err
		case rel.Kind == planner.RelNone:
			return "", planner.WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(s.Relation)), s.Relation.Location)
		case rel.Kind != planner.RelTable:
			return "", pgerr.New(pgerr.WrongObjectType, "%q is not a table or materialized view", s.Relation.Relname)
		}
		def := rel.Table
		if err := a.requireTableOwner(def); err != nil {
			return "", err
		}
		name := s.Indexname
		if name == "" {
			if name = def.ClusteredIndex(); name == "" {
				return "", pgerr.New(pgerr.UndefinedObject, "there is no previously clustered index for table %q", def.Name)
			}
		}
		if err := clusterable(def, name); err != nil {
			return "", err
		}
		if def.Partitioned() {
			return "CLUSTER", nil // PostgreSQL marks no index of a partitioned table
		}
		return "CLUSTER", a.markClustered(ctx, def, name)
	}, nil
}

// clusterable checks that index name of def can order a CLUSTER.
func clusterable(def *sqldef.Table, name string) error {
	if len(def.PrimaryKey) > 0 && def.PrimaryKeyName == name {
		return nil
	}
	for _, ix := range def.Indexes {
		if ix.Name != name {
			continue
		}
		if ix.Where != "" {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot cluster on partial index %q", name)
		}
		return nil
	}
	return pgerr.New(pgerr.UndefinedObject, "index %q for table %q does not exist", name, def.Name)
}

// markClustered records index name (a valid one of def, or "" for none)
// as def's clustered index.
func (a *analyzer) markClustered(ctx context.Context, def *sqldef.Table, name string) error {
	if def.ClusteredIndex() == name {
		return nil
	}
	nd := cloneTable(def)
	nd.SetClustered(name)
	return a.putTable(ctx, nd)
}
