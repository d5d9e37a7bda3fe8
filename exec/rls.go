package exec

import "github.com/prollypg/prollypg/exec/pgerr"

// PolicyCheck is a row-level security check of a row a statement writes,
// as PostgreSQL's WithCheckOption of kinds WCO_RLS_*: the permissive
// policies' expressions OR-ed (Policy ""), or one restrictive policy's.
// A row passes when Expr is true; NULL fails it.
type PolicyCheck struct {
	Expr   Expr
	Policy string
	// Using marks the check of the existing row an INSERT ... ON
	// CONFLICT DO UPDATE would update, against the UPDATE policies'
	// USING expressions: its error says so. Target marks the same check
	// of the row a MERGE updates or deletes, whose error says "target
	// row".
	Using, Target bool
}

// checkPolicies fails with 42501 if row does not pass one of checks.
func checkPolicies(env *Env, t *Table, checks []PolicyCheck, row Row) error {
	for _, c := range checks {
		ok, err := isTrue(env, c.Expr, row)
		if err != nil {
			return err
		}
		if ok {
			continue
		}
		using, what := "", "new row"
		if c.Using || c.Target {
			using = " (USING expression)"
		}
		if c.Target {
			what = "target row"
		}
		if c.Policy != "" {
			return pgerr.New(pgerr.InsufficientPrivilege, "%s violates row-level security policy %q%s for table %q", what, c.Policy, using, t.Def.Name)
		}
		return pgerr.New(pgerr.InsufficientPrivilege, "%s violates row-level security policy%s for table %q", what, using, t.Def.Name)
	}
	return nil
}

// ViewCheck is a view's WITH CHECK OPTION condition over the rows of the
// table a statement through the view writes, as PostgreSQL's
// WithCheckOption of kind WCO_VIEW_CHECK.
type ViewCheck struct {
	View string
	Expr Expr
}

// checkViewChecks fails with 44000 if row does not pass one of checks:
// NULL fails, as in PostgreSQL.
func checkViewChecks(env *Env, t *Table, checks []ViewCheck, row Row) error {
	for _, c := range checks {
		ok, err := isTrue(env, c.Expr, row)
		if err != nil {
			return err
		}
		if !ok {
			return pgerr.New(pgerr.WithCheckOptionViolation, "new row violates check option for view %q", c.View).
				WithDetail("Failing row contains %s.", formatRow(t, row))
		}
	}
	return nil
}
