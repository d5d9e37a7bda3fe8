package session

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v5"
	"go.uber.org/zap"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Roles: CREATE/ALTER/DROP ROLE (and USER), with passwords kept as SCRAM
// verifiers; memberships (GRANT role TO role); the privilege functions
// (has_*_privilege, pg_has_role).

// Password returns the SCRAM verifier of user's password, for the wire's
// authentication; "" when the role has none.
func (e *Engine) Password(ctx context.Context, user string) (string, bool, error) {
	roles, _, err := versioning.LoadRoles(ctx, e.st)
	if err != nil {
		return "", false, err
	}
	r, ok := roles[user]
	if !ok || !r.Login {
		return "", false, nil
	}
	if r.PasswordExpired(time.Now()) {
		// As PostgreSQL: the client is told only that authentication
		// failed; the log says why.
		e.log.Info("password of role has expired (VALID UNTIL)", zap.String("role", user))
		return "", false, nil
	}
	return r.Verifier, true, nil
}

// checkConnectionLimit refuses a new session of user beyond its role's
// CONNECTION LIMIT (53300), counting the sessions open now; superusers
// are not limited, as in PostgreSQL.
func (e *Engine) checkConnectionLimit(ctx context.Context, user string) error {
	roles, _, err := versioning.LoadRoles(ctx, e.st)
	if err != nil {
		return err
	}
	r, ok := roles[user]
	if !ok || r.ConnLimit == nil || r.Superuser {
		return nil
	}
	if e.live.ofUser(user) >= int(*r.ConnLimit) {
		return pgerr.New(pgerr.TooManyConnections, "too many connections for role %q", user)
	}
	return nil
}

// SetPassword sets a role's password, creating the role as a login
// superuser if it does not exist (the first user of a new server).
func (e *Engine) SetPassword(ctx context.Context, user, password string) error {
	v, err := e.hashPassword(password)
	if err != nil {
		return err
	}
	return e.updateRoles(ctx, func(roles map[string]*sqldef.Role) error {
		r, ok := roles[user]
		if !ok {
			r = &sqldef.Role{Name: user, Superuser: true, Login: true}
			roles[user] = r
		}
		r.Verifier = v
		return nil
	})
}

func (e *Engine) hashPassword(p string) (string, error) {
	if e.HashPassword == nil {
		return "", pgerr.New(pgerr.FeatureNotSupported, "passwords are not supported by this server")
	}
	return e.HashPassword(p)
}

// bootstrapRoles makes the superuser postgres on a server without roles.
func (e *Engine) bootstrapRoles(ctx context.Context) error {
	return e.updateRoles(ctx, func(roles map[string]*sqldef.Role) error {
		if len(roles) == 0 {
			roles["postgres"] = &sqldef.Role{Name: "postgres", Superuser: true, Login: true, CreateDB: true}
		}
		return nil
	})
}

// roleOptions applies CREATE/ALTER ROLE options to r.
func (s *Session) roleOptions(r *sqldef.Role, opts []*pg.Node) error {
	for _, o := range opts {
		d := o.GetDefElem()
		on := true
		if d.Arg != nil {
			switch {
			case d.Arg.GetBoolean() != nil:
				on = d.Arg.GetBoolean().Boolval
			case d.Arg.GetInteger() != nil:
				on = d.Arg.GetInteger().Ival != 0
			}
		}
		switch d.Defname {
		case "superuser":
			r.Superuser = on
		case "canlogin":
			r.Login = on
		case "createdb":
			r.CreateDB = on
		case "createrole":
			r.CreateRole = on
		case "isreplication":
			r.Replication = on
		case "inherit":
			r.NoInherit = !on
		case "bypassrls":
			r.BypassRLS = on
		case "validUntil":
			v, err := types.ParseTimestampTZ(d.Arg.GetString_().GetSval(), -1, s.settings())
			if err != nil {
				return err
			}
			us := int64(v)
			r.ValidUntil = &us
		case "connectionlimit":
			n := d.Arg.GetInteger().GetIval()
			if n < -1 {
				return pgerr.New(pgerr.InvalidParameterValue, "invalid connection limit: %d", n)
			}
			r.ConnLimit = nil
			if n >= 0 {
				r.ConnLimit = &n
			}
		case "password":
			if d.Arg == nil || d.Arg.GetString_() == nil {
				r.Verifier = "" // PASSWORD NULL
				continue
			}
			v, err := s.e.hashPassword(d.Arg.GetString_().Sval)
			if err != nil {
				return err
			}
			r.Verifier = v
		}
	}
	return nil
}

func (s *Session) createRole(ctx context.Context, c *pg.CreateRoleStmt) (*Result, error) {
	r := &sqldef.Role{Name: c.Role, Login: c.StmtType == pg.RoleStmtType_ROLESTMT_USER}
	if err := s.roleOptions(r, c.Options); err != nil {
		return nil, err
	}
	au, err := s.Authority(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case r.Superuser && !au.Superuser:
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to create superusers")
	case r.BypassRLS && !au.Superuser:
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to create bypassrls users")
	case r.Replication && !au.Superuser:
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to create replication users")
	case !au.CreateRole:
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "permission denied to create role")
	}
	err = s.updateRoles(ctx, func(roles map[string]*sqldef.Role) error {
		if _, ok := roles[c.Role]; ok {
			return pgerr.New(pgerr.DuplicateObject, "role %q already exists", c.Role)
		}
		roles[c.Role] = r
		// IN ROLE makes the new role a member of those; ROLE (USER)
		// and ADMIN make those members of it.
		for _, o := range c.Options {
			d := o.GetDefElem()
			for _, n := range d.Arg.GetList().GetItems() {
				other := planner.RoleSpecName(s, n.GetRoleSpec())
				var err error
				switch d.Defname {
				case "addroleto":
					err = s.addMember(roles, au, c.Role, other, false)
				case "rolemembers", "adminmembers":
					err = s.addMember(roles, au, other, c.Role, d.Defname == "adminmembers")
				}
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Result{tag: "CREATE ROLE"}, nil
}

// addMember makes stored role member a member of group (with admin, WITH
// ADMIN OPTION), granted by the current role; a membership it has is left
// with a notice, as PostgreSQL's.
func (s *Session) addMember(roles map[string]*sqldef.Role, au *planner.Authority, member, group string, admin bool) error {
	m, g := roles[member], roles[group]
	switch {
	case m == nil && !catalog.IsPredefinedRole(member):
		return pgerr.New(pgerr.UndefinedObject, "role %q does not exist", member)
	case g == nil && !catalog.IsPredefinedRole(group):
		return pgerr.New(pgerr.UndefinedObject, "role %q does not exist", group)
	case m == nil:
		return pgerr.New(pgerr.FeatureNotSupported, "predefined role %q cannot be made a member of another role", member)
	case member == group || sqldef.IsMember(roles, group, member):
		return pgerr.New(pgerr.InvalidGrantOperation, "role %q is a member of role %q", group, member)
	}
	for i, mg := range m.MemberOf {
		if mg.Role == group {
			if admin && !mg.Admin {
				nm := *m
				nm.MemberOf = slices.Clone(m.MemberOf)
				nm.MemberOf[i].Admin = true
				roles[member] = &nm
				return nil
			}
			s.notice(pgerr.New(pgerr.SuccessfulCompletion, "role %q is already a member of role %q", member, group))
			return nil
		}
	}
	nm := *m
	nm.MemberOf = append(slices.Clone(m.MemberOf), sqldef.RoleGrant{Role: group, Grantor: au.Role, Admin: admin})
	roles[member] = &nm
	return nil
}

// dropMember ends stored role member's membership of group (ALTER GROUP
// ... DROP USER), with PostgreSQL's warning when it had none.
func (s *Session) dropMember(roles map[string]*sqldef.Role, member, group string) error {
	m := roles[member]
	if m == nil {
		return pgerr.New(pgerr.UndefinedObject, "role %q does not exist", member)
	}
	i := slices.IndexFunc(m.MemberOf, func(g sqldef.RoleGrant) bool { return g.Role == group })
	if i < 0 {
		s.notice(pgerr.NewWarning(pgerr.SuccessfulCompletion, "role %q is not a member of role %q", member, group))
		return nil
	}
	nm := *m
	nm.MemberOf = slices.Delete(slices.Clone(m.MemberOf), i, i+1)
	roles[member] = &nm
	return nil
}

func (s *Session) alterRole(ctx context.Context, a *pg.AlterRoleStmt) (*Result, error) {
	name := planner.RoleSpecName(s, a.Role)
	au, err := s.Authority(ctx)
	if err != nil {
		return nil, err
	}
	err = s.updateRoles(ctx, func(roles map[string]*sqldef.Role) error {
		r, ok := roles[name]
		if !ok {
			return pgerr.New(pgerr.UndefinedObject, "role %q does not exist", name)
		}
		was := *r
		if err := s.roleOptions(r, a.Options); err != nil {
			return err
		}
		// ALTER GROUP ... ADD USER | DROP USER.
		for _, o := range a.Options {
			if d := o.GetDefElem(); d.Defname == "rolemembers" {
				if !au.Superuser && !au.CreateRole && !planner.HasAdmin(roles, au.Role, name) {
					return pgerr.New(pgerr.InsufficientPrivilege, "must have admin option on role %q", name)
				}
				for _, n := range d.Arg.GetList().GetItems() {
					member := planner.RoleSpecName(s, n.GetRoleSpec())
					var err error
					if a.Action > 0 {
						err = s.addMember(roles, au, member, name, false)
					} else {
						err = s.dropMember(roles, member, name)
					}
					if err != nil {
						return err
					}
				}
			}
		}
		if au.Superuser {
			return nil
		}
		if was.Superuser || r.Superuser {
			return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to alter superuser roles or change superuser attribute")
		}
		if was.BypassRLS != r.BypassRLS {
			return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to change bypassrls attribute")
		}
		if was.Replication || r.Replication {
			return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to alter replication roles or change replication attribute")
		}
		// A role may change its own password; the rest needs CREATEROLE.
		was.Verifier = r.Verifier
		if !au.CreateRole && (name != au.Role || !reflect.DeepEqual(&was, r)) {
			return pgerr.New(pgerr.InsufficientPrivilege, "permission denied")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Result{tag: "ALTER ROLE"}, nil
}

func (s *Session) dropRole(ctx context.Context, d *pg.DropRoleStmt) (*Result, error) {
	var skipped []string
	au, err := s.Authority(ctx)
	if err != nil {
		return nil, err
	}
	if !au.CreateRole {
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "permission denied to drop role")
	}
	// What the database holds of a role keeps it, as PostgreSQL's shared
	// dependencies do: its objects, its privileges, its policies.
	for _, n := range d.Roles {
		name := planner.RoleSpecName(s, n.GetRoleSpec())
		deps, err := s.roleDependents(ctx, name)
		if err != nil {
			return nil, err
		}
		if deps != "" {
			return nil, pgerr.New(pgerr.DependentObjectsStillExist, "role %q cannot be dropped because some objects depend on it", name).
				WithDetail("%s", deps)
		}
	}
	err = s.updateRoles(ctx, func(roles map[string]*sqldef.Role) error {
		skipped = skipped[:0]
		for _, n := range d.Roles {
			name := planner.RoleSpecName(s, n.GetRoleSpec())
			if _, ok := roles[name]; !ok {
				if d.MissingOk {
					skipped = append(skipped, name)
					continue
				}
				return pgerr.New(pgerr.UndefinedObject, "role %q does not exist", name)
			}
			if name == s.user {
				return pgerr.New(pgerr.ObjectInUse, "current user cannot be dropped")
			}
			if roles[name].Superuser && !au.Superuser {
				return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to drop superusers")
			}
			delete(roles, name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, name := range skipped {
		s.notice(pgerr.New(pgerr.SuccessfulCompletion, "role %q does not exist, skipping", name))
	}
	return &Result{tag: "DROP ROLE"}, nil
}

// loadRoles returns the roles as the session's transaction sees them: the
// server's, with the changes of its open transaction block applied. The
// map is shared: callers must not change it.
func (s *Session) loadRoles(ctx context.Context) (map[string]*sqldef.Role, error) {
	if s.rolesView != nil {
		return s.rolesView, nil
	}
	roles, _, err := s.e.roles.Load(ctx, s.e.st)
	return roles, err
}

// updateRoles changes the roles: at once outside a transaction block;
// in one, for the transaction alone until its COMMIT (endRoles), when fn
// runs again on the roles as they are then, as PostgreSQL's role changes
// are transactional. fn runs on the transaction's view first, so that its
// error is the statement's.
func (s *Session) updateRoles(ctx context.Context, fn func(map[string]*sqldef.Role) error) error {
	if !s.explicit {
		return s.e.updateRoles(ctx, fn)
	}
	view, _, err := versioning.LoadRoles(ctx, s.e.st) // decoded anew: fn may change it
	if err != nil {
		return err
	}
	for _, f := range append(s.rolesTxn, fn) {
		if err := f(view); err != nil {
			return err
		}
	}
	s.rolesTxn = append(s.rolesTxn, fn)
	s.rolesView = view
	s.auth = nil
	s.InvalidatePlans() // plans checked with the roles before
	return nil
}

// rolesRollbackTo undoes the transaction's role changes after the first n
// (ROLLBACK TO SAVEPOINT).
func (s *Session) rolesRollbackTo(ctx context.Context, n int) error {
	if n >= len(s.rolesTxn) {
		return nil
	}
	kept := s.rolesTxn[:n]
	s.rolesTxn, s.rolesView = nil, nil
	s.auth = nil
	s.InvalidatePlans()
	if len(kept) == 0 {
		return nil
	}
	view, _, err := versioning.LoadRoles(ctx, s.e.st)
	if err != nil {
		return err
	}
	for _, f := range kept {
		if err := f(view); err != nil {
			return err
		}
	}
	s.rolesTxn, s.rolesView = kept, view
	return nil
}

// endRoles saves the role changes of the transaction ending when it
// commits, and forgets them either way.
func (s *Session) endRoles(ctx context.Context, commit bool) error {
	pending := s.rolesTxn
	s.rolesTxn, s.rolesView = nil, nil
	if len(pending) == 0 {
		return nil
	}
	s.auth = nil
	s.InvalidatePlans()
	if !commit {
		return nil
	}
	return s.e.updateRoles(ctx, func(roles map[string]*sqldef.Role) error {
		for _, fn := range pending {
			if err := fn(roles); err != nil {
				return err
			}
		}
		return nil
	})
}

// updateRoles is versioning.UpdateRoles, counted in rolesGen.
func (e *Engine) updateRoles(ctx context.Context, fn func(map[string]*sqldef.Role) error) error {
	defer e.rolesGen.Add(1) // also after a failure: the roles may have changed
	return versioning.UpdateRoles(ctx, e.st, fn)
}

// CurrentRole is current_user: the role SET ROLE chose, else the
// session's (sessionRole).
func (s *Session) CurrentRole() string {
	if n := len(s.definers); n > 0 {
		return s.definers[n-1]
	}
	if r := s.vars["role"]; r != "" && r != "none" {
		return r
	}
	return s.SessionRole()
}

// RunAs makes role current_user until restore is called, as PostgreSQL
// switches to a SECURITY DEFINER function's owner for its call.
func (s *Session) RunAs(role string) (restore func()) {
	s.definers = append(s.definers, role)
	n := len(s.definers)
	return func() { s.definers = s.definers[:n-1] }
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
	roles, err := s.loadRoles(ctx)
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
func (s *Session) Authority(ctx context.Context) (*planner.Authority, error) {
	version, role := s.e.rolesGen.Load(), s.CurrentRole()
	if au := s.auth; au != nil && au.Version == version && au.Role == role {
		return au, nil // the common case: no store access, no lock
	}
	roles, err := s.loadRoles(ctx)
	if err != nil {
		return nil, err
	}
	au := planner.NewAuthority(roles, role, version)
	if err := s.databaseOwnerHeld(ctx, au); err != nil {
		return nil, err
	}
	s.auth = au
	return au, nil
}

// authHolds reports whether the authority a plan was checked with is
// still the current role's.
func (s *Session) authHolds(k planner.AuthKey) bool {
	return k.Version == s.e.rolesGen.Load() && k.Role == s.CurrentRole() && k.NoRowSecurity == planner.RowSecurityOff(s.Var("row_security"))
}

// AuthorityOf is the authority of role, for checks made as another role
// than the current one (a view's owner).
func (s *Session) AuthorityOf(ctx context.Context, role string) (*planner.Authority, error) {
	roles, err := s.loadRoles(ctx)
	if err != nil {
		return nil, err
	}
	au := planner.NewAuthority(roles, role, s.e.rolesGen.Load())
	return au, s.databaseOwnerHeld(ctx, au)
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
	err = s.updateRoles(ctx, func(roles map[string]*sqldef.Role) error {
		notices = notices[:0]
		members, err := planner.Grantees(s, g.GranteeRoles, roles)
		if err != nil {
			return err
		}
		for _, n := range g.GrantedRoles {
			name := n.GetAccessPriv().GetPrivName()
			granted := roles[name]
			if granted == nil && catalog.IsPredefinedRole(name) {
				granted = &sqldef.Role{Name: name} // the server's, never stored
			}
			if granted == nil {
				return pgerr.New(pgerr.UndefinedObject, "role %q does not exist", name)
			}
			if name == "pg_database_owner" {
				// Its one member is the database's owner, implicitly.
				return pgerr.New(pgerr.InvalidGrantOperation, "role %q cannot have explicit members", name)
			}
			if !au.Superuser && (granted.Superuser || !au.CreateRole && !planner.HasAdmin(roles, au.Role, name)) {
				return pgerr.New(pgerr.InsufficientPrivilege, "must have admin option on role %q", name)
			}
			for _, m := range members {
				if m == "" {
					return pgerr.New(pgerr.InvalidGrantOperation, "role \"public\" cannot be granted")
				}
				if m == "pg_database_owner" {
					return pgerr.New(pgerr.InvalidGrantOperation, "role %q cannot be a member of any role", m)
				}
				if roles[m] == nil {
					// The predefined roles are the server's, not stored:
					// they have no memberships of their own here.
					return pgerr.New(pgerr.FeatureNotSupported, "predefined role %q cannot be made a member of another role", m)
				}
				r := *roles[m]
				r.MemberOf = append([]sqldef.RoleGrant(nil), r.MemberOf...)
				at := -1
				for i, mg := range r.MemberOf {
					if mg.Role == name {
						at = i
					}
				}
				if !g.IsGrant {
					if at < 0 {
						notices = append(notices, pgerr.NewWarning(pgerr.SuccessfulCompletion, "role %q has not been granted membership in role %q by role %q", m, name, au.Role))
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
				if m == name || sqldef.IsMember(roles, name, m) {
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
				r.MemberOf = append(r.MemberOf, sqldef.RoleGrant{Role: name, Grantor: au.Role, Admin: admin})
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

// checkSetRole validates SET ROLE: the role exists, and the session's user
// is a superuser or a member of it.
func (s *Session) checkSetRole(ctx context.Context, role string) error {
	if len(s.definers) > 0 {
		return pgerr.New(pgerr.InsufficientPrivilege, "cannot set parameter \"role\" within security-definer function")
	}
	if role == "none" || role == "" {
		return nil
	}
	roles, err := s.loadRoles(ctx)
	if err != nil {
		return err
	}
	if roles[role] == nil && !catalog.IsPredefinedRole(role) {
		return pgerr.New(pgerr.InvalidParameterValue, "role %q does not exist", role)
	}
	who := s.SessionRole()
	if u := roles[who]; u != nil && u.Superuser || sqldef.IsMember(roles, who, role) {
		return nil
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to set role %q", role)
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
		role, byOID := s.CurrentRole(), false
		if len(a) == 3 {
			if a[0].Kind == exec.KindText {
				role = a[0].S
			} else {
				role, byOID = roleByOID(snap, uint32(a[0].I)), true
			}
			a = a[1:]
		}
		roles, err := s.loadRoles(env.Ctx)
		if err != nil {
			return exec.Null, err
		}
		if roles[role] == nil && !byOID {
			// A role named by an OID that is none holds only PUBLIC's.
			return exec.Null, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", role)
		}
		var acl []sqldef.ACLItem
		var all, owner string
		switch kind {
		case "table":
			rel, ok, err := s.relationArg(env, snap, a[0])
			if err != nil || !ok && a[0].Kind != exec.KindText {
				return exec.Null, err // PostgreSQL: NULL for an OID that names nothing
			}
			all = sqldef.TablePrivileges
			switch {
			case ok && rel.Kind == 'S' && rel.Seq != nil:
				// Through has_table_privilege a sequence answers for the
				// privileges it has.
				acl, owner = planner.SequenceACL(rel.Seq), rel.Seq.Owner
			case !ok:
				return exec.DBool(true), nil
			case rel.Kind == 'r' && rel.Table != nil:
				acl, owner = planner.TableACL(rel.Table), rel.Table.Owner
			case rel.Kind == 'v' && rel.Query != nil:
				acl, owner = planner.ViewACL(rel.Query), rel.Query.Owner
			default:
				acl = planner.CatalogACL(rel.Name)
			}
		case "sequence":
			rel, ok, err := s.relationArg(env, snap, a[0])
			if err != nil || !ok && a[0].Kind != exec.KindText {
				return exec.Null, err
			}
			if !ok || rel.Kind != 'S' || rel.Seq == nil {
				return exec.Null, pgerr.New(pgerr.WrongObjectType, "%q is not a sequence", rel.Name)
			}
			acl, all, owner = planner.SequenceACL(rel.Seq), sqldef.SequencePrivileges, rel.Seq.Owner
		case "function":
			f, err := s.functionArg(env, a[0])
			if err != nil {
				return exec.Null, err
			}
			all = sqldef.FunctionPrivileges
			if f == nil {
				// A built-in function: PUBLIC may call it.
				acl = sqldef.DefaultACL(planner.BootstrapSuperuser, all, all)
			} else {
				acl, owner = planner.FunctionACL(f), f.Owner
			}
		case "database":
			name := a[0].S
			if a[0].Kind != exec.KindText {
				name = ""
				for _, db := range snap.Src.Databases {
					if catalog.DatabaseOID(db) == uint32(a[0].I) {
						name = db
					}
				}
				if name == "" {
					return exec.Null, nil
				}
			}
			if err := s.e.requireDatabase(env.Ctx, name); err != nil {
				return exec.Null, err
			}
			d, err := s.e.databaseInfo(env.Ctx, name)
			if err != nil {
				return exec.Null, err
			}
			acl, all, owner = DatabaseACL(d), sqldef.DatabasePrivileges, d.Owner
		case "type":
			ut, err := s.typeArg(env, a[0])
			if err != nil {
				return exec.Null, err
			}
			all = sqldef.TypePrivileges
			if ut == nil {
				acl = sqldef.DefaultACL(planner.BootstrapSuperuser, all, all) // a built-in type
			} else {
				acl, owner = planner.TypeACL(ut), ut.Owner
			}
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
			sc, ok, err := env.Txn.Root().Schema(env.Ctx, name)
			if err != nil {
				return exec.Null, err
			}
			if !ok {
				if name == "pg_catalog" || name == "information_schema" {
					return exec.DBool(true), nil // usable by all
				}
				return exec.Null, pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", name)
			}
			acl, all, owner = planner.SchemaACL(sc), sqldef.SchemaPrivileges, planner.SchemaOwner(sc)
		}
		au := planner.NewAuthority(roles, role, 0)
		held, asked := false, false
		for _, given := range strings.Split(a[1].S, ",") {
			given = strings.TrimSpace(given) // the error quotes it as given
			p := strings.ToLower(given)
			name, grant := strings.CutSuffix(p, " with grant option")
			name = strings.TrimSpace(name)
			if kind == "table" && name == "rule" {
				continue // RULE is accepted and held by no one, as in PostgreSQL
			}
			c, ok := planner.PrivilegeLetters[name]
			if !ok || strings.IndexByte(all, c) < 0 {
				return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "unrecognized privilege type: %q", given)
			}
			asked = true
			// An owner may grant whatever it holds, as PostgreSQL's
			// aclmask gives it every grant option.
			if sqldef.ACLHolds(acl, au.Holds, string(c), grant && !(owner != "" && au.Owns(owner))) {
				held = true
			}
		}
		return exec.DBool(held || au.Superuser && asked), nil
	}
}

func init() {
	const name, oid, text = exec.OIDName, exec.OIDOid, exec.OIDText
	for _, args := range [][]uint32{{name, name, text}, {name, oid, text}, {oid, name, text}, {oid, oid, text}, {name, text}, {oid, text}} {
		exec.Register(strict(withSession("pg_has_role", args, exec.OIDBool, pgHasRole)))
	}
	for _, kind := range []string{"table", "schema", "sequence", "function", "type", "database"} {
		fn := hasPrivilege(kind)
		for _, args := range [][]uint32{{name, text, text}, {name, oid, text}, {oid, text, text}, {oid, oid, text}, {text, text}, {oid, text}} {
			exec.Register(strict(withSession("has_"+kind+"_privilege", args, exec.OIDBool, fn)))
		}
	}
}

// relationArg is the relation a privilege function's argument names, by
// name or OID; ok is false when none has it.
func (s *Session) relationArg(env *exec.Env, snap *catalog.Snapshot, d exec.Datum) (rel catalog.Relation, ok bool, err error) {
	if d.Kind != exec.KindText {
		rel, ok = snap.RelationByOID(uint32(d.I))
		return rel, ok, nil
	}
	oid, _, found, err := s.ResolveRegclass(env, d.S)
	if err != nil {
		return rel, false, err
	}
	if !found {
		return rel, false, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", d.S)
	}
	rel, ok = snap.RelationByOID(oid)
	return rel, ok, nil
}

// pgHasRole is pg_has_role([user,] role, privileges): USAGE (the user has
// the role's privileges: a member through roles that inherit), MEMBER (a
// member at all, what SET ROLE needs), and either WITH ADMIN OPTION (it
// may grant the role). Any one listed is enough. Superusers hold every
// role; pg_database_owner's one member is the database's owner, the
// bootstrap superuser here.
func pgHasRole(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	snap, err := s.snapshot(env)
	if err != nil {
		return exec.Null, err
	}
	name := func(d exec.Datum) string {
		if d.Kind == exec.KindText {
			return d.S
		}
		return roleByOID(snap, uint32(d.I))
	}
	user := s.CurrentRole()
	if len(a) == 3 {
		user, a = name(a[0]), a[1:]
	}
	role := name(a[0])
	roles, err := s.loadRoles(env.Ctx)
	if err != nil {
		return exec.Null, err
	}
	for _, r := range []string{user, role} {
		if !planner.RoleExists(roles, r) && r != planner.BootstrapSuperuser {
			return exec.Null, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", r)
		}
	}
	au := planner.NewAuthority(roles, user, 0)
	if au.Superuser || user == planner.BootstrapSuperuser {
		return exec.DBool(true), nil
	}
	if err := s.databaseOwnerHeld(env.Ctx, au); err != nil {
		return exec.Null, err
	}
	member := func() bool { return user == role || sqldef.IsMember(roles, user, role) }
	if role == "pg_database_owner" {
		// Its one member is the database's owner.
		d, err := s.databaseInfo(env.Ctx, s.repo.Name())
		if err != nil {
			return exec.Null, err
		}
		owner := planner.OwnerOf(d.Owner)
		member = func() bool { return user == owner || sqldef.IsMember(roles, user, owner) }
	}
	held := false
	for _, given := range strings.Split(a[1].S, ",") {
		p := strings.ToLower(strings.TrimSpace(given))
		switch p {
		case "usage":
			held = held || au.Holds[role]
		case "member":
			held = held || member()
		case "usage with grant option", "usage with admin option", "member with grant option", "member with admin option":
			for r := range au.Holds {
				held = held || planner.HasAdmin(roles, r, role)
			}
		default:
			return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "unrecognized privilege type: %q", strings.TrimSpace(given))
		}
	}
	return exec.DBool(held), nil
}

// functionArg is the function a privilege function's argument names, by
// signature or OID: nil for a built-in one.
func (s *Session) functionArg(env *exec.Env, d exec.Datum) (*sqldef.Function, error) {
	if d.Kind == exec.KindText {
		f, ok, err := s.functionBySignature(env, d.S)
		if err != nil || ok {
			return f, err
		}
		if name, _, _ := strings.Cut(d.S, "("); exec.HasFunc(strings.TrimSpace(name)) {
			return nil, nil
		}
		return nil, pgerr.New(pgerr.UndefinedFunction, "function %q does not exist", d.S)
	}
	snap, err := s.snapshot(env)
	if err != nil {
		return nil, err
	}
	f, _ := snap.FunctionByOID(uint32(d.I))
	return f, nil
}

// typeArg is the user type a privilege function's argument names, by
// name or OID (an array type stands for its element type): nil for a
// built-in one.
func (s *Session) typeArg(env *exec.Env, d exec.Datum) (*sqldef.Type, error) {
	oid := uint32(d.I)
	if d.Kind == exec.KindText {
		r, err := s.RegIn(env, exec.OIDRegtype, d.S)
		if err != nil {
			return nil, err
		}
		oid = uint32(r.I)
	}
	if e := exec.ElemType(exec.T{OID: oid}); e.OID != 0 {
		oid = e.OID
	}
	snap, err := s.snapshot(env)
	if err != nil {
		return nil, err
	}
	t, _ := snap.TypeByOID(oid)
	return t, nil
}

// requireSequence checks that the current role holds any one of privs on
// seq (nextval: USAGE or UPDATE; currval and lastval: SELECT or USAGE;
// setval: UPDATE), as PostgreSQL's sequence functions check.
func (s *Session) requireSequence(ctx context.Context, seq *sqldef.Sequence, privs string) error {
	au, err := s.Authority(ctx)
	if err != nil || au.Superuser {
		return err
	}
	if sqldef.ACLAny(planner.SequenceACL(seq), au.Holds, privs) {
		return nil
	}
	return planner.PermissionDenied("sequence", seq.Name)
}

// rowSecurityActive is row_security_active(table): whether row-level
// security applies to the table for the current role, by name or OID.
func rowSecurityActive(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	snap, err := s.snapshot(env)
	if err != nil {
		return exec.Null, err
	}
	oid := uint32(a[0].I)
	if a[0].Kind == exec.KindText {
		var found bool
		if oid, _, found, err = s.ResolveRegclass(env, a[0].S); err != nil {
			return exec.Null, err
		}
		if !found {
			return exec.Null, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", a[0].S)
		}
	}
	rel, ok := snap.RelationByOID(oid)
	if !ok || rel.Kind != 'r' || rel.Table == nil {
		return exec.DBool(false), nil
	}
	au, err := s.Authority(env.Ctx)
	if err != nil {
		return exec.Null, err
	}
	return exec.DBool(planner.RowSecurityActive(rel.Table, au)), nil
}

func init() {
	registerStrict("row_security_active", []uint32{exec.OIDOid}, exec.OIDBool, rowSecurityActive)
	registerStrict("row_security_active", []uint32{exec.OIDText}, exec.OIDBool, rowSecurityActive)
}

// hasColumnPrivilege implements has_column_privilege and, with any,
// has_any_column_privilege, in all their forms: an optional user (name
// or OID), the table (name or OID), for the first the column (name or
// number), and the privileges. A privilege on the table is one on every
// column; a column holds its own besides.
func hasColumnPrivilege(any bool) sessionFn {
	return func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		snap, err := s.snapshot(env)
		if err != nil {
			return exec.Null, err
		}
		want := 3
		if any {
			want = 2
		}
		role := s.CurrentRole()
		if len(a) > want {
			if a[0].Kind == exec.KindText {
				role = a[0].S
			} else {
				role = roleByOID(snap, uint32(a[0].I))
			}
			a = a[1:]
		}
		roles, err := s.loadRoles(env.Ctx)
		if err != nil {
			return exec.Null, err
		}
		if roles[role] == nil {
			return exec.Null, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", role)
		}
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
			return exec.Null, nil
		}
		privs := a[len(a)-1].S
		var letters []string
		for _, given := range strings.Split(privs, ",") {
			given = strings.TrimSpace(given) // the error quotes it as given
			p := strings.ToLower(given)
			name, grant := strings.CutSuffix(p, " with grant option")
			c, ok := planner.PrivilegeLetters[strings.TrimSpace(name)]
			if !ok || strings.IndexByte("arwx", c) < 0 {
				return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "unrecognized privilege type: %q", given)
			}
			l := string(c)
			if grant {
				l += "*"
			}
			letters = append(letters, l)
		}
		if ok && rel.View != nil && !any {
			// A catalog: its columns exist for everyone to read.
			if a[1].Kind == exec.KindText {
				if !slices.ContainsFunc(rel.View.Cols, func(c exec.VirtualColumn) bool { return c.Name == a[1].S }) {
					return exec.Null, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", a[1].S, rel.Name)
				}
			} else if n := int(a[1].I); n <= 0 || n > len(rel.View.Cols) {
				return exec.Null, nil
			}
		}
		if !ok || rel.Kind != 'r' || rel.Table == nil {
			return exec.DBool(true), nil // catalogs, views: not checked
		}
		def := rel.Table
		cols := []int{}
		if any {
			for pos, c := range def.Columns {
				if !c.Dropped {
					cols = append(cols, pos)
				}
			}
		} else {
			pos := -1
			if a[1].Kind == exec.KindText {
				for i, c := range def.Columns {
					if !c.Dropped && c.Name == a[1].S {
						pos = i
					}
				}
				if pos < 0 {
					if slices.ContainsFunc(def.Columns, func(c sqldef.Column) bool { return c.Dropped && c.Name == a[1].S }) {
						return exec.Null, nil // a dropped column, by the name it has now
					}
					return exec.Null, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", a[1].S, def.Name)
				}
			} else {
				n := int(a[1].I)
				if n <= 0 || n > len(def.Columns) || def.Columns[n-1].Dropped {
					return exec.Null, nil
				}
				pos = n - 1
			}
			cols = append(cols, pos)
		}
		au := planner.NewAuthority(roles, role, 0)
		if au.Superuser {
			return exec.DBool(true), nil
		}
		tacl := planner.TableACL(def)
		for _, l := range letters {
			grant := len(l) > 1
			if sqldef.ACLHolds(tacl, au.Holds, l[:1], grant) {
				return exec.DBool(true), nil
			}
			for _, pos := range cols {
				if sqldef.ACLHolds(def.Columns[pos].ACL, au.Holds, l[:1], grant) {
					return exec.DBool(true), nil
				}
			}
		}
		return exec.DBool(false), nil
	}
}

func init() {
	const name, oid, text, int2 = exec.OIDName, exec.OIDOid, exec.OIDText, exec.OIDInt2
	col := hasColumnPrivilege(false)
	for _, user := range [][]uint32{{name}, {oid}, nil} {
		for _, table := range []uint32{text, oid} {
			for _, column := range []uint32{text, int2} {
				args := append(append(slices.Clone(user), table, column), text)
				registerStrict("has_column_privilege", args, exec.OIDBool, col)
			}
		}
	}
	anyCol := hasColumnPrivilege(true)
	for _, user := range [][]uint32{{name}, {oid}, nil} {
		for _, table := range []uint32{text, oid} {
			args := append(append(slices.Clone(user), table), text)
			registerStrict("has_any_column_privilege", args, exec.OIDBool, anyCol)
		}
	}
}

// roleDependents describes what in the session's database depends on
// role, as DROP ROLE's detail lists it: the objects it owns, the
// privileges granted to or by it, and the policies naming it; none, "".
func (s *Session) roleDependents(ctx context.Context, role string) (string, error) {
	root := versioning.RootValue{}
	if s.txn != nil {
		root = s.txn.Root()
	} else {
		var err error
		if root, err = s.workingRoot(ctx); err != nil {
			return "", err
		}
	}
	var lines []string
	inACL := func(acl []sqldef.ACLItem) bool {
		for _, it := range acl {
			if it.Grantee == role || it.Grantor == role {
				return true
			}
		}
		return false
	}
	tables, err := root.Tables(ctx)
	if err != nil {
		return "", err
	}
	for _, t := range tables {
		if t.Owner == role {
			lines = append(lines, fmt.Sprintf("owner of table %s", t.Name))
		}
		if inACL(t.ACL) {
			lines = append(lines, fmt.Sprintf("privileges for table %s", t.Name))
		}
		for _, c := range t.Columns {
			if !c.Dropped && inACL(c.ACL) {
				lines = append(lines, fmt.Sprintf("privileges for column %s of table %s", c.Name, t.Name))
			}
		}
		for _, p := range t.Policies {
			if slices.Contains(p.Roles, role) {
				lines = append(lines, fmt.Sprintf("target of policy %s on table %s", p.Name, t.Name))
			}
		}
	}
	views, err := root.Views(ctx)
	if err != nil {
		return "", err
	}
	for _, v := range views {
		if v.Owner == role {
			lines = append(lines, fmt.Sprintf("owner of view %s", v.Name))
		}
		if inACL(v.ACL) {
			lines = append(lines, fmt.Sprintf("privileges for view %s", v.Name))
		}
	}
	seqs, err := root.Sequences(ctx)
	if err != nil {
		return "", err
	}
	for _, q := range seqs {
		if q.Owner == role {
			lines = append(lines, fmt.Sprintf("owner of sequence %s", q.Name))
		}
		if inACL(q.ACL) {
			lines = append(lines, fmt.Sprintf("privileges for sequence %s", q.Name))
		}
	}
	schemas, err := root.Schemas(ctx)
	if err != nil {
		return "", err
	}
	for _, sc := range schemas {
		if sc.Owner == role {
			lines = append(lines, fmt.Sprintf("owner of schema %s", sc.Name))
		}
		if inACL(sc.ACL) {
			lines = append(lines, fmt.Sprintf("privileges for schema %s", sc.Name))
		}
	}
	return strings.Join(lines, "\n"), nil
}
