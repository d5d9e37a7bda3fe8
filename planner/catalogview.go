package planner

import (
	"context"

	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Catalog is what analysis reads of a database: the catalog records of
// one root value, the transaction's (exec.Txn.Catalog) or a past
// revision's. versioning.RootValue implements it; the analyzer names
// only this view of it, so that reading definitions is all it can do with
// a root value — changing one is the DDL runners' (package planner/ddl),
// committing and branching the sessions'.
type Catalog interface {
	Table(ctx context.Context, schema, name string) (*sqldef.Table, bool, error)
	TablesIn(ctx context.Context, schema string) ([]*sqldef.Table, error)
	// Children are the tables inheriting directly from schema.name.
	Children(ctx context.Context, schema, name string) ([]sqldef.TableName, error)
	View(ctx context.Context, schema, name string) (*sqldef.View, bool, error)
	Sequence(ctx context.Context, schema, name string) (*sqldef.Sequence, bool, error)
	Types(ctx context.Context) ([]*sqldef.Type, error)
	// FunctionsNamed are the routines (functions, procedures, aggregates)
	// schema.name, OperatorsNamed the operators, Casts every user cast.
	FunctionsNamed(ctx context.Context, schema, name string) ([]*sqldef.Function, error)
	OperatorsNamed(ctx context.Context, schema, name string) ([]*sqldef.Function, error)
	Casts(ctx context.Context) ([]*sqldef.Function, error)
}
