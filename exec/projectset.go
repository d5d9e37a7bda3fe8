package exec

// ProjectSet evaluates the set-returning functions of a select list
// (SELECT generate_series(1, n) ...): for each input row it opens each
// function's plan, with Outer set to its Args evaluated over the row, and
// returns the row followed by one value of each function, in lockstep, as
// many times as the longest function has rows (a shorter one gives NULLs
// once ended, as PostgreSQL 10 and later do). A row for which every
// function is empty gives no rows.
type ProjectSet struct {
	In    Plan
	Funcs []Plan // each with one column
	Args  [][]Expr
	Cols  []ResultColumn
}

func (p *ProjectSet) Columns() []ResultColumn { return p.Cols }

func (p *ProjectSet) Open(env *Env) (Rows, error) {
	in, err := p.In.Open(env)
	if err != nil {
		return nil, err
	}
	w := len(p.In.Columns())
	return &projectSetRows{p: p, env: env, in: in, w: w, out: make(Row, w+len(p.Funcs)), fns: make([]Rows, len(p.Funcs))}, nil
}

type projectSetRows struct {
	p    *ProjectSet
	env  *Env
	in   Rows
	w    int
	out  Row
	fns  []Rows // the open functions of the current row; nil when ended
	live bool   // the current row has open functions
}

func (r *projectSetRows) Next() (Row, error) {
	for {
		if !r.live {
			row, err := r.in.Next()
			if row == nil || err != nil {
				return nil, err
			}
			copy(r.out, row)
			for i, f := range r.p.Funcs {
				args := make([]Datum, len(r.p.Args[i]))
				for j, a := range r.p.Args[i] {
					if args[j], err = a.Eval(r.env, row); err != nil {
						return nil, err
					}
				}
				if r.fns[i], err = f.Open(r.env.child(args)); err != nil {
					return nil, err
				}
			}
			r.live = true
		}
		any := false
		for i, f := range r.fns {
			r.out[r.w+i] = Null
			if f == nil {
				continue
			}
			v, err := f.Next()
			if err != nil {
				return nil, err
			}
			if v == nil {
				if err := f.Close(); err != nil {
					return nil, err
				}
				r.fns[i] = nil
				continue
			}
			r.out[r.w+i] = v[0]
			any = true
		}
		if any {
			return r.out, nil
		}
		r.live = false
	}
}

func (r *projectSetRows) Close() error {
	err := r.in.Close()
	for _, f := range r.fns {
		if f != nil {
			if e := f.Close(); err == nil {
				err = e
			}
		}
	}
	return err
}
