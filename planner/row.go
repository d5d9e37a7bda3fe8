package planner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// Row values: ROW(...) and (a, b) constructors, field selection, and the
// comparison of rows.

// rowExpr analyzes ROW(...) or (a, b, ...) as an anonymous record.
func (a *analyzer) rowExpr(r *pg.RowExpr, sc *scope) (*exec.RowExpr, error) {
	row := &exec.RowExpr{Typ: exec.TRecord}
	for _, n := range r.Args {
		if isQualifiedStar(n) {
			// ROW(t.*, ...) takes t's columns, as a target list does.
			exprs, _, err := a.star(n.GetColumnRef(), sc)
			if err != nil {
				return nil, err
			}
			row.Args = append(row.Args, exprs...)
			continue
		}
		e, err := a.expr(n, sc)
		if err != nil {
			return nil, err
		}
		row.Args = append(row.Args, e)
	}
	// Its shape (fields f1, f2, ... of the arguments' types) goes with
	// its type, so that a field is found when the row is read back from
	// a subquery or a CTE: (r).f1, (r).*.
	cols := make([]exec.ResultColumn, len(row.Args))
	for i, e := range row.Args {
		cols[i] = exec.ResultColumn{Name: "f" + strconv.Itoa(i+1), T: e.Type()}
	}
	row.Typ.Typmod = a.s.PlannerState().records.of(cols)
	return row, nil
}

// fieldSelect analyzes (e).name on a value of a composite type.
func (a *analyzer) fieldSelect(e exec.Expr, name string, loc int32) (exec.Expr, error) {
	t := e.Type()
	if row, ok := e.(*exec.RowExpr); ok && t.OID == exec.OIDRecord {
		// Anonymous rows name their fields f1, f2, ...
		for i, arg := range row.Args {
			if name == "f"+strconv.Itoa(i+1) {
				return &exec.FieldSelect{E: e, Idx: i, T: arg.Type()}, nil
			}
		}
	}
	if t.OID == exec.OIDRecord {
		if cols, ok := a.s.PlannerState().records.cols(t.Typmod); ok {
			for i, c := range cols {
				if c.Name == name {
					return &exec.FieldSelect{E: e, Idx: i, T: c.T}, nil
				}
			}
			return nil, WithPos(pgerr.New(pgerr.UndefinedColumn, "could not identify column %q in record data type", name), loc)
		}
	}
	if cat, array := types.UserCategoryOf(types.Oid(t.OID)); cat == types.UserComposite && !array {
		if ut, ok := a.s.Settings().Types.UserType(types.Oid(t.OID)); ok {
			for i, f := range ut.FieldNames {
				if f == name {
					return &exec.FieldSelect{E: e, Idx: i, T: exec.T{OID: uint32(ut.FieldTypes[i]), Typmod: ut.FieldTypmods[i]}}, nil
				}
			}
			return nil, WithPos(pgerr.New(pgerr.UndefinedColumn, "column %q not found in data type %s", name, ut.Name), loc)
		}
	}
	return nil, WithPos(pgerr.New(pgerr.WrongObjectType, "column notation .%s applied to type %s, which is not a composite type", name, a.typeName(t)), loc)
}

// fieldStar expands (expr).* in a select list: a column for each field of
// a composite value, or of a record whose fields are known (a row
// constructor's, a function's OUT arguments'), each selecting it from
// expr (which PostgreSQL, too, evaluates once per field).
func (a *analyzer) fieldStar(ind *pg.A_Indirection, sc *scope) ([]exec.Expr, []exec.ResultColumn, error) {
	var e exec.Expr
	var err error
	if prefix := ind.Indirection[:len(ind.Indirection)-1]; len(prefix) > 0 {
		e, err = a.indirection(&pg.A_Indirection{Arg: ind.Arg, Indirection: prefix}, sc)
	} else {
		e, err = a.expr(ind.Arg, sc)
	}
	if err != nil {
		return nil, nil, err
	}
	t := e.Type()
	var fields []exec.ResultColumn
	known := false
	switch row, isRow := e.(*exec.RowExpr); {
	case isRow && t.OID == exec.OIDRecord:
		for i, arg := range row.Args {
			fields = append(fields, exec.ResultColumn{Name: "f" + strconv.Itoa(i+1), T: arg.Type()})
		}
		known = true
	case t.OID == exec.OIDRecord:
		fields, known = a.s.PlannerState().records.cols(t.Typmod)
	default:
		if cat, array := types.UserCategoryOf(types.Oid(t.OID)); cat == types.UserComposite && !array {
			if ut, ok := a.s.Settings().Types.UserType(types.Oid(t.OID)); ok {
				for i, f := range ut.FieldNames {
					fields = append(fields, exec.ResultColumn{Name: f, T: exec.T{OID: uint32(ut.FieldTypes[i]), Typmod: ut.FieldTypmods[i]}})
				}
				known = true
			}
		}
	}
	loc := ExprLocation(ind.Arg)
	switch {
	case !known && t.OID == exec.OIDRecord:
		return nil, nil, WithPos(pgerr.New(pgerr.WrongObjectType, "record type has not been registered"), loc)
	case !known:
		return nil, nil, WithPos(pgerr.New(pgerr.WrongObjectType, "type %s is not composite", a.typeName(t)), loc)
	}
	exprs := make([]exec.Expr, len(fields))
	for i, f := range fields {
		exprs[i] = &exec.FieldSelect{E: e, Idx: i, T: f.T}
	}
	return exprs, fields, nil
}

// rowComparison analyzes l op r for two row constructors, as PostgreSQL
// expands it: = is every pair equal, <> some pair unequal, and the order
// operators compare the first unequal pair.
func (a *analyzer) rowComparison(op string, l, r *exec.RowExpr, loc int32) (exec.Expr, error) {
	image := strings.HasPrefix(op, "*")
	if image || l.Typ.OID != exec.OIDRecord && r.Typ.OID != exec.OIDRecord {
		// Values of composite types (a row cast to one) and the image
		// operators compare as records (record_cmp, record_image_cmp),
		// which need fields alike, not as a row of comparisons, which
		// would convert them.
		if len(l.Args) != len(r.Args) {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "cannot compare record types with different numbers of columns")
		}
		types := make([]exec.T, len(l.Args))
		for i := range l.Args {
			lt, rt := l.Args[i].Type(), r.Args[i].Type()
			if lt.OID != rt.OID && lt.OID != exec.OIDUnknown && rt.OID != exec.OIDUnknown {
				return nil, pgerr.New(pgerr.DatatypeMismatch, "cannot compare dissimilar column types %s and %s at record column %d", a.typeName(lt), a.typeName(rt), i+1)
			}
			types[i] = lt
		}
		if image {
			switch op {
			case "*<", "*<=", "*=", "*<>", "*>=", "*>":
				return &exec.RecordImageCompare{L: l, R: r, Types: types, Op: op}, nil
			}
		}
	}
	if len(l.Args) != len(r.Args) {
		return nil, WithPos(pgerr.New(pgerr.SyntaxError, "unequal number of entries in row expressions"), loc)
	}
	if len(l.Args) == 0 {
		return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "cannot compare rows of zero length"), loc)
	}
	pair := func(op string, i int) (exec.Expr, error) { return a.binary(op, l.Args[i], r.Args[i], loc) }
	switch op {
	case "=", "<>":
		var args []exec.Expr
		for i := range l.Args {
			e, err := pair(op, i)
			if err != nil {
				return nil, err
			}
			args = append(args, e)
		}
		return &exec.BoolOp{Or: op == "<>", Args: args}, nil
	case "<", "<=", ">", ">=", "~<~", "~<=~", "~>=~", "~>~":
		strict := op[:1]
		if op[0] == '~' {
			strict = "~" + op[1:2] + "~" // the pattern operators' strict one
		}
		rc := &exec.RowCompare{}
		n := len(l.Args)
		for i := 0; i < n-1; i++ {
			eq, err := pair("=", i)
			if err != nil {
				return nil, err
			}
			less, err := pair(strict, i)
			if err != nil {
				return nil, err
			}
			rc.Eq, rc.Less = append(rc.Eq, eq), append(rc.Less, less)
		}
		last, err := pair(op, n-1)
		if err != nil {
			return nil, err
		}
		rc.Last = last
		return rc, nil
	}
	return nil, WithPos(pgerr.New(pgerr.UndefinedFunction, "could not determine interpretation of row comparison operator %s", op).
		WithHint("Row comparison operators must be associated with btree operator families."), loc)
}

// typeName is format_type's name for t, user types included.
func (a *analyzer) typeName(t exec.T) string {
	oid := types.Oid(t.OID)
	cat, array := types.UserCategoryOf(oid)
	if cat == 0 {
		return exec.TypeName(t.OID)
	}
	ut, ok := a.s.Settings().Types.UserType(oid &^ types.ArrayBit)
	if !ok {
		return "???"
	}
	if array {
		return ut.Name + "[]"
	}
	return ut.Name
}

// rowToComposite converts a row constructor to composite type t, each
// field to its field's type.
func (a *analyzer) rowToComposite(row *exec.RowExpr, t exec.T, explicit bool, loc int32) (exec.Expr, error) {
	ut, ok := a.s.Settings().Types.UserType(types.Oid(t.OID))
	if !ok {
		return nil, WithPos(pgerr.New(pgerr.UndefinedObject, "type %d does not exist", t.OID), loc)
	}
	if len(row.Args) != len(ut.FieldTypes) {
		detail := "Input has too few columns."
		if len(row.Args) > len(ut.FieldTypes) {
			detail = "Input has too many columns."
		}
		return nil, WithPos(pgerr.New(pgerr.CannotCoerce, "cannot cast type record to %s", ut.Name).WithDetail("%s", detail), loc)
	}
	out := &exec.RowExpr{Typ: t, Args: make([]exec.Expr, len(row.Args))}
	for i, arg := range row.Args {
		ft := exec.T{OID: uint32(ut.FieldTypes[i]), Typmod: ut.FieldTypmods[i]}
		var err error
		if explicit {
			out.Args[i], err = a.cast(arg, ft, true, loc)
		} else {
			out.Args[i], err = a.assign(arg, ft, ut.FieldNames[i], loc)
		}
		if err != nil {
			return nil, err
		}
	}
	return a.attributeDomainChecks(out, t)
}

// recordTypes are a session's anonymous record types, as PostgreSQL
// "blesses" them: the row shape of a set-returning call that yields
// records, numbered by the typmod of its record column, so that a
// field selection on the column — (f(...)).x, or (sub.col).x from a
// subquery — can be resolved at planning. Equal shapes share a number;
// the list only grows, and plans hold its numbers.
type recordTypes struct {
	shapes []recordShape
	index  map[string]int32
}

type recordShape struct{ cols []exec.ResultColumn }

// of returns the typmod of the record type with cols' names and types.
func (r *recordTypes) of(cols []exec.ResultColumn) int32 {
	var key strings.Builder
	for _, c := range cols {
		fmt.Fprintf(&key, "%s\x00%d\x00%d\x00", c.Name, c.T.OID, c.T.Typmod)
	}
	if n, ok := r.index[key.String()]; ok {
		return n
	}
	if r.index == nil {
		r.index = map[string]int32{}
	}
	n := int32(len(r.shapes))
	r.shapes = append(r.shapes, recordShape{cols: slices.Clone(cols)})
	r.index[key.String()] = n
	return n
}

// cols returns the columns of the record type typmod names.
func (r *recordTypes) cols(typmod int32) ([]exec.ResultColumn, bool) {
	if typmod < 0 || int(typmod) >= len(r.shapes) {
		return nil, false
	}
	return r.shapes[typmod].cols, true
}

// castToRecord analyzes x::record: a row or composite value stays as it
// is, a NULL becomes a NULL record (json_populate_record(null::record,
// ...) takes its columns from a column definition list); a literal has no
// input function, as PostgreSQL's record_in refuses anonymous types.
func (a *analyzer) castToRecord(tc *pg.TypeCast, sc *scope) (exec.Expr, error) {
	e, err := a.expr(tc.Arg, sc)
	if err != nil {
		return nil, err
	}
	t := e.Type()
	switch c, isConst := e.(*exec.Const); {
	case exec.KindOf(t.OID) == exec.KindRecord:
		return e, nil
	case isConst && c.D.IsNull():
		return &exec.Const{D: exec.Null, T: exec.T{OID: exec.OIDRecord, Typmod: -1}}, nil
	case t.OID == exec.OIDUnknown:
		return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "input of anonymous composite types is not implemented"), ExprLocation(tc.Arg))
	}
	return nil, WithPos(pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to record", a.typeName(t)), tc.Location)
}
