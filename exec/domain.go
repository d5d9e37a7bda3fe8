package exec

import "github.com/prollypg/prollypg/exec/pgerr"

// DomainCheck gives the value of E after checking it against the
// constraints of domain Name: NOT NULL (23502) and CHECKs (23514), each
// an expression over a one-column row holding the value (VALUE).
type DomainCheck struct {
	E       Expr
	Name    string
	NotNull bool
	Checks  []CheckConstraint
}

func (e *DomainCheck) Type() T { return e.E.Type() }

func (e *DomainCheck) Eval(env *Env, row Row) (Datum, error) {
	v, err := e.E.Eval(env, row)
	if err != nil {
		return Null, err
	}
	if v.IsNull() && e.NotNull {
		return Null, pgerr.New(pgerr.NotNullViolation, "domain %s does not allow null values", e.Name)
	}
	// A NULL is checked too, as in PostgreSQL: CHECK (VALUE IS NOT NULL)
	// refuses it, CHECK (VALUE > 0) lets it pass (the check is NULL).
	return v, CheckDomainValue(env, e.Name, e.Checks, v)
}

// CheckDomainValue fails with 23514 if v makes one of a domain's checks
// false; NULL passes.
func CheckDomainValue(env *Env, domain string, checks []CheckConstraint, v Datum) error {
	for _, c := range checks {
		r, err := c.Expr.Eval(env, Row{v})
		if err != nil {
			return err
		}
		if !r.IsNull() && !r.Bool() {
			return pgerr.New(pgerr.CheckViolation, "value for domain %s violates check constraint %q", domain, c.Name).WithConstraint(c.Name)
		}
	}
	return nil
}
