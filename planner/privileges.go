package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
)

// Privileges, as PostgreSQL checks them. Objects record their owner and an
// access control list (versioning.ACLItem) in their catalog record, so
// grants are data under version control: a branch can change them, a diff
// shows it, a merge carries it. Roles and their memberships are the
// server's, as in PostgreSQL (versioning.Role).
//
// Checks run as a statement is analyzed, against the role current then
// (current_user: SET ROLE's, else the session's). A plan is reused only
// while that role and the roles' definitions are unchanged
// (analysis.auth), and a GRANT or REVOKE changes the object's record, so
// plans reading it are made again: a grant in one session takes effect at
// the next statement of every other.
//
// What is checked today: SELECT, INSERT, UPDATE, DELETE and TRUNCATE on
// tables (a superuser, and the owner through the default ACL, hold them
// all); USAGE, SELECT and UPDATE on sequences by nextval, currval, lastval
// and setval; ownership for DROP TABLE, ALTER TABLE, CREATE INDEX,
// GRANT/REVOKE; CREATE on the schema a table is created in; CREATEDB for
// CREATE DATABASE; CREATEROLE for role management; membership for SET
// ROLE; SELECT on views, whose queries are checked with their owner's
// privileges (security_invoker views: their reader's); column privileges
// (colpriv.go) and row-level security (rls.go). Functions are not checked
// yet.

// BootstrapSuperuser is the role that owns what records no owner: the
// objects made before owners were recorded, and the public schema's
// pg_database_owner stands in for it.
const BootstrapSuperuser = "postgres"

// Authority is what the current role may do.
type Authority struct {
	Role       string
	Version    uint64 // the engine's rolesGen it was computed at
	Superuser  bool
	CreateDB   bool
	CreateRole bool
	Holds      map[string]bool // roles whose privileges it uses, "" for PUBLIC
	Roles      map[string]*versioning.Role
	// unchecked marks the authority DDL checks a query's names and types
	// with (Analyzer.Unchecked): it may do anything, and so do the views
	// it reads.
	unchecked bool
}

// AuthKey identifies the authority a plan was checked with, and whether
// row_security was off then: which policies a plan applies depends on
// both (rls.go).
type AuthKey struct {
	Role          string
	Version       uint64
	NoRowSecurity bool
}

// NewAuthority is role's authority among roles, at the engine's rolesGen
// version.
func NewAuthority(roles map[string]*versioning.Role, role string, version uint64) *Authority {
	au := &Authority{Role: role, Version: version, Roles: roles, Holds: versioning.Holds(roles, role)}
	if role == BootstrapSuperuser {
		au.Holds[databaseOwnerRole] = true
	}
	if r := roles[role]; r != nil {
		au.Superuser = r.Superuser
		au.CreateDB = r.Superuser || r.CreateDB
		au.CreateRole = r.Superuser || r.CreateRole
	}
	return au
}

// may reports whether the authority holds every privilege of privs in acl,
// counting what the predefined roles pg_read_all_data (SELECT) and
// pg_write_all_data (INSERT, UPDATE, DELETE) give on every table and view.
func (au *Authority) may(acl []versioning.ACLItem, privs string) bool {
	if au.Superuser {
		return true
	}
	if au.Holds["pg_read_all_data"] {
		privs = versioning.MinusPrivileges(privs, "r")
	}
	if au.Holds["pg_write_all_data"] {
		privs = versioning.MinusPrivileges(privs, "awd")
	}
	return privs == "" || versioning.ACLHolds(acl, au.Holds, privs, false)
}

// Owns reports whether the role has the privileges of owner (PostgreSQL's
// has_privs_of_role, which ownership checks use).
func (au *Authority) Owns(owner string) bool {
	return au.Superuser || au.Holds[OwnerOf(owner)]
}

// OwnerOf is the owner an object's record names.
func OwnerOf(owner string) string {
	if owner == "" {
		return BootstrapSuperuser
	}
	return owner
}

// TableACL is t's access control list, its default when none was set.
func TableACL(t *versioning.Table) []versioning.ACLItem {
	return versioning.DefaultedACL(t.ACL, OwnerOf(t.Owner), versioning.TablePrivileges)
}

// SchemaACL is a schema's access control list, its default when none was
// set: in PostgreSQL 15 the public schema lets everyone use it (USAGE) but
// not create in it; other schemas are their owner's.
func SchemaACL(sc *versioning.Schema) []versioning.ACLItem {
	if sc.ACL != nil {
		return sc.ACL
	}
	owner := SchemaOwner(sc)
	if sc.Name == "public" {
		return versioning.DefaultACL(owner, versioning.SchemaPrivileges, "U")
	}
	return versioning.DefaultACL(owner, versioning.SchemaPrivileges, "")
}

// databaseOwnerRole stands for the owner of the current database, whose
// only member here is the bootstrap superuser (databases record no owner).
const databaseOwnerRole = "pg_database_owner"

// SchemaOwner is a schema's owner: the public schema that nobody was
// given (the bootstrap superuser's, as it was made) is pg_database_owner's,
// as PostgreSQL 15 makes it.
func SchemaOwner(sc *versioning.Schema) string {
	if sc.Name == "public" && OwnerOf(sc.Owner) == BootstrapSuperuser {
		return databaseOwnerRole
	}
	return OwnerOf(sc.Owner)
}

// authority returns the current role's authority for the statement being
// analyzed, and records it: the plan is checked with it.
func (a *analyzer) authority() (*Authority, error) {
	au, err := a.s.Authority(a.ctx)
	if err != nil {
		return nil, err
	}
	a.auth = AuthKey{Role: au.Role, Version: au.Version, NoRowSecurity: rowSecurityOff(a.s.Var("row_security"))}
	if a.as != nil {
		return a.as, nil
	}
	return au, nil
}

// ViewACL is a view's access control list, its default when none was set.
func ViewACL(v *versioning.View) []versioning.ACLItem {
	return versioning.DefaultedACL(v.ACL, OwnerOf(v.Owner), versioning.TablePrivileges)
}

// viewAuthority checks that the current role may read view v, and returns
// the authority its query is checked with: its owner's.
func (a *analyzer) viewAuthority(v *versioning.View) (*Authority, error) {
	au, err := a.authority()
	if err != nil {
		return nil, err
	}
	if !au.may(ViewACL(v), "r") {
		return nil, PermissionDenied("view", v.Name)
	}
	return a.s.AuthorityOf(a.ctx, OwnerOf(v.Owner))
}

// requireTable checks that the current role holds privs on a stored table;
// catalog relations, views and system tables are not checked here.
func (a *analyzer) requireTable(t *exec.Table, privs string) error {
	if t == nil || t.Virtual != nil || t.Def == nil {
		return nil
	}
	au, err := a.authority()
	if err != nil || au.Superuser {
		return err
	}
	def, err := a.privilegeDefinition(t)
	if err != nil {
		return err
	}
	if au.may(TableACL(def), privs) {
		return nil
	}
	return PermissionDenied("table", def.Name)
}

// privilegeDefinition is the definition of stored table t whose ACLs
// apply to it: its own, or for a past revision today's. A past revision
// is read with today's privileges, as a PostgreSQL user expects of a
// table: a REVOKE is not undone by reading AS OF yesterday, nor by
// connecting to db@<old commit> (whose today is the default branch's).
// A table dropped since keeps its old ones.
func (a *analyzer) privilegeDefinition(t *exec.Table) (*versioning.Table, error) {
	def := t.Def
	if !t.Pinned && a.s.Detached() == nil {
		return def, nil
	}
	now, err := a.currentDefinition(def.Schema, def.Name)
	if err != nil || now == nil {
		return def, err
	}
	return now, nil
}

func PermissionDenied(kind, name string) error {
	return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for %s %s", kind, name)
}

// PrivilegeLetters maps GRANT's privilege names to aclitem letters.
var PrivilegeLetters = map[string]byte{
	"select": 'r', "insert": 'a', "update": 'w', "delete": 'd', "truncate": 'D', "references": 'x',
	"trigger": 't', "execute": 'X', "usage": 'U', "create": 'C', "temporary": 'T', "temp": 'T', "connect": 'c',
}

// Grantees resolves GRANT's grantees: "" for PUBLIC.
func Grantees(s Session, specs []*pg.Node, roles map[string]*versioning.Role) ([]string, error) {
	var out []string
	for _, n := range specs {
		r := n.GetRoleSpec()
		if r == nil {
			continue
		}
		if r.Roletype == pg.RoleSpecType_ROLESPEC_PUBLIC {
			out = append(out, "")
			continue
		}
		name := RoleSpecName(s, r)
		if roles[name] == nil {
			return nil, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", name)
		}
		out = append(out, name)
	}
	return out, nil
}

// RoleSpecName is the role a RoleSpec names, CURRENT_USER and friends
// resolved in the session.
func RoleSpecName(s Session, r *pg.RoleSpec) string {
	if r == nil {
		return ""
	}
	switch r.Roletype {
	case pg.RoleSpecType_ROLESPEC_CURRENT_USER, pg.RoleSpecType_ROLESPEC_CURRENT_ROLE:
		return s.CurrentRole()
	case pg.RoleSpecType_ROLESPEC_SESSION_USER:
		return s.SessionRole()
	}
	return r.Rolename
}

// VersionedGrant reports whether a GRANT or REVOKE is of the objects whose
// privileges are recorded (in the root value) and checked: tables, views,
// sequences and schemas (column lists record nothing yet).
func VersionedGrant(g *pg.GrantStmt) bool {
	switch g.Objtype {
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_SCHEMA, pg.ObjectType_OBJECT_SEQUENCE:
		return g.Targtype != pg.GrantTargetType_ACL_TARGET_DEFAULTS
	}
	return false
}

// HasAdmin reports whether role holds group WITH ADMIN OPTION.
func HasAdmin(roles map[string]*versioning.Role, role, group string) bool {
	if r := roles[role]; r != nil {
		for _, g := range r.MemberOf {
			if g.Role == group && g.Admin {
				return true
			}
		}
	}
	return false
}

// SequenceACL is a sequence's access control list, its default when none
// was set.
func SequenceACL(seq *versioning.Sequence) []versioning.ACLItem {
	return versioning.DefaultedACL(seq.ACL, OwnerOf(seq.Owner), versioning.SequencePrivileges)
}

// currentDefinition is the table schema.name as it is today for the
// session: in its transaction's root on a branch, in the default branch's
// working root for a session opened on a tag or commit; nil if absent.
func (a *analyzer) currentDefinition(schema, name string) (*versioning.Table, error) {
	if a.s.Detached() == nil {
		t, ok, err := a.tx.Table(a.ctx, schema, name)
		if err != nil || !ok {
			return nil, err
		}
		return t.Def, nil
	}
	root, ok, err := a.s.DefaultBranchRoot(a.ctx)
	if err != nil || !ok {
		return nil, err // no default branch: the revision's own privileges
	}
	t, ok, err := root.Table(a.ctx, schema, name)
	if err != nil || !ok {
		return nil, err
	}
	return t, nil
}
