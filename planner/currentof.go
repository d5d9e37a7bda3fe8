package planner

import (
	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// CursorPositions is what WHERE CURRENT OF asks of the session (its
// exec.Env.Session) as the statement runs: the key of the stored row of
// table t the cursor name is positioned on, with PostgreSQL's errors when
// there is none.
type CursorPositions interface {
	CursorKey(name string, t *exec.Table) ([]byte, error)
}

// currentOf plans the rows of UPDATE or DELETE ... WHERE CURRENT OF
// cursor: the row of t the cursor is on, as the transaction has it when
// the statement runs, through row-level security's conditions (quals).
func (a *analyzer) currentOf(t *exec.Table, cursor string, quals []exec.Expr) (exec.Plan, exec.Expr, error) {
	if t.Def.Partitioned() || len(t.Def.Inherits) > 0 {
		return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "WHERE CURRENT OF is not supported for inheritance or partitioned tables yet")
	}
	cols := make([]exec.ResultColumn, len(t.Cols))
	for i, c := range t.Cols {
		cols[i] = exec.ResultColumn{Name: c.Name, T: c.Type}
	}
	var p exec.Plan = &exec.CursorRow{Table: t, Cols: cols, Key: func(env *exec.Env) ([]byte, error) {
		cp, ok := env.Session.(CursorPositions)
		if !ok {
			return nil, pgerr.New(pgerr.InvalidCursorName, "cursor %q does not exist", cursor)
		}
		return cp.CursorKey(cursor, t)
	}}
	pred := exec.Expr(&exec.Const{D: exec.DBool(true), T: exec.TBool})
	if len(quals) > 0 {
		pred = and(quals)
		p = &exec.Filter{In: p, Pred: pred}
	}
	return p, pred, nil
}
