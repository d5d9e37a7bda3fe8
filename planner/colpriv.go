package planner

import (
	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Column privileges. A role without a privilege on a table may hold it on
// some of its columns (GRANT SELECT (a, b) ON t), recorded in the
// columns' ACLs (sqldef.Column.ACL) beside the table's. As in
// PostgreSQL, a SELECT needs SELECT on every column it reads, or on any
// one column when it reads none (SELECT count(*)); an INSERT needs INSERT
// on the columns it gives; an UPDATE UPDATE on those it sets; and the
// error is the table's, "permission denied for table t".
//
// Which columns a statement reads is known only once it is analyzed:
// every column reference resolved is counted (useColumn), and the reads
// of tables the role holds only column privileges on are checked at the
// end (checkColumns).

// columnCheck is a read of a table checked at the end of the analysis,
// against the columns the statement read of it.
type columnCheck struct {
	t   *exec.Table
	def *sqldef.Table // the definition whose ACLs apply (privilegeDefinition)
	au  *Authority
}

// useColumn counts a column reference resolved to c. Only references
// to tables with a read to check are counted: a reference resolves to a
// FROM item analyzed (and its read registered) before it, so counting
// nothing until the first is registered loses none, and spares the
// statements of roles that hold their tables' privileges the counting.
func (a *analyzer) useColumn(c *scopeCol) {
	if c == nil || c.tableOID == 0 || c.attnum <= 0 || a.noColumnUse || len(a.colChecks) == 0 {
		return
	}
	if a.colUse == nil {
		a.colUse = map[uint32]map[int]bool{}
	}
	m := a.colUse[c.tableOID]
	if m == nil {
		m = map[int]bool{}
		a.colUse[c.tableOID] = m
	}
	m[int(c.attnum)-1] = true
}

// columnMay reports whether au holds privilege priv on column pos of def,
// through the table's ACL or the column's.
func columnMay(au *Authority, def *sqldef.Table, pos int, priv string) bool {
	if au.may(TableACL(def), priv) {
		return true
	}
	return pos >= 0 && pos < len(def.Columns) && sqldef.ACLHolds(def.Columns[pos].ACL, au.Holds, priv, false)
}

// anyColumnMay reports whether au holds priv on some column of def.
func anyColumnMay(au *Authority, def *sqldef.Table, priv string) bool {
	for pos, c := range def.Columns {
		if !c.Dropped && columnMay(au, def, pos, priv) {
			return true
		}
	}
	return false
}

// requireRead checks that the current role may read t: with SELECT on
// the table now, with SELECT on some of its columns at the end of the
// analysis, against the columns read.
func (a *analyzer) requireRead(t *exec.Table) error {
	err := a.requireTable(t, "r")
	if err == nil {
		return nil
	}
	au, aerr := a.authority()
	if aerr != nil {
		return aerr
	}
	def, aerr := a.privilegeDefinition(t)
	if aerr != nil {
		return aerr
	}
	if !anyColumnMay(au, def, "r") {
		return err
	}
	a.colChecks = append(a.colChecks, columnCheck{t: t, def: def, au: au})
	return nil
}

// requireColumnsRead checks that the current role may read the columns
// of t the statement reads, at the end of the analysis: an UPDATE or
// DELETE needs SELECT only on the target's columns it reads (none for
// UPDATE t SET a = 1 FROM u WHERE u.b = 5).
func (a *analyzer) requireColumnsRead(t *exec.Table) error {
	if a.requireTable(t, "r") == nil {
		return nil
	}
	au, err := a.authority()
	if err != nil {
		return err
	}
	def, err := a.privilegeDefinition(t)
	if err != nil {
		return err
	}
	a.colChecks = append(a.colChecks, columnCheck{t: t, def: def, au: au})
	return nil
}

// requireColumns checks that the current role holds priv on table t, or
// on each of the columns at positions cols.
func (a *analyzer) requireColumns(t *exec.Table, priv string, cols []int) error {
	err := a.requireTable(t, priv)
	if err == nil || t.Def == nil || t.Virtual != nil {
		return err // a catalog's columns hold no privileges of their own
	}
	au, aerr := a.authority()
	if aerr != nil {
		return aerr
	}
	def, aerr := a.privilegeDefinition(t)
	if aerr != nil {
		return aerr
	}
	if len(cols) == 0 && anyColumnMay(au, def, priv) {
		return nil
	}
	for _, pos := range cols {
		if !columnMay(au, def, pos, priv) {
			return err
		}
	}
	if len(cols) == 0 {
		return err
	}
	return nil
}

// checkColumns runs the column checks of the reads analyzed.
func (a *analyzer) checkColumns() error {
	for _, c := range a.colChecks {
		for pos := range a.colUse[c.t.OID] {
			if !columnMay(c.au, c.def, pos, "r") {
				return PermissionDenied("table", c.def.Name)
			}
		}
	}
	a.colChecks = nil
	return nil
}

// useArbiters counts the columns of ON CONFLICT's arbiters as read: the
// check for a conflict reads them ("" is the primary key).
func (a *analyzer) useArbiters(t *exec.Table, arbiters []string) {
	use := func(pos int) { a.useColumn(&scopeCol{tableOID: t.OID, attnum: int16(pos + 1)}) }
	for _, name := range arbiters {
		if name == "" {
			for _, pos := range t.Def.PrimaryKey {
				use(pos)
			}
			continue
		}
		for _, ix := range t.Def.Indexes {
			if ix.Name != name {
				continue
			}
			for _, c := range ix.Columns {
				if c.Expr == "" {
					use(c.Column)
				}
			}
		}
	}
}
