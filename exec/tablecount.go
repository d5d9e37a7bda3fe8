package exec

// TableCount is count(*) over every row of a table (SELECT count(*) FROM
// t, no WHERE): its one row holds the number of entries of the table's
// primary map, which every node of the tree records for its subtree, so
// it costs a read of the root instead of a read of each row; the changes
// the transaction has not written into the tree yet (deferred edits)
// correct it by a lookup each. Scan is the table's scan; Cols is the
// count's column.
type TableCount struct {
	Scan *Scan
	Cols []ResultColumn
}

func (p *TableCount) Columns() []ResultColumn { return p.Cols }

func (p *TableCount) Open(env *Env) (Rows, error) {
	_, m, err := p.Scan.readTable(env)
	if err != nil {
		return nil, err
	}
	n, err := m.CountExact(env.Ctx)
	if err != nil {
		return nil, err
	}
	return &bufferedRows{rows: []Row{{DInt(int64(n))}}}, nil
}
