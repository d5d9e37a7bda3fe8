package versioning

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/store/remotestore"
)

// Transfers: copying the chunks that refs reach from one store to another
// (a push, a fetch, a clone), stopping at every chunk the destination
// already has. The walk is GC's mark (gc.go) with two hooks: have asks the
// destination, so that a chunk it holds is not walked (it holds the whole
// subtree: "present implies its whole subtree is present", which every
// store here keeps), and leave copies each chunk once everything below it
// has been copied, children before parents. So at every moment of a
// transfer, and after one cut short by an error, a cancelled context or a
// crash, the destination still holds the whole subtree of every chunk it
// holds, and a retry walks from the same roots and copies what is still
// missing. Refs move only after the chunks they reach are written.
//
// Garbage collection: into a store.DB, chunks are written with Put and
// refs moved with UpdateRefs, the calls GC's write barrier watches
// (store invariant 9). A collection that runs during a fetch removes what
// the fetch wrote before it began (no ref reaches it yet), keeps what it
// writes later, and fails the fetch's ref update (ErrCollected) rather
// than let a ref reach a removed chunk. What was kept may refer to what
// was removed, and a walk stops at it, so the fetch copies again
// trusting nothing the store holds, and updates again (fetchRetrying;
// TestFetchDuringGC). The SQL layer keeps dolt_gc and transfers apart
// anyway (its gate waits for running statements).

// transferStore is what a transfer needs of either side: a Store that can
// say which chunks it holds. store.DB, store.Memory and a remote
// (remotestore.Store) are.
type transferStore interface {
	Store
	Has(ctx context.Context, addr store.Address) (bool, error)
}

var (
	_ transferStore = (*store.DB)(nil)
	_ transferStore = (*store.Memory)(nil)
	_ transferStore = (*remotestore.Store)(nil)
)

// TransferStats count what a transfer wrote to its destination.
type TransferStats struct {
	// Chunks and Bytes count the chunks copied; Read counts the chunks
	// the walk read from the source (what it copied, and the nodes above
	// chunks the destination had).
	Chunks, Read int
	Bytes        int64
}

func (s *TransferStats) add(o TransferStats) {
	s.Chunks += o.Chunks
	s.Read += o.Read
	s.Bytes += o.Bytes
}

// progressEvery is how often a long transfer logs its progress.
const progressEvery = 2 * time.Second

// progressKey is the context key of WithTransferProgress.
type progressKey struct{}

// progress is what WithTransferProgress puts in a context.
type progress struct {
	every time.Duration
	fn    func(TransferStats, time.Duration)
}

// WithTransferProgress returns ctx carrying fn, which a transfer run with
// it (fetch, pull, push, clone, backup) calls at most once every every,
// with what it has copied so far and for how long: the session that
// started it tells its client (NOTICE).
func WithTransferProgress(ctx context.Context, every time.Duration, fn func(st TransferStats, elapsed time.Duration)) context.Context {
	return context.WithValue(ctx, progressKey{}, progress{every, fn})
}

// copier is one transfer's walk: the source as the marker reads it
// (holding what it read until leave copies it, so that each chunk is read
// once), and the destination.
type copier struct {
	src, dst transferStore
	held     map[store.Address][]byte
	stats    TransferStats
	log      *zap.Logger
	began    time.Time
	logged   time.Time
	reported time.Time // when WithTransferProgress's function was last called
	// trust: the walk stops at what dst holds. known holds dst's answers
	// asked ahead for the children of a node (WillVisit), true for held,
	// until the walk visits them.
	trust bool
	known map[store.Address]bool
}

// hasManyStore is a destination that answers for many chunks at once.
type hasManyStore interface {
	HasMany(ctx context.Context, addrs []store.Address) ([]store.Address, error)
}

// WillVisit asks dst, in one call, which of the children of a node the
// walk is about to visit it holds (prolly's walk calls it): a remote
// answers in one round trip what would take one a child.
func (c *copier) WillVisit(ctx context.Context, addrs []store.Address) error {
	hm, ok := c.dst.(hasManyStore)
	if !c.trust || !ok || len(addrs) < 2 {
		return nil
	}
	ask := make([]store.Address, 0, len(addrs))
	for _, a := range addrs {
		if _, ok := c.known[a]; !ok && !a.IsZero() {
			ask = append(ask, a)
		}
	}
	if len(ask) == 0 {
		return nil
	}
	absent, err := hm.HasMany(ctx, ask)
	if err != nil {
		return err
	}
	for _, a := range ask {
		c.known[a] = true
	}
	for _, a := range absent {
		c.known[a] = false
	}
	return nil
}

// has reports whether dst holds a, from the answers asked ahead if it
// was among them.
func (c *copier) has(ctx context.Context, a store.Address) (bool, error) {
	if held, ok := c.known[a]; ok {
		delete(c.known, a)
		return held, nil
	}
	return c.dst.Has(ctx, a)
}

// copyChunks copies into dst every chunk of src that the commits and tag
// objects of roots reach and dst lacks, children before parents. It
// writes chunks only; the caller moves the refs.
func copyChunks(ctx context.Context, src, dst transferStore, commits, tags []store.Address, log *zap.Logger) (TransferStats, error) {
	return copyWalk(ctx, src, dst, commits, tags, log, true)
}

// copyWalk is copyChunks, which with trust unset copies every chunk, not
// only those dst lacks.
func copyWalk(ctx context.Context, src, dst transferStore, commits, tags []store.Address, log *zap.Logger, trust bool) (TransferStats, error) {
	c, m := newCopier(ctx, src, dst, log, trust)
	for _, a := range commits {
		if err := m.commit(ctx, a); err != nil {
			return c.stats, fmt.Errorf("versioning: copying commit %s: %w", a, err)
		}
	}
	for _, a := range tags {
		if err := m.tag(ctx, a); err != nil {
			return c.stats, fmt.Errorf("versioning: copying tag %s: %w", a, err)
		}
	}
	c.done()
	return c.stats, nil
}

// newCopier returns a transfer's copier and the marker that walks for
// it: a walk of the marker (commit, tag, ref) copies what it reaches from
// src to dst, stopping, with trust set, at what dst holds.
func newCopier(ctx context.Context, src, dst transferStore, log *zap.Logger, trust bool) (*copier, *marker) {
	if log == nil {
		log = zap.NewNop()
	}
	c := &copier{src: src, dst: dst, held: map[store.Address][]byte{}, log: log, began: time.Now(), trust: trust, known: map[store.Address]bool{}}
	c.logged, c.reported = c.began, c.began
	m := &marker{cs: c, seen: map[store.Address]struct{}{}, leave: func(a store.Address) error { return c.copy(ctx, a) },
		have: func(a store.Address) (bool, error) {
			if !trust {
				return false, nil
			}
			return c.has(ctx, a)
		}}
	return c, m
}

// done logs what the transfer copied.
func (c *copier) done() {
	c.log.Debug("transfer done", zap.Int("chunks", c.stats.Chunks), zap.Int64("bytes", c.stats.Bytes),
		zap.Int("read", c.stats.Read), zap.Duration("took", time.Since(c.began)))
}

// Get reads a chunk from the source for the walk and holds it for copy.
func (c *copier) Get(ctx context.Context, a store.Address) ([]byte, error) {
	if b, ok := c.held[a]; ok {
		return b, nil
	}
	b, err := c.src.Get(ctx, a)
	if err != nil {
		return nil, err
	}
	c.held[a] = b
	c.stats.Read++
	return b, nil
}

// GetMany is Get for the children of a node, read in one call.
func (c *copier) GetMany(ctx context.Context, addrs []store.Address, fn func(store.Address, []byte) error) error {
	mg, ok := c.src.(interface {
		GetMany(context.Context, []store.Address, func(store.Address, []byte) error) error
	})
	if !ok {
		for _, a := range addrs {
			b, err := c.Get(ctx, a)
			if err != nil {
				return err
			}
			if err := fn(a, b); err != nil {
				return err
			}
		}
		return nil
	}
	return mg.GetMany(ctx, addrs, func(a store.Address, b []byte) error {
		if _, ok := c.held[a]; !ok {
			c.held[a] = b
			c.stats.Read++
		}
		return fn(a, b)
	})
}

// Put is not part of a walk.
func (c *copier) Put(ctx context.Context, chunk []byte) (store.Address, error) {
	return store.Address{}, fmt.Errorf("versioning: a transfer's walk does not write its source")
}

// copy writes the chunk at a, whose subtree is in dst, to dst.
func (c *copier) copy(ctx context.Context, a store.Address) error {
	// A destination that buffers its writes (a file or S3 remote) may
	// not look at ctx for many chunks; a cancelled transfer stops here.
	if err := ctx.Err(); err != nil {
		return err
	}
	b, ok := c.held[a]
	if ok {
		delete(c.held, a)
	} else {
		var err error
		if b, err = c.src.Get(ctx, a); err != nil { // a blob's data chunk, visited unread
			return fmt.Errorf("versioning: reading chunk %s: %w", a, err)
		}
		c.stats.Read++
	}
	if _, err := c.dst.Put(ctx, b); err != nil {
		return fmt.Errorf("versioning: writing chunk %s: %w", a, err)
	}
	c.stats.Chunks++
	c.stats.Bytes += int64(len(b))
	if now := time.Now(); now.Sub(c.logged) >= progressEvery {
		c.logged = now
		c.log.Info("transfer progress", zap.Int("chunks", c.stats.Chunks), zap.Int64("bytes", c.stats.Bytes),
			zap.Duration("elapsed", now.Sub(c.began)))
	}
	if p, ok := ctx.Value(progressKey{}).(progress); ok {
		if now := time.Now(); now.Sub(c.reported) >= p.every {
			c.reported = now
			p.fn(c.stats, now.Sub(c.began))
		}
	}
	return nil
}
