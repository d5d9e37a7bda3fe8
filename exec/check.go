package exec

import "github.com/prollypg/prollypg/exec/pgerr"

// CheckConstraint is a table's CHECK constraint, analyzed over the
// table's rows (column references are column positions).
type CheckConstraint struct {
	Name string
	Expr Expr
}

// checkConstraints fails with 23514 if row makes a constraint false; NULL
// passes, as in PostgreSQL.
func checkConstraints(env *Env, t *Table, checks []CheckConstraint, row Row) error {
	for _, c := range checks {
		d, err := c.Expr.Eval(env, row)
		if err != nil {
			return err
		}
		if !d.IsNull() && !d.Bool() {
			return pgerr.New(pgerr.CheckViolation, "new row for relation %q violates check constraint %q", t.Def.Name, c.Name).
				WithDetail("Failing row contains %s.", formatRow(t, row)).WithTable(t.Def.Schema, t.Def.Name).WithConstraint(c.Name)
		}
	}
	return nil
}

// CheckRow evaluates checks against an existing row for ALTER TABLE ADD
// CONSTRAINT: false means the row violates one.
func CheckRow(env *Env, checks []CheckConstraint, row Row) (string, bool, error) {
	for _, c := range checks {
		d, err := c.Expr.Eval(env, row)
		if err != nil {
			return "", false, err
		}
		if !d.IsNull() && !d.Bool() {
			return c.Name, false, nil
		}
	}
	return "", true, nil
}
