package versioning

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/prollypg/prollypg/store"
)

// Committer makes SQL transactions' changes part of their branches'
// working roots, many at a time (group commit). Concurrent COMMITs on one
// branch queue up; one of them, the leader, reads the working set once,
// merges the queued transactions into it one after another in memory
// (MergeRoots, each against the result of the ones before), writes the
// working set once, hands the lead to the next waiting transaction, and
// only then syncs and acknowledges its batch. A transaction whose merge
// fails gets its error and leaves the others untouched.
//
// Handing over the lead before the sync pipelines the batches: while one
// batch waits for its fsync, the next one merges on top of it, and the
// store's syncer lets one fsync cover both when they meet. Without
// pipelining, the leader's merge, write and fsync were one serial path
// that bounded throughput however many clients waited.
//
// Without batching, every COMMIT merged against the working set it read
// and then raced the others to compare-and-set it; with many clients most
// lost the race and merged again, and throughput fell as clients were
// added.
//
// Invariants:
//  1. A transaction is acknowledged (Commit returns nil) only after the
//     working set holding its changes is durable. A later batch may merge
//     on top of a batch not yet synced; its sync covers the earlier one,
//     and a crash before either sync loses both, neither acknowledged.
//  2. The working set is still updated with compare-and-set, so writers
//     that do not go through the Committer (version-control functions)
//     stay safe: a batch that loses to one of them is merged again.
//  3. Queues are per database and branch; batches of different branches
//     run concurrently. At most one batch of a branch merges at a time.
//
// One Committer serves every session of an engine; the zero value is
// ready to use.
type Committer struct {
	mu     sync.Mutex
	queues map[commitQueueKey]*commitQueue
}

type commitQueueKey struct{ database, branch string }

// commitQueue holds the transactions waiting for a branch's leader.
type commitQueue struct {
	mu      sync.Mutex
	pending []*commitRequest
	leading bool // a leader is merging a batch, or has been named
}

// Replayer is an optional interface of a commit's IndexEncoder: a
// transaction that keeps its changes as edits not yet written into its
// root (exec's deferred tables) and can write them onto a newer root
// directly. The committer then replays it onto the working set instead
// of writing its root and merging that: one pass over each changed tree
// instead of two.
type Replayer interface {
	// Deferred reports whether the transaction holds such changes; when
	// it does not, its roots are merged as any transaction's.
	Deferred() bool
	// Replay returns onto with the transaction's changes, or false when
	// it cannot be sure that equals the three-way merge's result.
	Replay(ctx context.Context, onto RootValue) (RootValue, bool, error)
	// Materialized returns the transaction's root with every change
	// written, for the merge when Replay cannot.
	Materialized(ctx context.Context) (RootValue, error)
}

// commitRequest is one transaction waiting to be committed.
type commitRequest struct {
	start, current RootValue
	replay         Replayer // set when current lacks changes Replayer holds
	enc            IndexEncoder
	lead           chan struct{} // closed when this transaction is to lead the next batch
	done           chan struct{} // closed when result and err are final
	result         RootValue
	err            error
}

// maxBatchAttempts bounds how often a batch is merged again after losing
// the working set to a writer outside the Committer.
const maxBatchAttempts = 100

// Commit makes a transaction's changes part of branch's working root,
// durably, as Repo.CommitTransaction documents, batched with the other
// transactions committing on the branch at the same time.
func (c *Committer) Commit(ctx context.Context, r *Repo, branch string, start, current RootValue, enc IndexEncoder) (RootValue, error) {
	rp, _ := enc.(Replayer)
	if rp != nil && !rp.Deferred() {
		rp = nil
	}
	if rp == nil && current.Addr() == start.Addr() && !hasRebased(enc) {
		return start, nil
	}
	// A commit is not a statement a cancel request may interrupt, and the
	// batch it may lead serves other sessions too.
	ctx = context.WithoutCancel(ctx)
	q := c.queue(r.name, branch)
	req := &commitRequest{start: start, current: current, replay: rp, enc: enc, lead: make(chan struct{}), done: make(chan struct{})}
	q.mu.Lock()
	q.pending = append(q.pending, req)
	lead := !q.leading
	q.leading = true
	q.mu.Unlock()
	if lead {
		runBatch(ctx, r, branch, q)
	}
	select {
	case <-req.done:
	case <-req.lead:
		// The batch this runs holds req, which is still pending.
		runBatch(ctx, r, branch, q)
		<-req.done
	}
	return req.result, req.err
}

// runBatch commits every pending transaction of q as one batch, names the
// next leader, then makes the batch durable and acknowledges it.
func runBatch(ctx context.Context, r *Repo, branch string, q *commitQueue) {
	q.mu.Lock()
	batch := q.pending
	q.pending = nil
	q.mu.Unlock()
	wrote := commitBatchSafely(ctx, r, branch, batch)

	q.mu.Lock()
	if len(q.pending) > 0 {
		close(q.pending[0].lead)
	} else {
		q.leading = false
	}
	q.mu.Unlock()

	if wrote {
		if err := r.st.Sync(); err != nil {
			err = fmt.Errorf("versioning: working set updated but not synced: %w", err)
			for _, req := range batch {
				if req.err == nil {
					req.err = err
				}
			}
		}
	}
	for _, req := range batch {
		close(req.done)
	}
}

// onto returns the working root acc with the transaction's changes: its
// changes replayed onto acc, or its root merged with acc.
func (req *commitRequest) onto(ctx context.Context, acc RootValue) (RootValue, error) {
	current := req.current
	if req.replay != nil {
		next, ok, err := req.replay.Replay(ctx, acc)
		if ok || err != nil {
			return next, err
		}
		if current, err = req.replay.Materialized(ctx); err != nil {
			return RootValue{}, err
		}
	}
	if acc.Addr() == req.start.Addr() {
		return current, nil
	}
	return MergeRoots(ctx, req.start, current, acc, req.enc)
}

// commitBatchSafely is commitBatch, with a panic turned into the batch's
// error: the batch runs on behalf of other sessions too, and its leader
// must still hand over the lead, or every later commit on the branch
// would wait for ever.
func commitBatchSafely(ctx context.Context, r *Repo, branch string, batch []*commitRequest) (wrote bool) {
	defer func() {
		if p := recover(); p != nil {
			err := fmt.Errorf("versioning: commit failed: %v", p)
			for _, req := range batch {
				req.err = err
			}
			wrote = false
		}
	}()
	return commitBatch(ctx, r, branch, batch)
}

// hasRebased reports whether the transaction changed rows on top of newer
// versions than its snapshot's: then even a root equal to its start (the
// changes gave back the snapshot's values) has something to commit.
func hasRebased(enc IndexEncoder) bool {
	rs, ok := enc.(RebaseSource)
	return ok && len(rs.RebasedTables()) > 0
}

// queue returns the queue of a branch, making it on first use.
func (c *Committer) queue(database, branch string) *commitQueue {
	k := commitQueueKey{database, branch}
	c.mu.Lock()
	defer c.mu.Unlock()
	q, ok := c.queues[k]
	if !ok {
		if c.queues == nil {
			c.queues = map[commitQueueKey]*commitQueue{}
		}
		q = &commitQueue{}
		c.queues[k] = q
	}
	return q
}

// commitBatch merges a batch into the working set and writes it once,
// without syncing. It reports whether it wrote the working set.
func commitBatch(ctx context.Context, r *Repo, branch string, batch []*commitRequest) bool {
	fail := func(err error) {
		for _, req := range batch {
			if req.err == nil {
				req.err = err
			}
		}
	}
	for attempt := 0; attempt < maxBatchAttempts; attempt++ {
		wsAddr, ws, err := r.WorkingSet(ctx, branch)
		if err != nil {
			fail(err)
			return false
		}
		acc, err := LoadRootValue(ctx, r.st, ws.Working)
		if err != nil {
			fail(err)
			return false
		}
		merged := 0
		for _, req := range batch {
			req.err = nil
			next, err := req.onto(ctx, acc)
			if err != nil {
				req.err = err
				continue
			}
			acc, req.result = next, next
			merged++
		}
		if merged == 0 {
			return false // every transaction failed on its own: nothing to write
		}
		nws := *ws
		nws.Working = acc.Addr()
		_, err = r.UpdateWorkingSet(ctx, branch, wsAddr, &nws, false)
		if errors.Is(err, store.ErrRefConflict) {
			continue // a version-control function moved the working set: merge again
		}
		if err != nil {
			// Nothing of the batch is known to be durable.
			for _, req := range batch {
				req.err = err
			}
			return false
		}
		return true
	}
	for _, req := range batch {
		req.err = fmt.Errorf("%w: gave up after %d attempts", ErrConflict, maxBatchAttempts)
	}
	return false
}
