package ddl

import (
	"context"
	"errors"
	"slices"
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// createView runs CREATE [OR REPLACE] [TEMP] VIEW name [(columns)] AS query.
func (a *analyzer) createView(s *pg.ViewStmt) (planner.Utility, error) {
	sel := s.Query.GetSelectStmt()
	if sel == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "this view query is not supported")
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
		case temp:
			// A view of temporary tables is temporary, in whatever
			// schema it is named (which must then be the temporary one).
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "view %q will be a temporary view", rv.Relname))
			schema, err = a.tempCreationSchema(ctx, rv.Schemaname)
		default:
			if schema, err = a.creationSchema(ctx, rv.Schemaname, rv.Location); err == nil {
				err = a.requireSchemaCreate(ctx, schema)
			}
		}
		if err != nil {
			return "", err
		}
		plan, err := a.ViewQuery(sel)
		if err != nil {
			return "", err
		}
		cols := plan.Columns()
		names := planner.NameList(s.Aliases)
		if len(names) > len(cols) {
			return "", pgerr.New(pgerr.SyntaxError, "CREATE VIEW specifies more column names than columns")
		}
		v := &sqldef.View{Schema: schema, Name: rv.Relname, Depends: deps, Owner: planner.NewObjectOwner(a.s), Statement: a.Text()}
		if v.ACL, err = a.initialACL(ctx, v.Owner, schema, sqldef.DefaultTables); err != nil {
			return "", err
		}
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
			v.Columns = append(v.Columns, sqldef.ViewColumn{Name: name, Type: t.OID, Typmod: t.Typmod})
		}
		if err := setViewOptions(v, s.Options, false); err != nil {
			return "", err
		}
		// WITH [LOCAL | CASCADED] CHECK OPTION is the reloption
		// check_option, as PostgreSQL's DefineView makes it.
		var check []*pg.Node
		switch s.WithCheckOption {
		case pg.ViewCheckOption_LOCAL_CHECK_OPTION:
			check = []*pg.Node{{Node: &pg.Node_DefElem{DefElem: &pg.DefElem{Defname: "check_option", Arg: pg.MakeStrNode("local")}}}}
		case pg.ViewCheckOption_CASCADED_CHECK_OPTION:
			check = []*pg.Node{{Node: &pg.Node_DefElem{DefElem: &pg.DefElem{Defname: "check_option", Arg: pg.MakeStrNode("cascaded")}}}}
		}
		if err := setViewOptions(v, check, false); err != nil {
			return "", err
		}
		if v.Query, err = planner.DeparseSelect(sel); err != nil {
			return "", err
		}
		v.Query = a.frozenQuery(sel, v)
		if v.Check != 0 {
			if err := a.checkOptionAllowed(v); err != nil {
				return "", err
			}
		}
		rel, err := planner.FindRelation(ctx, a.tx.Root(), schema, v.Name)
		if err != nil {
			return "", err
		}
		switch {
		case rel.Kind == planner.RelView && s.Replace:
			if err := replaceableView(rel.View, v); err != nil {
				return "", err
			}
			v.Comment, v.Owner, v.ACL = rel.View.Comment, rel.View.Owner, rel.View.ACL
			// The view stays the relation it was: its triggers and its
			// columns' defaults and privileges stay too.
			v.Triggers, v.ColumnACL = rel.View.Triggers, rel.View.ColumnACL
			for i := range v.Columns {
				if i < len(rel.View.Columns) {
					v.Columns[i].Default = rel.View.Columns[i].Default
				}
			}
		case rel.Kind != planner.RelNone:
			return "", pgerr.New(pgerr.DuplicateTable, "relation %q already exists", v.Name)
		}
		root, err := a.tx.Root().PutView(ctx, v)
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
		return "CREATE VIEW", nil
	}, nil
}

// replaceableView checks CREATE OR REPLACE VIEW's rule: the new view keeps
// the old one's columns, names and types, and may add more after them.
func replaceableView(old, v *sqldef.View) error {
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
				types.FormatType(types.Oid(c.Type), c.Typmod), types.FormatType(types.Oid(n.Type), n.Typmod))
		}
	}
	return nil
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
	ctes := planner.CTENames(n)
	planner.VisitNodes(n, func(x *pg.Node) {
		rv := x.GetRangeVar()
		if rv == nil || err != nil || rv.Schemaname == "" && ctes[rv.Relname] {
			return
		}
		var rel planner.Relation
		var schema string
		if rel, schema, err = a.LookupRelation(ctx, rv.Schemaname, rv.Relname); err != nil || rel.Kind == planner.RelNone {
			return
		}
		rv.Schemaname = schema
		dep := schema + "." + rv.Relname
		if !slices.Contains(deps, dep) {
			deps = append(deps, dep)
		}
		temp = temp || planner.IsTempSchema(schema)
	})
	slices.Sort(deps)
	return deps, temp, err
}

// dropViews runs DROP VIEW [IF EXISTS] name, ... [CASCADE].
func (a *analyzer) dropViews(ctx context.Context, s *pg.DropStmt) (string, error) {
	cascade := s.Behavior == pg.DropBehavior_DROP_CASCADE
	defer a.collectCascades()()
	for _, obj := range s.Objects {
		rel, relSchema, name, err := a.dropTarget(ctx, obj, planner.RelView, s.MissingOk)
		if err != nil {
			return "", err
		}
		if rel.Kind == planner.RelNone {
			continue
		}
		if err := a.dropDependentViews(ctx, relSchema, name, "view "+name, cascade); err != nil {
			return "", err
		}
		root, err := a.tx.Root().DropView(ctx, relSchema, name)
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
	views, err := a.tx.Root().Views(ctx)
	if err != nil {
		return err
	}
	target := schema + "." + name
	// Policies and materialized views that read it go the same way
	// (policy.go, matview.go).
	if err := a.dropDependentPolicies(ctx, target, what, cascade); err != nil {
		return err
	}
	if err := a.dropDependentMatviews(ctx, target, what, cascade); err != nil {
		return err
	}
	for _, v := range views {
		if !slices.Contains(v.Depends, target) || v.Schema == schema && v.Name == name {
			continue
		}
		if !cascade {
			return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop %s because other objects depend on it", what).
				WithDetail("view %s depends on %s", v.Name, what).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		a.cascaded("view " + v.Name)
		if err := a.dropDependentViews(ctx, v.Schema, v.Name, "view "+v.Name, true); err != nil {
			return err
		}
		root, err := a.tx.Root().DropView(ctx, v.Schema, v.Name)
		if err != nil {
			return err
		}
		a.tx.SetRoot(root)
	}
	return nil
}

// renameInViews rewrites the views that read schema.old to read to.name
// instead (qualified, when the schema changes: the old name no longer
// resolves as it did).
func (a *analyzer) renameInViews(ctx context.Context, schema, old, to, name string) error {
	views, err := a.tx.Root().Views(ctx)
	if err != nil {
		return err
	}
	target := schema + "." + old
	root := a.tx.Root()
	for _, v := range views {
		if !slices.Contains(v.Depends, target) {
			continue
		}
		if q, ok := a.refreezeRenamed(v, schema, old, to, name); ok {
			v.Query = q
		} else {
			sel, err := planner.ParseSelect(v.Query)
			if err != nil {
				return err
			}
			planner.RenameInQuery(sel, schema, old, to, name)
			if v.Query, err = planner.DeparseSelect(sel); err != nil {
				return err
			}
		}
		for i, d := range v.Depends {
			if d == target {
				v.Depends[i] = to + "." + name
			}
		}
		slices.Sort(v.Depends)
		if root, err = root.PutView(ctx, v); err != nil {
			return err
		}
	}
	// Materialized views: their query, run again by REFRESH, too.
	tables, err := root.Tables(ctx)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if t.MatView == nil || !slices.Contains(t.MatView.Depends, target) {
			continue
		}
		sel, err := planner.ParseSelect(t.MatView.Query)
		if err != nil {
			return err
		}
		planner.RenameInQuery(sel, schema, old, to, name)
		mv := *t.MatView
		if mv.Query, err = planner.DeparseSelect(sel); err != nil {
			return err
		}
		mv.Depends = slices.Clone(mv.Depends)
		for i, d := range mv.Depends {
			if d == target {
				mv.Depends[i] = to + "." + name
			}
		}
		slices.Sort(mv.Depends)
		def := cloneTable(t)
		def.MatView = &mv
		if root, err = root.PutTable(ctx, def); err != nil {
			return err
		}
	}
	a.tx.SetRoot(root)
	return nil
}

// checkOptionAllowed fails unless view v, which has a check option, is
// automatically updatable, as PostgreSQL requires of WITH CHECK OPTION.
func (a *analyzer) checkOptionAllowed(v *sqldef.View) error {
	detail, err := a.ViewNotUpdatable(v)
	if err != nil || detail == "" {
		return err
	}
	return pgerr.New(pgerr.FeatureNotSupported, "WITH CHECK OPTION is supported only on automatically updatable views").
		WithHint("%s", detail)
}

// renameViewColumn renames column old of view v to name (ALTER VIEW ...
// RENAME COLUMN): the view's query is unchanged, its output column is
// named anew, as PostgreSQL's pg_attribute entry is.
func (a *analyzer) renameViewColumn(ctx context.Context, v *sqldef.View, old, name string) error {
	pos := -1
	for i, c := range v.Columns {
		if c.Name == name {
			return pgerr.New(pgerr.DuplicateColumn, "column %q of relation %q already exists", name, v.Name)
		}
		if c.Name == old {
			pos = i
		}
	}
	if pos < 0 {
		return pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", old)
	}
	nv := *v
	nv.Columns = slices.Clone(v.Columns)
	nv.Columns[pos].Name = name
	root, err := a.tx.Root().PutView(ctx, &nv)
	if err != nil {
		return err
	}
	a.tx.SetRoot(root)
	return nil
}

// keyDependentViews fails when a view reading table def needs its
// primary key constraint, just dropped: a view whose query groups by the
// key and reads other columns of the table, which the key determines
// (PostgreSQL records such a view as depending on the constraint). The
// views are analyzed again without the key; a grouping error tells.
func (a *analyzer) keyDependentViews(ctx context.Context, def *sqldef.Table, constraint string) error {
	views, err := a.tx.Root().Views(ctx)
	if err != nil {
		return err
	}
	target := def.Schema + "." + def.Name
	for _, v := range views {
		if !slices.Contains(v.Depends, target) {
			continue
		}
		sel, err := planner.ParseSelect(v.Query)
		if err != nil {
			return err
		}
		var pe *pgerr.Error
		if _, err := a.ViewQuery(sel); errors.As(err, &pe) && pe.Code == pgerr.GroupingError {
			return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop constraint %s on table %s because other objects depend on it", constraint, def.Name).
				WithDetail("view %s depends on constraint %s on table %s", v.Name, constraint, def.Name).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
	}
	return nil
}

// renameColumnInViews keeps the views and materialized views that read
// table def reading its column at pos, just renamed from old: each of
// their references to the table gets a column alias list naming its
// columns as they were, which PostgreSQL, holding columns by number,
// prints the same way (FROM t t(a, b, old)).
func (a *analyzer) renameColumnInViews(ctx context.Context, def *sqldef.Table, pos int, old string) error {
	var names []string // the table's columns up to pos, as the queries name them
	for i, c := range def.Columns[:pos+1] {
		switch {
		case c.Dropped:
		case i == pos:
			names = append(names, old)
		default:
			names = append(names, c.Name)
		}
	}
	return a.rewriteReaders(ctx, def, func(rv *pg.RangeVar) bool {
		if rv.Alias == nil {
			rv.Alias = &pg.Alias{Aliasname: rv.Relname}
		}
		n := len(rv.Alias.Colnames)
		if n >= len(names) {
			return false
		}
		for _, name := range names[n:] {
			rv.Alias.Colnames = append(rv.Alias.Colnames, pg.MakeStrNode(name))
		}
		return true
	})
}

// addColumnInViews keeps the references to table def that have a column
// alias list (renameColumnInViews) unambiguous when a column named name
// is added: a list that names a column so gets the new column's name
// made unique (name_1), as PostgreSQL prints it.
func (a *analyzer) addColumnInViews(ctx context.Context, def *sqldef.Table, name string) error {
	var real []string
	for _, c := range def.Columns {
		if !c.Dropped {
			real = append(real, c.Name)
		}
	}
	return a.rewriteReaders(ctx, def, func(rv *pg.RangeVar) bool {
		if rv.Alias == nil || len(rv.Alias.Colnames) == 0 {
			return false
		}
		used := map[string]bool{}
		var all []string
		for i, r := range real {
			n := r
			if i < len(rv.Alias.Colnames) {
				n = rv.Alias.Colnames[i].GetString_().Sval
			}
			used[n] = true
			all = append(all, n)
		}
		if !used[name] {
			return false
		}
		unique := name
		for i := 1; used[unique]; i++ {
			unique = name + "_" + strconv.Itoa(i)
		}
		rv.Alias.Colnames = nil
		for _, n := range append(all, unique) {
			rv.Alias.Colnames = append(rv.Alias.Colnames, pg.MakeStrNode(n))
		}
		return true
	})
}

// rewriteReaders applies fix to the references to table def in the
// queries of the views and materialized views that read it, storing
// those it changes.
func (a *analyzer) rewriteReaders(ctx context.Context, def *sqldef.Table, fix func(*pg.RangeVar) bool) error {
	rewrite := func(query string) (string, bool, error) {
		sel, err := planner.ParseSelect(query)
		if err != nil {
			return "", false, err
		}
		changed := false
		planner.VisitNodes(&pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}, func(x *pg.Node) {
			rv := x.GetRangeVar()
			if rv == nil || rv.Relname != def.Name || rv.Schemaname != "" && rv.Schemaname != def.Schema {
				return
			}
			changed = fix(rv) || changed
		})
		if !changed {
			return query, false, nil
		}
		text, err := planner.DeparseSelect(sel)
		return text, true, err
	}
	target := def.Schema + "." + def.Name
	root := a.tx.Root()
	views, err := root.Views(ctx)
	if err != nil {
		return err
	}
	for _, v := range views {
		if !slices.Contains(v.Depends, target) {
			continue
		}
		q, changed, err := rewrite(v.Query)
		if err != nil {
			return err
		}
		if !changed {
			continue
		}
		nv := *v
		nv.Query = q
		if root, err = root.PutView(ctx, &nv); err != nil {
			return err
		}
	}
	tables, err := root.Tables(ctx)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if t.MatView == nil || !slices.Contains(t.MatView.Depends, target) {
			continue
		}
		q, changed, err := rewrite(t.MatView.Query)
		if err != nil {
			return err
		}
		if !changed {
			continue
		}
		mv := *t.MatView
		mv.Query = q
		nt := cloneTable(t)
		nt.MatView = &mv
		if root, err = root.PutTable(ctx, nt); err != nil {
			return err
		}
	}
	a.tx.SetRoot(root)
	return nil
}

// frozenQuery returns the text view v keeps of its query sel: the
// analyzed form planner.FreezeViewQuery prints, when it plans to the
// same columns as the query written, else v.Query as it is.
func (a *analyzer) frozenQuery(sel *pg.SelectStmt, v *sqldef.View) string {
	names := make([]string, len(v.Columns))
	for i, c := range v.Columns {
		names[i] = c.Name
	}
	q, ok := planner.FreezeViewQuery(a.Analyzer, sel, names)
	if !ok {
		return v.Query
	}
	fsel, err := planner.ParseSelect(q)
	if err != nil {
		return v.Query
	}
	plan, err := a.ViewQuery(fsel)
	if err != nil {
		return v.Query
	}
	cols := plan.Columns()
	if len(cols) != len(v.Columns) {
		return v.Query
	}
	for i, c := range cols {
		t := c.T
		if t.OID == exec.OIDUnknown {
			t = exec.TText
		}
		if c.Name != v.Columns[i].Name || t.OID != v.Columns[i].Type || t.Typmod != v.Columns[i].Typmod {
			return v.Query
		}
	}
	return q
}

// refreezeRenamed returns view v's query for the rename of the relation
// schema.old it reads to to.name, printed anew with the names PostgreSQL gives its
// FROM items (planner.RefreezeRenamed); ok is false when it cannot be.
func (a *analyzer) refreezeRenamed(v *sqldef.View, schema, old, to, name string) (string, bool) {
	sel, err := planner.ParseSelect(v.Query)
	if err != nil {
		return "", false
	}
	renamed := map[*pg.RangeVar]*pg.RangeVar{}
	planner.VisitNodes(&pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}, func(x *pg.Node) {
		if rv := x.GetRangeVar(); rv != nil && rv.Relname == old && (rv.Schemaname == "" || rv.Schemaname == schema) {
			n := &pg.RangeVar{Relname: name, Schemaname: rv.Schemaname, Inh: rv.Inh}
			if to != schema || rv.Schemaname != "" {
				n.Schemaname = to
			}
			renamed[rv] = n
		}
	})
	cols := make([]string, len(v.Columns))
	for i, c := range v.Columns {
		cols[i] = c.Name
	}
	return planner.RefreezeRenamed(a.Analyzer, sel, cols, renamed)
}
