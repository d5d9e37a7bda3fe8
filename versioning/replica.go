package versioning

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/prollypg/prollypg/store"
)

// Read replicas: a server that follows branches of a database of another
// server (its primary, a postgres:// URL) by copying, over and over, what
// their heads and working sets reach and moving its own refs to them. The
// working set is followed as well as the head, so that a SQL COMMIT on
// the primary (which moves only the working set) reaches the replica, not
// only dolt_commit. The local database is a mirror: a step points its
// refs at the primary's, whatever they were, and the SQL layer keeps
// sessions from writing it.
//
// The database's tags are mirrored too: new, moved and deleted ones.
//
// A step is a transfer (transfer.go): chunks first, children before
// parents, stopping at what the replica holds; then one compare-and-set
// of the local refs, against the values read before the copy (nothing
// else writes them). A step cut short leaves the refs as they were and
// the chunks copied kept for the next one.

// ReplicaBranch is what the last step saw of a followed branch.
type ReplicaBranch struct {
	Branch string
	// PrimaryHead and PrimaryWS are the primary's branch head and working
	// set, LocalHead and LocalWS the replica's, after the step.
	PrimaryHead, PrimaryWS, LocalHead, LocalWS Address
	// Copied counts the chunks the step copied.
	Copied int
}

// InSync reports whether the replica's branch is the primary's.
func (b ReplicaBranch) InSync() bool {
	return b.PrimaryHead == b.LocalHead && b.PrimaryWS == b.LocalWS
}

// Replicator follows branches of a primary's database into st.
type Replicator struct {
	st       Store
	url      string
	db       string
	branches []string
	log      *zap.Logger
	src      remoteStore // nil until connected, and after an error
	distrust bool        // the next step trusts nothing local holds (see fetchRetrying)
}

// NewReplicator returns a Replicator of branches of the database that
// url (postgres://host:port/db) names, into the database of the same
// name in st. It connects at its first Step.
func NewReplicator(st Store, rawURL string, branches []string, log *zap.Logger) (*Replicator, error) {
	if !strings.HasPrefix(rawURL, "postgres://") && !strings.HasPrefix(rawURL, "postgresql://") {
		return nil, fmt.Errorf("%w: a replica follows a postgres:// URL, not %q", ErrBadRemoteURL, RedactURL(rawURL))
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %v", ErrBadRemoteURL, RedactURL(rawURL), err)
	}
	db := strings.TrimPrefix(u.Path, "/")
	if db == "" || strings.Contains(db, "/") {
		return nil, fmt.Errorf("%w: %q names no database", ErrBadRemoteURL, RedactURL(rawURL))
	}
	if len(branches) == 0 {
		branches = []string{DefaultBranch}
	}
	for _, b := range branches {
		if err := checkRefName("branch", b); err != nil {
			return nil, err
		}
	}
	if log == nil {
		log = zap.NewNop()
	}
	return &Replicator{st: st, url: rawURL, db: db, branches: branches, log: log}, nil
}

// Database returns the name of the database the replicator follows.
func (p *Replicator) Database() string { return p.db }

// Branches returns the branches it follows.
func (p *Replicator) Branches() []string { return p.branches }

// Close ends the connection to the primary.
func (p *Replicator) Close() error {
	if p.src == nil {
		return nil
	}
	err := p.src.Close()
	p.src = nil
	return err
}

// Wait waits until the primary says its refs moved or d passes,
// whichever comes first; without a connection, or from a primary that
// cannot say, it waits d.
func (p *Replicator) Wait(ctx context.Context, d time.Duration) error {
	if w, ok := p.src.(interface {
		WaitForChange(context.Context, time.Duration) (bool, error)
	}); ok {
		_, err := w.WaitForChange(ctx, d)
		if err != nil && ctx.Err() == nil {
			p.Close() // connect again at the next step
		}
		return ctx.Err()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// Step brings the followed branches up to the primary's, connecting
// first if need be. On an error the connection is dropped, so that the
// next step connects again (the primary may have restarted). A branch
// the primary lacks is left as it is.
func (p *Replicator) Step(ctx context.Context) ([]ReplicaBranch, error) {
	out, err := p.step(ctx)
	if err != nil {
		p.Close()
	}
	return out, err
}

func (p *Replicator) step(ctx context.Context) ([]ReplicaBranch, error) {
	if p.src == nil {
		src, err := openRemote(ctx, p.url, false)
		if err != nil {
			return nil, err
		}
		p.src = src
	}
	local, ok := p.st.(transferStore)
	if !ok {
		return nil, fmt.Errorf("versioning: the store (%T) cannot take part in a transfer", p.st)
	}
	r := &Repo{st: p.st, name: p.db}
	primary, err := refsWithPrefix(ctx, p.src, "")
	if err != nil {
		return nil, err
	}
	out := make([]ReplicaBranch, 0, len(p.branches))
	var updates []store.RefUpdate
	trust := !p.distrust
	for _, b := range p.branches {
		rb := ReplicaBranch{Branch: b, PrimaryHead: primary[headsPrefix+b], PrimaryWS: primary[peerWSPrefix+b]}
		if rb.LocalHead, _, err = p.st.Ref(ctx, r.headRef(b)); err != nil {
			return nil, err
		}
		if rb.LocalWS, _, err = p.st.Ref(ctx, r.wsRef(b)); err != nil {
			return nil, err
		}
		if rb.PrimaryHead.IsZero() || rb.PrimaryWS.IsZero() || rb.InSync() {
			out = append(out, rb)
			continue
		}
		c, m := newCopier(ctx, p.src, local, p.log, trust)
		if err := m.commit(ctx, rb.PrimaryHead); err != nil {
			return nil, fmt.Errorf("versioning: copying %s of %q: %w", b, p.db, err)
		}
		if err := m.workingSet(ctx, rb.PrimaryWS); err != nil {
			return nil, fmt.Errorf("versioning: copying the working set of %s of %q: %w", b, p.db, err)
		}
		c.done()
		rb.Copied = c.stats.Chunks
		if rb.LocalHead != rb.PrimaryHead {
			updates = append(updates, store.RefUpdate{Name: r.headRef(b), Old: rb.LocalHead, New: rb.PrimaryHead})
		}
		if rb.LocalWS != rb.PrimaryWS {
			updates = append(updates, store.RefUpdate{Name: r.wsRef(b), Old: rb.LocalWS, New: rb.PrimaryWS})
		}
		rb.LocalHead, rb.LocalWS = rb.PrimaryHead, rb.PrimaryWS
		out = append(out, rb)
	}
	tags, err := p.tagUpdates(ctx, r, local, primary, trust)
	if err != nil {
		return nil, err
	}
	updates = append(updates, tags...)
	if len(updates) == 0 {
		return out, nil
	}
	err = p.st.UpdateRefs(ctx, updates, true)
	if errors.Is(err, ErrCollected) {
		// A garbage collection removed part of what was copied: copy
		// again trusting nothing local (fetchRetrying says why).
		p.distrust = true
		p.log.Warn("a garbage collection removed part of a replication step; copying again")
	} else if err == nil {
		p.distrust = false
	}
	if err != nil {
		return nil, fmt.Errorf("versioning: moving the replica's refs of %q: %w", p.db, err)
	}
	return out, nil
}

// tagUpdates copies the primary's tags that the replica lacks or has at
// another object and returns the ref updates that mirror the primary's
// tags: new, moved and deleted ones.
func (p *Replicator) tagUpdates(ctx context.Context, r *Repo, local transferStore, primary map[string]store.Address, trust bool) ([]store.RefUpdate, error) {
	prefix := dbPrefix(p.db) + "tags/"
	mine, err := refsWithPrefix(ctx, p.st, prefix)
	if err != nil {
		return nil, err
	}
	var updates []store.RefUpdate
	for name, a := range primary {
		tag, ok := strings.CutPrefix(name, tagsPrefix)
		if !ok {
			continue
		}
		ref := r.tagRef(tag)
		cur := mine[ref]
		delete(mine, ref)
		if cur == a {
			continue
		}
		c, m := newCopier(ctx, p.src, local, p.log, trust)
		if err := m.tag(ctx, a); err != nil {
			return nil, fmt.Errorf("versioning: copying tag %s of %q: %w", tag, p.db, err)
		}
		c.done()
		updates = append(updates, store.RefUpdate{Name: ref, Old: cur, New: a})
	}
	for ref, a := range mine { // deleted on the primary
		updates = append(updates, store.RefUpdate{Name: ref, Old: a})
	}
	return updates, nil
}
