package ddl

import (
	"context"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Rewrite rules: CREATE [OR REPLACE] RULE, DROP RULE, ALTER RULE ...
// RENAME and COMMENT ON RULE. A rule is part of its table's or view's
// record (sqldef.Rule), as a trigger is; exec.Modify applies it
// (exec/rule.go).

// ruleEvents are the events of rules, by CREATE RULE's command type.
var ruleEvents = map[pg.CmdType]string{
	pg.CmdType_CMD_INSERT: "INSERT",
	pg.CmdType_CMD_UPDATE: "UPDATE",
	pg.CmdType_CMD_DELETE: "DELETE",
}

// ruleRel is the table or view a rule statement names.
type ruleRel struct {
	table *sqldef.Table
	view  *sqldef.View
}

func (r *ruleRel) name() string {
	if r.view != nil {
		return r.view.Name
	}
	return r.table.Name
}

func (r *ruleRel) rules() []sqldef.Rule {
	if r.view != nil {
		return r.view.Rules
	}
	return r.table.Rules
}

// ruleRelation finds the table or view schema.name of a rule statement;
// nil when it does not exist and missingOK, after the notice.
func (a *analyzer) ruleRelation(ctx context.Context, schema, name string, missingOK bool) (*ruleRel, error) {
	rel, _, err := a.LookupRelation(ctx, schema, name)
	if err != nil {
		return nil, err
	}
	switch {
	case rel.Kind == planner.RelView:
		return &ruleRel{view: rel.View}, nil
	case rel.Kind == planner.RelTable && rel.Table.MatView != nil:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "rules on materialized views are not supported")
	case rel.Kind == planner.RelTable:
		return &ruleRel{table: rel.Table}, nil
	case rel.Kind == planner.RelNone && missingOK:
		a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "relation %q does not exist, skipping", name))
		return nil, nil
	case rel.Kind == planner.RelNone:
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
	}
	return nil, pgerr.New(pgerr.WrongObjectType, "relation %q cannot have rules", name).
		WithDetail("This operation is not supported for this relation kind.")
}

// putRules writes rel with its rules rules, after checking that the
// current role owns it.
func (a *analyzer) putRules(ctx context.Context, rel *ruleRel, rules []sqldef.Rule) error {
	if rel.view != nil {
		if err := a.requireViewOwner(rel.view); err != nil {
			return err
		}
		v := *rel.view
		v.Rules = rules
		return a.putView(ctx, &v)
	}
	if err := a.requireTableOwner(rel.table); err != nil {
		return err
	}
	def := *rel.table
	def.Rules = rules
	return a.putTable(ctx, &def)
}

// createRule runs CREATE [OR REPLACE] RULE.
func (a *analyzer) createRule(s *pg.RuleStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		rel, err := a.ruleRelation(ctx, s.Relation.Schemaname, s.Relation.Relname, false)
		if err != nil {
			return "", err
		}
		event, ok := ruleEvents[s.Event]
		if !ok {
			return "", pgerr.New(pgerr.FeatureNotSupported, "ON SELECT rules are not supported")
		}
		r := sqldef.Rule{Name: s.Rulename, Event: event, Instead: s.Instead}
		if err := checkRuleReferences(s, event); err != nil {
			return "", err
		}
		if s.WhereClause != nil {
			qualifyRuleWhere(s.WhereClause, event)
			if r.Where, err = planner.DeparseExpr(s.WhereClause); err != nil {
				return "", err
			}
		}
		t, err := a.ruleTable(ctx, rel)
		if err != nil {
			return "", err
		}
		for i, n := range s.Actions {
			cols, err := a.RuleAction(t, n)
			if err != nil {
				return "", err
			}
			if ret := returningList(n); ret != nil {
				if err := a.checkRuleReturning(&r, t, cols, len(s.Actions), i); err != nil {
					return "", err
				}
			}
			text, err := pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: n}}})
			if err != nil {
				return "", err
			}
			r.Actions = append(r.Actions, text)
		}
		rules := slices.Clone(rel.rules())
		i := slices.IndexFunc(rules, func(x sqldef.Rule) bool { return x.Name == r.Name })
		switch {
		case i >= 0 && !s.Replace:
			return "", pgerr.New(pgerr.DuplicateObject, "rule %q for relation %q already exists", r.Name, rel.name())
		case i >= 0:
			r.Comment = rules[i].Comment
			rules[i] = r
		default:
			rules = append(rules, r)
			slices.SortFunc(rules, func(x, y sqldef.Rule) int { return strings.Compare(x.Name, y.Name) })
		}
		return "CREATE RULE", a.putRules(ctx, rel, rules)
	}, nil
}

// ruleTable is rel as the rule's actions read NEW and OLD.
func (a *analyzer) ruleTable(ctx context.Context, rel *ruleRel) (*exec.Table, error) {
	var t *exec.Table
	var ok bool
	var err error
	if rel.view != nil {
		t, ok, err = a.ViewTable(ctx, rel.view.Schema, rel.view.Name)
	} else {
		t, ok, err = a.LookupTable(ctx, rel.table.Schema, rel.table.Name)
	}
	if err == nil && !ok {
		err = pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", rel.name())
	}
	return t, err
}

// returningList is the RETURNING list of a rule action, nil for none.
func returningList(n *pg.Node) []*pg.Node {
	switch {
	case n.GetInsertStmt() != nil:
		return n.GetInsertStmt().ReturningList
	case n.GetUpdateStmt() != nil:
		return n.GetUpdateStmt().ReturningList
	case n.GetDeleteStmt() != nil:
		return n.GetDeleteStmt().ReturningList
	}
	return nil
}

// checkRuleReturning makes PostgreSQL's checks of action i (of n) of
// rule r, which has a RETURNING list returning cols: only an
// unconditional INSTEAD rule's last action may have one, and it must
// return rows of the relation's columns. (That only one rule of an
// event has one is checked when a statement is rewritten, as in
// PostgreSQL.)
func (a *analyzer) checkRuleReturning(r *sqldef.Rule, t *exec.Table, cols []exec.ResultColumn, n, i int) error {
	switch {
	case !r.Instead:
		return pgerr.New(pgerr.FeatureNotSupported, "RETURNING lists are not supported in non-INSTEAD rules")
	case r.Where != "":
		return pgerr.New(pgerr.FeatureNotSupported, "RETURNING lists are not supported in conditional rules")
	case i != n-1:
		return pgerr.New(pgerr.FeatureNotSupported, "RETURNING lists are only supported in the last action of a rule")
	}
	var live []exec.Column
	for _, c := range t.Cols {
		if !c.Dropped {
			live = append(live, c)
		}
	}
	for j, c := range cols {
		if j >= len(live) {
			return pgerr.New(pgerr.InvalidObjectDefinition, "RETURNING list has too many entries")
		}
		if c.T.OID != live[j].Type.OID {
			return pgerr.New(pgerr.InvalidObjectDefinition, "RETURNING list's entry %d has different type from column %q", j+1, live[j].Name).
				WithDetail("RETURNING list entry has type %s, but column has type %s.", a.TypeName(c.T), a.TypeName(live[j].Type))
		}
	}
	if len(cols) < len(live) {
		return pgerr.New(pgerr.InvalidObjectDefinition, "RETURNING list has too few entries")
	}
	return nil
}

// checkRuleReferences refuses OLD in an ON INSERT rule and NEW in an ON
// DELETE rule, and either within a WITH query of an action, as
// PostgreSQL's transformRuleStmt does.
func checkRuleReferences(s *pg.RuleStmt, event string) error {
	refersTo := func(n *pg.Node, name string) bool {
		found := false
		planner.VisitNodes(n, func(x *pg.Node) {
			if cr := x.GetColumnRef(); cr != nil && len(cr.Fields) > 1 && cr.Fields[0].GetString_().GetSval() == name {
				found = true
			}
		})
		return found
	}
	nodes := append([]*pg.Node{s.WhereClause}, s.Actions...)
	for _, n := range nodes {
		if n == nil {
			continue
		}
		switch {
		case event == "INSERT" && refersTo(n, "old"):
			return pgerr.New(pgerr.InvalidObjectDefinition, "ON INSERT rule cannot use OLD")
		case event == "DELETE" && refersTo(n, "new"):
			return pgerr.New(pgerr.InvalidObjectDefinition, "ON DELETE rule cannot use NEW")
		}
	}
	for _, n := range s.Actions {
		var with *pg.WithClause
		switch {
		case n.GetInsertStmt() != nil:
			with = n.GetInsertStmt().WithClause
		case n.GetUpdateStmt() != nil:
			with = n.GetUpdateStmt().WithClause
		case n.GetDeleteStmt() != nil:
			with = n.GetDeleteStmt().WithClause
		case n.GetSelectStmt() != nil:
			with = n.GetSelectStmt().WithClause
		}
		if with == nil {
			continue
		}
		for _, cte := range with.Ctes {
			for _, name := range []string{"old", "new"} {
				if refersTo(cte, name) {
					return pgerr.New(pgerr.FeatureNotSupported, "cannot refer to %s within WITH query", strings.ToUpper(name))
				}
			}
		}
	}
	return nil
}

// qualifyRuleWhere qualifies the bare column names of a rule's WHERE
// condition with the row they mean: NEW for an ON INSERT rule, OLD for
// an ON DELETE rule (an ON UPDATE rule has both, so a bare name there
// is ambiguous, and left to fail).
func qualifyRuleWhere(n *pg.Node, event string) {
	row := map[string]string{"INSERT": "new", "DELETE": "old"}[event]
	if row == "" {
		return
	}
	planner.VisitNodes(n, func(x *pg.Node) {
		if cr := x.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
			cr.Fields = append([]*pg.Node{pg.MakeStrNode(row)}, cr.Fields...)
		}
	})
}

// dropRules runs DROP RULE [IF EXISTS] name ON relation.
func (a *analyzer) dropRules(ctx context.Context, s *pg.DropStmt) (string, error) {
	for _, obj := range s.Objects {
		names := planner.NameList(obj.GetList().GetItems())
		name := names[len(names)-1]
		schema, table := planner.SplitName(names[:len(names)-1])
		rel, err := a.ruleRelation(ctx, schema, table, s.MissingOk)
		if err != nil {
			return "", err
		}
		if rel == nil {
			continue
		}
		rules := rel.rules()
		i := slices.IndexFunc(rules, func(x sqldef.Rule) bool { return x.Name == name })
		if i < 0 {
			if s.MissingOk {
				a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "rule %q for relation %q does not exist, skipping", name, rel.name()))
				continue
			}
			return "", pgerr.New(pgerr.UndefinedObject, "rule %q for relation %q does not exist", name, rel.name())
		}
		if err := a.putRules(ctx, rel, slices.Delete(slices.Clone(rules), i, i+1)); err != nil {
			return "", err
		}
	}
	return "DROP RULE", nil
}

// renameRule runs ALTER RULE name ON relation RENAME TO newname.
func (a *analyzer) renameRule(ctx context.Context, s *pg.RenameStmt) error {
	rel, err := a.ruleRelation(ctx, s.Relation.Schemaname, s.Relation.Relname, false)
	if err != nil {
		return err
	}
	rules := slices.Clone(rel.rules())
	i := slices.IndexFunc(rules, func(x sqldef.Rule) bool { return x.Name == s.Subname })
	if i < 0 {
		return pgerr.New(pgerr.UndefinedObject, "rule %q for relation %q does not exist", s.Subname, rel.name())
	}
	if slices.ContainsFunc(rules, func(x sqldef.Rule) bool { return x.Name == s.Newname }) {
		return pgerr.New(pgerr.DuplicateObject, "rule %q for relation %q already exists", s.Newname, rel.name())
	}
	rules[i].Name = s.Newname
	slices.SortFunc(rules, func(x, y sqldef.Rule) int { return strings.Compare(x.Name, y.Name) })
	return a.putRules(ctx, rel, rules)
}

// commentRule runs COMMENT ON RULE name ON relation IS text.
func (a *analyzer) commentRule(ctx context.Context, s *pg.CommentStmt, text string) error {
	parts := planner.NameList(s.Object.GetList().GetItems())
	name := parts[len(parts)-1]
	schema, table := planner.SplitName(parts[:len(parts)-1])
	rel, err := a.ruleRelation(ctx, schema, table, false)
	if err != nil {
		return err
	}
	rules := slices.Clone(rel.rules())
	i := slices.IndexFunc(rules, func(x sqldef.Rule) bool { return x.Name == name })
	if i < 0 {
		return pgerr.New(pgerr.UndefinedObject, "rule %q for relation %q does not exist", name, rel.name())
	}
	rules[i].Comment = text
	return a.putRules(ctx, rel, rules)
}
