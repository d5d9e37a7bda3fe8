package exec

import "sync"

// RowIDs hands out the hidden row ids of tables without a primary key. One
// is shared by every transaction of an engine, so that concurrent
// transactions on a branch never draw the same id: two rows inserted by
// two transactions are two keys, which the commit-time merge keeps both
// of. (Drawn from a counter in each transaction's own snapshot, two
// transactions took the same id: different rows then conflicted, and
// identical rows merged into one, losing an acknowledged insert.)
//
// Ids are not transactional, like sequence values: a rolled-back
// transaction leaves a gap. The allocator lives in memory; after a restart
// it resumes from the tables' recorded NextRowID, which every commit keeps
// at least as high as any id in the table.
type RowIDs struct {
	mu   sync.Mutex
	last map[rowIDKey]int64
}

// rowIDKey names a table on a branch of a database.
type rowIDKey struct{ database, branch, table string }

// NewRowIDs returns an empty allocator.
func NewRowIDs() *RowIDs { return &RowIDs{last: map[rowIDKey]int64{}} }

// Draw returns a new row id for table (schema + "." + name) on a branch,
// greater than seen (the highest id the caller knows to be taken) and than
// every id drawn before for that table.
func (a *RowIDs) Draw(database, branch, table string, seen int64) int64 {
	k := rowIDKey{database, branch, table}
	a.mu.Lock()
	id := max(a.last[k], seen) + 1
	a.last[k] = id
	a.mu.Unlock()
	return id
}
