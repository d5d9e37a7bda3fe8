package exec

import (
	"bytes"
	"context"
	"sync"

	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// SequenceValues hands out nextval's values. One is shared by every
// transaction of an engine, as RowIDs is: a transaction's record of a
// sequence is its snapshot's, and two transactions drawing from their own
// records drew the same values (a serial key then failed with 23505 at
// the second COMMIT). Instead, each branch's sequence has a slot holding
// the position of the last value handed out; the transaction keeps what it
// drew as an advance (Txn.AdvanceSequence), which its commit applies to the
// working set's record, the larger position winning, and which a rollback
// leaves for the session to commit on its own (values are never taken
// back, as in PostgreSQL).
//
// Invariants:
//  1. Two values drawn from one branch's sequence differ, unless the
//     sequence was moved back in between (setval, ALTER SEQUENCE RESTART,
//     a version-control operation that replaced the working set) or
//     cycled: a slot's position only moves forward, unless the working
//     set's record moved back since the slot last saw it, which no
//     commit does (versioning.SequenceAdvance). The slot sees the record
//     when it draws and when a commit moves it (Committed), so that a
//     reset to the record it saw before those commits is a move back
//     too.
//  2. A value a committed transaction used is at or behind its sequence's
//     position in the working set, since the advance commits with the
//     rows: a slot begun from the working set (after a restart) never
//     hands it out again.
type SequenceValues struct {
	mu     sync.Mutex
	slots  map[seqSlotKey]*seqSlot
	tables *TableCache // decodes the records the slots see
}

type seqSlotKey struct{ database, branch, schema, name string }

// seqSlot is one sequence's position on one branch.
type seqSlot struct {
	mu sync.Mutex
	// seen is the sequence's record in the branch's working set when the
	// slot last read it, and seenSeq that record decoded; nil before.
	seen    []byte
	seenSeq *sqldef.Sequence
	// last and called are the position of the last value handed out.
	last   int64
	called bool
}

// NewSequenceValues returns an allocator with no slots, which decodes the
// records it reads with tables (nil: without a cache).
func NewSequenceValues(tables *TableCache) *SequenceValues {
	return &SequenceValues{slots: map[seqSlotKey]*seqSlot{}, tables: tables}
}

var _ versioning.SequenceObserver = (*SequenceValues)(nil)

// Committed is versioning.SequenceObserver's: the slots of the sequences
// a commit moved see their records in root, the working root it wrote.
// Not to be called with a slot's lock held.
func (v *SequenceValues) Committed(ctx context.Context, database, branch string, root versioning.RootValue, advanced []versioning.SequenceAdvance) {
	for _, a := range advanced {
		v.mu.Lock()
		sl := v.slots[seqSlotKey{database, branch, a.Schema, a.Name}]
		v.mu.Unlock()
		if sl == nil {
			continue // drawn by no one since the engine started: nothing seen
		}
		rec, ok, err := root.SequenceRecord(ctx, a.Schema, a.Name)
		if err != nil || !ok {
			continue
		}
		sl.mu.Lock()
		sl.see(v.tables, rec)
		sl.mu.Unlock()
	}
}

func (v *SequenceValues) slot(k seqSlotKey) *seqSlot {
	v.mu.Lock()
	defer v.mu.Unlock()
	sl, ok := v.slots[k]
	if !ok {
		sl = &seqSlot{}
		v.slots[k] = sl
	}
	return sl
}

// sameGenerator reports whether a and b give the same values from the same
// position.
func sameGenerator(a, b *sqldef.Sequence) bool {
	return a.Type == b.Type && a.Start == b.Start && a.Increment == b.Increment &&
		a.Min == b.Min && a.Max == b.Max && a.Cycle == b.Cycle
}

// Next draws the next value of seq, the sequence as tx reads it:
// advance moves a copy of the branch's sequence, set at the position of
// the last value handed out, by one value (or fails, the sequence being
// exhausted). Next returns that copy, and false, having drawn nothing,
// when tx created the sequence or set its position (setval, RESTART), or
// the branch's working set lacks it or generates its values otherwise (tx
// altered it): tx then draws from its own record.
func (v *SequenceValues) Next(ctx context.Context, tx *Txn, seq *sqldef.Sequence, advance func(*sqldef.Sequence) error) (*sqldef.Sequence, bool, error) {
	if own, err := tx.sequenceSetHere(ctx, seq.Schema, seq.Name); own || err != nil {
		return nil, false, err
	}
	sl := v.slot(seqSlotKey{tx.Repo.Name(), tx.Branch, seq.Schema, seq.Name})
	sl.mu.Lock()
	defer sl.mu.Unlock()
	_, ws, err := tx.Repo.WorkingSet(ctx, tx.Branch)
	if err != nil {
		return nil, false, err
	}
	root, err := versioning.LoadRootValue(ctx, tx.Repo.Store(), ws.Working)
	if err != nil {
		return nil, false, err
	}
	rec, ok, err := root.SequenceRecord(ctx, seq.Schema, seq.Name)
	if err != nil || !ok {
		return nil, false, err
	}
	if err := sl.see(v.tables, rec); err != nil {
		return nil, false, err
	}
	if !sameGenerator(seq, sl.seenSeq) {
		return nil, false, nil
	}
	next := *sl.seenSeq
	next.Last, next.Called = sl.last, sl.called
	if err := advance(&next); err != nil {
		return nil, false, err
	}
	sl.last, sl.called = next.Last, next.Called
	return &next, true, nil
}

// see takes rec, the sequence's record in the branch's working set now,
// as the one the slot last saw, following it if it moved back or past the
// values handed out. The caller holds the slot's lock.
func (sl *seqSlot) see(tables *TableCache, rec []byte) error {
	if bytes.Equal(rec, sl.seen) {
		return nil
	}
	cur, err := tables.DecodeSequence(rec)
	if err != nil {
		return err
	}
	switch prev := sl.seenSeq; {
	case prev == nil,
		// Moved back: from there on, as after PostgreSQL's setval.
		versioning.Ahead(prev.Increment, prev.Last, prev.Called, cur.Last, cur.Called),
		// Moved past the values handed out here.
		versioning.Ahead(cur.Increment, cur.Last, cur.Called, sl.last, sl.called):
		sl.last, sl.called = cur.Last, cur.Called
	}
	sl.seen, sl.seenSeq = bytes.Clone(rec), cur
	return nil
}
