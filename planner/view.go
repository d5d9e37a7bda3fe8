package planner

import (
	"context"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner/dolt"
	"github.com/prollypg/prollypg/versioning"
)

// Views. A view is its query's SQL text and the columns it had when it was
// made, a record of the root value. A query that names a view plans the
// view's query in its place and reads its rows as a relation (computed at
// each scan). Views are read-only here. Because the query is kept as text,
// renaming a relation it reads rewrites the text, and dropping one needs
// CASCADE, which drops the view (Depends lists what each view reads).

// maxViewDepth bounds views of views, which a loop could otherwise make
// endless.
const maxViewDepth = 32

// createView runs CREATE [OR REPLACE] [TEMP] VIEW name [(columns)] AS query.
func (a *analyzer) createView(s *pg.ViewStmt) (utility, error) {
	sel := s.Query.GetSelectStmt()
	if sel == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "this view query is not supported")
	}
	if len(s.Options) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "view options are not supported yet")
	}
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		deps, temp, err := a.viewDependencies(ctx, s.Query)
		if err != nil {
			return "", err
		}
		rv := s.View
		var schema string
		switch {
		case rv.Relpersistence == "t":
			schema, err = a.tempCreationSchema(ctx, rv.Schemaname)
		case temp && rv.Schemaname == "":
			a.s.notice(pgerr.New(pgerr.SuccessfulCompletion, "view %q will be a temporary view", rv.Relname))
			schema, err = a.ensureTempSchema(ctx)
		default:
			if schema, err = a.creationSchema(ctx, rv.Schemaname, rv.Location); err == nil {
				err = a.requireSchemaCreate(ctx, schema)
			}
		}
		if err != nil {
			return "", err
		}
		plan, err := a.selectStmt(sel)
		if err != nil {
			return "", err
		}
		cols := plan.Columns()
		names := nameList(s.Aliases)
		if len(names) > len(cols) {
			return "", pgerr.New(pgerr.SyntaxError, "CREATE VIEW specifies more column names than columns")
		}
		v := &versioning.View{Schema: schema, Name: rv.Relname, Depends: deps, Owner: a.s.newObjectOwner(), Statement: a.text}
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
			v.Columns = append(v.Columns, versioning.ViewColumn{Name: name, Type: t.OID, Typmod: t.Typmod})
		}
		switch s.WithCheckOption {
		case pg.ViewCheckOption_LOCAL_CHECK_OPTION:
			v.Check = 'l'
		case pg.ViewCheckOption_CASCADED_CHECK_OPTION:
			v.Check = 'c'
		}
		if v.Query, err = deparseSelect(sel); err != nil {
			return "", err
		}
		rel, err := findRelation(ctx, a.tx.Root, schema, v.Name)
		if err != nil {
			return "", err
		}
		switch {
		case rel.kind == relView && s.Replace:
			if err := replaceableView(rel.view, v); err != nil {
				return "", err
			}
			v.Comment, v.Owner, v.ACL = rel.view.Comment, rel.view.Owner, rel.view.ACL
		case rel.kind != relNone:
			return "", pgerr.New(pgerr.DuplicateTable, "relation %q already exists", v.Name)
		}
		root, err := a.tx.Root.PutView(ctx, v)
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
		return "CREATE VIEW", nil
	}, nil
}

// replaceableView checks CREATE OR REPLACE VIEW's rule: the new view keeps
// the old one's columns, names and types, and may add more after them.
func replaceableView(old, v *versioning.View) error {
	if len(v.Columns) < len(old.Columns) {
		return pgerr.New(pgerr.InvalidTableDefinition, "cannot drop columns from view")
	}
	for i, c := range old.Columns {
		n := v.Columns[i]
		if n.Name != c.Name {
			return pgerr.New(pgerr.InvalidTableDefinition, "cannot change name of view column %q to %q", c.Name, n.Name).
				WithHint("Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.")
		}
		if n.Type != c.Type || n.Typmod != c.Typmod {
			return pgerr.New(pgerr.InvalidTableDefinition, "cannot change data type of view column %q from %s to %s", c.Name,
				exec.TypeName(c.Type), exec.TypeName(n.Type))
		}
	}
	return nil
}

// deparseSelect returns a query as SQL text.
func deparseSelect(sel *pg.SelectStmt) (string, error) {
	tree := &pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}}}}
	s, err := pg.Deparse(tree)
	if err != nil {
		return "", pgerr.Wrap(err, pgerr.InternalError, "cannot deparse view query: %v", err)
	}
	return s, nil
}

// viewDependencies returns the relations a view's query names (by schema
// and name) and whether one of them is temporary. It qualifies each name
// in the query with the schema it was found in: a view reads the
// relations it was made with, whatever the search path of the sessions
// that read (or dump) it later.
func (a *analyzer) viewDependencies(ctx context.Context, n *pg.Node) ([]string, bool, error) {
	var deps []string
	temp := false
	var err error
	ctes := cteNames(n)
	visitNodes(n, func(x *pg.Node) {
		rv := x.GetRangeVar()
		if rv == nil || err != nil || rv.Schemaname == "" && ctes[rv.Relname] {
			return
		}
		var rel relation
		var schema string
		if rel, schema, err = a.lookupRelation(ctx, rv.Schemaname, rv.Relname); err != nil || rel.kind == relNone {
			return
		}
		rv.Schemaname = schema
		dep := schema + "." + rv.Relname
		if !slices.Contains(deps, dep) {
			deps = append(deps, dep)
		}
		temp = temp || isTempSchema(schema)
	})
	slices.Sort(deps)
	return deps, temp, err
}

// cteNames returns the names of the WITH queries of a query and its
// subqueries, which its relation names may refer to.
func cteNames(n *pg.Node) map[string]bool {
	names := map[string]bool{}
	visitNodes(n, func(x *pg.Node) {
		if c := x.GetCommonTableExpr(); c != nil {
			names[c.Ctename] = true
		}
	})
	return names
}

// viewDefinition is a view's query as pg_get_viewdef prints it: the
// relations it reads named as the search path finds them, bare where
// their name alone finds them, schema-qualified elsewhere (as pg_dump,
// which empties the search path, needs). Views made before their queries
// were stored qualified name a relation bare; Depends tells its schema.
func viewDefinition(snap *catalog.Snapshot, v *versioning.View) string {
	sel, err := parseSelect(v.Query)
	if err != nil {
		return v.Query
	}
	n := &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}
	ctes := cteNames(n)
	visitNodes(n, func(x *pg.Node) {
		rv := x.GetRangeVar()
		if rv == nil || ctes[rv.Relname] {
			return
		}
		schema := rv.Schemaname
		if schema == "" {
			for _, d := range v.Depends {
				if sc, name, _ := strings.Cut(d, "."); name == rv.Relname {
					schema = sc
				}
			}
		}
		r, ok := snap.RelationByName(schema, rv.Relname)
		if !ok {
			return
		}
		rv.Schemaname = schema
		if snap.Visible(r) {
			rv.Schemaname = ""
		}
	})
	text, err := deparseSelect(sel)
	if err != nil {
		return v.Query
	}
	return text
}

// viewTable returns the relation a view reads as, if schema.name (or name
// along the search path) is a view: its query is planned now, its rows
// computed at each scan.
func (a *analyzer) viewTable(ctx context.Context, schema, name string) (*exec.Table, bool, error) {
	schemas := []string{a.s.resolveSchemaName(schema)}
	if schema == "" {
		schemas = a.s.relationPath()
	}
	for _, sc := range schemas {
		v, ok, err := a.tx.Root.View(ctx, sc, name)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			continue
		}
		r, err := parseSelect(v.Query)
		if err != nil {
			return nil, false, err
		}
		t, err := a.viewRelation(ctx, v, r)
		return t, err == nil, err
	}
	return nil, false, nil
}

// viewRelation plans view v, whose query is sel, as a relation.
func (a *analyzer) viewRelation(ctx context.Context, v *versioning.View, r *pg.SelectStmt) (*exec.Table, error) {
	sc, name := v.Schema, v.Name
	if a.s.viewDepth >= maxViewDepth {
		return nil, pgerr.New(pgerr.InvalidObjectDefinition, "infinite recursion detected in rules for relation %q", name)
	}
	owner, err := a.viewAuthority(v)
	if err != nil {
		return nil, err
	}
	sub := &analyzer{ctx: ctx, s: a.s, tx: a.tx, as: owner}
	a.s.viewDepth++
	plan, err := sub.selectStmt(r)
	a.s.viewDepth--
	if err != nil {
		return nil, err
	}
	// The plan stays valid while the view's tables keep their
	// definitions and the view its own: a view is no table, so the
	// entry for it never matches one and a changed root replans.
	a.deps = append(a.deps, sub.deps...)
	a.deps = append(a.deps, &versioning.Table{Schema: sc, Name: name})
	cols := make([]exec.VirtualColumn, len(v.Columns))
	conv := make([]exec.Expr, len(v.Columns))
	pcols := plan.Columns()
	if len(pcols) < len(v.Columns) {
		return nil, pgerr.New(pgerr.InvalidObjectDefinition, "view %q no longer matches its query", name)
	}
	for i, c := range v.Columns {
		t := exec.T{OID: c.Type, Typmod: c.Typmod}
		cols[i] = exec.VirtualColumn{Name: c.Name, Type: t}
		if conv[i], err = sub.assignOrIO(&exec.ColRef{Idx: i, T: pcols[i].T}, t, c.Name); err != nil {
			return nil, err
		}
	}
	t := exec.NewVirtualTable(sc, name, catalog.ViewOID(sc, name), cols, func(env *exec.Env) ([]exec.Row, error) {
		rows, err := plan.Open(env)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []exec.Row
		for {
			row, err := rows.Next()
			if err != nil {
				return nil, err
			}
			if row == nil {
				return out, rows.Close()
			}
			o := make(exec.Row, len(conv))
			for i, e := range conv {
				if o[i], err = e.Eval(env, row); err != nil {
					return nil, err
				}
			}
			out = append(out, o)
		}
	})
	t.VirtualKind = 'v'
	return t, nil
}

// pinViewQuery qualifies every relation view v's query sel reads with
// catalog, "db@rev", so that the view as of a revision reads its tables
// (and the views it reads) as of that revision too. Relations named bare
// take their schema from the view's dependencies, else the search path.
func pinViewQuery(sel *pg.SelectStmt, v *versioning.View, catalog string) {
	n := &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}
	ctes := cteNames(n)
	visitNodes(n, func(x *pg.Node) {
		rv := x.GetRangeVar()
		if rv == nil || rv.Catalogname != "" || rv.Schemaname == "" && ctes[rv.Relname] {
			return
		}
		rv.Catalogname = catalog
		if rv.Schemaname != "" {
			return
		}
		rv.Schemaname = dolt.AnySchema
		for _, d := range v.Depends {
			if sc, name, _ := strings.Cut(d, "."); name == rv.Relname {
				rv.Schemaname = sc
			}
		}
	})
}

// parseSelect parses a stored view query.
func parseSelect(sql string) (*pg.SelectStmt, error) {
	r, err := pg.Parse(sql)
	if err != nil || len(r.Stmts) != 1 || r.Stmts[0].Stmt.GetSelectStmt() == nil {
		return nil, pgerr.New(pgerr.InternalError, "stored view query %q does not parse", sql)
	}
	return r.Stmts[0].Stmt.GetSelectStmt(), nil
}

// dropViews runs DROP VIEW [IF EXISTS] name, ... [CASCADE].
func (a *analyzer) dropViews(ctx context.Context, s *pg.DropStmt) (string, error) {
	cascade := s.Behavior == pg.DropBehavior_DROP_CASCADE
	for _, obj := range s.Objects {
		rel, relSchema, name, err := a.dropTarget(ctx, obj, relView, s.MissingOk)
		if err != nil {
			return "", err
		}
		if rel.kind == relNone {
			continue
		}
		if err := a.dropDependentViews(ctx, relSchema, name, "view "+name, cascade); err != nil {
			return "", err
		}
		root, err := a.tx.Root.DropView(ctx, relSchema, name)
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
	}
	return "DROP VIEW", nil
}

// dropDependentViews fails with 2BP01 if views read schema.name, unless
// cascade, which drops them (and the views that read those).
func (a *analyzer) dropDependentViews(ctx context.Context, schema, name, what string, cascade bool) error {
	views, err := a.tx.Root.Views(ctx)
	if err != nil {
		return err
	}
	target := schema + "." + name
	for _, v := range views {
		if !slices.Contains(v.Depends, target) || v.Schema == schema && v.Name == name {
			continue
		}
		if !cascade {
			return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop %s because other objects depend on it", what).
				WithDetail("view %s depends on %s", v.Name, what).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		a.s.notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to view %s", v.Name))
		if err := a.dropDependentViews(ctx, v.Schema, v.Name, "view "+v.Name, true); err != nil {
			return err
		}
		root, err := a.tx.Root.DropView(ctx, v.Schema, v.Name)
		if err != nil {
			return err
		}
		a.tx.SetRoot(root)
	}
	return nil
}

// renameInViews rewrites the views that read schema.old to read
// schema.name instead.
func (a *analyzer) renameInViews(ctx context.Context, schema, old, name string) error {
	views, err := a.tx.Root.Views(ctx)
	if err != nil {
		return err
	}
	target := schema + "." + old
	root := a.tx.Root
	for _, v := range views {
		if !slices.Contains(v.Depends, target) {
			continue
		}
		sel, err := parseSelect(v.Query)
		if err != nil {
			return err
		}
		visitNodes(&pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}, func(x *pg.Node) {
			if rv := x.GetRangeVar(); rv != nil && rv.Relname == old && (rv.Schemaname == "" || rv.Schemaname == schema) {
				rv.Relname = name
			}
		})
		if v.Query, err = deparseSelect(sel); err != nil {
			return err
		}
		for i, d := range v.Depends {
			if d == target {
				v.Depends[i] = schema + "." + name
			}
		}
		slices.Sort(v.Depends)
		if root, err = root.PutView(ctx, v); err != nil {
			return err
		}
	}
	a.tx.SetRoot(root)
	return nil
}
