package dolt

import (
	"context"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// dolt_schemas and dolt_procedures, the per-schema tables Doltgres keeps
// the schema's views in (and, from Dolt, MySQL's stored procedures). The
// views here are catalog records of the root value (sqldef.View);
// dolt_schemas shows each as a row (type 'view', its name, and its CREATE
// VIEW statement as written), and the version-control functions speak of
// a schema's views as Doltgres does, as rows of <schema>.dolt_schemas:
// dolt_diff_summary lists them as that table, added when the schema's
// first view came and dropped when its last went, and dolt_diff(from,
// to, 'dolt_schemas') diffs them row by row. PostgreSQL's procedures are
// catalog objects, as in Doltgres, whose dolt_procedures is always
// empty; it has Dolt's columns.

// schemasTable is the name of each schema's table of views.
const schemasTable = "dolt_schemas"

// schemasColumns are dolt_schemas's columns.
var schemasColumns = []exec.VirtualColumn{
	{Name: "type", Type: exec.TText}, {Name: "name", Type: exec.TText}, {Name: "fragment", Type: exec.TText},
	{Name: "extra", Type: exec.TJSON}, {Name: "sql_mode", Type: exec.TText},
}

// viewSQLMode is the sql_mode Doltgres records with a view: Dolt's
// MySQL setting, which means nothing to PostgreSQL.
const viewSQLMode = "NO_ENGINE_SUBSTITUTION,ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES"

// viewRow is a view's row of dolt_schemas.
func viewRow(v *sqldef.View) exec.Row {
	stmt := v.Statement
	if stmt == "" {
		stmt = "CREATE VIEW " + qualifiedName(v.Schema, v.Name) + " AS " + v.Query
	}
	return exec.Row{exec.DText("view"), exec.DText(v.Name), exec.DText(stmt), exec.DJSON(`{"CreatedAt": 0}`), exec.DText(viewSQLMode)}
}

// viewsIn returns the views of schema in root, by name.
func viewsIn(ctx context.Context, root versioning.RootValue, schema string) ([]*sqldef.View, error) {
	all, err := root.Views(ctx)
	if err != nil {
		return nil, err
	}
	var out []*sqldef.View
	for _, v := range all {
		if v.Schema == schema {
			out = append(out, v)
		}
	}
	return out, nil
}

func init() {
	perSchemaSystem["schemas"] = func(_ session, schema string) *exec.Table {
		return exec.NewVirtualTable(schema, schemasTable, exec.ObjectOID('r', schema, schemasTable), schemasColumns, func(env *exec.Env) ([]exec.Row, error) {
			views, err := viewsIn(env.Ctx, env.Txn.Root(), schema)
			if err != nil {
				return nil, err
			}
			rows := make([]exec.Row, len(views))
			for i, v := range views {
				rows[i] = viewRow(v)
			}
			return rows, nil
		})
	}
	procedureCols := []exec.VirtualColumn{
		{Name: "name", Type: exec.TText}, {Name: "create_stmt", Type: exec.TText},
		{Name: "created_at", Type: exec.TTimestamp}, {Name: "modified_at", Type: exec.TTimestamp},
		{Name: "sql_mode", Type: exec.TText},
	}
	perSchemaSystem["procedures"] = func(_ session, schema string) *exec.Table {
		return exec.NewVirtualTable(schema, "dolt_procedures", exec.ObjectOID('r', schema, "dolt_procedures"), procedureCols, func(*exec.Env) ([]exec.Row, error) {
			return nil, nil
		})
	}
}

// schemasArg reports whether a table named to a version-control function
// is a schema's dolt_schemas, and which schema's: the one named, or the
// first of the search path that one of roots has.
func (s session) schemasArg(ctx context.Context, name string, roots ...versioning.RootValue) (string, bool, error) {
	schema, rel, err := s.ParseName(name)
	if err != nil || rel != schemasTable {
		return "", false, err
	}
	for _, sc := range s.RelationSchemas(schema) {
		for _, r := range roots {
			if r.Addr().IsZero() {
				continue
			}
			_, ok, err := r.Schema(ctx, sc)
			if err != nil {
				return "", false, err
			}
			if ok {
				return sc, true, nil
			}
		}
	}
	return "", false, nil
}

// viewSummary is the change of one schema's dolt_schemas between two
// roots, given the changes of its views: "added" when from had none of
// its views, "dropped" when to has none, "modified" otherwise.
func viewSummary(ctx context.Context, from, to versioning.RootValue, schema string) (string, error) {
	var had, has bool
	for i, r := range []versioning.RootValue{from, to} {
		if r.Addr().IsZero() {
			continue
		}
		views, err := viewsIn(ctx, r, schema)
		if err != nil {
			return "", err
		}
		if i == 0 {
			had = len(views) > 0
		} else {
			has = len(views) > 0
		}
	}
	switch {
	case !had:
		return "added", nil
	case !has:
		return "dropped", nil
	}
	return "modified", nil
}

// planSchemasDiff plans dolt_diff(from, to, 'dolt_schemas'): the changed
// views of schema as rows of dolt_schemas.
func (s session) planSchemasDiff(fn string, r diffRange, schema string) *exec.Table {
	sh := &diffShape{name: sqldef.TableName{Schema: schema, Name: schemasTable}, fromCols: schemasColumns, toCols: schemasColumns}
	return exec.NewVirtualTable("", fn, 0, sh.columns(), func(env *exec.Env) ([]exec.Row, error) {
		from, to, err := s.resolveRange(env, r)
		if err != nil {
			return nil, err
		}
		var before, after []*sqldef.View
		if !from.empty {
			if before, err = viewsIn(env.Ctx, from.root, schema); err != nil {
				return nil, err
			}
		}
		if after, err = viewsIn(env.Ctx, to.root, schema); err != nil {
			return nil, err
		}
		old := map[string]*sqldef.View{}
		for _, v := range before {
			old[v.Name] = v
		}
		n := len(schemasColumns)
		nulls := make(exec.Row, n)
		for i := range nulls {
			nulls[i] = exec.Null
		}
		var rows []exec.Row
		emit := func(f, t *sqldef.View, kind string) {
			row := make(exec.Row, 0, 2*n+5)
			if t != nil {
				row = append(row, viewRow(t)...)
			} else {
				row = append(row, nulls...)
			}
			row = append(row, to.commit, to.date)
			if f != nil {
				row = append(row, viewRow(f)...)
			} else {
				row = append(row, nulls...)
			}
			rows = append(rows, append(row, from.commit, from.date, exec.DText(kind)))
		}
		for _, v := range after {
			switch f, ok := old[v.Name]; {
			case !ok:
				emit(nil, v, "added")
			case !sameView(f, v):
				emit(f, v, "modified")
			}
			delete(old, v.Name)
		}
		for _, v := range before {
			if _, gone := old[v.Name]; gone {
				emit(v, nil, "removed")
			}
		}
		return rows, nil
	})
}

// sameView reports whether two versions of a view show the same row of
// dolt_schemas.
func sameView(a, b *sqldef.View) bool {
	ra, rb := viewRow(a), viewRow(b)
	for i := range ra {
		if ra[i].S != rb[i].S {
			return false
		}
	}
	return true
}

// viewChanges returns, for each schema whose views differ among changes
// (from one root to another), in order, how its dolt_schemas changed
// (viewSummary).
func viewChanges(ctx context.Context, from, to versioning.RootValue, changes []versioning.ObjectChange) ([]schemaViews, error) {
	var out []schemaViews
	for _, c := range changes {
		if c.Kind != versioning.KindView {
			continue
		}
		if n := len(out); n > 0 && out[n-1].schema == c.Schema {
			continue // changes come ordered by kind, schema and name
		}
		kind, err := viewSummary(ctx, from, to, c.Schema)
		if err != nil {
			return nil, err
		}
		out = append(out, schemaViews{schema: c.Schema, kind: kind})
	}
	return out, nil
}

// schemaViews is how the views of a schema changed, as a change of its
// dolt_schemas: added, dropped or modified.
type schemaViews struct {
	schema, kind string
}

// label is the changed table's name, schema.dolt_schemas.
func (sv schemaViews) label() string { return sv.schema + "." + schemasTable }

// viewNames returns the views of schema in any of roots, as dolt_add
// and its kin take them when given schema's dolt_schemas.
func viewNames(ctx context.Context, schema string, roots []versioning.RootValue) ([]versioning.ObjectName, error) {
	seen := map[string]bool{}
	var out []versioning.ObjectName
	for _, r := range roots {
		if r.Addr().IsZero() {
			continue
		}
		views, err := viewsIn(ctx, r, schema)
		if err != nil {
			return nil, err
		}
		for _, v := range views {
			if !seen[v.Name] {
				seen[v.Name] = true
				out = append(out, versioning.ObjectName{Kind: versioning.KindView, Schema: schema, Name: v.Name})
			}
		}
	}
	return out, nil
}
