package exec

import (
	"slices"
	"strings"

	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Triggers. A table's triggers are part of its definition
// (sqldef.Trigger); Modify fires them around its rows: BEFORE ROW
// triggers as each row is made, before its constraints are checked (they
// may change the row, or skip it by returning NULL); AFTER ROW triggers
// once the statement's rows are written, in the order the rows came;
// statement triggers before and after everything. Running a trigger's
// function is the planner's (Txn.FireTrigger): exec knows only when.
//
// A trigger may write the table its statement is writing. AFTER triggers
// run once the statement's writes are flushed, and the writer is made
// after the BEFORE statement triggers; a BEFORE ROW trigger's writes land
// while the statement's are pending, and TableWriter.Flush applies those
// on top of them (rebase), failing with 27000 where both changed one row.

// TriggerCall is one firing of a trigger.
type TriggerCall struct {
	Trigger *sqldef.Trigger
	Table   *Table
	Event   string // "INSERT", "UPDATE", "DELETE"
	// New and Old are the row's new and old values; nil where the event
	// has none, and for statement triggers.
	New, Old Row
	// OldTable and NewTable are the statement's old and new rows, for a
	// trigger with transition tables (sqldef.Trigger.OldTable).
	OldTable, NewTable []Row
}

// Timing says when a trigger fires: TriggerBefore or TriggerAfter.
const (
	TriggerBefore = 'b'
	TriggerAfter  = 'a'
)

// FireTriggerFunc runs a trigger's function. For a BEFORE ROW trigger it
// returns the row the function returned (nil: skip the row); otherwise
// the result is ignored. A trigger whose WHEN condition fails returns
// the row unchanged without running.
type FireTriggerFunc func(env *Env, c *TriggerCall) (Row, error)

// triggers returns the enabled triggers of defs (t's, see
// tableTriggers) of timing and level that fire on event, ordered by name;
// sets, for UPDATE, tells the columns the statement assigns, by position
// in setsOf (UPDATE OF fires only when one of its is).
func triggers(replica bool, defs []sqldef.Trigger, event string, timing byte, row bool, sets []Expr, setsOf *Table) []*sqldef.Trigger {
	var out []*sqldef.Trigger
	for i := range defs {
		tr := &defs[i]
		if tr.Disabled || tr.Timing != timing || tr.ForEachRow != row || !tr.FiresOn(event) {
			continue
		}
		if replica && tr.Fires == 0 || !replica && tr.Fires == 'R' {
			continue // session_replication_role decides
		}
		if event == "UPDATE" && len(tr.Columns) > 0 && sets != nil && !setsAny(setsOf, sets, tr.Columns) {
			continue
		}
		out = append(out, tr)
	}
	return out
}

// replicaMode reports whether the session is in replica mode
// (session_replication_role), where only triggers enabled REPLICA or
// ALWAYS fire.
func replicaMode(env *Env) bool { return env != nil && env.Settings != nil && env.Settings.Replica }

func setsAny(t *Table, sets []Expr, cols []string) bool {
	for pos, e := range sets {
		if e == nil {
			continue
		}
		for _, c := range cols {
			if t.Cols[pos].Name == c {
				return true
			}
		}
	}
	return false
}

// tableTriggers returns the triggers that fire for t: its own and, for
// a partition, the ROW triggers of the partitioned tables above it,
// which PostgreSQL clones onto their partitions. They are ordered by
// name, as PostgreSQL fires them.
func tableTriggers(env *Env, t *Table) ([]sqldef.Trigger, error) {
	defs := t.Def.Triggers
	for cur := t; cur.Def.IsPartition(); {
		parent, err := partitionParent(env.Ctx, env.Txn, cur)
		if err != nil || parent == nil {
			return defs, err
		}
		for _, tr := range parent.Def.Triggers {
			if tr.ForEachRow {
				defs = append(slices.Clip(defs), tr)
			}
		}
		cur = parent
	}
	if len(defs) > len(t.Def.Triggers) {
		slices.SortStableFunc(defs, func(x, y sqldef.Trigger) int { return strings.Compare(x.Name, y.Name) })
	}
	return defs, nil
}

// triggerState is one statement's triggers of one table.
type triggerState struct {
	env  *Env
	t    *Table
	defs []sqldef.Trigger // t's triggers (tableTriggers)
	// events are the statement's: one of INSERT, UPDATE and DELETE, or
	// those of a MERGE's actions, in that order (PostgreSQL fires the
	// BEFORE statement triggers of a MERGE in that order, the AFTER ones
	// in the reverse); none for a member of a family, whose statement
	// triggers are its statement table's. event is the first of them,
	// whose ROW triggers before and after hold.
	events []string
	event  string
	// sets are the columns an UPDATE assigns, by position in setsOf.
	sets   []Expr
	setsOf *Table
	gen    GeneratedCols // the table's generated columns
	// before and after are the ROW triggers of event; queue the AFTER
	// ROW firings waiting for the statement's rows to be written: queued,
	// or, for a member of a family, its statement table's, so that they
	// fire in the order of the rows.
	before, after []*sqldef.Trigger
	queued        []TriggerCall
	queue         *[]TriggerCall
	// transitions is set when a trigger of the table has transition
	// tables: the statement's old and new rows are kept for them, by
	// event, since an INSERT ... ON CONFLICT or a MERGE gives its
	// INSERT, UPDATE and DELETE triggers the rows of their own event.
	transitions bool
	captured    [3]transitionRows
}

// transitionRows are the old and new rows a statement wrote by one event.
type transitionRows struct{ old, new []Row }

// eventIndex is event's index in triggerState.captured.
func eventIndex(event string) int {
	switch event {
	case "INSERT":
		return 0
	case "UPDATE":
		return 1
	}
	return 2
}

// newTriggerState returns the trigger state of a statement on t, nil
// when t has no triggers or nothing runs them; gen computes t's
// generated columns.
func newTriggerState(env *Env, t *Table, events []string, sets []Expr, gen GeneratedCols) (*triggerState, error) {
	ts, err := newRowTriggers(env, t, sets, t, nil, gen)
	if ts == nil || err != nil {
		return nil, err
	}
	ts.events = events
	if len(events) > 0 {
		// The first event's ROW triggers, looked up once: the rows of
		// an INSERT ... ON CONFLICT DO UPDATE are mostly inserted.
		ts.event = events[0]
		ts.before = triggers(replicaMode(ts.env), ts.defs, ts.event, TriggerBefore, true, sets, t)
		ts.after = triggers(replicaMode(ts.env), ts.defs, ts.event, TriggerAfter, true, sets, t)
	}
	return ts, nil
}

// newRowTriggers returns the state of the ROW triggers of t, a member of
// a family a statement writes (queue is the statement's AFTER ROW
// queue, nil for t's own), nil when none can fire.
func newRowTriggers(env *Env, t *Table, sets []Expr, setsOf *Table, queue *[]TriggerCall, gen GeneratedCols) (*triggerState, error) {
	if env.Txn == nil || env.Txn.FireTrigger == nil || len(t.Def.Triggers) == 0 && !t.Def.IsPartition() {
		return nil, nil
	}
	defs, err := tableTriggers(env, t)
	if err != nil || len(defs) == 0 {
		return nil, err
	}
	ts := &triggerState{env: env, t: t, defs: defs, sets: sets, setsOf: setsOf, queue: queue, gen: gen}
	for i := range defs {
		ts.transitions = ts.transitions || defs[i].OldTable != "" || defs[i].NewTable != ""
	}
	if ts.queue == nil {
		ts.queue = &ts.queued
	}
	return ts, nil
}

// statement fires the statement triggers of timing.
func (ts *triggerState) statement(timing byte) error {
	if ts == nil {
		return nil
	}
	for i := range ts.events {
		event := ts.events[i]
		if timing == TriggerAfter {
			event = ts.events[len(ts.events)-1-i]
		}
		for _, tr := range triggers(replicaMode(ts.env), ts.defs, event, timing, false, ts.sets, ts.setsOf) {
			c := &TriggerCall{Trigger: tr, Table: ts.t, Event: event}
			if timing == TriggerAfter {
				ts.withTransitions(c)
			}
			if _, err := ts.env.Txn.FireTrigger(ts.env, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// beforeRow fires the BEFORE ROW triggers of event on a row: it returns
// the row to write, nil to skip it.
func (ts *triggerState) beforeRow(event string, old, row Row) (Row, error) {
	if ts == nil {
		return row, nil
	}
	list := ts.before
	if event != ts.event {
		list = triggers(replicaMode(ts.env), ts.defs, event, TriggerBefore, true, ts.sets, ts.setsOf)
	}
	for _, tr := range list {
		c := &TriggerCall{Trigger: tr, Table: ts.t, Event: event, Old: old, New: row}
		out, err := ts.env.Txn.FireTrigger(ts.env, c)
		if err != nil || out == nil {
			return nil, err
		}
		if event != "DELETE" {
			row = out
		}
		if event == "UPDATE" && ts.gen != nil {
			// What the trigger wrote into generated columns is lost; in
			// an UPDATE the next trigger sees them NULL again, as in
			// PostgreSQL 15 (an INSERT's sees what the last one wrote).
			// A copy: out may be the OLD row, returned.
			row = slices.Clone(out)
			ts.gen.clear(row)
		}
	}
	if event == "DELETE" {
		return old, nil
	}
	return row, nil
}

// afterRow queues the AFTER ROW triggers of event on a written row.
func (ts *triggerState) afterRow(event string, old, row Row) {
	if ts == nil {
		return
	}
	ts.capture(event, old, row)
	list := ts.after
	if event != ts.event {
		list = triggers(replicaMode(ts.env), ts.defs, event, TriggerAfter, true, ts.sets, ts.setsOf)
	}
	for _, tr := range list {
		c := TriggerCall{Trigger: tr, Table: ts.t, Event: event, Old: old, New: row}
		if tr.Constraint && tr.Deferrable && ts.env.Txn.modes.deferred(tr.Name, tr.InitiallyDeferred) {
			ts.env.Txn.deferTrigger(ts.env, c) // deferred.go
			continue
		}
		*ts.queue = append(*ts.queue, c)
	}
}

// capture keeps a written row of event for the transition tables, when
// the table's triggers have any. old and row are kept, not copied.
func (ts *triggerState) capture(event string, old, row Row) {
	if ts == nil || !ts.transitions {
		return
	}
	c := &ts.captured[eventIndex(event)]
	if old != nil {
		c.old = append(c.old, old)
	}
	if row != nil && event != "DELETE" {
		c.new = append(c.new, row)
	}
}

// withTransitions gives c the statement's transition tables of its
// event, if its trigger has any: they hold every row, so they are given
// as the AFTER triggers fire, once the statement has written them all.
func (ts *triggerState) withTransitions(c *TriggerCall) *TriggerCall {
	rows := &ts.captured[eventIndex(c.Event)]
	if c.Trigger.OldTable != "" {
		c.OldTable = rows.old
	}
	if c.Trigger.NewTable != "" {
		c.NewTable = rows.new
	}
	return c
}

// flushAfter fires the queued AFTER ROW triggers, then the AFTER
// statement ones.
func (ts *triggerState) flushAfter() error {
	if ts == nil {
		return nil
	}
	for i := range ts.queued {
		if _, err := ts.env.Txn.FireTrigger(ts.env, ts.withTransitions(&ts.queued[i])); err != nil {
			return err
		}
	}
	ts.queued = nil
	return ts.statement(TriggerAfter)
}
