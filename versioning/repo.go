package versioning

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/store"
)

// Store is what versioning needs of the chunk store: chunks and refs.
// store.DB and store.Memory implement it.
type Store interface {
	prolly.ChunkStore
	Ref(ctx context.Context, name string) (store.Address, bool, error)
	ListRefs(ctx context.Context, prefix string, fn func(name string, addr store.Address) error) error
	UpdateRefs(ctx context.Context, updates []store.RefUpdate, durable bool) error
	// Sync makes every completed write durable.
	Sync() error
}

// Address is the address of a chunk as the SQL layer names it: a commit,
// a root value, a table's rows. The layers above versioning hold, compare
// and print addresses (String, IsZero) but reach what they name only
// through this package, which keeps them out of the store.
type Address = store.Address

// Refs of a database named D (escaped with url.PathEscape, so that a '/' in
// a name cannot be confused with the separators):
//
//	db/D/heads/B   the head commit of branch B
//	db/D/tags/T    the commit tagged T
//	db/D/ws/B      the working set of branch B
//	db/D/remotes   the list of its remotes (remote.go)
//	db/D/remotes/R/B  the remote-tracking branch B of remote R: the commit
//	               a fetch found there (transfer.go)
//	db/D/backups   the list of its backups (backup.go)
const refPrefix = "db/"

// DefaultBranch is the branch a new database starts with.
const DefaultBranch = "main"

// Repo is one database: a repository of commits with branches, tags and a
// working set per branch. A Repo is a handle; all of its state is in the
// store, so any number of sessions may use Repos of the same name at once.
type Repo struct {
	st      Store
	name    string
	commits *Committer // nil: no batching (CommitTransaction)
	// roots keeps, per branch, the working root WorkingRoot read last
	// (*workingRoot), so that a transaction on an unchanged branch does
	// not decode its working set and root again.
	roots sync.Map
}

// workingRoot is a working set's address and its working root.
type workingRoot struct {
	ws   store.Address
	root RootValue
}

// WorkingRoot returns the working root of branch, the root its working
// set holds now.
func (r *Repo) WorkingRoot(ctx context.Context, branch string) (RootValue, error) {
	a, err := r.workingSetAddr(ctx, branch)
	if err != nil {
		r.roots.Delete(branch)
		return RootValue{}, err
	}
	if c, ok := r.roots.Load(branch); ok && c.(*workingRoot).ws == a {
		return c.(*workingRoot).root, nil
	}
	ws, err := r.loadWorkingSet(ctx, branch, a)
	if err != nil {
		return RootValue{}, err
	}
	root, err := LoadRootValue(ctx, r.st, ws.Working)
	if err != nil {
		return RootValue{}, err
	}
	r.roots.Store(branch, &workingRoot{a, root})
	return root, nil
}

func dbPrefix(name string) string { return refPrefix + url.PathEscape(name) + "/" }

func (r *Repo) headRef(branch string) string { return dbPrefix(r.name) + "heads/" + branch }
func (r *Repo) tagRef(tag string) string     { return dbPrefix(r.name) + "tags/" + tag }
func (r *Repo) wsRef(branch string) string   { return dbPrefix(r.name) + "ws/" + branch }

// Name returns the database's name.
func (r *Repo) Name() string { return r.name }

// Store returns the store the database lives in.
func (r *Repo) Store() Store { return r.st }

// CreateDatabase creates database name with an initial commit on main whose
// root value holds only schema public.
func CreateDatabase(ctx context.Context, st Store, name string, who Signature) (*Repo, error) {
	r := &Repo{st: st, name: name}
	root, err := NewRootValue(ctx, st)
	if err != nil {
		return nil, err
	}
	// Two commits, as Doltgres makes them: Dolt's initialisation, then the
	// database's creation (histories and revision counts such as HEAD~1
	// follow from that).
	initial, err := WriteCommit(ctx, st, &Commit{Root: root.Addr(), Author: who, Committer: who, Message: "Initialize data repository"})
	if err != nil {
		return nil, err
	}
	commit, err := WriteCommit(ctx, st, &Commit{Root: root.Addr(), Parents: []store.Address{initial}, Author: who, Committer: who, Message: "CREATE DATABASE"})
	if err != nil {
		return nil, err
	}
	ws, err := st.Put(ctx, (&WorkingSet{Working: root.Addr(), Staged: root.Addr()}).encode())
	if err != nil {
		return nil, fmt.Errorf("versioning: writing working set: %w", err)
	}
	err = st.UpdateRefs(ctx, []store.RefUpdate{
		{Name: r.headRef(DefaultBranch), New: commit},
		{Name: r.wsRef(DefaultBranch), New: ws},
	}, true)
	if errors.Is(err, store.ErrRefConflict) {
		return nil, fmt.Errorf("%w: %q", ErrDatabaseExists, name)
	}
	if err != nil {
		return nil, fmt.Errorf("versioning: creating database %q: %w", name, err)
	}
	return r, nil
}

// OpenDatabase returns the database name, which must exist.
func OpenDatabase(ctx context.Context, st Store, name string) (*Repo, error) {
	r := &Repo{st: st, name: name}
	found := false
	err := st.ListRefs(ctx, dbPrefix(name)+"heads/", func(string, store.Address) error {
		found = true
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%w: %q", ErrNoDatabase, name)
	}
	return r, nil
}

var errStop = errors.New("stop")

// ListDatabases returns the names of every database, sorted.
func ListDatabases(ctx context.Context, st Store) ([]string, error) {
	seen := map[string]bool{}
	err := st.ListRefs(ctx, refPrefix, func(name string, _ store.Address) error {
		esc, _, _ := strings.Cut(strings.TrimPrefix(name, refPrefix), "/")
		db, err := url.PathUnescape(esc)
		if err != nil {
			return fmt.Errorf("%w: ref %q", ErrCorrupt, name)
		}
		seen[db] = true
		return nil
	})
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, err
}

// DropDatabase removes every ref of database name. Its chunks stay until a
// garbage collection finds them unreachable.
func DropDatabase(ctx context.Context, st Store, name string) error {
	var updates []store.RefUpdate
	err := st.ListRefs(ctx, dbPrefix(name), func(ref string, addr store.Address) error {
		updates = append(updates, store.RefUpdate{Name: ref, Old: addr})
		return nil
	})
	if err != nil {
		return err
	}
	if len(updates) == 0 {
		return fmt.Errorf("%w: %q", ErrNoDatabase, name)
	}
	return st.UpdateRefs(ctx, updates, true)
}

// Branches returns the names of the database's branches, sorted.
func (r *Repo) Branches(ctx context.Context) ([]string, error) {
	prefix := dbPrefix(r.name) + "heads/"
	var out []string
	err := r.st.ListRefs(ctx, prefix, func(name string, _ store.Address) error {
		out = append(out, strings.TrimPrefix(name, prefix))
		return nil
	})
	return out, err
}

// HomeBranch returns the branch a session that opens the database without
// naming one works on: DefaultBranch, or in a database without it (a
// clone of another branch) its first branch by name.
func (r *Repo) HomeBranch(ctx context.Context) (string, error) {
	names, err := r.Branches(ctx)
	if err != nil {
		return "", err
	}
	for _, n := range names {
		if n == DefaultBranch {
			return n, nil
		}
	}
	if len(names) == 0 {
		return DefaultBranch, nil
	}
	return names[0], nil
}

// BranchHead returns the head commit of branch.
func (r *Repo) BranchHead(ctx context.Context, branch string) (store.Address, error) {
	a, ok, err := r.st.Ref(ctx, r.headRef(branch))
	if err != nil {
		return store.Address{}, err
	}
	if !ok {
		return store.Address{}, fmt.Errorf("%w: %q", ErrNoBranch, branch)
	}
	return a, nil
}

// WorkingSet returns branch's working set and its address, the expected
// value for a later UpdateWorkingSet.
func (r *Repo) WorkingSet(ctx context.Context, branch string) (store.Address, *WorkingSet, error) {
	a, err := r.workingSetAddr(ctx, branch)
	if err != nil {
		return store.Address{}, nil, err
	}
	ws, err := r.loadWorkingSet(ctx, branch, a)
	return a, ws, err
}

// workingSetAddr returns the address branch's working set ref holds.
func (r *Repo) workingSetAddr(ctx context.Context, branch string) (store.Address, error) {
	a, ok, err := r.st.Ref(ctx, r.wsRef(branch))
	if err == nil && !ok {
		err = fmt.Errorf("%w: %q", ErrNoBranch, branch)
	}
	return a, err
}

// loadWorkingSet reads branch's working set at a.
func (r *Repo) loadWorkingSet(ctx context.Context, branch string, a store.Address) (*WorkingSet, error) {
	b, err := r.st.Get(ctx, a)
	if err != nil {
		return nil, fmt.Errorf("versioning: loading working set of %q: %w", branch, err)
	}
	return decodeWorkingSet(b)
}

// UpdateWorkingSet stores ws as branch's working set if the current one is
// still old; otherwise it fails with an error wrapping store.ErrRefConflict.
// With durable set it returns only once the change is on disk.
func (r *Repo) UpdateWorkingSet(ctx context.Context, branch string, old store.Address, ws *WorkingSet, durable bool) (store.Address, error) {
	a, err := r.st.Put(ctx, ws.encode())
	if err != nil {
		return store.Address{}, fmt.Errorf("versioning: writing working set: %w", err)
	}
	if err := r.st.UpdateRefs(ctx, []store.RefUpdate{{Name: r.wsRef(branch), Old: old, New: a}}, durable); err != nil {
		return store.Address{}, err
	}
	return a, nil
}

// CommitTransaction makes a SQL transaction's changes part of branch's
// working root, durably. start is the working root the transaction began
// from and current the root it ended with. If the branch's working root
// moved meanwhile, the three are merged (MergeRoots); changes that collide
// fail with ErrConflict (or a DuplicateKeyError) and nothing of this
// transaction is written; enc gives index entries for the merge's unique
// checks (see MergeRoots). It returns the new working root.
//
// The repository's Committer (SetCommitter) batches concurrent calls on a
// branch into one write; without one, each call is a batch of its own.
func (r *Repo) CommitTransaction(ctx context.Context, branch string, start, current RootValue, enc IndexEncoder) (RootValue, error) {
	c := r.commits
	if c == nil {
		c = &Committer{}
	}
	return c.Commit(ctx, r, branch, start, current, enc)
}

// SetCommitter makes CommitTransaction batch with the other users of c:
// every Repo of the same store and database should share one.
func (r *Repo) SetCommitter(c *Committer) { r.commits = c }
