package session

import (
	"context"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
)

// Branch permissions (versioning.BranchControl), checked for the session's
// user: every statement that writes a branch's data or schema, the
// version-control functions that change a branch (dolt_commit, dolt_merge,
// dolt_reset, dolt_branch -d/-m ...), and the creation of branches. A
// connection to db/branch goes through the same checks. Superusers are not
// checked, as in PostgreSQL superusers pass every privilege check; so a
// branch-control mistake cannot lock the server's owner out.

// branchHost is the host the entries' host patterns are matched against.
const branchHost = "localhost"

// branchChecked reports whether the session's branch permissions are
// checked at all: not for a superuser.
func (s *Session) branchChecked(ctx context.Context) (bool, error) {
	au, err := s.Authority(ctx)
	if err != nil {
		return false, err
	}
	return !au.Superuser, nil
}

// RequireBranchWrite checks that the session's user may change branch
// (dolt.Session).
func (s *Session) RequireBranchWrite(ctx context.Context, branch string) error {
	if err := s.requireNotReplica(); err != nil {
		return err
	}
	if ok, err := s.branchChecked(ctx); !ok || err != nil {
		return err
	}
	bc, err := s.e.branches.Load(ctx, s.e.st)
	if err != nil {
		return err
	}
	if _, write, _ := bc.Permissions(s.repo.Name(), branch, s.CurrentRole(), branchHost); write {
		return nil
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "%q does not have the permissions to write branch %q of database %q", s.CurrentRole(), branch, s.repo.Name()).
		WithHint("dolt_branch_control says who may write which branches.")
}

// RequireBranchCreate checks that the session's user may create a branch
// named branch (dolt.Session).
func (s *Session) RequireBranchCreate(ctx context.Context, branch string) error {
	if err := s.requireNotReplica(); err != nil {
		return err
	}
	if ok, err := s.branchChecked(ctx); !ok || err != nil {
		return err
	}
	bc, err := s.e.branches.Load(ctx, s.e.st)
	if err != nil {
		return err
	}
	if bc.MayCreate(s.repo.Name(), branch, s.CurrentRole(), branchHost) {
		return nil
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "%q cannot create a branch named %q", s.CurrentRole(), branch).
		WithHint("dolt_branch_namespace_control says who may create branches of which names.")
}

// BranchControl returns the branch permissions (dolt.Session).
func (s *Session) BranchControl(ctx context.Context) (*versioning.BranchControl, error) {
	return s.e.branches.Load(ctx, s.e.st)
}

// EditBranchControl changes the branch permissions with fn, which is
// told whether the session's user administers a database and branch
// pattern: a superuser does, and so does a user with admin on a pattern
// that covers it (dolt.Session).
func (s *Session) EditBranchControl(ctx context.Context, fn func(bc *versioning.BranchControl, admin func(database, branch string) bool) error) error {
	checked, err := s.branchChecked(ctx)
	if err != nil {
		return err
	}
	user := s.CurrentRole()
	return versioning.UpdateBranchControl(ctx, s.e.st, func(bc *versioning.BranchControl) error {
		admin := func(database, branch string) bool {
			if !checked {
				return true
			}
			for _, e := range bc.Access {
				if versioning.Covers(e.User, user) && versioning.Covers(e.Database, database) && versioning.Covers(e.Branch, branch) {
					for _, p := range e.Permissions {
						if p == "admin" {
							return true
						}
					}
				}
			}
			return false
		}
		return fn(bc, admin)
	})
}

// writesBranchControl reports whether a statement is an INSERT, UPDATE or
// DELETE of the branch permissions' tables, which change no branch (their
// writers check who may edit them).
func writesBranchControl(n *pg.Node) bool {
	var rv *pg.RangeVar
	switch {
	case n.GetInsertStmt() != nil:
		rv = n.GetInsertStmt().Relation
	case n.GetUpdateStmt() != nil:
		rv = n.GetUpdateStmt().Relation
	case n.GetDeleteStmt() != nil:
		rv = n.GetDeleteStmt().Relation
	}
	if rv == nil {
		return false
	}
	name := strings.TrimPrefix(rv.Relname, "dolt_")
	if rv.Schemaname != "dolt" && name == rv.Relname {
		return false
	}
	return name == "branch_control" || name == "branch_namespace_control"
}
