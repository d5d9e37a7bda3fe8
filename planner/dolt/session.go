package dolt

import (
	"context"
	"errors"
	"strings"

	"go.uber.org/zap"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Session is what the version-control surface needs of the SQL session
// running a statement. *session.Session (planner/session) implements it;
// this package cannot import planner or planner/session (they import
// it), and asking for no more than this keeps transactions, settings and
// name resolution the session's alone. The transaction's root and writes are not here: a
// statement's exec.Env carries them.
type Session interface {
	// Repo is the session's database.
	Repo() *versioning.Repo
	// Branch is the branch the session works on; "" when Detached.
	Branch() string
	// Detached is the commit a read-only session reads, nil on a branch.
	Detached() *Detached
	// Settings are the session's current settings: a revision given as
	// a timestamp is read in its time zone and date style.
	Settings() *exec.Settings
	// Signature is who the session's commits are by, now.
	Signature() versioning.Signature

	// ParseName parses a name given as text (dolt_add('s.t')) by the
	// planner's rules for names in strings; schema is "" when the name
	// is unqualified.
	ParseName(text string) (schema, name string, err error)
	// RelationSchemas are the schemas a relation qualified by schema is
	// looked up in: that one (pg_temp being the session's temporary
	// schema), or the session's path for relations when schema is "".
	RelationSchemas(schema string) []string
	// RenderExpr renders a stored expression of table t as pg_get_expr
	// does, and ViewDefinition a view's query as pg_get_viewdef does with
	// the names of snap: the SQL that dolt_patch and dolt_schema_diff
	// write is printed as the planner prints it.
	RenderExpr(env *exec.Env, t *sqldef.Table, expr string, pretty bool) string
	ViewDefinition(snap *catalog.Snapshot, v *sqldef.View) string
	// TypeOID reads a type's name as a cast to regtype does (int4,
	// integer, a user type along the search path).
	TypeOID(env *exec.Env, name string) (uint32, error)

	// FlushTransaction commits what the open SQL transaction wrote,
	// before a function changes the repository (invariant 2 of the
	// package doc), keeping the session in its transaction block; it
	// refuses on a read-only revision or in a read-only transaction.
	FlushTransaction(ctx context.Context) error
	// SwitchBranch makes the session work on branch from its next
	// statement.
	SwitchBranch(branch string)
	// BranchInUse reports whether sessions other than this one work on
	// branch.
	BranchInUse(branch string) bool
	// CollectGarbage removes the chunks nothing reaches (dolt_gc), once
	// the other sessions' transactions have ended.
	CollectGarbage(ctx context.Context) (versioning.GCResult, error)
	// Notice sends the client a notice.
	Notice(n error)
	// Logger is the server's log, for what a function does at length
	// (a transfer's progress).
	Logger() *zap.Logger
	// RequireBranchWrite and RequireBranchCreate check the branch
	// permissions (dolt_branch_control, dolt_branch_namespace_control) of
	// the session's user: to change a branch, to create one of a name.
	RequireBranchWrite(ctx context.Context, branch string) error
	RequireBranchCreate(ctx context.Context, branch string) error
	// RequireCreateDB checks that the session's user may create a
	// database (dolt_clone), as CREATE DATABASE does.
	RequireCreateDB(ctx context.Context) error
	// RequireServerFiles checks that the session's user may read (or
	// write) the server's files, which a file:// remote is; what says
	// what for, in the error.
	RequireServerFiles(ctx context.Context, write bool, what string) error
	// BranchControl returns the branch permissions, and EditBranchControl
	// changes them, telling fn which database and branch patterns the
	// session's user administers.
	BranchControl(ctx context.Context) (*versioning.BranchControl, error)
	EditBranchControl(ctx context.Context, fn func(bc *versioning.BranchControl, admin func(database, branch string) bool) error) error
}

// session is a Session with this package's operations on it.
type session struct{ Session }

// Detached is the commit a read-only session reads: one opened on a tag
// or a commit rather than a branch.
type Detached struct {
	Commit versioning.Address
	Root   versioning.RootValue
}

// OpenRevision resolves the revision of a database name a session
// connects to: a branch, or any revision spec, which opens the session
// read-only on that commit (Detached).
func OpenRevision(ctx context.Context, repo *versioning.Repo, rev string) (branch string, _ *Detached, _ error) {
	ok, err := repo.HasBranch(ctx, rev)
	if err != nil || ok {
		return rev, nil, err
	}
	head, _ := repo.BranchHead(ctx, versioning.DefaultBranch)
	commit, err := repo.ResolveCommit(ctx, rev, head)
	if err != nil {
		if errors.Is(err, versioning.ErrNoRevision) {
			return "", nil, pgerr.New(pgerr.InvalidCatalogName, "database \"%s@%s\" does not exist", repo.Name(), rev).
				WithDetail("%q is not a branch, tag or commit of database %q.", rev, repo.Name())
		}
		return "", nil, err
	}
	root, _, err := repo.CommitRoot(ctx, commit)
	if err != nil {
		return "", nil, err
	}
	return "", &Detached{Commit: commit, Root: root}, nil
}

// WorkingRoot is the root a new transaction of s starts from: its
// branch's working root, or the commit a read-only session reads.
func WorkingRoot(ctx context.Context, s Session) (versioning.RootValue, error) {
	if d := s.Detached(); d != nil {
		return d.Root, nil
	}
	root, err := s.Repo().WorkingRoot(ctx, s.Branch())
	if err != nil {
		return versioning.RootValue{}, vcsError(err)
	}
	return root, nil
}

// ResolveRoot resolves a revision spec for s to a root value (time
// travel: "db@rev".schema.table): WORKING is the transaction's root,
// STAGED the branch's staged root, anything else a commit's.
func ResolveRoot(s Session, env *exec.Env, spec string) (versioning.RootValue, error) {
	return session{s}.resolveRoot(env, spec)
}

// headCommit is the commit HEAD means for the session.
func (s session) headCommit(ctx context.Context) (versioning.Address, error) {
	if d := s.Detached(); d != nil {
		return d.Commit, nil
	}
	h, err := s.Repo().BranchHead(ctx, s.Branch())
	return h, vcsError(err)
}

// resolveCommit resolves a revision spec for the session.
func (s session) resolveCommit(ctx context.Context, spec string) (versioning.Address, error) {
	head, err := s.headCommit(ctx)
	if err != nil {
		return versioning.Address{}, err
	}
	c, err := s.Repo().ResolveCommit(ctx, spec, head)
	if errors.Is(err, versioning.ErrNoRevision) {
		// A timestamp names the commit HEAD had then (AS OF '2026-12-01').
		if d, perr := exec.ParseText(exec.TTimestampTZ, spec, s.Settings()); perr == nil && d.Kind == exec.KindTimestamp {
			c, err = s.Repo().CommitAt(ctx, head, types.TimestampTZ(d.I).Time())
		}
	}
	return c, vcsError(err)
}

// resolveRoot is ResolveRoot.
func (s session) resolveRoot(env *exec.Env, spec string) (versioning.RootValue, error) {
	switch strings.ToUpper(spec) {
	case "WORKING":
		return env.Txn.Root(), nil
	case "STAGED":
		if d := s.Detached(); d != nil {
			return d.Root, nil
		}
		_, ws, err := s.Repo().WorkingSet(env.Ctx, s.Branch())
		if err != nil {
			return versioning.RootValue{}, vcsError(err)
		}
		return versioning.LoadRootValue(env.Ctx, s.Repo().Store(), ws.Staged)
	}
	c, err := s.resolveCommit(env.Ctx, spec)
	if err != nil {
		return versioning.RootValue{}, err
	}
	root, _, err := s.Repo().CommitRoot(env.Ctx, c)
	return root, err
}

// vcsError gives the repository's errors their SQLSTATEs.
func vcsError(err error) error {
	var pe *pgerr.Error
	if err == nil || errors.As(err, &pe) {
		return err
	}
	msg := strings.TrimPrefix(err.Error(), "versioning: ")
	code := pgerr.Code("")
	switch {
	case errors.Is(err, versioning.ErrNoBranch), errors.Is(err, versioning.ErrNoRevision), errors.Is(err, versioning.ErrNoTag),
		errors.Is(err, versioning.ErrNoRemote):
		code = pgerr.InvalidParameterValue
	case errors.Is(err, versioning.ErrBranchExists), errors.Is(err, versioning.ErrTagExists), errors.Is(err, versioning.ErrRemoteExists):
		code = pgerr.DuplicateObject
	case errors.Is(err, versioning.ErrBadName):
		code = pgerr.InvalidName
	case errors.Is(err, versioning.ErrNothingToCommit), errors.Is(err, versioning.ErrUnresolvedConflicts),
		errors.Is(err, versioning.ErrMergeInProgress), errors.Is(err, versioning.ErrNoMerge),
		errors.Is(err, versioning.ErrDirtyMerge):
		code = pgerr.ObjectNotInPrerequisite
		if errors.Is(err, versioning.ErrDirtyMerge) {
			msg = "error: " + msg // Dolt's words, which Doltgres's clients match
		}
	case errors.Is(err, versioning.ErrConflict):
		code = pgerr.SerializationFailure
	case errors.Is(err, versioning.ErrReferenced):
		code = pgerr.DependentObjectsStillExist
	default:
		return err
	}
	return pgerr.Wrap(err, code, "%s", msg)
}
