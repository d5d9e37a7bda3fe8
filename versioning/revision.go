package versioning

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/prollypg/prollypg/store"
)

// Revision specs name commits, as Git's do: a base — HEAD, a branch, a tag,
// a commit hash or a prefix of one that only one commit has — followed by
// any number of steps: ~n goes n first parents back (~ alone is ~1), ^n
// takes the nth parent (^ alone is ^1, ^0 the commit itself).

// revStep is one ~n or ^n of a revision spec.
type revStep struct {
	nth bool // ^n: the nth parent; else ~n: n first parents back
	n   int
}

// splitRevSpec separates a spec's base from its steps.
func splitRevSpec(spec string) (string, []revStep, error) {
	i := strings.IndexAny(spec, "~^")
	if i < 0 {
		return spec, nil, nil
	}
	base, rest := spec[:i], spec[i:]
	var steps []revStep
	for rest != "" {
		st := revStep{nth: rest[0] == '^', n: 1}
		rest = rest[1:]
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j > 0 {
			n, err := strconv.Atoi(rest[:j])
			if err != nil {
				return "", nil, fmt.Errorf("%w: %q", ErrNoRevision, spec)
			}
			st.n = n
		}
		rest = rest[j:]
		if rest != "" && rest[0] != '~' && rest[0] != '^' {
			return "", nil, fmt.Errorf("%w: %q", ErrNoRevision, spec)
		}
		steps = append(steps, st)
	}
	return base, steps, nil
}

// minHashPrefix is the shortest commit hash prefix a spec may use.
const minHashPrefix = 4

// ResolveCommit returns the commit a revision spec names. head is the
// commit HEAD means (the session's branch head, or the commit it reads).
func (r *Repo) ResolveCommit(ctx context.Context, spec string, head store.Address) (store.Address, error) {
	base, steps, err := splitRevSpec(spec)
	if err != nil {
		return store.Address{}, err
	}
	addr, err := r.resolveBase(ctx, base, head)
	if err != nil {
		return store.Address{}, err
	}
	for _, st := range steps {
		if st.nth && st.n == 0 {
			continue
		}
		count := st.n
		if st.nth {
			count = 1
		}
		for ; count > 0; count-- {
			c, err := LoadCommit(ctx, r.st, addr)
			if err != nil {
				return store.Address{}, err
			}
			idx := 0
			if st.nth {
				idx = st.n - 1
			}
			switch {
			case st.nth && idx >= len(c.Parents):
				// Dolt's words for a parent the commit does not have.
				return store.Address{}, fmt.Errorf("%w: %q: invalid ancestor spec: the commit has %d parents", ErrNoRevision, spec, len(c.Parents))
			case idx >= len(c.Parents):
				return store.Address{}, fmt.Errorf("%w: %q goes past the first commit", ErrNoRevision, spec)
			}
			addr = c.Parents[idx]
		}
	}
	return addr, nil
}

func (r *Repo) resolveBase(ctx context.Context, base string, head store.Address) (store.Address, error) {
	if strings.EqualFold(base, "HEAD") {
		if head.IsZero() {
			return store.Address{}, fmt.Errorf("%w: HEAD", ErrNoRevision)
		}
		return head, nil
	}
	if base == "" {
		return store.Address{}, fmt.Errorf("%w: empty revision", ErrNoRevision)
	}
	if a, ok, err := r.st.Ref(ctx, r.headRef(base)); err != nil || ok {
		return a, err
	}
	if _, t, err := r.Tag(ctx, base); err == nil {
		return t.Commit, nil
	} else if !errors.Is(err, ErrNoTag) {
		return store.Address{}, err
	}
	// A remote-tracking branch: origin/main or remotes/origin/main, as
	// Git resolves refs/remotes/<base>.
	if a, ok, err := r.RemoteBranchHead(ctx, strings.TrimPrefix(base, "remotes/")); err != nil || ok {
		return a, err
	}
	if a, err := store.ParseAddress(base); err == nil {
		if _, err := LoadCommit(ctx, r.st, a); err == nil {
			return a, nil
		}
		return store.Address{}, fmt.Errorf("%w: %q", ErrNoRevision, base)
	}
	if len(base) >= minHashPrefix && len(base) < 32 && isHashText(base) {
		return r.resolvePrefix(ctx, strings.ToLower(base), head)
	}
	return store.Address{}, fmt.Errorf("%w: %q", ErrNoRevision, base)
}

// isHashText reports whether s uses only the characters of commit hashes.
func isHashText(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'v') {
			return false
		}
	}
	return true
}

// resolvePrefix finds the one commit, reachable from a branch, a tag or
// head, whose hash starts with prefix.
func (r *Repo) resolvePrefix(ctx context.Context, prefix string, head store.Address) (store.Address, error) {
	starts, err := r.Tips(ctx)
	if err != nil {
		return store.Address{}, err
	}
	if !head.IsZero() {
		starts = append(starts, head)
	}
	var found []store.Address
	err = r.walk(ctx, starts, func(a store.Address, _ *Commit) error {
		if strings.HasPrefix(a.String(), prefix) {
			found = append(found, a)
		}
		return nil
	})
	switch {
	case err != nil:
		return store.Address{}, err
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return store.Address{}, fmt.Errorf("%w: %q is ambiguous", ErrNoRevision, prefix)
	}
	return store.Address{}, fmt.Errorf("%w: %q", ErrNoRevision, prefix)
}

// Tips returns the commits of every branch and tag: where walks of the
// whole history start.
func (r *Repo) Tips(ctx context.Context) ([]store.Address, error) {
	var tips []store.Address
	err := r.st.ListRefs(ctx, dbPrefix(r.name)+"heads/", func(_ string, a store.Address) error {
		tips = append(tips, a)
		return nil
	})
	if err != nil {
		return nil, err
	}
	tags, err := r.Tags(ctx)
	for _, t := range tags {
		tips = append(tips, t.Tag.Commit)
	}
	return tips, err
}

// checkRefName rejects names Git would: empty, starting with '-' or '.',
// or holding characters revision specs and ref paths give meaning to.
func checkRefName(kind, name string) error {
	bad := name == "" || strings.EqualFold(name, "HEAD") || name[0] == '-' || name[0] == '.' ||
		strings.HasSuffix(name, ".") || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".lock") ||
		strings.Contains(name, "..") || strings.Contains(name, "//") || strings.Contains(name, "@{") ||
		strings.ContainsAny(name, "~^:?*[\\ \t\n\x7f") || len(name) > 200
	for i := 0; i < len(name) && !bad; i++ {
		bad = name[i] < 0x20
	}
	if bad {
		return fmt.Errorf("%w: %q is not a valid %s name", ErrBadName, name, kind)
	}
	return nil
}
