package exec

// IsDistinct is a IS [NOT] DISTINCT FROM b: equality (the planner's
// resolved = over the two operands) where NULL equals NULL and differs
// from every value, so the result is never NULL.
type IsDistinct struct {
	Eq  Fn // = over the operands' types
	L   Expr
	R   Expr
	Not bool // IS NOT DISTINCT FROM
}

func (e *IsDistinct) Eval(env *Env, row Row) (Datum, error) {
	l, err := e.L.Eval(env, row)
	if err != nil {
		return Null, err
	}
	r, err := e.R.Eval(env, row)
	if err != nil {
		return Null, err
	}
	var same bool
	switch {
	case l.IsNull() || r.IsNull():
		same = l.IsNull() && r.IsNull()
	default:
		base := len(env.args)
		env.args = append(env.args, l, r)
		eq, err := e.Eq(env, env.args[base:base+2:base+2])
		env.args = env.args[:base]
		if err != nil {
			return Null, err
		}
		same = !eq.IsNull() && eq.Bool()
	}
	return DBool(same == e.Not), nil
}
func (e *IsDistinct) Type() T { return TBool }

// BoolTest is IS [NOT] TRUE, IS [NOT] FALSE and IS [NOT] UNKNOWN: never
// NULL.
type BoolTest struct {
	E Expr
	// Want is the value tested for: 1 true, 0 false, -1 unknown (NULL).
	Want int8
	Not  bool
}

func (e *BoolTest) Eval(env *Env, row Row) (Datum, error) {
	d, err := e.E.Eval(env, row)
	if err != nil {
		return Null, err
	}
	var is bool
	switch {
	case d.IsNull():
		is = e.Want < 0
	case e.Want >= 0:
		is = d.Bool() == (e.Want == 1)
	}
	return DBool(is != e.Not), nil
}
func (e *BoolTest) Type() T { return TBool }

// AnyAll is x op ANY (array) or x op ALL (array) over an array value
// known only at run time: op holds for some (ANY) or every (ALL) element,
// with SQL's NULL rules (no match but a NULL comparison gives NULL).
type AnyAll struct {
	Op  string // the operator's name, for EXPLAIN
	Cmp Fn     // op over the operand and one element
	// Test, when the operator needs its operands converted, replaces Cmp:
	// it is evaluated over a row holding the operand and one element.
	Test Expr
	L    Expr
	R    Expr
	All  bool
}

func (e *AnyAll) Eval(env *Env, row Row) (Datum, error) {
	l, err := e.L.Eval(env, row)
	if err != nil {
		return Null, err
	}
	r, err := e.R.Eval(env, row)
	if err != nil || r.IsNull() {
		return Null, err
	}
	sawNull := false
	var pair Row
	if e.Test != nil {
		pair = Row{l, Null}
	}
	for _, el := range r.Array().Elems {
		var d Datum
		if e.Test != nil {
			pair[1] = el
			if d, err = e.Test.Eval(env, pair); err != nil {
				return Null, err
			}
		} else if !l.IsNull() && !el.IsNull() {
			base := len(env.args)
			env.args = append(env.args, l, el)
			d, err = e.Cmp(env, env.args[base:base+2:base+2])
			env.args = env.args[:base]
			if err != nil {
				return Null, err
			}
		}
		if d.IsNull() {
			sawNull = true
			continue
		}
		if d.Bool() != e.All {
			return DBool(!e.All), nil
		}
	}
	if sawNull {
		return Null, nil
	}
	return DBool(e.All), nil
}
func (e *AnyAll) Type() T { return TBool }
