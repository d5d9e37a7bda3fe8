package catalog

import (
	"sort"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Row-level security policies: pg_policy, and pg_policies, its view with
// names and the expressions rendered.

func init() {
	define("pg_catalog", "pg_policies", 12077, 'v', `schemaname:name tablename:name policyname:name
		permissive:text roles:name[] cmd:text qual:text with_check:text`, pgPolicies)
	// Of the shared dependencies, only policies' on roles are listed.
	define("pg_catalog", "pg_shdepend", 1214, 'r', `dbid:oid classid:oid objid:oid objsubid:integer refclassid:oid
		refobjid:oid deptype:char`, pgShdepend)
}

// PolicyOID returns the OID of policy name on table schema.table.
func PolicyOID(schema, table, name string) uint32 {
	return exec.ObjectOID(kindPolicy, schema, table+"\x00"+name)
}

// policyCommandNames are pg_policies.cmd's names of polcmd's letters.
var policyCommandNames = map[byte]string{'*': "ALL", 'r': "SELECT", 'a': "INSERT", 'w': "UPDATE", 'd': "DELETE"}

func pgPolicy(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, t := range s.Tables {
		for _, p := range t.Policies {
			roles := []exec.Datum{dOID(0)}
			if len(p.Roles) > 0 {
				roles = roles[:0]
				for _, r := range p.Roles {
					roles = append(roles, dOID(RoleOID(r)))
				}
			}
			out = append(out, exec.Row{dOID(PolicyOID(t.Schema, t.Name, p.Name)), dText(p.Name), dOID(TableOID(t.Schema, t.Name)),
				dChar(p.Command), dBool(!p.Restrictive), exec.NewArray(exec.OIDOid, roles), optText(p.Using), optText(p.Check)})
		}
	}
	return out, nil
}

func pgPolicies(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, t := range s.Tables {
		for _, p := range t.Policies {
			names := []string{"public"}
			if len(p.Roles) > 0 {
				names = append([]string(nil), p.Roles...)
				sort.Strings(names)
			}
			roles := make([]exec.Datum, len(names))
			for i, n := range names {
				roles[i] = dText(n)
			}
			kind := "PERMISSIVE"
			if p.Restrictive {
				kind = "RESTRICTIVE"
			}
			out = append(out, exec.Row{dText(t.Schema), dText(t.Name), dText(p.Name), dText(kind),
				exec.NewArray(exec.OIDName, roles), dText(policyCommandNames[p.Command]),
				s.renderExpr(t, p.Using), s.renderExpr(t, p.Check)})
		}
	}
	return out, nil
}

// optText is s as text, NULL when empty.
func optText(s string) exec.Datum {
	if s == "" {
		return exec.Null
	}
	return dText(s)
}

// renderExpr is a stored expression of t as pg_get_expr shows it, NULL
// when there is none.
func (s *Snapshot) renderExpr(t *sqldef.Table, expr string) exec.Datum {
	if expr == "" {
		return exec.Null
	}
	if s.Src.Expr != nil {
		return dText(s.Src.Expr(t, expr, false))
	}
	return dText(expr)
}

// OIDPgPolicy is pg_policy's OID, the class of policies in pg_depend.
const OIDPgPolicy = 3256

// policyDepends lists each policy as depending on its table ('a',
// automatic) and on the relations its expressions read ('n').
func (s *Snapshot) policyDepends() []exec.Row {
	var out []exec.Row
	for _, t := range s.Tables {
		for _, p := range t.Policies {
			oid := PolicyOID(t.Schema, t.Name, p.Name)
			out = append(out, dependRow(OIDPgPolicy, oid, 0, OIDPgClass, TableOID(t.Schema, t.Name), 0, 'a'))
			for _, d := range p.Depends {
				schema, name, _ := strings.Cut(d, ".")
				if r, ok := s.RelationByName(schema, name); ok {
					out = append(out, dependRow(OIDPgPolicy, oid, 0, OIDPgClass, r.OID, 0, 'n'))
				}
			}
		}
	}
	return out
}

// pgShdepend lists the dependencies of policies on the roles they name
// ('r'), which keep DROP ROLE from dropping them.
func pgShdepend(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	db := DatabaseOID(s.Src.Database)
	for _, t := range s.Tables {
		for _, p := range t.Policies {
			for _, r := range p.Roles {
				if r == "" {
					continue
				}
				out = append(out, exec.Row{dOID(db), dOID(OIDPgPolicy), dOID(PolicyOID(t.Schema, t.Name, p.Name)), dInt(0),
					dOID(OIDPgAuthid), dOID(RoleOID(r)), dChar('r')})
			}
		}
	}
	return out, nil
}
