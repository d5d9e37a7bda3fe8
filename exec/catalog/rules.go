package catalog

import (
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Rewrite rules (CREATE RULE) of tables and views: pg_rewrite's rows
// besides views' _RETURN rules, pg_rules, and pg_get_ruledef's text.

func init() {
	define("pg_catalog", "pg_rules", 12023, 'v', "schemaname:name tablename:name rulename:name definition:text", pgRules)
}

// NamedRuleOID returns the OID of rule name of relation schema.rel.
func NamedRuleOID(schema, rel, name string) uint32 {
	return exec.ObjectOID(kindRule, schema, rel+"\x00"+name)
}

// ruleOwner is a relation with rules, as the rule functions see it.
type ruleOwner struct {
	schema, name string
	oid          uint32
	rules        []sqldef.Rule
}

// ruleOwners lists the tables and views that have rules.
func (s *Snapshot) ruleOwners() []ruleOwner {
	var out []ruleOwner
	for _, t := range s.Tables {
		if len(t.Rules) > 0 {
			out = append(out, ruleOwner{t.Schema, t.Name, TableOID(t.Schema, t.Name), t.Rules})
		}
	}
	for _, v := range s.Views {
		if len(v.Rules) > 0 {
			out = append(out, ruleOwner{v.Schema, v.Name, ViewOID(v.Schema, v.Name), v.Rules})
		}
	}
	return out
}

// ruleRows are the pg_rewrite rows of the rules of tables and views.
func (s *Snapshot) ruleRows() []exec.Row {
	var out []exec.Row
	for _, o := range s.ruleOwners() {
		for i := range o.rules {
			r := &o.rules[i]
			enabled := byte('O')
			if r.Disabled {
				enabled = 'D'
			}
			qual := "<>"
			if r.Where != "" {
				qual = r.Where
			}
			out = append(out, exec.Row{dOID(NamedRuleOID(o.schema, o.name, r.Name)), dText(r.Name), dOID(o.oid),
				dChar(ruleEventType[r.Event]), dChar(enabled), dBool(r.Instead), dText(qual), dText(strings.Join(r.Actions, "; "))})
		}
	}
	return out
}

// ruleEventType is pg_rewrite.ev_type by event.
var ruleEventType = map[string]byte{"SELECT": '1', "UPDATE": '2', "INSERT": '3', "DELETE": '4'}

func pgRules(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, o := range s.ruleOwners() {
		for i := range o.rules {
			out = append(out, exec.Row{dText(o.schema), dText(o.name), dText(o.rules[i].Name), dText(RuleDef(o.schema, o.name, &o.rules[i], false))})
		}
	}
	return out, nil
}

// RuleByOID returns the rule with OID oid and the schema and name of
// its relation.
func (s *Snapshot) RuleByOID(oid uint32) (schema, rel string, r *sqldef.Rule, ok bool) {
	for _, o := range s.ruleOwners() {
		for i := range o.rules {
			if NamedRuleOID(o.schema, o.name, o.rules[i].Name) == oid {
				return o.schema, o.name, &o.rules[i], true
			}
		}
	}
	return "", "", nil, false
}

// RuleDef is pg_get_ruledef's text of rule r of relation schema.rel:
// the CREATE RULE statement, laid out as PostgreSQL's make_ruledef lays
// it out; pretty names the relation unqualified and leaves the
// condition unparenthesized. The actions are printed as stored (as
// written, normalized), their clauses on lines of their own.
func RuleDef(schema, rel string, r *sqldef.Rule, pretty bool) string {
	var b strings.Builder
	b.WriteString("CREATE RULE " + QuoteIdent(r.Name) + " AS\n    ON " + r.Event + " TO ")
	if pretty {
		b.WriteString(QuoteIdent(rel))
	} else {
		b.WriteString(QuoteIdent(schema) + "." + QuoteIdent(rel))
	}
	if r.Where != "" {
		if pretty {
			b.WriteString("\n   WHERE " + r.Where)
		} else {
			b.WriteString("\n   WHERE (" + r.Where + ")")
		}
	}
	b.WriteString(" DO ")
	if r.Instead {
		b.WriteString("INSTEAD ")
	}
	switch len(r.Actions) {
	case 0:
		b.WriteString("NOTHING;")
	case 1:
		a := ruleActionDef(r.Actions[0])
		if strings.HasPrefix(a, "\n") {
			s := strings.TrimSuffix(b.String(), " ")
			b.Reset()
			b.WriteString(s)
		}
		b.WriteString(a + ";")
	default:
		b.WriteString("(")
		for _, a := range r.Actions {
			b.WriteString(ruleActionDef(a) + ";\n")
		}
		b.WriteString(");")
	}
	return b.String()
}

// ruleActionDef lays out a rule action as get_query_def does: a command
// after a space, its VALUES, WHERE and RETURNING clauses on lines of
// their own; a utility command (NOTIFY) on a line of its own.
func ruleActionDef(a string) string {
	if strings.HasPrefix(a, "NOTIFY") {
		return "\n " + a
	}
	for _, kw := range []string{" VALUES ", " WHERE ", " RETURNING "} {
		if i := strings.Index(a, kw); i >= 0 {
			a = a[:i] + "\n  " + a[i+1:]
		}
	}
	return " " + a
}
