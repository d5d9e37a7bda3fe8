package catalog

import (
	"cmp"
	"sort"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// information_schema's views of roles: enabled_roles (the roles whose
// privileges the current role has) and applicable_roles (the memberships
// among them, with whether each may be granted on). The database's owner,
// the bootstrap superuser here, is pg_database_owner's member.
func init() {
	const is = "information_schema"
	define(is, "enabled_roles", 13312, 'v', "role_name:sql_identifier", isEnabledRoles)
	define(is, "applicable_roles", 13262, 'v', "grantee:sql_identifier role_name:sql_identifier is_grantable:yes_or_no", isApplicableRoles)
}

// enabledRoles are the roles whose privileges the current role has: every
// role for a superuser.
func (s *Snapshot) enabledRoles() map[string]bool {
	byName := map[string]*sqldef.Role{}
	for _, r := range s.Src.Roles {
		byName[r.Name] = r
	}
	if r := byName[s.Src.Role]; s.Src.Role == BootstrapRole || r != nil && r.Superuser {
		all := map[string]bool{BootstrapRole: true, "pg_database_owner": true}
		for name := range byName {
			all[name] = true
		}
		for _, p := range predefinedRoles {
			all[p.name] = true
		}
		return all
	}
	held := sqldef.Holds(byName, s.Src.Role)
	delete(held, "") // PUBLIC is no role
	if held[cmp.Or(s.Src.DatabaseOwner, BootstrapRole)] {
		held["pg_database_owner"] = true
	}
	return held
}

func isEnabledRoles(s *Snapshot) ([]exec.Row, error) {
	var names []string
	for name := range s.enabledRoles() {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]exec.Row, len(names))
	for i, n := range names {
		out[i] = exec.Row{dText(n)}
	}
	return out, nil
}

func isApplicableRoles(s *Snapshot) ([]exec.Row, error) {
	enabled := s.enabledRoles()
	var out []exec.Row
	add := func(grantee, role string, admin bool) {
		if enabled[grantee] {
			out = append(out, exec.Row{dText(grantee), dText(role), dText(map[bool]string{true: "YES", false: "NO"}[admin])})
		}
	}
	for _, r := range s.Src.Roles {
		for _, g := range r.MemberOf {
			add(r.Name, g.Role, g.Admin)
		}
	}
	add(cmp.Or(s.Src.DatabaseOwner, BootstrapRole), "pg_database_owner", false)
	return out, nil
}
