package dolt

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// The dolt_* functions that read revisions and move branches, as Doltgres
// has them: dolt_hashof and its kin, dolt_add, dolt_commit, dolt_branch,
// dolt_checkout, dolt_reset, dolt_tag and dolt_clean (funcs.go registers
// them). Each function that changes the repository first commits the open
// SQL transaction (as Doltgres does), then moves refs by compare-and-set,
// durably; the next statement starts a transaction from the new working
// root. The functions that merge are in merge.go; the tables and table
// functions that read history in tables.go.

// commandResult is what a repository command returns: its fields, typed
// as the OUT columns of the function (funcs.go) that makes them the one
// row of its result.
func commandResult(fields ...exec.Datum) exec.Datum {
	return exec.DRecord(&exec.Record{Type: exec.OIDRecord, Fields: fields})
}

// statusOK is the result of a command whose only field is its status, 0.
func statusOK() exec.Datum { return commandResult(exec.DInt(0)) }

// hashOf is dolt_hashof(rev): the commit a revision names.
func (s session) hashOf(env *exec.Env, a []exec.Datum) (string, error) {
	c, err := s.resolveCommit(env.Ctx, a[0].S)
	return c.String(), err
}

// hashOfDB is dolt_hashof_db([rev]): the address of a revision's root,
// the working root by default.
func (s session) hashOfDB(env *exec.Env, a []exec.Datum) (string, error) {
	spec := "WORKING"
	if len(a) == 1 {
		spec = a[0].S
	}
	root, err := s.resolveRoot(env, spec)
	return root.Addr().String(), err
}

// mergeBase is dolt_merge_base(rev, rev): the best common ancestor of two
// commits, "" when they have none.
func (s session) mergeBase(env *exec.Env, a []exec.Datum) (string, error) {
	x, err := s.resolveCommit(env.Ctx, a[0].S)
	if err != nil {
		return "", err
	}
	y, err := s.resolveCommit(env.Ctx, a[1].S)
	if err != nil {
		return "", err
	}
	b, ok, err := s.Repo().MergeBase(env.Ctx, x, y)
	if err != nil || !ok {
		return "", err
	}
	return b.String(), nil
}

// hashOfTable is dolt_hashof_table(table [, rev]): the address of the
// table's rows, equal for equal contents whatever history made them.
func (s session) hashOfTable(env *exec.Env, a []exec.Datum) (string, error) {
	root := env.Txn.Root()
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
// text against root, along the search path. An unqualified name that
// no schema of the path has is, as Doltgres finds it, the table of that
// name in the first schema (by name) that has one, dolt's (dolt.docs)
// last.
func (s session) findTableIn(ctx context.Context, root versioning.RootValue, name string) (*sqldef.Table, error) {
	schema, rel, err := s.ParseName(name)
	if err != nil {
		return nil, err
	}
	for _, sc := range s.RelationSchemas(schema) {
		t, ok, err := root.Table(ctx, sc, rel)
		if err != nil || ok {
			return t, err
		}
	}
	if schema == "" {
		schemas, err := root.Schemas(ctx)
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(schemas)+1)
		for _, sc := range schemas {
			names = append(names, sc.Name)
		}
		for _, sc := range append(names, systemSchema) {
			t, ok, err := root.Table(ctx, sc, rel)
			if err != nil || ok {
				return t, err
			}
		}
	}
	if sc, stored, ok := StoredName(schema, rel); ok {
		// dolt_docs is dolt.docs here too, as in FROM.
		if t, ok, err := root.Table(ctx, sc, stored); err != nil || ok {
			return t, err
		}
	}
	return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
}

// doltAdd stages tables and other objects (objects.go):
// dolt_add('t1', 'v1'), dolt_add('.') or
// dolt_add('-A') for every change.
func (s session) doltAdd(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
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
	err = s.Repo().UpdateWorkingRoots(env.Ctx, s.Branch(), func(_, staged, working versioning.RootValue, ws *versioning.WorkingSet) (*versioning.WorkingSet, error) {
		nws := *ws
		if all {
			st, err := stageAll(env.Ctx, staged, working)
			nws.Staged = st.Addr()
			return &nws, err
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
func (s session) doltCommit(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
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
	who := s.Signature()
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
		opts.Stage = func(ctx context.Context, _, staged, working versioning.RootValue) (versioning.RootValue, error) {
			return stageAll(ctx, staged, working)
		}
	case f.has("all"):
		opts.Stage = versioning.StageTracked
	}
	c, err := s.Repo().Commit(env.Ctx, s.Branch(), opts)
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

// notCheckedOut is dolt_checkout's error for a name that is neither a
// branch nor a table: a tag is refused (a session on a branch cannot
// be left on a detached head), anything else is unknown; worded as
// Dolt words them.
func (s session) notCheckedOut(ctx context.Context, name string) error {
	if _, _, err := s.Repo().Tag(ctx, name); err == nil {
		return pgerr.New(pgerr.InvalidParameterValue, "dolt_checkout: %q is a tag, and checking it out would leave a detached head", name).
			WithHint("Read it by connecting to database \"%s@%s\", or make a branch of it with dolt_checkout('-b', branch, '%s').", s.Repo().Name(), name, name)
	}
	return pgerr.New(pgerr.InvalidParameterValue, "'%s' did not match any table or branch", name)
}

// doltBranch is dolt_branch: name [start], -c/--copy from to, -m/--move
// from to, -d/-D/--delete names, -f/--force.
func (s session) doltBranch(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
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
		if err := s.RequireBranchCreate(ctx, f.args[1]); err != nil {
			return exec.Null, err
		}
		if f.has("move") || force {
			if err := s.RequireBranchWrite(ctx, f.args[0]); err != nil {
				return exec.Null, err
			}
		}
		if f.has("move") {
			if !force {
				if err := s.checkUnused(f.args[0]); err != nil {
					return exec.Null, err
				}
			}
			if err = s.Repo().RenameBranch(ctx, f.args[0], f.args[1], force); err == nil && f.args[0] == s.Branch() {
				s.SwitchBranch(f.args[1]) // the session follows its branch
			}
		} else {
			err = s.Repo().CopyBranch(ctx, f.args[0], f.args[1], force)
		}
	case f.has("delete"), f.has("delete-force"):
		if len(f.args) == 0 {
			return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "dolt_branch: which branch to delete?")
		}
		for _, b := range f.args {
			if err := s.RequireBranchWrite(ctx, b); err != nil {
				return exec.Null, err
			}
			if b == s.Branch() {
				// Dolt's words.
				return exec.Null, pgerr.New(pgerr.ObjectNotInPrerequisite, "Cannot delete checked out branch '%s'", b).
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
			if err = s.Repo().DeleteBranch(ctx, b); err != nil {
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
		if err := s.RequireBranchCreate(ctx, f.args[0]); err != nil {
			return exec.Null, err
		}
		var c versioning.Address
		if c, err = s.resolveCommit(ctx, start); err == nil {
			err = s.Repo().CreateBranch(ctx, f.args[0], c, force)
		}
	}
	if err != nil {
		return exec.Null, err
	}
	return statusOK(), nil
}

// checkMerged refuses, as git branch -d does, to delete a branch whose
// commits HEAD does not have.
func (s session) checkMerged(ctx context.Context, branch string) error {
	tip, err := s.Repo().BranchHead(ctx, branch)
	if err != nil {
		return err
	}
	head, err := s.headCommit(ctx)
	if err != nil {
		return err
	}
	merged, err := s.Repo().IsAncestor(ctx, tip, head)
	if err != nil || merged {
		return err
	}
	return pgerr.New(pgerr.ObjectNotInPrerequisite, "branch %q is not fully merged", branch).
		WithHint("To delete it anyway, use dolt_branch('-D', '%s').", branch)
}

// doltCheckout is dolt_checkout: a branch to switch the session to, -b
// name [start] to create one and switch, or tables and other objects to
// restore from the staged root.
func (s session) doltCheckout(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
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
		if err := s.RequireBranchCreate(ctx, nb); err != nil {
			return exec.Null, err
		}
		if err := s.Repo().CreateBranch(ctx, nb, c, force); err != nil {
			return exec.Null, err
		}
		s.SwitchBranch(nb)
		// Doltgres says "Switched to branch" for a new branch too.
		return commandResult(exec.DInt(0), exec.DText(fmt.Sprintf("Switched to branch '%s'", nb))), nil
	}
	if len(f.args) == 0 {
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "dolt_checkout: give a branch or tables")
	}
	if len(f.args) == 1 {
		if ok, err := s.Repo().HasBranch(ctx, f.args[0]); err != nil {
			return exec.Null, err
		} else if ok {
			if f.args[0] == s.Branch() {
				return commandResult(exec.DInt(0), exec.DText(fmt.Sprintf("Already on branch '%s'", s.Branch()))), nil
			}
			s.SwitchBranch(f.args[0])
			return commandResult(exec.DInt(0), exec.DText(fmt.Sprintf("Switched to branch '%s'", f.args[0]))), nil
		}
	}
	// Tables: their working versions are replaced by the staged ones.
	err = s.Repo().UpdateWorkingRoots(ctx, s.Branch(), func(_, staged, working versioning.RootValue, ws *versioning.WorkingSet) (*versioning.WorkingSet, error) {
		names, err := s.objectNames(ctx, []versioning.RootValue{working, staged}, f.args)
		if err != nil {
			if len(f.args) == 1 {
				return nil, s.notCheckedOut(ctx, f.args[0])
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
func (s session) checkUnused(branch string) error {
	if s.BranchInUse(branch) {
		return pgerr.New(pgerr.ObjectInUse, "branch %q is checked out by another session", branch).
			WithHint("Use --force to delete or rename it anyway; those sessions will fail until they switch branches.")
	}
	return nil
}

// doltReset is dolt_reset: --hard or --soft with an optional revision, a
// revision alone (mixed), or tables and other objects to unstage.
func (s session) doltReset(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
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
		err = s.Repo().UpdateWorkingRoots(ctx, s.Branch(), func(head, staged, working versioning.RootValue, ws *versioning.WorkingSet) (*versioning.WorkingSet, error) {
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
	if mode == versioning.ResetSoft && len(f.args) == 0 {
		// Dolt's --soft without a revision unstages; with one, even
		// HEAD, it moves the head only, as Git's.
		mode = versioning.ResetMixed
	}
	if err := s.Repo().Reset(ctx, s.Branch(), c, mode); err != nil {
		return exec.Null, err
	}
	return statusOK(), nil
}

// doltRm is dolt_rm: tables leave the working set and the staged one, as
// files leave a Git work tree and index with git rm; with --cached they
// leave the staged set only (a new table is unstaged, a committed one's
// removal is staged) and stay in the working set.
func (s session) doltRm(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_rm", a, flagSpec{values: map[string]bool{"cached": false}})
	if err != nil {
		return exec.Null, err
	}
	if len(f.args) == 0 {
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "Nothing specified, nothing removed.")
	}
	ctx := env.Ctx
	err = s.Repo().UpdateWorkingRoots(ctx, s.Branch(), func(_, staged, working versioning.RootValue, ws *versioning.WorkingSet) (*versioning.WorkingSet, error) {
		names, err := s.objectNames(ctx, []versioning.RootValue{working, staged}, f.args)
		if err != nil {
			return nil, err
		}
		nws := *ws
		if !f.has("cached") {
			// The tables' own sequences go with them, as with DROP
			// TABLE; --cached unstages only what it names.
			var tables []sqldef.TableName
			for _, n := range names {
				if n.Kind == versioning.KindTable {
					tables = append(tables, sqldef.TableName{Schema: n.Schema, Name: n.Name})
				}
			}
			if names, err = withOwnedSequences(ctx, names, tables, working, staged); err != nil {
				return nil, err
			}
			if working, err = versioning.RemoveObjects(ctx, working, names); err != nil {
				return nil, err
			}
			nws.Working = working.Addr()
		}
		// The staged set takes the objects' state from a working set
		// without them: absent.
		without, err := versioning.RemoveObjects(ctx, staged, names)
		if err != nil {
			return nil, err
		}
		st, err := versioning.StageObjects(ctx, staged, without, names)
		nws.Staged = st.Addr()
		return &nws, err
	})
	return statusOK(), err
}

// withOwnedSequences appends to objects, once each, the sequences that
// tables own in any of roots: they go where their tables go, as DROP
// TABLE takes them.
func withOwnedSequences(ctx context.Context, objects []versioning.ObjectName, tables []sqldef.TableName, roots ...versioning.RootValue) ([]versioning.ObjectName, error) {
	for _, t := range tables {
		for _, r := range roots {
			def, ok, err := r.Table(ctx, t.Schema, t.Name)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			owned, err := r.OwnedSequences(ctx, def)
			if err != nil {
				return nil, err
			}
			for _, seq := range owned {
				o := versioning.ObjectName{Kind: versioning.KindSequence, Schema: seq.Schema, Name: seq.Name}
				if !slices.Contains(objects, o) {
					objects = append(objects, o)
				}
			}
		}
	}
	return objects, nil
}

// doltTag is dolt_tag: name [rev] with -m message, or -d name.
func (s session) doltTag(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_tag", a, flagSpec{short: map[byte]string{'m': "message", 'd': "delete"}, values: map[string]bool{"message": true, "author": true}})
	if err != nil {
		return exec.Null, err
	}
	ctx := env.Ctx
	if f.has("delete") {
		for _, t := range f.args {
			if err := s.Repo().DeleteTag(ctx, t); err != nil {
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
	tagger := s.Signature()
	if v, ok := f.flags["author"]; ok {
		if tagger, err = parseAuthor(v, tagger.When); err != nil {
			return exec.Null, err
		}
	}
	if err := s.Repo().CreateTag(ctx, f.args[0], &versioning.Tag{Commit: c, Tagger: tagger, Message: f.flags["message"]}); err != nil {
		return exec.Null, err
	}
	return statusOK(), nil
}

// doltClean is dolt_clean: drops the working tables that are not staged
// nor in HEAD (all but those dolt_ignore ignores, or the named ones)
// and, with no names, such views, functions and sequences too.
func (s session) doltClean(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_clean", a, flagSpec{values: map[string]bool{"dry-run": false}})
	if err != nil {
		return exec.Null, err
	}
	ctx := env.Ctx
	if f.has("dry-run") {
		return statusOK(), nil
	}
	err = s.Repo().UpdateWorkingRoots(ctx, s.Branch(), func(head, staged, working versioning.RootValue, ws *versioning.WorkingSet) (*versioning.WorkingSet, error) {
		var want map[sqldef.TableName]bool
		var wantObjects map[versioning.ObjectName]bool
		if len(f.args) > 0 {
			names, err := s.objectNames(ctx, []versioning.RootValue{working}, f.args)
			if err != nil {
				return nil, err
			}
			want, wantObjects = map[sqldef.TableName]bool{}, map[versioning.ObjectName]bool{}
			for _, n := range names {
				if n.Kind == versioning.KindTable {
					want[sqldef.TableName{Schema: n.Schema, Name: n.Name}] = true
				} else {
					wantObjects[n] = true
				}
			}
		}
		changes, err := versioning.Changes(ctx, staged, working)
		if err != nil {
			return nil, err
		}
		var ignored map[sqldef.TableName]bool
		if want == nil {
			// Cleaning everything leaves the tables dolt_ignore
			// ignores, as git clean leaves ignored files.
			if ignored, err = ignoredTables(ctx, staged, working); err != nil {
				return nil, err
			}
		}
		var drop []sqldef.TableName
		var dropObjects []versioning.ObjectName
		for _, c := range changes {
			n := sqldef.TableName{Schema: c.Schema, Name: c.Name}
			o := versioning.ObjectName{Kind: c.Kind, Schema: c.Schema, Name: c.Name}
			switch {
			case c.IsTable() && c.From == nil && (want == nil && !ignored[n] || want[n]):
				if _, inHead, err := head.Table(ctx, c.Schema, c.Name); err != nil {
					return nil, err
				} else if !inHead {
					drop = append(drop, n)
				}
			case c.From == nil && c.IsObject() && (want == nil && c.Kind != versioning.KindType || wantObjects[o]):
				// New views, functions and sequences go too when cleaning
				// everything; types stay, as a kept table may use them.
				if _, inHead, err := head.ObjectRecord(ctx, o); err != nil {
					return nil, err
				} else if !inHead {
					dropObjects = append(dropObjects, o)
				}
			}
		}
		if dropObjects, err = withOwnedSequences(ctx, dropObjects, drop, working); err != nil {
			return nil, err
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

// doltRemote is dolt_remote('add', name, url) and dolt_remote('remove' or
// 'rm', name): the database's remotes, which dolt.remotes lists and
// dolt_push, dolt_fetch and dolt_pull use (remotes.go).
func (s session) doltRemote(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_remote", a, flagSpec{})
	if err != nil {
		return exec.Null, err
	}
	usage := pgerr.New(pgerr.InvalidParameterValue, "dolt_remote: use dolt_remote('add', name, url) or dolt_remote('remove', name)")
	if len(f.args) == 0 {
		return exec.Null, usage
	}
	switch f.args[0] {
	case "add":
		if len(f.args) != 3 {
			return exec.Null, usage
		}
		if err := s.Repo().AddRemote(env.Ctx, versioning.Remote{Name: f.args[1], URL: f.args[2]}); err != nil {
			return exec.Null, err
		}
	case "remove", "rm":
		if len(f.args) != 2 {
			return exec.Null, usage
		}
		if err := s.Repo().RemoveRemote(env.Ctx, f.args[1]); err != nil {
			return exec.Null, err
		}
	default:
		return exec.Null, usage
	}
	return statusOK(), nil
}

// doltGC is dolt_gc(): a garbage collection of the whole store (every
// database's refs are its roots), reported in a NOTICE and the log.
// --shallow and --full are accepted; both collect everything.
func (s session) doltGC(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	for _, arg := range a {
		if arg.S != "--shallow" && arg.S != "--full" {
			return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "dolt_gc: unknown option %q", arg.S)
		}
	}
	res, err := s.CollectGarbage(env.Ctx)
	if err != nil {
		return exec.Null, err
	}
	s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "dolt_gc: kept %d chunks (%d bytes), removed %d chunks (%d bytes); data directory %d -> %d bytes",
		res.ChunksKept, res.BytesKept, res.ChunksRemoved, res.BytesRemoved, res.DiskBefore, res.DiskAfter))
	return statusOK(), nil
}
