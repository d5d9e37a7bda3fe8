package dolt

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
)

// The transfers between a database and its remotes: dolt_fetch,
// dolt_push, dolt_pull and dolt_clone, with Dolt's arguments, results and
// messages (Doltgres reports their failures as XX000). A file:// remote
// is a directory of the server's, and an s3:// remote is reached with
// the server's credentials (its AWS settings) from the server's network,
// so they need PostgreSQL's right to the server's files (as COPY to a
// file does): superuser, or pg_read_server_files to read,
// pg_write_server_files to write; Dolt reserves them to admins likewise.

// remoteKind names the kind of remote at rawURL for the errors of
// missing rights: "a file:// remote", "an s3:// remote".
func remoteKind(rawURL string) string {
	scheme, _, ok := strings.Cut(rawURL, "://")
	switch {
	case !ok || scheme == "":
		return "a remote"
	case strings.ContainsRune("aeiou", rune(scheme[0])):
		return "an " + scheme + ":// remote"
	}
	return "a " + scheme + ":// remote"
}

// remoteError is the error of a transfer, in Dolt's words where Dolt has
// them.
func remoteError(name string) func(error) error {
	return func(err error) error {
		var rejected *versioning.PushRejectedError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &rejected):
			return pgerr.New(pgerr.InternalError, "%s", rejected.Error())
		case errors.Is(err, versioning.ErrNoRemote):
			return pgerr.New(pgerr.InternalError, "fatal: remote '%s' not found.\nPlease make sure the remote exists.", name)
		case errors.Is(err, versioning.ErrInvalidRefSpec):
			return pgerr.New(pgerr.InternalError, "%s", strings.TrimPrefix(err.Error(), "versioning: "))
		}
		return mergeError(err)
	}
}

// remoteByName returns the session database's remote name.
func (s session) remoteByName(ctx context.Context, name string) (versioning.Remote, error) {
	rm, err := s.Repo().Remote(ctx, name)
	return rm, remoteError(name)(err)
}

// logTransfer logs what a transfer did.
func (s session) logTransfer(op, remote string, st versioning.TransferStats) {
	s.Logger().Info(op, zap.String("database", s.Repo().Name()), zap.String("remote", remote),
		zap.Int("chunks", st.Chunks), zap.Int64("bytes", st.Bytes), zap.Int("chunks_read", st.Read))
}

// doltFetch is dolt_fetch([--prune,] remote[, refspec...]): the remote's
// branches that the refspecs (by default the remote's fetch specs) select
// become its remote-tracking branches (remotes/origin/main), with the
// tags on their history; the session's branch does not move.
func (s session) doltFetch(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_fetch", a, flagSpec{short: map[byte]string{'p': "prune"}, values: map[string]bool{"prune": false}})
	if err != nil {
		return exec.Null, err
	}
	name := "origin"
	if len(f.args) > 0 {
		name = f.args[0]
	}
	rm, err := s.remoteByName(env.Ctx, name)
	if err != nil {
		return exec.Null, err
	}
	if err := s.RequireServerFiles(env.Ctx, false, "fetch from "+remoteKind(rm.URL)); err != nil {
		return exec.Null, err
	}
	opts := versioning.FetchOptions{Prune: f.has("prune"), Log: s.Logger()}
	for _, arg := range f.args[min(1, len(f.args)):] {
		rs, err := versioning.FetchRefSpec(name, arg)
		if err != nil {
			return exec.Null, err
		}
		opts.Specs = append(opts.Specs, rs)
	}
	st, err := s.Repo().Fetch(transferProgress(env.Ctx, s, "dolt_fetch"), rm, opts)
	if errors.Is(err, versioning.ErrInvalidRefSpec) {
		return exec.Null, pgerr.New(pgerr.InternalError, "fetch failed: %s", strings.TrimPrefix(err.Error(), "versioning: "))
	}
	if err != nil {
		return exec.Null, remoteError(name)(err)
	}
	s.logTransfer("fetched", name, st)
	return statusOK(), nil
}

// doltPush is dolt_push([--force|-f,] [--set-upstream|-u,] [--all,]
// remote[, refspec...]): each refspec ("branch", "tag", "src:dst",
// ":dst" to delete, "+" to force) is pushed; without one, the session's
// branch goes to the branch it tracks (with -u, to its own name). A
// remote branch moves only by a fast-forward unless forced. It returns
// {status, message}, the message saying what moved, as Git's output does.
func (s session) doltPush(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_push", a, flagSpec{
		short:  map[byte]string{'f': "force", 'u': "set-upstream"},
		values: map[string]bool{"force": false, "set-upstream": false, "all": false},
	})
	if err != nil {
		return exec.Null, err
	}
	ctx := env.Ctx
	if len(f.args) == 0 {
		return exec.Null, pgerr.New(pgerr.InternalError, "fatal: No configured push destination.")
	}
	name := f.args[0]
	rm, err := s.remoteByName(ctx, name)
	if err != nil {
		return exec.Null, err
	}
	if err := s.RequireServerFiles(ctx, true, "push to "+remoteKind(rm.URL)); err != nil {
		return exec.Null, err
	}
	args := f.args[1:]
	switch {
	case f.has("all"):
		if len(args) > 0 {
			return exec.Null, pgerr.New(pgerr.InternalError, "fatal: --all can't be combined with refspecs")
		}
		if args, err = s.Repo().Branches(ctx); err != nil {
			return exec.Null, err
		}
	case len(args) == 0:
		b := s.Branch()
		if b == "" {
			return exec.Null, pgerr.New(pgerr.InternalError, "fatal: You are not currently on a branch.")
		}
		up, ok := rm.Upstream(b)
		if !ok && !f.has("set-upstream") {
			return exec.Null, pgerr.New(pgerr.InternalError, "fatal: The current branch %s has no upstream branch.\n"+
				"To push the current branch and set the remote as upstream, use\n\n\tdolt push --set-upstream %s %s\n", b, name, b)
		}
		if !ok {
			up = b
		}
		args = []string{b + ":" + up}
	}
	var msgs []string
	for _, arg := range args {
		spec, err := s.Repo().PushSpec(ctx, arg)
		if err != nil {
			return exec.Null, remoteError(name)(err)
		}
		res, err := s.Repo().Push(transferProgress(ctx, s, "dolt_push"), rm, spec, versioning.PushOptions{Force: f.has("force"), Log: s.Logger()})
		if err != nil {
			return exec.Null, remoteError(name)(err)
		}
		s.logTransfer("pushed", name, res.Stats)
		if m := pushMessage(versioning.RedactURL(rm.URL), spec, res); m != "" {
			msgs = append(msgs, m)
		}
		if f.has("set-upstream") && strings.HasPrefix(spec.Src, "refs/heads/") && strings.HasPrefix(spec.Dst, "refs/heads/") {
			err := s.Repo().SetUpstream(ctx, strings.TrimPrefix(spec.Src, "refs/heads/"), name, strings.TrimPrefix(spec.Dst, "refs/heads/"))
			if err != nil {
				return exec.Null, err
			}
		}
	}
	msg := "Everything up-to-date"
	if len(msgs) > 0 {
		msg = "To " + versioning.RedactURL(rm.URL) + "\n" + strings.Join(msgs, "\n")
	}
	return commandResult(exec.DInt(0), exec.DText(msg)), nil
}

// pushMessage is Git's line for one ref a push moved, "" if it did not.
// progressEvery is how often a long transfer tells its client how far it
// got.
const progressEvery = 2 * time.Second

// transferProgress returns ctx with a long transfer's progress sent to
// the client as NOTICEs (versioning.WithTransferProgress), what naming the
// command.
func transferProgress(ctx context.Context, s Session, what string) context.Context {
	return versioning.WithTransferProgress(ctx, progressEvery, func(st versioning.TransferStats, elapsed time.Duration) {
		mb := float64(st.Bytes) / (1 << 20)
		s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "%s: %d chunks, %.1f MB in %.1f s (%.1f MB/s)",
			what, st.Chunks, mb, elapsed.Seconds(), mb/elapsed.Seconds()))
	})
}

func pushMessage(url string, spec versioning.RefSpec, res versioning.PushResult) string {
	src, dst := shortName(spec.Src), shortName(spec.Dst)
	kind := "branch"
	if strings.HasPrefix(spec.Dst, "refs/tags/") {
		kind = "tag"
	}
	switch {
	case res.Old == res.New:
		return ""
	case res.New.IsZero():
		return fmt.Sprintf(" - [deleted]         %s", dst)
	case res.Old.IsZero():
		return fmt.Sprintf(" * [new %s]%s%s -> %s", kind, strings.Repeat(" ", max(1, 10-len(kind))), src, dst)
	case spec.Force:
		return fmt.Sprintf(" + %s...%s %s -> %s (forced update)", shortHash(res.Old), shortHash(res.New), src, dst)
	}
	return fmt.Sprintf("   %s..%s  %s -> %s", shortHash(res.Old), shortHash(res.New), src, dst)
}

func shortName(ref string) string {
	for _, p := range []string{"refs/heads/", "refs/tags/"} {
		if s, ok := strings.CutPrefix(ref, p); ok {
			return s
		}
	}
	return ref
}

func shortHash(a versioning.Address) string { return a.String()[:8] }

// doltPull is dolt_pull(remote[, branch]): a fetch of the remote, then a
// merge into the session's branch of the remote-tracking branch of
// branch (by default the branch the session's branch tracks, or one of
// its name), as dolt_merge merges. It returns {fast_forward, conflicts,
// message}; a working set with uncommitted changes refuses.
func (s session) doltPull(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_pull", a, flagSpec{values: map[string]bool{"no-ff": false, "squash": false, "no-commit": false, "prune": false}})
	if err != nil {
		return exec.Null, err
	}
	ctx := env.Ctx
	if len(f.args) > 2 {
		return exec.Null, pgerr.New(pgerr.InternalError, "dolt pull takes at most two args")
	}
	name := "origin"
	if len(f.args) > 0 {
		name = f.args[0]
	}
	rm, err := s.remoteByName(ctx, name)
	if err != nil {
		return exec.Null, err
	}
	if err := s.RequireServerFiles(ctx, false, "pull from "+remoteKind(rm.URL)); err != nil {
		return exec.Null, err
	}
	branch := s.Branch()
	remoteBranch, ok := rm.Upstream(branch)
	if len(f.args) == 2 {
		remoteBranch = f.args[1]
	} else if !ok {
		remoteBranch = branch
	}
	_, headRoot, staged, working, _, err := s.Repo().Roots(ctx, branch)
	if err != nil {
		return exec.Null, err
	}
	if staged.Addr() != headRoot.Addr() || working.Addr() != headRoot.Addr() {
		return exec.Null, pgerr.New(pgerr.InternalError, "cannot merge with uncommitted changes")
	}
	spec, err := versioning.FetchRefSpec(name, remoteBranch)
	if err != nil {
		return exec.Null, remoteError(name)(err)
	}
	st, err := s.Repo().Fetch(transferProgress(ctx, s, "dolt_pull"), rm, versioning.FetchOptions{Specs: []versioning.RefSpec{spec}, Prune: f.has("prune"), Log: s.Logger()})
	if errors.Is(err, versioning.ErrInvalidRefSpec) { // the remote has no such branch
		return exec.Null, pgerr.New(pgerr.InternalError, "branch %q not found on remote", remoteBranch)
	}
	if err != nil {
		return exec.Null, remoteError(name)(err)
	}
	s.logTransfer("fetched", name, st)
	tracking := strings.TrimPrefix(spec.Dst, "refs/remotes/")
	theirs, ok, err := s.Repo().RemoteBranchHead(ctx, tracking)
	if err != nil {
		return exec.Null, err
	}
	if !ok {
		return exec.Null, pgerr.New(pgerr.InternalError, "branch %q not found on remote", remoteBranch)
	}
	author, committer, err := s.who(f)
	if err != nil {
		return exec.Null, err
	}
	out, err := s.Repo().MergeBranch(ctx, branch, versioning.MergeSpec{
		Theirs: theirs, TheirsName: "remotes/" + tracking, NoFF: f.has("no-ff"), Squash: f.has("squash"), NoCommit: f.has("no-commit"),
		Message: fmt.Sprintf("Merge branch '%s' of %s into %s", remoteBranch, versioning.RedactURL(rm.URL), branch),
		Author:  author, Committer: committer, Indexes: exec.NewMergeIndexer(env.Txn),
	})
	if err != nil {
		return exec.Null, mergeError(err)
	}
	switch {
	case out.UpToDate:
		return commandResult(exec.DInt(0), exec.DInt(0), exec.DText("Everything up-to-date")), nil
	case out.FastForward:
		return commandResult(exec.DInt(1), exec.DInt(0), exec.DText("merge successful")), nil
	case !out.Result.Clean():
		return commandResult(exec.DInt(0), exec.DInt(1), exec.DText("merge has unresolved conflicts or constraint violations")), nil
	}
	return commandResult(exec.DInt(0), exec.DInt(0), exec.DText("merge successful")), nil
}

// doltClone is dolt_clone([--remote name,] [--branch|-b branch,] url[,
// database]): a new database holding the remote's branches as
// remote-tracking branches, its default branch (or --branch) checked out
// and tracking the remote's, its tags, and the remote as origin (or
// --remote). The database's name defaults to the URL's last element.
func (s session) doltClone(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_clone", a, flagSpec{short: map[byte]string{'b': "branch"},
		values: map[string]bool{"branch": true, "remote": true, "depth": true, "single-branch": false}})
	if err != nil {
		return exec.Null, err
	}
	if len(f.args) == 0 || len(f.args) > 2 {
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "dolt_clone: use dolt_clone(url[, database])")
	}
	if err := s.RequireCreateDB(env.Ctx); err != nil {
		return exec.Null, err
	}
	if err := s.RequireServerFiles(env.Ctx, false, "clone "+remoteKind(f.args[0])); err != nil {
		return exec.Null, err
	}
	rawURL := f.args[0]
	name := ""
	if len(f.args) == 2 {
		name = f.args[1]
	} else if u, err := url.Parse(rawURL); err == nil {
		name = path.Base(strings.TrimSuffix(u.Path, "/"))
	}
	if name == "" || name == "." || name == "/" || strings.ContainsAny(name, "@/") {
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "dolt_clone: %q is not a database name; give one", name)
	}
	_, st, err := versioning.Clone(transferProgress(env.Ctx, s, "dolt_clone"), s.Repo().Store(), name, rawURL, versioning.CloneOptions{
		Remote: f.flags["remote"], Branch: f.flags["branch"], Log: s.Logger()})
	switch {
	case errors.Is(err, versioning.ErrDatabaseExists):
		return exec.Null, pgerr.New(pgerr.DuplicateDatabase, "database %q already exists", name)
	case errors.Is(err, versioning.ErrRemoteEmpty), errors.Is(err, versioning.ErrRemoteBranch), errors.Is(err, versioning.ErrBadRemoteURL):
		return exec.Null, pgerr.New(pgerr.InternalError, "clone failed: %s", strings.TrimPrefix(err.Error(), "versioning: "))
	case err != nil:
		return exec.Null, vcsError(err)
	}
	s.logTransfer("cloned", rawURL, st)
	return statusOK(), nil
}

// remoteBranchRows are dolt.remote_branches' rows: each remote-tracking
// branch with its latest commit.
func (s session) remoteBranchRows(ctx context.Context) ([]exec.Row, error) {
	list, err := s.Repo().RemoteBranches(ctx)
	if err != nil {
		return nil, err
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	rows := make([]exec.Row, 0, len(list))
	for _, b := range list {
		_, c, err := s.Repo().CommitRoot(ctx, b.Commit)
		if err != nil {
			return nil, err
		}
		rows = append(rows, exec.Row{exec.DText(b.Name), exec.DText(b.Commit.String()),
			exec.DText(c.Committer.Name), exec.DText(c.Committer.Email), timestampDatum(c.Committer.When), exec.DText(c.Message)})
	}
	return rows, nil
}
