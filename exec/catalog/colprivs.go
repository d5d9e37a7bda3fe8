package catalog

import (
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

func init() {
	define("information_schema", "column_privileges", 13280, 'v', `grantor:sql_identifier grantee:sql_identifier
		table_catalog:sql_identifier table_schema:sql_identifier table_name:sql_identifier
		column_name:sql_identifier privilege_type:character_data is_grantable:yes_or_no`, isColumnPrivileges)
}

// columnPrivilegeNames names the privileges a column can hold.
var columnPrivilegeNames = []struct {
	letter byte
	name   string
}{{'a', "INSERT"}, {'r', "SELECT"}, {'w', "UPDATE"}, {'x', "REFERENCES"}}

// isColumnPrivileges lists the privileges on columns, those held through
// the table's ACL and the column's own, that the current role granted or
// holds (itself, a role it is a member of, or PUBLIC), as
// information_schema.column_privileges does.
func isColumnPrivileges(s *Snapshot) ([]exec.Row, error) {
	roles := map[string]*sqldef.Role{}
	for _, r := range s.Src.Roles {
		roles[r.Name] = r
	}
	role := s.Src.Role
	if role == "" {
		role = s.Src.User
	}
	holds := sqldef.Holds(roles, role)
	name := func(r string) string {
		if r == "" {
			return "PUBLIC"
		}
		return r
	}
	var out []exec.Row
	for _, t := range s.Tables {
		owner := t.Owner
		if owner == "" {
			owner = "postgres"
		}
		tacl := sqldef.DefaultedACL(t.ACL, owner, sqldef.TablePrivileges)
		for _, c := range t.Columns {
			if c.Dropped {
				continue
			}
			seen := map[string]bool{}
			for _, acl := range [][]sqldef.ACLItem{tacl, c.ACL} {
				for _, it := range acl {
					if !holds[it.Grantor] && !holds[it.Grantee] {
						continue
					}
					for _, p := range columnPrivilegeNames {
						if strings.IndexByte(it.Privs, p.letter) < 0 {
							continue
						}
						key := it.Grantor + "\x00" + it.Grantee + "\x00" + p.name
						if seen[key] {
							continue
						}
						seen[key] = true
						grantable := "NO"
						if strings.IndexByte(it.Grant, p.letter) >= 0 || it.Grantee == owner {
							grantable = "YES"
						}
						out = append(out, exec.Row{dText(name(it.Grantor)), dText(name(it.Grantee)), dText(s.Src.Database),
							dText(t.Schema), dText(t.Name), dText(c.Name), dText(p.name), dText(grantable)})
					}
				}
			}
		}
	}
	return out, nil
}
