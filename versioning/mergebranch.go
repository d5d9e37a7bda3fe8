package versioning

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/store"
)

// Merging into a branch: dolt_merge, dolt_cherry_pick and dolt_revert.
// Each three-way merges the branch's head with another root and, when
// nothing is left to resolve, commits the result; otherwise the working
// set keeps the merged root with its conflicts. Uncommitted changes are
// carried over when they touch objects the merge leaves alone, and refuse
// the merge otherwise.

// MergeSpec describes a merge of a commit into a branch.
type MergeSpec struct {
	Theirs     store.Address // the commit merged in
	TheirsName string        // how the user named it, for the message
	NoFF       bool          // make a merge commit even when the head could move
	Squash     bool          // merge the changes into the working set, without a commit
	NoCommit   bool          // stop before committing a clean merge
	Message    string        // the merge commit's message; "" for the default
	Author     Signature
	Committer  Signature
	Indexes    IndexEncoder
}

// MergeOutcome is what a merge did.
type MergeOutcome struct {
	Commit      store.Address // the branch's new head, zero when none was made
	UpToDate    bool          // theirs was already in the branch
	FastForward bool
	Result      MergeResult
}

// MergeBranch merges spec.Theirs into branch.
func (r *Repo) MergeBranch(ctx context.Context, branch string, spec MergeSpec) (MergeOutcome, error) {
	var out MergeOutcome
	err := r.UpdateBranch(ctx, branch, func(head store.Address, ws *WorkingSet) (store.Address, *WorkingSet, error) {
		out = MergeOutcome{}
		if err := r.checkNoMerge(ctx, ws); err != nil {
			return store.Address{}, nil, err
		}
		if up, err := r.IsAncestor(ctx, spec.Theirs, head); err != nil || up {
			out.UpToDate = up
			return head, ws, err
		}
		base, ok, err := r.MergeBase(ctx, head, spec.Theirs)
		if err != nil {
			return store.Address{}, nil, err
		}
		if !ok {
			return store.Address{}, nil, fmt.Errorf("%w: %s shares no history with %s", ErrUnmergeable, spec.TheirsName, branch)
		}
		roots, err := r.loadRoots(ctx, head, base, spec.Theirs)
		if err != nil {
			return store.Address{}, nil, err
		}
		headRoot, baseRoot, theirsRoot := roots[0], roots[1], roots[2]
		if base == head && !spec.NoFF && !spec.Squash {
			out.FastForward = true
			out.Result = MergeResult{Root: theirsRoot}
			nws, err := r.carryOver(ctx, ws, headRoot, theirsRoot)
			if err != nil {
				return store.Address{}, nil, err
			}
			out.Commit = spec.Theirs
			return spec.Theirs, nws, nil
		}
		res, err := Merge(ctx, baseRoot, headRoot, theirsRoot, MergeOptions{Indexes: spec.Indexes, FromRoot: spec.Theirs.String()})
		if err != nil {
			return store.Address{}, nil, err
		}
		out.Result = res
		nws, err := r.carryOver(ctx, ws, headRoot, res.Root)
		if err != nil {
			return store.Address{}, nil, err
		}
		if spec.Squash {
			return head, nws, nil
		}
		if !res.Clean() || spec.NoCommit {
			nws.MergeCommit, nws.PreMerge = spec.Theirs, ws.Working
			return head, nws, nil
		}
		msg := spec.Message
		if msg == "" {
			msg = fmt.Sprintf("Merge branch '%s' into %s", spec.TheirsName, branch)
		}
		c := &Commit{Root: res.Root.Addr(), Parents: []store.Address{head, spec.Theirs}, Author: spec.Author, Committer: spec.Committer, Message: msg}
		if out.Commit, err = WriteCommit(ctx, r.st, c); err != nil {
			return store.Address{}, nil, err
		}
		return out.Commit, nws, nil
	})
	return out, err
}

// checkNoMerge refuses to start a merge while one awaits resolution.
func (r *Repo) checkNoMerge(ctx context.Context, ws *WorkingSet) error {
	if !ws.MergeCommit.IsZero() || !ws.PreMerge.IsZero() {
		return ErrMergeInProgress
	}
	working, err := LoadRootValue(ctx, r.st, ws.Working)
	if err != nil {
		return err
	}
	if c, err := working.HasConflicts(ctx); err != nil || c {
		if err == nil {
			err = ErrMergeInProgress
		}
		return err
	}
	return nil
}

// loadRoots returns the root values of commits.
func (r *Repo) loadRoots(ctx context.Context, commits ...store.Address) ([]RootValue, error) {
	out := make([]RootValue, len(commits))
	for i, c := range commits {
		root, _, err := r.CommitRoot(ctx, c)
		if err != nil {
			return nil, err
		}
		out[i] = root
	}
	return out, nil
}

// carryOver returns the working set that results from replacing the head
// root by merged: the uncommitted (working and staged) changes are put on
// top of merged. It fails with ErrDirtyMerge when the merge changes an
// object they change.
func (r *Repo) carryOver(ctx context.Context, ws *WorkingSet, head, merged RootValue) (*WorkingSet, error) {
	working, err := LoadRootValue(ctx, r.st, ws.Working)
	if err != nil {
		return nil, err
	}
	staged, err := LoadRootValue(ctx, r.st, ws.Staged)
	if err != nil {
		return nil, err
	}
	mergeKeys, err := changedKeys(ctx, head, merged)
	if err != nil {
		return nil, err
	}
	localW, err := changedKeys(ctx, head, working)
	if err != nil {
		return nil, err
	}
	localS, err := changedKeys(ctx, head, staged)
	if err != nil {
		return nil, err
	}
	var stomped []string
	seen := map[string]bool{}
	for _, local := range []map[string]bool{localW, localS} {
		for k := range local {
			_, schema, name, err := splitObjectKey([]byte(k))
			if err != nil {
				return nil, err
			}
			if n := schema + "." + name; mergeKeys[k] && !seen[n] {
				seen[n] = true
				stomped = append(stomped, n)
			}
		}
	}
	slices.Sort(stomped)
	if len(stomped) > 0 {
		return nil, fmt.Errorf("%w:\n\t%s\nPlease commit your changes before you merge.", ErrDirtyMerge, strings.Join(stomped, "\n\t"))
	}
	pick := func(keys map[string]bool) func(kind byte, schema, name string) bool {
		return func(kind byte, schema, name string) bool { return keys[string(objectKey(kind, schema, name))] }
	}
	nw, err := stageWhere(ctx, merged, working, pick(localW))
	if err != nil {
		return nil, err
	}
	ns, err := stageWhere(ctx, merged, staged, pick(localS))
	if err != nil {
		return nil, err
	}
	return &WorkingSet{Working: nw.Addr(), Staged: ns.Addr()}, nil
}

// changedKeys returns the keys of the objects that differ between two
// root values.
func changedKeys(ctx context.Context, from, to RootValue) (map[string]bool, error) {
	keys := map[string]bool{}
	err := prolly.DiffMaps(ctx, from.m, to.m, func(d prolly.Diff) error {
		keys[string(d.Key)] = true
		return nil
	})
	return keys, err
}

// AbortMerge ends the merge in progress on branch, restoring the working
// root from before it; the staged root goes back to the head's.
func (r *Repo) AbortMerge(ctx context.Context, branch string) error {
	return r.UpdateBranch(ctx, branch, func(head store.Address, ws *WorkingSet) (store.Address, *WorkingSet, error) {
		if ws.PreMerge.IsZero() {
			return store.Address{}, nil, ErrNoMerge
		}
		hc, err := LoadCommit(ctx, r.st, head)
		if err != nil {
			return store.Address{}, nil, err
		}
		return head, &WorkingSet{Working: ws.PreMerge, Staged: hc.Root}, nil
	})
}

// ApplySpec describes a change applied onto a branch's head as a new
// commit: dolt_cherry_pick (the change from a commit's parent to it) and
// dolt_revert (the change back).
type ApplySpec struct {
	Base, Theirs RootValue // the change goes from Base to Theirs
	FromRoot     string    // what it comes from, for the conflict records
	Message      string
	Author       Signature
	Committer    Signature
	Indexes      IndexEncoder
	// Conflicts, when set, makes a change that conflicts an error rather
	// than leaving its conflicts in the working set.
	FailOnConflicts bool
}

// ApplyChange three-way merges the change spec describes into branch's
// head and commits the result. When something is left to resolve the
// working set keeps the merged root instead (no commit is made) and the
// returned address is zero.
func (r *Repo) ApplyChange(ctx context.Context, branch string, spec ApplySpec) (store.Address, MergeResult, error) {
	var made store.Address
	var res MergeResult
	err := r.UpdateBranch(ctx, branch, func(head store.Address, ws *WorkingSet) (store.Address, *WorkingSet, error) {
		made = store.Address{}
		if err := r.checkNoMerge(ctx, ws); err != nil {
			return store.Address{}, nil, err
		}
		headRoot, _, err := r.CommitRoot(ctx, head)
		if err != nil {
			return store.Address{}, nil, err
		}
		if res, err = Merge(ctx, spec.Base, headRoot, spec.Theirs, MergeOptions{Indexes: spec.Indexes, FromRoot: spec.FromRoot}); err != nil {
			return store.Address{}, nil, err
		}
		nws, err := r.carryOver(ctx, ws, headRoot, res.Root)
		if err != nil {
			return store.Address{}, nil, err
		}
		if !res.Clean() {
			if spec.FailOnConflicts {
				return store.Address{}, nil, fmt.Errorf("%w: the change conflicts with %s", ErrUnmergeable, branch)
			}
			nws.PreMerge = ws.Working
			return head, nws, nil
		}
		if res.Root.Addr() == headRoot.Addr() {
			return store.Address{}, nil, ErrNothingToCommit
		}
		c := &Commit{Root: res.Root.Addr(), Parents: []store.Address{head}, Author: spec.Author, Committer: spec.Committer, Message: spec.Message}
		if made, err = WriteCommit(ctx, r.st, c); err != nil {
			return store.Address{}, nil, err
		}
		return made, nws, nil
	})
	return made, res, err
}

// PreviewMerge merges theirs into ours in memory, as MergeBranch would,
// and returns the result without moving any ref: the merged root holds
// the conflicts the merge would record. A merge with nothing to do (theirs
// already in ours, or a fast-forward) has none.
func (r *Repo) PreviewMerge(ctx context.Context, ours, theirs store.Address, indexes IndexEncoder) (MergeResult, error) {
	roots, err := r.loadRoots(ctx, ours)
	if err != nil {
		return MergeResult{}, err
	}
	if up, err := r.IsAncestor(ctx, theirs, ours); err != nil || up {
		return MergeResult{Root: roots[0]}, err
	}
	base, ok, err := r.MergeBase(ctx, ours, theirs)
	if err != nil {
		return MergeResult{}, err
	}
	if !ok {
		return MergeResult{}, fmt.Errorf("%w: no common history", ErrUnmergeable)
	}
	if base == ours {
		return MergeResult{Root: roots[0]}, nil // a fast-forward
	}
	more, err := r.loadRoots(ctx, base, theirs)
	if err != nil {
		return MergeResult{}, err
	}
	return Merge(ctx, more[0], roots[0], more[1], MergeOptions{Indexes: indexes, FromRoot: theirs.String()})
}
