package exec

import (
	"slices"
	"strings"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Rules. A table or view with rewrite rules (CREATE RULE) for a
// statement's event takes the statement through them, a row at a time:
// each row the statement would insert, update or delete is handed to
// each rule's actions (NEW and OLD in the relation's columns) where the
// rule's condition holds for it. The actions are SQL the planner runs
// (Txn.FireRule), as it runs triggers' functions.
//
// PostgreSQL rewrites the statement instead, into one query per action
// over all the rows; what this keeps of its semantics:
//
//  1. Rules apply in the order of their names, each action to every
//     row before the next action.
//  2. An unconditional DO INSTEAD rule replaces the original statement:
//     it writes nothing itself. A conditional one leaves it the rows its
//     condition does not hold for.
//  3. For INSERT the original runs before the rules' actions; for
//     UPDATE and DELETE after them, reading the rows anew.
//  4. When the original is replaced, the statement's RETURNING reads the
//     rows the INSTEAD rule's action returned, and its row count is that
//     of the last INSTEAD action of the statement's kind.

// RuleCall is one row handed to a rule: Action is the index of the
// action of Rule to run for it, or -1 to ask only whether the rule's
// condition holds. With Statement, there is no row: the action is run
// once for the statement if neither it nor the condition reads NEW or
// OLD, else the result says PerRow. Cache is the planner's, kept over
// the statement's rows, for what it makes of the rule once.
type RuleCall struct {
	Rule      *sqldef.Rule
	Table     *Table
	Old, New  Row
	Action    int
	Statement bool
	Cache     map[string]any
}

// RuleResult is what a rule did with a row: whether its condition held,
// and, for an action run, the rows it returned (its RETURNING's, or a
// SELECT's), how many rows it changed and its command tag.
type RuleResult struct {
	PerRow   bool
	Holds    bool
	Rows     []Row
	Affected int64
	Tag      string
}

// FireRuleFunc runs a rule's action for one row (RuleCall).
type FireRuleFunc func(env *Env, c *RuleCall) (RuleResult, error)

// rulesOn returns the enabled rules of t for the Modify's event, in
// name order.
func (p *Modify) rulesOn(env *Env) []*sqldef.Rule {
	t := p.Table
	if p.Kind == Merge || p.NoRules || t.Def == nil || len(t.Def.Rules) == 0 || env.Txn == nil || env.Txn.FireRule == nil {
		return nil
	}
	event := [...]string{"INSERT", "UPDATE", "DELETE"}[p.Kind]
	var out []*sqldef.Rule
	for i := range t.Def.Rules {
		if r := &t.Def.Rules[i]; r.Event == event && !r.Disabled {
			out = append(out, r)
		}
	}
	return out
}

// openRules runs p through its relation's rules rs (see above).
func (p *Modify) openRules(env *Env, rs []*sqldef.Rule) (Rows, error) {
	if err := env.Txn.CheckWritable(); err != nil {
		return nil, err
	}
	t := p.Table
	event := rs[0].Event
	replaced, conditional := false, false
	var returning *sqldef.Rule
	for _, r := range rs {
		switch {
		case r.Instead && r.Where == "":
			replaced = true
			if len(r.Actions) > 0 && ruleReturns(r.Actions[len(r.Actions)-1]) {
				if returning != nil && len(p.Returning) > 0 {
					return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot have RETURNING lists in multiple rules")
				}
				returning = r
			}
		case r.Instead:
			conditional = true
		}
	}
	if len(p.Returning) > 0 && (replaced || conditional) && returning == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot perform %s RETURNING on relation %q", event, t.Def.Name).
			WithHint("You need an unconditional ON %s DO INSTEAD rule with a RETURNING clause.", event)
	}
	cache := map[string]any{}
	// The rows the rules read, the source's once.
	rows, ins, err := p.ruleRows(env)
	if err != nil {
		return nil, err
	}
	out := &modifiedRows{}
	var original Rows
	runOriginal := func() error {
		if replaced {
			return nil
		}
		q := *p
		q.NoRules = true
		if p.Kind == Insert {
			q.Source = &rowsPlan{cols: p.Source.Columns(), rows: ins}
		}
		if conditional {
			q.Source = &ruleFilter{Plan: q.Source, p: p, rules: rs, cache: cache}
		}
		var err error
		original, err = q.Open(env)
		return err
	}
	if p.Kind == Insert {
		if err := runOriginal(); err != nil {
			return nil, err
		}
	}
	for _, r := range rs {
		for a := range r.Actions {
			// An action that reads neither NEW nor OLD runs once, for
			// the statement; the others for each row.
			once, err := env.Txn.FireRule(env, &RuleCall{Rule: r, Table: t, Action: a, Cache: cache, Statement: true})
			if err != nil {
				return nil, err
			}
			each := rows
			if !once.PerRow {
				each = []ruleRow{{}}
			}
			for _, row := range each {
				res := once
				if once.PerRow {
					if res, err = env.Txn.FireRule(env, &RuleCall{Rule: r, Table: t, Old: row.old, New: row.new, Action: a, Cache: cache}); err != nil {
						return nil, err
					}
				}
				if !res.Holds || !r.Instead || !replaced {
					continue
				}
				if strings.HasPrefix(res.Tag, event) {
					out.n += res.Affected
				}
				if r != returning || a != len(r.Actions)-1 || len(p.Returning) == 0 {
					continue
				}
				for _, got := range res.Rows {
					ret := got
					if len(row.in) > len(t.Cols) {
						ret = append(slices.Clone(got), row.in[len(t.Cols):]...) // RETURNING may read the FROM items
					}
					rr := make(Row, len(p.Returning))
					for i, e := range p.Returning {
						if rr[i], err = e.Eval(env, ret); err != nil {
							return nil, err
						}
					}
					out.rows = append(out.rows, rr)
				}
			}
		}
	}
	if p.Kind != Insert {
		if err := runOriginal(); err != nil {
			return nil, err
		}
	}
	if original != nil {
		return original, nil
	}
	return out, nil
}

// ruleReturns reports whether a rule action, as stored, has a RETURNING
// clause.
func ruleReturns(action string) bool {
	return strings.Contains(strings.ToUpper(action), "RETURNING")
}

// ruleRow is a row the statement would change, as its rules read it.
type ruleRow struct {
	in       Row // the source row
	old, new Row
}

// ruleRows reads p's source to the end: the rows it would change, and
// the source rows themselves (for an INSERT, to insert them without
// reading the source again).
func (p *Modify) ruleRows(env *Env) ([]ruleRow, []Row, error) {
	src, err := p.Source.Open(env)
	if err != nil {
		return nil, nil, err
	}
	defer src.Close()
	var out []ruleRow
	var ins []Row
	for {
		in, err := src.Next()
		if err != nil {
			return nil, nil, err
		}
		if in == nil {
			break
		}
		in = slices.Clone(in)
		ins = append(ins, in)
		r := ruleRow{in: in}
		if r.old, r.new, err = p.oldNew(env, in); err != nil {
			return nil, nil, err
		}
		out = append(out, r)
	}
	return out, ins, src.Close()
}

// oldNew computes OLD and NEW of source row in, in the relation's
// columns: for INSERT the values given and the defaults elsewhere, for
// UPDATE the row with its assignments made.
func (p *Modify) oldNew(env *Env, in Row) (old, row Row, err error) {
	n := len(p.Table.Cols)
	switch p.Kind {
	case Insert:
		row, err = p.insteadNewRow(env, in)
	case Update:
		old = in[:n]
		row = slices.Clone(old)
		for pos, e := range p.Sets {
			if e != nil && pos < n {
				if row[pos], err = e.Eval(env, in); err != nil {
					return nil, nil, err
				}
			}
		}
	case Delete:
		old = in[:n]
	}
	if err == nil && row != nil && p.Generated != nil {
		// NEW shows the stored generated columns as they will be, as in
		// PostgreSQL's rewriter.
		err = p.Generated.compute(env, row)
	}
	return old, row, err
}

// ruleFilter is the source of the original statement under conditional
// INSTEAD rules: the rows none of their conditions holds for.
type ruleFilter struct {
	Plan
	p     *Modify
	rules []*sqldef.Rule
	cache map[string]any
}

func (f *ruleFilter) Open(env *Env) (Rows, error) {
	rows, err := f.Plan.Open(env)
	if err != nil {
		return nil, err
	}
	return &ruleFilterRows{Rows: rows, f: f, env: env}, nil
}

type ruleFilterRows struct {
	Rows
	f   *ruleFilter
	env *Env
}

// Key is the key of the row Next returned last, when the source has
// keys (UPDATE, DELETE).
func (r *ruleFilterRows) Key() []byte { return r.Rows.(keyedRows).Key() }

func (r *ruleFilterRows) Next() (Row, error) {
	for {
		in, err := r.Rows.Next()
		if err != nil || in == nil {
			return in, err
		}
		old, row, err := r.f.p.oldNew(r.env, in)
		if err != nil {
			return nil, err
		}
		skip := false
		for _, rule := range r.f.rules {
			if !rule.Instead || rule.Where == "" {
				continue
			}
			res, err := r.env.Txn.FireRule(r.env, &RuleCall{Rule: rule, Table: r.f.p.Table, Old: old, New: row, Action: -1, Cache: r.f.cache})
			if err != nil {
				return nil, err
			}
			if res.Holds {
				skip = true
				break
			}
		}
		if !skip {
			return in, nil
		}
	}
}

// rowsPlan is rows read before, as a plan.
type rowsPlan struct {
	cols []ResultColumn
	rows []Row
}

func (p *rowsPlan) Columns() []ResultColumn { return p.cols }

func (p *rowsPlan) Open(*Env) (Rows, error) {
	return &bufferedRows{rows: p.rows}, nil
}
