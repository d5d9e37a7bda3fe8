package planner

import (
	"slices"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// User-defined operators (CREATE OPERATOR): the resolution of a OP b and
// OP b against them and the built-in operators, and the call of the
// function an operator stands for. An operator is a sqldef.Function
// record of Kind 'o' (see sqldef.Operator); looking one up goes
// through userRoutines, so a plan depends on the operators of each name
// it applied, as it does on the functions it called.

// userOperators returns the operators named name, binary or prefix as
// prefix says: in schema, or in the schemas of the search path, in its
// order.
func (a *analyzer) userOperators(schema, name string, prefix bool) ([]*sqldef.Function, error) {
	if schema != "" {
		sch := a.s.ResolveSchemaName(schema)
		if _, ok, err := a.tx.Catalog().Schema(a.ctx, sch); err != nil {
			return nil, err
		} else if !ok && !IsSystemSchema(sch) {
			return nil, pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", schema)
		}
	}
	ops, err := a.userRoutines(schema, name, true)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(slices.Clone(ops), func(op *sqldef.Function) bool { return op.IsPrefix() != prefix }), nil
}

// qualifiedOp is how errors name operator name of schema: schema.name
// when the expression qualified it (OPERATOR(schema.name)).
func qualifiedOp(schema, name string) string {
	if schema == "" {
		return name
	}
	return schema + "." + name
}

// binaryOperator resolves l OP r, OP of schema ("" for the search path),
// as PostgreSQL's oper does: an exact match first (an unknown literal
// taking the other side's type), the built-in operators' before the user
// ones'; then the user operators the operands convert to implicitly;
// else the built-in resolution, whose errors are PostgreSQL's.
func (a *analyzer) binaryOperator(schema, op string, l, r exec.Expr, loc int32) (exec.Expr, error) {
	if schema == "pg_catalog" {
		return a.builtinBinary(op, l, r, loc)
	}
	ops, err := a.userOperators(schema, op, false)
	if err != nil {
		return nil, WithPos(err.(*pgerr.Error), loc)
	}
	if len(ops) == 0 {
		if schema != "" {
			return nil, errNoOperator(qualifiedOp(schema, op), l.Type(), r.Type(), loc)
		}
		return a.builtinBinary(op, l, r, loc)
	}
	lt, rt := l.Type().OID, r.Type().OID
	el, er := lt, rt
	switch {
	case el == exec.OIDUnknown && er != exec.OIDUnknown:
		el = er
	case er == exec.OIDUnknown && el != exec.OIDUnknown:
		er = el
	}
	if schema == "" && builtinExact(op, el, er) {
		return a.builtinBinary(op, l, r, loc)
	}
	for _, def := range ops {
		if dl, dr := def.Operands(); dl == el && dr == er {
			return a.applyOperator(def, []exec.Expr{l, r}, loc)
		}
	}
	def, err := a.chooseOperator(ops, op, []exec.T{l.Type(), r.Type()}, loc)
	if err != nil || def != nil {
		if err != nil {
			return nil, err
		}
		return a.applyOperator(def, []exec.Expr{l, r}, loc)
	}
	if schema != "" {
		return nil, errNoOperator(qualifiedOp(schema, op), l.Type(), r.Type(), loc)
	}
	return a.builtinBinary(op, l, r, loc)
}

// prefixOperator resolves OP r as binaryOperator resolves l OP r.
func (a *analyzer) prefixOperator(schema, op string, r exec.Expr, loc int32) (exec.Expr, error) {
	if schema == "pg_catalog" {
		return a.builtinUnary(op, r, loc)
	}
	ops, err := a.userOperators(schema, op, true)
	if err != nil {
		return nil, WithPos(err.(*pgerr.Error), loc)
	}
	if len(ops) == 0 {
		if schema != "" {
			return nil, errNoOperatorTypes(qualifiedOp(schema, op), []exec.T{r.Type()}, loc)
		}
		return a.builtinUnary(op, r, loc)
	}
	rt := r.Type().OID
	if schema == "" && exec.HasExact(op, rt) {
		return a.builtinUnary(op, r, loc)
	}
	for _, def := range ops {
		if _, dr := def.Operands(); dr == rt {
			return a.applyOperator(def, []exec.Expr{r}, loc)
		}
	}
	def, err := a.chooseOperator(ops, op, []exec.T{r.Type()}, loc)
	if err != nil || def != nil {
		if err != nil {
			return nil, err
		}
		return a.applyOperator(def, []exec.Expr{r}, loc)
	}
	if schema != "" {
		return nil, errNoOperatorTypes(qualifiedOp(schema, op), []exec.T{r.Type()}, loc)
	}
	return a.builtinUnary(op, r, loc)
}

// builtinExact reports whether a built-in operator op takes exactly
// left and right: a function of the registry, or a comparison of a
// built-in scalar type with itself. The comparisons of enums, arrays,
// ranges and records are polymorphic (anyenum = anyenum), which a user
// operator over the actual types matches before them, as in PostgreSQL.
func builtinExact(op string, left, right uint32) bool {
	if exec.HasExact(op, left, right) {
		return true
	}
	if left != right || left == exec.OIDUnknown || left >= firstUserOID || exec.CompareOp(op) == nil || exec.IsGeometric(left) || exec.IsArrayType(left) {
		return false
	}
	switch exec.KindOf(left) {
	case exec.KindRange, exec.KindMultirange:
		return false
	}
	return left != exec.OIDRecord
}

// firstUserOID is PostgreSQL's FirstNormalObjectId: the OIDs below are
// the built-in objects'.
const firstUserOID = 16384

// chooseOperator picks among user operators the one the operands convert
// to implicitly, by the rules of function resolution (exec.ChooseIn);
// nil when none fits.
func (a *analyzer) chooseOperator(ops []*sqldef.Function, op string, types []exec.T, loc int32) (*sqldef.Function, error) {
	cands := make([]*exec.Func, len(ops))
	for i, def := range ops {
		cands[i] = &exec.Func{Name: op, Args: def.InputTypes(), Ret: def.Returns}
	}
	best, err := exec.ChooseCasts(a.s.Settings(), cands, op, types, a.implicitUserCasts())
	if err != nil {
		if pe, ok := err.(*pgerr.Error); ok && pe.Code == pgerr.AmbiguousFunction {
			return nil, errAmbiguousOperator(op, types, loc)
		}
		return nil, nil
	}
	return ops[slices.Index(cands, best)], nil
}

// applyOperator builds the call of operator def's function over args,
// converted to its operand types.
func (a *analyzer) applyOperator(def *sqldef.Function, args []exec.Expr, loc int32) (exec.Expr, error) {
	want := make([]exec.T, len(args))
	for i, t := range def.InputTypes() {
		want[i] = exec.T{OID: t, Typmod: -1}
	}
	args = slices.Clone(args)
	if err := a.coerceArgs(args, want, loc); err != nil {
		return nil, err
	}
	return a.operatorCall(def, args, loc)
}

// operatorCall calls the function operator def stands for, a user
// function or a built-in one, over args of its operand types.
func (a *analyzer) operatorCall(def *sqldef.Function, args []exec.Expr, loc int32) (exec.Expr, error) {
	schema, fname := SplitName(strings.Split(def.Operator.Proc, "."))
	if schema != "pg_catalog" {
		fs, err := a.userFuncs(schema, fname)
		if err != nil {
			return nil, err
		}
		cands := slices.DeleteFunc(slices.Clone(fs), func(f *sqldef.Function) bool {
			return f.Kind != 'f' || !slices.Equal(f.InputTypes(), def.InputTypes())
		})
		if len(cands) == 0 {
			return nil, WithPos(pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", sigOf(fname, exprTypes(args))), loc)
		}
		rc, err := a.resolveAmong(cands, fname, args, nil, nil, false, loc, false)
		if err != nil {
			return nil, err
		}
		return a.scalarUserCall(rc)
	}
	return a.call(fname, args, loc, false)
}

func exprTypes(args []exec.Expr) []exec.T {
	ts := make([]exec.T, len(args))
	for i, e := range args {
		ts[i] = e.Type()
	}
	return ts
}
