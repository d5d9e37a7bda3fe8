package planner

import (
	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/funcs"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner/plpgsql"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Triggers: CREATE TRIGGER, DROP TRIGGER, ALTER TABLE ENABLE/DISABLE
// TRIGGER, and the running of a trigger's function when exec.Modify fires
// it (Txn.FireTrigger, set when the transaction begins).

// fireTrigger runs a trigger's function for exec.Modify.
func fireTrigger(s Session, env *exec.Env, c *exec.TriggerCall) (exec.Row, error) {
	tr := c.Trigger
	def := c.Table.Def
	td := &plpgsql.TriggerData{Name: tr.Name, Op: c.Event, Schema: def.Schema, Table: def.Name, RelID: c.Table.OID, New: c.New, Old: c.Old, Args: tr.Args,
		When: map[byte]string{'b': "BEFORE", 'a': "AFTER", 'i': "INSTEAD OF"}[tr.Timing], Level: "STATEMENT"}
	if tr.ForEachRow {
		td.Level = "ROW"
	}
	for _, col := range c.Table.Cols {
		name := col.Name
		if col.Dropped {
			name = ""
		}
		td.Cols = append(td.Cols, exec.ResultColumn{Name: name, T: col.Type})
	}
	unchanged := c.New
	if c.Event == "DELETE" {
		unchanged = c.Old
	}
	if tr.When != "" {
		ok, err := triggerWhen(s, env, tr, td)
		if err != nil || !ok {
			return unchanged, err
		}
	}
	if tr.FuncSchema == "pg_catalog" && tr.FuncName == TSVectorTrigger {
		if tr.Timing != exec.TriggerBefore || !tr.ForEachRow || c.Event == "DELETE" {
			return unchanged, nil
		}
		return funcs.TSVectorTrigger(env, tr.Args, td.Cols, c.Old, c.New)
	}
	if tr.FuncSchema == "pg_catalog" && tr.FuncName == SuppressRedundantUpdatesTrigger {
		return suppressRedundantUpdates(tr, c)
	}
	fs, err := env.Txn.Catalog().FunctionsNamed(env.Ctx, tr.FuncSchema, tr.FuncName)
	if err != nil {
		return nil, err
	}
	var fn *sqldef.Function
	for _, f := range fs {
		if len(f.InputTypes()) == 0 && f.Returns == plpgsql.OIDTrigger {
			fn = f
		}
	}
	if fn == nil {
		return nil, pgerr.New(pgerr.UndefinedFunction, "function %s.%s() does not exist", tr.FuncSchema, tr.FuncName)
	}
	r, err := routineFor(s, fn, nil, transitionVariant(tr, td.Cols))
	if err != nil {
		return nil, err
	}
	if tr.OldTable != "" || tr.NewTable != "" {
		frame := map[string]*transitionRel{}
		if tr.OldTable != "" {
			frame[tr.OldTable] = newTransitionRel(td.Cols, c.OldTable)
		}
		if tr.NewTable != "" {
			frame[tr.NewTable] = newTransitionRel(td.Cols, c.NewTable)
		}
		st := s.PlannerState()
		st.transitions = append(st.transitions, frame)
		defer func() { st.transitions = st.transitions[:len(st.transitions)-1] }()
	}
	out, err := callRoutine(s, env, r, nil, td)
	if err != nil {
		return nil, err
	}
	if out.Row != nil && len(out.Row) != len(td.Cols) {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "returned row structure does not match the structure of the triggering table")
	}
	return out.Row, nil
}

// triggerWhen evaluates a trigger's WHEN condition over NEW and OLD.
func triggerWhen(s Session, env *exec.Env, tr *sqldef.Trigger, td *plpgsql.TriggerData) (bool, error) {
	h := &host{s: s, env: env}
	p, err := h.Prepare("SELECT "+tr.When, nil, nil)
	if err != nil {
		return false, err
	}
	res, err := p.Run(env, nil, &triggerRows{td: td})
	if err != nil {
		return false, err
	}
	if len(res.Rows) != 1 || res.Rows[0][0].IsNull() {
		return false, nil
	}
	return res.Rows[0][0].I != 0, nil
}

// triggerRows are NEW and OLD as the variables of a WHEN condition.
type triggerRows struct{ td *plpgsql.TriggerData }

func (v *triggerRows) Lookup(qualifier, name string) (int, exec.T, bool) {
	if qualifier != "new" && qualifier != "old" {
		return 0, exec.T{}, false
	}
	ref := 0
	if qualifier == "old" {
		ref = 1
	}
	for i, c := range v.td.Cols {
		if c.Name == name {
			return ref | i<<1, c.T, true
		}
	}
	if name == "tableoid" {
		// The system column, after the table's columns.
		return ref | len(v.td.Cols)<<1, exec.TOid, true
	}
	return 0, exec.T{}, false
}

// Record implements plpgsql.Vars: NEW.* and OLD.* are the table's columns.
func (v *triggerRows) Record(name string) ([]exec.ResultColumn, bool) {
	if name != "new" && name != "old" {
		return nil, false
	}
	return v.td.Cols, true
}

func (v *triggerRows) Value(ref int) (exec.Datum, exec.T) {
	row := v.td.New
	if ref&1 != 0 {
		row = v.td.Old
	}
	if ref>>1 == len(v.td.Cols) {
		if row == nil {
			return exec.Null, exec.TOid
		}
		return exec.DInt(int64(v.td.RelID)), exec.TOid
	}
	t := v.td.Cols[ref>>1].T
	if row == nil {
		return exec.Null, t
	}
	return row[ref>>1], t
}

// TSVectorTrigger and SuppressRedundantUpdatesTrigger are the built-in
// trigger functions, tsvector_update_trigger (funcs.TSVectorTrigger) and
// suppress_redundant_updates_trigger: CREATE TRIGGER finds them in
// pg_catalog, and firing runs them without a function record.
const (
	TSVectorTrigger                 = "tsvector_update_trigger"
	SuppressRedundantUpdatesTrigger = "suppress_redundant_updates_trigger"
)

// suppressRedundantUpdates is suppress_redundant_updates_trigger, a
// BEFORE UPDATE ROW trigger that skips an update leaving its row as it
// was.
func suppressRedundantUpdates(tr *sqldef.Trigger, c *exec.TriggerCall) (exec.Row, error) {
	const name = "suppress_redundant_updates_trigger"
	switch {
	case c.Event != "UPDATE":
		return nil, pgerr.New(pgerr.TriggerProtocolViolated, "%s: must be called on update", name)
	case tr.Timing != exec.TriggerBefore:
		return nil, pgerr.New(pgerr.TriggerProtocolViolated, "%s: must be called before update", name)
	case !tr.ForEachRow:
		return nil, pgerr.New(pgerr.TriggerProtocolViolated, "%s: must be called for each row", name)
	}
	if len(c.Old) != len(c.New) {
		return c.New, nil
	}
	for i := range c.New {
		o, n := c.Old[i], c.New[i]
		if o.IsNull() != n.IsNull() || !o.IsNull() && exec.Compare(o, n) != 0 {
			return c.New, nil
		}
	}
	return nil, nil
}
