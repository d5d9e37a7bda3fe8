package planner

import (
	"slices"
	"strconv"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Transition tables: a trigger created with REFERENCING OLD TABLE AS o
// NEW TABLE AS n reads the statement's old and new rows as relations o and
// n. While its function runs, fireTrigger pushes them on the session's
// stack (SessionState.transitions); a query of the function finds them by
// name, before tables, as PostgreSQL's ephemeral named relations, and
// reads the rows of the trigger running when it is opened.

// transitionRel is a transition table of a running trigger.
type transitionRel struct {
	cols []exec.ResultColumn // the table's columns but the dropped ones
	keep []int               // their positions in the stored rows
	rows []exec.Row
}

// newTransitionRel makes the transition table of rows, whose columns are
// cols (a dropped column's name empty).
func newTransitionRel(cols []exec.ResultColumn, rows []exec.Row) *transitionRel {
	r := &transitionRel{rows: rows}
	for i, c := range cols {
		if c.Name != "" {
			r.cols = append(r.cols, c)
			r.keep = append(r.keep, i)
		}
	}
	return r
}

// transition returns the transition table name of the running trigger.
func (st *SessionState) transition(name string) (*transitionRel, bool) {
	if len(st.transitions) == 0 {
		return nil, false
	}
	r, ok := st.transitions[len(st.transitions)-1][name]
	return r, ok
}

// transitionScan plans a read of the transition table name, nil if the
// running trigger has none of that name.
func (a *analyzer) transitionScan(name string) exec.Plan {
	st := a.s.PlannerState()
	r, ok := st.transition(name)
	if !ok {
		return nil
	}
	cols := slices.Clone(r.cols)
	srf := &exec.SRF{Cols: cols, NullArgs: true, Rows: func(env *exec.Env, _ []exec.Datum) ([]exec.Row, error) {
		r, ok := st.transition(name)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
		}
		out := make([]exec.Row, len(r.rows))
		for i, row := range r.rows {
			p := make(exec.Row, len(r.keep))
			for j, k := range r.keep {
				p[j] = row[k]
			}
			out[i] = p
		}
		return out, nil
	}}
	return &exec.FuncScan{Fn: srf, Cols: cols}
}

// transitionVariant names the transition tables a trigger gives its
// function, with their columns' types: the function's plans are made for
// them, and another trigger's tables of other columns need others
// (routineFor). "" for a trigger without transition tables.
func transitionVariant(tr *sqldef.Trigger, cols []exec.ResultColumn) string {
	if tr.OldTable == "" && tr.NewTable == "" {
		return ""
	}
	v := "\x00" + tr.OldTable + "\x00" + tr.NewTable
	for _, c := range cols {
		v += "\x00" + c.Name + ":" + strconv.FormatUint(uint64(c.T.OID), 10)
	}
	return v
}
