package versioning

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"go.uber.org/zap"

	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/store/remotestore"
	"github.com/prollypg/prollypg/store/remotestore/pgremote"
)

// Errors of fetches, pushes and clones.
var (
	// ErrRemoteEmpty: a clone's remote has no branch.
	ErrRemoteEmpty = errors.New("remote at that url contains no Dolt data")
	// ErrRemoteBranch: the remote has no branch of the name asked for.
	ErrRemoteBranch = errors.New("branch not found on remote")
	// ErrBadRemoteURL: the remote's URL has a scheme no transfer knows.
	ErrBadRemoteURL = remotestore.ErrUnsupportedURL
)

// remoteStore is a handle on a remote: a remotestore.Store (file://,
// s3://) or a pgremote.Store (postgres://, another pgserver).
type remoteStore interface {
	transferStore
	GetMany(ctx context.Context, addrs []store.Address, fn func(store.Address, []byte) error) error
	Close() error
}

var (
	_ remoteStore = (*remotestore.Store)(nil)
	_ remoteStore = (*pgremote.Store)(nil)
)

// openRemote opens the remote at url, creating a file:// remote's
// directory if create is set (a push; a postgres:// remote's database
// is created by the push's ref update).
func openRemote(ctx context.Context, url string, create bool) (remoteStore, error) {
	if pgremote.IsURL(url) {
		st, err := pgremote.Open(ctx, url)
		if err != nil {
			return nil, fmt.Errorf("versioning: opening remote %s: %w", RedactURL(url), err)
		}
		return st, nil
	}
	st, err := remotestore.Open(ctx, url, create)
	if err != nil {
		return nil, fmt.Errorf("versioning: opening remote %s: %w", RedactURL(url), err)
	}
	return st, nil
}

// RedactURL returns a remote's URL with its password, if any, masked:
// what dolt.remotes and errors show.
func RedactURL(url string) string { return pgremote.Redact(url) }

// transferTarget returns the database's store as a transfer's destination
// or source.
func (r *Repo) transferTarget() (transferStore, error) {
	ts, ok := r.st.(transferStore)
	if !ok {
		return nil, fmt.Errorf("versioning: the store (%T) cannot take part in a transfer", r.st)
	}
	return ts, nil
}

// refsWithPrefix returns the refs of st whose names start with prefix.
func refsWithPrefix(ctx context.Context, st Store, prefix string) (map[string]store.Address, error) {
	out := map[string]store.Address{}
	err := st.ListRefs(ctx, prefix, func(name string, a store.Address) error {
		out[name] = a
		return nil
	})
	return out, err
}

// FetchOptions tune Fetch.
type FetchOptions struct {
	// Specs select what to fetch; none: the remote's FetchSpecs.
	Specs []RefSpec
	// Prune deletes the remote-tracking branches that a pattern of Specs
	// maps to and that the remote no longer has.
	Prune bool
	Log   *zap.Logger
}

// Fetch copies from remote rm the branches that the refspecs select and
// points the remote-tracking branches they map to at them (moving them
// whatever their history, as Dolt's dolt_fetch does), then fetches the
// remote's tags whose commits the database now holds and that it lacks.
// A spec that selects no branch of the remote fails the fetch with
// ErrInvalidRefSpec, before anything is copied.
func (r *Repo) Fetch(ctx context.Context, rm Remote, opts FetchOptions) (TransferStats, error) {
	var stats TransferStats
	specs := opts.Specs
	if len(specs) == 0 {
		for _, s := range rm.FetchSpecs {
			rs, err := ParseRefSpec(s)
			if err != nil {
				return stats, err
			}
			specs = append(specs, rs)
		}
	}
	local, err := r.transferTarget()
	if err != nil {
		return stats, err
	}
	rst, err := openRemote(ctx, rm.URL, false)
	if err != nil {
		return stats, err
	}
	defer rst.Close()
	heads, err := refsWithPrefix(ctx, rst, headsPrefix)
	if err != nil {
		return stats, err
	}
	want := map[string]store.Address{} // local ref -> commit
	var commits []store.Address
	for _, rs := range specs {
		matched := false
		for name, a := range heads {
			dst, ok := rs.mapRef(name)
			if !ok {
				continue
			}
			ref, err := r.localRef(dst)
			if err != nil {
				return stats, err
			}
			want[ref], matched = a, true
			commits = append(commits, a)
		}
		if !matched && !rs.pattern() {
			return stats, fmt.Errorf("%w: '%s'", ErrInvalidRefSpec, rs.Text)
		}
	}
	var prune []string
	if opts.Prune {
		for _, rs := range specs {
			if !rs.pattern() {
				continue
			}
			prefix, err := r.localRef(strings.TrimSuffix(rs.Dst, "*") + "x")
			if err != nil {
				return stats, err
			}
			prune = append(prune, strings.TrimSuffix(prefix, "x"))
		}
	}
	return fetchRetrying(ctx, rst, local, commits, opts.Log, func(tags map[string]store.Address) error {
		return r.followTags(ctx, rst, local, tags)
	}, func(tags map[string]store.Address) error {
		return r.moveRefs(ctx, want, tags, prune)
	})
}

// fetchRetrying copies commits from rst into local, finds the tags to
// fetch (tags fills the map it is given, once the commits are copied) and
// copies them, then has update move the refs. If the update fails with
// ErrCollected, a garbage collection ran during the copy: it removed
// the chunks written before it began (no ref reached them yet) and kept
// those written after, some of which refer to removed ones. The walk
// would stop at those, so it starts over once trusting nothing local
// holds, and the update is tried again.
func fetchRetrying(ctx context.Context, rst remoteStore, local transferStore, commits []store.Address, log *zap.Logger,
	tags func(map[string]store.Address) error, update func(tags map[string]store.Address) error) (TransferStats, error) {
	var stats TransferStats
	if log == nil {
		log = zap.NewNop()
	}
	for trust := true; ; trust = false {
		st, err := copyWalk(ctx, rst, local, commits, nil, log, trust)
		stats.add(st)
		if err != nil {
			return stats, err
		}
		found := map[string]store.Address{}
		if err := tags(found); err != nil {
			return stats, err
		}
		list := make([]store.Address, 0, len(found))
		for _, a := range found {
			list = append(list, a)
		}
		st, err = copyWalk(ctx, rst, local, nil, list, log, trust)
		stats.add(st)
		if err != nil {
			return stats, err
		}
		err = update(found)
		if !trust || !errors.Is(err, ErrCollected) {
			return stats, err
		}
		log.Warn("a garbage collection removed part of a fetch; copying again")
	}
}

// followTags adds to found the remote's tags that the database lacks and
// whose commits it holds, by local ref.
func (r *Repo) followTags(ctx context.Context, rst remoteStore, local transferStore, found map[string]store.Address) error {
	tags, err := refsWithPrefix(ctx, rst, tagsPrefix)
	if err != nil {
		return err
	}
	for name, a := range tags {
		ref, err := r.localRef(name)
		if err != nil {
			return err
		}
		if _, ok, err := r.st.Ref(ctx, ref); err != nil || ok {
			if err != nil {
				return err
			}
			continue
		}
		b, err := rst.Get(ctx, a)
		if err != nil {
			return fmt.Errorf("versioning: reading tag %s: %w", name, err)
		}
		t, err := decodeTag(b)
		if err != nil {
			return err
		}
		// Readable, not Has: the commits this fetch just copied are fresh
		// until its ref update reaches them, and Has counts fresh chunks
		// absent (so a clone onto another server lost every tag). The
		// tag's own copy then walks the commit again where it is fresh.
		if _, err := local.Get(ctx, t.Commit); errors.Is(err, store.ErrNotFound) {
			continue
		} else if err != nil {
			return err
		}
		found[ref] = a
	}
	return nil
}

// moveRefs points the refs of set at their addresses, whatever they were;
// creates those of create, which must not exist; and deletes the refs
// under the prefixes of prune that set does not name. It retries when a
// concurrent update wins the compare-and-set.
func (r *Repo) moveRefs(ctx context.Context, set, create map[string]store.Address, prune []string) error {
	for {
		var updates []store.RefUpdate
		for name, a := range set {
			cur, _, err := r.st.Ref(ctx, name)
			if err != nil {
				return err
			}
			if cur != a {
				updates = append(updates, store.RefUpdate{Name: name, Old: cur, New: a})
			}
		}
		for name, a := range create {
			updates = append(updates, store.RefUpdate{Name: name, New: a})
		}
		for _, p := range prune {
			err := r.st.ListRefs(ctx, p, func(name string, a store.Address) error {
				if _, keep := set[name]; !keep {
					updates = append(updates, store.RefUpdate{Name: name, Old: a})
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		if len(updates) == 0 {
			return nil
		}
		sort.Slice(updates, func(i, j int) bool { return updates[i].Name < updates[j].Name })
		err := r.st.UpdateRefs(ctx, updates, true)
		if !errors.Is(err, store.ErrRefConflict) {
			return err
		}
		// Another fetch moved a tracking branch, or made a tag: go again
		// (a tag made meanwhile is kept).
		for name := range create {
			if _, ok, err := r.st.Ref(ctx, name); err != nil {
				return err
			} else if ok {
				delete(create, name)
			}
		}
	}
}

// RemoteBranch is a remote-tracking branch: its name as Dolt shows it
// ("remotes/origin/main") and the commit a fetch or push last saw there.
type RemoteBranch struct {
	Name   string
	Commit store.Address
}

// RemoteBranches returns the database's remote-tracking branches, by
// name.
func (r *Repo) RemoteBranches(ctx context.Context) ([]RemoteBranch, error) {
	prefix := dbPrefix(r.name) + "remotes/"
	var out []RemoteBranch
	err := r.st.ListRefs(ctx, prefix, func(name string, a store.Address) error {
		out = append(out, RemoteBranch{Name: "remotes/" + strings.TrimPrefix(name, prefix), Commit: a})
		return nil
	})
	return out, err
}

// RemoteBranchHead returns the commit of the remote-tracking branch path
// ("origin/main").
func (r *Repo) RemoteBranchHead(ctx context.Context, path string) (store.Address, bool, error) {
	if checkRefName("remote branch", path) != nil || !strings.Contains(path, "/") {
		return store.Address{}, false, nil
	}
	return r.st.Ref(ctx, dbPrefix(r.name)+"remotes/"+path)
}

// CloneOptions tune Clone.
type CloneOptions struct {
	// Remote names the remote the clone records (default "origin").
	Remote string
	// Branch is the branch to check out (default: main if the remote
	// has it, else its first branch by name).
	Branch string
	Log    *zap.Logger
}

// Clone creates database name as a copy of the remote at url: every
// branch of the remote as a remote-tracking branch, the checked-out one
// also as a local branch (with a clean working set) that tracks it, the
// remote's tags, and the remote recorded under opts.Remote. The database
// appears whole, in one ref update, or not at all; ErrDatabaseExists if
// name is taken.
func Clone(ctx context.Context, st Store, name, url string, opts CloneOptions) (*Repo, TransferStats, error) {
	var stats TransferStats
	if opts.Remote == "" {
		opts.Remote = "origin"
	}
	r := &Repo{st: st, name: name}
	if _, err := OpenDatabase(ctx, st, name); err == nil {
		return nil, stats, fmt.Errorf("%w: %q", ErrDatabaseExists, name)
	} else if !errors.Is(err, ErrNoDatabase) {
		return nil, stats, err
	}
	local, err := r.transferTarget()
	if err != nil {
		return nil, stats, err
	}
	rst, err := openRemote(ctx, url, false)
	if err != nil {
		return nil, stats, err
	}
	defer rst.Close()
	heads, err := refsWithPrefix(ctx, rst, headsPrefix)
	if err != nil {
		return nil, stats, err
	}
	if len(heads) == 0 {
		return nil, stats, ErrRemoteEmpty
	}
	branch := opts.Branch
	if branch == "" {
		branch = DefaultBranch
		if _, ok := heads[headsPrefix+branch]; !ok {
			names := make([]string, 0, len(heads))
			for n := range heads {
				names = append(names, n)
			}
			sort.Strings(names)
			branch = strings.TrimPrefix(names[0], headsPrefix)
		}
	}
	head, ok := heads[headsPrefix+branch]
	if !ok {
		return nil, stats, fmt.Errorf("%w: %q", ErrRemoteBranch, branch)
	}
	rm := Remote{Name: opts.Remote, URL: url, FetchSpecs: []string{"refs/heads/*:" + remotesPrefix + opts.Remote + "/*"},
		Upstreams: map[string]string{branch: branch}}
	if err := checkRemoteName(rm.Name); err != nil {
		return nil, stats, err
	}
	var branches []store.RefUpdate
	var commits []store.Address
	for n, a := range heads {
		ref, err := r.localRef(remotesPrefix + rm.Name + "/" + strings.TrimPrefix(n, headsPrefix))
		if err != nil {
			return nil, stats, err
		}
		branches = append(branches, store.RefUpdate{Name: ref, New: a})
		commits = append(commits, a)
	}
	remotes, err := encodeRecord([]Remote{rm})
	if err != nil {
		return nil, stats, err
	}
	stats, err = fetchRetrying(ctx, rst, local, commits, opts.Log, func(tags map[string]store.Address) error {
		return r.followTags(ctx, rst, local, tags)
	}, func(tags map[string]store.Address) error {
		updates := slices.Clone(branches)
		for ref, a := range tags {
			updates = append(updates, store.RefUpdate{Name: ref, New: a})
		}
		c, err := LoadCommit(ctx, st, head)
		if err != nil {
			return err
		}
		ws, err := st.Put(ctx, (&WorkingSet{Working: c.Root, Staged: c.Root}).encode())
		if err != nil {
			return fmt.Errorf("versioning: writing working set: %w", err)
		}
		remotesAddr, err := st.Put(ctx, bytes.Clone(remotes))
		if err != nil {
			return fmt.Errorf("versioning: writing remotes: %w", err)
		}
		updates = append(updates,
			store.RefUpdate{Name: r.headRef(branch), New: head},
			store.RefUpdate{Name: r.wsRef(branch), New: ws},
			store.RefUpdate{Name: r.remotesRef(), New: remotesAddr})
		sort.Slice(updates, func(i, j int) bool { return updates[i].Name < updates[j].Name })
		return st.UpdateRefs(ctx, updates, true)
	})
	if errors.Is(err, store.ErrRefConflict) {
		return nil, stats, fmt.Errorf("%w: %q", ErrDatabaseExists, name)
	}
	if err != nil {
		return nil, stats, fmt.Errorf("versioning: cloning %s into %q: %w", RedactURL(url), name, err)
	}
	return r, stats, nil
}
