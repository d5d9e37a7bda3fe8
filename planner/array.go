package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/funcs"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// Array expressions: ARRAY[...] (transformArrayExpr), subscripts and
// slices (transformContainerSubscripts), ARRAY(subquery), and
// unnest(a, b, ...) in FROM.

// arrayExpr analyzes ARRAY[e1, ...]. target is the array type of an
// enclosing cast (ARRAY[]::int[]), whose element type the elements are
// explicitly cast to, or the zero T; otherwise the elements take their
// common type. Elements that are arrays (nested ARRAY[...] among them)
// make a multidimensional array.
func (a *analyzer) arrayExpr(x *pg.A_ArrayExpr, sc *scope, target exec.T) (exec.Expr, error) {
	var elems []exec.Expr
	multi := false
	for _, n := range x.Elements {
		var e exec.Expr
		var err error
		if sub := n.GetAArrayExpr(); sub != nil {
			e, err = a.arrayExpr(sub, sc, target)
			multi = true
		} else if e, err = a.expr(n, sc); err == nil && exec.IsArrayType(e.Type().OID) {
			multi = true
		}
		if err != nil {
			return nil, err
		}
		elems = append(elems, e)
	}
	var arrT, coerceT exec.T
	if target.OID != 0 {
		arrT, coerceT = target, exec.ElemType(target)
		if multi {
			coerceT = target
		}
		for i, e := range elems {
			var err error
			if elems[i], err = a.cast(e, coerceT, true, x.Location); err != nil {
				return nil, err
			}
		}
		return &exec.ArrayExpr{Elems: elems, T: arrT, Multi: multi}, nil
	}
	if len(elems) == 0 {
		return nil, WithPos(pgerr.New(pgerr.IndeterminateDatatype, "cannot determine type of empty array").
			WithHint("Explicitly cast to the desired type, for example ARRAY[]::integer[]."), x.Location)
	}
	common := exec.TUnknown
	for i, e := range elems {
		t := e.Type()
		if t.OID == exec.OIDUnknown {
			continue
		}
		if common.OID == exec.OIDUnknown {
			common = baseType(t)
			continue
		}
		c, ok := exec.CommonType([]exec.T{common, t})
		if !ok {
			return nil, WithPos(pgerr.New(pgerr.DatatypeMismatch, "ARRAY types %s and %s cannot be matched",
				exec.TypeName(common.OID), exec.TypeName(t.OID)), ExprLocation(x.Elements[i]))
		}
		common = c
	}
	if common.OID == exec.OIDUnknown {
		common = exec.TText
	}
	arrT = exec.ArrayType(common)
	if multi {
		arrT = common
		if !exec.IsArrayType(common.OID) {
			return nil, WithPos(pgerr.New(pgerr.UndefinedObject, "could not find element type for data type %s", exec.TypeName(common.OID)), x.Location)
		}
	} else if arrT.OID == 0 {
		return nil, WithPos(pgerr.New(pgerr.UndefinedObject, "could not find array type for data type %s", exec.TypeName(common.OID)), x.Location)
	}
	for i, e := range elems {
		c, err := a.coerce(e, common, "", ExprLocation(x.Elements[i]))
		if err != nil {
			if pe, ok := err.(*pgerr.Error); ok && pe.Code == pgerr.DatatypeMismatch {
				return nil, WithPos(pgerr.New(pgerr.CannotCoerce, "ARRAY could not convert type %s to %s",
					exec.TypeName(e.Type().OID), exec.TypeName(common.OID)), ExprLocation(x.Elements[i]))
			}
			return nil, err
		}
		elems[i] = c
	}
	return a.foldArray(&exec.ArrayExpr{Elems: elems, T: arrT, Multi: multi})
}

// foldArray evaluates an ARRAY[...] of constants now, so that an array
// literal costs nothing per row and its errors come at planning.
func (a *analyzer) foldArray(e *exec.ArrayExpr) (exec.Expr, error) {
	for _, x := range e.Elems {
		if _, ok := x.(*exec.Const); !ok {
			return e, nil
		}
	}
	d, err := e.Eval(&exec.Env{Settings: a.s.Settings(), Session: a.s}, nil)
	if err != nil {
		return e, nil // raised when evaluated, as PostgreSQL does
	}
	return &exec.Const{D: d, T: e.T}, nil
}

// indirection analyzes arr[i], arr[i][j] and the slices arr[i:j], arr[:j],
// arr[i:].
func (a *analyzer) indirection(ind *pg.A_Indirection, sc *scope) (exec.Expr, error) {
	if fc := ind.Arg.GetFuncCall(); fc != nil && len(ind.Indirection) == 1 && ind.Indirection[0].GetString_() != nil {
		if e, ok, err := a.srfField(fc, ind.Indirection[0].GetString_().Sval, sc); ok {
			return e, err // (f(...)).col of a set-returning f
		}
	}
	arr, err := a.expr(ind.Arg, sc)
	if err != nil {
		return nil, err
	}
	loc := ExprLocation(ind.Arg)
	list := ind.Indirection
	for len(list) > 0 {
		// A field of a composite value, or a run of subscripts, then
		// what follows on the value they give: arr[1].f, (r).a[2].
		if f := list[0].GetString_(); f != nil {
			if arr, err = a.fieldSelect(arr, f.Sval, loc); err != nil {
				return nil, err
			}
			list = list[1:]
			continue
		}
		n := 0
		for n < len(list) && list[n].GetAIndices() != nil {
			n++
		}
		if n == 0 {
			return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "this indirection is not supported yet"), loc)
		}
		if arr, err = a.subscripts(arr, list[:n], sc, loc); err != nil {
			return nil, err
		}
		list = list[n:]
	}
	return arr, nil
}

// hstoreSubscript is h[key], hstore's one subscript: the key converted to
// text by assignment, the value fetched (NULL when absent).
func (a *analyzer) hstoreSubscript(h exec.Expr, list []*pg.Node, sc *scope, loc int32) (exec.Expr, error) {
	if len(list) != 1 || list[0].GetAIndices().IsSlice {
		return nil, funcs.ErrHstoreSubscripts
	}
	ix := list[0].GetAIndices().Uidx
	key, err := a.expr(ix, sc)
	if err != nil {
		return nil, err
	}
	if key, err = a.assign(key, exec.TText, "", ExprLocation(ix)); err != nil {
		return nil, err
	}
	return &exec.Call{Name: "subscript", Fn: funcs.HstoreSubscript, Args: []exec.Expr{h, key}, Strict: true, T: exec.TText}, nil
}

// subscripts applies the A_Indices of list to arr.
func (a *analyzer) subscripts(arr exec.Expr, list []*pg.Node, sc *scope, loc int32) (exec.Expr, error) {
	at := arr.Type()
	if at.OID == exec.OIDUnknown {
		return nil, WithPos(pgerr.New(pgerr.IndeterminateDatatype, "cannot subscript type unknown because it does not support subscripting"), loc)
	}
	if baseType(at).OID == exec.OIDJSONB {
		return a.jsonbSubscripts(arr, list, sc, loc)
	}
	if at.OID == exec.OIDHstore {
		return a.hstoreSubscript(arr, list, sc, loc)
	}
	if at.OID == exec.OIDName && len(list) == 1 && !list[0].GetAIndices().IsSlice {
		return a.nameSubscript(arr, list[0].GetAIndices().Uidx, sc)
	}
	if _, _, ok := exec.GeometrySubscript(at.OID); ok && list[0].GetAIndices().IsSlice {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "slices of fixed-length arrays not implemented")
	}
	if elem, fn, ok := exec.GeometrySubscript(at.OID); ok {
		// point[0] is x: the fixed-size geometric types subscript their
		// coordinates, or their points, from 0.
		ix := list[0].GetAIndices().Uidx
		i, err := a.expr(ix, sc)
		if err != nil {
			return nil, err
		}
		if i, err = a.coerce(i, exec.TInt4, "", ExprLocation(ix)); err != nil {
			return nil, WithPos(pgerr.New(pgerr.DatatypeMismatch, "array subscript must have type integer"), ExprLocation(ix))
		}
		var e exec.Expr = &exec.Call{Name: "subscript", Fn: fn, Args: []exec.Expr{arr, i}, Strict: true, T: elem}
		if len(list) > 1 {
			return a.subscripts(e, list[1:], sc, loc)
		}
		return e, nil
	}
	if !exec.IsArrayType(at.OID) {
		return nil, WithPos(pgerr.New(pgerr.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", exec.TypeName(at.OID)), loc)
	}
	if len(list) > types.MaxDim {
		return nil, WithPos(pgerr.New(pgerr.ProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", len(list), types.MaxDim), loc)
	}
	s := &exec.Subscript{Arr: arr, T: exec.ElemType(at)}
	for _, n := range list {
		if n.GetAIndices().IsSlice {
			s.Slice, s.T = true, at
		}
	}
	index := func(n *pg.Node) (exec.Expr, error) {
		if n == nil {
			return nil, nil
		}
		e, err := a.expr(n, sc)
		if err != nil {
			return nil, err
		}
		c, err := a.coerce(e, exec.TInt4, "", ExprLocation(n))
		if err != nil {
			return nil, WithPos(pgerr.New(pgerr.DatatypeMismatch, "array subscript must have type integer"), ExprLocation(n))
		}
		return c, nil
	}
	for _, n := range list {
		ix := n.GetAIndices()
		lo, err := index(ix.Lidx)
		if err != nil {
			return nil, err
		}
		hi, err := index(ix.Uidx)
		if err != nil {
			return nil, err
		}
		if s.Slice && !ix.IsSlice {
			// In a slice, a single subscript i means 1:i.
			lo = &exec.Const{D: exec.DInt(1), T: exec.TInt4}
		}
		s.Lower = append(s.Lower, lo)
		s.Upper = append(s.Upper, hi)
	}
	return s, nil
}

// nameSubscript is name[i]: name is a fixed-length array of "char" in
// PostgreSQL, subscripted from 0 (pg_dump tests typname[0] = '_'). It
// reads as substr(name::text, i + 1, 1)::"char".
func (a *analyzer) nameSubscript(name exec.Expr, index *pg.Node, sc *scope) (exec.Expr, error) {
	i, err := a.expr(index, sc)
	if err != nil {
		return nil, err
	}
	if i, err = a.coerce(i, exec.TInt4, "", ExprLocation(index)); err != nil {
		return nil, WithPos(pgerr.New(pgerr.DatatypeMismatch, "array subscript must have type integer"), ExprLocation(index))
	}
	text, err := a.cast(name, exec.TText, true, -1)
	if err != nil {
		return nil, err
	}
	from, err := a.call("+", []exec.Expr{i, &exec.Const{D: exec.DInt(1), T: exec.TInt4}}, -1, true)
	if err != nil {
		return nil, err
	}
	char, err := a.call("substr", []exec.Expr{text, from, &exec.Const{D: exec.DInt(1), T: exec.TInt4}}, -1, false)
	if err != nil {
		return nil, err
	}
	return a.cast(char, exec.T{OID: exec.OIDChar, Typmod: -1}, true, -1)
}

// jsonbSubscripts is j[a][b]...: jsonb's subscripting reads the path as
// #> does.
func (a *analyzer) jsonbSubscripts(j exec.Expr, list []*pg.Node, sc *scope, loc int32) (exec.Expr, error) {
	path, _, err := a.jsonbPath(list, sc, loc)
	if err != nil {
		return nil, err
	}
	return a.call("#>", []exec.Expr{j, path}, loc, true)
}

// jsonbPath turns jsonb subscripts into a text[] path, each subscript,
// integer or text, a path element; firstInt tells whether the first is an
// integer.
func (a *analyzer) jsonbPath(list []*pg.Node, sc *scope, loc int32) (path *exec.ArrayExpr, firstInt bool, err error) {
	path = &exec.ArrayExpr{T: exec.ArrayType(exec.TText)}
	for i, n := range list {
		ix := n.GetAIndices()
		if ix.IsSlice {
			at := loc
			if ix.Uidx != nil {
				at = ExprLocation(ix.Uidx)
			}
			return nil, false, WithPos(pgerr.New(pgerr.DatatypeMismatch, "jsonb subscript does not support slices"), at)
		}
		e, err := a.expr(ix.Uidx, sc)
		if err != nil {
			return nil, false, err
		}
		switch baseType(e.Type()).OID {
		case exec.OIDInt2, exec.OIDInt4, exec.OIDInt8:
			firstInt = firstInt || i == 0
		case exec.OIDUnknown, exec.OIDText, exec.OIDVarchar, exec.OIDBpchar, exec.OIDName:
		default:
			if !exec.CanCoerce(e.Type().OID, exec.OIDInt4) && !exec.CanCoerce(e.Type().OID, exec.OIDText) {
				return nil, false, WithPos(pgerr.New(pgerr.DatatypeMismatch, "subscript type %s is not supported", exec.TypeName(e.Type().OID)).
					WithHint("jsonb subscript must be coercible to either integer or text."), ExprLocation(ix.Uidx))
			}
		}
		if e, err = a.cast(e, exec.TText, true, ExprLocation(ix.Uidx)); err != nil {
			return nil, false, err
		}
		path.Elems = append(path.Elems, e)
	}
	return path, firstInt, nil
}

// setJSONBElement is UPDATE ... SET j[a][b] = e for a jsonb column.
func (a *analyzer) setJSONBElement(table string, c exec.Column, rt *pg.ResTarget, e, prev exec.Expr, sc *scope) (exec.Expr, error) {
	cur := prev
	if cur == nil {
		var err error
		if cur, err = a.resolveColumn(sc, table, c.Name, rt.Location); err != nil {
			return nil, err
		}
	}
	path, firstInt, err := a.jsonbPath(rt.Indirection, sc, rt.Location)
	if err != nil {
		return nil, err
	}
	val, err := a.assign(e, exec.TJSONB, c.Name, rt.Location)
	if err != nil {
		return nil, err
	}
	return &exec.Call{Name: "jsonb_set_element", Fn: funcs.JSONBSetElement(firstInt), Args: []exec.Expr{cur, path, val}, T: c.Type}, nil
}

// setHstoreElement is SET h[key] = value: the pair put into the hstore
// (an empty one when h is NULL), key and value converted to text by
// assignment, as hstore's subscript handler assigns.
func (a *analyzer) setHstoreElement(table string, c exec.Column, rt *pg.ResTarget, e, prev exec.Expr, sc *scope) (exec.Expr, error) {
	if len(rt.Indirection) != 1 || rt.Indirection[0].GetAIndices() == nil || rt.Indirection[0].GetAIndices().IsSlice {
		return nil, funcs.ErrHstoreSubscripts
	}
	cur := prev
	if cur == nil {
		var err error
		if cur, err = a.resolveColumn(sc, table, c.Name, rt.Location); err != nil {
			return nil, err
		}
	}
	ix := rt.Indirection[0].GetAIndices().Uidx
	key, err := a.expr(ix, sc)
	if err != nil {
		return nil, err
	}
	if key, err = a.assign(key, exec.TText, "", ExprLocation(ix)); err != nil {
		return nil, err
	}
	val, err := a.assign(e, exec.TText, c.Name, rt.Location)
	if err != nil {
		return nil, err
	}
	return &exec.Call{Name: "hstore_set_element", Fn: funcs.HstoreSetElement, Args: []exec.Expr{cur, key, val}, T: c.Type}, nil
}

// arraySubLink finishes ARRAY(subquery): its one column's values as an
// array, or, for a column of arrays, those stacked.
func arraySubLink(sp *exec.SubPlan, cols []exec.ResultColumn, loc int32) (exec.Expr, error) {
	if len(cols) != 1 {
		return nil, WithPos(pgerr.New(pgerr.SyntaxError, "subquery must return only one column"), loc)
	}
	t := baseType(cols[0].T)
	if !exec.IsArrayType(t.OID) {
		if t.OID == exec.OIDUnknown {
			t = exec.TText
		}
		t = exec.ArrayType(t)
		if t.OID == 0 {
			return nil, WithPos(pgerr.New(pgerr.UndefinedObject, "could not find array type for data type %s", exec.TypeName(cols[0].T.OID)), loc)
		}
	}
	sp.Kind, sp.T = exec.ArraySub, t
	return sp, nil
}

// unnestMulti is unnest(a, b, ...) in FROM, which PostgreSQL expands to
// ROWS FROM (unnest(a), unnest(b), ...).
func (a *analyzer) unnestMulti(fc *pg.FuncCall, sc *scope) (*exec.FuncScan, error) {
	var args []exec.Expr
	var ts []exec.T
	for _, n := range fc.Args {
		e, err := a.expr(n, sc)
		if err != nil {
			return nil, err
		}
		if !exec.IsArrayType(e.Type().OID) {
			var names []exec.T
			for _, n := range fc.Args {
				e, _ := a.expr(n, sc)
				names = append(names, e.Type())
			}
			_, _, err := exec.LookupSRF("unnest", names)
			return nil, WithPos(err.(*pgerr.Error), fc.Location)
		}
		args = append(args, e)
		ts = append(ts, e.Type())
	}
	fn := funcs.UnnestMulti(ts)
	return &exec.FuncScan{Fn: fn, Args: args, Cols: append([]exec.ResultColumn(nil), fn.Cols...)}, nil
}

// anyAllArray is l op ANY/ALL (r) over an array value r known at run time
// (make_scalar_array_op): op is resolved between l and r's element type;
// an untyped r (a literal or parameter) is an array of l's type.
func (a *analyzer) anyAllArray(op string, l, r exec.Expr, all bool, loc int32) (exec.Expr, error) {
	if r.Type().OID == exec.OIDUnknown {
		lt := baseType(l.Type())
		if lt.OID == exec.OIDUnknown {
			lt = exec.TText
		}
		var err error
		if r, err = a.coerce(r, exec.ArrayType(lt), "", loc); err != nil {
			return nil, err
		}
	}
	rt := r.Type()
	if !exec.IsArrayType(rt.OID) {
		return nil, WithPos(pgerr.New(pgerr.WrongObjectType, "op ANY/ALL (array) requires array on right side"), loc)
	}
	left := &exec.ColRef{Idx: 0, T: l.Type()}
	elem := &exec.ColRef{Idx: 1, T: baseType(exec.ElemType(rt))}
	test, err := a.binary(op, left, elem, loc)
	if err != nil {
		return nil, err
	}
	if test.Type().OID != exec.OIDBool {
		return nil, WithPos(pgerr.New(pgerr.WrongObjectType, "op ANY/ALL (array) requires operator to yield boolean"), loc)
	}
	if c, ok := test.(*exec.Call); ok && c.Strict && len(c.Args) == 2 && c.Args[0] == exec.Expr(left) && c.Args[1] == exec.Expr(elem) {
		return &exec.AnyAll{Op: op, Cmp: c.Fn, L: l, R: r, All: all}, nil
	}
	return &exec.AnyAll{Op: op, Test: test, L: l, R: r, All: all}, nil
}

// setElement is the new value of column c for UPDATE ... SET c[i] = e,
// c[i][j] = e or c[lo:hi] = arr (an array of c's type). prev, when set,
// is the value an earlier assignment to c in the same statement gave it,
// which this one assigns into. table is the name the target is known by
// in sc.
func (a *analyzer) setElement(table string, c exec.Column, rt *pg.ResTarget, e, prev exec.Expr, sc *scope) (exec.Expr, error) {
	if hasFieldStep(rt.Indirection) {
		// Fields, or fields and subscripts: c.f, c.f[1], c[1].f.
		cur := prev
		if cur == nil {
			var err error
			if cur, err = a.resolveColumn(sc, table, c.Name, rt.Location); err != nil {
				return nil, err
			}
		}
		return a.assignPath(cur, c.Name, rt.Indirection, e, rt.Location, sc)
	}
	if baseType(c.Type).OID == exec.OIDJSONB {
		return a.setJSONBElement(table, c, rt, e, prev, sc)
	}
	if c.Type.OID == exec.OIDHstore {
		return a.setHstoreElement(table, c, rt, e, prev, sc)
	}
	if !exec.IsArrayType(c.Type.OID) {
		return nil, WithPos(pgerr.New(pgerr.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", exec.TypeName(c.Type.OID)), rt.Location)
	}
	for _, n := range rt.Indirection {
		if n.GetAIndices() == nil {
			return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "assignment to a field of an array element is not supported yet"), rt.Location)
		}
	}
	cur := prev
	if cur == nil {
		var err error
		if cur, err = a.resolveColumn(sc, table, c.Name, rt.Location); err != nil {
			return nil, err
		}
	}
	x, err := a.subscripts(cur, rt.Indirection, sc, rt.Location)
	if err != nil {
		return nil, err
	}
	sub := x.(*exec.Subscript)
	want := exec.ElemType(c.Type)
	if sub.Slice {
		want = c.Type
	}
	val, err := a.assign(e, want, c.Name, rt.Location)
	if err != nil {
		return nil, err
	}
	return &exec.SetElement{Arr: cur, Lower: sub.Lower, Upper: sub.Upper, Slice: sub.Slice, Val: val, T: c.Type}, nil
}

// hasFieldStep reports whether an assignment's indirection names a field.
func hasFieldStep(ind []*pg.Node) bool {
	for _, n := range ind {
		if n.GetString_() != nil {
			return true
		}
	}
	return false
}

// compositeField finds field name of composite type t, which column col
// (as the assignment names it) has: its index and type.
func (a *analyzer) compositeField(t exec.T, col, name string, loc int32) (int, exec.T, error) {
	if cat, array := types.UserCategoryOf(types.Oid(t.OID)); cat == types.UserComposite && !array {
		if ut, ok := a.s.Settings().Types.UserType(types.Oid(t.OID)); ok {
			for i, f := range ut.FieldNames {
				if f == name {
					return i, exec.T{OID: uint32(ut.FieldTypes[i]), Typmod: ut.FieldTypmods[i]}, nil
				}
			}
			return 0, exec.T{}, WithPos(pgerr.New(pgerr.UndefinedColumn, "cannot assign to field %q of column %q because there is no such column in data type %s", name, col, ut.Name), loc)
		}
	}
	return 0, exec.T{}, WithPos(pgerr.New(pgerr.DatatypeMismatch, "cannot assign to field %q of column %q because its type %s is not a composite type", name, col, a.typeName(t)), loc)
}

// pathType is the type an assignment through indirection ind (fields
// and subscripts) reaches from a value of type t: what its value must be.
func (a *analyzer) pathType(t exec.T, col string, ind []*pg.Node, loc int32) (exec.T, error) {
	for len(ind) > 0 {
		if f := ind[0].GetString_(); f != nil {
			_, ft, err := a.compositeField(t, col, f.Sval, loc)
			if err != nil {
				return exec.T{}, err
			}
			t, col, ind = ft, f.Sval, ind[1:]
			continue
		}
		if !exec.IsArrayType(t.OID) {
			return exec.T{}, pgerr.New(pgerr.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", exec.TypeName(t.OID))
		}
		n, slice := 0, false
		for n < len(ind) && ind[n].GetAIndices() != nil {
			slice = slice || ind[n].GetAIndices().IsSlice
			n++
		}
		if !slice {
			t = exec.ElemType(t)
		}
		ind = ind[n:]
	}
	return t, nil
}

// assignPath is the new value of cur for an assignment of val through
// indirection ind: each field step a SetField of the record, each run of
// subscripts a SetElement of the array, into the value the step reads
// (NULL making a new record or array), as PostgreSQL's
// transformAssignmentIndirection builds FieldStore and SubscriptingRef
// nodes. col names the column for errors.
func (a *analyzer) assignPath(cur exec.Expr, col string, ind []*pg.Node, val exec.Expr, loc int32, sc *scope) (exec.Expr, error) {
	return a.assignStep(cur, col, ind, val, loc, sc, "")
}

// assignStep is assignPath's step; via says how cur was reached (a
// "field" or a "subscript"), which the leaf's conversion error names.
func (a *analyzer) assignStep(cur exec.Expr, col string, ind []*pg.Node, val exec.Expr, loc int32, sc *scope, via string) (exec.Expr, error) {
	t := cur.Type()
	if len(ind) == 0 {
		if via == "" {
			return a.assign(val, t, col, loc)
		}
		out, ok, err := a.assignCast(val, t, loc)
		if ok || err != nil {
			return out, err
		}
		msg := "subfield %q is of type %s but expression is of type %s"
		if via == "subscript" {
			msg = "subscripted assignment to %q requires type %s but expression is of type %s"
		}
		return nil, WithPos(pgerr.New(pgerr.DatatypeMismatch, msg, col, exec.TypeName(t.OID), exec.TypeName(val.Type().OID)).
			WithHint("You will need to rewrite or cast the expression."), loc)
	}
	if f := ind[0].GetString_(); f != nil {
		idx, ft, err := a.compositeField(t, col, f.Sval, loc)
		if err != nil {
			return nil, err
		}
		inner, err := a.assignStep(&exec.FieldSelect{E: cur, Idx: idx, T: ft}, f.Sval, ind[1:], val, loc, sc, "field")
		if err != nil {
			return nil, err
		}
		return &exec.SetField{Rec: cur, Idx: idx, Val: inner, T: t}, nil
	}
	if !exec.IsArrayType(t.OID) {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", exec.TypeName(t.OID))
	}
	n := 0
	for n < len(ind) && ind[n].GetAIndices() != nil {
		n++
	}
	x, err := a.subscripts(cur, ind[:n], sc, loc)
	if err != nil {
		return nil, err
	}
	sub, ok := x.(*exec.Subscript)
	if !ok {
		return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "assignment through subscripts of type %s is not supported yet", exec.TypeName(t.OID)), loc)
	}
	inner, err := a.assignStep(sub, col, ind[n:], val, loc, sc, "subscript")
	if err != nil {
		return nil, err
	}
	return &exec.SetElement{Arr: cur, Lower: sub.Lower, Upper: sub.Upper, Slice: sub.Slice, Val: inner, T: t}, nil
}
