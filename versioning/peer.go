package versioning

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/prollypg/prollypg/store"
)

// The serving side of postgres:// remotes: a peer (another server's push,
// fetch, clone or replica) reads and writes this server's chunks and one
// database's refs through SQL functions (planner/session/peer.go); these
// are what those functions do. The client is store/remotestore/pgremote,
// whose doc.go describes the protocol.
//
// A peer names a database's refs as a remote's: "refs/heads/B",
// "refs/tags/T", and, read-only, "ws/B" (the working set of branch B,
// which a read replica follows so that committed SQL transactions, not
// only dolt_commit, reach it). PeerUpdateRefs maps them to the
// database's refs (db/D/heads/B, ...).

// ErrBranchDirty: a push would move a branch of the serving server whose
// working set has changes its head lacks (uncommitted SQL transactions,
// staged tables, a merge in progress); Git likewise refuses to push to a
// checked-out branch.
var ErrBranchDirty = errors.New("branch has uncommitted changes")

// ErrPeerRef: a peer named a ref it may not read or move.
var ErrPeerRef = errors.New("not a ref a peer may move")

// ErrRefMoved: a ref was not at the value a compare-and-set expected
// (store.ErrRefConflict).
var ErrRefMoved = store.ErrRefConflict

// ParseAddress reads an address as Address.String writes it.
func ParseAddress(s string) (Address, error) { return store.ParseAddress(s) }

// AddressSize is the length of an address in bytes.
const AddressSize = store.AddressSize

// PeerGet calls fn with each chunk of addrs that st holds, in no
// particular order; it ignores those st lacks.
func PeerGet(ctx context.Context, st Store, addrs []Address, fn func(Address, []byte) error) error {
	if mg, ok := st.(interface {
		GetMany(context.Context, []store.Address, func(store.Address, []byte) error) error
	}); ok {
		err := mg.GetMany(ctx, addrs, fn)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	}
	for _, a := range addrs {
		b, err := st.Get(ctx, a)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if err := fn(a, b); err != nil {
			return err
		}
	}
	return nil
}

// PeerRefUpdate is one of a peer's ref updates: a compare-and-set of
// the ref Name (a peer's name) from Old to New, zero meaning none.
type PeerRefUpdate = store.RefUpdate

// peerWSPrefix is the prefix of the working sets' names a peer reads.
const peerWSPrefix = "ws/"

// PeerRefs calls fn with each ref of database db under its peer name
// ("refs/heads/main", "refs/tags/v1", "ws/main"), in name order. A
// database that does not exist has none.
func PeerRefs(ctx context.Context, st Store, db string, fn func(name string, a store.Address) error) error {
	return listRenamedRefs(ctx, st, db, func(rest string) (string, bool, error) {
		switch kind, name, _ := strings.Cut(rest, "/"); kind {
		case "heads":
			return headsPrefix + name, true, nil
		case "tags":
			return tagsPrefix + name, true, nil
		case "ws":
			return peerWSPrefix + name, true, nil
		}
		return "", false, nil
	}, fn)
}

// listRenamedRefs calls fn with the refs of database db that rename
// names (given what follows db/D/), under those names, in name order.
func listRenamedRefs(ctx context.Context, st Store, db string, rename func(rest string) (string, bool, error), fn func(name string, a store.Address) error) error {
	p := dbPrefix(db)
	type ref struct {
		name string
		a    store.Address
	}
	var refs []ref
	err := st.ListRefs(ctx, p, func(name string, a store.Address) error {
		n, ok, err := rename(strings.TrimPrefix(name, p))
		if ok {
			refs = append(refs, ref{n, a})
		}
		return err
	})
	if err != nil {
		return err
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].name < refs[j].name })
	for _, r := range refs {
		if err := fn(r.name, r.a); err != nil {
			return err
		}
	}
	return nil
}

// PeerPut writes chunks a peer sent. They are put with no writer
// generation, so the store keeps them (fresh, or journaled once there are
// many) until the peer's ref update reaches them: a peer's chunks arrive
// in several statements, and the engine drops the fresh chunks of a
// statement's generation once it ends.
func PeerPut(ctx context.Context, st Store, chunks [][]byte) error {
	ctx = WithWriterGeneration(ctx, new(atomic.Uint64))
	for _, c := range chunks {
		if len(c) > store.MaxChunkSize {
			return fmt.Errorf("versioning: a chunk of %d bytes exceeds the limit of %d", len(c), store.MaxChunkSize)
		}
		if _, err := st.Put(ctx, c); err != nil {
			return fmt.Errorf("versioning: writing a peer's chunk: %w", err)
		}
	}
	return nil
}

// PeerAbsent returns the addresses of addrs that st lacks, counting a
// chunk present only if its whole subtree is kept (store.DB's HasMany
// counts fresh chunks absent): a peer skips sending what it is told is
// present, with everything below it.
func PeerAbsent(ctx context.Context, st Store, addrs []store.Address) ([]store.Address, error) {
	hm, ok := st.(interface {
		HasMany(context.Context, []store.Address) ([]store.Address, error)
	})
	if !ok {
		return nil, fmt.Errorf("versioning: the store (%T) cannot serve peers", st)
	}
	return hm.HasMany(ctx, addrs)
}

// PeerUpdateRefs applies a peer's ref updates to database db, each a
// compare-and-set on the peer's name, all or none (an error wrapping
// store.ErrRefConflict if one is not at its Old value). A branch moved by
// a peer takes its working set along when that has no changes of its
// own (its working and staged roots are the old head's root): the
// sessions on the branch then see the pushed commit, as after a
// dolt_reset --hard. If it has changes the update fails with
// ErrBranchDirty, as Git refuses to push into a checked-out branch. A new
// branch gets a clean working set; a deleted one loses its working set.
// A push of a database's first branch creates the database.
func PeerUpdateRefs(ctx context.Context, st Store, db string, updates []store.RefUpdate) error {
	r := &Repo{st: st, name: db}
	var out []store.RefUpdate
	for _, u := range updates {
		switch {
		case strings.HasPrefix(u.Name, tagsPrefix):
			tag := strings.TrimPrefix(u.Name, tagsPrefix)
			if err := checkRefName("tag", tag); err != nil {
				return fmt.Errorf("%w: %q: %w", ErrPeerRef, u.Name, err)
			}
			out = append(out, store.RefUpdate{Name: r.tagRef(tag), Old: u.Old, New: u.New})
		case strings.HasPrefix(u.Name, headsPrefix):
			branch := strings.TrimPrefix(u.Name, headsPrefix)
			if err := checkRefName("branch", branch); err != nil {
				return fmt.Errorf("%w: %q: %w", ErrPeerRef, u.Name, err)
			}
			ws, err := r.peerWorkingSet(ctx, branch, u)
			if err != nil {
				return err
			}
			out = append(out, store.RefUpdate{Name: r.headRef(branch), Old: u.Old, New: u.New})
			if !ws.Old.IsZero() || !ws.New.IsZero() {
				out = append(out, ws)
			}
		default:
			return fmt.Errorf("%w: %q", ErrPeerRef, u.Name)
		}
	}
	return updatePeerRefs(ctx, st, db, "a peer", out)
}

// updatePeerRefs makes a peer's updates of database db's refs (for what,
// "a peer" or "a peer's backup"), durably, all or none; a ref named
// twice is an error.
func updatePeerRefs(ctx context.Context, st Store, db, what string, out []store.RefUpdate) error {
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	for i := 1; i < len(out); i++ {
		if out[i].Name == out[i-1].Name {
			return fmt.Errorf("%w: %q named twice", ErrPeerRef, out[i].Name)
		}
	}
	if err := st.UpdateRefs(ctx, out, true); err != nil {
		return fmt.Errorf("versioning: updating refs of database %q for %s: %w", db, what, err)
	}
	return nil
}

// peerWorkingSet returns the update of branch's working set that goes
// with u, the update of its head.
func (r *Repo) peerWorkingSet(ctx context.Context, branch string, u store.RefUpdate) (store.RefUpdate, error) {
	up := store.RefUpdate{Name: r.wsRef(branch)}
	// Judged against the branch's head first: if another push moved it,
	// the working set moved with it, and the peer must be told of the
	// conflict (to judge again, and pull), not of changes.
	if head, _, err := r.st.Ref(ctx, r.headRef(branch)); err != nil {
		return up, err
	} else if head != u.Old {
		return up, fmt.Errorf("versioning: branch %q is at %s, expected %s: %w", branch, head, u.Old, store.ErrRefConflict)
	}
	cur, ok, err := r.st.Ref(ctx, up.Name)
	if err != nil {
		return up, err
	}
	if ok {
		up.Old = cur
	}
	if ok && !u.Old.IsZero() {
		b, err := r.st.Get(ctx, cur)
		if err != nil {
			return up, fmt.Errorf("versioning: loading working set of %q: %w", branch, err)
		}
		ws, err := decodeWorkingSet(b)
		if err != nil {
			return up, err
		}
		old, err := LoadCommit(ctx, r.st, u.Old)
		if err != nil {
			return up, err
		}
		if ws.Working != old.Root || ws.Staged != old.Root || !ws.MergeCommit.IsZero() {
			return up, fmt.Errorf("%w: refusing to update branch %q of database %q: its working set has changes that are not committed",
				ErrBranchDirty, branch, url.PathEscape(r.name))
		}
	}
	if u.New.IsZero() {
		return up, nil // a deleted branch's working set goes with it
	}
	c, err := LoadCommit(ctx, r.st, u.New)
	if err != nil {
		return up, err
	}
	a, err := r.st.Put(ctx, (&WorkingSet{Working: c.Root, Staged: c.Root}).encode())
	if err != nil {
		return up, fmt.Errorf("versioning: writing working set: %w", err)
	}
	up.New = a
	return up, nil
}

// A peer's backup of one of its databases (dolt_backup to a postgres://
// URL) is a database of this server: its every ref, named as a backup
// names them (backup.go: refs/heads/B, workingSets/heads/B,
// refs/remotes/R/B, config/remotes, ...), mapped to the database's own
// refs. The backup is then a database like any other here, which
// sessions may open and read; a sync replaces its refs, working sets
// included, as it replaces a file:// backup's manifest, and a restore
// reads them back.

// PeerBackupRefs calls fn with each ref of database db under its name in
// a backup, in name order: those a backup keeps (backupRefName).
func PeerBackupRefs(ctx context.Context, st Store, db string, fn func(name string, a store.Address) error) error {
	return listRenamedRefs(ctx, st, db, backupRefName, fn)
}

// PeerBackupUpdateRefs applies a peer's backup sync to database db: ref
// updates named as a backup names them, each a compare-and-set, all or
// none, written as they are (a backup mirrors: working sets are not
// judged, and nothing else moves with them). The first sync of a backup
// creates the database.
func PeerBackupUpdateRefs(ctx context.Context, st Store, db string, updates []store.RefUpdate) error {
	r := &Repo{st: st, name: db}
	out := make([]store.RefUpdate, len(updates))
	for i, u := range updates {
		name, err := r.localRefName(u.Name)
		if err != nil {
			return fmt.Errorf("%w: %q: %w", ErrPeerRef, u.Name, err)
		}
		out[i] = store.RefUpdate{Name: name, Old: u.Old, New: u.New}
	}
	return updatePeerRefs(ctx, st, db, "a peer's backup", out)
}
