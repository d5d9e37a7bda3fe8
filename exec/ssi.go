package exec

import (
	"sync"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// SSI is PostgreSQL's serializable snapshot isolation (predicate.c, after
// Cahill, Röhm and Fekete) for an engine's SERIALIZABLE transactions: they
// run on snapshots as REPEATABLE READ ones do, and in addition record what
// they read (SIREAD locks) and wrote, so that every rw-antidependency
// between two concurrent serializable transactions — one read what the
// other wrote, without seeing the write — becomes an edge reader → writer.
// A transaction with an edge in and an edge out (a pivot) whose out-edge
// leads to a transaction that committed first is a dangerous structure:
// one of them fails with 40001, at the step where PostgreSQL's would.
//
// Granularity follows what PostgreSQL's plans lock on small tables: a
// full scan locks the table, which every insert, update and delete of it
// conflicts with; an index scan locks the table's indexes as one target
// (a small index is one page), which inserts and updates of indexed
// columns conflict with, and the rows it returns, which updates and
// deletes of them conflict with. A read conflicts out with a concurrent
// writer of a row it scans (the whole table for a full scan).
//
// Invariants:
//  1. Only serializable transactions are tracked; writes of others never
//     conflict, as in PostgreSQL.
//  2. A committed transaction's locks, writes and edges stay while a
//     running serializable transaction overlaps it (began before it
//     committed), and go once none does.
//  3. Sequence numbers (seq) order snapshots, prepares and commits: a
//     transaction that committed at a number greater than another's
//     snapshot number was concurrent with it.
type SSI struct {
	mu      sync.Mutex
	seq     uint64
	active  map[*SerialXact]struct{}
	done    []*SerialXact                       // committed, kept while an active one overlaps them
	locks   map[string]map[*SerialXact]struct{} // SIREAD lock target → holders
	writers map[string]map[*SerialXact]struct{} // table target → transactions that wrote it
}

// NewSSI returns a tracker with no transactions.
func NewSSI() *SSI {
	return &SSI{active: map[*SerialXact]struct{}{}, locks: map[string]map[*SerialXact]struct{}{}, writers: map[string]map[*SerialXact]struct{}{}}
}

// SerialXact is one serializable transaction's SSI state (PostgreSQL's
// SERIALIZABLEXACT).
type SerialXact struct {
	snapshot   uint64 // seq when the snapshot was taken: lastCommitBeforeSnapshot
	prepareSeq uint64
	commitSeq  uint64
	// earliestOutConflictCommit is the least prepareSeq of the committed
	// transactions this one (committed) read past.
	earliestOutConflictCommit uint64

	committed, prepared, doomed, readOnly, conflictOut, wrote bool

	in, out map[*SerialXact]struct{} // readers with an edge to this one; writers it has an edge to
	locks   []string                 // its SIREAD lock targets
	writes  map[string]map[string]struct{}
}

// Begin registers a serializable transaction whose snapshot is taken now;
// readOnly when it was declared READ ONLY.
func (s *SSI) Begin(readOnly bool) *SerialXact {
	s.mu.Lock()
	defer s.mu.Unlock()
	x := &SerialXact{snapshot: s.seq, readOnly: readOnly, in: map[*SerialXact]struct{}{}, out: map[*SerialXact]struct{}{}, writes: map[string]map[string]struct{}{}}
	s.active[x] = struct{}{}
	return x
}

func errSerialization(reason string) error {
	return pgerr.New(pgerr.SerializationFailure, "could not serialize access due to read/write dependencies among transactions").
		WithDetail("Reason code: %s.", reason).
		WithHint("The transaction might succeed if retried.")
}

// ssiTarget names a table for SSI: its relation lock, index lock and rows
// are targets under it.
func ssiTarget(tx *Txn, t *Table) string {
	return tx.Repo.Name() + "\x00" + tx.Branch + "\x00" + tableKey(t.Def)
}

// concurrentWith reports whether w's writes are invisible to x's snapshot:
// w has not committed, or committed after x's snapshot.
func (x *SerialXact) concurrentWith(w *SerialXact) bool {
	return !w.committed || w.commitSeq > x.snapshot
}

// ReadTable records a full scan of t by x: a lock on the whole table, and
// an edge to every concurrent writer of it.
func (s *SSI) ReadTable(x *SerialXact, target string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if x.doomed {
		return errSerialization("Canceled on identification as a pivot, during conflict out checking")
	}
	s.lock(x, "r"+target)
	for w := range s.writers[target] {
		if err := s.conflictOut(x, w); err != nil {
			return err
		}
	}
	return nil
}

// ReadIndex records an index scan of t by x: the lock on t's indexes, the
// locks on the rows it returned (keys), and an edge to every concurrent
// writer of a row whose primary key inSpan accepts (nil: any row).
func (s *SSI) ReadIndex(x *SerialXact, target string, keys [][]byte, inSpan func(key []byte) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if x.doomed {
		return errSerialization("Canceled on identification as a pivot, during conflict out checking")
	}
	s.lock(x, "i"+target)
	for _, k := range keys {
		s.lock(x, "t"+target+"\x00"+string(k))
	}
	for w := range s.writers[target] {
		if w == x || w.doomed {
			continue
		}
		hit := inSpan == nil
		for k := range w.writes[target] {
			if hit {
				break
			}
			hit = inSpan([]byte(k))
		}
		if hit {
			if err := s.conflictOut(x, w); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *SSI) lock(x *SerialXact, target string) {
	h := s.locks[target]
	if h == nil {
		h = map[*SerialXact]struct{}{}
		s.locks[target] = h
	}
	if _, ok := h[x]; !ok {
		h[x] = struct{}{}
		x.locks = append(x.locks, target)
	}
}

// Write kinds, for the SIREAD locks a write conflicts with.
const (
	ssiInsert  = iota // the table and its indexes
	ssiUpdate         // the table and the row; its indexes too when indexed columns change
	ssiDelete         // the table and the row
	ssiIndexed        // an update that changes indexed columns
)

// Write records x's write of the row stored under key in target, and an
// edge from every concurrent reader holding a SIREAD lock it conflicts
// with (PostgreSQL's CheckForSerializableConflictIn).
func (s *SSI) Write(x *SerialXact, target string, key []byte, kind int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if x.doomed {
		return errSerialization("Canceled on identification as a pivot, during conflict in checking")
	}
	x.wrote = true
	ws := x.writes[target]
	if ws == nil {
		ws = map[string]struct{}{}
		x.writes[target] = ws
		w := s.writers[target]
		if w == nil {
			w = map[*SerialXact]struct{}{}
			s.writers[target] = w
		}
		w[x] = struct{}{}
	}
	ws[string(key)] = struct{}{}
	targets := []string{"r" + target}
	if kind == ssiUpdate || kind == ssiDelete || kind == ssiIndexed {
		targets = append(targets, "t"+target+"\x00"+string(key))
	}
	if kind == ssiInsert || kind == ssiIndexed {
		targets = append(targets, "i"+target)
	}
	for _, tg := range targets {
		for r := range s.locks[tg] {
			if r == x || r.doomed || r.committed && r.commitSeq <= x.snapshot {
				continue
			}
			if _, ok := r.out[x]; ok {
				continue
			}
			if err := s.flag(r, x, x); err != nil {
				return err
			}
		}
	}
	return nil
}

// conflictOut adds the edge reader x → writer w for a write of w's that x
// read past, unless w is not concurrent or a read-only x can be ordered
// first (PostgreSQL's CheckForSerializableConflictOut).
func (s *SSI) conflictOut(x, w *SerialXact) error {
	if w == x || w.doomed || !x.concurrentWith(w) {
		return nil
	}
	if x.readOnly && w.committed && (!w.conflictOut || x.snapshot < w.earliestOutConflictCommit) {
		return nil // the read-only transaction appears to run first
	}
	if _, ok := x.out[w]; ok {
		return nil
	}
	return s.flag(x, w, x)
}

// flag adds the edge reader → writer and checks whether it makes a
// dangerous structure; me is the transaction running the check, which
// fails at once when it must be the victim, while another victim is
// doomed to fail at its next read, write or commit
// (OnConflict_CheckForSerializationFailure).
func (s *SSI) flag(reader, writer, me *SerialXact) error {
	reader.out[writer] = struct{}{}
	writer.in[reader] = struct{}{}
	failure := writer.committed && writer.conflictOut
	if !failure {
		for t2 := range writer.out {
			if t2.prepared &&
				(!reader.committed || t2.prepareSeq <= reader.commitSeq) &&
				(!writer.committed || t2.prepareSeq <= writer.commitSeq) &&
				(!reader.readOnly || t2.prepareSeq <= reader.snapshot) {
				failure = true
				break
			}
		}
	}
	if !failure && writer.prepared && !reader.readOnly {
		for t0 := range reader.in {
			if !t0.doomed &&
				(!t0.committed || t0.commitSeq >= writer.prepareSeq) &&
				(!t0.readOnly || t0.snapshot >= writer.prepareSeq) {
				failure = true
				break
			}
		}
	}
	if !failure {
		return nil
	}
	switch {
	case me == writer:
		return errSerialization("Canceled on identification as a pivot, during write")
	case writer.prepared:
		return errSerialization("Canceled on conflict out to pivot, during read")
	}
	writer.doomed = true
	return nil
}

// PreCommit checks, before x's commit is made durable, that no dangerous
// structure has x's commit as its last step: a doomed x fails, and a pivot
// between x and a running transaction is doomed (or, if it is past its
// own check, x fails) (PreCommit_CheckForSerializationFailure).
func (s *SSI) PreCommit(x *SerialXact) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if x.doomed {
		return errSerialization("Canceled on identification as a pivot, during commit attempt")
	}
	for near := range x.in {
		if near.committed || near.doomed {
			continue
		}
		for far := range near.in {
			if far == x || !far.committed && !far.readOnly && !far.doomed {
				if near.prepared {
					return errSerialization("Canceled on commit attempt with conflict in from prepared pivot")
				}
				near.doomed = true
				break
			}
		}
	}
	s.seq++
	x.prepareSeq, x.prepared = s.seq, true
	return nil
}

// Commit records that x's commit is durable (ReleasePredicateLocks of a
// commit): edges to committed writers become x's conflict-out flag.
func (s *SSI) Commit(x *SerialXact) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	x.committed, x.commitSeq = true, s.seq
	if !x.wrote {
		x.readOnly = true
	}
	for w := range x.out {
		if !x.readOnly && w.committed {
			if !x.conflictOut || w.prepareSeq < x.earliestOutConflictCommit {
				x.earliestOutConflictCommit = w.prepareSeq
			}
			x.conflictOut = true
		}
		if w.committed || w.snapshot >= s.seq {
			delete(x.out, w)
			delete(w.in, x)
		}
	}
	for r := range x.in {
		if r.committed || r.readOnly {
			delete(x.in, r)
			delete(r.out, x)
		}
	}
	delete(s.active, x)
	s.done = append(s.done, x)
	s.cleanup()
}

// Abort forgets x: a rolled-back transaction conflicts with nobody.
func (s *SSI) Abort(x *SerialXact) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.active[x]; !ok {
		return
	}
	delete(s.active, x)
	s.forget(x)
	s.cleanup()
}

// cleanup forgets the committed transactions no running one overlaps.
func (s *SSI) cleanup() {
	oldest := s.seq
	for x := range s.active {
		oldest = min(oldest, x.snapshot)
	}
	keep := s.done[:0]
	for _, x := range s.done {
		if x.commitSeq > oldest {
			keep = append(keep, x)
		} else {
			s.forget(x)
		}
	}
	clear(s.done[len(keep):])
	s.done = keep
}

// forget removes x's locks, writes and edges.
func (s *SSI) forget(x *SerialXact) {
	for _, tg := range x.locks {
		if h := s.locks[tg]; h != nil {
			delete(h, x)
			if len(h) == 0 {
				delete(s.locks, tg)
			}
		}
	}
	for tg := range x.writes {
		if w := s.writers[tg]; w != nil {
			delete(w, x)
			if len(w) == 0 {
				delete(s.writers, tg)
			}
		}
	}
	for w := range x.out {
		delete(w.in, x)
	}
	for r := range x.in {
		delete(r.out, x)
	}
	x.locks, x.writes, x.in, x.out = nil, nil, map[*SerialXact]struct{}{}, map[*SerialXact]struct{}{}
}

// serialXact returns the transaction's SSI state, registering it at the
// first call; nil when it is not tracked (not SERIALIZABLE).
func (tx *Txn) serialXact() *SerialXact {
	if tx.serial == nil && tx.SSI != nil && tx.Isolation == Serializable {
		tx.serial = tx.SSI.Begin(tx.ReadOnly)
	}
	return tx.serial
}

// ssiReadTable records a full scan of t.
func (tx *Txn) ssiReadTable(t *Table) error {
	if t.Pinned || t.Virtual != nil {
		return nil
	}
	if x := tx.serialXact(); x != nil {
		return tx.SSI.ReadTable(x, ssiTarget(tx, t))
	}
	return nil
}

// ssiReadIndex records an index scan of t whose rows' primary keys are
// those inSpan accepts (nil: unknown).
func (tx *Txn) ssiReadIndex(t *Table, inSpan func([]byte) bool) error {
	if t.Pinned || t.Virtual != nil {
		return nil
	}
	if x := tx.serialXact(); x != nil {
		return tx.SSI.ReadIndex(x, ssiTarget(tx, t), nil, inSpan)
	}
	return nil
}

// ssiReadRow records that a scan returned the row stored under key.
func (tx *Txn) ssiReadRow(t *Table, key []byte) {
	if x := tx.serial; x != nil && !t.Pinned {
		s := tx.SSI
		s.mu.Lock()
		s.lock(x, "t"+ssiTarget(tx, t)+"\x00"+string(key))
		s.mu.Unlock()
	}
}

// ssiWrite records a write of the row stored under key.
func (tx *Txn) ssiWrite(t *Table, key []byte, kind int) error {
	if x := tx.serialXact(); x != nil {
		return tx.SSI.Write(x, ssiTarget(tx, t), key, kind)
	}
	return nil
}

// SerialPreCommit runs SSI's check before the commit is made durable.
func (tx *Txn) SerialPreCommit() error {
	if tx.serial == nil {
		return nil
	}
	return tx.SSI.PreCommit(tx.serial)
}

// SerialEnd records the transaction's end in SSI: committed (durably) or
// not.
func (tx *Txn) SerialEnd(committed bool) {
	if tx.serial == nil {
		return
	}
	if committed {
		tx.SSI.Commit(tx.serial)
	} else {
		tx.SSI.Abort(tx.serial)
	}
	tx.serial = nil
}
