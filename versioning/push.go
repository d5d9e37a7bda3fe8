package versioning

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/prollypg/prollypg/store"
)

// ErrPushRejected is wrapped by PushRejectedError.
var ErrPushRejected = errors.New("push rejected")

// PushRejectedError is a push refused because the remote's branch is not
// an ancestor of what was pushed (or, for a tag, because the remote has
// another tag of the name): someone else pushed first. Its message is
// Dolt's.
type PushRejectedError struct {
	URL, Src, Dst string
	Reason        string // "non-fast-forward", "already exists"
}

func (e *PushRejectedError) Error() string {
	return fmt.Sprintf("To %s\n ! [rejected]            %s -> %s (%s)\nerror: failed to push some refs to '%s'\n"+
		"hint: Updates were rejected because the tip of your current branch is behind\n"+
		"hint: its remote counterpart. Integrate the remote changes (e.g.\n"+
		"hint: 'dolt pull ...') before pushing again.\n", e.URL, e.Src, e.Dst, e.Reason, e.URL)
}

func (e *PushRejectedError) Unwrap() error { return ErrPushRejected }

// PushSpec returns the refspec of dolt_push(remote, arg): arg is
// "[+]src[:dst]" with short or full names; a short src is a branch, else
// a tag, of the database; a short dst is of src's kind; an empty src
// (":dst") deletes the remote branch dst.
func (r *Repo) PushSpec(ctx context.Context, arg string) (RefSpec, error) {
	body, force := strings.CutPrefix(arg, "+")
	src, dst, ok := strings.Cut(body, ":")
	if !ok {
		dst = src
	}
	rs := RefSpec{Force: force, Text: arg}
	if dst == "" || strings.Contains(body, "*") {
		return rs, fmt.Errorf("%w: '%s'", ErrInvalidRefSpec, arg)
	}
	kind := headsPrefix
	switch {
	case src == "":
	case strings.HasPrefix(src, "refs/"):
		rs.Src = src
		if strings.HasPrefix(src, tagsPrefix) {
			kind = tagsPrefix
		}
	default:
		if _, ok, err := r.st.Ref(ctx, r.headRef(src)); err != nil {
			return rs, err
		} else if ok {
			rs.Src = headsPrefix + src
		} else if _, ok, err := r.st.Ref(ctx, r.tagRef(src)); err != nil {
			return rs, err
		} else if ok {
			rs.Src, kind = tagsPrefix+src, tagsPrefix
		} else {
			return rs, fmt.Errorf("%w: refspec not found: '%s'", ErrInvalidRefSpec, src)
		}
	}
	rs.Dst = dst
	if !strings.HasPrefix(dst, "refs/") {
		rs.Dst = kind + dst
	}
	if !strings.HasPrefix(rs.Dst, headsPrefix) && !strings.HasPrefix(rs.Dst, tagsPrefix) {
		return rs, fmt.Errorf("%w: '%s'", ErrInvalidRefSpec, arg)
	}
	return rs, nil
}

// PushOptions tune Push.
type PushOptions struct {
	// Force moves the remote's ref even if that loses commits there.
	Force bool
	Log   *zap.Logger
}

// PushResult is what a push did.
type PushResult struct {
	// Old and New are the remote ref's address before and after (zero:
	// absent); equal when there was nothing to do.
	Old, New store.Address
	Stats    TransferStats
}

// Push copies to remote rm what spec's source reaches and the remote
// lacks, then moves the remote's ref by compare-and-set: a branch only by
// a fast-forward (its current commit an ancestor of the pushed one),
// unless spec.Force or opts.Force; a tag only if the remote has none of
// the name. A refused move fails with a *PushRejectedError. A branch
// pushed also moves the remote-tracking branch that rm's fetch specs map
// it to. An empty spec.Src deletes the remote's ref.
func (r *Repo) Push(ctx context.Context, rm Remote, spec RefSpec, opts PushOptions) (PushResult, error) {
	var res PushResult
	force := spec.Force || opts.Force
	local, err := r.transferTarget()
	if err != nil {
		return res, err
	}
	if spec.Src != "" {
		ref, err := r.localRef(spec.Src)
		if err != nil {
			return res, err
		}
		a, ok, err := r.st.Ref(ctx, ref)
		if err != nil {
			return res, err
		}
		if !ok {
			return res, fmt.Errorf("%w: refspec not found: '%s'", ErrInvalidRefSpec, spec.Src)
		}
		res.New = a
	}
	rst, err := openRemote(ctx, rm.URL, true)
	if err != nil {
		return res, err
	}
	defer rst.Close()
	isTag := strings.HasPrefix(spec.Dst, tagsPrefix)
	rejected := &PushRejectedError{URL: RedactURL(rm.URL), Src: shortRef(spec.Src), Dst: shortRef(spec.Dst), Reason: "non-fast-forward"}
	copied := false
	for {
		cur, _, err := rst.Ref(ctx, spec.Dst)
		if err != nil {
			return res, err
		}
		res.Old = cur
		if cur == res.New {
			break // up to date
		}
		if !force && !cur.IsZero() && !res.New.IsZero() {
			if isTag {
				rejected.Reason = "already exists"
				return res, rejected
			}
			// A commit the database does not hold is not in its
			// history: IsAncestor walks from the pushed commit only.
			if ok, err := r.IsAncestor(ctx, cur, res.New); err != nil {
				return res, err
			} else if !ok {
				return res, rejected
			}
		}
		if !copied && !res.New.IsZero() {
			var commits, tags []store.Address
			if isTag {
				tags = []store.Address{res.New}
			} else {
				commits = []store.Address{res.New}
			}
			if res.Stats, err = copyChunks(ctx, local, rst, commits, tags, opts.Log); err != nil {
				return res, err
			}
			copied = true
		}
		err = rst.UpdateRefs(ctx, []store.RefUpdate{{Name: spec.Dst, Old: cur, New: res.New}}, true)
		if err == nil {
			break
		}
		if !errors.Is(err, store.ErrRefConflict) {
			return res, err
		}
		// Another push moved the ref first: judge against its commit.
		// The chunks copied stay with the handle for the next try.
	}
	if isTag {
		return res, nil
	}
	return res, r.moveTrackingBranch(ctx, rm, spec.Dst, res.New)
}

// moveTrackingBranch points the remote-tracking branch that rm's fetch
// specs map the remote's branch to at a (deleting it for zero).
func (r *Repo) moveTrackingBranch(ctx context.Context, rm Remote, remoteRef string, a store.Address) error {
	for _, s := range rm.FetchSpecs {
		rs, err := ParseRefSpec(s)
		if err != nil {
			return err
		}
		dst, ok := rs.mapRef(remoteRef)
		if !ok {
			continue
		}
		ref, err := r.localRef(dst)
		if err != nil {
			return err
		}
		if !a.IsZero() {
			return r.moveRefs(ctx, map[string]store.Address{ref: a}, nil, nil)
		}
		cur, ok, err := r.st.Ref(ctx, ref)
		if err != nil || !ok {
			return err
		}
		return r.st.UpdateRefs(ctx, []store.RefUpdate{{Name: ref, Old: cur}}, true)
	}
	return nil
}

// shortRef returns a full ref name without its kind's prefix.
func shortRef(full string) string {
	for _, p := range []string{headsPrefix, tagsPrefix, remotesPrefix} {
		if s, ok := strings.CutPrefix(full, p); ok {
			return s
		}
	}
	return full
}
