package exec

import "slices"

// Distinct passes the first of each set of rows not distinct from one
// another (NULLs equal), in input order; it remembers every row it passed.
type Distinct struct {
	In Plan
}

func (p *Distinct) Columns() []ResultColumn { return p.In.Columns() }

func (p *Distinct) Open(env *Env) (Rows, error) {
	in, err := p.In.Open(env)
	if err != nil {
		return nil, err
	}
	return &distinctRows{env: env, in: in, seen: newKeyTable(len(p.In.Columns()))}, nil
}

type distinctRows struct {
	env  *Env
	in   Rows
	seen *keyTable
	buf  []byte
}

// firstTime reports whether row is new to seen, and adds it if so.
func firstTime(seen *keyTable, buf *[]byte, row Row) bool {
	var h uint64
	h, *buf = hashDatums(*buf, row)
	if seen.first(h, row) >= 0 {
		return false
	}
	seen.add(h, row)
	return true
}

func (r *distinctRows) Next() (Row, error) {
	for {
		row, err := r.in.Next()
		if row == nil || err != nil {
			return nil, err
		}
		if firstTime(r.seen, &r.buf, row) {
			if err := r.env.hold(row); err != nil {
				return nil, err
			}
			return row, nil
		}
	}
}

func (r *distinctRows) Close() error { return r.in.Close() }

// Unique passes the first row of each run of rows whose Cols are not
// distinct: over sorted input, DISTINCT ON.
type Unique struct {
	In   Plan
	Cols []int
}

func (p *Unique) Columns() []ResultColumn { return p.In.Columns() }

func (p *Unique) Open(env *Env) (Rows, error) {
	in, err := p.In.Open(env)
	if err != nil {
		return nil, err
	}
	return &uniqueRows{p: p, in: in}, nil
}

type uniqueRows struct {
	p    *Unique
	in   Rows
	prev []Datum
	any  bool
}

func (r *uniqueRows) Next() (Row, error) {
	for {
		row, err := r.in.Next()
		if row == nil || err != nil {
			return nil, err
		}
		same := r.any
		for i, c := range r.p.Cols {
			if !same {
				break
			}
			same = NotDistinct(r.prev[i], row[c])
		}
		if same {
			continue
		}
		r.prev = r.prev[:0]
		for _, c := range r.p.Cols {
			r.prev = append(r.prev, row[c])
		}
		r.any = true
		return row, nil
	}
}

func (r *uniqueRows) Close() error { return r.in.Close() }

// LimitTies passes the first Count rows (all when Count is NULL) and then
// every following row that ties with the last of them on Keys: FETCH
// FIRST ... WITH TIES over sorted input.
type LimitTies struct {
	In     Plan
	Count  Expr
	Offset Expr // nil: none
	Keys   []SortKey
}

func (p *LimitTies) Columns() []ResultColumn { return p.In.Columns() }

func (p *LimitTies) Open(env *Env) (Rows, error) {
	lim := &Limit{In: p.In, Count: p.Count, Offset: p.Offset}
	in, err := lim.open(env, false)
	if err != nil {
		return nil, err
	}
	lr := in.(*limitRows)
	return &tiesRows{lr: lr, keys: p.Keys}, nil
}

type tiesRows struct {
	lr   *limitRows
	keys []SortKey
	last Row
	done bool
}

func (r *tiesRows) Next() (Row, error) {
	if r.done {
		return nil, nil
	}
	if r.lr.left != 0 {
		row, err := r.lr.Next()
		if row == nil || err != nil {
			return row, err
		}
		if r.lr.left == 0 {
			r.last = slices.Clone(row)
		}
		return row, nil
	}
	if r.last == nil {
		return nil, nil
	}
	row, err := r.lr.in.Next()
	if row == nil || err != nil {
		return nil, err
	}
	if CompareRows(row, r.last, r.keys) != 0 {
		r.done = true
		return nil, nil
	}
	return row, nil
}

func (r *tiesRows) Close() error { return r.lr.Close() }
