package planner

import (
	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// scope is the set of columns an expression can name: the columns of the
// FROM clause, each with the position it has in the input row.
type scope struct {
	cols []scopeCol
}

type scopeCol struct {
	table    string // alias or table name
	name     string
	t        exec.T
	idx      int
	tableOID uint32
	attnum   int16
}

// tableScope returns the scope of one table's rows, named alias.
func tableScope(t *exec.Table, alias string) *scope {
	sc := &scope{}
	for _, c := range t.Cols {
		if c.Dropped {
			continue
		}
		sc.cols = append(sc.cols, scopeCol{table: alias, name: c.Name, t: c.Type, idx: c.Pos, tableOID: t.OID, attnum: int16(c.Pos + 1)})
	}
	return sc
}

// resolve finds the column table.name (table may be empty), with
// PostgreSQL's errors for missing and ambiguous names.
func (sc *scope) resolve(table, name string, pos int32) (*scopeCol, error) {
	var found *scopeCol
	tableSeen := table == ""
	for i := range sc.cols {
		c := &sc.cols[i]
		if table != "" && c.table != table {
			continue
		}
		tableSeen = true
		if c.name != name {
			continue
		}
		if found != nil {
			return nil, withPos(pgerr.New(pgerr.AmbiguousColumn, "column reference %q is ambiguous", name), pos)
		}
		found = c
	}
	if found != nil {
		return found, nil
	}
	if !tableSeen {
		return nil, withPos(pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", table), pos)
	}
	if table != "" {
		return nil, withPos(pgerr.New(pgerr.UndefinedColumn, "column %s.%s does not exist", table, name), pos)
	}
	return nil, withPos(pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", name), pos)
}

// withPos sets an error's position from a 0-based byte offset of the
// parser (-1 for none).
func withPos(e *pgerr.Error, loc int32) *pgerr.Error {
	if loc >= 0 {
		e.Position = int(loc) + 1
	}
	return e
}
