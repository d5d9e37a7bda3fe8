package planner

import (
	"errors"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
)

// Queries, as PostgreSQL 15's ruleutils prints a view's query
// (get_query_def): pg_get_viewdef, psql's \d+ and information_schema.views
// show this form. The deparser prints the parse tree, resolved the way
// the analyzer resolves it:
//
//   - a * in a select list is expanded, and every column reference is
//     qualified with the name of the FROM item it reads (PostgreSQL 15's
//     view rules carry OLD and NEW entries, so its views always qualify);
//   - each FROM item has a name unique among those of its query and the
//     queries around it: a relation named twice becomes t and t_1;
//   - a join's USING column is its left side's column (the right side's
//     for RIGHT JOIN); a FULL JOIN's merged column is printed bare;
//   - NATURAL JOIN is printed as JOIN ... USING (its common columns);
//   - with indentation, each clause starts a line indented by the
//     query's level, and each select-list item after the first (and each
//     FROM item after the first) goes on a line of its own when the line
//     would pass the wrap column (0: always).
//
// A query that uses what this does not print (WITH, window clauses,
// locking, ...) is printed by pg_query's deparser instead
// (errNotDeparsed).

// errNotDeparsed reports a query construct the ruleutils printer does not
// handle.
var errNotDeparsed = errors.New("not deparsed")

// Indentation steps of ruleutils.c.
const (
	prettyIndentStd  = 8
	prettyIndentJoin = 4
	prettyIndentVar  = 4
)

// dpNS is the namespace of one query level being printed: its FROM items
// and the names they print as. Names must be unique across the levels
// enclosing it, which outer reaches.
type dpNS struct {
	rtes  []*dpRTE
	outer *dpNS
	names map[string]bool
	// keepNames: items keep the names the query gives them
	// (FreezeViewQuery), which must then not hide one another.
	keepNames bool
}

// shadowed returns the item a reference qualified with r's name, made
// within ns, would find nearer than r, if any.
func (ns *dpNS) shadowed(r *dpRTE) *dpRTE {
	if r == nil {
		return nil
	}
	for n := ns; n != nil; n = n.outer {
		for _, x := range n.rtes {
			if x == r || x.orig == r || r.orig != nil && x == r.orig {
				return nil
			}
			if x.relVisible && x.refname == r.refname {
				return x
			}
		}
	}
	return nil
}

// dpRTE is a FROM item of a query being printed.
type dpRTE struct {
	name        string // the name the query names it by ("" for an unnamed join)
	schema      string // a relation's schema, for schema.table.column
	refname     string // the name it is printed with
	relVisible  bool
	colsVisible bool
	cols        []*dpCol
	// rowType is the type a whole-row reference is shown cast to: a
	// table's row type, else record.
	rowType string
	// orig is the item this one is a copy of (a join's side, its columns
	// hidden by the join).
	orig *dpRTE
}

// dpCol is a column of a FROM item: how a reference to it prints.
type dpCol struct {
	name  string
	t     exec.T
	print string
	owner *dpRTE // the item whose name print qualifies it with
}

// used reports whether name is the printed name of an item of ns or of
// a query around it.
func (ns *dpNS) used(name string) bool {
	for n := ns; n != nil; n = n.outer {
		if n.names[name] {
			return true
		}
	}
	return false
}

// unique returns name, or name_N when name is taken, and takes it.
// A query stored keeps its names (see shadowed).
func (ns *dpNS) unique(name string) string {
	if ns.keepNames {
		return name
	}
	out := name
	for i := 1; ns.used(out); i++ {
		out = name + "_" + strconv.Itoa(i)
	}
	ns.names[out] = true
	return out
}

// column resolves a column reference's names in ns and the levels around
// it.
func (ns *dpNS) column(fields []string) *dpCol {
	name := fields[len(fields)-1]
	for n := ns; n != nil; n = n.outer {
		for _, r := range n.rtes {
			switch len(fields) {
			case 1:
				if !r.colsVisible {
					continue
				}
			case 2:
				if !r.relVisible || r.name != fields[0] {
					continue
				}
			case 3:
				if !r.relVisible || r.name != fields[1] || r.schema != fields[0] {
					continue
				}
			default:
				continue
			}
			for _, c := range r.cols {
				if c.name == name {
					return c
				}
			}
		}
	}
	return nil
}

// rte returns the item named name (with schema, if given) of ns or a
// level around it.
func (ns *dpNS) rte(schema, name string) *dpRTE {
	for n := ns; n != nil; n = n.outer {
		for _, r := range n.rtes {
			if r.relVisible && r.name == name && (schema == "" || r.schema == schema) {
				return r
			}
		}
	}
	return nil
}

// fieldNames returns a column reference's names; ok is false for one
// ending in *.
func fieldNames(cr *pg.ColumnRef) ([]string, bool) {
	var out []string
	for _, f := range cr.Fields {
		if f.GetString_() == nil {
			return out, false
		}
		out = append(out, f.GetString_().Sval)
	}
	return out, true
}

// qprinter prints one query level, as ruleutils' deparse_context: text
// goes to buf, indent is the current indentation level.
type qprinter struct {
	d      *deparser
	buf    strings.Builder
	indent int
	// pre and preFrom are the block's namespace and FROM items when
	// built before its WITH clause was printed.
	pre     *dpNS
	preFrom []*dpFrom
}

// keyword is appendContextKeyword: with indentation, a new line indented
// by the level (after indentBefore) plus indentPlus, then s.
func (p *qprinter) keyword(s string, indentBefore, indentAfter, indentPlus int) {
	if !p.d.indentOn {
		p.buf.WriteString(s)
		return
	}
	p.indent += indentBefore
	p.trimSpaces()
	p.buf.WriteByte('\n')
	p.buf.WriteString(strings.Repeat(" ", max(p.indent, 0)+indentPlus))
	p.buf.WriteString(s)
	p.indent = max(p.indent+indentAfter, 0)
}

// trimSpaces removes the spaces that end the text so far.
func (p *qprinter) trimSpaces() {
	s := p.buf.String()
	t := strings.TrimRight(s, " ")
	if len(t) != len(s) {
		p.buf.Reset()
		p.buf.WriteString(t)
	}
}

// appendItem appends an item of a list (select list, FROM list) after its
// separator, starting a new line where ruleutils wraps.
func (p *qprinter) appendItem(item string, first bool, lastMultiline *bool) {
	if p.d.indentOn && p.d.wrap >= 0 {
		if strings.HasPrefix(item, "\n") {
			p.trimSpaces()
		} else {
			s := p.buf.String()
			line := s[strings.LastIndexByte(s, '\n')+1:]
			if !first && (len(line)+len(item) > p.d.wrap || lastMultiline != nil && *lastMultiline) {
				p.keyword("", -prettyIndentStd, prettyIndentStd, prettyIndentVar)
			}
		}
		if lastMultiline != nil {
			*lastMultiline = strings.Contains(strings.TrimPrefix(item, "\n"), "\n")
		}
	}
	p.buf.WriteString(item)
}

// dpTarget is an entry of a select list, * expanded.
type dpTarget struct {
	node *pg.Node // the expression (nil for a column of a *)
	col  *dpCol   // the column it references, if it is one
	name string   // its output name
}

// queryDef prints query sel at indentation level indent within the
// namespace outer; colnames, when given, are the output names (a view's
// columns); colNamesVisible says whether output names matter (not in a
// subquery expression or after the first branch of a set operation).
func (d *deparser) queryDef(sel *pg.SelectStmt, outer *dpNS, indent int, colnames []string, colNamesVisible bool) (string, error) {
	if len(sel.WindowClause) > 0 || len(sel.LockingClause) > 0 || sel.IntoClause != nil {
		return "", errNotDeparsed
	}
	p := &qprinter{d: d, indent: indent}
	if w := sel.WithClause; w != nil {
		// The WITH queries are in scope of the query (and of the later
		// ones): the analyzer learns them for the names and types.
		_, pop, err := d.a.withCTEs(w, d.corrOf())
		if err != nil {
			return "", err
		}
		defer pop()
		// PostgreSQL names the query's FROM items before the WITH
		// queries' own, which must differ from them.
		withNS := outer
		if sel.Op == pg.SetOperation_SETOP_NONE && len(sel.ValuesLists) == 0 {
			ns, from, err := d.levelNS(sel, outer)
			if err != nil {
				return "", err
			}
			p.pre, p.preFrom, withNS = ns, from, ns
		}
		if err := p.with(w, withNS); err != nil {
			return "", err
		}
	}
	if sel.Op != pg.SetOperation_SETOP_NONE {
		ns := &dpNS{outer: outer, names: map[string]bool{}}
		if err := p.setop(sel, ns, colnames, colNamesVisible); err != nil {
			return "", err
		}
		if err := p.orderLimit(sel, nil, true); err != nil {
			return "", err
		}
		return p.buf.String(), nil
	}
	if err := p.basicSelect(sel, outer, colnames, colNamesVisible); err != nil {
		return "", err
	}
	return p.buf.String(), nil
}

// with prints a WITH clause, as get_with_clause.
func (p *qprinter) with(w *pg.WithClause, outer *dpNS) error {
	if p.d.indentOn {
		p.indent += prettyIndentStd
		p.buf.WriteByte(' ')
	}
	sep := "WITH "
	if w.Recursive {
		sep = "WITH RECURSIVE "
	}
	for _, n := range w.Ctes {
		c := n.GetCommonTableExpr()
		sel := c.GetCtequery().GetSelectStmt()
		if c == nil || sel == nil || c.SearchClause != nil || c.CycleClause != nil {
			return errNotDeparsed
		}
		p.buf.WriteString(sep + QuoteIdent(c.Ctename))
		if len(c.Aliascolnames) > 0 {
			var names []string
			for _, a := range c.Aliascolnames {
				names = append(names, QuoteIdent(a.GetString_().Sval))
			}
			p.buf.WriteString("(" + strings.Join(names, ", ") + ")")
		}
		p.buf.WriteString(" AS ")
		switch c.Ctematerialized {
		case pg.CTEMaterialize_CTEMaterializeAlways:
			p.buf.WriteString("MATERIALIZED ")
		case pg.CTEMaterialize_CTEMaterializeNever:
			p.buf.WriteString("NOT MATERIALIZED ")
		}
		p.buf.WriteByte('(')
		if p.d.indentOn {
			p.keyword("", 0, 0, 0)
		}
		q, err := p.d.queryDef(sel, outer, p.indent, nil, true)
		if err != nil {
			return err
		}
		p.buf.WriteString(q)
		if p.d.indentOn {
			p.keyword("", 0, 0, 0)
		}
		p.buf.WriteByte(')')
		sep = ", "
	}
	if p.d.indentOn {
		p.indent -= prettyIndentStd
		p.keyword("", 0, 0, 0)
	} else {
		p.buf.WriteByte(' ')
	}
	return nil
}

// setop prints a set operation, as get_setop_query.
func (p *qprinter) setop(sel *pg.SelectStmt, ns *dpNS, colnames []string, colNamesVisible bool) error {
	if sel.Op == pg.SetOperation_SETOP_NONE {
		paren := len(sel.SortClause) > 0 || sel.LimitCount != nil || sel.LimitOffset != nil || sel.WithClause != nil || len(sel.LockingClause) > 0
		s, err := p.d.queryDef(sel, ns, p.indent, colnames, colNamesVisible)
		if err != nil {
			return err
		}
		if paren {
			s = "(" + s + ")"
		}
		p.buf.WriteString(s)
		return nil
	}
	if sel.WithClause != nil || len(sel.LockingClause) > 0 {
		return errNotDeparsed
	}
	for _, c := range []*pg.SelectStmt{sel.Larg, sel.Rarg} {
		if c.Op != pg.SetOperation_SETOP_NONE && (len(c.SortClause) > 0 || c.LimitCount != nil || c.LimitOffset != nil || c.WithClause != nil) {
			return errNotDeparsed
		}
	}
	needParen := false
	if l := sel.Larg; l.Op != pg.SetOperation_SETOP_NONE {
		needParen = l.Op != sel.Op || l.All != sel.All
	}
	sub := 0
	if needParen {
		p.buf.WriteByte('(')
		sub = prettyIndentStd
		p.keyword("", sub, 0, 0)
	}
	if err := p.setop(sel.Larg, ns, colnames, colNamesVisible); err != nil {
		return err
	}
	switch {
	case needParen:
		p.keyword(") ", -sub, 0, 0)
	case p.d.indentOn:
		p.keyword("", -sub, 0, 0)
	default:
		p.buf.WriteByte(' ')
	}
	switch sel.Op {
	case pg.SetOperation_SETOP_UNION:
		p.buf.WriteString("UNION ")
	case pg.SetOperation_SETOP_INTERSECT:
		p.buf.WriteString("INTERSECT ")
	case pg.SetOperation_SETOP_EXCEPT:
		p.buf.WriteString("EXCEPT ")
	}
	if sel.All {
		p.buf.WriteString("ALL ")
	}
	needParen = sel.Rarg.Op != pg.SetOperation_SETOP_NONE
	sub = 0
	if needParen {
		p.buf.WriteByte('(')
		sub = prettyIndentStd
	}
	p.keyword("", sub, 0, 0)
	if err := p.setop(sel.Rarg, ns, colnames, false); err != nil {
		return err
	}
	if p.d.indentOn {
		p.indent -= sub
	}
	if needParen {
		p.keyword(")", 0, 0, 0)
	}
	return nil
}

// basicSelect prints a SELECT (or VALUES) block with its ORDER BY and
// LIMIT, as get_basic_select_query and get_select_query_def.
func (p *qprinter) basicSelect(sel *pg.SelectStmt, outer *dpNS, colnames []string, colNamesVisible bool) error {
	d := p.d
	if d.indentOn {
		p.indent += prettyIndentStd
		p.buf.WriteByte(' ')
	}
	if len(sel.ValuesLists) > 0 {
		if len(sel.SortClause) > 0 || sel.LimitCount != nil || sel.LimitOffset != nil {
			return errNotDeparsed
		}
		return p.values(sel, outer)
	}
	ns, from := p.pre, p.preFrom
	if ns == nil {
		var err error
		if ns, from, err = d.levelNS(sel, outer); err != nil {
			return err
		}
	}
	qd := *d
	qd.ns = ns
	qd.sc = ns.scope(d.sc)
	qd.indent = p.indent
	p.d = &qd
	defer func() { p.d = d }()
	d = &qd

	p.buf.WriteString("SELECT")
	if sel.DistinctClause != nil {
		if len(sel.DistinctClause) == 1 && sel.DistinctClause[0] == nil || len(sel.DistinctClause) == 1 && sel.DistinctClause[0].GetNode() == nil {
			p.buf.WriteString(" DISTINCT")
		} else {
			var on []string
			for _, n := range sel.DistinctClause {
				on = append(on, d.expr(n, nil, exec.TUnknown, false))
			}
			p.buf.WriteString(" DISTINCT ON (" + strings.Join(on, ", ") + ")")
		}
	}
	targets, err := d.expandTargets(sel.TargetList, ns)
	if err != nil {
		return err
	}
	sep := " "
	multi := false
	for i, t := range targets {
		p.buf.WriteString(sep)
		sep = ", "
		var item, attname string
		switch {
		case t.col != nil:
			item, attname = d.colPrint(t.col), t.col.name
		default:
			item = d.targetExpr(t.node, d.typeOf(t.node))
			if !colNamesVisible {
				attname = "?column?"
			}
		}
		name := t.name
		if colnames != nil && i < len(colnames) {
			name = colnames[i]
		}
		if name != "" && attname != name {
			item += " AS " + QuoteIdent(name)
		}
		p.appendItem(item, i == 0, &multi)
	}
	p.fromClause(from)
	if sel.WhereClause != nil {
		p.keyword(" WHERE ", -prettyIndentStd, prettyIndentStd, 1)
		p.buf.WriteString(d.expr(sel.WhereClause, nil, exec.TBool, false))
	}
	if len(sel.GroupClause) > 0 {
		p.keyword(" GROUP BY ", -prettyIndentStd, prettyIndentStd, 1)
		var items []string
		for _, n := range sel.GroupClause {
			s, err := d.sortGroupItem(n, targets, false, true)
			if err != nil {
				return err
			}
			items = append(items, s)
		}
		p.buf.WriteString(strings.Join(items, ", "))
	}
	if sel.HavingClause != nil {
		p.keyword(" HAVING ", -prettyIndentStd, prettyIndentStd, 0)
		p.buf.WriteString(d.expr(sel.HavingClause, nil, exec.TBool, false))
	}
	return p.orderLimit(sel, targets, false)
}

// levelNS builds the namespace of a SELECT block and its FROM items.
func (d *deparser) levelNS(sel *pg.SelectStmt, outer *dpNS) (*dpNS, []*dpFrom, error) {
	ns := &dpNS{outer: outer, names: map[string]bool{}, keepNames: d.storing && d.renamed == nil}
	if outer == nil {
		// PostgreSQL 15's view rule has OLD and NEW entries first.
		ns.names["old"], ns.names["new"] = true, true
	}
	from, err := d.fromList(sel.FromClause, ns)
	if err != nil {
		return nil, nil, err
	}
	return ns, from, nil
}

// orderLimit prints ORDER BY, OFFSET and LIMIT.
func (p *qprinter) orderLimit(sel *pg.SelectStmt, targets []dpTarget, colno bool) error {
	d := p.d
	if len(sel.SortClause) > 0 {
		p.keyword(" ORDER BY ", -prettyIndentStd, prettyIndentStd, 1)
		var items []string
		for _, n := range sel.SortClause {
			sb := n.GetSortBy()
			if sb == nil || sb.SortbyDir == pg.SortByDir_SORTBY_USING {
				return errNotDeparsed
			}
			var s string
			if colno {
				c := sb.Node.GetAConst()
				if c == nil || c.GetIval() == nil {
					return errNotDeparsed
				}
				s = strconv.Itoa(int(c.GetIval().Ival))
			} else {
				var err error
				if s, err = d.sortGroupItem(sb.Node, targets, true, false); err != nil {
					return err
				}
			}
			items = append(items, s+sortDirection(sb))
		}
		p.buf.WriteString(strings.Join(items, ", "))
	}
	if sel.LimitOffset != nil {
		p.keyword(" OFFSET ", -prettyIndentStd, prettyIndentStd, 0)
		p.buf.WriteString(d.expr(sel.LimitOffset, nil, exec.TInt8, false))
	}
	if sel.LimitCount != nil {
		if sel.LimitOption == pg.LimitOption_LIMIT_OPTION_WITH_TIES {
			return errNotDeparsed
		}
		p.keyword(" LIMIT ", -prettyIndentStd, prettyIndentStd, 0)
		if c := sel.LimitCount.GetAConst(); c != nil && c.Isnull {
			p.buf.WriteString("ALL")
		} else {
			p.buf.WriteString(d.expr(sel.LimitCount, nil, exec.TInt8, false))
		}
	}
	return nil
}

// sortGroupItem prints an ORDER BY or GROUP BY item, as
// get_rule_sortgroupclause: the select-list entry it names (by number,
// or by output name, which ORDER BY prefers and GROUP BY takes only when
// no input column has it), else the expression.
func (d *deparser) sortGroupItem(n *pg.Node, targets []dpTarget, orderBy, groupBy bool) (string, error) {
	var t *dpTarget
	if c := n.GetAConst(); c != nil && c.GetIval() != nil {
		i := int(c.GetIval().Ival)
		if i < 1 || i > len(targets) {
			return "", errNotDeparsed
		}
		t = &targets[i-1]
	} else if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
		name := cr.Fields[0].GetString_().Sval
		if !groupBy || d.ns.column([]string{name}) == nil {
			for i := range targets {
				if targets[i].name == name {
					t = &targets[i]
					break
				}
			}
		}
	}
	if t != nil {
		if t.col != nil {
			return d.colPrint(t.col), nil
		}
		n = t.node
	}
	if n.GetAConst() != nil {
		return d.targetExpr(n, exec.TUnknown), nil
	}
	s := d.expr(n, nil, exec.TUnknown, false)
	if n.GetColumnRef() != nil {
		return s, nil
	}
	if d.pretty || n.GetFuncCall() != nil {
		s = "(" + s + ")"
	}
	return s, nil
}

// targetExpr prints a select-list expression of type t: an untyped
// literal takes t, a NULL shows it.
func (d *deparser) targetExpr(n *pg.Node, t exec.T) string {
	if tc := n.GetTypeCast(); tc != nil && isUnknownLiteral(tc) {
		n = tc.Arg
	}
	if s, ok := d.wholeRow(n, true); ok {
		return s
	}
	if c := n.GetAConst(); c != nil {
		if t.OID == exec.OIDUnknown {
			t = exec.TText
		}
		if c.Isnull {
			return "NULL::" + d.typeLabel(exec.T{OID: t.OID, Typmod: -1})
		}
		return d.constant(c, t, false)
	}
	return d.expr(n, nil, exec.TUnknown, false)
}

// expandTargets expands the select list's * entries into the columns they
// name.
func (d *deparser) expandTargets(list []*pg.Node, ns *dpNS) ([]dpTarget, error) {
	var out []dpTarget
	for _, n := range list {
		rt := n.GetResTarget()
		if rt == nil || rt.Val == nil {
			return nil, errNotDeparsed
		}
		if cr := rt.Val.GetColumnRef(); cr != nil {
			names, ok := fieldNames(cr)
			if !ok {
				if cr.Fields[len(cr.Fields)-1].GetAStar() == nil {
					return nil, errNotDeparsed
				}
				var rtes []*dpRTE
				switch len(names) {
				case 0:
					for _, r := range ns.rtes {
						if r.colsVisible {
							rtes = append(rtes, r)
						}
					}
				case 1, 2:
					schema := ""
					if len(names) == 2 {
						schema = names[0]
					}
					r := ns.rte(schema, names[len(names)-1])
					if r == nil {
						return nil, errNotDeparsed
					}
					rtes = append(rtes, r)
				default:
					return nil, errNotDeparsed
				}
				for _, r := range rtes {
					for _, c := range r.cols {
						out = append(out, dpTarget{col: c, name: c.name})
					}
				}
				continue
			}
			c := ns.column(names)
			if c == nil {
				if len(names) != 1 || ns.rte("", names[0]) == nil {
					return nil, errNotDeparsed
				}
				// A whole row.
				name := rt.Name
				if name == "" {
					name = names[0]
				}
				out = append(out, dpTarget{node: rt.Val, name: name})
				continue
			}
			name := rt.Name
			if name == "" {
				name = c.name
			}
			out = append(out, dpTarget{node: rt.Val, col: c, name: name})
			continue
		}
		name := rt.Name
		if name == "" {
			name = columnName(rt.Val)
		}
		out = append(out, dpTarget{node: rt.Val, name: name})
	}
	return out, nil
}

// values prints a VALUES block, as get_values_def.
func (p *qprinter) values(sel *pg.SelectStmt, outer *dpNS) error {
	d := *p.d
	d.ns = &dpNS{outer: outer, names: map[string]bool{}}
	d.sc = d.ns.scope(p.d.sc)
	d.indent = p.indent
	// Each column takes the common type of its rows.
	var types []exec.T
	if v, err := d.a.valuesIn(sel.ValuesLists, nil, d.sc); err == nil {
		for _, c := range v.Columns() {
			types = append(types, c.T)
		}
	}
	p.buf.WriteString("VALUES ")
	for i, row := range sel.ValuesLists {
		if i > 0 {
			p.buf.WriteString(", ")
		}
		items := row.GetList().GetItems()
		var vals []string
		for j, x := range items {
			t := exec.TUnknown
			if j < len(types) {
				t = types[j]
			}
			vals = append(vals, d.valueItem(x, t))
		}
		p.buf.WriteString("(" + strings.Join(vals, ",") + ")")
	}
	return nil
}

// valueItem prints an item of a VALUES row whose column has type t:
// a literal takes t's type, with its modifier.
func (d *deparser) valueItem(n *pg.Node, t exec.T) string {
	if c := n.GetAConst(); c != nil && c.GetSval() != nil {
		if t.OID == exec.OIDUnknown {
			t = exec.TText
		}
		s := d.constant(c, t, false)
		if t.Typmod >= 0 {
			if i := strings.LastIndex(s, "::"); i >= 0 {
				s = s[:i] + "::" + d.typeLabel(t)
			}
		}
		return s
	}
	if c := n.GetAConst(); c != nil && c.Isnull {
		return "NULL::" + d.typeLabel(exec.T{OID: t.OID, Typmod: -1})
	}
	if s, ok := d.wholeRow(n, true); ok {
		return s
	}
	if tc := n.GetTypeCast(); tc != nil && tc.Arg.GetAConst() != nil && tc.Arg.GetAConst().GetSval() != nil {
		// A literal cast to a type with a modifier keeps it.
		if ct, _, err := ResolveType(tc.TypeName); err == nil {
			s := d.constant(tc.Arg.GetAConst(), ct, false)
			if i := strings.LastIndex(s, "::"); i >= 0 {
				s = s[:i] + "::" + d.typeLabel(ct)
			}
			return s
		}
	}
	return d.expr(n, nil, t, false)
}

// dpFrom is a FROM item to print.
type dpFrom struct {
	node        *pg.Node
	rte         *dpRTE // a leaf's, or an aliased join's
	left, right *dpFrom
	join        *pg.JoinExpr
	using       []string
	// printAliases: the column alias list is printed (get_column_alias_list).
	printAliases bool
	// Leaves: a relation's name as printed; a subquery's query.
	relation string
	sub      *pg.SelectStmt
	lateral  bool
	fn       *pg.Node
	// items are the namespace entries the item adds.
	items []*dpRTE
}

// fromList builds the items of a FROM list, naming each.
func (d *deparser) fromList(list []*pg.Node, ns *dpNS) ([]*dpFrom, error) {
	var out []*dpFrom
	for _, n := range list {
		f, err := d.fromItem(n, ns)
		if err != nil {
			return nil, err
		}
		ns.rtes = append(ns.rtes, f.items...)
		out = append(out, f)
	}
	return out, nil
}

// fromItem builds one FROM item, naming its leaves in the order
// PostgreSQL's range table has them (a join's left side, right side,
// then the join).
func (d *deparser) fromItem(n *pg.Node, ns *dpNS) (*dpFrom, error) {
	switch {
	case n.GetRangeVar() != nil && n.GetRangeVar().Schemaname == "" && d.a.findCTE(n.GetRangeVar().Relname) != nil:
		rv := n.GetRangeVar()
		c := d.a.findCTE(rv.Relname)
		name := aliasOf(rv)
		r := &dpRTE{name: name, relVisible: true, colsVisible: true, refname: ns.unique(name)}
		var colnames []*pg.Node
		if rv.Alias != nil {
			colnames = rv.Alias.Colnames
		}
		f := &dpFrom{node: n, rte: r, relation: QuoteIdent(rv.Relname)}
		for i, col := range c.cols {
			cn := col.Name
			if i < len(colnames) {
				cn = colnames[i].GetString_().Sval
				f.printAliases = true
			}
			r.cols = append(r.cols, &dpCol{name: cn, t: col.T})
		}
		r.qualifyCols()
		f.items = []*dpRTE{r}
		return f, nil
	case n.GetRangeVar() != nil:
		rv := n.GetRangeVar()
		if rv.Catalogname != "" || !rv.Inh {
			return nil, errNotDeparsed
		}
		t, err := d.a.table(rv)
		if err != nil {
			return nil, err
		}
		refname := rv.Relname
		if rv.Alias != nil {
			refname = rv.Alias.Aliasname
		}
		// A relation being renamed is read under its old name, printed
		// under its new one.
		printed := rv
		if to, ok := d.renamed[rv]; ok {
			printed = to
			if rv.Alias == nil {
				refname = to.Relname
			}
		}
		r := &dpRTE{name: aliasOf(rv), relVisible: true, colsVisible: true, refname: ns.unique(refname), rowType: d.relationName(printed, t)}
		if rv.Alias == nil {
			r.schema = t.Def.Schema
		}
		f := &dpFrom{node: n, rte: r, relation: d.relationName(printed, t)}
		var colnames []*pg.Node
		if rv.Alias != nil {
			colnames = rv.Alias.Colnames
		}
		i := 0
		for _, c := range t.Cols {
			if c.Dropped {
				continue
			}
			cn := c.Name
			if i < len(colnames) {
				cn = colnames[i].GetString_().Sval
				if cn != c.Name {
					f.printAliases = true
				}
			}
			i++
			r.cols = append(r.cols, &dpCol{name: cn, t: c.Type})
		}
		r.qualifyCols()
		f.items = []*dpRTE{r}
		return f, nil
	case n.GetRangeSubselect() != nil:
		rs := n.GetRangeSubselect()
		if rs.Alias == nil {
			return nil, errNotDeparsed
		}
		sel := rs.Subquery.GetSelectStmt()
		corr := d.corrOf()
		if rs.Lateral {
			// It reads the items to its left.
			corr = &correlation{outer: ns.scope(d.sc)}
		}
		plan, err := d.a.subquery(sel, corr)
		if err != nil {
			return nil, err
		}
		r := &dpRTE{name: rs.Alias.Aliasname, relVisible: true, colsVisible: true, refname: ns.unique(rs.Alias.Aliasname)}
		for i, c := range plan.Columns() {
			cn := c.Name
			if i < len(rs.Alias.Colnames) {
				cn = rs.Alias.Colnames[i].GetString_().Sval
			}
			r.cols = append(r.cols, &dpCol{name: cn, t: c.T})
		}
		r.qualifyCols()
		f := &dpFrom{node: n, rte: r, sub: sel, printAliases: len(rs.Alias.Colnames) > 0, lateral: rs.Lateral}
		f.items = []*dpRTE{r}
		return f, nil
	case n.GetRangeFunction() != nil:
		rf := n.GetRangeFunction()
		if rf.Lateral || rf.Ordinality || rf.IsRowsfrom || len(rf.Functions) != 1 || len(rf.Coldeflist) > 0 {
			return nil, errNotDeparsed
		}
		list := rf.Functions[0].GetList().GetItems()
		if len(list) == 0 || list[0].GetFuncCall() == nil {
			return nil, errNotDeparsed
		}
		it, err := d.a.fromItem(n, d.corrOf(), &scope{})
		if err != nil || len(it.items) != 1 {
			return nil, errNotDeparsed
		}
		name := OpName(list[0].GetFuncCall().Funcname)
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name = name[i+1:]
		}
		if rf.Alias != nil {
			name = rf.Alias.Aliasname
		}
		r := &dpRTE{name: name, relVisible: true, colsVisible: true, refname: ns.unique(name)}
		for _, c := range it.items[0].cols {
			r.cols = append(r.cols, &dpCol{name: c.name, t: c.t})
		}
		r.qualifyCols()
		// A function's column aliases are always printed.
		f := &dpFrom{node: n, rte: r, fn: list[0], printAliases: true}
		f.items = []*dpRTE{r}
		return f, nil
	case n.GetJoinExpr() != nil:
		j := n.GetJoinExpr()
		left, err := d.fromItem(j.Larg, ns)
		if err != nil {
			return nil, err
		}
		right, err := d.fromItem(j.Rarg, ns)
		if err != nil {
			return nil, err
		}
		f := &dpFrom{node: n, left: left, right: right, join: j}
		lcols, rcols := visibleCols(left.items), visibleCols(right.items)
		var names []string
		if j.IsNatural {
			for _, lc := range lcols {
				for _, rc := range rcols {
					if lc.name == rc.name && !containsStr(names, lc.name) {
						names = append(names, lc.name)
					}
				}
			}
		}
		for _, u := range j.UsingClause {
			names = append(names, u.GetString_().Sval)
		}
		f.using = names
		var cols []*dpCol
		usedL, usedR := map[*dpCol]bool{}, map[*dpCol]bool{}
		for _, name := range names {
			lc, rc := findCol(lcols, name), findCol(rcols, name)
			if lc == nil || rc == nil {
				return nil, errNotDeparsed
			}
			usedL[lc], usedR[rc] = true, true
			// The merged column is the left side's (an inner join's
			// either side's that needs no conversion to the common type),
			// the right side's for RIGHT JOIN; one that needs converting,
			// or a FULL JOIN's, is printed bare (buildMergedJoinVar).
			t, err := commonType([]exec.T{lc.t, rc.t}, "JOIN/USING", -1)
			if err != nil {
				return nil, err
			}
			lok, rok := lc.t.OID == t.OID, rc.t.OID == t.OID
			mc := &dpCol{name: name, t: t, print: QuoteIdent(name)}
			side := func(c *dpCol) { mc.print, mc.owner = c.print, c.owner }
			switch j.Jointype {
			case pg.JoinType_JOIN_INNER:
				if lok {
					side(lc)
				} else if rok {
					side(rc)
				}
			case pg.JoinType_JOIN_LEFT:
				if lok {
					side(lc)
				}
			case pg.JoinType_JOIN_RIGHT:
				if rok {
					side(rc)
				}
			}
			cols = append(cols, mc)
		}
		for _, c := range lcols {
			if !usedL[c] {
				cols = append(cols, c)
			}
		}
		for _, c := range rcols {
			if !usedR[c] {
				cols = append(cols, c)
			}
		}
		if j.Alias != nil {
			r := &dpRTE{name: j.Alias.Aliasname, relVisible: true, colsVisible: true, refname: ns.unique(j.Alias.Aliasname)}
			for i, c := range cols {
				cn := c.name
				if i < len(j.Alias.Colnames) {
					cn = j.Alias.Colnames[i].GetString_().Sval
				}
				r.cols = append(r.cols, &dpCol{name: cn, t: c.t})
			}
			r.qualifyCols()
			f.rte = r
			f.printAliases = len(j.Alias.Colnames) > 0
			f.items = []*dpRTE{r}
			return f, nil
		}
		for _, it := range append(append([]*dpRTE{}, left.items...), right.items...) {
			c := *it
			c.colsVisible = false
			if c.orig == nil {
				c.orig = it
			}
			f.items = append(f.items, &c)
		}
		f.items = append(f.items, &dpRTE{colsVisible: true, cols: cols})
		if j.JoinUsingAlias != nil {
			ua := &dpRTE{name: j.JoinUsingAlias.Aliasname, relVisible: true, cols: cols[:len(names)]}
			f.items = append(f.items, ua)
		}
		return f, nil
	}
	return nil, errNotDeparsed
}

// qualifyCols sets how references to r's columns print: refname.column.
func (r *dpRTE) qualifyCols() {
	for _, c := range r.cols {
		c.print = QuoteIdent(r.refname) + "." + QuoteIdent(c.name)
		c.owner = r
	}
}

// visibleCols returns the columns items make visible unqualified.
func visibleCols(items []*dpRTE) []*dpCol {
	var out []*dpCol
	for _, it := range items {
		if it.colsVisible {
			out = append(out, it.cols...)
		}
	}
	return out
}

func findCol(cols []*dpCol, name string) *dpCol {
	for _, c := range cols {
		if c.name == name {
			return c
		}
	}
	return nil
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// relationName is a relation as ruleutils names it: bare where the
// search path finds it, else schema-qualified.
func (d *deparser) relationName(rv *pg.RangeVar, t *exec.Table) string {
	name := QuoteIdent(rv.Relname)
	if rv.Schemaname == "" || d.visible != nil && d.visible[rv] {
		return name
	}
	return QuoteIdent(rv.Schemaname) + "." + name
}

// corrOf is the correlation a subquery of the level being printed is
// analyzed in.
func (d *deparser) corrOf() *correlation {
	return &correlation{outer: d.sc}
}

// scope returns the analyzer's scope of ns's items, for the types of the
// expressions printed at its level; outer is the enclosing level's.
func (ns *dpNS) scope(outer *scope) *scope {
	sc := &scope{}
	if outer != nil {
		sc.corr = &correlation{outer: outer}
	}
	idx := 0
	for _, r := range ns.rtes {
		it := &nsItem{name: r.name, relVisible: r.relVisible, colsVisible: r.colsVisible}
		for _, c := range r.cols {
			it.cols = append(it.cols, &scopeCol{name: c.name, t: c.t, idx: idx})
			idx++
		}
		sc.items = append(sc.items, it)
	}
	return sc
}

// fromClause prints the FROM list, as get_from_clause.
func (p *qprinter) fromClause(items []*dpFrom) {
	for i, f := range items {
		if i == 0 {
			p.keyword(" FROM ", -prettyIndentStd, prettyIndentStd, 2)
			p.fromItem(f)
			continue
		}
		p.buf.WriteString(", ")
		sub := &qprinter{d: p.d, indent: p.indent}
		sub.fromItem(f)
		p.appendItem(sub.buf.String(), false, nil)
	}
}

// fromItem prints one FROM item, as get_from_clause_item.
func (p *qprinter) fromItem(f *dpFrom) {
	d := p.d
	if f.join == nil {
		switch {
		case f.sub != nil:
			sd := *d
			sd.indent = p.indent
			s, err := sd.queryDef(f.sub, d.ns, p.indent, nil, true)
			if err != nil {
				d.fellBack()
				s, _ = DeparseSelect(f.sub)
			}
			if f.lateral {
				p.buf.WriteString("LATERAL ")
			}
			p.buf.WriteString("(" + s + ")")
			p.buf.WriteString(" " + QuoteIdent(f.rte.refname))
		case f.fn != nil:
			p.buf.WriteString(d.expr(f.fn, nil, exec.TUnknown, false) + " " + QuoteIdent(f.rte.refname))
		default:
			p.buf.WriteString(f.relation)
			relname := f.node.GetRangeVar().Relname
			if to, ok := d.renamed[f.node.GetRangeVar()]; ok {
				relname = to.Relname
			}
			if f.rte.refname != relname || f.printAliases {
				p.buf.WriteString(" " + QuoteIdent(f.rte.refname))
			}
		}
		p.aliasList(f)
		return
	}
	j := f.join
	parenRight := d.pretty && j.Rarg.GetRangeVar() == nil && !(j.Rarg.GetJoinExpr() != nil && j.Rarg.GetJoinExpr().Alias != nil)
	if !d.pretty || j.Alias != nil {
		p.buf.WriteByte('(')
	}
	p.fromItem(f.left)
	kw := " JOIN "
	switch j.Jointype {
	case pg.JoinType_JOIN_INNER:
		if j.Quals == nil && len(f.using) == 0 {
			kw = " CROSS JOIN "
		}
	case pg.JoinType_JOIN_LEFT:
		kw = " LEFT JOIN "
	case pg.JoinType_JOIN_FULL:
		kw = " FULL JOIN "
	case pg.JoinType_JOIN_RIGHT:
		kw = " RIGHT JOIN "
	}
	p.keyword(kw, -prettyIndentStd, prettyIndentStd, prettyIndentJoin)
	if parenRight {
		p.buf.WriteByte('(')
	}
	p.fromItem(f.right)
	if parenRight {
		p.buf.WriteByte(')')
	}
	switch {
	case len(f.using) > 0:
		var names []string
		for _, u := range f.using {
			names = append(names, QuoteIdent(u))
		}
		p.buf.WriteString(" USING (" + strings.Join(names, ", ") + ")")
		if j.JoinUsingAlias != nil {
			p.buf.WriteString(" AS " + QuoteIdent(j.JoinUsingAlias.Aliasname))
		}
	case j.Quals != nil && j.Jointype != pg.JoinType_JOIN_INNER && isTrueConst(j.Quals):
		// As PostgreSQL prints an outer join without condition (a
		// NATURAL one without common columns), which a stored query
		// keeps as ON TRUE.
		p.buf.WriteString(" ON TRUE")
	case j.Quals != nil:
		// The condition sees the join's two sides.
		jd := *d
		jns := &dpNS{outer: d.ns.outer, names: d.ns.names, rtes: f.left.items}
		jns.rtes = append(append([]*dpRTE{}, f.left.items...), f.right.items...)
		jd.ns = jns
		jd.sc = jns.scope(nil)
		if d.sc != nil {
			jd.sc.corr = d.sc.corr
		}
		jd.indent = p.indent
		p.buf.WriteString(" ON ")
		if !d.pretty {
			p.buf.WriteByte('(')
		}
		p.buf.WriteString(jd.expr(j.Quals, nil, exec.TBool, false))
		if !d.pretty {
			p.buf.WriteByte(')')
		}
	case j.Jointype != pg.JoinType_JOIN_INNER:
		p.buf.WriteString(" ON TRUE")
	}
	if !d.pretty || j.Alias != nil {
		p.buf.WriteByte(')')
	}
	if j.Alias != nil {
		p.buf.WriteString(" " + QuoteIdent(f.rte.refname))
		p.aliasList(f)
	}
}

// aliasList prints an item's column aliases where ruleutils does.
func (p *qprinter) aliasList(f *dpFrom) {
	if !f.printAliases || f.rte == nil {
		return
	}
	var names []string
	for _, c := range f.rte.cols {
		names = append(names, QuoteIdent(c.name))
	}
	p.buf.WriteString("(" + strings.Join(names, ", ") + ")")
}

// sublinkQuery prints a subquery expression, as get_sublink_expr.
func (d *deparser) sublinkQuery(sl *pg.SubLink, n *pg.Node) (string, bool) {
	sel := sl.Subselect.GetSelectStmt()
	if sel == nil {
		return "", false
	}
	q, err := d.queryDef(sel, d.ns, d.indent, nil, false)
	if err != nil {
		return "", false
	}
	switch sl.SubLinkType {
	case pg.SubLinkType_EXISTS_SUBLINK:
		return "(EXISTS (" + q + "))", true
	case pg.SubLinkType_EXPR_SUBLINK:
		return "(" + q + ")", true
	case pg.SubLinkType_ARRAY_SUBLINK:
		return "ARRAY(" + q + ")", true
	case pg.SubLinkType_ANY_SUBLINK, pg.SubLinkType_ALL_SUBLINK:
		if sl.Testexpr == nil {
			return "", false
		}
		op := "="
		if len(sl.OperName) > 0 {
			op = OpName(sl.OperName)
		}
		var test string
		if row := sl.Testexpr.GetRowExpr(); row != nil {
			// A row compared: its columns, each its own comparison.
			var parts []string
			for _, x := range row.Args {
				parts = append(parts, d.expr(x, n, exec.TUnknown, false))
			}
			test = "(" + strings.Join(parts, ", ") + ")"
		} else {
			test = d.expr(sl.Testexpr, n, exec.TUnknown, false)
		}
		switch {
		case sl.SubLinkType == pg.SubLinkType_ANY_SUBLINK && op == "=":
			return "(" + test + " IN (" + q + "))", true
		case sl.SubLinkType == pg.SubLinkType_ANY_SUBLINK:
			return "(" + test + " " + op + " ANY (" + q + "))", true
		}
		return "(" + test + " " + op + " ALL (" + q + "))", true
	}
	return "", false
}

// ViewDef returns a view's (or materialized view's) query as
// pg_get_viewdef prints it: with pretty, parentheses only where needed;
// wrap is the line width past which select-list and FROM items start
// lines of their own (0: each does; negative: none). cols are the view's
// column names. It falls back to ViewDefinition's one-line form for
// queries it does not print.
func ViewDef(s Session, env *exec.Env, snap *catalog.Snapshot, query string, depends, cols []string, pretty bool, wrap int) (string, bool) {
	sel, err := ParseSelect(query)
	if err != nil {
		return "", false
	}
	visible := map[*pg.RangeVar]bool{}
	n := &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}
	ctes := CTENames(n)
	VisitNodes(n, func(x *pg.Node) {
		rv := x.GetRangeVar()
		if rv == nil || rv.Schemaname == "" && ctes[rv.Relname] {
			return
		}
		schema := rv.Schemaname
		if schema == "" {
			for _, dep := range depends {
				if sc, name, _ := strings.Cut(dep, "."); name == rv.Relname {
					schema = sc
				}
			}
		}
		r, ok := snap.RelationByName(schema, rv.Relname)
		if !ok {
			return
		}
		rv.Schemaname = schema
		visible[rv] = snap.Visible(r)
	})
	x := NewAnalyzer(env.Ctx, s, env.Txn)
	restore, err := x.Unchecked()
	if err != nil {
		return "", false
	}
	defer restore()
	d := &deparser{a: x.a, pretty: pretty, indentOn: true, wrap: wrap, settings: s.Settings(), env: env, visible: visible}
	text, err := d.queryDef(sel, nil, 0, cols, true)
	if err != nil {
		return "", false
	}
	return text, true
}

// wholeRow prints a reference to a whole FROM item's row (i, or i.*) as
// ruleutils does: i.*, cast to the row type where the expression stands
// alone (toplevel: a VALUES item, a ROW argument). ok is false for
// anything else.
func (d *deparser) wholeRow(n *pg.Node, toplevel bool) (string, bool) {
	cr := n.GetColumnRef()
	if cr == nil || d.ns == nil {
		return "", false
	}
	var name string
	switch f := cr.Fields; {
	case len(f) == 1 && f[0].GetString_() != nil:
		name = f[0].GetString_().Sval
		if d.ns.column([]string{name}) != nil {
			return "", false
		}
	case len(f) == 2 && f[0].GetString_() != nil && f[1].GetAStar() != nil:
		name = f[0].GetString_().Sval
	default:
		return "", false
	}
	r := d.ns.rte("", name)
	if r == nil {
		return "", false
	}
	if d.storing && d.ns.shadowed(r) != nil {
		d.fellBack()
	}
	s := QuoteIdent(r.refname) + ".*"
	if toplevel && !d.storing {
		t := r.rowType
		if t == "" {
			t = "record"
		}
		s += "::" + t
	}
	return s, true
}

// FreezeViewQuery returns the query sel of a new view, its relations
// schema-qualified, in the form the view keeps: as pg_get_viewdef prints
// it, with * expanded, NATURAL joins as USING, column references
// qualified and the view's column names cols as output names, so that
// columns later added to or renamed in the relations it reads do not
// change what it reads (PostgreSQL keeps the analyzed query). ok is
// false when a part of the query is one only pg_query's deparser prints;
// the query is then kept as written.
func FreezeViewQuery(x *Analyzer, sel *pg.SelectStmt, cols []string) (string, bool) {
	restore, err := x.Unchecked()
	if err != nil {
		return "", false
	}
	defer restore()
	fell := false
	d := &deparser{a: x.a, settings: x.a.s.Settings(), wrap: -1, fallbacks: &fell, storing: true}
	text, err := d.queryDef(sel, nil, 0, cols, true)
	if err != nil || fell {
		return "", false
	}
	return text, true
}

// isTrueConst reports whether n is the literal true.
func isTrueConst(n *pg.Node) bool {
	c := n.GetAConst()
	return c != nil && c.GetBoolval() != nil && c.GetBoolval().Boolval
}

// colPrint is how a reference to column c prints at d's level.
func (d *deparser) colPrint(c *dpCol) string {
	if !d.storing {
		return c.print
	}
	if x := d.ns.shadowed(c.owner); x != nil {
		// Its name would find another item: a table's column is named
		// with the table's schema then, unless that item is the same
		// table.
		if r := c.owner; r.schema != "" && !(x.schema == r.schema && x.name == r.name) {
			return QuoteIdent(r.schema) + "." + c.print
		}
		d.fellBack()
	}
	return c.print
}

// RefreezeRenamed returns the stored query sel of a view whose columns
// are cols as relations it reads are renamed: renamed maps each
// reference to them to the reference by the new name. The query is printed as FreezeViewQuery prints it,
// but with the names PostgreSQL would give its FROM items, unique from
// the outermost query in (FROM a1 a1_1), so that no reference comes to
// mean another item. ok is false where FreezeViewQuery's is.
func RefreezeRenamed(x *Analyzer, sel *pg.SelectStmt, cols []string, renamed map[*pg.RangeVar]*pg.RangeVar) (string, bool) {
	restore, err := x.Unchecked()
	if err != nil {
		return "", false
	}
	defer restore()
	fell := false
	d := &deparser{a: x.a, settings: x.a.s.Settings(), wrap: -1, fallbacks: &fell, storing: true, renamed: renamed}
	text, err := d.queryDef(sel, nil, 0, cols, true)
	if err != nil || fell {
		return "", false
	}
	return text, true
}
