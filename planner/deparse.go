package planner

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// RenderExpr renders a stored expression of table t (a column default or
// a CHECK constraint) as PostgreSQL's pg_get_expr and pg_get_constraintdef
// print it, so that psql's \d and information_schema show what PostgreSQL
// shows. PostgreSQL prints its analyzed node tree (ruleutils.c); we print
// the parse tree, with the types analysis gives its parts, following the
// same rules:
//
//   - an untyped literal is printed with the type it resolves to,
//     'abc'::text; an integer literal bare, a negative one as '-1'::integer;
//     a numeric one bare when it has a point or exponent;
//   - at an operator or function argument, the implicit casts PostgreSQL
//     inserts are shown (an integer compared with a numeric column is
//     10::numeric, a varchar column compared with text is c::text); at the
//     top of a default they are not;
//   - without pretty, every operator, boolean and IS [NOT] NULL expression
//     is parenthesized; with it, only where PostgreSQL's precedence rules
//     need (isSimpleNode);
//   - IN lists become = ANY (ARRAY[...]), BETWEEN two comparisons, LIKE ~~.
//
// Anything else falls back to pg_query's deparser.
func RenderExpr(s Session, env *exec.Env, t *sqldef.Table, text string, pretty bool) string {
	n, err := ParseExpr(qualifySequences(env, t, text))
	if err != nil {
		return text
	}
	tbl := exec.NewTable(t)
	a := &analyzer{ctx: env.Ctx, s: s, tx: env.Txn}
	d := &deparser{a: a, sc: tableScope(tbl, t.Name), t: tbl, pretty: pretty, settings: s.Settings(), env: env}
	// A default is assigned to its column: literals take the column's
	// type and the assignment cast is not shown. Which column it is, the
	// stored text tells (pg_get_expr has only the relation).
	top := exec.TBool
	for _, c := range tbl.Cols {
		if !c.Dropped && t.Columns[c.Pos].Default == text {
			top = c.Type
			break
		}
	}
	return d.expr(n, nil, top, false)
}

type deparser struct {
	a        *analyzer
	sc       *scope
	t        *exec.Table
	pretty   bool
	settings *exec.Settings
	env      *exec.Env
	// qualify prints column references with their relation's name, as
	// PostgreSQL does inside a subquery (sublink).
	qualify bool

	// Queries (deparse_query.go): ns names the FROM items column
	// references print with; indent is the indentation level of the
	// query being printed, indentOn whether it indents at all, wrap its
	// wrap column; visible says which schema-qualified relations the
	// search path finds.
	ns       *dpNS
	indent   int
	indentOn bool
	wrap     int
	visible  map[*pg.RangeVar]bool
	// fallbacks, when set, is told whether pg_query's deparser printed
	// any part (FreezeViewQuery).
	fallbacks *bool
	// storing prints a query for a view to keep (FreezeViewQuery):
	// names as written, whole rows without casts.
	storing bool
	// renamed maps the references to relations being renamed to the
	// references by their new names (RefreezeRenamed).
	renamed map[*pg.RangeVar]*pg.RangeVar
}

// typeOf returns the type analysis gives n (unknown when it fails).
func (d *deparser) typeOf(n *pg.Node) exec.T {
	if c := n.GetAConst(); c != nil && c.GetSval() != nil {
		return exec.TUnknown
	}
	e, err := d.a.expr(n, d.sc)
	if err != nil {
		return exec.TUnknown
	}
	return e.Type()
}

// operatorOperands returns the operand types of the operator analysis
// resolves binary expression x to, when it is a call of one.
func (d *deparser) operatorOperands(x *pg.A_Expr) (exec.T, exec.T, bool) {
	e, err := d.a.expr(&pg.Node{Node: &pg.Node_AExpr{AExpr: x}}, d.sc)
	if err != nil {
		return exec.T{}, exec.T{}, false
	}
	c, ok := e.(*exec.Call)
	if !ok || len(c.Args) != 2 {
		return exec.T{}, exec.T{}, false
	}
	lt, rt := c.Args[0].Type(), c.Args[1].Type()
	if lt.OID == exec.OIDUnknown || rt.OID == exec.OIDUnknown {
		return exec.T{}, exec.T{}, false
	}
	return exec.T{OID: lt.OID, Typmod: -1}, exec.T{OID: rt.OID, Typmod: -1}, true
}

// nodeKind classifies nodes for the parenthesization rules.
type nodeKind int

const (
	kindOther nodeKind = iota
	kindOp             // an operator expression
	kindBool           // AND, OR, NOT
	kindNullTest
	kindFunc
	kindConst
)

// expr prints n. parent is the enclosing node (nil at the top), want the
// type an untyped literal takes here, and implicit whether PostgreSQL
// would show an implicit cast to want here.
func (d *deparser) expr(n *pg.Node, parent *pg.Node, want exec.T, implicit bool) string {
	switch {
	case n.GetAConst() != nil:
		return d.constant(n.GetAConst(), want, implicit)
	case n.GetColumnRef() != nil && d.ns != nil:
		if names, ok := fieldNames(n.GetColumnRef()); ok {
			if c := d.ns.column(names); c != nil {
				return d.withCast(d.colPrint(c), n, c.t, want, implicit)
			}
		}
		if s, ok := d.wholeRow(n, false); ok {
			return s
		}
	case n.GetRowExpr() != nil && d.ns != nil:
		// ROW(...), or (a, b) when written without ROW; arguments that
		// are whole rows show their type.
		var args []string
		for _, x := range n.GetRowExpr().Args {
			s, ok := d.wholeRow(x, true)
			if !ok {
				s = d.expr(x, n, d.typeOf(x), false)
			}
			args = append(args, s)
		}
		if n.GetRowExpr().RowFormat == pg.CoercionForm_COERCE_IMPLICIT_CAST {
			return "(" + strings.Join(args, ", ") + ")"
		}
		return "ROW(" + strings.Join(args, ", ") + ")"
	case n.GetColumnRef() != nil:
		f := n.GetColumnRef().Fields
		name := QuoteIdent(f[len(f)-1].GetString_().GetSval())
		if d.qualify {
			name = d.qualifier(n.GetColumnRef()) + name
		}
		return d.withCast(name, n, d.typeOf(n), want, implicit)
	case n.GetAIndirection() != nil && d.ns != nil && n.GetAIndirection().Arg.GetColumnRef() != nil:
		// (relation.column).field
		ind := n.GetAIndirection()
		s := "(" + d.expr(ind.Arg, n, exec.TUnknown, false) + ")"
		ok := true
		for _, f := range ind.Indirection {
			if f.GetString_() == nil {
				ok = false
				break
			}
			s += "." + QuoteIdent(f.GetString_().Sval)
		}
		if ok {
			return s
		}
	case n.GetSubLink() != nil && d.ns != nil:
		if s, ok := d.sublinkQuery(n.GetSubLink(), n); ok {
			return s
		}
	case n.GetSubLink() != nil:
		if s, ok := d.sublink(n.GetSubLink()); ok {
			return s
		}
	case n.GetTypeCast() != nil:
		return d.typeCast(n.GetTypeCast(), n)
	case n.GetAExpr() != nil:
		return d.aexpr(n.GetAExpr(), n)
	case n.GetBoolExpr() != nil:
		return d.boolExpr(n.GetBoolExpr(), n)
	case n.GetNullTest() != nil:
		nt := n.GetNullTest()
		op := " IS NULL"
		if nt.Nulltesttype == pg.NullTestType_IS_NOT_NULL {
			op = " IS NOT NULL"
		}
		return d.paren(d.child(nt.Arg, n, d.typeOf(nt.Arg), false)+op, kindNullTest)
	case n.GetFuncCall() != nil:
		return d.funcCall(n.GetFuncCall(), n, want, implicit)
	case n.GetSqlvalueFunction() != nil:
		return sqlValueFunction(n.GetSqlvalueFunction())
	case n.GetCoalesceExpr() != nil:
		var args []string
		for _, x := range n.GetCoalesceExpr().Args {
			args = append(args, d.expr(x, n, want, false))
		}
		return "COALESCE(" + strings.Join(args, ", ") + ")"
	}
	d.fellBack()
	s, err := DeparseExpr(n)
	if err != nil {
		return "?"
	}
	return s
}

// fellBack records that pg_query's deparser printed part of an
// expression: its column references are then as written, not resolved.
func (d *deparser) fellBack() {
	if d.fallbacks != nil {
		*d.fallbacks = true
	}
}

// paren wraps s in parentheses when not pretty: PostgreSQL's operator,
// boolean and null-test expressions parenthesize themselves then.
func (d *deparser) paren(s string, k nodeKind) string {
	if d.pretty {
		return s
	}
	return "(" + s + ")"
}

// child prints an operand n of parent, adding the parentheses pretty mode
// needs around it (get_rule_expr_paren).
func (d *deparser) child(n, parent *pg.Node, want exec.T, implicit bool) string {
	s := d.expr(n, parent, want, implicit)
	if d.pretty && !d.simple(n, parent) {
		return "(" + s + ")"
	}
	return s
}

// simple is PostgreSQL's isSimpleNode for pretty printing: whether n needs
// no parentheses as an operand of parent.
func (d *deparser) simple(n, parent *pg.Node) bool {
	switch kindOf(n) {
	case kindOp:
		if pa := parent.GetAExpr(); pa != nil && kindOf(parent) == kindOp {
			op, pop := OpName(n.GetAExpr().Name), OpName(pa.Name)
			lo, hi := strings.Contains("+-", op), strings.Contains("*/%", op)
			plo, phi := strings.Contains("+-", pop), strings.Contains("*/%", pop)
			if len(op) != 1 || len(pop) != 1 || !(lo || hi) || !(plo || phi) {
				return false
			}
			if hi && plo {
				return true
			}
			if lo && phi {
				return false
			}
			return pa.Lexpr == n // (a - b) - c, not a - (b - c)
		}
		return parent.GetBoolExpr() != nil || parent.GetCoalesceExpr() != nil || parent.GetCaseExpr() != nil
	case kindNullTest:
		return parent.GetBoolExpr() != nil || parent.GetCoalesceExpr() != nil || parent.GetCaseExpr() != nil
	case kindBool:
		pb := parent.GetBoolExpr()
		if pb == nil {
			return parent.GetCoalesceExpr() != nil || parent.GetCaseExpr() != nil
		}
		switch n.GetBoolExpr().Boolop {
		case pg.BoolExprType_NOT_EXPR, pg.BoolExprType_AND_EXPR:
			return pb.Boolop == pg.BoolExprType_AND_EXPR || pb.Boolop == pg.BoolExprType_OR_EXPR
		case pg.BoolExprType_OR_EXPR:
			return pb.Boolop == pg.BoolExprType_OR_EXPR
		}
		return false
	}
	return true
}

func kindOf(n *pg.Node) nodeKind {
	switch {
	case n.GetAExpr() != nil:
		return kindOp
	case n.GetBoolExpr() != nil:
		return kindBool
	case n.GetNullTest() != nil:
		return kindNullTest
	case n.GetFuncCall() != nil:
		return kindFunc
	case n.GetAConst() != nil:
		return kindConst
	}
	return kindOther
}

// typeLabel is a type as a cast prints it.
func (d *deparser) typeLabel(t exec.T) string { return exec.FormatTypeIn(d.settings, t.OID, t.Typmod) }

// constant prints a literal as get_const_expr does; an untyped one takes
// want (text when unknown).
func (d *deparser) constant(c *pg.A_Const, want exec.T, implicit bool) string {
	switch {
	case c.Isnull:
		return "NULL"
	case c.GetBoolval() != nil:
		if c.GetBoolval().Boolval {
			return "true"
		}
		return "false"
	case c.GetIval() != nil:
		v := c.GetIval().Ival
		s := strconv.Itoa(int(v))
		if v < 0 {
			s = "'" + s + "'::integer"
		}
		return d.castShown(s, exec.TInt4, want, implicit, v >= 0)
	case c.GetFval() != nil:
		f := c.GetFval().Fval
		if _, err := strconv.ParseInt(f, 10, 64); err == nil {
			return d.castShown("'"+f+"'::bigint", exec.TInt8, want, implicit, false)
		}
		if nd, err := exec.ParseText(exec.TNumeric, f, d.settings); err == nil {
			// PostgreSQL prints the constant's value: 1e3 is 1000.
			f = string(exec.AppendText(nil, exec.TNumeric, nd, d.settings))
		}
		if f != "" && f[0] >= '0' && f[0] <= '9' && strings.ContainsAny(f, ".eE") {
			return d.castShown(f, exec.TNumeric, want, implicit, true)
		}
		return d.castShown("'"+f+"'::numeric", exec.TNumeric, want, implicit, false)
	case c.GetSval() != nil:
		t := want
		if t.OID == exec.OIDUnknown {
			t = exec.TText
		}
		v := c.GetSval().Sval
		if t.OID == exec.OIDRegclass {
			if d.env == nil {
				d.fellBack()
			} else if _, name, ok, err := d.a.s.ResolveRegclass(d.env, v); err == nil && ok {
				v = name
			}
		} else if dt, err := exec.ParseText(t, v, d.settings); err == nil {
			v = string(exec.AppendText(nil, t, dt, d.settings))
			// PostgreSQL folds the literal into a constant of the type and
			// prints integers, numerics and booleans bare, as written
			// numbers are (get_const_expr): DEFAULT '0' reads back as 0.
			bare := v
			if t.OID == exec.OIDNumeric && t.Typmod >= 0 {
				// The constant is the literal's; the type modifier is a
				// coercion applied to it, not shown.
				if nd, err := exec.ParseText(exec.TNumeric, c.GetSval().Sval, d.settings); err == nil {
					bare = string(exec.AppendText(nil, exec.TNumeric, nd, d.settings))
					v = bare // quoted below: '0'::numeric
				}
			}
			switch {
			case t.OID == exec.OIDBool && dt.Bool():
				return "true"
			case t.OID == exec.OIDBool:
				return "false"
			case (t.OID == exec.OIDInt4 || t.OID == exec.OIDNumeric && strings.ContainsAny(bare, ".eE")) &&
				bare != "" && bare[0] >= '0' && bare[0] <= '9' && strings.Trim(bare, "0123456789.eE+-") == "":
				// A numeric without a point or exponent would read back as
				// an integer: PostgreSQL labels it ('0'::numeric).
				return bare
			}
		}
		return "'" + strings.ReplaceAll(v, "'", "''") + "'::" + d.typeLabel(exec.T{OID: t.OID, Typmod: -1})
	}
	return "?"
}

// castShown adds to a printed constant of type have the implicit cast
// PostgreSQL shows when it must become want (at an operator or function
// argument). bare says the constant was printed without a type label, so
// a cast needs parentheses without pretty.
func (d *deparser) castShown(s string, have, want exec.T, implicit, bare bool) string {
	if !implicit || !needsCast(have, want) {
		return s
	}
	if d.pretty || s == "NULL" { // a NULL constant prints NULL::type, as get_const_expr
		return s + "::" + d.typeLabel(exec.T{OID: want.OID, Typmod: -1})
	}
	return "(" + s + ")::" + d.typeLabel(exec.T{OID: want.OID, Typmod: -1})
}

// withCast adds the implicit cast of a column (or other operand) of type
// have to want, where PostgreSQL shows one.
func (d *deparser) withCast(s string, n *pg.Node, have, want exec.T, implicit bool) string {
	if !implicit || !needsCast(have, want) {
		return s
	}
	if d.pretty && kindOf(n) != kindOp || s == "NULL" {
		return s + "::" + d.typeLabel(exec.T{OID: want.OID, Typmod: -1})
	}
	return "(" + s + ")::" + d.typeLabel(exec.T{OID: want.OID, Typmod: -1})
}

// needsCast reports whether a value of type have is converted to want by
// an implicit cast PostgreSQL shows, rather than by a cross-type operator
// (the integer types among themselves, float4 with float8) or not at all.
func needsCast(have, want exec.T) bool {
	switch {
	case want.OID == exec.OIDUnknown || have.OID == exec.OIDUnknown || have.OID == want.OID:
		return false
	case isIntType(have.OID) && isIntType(want.OID):
		return false
	case isFloatType(have.OID) && isFloatType(want.OID):
		return false
	}
	return true
}

func isIntType(oid uint32) bool {
	return oid == exec.OIDInt2 || oid == exec.OIDInt4 || oid == exec.OIDInt8
}
func isFloatType(oid uint32) bool { return oid == exec.OIDFloat4 || oid == exec.OIDFloat8 }

// operandTypes returns the types PostgreSQL resolves the operands of a
// binary operator to.
// concatsText reports whether || over operands of types lt and rt, one
// of them an unknown literal, is PostgreSQL's text concatenation with a
// value of a non-string type (textanycat, anytextcat) rather than an
// array's or textcat.
func concatsText(lt, rt exec.T) bool {
	if (lt.OID == exec.OIDUnknown) == (rt.OID == exec.OIDUnknown) {
		return false
	}
	other := lt
	if other.OID == exec.OIDUnknown {
		other = rt
	}
	return !exec.IsArrayType(other.OID) && exec.TypeCategory(other.OID) != 'S'
}

func operandTypes(lt, rt exec.T) (exec.T, exec.T) {
	base := func(t exec.T) exec.T { return exec.T{OID: t.OID, Typmod: -1} }
	switch {
	case lt.OID == exec.OIDUnknown && rt.OID == exec.OIDUnknown:
		return exec.TText, exec.TText
	case lt.OID == exec.OIDUnknown:
		if rt.OID == exec.OIDVarchar {
			return exec.TText, exec.TText
		}
		return base(rt), base(rt)
	case rt.OID == exec.OIDUnknown:
		if lt.OID == exec.OIDVarchar {
			return exec.TText, exec.TText
		}
		return base(lt), base(lt)
	}
	lr, rr := exec.NumericRank(lt.OID), exec.NumericRank(rt.OID)
	switch {
	case lr > 0 && rr > 0:
		if isIntType(lt.OID) && isIntType(rt.OID) || isFloatType(lt.OID) && isFloatType(rt.OID) {
			return base(lt), base(rt)
		}
		common := exec.TNumeric
		if isFloatType(lt.OID) || isFloatType(rt.OID) {
			common = exec.TFloat8
		}
		return common, common
	case exec.KindOf(lt.OID) == exec.KindText && exec.KindOf(rt.OID) == exec.KindText && lt.OID != rt.OID:
		if lt.OID == exec.OIDName || rt.OID == exec.OIDName {
			return base(lt), base(rt) // name has cross-type operators with text
		}
		return exec.TText, exec.TText
	}
	return base(lt), base(rt)
}

func (d *deparser) aexpr(x *pg.A_Expr, n *pg.Node) string {
	op := OpName(x.Name)
	switch x.Kind {
	case pg.A_Expr_Kind_AEXPR_OP, pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE:
		switch {
		case x.Kind == pg.A_Expr_Kind_AEXPR_LIKE && op == "~~", x.Kind == pg.A_Expr_Kind_AEXPR_ILIKE && op == "~~*":
		case x.Kind == pg.A_Expr_Kind_AEXPR_LIKE:
			op = map[string]string{"!~~": "!~~"}[op]
			if op == "" {
				op = "~~"
			}
		}
		if x.Lexpr == nil {
			rt := d.typeOf(x.Rexpr)
			return d.paren(op+" "+d.child(x.Rexpr, n, rt, false), kindOp)
		}
		lt, rt := d.typeOf(x.Lexpr), d.typeOf(x.Rexpr)
		if op == "||" && concatsText(lt, rt) {
			// text || anynonarray (and the reverse): the unknown side
			// is text, the other keeps its type.
			if lt.OID == exec.OIDUnknown {
				lt = exec.TText
			}
			if rt.OID == exec.OIDUnknown {
				rt = exec.TText
			}
		} else {
			unknownL, unknownR := lt.OID == exec.OIDUnknown, rt.OID == exec.OIDUnknown
			known := lt
			if unknownL {
				known = rt
			}
			lt, rt = operandTypes(lt, rt)
			if unknownL != unknownR && exec.KindOf(known.OID) != exec.KindText {
				// The literal takes the type of the operator's operand
				// that analysis chose (jsonb -> text), which is not
				// always the other operand's. (Next to a string, the
				// operator is text's: operandTypes knows.)
				if al, ar, ok := d.operatorOperands(x); ok && unknownL {
					lt = al
				} else if ok {
					rt = ar
				}
			}
		}
		return d.paren(d.child(x.Lexpr, n, lt, true)+" "+op+" "+d.child(x.Rexpr, n, rt, true), kindOp)
	case pg.A_Expr_Kind_AEXPR_IN:
		items := x.Rexpr.GetList().GetItems()
		lt := d.typeOf(x.Lexpr)
		elem := lt
		for _, it := range items {
			if t := d.typeOf(it); t.OID != exec.OIDUnknown && elem.OID == exec.OIDUnknown {
				elem = t
			}
		}
		lt, elem = operandTypes(lt, elem)
		var vals []string
		for _, it := range items {
			vals = append(vals, d.expr(it, n, elem, true))
		}
		quant := " = ANY "
		if op == "<>" {
			quant = " <> ALL "
		}
		return d.paren(d.child(x.Lexpr, n, lt, true)+quant+"(ARRAY["+strings.Join(vals, ", ")+"])", kindOp)
	case pg.A_Expr_Kind_AEXPR_OP_ANY, pg.A_Expr_Kind_AEXPR_OP_ALL:
		quant := " ANY ("
		if x.Kind == pg.A_Expr_Kind_AEXPR_OP_ALL {
			quant = " ALL ("
		}
		return d.paren(d.child(x.Lexpr, n, d.typeOf(x.Lexpr), true)+" "+op+quant+d.expr(x.Rexpr, n, exec.TUnknown, false)+")", kindOp)
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		b := x.Rexpr.GetList().GetItems()
		ge := &pg.Node{Node: &pg.Node_AExpr{AExpr: &pg.A_Expr{Kind: pg.A_Expr_Kind_AEXPR_OP, Name: []*pg.Node{pg.MakeStrNode(">=")}, Lexpr: x.Lexpr, Rexpr: b[0]}}}
		le := &pg.Node{Node: &pg.Node_AExpr{AExpr: &pg.A_Expr{Kind: pg.A_Expr_Kind_AEXPR_OP, Name: []*pg.Node{pg.MakeStrNode("<=")}, Lexpr: x.Lexpr, Rexpr: b[1]}}}
		and := &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_AND_EXPR, Args: []*pg.Node{ge, le}}}}
		if x.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN {
			lt := &pg.Node{Node: &pg.Node_AExpr{AExpr: &pg.A_Expr{Kind: pg.A_Expr_Kind_AEXPR_OP, Name: []*pg.Node{pg.MakeStrNode("<")}, Lexpr: x.Lexpr, Rexpr: b[0]}}}
			gt := &pg.Node{Node: &pg.Node_AExpr{AExpr: &pg.A_Expr{Kind: pg.A_Expr_Kind_AEXPR_OP, Name: []*pg.Node{pg.MakeStrNode(">")}, Lexpr: x.Lexpr, Rexpr: b[1]}}}
			and = &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_OR_EXPR, Args: []*pg.Node{lt, gt}}}}
		}
		return d.expr(and, n, exec.TUnknown, false)
	}
	d.fellBack()
	s, err := DeparseExpr(n)
	if err != nil {
		return "?"
	}
	return s
}

func (d *deparser) boolExpr(b *pg.BoolExpr, n *pg.Node) string {
	if b.Boolop == pg.BoolExprType_NOT_EXPR {
		return d.paren("NOT "+d.child(b.Args[0], n, exec.TBool, false), kindBool)
	}
	sep := " AND "
	if b.Boolop == pg.BoolExprType_OR_EXPR {
		sep = " OR "
	}
	var parts []string
	for _, x := range b.Args {
		parts = append(parts, d.child(x, n, exec.TBool, false))
	}
	return d.paren(strings.Join(parts, sep), kindBool)
}

// typeCast prints an explicit cast: a literal becomes a constant of the
// type, anything else arg::type.
func (d *deparser) typeCast(tc *pg.TypeCast, n *pg.Node) string {
	t, _, err := ResolveType(tc.TypeName)
	if err != nil && d.ns != nil && len(tc.TypeName.ArrayBounds) == 0 && len(tc.TypeName.Typmods) == 0 {
		// A user-defined type, by the name written.
		if _, _, _, err := d.a.resolveTypeDomain(tc.TypeName); err == nil {
			var names []string
			for _, x := range NameList(tc.TypeName.Names) {
				names = append(names, QuoteIdent(x))
			}
			inner := d.expr(tc.Arg, n, exec.TUnknown, false)
			if kindOf(tc.Arg) != kindOther && kindOf(tc.Arg) != kindFunc {
				inner = "(" + inner + ")"
			}
			return inner + "::" + strings.Join(names, ".")
		}
	}
	if err != nil {
		d.fellBack()
		s, _ := DeparseExpr(n)
		return s
	}
	if c := tc.Arg.GetAConst(); c != nil && c.GetSval() != nil {
		return d.constant(c, t, false)
	}
	if c := tc.Arg.GetAConst(); c != nil && c.Isnull {
		return "NULL::" + d.typeLabel(t) // get_const_expr's form, pretty or not
	}
	if d.typeOf(tc.Arg) == t {
		return d.expr(tc.Arg, n, t, false)
	}
	inner := d.expr(tc.Arg, n, exec.TUnknown, false)
	if !d.pretty || kindOf(tc.Arg) == kindOp || kindOf(tc.Arg) == kindBool || kindOf(tc.Arg) == kindNullTest {
		if !(d.pretty && kindOf(tc.Arg) == kindConst) {
			inner = "(" + inner + ")"
		}
	}
	if d.pretty && kindOf(tc.Arg) == kindConst && strings.HasPrefix(inner, "(") {
		inner = strings.TrimSuffix(strings.TrimPrefix(inner, "("), ")")
	}
	return inner + "::" + d.typeLabel(t)
}

// funcCall prints a function, aggregate or window function call as
// ruleutils' get_func_expr and get_agg_expr do: DISTINCT, VARIADIC, an
// aggregate's ORDER BY, WITHIN GROUP and FILTER. A window call's OVER is
// printed too, but counts as a fallback (FreezeViewQuery keeps the text
// as written), since frames and named windows are not printed.
func (d *deparser) funcCall(f *pg.FuncCall, n *pg.Node, want exec.T, implicit bool) string {
	name := OpName(f.Funcname)
	var args []string
	if f.AggStar {
		args = []string{"*"}
	}
	for i, x := range f.Args {
		t := d.typeOf(x)
		if name == "nextval" && len(f.Args) == 1 && x.GetAConst() != nil {
			t = exec.T{OID: exec.OIDRegclass, Typmod: -1} // nextval(regclass)
		}
		coerced := false
		switch {
		case f.AggWithinGroup && (name == "percentile_cont" || name == "percentile_disc"):
			// The fraction is a double precision (or an array of them),
			// its implicit cast shown.
			t, coerced = exec.TFloat8, true
			if exec.IsArrayType(d.typeOf(x).OID) {
				t = exec.ArrayType(exec.TFloat8)
			}
		case f.AggWithinGroup && i < len(f.AggOrder) && f.AggOrder[i].GetSortBy() != nil && x.GetAConst() != nil:
			// A hypothetical-set aggregate's direct argument takes the
			// type of the ORDER BY argument it stands for.
			t = d.typeOf(f.AggOrder[i].GetSortBy().Node)
		}
		a := d.expr(x, n, t, coerced)
		if f.FuncVariadic && i == len(f.Args)-1 {
			a = "VARIADIC " + a
		}
		args = append(args, a)
	}
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('(')
	if f.AggDistinct {
		b.WriteString("DISTINCT ")
	}
	b.WriteString(strings.Join(args, ", "))
	if len(f.AggOrder) > 0 && !f.AggWithinGroup {
		b.WriteString(" ORDER BY ")
		b.WriteString(d.sortItems(f.AggOrder, n))
	}
	b.WriteByte(')')
	if f.AggWithinGroup {
		b.WriteString(" WITHIN GROUP (ORDER BY ")
		b.WriteString(d.sortItems(f.AggOrder, n))
		b.WriteByte(')')
	}
	if f.AggFilter != nil {
		b.WriteString(" FILTER (WHERE ")
		b.WriteString(d.expr(f.AggFilter, n, exec.TBool, false))
		b.WriteByte(')')
	}
	if w := f.Over; w != nil {
		d.fellBack()
		b.WriteString(" OVER ")
		if w.Name != "" && len(w.PartitionClause) == 0 && len(w.OrderClause) == 0 {
			b.WriteString(QuoteIdent(w.Name))
		} else {
			var parts []string
			if len(w.PartitionClause) > 0 {
				var ps []string
				for _, p := range w.PartitionClause {
					ps = append(ps, d.expr(p, n, d.typeOf(p), false))
				}
				parts = append(parts, "PARTITION BY "+strings.Join(ps, ", "))
			}
			if len(w.OrderClause) > 0 {
				parts = append(parts, "ORDER BY "+d.sortItems(w.OrderClause, n))
			}
			b.WriteString("(" + strings.Join(parts, " ") + ")")
		}
	}
	return d.withCast(b.String(), n, d.typeOf(n), want, implicit)
}

// sortItems prints the ORDER BY items of an aggregate or window call;
// USING an operator falls back to pg_query's deparser.
func (d *deparser) sortItems(items []*pg.Node, parent *pg.Node) string {
	var out []string
	for _, it := range items {
		sb := it.GetSortBy()
		if sb == nil {
			d.fellBack()
			out = append(out, "?")
			continue
		}
		if sb.SortbyDir == pg.SortByDir_SORTBY_USING {
			// ruleutils names the operator and, to be unambiguous, where
			// NULLs go.
			op := OpName(sb.UseOp)
			nulls := " NULLS LAST"
			if sb.SortbyNulls == pg.SortByNulls_SORTBY_NULLS_FIRST ||
				sb.SortbyNulls == pg.SortByNulls_SORTBY_NULLS_DEFAULT && strings.Contains(op, ">") {
				nulls = " NULLS FIRST"
			}
			out = append(out, d.expr(sb.Node, parent, d.typeOf(sb.Node), false)+" USING "+op+nulls)
			continue
		}
		out = append(out, d.expr(sb.Node, parent, d.typeOf(sb.Node), false)+sortDirection(sb))
	}
	return strings.Join(out, ", ")
}

// sortDirection is what follows an ORDER BY item as ruleutils prints it:
// DESC, and NULLS FIRST/LAST where they are not the direction's default.
func sortDirection(sb *pg.SortBy) string {
	s := ""
	desc := sb.SortbyDir == pg.SortByDir_SORTBY_DESC
	if desc {
		s = " DESC"
	}
	switch sb.SortbyNulls {
	case pg.SortByNulls_SORTBY_NULLS_FIRST:
		if !desc {
			s += " NULLS FIRST"
		}
	case pg.SortByNulls_SORTBY_NULLS_LAST:
		if desc {
			s += " NULLS LAST"
		}
	}
	return s
}

func sqlValueFunction(f *pg.SQLValueFunction) string {
	switch f.Op {
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		return "CURRENT_DATE"
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_TIME, pg.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:
		return "CURRENT_TIME"
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		return "CURRENT_TIMESTAMP"
	case pg.SQLValueFunctionOp_SVFOP_LOCALTIME, pg.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
		return "LOCALTIME"
	case pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		return "LOCALTIMESTAMP"
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
		return "CURRENT_ROLE"
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_USER:
		return "CURRENT_USER"
	case pg.SQLValueFunctionOp_SVFOP_USER:
		return "USER"
	case pg.SQLValueFunctionOp_SVFOP_SESSION_USER:
		return "SESSION_USER"
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		return "CURRENT_CATALOG"
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		return "CURRENT_SCHEMA"
	}
	return "?"
}

// qualifySequences rewrites the nextval('seq') calls of a stored
// expression of table t that name, unqualified, a sequence of t's schema
// (a serial column's default does) to name it with its schema. Stored
// expressions keep the text they were given where PostgreSQL keeps the
// sequence's OID; printed as a regclass, the name then loses its schema
// again only where the search path finds it, as in PostgreSQL, so that
// pg_dump, which empties the search path, gets names it can load.
func qualifySequences(env *exec.Env, t *sqldef.Table, expr string) string {
	out, _ := NextvalRefs(expr, func(schema, name string) (string, bool) {
		if schema != "" {
			return "", false
		}
		_, ok, err := env.Txn.Catalog().Sequence(env.Ctx, t.Schema, name)
		if err != nil || !ok {
			return "", false
		}
		return SeqRef(t.Schema, name), true
	})
	return out
}

// qualifier is the "relation." a column reference is printed with inside
// a subquery: the name of the item of the subquery, or of an enclosing
// query, it resolves to.
func (d *deparser) qualifier(cr *pg.ColumnRef) string {
	if len(cr.Fields) > 1 {
		return QuoteIdent(cr.Fields[len(cr.Fields)-2].GetString_().GetSval()) + "."
	}
	name := cr.Fields[len(cr.Fields)-1].GetString_().GetSval()
	for sc := d.sc; sc != nil; {
		if it, c, err := sc.lookup("", name, -1); err == nil && c != nil && it != nil {
			return QuoteIdent(it.name) + "."
		}
		if sc.corr == nil {
			break
		}
		sc = sc.corr.outer
	}
	return ""
}

// sublink prints a scalar subquery of the simplest form, SELECT ... FROM
// one relation [WHERE ...], as PostgreSQL's ruleutils does (columns
// qualified, FROM and WHERE on lines of their own); ok is false for
// others, which pg_query's deparser prints.
func (d *deparser) sublink(sl *pg.SubLink) (string, bool) {
	sel := sl.Subselect.GetSelectStmt()
	if sl.SubLinkType != pg.SubLinkType_EXPR_SUBLINK || sel == nil || len(sel.FromClause) != 1 || len(sel.TargetList) == 0 ||
		sel.WithClause != nil || len(sel.GroupClause) > 0 || sel.HavingClause != nil || len(sel.SortClause) > 0 ||
		sel.LimitCount != nil || sel.LimitOffset != nil || len(sel.DistinctClause) > 0 || len(sel.WindowClause) > 0 || len(sel.LockingClause) > 0 {
		return "", false
	}
	rv := sel.FromClause[0].GetRangeVar()
	if rv == nil || rv.Alias != nil || rv.Schemaname != "" {
		return "", false
	}
	t, err := d.a.table(rv)
	if err != nil {
		return "", false
	}
	inner := *d
	inner.sc = &scope{items: []*nsItem{tableItem(t, rv.Relname)}, corr: &correlation{outer: d.sc}}
	inner.t, inner.qualify = t, true
	var targets []string
	for _, n := range sel.TargetList {
		rt := n.GetResTarget()
		if rt == nil || rt.Val == nil || rt.Val.GetColumnRef() != nil && rt.Val.GetColumnRef().Fields[len(rt.Val.GetColumnRef().Fields)-1].GetAStar() != nil {
			return "", false
		}
		s := inner.expr(rt.Val, nil, exec.TUnknown, false)
		if rt.Name != "" {
			s += " AS " + QuoteIdent(rt.Name)
		}
		targets = append(targets, s)
	}
	out := "( SELECT " + strings.Join(targets, ", ") + "\n   FROM " + QuoteIdent(rv.Relname)
	if sel.WhereClause != nil {
		out += "\n  WHERE " + inner.expr(sel.WhereClause, nil, exec.TBool, false)
	}
	return out + ")", true
}
