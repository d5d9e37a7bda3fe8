package ddl

import (
	"context"
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Row-level security policies: CREATE, ALTER, DROP POLICY and ALTER
// POLICY ... RENAME. A policy is part of its table's record
// (sqldef.Table.Policies, kept in name order); planner/rls.go
// applies them.

// policyCommands maps CREATE POLICY's FOR to pg_policy.polcmd.
var policyCommands = map[string]byte{"all": '*', "select": 'r', "insert": 'a', "update": 'w', "delete": 'd'}

// policyTable resolves the table a policy statement names, which the
// current role must own.
func (a *analyzer) policyTable(ctx context.Context, rv *pg.RangeVar) (*exec.Table, error) {
	rel, schema, err := a.LookupRelation(ctx, rv.Schemaname, rv.Relname)
	if err != nil {
		return nil, err
	}
	switch rel.Kind {
	case planner.RelNone:
		return nil, planner.WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(rv)), rv.Location)
	case planner.RelTable:
	default:
		return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a table", rv.Relname)
	}
	if err := a.requireTableOwner(rel.Table); err != nil {
		return nil, err
	}
	t, ok, err := a.tx.Table(ctx, schema, rel.Table.Name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", rv.Relname)
	}
	return t, nil
}

// policyRoles resolves a policy's TO list: nil for PUBLIC, which makes
// any other role named redundant (PostgreSQL warns and keeps PUBLIC).
func (a *analyzer) policyRoles(ctx context.Context, specs []*pg.Node) ([]string, error) {
	roles, err := a.s.Roles(ctx)
	if err != nil {
		return nil, err
	}
	names, err := planner.Grantees(a.s, specs, roles)
	if err != nil {
		return nil, err
	}
	if slices.Contains(names, "") {
		if len(names) > 1 {
			a.s.Notice(pgerr.New(pgerr.Warning, "ignoring specified roles other than PUBLIC").
				WithHint("All roles are members of the PUBLIC role."))
		}
		return nil, nil
	}
	var out []string
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// policyExpr analyzes a policy's USING or WITH CHECK expression over t's
// columns and returns it as stored text; the relations it reads are
// added to p.Depends.
func (a *analyzer) policyExpr(ctx context.Context, p *sqldef.Policy, t *exec.Table, n *pg.Node) (string, error) {
	if n == nil {
		return "", nil
	}
	restore, err := a.Unchecked()
	if err != nil {
		return "", err
	}
	e, _, err := a.ClauseExpr("POLICY", n, planner.TableScope(t, t.Def.Name))
	if err == nil {
		_, err = a.Coerce(e, exec.TBool, "argument of POLICY")
	}
	restore()
	if err != nil {
		return "", err
	}
	text, err := planner.DeparseExpr(n)
	if err != nil {
		return "", err
	}
	// Found after the text is made: viewDependencies qualifies the names
	// it finds in n, which the text keeps as written.
	deps, _, err := a.viewDependencies(ctx, n)
	if err != nil {
		return "", err
	}
	for _, d := range deps {
		if !slices.Contains(p.Depends, d) {
			p.Depends = append(p.Depends, d)
		}
	}
	return text, nil
}

// checkPolicyClauses refuses the clauses command cmd has no use for.
func checkPolicyClauses(cmd byte, using, check bool, alter bool) error {
	switch {
	case cmd == 'a' && using:
		return pgerr.New(pgerr.SyntaxError, "only WITH CHECK expression allowed for INSERT")
	case (cmd == 'r' || cmd == 'd') && check && alter:
		return pgerr.New(pgerr.SyntaxError, "only USING expression allowed for SELECT, DELETE")
	case (cmd == 'r' || cmd == 'd') && check:
		return pgerr.New(pgerr.SyntaxError, "WITH CHECK cannot be applied to SELECT or DELETE")
	}
	return nil
}

// createPolicy runs CREATE POLICY.
func (a *analyzer) createPolicy(s *pg.CreatePolicyStmt) (planner.Utility, error) {
	cmd, ok := policyCommands[strings.ToLower(s.CmdName)]
	if !ok {
		return nil, pgerr.New(pgerr.InternalError, "unrecognized policy command")
	}
	if err := checkPolicyClauses(cmd, s.Qual != nil, s.WithCheck != nil, false); err != nil {
		return nil, err
	}
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		t, err := a.policyTable(ctx, s.Table)
		if err != nil {
			return "", err
		}
		p := sqldef.Policy{Name: s.PolicyName, Command: cmd, Restrictive: !s.Permissive}
		if p.Roles, err = a.policyRoles(ctx, s.Roles); err != nil {
			return "", err
		}
		if p.Using, err = a.policyExpr(ctx, &p, t, s.Qual); err != nil {
			return "", err
		}
		if p.Check, err = a.policyExpr(ctx, &p, t, s.WithCheck); err != nil {
			return "", err
		}
		if slices.ContainsFunc(t.Def.Policies, func(x sqldef.Policy) bool { return x.Name == p.Name }) {
			return "", pgerr.New(pgerr.DuplicateObject, "policy %q for table %q already exists", p.Name, t.Def.Name)
		}
		def := cloneTable(t.Def)
		def.Policies = append(slices.Clone(def.Policies), p)
		slices.SortFunc(def.Policies, func(x, y sqldef.Policy) int { return strings.Compare(x.Name, y.Name) })
		return "CREATE POLICY", a.putTable(ctx, def)
	}, nil
}

// findPolicy returns the position of t's policy name.
func findPolicy(t *sqldef.Table, name string) (int, error) {
	i := slices.IndexFunc(t.Policies, func(p sqldef.Policy) bool { return p.Name == name })
	if i < 0 {
		return 0, pgerr.New(pgerr.UndefinedObject, "policy %q for table %q does not exist", name, t.Name)
	}
	return i, nil
}

// alterPolicy runs ALTER POLICY ... [TO roles] [USING] [WITH CHECK].
func (a *analyzer) alterPolicy(s *pg.AlterPolicyStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		t, err := a.policyTable(ctx, s.Table)
		if err != nil {
			return "", err
		}
		i, err := findPolicy(t.Def, s.PolicyName)
		if err != nil {
			return "", err
		}
		def := cloneTable(t.Def)
		def.Policies = slices.Clone(def.Policies)
		p := &def.Policies[i]
		if err := checkPolicyClauses(p.Command, s.Qual != nil, s.WithCheck != nil, true); err != nil {
			return "", err
		}
		if len(s.Roles) > 0 {
			if p.Roles, err = a.policyRoles(ctx, s.Roles); err != nil {
				return "", err
			}
		}
		if s.Qual != nil || s.WithCheck != nil {
			p.Depends = nil // found again in the expressions kept
			if s.Qual == nil && p.Using != "" {
				if _, err := a.policyExpr(ctx, p, t, mustParseExpr(p.Using)); err != nil {
					return "", err
				}
			}
			if s.WithCheck == nil && p.Check != "" {
				if _, err := a.policyExpr(ctx, p, t, mustParseExpr(p.Check)); err != nil {
					return "", err
				}
			}
		}
		if s.Qual != nil {
			if p.Using, err = a.policyExpr(ctx, p, t, s.Qual); err != nil {
				return "", err
			}
		}
		if s.WithCheck != nil {
			if p.Check, err = a.policyExpr(ctx, p, t, s.WithCheck); err != nil {
				return "", err
			}
		}
		return "ALTER POLICY", a.putTable(ctx, def)
	}, nil
}

// renamePolicy runs ALTER POLICY name ON table RENAME TO newname.
func (a *analyzer) renamePolicy(ctx context.Context, s *pg.RenameStmt) (string, error) {
	t, err := a.policyTable(ctx, s.Relation)
	if err != nil {
		return "", err
	}
	i, err := findPolicy(t.Def, s.Subname)
	if err != nil {
		return "", err
	}
	if _, err := findPolicy(t.Def, s.Newname); err == nil {
		return "", pgerr.New(pgerr.DuplicateObject, "policy %q for table %q already exists", s.Newname, t.Def.Name)
	}
	def := cloneTable(t.Def)
	def.Policies = slices.Clone(def.Policies)
	def.Policies[i].Name = s.Newname
	slices.SortFunc(def.Policies, func(x, y sqldef.Policy) int { return strings.Compare(x.Name, y.Name) })
	return "ALTER POLICY", a.putTable(ctx, def)
}

// dropPolicies runs DROP POLICY [IF EXISTS] name ON table.
func (a *analyzer) dropPolicies(ctx context.Context, s *pg.DropStmt) (string, error) {
	for _, obj := range s.Objects {
		names := planner.NameList(obj.GetList().GetItems())
		name := names[len(names)-1]
		schema, table := planner.SplitName(names[:len(names)-1])
		rel, schema, err := a.LookupRelation(ctx, schema, table)
		if err != nil {
			return "", err
		}
		if rel.Kind == planner.RelNone {
			if s.MissingOk {
				a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "relation %q does not exist, skipping", table))
				continue
			}
			return "", pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", table)
		}
		if rel.Kind != planner.RelTable {
			return "", pgerr.New(pgerr.WrongObjectType, "%q is not a table", table)
		}
		i, err := findPolicy(rel.Table, name)
		if err != nil {
			if s.MissingOk {
				a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "policy %q for relation %q does not exist, skipping", name, table))
				continue
			}
			return "", err
		}
		if err := a.requireTableOwner(rel.Table); err != nil {
			return "", err
		}
		t, _, err := a.tx.Table(ctx, schema, rel.Table.Name)
		if err != nil {
			return "", err
		}
		def := cloneTable(t.Def)
		def.Policies = slices.Delete(slices.Clone(def.Policies), i, i+1)
		if err := a.putTable(ctx, def); err != nil {
			return "", err
		}
	}
	return "DROP POLICY", nil
}

// setRowSecurity runs ALTER TABLE ... ENABLE, DISABLE, FORCE and NO FORCE
// ROW LEVEL SECURITY.
func (a *analyzer) setRowSecurity(ctx context.Context, def *sqldef.Table, sub pg.AlterTableType) error {
	switch sub {
	case pg.AlterTableType_AT_EnableRowSecurity:
		def.RowSecurity = true
	case pg.AlterTableType_AT_DisableRowSecurity:
		def.RowSecurity = false
	case pg.AlterTableType_AT_ForceRowSecurity:
		def.ForceRowSecurity = true
	case pg.AlterTableType_AT_NoForceRowSecurity:
		def.ForceRowSecurity = false
	}
	return a.putTable(ctx, def)
}

// policiesUsing returns the policies of def whose expressions read
// column name.
func policiesUsing(def *sqldef.Table, name string) []string {
	var out []string
	for _, p := range def.Policies {
		if p.Using != "" && planner.ExprReads(p.Using, name) || p.Check != "" && planner.ExprReads(p.Check, name) {
			out = append(out, p.Name)
		}
	}
	return out
}

// dropColumnPolicies drops, with cascade, the policies of def that read
// column name, which DROP COLUMN drops; without, it fails as PostgreSQL
// does.
func (a *analyzer) dropColumnPolicies(def *sqldef.Table, name string, cascade bool) error {
	using := policiesUsing(def, name)
	if len(using) == 0 {
		return nil
	}
	var lines []string
	for _, p := range using {
		lines = append(lines, fmt.Sprintf("policy %s on table %s", p, def.Name))
	}
	if !cascade {
		var detail []string
		for _, l := range lines {
			detail = append(detail, fmt.Sprintf("%s depends on column %s of table %s", l, name, def.Name))
		}
		return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop column %s of table %s because other objects depend on it", name, def.Name).
			WithDetail("%s", strings.Join(detail, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	if len(lines) == 1 {
		a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to %s", lines[0]))
	} else {
		a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to %d other objects", len(lines)).
			WithDetail("%s", "drop cascades to "+strings.Join(lines, "\ndrop cascades to ")))
	}
	def.Policies = slices.DeleteFunc(slices.Clone(def.Policies), func(p sqldef.Policy) bool { return slices.Contains(using, p.Name) })
	return nil
}

// columnTypePolicies refuses ALTER COLUMN TYPE of a column a policy of
// def reads, as PostgreSQL does.
func columnTypePolicies(def *sqldef.Table, name string) error {
	if using := policiesUsing(def, name); len(using) > 0 {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot alter type of a column used in a policy definition").
			WithDetail("policy %s on table %s depends on column %q", using[0], def.Name, name)
	}
	return nil
}

// mustParseExpr parses a stored expression, nil if it does not parse
// (policyExpr then has nothing to analyze).
func mustParseExpr(text string) *pg.Node {
	n, err := planner.ParseExpr(text)
	if err != nil {
		return nil
	}
	return n
}

// dropDependentPolicies drops the policies that read relation target
// (schema.name, described by what) with cascade, or fails as PostgreSQL
// does without.
func (a *analyzer) dropDependentPolicies(ctx context.Context, target, what string, cascade bool) error {
	tables, err := a.tx.Root().Tables(ctx)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if t.Schema+"."+t.Name == target {
			continue // its own policies go with it
		}
		var keep []sqldef.Policy
		for _, p := range t.Policies {
			if !slices.Contains(p.Depends, target) {
				keep = append(keep, p)
				continue
			}
			if !cascade {
				return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop %s because other objects depend on it", what).
					WithDetail("policy %s on table %s depends on %s", p.Name, t.Name, what).
					WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
			}
			a.cascaded("policy " + p.Name + " on table " + t.Name)
		}
		if len(keep) == len(t.Policies) {
			continue
		}
		def := cloneTable(t)
		def.Policies = keep
		if err := a.putTable(ctx, def); err != nil {
			return err
		}
	}
	return nil
}
