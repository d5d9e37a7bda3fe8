package exec

// UserAgg is a user-defined aggregate (CREATE AGGREGATE), its functions
// bound for the argument types of a call.
type UserAgg struct {
	Name string
	Args []uint32
	Ret  T
	// Init is the state a group starts from (NULL for none).
	Init Datum
	// Step is the transition function over (state, args...), Final, when
	// set, the final function over the last state. A strict Step is not
	// called for rows with a NULL argument, and its first call is
	// replaced by taking the first argument as the state when Init is
	// NULL; a strict Final makes a NULL state a NULL result.
	Step, Final             Fn
	StepStrict, FinalStrict bool
	// Transition identifies Step, the state type and Init: aggregates
	// with the same one share the state of calls over the same input.
	Transition string
}

// AggFunc returns the aggregate as an overload the Aggregate plan runs.
func (u *UserAgg) AggFunc() *AggFunc {
	return &AggFunc{
		Name:       u.Name,
		Args:       u.Args,
		Ret:        u.Ret.OID,
		KeepNulls:  !u.StepStrict,
		StrictAll:  u.StepStrict,
		New:        func([]T) Accumulator { return &userAggAcc{u: u, state: u.Init, noState: u.Init.IsNull()} },
		Transition: u.Transition,
		Share: func(from Accumulator) Accumulator {
			return &sharedAggAcc{u: u, from: from.(*userAggAcc)}
		},
	}
}

// sharedAggAcc finishes, with its own final function, the state of
// another call's accumulator.
type sharedAggAcc struct {
	u    *UserAgg
	from *userAggAcc
}

func (a *sharedAggAcc) Add(*Env, []Datum) error { return nil }

func (a *sharedAggAcc) Result(env *Env) (Datum, error) {
	return (&userAggAcc{u: a.u, state: a.from.state}).Result(env)
}

type userAggAcc struct {
	u     *UserAgg
	state Datum
	// noState is set until the first row when there is no initial state.
	noState bool
	buf     []Datum
}

func (a *userAggAcc) Add(env *Env, args []Datum) error {
	if a.u.StepStrict {
		switch {
		case a.noState:
			// PostgreSQL's rule for a strict step without an initial
			// state: the first row's argument becomes the state.
			a.noState = false
			if len(args) > 0 {
				a.state = args[0]
			}
			return nil
		case a.state.IsNull():
			return nil // a strict step is not called with a NULL state
		}
	}
	a.buf = append(append(a.buf[:0], a.state), args...)
	s, err := a.u.Step(env, a.buf)
	if err != nil {
		return err
	}
	a.state = s
	return nil
}

func (a *userAggAcc) Result(env *Env) (Datum, error) {
	if a.u.Final == nil {
		return a.state, nil
	}
	if a.u.FinalStrict && a.state.IsNull() {
		return Null, nil
	}
	return a.u.Final(env, []Datum{a.state})
}
