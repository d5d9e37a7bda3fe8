package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// rangeFunction plans a function call in FROM: generate_series, or a
// scalar function, which gives one row. Functions in FROM may read the
// items to their left (they are implicitly LATERAL).
func (a *analyzer) rangeFunction(rf *pg.RangeFunction, corr *correlation, prefix *scope) (*fromItem, error) {
	if it, ok, err := a.recordFunction(rf, corr, prefix); ok {
		return it, err
	}
	if rf.IsRowsfrom || len(rf.Functions) != 1 {
		return a.rowsFrom(rf, prefix)
	}
	list := rf.Functions[0].GetList().GetItems()
	if len(list) == 0 || list[0].GetFuncCall() == nil || (len(list) > 1 && list[1].GetList() != nil) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "this function in FROM is not supported yet")
	}
	fc := list[0].GetFuncCall()
	name := OpName(fc.Funcname)
	if t, ok, err := a.systemFunction(fc); ok {
		if err != nil {
			return nil, err
		}
		alias := name
		var colnames []*pg.Node
		if rf.Alias != nil {
			alias, colnames = rf.Alias.Aliasname, rf.Alias.Colnames
		}
		cols := make([]exec.ResultColumn, len(t.Cols))
		for i, c := range t.Cols {
			cols[i] = exec.ResultColumn{Name: c.Name, T: c.Type}
		}
		return leafItem(&exec.Scan{Table: t, Cols: cols}, alias, colnames, t)
	}
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
	p, err := a.functionPlan(fc, rf.Coldeflist, sc, colName, rf.Ordinality)
	if err != nil {
		return nil, err
	}
	it, err := leafItem(p, alias, colnames, nil)
	if err != nil {
		return nil, err
	}
	it.items[0].kind = itemFunction
	lateralItem(it, lc)
	return it, nil
}

// functionPlan plans one function of FROM (or of ROWS FROM): its rows,
// with an ordinality column when asked; colName names the column of a
// function returning one value.
func (a *analyzer) functionPlan(fc *pg.FuncCall, coldefs []*pg.Node, sc *scope, colName string, ordinality bool) (exec.Plan, error) {
	name := OpName(fc.Funcname)
	var p exec.Plan
	if isSeries(fc) && !a.timeSeries(fc, sc) {
		args, t, err := a.seriesArgs(fc, sc)
		if err != nil {
			return nil, err
		}
		s := &exec.Series{Start: args[0], Stop: args[1], Ordinality: ordinality, Cols: []exec.ResultColumn{{Name: colName, T: t}}}
		if len(args) == 3 {
			s.Step = args[2]
		}
		if ordinality {
			s.Cols = append(s.Cols, exec.ResultColumn{Name: "ordinality", T: exec.TInt8})
		}
		p = s
	} else if fs, ok, err := a.userFuncScan(fc, sc, colName); ok {
		if err != nil {
			return nil, err
		}
		fs.Ordinality = ordinality
		if ordinality {
			fs.Cols = append(fs.Cols, exec.ResultColumn{Name: "ordinality", T: exec.TInt8})
		}
		p = fs
	} else if a.isSRF(name) || isSessionSRF(name) {
		var fs *exec.FuncScan
		var err error
		if name == "unnest" && len(fc.Args) > 1 {
			fs, err = a.unnestMulti(fc, sc)
		} else {
			fs, err = a.srfScan(fc, sc, nil)
		}
		if err != nil {
			return nil, err
		}
		fs.Ordinality = ordinality
		if len(fs.Cols) == 1 && !fs.Fn.Named {
			fs.Cols[0].Name = colName
		}
		if ordinality {
			fs.Cols = append(fs.Cols, exec.ResultColumn{Name: "ordinality", T: exec.TInt8})
		}
		p = fs
	} else {
		e, err := a.funcCall(fc, sc)
		if err != nil {
			return nil, err
		}
		row := []exec.Expr{e}
		cols := []exec.ResultColumn{{Name: colName, T: e.Type()}}
		if ordinality {
			row = append(row, &exec.Const{D: exec.DInt(1), T: exec.TInt8})
			cols = append(cols, exec.ResultColumn{Name: "ordinality", T: exec.TInt8})
		}
		p = &exec.Values{Rows: [][]exec.Expr{row}, Cols: cols}
	}
	if len(coldefs) > 0 {
		var err error
		if p, err = a.recordColumns(p, coldefs, ordinality); err != nil {
			return nil, err
		}
	} else {
		if cols := p.Columns(); len(cols) > 0 && cols[0].T.OID == exec.OIDRecord && (len(cols) == 1 || ordinality && len(cols) == 2) {
			// An anonymous record's fields are known only from the list.
			return nil, WithPos(pgerr.New(pgerr.SyntaxError, "a column definition list is required for functions returning \"record\""), fc.Location)
		}
		p = a.expandComposite(p)
	}
	return p, nil
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

// isSeries reports whether a call is generate_series over numbers.
func isSeries(fc *pg.FuncCall) bool {
	catalog := len(fc.Funcname) == 1 || len(fc.Funcname) == 2 && fc.Funcname[0].GetString_().GetSval() == "pg_catalog"
	return catalog && OpName(fc.Funcname) == "generate_series" && (len(fc.Args) == 2 || len(fc.Args) == 3)
}

// seriesArgs analyzes the arguments of generate_series and converts them
// to the type of the series: int4, int8 or numeric.
func (a *analyzer) seriesArgs(fc *pg.FuncCall, sc *scope) ([]exec.Expr, exec.T, error) {
	var args []exec.Expr
	rank := 0
	for _, n := range fc.Args {
		e, err := a.expr(n, sc)
		if err != nil {
			return nil, exec.T{}, err
		}
		args = append(args, e)
		if oid := e.Type().OID; oid != exec.OIDUnknown {
			r := exec.NumericRank(oid)
			if r == 0 || r > 4 {
				rank = -1
			} else if rank >= 0 {
				rank = max(rank, r)
			}
		}
	}
	if rank < 0 {
		types := make([]exec.T, len(args))
		for i, e := range args {
			types[i] = e.Type()
		}
		return nil, exec.T{}, WithPos(pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", sigOf("generate_series", types)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts."), fc.Location)
	}
	t := map[int]exec.T{0: exec.TInt4, 1: exec.TInt4, 2: exec.TInt4, 3: exec.TInt8, 4: exec.TNumeric}[rank]
	for i, e := range args {
		var err error
		if args[i], err = a.coerce(e, t, "", fc.Location); err != nil {
			return nil, exec.T{}, err
		}
	}
	return args, t, nil
}

// srfSet collects the set-returning functions of a select list, which an
// exec.ProjectSet evaluates; the select list reads their values as
// columns after the input's.
type srfSet struct {
	funcs []exec.Plan
	args  [][]exec.Expr
	refs  []*exec.ColRef
}

// srfCall analyzes a set-returning function call of a select list.
func (a *analyzer) srfCall(fc *pg.FuncCall, sc *scope) (exec.Expr, error) {
	if a.inAgg {
		return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "aggregate function calls cannot contain set-returning function calls").
			WithHint("You might be able to move the set-returning function into a LATERAL FROM item."), fc.Location)
	}
	if a.srfs == nil {
		clause := a.clause
		if clause == "" {
			clause = "this context"
		}
		return nil, srfNotAllowed(clause, fc.Location)
	}
	args, t, err := a.seriesArgs(fc, sc)
	if err != nil {
		return nil, err
	}
	s := &exec.Series{Start: &exec.OuterRef{Idx: 0, T: t}, Stop: &exec.OuterRef{Idx: 1, T: t}, Cols: []exec.ResultColumn{{Name: "generate_series", T: t}}}
	if len(args) == 3 {
		s.Step = &exec.OuterRef{Idx: 2, T: t}
	}
	ref := &exec.ColRef{Idx: -1, T: t}
	a.srfs.funcs = append(a.srfs.funcs, s)
	a.srfs.args = append(a.srfs.args, args)
	a.srfs.refs = append(a.srfs.refs, ref)
	return ref, nil
}

// plan returns in with the functions' values added to its rows.
func (s *srfSet) plan(in exec.Plan) exec.Plan {
	if len(s.funcs) == 0 {
		return in
	}
	cols := in.Columns()
	base := len(cols)
	for i, f := range s.funcs {
		s.refs[i].Idx = base + i
		cols = append(cols, f.Columns()[0])
	}
	return &exec.ProjectSet{In: in, Funcs: s.funcs, Args: s.args, Cols: cols}
}

// expandComposite gives a function in FROM whose result is of a composite
// type one column per field, as PostgreSQL does; an ordinality column
// stays last.
func (a *analyzer) expandComposite(p exec.Plan) exec.Plan {
	cols := p.Columns()
	if len(cols) == 0 || len(cols) > 2 || len(cols) == 2 && cols[1].Name != "ordinality" {
		return p
	}
	t := cols[0].T
	if exec.KindOf(t.OID) != exec.KindRecord || t.OID == exec.OIDRecord {
		return p
	}
	ut, ok := a.s.Settings().Types.UserType(types.Oid(t.OID))
	if !ok {
		return p
	}
	pr := &exec.Project{In: p}
	whole := &exec.ColRef{Idx: 0, T: t}
	for i, name := range ut.FieldNames {
		ft := exec.T{OID: uint32(ut.FieldTypes[i]), Typmod: ut.FieldTypmods[i]}
		pr.Exprs = append(pr.Exprs, &exec.FieldSelect{E: whole, Idx: i, T: ft})
		pr.Cols = append(pr.Cols, exec.ResultColumn{Name: name, T: ft})
	}
	if len(cols) == 2 {
		pr.Exprs = append(pr.Exprs, &exec.ColRef{Idx: 1, T: cols[1].T})
		pr.Cols = append(pr.Cols, cols[1])
	}
	return pr
}

// recordColumns gives a function returning records, in FROM with a column
// definition list (AS x(a int, b text)), the columns the list defines:
// the fields of each record in order.
func (a *analyzer) recordColumns(p exec.Plan, defs []*pg.Node, ordinality bool) (exec.Plan, error) {
	cols := p.Columns()
	if len(cols) == 0 || cols[0].T.OID != exec.OIDRecord {
		// As PostgreSQL words it, at the list's first column.
		msg := "a column definition list is only allowed for functions returning \"record\""
		outputs := len(cols)
		if ordinality {
			outputs--
		}
		switch {
		case len(cols) > 0 && exec.KindOf(cols[0].T.OID) == exec.KindRecord:
			msg = "a column definition list is redundant for a function returning a named composite type"
		case outputs > 1:
			msg = "a column definition list is redundant for a function with OUT parameters"
		}
		return nil, WithPos(pgerr.New(pgerr.SyntaxError, "%s", msg), defs[0].GetColumnDef().GetLocation())
	}
	pr := &exec.Project{In: p}
	whole := &exec.ColRef{Idx: 0, T: cols[0].T}
	for i, n := range defs {
		cd := n.GetColumnDef()
		if cd == nil {
			return nil, pgerr.New(pgerr.SyntaxError, "syntax error in column definition list")
		}
		t, _, err := a.resolveType(cd.TypeName)
		if err != nil {
			return nil, err
		}
		pr.Exprs = append(pr.Exprs, &exec.FieldSelect{E: whole, Idx: i, T: t, Declared: true})
		pr.Cols = append(pr.Cols, exec.ResultColumn{Name: cd.Colname, T: t})
	}
	for i := 1; i < len(cols); i++ {
		pr.Exprs = append(pr.Exprs, &exec.ColRef{Idx: i, T: cols[i].T})
		pr.Cols = append(pr.Cols, cols[i])
	}
	return pr, nil
}

// rowsFrom plans ROWS FROM (f(...) [AS (coldefs)], ...) [WITH ORDINALITY]:
// each function's rows side by side (exec.RowsFrom). A function returning
// one value names its column after itself.
func (a *analyzer) rowsFrom(rf *pg.RangeFunction, prefix *scope) (*fromItem, error) {
	lc := &correlation{outer: prefix}
	sc := &scope{corr: lc}
	saved := a.clause
	a.clause = "functions in FROM"
	defer func() { a.clause = saved }()
	rows := &exec.RowsFrom{Ordinality: rf.Ordinality}
	for _, f := range rf.Functions {
		list := f.GetList().GetItems()
		if len(list) == 0 || list[0].GetFuncCall() == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "this function in FROM is not supported yet")
		}
		fc := list[0].GetFuncCall()
		var coldefs []*pg.Node
		if len(list) > 1 {
			coldefs = list[1].GetList().GetItems()
		}
		p, err := a.functionPlan(fc, coldefs, sc, OpName(fc.Funcname), false)
		if err != nil {
			return nil, err
		}
		rows.Parts = append(rows.Parts, p)
		rows.Cols = append(rows.Cols, p.Columns()...)
	}
	if rf.Ordinality {
		rows.Cols = append(rows.Cols, exec.ResultColumn{Name: "ordinality", T: exec.TInt8})
	}
	alias := "rows"
	var colnames []*pg.Node
	if rf.Alias != nil {
		alias, colnames = rf.Alias.Aliasname, rf.Alias.Colnames
	} else if len(rf.Functions) > 0 {
		if fc := rf.Functions[0].GetList().GetItems()[0].GetFuncCall(); fc != nil {
			alias = OpName(fc.Funcname)
		}
	}
	it, err := leafItem(rows, alias, colnames, nil)
	if err != nil {
		return nil, err
	}
	it.items[0].kind = itemFunction
	lateralItem(it, lc)
	return it, nil
}
