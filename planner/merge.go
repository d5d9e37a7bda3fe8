package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// merge plans MERGE as PostgreSQL 15 does (parse_merge.c): the source
// joined to the target table under the ON condition, an outer join
// keeping every source row when a WHEN NOT MATCHED clause inserts, and
// the WHEN clauses as actions over the joined rows, which exec.Modify
// runs through the writers of INSERT, UPDATE and DELETE (exec/merge.go).
//
// The joined row is the target's columns, the target row's key
// (exec.RowKeys: NULL when the source row matched none), then the
// source's columns. WHEN MATCHED clauses see the target and the source;
// WHEN NOT MATCHED clauses the source only.
func (a *analyzer) merge(s *pg.MergeStmt) (exec.Plan, error) {
	if s.WithClause != nil && s.WithClause.Recursive {
		return nil, pgerr.New(pgerr.SyntaxError, "WITH RECURSIVE is not supported for MERGE statement")
	}
	ctes, pop, err := a.withCTEs(s.WithClause, nil)
	if err != nil {
		return nil, err
	}
	defer pop()
	outer := false // a WHEN NOT MATCHED clause inserts: keep unmatched source rows
	var terminal [2]bool
	for _, n := range s.MergeWhenClauses {
		w := n.GetMergeWhenClause()
		kind := 0
		if !w.Matched {
			kind = 1
		}
		if terminal[kind] {
			return nil, pgerr.New(pgerr.SyntaxError, "unreachable WHEN clause specified after unconditional WHEN clause")
		}
		terminal[kind] = w.Condition == nil
		outer = outer || w.CommandType == pg.CmdType_CMD_INSERT
	}
	t, err := a.table(s.Relation)
	if err != nil {
		return nil, err
	}
	if t.Virtual != nil {
		e := pgerr.New(pgerr.FeatureNotSupported, "cannot execute MERGE on relation %q", t.Def.Name)
		switch t.VirtualKind {
		case 'v':
			e = e.WithDetail("This operation is not supported for views.")
		case 'S':
			e = e.WithDetail("This operation is not supported for sequences.")
		}
		return nil, e
	}
	if t.Def != nil && t.Def.MatView != nil {
		return nil, pgerr.New(pgerr.WrongObjectType, "cannot execute MERGE on relation %q", t.Def.Name).
			WithDetail("This operation is not supported for materialized views.")
	}
	if err := checkWritableTable(t); err != nil {
		return nil, err
	}
	if err := a.mergePrivileges(t, s); err != nil {
		return nil, err
	}
	alias := aliasOf(s.Relation)

	// The source, which cannot name the target.
	corr := &correlation{}
	a.hidden = append(a.hidden, alias)
	items, err := a.fromClause([]*pg.Node{s.SourceRelation}, corr)
	a.hidden = a.hidden[:len(a.hidden)-1]
	if err != nil {
		return nil, err
	}
	var ns []*nsItem
	width := 0
	for _, it := range items {
		ns = append(ns, shifted(it.items, width)...)
		width += it.width
	}
	for _, x := range ns {
		if x.relVisible && x.name == alias {
			return nil, pgerr.New(pgerr.DuplicateAlias, "name %q specified more than once", alias).
				WithDetail("The name is used both as MERGE target table and data source.")
		}
	}
	keyAt := len(t.Cols)
	target := tableItem(t, alias)
	source := shifted(ns, keyAt+1)
	sc := &scope{items: append([]*nsItem{target}, source...), corr: corr}
	on, err := a.condition(s.JoinCondition, sc, "JOIN conditions", "argument of JOIN/ON")
	if err != nil {
		return nil, err
	}

	// The join. Conditions on the target alone filter its scan; those on
	// the source alone filter the source when the join is inner (an
	// outer join keeps a source row that fails them, unmatched); the
	// rest are the join's, equalities becoming hash keys.
	kind := exec.InnerJoin
	if outer {
		kind = exec.RightJoin
	}
	sourceSet := owned(source)
	var own, theirs, both []*pg.Node
	for _, n := range conjuncts(s.JoinCondition) {
		var onT, onS bool
		sc.track = func(it *nsItem) {
			onS = onS || sourceSet[it]
			onT = onT || it == target
		}
		_, err := a.condition(n, sc, "JOIN conditions", "argument of JOIN/ON")
		sc.track = nil
		if err != nil {
			return nil, err
		}
		switch {
		case onT && !onS:
			own = append(own, n)
		case onS && !onT && !outer:
			theirs = append(theirs, n)
		default:
			both = append(both, n)
		}
	}
	cols := make([]exec.ResultColumn, len(t.Cols))
	for i, c := range t.Cols {
		cols[i] = exec.ResultColumn{Name: c.Name, T: c.Type}
	}
	scan, err := a.relationScan(t, s.Relation.Inh, cols)
	if err != nil {
		return nil, err
	}
	// Row-level security: the target rows the role may not see are not
	// matched (rls.go).
	quals, err := a.securityQuals(t, policySelect)
	if err != nil {
		return nil, err
	}
	if quals != nil {
		scan = &exec.Filter{In: scan, Pred: and(quals)}
	}
	if len(own) > 0 {
		tsc := &scope{items: []*nsItem{target}, corr: corr}
		var preds []exec.Expr
		for _, n := range own {
			e, err := a.condition(n, tsc, "JOIN conditions", "argument of JOIN/ON")
			if err != nil {
				return nil, err
			}
			preds = append(preds, e)
		}
		switch in := scan.(type) {
		case *exec.Append:
			scan = a.appendWhere(in, and(preds))
		case *exec.Scan:
			scan = a.scanWhere(in, and(preds))
		default:
			scan = &exec.Filter{In: scan, Pred: and(preds)}
		}
	}
	units, onConds := flatten(items)
	other, _, _, err := a.planSet(units, theirs, onConds, corr, nil)
	if err != nil {
		return nil, err
	}
	right := &joinUnit{item: &fromItem{width: width, items: ns}, plan: other}
	joined, err := a.joinStep(&exec.RowKeys{In: scan}, false, right, kind, both, sc, sourceSet, nil)
	if err != nil {
		return nil, err
	}

	// The WHEN clauses.
	m := &exec.MergeClause{KeyAt: keyAt, On: on}
	unmatched := &scope{items: source, corr: corr}
	var defaults []exec.Expr
	if outer {
		if defaults, err = a.defaults(t); err != nil {
			return nil, err
		}
	}
	for _, n := range s.MergeWhenClauses {
		w := n.GetMergeWhenClause()
		wsc := sc
		if !w.Matched {
			wsc = unmatched
			a.hidden = append(a.hidden, alias)
		}
		act, err := a.mergeAction(t, alias, w, wsc, defaults)
		if !w.Matched {
			a.hidden = a.hidden[:len(a.hidden)-1]
		}
		if err != nil {
			return nil, err
		}
		if w.Matched {
			m.Matched = append(m.Matched, act)
		} else {
			m.NotMatched = append(m.NotMatched, act)
		}
	}
	checks, err := a.checks(t)
	if err != nil {
		return nil, err
	}
	mod := &exec.Modify{Kind: exec.Merge, Table: t, Source: joined, Defaults: defaults, Checks: checks, Merge: m}
	if err := a.modifyFamily(mod, s.Relation.Inh); err != nil {
		return nil, err
	}
	return withDML(ctes, mod), nil
}

// mergeAction analyzes one WHEN clause of a MERGE into t (named alias)
// over sc; defaults are t's column defaults, for INSERT.
func (a *analyzer) mergeAction(t *exec.Table, alias string, w *pg.MergeWhenClause, sc *scope, defaults []exec.Expr) (exec.MergeAction, error) {
	var act exec.MergeAction
	var err error
	if w.Condition != nil {
		if act.Cond, err = a.condition(w.Condition, sc, "MERGE WHEN conditions", "argument of WHEN"); err != nil {
			return act, err
		}
	}
	switch w.CommandType {
	case pg.CmdType_CMD_UPDATE:
		act.Kind = exec.MergeUpdate
		act.Sets, err = a.setClause(t, alias, w.TargetList, sc)
	case pg.CmdType_CMD_DELETE:
		act.Kind = exec.MergeDelete
	case pg.CmdType_CMD_INSERT:
		act.Kind = exec.MergeInsert
		if len(w.Values) == 0 {
			return act, nil // DEFAULT VALUES: every column its default
		}
		var targets []int
		if len(w.TargetList) == 0 {
			for _, c := range t.Cols {
				if !c.Dropped {
					targets = append(targets, c.Pos)
				}
			}
		}
		for _, n := range w.TargetList {
			rt := n.GetResTarget()
			pos, err := columnByName(t, rt.Name, rt.Location)
			if err != nil {
				return act, err
			}
			targets = append(targets, pos)
		}
		list := &pg.Node{Node: &pg.Node_List{List: &pg.List{Items: w.Values}}}
		var v *exec.Values
		if v, act.Targets, err = a.insertValues(t, []*pg.Node{list}, targets, w.TargetList, w.Override, defaults, sc); err != nil {
			return act, err
		}
		act.Values = v.Rows[0]
	case pg.CmdType_CMD_NOTHING:
		act.Kind = exec.MergeDoNothing
	default:
		err = pgerr.New(pgerr.InternalError, "unknown action in MERGE WHEN clause")
	}
	if err == nil {
		err = a.mergeActionPolicies(t, &act)
	}
	return act, err
}

// mergePrivileges checks the privileges a MERGE into t needs, as
// PostgreSQL: UPDATE on the columns its UPDATE actions set, DELETE for a
// DELETE action, INSERT on the columns its INSERT actions give, and
// SELECT on the target's columns it reads (colpriv.go).
func (a *analyzer) mergePrivileges(t *exec.Table, s *pg.MergeStmt) error {
	for _, n := range s.MergeWhenClauses {
		w := n.GetMergeWhenClause()
		var err error
		switch w.CommandType {
		case pg.CmdType_CMD_UPDATE:
			err = a.requireColumns(t, "w", setColumns(t, w.TargetList))
		case pg.CmdType_CMD_DELETE:
			err = a.requireTable(t, "d")
		case pg.CmdType_CMD_INSERT:
			cols := setColumns(t, w.TargetList)
			if len(w.TargetList) == 0 {
				for _, c := range t.Cols {
					if !c.Dropped {
						cols = append(cols, c.Pos)
					}
				}
			}
			err = a.requireColumns(t, "a", cols)
		}
		if err != nil {
			return err
		}
	}
	return a.requireRead(t)
}

// mergeActionPolicies sets the row-level security checks of a MERGE's
// WHEN clause on t, as PostgreSQL's: an UPDATE's or DELETE's target row
// must pass the USING expressions of the command's policies, the row an
// UPDATE makes their WITH CHECK ones and the SELECT policies', the row
// an INSERT makes the INSERT policies'.
func (a *analyzer) mergeActionPolicies(t *exec.Table, act *exec.MergeAction) error {
	var err error
	switch act.Kind {
	case exec.MergeUpdate:
		if act.Existing, err = a.policyChecks(t, policyUpdate, true, false); err == nil {
			act.Policies, err = a.newRowChecks(t, policyUpdate, true)
		}
	case exec.MergeDelete:
		act.Existing, err = a.policyChecks(t, policyDelete, true, false)
	case exec.MergeInsert:
		act.Policies, err = a.policyChecks(t, policyInsert, false, false)
	}
	for i := range act.Existing {
		act.Existing[i].Target = true
	}
	return err
}
