package versioning

import (
	"container/heap"
	"context"
	"fmt"
	"time"

	"github.com/prollypg/prollypg/store"
)

// History: walking the commit graph.

// walk calls fn once for every commit reachable from starts, in no
// particular order.
func (r *Repo) walk(ctx context.Context, starts []store.Address, fn func(store.Address, *Commit) error) error {
	seen := map[store.Address]bool{}
	stack := append([]store.Address(nil), starts...)
	for len(stack) > 0 {
		a := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[a] {
			continue
		}
		seen[a] = true
		c, err := LoadCommit(ctx, r.st, a)
		if err != nil {
			return err
		}
		if err := fn(a, c); err != nil {
			return err
		}
		stack = append(stack, c.Parents...)
	}
	return nil
}

// LogEntry is one commit of a log.
type LogEntry struct {
	Addr   store.Address
	Commit *Commit
}

// Log returns the commits reachable from include but not from exclude,
// newest first: every commit comes before its parents and, among the
// commits whose children are all listed, the latest committed comes first
// (git log --date-order).
func (r *Repo) Log(ctx context.Context, include, exclude []store.Address) ([]LogEntry, error) {
	excluded := map[store.Address]bool{}
	if len(exclude) > 0 {
		if err := r.walk(ctx, exclude, func(a store.Address, _ *Commit) error {
			excluded[a] = true
			return nil
		}); err != nil {
			return nil, err
		}
	}
	commits := map[store.Address]*Commit{}
	children := map[store.Address]int{}
	var starts []store.Address
	for _, a := range include {
		if !excluded[a] {
			starts = append(starts, a)
		}
	}
	err := r.walk(ctx, starts, func(a store.Address, c *Commit) error {
		if excluded[a] {
			return nil
		}
		commits[a] = c
		for _, p := range c.Parents {
			children[p]++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	h := &logHeap{}
	for a, c := range commits {
		if children[a] == 0 {
			heap.Push(h, LogEntry{a, c})
		}
	}
	out := make([]LogEntry, 0, len(commits))
	for h.Len() > 0 {
		e := heap.Pop(h).(LogEntry)
		out = append(out, e)
		for _, p := range e.Commit.Parents {
			pc, ok := commits[p]
			if !ok {
				continue
			}
			if children[p]--; children[p] == 0 {
				heap.Push(h, LogEntry{p, pc})
			}
		}
	}
	return out, nil
}

// logHeap orders ready commits latest first; equal times by address, so
// that a log is the same on every run.
type logHeap []LogEntry

func (h logHeap) Len() int { return len(h) }
func (h logHeap) Less(i, j int) bool {
	ti, tj := h[i].Commit.Committer.When, h[j].Commit.Committer.When
	if !ti.Equal(tj) {
		return ti.After(tj)
	}
	return h[i].Addr.String() > h[j].Addr.String()
}
func (h logHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *logHeap) Push(x any)   { *h = append(*h, x.(LogEntry)) }
func (h *logHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// MergeBase returns the best common ancestor of two commits: of the
// commits reachable from both, the first in b's log order (so none of the
// others is its descendant). ok is false when they share no history.
func (r *Repo) MergeBase(ctx context.Context, a, b store.Address) (base store.Address, ok bool, err error) {
	fromA := map[store.Address]bool{}
	if err := r.walk(ctx, []store.Address{a}, func(x store.Address, _ *Commit) error {
		fromA[x] = true
		return nil
	}); err != nil {
		return store.Address{}, false, err
	}
	log, err := r.Log(ctx, []store.Address{b}, nil)
	if err != nil {
		return store.Address{}, false, err
	}
	for _, e := range log {
		if fromA[e.Addr] {
			return e.Addr, true, nil
		}
	}
	return store.Address{}, false, nil
}

// IsAncestor reports whether commit a is reachable from commit b (a commit
// is its own ancestor).
func (r *Repo) IsAncestor(ctx context.Context, a, b store.Address) (bool, error) {
	found := false
	err := r.walk(ctx, []store.Address{b}, func(x store.Address, _ *Commit) error {
		if x == a {
			found = true
			return errStop
		}
		return nil
	})
	if err == errStop {
		err = nil
	}
	return found, err
}

// CommitAt returns the latest commit reachable from head that was made at
// or before t (by its committer's time): what AS OF a timestamp reads.
func (r *Repo) CommitAt(ctx context.Context, head store.Address, t time.Time) (store.Address, error) {
	log, err := r.Log(ctx, []store.Address{head}, nil)
	if err != nil {
		return store.Address{}, err
	}
	for _, e := range log {
		if !e.Commit.Committer.When.After(t) {
			return e.Addr, nil
		}
	}
	return store.Address{}, fmt.Errorf("%w: no commit at or before %s", ErrNoRevision, t.UTC().Format(time.RFC3339))
}
