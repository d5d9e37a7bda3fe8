package planner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/versioning"
)

// Version control in SQL: the session's revision, and the dolt_*
// functions that change branches, as Doltgres has them. Each function that
// changes the repository first commits the open SQL transaction (as
// Doltgres does), then moves refs by compare-and-set, durably; the next
// statement starts a transaction from the new working root. The tables
// and table functions that read history are in dolt_tables.go.

// detachedRev is the commit a read-only session reads.
type detachedRev struct {
	commit versioning.Address
	root   versioning.RootValue
}

// resolveSessionRev resolves the revision of a database name: a branch,
// or any revision spec, which opens the session read-only on that commit.
func resolveSessionRev(ctx context.Context, repo *versioning.Repo, rev string) (string, *detachedRev, error) {
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
	return "", &detachedRev{commit: commit, root: root}, nil
}

// workingRoot is the root a new transaction starts from: the branch's
// working root, or the commit a read-only session reads.
func (s *Session) workingRoot(ctx context.Context) (versioning.RootValue, error) {
	if s.detached != nil {
		return s.detached.root, nil
	}
	_, ws, err := s.repo.WorkingSet(ctx, s.branch)
	if err != nil {
		return versioning.RootValue{}, vcsError(err)
	}
	return versioning.LoadRootValue(ctx, s.e.st, ws.Working)
}

// headCommit is the commit HEAD means for the session.
func (s *Session) headCommit(ctx context.Context) (versioning.Address, error) {
	if s.detached != nil {
		return s.detached.commit, nil
	}
	h, err := s.repo.BranchHead(ctx, s.branch)
	return h, vcsError(err)
}

// resolveCommit resolves a revision spec for the session.
func (s *Session) resolveCommit(ctx context.Context, spec string) (versioning.Address, error) {
	head, err := s.headCommit(ctx)
	if err != nil {
		return versioning.Address{}, err
	}
	c, err := s.repo.ResolveCommit(ctx, spec, head)
	if errors.Is(err, versioning.ErrNoRevision) {
		// A timestamp names the commit HEAD had then (AS OF '2026-12-01').
		if d, perr := exec.ParseText(exec.TTimestampTZ, spec, s.settings()); perr == nil && d.Kind == exec.KindTimestamp {
			c, err = s.repo.CommitAt(ctx, head, types.TimestampTZ(d.I).Time())
		}
	}
	return c, vcsError(err)
}

// resolveRoot resolves a revision spec to a root value: WORKING is the
// transaction's root, STAGED the branch's staged root, anything else a
// commit's.
func (s *Session) resolveRoot(env *exec.Env, spec string) (versioning.RootValue, error) {
	switch strings.ToUpper(spec) {
	case "WORKING":
		return env.Txn.Root, nil
	case "STAGED":
		if s.detached != nil {
			return s.detached.root, nil
		}
		_, ws, err := s.repo.WorkingSet(env.Ctx, s.branch)
		if err != nil {
			return versioning.RootValue{}, vcsError(err)
		}
		return versioning.LoadRootValue(env.Ctx, s.e.st, ws.Staged)
	}
	c, err := s.resolveCommit(env.Ctx, spec)
	if err != nil {
		return versioning.RootValue{}, err
	}
	root, _, err := s.repo.CommitRoot(env.Ctx, c)
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
	case errors.Is(err, versioning.ErrNoBranch), errors.Is(err, versioning.ErrNoRevision), errors.Is(err, versioning.ErrNoTag):
		code = pgerr.InvalidParameterValue
	case errors.Is(err, versioning.ErrBranchExists), errors.Is(err, versioning.ErrTagExists):
		code = pgerr.DuplicateObject
	case errors.Is(err, versioning.ErrBadName):
		code = pgerr.InvalidName
	case errors.Is(err, versioning.ErrNothingToCommit), errors.Is(err, versioning.ErrUnresolvedConflicts),
		errors.Is(err, versioning.ErrMergeInProgress), errors.Is(err, versioning.ErrNoMerge),
		errors.Is(err, versioning.ErrDirtyMerge):
		code = pgerr.ObjectNotInPrerequisite
	case errors.Is(err, versioning.ErrConflict):
		code = pgerr.SerializationFailure
	default:
		return err
	}
	return pgerr.Wrap(err, code, "%s", msg)
}

// flushForVersionOp commits the open transaction's changes before a
// version-control operation, keeping the session in its transaction
// block: the operation acts on committed state and the next statement
// begins a new transaction from what it leaves.
func (s *Session) flushForVersionOp(ctx context.Context) error {
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
	_, err := s.repo.CommitTransaction(ctx, s.branch, tx.Start, tx.Root, exec.NewMergeIndexer(tx))
	s.releaseLocks(tx, err == nil)
	if err != nil {
		return commitError(err)
	}
	// The running statement keeps tx; nothing it does later is committed
	// twice, and the session's next statement starts afresh.
	tx.Start = tx.Root
	s.txn, s.saves = nil, nil
	s.seqs.advanced = nil
	return nil
}

// signature is who the session's commits are by, now.
func (s *Session) signature() versioning.Signature {
	return s.e.signature(s.user)
}

// flagSet is a dolt_* function's parsed arguments.
type flagSet struct {
	flags map[string]string // by long name; "" for flags without values
	args  []string          // positional arguments, in order
}

func (f *flagSet) has(name string) bool { _, ok := f.flags[name]; return ok }

// flagSpec describes a function's flags: long name by short letter, and
// which take a value.
type flagSpec struct {
	short  map[byte]string
	values map[string]bool
}

// parseFlags parses Git-style arguments: -x, -xy (several short flags),
// -mVALUE or -m VALUE, --long, --long=VALUE or --long VALUE, and -- to end
// the flags.
func parseFlags(fn string, in []exec.Datum, spec flagSpec) (*flagSet, error) {
	f := &flagSet{flags: map[string]string{}}
	bad := func(format string, a ...any) error {
		return pgerr.New(pgerr.InvalidParameterValue, "%s: %s", fn, fmt.Sprintf(format, a...))
	}
	var args []string
	for _, d := range in {
		if d.IsNull() {
			return nil, bad("arguments must not be NULL")
		}
		args = append(args, d.S)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			f.args = append(f.args, args[i+1:]...)
			return f, nil
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			if _, ok := spec.values[name]; !ok && !knownLong(spec, name) {
				return nil, bad("unknown option %q", a)
			}
			if spec.values[name] && !hasVal {
				if i+1 >= len(args) {
					return nil, bad("option %q needs a value", a)
				}
				i++
				val = args[i]
			}
			f.flags[name] = val
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				name, ok := spec.short[a[j]]
				if !ok {
					return nil, bad("unknown option \"-%c\"", a[j])
				}
				if !spec.values[name] {
					f.flags[name] = ""
					continue
				}
				val := a[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return nil, bad("option \"-%c\" needs a value", a[j])
					}
					i++
					val = args[i]
				}
				f.flags[name] = val
				break
			}
		default:
			f.args = append(f.args, a)
		}
	}
	return f, nil
}

func knownLong(spec flagSpec, name string) bool {
	for _, n := range spec.short {
		if n == name {
			return true
		}
	}
	return false
}

// commandResult is what a repository command returns: its fields, typed
// as the OUT columns of the function (sessionfuncs.go) that makes them the
// one row of its result.
func commandResult(fields ...exec.Datum) exec.Datum {
	return exec.DRecord(&exec.Record{Type: exec.OIDRecord, Fields: fields})
}

// statusOK is the result of a command whose only field is its status, 0.
func statusOK() exec.Datum { return commandResult(exec.DInt(0)) }

// hashOf is dolt_hashof(rev): the commit a revision names.
func (s *Session) hashOf(env *exec.Env, a []exec.Datum) (string, error) {
	c, err := s.resolveCommit(env.Ctx, a[0].S)
	return c.String(), err
}

// hashOfDB is dolt_hashof_db([rev]): the address of a revision's root,
// the working root by default.
func (s *Session) hashOfDB(env *exec.Env, a []exec.Datum) (string, error) {
	spec := "WORKING"
	if len(a) == 1 {
		spec = a[0].S
	}
	root, err := s.resolveRoot(env, spec)
	return root.Addr().String(), err
}

// mergeBase is dolt_merge_base(rev, rev): the best common ancestor of two
// commits, "" when they have none.
func (s *Session) mergeBase(env *exec.Env, a []exec.Datum) (string, error) {
	x, err := s.resolveCommit(env.Ctx, a[0].S)
	if err != nil {
		return "", err
	}
	y, err := s.resolveCommit(env.Ctx, a[1].S)
	if err != nil {
		return "", err
	}
	b, ok, err := s.repo.MergeBase(env.Ctx, x, y)
	if err != nil || !ok {
		return "", err
	}
	return b.String(), nil
}

// Version is what dolt_version() reports.
const Version = "0.1.0"

// hashOfTable is dolt_hashof_table(table [, rev]): the address of the
// table's rows, equal for equal contents whatever history made them.
func (s *Session) hashOfTable(env *exec.Env, a []exec.Datum) (string, error) {
	root := env.Txn.Root
	if len(a) == 2 {
		var err error
		if root, err = s.resolveRoot(env, a[1].S); err != nil {
			return "", err
		}
	}
	t, err := s.findTableIn(env.Ctx, root, a[0].S)
	if err != nil {
		return "", err
	}
	return t.Rows.String(), nil
}

// findTableIn resolves a possibly schema-qualified table name given as
// text against root, along the search path.
func (s *Session) findTableIn(ctx context.Context, root versioning.RootValue, name string) (*versioning.Table, error) {
	parts, err := parseQualifiedName(name)
	if err != nil {
		return nil, err
	}
	schema, rel := splitName(parts)
	schemas := []string{s.resolveSchemaName(schema)}
	if schema == "" {
		schemas = s.relationPath()
	}
	for _, sc := range schemas {
		t, ok, err := root.Table(ctx, sc, rel)
		if err != nil || ok {
			return t, err
		}
	}
	return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
}

// tableNames resolves dolt_add's and dolt_reset's table arguments against
// the tables of any of roots (a table being deleted is only in some).
func (s *Session) tableNames(ctx context.Context, roots []versioning.RootValue, names []string) ([]versioning.TableName, error) {
	var out []versioning.TableName
	for _, n := range names {
		var found *versioning.Table
		for _, r := range roots {
			if t, err := s.findTableIn(ctx, r, n); err == nil {
				found = t
				break
			}
		}
		if found == nil {
			return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", n)
		}
		out = append(out, versioning.TableName{Schema: found.Schema, Name: found.Name})
	}
	return out, nil
}

// doltAdd stages tables and other objects (dolt_objects.go):
// dolt_add('t1', 'v1'), dolt_add('.') or
// dolt_add('-A') for every change.
func (s *Session) doltAdd(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_add", a, flagSpec{short: map[byte]string{'A': "all"}})
	if err != nil {
		return exec.Null, err
	}
	all := f.has("all")
	for _, n := range f.args {
		all = all || n == "."
	}
	if !all && len(f.args) == 0 {
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "Nothing specified, nothing added.").
			WithHint("Maybe you wanted to say 'dolt_add('.')'?")
	}
	err = s.repo.UpdateWorkingRoots(env.Ctx, s.branch, func(_, staged, working versioning.RootValue, ws *versioning.WorkingSet) (*versioning.WorkingSet, error) {
		nws := *ws
		if all {
			nws.Staged = working.Addr()
			return &nws, nil
		}
		names, err := s.objectNames(env.Ctx, []versioning.RootValue{working, staged}, f.args)
		if err != nil {
			return nil, err
		}
		st, err := versioning.StageObjects(env.Ctx, staged, working, names)
		nws.Staged = st.Addr()
		return &nws, err
	})
	return statusOK(), err
}

// doltCommit is dolt_commit: -m message, -a (stage changed tables), -A
// (stage everything), --allow-empty, --amend, --author, --date.
func (s *Session) doltCommit(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_commit", a, flagSpec{
		short:  map[byte]string{'m': "message", 'a': "all", 'A': "ALL"},
		values: map[string]bool{"message": true, "author": true, "date": true, "allow-empty": false, "amend": false, "skip-empty": false},
	})
	if err != nil {
		return exec.Null, err
	}
	msg, hasMsg := f.flags["message"]
	if !hasMsg && !f.has("amend") {
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "dolt_commit: a commit message is required (-m)")
	}
	who := s.signature()
	opts := versioning.CommitOptions{Message: msg, Author: who, Committer: who, AllowEmpty: f.has("allow-empty"), Amend: f.has("amend")}
	if v, ok := f.flags["author"]; ok {
		if opts.Author, err = parseAuthor(v, who.When); err != nil {
			return exec.Null, err
		}
	}
	if v, ok := f.flags["date"]; ok {
		t, err := parseCommitDate(v)
		if err != nil {
			return exec.Null, err
		}
		opts.Author.When, opts.Committer.When = t, t
	}
	switch {
	case f.has("ALL"):
		opts.Stage = func(_ context.Context, _, _, working versioning.RootValue) (versioning.RootValue, error) {
			return working, nil
		}
	case f.has("all"):
		opts.Stage = versioning.StageTracked
	}
	c, err := s.repo.Commit(env.Ctx, s.branch, opts)
	if errors.Is(err, versioning.ErrNothingToCommit) && f.has("skip-empty") {
		return exec.Null, nil
	}
	if errors.Is(err, versioning.ErrNothingToCommit) {
		return exec.Null, pgerr.Wrap(err, pgerr.ObjectNotInPrerequisite, "nothing to commit").
			WithHint("Stage changes with dolt_add, or commit with --allow-empty.")
	}
	if err != nil {
		return exec.Null, err
	}
	return commandResult(exec.DText(c.String())), nil
}

// parseAuthor parses "Name <email>".
func parseAuthor(v string, when time.Time) (versioning.Signature, error) {
	i, j := strings.IndexByte(v, '<'), strings.LastIndexByte(v, '>')
	if i < 0 || j < i {
		return versioning.Signature{}, pgerr.New(pgerr.InvalidParameterValue, "author %q is not of the form \"Name <email>\"", v)
	}
	return versioning.Signature{Name: strings.TrimSpace(v[:i]), Email: strings.TrimSpace(v[i+1 : j]), When: when}, nil
}

// parseCommitDate parses --date in the forms Dolt accepts.
func parseCommitDate(v string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid commit date %q", v)
}

// doltBranch is dolt_branch: name [start], -c/--copy from to, -m/--move
// from to, -d/-D/--delete names, -f/--force.
func (s *Session) doltBranch(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_branch", a, flagSpec{short: map[byte]string{'c': "copy", 'm': "move", 'd': "delete", 'D': "delete-force", 'f': "force"}})
	if err != nil {
		return exec.Null, err
	}
	ctx := env.Ctx
	force := f.has("force") || f.has("delete-force")
	switch {
	case f.has("copy"), f.has("move"):
		if len(f.args) != 2 {
			return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "dolt_branch: -c and -m take the old and the new name")
		}
		if f.has("move") {
			if !force {
				if err := s.checkUnused(f.args[0]); err != nil {
					return exec.Null, err
				}
			}
			if err = s.repo.RenameBranch(ctx, f.args[0], f.args[1], force); err == nil && f.args[0] == s.branch {
				s.switchBranch(f.args[1]) // the session follows its branch
			}
		} else {
			err = s.repo.CopyBranch(ctx, f.args[0], f.args[1], force)
		}
	case f.has("delete"), f.has("delete-force"):
		if len(f.args) == 0 {
			return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "dolt_branch: which branch to delete?")
		}
		for _, b := range f.args {
			if b == s.branch {
				return exec.Null, pgerr.New(pgerr.ObjectNotInPrerequisite, "cannot delete the checked out branch %q", b).
					WithHint("Check out another branch first.")
			}
			if !force {
				if err = s.checkMerged(ctx, b); err != nil {
					break
				}
				if err = s.checkUnused(b); err != nil {
					break
				}
			}
			if err = s.repo.DeleteBranch(ctx, b); err != nil {
				break
			}
		}
	default:
		if len(f.args) == 0 || len(f.args) > 2 {
			return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "dolt_branch: give the new branch's name and, optionally, its start point")
		}
		start := "HEAD"
		if len(f.args) == 2 {
			start = f.args[1]
		}
		var c versioning.Address
		if c, err = s.resolveCommit(ctx, start); err == nil {
			err = s.repo.CreateBranch(ctx, f.args[0], c, force)
		}
	}
	if err != nil {
		return exec.Null, err
	}
	return statusOK(), nil
}

// checkMerged refuses, as git branch -d does, to delete a branch whose
// commits HEAD does not have.
func (s *Session) checkMerged(ctx context.Context, branch string) error {
	tip, err := s.repo.BranchHead(ctx, branch)
	if err != nil {
		return err
	}
	head, err := s.headCommit(ctx)
	if err != nil {
		return err
	}
	merged, err := s.repo.IsAncestor(ctx, tip, head)
	if err != nil || merged {
		return err
	}
	return pgerr.New(pgerr.ObjectNotInPrerequisite, "branch %q is not fully merged", branch).
		WithHint("To delete it anyway, use dolt_branch('-D', '%s').", branch)
}

// doltCheckout is dolt_checkout: a branch to switch the session to, -b
// name [start] to create one and switch, or tables and other objects to
// restore from the staged root.
func (s *Session) doltCheckout(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_checkout", a, flagSpec{short: map[byte]string{'b': "branch", 'B': "force-branch"}, values: map[string]bool{"branch": true, "force-branch": true}})
	if err != nil {
		return exec.Null, err
	}
	ctx := env.Ctx
	if nb, ok := f.flags["branch"]; ok || f.has("force-branch") {
		force := !ok
		if force {
			nb = f.flags["force-branch"]
		}
		start := "HEAD"
		if len(f.args) > 0 {
			start = f.args[0]
		}
		c, err := s.resolveCommit(ctx, start)
		if err != nil {
			return exec.Null, err
		}
		if err := s.repo.CreateBranch(ctx, nb, c, force); err != nil {
			return exec.Null, err
		}
		s.switchBranch(nb)
		// Doltgres says "Switched to branch" for a new branch too.
		return commandResult(exec.DInt(0), exec.DText(fmt.Sprintf("Switched to branch '%s'", nb))), nil
	}
	if len(f.args) == 0 {
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "dolt_checkout: give a branch or tables")
	}
	if len(f.args) == 1 {
		if ok, err := s.repo.HasBranch(ctx, f.args[0]); err != nil {
			return exec.Null, err
		} else if ok {
			if f.args[0] == s.branch {
				return commandResult(exec.DInt(0), exec.DText(fmt.Sprintf("Already on branch '%s'", s.branch))), nil
			}
			s.switchBranch(f.args[0])
			return commandResult(exec.DInt(0), exec.DText(fmt.Sprintf("Switched to branch '%s'", f.args[0]))), nil
		}
	}
	// Tables: their working versions are replaced by the staged ones.
	err = s.repo.UpdateWorkingRoots(ctx, s.branch, func(_, staged, working versioning.RootValue, ws *versioning.WorkingSet) (*versioning.WorkingSet, error) {
		names, err := s.objectNames(ctx, []versioning.RootValue{working, staged}, f.args)
		if err != nil {
			if len(f.args) == 1 {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "%q is neither a branch nor a table", f.args[0])
			}
			return nil, err
		}
		w, err := versioning.StageObjects(ctx, working, staged, names)
		nws := *ws
		nws.Working = w.Addr()
		return &nws, err
	})
	if err != nil {
		return exec.Null, err
	}
	return statusOK(), nil
}

// checkUnused refuses to delete or rename a branch other sessions work
// on (Dolt's rule); --force overrides it.
func (s *Session) checkUnused(branch string) error {
	if s.e.live.onBranch(s.repo.Name(), branch, s) > 0 {
		return pgerr.New(pgerr.ObjectInUse, "branch %q is checked out by another session", branch).
			WithHint("Use --force to delete or rename it anyway; those sessions will fail until they switch branches.")
	}
	return nil
}

// switchBranch makes the session work on branch from its next statement.
func (s *Session) switchBranch(branch string) {
	s.branch = branch
	if a := s.activity.Load(); a != nil {
		s.publish(a.state, "") // other sessions see the branch it is on
	}
	s.planGen++ // plans name tables of the old branch's root
	s.catCache = catalogCache{}
	s.moveNotify() // LISTEN hears the new branch
}

// doltReset is dolt_reset: --hard or --soft with an optional revision, a
// revision alone (mixed), or tables and other objects to unstage.
func (s *Session) doltReset(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_reset", a, flagSpec{values: map[string]bool{"hard": false, "soft": false, "mixed": false}})
	if err != nil {
		return exec.Null, err
	}
	ctx := env.Ctx
	mode := versioning.ResetMixed
	switch {
	case f.has("hard"):
		mode = versioning.ResetHard
	case f.has("soft"):
		mode = versioning.ResetSoft
	}
	rev := "HEAD"
	var tables []string
	if len(f.args) > 0 {
		// A first argument that names a revision is one; otherwise all
		// are tables.
		switch _, err := s.resolveCommit(ctx, f.args[0]); {
		case err == nil:
			rev, tables = f.args[0], f.args[1:]
		case errors.Is(err, versioning.ErrNoRevision) && mode == versioning.ResetHard:
			return exec.Null, err // --hard takes a revision, not tables
		case errors.Is(err, versioning.ErrNoRevision):
			tables = f.args
		default:
			return exec.Null, err
		}
	}
	if len(tables) > 0 {
		if mode == versioning.ResetHard {
			return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "dolt_reset: --hard does not take tables")
		}
		err = s.repo.UpdateWorkingRoots(ctx, s.branch, func(head, staged, working versioning.RootValue, ws *versioning.WorkingSet) (*versioning.WorkingSet, error) {
			names, err := s.objectNames(ctx, []versioning.RootValue{staged, head, working}, tables)
			if err != nil {
				return nil, err
			}
			st, err := versioning.StageObjects(ctx, staged, head, names)
			nws := *ws
			nws.Staged = st.Addr()
			return &nws, err
		})
		return statusOK(), err
	}
	c, err := s.resolveCommit(ctx, rev)
	if err != nil {
		return exec.Null, err
	}
	if mode == versioning.ResetSoft && rev == "HEAD" {
		mode = versioning.ResetMixed // Dolt's --soft without a revision unstages
	}
	if err := s.repo.Reset(ctx, s.branch, c, mode); err != nil {
		return exec.Null, err
	}
	return statusOK(), nil
}

// doltTag is dolt_tag: name [rev] with -m message, or -d name.
func (s *Session) doltTag(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_tag", a, flagSpec{short: map[byte]string{'m': "message", 'd': "delete"}, values: map[string]bool{"message": true, "author": true}})
	if err != nil {
		return exec.Null, err
	}
	ctx := env.Ctx
	if f.has("delete") {
		for _, t := range f.args {
			if err := s.repo.DeleteTag(ctx, t); err != nil {
				return exec.Null, err
			}
		}
		return statusOK(), nil
	}
	if len(f.args) == 0 || len(f.args) > 2 {
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "dolt_tag: give the tag's name and, optionally, a revision")
	}
	rev := "HEAD"
	if len(f.args) == 2 {
		rev = f.args[1]
	}
	c, err := s.resolveCommit(ctx, rev)
	if err != nil {
		return exec.Null, err
	}
	tagger := s.signature()
	if v, ok := f.flags["author"]; ok {
		if tagger, err = parseAuthor(v, tagger.When); err != nil {
			return exec.Null, err
		}
	}
	if err := s.repo.CreateTag(ctx, f.args[0], &versioning.Tag{Commit: c, Tagger: tagger, Message: f.flags["message"]}); err != nil {
		return exec.Null, err
	}
	return statusOK(), nil
}

// doltClean is dolt_clean: drops the working tables that are not staged
// nor in HEAD (all, or the named ones) and, with no names, such views,
// functions and sequences too.
func (s *Session) doltClean(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_clean", a, flagSpec{values: map[string]bool{"dry-run": false}})
	if err != nil {
		return exec.Null, err
	}
	ctx := env.Ctx
	if f.has("dry-run") {
		return statusOK(), nil
	}
	err = s.repo.UpdateWorkingRoots(ctx, s.branch, func(head, staged, working versioning.RootValue, ws *versioning.WorkingSet) (*versioning.WorkingSet, error) {
		var want map[versioning.TableName]bool
		if len(f.args) > 0 {
			names, err := s.tableNames(ctx, []versioning.RootValue{working}, f.args)
			if err != nil {
				return nil, err
			}
			want = map[versioning.TableName]bool{}
			for _, n := range names {
				want[n] = true
			}
		}
		changes, err := versioning.Changes(ctx, staged, working)
		if err != nil {
			return nil, err
		}
		var drop []versioning.TableName
		var dropObjects []versioning.ObjectName
		for _, c := range changes {
			n := versioning.TableName{Schema: c.Schema, Name: c.Name}
			switch {
			case c.IsTable() && c.From == nil && (want == nil || want[n]):
				if _, inHead, err := head.Table(ctx, c.Schema, c.Name); err != nil {
					return nil, err
				} else if !inHead {
					drop = append(drop, n)
				}
			case want == nil && c.From == nil && c.IsObject() && c.Kind != versioning.KindType:
				// New views, functions and sequences go too when cleaning
				// everything; types stay, as a kept table may use them.
				o := versioning.ObjectName{Kind: c.Kind, Schema: c.Schema, Name: c.Name}
				if _, inHead, err := head.ObjectRecord(ctx, o); err != nil {
					return nil, err
				} else if !inHead {
					dropObjects = append(dropObjects, o)
				}
			}
		}
		w, err := versioning.StageTables(ctx, working, staged, drop)
		if err == nil && len(dropObjects) > 0 {
			w, err = versioning.StageObjects(ctx, w, staged, dropObjects)
		}
		nws := *ws
		nws.Working = w.Addr()
		return &nws, err
	})
	if err != nil {
		return exec.Null, err
	}
	return statusOK(), nil
}
