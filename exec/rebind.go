package exec

// Rebind runs In with Outer set to Args, evaluated without a row when it
// is opened: a LATERAL item that reads only values of the enclosing
// query, not the items to its left, runs once per execution of its query
// rather than once per row to its left.
type Rebind struct {
	In   Plan
	Args []Expr
}

func (p *Rebind) Columns() []ResultColumn { return p.In.Columns() }

func (p *Rebind) Open(env *Env) (Rows, error) {
	outer := make([]Datum, len(p.Args))
	for i, a := range p.Args {
		var err error
		if outer[i], err = a.Eval(env, nil); err != nil {
			return nil, err
		}
	}
	return p.In.Open(env.child(outer))
}
