package planner

import (
	"context"
	"reflect"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
)

// Roles: CREATE/ALTER/DROP ROLE (and USER), with passwords kept as SCRAM
// verifiers. There is no privilege system yet: every role may do
// everything, GRANT and REVOKE are accepted and change nothing.

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
	return r.Verifier, true, nil
}

// SetPassword sets a role's password, creating the role as a login
// superuser if it does not exist (the first user of a new server).
func (e *Engine) SetPassword(ctx context.Context, user, password string) error {
	v, err := e.hashPassword(password)
	if err != nil {
		return err
	}
	return e.updateRoles(ctx, func(roles map[string]*versioning.Role) error {
		r, ok := roles[user]
		if !ok {
			r = &versioning.Role{Name: user, Superuser: true, Login: true}
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
	return e.updateRoles(ctx, func(roles map[string]*versioning.Role) error {
		if len(roles) == 0 {
			roles["postgres"] = &versioning.Role{Name: "postgres", Superuser: true, Login: true, CreateDB: true}
		}
		return nil
	})
}

// roleOptions applies CREATE/ALTER ROLE options to r.
func (s *Session) roleOptions(r *versioning.Role, opts []*pg.Node) error {
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
		case "inherit":
			r.NoInherit = !on
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
	r := &versioning.Role{Name: c.Role, Login: c.StmtType == pg.RoleStmtType_ROLESTMT_USER}
	if err := s.roleOptions(r, c.Options); err != nil {
		return nil, err
	}
	au, err := s.Authority(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case r.Superuser && !au.superuser:
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to create superusers")
	case !au.createRole:
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "permission denied to create role")
	}
	err = s.e.updateRoles(ctx, func(roles map[string]*versioning.Role) error {
		if _, ok := roles[c.Role]; ok {
			return pgerr.New(pgerr.DuplicateObject, "role %q already exists", c.Role)
		}
		roles[c.Role] = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Result{tag: "CREATE ROLE"}, nil
}

func (s *Session) alterRole(ctx context.Context, a *pg.AlterRoleStmt) (*Result, error) {
	name := roleSpecName(s, a.Role)
	au, err := s.Authority(ctx)
	if err != nil {
		return nil, err
	}
	err = s.e.updateRoles(ctx, func(roles map[string]*versioning.Role) error {
		r, ok := roles[name]
		if !ok {
			return pgerr.New(pgerr.UndefinedObject, "role %q does not exist", name)
		}
		was := *r
		if err := s.roleOptions(r, a.Options); err != nil {
			return err
		}
		if au.superuser {
			return nil
		}
		if was.Superuser || r.Superuser {
			return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to alter superuser roles or change superuser attribute")
		}
		// A role may change its own password; the rest needs CREATEROLE.
		was.Verifier = r.Verifier
		if !au.createRole && (name != au.role || !reflect.DeepEqual(&was, r)) {
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
	if !au.createRole {
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "permission denied to drop role")
	}
	err = s.e.updateRoles(ctx, func(roles map[string]*versioning.Role) error {
		skipped = skipped[:0]
		for _, n := range d.Roles {
			name := roleSpecName(s, n.GetRoleSpec())
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
			if roles[name].Superuser && !au.superuser {
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

// alterOwner runs ALTER ... OWNER TO role for objects other than tables
// (ALTER TABLE ... OWNER TO, alter.go). A schema records its owner; the
// other objects have no owner of their own yet, so for them the statement
// only checks that the role exists, which is what a restored dump needs.
func (a *analyzer) alterOwner(s *pg.AlterOwnerStmt) (utility, error) {
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		owner := roleSpecName(a.s, s.Newowner)
		roles, err := a.s.Roles(ctx)
		if err != nil {
			return "", err
		}
		if _, ok := roles[owner]; !ok && owner != "postgres" {
			return "", pgerr.New(pgerr.UndefinedObject, "role %q does not exist", owner)
		}
		switch s.ObjectType {
		case pg.ObjectType_OBJECT_SCHEMA:
			name := s.Object.GetString_().GetSval()
			sc, ok, err := a.tx.Schema(ctx, name)
			if err != nil {
				return "", err
			}
			if !ok {
				return "", pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", name)
			}
			if owner, err = a.newOwner(s.Newowner, sc.Owner); err != nil {
				return "", err
			}
			sc.ACL = versioning.ChangeACLOwner(sc.ACL, ownerOf(sc.Owner), owner)
			sc.Owner = owner
			root, err := a.tx.Root.PutSchema(ctx, *sc)
			if err != nil {
				return "", err
			}
			a.tx.SetRoot(root)
			return "ALTER SCHEMA", nil
		case pg.ObjectType_OBJECT_DATABASE:
			return "ALTER DATABASE", nil
		case pg.ObjectType_OBJECT_TYPE, pg.ObjectType_OBJECT_DOMAIN:
			tag := map[bool]string{true: "ALTER DOMAIN", false: "ALTER TYPE"}[s.ObjectType == pg.ObjectType_OBJECT_DOMAIN]
			var parts []string
			for _, n := range s.Object.GetList().GetItems() {
				parts = append(parts, n.GetString_().GetSval())
			}
			if len(parts) == 0 {
				return tag, nil
			}
			schema, name := splitName(parts)
			schemas := []string{a.s.ResolveSchemaName(schema)}
			if schema == "" {
				schemas = a.s.SearchPath()
			}
			for _, sc := range schemas {
				if _, ok, err := a.tx.Root.Type(ctx, sc, name); err != nil || ok {
					return tag, err
				}
			}
			return "", pgerr.New(pgerr.UndefinedObject, "type %q does not exist", strings.Join(parts, "."))
		case pg.ObjectType_OBJECT_FUNCTION, pg.ObjectType_OBJECT_PROCEDURE, pg.ObjectType_OBJECT_ROUTINE:
			return "ALTER " + strings.TrimPrefix(s.ObjectType.String(), "OBJECT_"), nil
		}
		return "", pgerr.New(pgerr.FeatureNotSupported, "ALTER %s ... OWNER TO is not supported yet",
			strings.TrimPrefix(s.ObjectType.String(), "OBJECT_"))
	}, nil
}
