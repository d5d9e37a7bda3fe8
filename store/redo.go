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
// WithRedoWriter), readable like any buffered chunk, never dropped, and
// fresh for every other ref update (whose walk journals those it reaches,
// as it does any fresh chunk).
//
// Open replays a redo record by calling Options.Redo with the old value
// and the body, and checks that the result is the new value. Replay runs
// the journal's records in order, so a record's old value is either
// durable (journaled, or on disk when the journal began) or the result of
// an earlier record, which replay has just rebuilt.
//
// Redo chunks leave memory in two ways. Once they pass redoSpillLimit
// bytes, the background flusher writes them to Badger and syncs Badger,
// and only then forgets them (spillRedo): a chunk that is not fresh is
// then on disk, durably, as invariant 10 requires. And a checkpoint, which
// starts the journal over and so forgets its redo records, writes every
// redo chunk to Badger before its sync. Most redo chunks are garbage by
// then (replaced by later commits); they are written once, to Badger,
// where the garbage collector finds them, instead of twice as before.
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
const (
	recordRedo byte = 'e'

	// redoGeneration tags redo chunks in the write buffer: above every
	// writer generation, so that DropFresh never drops one and a writer
	// that Puts one again leaves it there; below keptFresh, so that a
	// chunk Put again without a writer generation is no longer spilled
	// with the redo chunks (it stays fresh until a ref reaches it).
	redoGeneration = keptFresh - 1

	// redoSpillLimit is the size in bytes of redo chunks past which the
	// flusher writes them to Badger.
	redoSpillLimit = pendingLimit

	// redoCheckpointRecords bounds the redo records a journal holds before
	// a checkpoint: the work Open redoes after a crash (about 50 µs of
	// CPU a record for pgbench's transactions).
	redoCheckpointRecords = 20000
)

// ErrRedoTooLarge is UpdateRefRedo's error for a body that does not fit in
// one journal record; the caller then journals the chunks instead.
var ErrRedoTooLarge = errors.New("store: redo record too large")

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

// UpdateRefRedo moves ref u.Name from u.Old to u.New if it still points
// at u.Old (else it fails with ErrRefConflict), journaling the update as a
// redo record whose body Options.Redo turns u.Old into u.New. The chunks
// u.New reaches that are not durable must be redo chunks (invariant 1
// above). With durable set it returns once the record is synced.
func (db *DB) UpdateRefRedo(ctx context.Context, u RefUpdate, body []byte, durable bool) error {
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
	updates := []RefUpdate{u}
	b := db.barrier.Load()
	if b != nil {
		if err := b.recordRefs(ctx, updates); err != nil {
			return err
		}
	}
	db.closeMu.RLock()
	defer db.closeMu.RUnlock()
	if db.closed.Load() {
		return ErrClosed
	}
	if ok, err := db.hasLocked(u.New); err != nil {
		return err
	} else if !ok {
		return danglingRef(u.Name, u.New)
	}
	ticket, err := db.commitRedo(u, b, body)
	if err != nil {
		return err
	}
	if durable {
		if err := db.syncer.syncTo(ticket); err != nil {
			return fmt.Errorf("store: ref updated but not synced: %w", err)
		}
	}
	if db.checkpointDue() {
		if err := db.checkpoint(false); err != nil {
			db.log.Error("store: checkpoint failed", zap.Error(err))
		}
	}
	return nil
}

// commitRedo is commitRefs for a redo record.
func (db *DB) commitRedo(u RefUpdate, bar *barrier, body []byte) (uint64, error) {
	db.refMu.Lock()
	defer db.refMu.Unlock()
	if db.barrier.Load() != bar {
		return 0, errBarrierMoved
	}
	cur, _, err := db.refLocked(u.Name)
	if err != nil {
		return 0, err
	}
	if cur != u.Old {
		return 0, refConflict(u.Name, u.Old, cur)
	}
	db.journalMu.Lock()
	wrote, err := db.journal.appendRedo(u, body)
	db.journalMu.Unlock()
	if err != nil {
		return 0, err
	}
	if !wrote {
		return 0, errors.New("store: redo record not written")
	}
	db.redoRecords.Add(1)
	ticket := db.syncer.wrote()
	if db.dirty == nil {
		db.dirty = map[string]refEntry{}
	}
	db.dirty[u.Name] = refEntry{u.New, true}
	db.refs.set(u.Name, u.New, true)
	return ticket, nil
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

// spillRedo writes the redo chunks to Badger, syncs it, and then forgets
// them (invariant 3): they are read from Badger from then on. The caller
// holds flushMu and closeMu shared.
func (db *DB) spillRedo() error {
	batch := db.pending.generation(redoGeneration)
	if len(batch) == 0 {
		return nil
	}
	if err := db.writeChunks(batch); err != nil {
		return fmt.Errorf("store: writing %d redo chunks: %w", len(batch), err)
	}
	if err := db.bdb.Sync(); err != nil {
		return fmt.Errorf("store: syncing %d redo chunks: %w", len(batch), err)
	}
	db.pending.forget(batch, redoGeneration, db.cache)
	return nil
}
