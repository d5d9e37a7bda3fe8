package session

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Databases' owners and privileges (pg_database's datdba and datacl): who
// may connect (CONNECT), create schemas (CREATE) and temporary tables
// (TEMPORARY). They belong to the server, as roles do
// (versioning.DatabaseInfo); a database without a record is the bootstrap
// superuser's, with PostgreSQL's default privileges.

// databaseInfo returns the info of database name as the session's
// transaction sees it: its own pending change, else the server's.
func (s *Session) databaseInfo(ctx context.Context, name string) (*versioning.DatabaseInfo, error) {
	if d := s.dbInfos[name]; d != nil {
		return d, nil
	}
	return s.e.databaseInfo(ctx, name)
}

// databaseInfo returns the recorded info of database name, or a default
// one (no owner recorded: the bootstrap superuser's).
func (e *Engine) databaseInfo(ctx context.Context, name string) (*versioning.DatabaseInfo, error) {
	infos, _, err := versioning.LoadDatabaseInfos(ctx, e.st)
	if err != nil {
		return nil, err
	}
	if d := infos[name]; d != nil {
		return d, nil
	}
	return &versioning.DatabaseInfo{Name: name}, nil
}

// DatabaseACL is a database's access control list, its default when none
// was set: the owner's, and CONNECT and TEMPORARY for PUBLIC.
func DatabaseACL(d *versioning.DatabaseInfo) []sqldef.ACLItem {
	if d.ACL != nil {
		return d.ACL
	}
	return sqldef.DefaultACL(planner.OwnerOf(d.Owner), sqldef.DatabasePrivileges, sqldef.DatabasePublic)
}

// checkConnect refuses a session of user on database name without CONNECT
// on it, as PostgreSQL does (FATAL 42501); superusers may always connect.
func (e *Engine) checkConnect(ctx context.Context, user, name string) error {
	roles, _, err := e.roles.Load(ctx, e.st)
	if err != nil {
		return err
	}
	au := planner.NewAuthority(roles, user, 0)
	if au.Superuser || user == planner.BootstrapSuperuser {
		return nil
	}
	d, err := e.databaseInfo(ctx, name)
	if err != nil {
		return err
	}
	if sqldef.ACLHolds(DatabaseACL(d), au.Holds, "c", false) {
		return nil
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for database %q", name).
		WithDetail("User does not have CONNECT privilege.")
}

// RequireDatabase checks that the current role holds priv on the
// session's database: 'C' to create schemas, 'T' temporary tables.
func (s *Session) RequireDatabase(ctx context.Context, priv byte) error {
	au, err := s.Authority(ctx)
	if err != nil || au.Superuser {
		return err
	}
	d, err := s.databaseInfo(ctx, s.repo.Name())
	if err != nil {
		return err
	}
	if sqldef.ACLHolds(DatabaseACL(d), au.Holds, string(priv), false) {
		return nil
	}
	if priv == 'T' {
		return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to create temporary tables in database %q", s.repo.Name())
	}
	return planner.PermissionDenied("database", s.repo.Name())
}

// GrantDatabases runs GRANT and REVOKE ON DATABASE.
func (s *Session) GrantDatabases(ctx context.Context, g *pg.GrantStmt) error {
	au, err := s.Authority(ctx)
	if err != nil {
		return err
	}
	grantees, err := planner.Grantees(s, g.Grantees, au.Roles)
	if err != nil {
		return err
	}
	privs, err := planner.GrantPrivileges(g.Privileges, "database", sqldef.DatabasePrivileges)
	if err != nil {
		return err
	}
	if privs == "" {
		privs = sqldef.DatabasePrivileges
	}
	for _, n := range g.Objects {
		name := n.GetString_().GetSval()
		err := s.changeDatabaseInfo(ctx, name, func(d *versioning.DatabaseInfo) error {
			acl, err := planner.ChangeACL(au, s.notice, g, DatabaseACL(d), d.Owner, "database", name, privs, grantees)
			d.ACL = acl
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// AlterDatabaseOwner runs ALTER DATABASE name OWNER TO role: a superuser
// may give a database to anyone; its owner, to a role it is a member of,
// if it may create databases.
func (s *Session) AlterDatabaseOwner(ctx context.Context, a *pg.AlterOwnerStmt) error {
	name := a.Object.GetString_().GetSval()
	au, err := s.Authority(ctx)
	if err != nil {
		return err
	}
	owner := planner.RoleSpecName(s, a.Newowner)
	if !planner.RoleExists(au.Roles, owner) && owner != planner.BootstrapSuperuser {
		return pgerr.New(pgerr.UndefinedObject, "role %q does not exist", owner)
	}
	return s.changeDatabaseInfo(ctx, name, func(d *versioning.DatabaseInfo) error {
		if !au.Superuser {
			switch {
			case !au.Owns(d.Owner):
				return pgerr.New(pgerr.InsufficientPrivilege, "must be owner of database %s", name)
			case !sqldef.IsMember(au.Roles, au.Role, owner):
				return pgerr.New(pgerr.InsufficientPrivilege, "must be able to SET ROLE %q", owner)
			case !au.CreateDB:
				return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to change owner of database")
			}
		}
		d.ACL = sqldef.ChangeACLOwner(d.ACL, planner.OwnerOf(d.Owner), owner)
		d.Owner = owner
		if owner == planner.BootstrapSuperuser {
			d.Owner = ""
		}
		return nil
	})
}

// changeDatabaseInfo applies fn to a copy of database name's info. In a
// transaction block the change waits for its COMMIT (endDatabaseInfos),
// visible meanwhile to the transaction alone, and goes with a ROLLBACK,
// as PostgreSQL's pg_database changes do; outside one it is saved now.
func (s *Session) changeDatabaseInfo(ctx context.Context, name string, fn func(*versioning.DatabaseInfo) error) error {
	if err := s.e.requireDatabase(ctx, name); err != nil {
		return err
	}
	d, err := s.databaseInfo(ctx, name)
	if err != nil {
		return err
	}
	nd := *d
	if err := fn(&nd); err != nil {
		return err
	}
	if s.dbInfos == nil {
		s.dbInfos = map[string]*versioning.DatabaseInfo{}
	}
	s.dbInfos[name] = &nd
	s.auth = nil // who is pg_database_owner may have changed
	if !s.explicit {
		return s.endDatabaseInfos(ctx, true)
	}
	return nil
}

// endDatabaseInfos saves the transaction's changes of databases' infos
// when it commits, and forgets them either way.
func (s *Session) endDatabaseInfos(ctx context.Context, commit bool) error {
	pending := s.dbInfos
	s.dbInfos = nil
	if !commit || len(pending) == 0 {
		return nil
	}
	s.auth = nil
	defer s.e.rolesGen.Add(1) // every session checks its privileges again
	return versioning.UpdateDatabaseInfos(ctx, s.e.st, func(infos map[string]*versioning.DatabaseInfo) error {
		for name, d := range pending {
			infos[name] = d
		}
		return nil
	})
}

// requireDatabase fails with 3D000 unless database name exists.
func (e *Engine) requireDatabase(ctx context.Context, name string) error {
	if _, err := versioning.OpenDatabase(ctx, e.st, name); err != nil {
		return pgerr.New(pgerr.InvalidCatalogName, "database %q does not exist", name)
	}
	return nil
}

// databaseOwnerHeld adds pg_database_owner to au's held roles when au's
// role has the privileges of the session's database's owner: its one
// member in PostgreSQL 15.
func (s *Session) databaseOwnerHeld(ctx context.Context, au *planner.Authority) error {
	d, err := s.databaseInfo(ctx, s.repo.Name())
	if err != nil {
		return err
	}
	if au.Holds[planner.OwnerOf(d.Owner)] {
		au.Holds["pg_database_owner"] = true
	}
	return nil
}
