package planner

import (
	"context"
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
)

// createTableAs runs CREATE [TEMP] TABLE name [(columns)] AS query [WITH
// [NO] DATA], and SELECT ... INTO name, which PostgreSQL turns into it:
// a table with the query's column names and types (typmods kept, unknown
// literals as text) and no key, filled with the query's rows. Its tag is
// SELECT n, as PostgreSQL's.
func (a *analyzer) createTableAs(query *pg.SelectStmt, into *pg.IntoClause, ifNotExists bool) (utility, error) {
	if into.ViewQuery != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "materialized views are not supported yet")
	}
	// The query is planned without its INTO, which names the target.
	q := proto.Clone(query).(*pg.SelectStmt)
	q.IntoClause = nil
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		rv := into.Rel
		var schema string
		var err error
		if rv.Relpersistence == "t" {
			schema, err = a.tempCreationSchema(ctx, rv.Schemaname)
		} else {
			schema, err = a.creationSchema(ctx, rv.Schemaname, rv.Location)
		}
		if err != nil {
			return "", err
		}
		if rel, err := findRelation(ctx, a.tx.Root, schema, rv.Relname); err != nil {
			return "", err
		} else if rel.kind != relNone {
			if ifNotExists {
				a.s.notice(pgerr.New(pgerr.DuplicateTable, "relation %q already exists, skipping", rv.Relname))
				return "CREATE TABLE AS", nil
			}
			return "", pgerr.New(pgerr.DuplicateTable, "relation %q already exists", rv.Relname)
		}
		plan, err := a.selectStmt(q)
		if err != nil {
			return "", err
		}
		cols := plan.Columns()
		names := nameList(into.ColNames)
		if len(names) > len(cols) {
			return "", pgerr.New(pgerr.SyntaxError, "too many column names were specified")
		}
		def := &versioning.Table{Schema: schema, Name: rv.Relname}
		seen := map[string]bool{}
		for i, c := range cols {
			name := c.Name
			if i < len(names) {
				name = names[i]
			}
			if seen[name] {
				return "", pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", name)
			}
			seen[name] = true
			t := c.T
			if t.OID == exec.OIDUnknown {
				t = exec.TText
			}
			def.Columns = append(def.Columns, versioning.Column{Name: name, Type: t.OID, Typmod: t.Typmod})
		}
		empty, err := a.tx.EmptyMap(ctx)
		if err != nil {
			return "", err
		}
		def.Rows = empty
		if err := a.putTable(ctx, def); err != nil {
			return "", err
		}
		if into.SkipData {
			return "CREATE TABLE AS", nil
		}
		t, _, err := a.tx.Table(ctx, schema, def.Name)
		if err != nil {
			return "", err
		}
		n, err := a.fill(ctx, t, plan)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("SELECT %d", n), nil
	}, nil
}

// fill inserts the rows of plan into t.
func (a *analyzer) fill(ctx context.Context, t *exec.Table, plan exec.Plan) (int64, error) {
	w, err := a.tx.Writer(ctx, t)
	if err != nil {
		return 0, err
	}
	rows, err := plan.Open(a.env(ctx))
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int64
	row := make(exec.Row, len(t.Cols))
	for {
		in, err := rows.Next()
		if err != nil {
			return 0, err
		}
		if in == nil {
			break
		}
		copy(row, in)
		if err := w.Insert(ctx, row); err != nil {
			return 0, err
		}
		n++
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	return n, w.Flush(ctx)
}
