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

// ArrayDomainCheck gives the value of E, an array of a domain's values,
// after checking each element with Elem: the domain's check, as an
// expression over a one-column row holding the element. A NULL array
// passes.
type ArrayDomainCheck struct {
	E    Expr
	Elem Expr
}

func (e *ArrayDomainCheck) Type() T { return e.E.Type() }

func (e *ArrayDomainCheck) Eval(env *Env, row Row) (Datum, error) {
	v, err := e.E.Eval(env, row)
	if err != nil || v.IsNull() {
		return v, err
	}
	for _, x := range v.Array().Elems {
		if _, err := e.Elem.Eval(env, Row{x}); err != nil {
			return Null, err
		}
	}
	return v, nil
}

// RecordDomainCheck gives the value of E, of a composite type, after
// checking the attributes declared with a domain: Checks[k] is the
// domain's check of attribute Fields[k], an expression over a one-column
// row holding the attribute's value. A NULL record passes.
type RecordDomainCheck struct {
	E      Expr
	Fields []int
	Checks []Expr
}

func (e *RecordDomainCheck) Type() T { return e.E.Type() }

func (e *RecordDomainCheck) Eval(env *Env, row Row) (Datum, error) {
	v, err := e.E.Eval(env, row)
	if err != nil || v.IsNull() {
		return v, err
	}
	fields := v.Record().Fields
	for k, i := range e.Fields {
		if i >= len(fields) {
			continue
		}
		if _, err := e.Checks[k].Eval(env, Row{fields[i]}); err != nil {
			return Null, err
		}
	}
	return v, nil
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
