package exec

import (
	"sync"
	"sync/atomic"
)

// CumulativeStats are the counters of PostgreSQL's cumulative statistics
// views (pg_stat_database, pg_stat_user_tables, pg_stat_user_indexes):
// per database, its transactions, the rows its statements read and wrote
// and its deadlocks; per table, its scans by kind and the rows they read,
// inserted, updated and deleted. They count from the server's start, in
// memory, as PostgreSQL's count from a stats reset, over every branch of
// a database. A statement adds a scan's counts when it ends, with atomic
// adds: a row costs an increment of the scan's own count.
//
// The zero value is ready to use; one serves every session of an engine.
type CumulativeStats struct {
	dbs sync.Map // name -> *DatabaseStats; read without a lock on every scan
}

// DatabaseStats are one database's counters.
type DatabaseStats struct {
	XactCommit, XactRollback, Deadlocks                          atomic.Int64
	TupReturned, TupFetched, TupInserted, TupUpdated, TupDeleted atomic.Int64

	tables sync.Map // table OID -> *TableStats
}

// TableStats are one table's counters, by the names of pg_stat_all_tables'
// columns, and its indexes'.
type TableStats struct {
	SeqScan, SeqTupRead, IdxScan, IdxTupFetch, TupIns, TupUpd, TupDel atomic.Int64

	indexes sync.Map // index name -> *IndexStats
}

// IndexStats are one index's counters, by the names of
// pg_stat_all_indexes' columns.
type IndexStats struct {
	IdxScan, IdxTupRead, IdxTupFetch atomic.Int64
}

// Index returns the counters of the table's index name, made on first use.
func (t *TableStats) Index(name string) *IndexStats { return loadOrMake[IndexStats](&t.indexes, name) }

// PeekIndex returns the counters of index name, nil if it has none yet
// (or t is nil).
func (t *TableStats) PeekIndex(name string) *IndexStats {
	if t == nil {
		return nil
	}
	return peek[IndexStats](&t.indexes, name)
}

// Database returns database name's counters, made on first use.
func (c *CumulativeStats) Database(name string) *DatabaseStats {
	return loadOrMake[DatabaseStats](&c.dbs, name)
}

// Peek returns database name's counters, nil if it has none yet.
func (c *CumulativeStats) Peek(name string) *DatabaseStats { return peek[DatabaseStats](&c.dbs, name) }

// Table returns the counters of the table whose OID is oid, made on first
// use.
func (d *DatabaseStats) Table(oid uint32) *TableStats { return loadOrMake[TableStats](&d.tables, oid) }

// PeekTable returns the counters of table oid, nil if it has none yet (or
// d is nil).
func (d *DatabaseStats) PeekTable(oid uint32) *TableStats {
	if d == nil {
		return nil
	}
	return peek[TableStats](&d.tables, oid)
}

// loadOrMake returns m's *V under key, storing a zero one on first use.
// The Load first keeps the common hit from allocating.
func loadOrMake[V any](m *sync.Map, key any) *V {
	if v, ok := m.Load(key); ok {
		return v.(*V)
	}
	v, _ := m.LoadOrStore(key, new(V))
	return v.(*V)
}

// peek returns m's *V under key, nil if there is none.
func peek[V any](m *sync.Map, key any) *V {
	if v, ok := m.Load(key); ok {
		return v.(*V)
	}
	return nil
}

// countScan adds a scan of t that read rows rows to the transaction's
// statistics: a sequential scan (index ""), or a scan of the named index
// (which fetched them).
func (tx *Txn) countScan(t *Table, index string, rows int64) {
	if tx == nil || tx.Stats == nil || t.Virtual != nil || t.OID == 0 {
		return
	}
	ts := tx.Stats.Table(t.OID)
	if index != "" {
		ts.IdxScan.Add(1)
		ts.IdxTupFetch.Add(rows)
		tx.Stats.TupFetched.Add(rows)
		ix := ts.Index(index)
		ix.IdxScan.Add(1)
		ix.IdxTupRead.Add(rows)
		ix.IdxTupFetch.Add(rows)
		return
	}
	ts.SeqScan.Add(1)
	ts.SeqTupRead.Add(rows)
	tx.Stats.TupReturned.Add(rows)
}

// countWrites adds the rows a statement inserted, updated or deleted in
// t to the transaction's statistics.
func (tx *Txn) countWrites(t *Table, kind ModifyKind, rows int64) {
	if tx == nil || tx.Stats == nil || t.Virtual != nil || t.OID == 0 || rows == 0 {
		return
	}
	ts := tx.Stats.Table(t.OID)
	switch kind {
	case Insert:
		ts.TupIns.Add(rows)
		tx.Stats.TupInserted.Add(rows)
	case Update:
		ts.TupUpd.Add(rows)
		tx.Stats.TupUpdated.Add(rows)
	case Delete:
		ts.TupDel.Add(rows)
		tx.Stats.TupDeleted.Add(rows)
	}
}
