package dolt

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// The functions that merge commits into the session's branch, as
// Doltgres has them: dolt_merge, dolt_cherry_pick, dolt_revert and
// dolt_conflicts_resolve. The merge itself is versioning.Merge; the
// index entries of merged rows are computed by exec.MergeIndexer.

// mergeError gives the merge's errors their SQLSTATEs.
func mergeError(err error) error {
	if errors.Is(err, versioning.ErrUnmergeable) {
		return pgerr.Wrap(err, pgerr.ObjectNotInPrerequisite, "%s", strings.TrimPrefix(err.Error(), "versioning: "))
	}
	if errors.Is(err, versioning.ErrUnresolvedConflicts) {
		return pgerr.Wrap(err, pgerr.ObjectNotInPrerequisite, "%s", strings.TrimPrefix(err.Error(), "versioning: ")).
			WithHint("Resolve them with dolt_conflicts_resolve or the dolt_conflicts_<table> tables.")
	}
	return vcsError(err)
}

// who returns the signatures of a commit the session makes: the
// session's user, or --author.
func (s session) who(f *flagSet) (author, committer versioning.Signature, err error) {
	committer = s.Signature()
	author = committer
	if v, ok := f.flags["author"]; ok {
		author, err = parseAuthor(v, committer.When)
	}
	return author, committer, err
}

// mergeResult is dolt_merge's row: the merge commit (empty when none was
// made), whether it fast-forwarded, the conflicts left, and a message.
func mergeResult(hash string, fastForward, conflicts int64, message string) exec.Datum {
	return commandResult(exec.DText(hash), exec.DInt(fastForward), exec.DInt(conflicts), exec.DText(message))
}

// doltMerge is dolt_merge(rev, ['--no-ff'], ['--squash'], ['--no-commit'],
// ['-m', msg], ['--author', who]) or dolt_merge('--abort'). It returns
// {hash, fast_forward, conflicts, message}: conflicts counts the rows in
// conflict, the tables whose schemas did not merge and the constraint
// violations.
func (s session) doltMerge(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_merge", a, flagSpec{
		short:  map[byte]string{'m': "message"},
		values: map[string]bool{"message": true, "author": true, "no-ff": false, "squash": false, "abort": false, "no-commit": false},
	})
	if err != nil {
		return exec.Null, err
	}
	ctx := env.Ctx
	if f.has("abort") {
		if err := s.Repo().AbortMerge(ctx, s.Branch()); err != nil {
			return exec.Null, err
		}
		return commandResult(exec.DText(""), exec.DInt(0), exec.DInt(0), exec.DText("merge aborted")), nil
	}
	if len(f.args) != 1 {
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "dolt_merge: give one branch or revision to merge")
	}
	theirs, err := s.resolveCommit(ctx, f.args[0])
	if err != nil {
		return exec.Null, err
	}
	author, committer, err := s.who(f)
	if err != nil {
		return exec.Null, err
	}
	out, err := s.Repo().MergeBranch(ctx, s.Branch(), versioning.MergeSpec{
		Theirs: theirs, TheirsName: f.args[0], NoFF: f.has("no-ff"), Squash: f.has("squash"), NoCommit: f.has("no-commit"),
		Message: f.flags["message"], Author: author, Committer: committer, Indexes: exec.NewMergeIndexer(env.Txn),
	})
	if err != nil {
		return exec.Null, err
	}
	res := out.Result
	conflicts := int64(res.Conflicts + res.SchemaConflicts + res.Violations)
	switch {
	case out.UpToDate:
		head, err := s.headCommit(ctx)
		return mergeResult(head.String(), 0, 0, "Everything up-to-date"), err
	case out.FastForward:
		return mergeResult(out.Commit.String(), 1, 0, "merge successful"), nil
	case !res.Clean():
		return mergeResult("", 0, conflicts, "conflicts found"), nil
	case out.Commit.IsZero():
		return mergeResult("", 0, 0, "merge successful"), nil // --squash, --no-commit
	}
	return mergeResult(out.Commit.String(), 0, 0, "merge successful"), nil
}

// commitAndParent returns a commit named by spec, its root and its
// (only) parent's root.
func (s session) commitAndParent(ctx context.Context, fn, spec string) (versioning.Address, *versioning.Commit, versioning.RootValue, versioning.RootValue, error) {
	none := versioning.RootValue{}
	c, err := s.resolveCommit(ctx, spec)
	if err != nil {
		return versioning.Address{}, nil, none, none, err
	}
	root, commit, err := s.Repo().CommitRoot(ctx, c)
	if err != nil {
		return versioning.Address{}, nil, none, none, err
	}
	switch len(commit.Parents) {
	case 0:
		return versioning.Address{}, nil, none, none, pgerr.New(pgerr.InvalidParameterValue, "%s: commit %s has no parent", fn, c)
	case 1:
	default:
		return versioning.Address{}, nil, none, none, pgerr.New(pgerr.FeatureNotSupported, "%s: commit %s is a merge commit", fn, c)
	}
	parent, _, err := s.Repo().CommitRoot(ctx, commit.Parents[0])
	return c, commit, root, parent, err
}

// doltCherryPick is dolt_cherry_pick(rev): the change rev made to its
// parent, applied onto HEAD and committed with rev's message and author.
// It returns {hash, data_conflicts, schema_conflicts,
// constraint_violations}; with conflicts nothing is committed and they
// wait in the working set.
func (s session) doltCherryPick(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_cherry_pick", a, flagSpec{values: map[string]bool{"abort": false, "allow-empty": false}})
	if err != nil {
		return exec.Null, err
	}
	ctx := env.Ctx
	if f.has("abort") {
		return commandResult(exec.DText(""), exec.DInt(0), exec.DInt(0), exec.DInt(0)), s.Repo().AbortMerge(ctx, s.Branch())
	}
	if len(f.args) != 1 {
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "dolt_cherry_pick: give one commit to cherry-pick")
	}
	c, commit, root, parent, err := s.commitAndParent(ctx, "dolt_cherry_pick", f.args[0])
	if err != nil {
		return exec.Null, err
	}
	made, res, err := s.Repo().ApplyChange(ctx, s.Branch(), versioning.ApplySpec{
		Base: parent, Theirs: root, FromRoot: c.String(), Message: commit.Message,
		Author: commit.Author, Committer: s.Signature(), Indexes: exec.NewMergeIndexer(env.Txn),
	})
	if err != nil {
		return exec.Null, err
	}
	hash := ""
	if !made.IsZero() {
		hash = made.String()
	}
	return commandResult(exec.DText(hash), exec.DInt(int64(res.Conflicts)), exec.DInt(int64(res.SchemaConflicts)), exec.DInt(int64(res.Violations))), nil
}

// doltRevert is dolt_revert(rev...): for each rev, the inverse of the
// change it made to its parent, applied onto HEAD and committed as
// Revert "message". A revert that conflicts fails and changes nothing.
// It returns {hash, data_conflicts, schema_conflicts,
// constraint_violations}, as dolt_cherry_pick does.
func (s session) doltRevert(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_revert", a, flagSpec{values: map[string]bool{"author": true}})
	if err != nil {
		return exec.Null, err
	}
	if len(f.args) == 0 {
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "dolt_revert: give the commits to revert")
	}
	ctx := env.Ctx
	author, committer, err := s.who(f)
	if err != nil {
		return exec.Null, err
	}
	var last versioning.Address
	for _, rev := range f.args {
		c, commit, root, parent, err := s.commitAndParent(ctx, "dolt_revert", rev)
		if err != nil {
			return exec.Null, err
		}
		last, _, err = s.Repo().ApplyChange(ctx, s.Branch(), versioning.ApplySpec{
			Base: root, Theirs: parent, FromRoot: c.String(), Message: "Revert \"" + commit.Message + "\"",
			Author: author, Committer: committer, Indexes: exec.NewMergeIndexer(env.Txn), FailOnConflicts: true,
		})
		if err != nil {
			return exec.Null, err
		}
	}
	// Doltgres's shape, dolt_cherry_pick's: a revert that conflicts
	// fails, so the counts are 0.
	return commandResult(exec.DText(last.String()), exec.DInt(0), exec.DInt(0), exec.DInt(0)), nil
}

// doltConflictsResolve is dolt_conflicts_resolve('--ours'|'--theirs',
// table... | '.'): the conflicts of the tables resolved by keeping the
// working rows or taking the merged-in ones. Objects other than tables
// (views, types, functions) in conflict are named the same way: a
// function by its name, or with its arguments as dolt_status shows it.
func (s session) doltConflictsResolve(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_conflicts_resolve", a, flagSpec{values: map[string]bool{"ours": false, "theirs": false}})
	if err != nil {
		return exec.Null, err
	}
	if f.has("ours") == f.has("theirs") {
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "dolt_conflicts_resolve: give one of --ours and --theirs")
	}
	if len(f.args) == 0 {
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "dolt_conflicts_resolve: give the tables, or '.' for all")
	}
	ctx := env.Ctx
	enc := exec.NewMergeIndexer(env.Txn)
	err = s.Repo().UpdateWorkingRoots(ctx, s.Branch(), func(_, _, working versioning.RootValue, ws *versioning.WorkingSet) (*versioning.WorkingSet, error) {
		tables, err := s.conflictedTables(ctx, working, f.args)
		if err != nil {
			return nil, err
		}
		for _, t := range tables {
			if working, err = versioning.ResolveConflicts(ctx, working, t.Schema, t.Name, f.has("theirs"), enc); err != nil {
				return nil, err
			}
		}
		nws := *ws
		nws.Working = working.Addr()
		return &nws, nil
	})
	if err != nil {
		return exec.Null, err
	}
	return statusOK(), nil
}

// conflictedTables resolves table names given to dolt_conflicts_resolve
// against the tables with conflicts in root ('.' for all of them).
func (s session) conflictedTables(ctx context.Context, root versioning.RootValue, names []string) ([]sqldef.TableName, error) {
	all, err := root.AllConflicts(ctx)
	if err != nil {
		return nil, err
	}
	types, err := labelTypes(ctx, root)
	if err != nil {
		return nil, err
	}
	var out []sqldef.TableName
	for _, n := range names {
		if n == "." {
			for _, tc := range all {
				out = append(out, sqldef.TableName{Schema: tc.Schema, Name: tc.Name})
			}
			continue
		}
		schema, rel, err := s.ParseName(n)
		if err != nil {
			return nil, err
		}
		found := false
		for _, tc := range all {
			named := tc.Object().BaseName() == rel || conflictShortLabel(tc, types) == rel
			if named && (schema == "" || slices.Contains(s.RelationSchemas(schema), tc.Schema)) {
				out = append(out, sqldef.TableName{Schema: tc.Schema, Name: tc.Name})
				found = true
				break
			}
		}
		if !found {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "table %q has no conflicts", n)
		}
	}
	return out, nil
}
