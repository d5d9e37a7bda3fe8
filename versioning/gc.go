package versioning

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Garbage collection: the mark phase. GC walks from every ref of the store
// and from the root values the caller names, marks every chunk it reaches,
// and has the store sweep the rest (store.GC; the store's package doc,
// invariant 9, states the protocol).
//
// What the mark reaches from each kind of ref (the only refs there are;
// repo.go and roles.go write them):
//
//	db/D/heads/B  a commit: its root value and its parents, to the first
//	db/D/tags/T   a tag: its commit
//	db/D/ws/B     a working set: working, staged and pre-merge root
//	              values, and the commit being merged
//	db/D/remotes  the list of remotes (remote.go), a record naming no chunk
//	db/D/remotes/R/B  a remote-tracking branch (transfer.go): a commit
//	db/D/backups  the list of backups (backup.go), a record naming no chunk
//	roles         the role list (JSON, no addresses)
//	branch_control the branch permissions (branchcontrol.go; JSON, no addresses)
//
// A root value is a prolly map of catalog records; the records that hold
// addresses are tables (Rows and Indexes[].Rows, in both record formats)
// and conflicts (Rows, Violations, and the roots of the Base, Ours and
// Theirs tables). Every other kind of record holds none. A ref or record
// of a kind this file does not know fails the collection before anything
// is deleted: a new kind must be taught to the mark, never swept unseen.
//
// # Safety and what running transactions should pass
//
// Safety does not depend on the caller: no ref ever points at a removed
// chunk. From BeginGC on, every ref update is walked (refUpdates) before
// it applies, skipping what the mark has seen, and fails with
// store.ErrDanglingRef if part of what it reaches is gone; after the
// sweep, the store keeps checking every ref update that way (with this
// GC's live set, which grows with what it checks) until the next GC, since
// a writer may have built, before or during this one, on a chunk it
// removed. Chunks written after BeginGC, and ref targets, are kept by the
// barrier.
//
// Liveness does: a running transaction whose chunks no ref reaches loses
// them if they were written before BeginGC, and then fails at commit
// (ErrDanglingRef, like a serialization failure) or on a read
// (store.ErrNotFound). To keep them, extraRoots returns the root values
// that running transactions and statements hold and may still read or
// build on: each transaction's start root and current root. It is called
// after the barrier is up and the refs are read, so a root a session reads
// from a ref after the call needs no registering; a root read before must
// have been registered by then (read and register under the lock the
// function takes). A root registered too late, after an earlier GC removed
// part of it, is skipped and counted (GCResult.ExtraRootsBroken). Versioning's
// own short-lived intermediate chunks (a merge built inside UpdateBranch,
// the Committer's working set) are not registered: a GC that runs whole
// between their writing and their ref update makes that update fail.
// A session reading by hash a commit that no ref reaches may find it gone.

// GCStore is a store that can collect its garbage.
type GCStore interface {
	Store
	BeginGC(ctx context.Context, m store.Mark) (*store.GC, error)
}

var (
	_ GCStore = (*store.DB)(nil)
	_ GCStore = (*store.Memory)(nil)
)

// ErrCollected is store.ErrDanglingRef as the layers above see it: a
// commit built on chunks that a garbage collection removed, which can only
// be retried (the SQL layer reports SQLSTATE 40001).
var ErrCollected = store.ErrDanglingRef

// GCResult reports one garbage collection: the store's counts (chunks and
// bytes kept and removed, disk space before and after) and the mark's.
type GCResult struct {
	store.GCStats
	// Refs is the number of refs the mark started from, ExtraRoots the
	// number of root values the caller passed (ExtraRootsBroken of them
	// missing chunks, which an earlier GC removed before the caller
	// registered them: they are not kept, and their transactions cannot
	// commit), Marked the number of chunks the mark reached.
	Refs, ExtraRoots, ExtraRootsBroken, Marked int
	// Mark is the time the mark took; the store's Sweep and Reclaim
	// follow it.
	Mark time.Duration
}

// GC collects the garbage of st: every chunk that no ref, and no root value
// extraRoots returns, reaches. extraRoots may be nil; it is called once,
// after the barrier is up and the refs are read (see the contract above).
// Only one GC of a store runs at a time: another fails with
// store.ErrGCRunning. On an error nothing reachable is removed; the
// collection may have removed part of the garbage.
func GC(ctx context.Context, st GCStore, extraRoots func(context.Context) ([]store.Address, error)) (GCResult, error) {
	return GCWith(ctx, st, extraRoots, GCOptions{})
}

// GCOptions tune GCWith.
type GCOptions struct {
	// Quiesced: the caller kept every other writer out while the GC ran
	// (store.Mark.Quiesced), so ref updates are not validated after it.
	Quiesced bool
}

// GCWith is GC with options.
func GCWith(ctx context.Context, st GCStore, extraRoots func(context.Context) ([]store.Address, error), opts GCOptions) (GCResult, error) {
	var res GCResult
	m := &marker{cs: st, seen: map[store.Address]struct{}{}}
	g, err := st.BeginGC(ctx, store.Mark{Live: m.live, Refs: m.refUpdates, Quiesced: opts.Quiesced})
	if err != nil {
		return res, err
	}
	defer g.Abort()
	began := time.Now()
	type ref struct {
		name string
		addr store.Address
	}
	var refs []ref
	err = st.ListRefs(ctx, "", func(name string, addr store.Address) error {
		refs = append(refs, ref{name, addr})
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("versioning: GC: listing refs: %w", err)
	}
	res.Refs = len(refs)
	for _, r := range refs {
		if err := m.ref(ctx, r.name, r.addr); err != nil {
			return res, fmt.Errorf("versioning: GC: ref %q: %w", r.name, err)
		}
	}
	if extraRoots != nil {
		roots, err := extraRoots(ctx)
		if err != nil {
			return res, fmt.Errorf("versioning: GC: extra roots: %w", err)
		}
		res.ExtraRoots = len(roots)
		for _, a := range roots {
			// Walked apart and added whole, or not at all: a root value
			// built on chunks an earlier GC removed (its transaction
			// registered it too late) can never be committed, and must
			// not stop this GC.
			w := &marker{cs: st, seen: map[store.Address]struct{}{}, parent: m}
			err := w.rootValue(ctx, a)
			if errors.Is(err, store.ErrNotFound) {
				res.ExtraRootsBroken++
				continue
			}
			if err != nil {
				return res, fmt.Errorf("versioning: GC: root value %s: %w", a, err)
			}
			m.add(w)
		}
	}
	res.Marked = m.count()
	res.Mark = time.Since(began)
	res.GCStats, err = g.Sweep(ctx)
	return res, err
}

// marker is the mark phase of one GC: the set of chunks seen, each walked
// once. A chunk is in seen only once everything below it has been or is
// being walked by a walk that cannot take it back: the GC's own mark
// (which fails the whole GC on a missing chunk), or a ref update's walk
// that succeeded (refUpdates walks into a set of its own and adds it to
// seen only at the end).
//
// A transfer (transfer.go) walks with the same marker and two hooks: have
// stops the walk at chunks the destination holds (and so everything below
// them), and leave receives each chunk walked once everything below it
// has been (children before parents), to copy it.
type marker struct {
	cs     prolly.ChunkStore
	mu     sync.Mutex // guards seen: ref updates and the sweep use it concurrently
	seen   map[store.Address]struct{}
	parent *marker // for a ref update's walk: the GC's marker, whose seen it skips
	have   func(store.Address) (bool, error)
	leave  func(store.Address) error
	// fresh, when set, makes the walk one of JournalReached's: it runs
	// alone and goes only into chunks fresh reports, which are the only
	// ones it adds to seen (most it looks at are not, and recording them
	// cost more than the walk's reads).
	fresh func(store.Address) bool
}

// see adds a to the seen set and reports whether it was new and not
// held by have's store (and so must be walked). The zero address is never
// new: it stands for "none".
func (m *marker) see(a store.Address) (bool, error) {
	if a.IsZero() {
		return false, nil
	}
	if m.fresh != nil {
		if !m.fresh(a) {
			return false, nil
		}
		if _, ok := m.seen[a]; ok {
			return false, nil
		}
		m.seen[a] = struct{}{}
		return true, nil
	}
	if m.parent != nil {
		if m.parent.live(a) {
			return false, nil
		}
		// A ref update's walk runs alone (the store serialises them).
		if _, ok := m.seen[a]; ok {
			return false, nil
		}
		m.seen[a] = struct{}{}
		return true, nil
	}
	m.mu.Lock()
	_, ok := m.seen[a]
	m.seen[a] = struct{}{}
	m.mu.Unlock()
	if ok {
		return false, nil
	}
	if m.have != nil {
		held, err := m.have(a)
		return !held && err == nil, err
	}
	return true, nil
}

// left passes a walked chunk to leave, if set.
func (m *marker) left(a store.Address) error {
	if m.leave == nil {
		return nil
	}
	return m.leave(a)
}

// live reports whether the mark reached a.
func (m *marker) live(a store.Address) bool {
	m.mu.Lock()
	_, ok := m.seen[a]
	m.mu.Unlock()
	return ok
}

// count returns the number of chunks seen.
func (m *marker) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.seen)
}

// refUpdates is store.Mark.Refs: it marks what the new values of updates
// reach, before the store applies them, from BeginGC to the end of the
// sweep. It walks into a set of its own, skipping what the GC has seen,
// and adds that set to the GC's only if the whole walk succeeded: a chunk
// it does not find was removed by this or an earlier collection, and the
// update must fail (store.ErrDanglingRef) rather than point at a hole.
func (m *marker) refUpdates(ctx context.Context, updates []store.RefUpdate) error {
	w := &marker{cs: m.cs, seen: map[store.Address]struct{}{}, parent: m}
	for _, u := range updates {
		if u.New.IsZero() {
			continue
		}
		if err := w.ref(ctx, u.Name, u.New); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				err = fmt.Errorf("versioning: ref %q reaches a chunk that garbage collection removed: %v: %w", u.Name, err, store.ErrDanglingRef)
			}
			return err
		}
	}
	m.add(w)
	return nil
}

// add adds what the walk w saw to m.
func (m *marker) add(w *marker) {
	m.mu.Lock()
	for a := range w.seen {
		m.seen[a] = struct{}{}
	}
	m.mu.Unlock()
}

// ref marks what the ref name, pointing at addr, reaches.
func (m *marker) ref(ctx context.Context, name string, addr store.Address) error {
	if name == rolesRef || name == branchControlRef || name == databasesRef {
		return m.record(addr) // records naming no chunk
	}
	rest, ok := strings.CutPrefix(name, refPrefix)
	if !ok {
		return fmt.Errorf("%w: a ref of unknown kind", ErrCorrupt)
	}
	db, rest, ok := strings.Cut(rest, "/")
	if _, err := url.PathUnescape(db); err != nil || !ok {
		return fmt.Errorf("%w: a ref of unknown kind", ErrCorrupt)
	}
	kind, _, _ := strings.Cut(rest, "/")
	switch kind {
	case "heads":
		return m.commit(ctx, addr)
	case "tags":
		return m.tag(ctx, addr)
	case "ws":
		return m.workingSet(ctx, addr)
	case "remotes":
		if rest == "remotes" {
			return m.record(addr) // the list of remotes, a record that names no chunk
		}
		return m.commit(ctx, addr) // a remote-tracking branch: remotes/R/B
	case "backups":
		if rest == "backups" {
			return m.record(addr) // the list of backups, a record that names no chunk
		}
	}
	return fmt.Errorf("%w: a ref of unknown kind", ErrCorrupt)
}

// record marks a record that names no chunk.
func (m *marker) record(addr store.Address) error {
	if ok, err := m.see(addr); err != nil || !ok {
		return err
	}
	return m.left(addr)
}

// commit marks the commit at addr and its history: every ancestor, and
// each one's root value. It walks depth first with a stack of its own,
// histories being deeper than goroutine stacks are comfortable with, and
// leaves a commit after its root value and its parents.
func (m *marker) commit(ctx context.Context, addr store.Address) error {
	type frame struct {
		a    store.Address
		done bool // its root value and parents are walked: leave it
	}
	stack := []frame{{a: addr}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if f.done {
			if err := m.left(f.a); err != nil {
				return err
			}
			continue
		}
		if ok, err := m.see(f.a); err != nil || !ok {
			if err != nil {
				return err
			}
			continue
		}
		c, err := LoadCommit(ctx, m.cs, f.a)
		if err != nil {
			return err
		}
		if err := m.rootValue(ctx, c.Root); err != nil {
			return fmt.Errorf("commit %s: %w", f.a, err)
		}
		stack = append(stack, frame{a: f.a, done: true})
		for _, p := range c.Parents {
			stack = append(stack, frame{a: p})
		}
	}
	return nil
}

// tag marks the tag object at addr and its commit.
func (m *marker) tag(ctx context.Context, addr store.Address) error {
	if ok, err := m.see(addr); err != nil || !ok {
		return err
	}
	b, err := m.cs.Get(ctx, addr)
	if err != nil {
		return fmt.Errorf("loading tag: %w", err)
	}
	t, err := decodeTag(b)
	if err != nil {
		return err
	}
	if err := m.commit(ctx, t.Commit); err != nil {
		return err
	}
	return m.left(addr)
}

// workingSet marks the working set at addr and the roots and commit it
// names.
func (m *marker) workingSet(ctx context.Context, addr store.Address) error {
	if ok, err := m.see(addr); err != nil || !ok {
		return err
	}
	b, err := m.cs.Get(ctx, addr)
	if err != nil {
		return fmt.Errorf("loading working set: %w", err)
	}
	ws, err := decodeWorkingSet(b)
	if err != nil {
		return err
	}
	for _, r := range []store.Address{ws.Working, ws.Staged, ws.PreMerge} {
		if err := m.rootValue(ctx, r); err != nil {
			return err
		}
	}
	if err := m.commit(ctx, ws.MergeCommit); err != nil {
		return err
	}
	return m.left(addr)
}

// rootValue marks the root value at addr: its map, and the maps its
// records hold (only those of the leaves not seen before: a leaf seen was
// walked with its records).
func (m *marker) rootValue(ctx context.Context, addr store.Address) error {
	if addr.IsZero() {
		return nil
	}
	return prolly.ReachableOrdered(ctx, m.cs, addr, m.see, func(key, value []byte) error {
		roots, err := recordRoots(key, value)
		if err != nil {
			return fmt.Errorf("record %q: %w", key, err)
		}
		for _, r := range roots {
			if err := m.tree(ctx, r); err != nil {
				return fmt.Errorf("record %q: %w", key, err)
			}
		}
		return nil
	}, m.leave)
}

// tree marks the prolly map at addr (zero for none).
func (m *marker) tree(ctx context.Context, addr store.Address) error {
	if addr.IsZero() {
		return nil
	}
	return prolly.ReachableOrdered(ctx, m.cs, addr, m.see, nil, m.leave)
}

// recordRoots returns the roots of the prolly maps that the catalog record
// stored under key holds.
func recordRoots(key, value []byte) ([]store.Address, error) {
	if len(key) == 0 {
		return nil, fmt.Errorf("%w: empty key in a root value", ErrCorrupt)
	}
	switch key[0] {
	case kindTable:
		return tableRoots(value, nil)
	case kindConflicts:
		var c TableConflicts
		if err := decodeRecord(value, &c); err != nil {
			return nil, err
		}
		roots := []store.Address{c.Rows, c.Violations}
		for _, t := range []*sqldef.Table{c.Base, c.Ours, c.Theirs} {
			if t != nil {
				roots = appendTableRoots(roots, t)
			}
		}
		return roots, nil
	case kindLargeObject:
		var lo LargeObject
		if err := decodeRecord(value, &lo); err != nil {
			return nil, err
		}
		return []store.Address{lo.Pages}, nil
	case kindFKRef, kindInherits, kindFunction, kindSchema, kindSequence, kindView, kindType, kindDefaultACL, kindExtension,
		kindTextSearchDict, kindTextSearchConfig:
		return nil, nil
	}
	return nil, fmt.Errorf("%w: record of unknown kind %q", ErrCorrupt, key[0])
}

// tableRoots appends to dst the map roots of a table record of either
// format; the current one is read without decoding the definition.
func tableRoots(record []byte, dst []store.Address) ([]store.Address, error) {
	if len(record) > 0 && record[0] == recordVersion {
		var t sqldef.Table
		if err := decodeRecord(record, &t); err != nil {
			return nil, err
		}
		return appendTableRoots(dst, &t), nil
	}
	d, err := parseTableRecord(record)
	if err != nil {
		return nil, err
	}
	dst = append(dst, d.rows)
	for i := 0; i < len(d.indexes); i += store.AddressSize {
		dst = append(dst, store.Address(d.indexes[i:]))
	}
	return dst, nil
}

// appendTableRoots appends the roots of t's row and index maps.
func appendTableRoots(dst []store.Address, t *sqldef.Table) []store.Address {
	dst = append(dst, t.Rows)
	for _, ix := range t.Indexes {
		dst = append(dst, ix.Rows)
	}
	return dst
}
