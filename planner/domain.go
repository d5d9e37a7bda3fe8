package planner

import (
	"context"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Domains: a domain's values are its base type's; its constraints are
// checked by exec.DomainCheck wherever a value becomes one of the domain
// (a cast, an INSERT or UPDATE of a column declared with it).

// domainCheckExpr analyzes a CHECK constraint of domain t: an expression
// over VALUE, read from a one-column row.
func (a *analyzer) domainCheckExpr(t *sqldef.Type, n *pg.Node) (exec.Expr, error) {
	base := exec.T{OID: t.Base, Typmod: t.BaseTypmod}
	item := &nsItem{colsVisible: true, cols: []*scopeCol{{name: "value", t: base}}}
	e, err := a.expr(n, &scope{items: []*nsItem{item}})
	if err != nil {
		return nil, err
	}
	return a.coerce(e, exec.TBool, "argument of CHECK", -1)
}

// attributeDomainChecks wraps e, a value of composite type t, in the
// checks of the attributes t declares with a domain, if any.
func (a *analyzer) attributeDomainChecks(e exec.Expr, t exec.T) (exec.Expr, error) {
	ut, err := typeByOID(a.ctx, a.tx.Catalog(), t.OID)
	if err != nil || ut == nil || ut.Kind != 'c' {
		return e, err
	}
	var check *exec.RecordDomainCheck
	for i, f := range ut.Fields {
		if f.Domain == "" {
			continue
		}
		dom, err := a.namedDomain(f.Domain)
		if err != nil {
			return nil, err
		}
		if dom == nil {
			continue
		}
		c, err := a.domainCheck(&exec.ColRef{Idx: 0, T: exec.T{OID: f.Type, Typmod: f.Typmod}}, dom)
		if err != nil {
			return nil, err
		}
		if check == nil {
			check = &exec.RecordDomainCheck{E: e}
		}
		check.Fields, check.Checks = append(check.Fields, i), append(check.Checks, c)
	}
	if check == nil {
		return e, nil
	}
	return check, nil
}

// domainChecks analyzes the CHECK constraints of domain t.
func (a *analyzer) domainChecks(t *sqldef.Type) ([]exec.CheckConstraint, error) {
	var out []exec.CheckConstraint
	for _, c := range t.Checks {
		n, err := ParseExpr(c.Expr)
		if err != nil {
			return nil, err
		}
		e, err := a.domainCheckExpr(t, n)
		if err != nil {
			return nil, err
		}
		out = append(out, exec.CheckConstraint{Name: c.Name, Expr: e})
	}
	return out, nil
}

// domainCheck wraps e, a value of dom's base type, in dom's constraints,
// after those of the domain dom is over, if any (reported as dom's, as
// PostgreSQL reports them).
func (a *analyzer) domainCheck(e exec.Expr, dom *sqldef.Type) (exec.Expr, error) {
	return a.domainCheckAs(e, dom, dom.Name)
}

func (a *analyzer) domainCheckAs(e exec.Expr, dom *sqldef.Type, name string) (exec.Expr, error) {
	if dom.BaseDomain != "" {
		schema, base, _ := strings.Cut(dom.BaseDomain, ".")
		over, ok, err := a.tx.Catalog().Type(a.ctx, schema, base)
		if err != nil {
			return nil, err
		}
		if ok && over.Kind == 'd' {
			if e, err = a.domainCheckAs(e, over, name); err != nil {
				return nil, err
			}
		}
	}
	checks, err := a.domainChecks(dom)
	if err != nil {
		return nil, err
	}
	if len(checks) == 0 && !dom.NotNull {
		return e, nil
	}
	return &exec.DomainCheck{E: e, Name: name, NotNull: dom.NotNull, Checks: checks}, nil
}

// columnDomain returns the domain column c was declared with, nil if none.
func (a *analyzer) columnDomain(ctx context.Context, c exec.Column) (*sqldef.Type, error) {
	if c.Domain == "" {
		return nil, nil
	}
	schema, name, _ := strings.Cut(c.Domain, ".")
	t, ok, err := a.tx.Catalog().Type(ctx, schema, name)
	if !ok || err != nil || t.Kind != 'd' {
		return nil, err
	}
	return t, nil
}

// assignColumn converts e to the type of column c as an assignment does,
// and checks the constraints of the domain c was declared with.
func (a *analyzer) assignColumn(e exec.Expr, c exec.Column, loc int32) (exec.Expr, error) {
	e, err := a.assign(e, c.Type, c.Name, loc)
	if err != nil {
		return nil, err
	}
	return a.columnDomainCheck(e, c)
}

// assignOrIO converts e to t as an assignment does, where PostgreSQL also
// allows any type to become a string type by its text output (an I/O
// conversion cast).
func (a *analyzer) assignOrIO(e exec.Expr, t exec.T, col string) (exec.Expr, error) {
	conv, err := a.assign(e, t, col, -1)
	if err != nil && exec.KindOf(t.OID) == exec.KindText {
		return a.cast(e, t, true, -1)
	}
	return conv, err
}
