package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// ConstraintExists reports whether table def has a constraint called
// name: a CHECK, the primary key, a unique or foreign key constraint.
func ConstraintExists(def *sqldef.Table, name string) bool {
	if len(def.PrimaryKey) > 0 && def.PrimaryKeyName == name {
		return true
	}
	for _, c := range def.Checks {
		if c.Name == name {
			return true
		}
	}
	for _, ix := range def.Indexes {
		if ix.Constraint && ix.Name == name {
			return true
		}
	}
	for _, fk := range def.ForeignKeys {
		if fk.Name == name {
			return true
		}
	}
	for _, x := range def.Exclusions {
		if x.Name == name {
			return true
		}
	}
	for _, tr := range def.Triggers {
		if tr.Constraint && tr.Name == name {
			return true // a constraint trigger's pg_constraint row
		}
	}
	return false
}

// checkExpr analyzes a CHECK expression over the columns of def and
// returns it with the distinct columns it reads, in order of appearance.
func (a *analyzer) checkExpr(def *sqldef.Table, n *pg.Node) (exec.Expr, []string, error) {
	t := exec.NewTable(def)
	sc := tableScope(t, def.Name)
	e, err := a.expr(n, sc)
	if err != nil {
		return nil, nil, err
	}
	if e, err = a.coerce(e, exec.TBool, "argument of CHECK", -1); err != nil {
		return nil, nil, err
	}
	var cols []string
	VisitNodes(n, func(x *pg.Node) {
		cr := x.GetColumnRef()
		if cr == nil {
			return
		}
		name := cr.Fields[len(cr.Fields)-1].GetString_().GetSval()
		for _, c := range cols {
			if c == name {
				return
			}
		}
		cols = append(cols, name)
	})
	return e, cols, nil
}

// checks analyzes the CHECK constraints of t for INSERT and UPDATE.
func (a *analyzer) checks(t *exec.Table) ([]exec.CheckConstraint, error) {
	if len(t.Def.Checks) == 0 {
		return nil, nil
	}
	out := make([]exec.CheckConstraint, 0, len(t.Def.Checks))
	for _, c := range t.Def.Checks {
		n, err := ParseExpr(c.Expr)
		if err != nil {
			return nil, err
		}
		e, _, err := a.checkExpr(t.Def, n)
		if err != nil {
			return nil, err
		}
		out = append(out, exec.CheckConstraint{Name: c.Name, Expr: e})
	}
	return out, nil
}

// identityValue applies an INSERT's OVERRIDING clause to a value given for
// column c: skip means use the column's default instead (OVERRIDING USER
// VALUE on an identity column); a value for a GENERATED ALWAYS column
// needs OVERRIDING SYSTEM VALUE.
func identityValue(c exec.Column, o pg.OverridingKind) (skip bool, err error) {
	switch {
	case c.Identity == 0:
		return false, nil
	case o == pg.OverridingKind_OVERRIDING_USER_VALUE:
		return true, nil
	case c.Identity == 'a' && o != pg.OverridingKind_OVERRIDING_SYSTEM_VALUE:
		return false, pgerr.New(pgerr.GeneratedAlways, "cannot insert a non-DEFAULT value into column %q", c.Name).
			WithDetail("Column %q is an identity column defined as GENERATED ALWAYS.", c.Name).
			WithHint("Use OVERRIDING SYSTEM VALUE to override.")
	}
	return false, nil
}
