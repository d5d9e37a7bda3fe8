package session

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
)

// txnGate keeps a garbage collection from running beside other
// transactions. A transaction holds roots that no ref may reach (its
// snapshot once the branch has moved on, its own changes), and a
// collection would remove their chunks from under it; the store's write
// barrier (store.GC) protects what is written after the collection began,
// not what a transaction read before. So dolt_gc waits until the only open
// transaction is its own, and transactions that begin meanwhile wait for
// it to end: the collection is online for the server (no restart, other
// sessions stay connected) but pauses their transactions while it runs.
//
// The gate also tells the store which chunks no one can reach any more.
// With a FreshStore, a ref update journals only the chunks it reaches;
// the rest stay fresh, in memory. Each transaction registers at the
// store's current generation and writes under it (the session's context
// carries it); once every transaction of the generations below g has
// ended, their fresh chunks can only be garbage, and leave drops them
// (store/fresh.go states why that is safe).
type txnGate struct {
	mu   sync.Mutex
	open int  // transactions open (sessions between begin and commit or rollback)
	gc   bool // a collection runs or waits for the open ones to end
	// fresh, when set, is the store keeping fresh chunks; gens counts the
	// open transactions of each generation.
	fresh versioning.FreshStore
	gens  map[uint64]int
}

// dropFreshAt is the size of the fresh chunks past which a transaction's
// end drops those no open transaction can reach: large enough that drops
// are rare (each scans every fresh chunk), small enough that garbage never
// reaches the store's own bound, past which it journals everything.
const dropFreshAt = 4 << 20

// gatePoll is how often a waiter looks again; waits are rare and short.
const gatePoll = 5 * time.Millisecond

// enter counts a transaction in, after any running collection, and
// returns the generation it writes under (0 without a FreshStore).
func (g *txnGate) enter(ctx context.Context) (uint64, error) {
	for {
		g.mu.Lock()
		if !g.gc {
			g.open++
			var gen uint64
			if g.fresh != nil {
				gen = g.fresh.Generation()
				if g.gens == nil {
					g.gens = map[uint64]int{}
				}
				g.gens[gen]++
			}
			g.mu.Unlock()
			return gen, nil
		}
		g.mu.Unlock()
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(gatePoll):
		}
	}
}

// leave counts a transaction of generation gen out, and drops the fresh
// chunks of the generations that no longer have an open transaction once
// they are past dropFreshAt.
func (g *txnGate) leave(gen uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open--
	if g.fresh == nil {
		return
	}
	if g.gens[gen]--; g.gens[gen] <= 0 {
		delete(g.gens, gen)
	}
	if g.fresh.FreshBytes() < dropFreshAt {
		return
	}
	// Transactions entering from now on register at next, so every open
	// one is of a generation below it; what is below the oldest of them is
	// no one's.
	before := g.fresh.NextGeneration()
	for open := range g.gens {
		before = min(before, open)
	}
	g.fresh.DropFresh(before)
}

// exclusive waits until no transaction but the caller's (own: whether the
// caller has one) is open, holding new ones back, and returns the function
// that lets them in again.
func (g *txnGate) exclusive(ctx context.Context, own bool) (func(), error) {
	mine := 0
	if own {
		mine = 1
	}
	claimed := false
	for {
		g.mu.Lock()
		if !claimed && !g.gc {
			g.gc, claimed = true, true
		}
		if claimed && g.open <= mine {
			g.mu.Unlock()
			return func() { g.mu.Lock(); g.gc = false; g.mu.Unlock() }, nil
		}
		g.mu.Unlock()
		select {
		case <-ctx.Done():
			if claimed {
				g.mu.Lock()
				g.gc = false
				g.mu.Unlock()
			}
			return nil, ctx.Err()
		case <-time.After(gatePoll):
		}
	}
}

// tryExclusive claims the gate if no transaction is open at this moment,
// without waiting, and returns the function that lets them in again; nil
// if one is open or a collection runs.
func (g *txnGate) tryExclusive() func() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gc || g.open > 0 {
		return nil
	}
	g.gc = true
	return func() { g.mu.Lock(); g.gc = false; g.mu.Unlock() }
}

// CollectGarbage runs a garbage collection of the store (dolt_gc): once
// every other transaction has ended, it keeps what any ref reaches and
// the roots of the caller's own transaction, removes the rest and gives
// the disk space back.
func (s *Session) CollectGarbage(ctx context.Context) (versioning.GCResult, error) {
	var own []versioning.Address
	if tx := s.txn; tx != nil {
		own = append(own, tx.Start.Addr(), tx.Root().Addr())
	}
	release, err := s.e.gate.exclusive(ctx, s.inGate)
	if err != nil {
		return versioning.GCResult{}, err
	}
	defer release()
	return s.e.collectGarbage(ctx, own)
}

// collectGarbage runs one collection, keeping own (the caller's
// transaction's roots). The caller holds the gate exclusively.
func (e *Engine) collectGarbage(ctx context.Context, own []versioning.Address) (versioning.GCResult, error) {
	st, ok := e.st.(versioning.GCStore)
	if !ok {
		return versioning.GCResult{}, pgerr.New(pgerr.FeatureNotSupported, "this store cannot collect garbage")
	}
	res, err := versioning.GCWith(ctx, st, func(context.Context) ([]versioning.Address, error) { return own, nil },
		versioning.GCOptions{Quiesced: true}) // the gate kept every other transaction out
	if err != nil {
		return res, err
	}
	e.log.Info("garbage collected", zap.Int("refs", res.Refs), zap.Uint64("chunks_kept", res.ChunksKept),
		zap.Uint64("chunks_removed", res.ChunksRemoved), zap.Uint64("bytes_kept", res.BytesKept),
		zap.Uint64("bytes_removed", res.BytesRemoved), zap.Int64("disk_before", res.DiskBefore),
		zap.Int64("disk_after", res.DiskAfter), zap.Duration("mark", res.Mark), zap.Duration("sweep", res.Sweep),
		zap.Duration("reclaim", res.Reclaim))
	return res, nil
}

// AutoGC collects garbage whenever threshold bytes of chunks have been
// written to disk (written: the store's count since it opened, such as
// store.Stats' BytesJournaled) since
// the last collection (or the start), looking every check,
// until ctx ends. It runs only at a moment when no transaction is open, so
// that it never holds sessions back waiting for an idle one (dolt_gc
// waits instead): under a load that always keeps a transaction open it
// is put off, check after check. Most of what a busy server writes is
// soon garbage (the new Prolly nodes of every statement and commit, of
// which the branch keeps the last), so the threshold bounds the
// directory's growth between collections.
func (e *Engine) AutoGC(ctx context.Context, written func() uint64, threshold uint64, check time.Duration) {
	last := written()
	t := time.NewTicker(check)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := written()
		if now-last < threshold {
			continue
		}
		release := e.gate.tryExclusive()
		if release == nil {
			continue // a transaction is open: at the next check
		}
		e.log.Info("automatic garbage collection", zap.Uint64("written_since_last", now-last))
		_, err := e.collectGarbage(ctx, nil)
		release()
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			e.log.Warn("automatic garbage collection failed", zap.Error(err))
		default:
			last = written()
		}
	}
}
