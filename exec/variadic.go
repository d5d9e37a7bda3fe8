package exec

// SpreadCall is a call f(x, ..., VARIADIC arr) of a built-in variadic
// function: the elements of arr, of all its dimensions in storage order,
// become the last arguments, as many as it has (PostgreSQL's
// extract_variadic_args). Functions over "any" (concat, format,
// json_build_object) are built for the number of arguments each call
// has, so the implementation is bound at each evaluation.
type SpreadCall struct {
	Name  string
	F     *Func
	Fixed []Expr // the arguments before VARIADIC, of the types F wants
	Array Expr   // an array of Elem
	Elem  T
	// NullEmpty makes a NULL array spread no argument (format); otherwise
	// the call is NULL, as PostgreSQL's variadic built-ins return.
	NullEmpty bool
	T         T
}

func (e *SpreadCall) Type() T { return e.T }

func (e *SpreadCall) Eval(env *Env, row Row) (Datum, error) {
	args := make([]Datum, 0, len(e.Fixed)+4)
	types := make([]T, 0, len(e.Fixed)+4)
	for _, x := range e.Fixed {
		d, err := x.Eval(env, row)
		if err != nil {
			return Null, err
		}
		args, types = append(args, d), append(types, x.Type())
	}
	arr, err := e.Array.Eval(env, row)
	if err != nil {
		return Null, err
	}
	if arr.IsNull() && !e.NullEmpty {
		return Null, nil
	}
	if !arr.IsNull() {
		for _, d := range arr.Array().Elems {
			args, types = append(args, d), append(types, e.Elem)
		}
	}
	if e.F.Strict {
		for _, d := range args {
			if d.IsNull() {
				return Null, nil
			}
		}
	}
	fn, _, err := e.F.Bind(types)
	if err != nil {
		return Null, err
	}
	return fn(env, args)
}
