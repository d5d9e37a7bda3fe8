package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"

	"go.uber.org/zap"
)

// Redo records: a ref update journaled as the change that makes its new
// value from its old one, instead of as the chunks the new value reaches.
//
// A SQL COMMIT of a few rows rewrites, in every tree it touches, a leaf and
// the nodes above it, and the root value and working set above those:
// about 14 KB of chunks for pgbench's simple-update transaction, journaled,
// fsynced and then written again to Badger, though the next commit
// replaces most of them. The change itself (the rows' keys and values) is
// a few hundred bytes. So the caller that can redo a change
// deterministically from the old value (versioning's committer, which
// applies row edits to the working set) journals the change: UpdateRefRedo
// appends a redo record (the ref, its old and new values, and the caller's
// body) and moves the ref, without journaling any chunk. The chunks the
// new value reaches stay in memory as redo chunks (Put with a context from
// WithRedoWriter), readable like any buffered chunk, never dropped while a
// ref may reach them, and fresh for every other ref update (whose walk
// journals those it reaches, as it does any fresh chunk).
//
// Open replays a redo record by calling Options.Redo with the old value
// and the body, and checks that the result is the new value. Replay runs
// the journal's records in order, so a record's old value is either
// durable (journaled, or on disk when the journal began) or the result of
// an earlier record, which replay has just rebuilt.
//
// Redo chunks leave memory in three ways. Once they pass redoSpillLimit
// bytes, a spill (spillRedo) writes to Badger those the refs reach, syncs
// Badger, and only then forgets them: a chunk that is not fresh is then
// on disk, durably, as invariant 10 of the package doc requires. The rest,
// most of them (older versions of the nodes later commits rewrote: five in
// six under pgbench's simple-update load), never reach the disk: they wait
// one spill as limbo chunks, in case a reader that is not a registered
// writer still holds a working set that reached them, and are then handed
// to DropFresh at the current generation, so that a transaction that
// began before may still read them. And a checkpoint, which starts the
// journal over and so forgets its redo records, writes every redo and
// limbo chunk to Badger before its sync.
//
// Invariants (beside the package doc's):
//  1. A redo record is appended only after every chunk its new value
//     reaches was Put: fresh (of any generation; a redo chunk is never
//     dropped), journaled, or on disk. The caller guarantees the chunks it
//     wrote were redo chunks; chunks of other generations that the new
//     value reaches must have been reachable from the old value (so
//     journaled or on disk): the caller redoes changes whose new chunks it
//     writes itself.
//  2. Redoing a record gives the same chunks and value every time (the
//     caller's function is deterministic): Open fails with ErrCorrupt
//     otherwise, rather than point the ref elsewhere.
//  3. A redo chunk stops being fresh only once it is durable: journaled
//     by a ref update that reached it, or written to Badger and synced.
//     It is dropped only after a spill found no ref reaching it, then
//     another spill found the same (spillRedo says why no ref can reach
//     it afterwards), and then every writer registered by then ended.
const (
	recordRedo byte = 'e'

	// redoGeneration tags redo chunks in the write buffer: above every
	// writer generation, so that DropFresh never drops one and a writer
	// that Puts one again leaves it there; below keptFresh, so that a
	// chunk Put again without a writer generation stays kept (a spill
	// writes it if a ref reaches it, and never drops it).
	redoGeneration = keptFresh - 1

	// limboGeneration tags the redo chunks that no ref reached at the last
	// spill: still never dropped, since a reader that is not a registered
	// writer (a peer's fetch between two of its calls, say) may hold a
	// working set that reached them a moment ago. The next spill writes
	// the ones a ref reaches again and hands the rest to DropFresh, at the
	// current generation (redo.go's spillRedo).
	limboGeneration = redoGeneration - 1

	// redoSpillLimit is the size in bytes of redo chunks past which the
	// flusher writes them to Badger.
	redoSpillLimit = pendingLimit

	// redoCheckpointRecords bounds the redo records a journal holds before
	// a checkpoint: the work Open redoes after a crash (about 50 µs of
	// CPU a record for pgbench's transactions).
	redoCheckpointRecords = 20000
)

// ErrRedoTooLarge is UpdateRefRedo's error for a body that does not fit in
// one journal record, and ErrRedoStale for an update whose chunks a spill
// may have taken for garbage (see UpdateRefRedo); the caller then
// journals the chunks instead (UpdateRefs).
var (
	ErrRedoTooLarge = errors.New("store: redo record too large")
	ErrRedoStale    = errors.New("store: a spill ran while the redo chunks were written")
)

// RedoFunc rebuilds a ref's new value from its old one and the body of a
// redo record, Putting the chunks it makes into db (as when the change was
// first made), and returns the new value. It runs inside Open, alone; db
// serves Get and Put.
type RedoFunc func(ctx context.Context, db *DB, old Address, body []byte) (Address, error)

// redoGen is the generation WithRedoWriter's contexts carry.
var redoGen = func() *atomic.Uint64 {
	var g atomic.Uint64
	g.Store(redoGeneration)
	return &g
}()

// WithRedoWriter returns ctx for the Puts of a change that will be
// journaled by UpdateRefRedo: they are redo chunks.
func WithRedoWriter(ctx context.Context) context.Context {
	return WithWriterGeneration(ctx, redoGen)
}

// CanRedo reports whether UpdateRefRedo may be used: the store was opened
// with a RedoFunc, without which its records could not be replayed.
func (db *DB) CanRedo() bool { return db.redo != nil }

// RedoEpoch returns the number of spills begun so far, for UpdateRefRedo's
// since: the caller reads it before it writes the update's redo chunks.
func (db *DB) RedoEpoch() uint64 { return db.redoSpills.Load() }

// UpdateRefRedo moves ref u.Name from u.Old to u.New if it still points
// at u.Old (else it fails with ErrRefConflict), journaling the update as a
// redo record whose body Options.Redo turns u.Old into u.New; a later Sync
// makes it durable. The chunks u.New reaches that are not durable must be
// redo chunks (invariant 1 above), written after RedoEpoch returned since.
//
// If a spill began since then, it fails with ErrRedoStale: the spill may
// have found some of those chunks, which no ref reached yet, to be
// garbage, and a second one would hand them to DropFresh (spillRedo); the
// caller's UpdateRefs, whose walk journals every fresh chunk it reaches,
// is safe then, because what the spill handed over waits for the
// caller's writer generation to end. A spill that began before since
// moves none of the caller's chunks beyond limbo: its sets were taken
// before they were written, and a chunk it had taken that the caller Puts
// again is moved to redo, or, already a redo chunk, is at worst moved to
// limbo, where the next spill (after since, so either this update is
// refused or that spill's walk sees it) finds it again.
func (db *DB) UpdateRefRedo(ctx context.Context, u RefUpdate, body []byte, since uint64) error {
	if db.redo == nil {
		return errors.New("store: redo records need Options.Redo")
	}
	if err := checkRefName(u.Name); err != nil {
		return err
	}
	if u.New.IsZero() || u.Old.IsZero() {
		return errors.New("store: a redo record changes an existing ref")
	}
	if redoPayloadLen(u.Name, body) > maxRecordPayload {
		return ErrRedoTooLarge
	}
	for {
		err := db.updateRefRedo(ctx, u, body, since)
		if !errors.Is(err, errBarrierMoved) {
			return err
		}
	}
}

// updateRefRedo is one attempt of UpdateRefRedo, as updateRefs is of
// UpdateRefs.
func (db *DB) updateRefRedo(ctx context.Context, u RefUpdate, body []byte, since uint64) error {
	b, err := db.enterRefUpdate(ctx, []RefUpdate{u})
	if err != nil {
		return err
	}
	defer db.closeMu.RUnlock()
	if err := db.commitRedo(u, b, body, since); err != nil {
		return err
	}
	if db.checkpointDue() {
		if err := db.checkpoint(false); err != nil {
			db.log.Error("store: checkpoint failed", zap.Error(err))
		}
	}
	return nil
}

// commitRedo is commitRefs for a redo record. A spill counts itself in
// redoSpills under refMu, as it reads the refs, so a spill either began
// before this check or reads the refs after the update.
func (db *DB) commitRedo(u RefUpdate, bar *barrier, body []byte, since uint64) error {
	db.refMu.Lock()
	defer db.refMu.Unlock()
	if db.barrier.Load() != bar {
		return errBarrierMoved
	}
	if db.redoSpills.Load() != since {
		return ErrRedoStale
	}
	cur, _, err := db.refLocked(u.Name)
	if err != nil {
		return err
	}
	if cur != u.Old {
		return refConflict(u.Name, u.Old, cur)
	}
	db.journalMu.Lock()
	wrote, err := db.journal.appendRedo(u, body)
	db.journalMu.Unlock()
	if err != nil {
		return err
	}
	if !wrote {
		return errors.New("store: redo record not written")
	}
	db.redoRecords.Add(1)
	db.syncer.wrote()
	if db.dirty == nil {
		db.dirty = map[string]refEntry{}
	}
	db.dirty[u.Name] = refEntry{u.New, true}
	db.refs.set(u.Name, u.New, true)
	return nil
}

// checkpointDue reports whether the journal should be started over: past
// journalLimit bytes, or past redoCheckpointRecords redo records.
func (db *DB) checkpointDue() bool {
	return db.journalSize() > journalLimit || db.redoRecords.Load() > redoCheckpointRecords
}

// redoPayloadLen is the length of a redo record's payload.
func redoPayloadLen(name string, body []byte) int {
	return binary.MaxVarintLen64 + len(name) + 2*AddressSize + len(body)
}

// encodeRedo appends a redo record's payload: the ref's name, its old and
// new values, and the body.
func encodeRedo(buf []byte, u RefUpdate) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(u.Name)))
	buf = append(buf, u.Name...)
	buf = append(buf, u.Old[:]...)
	return append(buf, u.New[:]...)
}

// decodeRedo decodes a redo record's payload.
func decodeRedo(p []byte) (u RefUpdate, body []byte, err error) {
	nlen, k := binary.Uvarint(p)
	if k <= 0 || nlen == 0 || nlen > MaxRefNameLen || uint64(len(p)-k) < nlen+2*AddressSize {
		return RefUpdate{}, nil, fmt.Errorf("store: journal: bad redo record: %w", ErrCorrupt)
	}
	p = p[k:]
	u.Name = string(p[:nlen])
	p = p[nlen:]
	u.Old, u.New = Address(p[:AddressSize]), Address(p[AddressSize:2*AddressSize])
	return u, p[2*AddressSize:], nil
}

// appendRedo writes a redo record and reports whether it wrote it.
func (j *journal) appendRedo(u RefUpdate, body []byte) (bool, error) {
	if j.err != nil {
		return false, j.err
	}
	j.refs = encodeRedo(j.refs[:0], u)
	j.buf = appendRecord(j.buf[:0], j.epoch, recordRedo, j.refs, body)
	return j.write()
}

// replayRedo redoes a redo record during Open: refs holds the refs the
// journal's records set so far. It returns the ref's new value.
func (db *DB) replayRedo(ctx context.Context, payload []byte, refs map[string]refEntry) (RefUpdate, error) {
	u, body, err := decodeRedo(payload)
	if err != nil {
		return RefUpdate{}, err
	}
	if db.redo == nil {
		return RefUpdate{}, fmt.Errorf("store: the journal holds redo records, and the store was opened without Options.Redo to replay them")
	}
	cur, ok := refs[u.Name]
	if !ok {
		var found bool
		cur.addr, found, err = db.Ref(ctx, u.Name)
		if err != nil {
			return RefUpdate{}, err
		}
		cur.ok = found
	}
	if !cur.ok || cur.addr != u.Old {
		return RefUpdate{}, fmt.Errorf("store: journal: redo record of %q expects %s, the ref is at %s: %w", u.Name, u.Old, cur.addr, ErrCorrupt)
	}
	got, err := db.redo(ctx, db, u.Old, body)
	if err != nil {
		return RefUpdate{}, fmt.Errorf("store: journal: redoing the update of %q: %w", u.Name, err)
	}
	if got != u.New {
		return RefUpdate{}, fmt.Errorf("store: journal: redoing the update of %q gave %s, not %s: %w", u.Name, got, u.New, ErrCorrupt)
	}
	return u, nil
}

// spillRedo takes the redo chunks out of memory: those the refs reach
// (through redo and limbo chunks only; the rest is journaled or on disk)
// are written to Badger, which is synced, and then forgotten (invariant 3
// above); the rest, garbage left by later commits, never go to disk: redo
// chunks become limbo chunks, and limbo chunks become fresh chunks of the
// current generation, which DropFresh drops once every writer registered
// by then has ended (fresh.go). A running transaction may still read them:
// it registered at that generation or an older one. Without a reach
// function, every redo and limbo chunk is written. The caller holds
// flushMu and closeMu shared.
//
// Why no chunk a ref needs is dropped: a ref reaches a redo or limbo chunk
// only if it moved since the last checkpoint (a checkpoint writes them
// all), so the walk from the refs not yet checkpointed finds every one
// reached at the moment it reads them. A ref update after that reaches
// either those, or chunks Put after the sets below were taken (redo
// chunks, untouched here), or chunks its writer Put again, which takes
// them out of limbo first (a later generation wins, and redoGeneration is
// above every other but keptFresh's), or chunks its writer Put before
// this spill began, which this spill may move to limbo: an ordinary ref
// update journals them (they are fresh), and UpdateRefRedo refuses such
// an update (ErrRedoStale). So what a ref reaches is never handed to
// DropFresh, only to limbo, which the next spill walks again.
func (db *DB) spillRedo(ctx context.Context) error {
	sets := db.pending.generations(redoGeneration, limboGeneration, keptFresh)
	redo, limbo := sets[0], sets[1]
	if len(redo)+len(limbo) == 0 {
		return nil
	}
	live, err := db.reachedRedo(ctx)
	if err != nil {
		db.log.Debug("store: finding the redo chunks refs reach failed; writing them all", zap.Error(err))
		live = nil
	}
	write := make(map[Address][]byte, len(live))
	for i, set := range sets {
		for a, d := range set {
			if _, ok := live[a]; ok || (live == nil && i < 2) {
				write[a] = d
			}
		}
	}
	if len(write) > 0 {
		if err := db.writeChunks(write); err != nil {
			return fmt.Errorf("store: writing %d redo chunks: %w", len(write), err)
		}
		if err := db.bdb.Sync(); err != nil {
			return fmt.Errorf("store: syncing %d redo chunks: %w", len(write), err)
		}
		db.pending.forgetKept(write, db.cache)
	}
	db.stats.redoSpilled.Add(uint64(len(write)))
	if live != nil {
		// Older limbo first, so that this spill's limbo is not dropped.
		db.pending.relabel(limbo, limboGeneration, db.gen.Load())
		left := db.pending.relabel(redo, redoGeneration, limboGeneration)
		db.stats.redoDropped.Add(uint64(left))
	}
	return nil
}

// reachedRedo returns the redo, limbo and kept chunks (fresh chunks that
// DropFresh never drops: a writer without a generation may have put one
// that a redo chunk then reached, since Put leaves a kept chunk kept) that
// the refs moved since the last checkpoint reach through chunks of those
// kinds; nil without a reach function.
func (db *DB) reachedRedo(ctx context.Context) (map[Address]struct{}, error) {
	fn := db.reach.Load()
	if fn == nil {
		return nil, nil
	}
	db.refMu.Lock()
	db.redoSpills.Add(1) // before the refs are read: see commitRedo
	updates := make([]RefUpdate, 0, len(db.dirty))
	for name, e := range db.dirty {
		if e.ok {
			updates = append(updates, RefUpdate{Name: name, New: e.addr})
		}
	}
	db.refMu.Unlock()
	live := map[Address]struct{}{}
	kept := db.pending.freshKept
	err := (*fn)(ctx, updates, kept, func(a Address) error {
		live[a] = struct{}{}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return live, nil
}
