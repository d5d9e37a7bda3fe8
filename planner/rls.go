package planner

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Row-level security, as PostgreSQL's rewriter applies it
// (rewrite/rowsecurity.c). A table with row security enabled
// (sqldef.Table.RowSecurity) shows a role only the rows its policies
// let through and takes only the rows they accept; the policies are part
// of the table's record, so a branch can change them and a merge carries
// them. Analysis adds them to the plan: the USING expressions of the
// policies that apply become a filter of the table's scan, below every
// condition of the query (security quals come first, as PostgreSQL's
// security barrier makes them), and the WITH CHECK expressions become
// exec.PolicyChecks of the rows an INSERT or UPDATE writes. A plan holds
// while the role it was made for is current and row_security unchanged
// (AuthKey), as the policies that apply depend on both.

// Policy commands, as pg_policy.polcmd spells them.
const (
	policyAll    = '*'
	policySelect = 'r'
	policyInsert = 'a'
	policyUpdate = 'w'
	policyDelete = 'd'
)

// RowSecurityOff reports whether a row_security value turns it off.
func RowSecurityOff(v string) bool { return rowSecurityOff(v) }

func rowSecurityOff(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "off", "of", "false", "fals", "fal", "fa", "f", "no", "n", "0":
		return true
	}
	return false
}

// rlsApplies reports whether row-level security applies to t for the
// role its statement is checked with (PostgreSQL's check_enable_rls):
// it must be enabled on the table, and the role be neither a superuser
// nor one with BYPASSRLS, nor the table's owner unless the table forces
// it. With row_security off a statement it would apply to fails. A past
// revision of a table is read with today's policies, as with today's
// privileges (privilegeDefinition).
func (a *analyzer) rlsApplies(t *exec.Table) (bool, error) {
	if t == nil || t.Virtual != nil || t.Def == nil || a.s.PlannerState().noRLS {
		return false, nil
	}
	def, err := a.privilegeDefinition(t)
	if err != nil || !def.RowSecurity {
		return false, err
	}
	au, err := a.authority()
	if err != nil {
		return false, err
	}
	if au.Superuser {
		return false, nil
	}
	if r := au.Roles[au.Role]; r != nil && r.BypassRLS {
		return false, nil
	}
	owner := au.Owns(def.Owner)
	if owner && !def.ForceRowSecurity {
		return false, nil
	}
	if rowSecurityOff(a.s.Var("row_security")) {
		e := pgerr.New(pgerr.InsufficientPrivilege, "query would be affected by row-level security policy for table %q", t.Def.Name)
		if owner {
			e = e.WithHint("To disable the policy for the table's owner, use ALTER TABLE NO FORCE ROW LEVEL SECURITY.")
		}
		return false, e
	}
	return true, nil
}

// RowSecurityActive reports whether row-level security applies to def for
// the role au (row_security_active()): as rlsApplies, whatever
// row_security says (with it off, a query fails instead, but the policies
// still apply).
func RowSecurityActive(def *sqldef.Table, au *Authority) bool {
	if def == nil || !def.RowSecurity || au.Superuser {
		return false
	}
	if r := au.Roles[au.Role]; r != nil && r.BypassRLS {
		return false
	}
	return !au.Owns(def.Owner) || def.ForceRowSecurity
}

// policiesFor returns the policies of def for command cmd that apply to
// the role au, permissive and restrictive apart, in name order.
func policiesFor(def *sqldef.Table, cmd byte, au *Authority) (perm, restr []sqldef.Policy) {
	for _, p := range def.Policies {
		if p.Command != policyAll && p.Command != cmd {
			continue
		}
		applies := len(p.Roles) == 0
		for _, r := range p.Roles {
			if r == "" || au.Holds[r] || au.Role == r {
				applies = true
				break
			}
		}
		if !applies {
			continue
		}
		if p.Restrictive {
			restr = append(restr, p)
		} else {
			perm = append(perm, p)
		}
	}
	return perm, restr
}

// policyExpr analyzes a policy's expression over the rows of t.
func (a *analyzer) policyExpr(t *exec.Table, text string) (exec.Expr, error) {
	n, err := ParseExpr(text)
	if err != nil {
		return nil, err
	}
	st := a.nested()
	defer a.restore(st)
	saved := a.noColumnUse
	a.noColumnUse = true
	defer func() { a.noColumnUse = saved }()
	a.clause = "POLICY"
	e, err := a.expr(n, tableScope(t, t.Def.Name))
	if err != nil {
		return nil, err
	}
	return a.coerce(e, exec.TBool, "argument of POLICY", -1)
}

// rlsGuard marks t's policies as being expanded for the rest of the
// analysis of one of them: a policy that reads its own table, directly or
// through others, recurses without end, which PostgreSQL refuses.
func (a *analyzer) rlsGuard(t *exec.Table) (release func(), err error) {
	ps := a.s.PlannerState()
	if slices.Contains(ps.rlsExpanding, t.OID) {
		return nil, pgerr.New(pgerr.InvalidObjectDefinition, "infinite recursion detected in policy for relation %q", t.Def.Name)
	}
	ps.rlsExpanding = append(ps.rlsExpanding, t.OID)
	return func() { ps.rlsExpanding = ps.rlsExpanding[:len(ps.rlsExpanding)-1] }, nil
}

// securityQuals returns the conditions the rows of t read by a command of
// the kinds cmds must meet, in order, for the role the statement is
// checked with (add_security_quals): for each command, every restrictive
// policy's USING expression, then the permissive ones' OR-ed; false when
// no permissive policy applies. Conditions repeated are given once. nil
// when row security does not apply.
func (a *analyzer) securityQuals(t *exec.Table, cmds ...byte) ([]exec.Expr, error) {
	on, err := a.rlsApplies(t)
	if err != nil || !on {
		return nil, err
	}
	au, err := a.authority()
	if err != nil {
		return nil, err
	}
	def, err := a.privilegeDefinition(t)
	if err != nil {
		return nil, err
	}
	release, err := a.rlsGuard(t)
	if err != nil {
		return nil, err
	}
	defer release()
	var out []exec.Expr
	seen := map[string]bool{}
	add := func(key string, e func() (exec.Expr, error)) error {
		if seen[key] {
			return nil
		}
		seen[key] = true
		x, err := e()
		if err == nil {
			out = append(out, x)
		}
		return err
	}
	for _, cmd := range cmds {
		perm, restr := policiesFor(def, cmd, au)
		var using []string
		for _, p := range perm {
			if p.Using != "" {
				using = append(using, p.Using)
			}
		}
		if len(using) == 0 {
			if err := add("false", func() (exec.Expr, error) { return &exec.Const{D: exec.DBool(false), T: exec.TBool}, nil }); err != nil {
				return nil, err
			}
			continue
		}
		for _, p := range restr {
			if p.Using == "" {
				continue
			}
			if err := add("r:"+p.Using, func() (exec.Expr, error) { return a.policyExpr(t, p.Using) }); err != nil {
				return nil, err
			}
		}
		if err := add("p:"+strings.Join(using, "\x00"), func() (exec.Expr, error) { return a.orPolicies(t, using) }); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// orPolicies analyzes the permissive policies' expressions texts, OR-ed.
func (a *analyzer) orPolicies(t *exec.Table, texts []string) (exec.Expr, error) {
	var args []exec.Expr
	for _, s := range texts {
		e, err := a.policyExpr(t, s)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	if len(args) == 1 {
		return args[0], nil
	}
	return &exec.BoolOp{Or: true, Args: args}, nil
}

// policyChecks returns the checks of the new rows of t that a command
// cmd writes (add_with_check_options): the permissive policies' WITH
// CHECK expressions (their USING ones where they have none, and always
// with forceUsing) OR-ed, then each restrictive policy's; a check that
// fails every row when no permissive policy applies. using marks the
// checks of ON CONFLICT DO UPDATE's existing row. nil when row security
// does not apply.
func (a *analyzer) policyChecks(t *exec.Table, cmd byte, forceUsing, using bool) ([]exec.PolicyCheck, error) {
	on, err := a.rlsApplies(t)
	if err != nil || !on {
		return nil, err
	}
	au, err := a.authority()
	if err != nil {
		return nil, err
	}
	def, err := a.privilegeDefinition(t)
	if err != nil {
		return nil, err
	}
	release, err := a.rlsGuard(t)
	if err != nil {
		return nil, err
	}
	defer release()
	qual := func(p sqldef.Policy) string {
		if !forceUsing && p.Check != "" {
			return p.Check
		}
		return p.Using
	}
	perm, restr := policiesFor(def, cmd, au)
	var texts []string
	for _, p := range perm {
		if q := qual(p); q != "" {
			texts = append(texts, q)
		}
	}
	if len(texts) == 0 {
		return []exec.PolicyCheck{{Expr: &exec.Const{D: exec.DBool(false), T: exec.TBool}, Using: using}}, nil
	}
	e, err := a.orPolicies(t, texts)
	if err != nil {
		return nil, err
	}
	out := []exec.PolicyCheck{{Expr: e, Using: using}}
	for _, p := range restr {
		q := qual(p)
		if q == "" {
			continue
		}
		e, err := a.policyExpr(t, q)
		if err != nil {
			return nil, err
		}
		out = append(out, exec.PolicyCheck{Expr: e, Policy: p.Name, Using: using})
	}
	return out, nil
}

// rlsFilter filters plan p, the rows of t (a Scan or an Append of its
// family), by the conditions quals, when there are any.
func (a *analyzer) rlsFilter(p exec.Plan, quals []exec.Expr) exec.Plan {
	if len(quals) == 0 {
		return p
	}
	pred := and(quals)
	switch s := p.(type) {
	case *exec.Scan:
		return a.scanWhere(s, pred)
	}
	// An Append stays one, whole: the planning of the conditions of the
	// query above it looks for Scans among its parts.
	return &exec.Filter{In: p, Pred: pred}
}

// lockingUpdates reports whether a SELECT's locking clauses lock the
// rows of the relation named alias: FOR UPDATE and FOR SHARE apply the
// UPDATE policies too, as PostgreSQL's do.
func lockingUpdates(clauses []*pg.Node, alias string) bool {
	for _, n := range clauses {
		lc := n.GetLockingClause()
		if lc == nil {
			continue
		}
		if len(lc.LockedRels) == 0 {
			return true
		}
		for _, r := range lc.LockedRels {
			if rv := r.GetRangeVar(); rv != nil && rv.Relname == alias {
				return true
			}
		}
	}
	return false
}

// newRowChecks returns the checks of the rows a command cmd writes into
// t: its policies' WITH CHECK expressions and, when the statement reads
// the table (reads: it needs SELECT), the SELECT policies' USING ones, so
// that a row it could not see fails rather than vanishes.
func (a *analyzer) newRowChecks(t *exec.Table, cmd byte, reads bool) ([]exec.PolicyCheck, error) {
	checks, err := a.policyChecks(t, cmd, false, false)
	if err != nil || checks == nil || !reads {
		return checks, err
	}
	sel, err := a.policyChecks(t, policySelect, true, false)
	return append(checks, sel...), err
}

// conflictChecks sets the row-level security checks of an INSERT ... ON
// CONFLICT DO UPDATE into t: the existing row must pass the UPDATE
// policies' USING expressions (and the SELECT ones'), the row it becomes
// their WITH CHECK ones.
func (a *analyzer) conflictChecks(oc *exec.OnConflict, t *exec.Table) error {
	existing, err := a.policyChecks(t, policyUpdate, true, true)
	if err != nil || existing == nil {
		return err
	}
	sel, err := a.policyChecks(t, policySelect, true, true)
	if err != nil {
		return err
	}
	if oc.Updated, err = a.newRowChecks(t, policyUpdate, true); err != nil {
		return err
	}
	oc.Existing, oc.Table = append(existing, sel...), t
	return nil
}
