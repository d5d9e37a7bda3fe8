package versioning

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Committer makes SQL transactions' changes part of their branches'
// working roots, many at a time (group commit). Concurrent COMMITs on one
// branch queue up; one of them, the leader, reads the working set once,
// merges the queued transactions into it one after another in memory
// (MergeRoots, each against the result of the ones before; transactions
// that give their changes as edits, Replayer, are applied together
// instead), writes the working set once, hands the lead to the next
// waiting transaction, and only then syncs and acknowledges its batch. A
// transaction whose merge fails gets its error and leaves the others
// untouched.
//
// A batch whose transactions were all applied as edits journals its change
// to the working set as a redo record of those edits (redo.go) rather than
// as the chunks it wrote.
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
	// Sequences, when set, learns the sequence records each batch wrote
	// with its transactions' advances.
	Sequences SequenceObserver
}

// SequenceObserver is told the records of the sequences a batch moved
// forward (exec.SequenceValues): a later reset of the working set to an
// earlier record is then a move back it can tell from the commits.
type SequenceObserver interface {
	Committed(ctx context.Context, database, branch string, root RootValue, advanced []SequenceAdvance)
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
// root (exec's deferred tables, and the positions it moved sequences to)
// and can give them as edits of a newer root. The committer then applies them to the working set instead of
// writing the transaction's root and merging that, and applies the edits
// of a batch's transactions together: one pass over each changed tree per
// batch instead of two per transaction.
type Replayer interface {
	// Deferred reports whether the transaction holds such changes; when
	// it does not, its roots are merged as any transaction's.
	Deferred() bool
	// SequenceAdvances returns the positions the transaction moved
	// sequences to, which its root lacks: the commit applies them
	// whether it replays the edits or merges.
	SequenceAdvances() []SequenceAdvance
	// Edits returns the transaction's changes as edits of onto's
	// tables, or false when applying them to onto might not give the
	// three-way merge's result (the committer then merges Materialized).
	Edits(ctx context.Context, onto RootValue) ([]TableEdits, bool, error)
	// Materialized returns the transaction's root with every change
	// written, for the merge when Edits cannot.
	Materialized(ctx context.Context) (RootValue, error)
}

// EditGroup is what the committer applies to a working root at once: the
// changes of transactions that changed different rows.
type EditGroup struct {
	Tables    []TableEdits
	Sequences []SequenceAdvance
}

// TableEdits are a transaction's changes to one table as edits: of its
// rows and of each of its indexes, each list in key order, and the row id
// its inserts reached. Unique are the unique keys its rows take, which
// no other transaction of the same group may take too.
type TableEdits struct {
	Schema, Name string
	Rows         []prolly.Edit
	Indexes      [][]prolly.Edit
	NextRowID    int64
	Unique       []UniqueKey
}

// UniqueKey is a key of a unique index (by position in the table's
// Indexes): an index entry's prefix no other entry may share.
type UniqueKey struct {
	Index  int
	Prefix []byte
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

// onto returns the working root acc with the transaction's changes, its
// root merged with acc (a Replayer's written first).
func (req *commitRequest) onto(ctx context.Context, acc RootValue) (RootValue, error) {
	current := req.current
	if req.replay != nil {
		var err error
		if current, err = req.replay.Materialized(ctx); err != nil {
			return RootValue{}, err
		}
	}
	if acc.Addr() == req.start.Addr() {
		return current, nil
	}
	return MergeRoots(ctx, req.start, current, acc, req.enc)
}

// replayGroup gathers the edits of a batch's replayed transactions that
// change different rows: each transaction's edits were checked against
// the same working root (Replayer.Edits), which the others' do not touch,
// so applying them all at once is applying them one after another.
type replayGroup struct {
	reqs   []*commitRequest
	tables map[string]*TableEdits // by schema + "\x00" + name
	keys   map[string]bool        // the row keys changed, by table and key
	seqs   []SequenceAdvance
}

// add takes req's edits into the group, unless one of its rows is one
// another transaction of the group changed.
func (g *replayGroup) add(req *commitRequest, edits []TableEdits) bool {
	for _, te := range edits {
		tk := te.Schema + "\x00" + te.Name + "\x00"
		for _, e := range te.Rows {
			if g.keys[tk+string(e.Key)] {
				return false
			}
		}
		for _, u := range te.Unique {
			if g.keys[uniqueGroupKey(tk, u)] {
				return false
			}
		}
	}
	if g.tables == nil {
		g.tables, g.keys = map[string]*TableEdits{}, map[string]bool{}
	}
	for _, te := range edits {
		tk := te.Schema + "\x00" + te.Name + "\x00"
		for _, e := range te.Rows {
			g.keys[tk+string(e.Key)] = true
		}
		for _, u := range te.Unique {
			g.keys[uniqueGroupKey(tk, u)] = true
		}
		cur, ok := g.tables[tk]
		if !ok {
			g.tables[tk] = &te
			continue
		}
		if len(cur.Indexes) != len(te.Indexes) {
			return false // cannot happen: both were checked against one definition
		}
		cur.Rows = prolly.MergeEdits(cur.Rows, te.Rows)
		for i := range cur.Indexes {
			cur.Indexes[i] = prolly.MergeEdits(cur.Indexes[i], te.Indexes[i])
		}
		cur.NextRowID = max(cur.NextRowID, te.NextRowID)
	}
	g.seqs = append(g.seqs, req.replay.SequenceAdvances()...)
	g.reqs = append(g.reqs, req)
	return true
}

// uniqueGroupKey is how a replayGroup's keys name a unique key of the
// table tk: apart from its row keys, by the index's position.
func uniqueGroupKey(tk string, u UniqueKey) string {
	return tk + "\x01" + strconv.Itoa(u.Index) + "\x00" + string(u.Prefix)
}

// apply writes the group's edits into acc and gives each of its
// transactions the result; it returns the edits it applied (false for an
// empty group).
func (g *replayGroup) apply(ctx context.Context, acc RootValue) (RootValue, EditGroup, bool, error) {
	if len(g.reqs) == 0 {
		return acc, EditGroup{}, false, nil
	}
	eg := EditGroup{Tables: make([]TableEdits, 0, len(g.tables)), Sequences: g.seqs}
	for _, te := range g.tables {
		eg.Tables = append(eg.Tables, *te)
	}
	next, err := ApplyEdits(ctx, acc, eg, g.reqs[0].enc)
	if err != nil {
		return RootValue{}, EditGroup{}, false, err
	}
	for _, req := range g.reqs {
		req.result = next
	}
	return next, eg, true, nil
}

// ApplyEdits returns root with each table's edits applied to its maps, in
// one pass over each changed tree and one over the root's map, and its
// sequences moved forward to the group's advances. dec, when it is a
// TableDecoder, decodes the tables' records (a cache of them).
func ApplyEdits(ctx context.Context, root RootValue, g EditGroup, dec any) (RootValue, error) {
	puts, err := sequenceAdvanceEdits(ctx, root, g.Sequences)
	if err != nil {
		return RootValue{}, err
	}
	for _, te := range g.Tables {
		rec, ok, err := root.TableRecord(ctx, te.Schema, te.Name)
		if err != nil {
			return RootValue{}, err
		}
		var t *sqldef.Table
		if ok {
			if t, err = decodeTableWith(dec, rec); err != nil {
				return RootValue{}, err
			}
		}
		if !ok || len(t.Indexes) != len(te.Indexes) {
			return RootValue{}, fmt.Errorf("%w: table %q.%q changed concurrently", ErrConflict, te.Schema, te.Name)
		}
		def := *t
		if def.Rows, err = applyToTree(ctx, root.Store(), t.Rows, te.Rows); err != nil {
			return RootValue{}, err
		}
		def.NextRowID = max(def.NextRowID, te.NextRowID)
		def.Indexes = slices.Clone(t.Indexes)
		for i := range def.Indexes {
			if def.Indexes[i].Rows, err = applyToTree(ctx, root.Store(), t.Indexes[i].Rows, te.Indexes[i]); err != nil {
				return RootValue{}, err
			}
		}
		b, err := encodeTableLike(rec, &def) // only the maps changed
		if err != nil {
			return RootValue{}, err
		}
		puts = append(puts, prolly.Edit{Key: objectKey(kindTable, te.Schema, te.Name), Value: b})
	}
	slices.SortFunc(puts, func(a, b prolly.Edit) int { return bytes.Compare(a.Key, b.Key) })
	m, err := root.m.Apply(ctx, puts)
	return RootValue{m}, err
}

// applyToTree returns the address of the map at addr with edits applied.
func applyToTree(ctx context.Context, cs prolly.ChunkStore, addr store.Address, edits []prolly.Edit) (store.Address, error) {
	if len(edits) == 0 {
		return addr, nil
	}
	m, err := prolly.Load(ctx, cs, addr)
	if err != nil {
		return store.Address{}, err
	}
	if m, err = m.Apply(ctx, edits); err != nil {
		return store.Address{}, err
	}
	return m.Root(), nil
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
		var group replayGroup // replayed transactions whose edits wait to be applied together
		// applied are the groups' edits, in order, while every transaction
		// merged so far was replayed: then the batch's change to the
		// working set is those edits, journaled as a redo record (redo.go),
		// and the chunks the groups write are redo chunks.
		var applied []EditGroup
		epoch, redoable := r.redoEpoch()
		redoCtx := store.WithRedoWriter(ctx)
		flush := func() error {
			next, edits, ok, err := group.apply(redoCtx, acc)
			if err != nil {
				return err
			}
			if ok {
				applied = append(applied, edits)
			}
			acc, merged, group = next, merged+len(group.reqs), replayGroup{}
			return nil
		}
		for _, req := range batch {
			req.err = nil
			if req.replay != nil {
				edits, ok, err := req.replay.Edits(ctx, acc)
				if err == nil && ok && !group.add(req, edits) {
					// It changes a row another of the group changed:
					// the group goes first, and it begins the next.
					if err := flush(); err != nil {
						fail(err)
						return false
					}
					edits, ok, err = req.replay.Edits(ctx, acc)
					ok = ok && err == nil && group.add(req, edits)
				}
				if err != nil {
					req.err = err
					continue
				}
				if ok {
					continue
				}
			}
			// Merged: the group goes first, then this transaction on
			// top of it.
			if err := flush(); err != nil {
				fail(err)
				return false
			}
			next, err := req.onto(ctx, acc)
			if err == nil && req.replay != nil {
				next, err = ApplySequenceAdvances(ctx, next, req.replay.SequenceAdvances())
			}
			if err != nil {
				req.err = err
				continue
			}
			acc, req.result = next, next
			merged++
			redoable = false
		}
		if err := flush(); err != nil {
			fail(err)
			return false
		}
		if merged == 0 {
			return false // every transaction failed on its own: nothing to write
		}
		nws := *ws
		nws.Working = acc.Addr()
		if redoable {
			done, err := r.updateWorkingSetRedo(ctx, branch, wsAddr, &nws, applied, epoch)
			if errors.Is(err, store.ErrRefConflict) {
				continue // as below
			}
			if err != nil {
				for _, req := range batch {
					req.err = err // nothing of the batch is known to be durable
				}
				return false
			}
			if done {
				r.observeSequences(ctx, branch, acc, batch)
				return true
			}
		}
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
		r.observeSequences(ctx, branch, acc, batch)
		return true
	}
	for _, req := range batch {
		req.err = fmt.Errorf("%w: gave up after %d attempts", ErrConflict, maxBatchAttempts)
	}
	return false
}

// observeSequences tells the Committer's SequenceObserver the sequences
// the batch's committed transactions moved, as root, the working root the
// batch wrote, holds them.
func (r *Repo) observeSequences(ctx context.Context, branch string, root RootValue, batch []*commitRequest) {
	if r.commits == nil || r.commits.Sequences == nil {
		return
	}
	var advanced []SequenceAdvance
	for _, req := range batch {
		if req.err == nil && req.replay != nil {
			advanced = append(advanced, req.replay.SequenceAdvances()...)
		}
	}
	if len(advanced) > 0 {
		r.commits.Sequences.Committed(ctx, r.name, branch, root, advanced)
	}
}
