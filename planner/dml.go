package planner

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// columnByName returns the position of a table's column.
func columnByName(t *exec.Table, name string, loc int32) (int, error) {
	for _, c := range t.Cols {
		if !c.Dropped && c.Name == name {
			return c.Pos, nil
		}
	}
	return 0, WithPos(pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, t.Def.Name), loc)
}

// defaults analyzes the DEFAULT expressions of t's columns.
func (a *analyzer) defaults(t *exec.Table) ([]exec.Expr, error) {
	out := make([]exec.Expr, len(t.Cols))
	for i, c := range t.Cols {
		if c.Generated != "" {
			continue // NULL until Modify computes it, not its domain's default
		}
		if c.Default == "" && c.Domain != "" && !c.DomainArray && !c.Dropped {
			dom, err := a.columnDomain(a.ctx, c)
			if err != nil {
				return nil, err
			}
			if dom != nil {
				c.Default = dom.Default
			}
		}
		if c.Default == "" || c.Dropped {
			if c.Domain != "" && !c.Dropped {
				// No default: NULL, which a NOT NULL domain rejects.
				var err error
				if out[i], err = a.assignColumn(&exec.Const{D: exec.Null, T: c.Type}, c, -1); err != nil {
					return nil, err
				}
				if _, plain := out[i].(*exec.Const); plain {
					out[i] = nil
				}
			}
			continue
		}
		n, err := ParseExpr(c.Default)
		if err != nil {
			return nil, err
		}
		e, err := a.expr(n, nil)
		if err != nil {
			return nil, err
		}
		if out[i], err = a.assignColumn(e, c, -1); err != nil {
			return nil, err
		}
	}
	for name, n := range a.defaultOverride {
		pos, err := columnByName(t, name, -1)
		if err != nil {
			return nil, err
		}
		e, err := a.expr(n, nil)
		if err != nil {
			return nil, err
		}
		if out[pos], err = a.assignColumn(e, t.Cols[pos], -1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// insertSource plans the query of INSERT ... SELECT. As in PostgreSQL, an
// untyped literal or parameter in its select list takes the type of its
// target column rather than text.
func (a *analyzer) insertSource(sel *pg.SelectStmt) (exec.Plan, error) {
	saved := a.keepUnknown
	a.keepUnknown = true
	defer func() { a.keepUnknown = saved }()
	return a.selectStmt(sel)
}

// typeUnknownParam gives output column i of p the type t when it is a
// bare parameter of unknown type ($1 in INSERT ... SELECT $1), so the
// parameter is described and decoded as t, as PostgreSQL infers it. It
// returns the column's type after that.
func (a *analyzer) typeUnknownParam(p exec.Plan, i int, t exec.T) exec.T {
	pr, ok := p.(*exec.Project)
	if !ok {
		return p.Columns()[i].T
	}
	if prm, ok := pr.Exprs[i].(*exec.Param); ok && prm.T.OID == exec.OIDUnknown && a.params[prm.Idx].OID == exec.OIDUnknown {
		a.params[prm.Idx] = t
		pr.Exprs[i] = &exec.Param{Idx: prm.Idx, T: t}
		pr.Cols[i].T = t
	}
	return pr.Cols[i].T
}

func (a *analyzer) insert(s *pg.InsertStmt) (exec.Plan, error) {
	if v, ok, err := a.targetView(s.Relation); err != nil {
		return nil, err
	} else if ok && !hasInstead(v, "INSERT") {
		return a.insertView(s, v) // updatable.go
	} else if ok {
		if err := a.requireView(v, "a"); err != nil {
			return nil, err
		}
	}
	pending, pendingDefaults := a.viewChecks, a.viewDefaults
	a.viewChecks, a.viewDefaults = nil, nil
	ctes, pop, err := a.withCTEs(s.WithClause, nil)
	if err != nil {
		return nil, err
	}
	defer pop()
	t, err := a.table(s.Relation)
	if err == nil {
		err = checkWritableTable(t)
	}
	if err != nil {
		return nil, err
	}
	var targets []int
	if len(s.Cols) == 0 {
		for _, c := range t.Cols {
			if !c.Dropped {
				targets = append(targets, c.Pos)
			}
		}
	} else {
		for _, n := range s.Cols {
			rt := n.GetResTarget()
			pos, err := columnByName(t, rt.Name, rt.Location)
			if err != nil {
				return nil, err
			}
			targets = append(targets, pos)
		}
	}
	// INSERT on the columns given; SELECT, for RETURNING and ON
	// CONFLICT, which read the table (colpriv.go).
	err = a.requireColumns(t, "a", targets)
	if err == nil && (len(s.ReturningList) > 0 || s.OnConflictClause != nil) {
		err = a.requireRead(t)
	}
	if err == nil && s.OnConflictClause != nil && s.OnConflictClause.Action == pg.OnConflictAction_ONCONFLICT_UPDATE {
		err = a.requireColumns(t, "w", setColumns(t, s.OnConflictClause.TargetList))
	}
	if err != nil {
		return nil, err
	}
	a.defaultOverride = pendingDefaults
	defaults, err := a.defaults(t)
	a.defaultOverride = nil
	if err != nil {
		return nil, err
	}
	// Targets through subscripts (INSERT INTO t (a[1], a[2]) ...) read
	// their values as elements, into columns of their own that
	// elements() then assigns into the real ones.
	realTargets := targets
	tt, elemTargets, err := a.elementTargets(t, targets, s.Cols)
	if err != nil {
		return nil, err
	}
	if elemTargets != nil {
		targets = elemTargets
		defaults = append(slices.Clone(defaults), make([]exec.Expr, len(tt.Cols)-len(t.Cols))...)
	}
	var src exec.Plan
	sel := s.SelectStmt.GetSelectStmt()
	switch {
	case sel == nil:
		// INSERT ... DEFAULT VALUES
		targets = nil
		src = &exec.Values{Rows: [][]exec.Expr{{}}}
	case len(sel.ValuesLists) > 0:
		var valueTargets []int
		src, valueTargets, err = a.insertValues(tt, sel.ValuesLists, targets, s.Cols, s.Override, defaults, nil)
		if err != nil && len(sel.ValuesLists) == 1 && isSRFNotAllowed(err, "VALUES") {
			// PostgreSQL takes a single VALUES row as a select list,
			// where a set-returning function may run:
			// INSERT INTO t VALUES (generate_series(1, 3)).
			var row *pg.SelectStmt
			if row, err = a.valuesRowAsSelect(tt, sel.ValuesLists[0], targets); err == nil {
				src, valueTargets, err = a.insertQuery(tt, s, row, targets)
			}
		}
		if err != nil {
			return nil, err
		}
		targets = valueTargets
	default:
		if src, targets, err = a.insertQuery(tt, s, sel, targets); err != nil {
			return nil, err
		}
	}
	if elemTargets != nil {
		if src, targets, err = a.assignElements(t, tt, src, realTargets, elemTargets, s.Cols); err != nil {
			return nil, err
		}
	}
	ret, cols, err := a.returning(s.ReturningList, t, aliasOf(s.Relation))
	if err != nil {
		return nil, err
	}
	checks, err := a.checks(t)
	if err != nil {
		return nil, err
	}
	var conflict *exec.OnConflict
	if s.OnConflictClause != nil {
		if conflict, err = a.onConflict(s.OnConflictClause, t, aliasOf(s.Relation)); err != nil { // upsert.go
			return nil, err
		}
		if conflict.Update {
			if err := a.conflictChecks(conflict, t); err != nil {
				return nil, err
			}
		}
		if s.OnConflictClause.Infer != nil {
			a.useArbiters(t, conflict.Arbiters) // the conflict target is read (colpriv.go)
		}
	}
	policies, err := a.newRowChecks(t, policyInsert, len(s.ReturningList) > 0 || s.OnConflictClause != nil)
	if err != nil {
		return nil, err
	}
	viewChecks, err := a.viewCheckExprs(pending, t, aliasOf(s.Relation))
	if err != nil {
		return nil, err
	}
	if conflict != nil && conflict.Update && len(viewChecks) > 0 {
		conflict.ViewChecks, conflict.Table = viewChecks, t
	}
	m := &exec.Modify{Kind: exec.Insert, Table: t, Source: src, Targets: targets, Defaults: defaults, Returning: ret, Cols: cols, Checks: checks, Conflict: conflict, Policies: policies, ViewChecks: viewChecks}
	if err := a.modifyFamily(m, true); err != nil {
		return nil, err
	}
	return withDML(ctes, m), nil
}

// elementTargets handles an INSERT's column list naming array elements
// (a[1], a[2:3]): it returns t with a column added for each of them, of
// the element's type (the array's for a slice), and the targets with
// those in their places; nil targets when the list has none.
func (a *analyzer) elementTargets(t *exec.Table, targets []int, cols []*pg.Node) (*exec.Table, []int, error) {
	var out []int
	var tt exec.Table
	for i, n := range cols {
		rt := n.GetResTarget()
		if len(rt.Indirection) == 0 {
			continue
		}
		if out == nil {
			tt = *t
			tt.Cols = slices.Clone(t.Cols)
			out = slices.Clone(targets)
		}
		c := t.Cols[targets[i]]
		elem := c
		elem.Pos = len(tt.Cols)
		elem.Default, elem.Identity, elem.Generated = "", 0, ""
		if hasFieldStep(rt.Indirection) {
			// Through a field: the type at the end of the path.
			pt, err := a.pathType(c.Type, c.Name, rt.Indirection, rt.Location)
			if err != nil {
				return nil, nil, err
			}
			elem.Type = pt
			tt.Cols = append(tt.Cols, elem)
			out[i] = elem.Pos
			continue
		}
		if !exec.IsArrayType(c.Type.OID) {
			// No position, as PostgreSQL's transformAssignmentIndirection.
			return nil, nil, pgerr.New(pgerr.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", exec.TypeName(c.Type.OID))
		}
		slice := false
		for _, ind := range rt.Indirection {
			if ind.GetAIndices() == nil {
				return nil, nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "assignment to a field of an array element is not supported yet"), rt.Location)
			}
			slice = slice || ind.GetAIndices().IsSlice
		}
		if !slice {
			elem.Type = exec.ElemType(c.Type)
		}
		tt.Cols = append(tt.Cols, elem)
		out[i] = elem.Pos
	}
	if out == nil {
		return t, nil, nil
	}
	return &tt, out, nil
}

// assignTarget converts e for INSERT's target rt, column c: the column
// itself (assignColumn), or the element or field rt reaches, whose type
// c has here (elementTargets), with PostgreSQL's errors for those.
func (a *analyzer) assignTarget(e exec.Expr, c exec.Column, rt *pg.ResTarget, loc int32) (exec.Expr, error) {
	if rt == nil || len(rt.Indirection) == 0 {
		return a.assignColumn(e, c, loc)
	}
	out, ok, err := a.assignCast(e, c.Type, loc)
	if ok || err != nil {
		return out, err
	}
	et := exec.TypeName(e.Type().OID)
	var pe *pgerr.Error
	if f := rt.Indirection[len(rt.Indirection)-1].GetString_(); f != nil {
		pe = pgerr.New(pgerr.DatatypeMismatch, "subfield %q is of type %s but expression is of type %s", f.Sval, exec.TypeName(c.Type.OID), et)
	} else {
		name := rt.Name
		for _, n := range rt.Indirection {
			if f := n.GetString_(); f != nil {
				name = f.Sval
			}
		}
		pe = pgerr.New(pgerr.DatatypeMismatch, "subscripted assignment to %q requires type %s but expression is of type %s", name, exec.TypeName(c.Type.OID), et)
	}
	return nil, WithPos(pe.WithHint("You will need to rewrite or cast the expression."), rt.Location)
}

// assignElements puts the values src read for array elements (columns
// of tt past t's, see elementTargets) into their arrays, each assignment
// into the array the ones before it made, starting from NULL, as
// PostgreSQL's INSERT does; it returns the source and targets of t.
func (a *analyzer) assignElements(t, tt *exec.Table, src exec.Plan, targets, elemTargets []int, cols []*pg.Node) (exec.Plan, []int, error) {
	var out []int
	vals := map[int]exec.Expr{}
	for i, pos := range targets {
		rt := cols[i].GetResTarget()
		c := t.Cols[pos]
		in := &exec.ColRef{Idx: i, T: tt.Cols[elemTargets[i]].Type}
		prev, seen := vals[pos]
		if !seen {
			out = append(out, pos)
		}
		if len(rt.Indirection) == 0 {
			if seen {
				return nil, nil, WithPos(pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", c.Name), rt.Location)
			}
			vals[pos] = in
			continue
		}
		if !seen {
			prev = &exec.Const{D: exec.Null, T: c.Type}
		} else if _, whole := prev.(*exec.ColRef); whole {
			return nil, nil, WithPos(pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", c.Name), rt.Location)
		}
		if hasFieldStep(rt.Indirection) {
			v, err := a.assignPath(prev, c.Name, rt.Indirection, in, rt.Location, nil)
			if err != nil {
				return nil, nil, err
			}
			vals[pos] = v
			continue
		}
		x, err := a.subscripts(prev, rt.Indirection, nil, rt.Location)
		if err != nil {
			return nil, nil, err
		}
		sub := x.(*exec.Subscript)
		vals[pos] = &exec.SetElement{Arr: prev, Lower: sub.Lower, Upper: sub.Upper, Slice: sub.Slice, Val: in, T: c.Type}
	}
	exprs := make([]exec.Expr, len(out))
	rcols := make([]exec.ResultColumn, len(out))
	for i, pos := range out {
		e := vals[pos]
		if _, whole := e.(*exec.ColRef); !whole {
			var err error
			if e, err = a.columnDomainCheck(e, t.Cols[pos]); err != nil {
				return nil, nil, err
			}
		}
		exprs[i], rcols[i] = e, exec.ResultColumn{Name: t.Cols[pos].Name, T: t.Cols[pos].Type}
	}
	return &exec.Project{In: src, Exprs: exprs, Cols: rcols}, out, nil
}

// insertQuery plans the rows INSERT ... SELECT (or query) writes to
// targets of tt: the query's columns assigned to the target columns.
func (a *analyzer) insertQuery(tt *exec.Table, s *pg.InsertStmt, sel *pg.SelectStmt, targets []int) (exec.Plan, []int, error) {
	p, err := a.insertSource(sel)
	if err != nil {
		return nil, nil, err
	}
	cols := p.Columns()
	if len(s.Cols) == 0 && len(cols) < len(targets) {
		// Without a column list, the query may fill only the
		// leading columns, as VALUES may.
		targets = targets[:len(cols)]
	}
	if len(cols) > len(targets) {
		loc := int32(-1)
		if tl := sel.GetTargetList(); len(targets) < len(tl) {
			loc = tl[len(targets)].GetResTarget().GetLocation()
		}
		return nil, nil, WithPos(pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns"), loc)
	}
	if len(cols) != len(targets) {
		loc := int32(-1)
		if len(cols) < len(s.Cols) {
			loc = s.Cols[len(cols)].GetResTarget().GetLocation()
		}
		return nil, nil, WithPos(pgerr.New(pgerr.SyntaxError, "INSERT has more target columns than expressions"), loc)
	}
	conv := make([]exec.Expr, len(cols))
	for i, col := range cols {
		c := tt.Cols[targets[i]]
		if c.Generated != "" {
			return nil, nil, insertGenerated(c)
		}
		if skip, err := identityValue(c, s.Override); err != nil {
			return nil, nil, err
		} else if skip {
			return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "OVERRIDING USER VALUE with INSERT ... SELECT is not supported yet")
		}
		if col.T.OID == exec.OIDUnknown {
			col.T = a.typeUnknownParam(p, i, exec.T{OID: c.Type.OID, Typmod: -1})
		}
		var rt *pg.ResTarget
		if i < len(s.Cols) {
			rt = s.Cols[i].GetResTarget()
		}
		if conv[i], err = a.assignTarget(&exec.ColRef{Idx: i, T: col.T}, c, rt, -1); err != nil {
			return nil, nil, err
		}
	}
	return &exec.Project{In: p, Exprs: conv, Cols: cols}, targets, nil
}

// valuesRowAsSelect is a single VALUES row of an INSERT into targets of
// t as the select list PostgreSQL takes it for, DEFAULT as the column's
// default expression.
func (a *analyzer) valuesRowAsSelect(t *exec.Table, row *pg.Node, targets []int) (*pg.SelectStmt, error) {
	items := row.GetList().Items
	tl := make([]*pg.Node, len(items))
	for i, it := range items {
		if it.GetSetToDefault() != nil && i < len(targets) {
			def := "NULL::" + exec.TypeName(t.Cols[targets[i]].Type.OID)
			if t.Def != nil && targets[i] < len(t.Def.Columns) && t.Def.Columns[targets[i]].Default != "" {
				def = t.Def.Columns[targets[i]].Default
			}
			n, err := ParseExpr(def)
			if err != nil {
				return nil, err
			}
			it = n
		}
		tl[i] = &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: it, Location: ExprLocation(it)}}}
	}
	return &pg.SelectStmt{TargetList: tl, Op: pg.SetOperation_SETOP_NONE, LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT}, nil
}

// insertValues analyzes the VALUES lists of an INSERT (or the one list
// of a MERGE's INSERT action, whose values read sc) giving the columns
// at positions targets of t: each value converted to its column's type,
// DEFAULT (and any value under OVERRIDING USER VALUE for an identity
// column) made the column's default. cols is the column list (its
// ResTargets, for error positions); without one, the lists may give
// only the leading columns: it returns the targets they give.
func (a *analyzer) insertValues(t *exec.Table, lists []*pg.Node, targets []int, cols []*pg.Node, override pg.OverridingKind, defaults []exec.Expr, sc *scope) (*exec.Values, []int, error) {
	types := make([]exec.T, len(targets))
	for i, pos := range targets {
		types[i] = t.Cols[pos].Type
	}
	v, err := a.valuesIn(lists, types, sc)
	if err != nil {
		return nil, nil, err
	}
	if len(cols) == 0 && len(v.Rows) > 0 && len(v.Rows[0]) < len(targets) {
		targets = targets[:len(v.Rows[0])]
	}
	for r, row := range v.Rows {
		if len(row) > len(targets) {
			loc := int32(-1)
			if items := lists[r].GetList().Items; len(targets) < len(items) {
				loc = ExprLocation(items[len(targets)])
			}
			return nil, nil, WithPos(pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns"), loc)
		}
		if len(row) < len(targets) {
			return nil, nil, WithPos(pgerr.New(pgerr.SyntaxError, "INSERT has more target columns than expressions"),
				cols[len(row)].GetResTarget().Location)
		}
		for i, e := range row {
			c := t.Cols[targets[i]]
			if e != nil && c.Generated != "" {
				return nil, nil, insertGenerated(c)
			}
			if e != nil {
				if skip, err := identityValue(c, override); err != nil {
					return nil, nil, err
				} else if skip {
					e, row[i] = nil, nil // OVERRIDING USER VALUE: the default
				}
			}
			if e == nil && i < len(cols) && len(cols[i].GetResTarget().Indirection) > 0 {
				what := "an array element"
				if cols[i].GetResTarget().Indirection[0].GetString_() != nil {
					what = "a subfield"
				}
				return nil, nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "cannot set %s to DEFAULT", what), cols[i].GetResTarget().Location)
			}
			if e == nil {
				if row[i] = defaults[c.Pos]; row[i] == nil {
					if row[i], err = a.assignColumn(&exec.Const{D: exec.Null, T: c.Type}, c, -1); err != nil {
						return nil, nil, err
					}
				}
				continue
			}
			// A string literal's input is reported at its position, as
			// PostgreSQL reads it while parsing (a number's conversion is
			// a function that runs later, without one).
			loc := int32(-1)
			if items := lists[r].GetList().Items; i < len(items) && items[i].GetAConst().GetSval() != nil {
				loc = ExprLocation(items[i])
			}
			var rt *pg.ResTarget
			if i < len(cols) {
				rt = cols[i].GetResTarget()
			}
			if row[i], err = a.assignTarget(e, c, rt, loc); err != nil {
				return nil, nil, err
			}
		}
	}
	return v, targets, nil
}

func (a *analyzer) returning(list []*pg.Node, t *exec.Table, alias string) ([]exec.Expr, []exec.ResultColumn, error) {
	return a.returningIn(list, tableScope(t, alias))
}

// returningIn analyzes a RETURNING list over the rows of sc (the target
// table's columns, then those of any FROM or USING items).
func (a *analyzer) returningIn(list []*pg.Node, sc *scope) ([]exec.Expr, []exec.ResultColumn, error) {
	if len(list) == 0 {
		return nil, nil, nil
	}
	// The target's tableoid is the table each row was written to: a
	// partition or child table where the statement writes several.
	sc.items[0].written = true
	return a.targets(list, sc)
}

// filteredScan plans the rows of a table an UPDATE or DELETE touches.
// filteredScan plans the rows of t that pass where, and returns where's
// predicate over t's rows (true without one) for a Modify's Recheck.
func (a *analyzer) filteredScan(t *exec.Table, inh bool, sc *scope, where *pg.Node, quals []exec.Expr) (exec.Plan, exec.Expr, error) {
	if co := where.GetCurrentOfExpr(); co != nil {
		return a.currentOf(t, co.CursorName, quals)
	}
	scan, err := a.relationScan(t, inh, nil)
	if err != nil {
		return nil, nil, err
	}
	if where == nil && len(quals) == 0 {
		return scan, &exec.Const{D: exec.DBool(true), T: exec.TBool}, nil
	}
	if where != nil {
		pred, err := a.expr(where, sc)
		if err != nil {
			return nil, nil, err
		}
		if pred, err = a.coerce(pred, exec.TBool, "argument of WHERE", -1); err != nil {
			return nil, nil, err
		}
		// Row-level security's conditions come first (rls.go).
		quals = append(quals, pred)
	}
	pred := and(quals)
	if app, ok := scan.(*exec.Append); ok {
		return a.appendWhere(app, pred), pred, nil
	}
	return a.scanWhere(scan.(*exec.Scan), pred), pred, nil
}

// modifyTarget resolves the table of an UPDATE or DELETE and plans the rows
// it changes: the table's rows that pass WHERE, joined with the FROM (or
// USING) items when there are any. sc is the scope that SET and RETURNING
// see. recheck is WHERE over a row of the table alone, which READ
// COMMITTED tests again on a row that a concurrent transaction changed
// (exec.Modify.Recheck); with FROM items, WHERE over the joined row
// (exec.Modify.RecheckJoined).
func (a *analyzer) modifyTarget(rel *pg.RangeVar, from []*pg.Node, where *pg.Node, cmd byte, reads bool, set []*pg.Node) (t *exec.Table, src exec.Plan, sc *scope, recheck exec.Expr, err error) {
	t, err = a.table(rel)
	if err == nil {
		err = checkWritableTable(t)
	}
	if err == nil {
		// UPDATE on the columns set (colpriv.go), DELETE on the table;
		// SELECT when the statement reads it.
		if cmd == policyUpdate {
			err = a.requireColumns(t, "w", setColumns(t, set))
		} else {
			err = a.requireTable(t, string(cmd))
		}
	}
	if err == nil && reads {
		err = a.requireColumnsRead(t) // colpriv.go
	}
	if err != nil {
		return nil, nil, nil, nil, err
	}
	// The rows the command may change, and, when it reads them, the
	// rows the role may see (rls.go).
	cmds := []byte{cmd}
	if reads {
		cmds = append(cmds, policySelect)
	}
	quals, err := a.securityQuals(t, cmds...)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	sc = tableScope(t, aliasOf(rel))
	if len(from) == 0 {
		src, recheck, err = a.filteredScan(t, rel.Inh, sc, where, quals)
		return t, src, sc, recheck, err
	}
	if src, sc, err = a.joinedTarget(t, rel.Inh, aliasOf(rel), from, where, quals); err != nil {
		return nil, nil, nil, nil, err
	}
	recheck = &exec.Const{D: exec.DBool(true), T: exec.TBool}
	if where != nil {
		if recheck, err = a.condition(where, sc, "WHERE", "argument of WHERE"); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	if len(quals) > 0 {
		// The newer version of a row must pass the policies too; they
		// read the table's columns, which come first in the joined row.
		recheck = and(append(quals, recheck))
	}
	return t, src, sc, recheck, nil
}

func (a *analyzer) update(s *pg.UpdateStmt) (exec.Plan, error) {
	if v, ok, err := a.targetView(s.Relation); err != nil {
		return nil, err
	} else if ok && !hasInstead(v, "UPDATE") {
		return a.updateView(s, v) // updatable.go
	} else if ok {
		if err := a.requireView(v, "w"); err != nil {
			return nil, err
		}
	}
	pending, pendingDefaults := a.viewChecks, a.viewDefaults
	a.viewChecks, a.viewDefaults = nil, nil
	ctes, pop, err := a.withCTEs(s.WithClause, nil)
	if err != nil {
		return nil, err
	}
	defer pop()
	reads := s.WhereClause != nil || len(s.FromClause) > 0 || len(s.ReturningList) > 0 || setReads(s.TargetList)
	t, src, sc, recheck, err := a.modifyTarget(s.Relation, s.FromClause, s.WhereClause, policyUpdate, reads, s.TargetList)
	if err != nil {
		return nil, err
	}
	a.defaultOverride = pendingDefaults
	sets, err := a.setClause(t, aliasOf(s.Relation), s.TargetList, sc)
	a.defaultOverride = nil
	if err != nil {
		return nil, err
	}
	ret, cols, err := a.returningIn(s.ReturningList, sc)
	if err != nil {
		return nil, err
	}
	checks, err := a.checks(t)
	if err != nil {
		return nil, err
	}
	policies, err := a.newRowChecks(t, policyUpdate, reads)
	if err != nil {
		return nil, err
	}
	viewChecks, err := a.viewCheckExprs(pending, t, aliasOf(s.Relation))
	if err != nil {
		return nil, err
	}
	m := &exec.Modify{Kind: exec.Update, Table: t, Source: src, Sets: sets, Returning: ret, Cols: cols, Checks: checks, Recheck: recheck, Policies: policies,
		ViewChecks: viewChecks, RecheckJoined: len(s.FromClause) > 0, UpdatedGenerated: updatedGenerated(t, sets)}
	if err := a.modifyFamily(m, s.Relation.Inh); err != nil {
		return nil, err
	}
	return withDML(ctes, m), nil
}

// setClause analyzes the SET list of an UPDATE (or of a MERGE's UPDATE
// action) of t, named target, over sc: the new value of each column
// assigned, by position (nil: unchanged).
func (a *analyzer) setClause(t *exec.Table, target string, list []*pg.Node, sc *scope) ([]exec.Expr, error) {
	sets := make([]exec.Expr, len(t.Cols))
	subscripted := make([]bool, len(t.Cols)) // sets[i] assigns through subscripts
	var defaults []exec.Expr
	for _, n := range list {
		rt := n.GetResTarget()
		pos, err := columnByName(t, rt.Name, rt.Location)
		if err != nil {
			return nil, err
		}
		// Assignments through subscripts may repeat, each into the
		// value the one before it made.
		if sets[pos] != nil && (len(rt.Indirection) == 0 || !subscripted[pos]) {
			return nil, pgerr.New(pgerr.SyntaxError, "multiple assignments to same column %q", rt.Name) // found by PostgreSQL's rewriter: no position
		}
		c := t.Cols[pos]
		val := rt.Val
		if mar := val.GetMultiAssignRef(); mar != nil {
			e, n, err := a.multiAssign(mar, sc)
			if err != nil {
				return nil, err
			}
			if e != nil {
				if c.Generated != "" {
					return nil, updateGenerated(c)
				}
				if sets[pos], err = a.assignColumn(e, c, rt.Location); err != nil {
					return nil, err
				}
				continue
			}
			val = n
		}
		if val.GetSetToDefault() != nil {
			if defaults == nil {
				if defaults, err = a.defaults(t); err != nil {
					return nil, err
				}
			}
			if sets[pos] = defaults[pos]; sets[pos] == nil {
				sets[pos] = &exec.Const{D: exec.Null, T: c.Type}
			}
			continue
		}
		if c.Identity == 'a' {
			// No position: PostgreSQL's rewriter finds it.
			return nil, pgerr.New(pgerr.GeneratedAlways, "column %q can only be updated to DEFAULT", c.Name).
				WithDetail("Column %q is an identity column defined as GENERATED ALWAYS.", c.Name)
		}
		if c.Generated != "" {
			return nil, updateGenerated(c)
		}
		e, err := a.expr(val, sc)
		if err != nil {
			return nil, err
		}
		if len(rt.Indirection) > 0 {
			if sets[pos], err = a.setElement(target, c, rt, e, sets[pos], sc); err != nil {
				return nil, err
			}
			subscripted[pos] = true
			continue
		}
		if sets[pos], err = a.assignColumn(e, c, rt.Location); err != nil {
			return nil, err
		}
	}
	// A column of a domain assigned through elements or fields: the
	// value they make must pass the domain's checks.
	for pos, e := range sets {
		if e != nil && subscripted[pos] {
			var err error
			if sets[pos], err = a.columnDomainCheck(e, t.Cols[pos]); err != nil {
				return nil, err
			}
		}
	}
	return sets, nil
}

// columnDomainCheck makes e, a new value of column c, pass the checks of
// c's domain, if it has one.
func (a *analyzer) columnDomainCheck(e exec.Expr, c exec.Column) (exec.Expr, error) {
	if c.Domain == "" {
		return e, nil
	}
	dom, err := a.columnDomain(a.ctx, c)
	if err != nil || dom == nil {
		return e, err
	}
	if c.DomainArray {
		elem := &exec.ColRef{Idx: 0, T: exec.T{OID: dom.Base, Typmod: dom.BaseTypmod}}
		chk, err := a.domainCheck(elem, dom)
		if err != nil || chk == exec.Expr(elem) {
			return e, err
		}
		return &exec.ArrayDomainCheck{E: e, Elem: chk}, nil
	}
	return a.domainCheck(e, dom)
}

func (a *analyzer) delete(s *pg.DeleteStmt) (exec.Plan, error) {
	if v, ok, err := a.targetView(s.Relation); err != nil {
		return nil, err
	} else if ok && !hasInstead(v, "DELETE") {
		return a.deleteView(s, v) // updatable.go
	} else if ok {
		if err := a.requireView(v, "d"); err != nil {
			return nil, err
		}
	}
	ctes, pop, err := a.withCTEs(s.WithClause, nil)
	if err != nil {
		return nil, err
	}
	defer pop()
	reads := s.WhereClause != nil || len(s.UsingClause) > 0 || len(s.ReturningList) > 0
	t, src, sc, recheck, err := a.modifyTarget(s.Relation, s.UsingClause, s.WhereClause, policyDelete, reads, nil)
	if err != nil {
		return nil, err
	}
	ret, cols, err := a.returningIn(s.ReturningList, sc)
	if err != nil {
		return nil, err
	}
	m := &exec.Modify{Kind: exec.Delete, Table: t, Source: src, Returning: ret, Cols: cols, Recheck: recheck, RecheckJoined: len(s.UsingClause) > 0}
	if err := a.modifyFamily(m, s.Relation.Inh); err != nil {
		return nil, err
	}
	return withDML(ctes, m), nil
}

// ParseExpr parses an expression stored as SQL text (a column default).
func ParseExpr(sql string) (*pg.Node, error) {
	r, err := pg.Parse("SELECT " + sql)
	if err != nil {
		return nil, pgerr.Wrap(err, pgerr.InternalError, "stored expression %q does not parse: %v", sql, err)
	}
	return r.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val, nil
}

// DeparseExpr returns an expression as SQL text.
func DeparseExpr(n *pg.Node) (string, error) {
	tree := &pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: &pg.SelectStmt{
		TargetList: []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: n}}}},
	}}}}}}
	s, err := pg.Deparse(tree)
	if err != nil {
		return "", pgerr.Wrap(err, pgerr.InternalError, "cannot deparse expression: %v", err)
	}
	return s[len("SELECT "):], nil
}

// modifyPrivileges is what an UPDATE or DELETE needs of its table: the
// privilege to change it, and SELECT when it reads the table's columns
// (WHERE, FROM or USING, RETURNING, SET expressions), as PostgreSQL asks.
func modifyPrivileges(change string, reads bool) string {
	if reads {
		return change + "r"
	}
	return change
}

// setReads reports whether an UPDATE's SET list may read the row: any
// value other than a constant or DEFAULT.
func setReads(targets []*pg.Node) bool {
	for _, n := range targets {
		v := n.GetResTarget().GetVal()
		if v != nil && v.GetAConst() == nil && v.GetSetToDefault() == nil {
			return true
		}
	}
	return false
}

// ColumnIndex returns the position of def's live column name, -1 if none.
func ColumnIndex(def *sqldef.Table, name string) int {
	return slices.IndexFunc(def.Columns, func(c sqldef.Column) bool { return !c.Dropped && c.Name == name })
}

// setColumns returns the positions of the columns of t an UPDATE's SET
// list (or ON CONFLICT DO UPDATE's) assigns; names that are no column
// are left to the analysis of the list to report.
func setColumns(t *exec.Table, list []*pg.Node) []int {
	var out []int
	for _, n := range list {
		rt := n.GetResTarget()
		if rt == nil {
			continue
		}
		if pos, err := columnByName(t, rt.Name, rt.Location); err == nil {
			out = append(out, pos)
		}
	}
	return out
}
