package planner

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Privileges, as PostgreSQL checks them. Objects record their owner and an
// access control list (sqldef.ACLItem) in their catalog record, so
// grants are data under version control: a branch can change them, a diff
// shows it, a merge carries it. Roles and their memberships are the
// server's, as in PostgreSQL (sqldef.Role).
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
const BootstrapSuperuser = catalog.BootstrapRole

// Authority is what the current role may do.
type Authority struct {
	Role       string
	Version    uint64 // the engine's rolesGen it was computed at
	Superuser  bool
	CreateDB   bool
	CreateRole bool
	Holds      map[string]bool // roles whose privileges it uses, "" for PUBLIC
	Roles      map[string]*sqldef.Role
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
func NewAuthority(roles map[string]*sqldef.Role, role string, version uint64) *Authority {
	au := &Authority{Role: role, Version: version, Roles: roles, Holds: sqldef.Holds(roles, role)}
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
func (au *Authority) may(acl []sqldef.ACLItem, privs string) bool {
	if au.Superuser {
		return true
	}
	if au.Holds["pg_read_all_data"] {
		privs = sqldef.MinusPrivileges(privs, "r")
	}
	if au.Holds["pg_write_all_data"] {
		privs = sqldef.MinusPrivileges(privs, "awd")
	}
	return privs == "" || sqldef.ACLHolds(acl, au.Holds, privs, false)
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
func TableACL(t *sqldef.Table) []sqldef.ACLItem {
	return sqldef.DefaultedACL(t.ACL, OwnerOf(t.Owner), sqldef.TablePrivileges)
}

// SchemaACL is a schema's access control list, its default when none was
// set: in PostgreSQL 15 the public schema lets everyone use it (USAGE) but
// not create in it; other schemas are their owner's.
func SchemaACL(sc *sqldef.Schema) []sqldef.ACLItem {
	if sc.ACL != nil {
		return sc.ACL
	}
	owner := SchemaOwner(sc)
	if sc.Name == "public" {
		return sqldef.InitialACL(owner, sqldef.SchemaPrivileges, "U")
	}
	return sqldef.DefaultACL(owner, sqldef.SchemaPrivileges, "")
}

// databaseOwnerRole stands for the owner of the current database, whose
// only member here is the bootstrap superuser (databases record no owner).
const databaseOwnerRole = "pg_database_owner"

// SchemaOwner is a schema's owner: the public schema that nobody was
// given (the bootstrap superuser's, as it was made) is pg_database_owner's,
// as PostgreSQL 15 makes it.
func SchemaOwner(sc *sqldef.Schema) string {
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

// NewObjectOwner is the owner a new object records: the current role, ""
// for the bootstrap superuser (what objects made before owners were
// recorded say, so that their records, and the diffs between branches,
// do not change for a server used only by it).
func NewObjectOwner(s Session) string {
	if r := s.CurrentRole(); r != BootstrapSuperuser {
		return r
	}
	return ""
}

// GrantPrivileges returns the letters GRANT or REVOKE names for an object
// of kind whose privileges are all (nil privileges: ALL); those named
// with a column list are grantColumns'.
func GrantPrivileges(privs []*pg.Node, kind, all string) (string, error) {
	if len(privs) == 0 {
		return all, nil
	}
	var out []byte
	for _, n := range privs {
		p := n.GetAccessPriv()
		if p == nil || len(p.Cols) > 0 {
			continue
		}
		c, ok := PrivilegeLetters[strings.ToLower(p.PrivName)]
		if !ok {
			return "", pgerr.New(pgerr.SyntaxError, "unrecognized privilege type %q", p.PrivName)
		}
		if strings.IndexByte(all, c) < 0 {
			return "", pgerr.New(pgerr.InvalidGrantOperation, "invalid privilege type %s for %s", strings.ToUpper(p.PrivName), kind)
		}
		out = append(out, c)
	}
	return string(out), nil
}

// ChangeACL applies a GRANT or REVOKE to one object's ACL, as the current
// role: the owner (or a superuser) grants as the owner; another role
// grants what it holds with grant option, as itself.
func ChangeACL(au *Authority, notice func(error), g *pg.GrantStmt, acl []sqldef.ACLItem, owner, kind, name, privs string, grantees []string) ([]sqldef.ACLItem, error) {
	grantor := au.Role
	switch {
	case au.Owns(owner):
		grantor = OwnerOf(owner)
	case sqldef.ACLHolds(acl, au.Holds, privs, true):
		// The grant is the role's that holds the grant option, as
		// PostgreSQL's select_best_grantor picks it: the current role if
		// it does, else the role it inherits them from.
		if !sqldef.ACLHolds(acl, map[string]bool{au.Role: true}, privs, true) {
			for _, it := range acl {
				if it.Grantee != "" && au.Holds[it.Grantee] && sqldef.ACLHolds(acl, map[string]bool{it.Grantee: true}, privs, true) {
					grantor = it.Grantee
					break
				}
			}
		}
	default:
		if !sqldef.ACLAny(acl, au.Holds, sqldef.AllPrivileges) {
			return nil, PermissionDenied(kind, name)
		}
		// Privileges without grant option: PostgreSQL warns and changes
		// nothing.
		if g.IsGrant {
			notice(pgerr.NewWarning(pgerr.WarningPrivilegeNotGranted, "no privileges were granted for %q", name))
		} else {
			notice(pgerr.NewWarning(pgerr.WarningPrivilegeNotRevoked, "no privileges could be revoked for %q", name))
		}
		return acl, nil
	}
	for _, who := range grantees {
		if g.IsGrant {
			acl = sqldef.GrantACL(acl, who, grantor, privs, g.GrantOption)
			continue
		}
		var ok bool
		if acl, ok = sqldef.RevokeACL(acl, who, grantor, privs, g.GrantOption, g.Behavior == pg.DropBehavior_DROP_CASCADE); !ok {
			return nil, pgerr.New(pgerr.DependentObjectsStillExist, "dependent privileges exist").WithHint("Use CASCADE to revoke them too.")
		}
	}
	return acl, nil
}

// FunctionACL is a function's access control list, its default when none
// was set: the owner's, and EXECUTE for PUBLIC, as PostgreSQL gives every
// new function.
func FunctionACL(f *sqldef.Function) []sqldef.ACLItem {
	if f.ACL != nil {
		return f.ACL
	}
	return sqldef.DefaultACL(OwnerOf(f.Owner), sqldef.FunctionPrivileges, sqldef.FunctionPrivileges)
}

// TypeACL is a type's access control list, its default when none was set:
// the owner's, and USAGE for PUBLIC.
func TypeACL(t *sqldef.Type) []sqldef.ACLItem {
	if t.ACL != nil {
		return t.ACL
	}
	return sqldef.DefaultACL(OwnerOf(t.Owner), sqldef.TypePrivileges, sqldef.TypePrivileges)
}

// requireTypeNameUsage checks that the current role may use the type tn
// names in a definition (a column, an argument or result, a domain's base,
// an attribute): USAGE on it, on a domain itself, on an array's element
// type, as PostgreSQL checks them. Queries need no USAGE to use a type.
func (a *analyzer) requireTypeNameUsage(tn *pg.TypeName) error {
	t, dom, _, err := a.resolveTypeDomain(tn)
	if err != nil {
		return err
	}
	if dom != nil {
		return a.requireTypeUsage(dom)
	}
	return a.requireTypeOIDUsage(t)
}

// requireTypeOIDUsage is requireTypeNameUsage for a resolved type: a
// user type, or an array of one; built-in types are PUBLIC's.
func (a *analyzer) requireTypeOIDUsage(t exec.T) error {
	if e := exec.ElemType(t); e.OID != 0 {
		t = e
	}
	ut, err := typeByOID(a.ctx, a.tx.Catalog(), t.OID)
	if err != nil || ut == nil {
		return err
	}
	return a.requireTypeUsage(ut)
}

func (a *analyzer) requireTypeUsage(ut *sqldef.Type) error {
	au, err := a.authority()
	if err != nil || au.Superuser || au.unchecked || sqldef.ACLHolds(TypeACL(ut), au.Holds, sqldef.TypePrivileges, false) {
		return err
	}
	return PermissionDenied("type", ut.Name)
}

// RoutineKind names a function record's kind as PostgreSQL's errors do.
func RoutineKind(f *sqldef.Function) string {
	switch f.Kind {
	case 'a':
		return "aggregate"
	case 'p':
		return "procedure"
	case 'o':
		return "operator"
	}
	return "function"
}

// requireExecute checks that the current role may call f: EXECUTE,
// held through its ACL (ownership gives nothing a REVOKE took away, as
// in PostgreSQL).
func (a *analyzer) requireExecute(f *sqldef.Function) error {
	au, err := a.authority()
	if err != nil || au.Superuser || au.unchecked || sqldef.ACLHolds(FunctionACL(f), au.Holds, sqldef.FunctionPrivileges, false) {
		return err
	}
	return PermissionDenied(RoutineKind(f), f.Name)
}

// ViewACL is a view's access control list, its default when none was set.
func ViewACL(v *sqldef.View) []sqldef.ACLItem {
	return sqldef.DefaultedACL(v.ACL, OwnerOf(v.Owner), sqldef.TablePrivileges)
}

// viewAuthority checks that the current role may read view v, and returns
// the authority its query is checked with: its owner's.
func (a *analyzer) viewAuthority(v *sqldef.View) (*Authority, error) {
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
	if t != nil && t.Virtual != nil && t.VirtualKind == 'c' && t.Def != nil && t.Def.Schema == "pg_catalog" {
		return a.requireCatalog(t.Def.Name, privs)
	}
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

// restrictedCatalogs are the catalogs PUBLIC may not read, as PostgreSQL
// revokes SELECT on them (they hold passwords, statistics of every
// table's values, large objects' bytes, the server's memory), with the
// predefined roles it grants SELECT to instead.
var restrictedCatalogs = map[string][]string{
	"pg_authid": nil, "pg_statistic": nil, "pg_largeobject": nil,
	"pg_backend_memory_contexts": {"pg_read_all_stats"}, "pg_shmem_allocations": {"pg_read_all_stats"},
}

// CatalogACL is the access control list of catalog table name: the
// bootstrap superuser's, and SELECT for PUBLIC or, for a restricted
// catalog, for the roles PostgreSQL grants it to.
func CatalogACL(name string) []sqldef.ACLItem {
	readers, restricted := restrictedCatalogs[name]
	if !restricted {
		return sqldef.InitialACL(BootstrapSuperuser, sqldef.TablePrivileges, "r")
	}
	acl := sqldef.DefaultACL(BootstrapSuperuser, sqldef.TablePrivileges, "")
	for _, r := range readers {
		acl = sqldef.GrantACL(acl, r, BootstrapSuperuser, "r", false)
	}
	return acl
}

// requireCatalog checks privs on the catalog table name: only superusers
// change any (the catalog's own error for them is the statement's), and
// its ACL says who reads it.
func (a *analyzer) requireCatalog(name, privs string) error {
	au, err := a.authority()
	if err != nil || au.Superuser {
		return err
	}
	if sqldef.MinusPrivileges(privs, "r") != "" || !sqldef.ACLHolds(CatalogACL(name), au.Holds, "r", false) {
		return PermissionDenied("table", name)
	}
	return nil
}

// privilegeDefinition is the definition of stored table t whose ACLs
// apply to it: its own, or for a past revision today's. A past revision
// is read with today's privileges, as a PostgreSQL user expects of a
// table: a REVOKE is not undone by reading AS OF yesterday, nor by
// connecting to db@<old commit> (whose today is the default branch's).
// A table dropped since keeps its old ones.
func (a *analyzer) privilegeDefinition(t *exec.Table) (*sqldef.Table, error) {
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
func Grantees(s Session, specs []*pg.Node, roles map[string]*sqldef.Role) ([]string, error) {
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
		if !RoleExists(roles, name) {
			return nil, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", name)
		}
		out = append(out, name)
	}
	return out, nil
}

// RoleExists reports whether name is a role: a stored one, or one of the
// roles initdb makes (pg_read_all_data, pg_signal_backend, ...), which
// the server has without storing them.
func RoleExists(roles map[string]*sqldef.Role, name string) bool {
	return roles[name] != nil || catalog.IsPredefinedRole(name)
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
// sequences, schemas, functions, types, large objects and databases (the
// last kept by the server, not in the root value).
func VersionedGrant(g *pg.GrantStmt) bool {
	switch g.Objtype {
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_SCHEMA, pg.ObjectType_OBJECT_SEQUENCE,
		pg.ObjectType_OBJECT_FUNCTION, pg.ObjectType_OBJECT_PROCEDURE, pg.ObjectType_OBJECT_ROUTINE,
		pg.ObjectType_OBJECT_TYPE, pg.ObjectType_OBJECT_DOMAIN, pg.ObjectType_OBJECT_LARGEOBJECT, pg.ObjectType_OBJECT_DATABASE:
		return g.Targtype != pg.GrantTargetType_ACL_TARGET_DEFAULTS
	}
	return false
}

// HasAdmin reports whether role holds group WITH ADMIN OPTION.
func HasAdmin(roles map[string]*sqldef.Role, role, group string) bool {
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
func SequenceACL(seq *sqldef.Sequence) []sqldef.ACLItem {
	return sqldef.DefaultedACL(seq.ACL, OwnerOf(seq.Owner), sqldef.SequencePrivileges)
}

// currentDefinition is the table schema.name as it is today for the
// session: in its transaction's root on a branch, in the default branch's
// working root for a session opened on a tag or commit; nil if absent.
func (a *analyzer) currentDefinition(schema, name string) (*sqldef.Table, error) {
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
