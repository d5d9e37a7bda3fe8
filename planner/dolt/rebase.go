package dolt

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
)

// dolt_rebase, as Doltgres has it: dolt_rebase('-i', upstream) starts an
// interactive rebase of the session's branch B onto upstream. It makes
// the branch dolt_rebase_B at upstream, switches the session to it, and
// writes there the plan, dolt.rebase (dolt_rebase): a row for each
// commit of B that upstream lacks, oldest first, with its rebase_order,
// its action (pick) and its message. The user edits the plan with
// UPDATE, INSERT and DELETE: an action may be pick, reword (pick with
// the plan's message), squash (join the commit to the one before it,
// both messages kept), fixup (join it, its message dropped) or drop.
// dolt_rebase('--continue') applies the plan in rebase_order, each
// commit's change three-way merged onto the one before (as
// dolt_cherry_pick does; a commit left with nothing to change is
// dropped), moves B to the last commit with a clean working set, deletes
// the rebase branch and switches the session back to B.
// dolt_rebase('--abort') deletes the rebase branch and switches back;
// dolt_rebase(upstream) rebases at once, every commit picked.
//
// The state of a rebase in progress is the rebase branch itself: its
// name gives B, its head is what the plan applies onto, and its working
// root holds the plan. A change that conflicts stops --continue with an
// error, changing nothing; the plan can be edited and continued again.

// rebaseBranchPrefix begins the name of a rebase's branch.
const rebaseBranchPrefix = "dolt_rebase_"

// rebaseStep is a row of the plan.
type rebaseStep struct {
	order   float64
	action  string
	commit  string
	message string
}

// The plan's actions.
const (
	rebasePick   = "pick"
	rebaseReword = "reword"
	rebaseSquash = "squash"
	rebaseFixup  = "fixup"
	rebaseDrop   = "drop"
)

// doltRebase is dolt_rebase: -i/--interactive upstream, --continue,
// --abort, or upstream alone.
func (s session) doltRebase(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_rebase", a, flagSpec{short: map[byte]string{'i': "interactive"},
		values: map[string]bool{"continue": false, "abort": false}})
	if err != nil {
		return exec.Null, err
	}
	if s.Detached() != nil {
		return exec.Null, pgerr.New(pgerr.ReadOnlySQLTransaction, "dolt_rebase: the session is not on a branch")
	}
	switch {
	case f.has("continue"):
		return s.rebaseContinue(env)
	case f.has("abort"):
		return s.rebaseAbort(env)
	}
	if len(f.args) != 1 {
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "dolt_rebase: give the upstream branch or commit to rebase onto")
	}
	return s.rebaseStart(env, f.args[0], f.has("interactive"))
}

// rebaseStart begins the rebase of the session's branch onto upstream:
// interactively, leaving the plan to edit; otherwise applying it at once.
func (s session) rebaseStart(env *exec.Env, upstream string, interactive bool) (exec.Datum, error) {
	ctx, repo, branch := env.Ctx, s.Repo(), s.Branch()
	if strings.HasPrefix(branch, rebaseBranchPrefix) {
		return exec.Null, pgerr.New(pgerr.ObjectNotInPrerequisite, "dolt_rebase: a rebase is in progress on %s", branch).
			WithHint("Call dolt_rebase('--continue') or dolt_rebase('--abort').")
	}
	if err := s.requireClean(ctx, branch); err != nil {
		return exec.Null, err
	}
	onto, err := s.resolveCommit(ctx, upstream)
	if err != nil {
		return exec.Null, err
	}
	head, err := repo.BranchHead(ctx, branch)
	if err != nil {
		return exec.Null, err
	}
	log, err := repo.Log(ctx, []versioning.Address{head}, []versioning.Address{onto})
	if err != nil {
		return exec.Null, err
	}
	if len(log) == 0 {
		return exec.Null, pgerr.New(pgerr.ObjectNotInPrerequisite, "dolt_rebase: %s has no commits that %s lacks", branch, upstream)
	}
	plan := make([]rebaseStep, 0, len(log))
	for i := len(log) - 1; i >= 0; i-- {
		e := log[i]
		if len(e.Commit.Parents) > 1 {
			return exec.Null, pgerr.New(pgerr.FeatureNotSupported, "dolt_rebase: commit %s is a merge commit", e.Addr)
		}
		plan = append(plan, rebaseStep{order: float64(len(plan) + 1), action: rebasePick, commit: e.Addr.String(), message: e.Commit.Message})
	}
	if !interactive {
		final, err := s.applyRebasePlan(env, onto, plan)
		if err != nil {
			return exec.Null, err
		}
		if err := s.finishRebase(ctx, branch, final); err != nil {
			return exec.Null, err
		}
		return commandResult(exec.DInt(0), exec.DText("Successfully rebased and updated refs/heads/"+branch)), nil
	}
	rebaseBranch := rebaseBranchPrefix + branch
	if err := s.RequireBranchCreate(ctx, rebaseBranch); err != nil {
		return exec.Null, err
	}
	if err := repo.CreateBranch(ctx, rebaseBranch, onto, false); err != nil {
		return exec.Null, err
	}
	err = repo.UpdateBranch(ctx, rebaseBranch, func(head versioning.Address, ws *versioning.WorkingSet) (versioning.Address, *versioning.WorkingSet, error) {
		root, err := versioning.LoadRootValue(ctx, repo.Store(), ws.Working)
		if err != nil {
			return head, nil, err
		}
		if root, err = writeRebasePlan(ctx, repo, rebaseBranch, root, plan); err != nil {
			return head, nil, err
		}
		nws := *ws
		nws.Working = root.Addr()
		return head, &nws, nil
	})
	if err != nil {
		return exec.Null, err
	}
	s.SwitchBranch(rebaseBranch)
	return commandResult(exec.DInt(0), exec.DText(fmt.Sprintf("interactive rebase started on branch %s; adjust the rebase plan in the dolt_rebase table, then continue rebasing by calling dolt_rebase('--continue')", rebaseBranch))), nil
}

// requireClean fails unless branch's working and staged roots are its
// head's.
func (s session) requireClean(ctx context.Context, branch string) error {
	_, headRoot, staged, working, ws, err := s.Repo().Roots(ctx, branch)
	if err != nil {
		return err
	}
	if staged.Addr() != headRoot.Addr() || working.Addr() != headRoot.Addr() || !ws.MergeCommit.IsZero() {
		return pgerr.New(pgerr.ObjectNotInPrerequisite, "dolt_rebase: %s has uncommitted changes", branch).
			WithHint("Commit or reset them before rebasing.")
	}
	return nil
}

// rebaseTable is the plan's table, dolt.rebase (usertables.go).
var rebaseTable = storedTables["rebase"]

// writeRebasePlan returns root with the plan stored as dolt.rebase.
func writeRebasePlan(ctx context.Context, repo *versioning.Repo, branch string, root versioning.RootValue, plan []rebaseStep) (versioning.RootValue, error) {
	tx := exec.NewTxn(repo, branch, false, root)
	t, err := storedCreator{st: rebaseTable, schema: systemSchema}.create(ctx, tx)
	if err != nil {
		return root, err
	}
	w, err := tx.Writer(ctx, t)
	if err != nil {
		return root, err
	}
	for _, st := range plan {
		row := exec.Row{exec.DFloat(st.order), exec.DText(st.action), exec.DText(st.commit), exec.DText(st.message)}
		if err := w.Insert(ctx, row); err != nil {
			return root, err
		}
	}
	if err := w.Flush(ctx); err != nil {
		return root, err
	}
	return tx.Root(), nil
}

// readRebasePlan reads the plan of the rebase on branch, in
// rebase_order.
func readRebasePlan(ctx context.Context, root versioning.RootValue) ([]rebaseStep, error) {
	def, ok, err := root.Table(ctx, systemSchema, rebaseTable.name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, pgerr.New(pgerr.ObjectNotInPrerequisite, "dolt_rebase: the rebase plan, dolt.rebase, is gone")
	}
	t := exec.NewTable(def)
	cols := make([]int, len(rebaseTable.columns))
	for i, want := range rebaseTable.columns {
		cols[i] = slices.IndexFunc(t.Cols, func(c exec.Column) bool { return !c.Dropped && c.Name == want.Name })
		if cols[i] < 0 {
			return nil, pgerr.New(pgerr.InvalidTableDefinition, "dolt_rebase: the rebase plan has no column %s", want.Name)
		}
	}
	var plan []rebaseStep
	var row exec.Row
	err = versioning.EachStoredRow(ctx, root.Store(), def, func(_, v []byte) error {
		if row, err = t.DecodeRow(v, row); err != nil {
			return err
		}
		for _, c := range cols {
			if row[c].IsNull() {
				return pgerr.New(pgerr.NotNullViolation, "dolt_rebase: the rebase plan has a row with a NULL %s", t.Cols[c].Name)
			}
		}
		plan = append(plan, rebaseStep{order: row[cols[0]].F, action: strings.ToLower(row[cols[1]].S),
			commit: row[cols[2]].S, message: row[cols[3]].S})
		return nil
	})
	slices.SortStableFunc(plan, func(a, b rebaseStep) int {
		switch {
		case a.order < b.order:
			return -1
		case a.order > b.order:
			return 1
		}
		return 0
	})
	return plan, err
}

// rebaseContinue applies the plan of the rebase in progress on the
// session's branch.
func (s session) rebaseContinue(env *exec.Env) (exec.Datum, error) {
	ctx, repo, rebaseBranch := env.Ctx, s.Repo(), s.Branch()
	branch, ok := strings.CutPrefix(rebaseBranch, rebaseBranchPrefix)
	if !ok {
		return exec.Null, pgerr.New(pgerr.ObjectNotInPrerequisite, "dolt_rebase: no rebase in progress")
	}
	onto, _, _, working, _, err := repo.Roots(ctx, rebaseBranch)
	if err != nil {
		return exec.Null, err
	}
	plan, err := readRebasePlan(ctx, working)
	if err != nil {
		return exec.Null, err
	}
	final, err := s.applyRebasePlan(env, onto, plan)
	if err != nil {
		return exec.Null, err
	}
	if err := s.finishRebase(ctx, branch, final); err != nil {
		return exec.Null, err
	}
	if err := repo.DeleteBranch(ctx, rebaseBranch); err != nil {
		return exec.Null, err
	}
	s.SwitchBranch(branch)
	return commandResult(exec.DInt(0), exec.DText("Successfully rebased and updated refs/heads/"+branch)), nil
}

// rebaseAbort ends the rebase in progress on the session's branch,
// leaving the branch rebased as it was.
func (s session) rebaseAbort(env *exec.Env) (exec.Datum, error) {
	rebaseBranch := s.Branch()
	branch, ok := strings.CutPrefix(rebaseBranch, rebaseBranchPrefix)
	if !ok {
		return exec.Null, pgerr.New(pgerr.ObjectNotInPrerequisite, "dolt_rebase: no rebase in progress")
	}
	if err := s.Repo().DeleteBranch(env.Ctx, rebaseBranch); err != nil {
		return exec.Null, err
	}
	s.SwitchBranch(branch)
	return commandResult(exec.DInt(0), exec.DText("Interactive rebase aborted")), nil
}

// applyRebasePlan writes the commits of plan onto onto and returns the
// last; it moves no ref.
func (s session) applyRebasePlan(env *exec.Env, onto versioning.Address, plan []rebaseStep) (versioning.Address, error) {
	ctx, repo := env.Ctx, s.Repo()
	cur := onto
	curRoot, curCommit, err := repo.CommitRoot(ctx, cur)
	if err != nil {
		return cur, err
	}
	made := false // whether cur is a commit this rebase wrote
	for _, st := range plan {
		switch st.action {
		case rebaseDrop:
			continue
		case rebasePick, rebaseReword, rebaseSquash, rebaseFixup:
		default:
			return cur, pgerr.New(pgerr.InvalidParameterValue, "dolt_rebase: invalid action %q in the rebase plan", st.action).
				WithHint("The actions are pick, reword, squash, fixup and drop.")
		}
		joins := st.action == rebaseSquash || st.action == rebaseFixup
		if joins && !made {
			return cur, pgerr.New(pgerr.InvalidParameterValue, "dolt_rebase: the first commit of the rebase plan cannot be a %s", st.action)
		}
		c, commit, root, parent, err := s.commitAndParent(ctx, "dolt_rebase", st.commit)
		if err != nil {
			return cur, err
		}
		res, err := versioning.Merge(ctx, parent, curRoot, root, versioning.MergeOptions{Indexes: exec.NewMergeIndexer(env.Txn), FromRoot: c.String()})
		if err != nil {
			return cur, err
		}
		if !res.Clean() {
			return cur, pgerr.New(pgerr.ObjectNotInPrerequisite, "dolt_rebase: commit %s (%s) conflicts with the commits before it", c, commit.Message).
				WithHint("Edit the rebase plan, or call dolt_rebase('--abort').")
		}
		if res.Root.Addr() == curRoot.Addr() && !joins {
			continue // nothing left to change
		}
		next := &versioning.Commit{Root: res.Root.Addr(), Parents: []versioning.Address{cur}, Author: commit.Author,
			Committer: s.Signature(), Message: commit.Message}
		switch st.action {
		case rebaseReword:
			next.Message = st.message
		case rebaseSquash, rebaseFixup:
			next.Parents, next.Author, next.Message = curCommit.Parents, curCommit.Author, curCommit.Message
			if st.action == rebaseSquash {
				next.Message += "\n\n" + commit.Message
			}
		}
		if cur, err = versioning.WriteCommit(ctx, repo.Store(), next); err != nil {
			return cur, err
		}
		curRoot, curCommit, made = res.Root, next, true
	}
	return cur, nil
}

// finishRebase moves branch to the rebased commit final, with a clean
// working set; the branch must still be clean.
func (s session) finishRebase(ctx context.Context, branch string, final versioning.Address) error {
	repo := s.Repo()
	root, _, err := repo.CommitRoot(ctx, final)
	if err != nil {
		return err
	}
	return repo.UpdateBranch(ctx, branch, func(head versioning.Address, ws *versioning.WorkingSet) (versioning.Address, *versioning.WorkingSet, error) {
		headRoot, _, err := repo.CommitRoot(ctx, head)
		if err != nil {
			return head, nil, err
		}
		if ws.Working != headRoot.Addr() || ws.Staged != headRoot.Addr() || !ws.MergeCommit.IsZero() {
			return head, nil, pgerr.New(pgerr.ObjectNotInPrerequisite, "dolt_rebase: %s has uncommitted changes", branch).
				WithHint("Commit or reset them, then continue the rebase.")
		}
		return final, &versioning.WorkingSet{Working: root.Addr(), Staged: root.Addr()}, nil
	})
}
