package planner

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
)

// joinedTarget plans the rows an UPDATE ... FROM or DELETE ... USING
// touches: the target table's rows (left, so that exec.Modify can read
// their keys) joined with the other FROM items under the WHERE clause.
// Conditions on the target alone filter its scan, those on the other
// items filter them, equalities between the two become hash join keys
// (the other items being built, once). It returns the plan and the scope
// of its rows: the target's columns, then the other items'.
func (a *analyzer) joinedTarget(t *exec.Table, inh bool, alias string, from []*pg.Node, where *pg.Node, quals []exec.Expr) (exec.Plan, *scope, error) {
	corr := &correlation{}
	target := tableItem(t, alias)
	items, err := a.fromClause(from, corr)
	if err != nil {
		return nil, nil, err
	}
	var ns []*nsItem
	off := 0
	for _, it := range items {
		ns = append(ns, shifted(it.items, off)...)
		off += it.width
	}
	if err := checkDuplicates([]*nsItem{target}, ns); err != nil {
		return nil, nil, err
	}
	lw := len(t.Cols)
	others := shifted(ns, lw)
	sc := &scope{items: append([]*nsItem{target}, others...), corr: corr}
	otherSet := owned(others)
	var own, theirs, both []*pg.Node
	for _, n := range conjuncts(where) {
		var onT, onO bool
		sc.track = func(it *nsItem) {
			onO = onO || otherSet[it]
			onT = onT || it == target
		}
		_, err := a.condition(n, sc, "WHERE", "argument of WHERE")
		sc.track = nil
		if err != nil {
			return nil, nil, err
		}
		switch {
		case onT && !onO:
			own = append(own, n)
		case onO && !onT:
			theirs = append(theirs, n)
		default:
			both = append(both, n)
		}
	}
	cols := make([]exec.ResultColumn, lw)
	for i, c := range t.Cols {
		cols[i] = exec.ResultColumn{Name: c.Name, T: c.Type}
	}
	scan, err := a.relationScan(t, inh, cols)
	if err != nil {
		return nil, nil, err
	}
	scan = a.rlsFilter(scan, quals) // row-level security first (rls.go)
	if len(own) > 0 {
		tsc := &scope{items: []*nsItem{target}, corr: corr}
		var preds []exec.Expr
		for _, n := range own {
			e, err := a.condition(n, tsc, "WHERE", "argument of WHERE")
			if err != nil {
				return nil, nil, err
			}
			preds = append(preds, e)
		}
		scan = &exec.Filter{In: scan, Pred: and(preds)}
	}
	units, onConds := flatten(items)
	other, _, _, err := a.planSet(units, theirs, onConds, corr, nil)
	if err != nil {
		return nil, nil, err
	}
	right := &joinUnit{item: &fromItem{width: off, items: ns}, plan: other}
	p, err := a.joinStep(scan, false, right, exec.InnerJoin, both, sc, otherSet, nil)
	if err != nil {
		return nil, nil, err
	}
	if hj, ok := p.(*exec.HashJoin); ok {
		// Build the other items, probe with the target's rows, whose keys
		// the join then reports: it reads the target as it goes, and
		// never looks rows up.
		hj.Shared = exec.SharedRight
		hj.LeftLookup, hj.RightLookup = nil, nil
	}
	return p, &scope{items: slices.Clip(sc.items), corr: corr}, nil
}
