package planner

import (
	"context"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner/dolt"
	"github.com/prollypg/prollypg/planner/pgtree"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Views. A view is its query's SQL text and the columns it had when it was
// made, a record of the root value. A query that names a view plans the
// view's query in its place and reads its rows as a relation (computed at
// each scan). INSERT, UPDATE and DELETE through a view go to its INSTEAD
// OF triggers, or are rewritten onto the relation it reads when it is
// automatically updatable (updatable.go). Because the query is kept as text,
// renaming a relation it reads rewrites the text, and dropping one needs
// CASCADE, which drops the view (Depends lists what each view reads).

// maxViewDepth bounds views of views, which a loop could otherwise make
// endless.
const maxViewDepth = 32

// DeparseSelect returns a query as SQL text.
func DeparseSelect(sel *pg.SelectStmt) (string, error) {
	tree := &pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}}}}
	s, err := pg.Deparse(tree)
	if err != nil {
		return "", pgerr.Wrap(err, pgerr.InternalError, "cannot deparse view query: %v", err)
	}
	return s, nil
}

// CTENames returns the names of the WITH queries of a query and its
// subqueries, which its relation names may refer to.
func CTENames(n *pg.Node) map[string]bool {
	names := map[string]bool{}
	VisitNodes(n, func(x *pg.Node) {
		if c := x.GetCommonTableExpr(); c != nil {
			names[c.Ctename] = true
		}
	})
	return names
}

// ViewDefinition is a view's query as pg_get_viewdef prints it: the
// relations it reads named as the search path finds them, bare where
// their name alone finds them, schema-qualified elsewhere (as pg_dump,
// which empties the search path, needs). Views made before their queries
// were stored qualified name a relation bare; Depends tells its schema.
func ViewDefinition(snap *catalog.Snapshot, v *sqldef.View) string {
	sel, err := ParseSelect(v.Query)
	if err != nil {
		return v.Query
	}
	n := &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}
	ctes := CTENames(n)
	VisitNodes(n, func(x *pg.Node) {
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
	text, err := DeparseSelect(sel)
	if err != nil {
		return v.Query
	}
	return text
}

// viewTable returns the relation a view reads as, if schema.name (or name
// along the search path) is a view: its query is planned now, its rows
// computed at each scan.
func (a *analyzer) viewTable(ctx context.Context, schema, name string) (*exec.Table, bool, error) {
	schemas := []string{a.s.ResolveSchemaName(schema)}
	if schema == "" {
		schemas = a.s.RelationPath()
	}
	for _, sc := range schemas {
		v, ok, err := a.tx.Catalog().View(ctx, sc, name)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			continue
		}
		r, err := ParseSelect(v.Query)
		if err != nil {
			return nil, false, err
		}
		t, err := a.viewRelation(ctx, v, r)
		return t, err == nil, err
	}
	return nil, false, nil
}

// viewRelation plans view v, whose query is sel, as a relation.
func (a *analyzer) viewRelation(ctx context.Context, v *sqldef.View, r *pg.SelectStmt) (*exec.Table, error) {
	sc, name := v.Schema, v.Name
	if err := a.restrictView(v); err != nil {
		return nil, err
	}
	if a.s.PlannerState().viewDepth >= maxViewDepth {
		return nil, pgerr.New(pgerr.InvalidObjectDefinition, "infinite recursion detected in rules for relation %q", name)
	}
	owner, err := a.viewAuthority(v)
	if err != nil {
		return nil, err
	}
	switch {
	case a.as != nil && a.as.unchecked:
		owner = a.as // DDL checks no privileges
	case optionTrue(v.Option("security_invoker")):
		// Its tables are read with the current user's privileges and
		// policies, also under a view that is not security_invoker, as
		// in PostgreSQL (whose rewriter leaves their checkAsUser unset).
		owner = nil
	}
	sub := &analyzer{ctx: ctx, s: a.s, tx: a.tx, as: owner}
	a.s.PlannerState().viewDepth++
	plan, err := sub.selectStmt(r)
	if err == nil {
		err = sub.checkColumns()
	}
	a.s.PlannerState().viewDepth--
	if err != nil {
		return nil, err
	}
	// The plan stays valid while the view's tables keep their
	// definitions and the view its own: a view is no table, so the
	// entry for it never matches one and a changed root replans.
	a.deps = append(a.deps, sub.deps...)
	a.deps = append(a.deps, &sqldef.Table{Schema: sc, Name: name})
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
	for i, c := range v.Columns {
		t.Cols[i].Default = c.Default // for INSERTs its INSTEAD OF triggers take
	}
	t.Def.Triggers = v.Triggers // INSTEAD OF triggers take its writes
	t.Def.Rules = v.Rules       // and so do DO INSTEAD rules
	return t, nil
}

// pinViewQuery qualifies every relation view v's query sel reads with
// catalog, "db@rev", so that the view as of a revision reads its tables
// (and the views it reads) as of that revision too. Relations named bare
// take their schema from the view's dependencies, else the search path.
func pinViewQuery(sel *pg.SelectStmt, v *sqldef.View, catalog string) {
	n := &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}
	ctes := CTENames(n)
	VisitNodes(n, func(x *pg.Node) {
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

// ParseSelect parses a stored view query.
func ParseSelect(sql string) (*pg.SelectStmt, error) {
	r, err := pg.Parse(sql)
	if err != nil || len(r.Stmts) != 1 || r.Stmts[0].Stmt.GetSelectStmt() == nil {
		return nil, pgerr.New(pgerr.InternalError, "stored view query %q does not parse", sql)
	}
	return r.Stmts[0].Stmt.GetSelectStmt(), nil
}

// optionTrue reports whether a boolean reloption's value is true, as
// PostgreSQL's parse_bool reads it.
func optionTrue(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return v != "" && (strings.HasPrefix("true", v) || strings.HasPrefix("yes", v) || v == "on" || v == "1")
}

// RenameInQuery rewrites a view's query sel for the rename of relation
// schema.old to to.name: the references to the relation, and the column
// references qualified by its name where that name means it (the query
// level that reads it unaliased, and the levels within that do not name
// something else so), which would otherwise no longer resolve.
//
// Where the new name is already a name of the query, a reference by it
// could come to mean the renamed relation: the relation then keeps its
// old name as an alias instead.
func RenameInQuery(sel *pg.SelectStmt, schema, old, to, name string) {
	taken := false
	VisitNodes(&pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}, func(x *pg.Node) {
		switch {
		case x.GetRangeVar() != nil:
			taken = taken || aliasOf(x.GetRangeVar()) == name
		case x.GetAlias() != nil:
			taken = taken || x.GetAlias().Aliasname == name
		case x.GetRangeSubselect() != nil && x.GetRangeSubselect().Alias != nil:
			taken = taken || x.GetRangeSubselect().Alias.Aliasname == name
		case x.GetJoinExpr() != nil && x.GetJoinExpr().Alias != nil:
			taken = taken || x.GetJoinExpr().Alias.Aliasname == name
		case x.GetRangeFunction() != nil && x.GetRangeFunction().Alias != nil:
			taken = taken || x.GetRangeFunction().Alias.Aliasname == name
		}
	})
	if !taken {
		renameIn(sel, false, schema, old, to, name)
		return
	}
	VisitNodes(&pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}, func(x *pg.Node) {
		if rv := x.GetRangeVar(); rv != nil && rv.Relname == old && (rv.Schemaname == "" || rv.Schemaname == schema) {
			if rv.Alias == nil {
				rv.Alias = &pg.Alias{Aliasname: old}
			}
			rv.Relname = name
			if to != schema {
				rv.Schemaname = to
			}
		}
	})
}

// renameIn is RenameInQuery for one query level; active says the level
// around it reads the relation by its bare name.
func renameIn(sel *pg.SelectStmt, active bool, schema, old, to, name string) {
	if sel == nil {
		return
	}
	here, shadow := false, false
	var visit func(n *pg.Node)
	visit = func(n *pg.Node) {
		switch {
		case n.GetRangeVar() != nil:
			rv := n.GetRangeVar()
			if rv.Relname == old && (rv.Schemaname == "" || rv.Schemaname == schema) {
				here = here || rv.Alias == nil
				rv.Relname = name
				if to != schema {
					rv.Schemaname = to
				}
			} else if aliasOf(rv) == old {
				shadow = true
			}
		case n.GetJoinExpr() != nil:
			j := n.GetJoinExpr()
			visit(j.Larg)
			visit(j.Rarg)
			shadow = shadow || j.Alias != nil && j.Alias.Aliasname == old
		case n.GetRangeSubselect() != nil:
			a := n.GetRangeSubselect().Alias
			shadow = shadow || a != nil && a.Aliasname == old
		case n.GetRangeFunction() != nil:
			a := n.GetRangeFunction().Alias
			shadow = shadow || a != nil && a.Aliasname == old
		}
	}
	for _, n := range sel.FromClause {
		visit(n)
	}
	act := here || active && !shadow
	pgtree.Walk(sel.ProtoReflect(), func(m protoreflect.Message) bool {
		switch x := m.Interface().(type) {
		case *pg.SelectStmt:
			if x != sel {
				renameIn(x, act, schema, old, to, name)
				return false
			}
		case *pg.ColumnRef:
			f := x.Fields
			if !act || len(f) < 2 || len(f) > 3 || f[len(f)-2].GetString_().GetSval() != old {
				break
			}
			if len(f) == 3 && f[0].GetString_().GetSval() != schema {
				break
			}
			f[len(f)-2] = pg.MakeStrNode(name)
			if len(f) == 3 {
				f[0] = pg.MakeStrNode(to)
			}
		}
		return true
	})
}
