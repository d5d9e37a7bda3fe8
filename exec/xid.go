package exec

import (
	"sync"
	"time"
)

// XIDs hands out transaction ids, PostgreSQL's txid_current(): one is
// shared by every transaction of an engine. A transaction gets its id
// when it first writes, or when it asks for it (Txn.XID), as PostgreSQL
// assigns one lazily; read-only transactions have none.
//
// Ids increase for as long as the server runs and across restarts
// without a store of their own: each is at least the microseconds since
// 2000-01-01 when it is drawn, so a restarted server continues above the
// ids it gave out, unless the clock went back or more than a million
// ids a second were drawn for long enough to run ahead of it. They fit
// in 53 bits (JavaScript's exact integers) for centuries.
//
// The outcome of the ids drawn since the server started is kept for
// txid_status, the most recent maxXIDOutcomes of them; older ones, and
// those of an earlier run, are unknown.
type XIDs struct {
	mu       sync.Mutex
	last     int64
	open     map[int64]bool
	outcomes map[int64]bool // committed
	order    []int64        // outcomes' keys, oldest first
}

// maxXIDOutcomes bounds the outcomes kept.
const maxXIDOutcomes = 1 << 16

// NewXIDs returns an allocator.
func NewXIDs() *XIDs {
	return &XIDs{open: map[int64]bool{}, outcomes: map[int64]bool{}}
}

// pgEpoch is PostgreSQL's epoch, 2000-01-01 UTC.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// draw returns a new id, recorded as in progress.
func (x *XIDs) draw() int64 {
	now := time.Since(pgEpoch).Microseconds()
	x.mu.Lock()
	defer x.mu.Unlock()
	x.last = max(x.last+1, now)
	x.open[x.last] = true
	return x.last
}

// end records the outcome of id.
func (x *XIDs) end(id int64, committed bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.open, id)
	x.outcomes[id] = committed
	x.order = append(x.order, id)
	if len(x.order) > maxXIDOutcomes {
		delete(x.outcomes, x.order[0])
		x.order = x.order[1:]
	}
}

// Status is txid_status of id: "in progress", "committed" or "aborted";
// ok is false when its outcome is unknown (too old, or of an earlier run)
// and future when no such id was drawn yet.
func (x *XIDs) Status(id int64) (status string, ok, future bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	switch committed, ended := x.outcomes[id]; {
	case id > x.last:
		return "", false, true
	case x.open[id]:
		return "in progress", true, false
	case ended && committed:
		return "committed", true, false
	case ended:
		return "aborted", true, false
	}
	return "", false, false
}

// XID returns the transaction's id, drawing it on first use; 0 when the
// transaction has no allocator (a replica's, a detached one's).
func (tx *Txn) XID() int64 {
	if tx.xid == 0 && tx.XIDs != nil {
		tx.xid = tx.XIDs.draw()
	}
	return tx.xid
}

// AssignedXID returns the transaction's id if it has one yet
// (txid_current_if_assigned).
func (tx *Txn) AssignedXID() (int64, bool) { return tx.xid, tx.xid != 0 }

// EndXID records the outcome of the transaction's id, if it drew one.
func (tx *Txn) EndXID(committed bool) {
	if tx.xid != 0 && tx.XIDs != nil {
		tx.XIDs.end(tx.xid, committed)
	}
}
