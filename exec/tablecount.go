package exec

// TableCount is count(*) over every row of a table (SELECT count(*) FROM
// t, no WHERE): its one row holds the number of entries of the table's
// primary map, which every node of the tree records for its subtree, so
// it costs a read of the root instead of a read of each row. A table with
// changes the transaction has not written into its tree yet (deferred
// edits) is counted by reading its rows, as Count of such a map would
// only estimate. Scan reads the table; Cols is the count's column.
type TableCount struct {
	Scan *Scan
	Cols []ResultColumn
}

func (p *TableCount) Columns() []ResultColumn { return p.Cols }

func (p *TableCount) Open(env *Env) (Rows, error) {
	t, err := env.Txn.current(env.Ctx, p.Scan.Table)
	if err != nil {
		return nil, err
	}
	if err := env.Txn.ssiReadTable(t); err != nil {
		return nil, err
	}
	m, err := env.Txn.rowsMap(env.Ctx, t)
	if err != nil {
		return nil, err
	}
	n := int64(m.Count())
	if m.Deferred() > 0 {
		in, err := p.Scan.Open(env)
		if err != nil {
			return nil, err
		}
		defer in.Close()
		for n = 0; ; n++ {
			row, err := in.Next()
			if err != nil {
				return nil, err
			}
			if row == nil {
				break
			}
		}
	}
	return &bufferedRows{rows: []Row{{DInt(n)}}}, nil
}

func (p *TableCount) Explain() (string, []Plan) { return "Aggregate", []Plan{p.Scan} }
