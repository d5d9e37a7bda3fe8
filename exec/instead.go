package exec

import (
	"slices"

	"github.com/prollypg/prollypg/versioning/sqldef"
)

// INSTEAD OF triggers. A view with an INSTEAD OF row trigger for a
// statement's event takes the statement through its triggers: each row
// the statement would insert, update or delete is handed to them (NEW
// and OLD in the view's columns), nothing is written by the statement
// itself, and the row counts (and RETURNING reads it) when the triggers
// return it, as PostgreSQL's ExecIR*Triggers. The view's statement
// triggers fire around the rows.

// insteadTriggers returns the enabled INSTEAD OF row triggers of view
// t for event, ordered by name.
func insteadTriggers(t *Table, event string) []*sqldef.Trigger {
	if t.Def == nil || t.VirtualKind != 'v' {
		return nil
	}
	return triggers(false, t.Def.Triggers, event, 'i', true, nil, nil)
}

// openInstead runs an INSERT, UPDATE or DELETE of a view through its
// INSTEAD OF triggers trs.
func (p *Modify) openInstead(env *Env, event string, trs []*sqldef.Trigger) (Rows, error) {
	if err := env.Txn.CheckWritable(); err != nil {
		return nil, err
	}
	t := p.Table
	ts := &triggerState{env: env, t: t, defs: t.Def.Triggers, events: []string{event}, event: event}
	if err := ts.statement(TriggerBefore); err != nil {
		return nil, err
	}
	src, err := p.Source.Open(env)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	// The source is read to the end first: the triggers' writes may
	// change what it reads.
	var ins []Row
	for {
		in, err := src.Next()
		if err != nil {
			return nil, err
		}
		if in == nil {
			break
		}
		ins = append(ins, slices.Clone(in))
	}
	n := len(t.Cols)
	out := &modifiedRows{}
	for _, in := range ins {
		var old, row Row
		switch p.Kind {
		case Insert:
			if row, err = p.insteadNewRow(env, in); err != nil {
				return nil, err
			}
		case Update:
			old = in[:n]
			row = slices.Clone(old)
			for pos, e := range p.Sets {
				if e != nil {
					if row[pos], err = e.Eval(env, in); err != nil {
						return nil, err
					}
				}
			}
		case Delete:
			old = in[:n]
		}
		skipped := false
		for _, tr := range trs {
			got, err := env.Txn.FireTrigger(env, &TriggerCall{Trigger: tr, Table: t, Event: event, Old: old, New: row})
			if err != nil {
				return nil, err
			}
			if got == nil {
				skipped = true
				break
			}
			if p.Kind != Delete {
				row = got
			}
		}
		if skipped {
			continue
		}
		if p.Kind != Delete {
			if err := checkViewChecks(env, t, p.ViewChecks, row); err != nil {
				return nil, err
			}
		}
		out.n++
		if len(p.Returning) == 0 {
			continue
		}
		ret := row
		if p.Kind == Delete {
			ret = old
		}
		if p.Kind != Insert && len(in) > n {
			ret = append(slices.Clone(ret[:n]), in[n:]...) // RETURNING may read the FROM items
		}
		r := make(Row, len(p.Returning))
		for i, e := range p.Returning {
			if r[i], err = e.Eval(env, ret); err != nil {
				return nil, err
			}
		}
		out.rows = append(out.rows, r)
	}
	if err := ts.statement(TriggerAfter); err != nil {
		return nil, err
	}
	return out, nil
}

// insteadNewRow is the view row an INSERT's source row in proposes: the
// values given, the view's defaults elsewhere.
func (p *Modify) insteadNewRow(env *Env, in Row) (Row, error) {
	row := make(Row, len(p.Table.Cols))
	for i := range row {
		row[i] = Null
		if i < len(p.Defaults) && p.Defaults[i] != nil {
			d, err := p.Defaults[i].Eval(env, nil)
			if err != nil {
				return nil, err
			}
			row[i] = d
		}
	}
	for i, pos := range p.Targets {
		row[pos] = in[i]
	}
	return row, nil
}
