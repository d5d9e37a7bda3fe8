package session

import (
	"context"
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/planner/pgtree"
)

// Generic plans of simple queries. A client that sends its values inline
// (the simple protocol: pgbench's default, ORMs that interpolate, psql)
// repeats query shapes that differ only in their literals. The parse
// cache gives each shape one tree; a SELECT, UPDATE, DELETE or INSERT
// whose literals all stand where a parameter means the same also gets one
// analysis, made with those literals as parameters and kept with the
// shape, so that the next query of the shape only binds its literals, as
// an EXECUTE of a prepared statement would. Those places are: a value a
// WHERE clause compares a column with (col = 5, col < 'x', col BETWEEN 1
// AND 9, col IN (1, 2)); the whole value of an UPDATE's SET item or of an
// INSERT's VALUES item, which takes the column's type as an untyped
// literal does; and a number inside such a value's arithmetic (n = n + 1),
// which is typed by itself either way.
//
// The other literals stay constants of the analysis, which then serves
// only queries of the shape that hold the same values there (pinned):
// the fixed parts of an ORM's or a script's query ('u' || 42 || '@x',
// lower('X'), a LIMIT) repeat, and the values that change are where a
// parameter may stand.
//
// The result is the literal query's: a number's parameter is declared
// with the literal's own type (int4, int8 or numeric), and a string's
// takes the type the comparison gives it, which is the type the literal
// is read as; the analysis is refused when that type has a modifier or
// is one whose input depends on more than the text. A literal that the
// parameter's type cannot read makes the query go the ordinary way, so
// that its error is the literal's, with its position. The analysis is
// reused under the prepared statements' rules (planState.reusable).

// genericPlan is a shape's analysis with its literals as parameters.
type genericPlan struct {
	ok  bool        // false: the shape has none
	raw *pg.RawStmt // the tree with ParamRefs in place of the literals
	// params are the literals the parameters stand for, by number - 1;
	// pinned the others, with the values the analysis holds.
	params []int
	pinned []pinnedLiteral
	given  []uint32 // the declared parameter types; 0 for strings
	types  []exec.T // the parameter types of the analysis
	plan   planState
}

// pinnedLiteral is a literal a generic plan holds as a constant.
type pinnedLiteral struct {
	literal int
	value   *pg.A_Const
}

// describeGeneric gives st, a simple query, its shape's generic plan and
// the values of its literals; ok is false when it has none.
func (st *Statement) describeGeneric(ctx context.Context, tx *exec.Txn, given []uint32) ([]exec.ResultColumn, bool) {
	if st.lease == nil || len(given) > 0 || !genericKind(st.raw.Stmt) {
		return nil, false
	}
	lits := st.lease.Literals()
	g, _ := st.lease.Plan().(*genericPlan)
	if g == nil {
		g = newGenericPlan(st.raw, lits)
		st.lease.SetPlan(g)
	}
	if !g.ok {
		return nil, false
	}
	for _, p := range g.pinned {
		if !sameConst(lits[p.literal][0], p.value) {
			return nil, false
		}
	}
	if !g.plan.reusable(ctx, st.s, tx) {
		an, err := planner.Analyze(ctx, st.s, tx, g.raw.Stmt, st.Text(), g.given)
		if err != nil {
			return nil, false // the query's own analysis reports it
		}
		if an.Plan == nil || !genericTypes(an.Params) {
			g.ok = false
			return nil, false
		}
		g.plan = planState{an: an, anRoot: tx.Catalog().Addr(), anTxn: tx}
		g.types = an.Params
	}
	params, ok := bindLiterals(lits, g.params, g.types, st.s.settings())
	if !ok {
		return nil, false
	}
	st.planState = planState{an: g.plan.an, anRoot: tx.Catalog().Addr(), anTxn: tx}
	st.params = params
	return g.plan.an.Cols, true
}

// newGenericPlan makes the generic plan of the shape of raw, whose
// literals are held by the constants lits, with a parameter for each
// literal that stands where one may and the others pinned; not ok when
// there is no literal, or the statement is of a kind or form it does not
// take.
func newGenericPlan(raw *pg.RawStmt, lits [][]*pg.A_Const) *genericPlan {
	g := &genericPlan{}
	compared := map[int32]bool{}
	markWhere := func(where *pg.Node) {
		if where == nil {
			return
		}
		pgtree.Walk(where.ProtoReflect(), func(m protoreflect.Message) bool {
			if x, ok := m.Interface().(*pg.A_Expr); ok {
				markCompared(x, compared)
			}
			return true
		})
	}
	n := raw.Stmt
	switch {
	case len(lits) == 0:
		return g
	case n.GetSelectStmt() != nil:
		markWhere(n.GetSelectStmt().WhereClause)
	case n.GetDeleteStmt() != nil:
		d := n.GetDeleteStmt()
		if d.UsingClause != nil || d.WithClause != nil {
			return g
		}
		markWhere(d.WhereClause)
	case n.GetUpdateStmt() != nil:
		u := n.GetUpdateStmt()
		if u.FromClause != nil || u.WithClause != nil {
			return g
		}
		markWhere(u.WhereClause)
		for _, t := range u.TargetList {
			markValue(t.GetResTarget().GetVal(), compared)
		}
	case n.GetInsertStmt() != nil:
		ins := n.GetInsertStmt()
		sel := ins.SelectStmt.GetSelectStmt()
		if ins.OnConflictClause != nil || ins.WithClause != nil || sel == nil || len(sel.ValuesLists) == 0 {
			return g
		}
		for _, row := range sel.ValuesLists {
			for _, v := range row.GetList().GetItems() {
				markValue(v, compared)
			}
		}
	default:
		return g
	}
	literalAt := map[int32]int{} // parameter number - 1, by location
	for i, cs := range lits {
		t, ok := literalType(cs[0])
		for _, c := range cs {
			ok = ok && compared[c.Location]
		}
		if !ok {
			g.pinned = append(g.pinned, pinnedLiteral{i, proto.Clone(cs[0]).(*pg.A_Const)})
			continue
		}
		for _, c := range cs {
			literalAt[c.Location] = len(g.params)
		}
		g.params = append(g.params, i)
		g.given = append(g.given, t)
	}
	g.raw = proto.Clone(raw).(*pg.RawStmt)
	pgtree.Walk(g.raw.ProtoReflect(), func(m protoreflect.Message) bool {
		n, ok := m.Interface().(*pg.Node)
		if !ok {
			return true
		}
		if c := n.GetAConst(); c != nil {
			if i, ok := literalAt[c.Location]; ok {
				n.Node = &pg.Node_ParamRef{ParamRef: &pg.ParamRef{Number: int32(i + 1), Location: c.Location}}
			}
			return false
		}
		return true
	})
	g.ok = true
	return g
}

// genericKind reports whether n is of a kind that may have a generic plan.
func genericKind(n *pg.Node) bool {
	return n.GetSelectStmt() != nil || n.GetUpdateStmt() != nil || n.GetDeleteStmt() != nil || n.GetInsertStmt() != nil
}

// markValue marks the constants of v, an UPDATE's SET value or an INSERT's
// VALUES item, that a parameter stands for: v itself when it is a
// constant (it takes the column's type, as a parameter does), and the
// numbers of its operator expressions (typed by themselves as literals
// and as parameters alike).
func markValue(v *pg.Node, compared map[int32]bool) {
	if c := v.GetAConst(); c != nil {
		if !c.Isnull {
			compared[c.Location] = true
		}
		return
	}
	markNumbers(v, compared)
}

// markNumbers marks the numbers of an operator expression's operands.
func markNumbers(v *pg.Node, compared map[int32]bool) {
	x := v.GetAExpr()
	if x == nil || x.Kind != pg.A_Expr_Kind_AEXPR_OP {
		return
	}
	for _, side := range []*pg.Node{x.Lexpr, x.Rexpr} {
		switch c := side.GetAConst(); {
		case c == nil:
			markNumbers(side, compared) // nil: a prefix operator's absent side
		case c.GetIval() != nil || c.GetFval() != nil:
			compared[c.Location] = true
		}
	}
}

// markCompared marks the constants x compares with a column: the
// operands of a comparison operator, of BETWEEN and of IN whose other
// side is a column reference.
func markCompared(x *pg.A_Expr, compared map[int32]bool) {
	if x.Lexpr == nil || x.Rexpr == nil {
		return
	}
	mark := func(n *pg.Node) {
		if c := n.GetAConst(); c != nil && !c.Isnull {
			compared[c.Location] = true
		}
	}
	switch x.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		if len(x.Name) != 1 {
			return
		}
		switch x.Name[0].GetString_().GetSval() {
		case "=", "<>", "!=", "<", "<=", ">", ">=":
		default:
			return
		}
		if x.Lexpr.GetColumnRef() != nil {
			mark(x.Rexpr)
		}
		if x.Rexpr.GetColumnRef() != nil {
			mark(x.Lexpr)
		}
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN, pg.A_Expr_Kind_AEXPR_IN:
		if x.Lexpr.GetColumnRef() == nil {
			return
		}
		for _, n := range x.Rexpr.GetList().GetItems() {
			mark(n)
		}
	}
}

// literalType is the declared type of a literal's parameter: a number's
// own type, 0 (to be inferred) for a string.
func literalType(c *pg.A_Const) (uint32, bool) {
	switch v := c.Val.(type) {
	case *pg.A_Const_Ival:
		return exec.OIDInt4, true
	case *pg.A_Const_Fval:
		if _, err := strconv.ParseInt(v.Fval.Fval, 10, 64); err == nil {
			return exec.OIDInt8, true
		}
		return exec.OIDNumeric, true
	case *pg.A_Const_Sval:
		return 0, true
	}
	return 0, false
}

// genericTypes reports whether a generic plan's parameters read their
// literals as the literals' analysis would: types without a modifier
// whose input is the text alone.
func genericTypes(types []exec.T) bool {
	for _, t := range types {
		if t.Typmod >= 0 {
			return false
		}
		switch t.OID {
		case exec.OIDInt2, exec.OIDInt4, exec.OIDInt8, exec.OIDNumeric, exec.OIDFloat4, exec.OIDFloat8,
			exec.OIDText, exec.OIDVarchar, exec.OIDBpchar, exec.OIDName, exec.OIDBool, exec.OIDUUID, exec.OIDOid:
		default:
			return false
		}
	}
	return true
}

// bindLiterals reads the values of the literals params names as the
// parameters' types; not ok when one does not read.
func bindLiterals(lits [][]*pg.A_Const, params []int, types []exec.T, st *exec.Settings) ([]exec.Datum, bool) {
	out := make([]exec.Datum, len(params))
	for i, l := range params {
		cs := lits[l]
		var text string
		switch v := cs[0].Val.(type) {
		case *pg.A_Const_Ival:
			if k := exec.KindOf(types[i].OID); k == exec.KindInt {
				out[i] = exec.DInt(int64(v.Ival.Ival))
				continue
			}
			text = strconv.Itoa(int(v.Ival.Ival))
		case *pg.A_Const_Fval:
			text = v.Fval.Fval
		case *pg.A_Const_Sval:
			text = v.Sval.Sval
		default:
			return nil, false
		}
		d, err := exec.ParseText(types[i], text, st)
		if err != nil {
			return nil, false
		}
		out[i] = d
	}
	return out, true
}

// sameConst reports whether two constants hold the same value, written
// the same way.
func sameConst(a, b *pg.A_Const) bool {
	if a.Isnull || b.Isnull {
		return a.Isnull == b.Isnull
	}
	switch v := a.Val.(type) {
	case *pg.A_Const_Ival:
		w, ok := b.Val.(*pg.A_Const_Ival)
		return ok && v.Ival.Ival == w.Ival.Ival
	case *pg.A_Const_Fval:
		w, ok := b.Val.(*pg.A_Const_Fval)
		return ok && v.Fval.Fval == w.Fval.Fval
	case *pg.A_Const_Sval:
		w, ok := b.Val.(*pg.A_Const_Sval)
		return ok && v.Sval.Sval == w.Sval.Sval
	case *pg.A_Const_Boolval:
		w, ok := b.Val.(*pg.A_Const_Boolval)
		return ok && v.Boolval.Boolval == w.Boolval.Boolval
	case *pg.A_Const_Bsval:
		w, ok := b.Val.(*pg.A_Const_Bsval)
		return ok && v.Bsval.Bsval == w.Bsval.Bsval
	}
	return false
}
