package versioning

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/prollypg/prollypg/store"
)

// Branches, tags and the one primitive that moves a branch: UpdateBranch.

// maxRefAttempts bounds the retries of a ref update that keeps losing
// races to other sessions.
const maxRefAttempts = 100

// UpdateBranch changes a branch's head and working set together: fn gets
// the current head and working set and returns the new ones (the same
// head to leave it). Both refs move in one compare-and-set, durably; if
// another session moved either meanwhile, fn runs again on the new state.
// fn must not have side effects beyond the chunks it writes.
func (r *Repo) UpdateBranch(ctx context.Context, branch string, fn func(head store.Address, ws *WorkingSet) (store.Address, *WorkingSet, error)) error {
	for attempt := 0; attempt < maxRefAttempts; attempt++ {
		head, err := r.BranchHead(ctx, branch)
		if err != nil {
			return err
		}
		wsAddr, ws, err := r.WorkingSet(ctx, branch)
		if err != nil {
			return err
		}
		newHead, newWS, err := fn(head, ws)
		if err != nil {
			return err
		}
		newWSAddr, err := r.st.Put(ctx, newWS.encode())
		if err != nil {
			return fmt.Errorf("versioning: writing working set: %w", err)
		}
		err = r.st.UpdateRefs(ctx, []store.RefUpdate{
			{Name: r.headRef(branch), Old: head, New: newHead},
			{Name: r.wsRef(branch), Old: wsAddr, New: newWSAddr},
		}, true)
		if errors.Is(err, store.ErrRefConflict) {
			continue
		}
		if err != nil {
			return fmt.Errorf("versioning: updating branch %q: %w", branch, err)
		}
		return nil
	}
	return fmt.Errorf("%w: branch %q kept changing", ErrConflict, branch)
}

// CreateBranch makes branch name point at commit, with a clean working
// set. With force it replaces a branch of that name.
func (r *Repo) CreateBranch(ctx context.Context, name string, commit store.Address, force bool) error {
	if err := checkRefName("branch", name); err != nil {
		return err
	}
	c, err := LoadCommit(ctx, r.st, commit)
	if err != nil {
		return err
	}
	ws, err := r.st.Put(ctx, (&WorkingSet{Working: c.Root, Staged: c.Root}).encode())
	if err != nil {
		return fmt.Errorf("versioning: writing working set: %w", err)
	}
	var oldHead, oldWS store.Address
	if force {
		if oldHead, _, err = r.st.Ref(ctx, r.headRef(name)); err != nil {
			return err
		}
		if oldWS, _, err = r.st.Ref(ctx, r.wsRef(name)); err != nil {
			return err
		}
	}
	err = r.st.UpdateRefs(ctx, []store.RefUpdate{
		{Name: r.headRef(name), Old: oldHead, New: commit},
		{Name: r.wsRef(name), Old: oldWS, New: ws},
	}, true)
	if errors.Is(err, store.ErrRefConflict) {
		return fmt.Errorf("%w: %q", ErrBranchExists, name)
	}
	return err
}

// CopyBranch makes branch to a copy of branch from: the same head and the
// same working set.
func (r *Repo) CopyBranch(ctx context.Context, from, to string, force bool) error {
	return r.copyBranch(ctx, from, to, force, false)
}

// RenameBranch moves branch from to the name to.
func (r *Repo) RenameBranch(ctx context.Context, from, to string, force bool) error {
	return r.copyBranch(ctx, from, to, force, true)
}

func (r *Repo) copyBranch(ctx context.Context, from, to string, force, move bool) error {
	if err := checkRefName("branch", to); err != nil {
		return err
	}
	head, err := r.BranchHead(ctx, from)
	if err != nil {
		return err
	}
	ws, ok, err := r.st.Ref(ctx, r.wsRef(from))
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: %q", ErrNoBranch, from)
	}
	var oldHead, oldWS store.Address
	if force {
		if oldHead, _, err = r.st.Ref(ctx, r.headRef(to)); err != nil {
			return err
		}
		if oldWS, _, err = r.st.Ref(ctx, r.wsRef(to)); err != nil {
			return err
		}
	}
	updates := []store.RefUpdate{
		{Name: r.headRef(to), Old: oldHead, New: head},
		{Name: r.wsRef(to), Old: oldWS, New: ws},
	}
	if move {
		updates = append(updates,
			store.RefUpdate{Name: r.headRef(from), Old: head},
			store.RefUpdate{Name: r.wsRef(from), Old: ws})
	}
	err = r.st.UpdateRefs(ctx, updates, true)
	if errors.Is(err, store.ErrRefConflict) {
		if _, ok, _ := r.st.Ref(ctx, r.headRef(to)); ok {
			return fmt.Errorf("%w: %q", ErrBranchExists, to)
		}
		return fmt.Errorf("%w: branch %q changed meanwhile", ErrConflict, from)
	}
	return err
}

// DeleteBranch removes a branch, its head and its working set.
func (r *Repo) DeleteBranch(ctx context.Context, name string) error {
	head, err := r.BranchHead(ctx, name)
	if err != nil {
		return err
	}
	ws, _, err := r.st.Ref(ctx, r.wsRef(name))
	if err != nil {
		return err
	}
	updates := []store.RefUpdate{{Name: r.headRef(name), Old: head}}
	if !ws.IsZero() {
		updates = append(updates, store.RefUpdate{Name: r.wsRef(name), Old: ws})
	}
	err = r.st.UpdateRefs(ctx, updates, true)
	if errors.Is(err, store.ErrRefConflict) {
		return fmt.Errorf("%w: branch %q changed meanwhile", ErrConflict, name)
	}
	return err
}

// HasBranch reports whether branch exists.
func (r *Repo) HasBranch(ctx context.Context, branch string) (bool, error) {
	_, ok, err := r.st.Ref(ctx, r.headRef(branch))
	return ok, err
}

// Tag is an annotated name for a commit.
type Tag struct {
	Commit  store.Address
	Tagger  Signature
	Message string
}

// Tag chunk layout (version 1): magic 0xC3 | version 1 | commit (20) |
// tagger signature | uvarint len | message.
const (
	tagMagic   = 0xC3
	tagVersion = 1
)

func (t *Tag) encode() []byte {
	b := []byte{tagMagic, tagVersion}
	b = append(b, t.Commit[:]...)
	b = appendSignature(b, t.Tagger)
	return appendString(b, t.Message)
}

func decodeTag(b []byte) (*Tag, error) {
	if len(b) < 2 || b[0] != tagMagic || b[1] != tagVersion {
		return nil, fmt.Errorf("%w: not a tag", ErrCorrupt)
	}
	d := decoder{b: b[2:]}
	t := &Tag{Commit: d.addr(), Tagger: d.signature(), Message: d.string()}
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: trailing bytes in tag", ErrCorrupt)
	}
	return t, d.err
}

// NamedTag is a tag with its name and the address of its object.
type NamedTag struct {
	Name string
	Addr store.Address
	Tag  *Tag
}

// Tag returns the tag called name.
func (r *Repo) Tag(ctx context.Context, name string) (store.Address, *Tag, error) {
	a, ok, err := r.st.Ref(ctx, r.tagRef(name))
	if err != nil {
		return store.Address{}, nil, err
	}
	if !ok {
		return store.Address{}, nil, fmt.Errorf("%w: %q", ErrNoTag, name)
	}
	t, err := r.loadTag(ctx, a)
	return a, t, err
}

func (r *Repo) loadTag(ctx context.Context, a store.Address) (*Tag, error) {
	b, err := r.st.Get(ctx, a)
	if err != nil {
		return nil, fmt.Errorf("versioning: loading tag %s: %w", a, err)
	}
	return decodeTag(b)
}

// Tags returns every tag, sorted by name.
func (r *Repo) Tags(ctx context.Context) ([]NamedTag, error) {
	prefix := dbPrefix(r.name) + "tags/"
	var out []NamedTag
	err := r.st.ListRefs(ctx, prefix, func(name string, a store.Address) error {
		out = append(out, NamedTag{Name: strings.TrimPrefix(name, prefix), Addr: a})
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].Tag, err = r.loadTag(ctx, out[i].Addr); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// CreateTag tags commit as name.
func (r *Repo) CreateTag(ctx context.Context, name string, t *Tag) error {
	if err := checkRefName("tag", name); err != nil {
		return err
	}
	a, err := r.st.Put(ctx, t.encode())
	if err != nil {
		return fmt.Errorf("versioning: writing tag: %w", err)
	}
	err = r.st.UpdateRefs(ctx, []store.RefUpdate{{Name: r.tagRef(name), New: a}}, true)
	if errors.Is(err, store.ErrRefConflict) {
		return fmt.Errorf("%w: %q", ErrTagExists, name)
	}
	return err
}

// DeleteTag removes the tag name.
func (r *Repo) DeleteTag(ctx context.Context, name string) error {
	a, _, err := r.Tag(ctx, name)
	if err != nil {
		return err
	}
	return r.st.UpdateRefs(ctx, []store.RefUpdate{{Name: r.tagRef(name), Old: a}}, true)
}
