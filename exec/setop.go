package exec

// SetOpKind is UNION, INTERSECT or EXCEPT.
type SetOpKind uint8

const (
	Union SetOpKind = iota
	Intersect
	Except
)

// SetOp combines two inputs of the same column types. Without All,
// duplicates (NULLs equal) are removed from the result; with All, a row
// present m times on the left and n times on the right appears m+n times
// (UNION), min(m, n) times (INTERSECT) or max(m-n, 0) times (EXCEPT).
// Rows keep the left input's order, then the right's (UNION); the right
// input of INTERSECT and EXCEPT is read into memory first.
type SetOp struct {
	Kind        SetOpKind
	All         bool
	Left, Right Plan
	Cols        []ResultColumn
}

func (p *SetOp) Columns() []ResultColumn { return p.Cols }

func (p *SetOp) Open(env *Env) (Rows, error) {
	w := len(p.Cols)
	r := &setOpRows{p: p}
	if p.Kind == Union {
		left, err := p.Left.Open(env)
		if err != nil {
			return nil, err
		}
		r.left = left
		r.env = env
		if !p.All {
			r.seen = newKeyTable(w)
		}
		return r, nil
	}
	// Count the right input's rows by value.
	right, err := p.Right.Open(env)
	if err != nil {
		return nil, err
	}
	r.counts = newKeyTable(w)
	for {
		row, err := right.Next()
		if err != nil {
			right.Close()
			return nil, err
		}
		if row == nil {
			break
		}
		var h uint64
		h, r.buf = hashDatums(r.buf, row)
		if i := r.counts.first(h, row); i >= 0 {
			r.n[i]++
		} else {
			if err := env.hold(row); err != nil {
				right.Close()
				return nil, err
			}
			r.counts.add(h, row)
			r.n = append(r.n, 1)
		}
	}
	if err := right.Close(); err != nil {
		return nil, err
	}
	if !p.All {
		r.seen = newKeyTable(w)
	}
	if r.left, err = p.Left.Open(env); err != nil {
		return nil, err
	}
	return r, nil
}

type setOpRows struct {
	p      *SetOp
	env    *Env
	left   Rows
	right  Rows // UNION: once the left input has ended
	seen   *keyTable
	counts *keyTable // INTERSECT, EXCEPT: the right rows
	n      []int64   // their multiplicities, consumed as left rows match
	buf    []byte
}

func (r *setOpRows) Next() (Row, error) {
	for {
		in := r.left
		if r.right != nil {
			in = r.right
		}
		row, err := in.Next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			if r.p.Kind != Union || r.right != nil {
				return nil, nil
			}
			if r.right, err = r.p.Right.Open(r.env); err != nil {
				return nil, err
			}
			continue
		}
		switch r.p.Kind {
		case Union:
			if r.seen == nil || firstTime(r.seen, &r.buf, row) {
				return row, nil
			}
		case Intersect:
			var h uint64
			h, r.buf = hashDatums(r.buf, row)
			i := r.counts.first(h, row)
			if i < 0 || r.n[i] == 0 {
				continue
			}
			if r.p.All {
				r.n[i]--
			} else {
				r.n[i] = 0
			}
			return row, nil
		case Except:
			var h uint64
			h, r.buf = hashDatums(r.buf, row)
			if i := r.counts.first(h, row); i >= 0 && r.n[i] > 0 {
				if r.p.All {
					r.n[i]--
				}
				continue
			}
			if r.seen == nil || firstTime(r.seen, &r.buf, row) {
				return row, nil
			}
		}
	}
}

func (r *setOpRows) Close() error {
	err := r.left.Close()
	if r.right != nil {
		if e := r.right.Close(); err == nil {
			err = e
		}
	}
	return err
}
