package exec

// IndexOr reads the rows of a table that any of its scans returns, each
// once: WHERE email = $1 OR name = $2 with an index on each column, which
// otherwise reads the whole table (PostgreSQL's BitmapOr). The scans are
// of one table and read in turn; a row a scan returns again, found by its
// primary-map key, is skipped. The planner tests the whole predicate above
// it: a scan's bounds narrow what it reads and decide nothing.
type IndexOr struct {
	// Scans are *IndexScans (Plans, so that EXPLAIN ANALYZE counts each).
	Scans []Plan
	Cols  []ResultColumn
}

// Table is the table the scans read.
func (p *IndexOr) Table() *Table { return unwrapInstrumented(p.Scans[0]).(*IndexScan).Table }

func (p *IndexOr) Columns() []ResultColumn { return p.Cols }

func (p *IndexOr) Open(env *Env) (Rows, error) {
	return &indexOrRows{env: env, p: p, seen: map[string]struct{}{}}, nil
}

type indexOrRows struct {
	env  *Env
	p    *IndexOr
	i    int  // the scan being read, or the next one to open
	in   Rows // its rows; nil between scans
	seen map[string]struct{}
	key  []byte
}

func (r *indexOrRows) Next() (Row, error) {
	for {
		if r.in == nil {
			if r.i >= len(r.p.Scans) {
				return nil, nil
			}
			in, err := r.p.Scans[r.i].Open(r.env)
			if err != nil {
				return nil, err
			}
			r.in = in
			r.i++
		}
		row, err := r.in.Next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			err := r.in.Close()
			r.in = nil
			if err != nil {
				return nil, err
			}
			continue
		}
		key := r.in.(keyedRows).Key()
		if _, dup := r.seen[string(key)]; dup {
			continue
		}
		r.seen[string(key)] = struct{}{}
		r.key = key
		return row, nil
	}
}

// Key returns the primary-map key of the last row: UPDATE and DELETE
// write through it.
func (r *indexOrRows) Key() []byte { return r.key }

func (r *indexOrRows) Close() error {
	if r.in == nil {
		return nil
	}
	err := r.in.Close()
	r.in = nil
	return err
}

var _ keyedRows = (*indexOrRows)(nil)
