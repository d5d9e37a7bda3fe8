package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/funcs"
)

// rangeConstructorCall analyzes a call of a user range type's
// constructor, name(lower, upper [, flags]), which CREATE TYPE ... AS
// RANGE makes in PostgreSQL; ok is false when name is no range type.
func (a *analyzer) rangeConstructorCall(f *pg.FuncCall, sc *scope) (exec.Expr, bool, error) {
	if len(f.Args) != 2 && len(f.Args) != 3 || f.AggStar || f.AggDistinct {
		return nil, false, nil
	}
	schema, name := SplitName(NameList(f.Funcname))
	t, err := a.lookupType(a.ctx, schema, name)
	if err != nil || t == nil || t.Kind != 'r' {
		return nil, err != nil, err
	}
	want := []exec.T{{OID: t.Base, Typmod: -1}, {OID: t.Base, Typmod: -1}, exec.TText}
	args := make([]exec.Expr, len(f.Args))
	for i, n := range f.Args {
		e, err := a.expr(n, sc)
		if err != nil {
			return nil, true, err
		}
		if row, ok := e.(*exec.RowExpr); ok && i < 2 && exec.KindOf(t.Base) == exec.KindRecord {
			args[i], err = a.rowToComposite(row, want[i], false, f.Location)
		} else {
			args[i], err = a.coerce(e, want[i], "", f.Location)
		}
		if err != nil {
			return nil, true, err
		}
	}
	return &exec.Call{Name: name, Fn: funcs.RangeConstructor(t.Base, false), Args: args, T: exec.T{OID: TypeOIDOf(t), Typmod: -1}}, true, nil
}
