package session

import (
	"context"

	"go.uber.org/zap"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/planner/dolt"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// The session as package dolt sees it (dolt.Session): the version-control
// functions and tables ask it for the repository and revision, for names
// and SQL printed the planner's way, and to commit and switch branches.

var _ dolt.Session = (*Session)(nil)

// Repo is the session's database.
func (s *Session) Repo() *versioning.Repo { return s.repo }

// Branch is the branch the session works on; "" on a read-only revision.
func (s *Session) Branch() string { return s.branch }

// Detached is the commit a read-only session reads, nil on a branch.
func (s *Session) Detached() *dolt.Detached { return s.detached }

// Settings are the session's current settings.
func (s *Session) Settings() *exec.Settings { return s.settings() }

// Signature is who the session's commits are by, now.
func (s *Session) Signature() versioning.Signature { return s.e.signature(s.user, s.ClientHost) }

// ParseName parses a possibly schema-qualified name given as text.
func (s *Session) ParseName(text string) (schema, name string, err error) {
	parts, err := exec.ParseQualifiedName(text)
	if err != nil {
		return "", "", err
	}
	schema, name = planner.SplitName(parts)
	return schema, name, nil
}

// RelationSchemas are the schemas a relation qualified by schema ("" for
// none) is looked up in.
func (s *Session) RelationSchemas(schema string) []string {
	if schema == "" {
		return s.RelationPath()
	}
	return []string{s.ResolveSchemaName(schema)}
}

// RenderExpr renders a stored expression of t as pg_get_expr does.
func (s *Session) RenderExpr(env *exec.Env, t *sqldef.Table, expr string, pretty bool) string {
	return planner.RenderExpr(s, env, t, expr, pretty)
}

// ViewDefinition is v's query as pg_get_viewdef prints it.
func (s *Session) ViewDefinition(snap *catalog.Snapshot, v *sqldef.View) string {
	return planner.ViewDefinition(snap, v)
}

// workingRoot is the root a new transaction starts from (dolt.WorkingRoot).
func (s *Session) workingRoot(ctx context.Context) (versioning.RootValue, error) {
	return dolt.WorkingRoot(ctx, s)
}

// FlushTransaction commits the open transaction's changes before a
// version-control operation, keeping the session in its transaction
// block: the operation acts on committed state and the next statement
// begins a new transaction from what it leaves.
func (s *Session) FlushTransaction(ctx context.Context) error {
	if s.readOnly {
		return pgerr.New(pgerr.ReadOnlySQLTransaction, "cannot change the repository from a read-only revision")
	}
	tx := s.txn
	if tx == nil {
		return nil
	}
	if tx.ReadOnly {
		return pgerr.New(pgerr.ReadOnlySQLTransaction, "cannot change the repository in a read-only transaction")
	}
	if err := tx.CheckDeferred(ctx); err != nil {
		return err
	}
	if err := tx.SerialPreCommit(); err != nil {
		return err
	}
	_, err := s.repo.CommitTransaction(ctx, s.branch, tx.Start, tx.Root(), exec.NewMergeIndexer(tx))
	s.releaseLocks(tx, err == nil)
	if err != nil {
		return commitError(err)
	}
	// The running statement keeps tx; nothing it does later is committed
	// twice, and the session's next statement starts afresh.
	tx.Start = tx.Root()
	s.txn, s.saves = nil, nil
	s.seqs.advanced = nil
	return nil
}

// SwitchBranch makes the session work on branch from its next statement.
func (s *Session) SwitchBranch(branch string) {
	s.branch = branch
	if a := s.activity.Load(); a != nil {
		s.publish(a.state, "") // other sessions see the branch it is on
	}
	s.planGen++ // plans name tables of the old branch's root
	s.catCache = catalogCache{}
	s.moveNotify() // LISTEN hears the new branch
}

// BranchInUse reports whether other sessions work on branch, which is
// then not deleted or renamed without --force.
func (s *Session) BranchInUse(branch string) bool {
	return s.e.live.onBranch(s.repo.Name(), branch, s) > 0
}

// Notice sends the client a notice (dolt.Session).
func (s *Session) Notice(n error) { s.notice(n) }

// RequireCreateDB checks that the session's user may create databases
// (CREATE DATABASE, dolt_clone): a superuser or a role with CREATEDB.
func (s *Session) RequireCreateDB(ctx context.Context) error {
	au, err := s.Authority(ctx)
	if err != nil {
		return err
	}
	if !au.CreateDB {
		return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to create database")
	}
	return nil
}

// RequireServerFiles checks that the session's user may read (or with
// write set, write) the server's files, as a file:// remote does: a
// superuser or a member of pg_read_server_files (pg_write_server_files),
// PostgreSQL's rule for COPY to and from files.
func (s *Session) RequireServerFiles(ctx context.Context, write bool, what string) error {
	au, err := s.Authority(ctx)
	if err != nil {
		return err
	}
	role := "pg_read_server_files"
	if write {
		role = "pg_write_server_files"
	}
	if !au.Superuser && !au.Holds[role] {
		return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser or have privileges of the %s role to %s", role, what)
	}
	return nil
}

// Logger is the engine's log.
func (s *Session) Logger() *zap.Logger { return s.e.log }
