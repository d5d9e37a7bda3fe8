package ddl

import (
	"context"
	"fmt"
	"time"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning"
)

// createTableAs plans CREATE TABLE ... AS query and SELECT ... INTO: a
// table with the query's column names (or those given) and types, filled
// with its rows. The command tag is SELECT n, as PostgreSQL's.
func (a *analyzer) createTableAs(into *pg.IntoClause, sel *pg.SelectStmt, ifNotExists bool) (planner.Utility, error) {
	if sel == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "CREATE TABLE AS EXECUTE is not supported yet")
	}
	if into.ViewQuery != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "materialized views are not supported yet")
	}
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
	def := &versioning.Table{Name: name}
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
		def.Columns = append(def.Columns, versioning.Column{Name: cn, Type: t.OID, Typmod: t.Typmod})
	}
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		schema, skip, err := a.newRelationName(ctx, into.Rel, ifNotExists)
		if err != nil || skip {
			return "CREATE TABLE AS", err
		}
		def.Schema, def.Owner = schema, newObjectOwner(a.s)
		if def.ACL, err = a.initialACL(ctx, def.Owner, schema, versioning.DefaultTables); err != nil {
			return "", err
		}
		if def.Rows, err = a.tx.EmptyMap(ctx); err != nil {
			return "", err
		}
		root, err := a.tx.Root.PutTable(ctx, def)
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
		if into.SkipData {
			return "CREATE TABLE AS", nil
		}
		t, _, err := a.tx.Table(ctx, schema, name)
		if err != nil {
			return "", err
		}
		targets := make([]int, len(cols))
		for i := range targets {
			targets[i] = i
		}
		m := &exec.Modify{Kind: exec.Insert, Table: t, Source: plan, Targets: targets, Defaults: make([]exec.Expr, len(cols))}
		env := &exec.Env{Ctx: ctx, Settings: a.s.Settings(), TxnStart: time.Now(), Txn: a.tx, Session: a.s}
		rows, err := m.Open(env)
		if err != nil {
			return "", err
		}
		n := rows.(exec.CountedRows).Affected()
		if err := rows.Close(); err != nil {
			return "", err
		}
		return fmt.Sprintf("SELECT %d", n), nil
	}, nil
}
