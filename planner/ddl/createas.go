package ddl

import (
	"context"
	"fmt"
	"time"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// createTableAs plans CREATE TABLE ... AS query and SELECT ... INTO: a
// table with the query's column names (or those given) and types, filled
// with its rows. The command tag is SELECT n, as PostgreSQL's. With
// isMatview, CREATE MATERIALIZED VIEW: the table keeps its query.
func (a *analyzer) createTableAs(into *pg.IntoClause, sel *pg.SelectStmt, ifNotExists, isMatview bool) (planner.Utility, error) {
	if sel == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "CREATE TABLE AS EXECUTE is not supported yet")
	}
	if err := checkTableOptions(into.Options); err != nil {
		return nil, err
	}
	var matview *sqldef.MaterializedView
	if isMatview {
		// CREATE MATERIALIZED VIEW: a table that keeps its query.
		q, err := planner.DeparseSelect(sel)
		if err != nil {
			return nil, err
		}
		matview = &sqldef.MaterializedView{Query: q, Unpopulated: into.SkipData}
	}
	selNode := &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}
	saved := sel.IntoClause
	sel.IntoClause = nil
	plan, err := a.Query(sel)
	sel.IntoClause = saved
	if err != nil {
		return nil, err
	}
	cols := plan.Columns()
	if len(into.ColNames) > len(cols) {
		return nil, pgerr.New(pgerr.SyntaxError, "too many column names were specified")
	}
	name := into.Rel.Relname
	def := &sqldef.Table{Name: name, MatView: matview}
	for i, c := range cols {
		cn := c.Name
		if i < len(into.ColNames) {
			cn = into.ColNames[i].GetString_().Sval
		}
		for _, d := range def.Columns {
			if d.Name == cn {
				return nil, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", cn)
			}
		}
		t := c.T
		if t.OID == exec.OIDUnknown {
			t = exec.TText
		}
		def.Columns = append(def.Columns, sqldef.Column{Name: cn, Type: t.OID, Typmod: t.Typmod})
	}
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		tag := "CREATE TABLE AS"
		if matview != nil {
			tag = "CREATE MATERIALIZED VIEW"
		}
		schema, skip, err := a.newRelationName(ctx, into.Rel, ifNotExists)
		if err != nil || skip {
			return tag, err
		}
		if matview != nil {
			if matview.Depends, _, err = a.viewDependencies(ctx, selNode); err != nil {
				return "", err
			}
		}
		def.Schema, def.Owner = schema, planner.NewObjectOwner(a.s)
		if def.ACL, err = a.initialACL(ctx, def.Owner, schema, sqldef.DefaultTables); err != nil {
			return "", err
		}
		if def.Rows, err = a.tx.EmptyMap(ctx); err != nil {
			return "", err
		}
		root, err := a.tx.Root().PutTable(ctx, def)
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
		if into.SkipData {
			return tag, nil
		}
		n, err := a.fill(ctx, schema, name, plan)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("SELECT %d", n), nil
	}, nil
}

// fill inserts the rows of plan, whose columns are the table's, into the
// table schema.name, and returns how many.
func (a *analyzer) fill(ctx context.Context, schema, name string, plan exec.Plan) (int64, error) {
	t, _, err := a.tx.Table(ctx, schema, name)
	if err != nil {
		return 0, err
	}
	cols := plan.Columns()
	if len(cols) != len(t.Cols) {
		// A materialized view whose query reads its tables' columns
		// as they are now, no longer as they were at CREATE.
		return 0, pgerr.New(pgerr.DatatypeMismatch, "query of %q returns %d columns, the relation has %d", name, len(cols), len(t.Cols))
	}
	targets := make([]int, len(cols))
	for i := range targets {
		targets[i] = i
	}
	m := &exec.Modify{Kind: exec.Insert, Table: t, Source: plan, Targets: targets, Defaults: make([]exec.Expr, len(cols))}
	env := &exec.Env{Ctx: ctx, Settings: a.s.Settings(), TxnStart: time.Now(), Txn: a.tx, Session: a.s}
	rows, err := m.Open(env)
	if err != nil {
		return 0, err
	}
	n := rows.(exec.CountedRows).Affected()
	if err := rows.Close(); err != nil {
		return 0, err
	}
	return n, nil
}
