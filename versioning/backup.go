package versioning

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"go.uber.org/zap"

	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/store/remotestore/pgremote"
)

// Backups: a database copied whole to a remote store (dolt_backup), so
// that Restore can make it again, as a new database, exactly as it was.
// Where a push sends one branch's commits, a sync sends every ref of the
// database that holds its data: branches, tags, working sets (uncommitted
// changes included), remote-tracking branches and the list of remotes.
// The branch permissions are the server's, not a database's, and stay
// out; so does the list of backups, which says where this database's
// copies go, not what it holds (a restored copy that synced to its
// original's backups would overwrite them).
//
// A backup's refs, in the remote's manifest, are named as Dolt names its
// datasets, so that dolt_clone and dolt_fetch can read a backup too:
//
//	refs/heads/B             db/D/heads/B
//	refs/tags/T              db/D/tags/T
//	workingSets/heads/B      db/D/ws/B
//	refs/remotes/R/B         db/D/remotes/R/B
//	config/remotes           db/D/remotes
//
// A sync is a transfer (transfer.go): it copies only the chunks the
// backup lacks, children before parents, then replaces the backup's refs
// with the database's in one compare-and-set of its manifest, deleting
// those the database no longer has. A backup mirrors: there is no
// fast-forward check, and a sync cut short leaves the backup as the last
// complete sync left it (its new table files unnamed by the manifest).

// ErrBackupExists, ErrNoBackup and ErrBackupURLConflict are returned by
// AddBackup, RemoveBackup and Backup; their texts are Dolt's.
var (
	ErrBackupExists      = errors.New("backup already exists")
	ErrNoBackup          = errors.New("backup not found")
	ErrBackupURLConflict = errors.New("address conflict with a remote")
)

// backupsRef names the chunk that lists a database's backups: db/D/backups.
func (r *Repo) backupsRef() string { return dbPrefix(r.name) + "backups" }

// Backups returns the database's backups, by name. A backup is a Remote
// whose FetchSpecs and Upstreams are unused.
func (r *Repo) Backups(ctx context.Context) ([]Remote, error) {
	list, _, err := r.loadRemoteList(ctx, r.backupsRef())
	return list, err
}

// Backup returns the backup of that name; ErrNoBackup if there is none.
func (r *Repo) Backup(ctx context.Context, name string) (Remote, error) {
	list, err := r.Backups(ctx)
	if err != nil {
		return Remote{}, err
	}
	for _, b := range list {
		if b.Name == name {
			return b, nil
		}
	}
	return Remote{}, fmt.Errorf("%w: %s", ErrNoBackup, name)
}

// AddBackup records a backup: ErrBackupExists if one has its name,
// ErrBackupURLConflict if one has its URL (two backups of a database in
// one place would overwrite each other).
func (r *Repo) AddBackup(ctx context.Context, b Remote) error {
	if err := checkRemoteName(b.Name); err != nil {
		return err
	}
	return r.updateRemoteList(ctx, r.backupsRef(), func(list []Remote) ([]Remote, error) {
		for _, x := range list {
			if x.Name == b.Name {
				return nil, fmt.Errorf("%w: %s", ErrBackupExists, b.Name)
			}
			if x.URL == b.URL {
				return nil, fmt.Errorf("%w: '%s' -> %s", ErrBackupURLConflict, x.Name, x.URL)
			}
		}
		return append(list, Remote{Name: b.Name, URL: b.URL, Params: b.Params}), nil
	})
}

// RemoveBackup forgets a backup (not its data); ErrNoBackup if there is
// none of that name.
func (r *Repo) RemoveBackup(ctx context.Context, name string) error {
	return r.updateRemoteList(ctx, r.backupsRef(), func(list []Remote) ([]Remote, error) {
		for i, x := range list {
			if x.Name == name {
				return append(list[:i:i], list[i+1:]...), nil
			}
		}
		return nil, fmt.Errorf("%w: %s", ErrNoBackup, name)
	})
}

// backupRefName returns the name in a backup of the database's ref whose
// name follows db/D/ (rest), and false for a ref a backup leaves out.
func backupRefName(rest string) (string, bool, error) {
	kind, name, _ := strings.Cut(rest, "/")
	switch {
	case kind == "heads":
		return headsPrefix + name, true, nil
	case kind == "tags":
		return tagsPrefix + name, true, nil
	case kind == "ws":
		return workingSetsPrefix + name, true, nil
	case rest == "remotes":
		return backupRemotesRef, true, nil
	case kind == "remotes":
		return remotesPrefix + name, true, nil
	case rest == "backups":
		return "", false, nil
	}
	return "", false, fmt.Errorf("%w: ref %q of unknown kind", ErrCorrupt, rest)
}

// Names of a backup's refs that a remote of dolt_push has no use for.
const (
	workingSetsPrefix = "workingSets/heads/"
	backupRemotesRef  = "config/remotes"
)

// localRefName is backupRefName's inverse: the ref of database r that
// the backup's ref name restores.
func (r *Repo) localRefName(name string) (string, error) {
	kinds := []struct{ prefix, local, kind string }{
		{headsPrefix, "heads/", "branch"}, {tagsPrefix, "tags/", "tag"},
		{workingSetsPrefix, "ws/", "branch"}, {remotesPrefix, "remotes/", "remote branch"},
	}
	if name == backupRemotesRef {
		return r.remotesRef(), nil
	}
	for _, k := range kinds {
		if rest, ok := strings.CutPrefix(name, k.prefix); ok {
			if err := checkRefName(k.kind, rest); err != nil {
				return "", err
			}
			return dbPrefix(r.name) + k.local + rest, nil
		}
	}
	return "", fmt.Errorf("%w: the backup has a ref of unknown kind, %q", ErrCorrupt, name)
}

// BackupOptions tune SyncBackup and Restore.
type BackupOptions struct {
	// Force lets Restore replace a database of the name.
	Force bool
	Log   *zap.Logger
}

// SyncBackup makes the remote store at url a copy of the database: it
// copies the chunks the database's refs reach and the remote lacks, then
// replaces the remote's refs with the database's (see the comment at the
// top of this file). The refs are read once, at one moment, so the copy
// is of the database as it was then.
func (r *Repo) SyncBackup(ctx context.Context, url string, opts BackupOptions) (TransferStats, error) {
	var stats TransferStats
	local, err := r.transferTarget()
	if err != nil {
		return stats, err
	}
	refs := map[string]store.Address{} // local name -> address
	want := map[string]store.Address{} // backup name -> address
	prefix := dbPrefix(r.name)
	err = r.st.ListRefs(ctx, prefix, func(name string, a store.Address) error {
		bname, ok, err := backupRefName(strings.TrimPrefix(name, prefix))
		if ok {
			refs[name], want[bname] = a, a
		}
		return err
	})
	if err != nil {
		return stats, err
	}
	if len(refs) == 0 {
		return stats, fmt.Errorf("%w: %q", ErrNoDatabase, r.name)
	}
	rst, err := openBackup(ctx, url, true)
	if err != nil {
		return stats, err
	}
	defer rst.Close()
	if stats, err = copyRefs(ctx, local, rst, refs, opts.Log, true); err != nil {
		return stats, err
	}
	for {
		var updates []store.RefUpdate
		err := rst.ListRefs(ctx, "", func(name string, a store.Address) error {
			if _, keep := want[name]; !keep {
				updates = append(updates, store.RefUpdate{Name: name, Old: a})
			}
			return nil
		})
		if err != nil {
			return stats, err
		}
		for name, a := range want {
			cur, _, err := rst.Ref(ctx, name)
			if err != nil {
				return stats, err
			}
			if cur != a {
				updates = append(updates, store.RefUpdate{Name: name, Old: cur, New: a})
			}
		}
		if len(updates) == 0 {
			return stats, nil // the backup is a copy already; it copied nothing either
		}
		sort.Slice(updates, func(i, j int) bool { return updates[i].Name < updates[j].Name })
		if err := ctx.Err(); err != nil {
			return stats, err // cancelled: the backup keeps the refs it had
		}
		err = rst.UpdateRefs(ctx, updates, true)
		if !errors.Is(err, store.ErrRefConflict) {
			return stats, err
		}
		// Another sync moved the backup's refs first (UpdateRefs read its
		// manifest): replace them anyway, a backup mirrors.
	}
}

// copyRefs copies into dst what the refs of src reach (by their names in
// a store.DB: db/D/heads/B and so on) and dst lacks (all of it, with trust
// unset), children before parents, as copyChunks does for commits.
func copyRefs(ctx context.Context, src, dst transferStore, refs map[string]store.Address, log *zap.Logger, trust bool) (TransferStats, error) {
	c, m := newCopier(ctx, src, dst, log, trust)
	names := make([]string, 0, len(refs))
	for n := range refs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := m.ref(ctx, n, refs[n]); err != nil {
			return c.stats, fmt.Errorf("versioning: copying ref %s: %w", n, err)
		}
	}
	c.done()
	return c.stats, nil
}

// Restore creates database name from the backup at url: every ref the
// backup holds, made the database's in one ref update, so that it
// appears whole or not at all. A branch the backup has no working set
// for (a remote that dolt_push filled) gets a clean one. If name is taken,
// ErrDatabaseExists, unless opts.Force: then the database is replaced,
// its refs deleted in the same update.
//
// Garbage collection: the chunks are written with Put and the refs moved
// with UpdateRefs, as a fetch's are, and a collection that removed part
// of them during the copy fails the update with ErrCollected; the copy
// then starts over trusting nothing the store holds (fetchRetrying).
func Restore(ctx context.Context, st Store, name, url string, opts BackupOptions) (*Repo, TransferStats, error) {
	var stats TransferStats
	r := &Repo{st: st, name: name}
	exists := func() (map[string]store.Address, error) {
		old, err := refsWithPrefix(ctx, st, dbPrefix(name))
		if err == nil && len(old) > 0 && !opts.Force {
			err = fmt.Errorf("%w: %q", ErrDatabaseExists, name)
		}
		return old, err
	}
	if _, err := exists(); err != nil {
		return nil, stats, err
	}
	local, err := r.transferTarget()
	if err != nil {
		return nil, stats, err
	}
	rst, err := openBackup(ctx, url, false)
	if err != nil {
		return nil, stats, err
	}
	defer rst.Close()
	refs := map[string]store.Address{} // local name -> address
	err = rst.ListRefs(ctx, "", func(bname string, a store.Address) error {
		ref, err := r.localRefName(bname)
		refs[ref] = a
		return err
	})
	if err != nil {
		return nil, stats, err
	}
	branches, err := refsWithPrefix(ctx, rst, headsPrefix)
	if err != nil {
		return nil, stats, err
	}
	if len(branches) == 0 {
		return nil, stats, ErrRemoteEmpty
	}
	for trust := true; ; trust = false {
		st1, err := copyRefs(ctx, rst, local, refs, opts.Log, trust)
		stats.add(st1)
		if err != nil {
			return nil, stats, err
		}
		err = r.restoreRefs(ctx, refs, branches, exists)
		if err == nil {
			return r, stats, nil
		}
		if !trust || !errors.Is(err, ErrCollected) {
			return nil, stats, err
		}
		if opts.Log != nil {
			opts.Log.Warn("a garbage collection removed part of a restore; copying again")
		}
	}
}

// restoreRefs points the refs of r at the addresses of refs, giving each
// branch of the backup (branches) without a working set a clean one, and
// deleting the refs of the database that old returns (none, unless the
// restore replaces it), in one update. A database made meanwhile fails it
// with ErrDatabaseExists.
func (r *Repo) restoreRefs(ctx context.Context, refs, branches map[string]store.Address, old func() (map[string]store.Address, error)) error {
	set := make(map[string]store.Address, len(refs))
	for n, a := range refs {
		set[n] = a
	}
	for bname, head := range branches {
		branch := strings.TrimPrefix(bname, headsPrefix)
		if _, ok := set[r.wsRef(branch)]; ok {
			continue
		}
		c, err := LoadCommit(ctx, r.st, head)
		if err != nil {
			return err
		}
		ws, err := r.st.Put(ctx, (&WorkingSet{Working: c.Root, Staged: c.Root}).encode())
		if err != nil {
			return fmt.Errorf("versioning: writing working set: %w", err)
		}
		set[r.wsRef(branch)] = ws
	}
	for {
		cur, err := old()
		if err != nil {
			return err
		}
		var updates []store.RefUpdate
		for n, a := range cur {
			if _, ok := set[n]; !ok {
				updates = append(updates, store.RefUpdate{Name: n, Old: a})
			}
		}
		for n, a := range set {
			if cur[n] != a {
				updates = append(updates, store.RefUpdate{Name: n, Old: cur[n], New: a})
			}
		}
		if len(updates) == 0 {
			return nil // forced onto an identical database
		}
		sort.Slice(updates, func(i, j int) bool { return updates[i].Name < updates[j].Name })
		err = r.st.UpdateRefs(ctx, updates, true)
		if !errors.Is(err, store.ErrRefConflict) {
			return err
		}
		// A database of the name was made, or the one replaced changed,
		// since old read it: look again.
	}
}

// openBackup opens the backup at url: a file:// or s3:// remote, or a
// database of another server (postgres://), which keeps the backup's
// every ref as its own (versioning/peer.go's PeerBackupUpdateRefs).
func openBackup(ctx context.Context, url string, create bool) (remoteStore, error) {
	if pgremote.IsURL(url) {
		st, err := pgremote.OpenBackup(ctx, url)
		if err != nil {
			return nil, fmt.Errorf("versioning: opening backup %s: %w", RedactURL(url), err)
		}
		return st, nil
	}
	return openRemote(ctx, url, create)
}
