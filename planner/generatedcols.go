package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// generatedExprs analyzes the generation expressions of t's columns for
// a statement that writes its rows: nil when t has none.
func (a *analyzer) generatedExprs(t *exec.Table) (exec.GeneratedCols, error) {
	var out exec.GeneratedCols
	for _, c := range t.Cols {
		if c.Generated == "" || c.Dropped {
			continue
		}
		if out == nil {
			out = make(exec.GeneratedCols, len(t.Cols))
		}
		n, err := ParseExpr(c.Generated)
		if err != nil {
			return nil, err
		}
		e, err := a.expr(n, tableScope(t, t.Def.Name))
		if err != nil {
			return nil, err
		}
		if out[c.Pos], err = a.assignColumn(e, c, -1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// updatedGenerated returns the generated columns of t whose expressions
// read a column that sets (an UPDATE's, by position) assigns.
func updatedGenerated(t *exec.Table, sets []exec.Expr) []int {
	var out []int
	for _, g := range t.Cols {
		if g.Generated == "" || g.Dropped {
			continue
		}
		for pos, e := range sets {
			if e != nil && ExprReads(g.Generated, t.Cols[pos].Name) {
				out = append(out, g.Pos)
				break
			}
		}
	}
	return out
}

// insertGenerated is the error of a value other than DEFAULT given to
// generated column c by INSERT.
func insertGenerated(c exec.Column) error {
	return pgerr.New(pgerr.GeneratedAlways, "cannot insert a non-DEFAULT value into column %q", c.Name).
		WithDetail("Column %q is a generated column.", c.Name)
}

// updateGenerated is the error of a value other than DEFAULT assigned to
// generated column c by UPDATE or ON CONFLICT DO UPDATE.
func updateGenerated(c exec.Column) error {
	return pgerr.New(pgerr.GeneratedAlways, "column %q can only be updated to DEFAULT", c.Name).
		WithDetail("Column %q is a generated column.", c.Name)
}

// copyGenerated is the error of a generated column named in COPY's
// column list.
func copyGenerated(name string) error {
	return pgerr.New(pgerr.InvalidColumnReference, "column %q is a generated column", name).
		WithDetail("Generated columns cannot be used in COPY.")
}

// GeneratedRead returns the first generated column of def that n reads,
// a whole-row reference reading them all; "" if none.
func GeneratedRead(def *sqldef.Table, n *pg.Node) string {
	var generated string
	use := func(name string) {
		if i := ColumnIndex(def, name); i >= 0 && def.Columns[i].Generated != 0 && generated == "" {
			generated = name
		}
	}
	VisitNodes(n, func(x *pg.Node) {
		cr := x.GetColumnRef()
		if cr == nil {
			return
		}
		last := cr.Fields[len(cr.Fields)-1]
		name := last.GetString_().GetSval()
		if last.GetAStar() == nil && (len(cr.Fields) > 1 || name != def.Name || ColumnIndex(def, name) >= 0) {
			use(name)
			return
		}
		for _, c := range def.Columns {
			if !c.Dropped {
				use(c.Name)
			}
		}
	})
	return generated
}

// checkCopyWhereGenerated refuses a COPY FROM ... WHERE condition that
// reads a generated column of def: rows are filtered before their
// generated columns are computed.
func checkCopyWhereGenerated(def *sqldef.Table, where *pg.Node) error {
	if g := GeneratedRead(def, where); g != "" {
		return pgerr.New(pgerr.InvalidColumnReference, "generated columns are not supported in COPY FROM WHERE conditions").
			WithDetail("Column %q is a generated column.", g)
	}
	return nil
}

// ExprReads reports whether a stored expression names column col.
func ExprReads(expr, col string) bool {
	n, err := ParseExpr(expr)
	if err != nil {
		return false
	}
	reads := false
	VisitNodes(n, func(x *pg.Node) {
		if cr := x.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetString_().GetSval() == col {
			reads = true
		}
	})
	return reads
}
