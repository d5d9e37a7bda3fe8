package planner

import (
	"context"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
)

// Domains: a domain's values are its base type's; its constraints are
// checked by exec.DomainCheck wherever a value becomes one of the domain
// (a cast, an INSERT or UPDATE of a column declared with it).

// domainCheckExpr analyzes a CHECK constraint of domain t: an expression
// over VALUE, read from a one-column row.
func (a *analyzer) domainCheckExpr(t *versioning.Type, n *pg.Node) (exec.Expr, error) {
	base := exec.T{OID: t.Base, Typmod: t.BaseTypmod}
	item := &nsItem{colsVisible: true, cols: []*scopeCol{{name: "value", t: base}}}
	e, err := a.expr(n, &scope{items: []*nsItem{item}})
	if err != nil {
		return nil, err
	}
	return a.coerce(e, exec.TBool, "argument of CHECK", -1)
}

// domainChecks analyzes the CHECK constraints of domain t.
func (a *analyzer) domainChecks(t *versioning.Type) ([]exec.CheckConstraint, error) {
	var out []exec.CheckConstraint
	for _, c := range t.Checks {
		n, err := parseExpr(c.Expr)
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

// domainCheck wraps e, a value of dom's base type, in dom's constraints.
func (a *analyzer) domainCheck(e exec.Expr, dom *versioning.Type) (exec.Expr, error) {
	checks, err := a.domainChecks(dom)
	if err != nil {
		return nil, err
	}
	if len(checks) == 0 && !dom.NotNull {
		return e, nil
	}
	return &exec.DomainCheck{E: e, Name: dom.Name, NotNull: dom.NotNull, Checks: checks}, nil
}

// columnDomain returns the domain column c was declared with, nil if none.
func (a *analyzer) columnDomain(ctx context.Context, c exec.Column) (*versioning.Type, error) {
	if c.Domain == "" {
		return nil, nil
	}
	schema, name, _ := strings.Cut(c.Domain, ".")
	t, ok, err := a.tx.Root.Type(ctx, schema, name)
	if !ok || err != nil || t.Kind != 'd' {
		return nil, err
	}
	return t, nil
}

// validateDomain checks the stored values of dom's columns against new
// constraints: checks, and NOT NULL when notNull.
func (a *analyzer) validateDomain(ctx context.Context, dom *versioning.Type, checks []versioning.Check, notNull bool) error {
	compiled, err := a.domainChecks(&versioning.Type{Name: dom.Name, Base: dom.Base, BaseTypmod: dom.BaseTypmod, Checks: checks})
	if err != nil {
		return err
	}
	tables, err := a.tx.Root.Tables(ctx)
	if err != nil {
		return err
	}
	env := a.env(ctx)
	for _, def := range tables {
		t, _, err := a.tx.Table(ctx, def.Schema, def.Name)
		if err != nil {
			return err
		}
		for _, c := range t.Cols {
			if c.Dropped || c.Domain != dom.Schema+"."+dom.Name {
				continue
			}
			var bad error
			err := a.tx.EachRow(ctx, t, func(row exec.Row) error {
				v := row[c.Pos]
				switch {
				case v.IsNull() && notNull:
					bad = pgerr.New(pgerr.NotNullViolation, "column %q of table %q contains null values", c.Name, def.Name)
				case !v.IsNull() && exec.CheckDomainValue(env, dom.Name, compiled, v) != nil:
					bad = pgerr.New(pgerr.CheckViolation, "column %q of table %q contains values that violate the new constraint", c.Name, def.Name)
				default:
					return nil
				}
				return errStop
			})
			if err != nil && err != errStop {
				return err
			}
			if bad != nil {
				return bad
			}
		}
	}
	return nil
}

// assignColumn converts e to the type of column c as an assignment does,
// and checks the constraints of the domain c was declared with.
func (a *analyzer) assignColumn(e exec.Expr, c exec.Column, loc int32) (exec.Expr, error) {
	e, err := a.assign(e, c.Type, c.Name, loc)
	if err != nil || c.Domain == "" {
		return e, err
	}
	dom, err := a.columnDomain(a.ctx, c)
	if err != nil || dom == nil {
		return e, err
	}
	return a.domainCheck(e, dom)
}
