package planner

import (
	"context"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
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
// privileges. Functions and column privileges are not checked yet.

// bootstrapSuperuser is the role that owns what records no owner: the
// objects made before owners were recorded, and the public schema's
// pg_database_owner stands in for it.
const bootstrapSuperuser = "postgres"

// updateRoles is versioning.UpdateRoles, counted in rolesGen.
func (e *Engine) updateRoles(ctx context.Context, fn func(map[string]*versioning.Role) error) error {
	defer e.rolesGen.Add(1) // also after a failure: the roles may have changed
	return versioning.UpdateRoles(ctx, e.st, fn)
}

// authority is what the current role may do.
type authority struct {
	role       string
	version    uint64 // the engine's rolesGen it was computed at
	superuser  bool
	createDB   bool
	createRole bool
	holds      map[string]bool // roles whose privileges it uses, "" for PUBLIC
	roles      map[string]*versioning.Role
}

// authKey identifies the authority a plan was checked with.
type authKey struct {
	role    string
	version uint64
}

// CurrentRole is current_user: the role SET ROLE chose, else the
// session's (sessionRole).
func (s *Session) CurrentRole() string {
	if r := s.vars["role"]; r != "" && r != "none" {
		return r
	}
	return s.SessionRole()
}

// SessionRole is session_user: the role that connected, or the one SET
// SESSION AUTHORIZATION chose.
func (s *Session) SessionRole() string {
	if r := s.vars["session_authorization"]; r != "" {
		return r
	}
	return s.user
}

// checkSessionAuthorization validates SET SESSION AUTHORIZATION: the role
// exists, and the role that connected is a superuser (or is the role).
func (s *Session) checkSessionAuthorization(ctx context.Context, role string) error {
	if role == s.user {
		return nil
	}
	roles, _, err := s.e.roles.Load(ctx, s.e.st)
	if err != nil {
		return err
	}
	if roles[role] == nil {
		return pgerr.New(pgerr.InvalidParameterValue, "role %q does not exist", role)
	}
	if u := roles[s.user]; u == nil || !u.Superuser {
		return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to set session authorization")
	}
	return nil
}

// Authority returns the current role's authority, computed again only when
// the role or the roles changed.
func (s *Session) Authority(ctx context.Context) (*authority, error) {
	version, role := s.e.rolesGen.Load(), s.CurrentRole()
	if au := s.auth; au != nil && au.version == version && au.role == role {
		return au, nil // the common case: no store access, no lock
	}
	roles, _, err := s.e.roles.Load(ctx, s.e.st)
	if err != nil {
		return nil, err
	}
	s.auth = newAuthority(roles, role, version)
	return s.auth, nil
}

// newAuthority is role's authority among roles, at the engine's rolesGen
// version.
func newAuthority(roles map[string]*versioning.Role, role string, version uint64) *authority {
	au := &authority{role: role, version: version, roles: roles, holds: versioning.Holds(roles, role)}
	if role == bootstrapSuperuser {
		au.holds[databaseOwnerRole] = true
	}
	if r := roles[role]; r != nil {
		au.superuser = r.Superuser
		au.createDB = r.Superuser || r.CreateDB
		au.createRole = r.Superuser || r.CreateRole
	}
	return au
}

// may reports whether the authority holds every privilege of privs in acl,
// counting what the predefined roles pg_read_all_data (SELECT) and
// pg_write_all_data (INSERT, UPDATE, DELETE) give on every table and view.
func (au *authority) may(acl []versioning.ACLItem, privs string) bool {
	if au.superuser {
		return true
	}
	if au.holds["pg_read_all_data"] {
		privs = versioning.MinusPrivileges(privs, "r")
	}
	if au.holds["pg_write_all_data"] {
		privs = versioning.MinusPrivileges(privs, "awd")
	}
	return privs == "" || versioning.ACLHolds(acl, au.holds, privs, false)
}

// owns reports whether the role has the privileges of owner (PostgreSQL's
// has_privs_of_role, which ownership checks use).
func (au *authority) owns(owner string) bool {
	return au.superuser || au.holds[ownerOf(owner)]
}

// ownerOf is the owner an object's record names.
func ownerOf(owner string) string {
	if owner == "" {
		return bootstrapSuperuser
	}
	return owner
}

// tableACL is t's access control list, its default when none was set.
func tableACL(t *versioning.Table) []versioning.ACLItem {
	return versioning.DefaultedACL(t.ACL, ownerOf(t.Owner), versioning.TablePrivileges)
}

// schemaACL is a schema's access control list, its default when none was
// set: in PostgreSQL 15 the public schema lets everyone use it (USAGE) but
// not create in it; other schemas are their owner's.
func schemaACL(sc *versioning.Schema) []versioning.ACLItem {
	if sc.ACL != nil {
		return sc.ACL
	}
	owner := schemaOwner(sc)
	if sc.Name == "public" {
		return versioning.DefaultACL(owner, versioning.SchemaPrivileges, "U")
	}
	return versioning.DefaultACL(owner, versioning.SchemaPrivileges, "")
}

// databaseOwnerRole stands for the owner of the current database, whose
// only member here is the bootstrap superuser (databases record no owner).
const databaseOwnerRole = "pg_database_owner"

// schemaOwner is a schema's owner: the public schema that nobody was
// given (the bootstrap superuser's, as it was made) is pg_database_owner's,
// as PostgreSQL 15 makes it.
func schemaOwner(sc *versioning.Schema) string {
	if sc.Name == "public" && ownerOf(sc.Owner) == bootstrapSuperuser {
		return databaseOwnerRole
	}
	return ownerOf(sc.Owner)
}

// authHolds reports whether the authority a plan was checked with is
// still the current role's.
func (s *Session) authHolds(k authKey) bool {
	return k.version == s.e.rolesGen.Load() && k.role == s.CurrentRole()
}

// authority returns the current role's authority for the statement being
// analyzed, and records it: the plan is checked with it.
func (a *analyzer) authority() (*authority, error) {
	au, err := a.s.Authority(a.ctx)
	if err != nil {
		return nil, err
	}
	a.auth = authKey{role: au.role, version: au.version}
	if a.as != nil {
		return a.as, nil
	}
	return au, nil
}

// AuthorityOf is the authority of role, for checks made as another role
// than the current one (a view's owner).
func (s *Session) AuthorityOf(ctx context.Context, role string) (*authority, error) {
	roles, _, err := s.e.roles.Load(ctx, s.e.st)
	if err != nil {
		return nil, err
	}
	return newAuthority(roles, role, s.e.rolesGen.Load()), nil
}

// viewACL is a view's access control list, its default when none was set.
func viewACL(v *versioning.View) []versioning.ACLItem {
	return versioning.DefaultedACL(v.ACL, ownerOf(v.Owner), versioning.TablePrivileges)
}

// viewAuthority checks that the current role may read view v, and returns
// the authority its query is checked with: its owner's.
func (a *analyzer) viewAuthority(v *versioning.View) (*authority, error) {
	au, err := a.authority()
	if err != nil {
		return nil, err
	}
	if !au.may(viewACL(v), "r") {
		return nil, permissionDenied("view", v.Name)
	}
	return a.s.AuthorityOf(a.ctx, ownerOf(v.Owner))
}

// requireTable checks that the current role holds privs on a stored table;
// catalog relations, views and system tables are not checked here.
func (a *analyzer) requireTable(t *exec.Table, privs string) error {
	if t == nil || t.Virtual != nil || t.Def == nil {
		return nil
	}
	au, err := a.authority()
	if err != nil || au.superuser {
		return err
	}
	def := t.Def
	if t.Pinned || a.s.Detached() != nil {
		// A past revision is read with today's privileges, as a
		// PostgreSQL user expects of a table: a REVOKE is not undone by
		// reading AS OF yesterday, nor by connecting to db@<old commit>
		// (whose today is the default branch's). A table dropped since
		// keeps its old ones.
		now, err := a.currentDefinition(def.Schema, def.Name)
		if err != nil {
			return err
		}
		if now != nil {
			def = now
		}
	}
	if au.may(tableACL(def), privs) {
		return nil
	}
	return permissionDenied("table", def.Name)
}

// requireTableOwner checks that the current role owns a table.
func (a *analyzer) requireTableOwner(t *versioning.Table) error {
	au, err := a.authority()
	if err != nil || au.owns(t.Owner) {
		return err
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "must be owner of table %s", t.Name)
}

// requireSchemaCreate checks that the current role may create objects in
// schema.
func (a *analyzer) requireSchemaCreate(ctx context.Context, schema string) error {
	au, err := a.authority()
	if err != nil || au.superuser {
		return err
	}
	sc, ok, err := a.tx.Root.Schema(ctx, schema)
	if err != nil || !ok {
		return err // a missing schema fails elsewhere, with its own error
	}
	if versioning.ACLHolds(schemaACL(sc), au.holds, "C", false) {
		return nil
	}
	return permissionDenied("schema", schema)
}

func permissionDenied(kind, name string) error {
	return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for %s %s", kind, name)
}

// privilegeLetters maps GRANT's privilege names to aclitem letters.
var privilegeLetters = map[string]byte{
	"select": 'r', "insert": 'a', "update": 'w', "delete": 'd', "truncate": 'D', "references": 'x',
	"trigger": 't', "execute": 'X', "usage": 'U', "create": 'C', "temporary": 'T', "temp": 'T', "connect": 'c',
}

// grantPrivileges returns the letters GRANT or REVOKE names for an object
// of kind whose privileges are all (nil privileges: ALL).
func grantPrivileges(privs []*pg.Node, kind, all string) (string, error) {
	if len(privs) == 0 {
		return all, nil
	}
	var out []byte
	for _, n := range privs {
		p := n.GetAccessPriv()
		if p == nil {
			continue
		}
		if p.PrivName == "" { // ALL with a column list
			return all, nil
		}
		if len(p.Cols) > 0 {
			continue // column privileges are not recorded yet: nothing is granted
		}
		c, ok := privilegeLetters[strings.ToLower(p.PrivName)]
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

// grantees resolves GRANT's grantees: "" for PUBLIC.
func grantees(s planningSession, specs []*pg.Node, roles map[string]*versioning.Role) ([]string, error) {
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
		name := roleSpecName(s, r)
		if roles[name] == nil {
			return nil, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", name)
		}
		out = append(out, name)
	}
	return out, nil
}

// roleSpecName is the role a RoleSpec names, CURRENT_USER and friends
// resolved in the session.
func roleSpecName(s planningSession, r *pg.RoleSpec) string {
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

// changeACL applies a GRANT or REVOKE to one object's ACL, as the current
// role: the owner (or a superuser) grants as the owner; another role
// grants what it holds with grant option, as itself.
func changeACL(au *authority, notice func(error), g *pg.GrantStmt, acl []versioning.ACLItem, owner, kind, name, privs string, grantees []string) ([]versioning.ACLItem, error) {
	grantor := au.role
	switch {
	case au.owns(owner):
		grantor = ownerOf(owner)
	case versioning.ACLHolds(acl, au.holds, privs, true):
		// The grant is the role's that holds the grant option, as
		// PostgreSQL's select_best_grantor picks it: the current role if
		// it does, else the role it inherits them from.
		if !versioning.ACLHolds(acl, map[string]bool{au.role: true}, privs, true) {
			for _, it := range acl {
				if it.Grantee != "" && au.holds[it.Grantee] && versioning.ACLHolds(acl, map[string]bool{it.Grantee: true}, privs, true) {
					grantor = it.Grantee
					break
				}
			}
		}
	default:
		if !versioning.ACLAny(acl, au.holds, versioning.TablePrivileges+versioning.SchemaPrivileges) {
			return nil, permissionDenied(kind, name)
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
			acl = versioning.GrantACL(acl, who, grantor, privs, g.GrantOption)
			continue
		}
		var ok bool
		if acl, ok = versioning.RevokeACL(acl, who, grantor, privs, g.GrantOption, g.Behavior == pg.DropBehavior_DROP_CASCADE); !ok {
			return nil, pgerr.New(pgerr.DependentObjectsStillExist, "dependent privileges exist").WithHint("Use CASCADE to revoke them too.")
		}
	}
	return acl, nil
}

// versionedGrant reports whether a GRANT or REVOKE is of the objects whose
// privileges are recorded (in the root value) and checked: tables, views,
// sequences and schemas (column lists record nothing yet).
func versionedGrant(g *pg.GrantStmt) bool {
	switch g.Objtype {
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_SCHEMA, pg.ObjectType_OBJECT_SEQUENCE:
		return g.Targtype != pg.GrantTargetType_ACL_TARGET_DEFAULTS
	}
	return false
}

// grant runs GRANT and REVOKE on tables, views, sequences and schemas,
// which change their records in the transaction's root.
func (a *analyzer) grant(g *pg.GrantStmt) (utility, error) {
	tag := map[bool]string{true: "GRANT", false: "REVOKE"}[g.IsGrant]
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		au, err := a.authority()
		if err != nil {
			return "", err
		}
		grantees, err := grantees(a.s, g.Grantees, au.roles)
		if err != nil {
			return "", err
		}
		if g.Objtype == pg.ObjectType_OBJECT_SCHEMA {
			return tag, a.grantSchemas(ctx, au, g, grantees)
		}
		onSequences := g.Objtype == pg.ObjectType_OBJECT_SEQUENCE
		// ON [TABLE] names sequences too, which take USAGE.
		kind, all := "table", versioning.TablePrivileges+"U"
		if onSequences {
			kind, all = "sequence", versioning.SequencePrivileges
		}
		privs, err := grantPrivileges(g.Privileges, kind, all)
		if err != nil || privs == "" {
			return tag, err // only column privileges: not recorded yet
		}
		var tables []*versioning.Table
		var seqs []*versioning.Sequence
		var views []*versioning.View
		if g.Targtype == pg.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA {
			for _, n := range g.Objects {
				schema := a.s.ResolveSchemaName(n.GetString_().GetSval())
				if _, ok, err := a.tx.Root.Schema(ctx, schema); err != nil {
					return "", err
				} else if !ok {
					return "", pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", schema)
				}
				if onSequences {
					all, err := a.tx.Root.Sequences(ctx)
					if err != nil {
						return "", err
					}
					for _, sq := range all {
						if sq.Schema == schema {
							seqs = append(seqs, sq)
						}
					}
					continue
				}
				in, err := a.tx.Root.TablesIn(ctx, schema)
				if err != nil {
					return "", err
				}
				tables = append(tables, in...)
			}
		} else {
			for _, n := range g.Objects {
				rv := n.GetRangeVar()
				rel, _, err := a.lookupRelation(ctx, rv.Schemaname, rv.Relname)
				if err != nil {
					return "", err
				}
				switch {
				case rel.kind == relSequence:
					seqs = append(seqs, rel.seq)
				case onSequences && rel.kind != relNone:
					return "", pgerr.New(pgerr.WrongObjectType, "%q is not a sequence", rv.Relname)
				case rel.kind == relTable:
					tables = append(tables, rel.table)
				case rel.kind == relView:
					views = append(views, rel.view)
				default:
					if v, ok, err := a.viewTable(ctx, rv.Schemaname, rv.Relname); err != nil || ok && v != nil {
						continue // a view of the catalog
					}
					return "", withPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", qualified(rv)), rv.Location)
				}
			}
		}
		if len(g.Privileges) == 0 {
			privs = versioning.KeepPrivileges(privs, versioning.TablePrivileges) // ALL, for the tables
		}
		if len(tables)+len(views) > 0 && versioning.KeepPrivileges(privs, versioning.TablePrivileges) != privs {
			return "", pgerr.New(pgerr.InvalidGrantOperation, "invalid privilege type USAGE for table")
		}
		root := a.tx.Root
		for _, t := range tables {
			acl, err := changeACL(au, a.s.Notice, g, tableACL(t), t.Owner, "table", t.Name, privs, grantees)
			if err != nil {
				return "", err
			}
			nt := *t
			nt.ACL = acl
			if root, err = root.PutTable(ctx, &nt); err != nil {
				return "", err
			}
		}
		for _, v := range views {
			acl, err := changeACL(au, a.s.Notice, g, viewACL(v), v.Owner, "view", v.Name, privs, grantees)
			if err != nil {
				return "", err
			}
			nv := *v
			nv.ACL = acl
			if root, err = root.PutView(ctx, &nv); err != nil {
				return "", err
			}
		}
		for _, sq := range seqs {
			// Through ON TABLE: a sequence takes the privileges it has.
			sp := privs
			if !onSequences {
				if len(g.Privileges) == 0 {
					sp = versioning.SequencePrivileges // ALL
				} else if sp = versioning.KeepPrivileges(privs, versioning.SequencePrivileges); sp != privs {
					a.s.Notice(pgerr.NewWarning(pgerr.Warning, "sequence %q only supports USAGE, SELECT, and UPDATE privileges", sq.Name))
				}
				if sp == "" {
					continue
				}
			}
			acl, err := changeACL(au, a.s.Notice, g, sequenceACL(sq), sq.Owner, "sequence", sq.Name, sp, grantees)
			if err != nil {
				return "", err
			}
			ns := *sq
			ns.ACL = acl
			if root, err = root.PutSequence(ctx, &ns); err != nil {
				return "", err
			}
		}
		a.tx.SetRoot(root)
		return tag, nil
	}, nil
}

// grantSchemas runs GRANT and REVOKE ON SCHEMA.
func (a *analyzer) grantSchemas(ctx context.Context, au *authority, g *pg.GrantStmt, grantees []string) error {
	privs, err := grantPrivileges(g.Privileges, "schema", versioning.SchemaPrivileges)
	if err != nil {
		return err
	}
	root := a.tx.Root
	for _, n := range g.Objects {
		name := n.GetString_().GetSval()
		sc, ok, err := root.Schema(ctx, name)
		if err != nil {
			return err
		}
		if !ok {
			return pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", name)
		}
		acl, err := changeACL(au, a.s.Notice, g, schemaACL(sc), schemaOwner(sc), "schema", name, privs, grantees)
		if err != nil {
			return err
		}
		ns := *sc
		ns.ACL = acl
		if root, err = root.PutSchema(ctx, ns); err != nil {
			return err
		}
	}
	a.tx.SetRoot(root)
	return nil
}

// grantRole runs GRANT role TO role and REVOKE role FROM role.
func (s *Session) grantRole(ctx context.Context, g *pg.GrantRoleStmt) (*Result, error) {
	au, err := s.Authority(ctx)
	if err != nil {
		return nil, err
	}
	admin := false
	for _, o := range g.Opt {
		if d := o.GetDefElem(); d != nil && d.Defname == "admin" {
			admin = true
		}
	}
	var notices []error
	err = s.e.updateRoles(ctx, func(roles map[string]*versioning.Role) error {
		notices = notices[:0]
		members, err := grantees(s, g.GranteeRoles, roles)
		if err != nil {
			return err
		}
		for _, n := range g.GrantedRoles {
			name := n.GetAccessPriv().GetPrivName()
			granted := roles[name]
			if granted == nil && catalog.IsPredefinedRole(name) {
				granted = &versioning.Role{Name: name} // the server's, never stored
			}
			if granted == nil {
				return pgerr.New(pgerr.UndefinedObject, "role %q does not exist", name)
			}
			if !au.superuser && (granted.Superuser || !au.createRole && !hasAdmin(roles, au.role, name)) {
				return pgerr.New(pgerr.InsufficientPrivilege, "must have admin option on role %q", name)
			}
			for _, m := range members {
				if m == "" {
					return pgerr.New(pgerr.InvalidGrantOperation, "role \"public\" cannot be granted")
				}
				r := *roles[m]
				r.MemberOf = append([]versioning.RoleGrant(nil), r.MemberOf...)
				at := -1
				for i, mg := range r.MemberOf {
					if mg.Role == name {
						at = i
					}
				}
				if !g.IsGrant {
					if at < 0 {
						notices = append(notices, pgerr.NewWarning(pgerr.SuccessfulCompletion, "role %q has not been granted membership in role %q by role %q", m, name, au.role))
						continue
					}
					if admin { // REVOKE ADMIN OPTION FOR
						r.MemberOf[at].Admin = false
					} else {
						r.MemberOf = append(r.MemberOf[:at], r.MemberOf[at+1:]...)
					}
					roles[m] = &r
					continue
				}
				if m == name || versioning.IsMember(roles, name, m) {
					return pgerr.New(pgerr.InvalidGrantOperation, "role %q is a member of role %q", name, m)
				}
				if at >= 0 {
					if admin && !r.MemberOf[at].Admin {
						r.MemberOf[at].Admin = true
						roles[m] = &r
						continue
					}
					notices = append(notices, pgerr.New(pgerr.SuccessfulCompletion, "role %q is already a member of role %q", m, name))
					continue
				}
				r.MemberOf = append(r.MemberOf, versioning.RoleGrant{Role: name, Grantor: au.role, Admin: admin})
				roles[m] = &r
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, n := range notices {
		s.notice(n)
	}
	return &Result{tag: map[bool]string{true: "GRANT ROLE", false: "REVOKE ROLE"}[g.IsGrant]}, nil
}

// hasAdmin reports whether role holds group WITH ADMIN OPTION.
func hasAdmin(roles map[string]*versioning.Role, role, group string) bool {
	if r := roles[role]; r != nil {
		for _, g := range r.MemberOf {
			if g.Role == group && g.Admin {
				return true
			}
		}
	}
	return false
}

// checkSetRole validates SET ROLE: the role exists, and the session's user
// is a superuser or a member of it.
func (s *Session) checkSetRole(ctx context.Context, role string) error {
	if role == "none" || role == "" {
		return nil
	}
	roles, _, err := s.e.roles.Load(ctx, s.e.st)
	if err != nil {
		return err
	}
	if roles[role] == nil && !catalog.IsPredefinedRole(role) {
		return pgerr.New(pgerr.InvalidParameterValue, "role %q does not exist", role)
	}
	who := s.SessionRole()
	if u := roles[who]; u != nil && u.Superuser || versioning.IsMember(roles, who, role) {
		return nil
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to set role %q", role)
}

// newOwner checks ALTER ... OWNER TO role for an object owned by owner and
// returns the new owner: a superuser may give it to anyone; its owner only
// to a role it is a member of, as PostgreSQL requires.
func (a *analyzer) newOwner(spec *pg.RoleSpec, owner string) (string, error) {
	au, err := a.authority()
	if err != nil {
		return "", err
	}
	name := roleSpecName(a.s, spec)
	if au.roles[name] == nil {
		return "", pgerr.New(pgerr.UndefinedObject, "role %q does not exist", name)
	}
	if au.superuser {
		return name, nil
	}
	if !au.owns(owner) {
		return "", pgerr.New(pgerr.InsufficientPrivilege, "must be owner of the object")
	}
	if !versioning.IsMember(au.roles, au.role, name) {
		return "", pgerr.New(pgerr.InsufficientPrivilege, "must be able to SET ROLE %q", name)
	}
	return name, nil
}

// newObjectOwner is the owner a new object records: the current role, ""
// for the bootstrap superuser (what objects made before owners were
// recorded say, so that their records, and the diffs between branches,
// do not change for a server used only by it).
func newObjectOwner(s planningSession) string {
	if r := s.CurrentRole(); r != bootstrapSuperuser {
		return r
	}
	return ""
}

// hasPrivilege implements has_table_privilege and has_schema_privilege in
// their six forms: (user, object, privileges) with the user by name or
// OID and the object by name or OID, and (object, privileges) for the
// current role. The privileges are a comma-separated list of names, each
// perhaps WITH GRANT OPTION; any one held is enough, as in PostgreSQL.
func hasPrivilege(kind string) sessionFn {
	return func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		snap, err := s.snapshot(env)
		if err != nil {
			return exec.Null, err
		}
		role := s.CurrentRole()
		if len(a) == 3 {
			if a[0].Kind == exec.KindText {
				role = a[0].S
			} else {
				role = roleByOID(snap, uint32(a[0].I))
			}
			a = a[1:]
		}
		roles, _, err := s.e.roles.Load(env.Ctx, s.e.st)
		if err != nil {
			return exec.Null, err
		}
		if roles[role] == nil {
			return exec.Null, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", role)
		}
		var acl []versioning.ACLItem
		var all string
		switch kind {
		case "table":
			var rel catalog.Relation
			var ok bool
			if a[0].Kind == exec.KindText {
				oid, _, found, err := s.ResolveRegclass(env, a[0].S)
				if err != nil {
					return exec.Null, err
				}
				if !found {
					return exec.Null, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", a[0].S)
				}
				rel, ok = snap.RelationByOID(oid)
			} else if rel, ok = snap.RelationByOID(uint32(a[0].I)); !ok {
				return exec.Null, nil // PostgreSQL: NULL for an OID that names nothing
			}
			if !ok || rel.Kind != 'r' || rel.Table == nil {
				return exec.DBool(true), nil // catalogs, views, sequences: not checked yet
			}
			acl, all = tableACL(rel.Table), versioning.TablePrivileges
		case "schema":
			var name string
			if a[0].Kind == exec.KindText {
				name = a[0].S
			} else {
				for _, n := range snap.Namespaces() {
					if n.OID == uint32(a[0].I) {
						name = n.Name
					}
				}
			}
			sc, ok, err := env.Txn.Root.Schema(env.Ctx, name)
			if err != nil {
				return exec.Null, err
			}
			if !ok {
				if name == "pg_catalog" || name == "information_schema" {
					return exec.DBool(true), nil // usable by all
				}
				return exec.Null, pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", name)
			}
			acl, all = schemaACL(sc), versioning.SchemaPrivileges
		}
		au := newAuthority(roles, role, 0)
		if au.superuser {
			return exec.DBool(true), nil
		}
		for _, p := range strings.Split(a[1].S, ",") {
			p = strings.ToLower(strings.TrimSpace(p))
			name, grant := strings.CutSuffix(p, " with grant option")
			c, ok := privilegeLetters[strings.TrimSpace(name)]
			if !ok || strings.IndexByte(all, c) < 0 {
				return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "unrecognized privilege type: %q", strings.TrimSpace(p))
			}
			if versioning.ACLHolds(acl, au.holds, string(c), grant) {
				return exec.DBool(true), nil
			}
		}
		return exec.DBool(false), nil
	}
}

func init() {
	const name, oid, text = exec.OIDName, exec.OIDOid, exec.OIDText
	for _, kind := range []string{"table", "schema"} {
		fn := hasPrivilege(kind)
		for _, args := range [][]uint32{{name, text, text}, {name, oid, text}, {oid, text, text}, {oid, oid, text}, {text, text}, {oid, text}} {
			exec.Register(strict(withSession("has_"+kind+"_privilege", args, exec.OIDBool, fn)))
		}
	}
}

// sequenceACL is a sequence's access control list, its default when none
// was set.
func sequenceACL(seq *versioning.Sequence) []versioning.ACLItem {
	return versioning.DefaultedACL(seq.ACL, ownerOf(seq.Owner), versioning.SequencePrivileges)
}

// requireSequence checks that the current role holds any one of privs on
// seq (nextval: USAGE or UPDATE; currval and lastval: SELECT or USAGE;
// setval: UPDATE), as PostgreSQL's sequence functions check.
func (s *Session) requireSequence(ctx context.Context, seq *versioning.Sequence, privs string) error {
	au, err := s.Authority(ctx)
	if err != nil || au.superuser {
		return err
	}
	if versioning.ACLAny(sequenceACL(seq), au.holds, privs) {
		return nil
	}
	return permissionDenied("sequence", seq.Name)
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
	_, ws, err := a.s.Repo().WorkingSet(a.ctx, versioning.DefaultBranch)
	if err != nil {
		return nil, nil // no default branch: the revision's own privileges
	}
	root, err := versioning.LoadRootValue(a.ctx, a.s.Repo().Store(), ws.Working)
	if err != nil {
		return nil, err
	}
	t, ok, err := root.Table(a.ctx, schema, name)
	if err != nil || !ok {
		return nil, err
	}
	return t, nil
}
