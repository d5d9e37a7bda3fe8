package planner

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner/pgtree"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Automatically updatable views, as PostgreSQL's rewriteTargetView. An
// INSERT, UPDATE or DELETE naming a view whose query reads one table or
// view, with no DISTINCT, GROUP BY, HAVING, set operation, WITH, LIMIT,
// OFFSET, aggregate, window or set-returning function at its top level,
// is rewritten into the same statement on that relation: the view's
// columns that are plain columns of it are renamed to those, the others
// read as their expressions (and may not be assigned), UPDATE and
// DELETE keep to the view's rows (its WHERE), and WITH CHECK OPTION
// makes the new rows pass its WHERE too. The rewritten statement is
// analyzed as any other, with the view's owner's privileges (its
// reader's for a security_invoker view): a view on a view rewrites again.

// systemColumns are PostgreSQL's system columns: a view may select them,
// and no column may take their names.
var systemColumns = map[string]bool{"ctid": true, "xmin": true, "xmax": true, "cmin": true, "cmax": true, "tableoid": true}

// IsSystemColumn reports whether name is a system column's.
func IsSystemColumn(name string) bool { return systemColumns[name] }

// CheckColumnName fails with PostgreSQL's 42701 for a new column (or a
// column's new name) that is a system column's.
func CheckColumnName(name string) error {
	if systemColumns[name] {
		return pgerr.New(pgerr.DuplicateColumn, "column name %q conflicts with a system column name", name)
	}
	return nil
}

// updatableView is what a statement through a view needs of it.
type updatableView struct {
	v *sqldef.View
	// base is the relation the view reads, schema-qualified; ref is the
	// name its query gives it.
	base *pg.RangeVar
	ref  string
	cols []viewColumn
	// where is the view's WHERE over the base relation, nil without one.
	where *pg.Node
	// baseCols are the base relation's column names.
	baseCols map[string]bool
}

// viewColumn is one column of an updatable view.
type viewColumn struct {
	name string
	expr *pg.Node // over the base relation as the view's query names it
	// base is the base relation's column it is, "" when it is not one;
	// detail says why not.
	base, detail string
}

// viewWriteVerb is the wording of PostgreSQL's errors for a statement kind.
var viewWriteVerb = map[byte]string{'a': "insert into", 'w': "update", 'd': "delete from"}

// targetView returns the view an INSERT, UPDATE or DELETE names, if it
// names one: a name the search path finds no table or sequence for
// before a view.
func (a *analyzer) targetView(rv *pg.RangeVar) (*sqldef.View, bool, error) {
	if rv == nil || rv.Catalogname != "" {
		return nil, false, nil
	}
	if _, ok, err := a.virtualTable(a.ctx, rv.Schemaname, rv.Relname); ok || err != nil {
		return nil, false, err
	}
	if _, ok, err := a.lookupTable(a.ctx, rv.Schemaname, rv.Relname); ok || err != nil {
		return nil, false, err
	}
	if _, ok, err := a.sequenceTable(a.ctx, rv.Schemaname, rv.Relname); ok || err != nil {
		return nil, false, err
	}
	return a.findView(rv.Schemaname, rv.Relname)
}

// restrictView fails when restrict_nonsystem_relation_kind lists views:
// then no view of the database may be read or written through (the
// catalog's are no views here), as PostgreSQL restricts them.
func (a *analyzer) restrictView(v *sqldef.View) error {
	for _, k := range strings.Split(a.s.Var("restrict_nonsystem_relation_kind"), ",") {
		if strings.TrimSpace(k) == "view" {
			return pgerr.New(pgerr.InsufficientPrivilege, "access to non-system view %q is restricted", v.Name)
		}
	}
	return nil
}

// findView finds view schema.name, or name along the search path.
func (a *analyzer) findView(schema, name string) (*sqldef.View, bool, error) {
	schemas := []string{a.s.ResolveSchemaName(schema)}
	if schema == "" {
		schemas = a.s.RelationPath()
	}
	for _, sc := range schemas {
		v, ok, err := a.tx.Catalog().View(a.ctx, sc, name)
		if ok || err != nil {
			return v, ok, err
		}
	}
	return nil, false, nil
}

// hasInstead reports whether view v has an enabled INSTEAD OF trigger,
// or an unconditional DO INSTEAD rule, for event, which then takes the
// statement in place of the rewrite.
func hasInstead(v *sqldef.View, event string) bool {
	return slices.ContainsFunc(v.Triggers, func(tr sqldef.Trigger) bool {
		return tr.Timing == 'i' && !tr.Disabled && tr.FiresOn(event)
	}) || slices.ContainsFunc(v.Rules, func(r sqldef.Rule) bool {
		return r.Instead && r.Where == "" && !r.Disabled && r.Event == event
	})
}

// viewNotUpdatable is PostgreSQL's error for a statement on a view that
// is not automatically updatable.
func viewNotUpdatable(v *sqldef.View, cmd byte, detail string) error {
	hint := map[byte]string{
		'a': "To enable inserting into the view, provide an INSTEAD OF INSERT trigger or an unconditional ON INSERT DO INSTEAD rule.",
		'w': "To enable updating the view, provide an INSTEAD OF UPDATE trigger or an unconditional ON UPDATE DO INSTEAD rule.",
		'd': "To enable deleting from the view, provide an INSTEAD OF DELETE trigger or an unconditional ON DELETE DO INSTEAD rule.",
	}[cmd]
	return pgerr.New(pgerr.ObjectNotInPrerequisite, "cannot %s view %q", viewWriteVerb[cmd], v.Name).
		WithDetail("%s", detail).WithHint("%s", hint)
}

// viewColumnNotUpdatable is the error for assigning a column of a view
// that is no column of its base relation.
func viewColumnNotUpdatable(v *sqldef.View, cmd byte, c viewColumn) error {
	return pgerr.New(pgerr.FeatureNotSupported, "cannot %s column %q of view %q", viewWriteVerb[cmd], c.name, v.Name).
		WithDetail("%s", c.detail)
}

// updatableView analyzes view v for a statement of kind cmd ('a'
// INSERT, 'w' UPDATE, 'd' DELETE), failing as PostgreSQL does when it
// is not automatically updatable.
func (a *analyzer) updatableView(v *sqldef.View, cmd byte) (*updatableView, error) {
	if err := a.restrictView(v); err != nil {
		return nil, err
	}
	// The plan holds while the view is unchanged: a view is no table, so
	// this entry never matches one and a changed root replans, as
	// viewRelation's.
	a.deps = append(a.deps, &sqldef.Table{Schema: v.Schema, Name: v.Name})
	sel, err := ParseSelect(v.Query)
	if err != nil {
		return nil, err
	}
	uv, detail, err := a.analyzeUpdatableView(v, sel)
	if err != nil {
		return nil, err
	}
	if detail == "" && cmd != 'd' && !slices.ContainsFunc(uv.cols, func(c viewColumn) bool { return c.base != "" }) {
		detail = "Views that have no updatable columns are not automatically updatable."
	}
	if detail != "" {
		return nil, viewNotUpdatable(v, cmd, detail)
	}
	return uv, nil
}

// ViewNotUpdatable says why view v is not automatically updatable for
// INSERT and UPDATE, "" when it is: WITH CHECK OPTION needs it to be.
func (x *Analyzer) ViewNotUpdatable(v *sqldef.View) (string, error) {
	sel, err := ParseSelect(v.Query)
	if err != nil {
		return "", err
	}
	uv, detail, err := x.a.analyzeUpdatableView(v, sel)
	if err != nil || detail != "" {
		return detail, err
	}
	if !slices.ContainsFunc(uv.cols, func(c viewColumn) bool { return c.base != "" }) {
		return "Views that have no updatable columns are not automatically updatable.", nil
	}
	return "", nil
}

// analyzeUpdatableView reads view v's query sel as PostgreSQL's
// view_query_is_auto_updatable: detail is why it is not updatable, ""
// when it is.
func (a *analyzer) analyzeUpdatableView(v *sqldef.View, sel *pg.SelectStmt) (*updatableView, string, error) {
	switch {
	case len(sel.DistinctClause) > 0:
		return nil, "Views containing DISTINCT are not automatically updatable.", nil
	case len(sel.GroupClause) > 0:
		return nil, "Views containing GROUP BY are not automatically updatable.", nil
	case sel.HavingClause != nil:
		return nil, "Views containing HAVING are not automatically updatable.", nil
	case sel.Op != pg.SetOperation_SETOP_NONE:
		return nil, "Views containing UNION, INTERSECT, or EXCEPT are not automatically updatable.", nil
	case sel.WithClause != nil:
		return nil, "Views containing WITH are not automatically updatable.", nil
	case sel.LimitCount != nil || sel.LimitOffset != nil:
		return nil, "Views containing LIMIT or OFFSET are not automatically updatable.", nil
	case a.containsAgg(sel.TargetList...):
		return nil, "Views that return aggregate functions are not automatically updatable.", nil
	case containsWindow(sel.TargetList):
		return nil, "Views that return window functions are not automatically updatable.", nil
	case containsSRF(sel.TargetList):
		return nil, "Views that return set-returning functions are not automatically updatable.", nil
	}
	single := "Views that do not select from a single table or view are not automatically updatable."
	if len(sel.FromClause) != 1 || sel.FromClause[0].GetRangeVar() == nil {
		return nil, single, nil
	}
	base := proto.Clone(sel.FromClause[0].GetRangeVar()).(*pg.RangeVar)
	if base.Catalogname != "" {
		return nil, single, nil
	}
	if base.Schemaname == "" {
		for _, d := range v.Depends {
			if sc, name, _ := strings.Cut(d, "."); name == base.Relname {
				base.Schemaname = sc
			}
		}
	}
	uv := &updatableView{v: v, base: base, ref: aliasOf(base), where: sel.WhereClause, baseCols: map[string]bool{}}
	var names []string
	if t, ok, err := a.lookupTable(a.ctx, base.Schemaname, base.Relname); err != nil {
		return nil, "", err
	} else if ok && t.Def.MatView != nil {
		return nil, single, nil // a materialized view is no table or view here
	} else if ok {
		for _, c := range t.Cols {
			if !c.Dropped {
				names = append(names, c.Name)
			}
		}
	} else if bv, ok, err := a.findView(base.Schemaname, base.Relname); err != nil {
		return nil, "", err
	} else if ok {
		for _, c := range bv.Columns {
			names = append(names, c.Name)
		}
	} else {
		return nil, single, nil // a sequence, a catalog relation, ...
	}
	if base.Alias != nil && len(base.Alias.Colnames) > 0 {
		for i, n := range base.Alias.Colnames {
			if i < len(names) {
				names[i] = n.GetString_().GetSval()
			}
		}
	}
	for _, n := range names {
		uv.baseCols[n] = true
	}
	// The view's columns: its select list with * expanded, named as
	// the view names them.
	var exprs []*pg.Node
	for _, n := range sel.TargetList {
		rt := n.GetResTarget()
		if cr := rt.GetVal().GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			for _, name := range names {
				exprs = append(exprs, columnRef(name))
			}
			continue
		}
		exprs = append(exprs, rt.Val)
	}
	for i, c := range v.Columns {
		vc := viewColumn{name: c.Name, detail: "View columns that are not columns of their base relation are not updatable."}
		if i < len(exprs) {
			vc.expr = exprs[i]
			if cr := exprs[i].GetColumnRef(); cr != nil {
				vc.base, vc.detail = uv.columnOf(cr)
			}
		}
		uv.cols = append(uv.cols, vc)
	}
	return uv, "", nil
}

// columnOf says which base column a view's select-list column reference
// is, and if none, why it is not updatable.
func (uv *updatableView) columnOf(cr *pg.ColumnRef) (string, string) {
	names := make([]string, len(cr.Fields))
	for i, f := range cr.Fields {
		names[i] = f.GetString_().GetSval()
	}
	notBase := "View columns that are not columns of their base relation are not updatable."
	col := names[len(names)-1]
	if len(names) == 1 && col == uv.ref && !uv.baseCols[col] {
		return "", "View columns that return whole-row references are not updatable."
	}
	if len(names) > 1 && names[len(names)-2] != uv.ref {
		return "", notBase
	}
	switch {
	case uv.baseCols[col]:
		return col, ""
	case systemColumns[col]:
		return "", "View columns that refer to system columns are not updatable."
	}
	return "", notBase
}

// column returns the view's column name.
func (uv *updatableView) column(name string) (viewColumn, bool) {
	for _, c := range uv.cols {
		if c.name == name {
			return c, true
		}
	}
	return viewColumn{}, false
}

// exprs returns the view's columns as expressions over its base relation
// named alias ("": unqualified), by column name.
func (uv *updatableView) exprs(alias string) map[string]*pg.Node {
	out := make(map[string]*pg.Node, len(uv.cols)+1)
	row := &pg.RowExpr{RowFormat: pg.CoercionForm_COERCE_EXPLICIT_CALL}
	for _, c := range uv.cols {
		if c.expr != nil {
			out[c.name] = uv.qualify(c.expr, alias)
			row.Args = append(row.Args, out[c.name])
		}
	}
	if alias != "" {
		// The view's whole row (alias.*) is the row of its columns.
		out["*"] = &pg.Node{Node: &pg.Node_RowExpr{RowExpr: row}}
	}
	return out
}

// qualify returns a copy of n, an expression over the base relation as
// the view's query names it, with its references to the base relation's
// columns qualified by alias instead ("": left bare).
func (uv *updatableView) qualify(n *pg.Node, alias string) *pg.Node {
	n = proto.Clone(n).(*pg.Node)
	var refs []*pg.ColumnRef
	walkRefs(n, true, func(cr *pg.ColumnRef, outer bool) {
		k := len(cr.Fields)
		switch {
		case k == 1 && outer && alias != "" && cr.Fields[0].GetString_().GetSval() == uv.ref && !uv.baseCols[uv.ref]:
			// The base relation's whole row, by its name.
			cr.Fields[0] = &pg.Node{Node: &pg.Node_String_{String_: &pg.String{Sval: alias}}}
		case k >= 2 && cr.Fields[k-2].GetString_().GetSval() == uv.ref:
			refs = append(refs, cr)
		case k == 1 && outer && cr.Fields[0].GetString_() != nil && uv.baseCols[cr.Fields[0].GetString_().Sval]:
			refs = append(refs, cr)
		}
	})
	for _, cr := range refs {
		col := cr.Fields[len(cr.Fields)-1]
		cr.Fields = []*pg.Node{col}
		if alias != "" {
			cr.Fields = []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: alias}}}, col}
		}
	}
	return n
}

// walkRefs calls fn for each column reference in n, telling whether it
// is outside any subquery (where a bare name is the statement's own).
func walkRefs(n *pg.Node, outer bool, fn func(cr *pg.ColumnRef, outer bool)) {
	if n == nil {
		return
	}
	var walk func(m protoreflect.Message, outer bool)
	walk = func(m protoreflect.Message, outer bool) {
		switch x := m.Interface().(type) {
		case *pg.ColumnRef:
			fn(x, outer)
			return
		case *pg.SubLink:
			// x IN (SELECT ...): x is the statement's, the query not.
			if x.Testexpr != nil {
				walk(x.Testexpr.ProtoReflect(), outer)
			}
			if x.Subselect != nil {
				walk(x.Subselect.ProtoReflect(), false)
			}
			return
		case *pg.RangeSubselect, *pg.SelectStmt:
			outer = false
		}
		pgtree.Children(m, func(c protoreflect.Message) { walk(c, outer) })
	}
	walk(n.ProtoReflect(), outer)
}

// substitute replaces, in n, the references to the view's columns as
// qual.col (and as bare col outside subqueries when bare) by the
// expressions exprs gives them.
func substitute(n *pg.Node, qual string, bare bool, exprs map[string]*pg.Node) {
	if n == nil {
		return
	}
	type hit struct {
		cr  *pg.ColumnRef
		col string
	}
	var hits []hit
	walkRefs(n, true, func(cr *pg.ColumnRef, outer bool) {
		k := len(cr.Fields)
		if k == 2 && cr.Fields[1].GetAStar() != nil && cr.Fields[0].GetString_().GetSval() == qual && exprs["*"] != nil {
			hits = append(hits, hit{cr, "*"})
			return
		}
		col := cr.Fields[k-1].GetString_()
		if col == nil || exprs[col.Sval] == nil {
			return
		}
		if k == 2 && cr.Fields[0].GetString_().GetSval() == qual || k == 1 && bare && outer {
			hits = append(hits, hit{cr, col.Sval})
		}
	})
	if len(hits) == 0 {
		return
	}
	// A ColumnRef is held by a Node: find each one's holder to replace it.
	holders := map[*pg.ColumnRef]*pg.Node{}
	VisitNodes(n, func(x *pg.Node) {
		if cr := x.GetColumnRef(); cr != nil {
			holders[cr] = x
		}
	})
	for _, h := range hits {
		if x := holders[h.cr]; x != nil {
			x.Node = proto.Clone(exprs[h.col]).(*pg.Node).Node
		}
	}
}

// substituteList substitutes in each node of list.
func substituteList(list []*pg.Node, qual string, bare bool, exprs map[string]*pg.Node) {
	for _, n := range list {
		substitute(n, qual, bare, exprs)
	}
}

// viewReturning rewrites a RETURNING list over the view named alias into
// one over its base relation: * becomes the view's columns, each result
// column keeps the view's name for it.
func (uv *updatableView) viewReturning(list []*pg.Node, alias string, from []*pg.Node) []*pg.Node {
	exprs := uv.exprs(alias)
	var out []*pg.Node
	for _, n := range list {
		rt := proto.Clone(n.GetResTarget()).(*pg.ResTarget)
		if cr := rt.Val.GetColumnRef(); cr != nil {
			k := len(cr.Fields)
			if cr.Fields[k-1].GetAStar() != nil && (k == 1 || cr.Fields[0].GetString_().GetSval() == alias) {
				for _, c := range uv.cols {
					out = append(out, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{
						Name: c.name, Val: proto.Clone(exprs[c.name]).(*pg.Node), Location: rt.Location}}})
				}
				if k == 1 {
					// * goes on to the FROM (USING) items' columns.
					for _, name := range fromNames(from) {
						star := &pg.ColumnRef{Fields: []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: name}}}, {Node: &pg.Node_AStar{AStar: &pg.A_Star{}}}}, Location: cr.Location}
						out = append(out, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{
							Val: &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: star}}, Location: rt.Location}}})
					}
				}
				continue
			}
			if col := cr.Fields[k-1].GetString_(); rt.Name == "" && col != nil && exprs[col.Sval] != nil {
				rt.Name = col.Sval
			}
		}
		substitute(rt.Val, alias, true, exprs)
		out = append(out, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: rt}})
	}
	return out
}

// fromNames returns the names the items of a FROM (or USING) list give
// their relations, in order, joins' members included.
func fromNames(from []*pg.Node) []string {
	var out []string
	var add func(n *pg.Node)
	add = func(n *pg.Node) {
		switch x := n.GetNode().(type) {
		case *pg.Node_RangeVar:
			out = append(out, aliasOf(x.RangeVar))
		case *pg.Node_RangeSubselect:
			if x.RangeSubselect.Alias != nil {
				out = append(out, x.RangeSubselect.Alias.Aliasname)
			}
		case *pg.Node_RangeFunction:
			if x.RangeFunction.Alias != nil {
				out = append(out, x.RangeFunction.Alias.Aliasname)
			} else if fs := x.RangeFunction.Functions; len(fs) > 0 {
				if fc := fs[0].GetList().GetItems()[0].GetFuncCall(); fc != nil {
					out = append(out, OpName(fc.Funcname))
				}
			}
		case *pg.Node_JoinExpr:
			if x.JoinExpr.Alias != nil {
				out = append(out, x.JoinExpr.Alias.Aliasname)
				return
			}
			add(x.JoinExpr.Larg)
			add(x.JoinExpr.Rarg)
		}
	}
	for _, n := range from {
		add(n)
	}
	return out
}

// baseTarget is the base relation as the rewritten statement names it:
// by the statement's name for the view.
func (uv *updatableView) baseTarget(alias string) *pg.RangeVar {
	rv := proto.Clone(uv.base).(*pg.RangeVar)
	rv.Alias = &pg.Alias{Aliasname: alias}
	return rv
}

// viewCheck is a WITH CHECK OPTION condition a new row must pass: where,
// over the statement's target, of view.
type viewCheck struct {
	view     string
	where    *pg.Node
	cascaded bool
}

// addViewChecks brings the pending check options down through view uv,
// which the rewritten statement names alias: those of the views above,
// rewritten over its base relation, and its own in front, as PostgreSQL
// adds them (an inner view's checked before an outer's).
func (a *analyzer) addViewChecks(uv *updatableView, alias string) {
	exprs := uv.exprs(alias)
	checks := make([]viewCheck, 0, len(a.viewChecks)+1)
	for _, c := range a.viewChecks {
		c.where = proto.Clone(c.where).(*pg.Node)
		substitute(c.where, alias, true, exprs)
		checks = append(checks, c)
	}
	has, cascaded := uv.v.Check != 0, uv.v.Check == 'c'
	if len(a.viewChecks) > 0 && a.viewChecks[0].cascaded {
		has, cascaded = true, true
	}
	if has && (cascaded || uv.where != nil) {
		c := viewCheck{view: uv.v.Name, cascaded: cascaded}
		if uv.where != nil {
			c.where = uv.qualify(uv.where, alias)
		} else {
			c.where = &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Val: &pg.A_Const_Boolval{Boolval: &pg.Boolean{Boolval: true}}}}}
		}
		checks = append([]viewCheck{c}, checks...)
	}
	a.viewChecks = checks
}

// addViewDefaults brings the pending column defaults down through view
// uv: those of the views above, else its own, given to the base columns
// its columns are.
func (a *analyzer) addViewDefaults(uv *updatableView) error {
	next := map[string]*pg.Node{}
	for i, c := range uv.cols {
		if c.base == "" {
			continue
		}
		d := a.viewDefaults[c.name]
		if d == nil && i < len(uv.v.Columns) && uv.v.Columns[i].Default != "" {
			var err error
			if d, err = ParseExpr(uv.v.Columns[i].Default); err != nil {
				return err
			}
		}
		if d != nil {
			next[c.base] = d
		}
	}
	a.viewDefaults = next
	return nil
}

// viewCheckExprs analyzes the check options pending over table t, named
// alias, the statement's target.
func (a *analyzer) viewCheckExprs(pending []viewCheck, t *exec.Table, alias string) ([]exec.ViewCheck, error) {
	var out []exec.ViewCheck
	for _, c := range pending {
		e, err := a.condition(c.where, tableScope(t, alias), "WHERE", "argument of WHERE")
		if err != nil {
			return nil, err
		}
		out = append(out, exec.ViewCheck{View: c.view, Expr: e})
	}
	return out, nil
}

// throughView runs analyze, the analysis of the statement rewritten onto
// view v's base relation, with the view's owner's privileges (the current
// user's for a security_invoker view).
func (a *analyzer) throughView(v *sqldef.View, analyze func() (exec.Plan, error)) (exec.Plan, error) {
	saved := a.as
	defer func() { a.as = saved }()
	switch {
	case a.as != nil && a.as.unchecked:
	case optionTrue(v.Option("security_invoker")):
		a.as = nil // the current user's, as viewRelation reads it
	default:
		owner, err := a.s.AuthorityOf(a.ctx, OwnerOf(v.Owner))
		if err != nil {
			return nil, err
		}
		a.as = owner
	}
	return analyze()
}

// requireView checks that the current role holds each of privs on view
// v: on the view, or on the columns cols (every one of them; some
// column when cols is empty), as column privileges allow.
func (a *analyzer) requireView(v *sqldef.View, privs string, cols ...string) error {
	au, err := a.authority()
	if err != nil {
		return err
	}
	acl := ViewACL(v)
	for _, p := range privs {
		priv := string(p)
		if au.may(acl, priv) {
			continue
		}
		columnMay := func(name string) bool { return sqldef.ACLHolds(v.ColumnACL[name], au.Holds, priv, false) }
		ok := len(cols) > 0
		for _, name := range cols {
			ok = ok && columnMay(name)
		}
		if len(cols) == 0 {
			ok = slices.ContainsFunc(v.Columns, func(c sqldef.ViewColumn) bool { return columnMay(c.Name) })
		}
		if !ok {
			return PermissionDenied("view", v.Name)
		}
	}
	return nil
}

// conflictPrivileges checks what an INSERT ... ON CONFLICT DO UPDATE
// through view v, named alias, needs of it: UPDATE on the columns set,
// SELECT on the columns its SET and WHERE read (of the view's row or of
// excluded).
func (a *analyzer) conflictPrivileges(v *sqldef.View, oc *pg.OnConflictClause, alias string) error {
	if oc.Action != pg.OnConflictAction_ONCONFLICT_UPDATE {
		return nil
	}
	if err := a.requireView(v, "w", targetNames(oc.TargetList)...); err != nil {
		return err
	}
	var read []string
	note := func(n *pg.Node) {
		walkRefs(n, true, func(cr *pg.ColumnRef, outer bool) {
			k := len(cr.Fields)
			col := cr.Fields[k-1].GetString_()
			if col == nil || slices.IndexFunc(v.Columns, func(c sqldef.ViewColumn) bool { return c.Name == col.Sval }) < 0 {
				return
			}
			if q := cr.Fields[0].GetString_().GetSval(); k == 1 && outer || k == 2 && (q == alias || q == "excluded") {
				read = append(read, col.Sval)
			}
		})
	}
	for _, n := range oc.TargetList {
		note(n.GetResTarget().GetVal())
	}
	note(oc.WhereClause)
	if len(read) == 0 {
		return nil
	}
	return a.requireView(v, "r", read...)
}

// requireBaseRead checks, with the authority the statement is analyzed
// with (the view's owner's), that the base relation's columns view uv
// shows may be read: PostgreSQL asks it of the excluded row of an ON
// CONFLICT DO UPDATE through a view.
func (a *analyzer) requireBaseRead(uv *updatableView) error {
	var cols []string
	for _, c := range uv.cols {
		if c.base != "" {
			cols = append(cols, c.base)
		}
	}
	if t, ok, err := a.lookupTable(a.ctx, uv.base.Schemaname, uv.base.Relname); err != nil {
		return err
	} else if ok {
		au, err := a.authority()
		if err != nil {
			return err
		}
		for _, name := range cols {
			if !columnMay(au, t.Def, ColumnIndex(t.Def, name), "r") {
				return PermissionDenied("table", t.Def.Name)
			}
		}
		return nil
	}
	bv, ok, err := a.findView(uv.base.Schemaname, uv.base.Relname)
	if err != nil || !ok {
		return err
	}
	return a.requireView(bv, "r", cols...)
}

// targetNames returns the column names of an INSERT's column list or an
// UPDATE's SET list.
func targetNames(list []*pg.Node) []string {
	var out []string
	for _, n := range list {
		if rt := n.GetResTarget(); rt != nil {
			out = append(out, rt.Name)
		}
	}
	return out
}

// insertView rewrites an INSERT into view v onto its base relation.
func (a *analyzer) insertView(s *pg.InsertStmt, v *sqldef.View) (exec.Plan, error) {
	uv, err := a.updatableView(v, 'a')
	if err != nil {
		return nil, err
	}
	alias := aliasOf(s.Relation)
	out := proto.Clone(s).(*pg.InsertStmt)
	out.Relation = uv.baseTarget(alias)
	// The view's columns given values, and the base columns they are.
	cols := s.Cols
	if len(cols) == 0 {
		n, err := a.insertWidth(s.WithClause, s.SelectStmt.GetSelectStmt())
		if err != nil {
			return nil, err
		}
		for i := 0; i < n && i < len(uv.cols); i++ {
			cols = append(cols, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Name: uv.cols[i].name}}})
		}
		if n > len(uv.cols) {
			return nil, pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns")
		}
	}
	out.Cols = nil
	for _, n := range cols {
		rt := proto.Clone(n.GetResTarget()).(*pg.ResTarget)
		c, ok := uv.column(rt.Name)
		if !ok {
			return nil, WithPos(pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", rt.Name, v.Name), rt.Location)
		}
		if c.base == "" {
			return nil, viewColumnNotUpdatable(v, 'a', c)
		}
		rt.Name = c.base
		out.Cols = append(out.Cols, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: rt}})
	}
	// A column not given takes its default, which a column that is no
	// base column cannot.
	for i, c := range uv.cols {
		given := slices.ContainsFunc(cols, func(n *pg.Node) bool { return n.GetResTarget().GetName() == c.name })
		if !given && c.base == "" && (a.viewDefaults[c.name] != nil || i < len(v.Columns) && v.Columns[i].Default != "") {
			return nil, viewColumnNotUpdatable(v, 'a', c)
		}
	}
	out.ReturningList = uv.viewReturning(s.ReturningList, alias, nil)
	if oc := out.OnConflictClause; oc != nil {
		if err := uv.viewOnConflict(oc, alias); err != nil {
			return nil, err
		}
	}
	// Privileges are checked after the rewrite's errors, as PostgreSQL's
	// executor checks them: INSERT on the columns given values.
	if err := a.requireView(v, "a", targetNames(cols)...); err != nil {
		return nil, err
	}
	if len(s.ReturningList) > 0 {
		if err := a.requireView(v, "r"); err != nil {
			return nil, err
		}
	}
	if s.OnConflictClause != nil {
		if err := a.conflictPrivileges(v, s.OnConflictClause, alias); err != nil {
			return nil, err
		}
	}
	a.addViewChecks(uv, alias)
	if err := a.addViewDefaults(uv); err != nil {
		return nil, err
	}
	defer func() { a.viewChecks, a.viewDefaults = nil, nil }()
	return a.throughView(v, func() (exec.Plan, error) {
		if oc := s.OnConflictClause; oc != nil && oc.Action == pg.OnConflictAction_ONCONFLICT_UPDATE {
			if err := a.requireBaseRead(uv); err != nil {
				return nil, err
			}
		}
		return a.insert(out)
	})
}

// insertWidth is the number of columns an INSERT's source gives: the
// values of its first VALUES list, or its query's columns.
func (a *analyzer) insertWidth(with *pg.WithClause, sel *pg.SelectStmt) (int, error) {
	switch {
	case sel == nil:
		return 0, nil
	case len(sel.ValuesLists) > 0:
		return len(sel.ValuesLists[0].GetList().GetItems()), nil
	case sel.Op == pg.SetOperation_SETOP_NONE && !slices.ContainsFunc(sel.TargetList, func(n *pg.Node) bool {
		cr := n.GetResTarget().GetVal().GetColumnRef()
		return cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil
	}):
		return len(sel.TargetList), nil
	}
	// Planned in the scope of the statement's WITH queries, which the
	// rewritten statement plans again.
	if with != nil {
		with = proto.Clone(with).(*pg.WithClause)
	}
	_, pop, err := a.withCTEs(with, nil)
	if err != nil {
		return 0, err
	}
	defer pop()
	p, err := a.insertSource(proto.Clone(sel).(*pg.SelectStmt))
	if err != nil {
		return 0, err
	}
	return len(p.Columns()), nil
}

// viewOnConflict rewrites an ON CONFLICT clause of an INSERT into the
// view onto its base relation.
func (uv *updatableView) viewOnConflict(oc *pg.OnConflictClause, alias string) error {
	exprs, excluded, bare := uv.exprs(alias), uv.exprs("excluded"), uv.exprs("")
	if inf := oc.Infer; inf != nil {
		for _, n := range inf.IndexElems {
			el := n.GetIndexElem()
			if el == nil {
				continue
			}
			if cr := el.Expr.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
				el.Name, el.Expr = cr.Fields[0].GetString_().Sval, nil
			}
			if el.Name != "" {
				if c, ok := uv.column(el.Name); ok && c.base != "" {
					el.Name = c.base
				} else if ok {
					el.Name, el.Expr = "", proto.Clone(bare[c.name]).(*pg.Node)
				}
				continue
			}
			substitute(el.Expr, "", true, bare)
		}
		substitute(inf.WhereClause, "", true, bare)
	}
	for _, n := range oc.TargetList {
		rt := n.GetResTarget()
		c, ok := uv.column(rt.Name)
		if !ok {
			continue // left to the analysis to report
		}
		if c.base == "" {
			return viewColumnNotUpdatable(uv.v, 'w', c)
		}
		rt.Name = c.base
		substitute(rt.Val, "excluded", false, excluded)
		substitute(rt.Val, alias, true, exprs)
	}
	substitute(oc.WhereClause, "excluded", false, excluded)
	substitute(oc.WhereClause, alias, true, exprs)
	return nil
}

// viewWhere is the WHERE of a statement rewritten onto the view's base
// relation: the view's rows that pass the statement's WHERE (already
// rewritten). A security_barrier view's condition comes first, as
// PostgreSQL tests its security quals before the statement's.
func (uv *updatableView) viewWhere(where *pg.Node, alias string) *pg.Node {
	if uv.where == nil {
		return where
	}
	vw := uv.qualify(uv.where, alias)
	if where == nil {
		return vw
	}
	args := []*pg.Node{where, vw}
	if optionTrue(uv.v.Option("security_barrier")) {
		args = []*pg.Node{vw, where}
	}
	return &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_AND_EXPR, Args: args}}}
}

// updateView rewrites an UPDATE of view v onto its base relation.
func (a *analyzer) updateView(s *pg.UpdateStmt, v *sqldef.View) (exec.Plan, error) {
	uv, err := a.updatableView(v, 'w')
	if err != nil {
		return nil, err
	}
	for _, n := range s.TargetList {
		if c, ok := uv.column(n.GetResTarget().GetName()); ok && c.base == "" {
			return nil, viewColumnNotUpdatable(v, 'w', c)
		}
	}
	if err := a.requireView(v, "w", targetNames(s.TargetList)...); err != nil {
		return nil, err
	}
	if s.WhereClause != nil || len(s.FromClause) > 0 || len(s.ReturningList) > 0 || setReads(s.TargetList) {
		if err := a.requireView(v, "r"); err != nil {
			return nil, err
		}
	}
	alias := aliasOf(s.Relation)
	exprs := uv.exprs(alias)
	out := proto.Clone(s).(*pg.UpdateStmt)
	out.Relation = uv.baseTarget(alias)
	for _, n := range out.TargetList {
		rt := n.GetResTarget()
		c, ok := uv.column(rt.Name)
		if !ok {
			return nil, WithPos(pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", rt.Name, v.Name), rt.Location)
		}
		if c.base == "" {
			return nil, viewColumnNotUpdatable(v, 'w', c)
		}
		rt.Name = c.base
		substitute(rt.Val, alias, true, exprs)
	}
	substitute(out.WhereClause, alias, true, exprs)
	out.WhereClause = uv.viewWhere(out.WhereClause, alias)
	out.ReturningList = uv.viewReturning(s.ReturningList, alias, s.FromClause)
	a.addViewChecks(uv, alias)
	if err := a.addViewDefaults(uv); err != nil {
		return nil, err
	}
	defer func() { a.viewChecks, a.viewDefaults = nil, nil }()
	return a.throughView(v, func() (exec.Plan, error) { return a.update(out) })
}

// deleteView rewrites a DELETE from view v onto its base relation.
func (a *analyzer) deleteView(s *pg.DeleteStmt, v *sqldef.View) (exec.Plan, error) {
	uv, err := a.updatableView(v, 'd')
	if err != nil {
		return nil, err
	}
	privs := "d"
	if s.WhereClause != nil || len(s.UsingClause) > 0 || len(s.ReturningList) > 0 {
		privs += "r"
	}
	if err := a.requireView(v, privs); err != nil {
		return nil, err
	}
	alias := aliasOf(s.Relation)
	out := proto.Clone(s).(*pg.DeleteStmt)
	out.Relation = uv.baseTarget(alias)
	substitute(out.WhereClause, alias, true, uv.exprs(alias))
	out.WhereClause = uv.viewWhere(out.WhereClause, alias)
	out.ReturningList = uv.viewReturning(s.ReturningList, alias, s.UsingClause)
	return a.throughView(v, func() (exec.Plan, error) { return a.delete(out) })
}

// columnRef is a bare reference to column name.
func columnRef(name string) *pg.Node {
	return &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{Fields: []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: name}}}}}}}
}

// containsWindow reports whether the select list calls a window function
// of its own query.
func containsWindow(list []*pg.Node) bool {
	found := false
	for _, n := range list {
		pgtree.Walk(n.ProtoReflect(), func(m protoreflect.Message) bool {
			switch x := m.Interface().(type) {
			case *pg.SubLink, *pg.RangeSubselect:
				return false
			case *pg.FuncCall:
				if x.Over != nil {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// containsSRF reports whether the select list calls a set-returning
// function of its own query.
func containsSRF(list []*pg.Node) bool {
	found := false
	for _, n := range list {
		pgtree.Walk(n.ProtoReflect(), func(m protoreflect.Message) bool {
			switch x := m.Interface().(type) {
			case *pg.SubLink, *pg.RangeSubselect:
				return false
			case *pg.FuncCall:
				if name := OpName(x.Funcname); x.Over == nil && (exec.IsSRF(name) && !exec.HasFunc(name) || isSessionSRF(name)) {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// The events pg_relation_is_updatable reports, as PostgreSQL's bits
// 1<<CMD_UPDATE, 1<<CMD_INSERT, 1<<CMD_DELETE.
const (
	EventUpdate = 1 << 2
	EventInsert = 1 << 3
	EventDelete = 1 << 4
	AllEvents   = EventUpdate | EventInsert | EventDelete
)

// ViewEvents is PostgreSQL's relation_is_updatable for view v: the
// statements it takes, limited to its columns at the positions include
// holds (nil: all of them).
func ViewEvents(s Session, env *exec.Env, v *sqldef.View, include []int) int {
	a := &analyzer{ctx: env.Ctx, s: s, tx: env.Txn}
	return a.viewEvents(v, include, 0)
}

func (a *analyzer) viewEvents(v *sqldef.View, include []int, depth int) int {
	sel, err := ParseSelect(v.Query)
	if err != nil || depth > maxViewDepth {
		return 0
	}
	uv, detail, err := a.analyzeUpdatableView(v, sel)
	if err != nil || detail != "" {
		return 0
	}
	var bases []string // the base columns of the updatable columns included
	for i, c := range uv.cols {
		if c.base != "" && (include == nil || slices.Contains(include, i)) {
			bases = append(bases, c.base)
		}
	}
	events := EventDelete // deletable, though no column is updatable
	if len(bases) > 0 {
		events = AllEvents
	}
	if t, ok, _ := a.lookupTable(a.ctx, uv.base.Schemaname, uv.base.Relname); ok {
		if t.Def.MatView != nil {
			return 0
		}
		return events
	}
	bv, ok, err := a.findView(uv.base.Schemaname, uv.base.Relname)
	if err != nil || !ok {
		return 0
	}
	inner := []int{}
	for i, c := range bv.Columns {
		if slices.Contains(bases, c.Name) {
			inner = append(inner, i)
		}
	}
	return events & a.viewEvents(bv, inner, depth+1)
}
