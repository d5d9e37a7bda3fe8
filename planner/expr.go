package planner

import (
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/funcs"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// expr analyzes a scalar expression over the columns of sc (nil: none).
func (a *analyzer) expr(n *pg.Node, sc *scope) (exec.Expr, error) {
	if sc != nil && sc.group != nil && sc.group.exprKeys {
		if e, ok := a.groupedExpr(n, sc); ok {
			return e, nil
		}
	}
	switch {
	case n.GetSubLink() != nil:
		return a.subLink(n.GetSubLink(), sc)
	case n.GetAConst() != nil:
		return constant(n.GetAConst())
	case n.GetColumnRef() != nil:
		return a.columnRef(n.GetColumnRef(), sc)
	case n.GetParamRef() != nil:
		return a.param(int(n.GetParamRef().Number) - 1)
	case n.GetAExpr() != nil:
		return a.aexpr(n.GetAExpr(), sc)
	case n.GetGroupingFunc() != nil:
		return a.groupingFunc(n.GetGroupingFunc(), sc)
	case n.GetBoolExpr() != nil:
		return a.boolExpr(n.GetBoolExpr(), sc)
	case n.GetNullTest() != nil:
		nt := n.GetNullTest()
		e, err := a.expr(nt.Arg, sc)
		if err != nil {
			return nil, err
		}
		return &exec.IsNull{E: e, Not: nt.Nulltesttype == pg.NullTestType_IS_NOT_NULL}, nil
	case n.GetTypeCast() != nil:
		tc := n.GetTypeCast()
		if oid, ok := PseudoTypeNamed(NameList(tc.TypeName.Names)); ok && oid == exec.OIDRecord && len(tc.TypeName.ArrayBounds) == 0 {
			return a.castToRecord(tc, sc)
		}
		if isUnknownLiteral(tc) {
			return a.expr(tc.Arg, sc) // 'foo'::unknown is the literal as it is
		}
		t, dom, _, err := a.resolveTypeDomain(tc.TypeName)
		if err != nil {
			if pe, ok := err.(*pgerr.Error); ok {
				return nil, WithPos(pe, tc.TypeName.Location)
			}
			return nil, err
		}
		var e exec.Expr
		if arr := tc.Arg.GetAArrayExpr(); arr != nil && exec.IsArrayType(t.OID) {
			e, err = a.arrayExpr(arr, sc, t) // the elements are cast to t's element type
		} else {
			e, err = a.expr(tc.Arg, sc)
		}
		if err != nil {
			return nil, err
		}
		loc := tc.Location
		if c := tc.Arg.GetAConst(); c != nil && c.GetSval() != nil {
			// A literal's input function reports at the literal, as
			// PostgreSQL's coerce_type does.
			loc = c.Location
		}
		if e, err = a.cast(e, t, true, loc); err != nil || dom == nil {
			return e, err
		}
		return a.domainCheck(e, dom)
	case n.GetCoalesceExpr() != nil:
		return a.coalesce(n.GetCoalesceExpr(), sc)
	case n.GetMinMaxExpr() != nil:
		return a.minMax(n.GetMinMaxExpr(), sc)
	case n.GetCaseExpr() != nil:
		return a.caseExpr(n.GetCaseExpr(), sc)
	case n.GetFuncCall() != nil:
		return a.funcCall(n.GetFuncCall(), sc)
	}
	if e, ok, err := a.exprMore(n, sc); ok {
		return e, err
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "expression not supported yet: %s", NodeName(n))
}

// NodeName names a parse node's type for messages.
func NodeName(n *pg.Node) string {
	s := strings.TrimPrefix(strings.TrimPrefix(strings.Split(n.String(), ":")[0], "node:"), "{")
	return strings.TrimSpace(s)
}

// constant types a literal as PostgreSQL does: integers as int4 (int8 or
// numeric when larger), decimals as numeric, strings as unknown until
// context decides.
func constant(c *pg.A_Const) (exec.Expr, error) {
	switch {
	case c.Isnull:
		return &exec.Const{D: exec.Null, T: exec.TUnknown}, nil
	case c.GetIval() != nil:
		return &exec.Const{D: exec.DInt(int64(c.GetIval().Ival)), T: exec.TInt4}, nil
	case c.GetFval() != nil:
		s := c.GetFval().Fval
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			// -2147483648 arrives here (the grammar negates the too
			// large 2147483648) and is an int4, as make_const decides.
			if v == int64(int32(v)) {
				return &exec.Const{D: exec.DInt(v), T: exec.TInt4}, nil
			}
			return &exec.Const{D: exec.DInt(v), T: exec.TInt8}, nil
		}
		d := new(apd.Decimal)
		if err := types.ParseNumeric(d, s); err != nil {
			if pe, ok := exec.PgError(err); ok {
				return nil, WithPos(pe, c.Location)
			}
			return nil, err
		}
		if d.IsZero() {
			d.Negative = false // -0.0 is 0.0: numeric has no negative zero
		}
		return &exec.Const{D: exec.DNumeric(d), T: exec.TNumeric}, nil
	case c.GetSval() != nil:
		return &exec.Const{D: exec.DText(c.GetSval().Sval), T: exec.TUnknown}, nil
	case c.GetBoolval() != nil:
		return &exec.Const{D: exec.DBool(c.GetBoolval().Boolval), T: exec.TBool}, nil
	case c.GetBsval() != nil:
		// B'0101' and X'1F', which the scanner gives as "b0101", "x1F".
		bits, err := types.ParseBit(c.GetBsval().Bsval)
		if err != nil {
			if pe, ok := exec.PgError(err); ok {
				return nil, WithPos(pe, c.Location)
			}
			return nil, err
		}
		return &exec.Const{D: exec.DText(bits), T: exec.T{OID: exec.OIDBit, Typmod: -1}}, nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "constant of this kind is not supported")
}

func (a *analyzer) columnRef(cr *pg.ColumnRef, sc *scope) (exec.Expr, error) {
	var parts []string
	for i, f := range cr.Fields {
		if f.GetAStar() != nil {
			if i == 1 && len(cr.Fields) == 2 {
				// t.* as a value: the whole row.
				if e, err := a.wholeRow(sc, parts[0], cr.Location); e != nil || err != nil {
					return e, err
				}
				if e := a.recordVarRow(parts[0]); e != nil {
					return e, nil
				}
			}
			return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "* is not allowed here"), cr.Location)
		}
		parts = append(parts, f.GetString_().Sval)
	}
	table := ""
	if len(parts) > 1 {
		table = parts[len(parts)-2]
	}
	if table == "" {
		e, err := a.resolveIn(sc, "", parts[0], cr.Location, false)
		if e != nil || err != nil {
			return e, err
		}
		if e, err := a.wholeRow(sc, parts[0], cr.Location); e != nil || err != nil {
			return e, err
		}
	}
	if len(parts) == 3 {
		if e, err := a.schemaColumn(sc, parts, cr.Location); e != nil || err != nil {
			return e, err
		}
	}
	return a.resolveColumn(sc, table, parts[len(parts)-1], cr.Location)
}

// schemaColumn resolves schema.table.column: the column of the nearest
// FROM item that is that table without an alias, passing over items of
// other tables named the same (as PostgreSQL matches a qualified name by
// the relation). nil when no item is.
func (a *analyzer) schemaColumn(sc *scope, parts []string, loc int32) (exec.Expr, error) {
	schema := a.s.ResolveSchemaName(parts[0])
	depth := 0
	for s := sc; s != nil; depth++ {
		for _, it := range s.items {
			if it.relVisible && it.table != nil && it.table.Def != nil && it.name == parts[1] && it.table.Def.Name == parts[1] && it.table.Def.Schema == schema {
				return a.resolveAt(sc, depth, parts[1], parts[2], loc)
			}
		}
		if s.corr == nil {
			break
		}
		s = s.corr.outer
	}
	return nil, nil
}

// resolveAt resolves table.name in the scope depth levels out from sc,
// as an outer reference through the levels between.
func (a *analyzer) resolveAt(sc *scope, depth int, table, name string, loc int32) (exec.Expr, error) {
	if depth == 0 {
		return a.resolveColumn(sc, table, name, loc)
	}
	e, err := a.resolveAt(sc.corr.outer, depth-1, table, name, loc)
	if err != nil {
		return nil, err
	}
	return sc.corr.ref(e), nil
}

// wholeRow returns the row of FROM item name (in sc or an enclosing
// scope) as one value: a value of the table's row type for a table, an
// anonymous record with its columns' names otherwise. nil if no item has
// the name.
func (a *analyzer) wholeRow(sc *scope, name string, loc int32) (exec.Expr, error) {
	var item *nsItem
	for s := sc; s != nil && item == nil; {
		for _, it := range s.items {
			if it.relVisible && it.name == name {
				item = it
				break
			}
		}
		if s.corr == nil {
			break
		}
		s = s.corr.outer
	}
	if item == nil {
		return nil, nil
	}
	row := &exec.RowExpr{Typ: exec.TRecord}
	for _, c := range item.cols {
		e, err := a.resolveItemColumn(sc, item, c, loc, false)
		if err != nil {
			return nil, err
		}
		if e == nil { // not reachable from sc after all: by name, as before
			if e, err = a.resolveIn(sc, name, c.name, loc, false); err != nil {
				return nil, err
			}
		}
		row.Args = append(row.Args, e)
		row.Names = append(row.Names, c.name)
	}
	if t := item.table; t != nil && item.kind == itemTable {
		row.Typ = exec.T{OID: exec.TypeOID(types.UserComposite, t.Def.Schema, t.Def.Name), Typmod: -1}
	}
	return row, nil
}

// recordVarRow returns r.* of a PL/pgSQL record variable r (NEW.* and
// OLD.* in a trigger's WHEN) as one row value of its fields, nil if there
// is no such variable.
func (a *analyzer) recordVarRow(name string) exec.Expr {
	if a.vars == nil {
		return nil
	}
	fields, ok := a.vars.vars.Record(name)
	if !ok {
		return nil
	}
	row := &exec.RowExpr{Typ: exec.TRecord}
	for _, f := range fields {
		if e, ok := a.vars.param(a, name, f.Name); ok {
			row.Args = append(row.Args, e)
			row.Names = append(row.Names, f.Name)
		}
	}
	return row
}

// param returns parameter $i+1, typed if known.
func (a *analyzer) param(i int) (exec.Expr, error) {
	if i < 0 || i >= 65535 {
		return nil, pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", i+1)
	}
	for len(a.params) <= i {
		a.params = append(a.params, exec.TUnknown)
	}
	return &exec.Param{Idx: i, T: a.params[i]}, nil
}

func (a *analyzer) boolExpr(b *pg.BoolExpr, sc *scope) (exec.Expr, error) {
	var args []exec.Expr
	for _, n := range b.Args {
		e, err := a.expr(n, sc)
		if err != nil {
			return nil, err
		}
		if e, err = a.coerce(e, exec.TBool, "argument of "+strings.ToUpper(strings.TrimSuffix(b.Boolop.String(), "_EXPR")), b.Location); err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	switch b.Boolop {
	case pg.BoolExprType_AND_EXPR:
		return &exec.BoolOp{Args: args}, nil
	case pg.BoolExprType_OR_EXPR:
		return &exec.BoolOp{Or: true, Args: args}, nil
	}
	return &exec.Not{E: args[0]}, nil
}

func OpName(names []*pg.Node) string {
	return names[len(names)-1].GetString_().Sval
}

func (a *analyzer) aexpr(x *pg.A_Expr, sc *scope) (exec.Expr, error) {
	op := OpName(x.Name)
	switch x.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		// OPERATOR(schema.op) looks in schema alone.
		schema, _ := SplitName(NameList(x.Name))
		if x.Lexpr == nil {
			r, err := a.expr(x.Rexpr, sc)
			if err != nil {
				return nil, err
			}
			return a.prefixOperator(schema, op, r, x.Location)
		}
		l, err := a.expr(x.Lexpr, sc)
		if err != nil {
			return nil, err
		}
		r, err := a.expr(x.Rexpr, sc)
		if err != nil {
			return nil, err
		}
		if lr, ok := l.(*exec.RowExpr); ok {
			if rr, ok := r.(*exec.RowExpr); ok {
				return a.rowComparison(op, lr, rr, x.Location)
			}
		}
		return a.binaryOperator(schema, op, l, r, x.Location)
	case pg.A_Expr_Kind_AEXPR_IN:
		l, err := a.expr(x.Lexpr, sc)
		if err != nil {
			return nil, err
		}
		var ors []exec.Expr
		for _, item := range x.Rexpr.GetList().Items {
			r, err := a.expr(item, sc)
			if err != nil {
				return nil, err
			}
			eq, err := a.binary("=", l, r, x.Location)
			if err != nil {
				return nil, err
			}
			ors = append(ors, eq)
		}
		in := exec.Expr(&exec.BoolOp{Or: true, Args: ors, In: hashedInList(ors)})
		if op == "<>" {
			in = &exec.Not{E: in}
		}
		return in, nil
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		v, err := a.expr(x.Lexpr, sc)
		if err != nil {
			return nil, err
		}
		bounds := x.Rexpr.GetList().Items
		lo, err := a.expr(bounds[0], sc)
		if err != nil {
			return nil, err
		}
		hi, err := a.expr(bounds[1], sc)
		if err != nil {
			return nil, err
		}
		ge, err := a.binary(">=", v, lo, x.Location)
		if err != nil {
			return nil, err
		}
		le, err := a.binary("<=", v, hi, x.Location)
		if err != nil {
			return nil, err
		}
		var e exec.Expr = &exec.BoolOp{Args: []exec.Expr{ge, le}}
		if x.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN {
			e = &exec.Not{E: e}
		}
		return e, nil
	}
	if e, ok, err := a.aexprMore(x, sc); ok {
		return e, err
	}
	return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "operator kind %s is not supported yet", x.Kind), x.Location)
}

// hashedInList reports whether the equalities of an IN list can be
// looked up in a set of its values (exec.BoolOp.In): each compares the
// same expression with a constant or a parameter of its own type by the
// built-in equality of a type that hashes, as a hash join's keys do.
func hashedInList(eqs []exec.Expr) bool {
	var x exec.Expr
	for _, e := range eqs {
		c, ok := e.(*exec.Call)
		if !ok || c.Name != "=" || len(c.Args) != 2 || c.Args[0].Type().OID != c.Args[1].Type().OID || !hashableType(c.Args[0].Type()) {
			return false
		}
		switch c.Args[1].(type) {
		case *exec.Const, *exec.Param:
		default:
			return false
		}
		if x == nil {
			x = c.Args[0]
		} else if !exprEqual(x, c.Args[0]) {
			return false
		}
	}
	return x != nil
}

// unary resolves and builds a prefix operator found by the search path.
func (a *analyzer) unary(op string, r exec.Expr, loc int32) (exec.Expr, error) {
	return a.prefixOperator("", op, r, loc)
}

// builtinUnary resolves a prefix operator among the built-in ones.
func (a *analyzer) builtinUnary(op string, r exec.Expr, loc int32) (exec.Expr, error) {
	if op == "+" && exec.NumericRank(r.Type().OID) > 0 {
		return r, nil
	}
	if c, ok := r.(*exec.Const); ok && op == "-" && c.T.OID == exec.OIDInt4 && c.D.Kind == exec.KindInt {
		return &exec.Const{D: exec.DInt(-c.D.I), T: c.T}, nil
	}
	return a.call(op, []exec.Expr{r}, loc, true)
}

// call resolves a function or operator over analyzed arguments and
// converts the arguments to the chosen overload's types.
func (a *analyzer) call(name string, args []exec.Expr, loc int32, operator bool) (exec.Expr, error) {
	types := make([]exec.T, len(args))
	for i, e := range args {
		types[i] = e.Type()
	}
	f, want, err := exec.LookupFuncIn(a.s.Settings(), name, types)
	if err != nil {
		if operator && err.(*pgerr.Error).Code == pgerr.AmbiguousFunction {
			return nil, errAmbiguousOperator(name, types, loc)
		}
		if operator {
			return nil, errNoOperatorTypes(name, types, loc)
		}
		return nil, WithPos(err.(*pgerr.Error), loc)
	}
	if err := a.coerceArgs(args, want, loc); err != nil {
		return nil, err
	}
	fn, t, err := f.BindIn(a.s.Settings(), want)
	if err != nil {
		if pe, ok := err.(*pgerr.Error); ok {
			return nil, WithPos(pe, loc)
		}
		return nil, err
	}
	call := &exec.Call{Name: name, Fn: fn, Args: args, Strict: f.Strict, T: t}
	if f.Immutable {
		return a.fold(call)
	}
	return call, nil
}

func errNoOperatorTypes(op string, types []exec.T, loc int32) error {
	if len(types) == 1 {
		return WithPos(pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s", op, exec.TypeName(types[0].OID)).
			WithHint("No operator matches the given name and argument type. You might need to add an explicit type cast."), loc)
	}
	return errNoOperator(op, types[0], types[1], loc)
}

var rankType = map[int]exec.T{1: exec.TInt2, 2: exec.TInt4, 3: exec.TInt8, 4: exec.TNumeric, 5: exec.TFloat4, 6: exec.TFloat8}

// binary resolves and builds a binary operator found by the search path.
func (a *analyzer) binary(op string, l, r exec.Expr, loc int32) (exec.Expr, error) {
	return a.binaryOperator("", op, l, r, loc)
}

// builtinBinary resolves a binary operator among the built-in ones.
func (a *analyzer) builtinBinary(op string, l, r exec.Expr, loc int32) (exec.Expr, error) {
	lt, rt := l.Type(), r.Type()
	var err error
	cmpFn := exec.CompareOp(op)
	if exec.IsGeometric(lt.OID) || exec.IsGeometric(rt.OID) {
		// The geometric types' comparisons are operators of their own
		// (box = box compares areas; point has none), not btree's.
		cmpFn = nil
	}
	// An unknown side takes the other side's type when an operator over
	// two of that type exists (PostgreSQL's binary_oper_exact); two
	// unknowns compare as text. Otherwise the registry resolves them.
	switch {
	case lt.OID == exec.OIDUnknown && rt.OID == exec.OIDUnknown:
		if cmpFn == nil {
			break
		}
		if l, err = a.coerce(l, exec.TText, "", loc); err != nil {
			return nil, err
		}
		if r, err = a.coerce(r, exec.TText, "", loc); err != nil {
			return nil, err
		}
	case lt.OID == exec.OIDUnknown && (cmpFn != nil || exec.HasExact(op, rt.OID, rt.OID)):
		if l, err = a.coerce(l, baseType(rt), "", loc); err != nil {
			return nil, err
		}
	case rt.OID == exec.OIDUnknown && (cmpFn != nil || exec.HasExact(op, lt.OID, lt.OID)):
		if r, err = a.coerce(r, baseType(lt), "", loc); err != nil {
			return nil, err
		}
	}
	lt, rt = l.Type(), r.Type()
	if cmpFn != nil && (lt.OID == exec.OIDCIText) != (rt.OID == exec.OIDCIText) {
		// citext against another string type is text against it: text
		// converts to citext by assignment only, so PostgreSQL resolves
		// to text's case-sensitive operator.
		if l, r, err = a.ciTextAsText(l, r, loc); err != nil {
			return nil, err
		}
		lt, rt = l.Type(), r.Type()
	}
	if cmpFn != nil {
		lr, rr := exec.NumericRank(lt.OID), exec.NumericRank(rt.OID)
		switch {
		case lr > 0 && rr > 0 && lr != rr:
			common := rankType[max(lr, rr)]
			if l, err = a.coerce(l, common, "", loc); err != nil {
				return nil, err
			}
			if r, err = a.coerce(r, common, "", loc); err != nil {
				return nil, err
			}
		case lt.OID != rt.OID && exec.TypeCategory(lt.OID) == 'D' && exec.CanCoerce(lt.OID, rt.OID):
			// date < timestamp < timestamptz: the narrower side widens.
			if l, err = a.coerce(l, baseType(rt), "", loc); err != nil {
				return nil, err
			}
		case lt.OID != rt.OID && exec.TypeCategory(rt.OID) == 'D' && exec.CanCoerce(rt.OID, lt.OID):
			if r, err = a.coerce(r, baseType(lt), "", loc); err != nil {
				return nil, err
			}
		case exec.KindOf(lt.OID) != exec.KindOf(rt.OID) || exec.KindOf(lt.OID) == exec.KindNull:
			return nil, errNoOperator(op, lt, rt, loc)
		case exec.IsArrayType(lt.OID) && lt.OID != rt.OID,
			exec.KindOf(lt.OID) == exec.KindRange && lt.OID != rt.OID,
			exec.KindOf(lt.OID) == exec.KindMultirange && lt.OID != rt.OID:
			// anyarray op anyarray (anyrange op anyrange): both sides
			// of one type.
			return nil, errNoOperator(op, lt, rt, loc)
		case lt.OID == exec.OIDJSONB && rt.OID == exec.OIDJSONB:
			cmpFn = exec.JSONBCompareOp(op)
		case lt.OID == exec.OIDJSON || rt.OID == exec.OIDJSON:
			// json has no comparison operators.
			return nil, errNoOperator(op, lt, rt, loc)
		case lt.OID == exec.OIDHstore && op != "=" && op != "<>" && op != "!=":
			// hstore has = and <>; its btree order is #<# and kin.
			return nil, errNoOperator(op, lt, rt, loc)
		case lt.OID == exec.OIDBpchar && rt.OID == exec.OIDBpchar,
			lt.OID == exec.OIDBpchar && rt.OID == exec.OIDVarchar,
			lt.OID == exec.OIDVarchar && rt.OID == exec.OIDBpchar:
			// char(n) compares without its padding; against varchar the
			// resolution picks bpchar = bpchar (one exact match).
			cmpFn = funcs.BpcharCompareOp(op)
		case lt.OID == exec.OIDBpchar && exec.TypeCategory(rt.OID) == 'S':
			if l, err = a.cast(l, exec.TText, false, loc); err != nil {
				return nil, err
			}
		case rt.OID == exec.OIDBpchar && exec.TypeCategory(lt.OID) == 'S':
			if r, err = a.cast(r, exec.TText, false, loc); err != nil {
				return nil, err
			}
		}
		return &exec.Call{Name: op, Fn: cmpFn, Args: []exec.Expr{l, r}, Strict: true, T: exec.TBool}, nil
	}
	return a.call(op, []exec.Expr{l, r}, loc, true)
}

func errNoOperator(op string, lt, rt exec.T, loc int32) error {
	return WithPos(pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", exec.TypeName(lt.OID), op, exec.TypeName(rt.OID)).
		WithHint("No operator matches the given name and argument types. You might need to add explicit type casts."), loc)
}

// ciTextAsText converts the citext side of l op r, the other side being of
// another string type, to text; other operands are returned unchanged.
func (a *analyzer) ciTextAsText(l, r exec.Expr, loc int32) (exec.Expr, exec.Expr, error) {
	var err error
	switch lt, rt := l.Type().OID, r.Type().OID; {
	case lt == exec.OIDCIText && isStringType(rt):
		l, err = a.coerce(l, exec.TText, "", loc)
	case rt == exec.OIDCIText && isStringType(lt):
		r, err = a.coerce(r, exec.TText, "", loc)
	}
	return l, r, err
}

// isStringType reports whether a value of type oid is a string to the
// executor: text, varchar, bpchar, name, "char", bit strings, xml (all
// KindText) and citext.
func isStringType(oid uint32) bool {
	k := exec.KindOf(oid)
	return k == exec.KindText || k == exec.KindCIText
}

// baseType drops a type's modifier: varchar(3) compares as varchar.
func baseType(t exec.T) exec.T { return exec.T{OID: t.OID, Typmod: -1} }

// coerceArgs coerces each of a call's args, in place, to the type that
// overload resolution chose for it.
func (a *analyzer) coerceArgs(args []exec.Expr, want []exec.T, loc int32) error {
	for i, e := range args {
		var err error
		if args[i], err = a.coerce(e, want[i], "", loc); err != nil {
			return err
		}
	}
	return nil
}

// coerce converts e to type t implicitly (or by assignment): unknown
// literals and parameters take t, numeric types widen. what names the
// context for the error message ("argument of AND").
func (a *analyzer) coerce(e exec.Expr, t exec.T, what string, loc int32) (exec.Expr, error) {
	et := e.Type()
	if et == t || (et.OID == t.OID && t.Typmod < 0) {
		return e, nil
	}
	if et.OID == exec.OIDUnknown {
		return a.cast(e, t, false, loc)
	}
	er, tr := exec.NumericRank(et.OID), exec.NumericRank(t.OID)
	if er > 0 && tr > 0 && er < tr {
		return a.cast(e, t, false, loc)
	}
	if exec.KindOf(et.OID) == exec.KindText && exec.KindOf(t.OID) == exec.KindText && et.OID != exec.OIDXML && t.OID != exec.OIDXML {
		return a.cast(e, t, false, loc)
	}
	if exec.CanCoerce(et.OID, t.OID) && exec.CastFn(et, t, false) != nil {
		return a.cast(e, t, false, loc)
	}
	if exec.IsRegType(et.OID) && t.OID == exec.OIDOid || et.OID == exec.OIDOid && exec.IsRegType(t.OID) {
		return a.cast(e, t, false, loc) // binary-coercible both ways, implicitly
	}
	if a.implicitUserCast(et.OID, t.OID) {
		return a.cast(e, t, false, loc)
	}
	if what != "" {
		return nil, WithPos(pgerr.New(pgerr.DatatypeMismatch, "%s must be type %s, not type %s", what, exec.TypeName(t.OID), exec.TypeName(et.OID)), loc)
	}
	return nil, WithPos(pgerr.New(pgerr.DatatypeMismatch, "cannot convert type %s to %s", exec.TypeName(et.OID), exec.TypeName(t.OID)), loc)
}

// assign converts e to a column's type for INSERT or UPDATE: PostgreSQL's
// assignment casts, which also narrow numbers and cut or check lengths.
func (a *analyzer) assign(e exec.Expr, t exec.T, col string, loc int32) (exec.Expr, error) {
	if out, ok, err := a.assignCast(e, t, loc); ok || err != nil {
		return out, err
	}
	return nil, WithPos(pgerr.New(pgerr.DatatypeMismatch, "column %q is of type %s but expression is of type %s", col, a.typeName(t), a.typeName(e.Type())).
		WithHint("You will need to rewrite or cast the expression."), loc)
}

// assignCast converts e to t by an assignment cast; ok is false when
// there is none.
func (a *analyzer) assignCast(e exec.Expr, t exec.T, loc int32) (exec.Expr, bool, error) {
	if row, ok := e.(*exec.RowExpr); ok && exec.KindOf(t.OID) == exec.KindRecord && t.OID != exec.OIDRecord {
		out, err := a.rowToComposite(row, t, false, loc)
		return out, true, err
	}
	et := e.Type()
	if et.OID == exec.OIDUnknown || et == t ||
		exec.NumericRank(et.OID) > 0 && exec.NumericRank(t.OID) > 0 || isStringType(et.OID) && isStringType(t.OID) ||
		assignable(et.OID, t.OID) {
		out, err := a.cast(e, t, false, loc)
		return out, true, err
	}
	if uc, err := a.userCast(et.OID, t.OID, false); err != nil || uc != nil {
		if err != nil {
			return nil, true, err
		}
		out, err := a.applyUserCast(uc, e, t, false, loc)
		return out, true, err
	}
	return nil, false, nil
}

// cast converts e to t; explicit casts allow more conversions. A constant
// is converted now, so that bad literals fail at planning, as in
// PostgreSQL.
func (a *analyzer) cast(e exec.Expr, t exec.T, explicit bool, loc int32) (exec.Expr, error) {
	if _, row := e.(*exec.RowExpr); !row && exec.KindOf(t.OID) == exec.KindRecord && t.OID != exec.OIDRecord && e.Type().OID != t.OID {
		// A value made a composite type passes the domains of its
		// attributes (rowToComposite checks those of ROW(...)).
		r, err := a.castNoDomains(e, t, explicit, loc)
		if err != nil {
			return nil, err
		}
		checked, err := a.attributeDomainChecks(r, t)
		if err != nil || checked == r {
			return checked, err
		}
		if c, ok := r.(*exec.Const); ok {
			// A literal is checked as it is read, as PostgreSQL's input
			// function does: now, at the literal's position.
			if _, err := checked.Eval(&exec.Env{Ctx: a.ctx, Settings: a.s.Settings(), Session: a.s}, nil); err != nil {
				if pe, ok := err.(*pgerr.Error); ok {
					return nil, WithPos(pe, loc)
				}
				return nil, err
			}
			return c, nil
		}
		return checked, nil
	}
	return a.castNoDomains(e, t, explicit, loc)
}

// castNoDomains is cast without the checks of a composite type's
// attribute domains.
func (a *analyzer) castNoDomains(e exec.Expr, t exec.T, explicit bool, loc int32) (exec.Expr, error) {
	if row, ok := e.(*exec.RowExpr); ok && exec.KindOf(t.OID) == exec.KindRecord && t.OID != exec.OIDRecord {
		return a.rowToComposite(row, t, explicit, loc)
	}
	if exec.IsRegType(t.OID) || exec.IsRegType(e.Type().OID) {
		if r, ok, err := a.regCast(e, t, loc); ok {
			return r, err // OID aliases need the catalog (regclass.go)
		}
	}
	if p, ok := e.(*exec.Param); ok && p.T.OID == exec.OIDUnknown {
		// The parameter may have been typed by another of its uses since
		// this one was analyzed: it cannot be both types.
		if prev := a.params[p.Idx]; prev.OID != exec.OIDUnknown && prev.OID != t.OID {
			return nil, WithPos(pgerr.New(pgerr.AmbiguousParameter, "inconsistent types deduced for parameter $%d", p.Idx+1).
				WithDetail("%s versus %s", exec.TypeName(prev.OID), exec.TypeName(t.OID)), loc)
		}
		a.params[p.Idx] = t
		return &exec.Param{Idx: p.Idx, T: t}, nil
	}
	if c, ok := e.(*exec.Const); ok && c.T.OID == exec.OIDUnknown && t.Typmod >= 0 && loc >= 0 && lengthTypmod(t.OID) {
		// A literal is read without the length or precision, which
		// applies after: PostgreSQL reports an input error at the
		// literal's position, a length or precision error (applied
		// later) without one.
		read, err := a.cast(e, exec.T{OID: t.OID, Typmod: -1}, explicit, loc)
		if err != nil {
			return nil, err
		}
		return a.cast(read, t, explicit, -1)
	}
	if uc, err := a.userCast(e.Type().OID, t.OID, explicit); err != nil {
		return nil, err
	} else if uc != nil {
		return a.applyUserCast(uc, e, t, explicit, loc) // cast.go
	}
	return a.castBuiltin(e, t, explicit, loc)
}

// castBuiltin converts e to t by the built-in casts (exec.CastFn).
func (a *analyzer) castBuiltin(e exec.Expr, t exec.T, explicit bool, loc int32) (exec.Expr, error) {
	fn := exec.CastFn(e.Type(), t, explicit)
	if fn == nil {
		return nil, WithPos(pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to %s", a.typeName(e.Type()), a.typeName(t)), loc)
	}
	call := &exec.Call{Name: "cast", Fn: fn, Args: []exec.Expr{e}, Strict: true, T: t}
	if c, ok := e.(*exec.Const); ok {
		d, err := call.Eval(&exec.Env{Settings: a.s.Settings(), Session: a.s}, nil)
		if c.T.OID != exec.OIDUnknown {
			// Only a literal's input error has a position: converting a
			// value of a type is a function, which PostgreSQL folds
			// while planning, where errors have none.
			loc = -1
		}
		if err != nil {
			if pe, ok := exec.PgError(err); ok {
				return nil, WithPos(pe, loc)
			}
			return nil, err
		}
		return &exec.Const{D: d, T: t}, nil
	}
	return call, nil
}

// lengthTypmod reports whether a type's modifier is a length or precision
// checked after its input (char(n), varchar(n), numeric(p,s), bit(n)), not
// one that changes how the input reads (interval's fields).
func lengthTypmod(oid uint32) bool {
	if e := exec.ElemType(exec.T{OID: oid}); e.OID != 0 {
		oid = e.OID // an array's elements take the modifier
	}
	switch oid {
	case exec.OIDBpchar, exec.OIDVarchar, exec.OIDNumeric, exec.OIDBit, exec.OIDVarbit:
		return true
	}
	return false
}

func (a *analyzer) coalesce(c *pg.CoalesceExpr, sc *scope) (exec.Expr, error) {
	args, t, err := a.commonArgs(c.Args, sc, "COALESCE", c.Location)
	if err != nil {
		return nil, err
	}
	return &exec.Coalesce{Args: args, T: t}, nil
}

// minMax plans GREATEST and LEAST: the arguments take one common type,
// as COALESCE's do.
func (a *analyzer) minMax(m *pg.MinMaxExpr, sc *scope) (exec.Expr, error) {
	greatest := m.Op == pg.MinMaxOp_IS_GREATEST
	what := map[bool]string{true: "GREATEST", false: "LEAST"}[greatest]
	args, t, err := a.commonArgs(m.Args, sc, what, m.Location)
	if err != nil {
		return nil, err
	}
	if !exec.HasBtreeOrdering(t.OID) {
		return nil, pgerr.New(pgerr.UndefinedFunction, "could not identify a comparison function for type %s", exec.TypeName(t.OID))
	}
	return &exec.MinMax{Args: args, T: t, Greatest: greatest}, nil
}

// commonArgs analyzes expressions that must share one type (COALESCE, CASE
// results): unknowns take the first known type.
func (a *analyzer) commonArgs(nodes []*pg.Node, sc *scope, what string, loc int32) ([]exec.Expr, exec.T, error) {
	var args []exec.Expr
	t := exec.TUnknown
	for _, n := range nodes {
		e, err := a.expr(n, sc)
		if err != nil {
			return nil, t, err
		}
		args = append(args, e)
		et := e.Type()
		switch {
		case et.OID == exec.OIDUnknown:
		case t.OID == exec.OIDUnknown:
			t = baseType(et)
		case exec.NumericRank(et.OID) > exec.NumericRank(t.OID) && exec.NumericRank(t.OID) > 0:
			t = baseType(et)
		}
	}
	if t.OID == exec.OIDUnknown {
		t = exec.TText
	}
	for i, e := range args {
		var err error
		if args[i], err = a.coerce(e, t, "", loc); err != nil {
			if e.Type().OID == exec.OIDUnknown {
				return nil, t, err // a literal that is not a t: its input error
			}
			return nil, t, WithPos(pgerr.New(pgerr.DatatypeMismatch, "%s types %s and %s cannot be matched", what, exec.TypeName(t.OID), exec.TypeName(e.Type().OID)), loc)
		}
	}
	return args, t, nil
}

func (a *analyzer) caseExpr(c *pg.CaseExpr, sc *scope) (exec.Expr, error) {
	var arg exec.Expr
	var err error
	if c.Arg != nil {
		if arg, err = a.expr(c.Arg, sc); err != nil {
			return nil, err
		}
	}
	var whens []exec.Expr
	var results []*pg.Node
	for _, w := range c.Args {
		cw := w.GetCaseWhen()
		cond, err := a.expr(cw.Expr, sc)
		if err != nil {
			return nil, err
		}
		if arg != nil {
			if cond, err = a.binary("=", arg, cond, cw.Location); err != nil {
				return nil, err
			}
		} else if cond, err = a.coerce(cond, exec.TBool, "argument of CASE/WHEN", cw.Location); err != nil {
			return nil, err
		}
		whens = append(whens, cond)
		results = append(results, cw.Result)
	}
	if c.Defresult != nil {
		results = append(results, c.Defresult)
	}
	thens, t, err := a.commonArgs(results, sc, "CASE", c.Location)
	if err != nil {
		return nil, err
	}
	ce := &exec.Case{Whens: whens, Thens: thens[:len(whens)], T: t}
	if c.Defresult != nil {
		ce.Else = thens[len(whens)]
	}
	return ce, nil
}

func (a *analyzer) funcCall(f *pg.FuncCall, sc *scope) (exec.Expr, error) {
	name := OpName(f.Funcname)
	if f.Over != nil {
		return a.windowCall(f, sc)
	}
	if a.isAggregate(f) {
		return a.aggCall(f, sc)
	}
	if isSeries(f) && !a.timeSeries(f, sc) {
		return a.srfCall(f, sc)
	}
	if a.isSRF(name) && !a.hasFunc(name) || isSessionSRF(name) {
		return a.srfListCall(f, sc)
	}
	if e, ok, err := a.funcCallMore(f, sc); ok {
		return e, err
	}
	if !a.hasFunc(name) || len(f.Funcname) > 1 {
		if e, ok, err := a.userFuncCall(f, sc); ok {
			return e, err
		}
		if e, ok, err := a.rangeConstructorCall(f, sc); ok {
			return e, err
		}
	}
	var args []exec.Expr
	for _, n := range f.Args {
		e, err := a.expr(n, sc)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	if a.hasFunc(name) {
		return a.call(name, args, f.Location, false)
	}
	var types []string
	for _, e := range args {
		types = append(types, exec.TypeName(e.Type().OID))
	}
	return nil, WithPos(pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(types, ", ")).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts."), f.Location)
}

// hasFunc reports whether name is a built-in function the statement may
// call: one of an extension counts where the extension is installed.
func (a *analyzer) hasFunc(name string) bool { return exec.HasFuncIn(a.s.Settings(), name) }

// isSRF is hasFunc for the set-returning functions.
func (a *analyzer) isSRF(name string) bool { return exec.IsSRFIn(a.s.Settings(), name) }

// isUnknownLiteral reports whether a cast is a literal's (or NULL's) to
// type unknown, which leaves it untyped, as PostgreSQL.
func isUnknownLiteral(tc *pg.TypeCast) bool {
	names := NameList(tc.TypeName.Names)
	if len(names) == 2 && names[0] == "pg_catalog" {
		names = names[1:]
	}
	return len(names) == 1 && names[0] == "unknown" && len(tc.TypeName.ArrayBounds) == 0 && len(tc.TypeName.Typmods) == 0 &&
		tc.Arg.GetAConst() != nil && (tc.Arg.GetAConst().GetSval() != nil || tc.Arg.GetAConst().Isnull)
}
