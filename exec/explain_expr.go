package exec

import (
	"math"
	"strconv"
	"strings"
)

// exprText prints e as PostgreSQL's EXPLAIN prints an expression
// (ruleutils' deparse without pretty-printing): every operator and test
// in parentheses, constants with their type unless an integer or a
// number, columns by the names of the row e is evaluated over (cols, one
// per position; "?" past them), parameters as $n.
func (x *explainer) exprText(e Expr, cols []string) string {
	var b strings.Builder
	x.writeExpr(&b, e, cols)
	return b.String()
}

func (x *explainer) writeExpr(b *strings.Builder, e Expr, cols []string) {
	w := func(e Expr) { x.writeExpr(b, e, cols) }
	list := func(es []Expr) {
		for i, a := range es {
			if i > 0 {
				b.WriteString(", ")
			}
			w(a)
		}
	}
	switch e := e.(type) {
	case nil:
		b.WriteString("true")
	case *ColRef:
		if e.Idx >= 0 && e.Idx < len(cols) {
			b.WriteString(cols[e.Idx])
		} else {
			b.WriteString("?column?")
		}
	case *OuterRef:
		if e.Idx < len(x.outer) {
			b.WriteString(x.outer[e.Idx])
		} else {
			b.WriteString("$" + strconv.Itoa(e.Idx))
		}
	case *Param:
		b.WriteString("$" + strconv.Itoa(e.Idx+1))
	case *Const:
		b.WriteString(x.constText(e.D, e.T))
	case *Call:
		x.writeCall(b, e, cols)
	case *BoolOp:
		if in, ok := x.inListText(e, cols); ok {
			b.WriteString(in)
			return
		}
		op := " AND "
		if e.Or {
			op = " OR "
		}
		b.WriteByte('(')
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(op)
			}
			w(a)
		}
		b.WriteByte(')')
	case *Not:
		if c, ok := e.E.(*Call); ok && len(c.Args) == 2 && negators[c.Name] != "" {
			// The planner negates an operator that has a negator.
			x.writeCall(b, &Call{Name: negators[c.Name], Args: c.Args, T: c.T}, cols)
			return
		}
		b.WriteString("(NOT ")
		w(e.E)
		b.WriteByte(')')
	case *IsNull:
		b.WriteByte('(')
		w(e.E)
		if e.Not {
			b.WriteString(" IS NOT NULL)")
		} else {
			b.WriteString(" IS NULL)")
		}
	case *BoolTest:
		b.WriteByte('(')
		w(e.E)
		b.WriteString(" IS ")
		if e.Not {
			b.WriteString("NOT ")
		}
		switch {
		case e.Want < 0:
			b.WriteString("UNKNOWN)")
		case e.Want == 1:
			b.WriteString("TRUE)")
		default:
			b.WriteString("FALSE)")
		}
	case *IsDistinct:
		b.WriteByte('(')
		w(e.L)
		if e.Not {
			b.WriteString(" IS NOT DISTINCT FROM ")
		} else {
			b.WriteString(" IS DISTINCT FROM ")
		}
		w(e.R)
		b.WriteByte(')')
	case *AnyAll:
		b.WriteByte('(')
		w(e.L)
		b.WriteString(" " + e.Op + " ")
		if e.All {
			b.WriteString("ALL (")
		} else {
			b.WriteString("ANY (")
		}
		w(e.R)
		b.WriteString("))")
	case *Case:
		b.WriteString("CASE")
		for i := range e.Whens {
			b.WriteString(" WHEN ")
			w(e.Whens[i])
			b.WriteString(" THEN ")
			w(e.Thens[i])
		}
		if e.Else != nil {
			b.WriteString(" ELSE ")
			w(e.Else)
		}
		b.WriteString(" END")
	case *Coalesce:
		b.WriteString("COALESCE(")
		list(e.Args)
		b.WriteByte(')')
	case *MinMax:
		if e.Greatest {
			b.WriteString("GREATEST(")
		} else {
			b.WriteString("LEAST(")
		}
		list(e.Args)
		b.WriteByte(')')
	case *ArrayExpr:
		b.WriteString("ARRAY[")
		list(e.Elems)
		b.WriteByte(']')
	case *RowExpr:
		b.WriteString("ROW(")
		list(e.Args)
		b.WriteByte(')')
	case *FieldSelect:
		b.WriteByte('(')
		w(e.E)
		b.WriteString(").f" + strconv.Itoa(e.Idx+1))
	case *Subscript:
		w(e.Arr)
		for i := range e.Upper {
			b.WriteByte('[')
			if e.Slice {
				if i < len(e.Lower) && e.Lower[i] != nil {
					w(e.Lower[i])
				}
				b.WriteByte(':')
			}
			if e.Upper[i] != nil {
				w(e.Upper[i])
			}
			b.WriteByte(']')
		}
	case *SubPlan:
		b.WriteString(x.subPlanText(e, cols))
	case *SubqueryKeys:
		b.WriteString(x.subPlanText(e.Sub, cols))
	default:
		b.WriteString("?")
	}
}

// writeCall prints an operator in infix form, a cast as PostgreSQL shows
// it, and any other function call as name(args).
func (x *explainer) writeCall(b *strings.Builder, c *Call, cols []string) {
	switch {
	case c.Name == "cast" && len(c.Args) == 1:
		if k, ok := c.Args[0].(*Const); ok {
			// A constant's cast is folded, as the planner folds it; an
			// integer widened to the other operand's type stays as it
			// was, where PostgreSQL compares across the types.
			t := c.T
			if KindOf(t.OID) == KindInt && KindOf(k.T.OID) == KindInt && numericRank(k.T.OID) < numericRank(t.OID) {
				t = k.T
			}
			b.WriteString(x.constText(k.D, t))
			return
		}
		b.WriteByte('(')
		x.writeExpr(b, c.Args[0], cols)
		b.WriteString(")::" + FormatTypeIn(x.settings, c.T.OID, c.T.Typmod))
	case isOperatorName(c.Name) && len(c.Args) == 2:
		b.WriteByte('(')
		x.writeExpr(b, c.Args[0], cols)
		b.WriteString(" " + c.Name + " ")
		x.writeExpr(b, c.Args[1], cols)
		b.WriteByte(')')
	case isOperatorName(c.Name) && len(c.Args) == 1:
		b.WriteString("(" + c.Name + " ")
		x.writeExpr(b, c.Args[0], cols)
		b.WriteByte(')')
	default:
		b.WriteString(c.Name + "(")
		for i, a := range c.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			x.writeExpr(b, a, cols)
		}
		b.WriteByte(')')
	}
}

// negators are the built-in operators' negators: NOT (a < b) is planned
// as a >= b.
var negators = map[string]string{
	"=": "<>", "<>": "=", "<": ">=", ">=": "<", ">": "<=", "<=": ">",
	"~": "!~", "!~": "~", "~*": "!~*", "!~*": "~*", "~~": "!~~", "!~~": "~~", "~~*": "!~~*", "!~~*": "~~*",
}

// isOperatorName reports whether name is an operator's (made of
// PostgreSQL's operator characters) rather than a function's.
func isOperatorName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !strings.ContainsRune("+-*/<>=~!@#%^&|`?", rune(name[i])) {
			return false
		}
	}
	return true
}

// inListText prints x IN (constants) as PostgreSQL plans it: x = ANY of
// an array constant.
func (x *explainer) inListText(e *BoolOp, cols []string) (string, bool) {
	if !e.Or || len(e.Args) < 2 {
		return "", false
	}
	var left string
	vals := make([]Expr, len(e.Args))
	for i, a := range e.Args {
		c, ok := a.(*Call)
		if !ok || c.Name != "=" || len(c.Args) != 2 {
			return "", false
		}
		k, ok := c.Args[1].(*Const)
		if !ok || i > 0 && k.T.OID != vals[0].Type().OID {
			return "", false
		}
		l := x.exprText(c.Args[0], cols)
		if i > 0 && l != left {
			return "", false
		}
		left, vals[i] = l, k
	}
	return "(" + left + " = ANY (" + x.valuesText(vals) + "))", true
}

// valuesText prints the values an IN list compares with: an array
// constant when they are constants of one type, ARRAY[...] otherwise.
func (x *explainer) valuesText(vals []Expr) string {
	var elems []string
	var typ T
	for i, v := range vals {
		k, ok := v.(*Const)
		if !ok || i > 0 && k.T.OID != typ.OID {
			elems = nil
			break
		}
		typ = k.T
		if k.D.IsNull() {
			elems = append(elems, "NULL")
		} else {
			elems = append(elems, arrayElemText(string(AppendText(nil, k.T, k.D, x.settings))))
		}
	}
	if elems != nil {
		return quoteLiteral("{"+strings.Join(elems, ",")+"}") + "::" + FormatTypeIn(x.settings, typ.OID, -1) + "[]"
	}
	var out []string
	for _, v := range vals {
		out = append(out, x.exprText(v, nil))
	}
	return "ARRAY[" + strings.Join(out, ", ") + "]"
}

// arrayElemText quotes an array element's text where the array's text
// format needs it.
func arrayElemText(s string) string {
	if s == "" || strings.ContainsAny(s, "{},\"\\ \t\n") || strings.EqualFold(s, "NULL") {
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
	}
	return s
}

// constText prints a constant as PostgreSQL's EXPLAIN does: integers of
// type integer and numbers of type numeric bare when not negative, true
// and false bare, anything else as a quoted literal cast to its type.
func (x *explainer) constText(d Datum, t T) string {
	typ := FormatTypeIn(x.settings, t.OID, t.Typmod)
	if d.IsNull() {
		return "NULL::" + typ
	}
	s := string(AppendText(nil, t, d, x.settings))
	switch t.OID {
	case OIDInt4, OIDNumeric:
		if !strings.HasPrefix(s, "-") && !strings.EqualFold(s, "NaN") {
			return s
		}
	case OIDInt2, OIDInt8:
		// Coerced to its column's type from an integer literal, which
		// PostgreSQL compares across the types and prints bare; one
		// outside integer's range was a bigint literal.
		if d.I >= 0 && d.I <= math.MaxInt32 {
			return s
		}
	case OIDBool:
		if d.Bool() {
			return "true"
		}
		return "false"
	}
	return quoteLiteral(s) + "::" + typ
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// subPlanText names a subquery used in an expression as PostgreSQL
// does, numbering it in the order the explanation meets it.
func (x *explainer) subPlanText(s *SubPlan, cols []string) string {
	n, ok := x.subPlans[s]
	if !ok {
		x.subPlanOrder = append(x.subPlanOrder, s)
		n = len(x.subPlanOrder)
		x.subPlans[s] = n
		argCols := cols
		if x.argCols != nil {
			argCols = x.argCols
		}
		args := make([]string, len(s.Args))
		for i, a := range s.Args {
			args[i] = x.exprText(a, argCols)
		}
		x.subArgs[s] = args
	}
	name := "SubPlan " + strconv.Itoa(n)
	switch {
	case s.Kind == ExistsSub:
		return "(" + name + ")"
	case s.Kind == AnySub && len(s.Args) == 0 && len(s.LeftKeys) > 0:
		return "(hashed " + name + ")"
	case s.Kind == AnySub || s.Kind == AllSub:
		var left []string
		for _, l := range s.Left {
			left = append(left, x.exprText(l, cols))
		}
		kw := "ANY"
		if s.Kind == AllSub {
			kw = "ALL"
		}
		return "(" + kw + " (" + strings.Join(left, ", ") + " = (" + name + ")))"
	}
	return "(" + name + ")"
}
