package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// rangeFunction plans a function call in FROM: generate_series, or a
// scalar function, which gives one row. Functions in FROM may read the
// items to their left (they are implicitly LATERAL).
func (a *analyzer) rangeFunction(rf *pg.RangeFunction, corr *correlation, prefix *scope) (*fromItem, error) {
	if rf.IsRowsfrom || len(rf.Functions) != 1 || len(rf.Coldeflist) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ROWS FROM and column definition lists are not supported yet")
	}
	list := rf.Functions[0].GetList().GetItems()
	if len(list) == 0 || list[0].GetFuncCall() == nil || (len(list) > 1 && list[1].GetList() != nil) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "this function in FROM is not supported yet")
	}
	fc := list[0].GetFuncCall()
	name := opName(fc.Funcname)
	lc := &correlation{outer: prefix}
	sc := &scope{corr: lc}
	saved := a.clause
	a.clause = "functions in FROM"
	defer func() { a.clause = saved }()
	alias, colName := name, name
	var colnames []*pg.Node
	if rf.Alias != nil {
		alias, colName, colnames = rf.Alias.Aliasname, rf.Alias.Aliasname, rf.Alias.Colnames
	}
	var p exec.Plan
	if name == "generate_series" && (len(fc.Args) == 2 || len(fc.Args) == 3) && len(fc.Funcname) == 1 {
		var args []exec.Expr
		rank := 0
		for _, n := range fc.Args {
			e, err := a.expr(n, sc)
			if err != nil {
				return nil, err
			}
			args = append(args, e)
			if e.Type().OID != exec.OIDUnknown {
				rank = max(rank, exec.NumericRank(e.Type().OID))
				if exec.NumericRank(e.Type().OID) == 0 || rank > 4 {
					rank = -1
				}
			}
			if rank < 0 {
				break
			}
		}
		t := map[int]exec.T{0: exec.TInt4, 1: exec.TInt4, 2: exec.TInt4, 3: exec.TInt8, 4: exec.TNumeric}[rank]
		if rank < 0 {
			types := make([]exec.T, len(args))
			for i, e := range args {
				types[i] = e.Type()
			}
			return nil, withPos(pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", sigOf(name, types)).
				WithHint("No function matches the given name and argument types. You might need to add explicit type casts."), fc.Location)
		}
		for i, e := range args {
			var err error
			if args[i], err = a.coerce(e, t, "", fc.Location); err != nil {
				return nil, err
			}
		}
		s := &exec.Series{Start: args[0], Stop: args[1], Ordinality: rf.Ordinality, Cols: []exec.ResultColumn{{Name: colName, T: t}}}
		if len(args) == 3 {
			s.Step = args[2]
		}
		if rf.Ordinality {
			s.Cols = append(s.Cols, exec.ResultColumn{Name: "ordinality", T: exec.TInt8})
		}
		p = s
	} else {
		e, err := a.funcCall(fc, sc)
		if err != nil {
			return nil, err
		}
		row := []exec.Expr{e}
		cols := []exec.ResultColumn{{Name: colName, T: e.Type()}}
		if rf.Ordinality {
			row = append(row, &exec.Const{D: exec.DInt(1), T: exec.TInt8})
			cols = append(cols, exec.ResultColumn{Name: "ordinality", T: exec.TInt8})
		}
		p = &exec.Values{Rows: [][]exec.Expr{row}, Cols: cols}
	}
	it, err := leafItem(p, alias, colnames, nil)
	if err != nil {
		return nil, err
	}
	if len(lc.args) > 0 {
		it.lateral, it.lateralArgs = true, lc.args
	}
	return it, nil
}

func sigOf(name string, types []exec.T) string {
	s := name + "("
	for i, t := range types {
		if i > 0 {
			s += ", "
		}
		s += exec.TypeName(t.OID)
	}
	return s + ")"
}
