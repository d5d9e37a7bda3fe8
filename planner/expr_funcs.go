package planner

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/funcs"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// This file analyzes the expression forms that PostgreSQL's grammar turns
// into function and operator calls: the SQL value functions (CURRENT_DATE,
// CURRENT_USER, ...), LIKE, ILIKE and SIMILAR TO, IS [NOT] DISTINCT FROM,
// IS [NOT] TRUE/FALSE/UNKNOWN, NULLIF, COLLATE, named arguments, and a type name called as a function.

// exprMore analyzes the node kinds expr does not; ok is false for a kind
// that is not supported at all.
func (a *analyzer) exprMore(n *pg.Node, sc *scope) (e exec.Expr, ok bool, err error) {
	switch {
	case n.GetXmlExpr() != nil:
		e, err = a.xmlExpr(n.GetXmlExpr(), sc)
		return e, true, err
	case n.GetXmlSerialize() != nil:
		e, err = a.xmlSerialize(n.GetXmlSerialize(), sc)
		return e, true, err
	case n.GetSqlvalueFunction() != nil:
		e, err = a.sqlValueFunction(n.GetSqlvalueFunction())
		return e, true, err
	case n.GetAArrayExpr() != nil:
		e, err = a.arrayExpr(n.GetAArrayExpr(), sc, exec.T{})
		return e, true, err
	case n.GetRowExpr() != nil:
		e, err = a.rowExpr(n.GetRowExpr(), sc)
		return e, true, err
	case n.GetAIndirection() != nil:
		e, err = a.indirection(n.GetAIndirection(), sc)
		return e, true, err
	case n.GetBooleanTest() != nil:
		bt := n.GetBooleanTest()
		arg, err := a.expr(bt.Arg, sc)
		if err != nil {
			return nil, true, err
		}
		what := map[pg.BoolTestType]string{
			pg.BoolTestType_IS_TRUE: "IS TRUE", pg.BoolTestType_IS_NOT_TRUE: "IS NOT TRUE",
			pg.BoolTestType_IS_FALSE: "IS FALSE", pg.BoolTestType_IS_NOT_FALSE: "IS NOT FALSE",
			pg.BoolTestType_IS_UNKNOWN: "IS UNKNOWN", pg.BoolTestType_IS_NOT_UNKNOWN: "IS NOT UNKNOWN",
		}[bt.Booltesttype]
		if arg, err = a.coerce(arg, exec.TBool, "argument of "+what, bt.Location); err != nil {
			return nil, true, err
		}
		want := map[pg.BoolTestType]int8{
			pg.BoolTestType_IS_TRUE: 1, pg.BoolTestType_IS_NOT_TRUE: 1, pg.BoolTestType_IS_FALSE: 0,
			pg.BoolTestType_IS_NOT_FALSE: 0, pg.BoolTestType_IS_UNKNOWN: -1, pg.BoolTestType_IS_NOT_UNKNOWN: -1,
		}[bt.Booltesttype]
		not := bt.Booltesttype == pg.BoolTestType_IS_NOT_TRUE || bt.Booltesttype == pg.BoolTestType_IS_NOT_FALSE || bt.Booltesttype == pg.BoolTestType_IS_NOT_UNKNOWN
		return &exec.BoolTest{E: arg, Want: want, Not: not}, true, nil
	case n.GetCollateClause() != nil:
		// Every collation here is C: COLLATE "C" (or "POSIX", "default")
		// changes nothing.
		cc := n.GetCollateClause()
		name := OpName(cc.Collname)
		if name != "C" && name != "POSIX" && name != "default" && name != "ucs_basic" {
			return nil, true, WithPos(pgerr.New(pgerr.UndefinedObject, "collation %q for encoding \"UTF8\" does not exist", name), cc.Location)
		}
		e, err = a.expr(cc.Arg, sc)
		return e, true, err
	}
	return nil, false, nil
}

// sqlValueFunction is CURRENT_DATE, CURRENT_TIMESTAMP(p), CURRENT_USER and
// the others that the grammar gives no parentheses.
func (a *analyzer) sqlValueFunction(f *pg.SQLValueFunction) (exec.Expr, error) {
	call := func(name string, fn exec.Fn, t exec.T) exec.Expr {
		return &exec.Call{Name: name, Fn: fn, T: t}
	}
	p := f.Typmod
	text := func(s string) exec.Expr { return &exec.Const{D: exec.DText(s), T: exec.TName} }
	switch f.Op {
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		return call("current_date", funcs.CurrentDate, exec.TDate), nil
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_TIME, pg.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:
		return call("current_time", funcs.CurrentTime(p), exec.T{OID: exec.OIDTimeTZ, Typmod: -1}), nil
	case pg.SQLValueFunctionOp_SVFOP_LOCALTIME, pg.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
		return call("localtime", funcs.LocalTime(p), exec.TTime), nil
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		return call("current_timestamp", funcs.CurrentTimestamp(p), exec.TTimestampTZ), nil
	case pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		return call("localtimestamp", funcs.LocalTimestamp(p), exec.TTimestamp), nil
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_ROLE, pg.SQLValueFunctionOp_SVFOP_CURRENT_USER, pg.SQLValueFunctionOp_SVFOP_USER:
		return text(a.s.CurrentRole()), nil // a SET ROLE plans again (putVar)
	case pg.SQLValueFunctionOp_SVFOP_SESSION_USER:
		return text(a.s.SessionRole()), nil
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		return text(a.s.Database()), nil
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		return a.call("current_schema", nil, f.Location, false)
	}
	return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "%s is not supported yet", f.Op), f.Location)
}

// aexprMore analyzes the A_Expr kinds aexpr does not: LIKE, ILIKE and
// SIMILAR TO are operators over the pattern (the grammar wraps an ESCAPE
// clause in like_escape or similar_to_escape), IS [NOT] DISTINCT FROM and
// NULLIF compare with =.
func (a *analyzer) aexprMore(x *pg.A_Expr, sc *scope) (exec.Expr, bool, error) {
	switch x.Kind {
	case pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE, pg.A_Expr_Kind_AEXPR_SIMILAR:
		l, err := a.expr(x.Lexpr, sc)
		if err != nil {
			return nil, true, err
		}
		r, err := a.expr(x.Rexpr, sc)
		if err != nil {
			return nil, true, err
		}
		e, err := a.binary(OpName(x.Name), l, r, x.Location)
		return e, true, err
	case pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		l, err := a.expr(x.Lexpr, sc)
		if err != nil {
			return nil, true, err
		}
		r, err := a.expr(x.Rexpr, sc)
		if err != nil {
			return nil, true, err
		}
		eq, err := a.binary("=", l, r, x.Location)
		if err != nil {
			return nil, true, err
		}
		c, ok := eq.(*exec.Call)
		if !ok || len(c.Args) != 2 {
			return nil, true, WithPos(pgerr.New(pgerr.FeatureNotSupported, "IS DISTINCT FROM is not supported for these types"), x.Location)
		}
		return &exec.IsDistinct{Eq: c.Fn, L: c.Args[0], R: c.Args[1], Not: x.Kind == pg.A_Expr_Kind_AEXPR_NOT_DISTINCT}, true, nil
	case pg.A_Expr_Kind_AEXPR_OP_ANY, pg.A_Expr_Kind_AEXPR_OP_ALL:
		e, err := a.anyAll(x, sc)
		return e, true, err
	case pg.A_Expr_Kind_AEXPR_NULLIF:
		l, err := a.expr(x.Lexpr, sc)
		if err != nil {
			return nil, true, err
		}
		r, err := a.expr(x.Rexpr, sc)
		if err != nil {
			return nil, true, err
		}
		eq, err := a.binary("=", l, r, x.Location)
		if err != nil {
			return nil, true, err
		}
		t := l.Type()
		if c, ok := eq.(*exec.Call); ok && len(c.Args) == 2 {
			l, t = c.Args[0], c.Args[0].Type()
		}
		if t.OID == exec.OIDUnknown {
			if l, err = a.coerce(l, exec.TText, "", x.Location); err != nil {
				return nil, true, err
			}
			t = exec.TText
		}
		return &exec.Case{Whens: []exec.Expr{eq}, Thens: []exec.Expr{&exec.Const{D: exec.Null, T: t}}, Else: l, T: t}, true, nil
	}
	return nil, false, nil
}

// funcCallMore resolves what funcCall does not find: named arguments
// (make_interval(days => 1)), and a type name called as a function with
// one argument, which is a cast (float8(x), text(1)).
func (a *analyzer) funcCallMore(f *pg.FuncCall, sc *scope) (exec.Expr, bool, error) {
	name := OpName(f.Funcname)
	if e, ok, err := a.prngCall(name, f, sc); ok {
		return e, true, err
	}
	if oid, ok := typeByName[name]; ok && len(f.Args) == 1 && f.Args[0].GetNamedArgExpr() == nil {
		e, err := a.expr(f.Args[0], sc)
		if err != nil {
			return nil, true, err
		}
		if _, _, err := exec.LookupFunc(name, []exec.T{e.Type()}); err == nil {
			e, err = a.call(name, []exec.Expr{e}, f.Location, false)
			return e, true, err
		}
		if exec.KindOf(oid) == exec.KindText && exec.KindOf(e.Type().OID) == exec.KindRecord {
			// PostgreSQL takes no function-style cast of a row to a
			// string type (text(t) would read too like t.text): the call
			// finds no function.
			return nil, true, WithPos(pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, a.typeName(e.Type())).
				WithHint("No function matches the given name and argument types. You might need to add explicit type casts."), f.Location)
		}
		e, err = a.cast(e, exec.T{OID: oid, Typmod: -1}, true, f.Location)
		return e, true, err
	}
	if f.FuncVariadic {
		return a.variadicCall(name, f, sc)
	}
	names := funcs.ArgNames(name)
	if names == nil {
		return nil, false, nil
	}
	named := false
	for _, n := range f.Args {
		if n.GetNamedArgExpr() != nil {
			named = true
		}
	}
	if !named {
		return nil, false, nil
	}
	slots := make([]*pg.Node, len(names))
	for i, n := range f.Args {
		na := n.GetNamedArgExpr()
		if na == nil {
			if i >= len(slots) {
				return nil, true, WithPos(pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", name), f.Location)
			}
			slots[i] = n
			continue
		}
		found := false
		for j, an := range names {
			if an == na.Name {
				slots[j], found = na.Arg, true
			}
		}
		if !found {
			return nil, true, WithPos(pgerr.New(pgerr.UndefinedFunction, "function %s(%s => ...) does not exist", name, na.Name).
				WithHint("No function matches the given name and argument types. You might need to add explicit type casts."), f.Location)
		}
	}
	var args []exec.Expr
	for i, n := range slots {
		if n == nil {
			d, t := funcs.ArgDefault(name, i)
			args = append(args, &exec.Const{D: d, T: t})
			continue
		}
		e, err := a.expr(n, sc)
		if err != nil {
			return nil, true, err
		}
		args = append(args, e)
	}
	e, err := a.call(name, args, f.Location, false)
	return e, true, err
}

// columnNameMore names the output columns of the forms this file
// analyzes, as PostgreSQL's FigureColname does: CURRENT_DATE is
// "current_date", NULLIF(...) "nullif".
func columnNameMore(n *pg.Node) string {
	switch {
	case n.GetSqlvalueFunction() != nil:
		return map[pg.SQLValueFunctionOp]string{
			pg.SQLValueFunctionOp_SVFOP_CURRENT_DATE: "current_date", pg.SQLValueFunctionOp_SVFOP_CURRENT_TIME: "current_time",
			pg.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N: "current_time", pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP: "current_timestamp",
			pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N: "current_timestamp", pg.SQLValueFunctionOp_SVFOP_LOCALTIME: "localtime",
			pg.SQLValueFunctionOp_SVFOP_LOCALTIME_N: "localtime", pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP: "localtimestamp",
			pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N: "localtimestamp", pg.SQLValueFunctionOp_SVFOP_CURRENT_ROLE: "current_role",
			pg.SQLValueFunctionOp_SVFOP_CURRENT_USER: "current_user", pg.SQLValueFunctionOp_SVFOP_USER: "user",
			pg.SQLValueFunctionOp_SVFOP_SESSION_USER: "session_user", pg.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG: "current_catalog",
			pg.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA: "current_schema",
		}[n.GetSqlvalueFunction().Op]
	case n.GetAExpr() != nil && n.GetAExpr().Kind == pg.A_Expr_Kind_AEXPR_NULLIF:
		return "nullif"
	case n.GetAArrayExpr() != nil:
		return "array"
	case n.GetAIndirection() != nil:
		// The last field named, subscripts aside, as PostgreSQL's
		// FigureColname takes it.
		ind := n.GetAIndirection().Indirection
		for i := len(ind) - 1; i >= 0; i-- {
			if f := ind[i].GetString_(); f != nil {
				return f.Sval
			}
		}
		return columnName(n.GetAIndirection().Arg)
	case n.GetRowExpr() != nil:
		return "row"
	case n.GetGroupingFunc() != nil:
		return "grouping"
	case n.GetCollateClause() != nil:
		return columnName(n.GetCollateClause().Arg)
	}
	return "?column?"
}

func errAmbiguousOperator(op string, ts []exec.T, loc int32) error {
	var e *pgerr.Error
	if len(ts) == 1 {
		e = pgerr.New(pgerr.AmbiguousFunction, "operator is not unique: %s %s", op, exec.TypeName(ts[0].OID))
	} else {
		e = pgerr.New(pgerr.AmbiguousFunction, "operator is not unique: %s %s %s", exec.TypeName(ts[0].OID), op, exec.TypeName(ts[1].OID))
	}
	return WithPos(e.WithHint("Could not choose a best candidate operator. You might need to add explicit type casts."), loc)
}

// variadicCall is f(a, VARIADIC arr) of a built-in variadic function:
// the array's elements become the variadic arguments when the call runs
// (exec.SpreadCall). A user function's VARIADIC parameter takes the array
// as it is, so its calls are left to userFuncCall (ok false).
func (a *analyzer) variadicCall(name string, f *pg.FuncCall, sc *scope) (e exec.Expr, ok bool, err error) {
	if !a.hasFunc(name) || len(f.Funcname) > 1 {
		return nil, false, nil
	}
	var args []exec.Expr
	for _, n := range f.Args {
		e, err := a.expr(n, sc)
		if err != nil {
			return nil, true, err
		}
		args = append(args, e)
	}
	last := args[len(args)-1]
	if last.Type().OID == exec.OIDUnknown {
		if last, err = a.cast(last, exec.TTextArray, false, f.Location); err != nil {
			return nil, true, err
		}
	}
	elem := exec.ElemType(last.Type())
	if elem.OID == 0 {
		return nil, true, WithPos(pgerr.New(pgerr.DatatypeMismatch, "VARIADIC argument must be an array"), ExprLocation(f.Args[len(f.Args)-1]))
	}
	fixed := args[:len(args)-1]
	types := make([]exec.T, 0, len(args))
	for _, x := range fixed {
		types = append(types, x.Type())
	}
	fn, want, err := exec.LookupFunc(name, append(types, elem))
	if err == nil && !fn.Variadic {
		err = pgerr.New(pgerr.UndefinedFunction, "function %s(%s%s) does not exist", name, typeListPrefix(types), exec.TypeName(last.Type().OID)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	if err != nil {
		if pe, ok := err.(*pgerr.Error); ok {
			return nil, true, WithPos(pe, f.Location)
		}
		return nil, true, err
	}
	for i, x := range fixed {
		if fixed[i], err = a.coerce(x, want[i], "", f.Location); err != nil {
			return nil, true, err
		}
	}
	if w := want[len(want)-1]; w.OID != elem.OID && !exec.IsPolymorphic(w.OID) && w.OID != exec.OIDAny {
		if last, err = a.cast(last, exec.ArrayType(w), false, f.Location); err != nil {
			return nil, true, err
		}
		elem = w
	}
	return &exec.SpreadCall{Name: name, F: fn, Fixed: fixed, Array: last, Elem: elem,
		NullEmpty: name == "format", T: spreadType(fn, want[:len(fixed)], elem)}, true, nil
}

// spreadType is the result type of a variadic built-in whose variadic
// arguments are of type elem: that of the call with none, one or two of
// them (json_build_object wants pairs).
func spreadType(fn *exec.Func, fixed []exec.T, elem exec.T) exec.T {
	try := slices.Clone(fixed)
	for k := 0; k <= 2; k++ {
		if _, t, err := fn.Bind(try); err == nil {
			return t
		}
		try = append(try, elem)
	}
	return fn.ResultType(append(fixed, elem))
}

// typeListPrefix lists types as an error's signature does, followed by a
// comma when there are any.
func typeListPrefix(ts []exec.T) string {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(exec.TypeName(t.OID))
		b.WriteString(", ")
	}
	return b.String()
}

// isPRNGFunc reports whether name is one of the functions of the session's
// generator, which prngCall plans.
func isPRNGFunc(name string) bool { return name == "random" || name == "setseed" }

// prngCall plans random() and setseed(x) over the session's generator.
func (a *analyzer) prngCall(name string, f *pg.FuncCall, sc *scope) (exec.Expr, bool, error) {
	p := a.s.PRNG()
	switch {
	case name == "random" && len(f.Args) == 0:
		return &exec.Call{Name: name, T: exec.TFloat8, Fn: func(*exec.Env, []exec.Datum) (exec.Datum, error) {
			return exec.DFloat(p.Float64()), nil
		}}, true, nil
	case name == "setseed" && len(f.Args) == 1:
		arg, err := a.expr(f.Args[0], sc)
		if err != nil {
			return nil, true, err
		}
		if arg, err = a.coerce(arg, exec.TFloat8, "", f.Location); err != nil {
			return nil, true, err
		}
		return &exec.Call{Name: name, T: exec.TVoid, Strict: true, Args: []exec.Expr{arg}, Fn: func(_ *exec.Env, args []exec.Datum) (exec.Datum, error) {
			return exec.DText(""), p.SetSeed(args[0].F) // void prints as an empty string
		}}, true, nil
	}
	return nil, false, nil
}

// assignable reports the assignment casts beyond numbers and strings:
// the implicit ones, PostgreSQL's assignment-level casts between date and
// time types, and its I/O conversion of any type to a string type.
func assignable(from, to uint32) bool {
	switch {
	case exec.CanCoerce(from, to):
		return true
	case exec.TypeCategory(to) == 'S' && from != exec.OIDUnknown:
		return true
	case (from == exec.OIDTimestamp || from == exec.OIDTimestampTZ) && (to == exec.OIDDate || to == exec.OIDTime || to == exec.OIDTimestamp):
		return true
	case from == exec.OIDTimestampTZ && to == exec.OIDTimeTZ, from == exec.OIDTimeTZ && to == exec.OIDTime:
		return true
	case from == exec.OIDInterval && to == exec.OIDTime:
		return true
	case from == exec.OIDJSON && to == exec.OIDJSONB, from == exec.OIDJSONB && to == exec.OIDJSON:
		return true
	case exec.GeometryAssignable(from, to):
		return true
	}
	return false
}

// fold evaluates a call of an immutable function over constants now, as
// PostgreSQL's eval_const_expressions does. A call that fails stays a
// call: PostgreSQL folds when it plans, at execution, and skips the arms
// of a CASE that constants rule out, so its error belongs to the run.
func (a *analyzer) fold(call *exec.Call) (exec.Expr, error) {
	for _, e := range call.Args {
		if _, ok := e.(*exec.Const); !ok {
			return call, nil
		}
	}
	d, err := call.Eval(&exec.Env{Settings: a.s.Settings(), Session: a.s}, nil)
	if err != nil {
		return call, nil
	}
	return &exec.Const{D: d, T: call.T}, nil
}

// anyAll is x op ANY/ALL (array). An ARRAY[...] constructor or an array
// literal becomes the comparisons with each element, ORed (ANY) or ANDed
// (ALL), which keeps SQL's NULL rules; a text[] value is compared at run
// time.
func (a *analyzer) anyAll(x *pg.A_Expr, sc *scope) (exec.Expr, error) {
	op := OpName(x.Name)
	isAny := x.Kind == pg.A_Expr_Kind_AEXPR_OP_ANY
	l, err := a.expr(x.Lexpr, sc)
	if err != nil {
		return nil, err
	}
	var elems []exec.Expr
	if arr := x.Rexpr.GetAArrayExpr(); arr != nil {
		for _, n := range arr.Elements {
			e, err := a.expr(n, sc)
			if err != nil {
				return nil, err
			}
			elems = append(elems, e)
		}
		if l.Type().OID == exec.OIDCIText {
			// The ARRAY is of its elements' common type, text for
			// literals, before citext meets it: citext = ANY(ARRAY['a'])
			// compares as text, case-sensitively.
			if err := a.typeArrayElems(elems, x.Location); err != nil {
				return nil, err
			}
		}
	} else {
		r, err := a.expr(x.Rexpr, sc)
		if err != nil {
			return nil, err
		}
		c, isConst := r.(*exec.Const)
		switch {
		case isConst && r.Type().OID == exec.OIDUnknown && !c.D.IsNull():
			arr, err := types.ParseArray(c.D.S, types.TextCodec(types.OidText, -1))
			if err != nil {
				if pe, ok := err.(*types.Error); ok {
					return nil, WithPos(pgerr.New(pgerr.Code(pe.Code), "%s", pe.Message).WithDetail("%s", pe.Detail), x.Location)
				}
				return nil, err
			}
			for i, s := range arr.Elems {
				d := exec.DText(s)
				if arr.IsNull(i) {
					d = exec.Null
				}
				elems = append(elems, &exec.Const{D: d, T: exec.TUnknown})
			}
		default:
			return a.anyAllArray(op, l, r, !isAny, x.Location)
		}
	}
	var cmps []exec.Expr
	for _, e := range elems {
		c, err := a.binary(op, l, e, x.Location)
		if err != nil {
			return nil, err
		}
		if c.Type().OID != exec.OIDBool {
			return nil, WithPos(pgerr.New(pgerr.WrongObjectType, "op ANY/ALL (array) requires operator to yield boolean"), x.Location)
		}
		cmps = append(cmps, c)
	}
	return &exec.BoolOp{Or: isAny, Args: cmps}, nil
}

// typeArrayElems converts the unknown literals among the elements of an
// ARRAY[...] to the elements' common type, in place.
func (a *analyzer) typeArrayElems(elems []exec.Expr, loc int32) error {
	ts := make([]exec.T, len(elems))
	for i, e := range elems {
		ts[i] = e.Type()
	}
	common, err := commonType(ts, "ARRAY", loc)
	if err != nil {
		return err
	}
	for i, e := range elems {
		if e.Type().OID == exec.OIDUnknown {
			if elems[i], err = a.coerce(e, common, "", loc); err != nil {
				return err
			}
		}
	}
	return nil
}

// srfScan analyzes a call of a set-returning function of the registry
// (json_each, regexp_matches, unnest, ...) into a FuncScan. With outer
// set, the arguments are read from the enclosing row (a select list's
// ProjectSet passes them) and the analyzed ones are returned there.
func (a *analyzer) srfScan(fc *pg.FuncCall, sc *scope, outer *[]exec.Expr) (*exec.FuncScan, error) {
	name := OpName(fc.Funcname)
	var args []exec.Expr
	var ts []exec.T
	for _, n := range fc.Args {
		e, err := a.expr(n, sc)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
		ts = append(ts, e.Type())
	}
	fn, want, err := a.lookupSRF(name, ts)
	if err != nil {
		return nil, WithPos(err.(*pgerr.Error), fc.Location)
	}
	if err := a.coerceArgs(args, want, fc.Location); err != nil {
		return nil, err
	}
	fs := &exec.FuncScan{Fn: fn, Args: args, Cols: append([]exec.ResultColumn(nil), fn.Cols...)}
	if outer != nil {
		*outer = args
		fs.Args = make([]exec.Expr, len(args))
		for i, e := range args {
			fs.Args[i] = &exec.OuterRef{Idx: i, T: e.Type()}
		}
	}
	return fs, nil
}

// srfListCall is a one-column set-returning function in a select list,
// evaluated by the query's ProjectSet like generate_series.
func (a *analyzer) srfListCall(fc *pg.FuncCall, sc *scope) (exec.Expr, error) {
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
	var args []exec.Expr
	fs, err := a.srfScan(fc, sc, &args)
	if err != nil {
		return nil, err
	}
	var p exec.Plan = fs
	if len(fs.Cols) != 1 {
		// A record per row, shown as "(key,value)".
		p = &exec.RecordScan{In: fs, Name: OpName(fc.Funcname), Typmod: a.s.PlannerState().records.of(fs.Cols)}
	} else {
		fs.Cols[0].Name = OpName(fc.Funcname)
	}
	ref := &exec.ColRef{Idx: -1, T: p.Columns()[0].T}
	a.srfs.funcs = append(a.srfs.funcs, p)
	a.srfs.args = append(a.srfs.args, args)
	a.srfs.refs = append(a.srfs.refs, ref)
	return ref, nil
}

// srfField is (f(...)).col for a set-returning f of several columns in a
// select list: the column of f's rows, itself a set-returning call (as
// PostgreSQL expands it, each such reference runs f anew, in step). ok is
// false when f is not such a function.
func (a *analyzer) srfField(fc *pg.FuncCall, col string, sc *scope) (exec.Expr, bool, error) {
	name := OpName(fc.Funcname)
	if fc.Over != nil || !a.isSRF(name) || a.hasFunc(name) || isSeries(fc) || a.srfs == nil || a.inAgg {
		return nil, false, nil
	}
	var args []exec.Expr
	fs, err := a.srfScan(fc, sc, &args)
	if err != nil {
		return nil, true, err
	}
	if len(fs.Cols) < 2 {
		return nil, false, nil
	}
	for i, c := range fs.Cols {
		if c.Name != col {
			continue
		}
		p := &exec.Project{In: fs, Exprs: []exec.Expr{&exec.ColRef{Idx: i, T: c.T}}, Cols: []exec.ResultColumn{{Name: col, T: c.T}}}
		ref := &exec.ColRef{Idx: -1, T: c.T}
		a.srfs.funcs = append(a.srfs.funcs, p)
		a.srfs.args = append(a.srfs.args, args)
		a.srfs.refs = append(a.srfs.refs, ref)
		return ref, true, nil
	}
	return nil, true, WithPos(pgerr.New(pgerr.UndefinedColumn, "column %q not found in data type record", col), fc.Location)
}

// recordFunction plans json(b)_to_record(set)(...) AS x(a int, b text):
// the functions whose columns a definition list gives.
func (a *analyzer) recordFunction(rf *pg.RangeFunction, corr *correlation, prefix *scope) (*fromItem, bool, error) {
	if rf.IsRowsfrom || len(rf.Functions) != 1 {
		return nil, false, nil
	}
	list := rf.Functions[0].GetList().GetItems()
	if len(list) == 0 || list[0].GetFuncCall() == nil {
		return nil, false, nil
	}
	fc := list[0].GetFuncCall()
	name := OpName(fc.Funcname)
	jsonArg := fc.Args
	if !funcs.IsJSONToRecord(name) {
		// json(b)_populate_record(set)(null::record, ...) AS (a int, ...)
		// is the to_record form: the list gives the columns.
		if !strings.Contains(name, "_populate_record") || len(rf.Coldeflist) == 0 || len(fc.Args) != 2 || !isNullRecord(fc.Args[0]) {
			return nil, false, nil
		}
		jsonArg = fc.Args[1:]
	}
	if len(rf.Coldeflist) == 0 {
		return nil, true, WithPos(pgerr.New(pgerr.SyntaxError, "a column definition list is required for functions returning \"record\""), fc.Location)
	}
	if len(jsonArg) != 1 {
		return nil, true, WithPos(pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", name), fc.Location)
	}
	var cols []exec.ResultColumn
	for _, n := range rf.Coldeflist {
		cd := n.GetColumnDef()
		if cd == nil {
			return nil, true, pgerr.New(pgerr.SyntaxError, "syntax error in column definition list")
		}
		t, _, err := a.resolveType(cd.TypeName)
		if err != nil {
			return nil, true, WithPos(err.(*pgerr.Error), cd.TypeName.Location)
		}
		cols = append(cols, exec.ResultColumn{Name: cd.Colname, T: t})
	}
	lc := &correlation{outer: prefix}
	sc := &scope{corr: lc}
	arg, err := a.expr(jsonArg[0], sc)
	if err != nil {
		return nil, true, err
	}
	want := exec.TJSON
	if strings.HasPrefix(name, "jsonb") {
		want = exec.TJSONB
	}
	if arg, err = a.coerce(arg, want, "", fc.Location); err != nil {
		return nil, true, err
	}
	fs := &exec.FuncScan{Fn: funcs.JSONToRecord(name, cols), Args: []exec.Expr{arg}, Cols: cols, Ordinality: rf.Ordinality}
	if rf.Ordinality {
		fs.Cols = append(append([]exec.ResultColumn(nil), cols...), exec.ResultColumn{Name: "ordinality", T: exec.TInt8})
	}
	alias := name
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
	}
	it, err := leafItem(fs, alias, nil, nil)
	if err != nil {
		return nil, true, err
	}
	it.items[0].kind = itemFunction
	lateralItem(it, lc)
	return it, true, nil
}

// isNullRecord reports whether n is NULL::record.
func isNullRecord(n *pg.Node) bool {
	tc := n.GetTypeCast()
	if tc == nil || tc.Arg.GetAConst() == nil || !tc.Arg.GetAConst().Isnull {
		return false
	}
	oid, ok := PseudoTypeNamed(NameList(tc.TypeName.Names))
	return ok && oid == exec.OIDRecord
}

// timeSeries reports a generate_series over timestamps, which the
// registry's set-returning functions run (the numeric series has its own
// plan).
func (a *analyzer) timeSeries(fc *pg.FuncCall, sc *scope) bool {
	if len(fc.Args) != 3 {
		return false
	}
	saved := append([]exec.T(nil), a.params...)
	defer func() { a.params = saved }()
	for _, n := range fc.Args[:2] {
		// Only arguments without columns or subqueries are looked at
		// here, as analyzing those twice would record them twice.
		if refersOut(n) {
			continue
		}
		e, err := a.expr(n, nil)
		if err != nil {
			return false
		}
		if oid := e.Type().OID; oid == exec.OIDTimestamp || oid == exec.OIDTimestampTZ || oid == exec.OIDDate {
			return true
		}
	}
	return false
}

// refersOut reports whether an expression names a column, a parameter or
// a subquery (whose analysis has effects beyond its value).
func refersOut(n *pg.Node) bool {
	found := false
	var walk func(*pg.Node)
	walk = func(n *pg.Node) {
		if n == nil || found {
			return
		}
		switch {
		case n.GetColumnRef() != nil, n.GetParamRef() != nil, n.GetSubLink() != nil:
			found = true
		case n.GetTypeCast() != nil:
			walk(n.GetTypeCast().Arg)
		case n.GetAExpr() != nil:
			walk(n.GetAExpr().Lexpr)
			walk(n.GetAExpr().Rexpr)
		case n.GetFuncCall() != nil:
			for _, a := range n.GetFuncCall().Args {
				walk(a)
			}
		case n.GetAConst() != nil, n.GetSqlvalueFunction() != nil:
		default:
			found = true // anything else: be careful
		}
	}
	walk(n)
	return found
}
