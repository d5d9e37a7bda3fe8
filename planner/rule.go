package planner

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner/plpgsql"
)

// Rules: the running of a rewrite rule's condition and actions for a
// row, when exec.Modify hands it one (Txn.FireRule, set when the
// transaction begins; exec/rule.go says when). CREATE RULE and the rest
// are package ddl's.

// fireRule runs rule c.Rule for one row: its condition, then, where it
// holds, action c.Action, each a statement whose NEW and OLD are the
// row's, resolved as a trigger function's are (triggerRows). What it
// prepares is kept in c.Cache for the statement's next rows.
func fireRule(s Session, env *exec.Env, c *exec.RuleCall) (exec.RuleResult, error) {
	r := c.Rule
	td := ruleData(c.Table)
	td.New, td.Old = c.New, c.Old
	vars := &triggerRows{td: td}
	run := func(key, sql string) (*plpgsql.Result, error) {
		p, ok := c.Cache[key].(plpgsql.Prepared)
		if !ok {
			var err error
			if p, err = (&host{s: s, env: env}).Prepare(sql, nil, nil); err != nil {
				return nil, err
			}
			c.Cache[key] = p
		}
		return p.Run(env, nil, vars)
	}
	prefix := r.Name + "\x00"
	if c.Statement {
		key := prefix + "rows" + strconv.Itoa(c.Action)
		perRow, ok := c.Cache[key].(bool)
		if !ok {
			perRow = readsRows(r.Where) || readsRows(r.Actions[c.Action])
			c.Cache[key] = perRow
		}
		if perRow {
			return exec.RuleResult{PerRow: true}, nil
		}
	}
	if r.Where != "" {
		res, err := run(prefix+"where", "SELECT "+r.Where)
		if err != nil {
			return exec.RuleResult{}, err
		}
		if len(res.Rows) != 1 || res.Rows[0][0].IsNull() || res.Rows[0][0].I == 0 {
			return exec.RuleResult{}, nil
		}
	}
	if c.Action < 0 {
		return exec.RuleResult{Holds: true}, nil
	}
	res, err := run(prefix+strconv.Itoa(c.Action), r.Actions[c.Action])
	if err != nil {
		return exec.RuleResult{}, err
	}
	return exec.RuleResult{Holds: true, Rows: res.Rows, Affected: res.Affected, Tag: res.Tag}, nil
}

// ruleData returns NEW and OLD of table t as a rule's statements read
// them: its columns, with no values (for analysis).
func ruleData(t *exec.Table) *plpgsql.TriggerData {
	td := &plpgsql.TriggerData{RelID: t.OID}
	for _, col := range t.Cols {
		name := col.Name
		if col.Dropped {
			name = ""
		}
		td.Cols = append(td.Cols, exec.ResultColumn{Name: name, T: col.Type})
	}
	return td
}

// RuleAction analyzes action n of a new rule of t, NEW and OLD standing
// for t's rows, as CREATE RULE checks it: the columns it returns (its
// RETURNING list's, a SELECT's), nil for a command that returns none.
func (x *Analyzer) RuleAction(t *exec.Table, n *pg.Node) ([]exec.ResultColumn, error) {
	a := &analyzer{ctx: x.a.ctx, s: x.a.s, tx: x.a.tx}
	a.vars = &varScope{vars: &triggerRows{td: ruleData(t)}, index: map[int]int{}}
	an, err := analyzeWith(a, n)
	if err != nil {
		return nil, err
	}
	return an.Cols, nil
}

// readsRows reports whether a rule's condition or action, as stored,
// reads NEW or OLD: one that does not runs once for a statement, as
// PostgreSQL's rewriter leaves the statement's rows out of it.
func readsRows(sql string) bool {
	if sql == "" {
		return false
	}
	tree, err := pg.Parse("SELECT " + sql)
	if err != nil {
		if tree, err = pg.Parse(sql); err != nil {
			return true
		}
	}
	found := false
	for _, st := range tree.Stmts {
		VisitNodes(st.Stmt, func(x *pg.Node) {
			if cr := x.GetColumnRef(); cr != nil && len(cr.Fields) > 1 {
				if q := cr.Fields[0].GetString_().GetSval(); q == "new" || q == "old" {
					found = true
				}
			}
		})
	}
	return found
}

// rulesInWith refuses an INSERT, UPDATE or DELETE in WITH on a relation
// whose rules for it would make it other than one statement, with
// PostgreSQL's errors: only an unconditional DO INSTEAD rule of one
// action (not NOTIFY) may apply.
func rulesInWith(m *exec.Modify) error {
	if m.Table.Def == nil || m.Kind == exec.Merge {
		return nil
	}
	event := [...]string{"INSERT", "UPDATE", "DELETE"}[m.Kind]
	instead, actions := false, 0
	notify := false
	for _, r := range m.Table.Def.Rules {
		if r.Event != event || r.Disabled {
			continue
		}
		switch {
		case r.Instead && r.Where != "":
			return pgerr.New(pgerr.FeatureNotSupported, "conditional DO INSTEAD rules are not supported for data-modifying statements in WITH")
		case !r.Instead && len(r.Actions) > 0:
			return pgerr.New(pgerr.FeatureNotSupported, "DO ALSO rules are not supported for data-modifying statements in WITH")
		case r.Instead:
			instead = true
			actions += len(r.Actions)
			for _, a := range r.Actions {
				notify = notify || strings.HasPrefix(strings.ToUpper(a), "NOTIFY")
			}
		}
	}
	switch {
	case !instead:
		return nil
	case actions == 0:
		return pgerr.New(pgerr.FeatureNotSupported, "DO INSTEAD NOTHING rules are not supported for data-modifying statements in WITH")
	case actions > 1:
		return pgerr.New(pgerr.FeatureNotSupported, "multi-statement DO INSTEAD rules are not supported for data-modifying statements in WITH")
	case notify:
		return pgerr.New(pgerr.FeatureNotSupported, "DO INSTEAD NOTIFY rules are not supported for data-modifying statements in WITH")
	}
	return nil
}
