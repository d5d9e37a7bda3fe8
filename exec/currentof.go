package exec

import (
	"slices"
)

// WHERE CURRENT OF: a cursor over one table's rows (a scan, filtered,
// projected or locked) remembers which stored row each of its rows came
// from (CurrentKey), and UPDATE ... WHERE CURRENT OF c reads that row
// again as the transaction has it now (CursorRow).

// CurrentKey returns the key of the stored row rows last returned, when
// rows reads one table's rows one for one; false otherwise.
func CurrentKey(r Rows) ([]byte, bool) {
	for {
		switch x := r.(type) {
		case *projectRows:
			r = x.in
		case *filterRows:
			r = x.in
		case *lockedRows:
			r = x.in
		case *scanRows:
			return x.Key(), true
		case *indexRows:
			return x.Key(), true
		case *indexOrRows:
			return x.Key(), true
		default:
			return nil, false
		}
	}
}

// ScannedTable returns the stored table p reads one row for one (what
// CurrentKey's keys are keys of), nil if p is not such a plan.
func ScannedTable(p Plan) *Table {
	for {
		switch x := p.(type) {
		case *Project:
			p = x.In
		case *Filter:
			p = x.In
		case *LockRows:
			p = x.In
		case *Scan:
			if x.Layout != nil || x.Table.Pinned {
				return nil
			}
			return x.Table
		case *IndexScan:
			if x.Table.Pinned {
				return nil
			}
			return x.Table
		case *IndexOr:
			if x.Table().Pinned {
				return nil
			}
			return x.Table()
		default:
			return nil
		}
	}
}

// CursorRow yields the row of Table stored under the key Key gives (a
// cursor's current row), as the transaction has it now; no row if it is
// gone. Its rows are keyed: UPDATE and DELETE change them.
type CursorRow struct {
	Table *Table
	Cols  []ResultColumn
	Key   func(env *Env) ([]byte, error)
}

func (p *CursorRow) Columns() []ResultColumn { return p.Cols }

func (p *CursorRow) Open(env *Env) (Rows, error) {
	key, err := p.Key(env)
	if err != nil {
		return nil, err
	}
	t, err := env.Txn.current(env.Ctx, p.Table)
	if err != nil {
		return nil, err
	}
	m, err := env.Txn.rowsMap(env.Ctx, t)
	if err != nil {
		return nil, err
	}
	v, ok, err := m.Get(env.Ctx, key)
	if err != nil {
		return nil, err
	}
	r := &cursorRowRows{key: slices.Clone(key)}
	if ok {
		if r.row, err = t.decodeRow(v, nil); err != nil {
			return nil, err
		}
	}
	return r, nil
}

type cursorRowRows struct {
	key  []byte
	row  Row
	done bool
}

func (r *cursorRowRows) Next() (Row, error) {
	if r.done || r.row == nil {
		return nil, nil
	}
	r.done = true
	return r.row, nil
}

func (r *cursorRowRows) Key() []byte  { return r.key }
func (r *cursorRowRows) Close() error { return nil }

// SupportsBackwardScan reports whether a cursor over p may move backward
// when it is declared with neither SCROLL nor NO SCROLL: PostgreSQL makes
// such a cursor scrollable only if its plan can run backward and it locks
// no rows (ExecSupportsBackwardScan), and pg_cursors.is_scrollable and the
// "can only scan forward" errors follow from that. The nodes here answer
// as theirs do: scans, sorts, VALUES and CTE scans can; joins,
// aggregation, grouping, windows and plans without a FROM cannot.
func SupportsBackwardScan(p Plan) bool {
	switch x := p.(type) {
	case *Project:
		return SupportsBackwardScan(x.In)
	case *Filter:
		return SupportsBackwardScan(x.In)
	case *Limit:
		return SupportsBackwardScan(x.In)
	case *LimitTies:
		return SupportsBackwardScan(x.In)
	case *Append:
		for _, part := range x.Parts {
			if !SupportsBackwardScan(part) {
				return false
			}
		}
		return true
	case *Scan, *IndexScan, *Sort, *CTEScan:
		return true
	case *Values:
		return len(x.Rows) > 1 // one row (no FROM, or VALUES of one row): PostgreSQL's Result node
	}
	return false
}
