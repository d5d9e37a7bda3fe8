package planner

// User-defined casts (CREATE CAST, planner/ddl/cast.go) in conversions:
// pg_cast's entry for a pair of types is the cast PostgreSQL's
// find_coercion_pathway takes, before the built-in rules.

import (
	"slices"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// castsDep names the funcDep of the user-defined casts: no function's
// name, having parentheses.
const castsDep = "(casts)"

// userCasts returns the user-defined casts, read once per statement. The
// statement depends on them (funcDep), so CREATE CAST or DROP CAST, in
// any session, has its plan made again.
func (a *analyzer) userCasts() ([]*sqldef.Function, error) {
	for _, d := range a.funcs {
		if d.name == castsDep {
			return d.found, nil
		}
	}
	cs, err := a.tx.Catalog().Casts(a.ctx)
	if err != nil {
		return nil, err
	}
	a.funcs = append(a.funcs, funcDep{name: castsDep, found: cs})
	return cs, nil
}

// userCast returns the user-defined cast from one type to another that a
// conversion may take: any of them explicitly, else those AS ASSIGNMENT
// or AS IMPLICIT (the callers converting otherwise, assignments and
// implicit coercions, have decided the conversion is allowed). nil when
// there is none.
func (a *analyzer) userCast(from, to uint32, explicit bool) (*sqldef.Function, error) {
	if from == to || from == exec.OIDUnknown {
		return nil, nil // a literal is read by the type's input
	}
	cs, err := a.userCasts()
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		if src, tgt := c.CastTypes(); src == from && tgt == to && c.Cast != nil {
			if explicit || c.Cast.Context != 'e' {
				return c, nil
			}
			return nil, nil
		}
	}
	return nil, nil
}

// implicitUserCast reports whether a user-defined cast AS IMPLICIT
// converts from one type to another.
func (a *analyzer) implicitUserCast(from, to uint32) bool {
	c, err := a.userCast(from, to, false)
	return err == nil && c != nil && c.Cast.Context == 'i'
}

// implicitUserCasts is implicitUserCast for function and operator
// resolution (exec.ChooseCasts); nil when there are no user casts.
func (a *analyzer) implicitUserCasts() func(from, to uint32) bool {
	if cs, err := a.userCasts(); err != nil || len(cs) == 0 {
		return nil
	}
	return a.implicitUserCast
}

// applyUserCast converts e to t by user-defined cast c: by its function
// (given the target's modifier and whether the cast is explicit when it
// takes them), as the same value (WITHOUT FUNCTION), or by the text
// output of e's type and the input of t's (WITH INOUT).
func (a *analyzer) applyUserCast(c *sqldef.Function, e exec.Expr, t exec.T, explicit bool, loc int32) (exec.Expr, error) {
	var out exec.Expr
	switch c.Cast.Method {
	case 'b':
		out = relabel(e, exec.T{OID: t.OID, Typmod: -1})
	case 'i':
		text, err := a.castBuiltin(e, exec.TText, true, loc)
		if err != nil {
			return nil, err
		}
		if out, err = a.castBuiltin(text, exec.T{OID: t.OID, Typmod: -1}, true, loc); err != nil {
			return nil, err
		}
	default:
		args := []exec.Expr{e}
		if len(c.Cast.ProcArgs) > 1 {
			args = append(args, &exec.Const{D: exec.DInt(int64(t.Typmod)), T: exec.TInt4})
		}
		if len(c.Cast.ProcArgs) > 2 {
			args = append(args, &exec.Const{D: exec.DBool(explicit), T: exec.TBool})
		}
		call, err := a.castFunctionCall(c, args, loc)
		if err != nil {
			return nil, err
		}
		out = relabel(call, exec.T{OID: t.OID, Typmod: -1})
		if len(c.Cast.ProcArgs) > 1 {
			return out, nil // the function applied the modifier
		}
	}
	if t.Typmod >= 0 {
		return a.castBuiltin(out, t, explicit, loc)
	}
	return out, nil
}

// castFunctionCall calls the function of cast c over args.
func (a *analyzer) castFunctionCall(c *sqldef.Function, args []exec.Expr, loc int32) (exec.Expr, error) {
	schema, fname := SplitName(strings.Split(c.Cast.Proc, "."))
	fs, err := a.userFuncs(schema, fname)
	if err != nil {
		return nil, err
	}
	cands := slices.DeleteFunc(slices.Clone(fs), func(f *sqldef.Function) bool {
		return f.Kind != 'f' || !slices.Equal(f.InputTypes(), c.Cast.ProcArgs)
	})
	if len(cands) == 0 {
		return nil, WithPos(pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", sigOf(fname, exprTypes(args))), loc)
	}
	if in := cands[0].InputTypes(); len(in) > 0 && args[0].Type().OID != in[0] {
		// The argument is binary-coercible to the parameter.
		args[0] = relabel(args[0], exec.T{OID: in[0], Typmod: -1})
	}
	rc, err := a.resolveAmong(cands, fname, args, nil, nil, false, loc, false)
	if err != nil {
		return nil, err
	}
	return a.scalarUserCall(rc)
}

// relabel is e taken as a value of type t, of the same representation:
// its datum is read as t's kind.
func relabel(e exec.Expr, t exec.T) exec.Expr {
	if e.Type() == t {
		return e
	}
	kind := exec.KindOf(t.OID)
	as := func(d exec.Datum) exec.Datum {
		if !d.IsNull() {
			d.Kind = kind
		}
		return d
	}
	if c, ok := e.(*exec.Const); ok {
		return &exec.Const{D: as(c.D), T: t}
	}
	return &exec.Call{Name: "cast", Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return as(a[0]), nil },
		Args: []exec.Expr{e}, Strict: true, T: t}
}
