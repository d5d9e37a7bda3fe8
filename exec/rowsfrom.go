package exec

// RowsFrom is FROM ROWS FROM (f(...), g(...)) [WITH ORDINALITY]: the rows
// of its parts side by side, the first row of each, then the second, and
// so on, a part that has ended giving NULLs, until all have ended; with
// Ordinality, the row's number after the parts' columns.
type RowsFrom struct {
	Parts      []Plan
	Ordinality bool
	Cols       []ResultColumn
}

func (p *RowsFrom) Columns() []ResultColumn { return p.Cols }

func (p *RowsFrom) Open(env *Env) (Rows, error) {
	r := &rowsFromRows{widths: make([]int, len(p.Parts)), ordinality: p.Ordinality}
	for i, part := range p.Parts {
		rows, err := part.Open(env)
		if err != nil {
			r.Close()
			return nil, err
		}
		r.parts = append(r.parts, rows)
		r.widths[i] = len(part.Columns())
	}
	return r, nil
}

type rowsFromRows struct {
	parts      []Rows // nil once a part has ended
	widths     []int
	ordinality bool
	n          int64
}

func (r *rowsFromRows) Next() (Row, error) {
	var out Row
	live := false
	for i, rows := range r.parts {
		var row Row
		if rows != nil {
			var err error
			if row, err = rows.Next(); err != nil {
				return nil, err
			}
			if row == nil {
				rows.Close()
				r.parts[i] = nil
			} else {
				live = true
			}
		}
		if row == nil {
			for range r.widths[i] {
				out = append(out, Null)
			}
			continue
		}
		out = append(out, row[:r.widths[i]]...)
	}
	if !live {
		return nil, nil
	}
	if r.ordinality {
		r.n++
		out = append(out, DInt(r.n))
	}
	return out, nil
}

func (r *rowsFromRows) Close() error {
	var first error
	for i, rows := range r.parts {
		if rows != nil {
			if err := rows.Close(); err != nil && first == nil {
				first = err
			}
			r.parts[i] = nil
		}
	}
	return first
}
