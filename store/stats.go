package store

import "sync/atomic"

// Stats are counters of a store's activity since it was opened. Every field
// only grows.
type Stats struct {
	// Gets counts every Get and every address passed to GetMany.
	Gets uint64
	// CacheHits counts the Gets answered from the chunk cache (DB only).
	CacheHits uint64
	// DiskReads counts the chunks read from Badger (DB only).
	DiskReads uint64
	// ChunksWritten counts the chunks Put newly accepted: a Put of a chunk
	// that is cached or buffered (DB) or stored (Memory) does not count. A
	// Put of a chunk that DB has on disk but no longer caches does count;
	// the flush then skips it.
	ChunksWritten uint64
	// BytesWritten is the sum of the lengths of the chunks counted by
	// ChunksWritten.
	BytesWritten uint64
	// BytesJournaled is the sum of the lengths of the chunks journaled
	// (DB only): what goes to disk. With a reach function it leaves out
	// the fresh chunks no ref reached (fresh.go).
	BytesJournaled uint64
	// SyncRequests counts the calls that asked for durability (Sync and
	// UpdateRefs with durable set) and were not already covered; Syncs
	// counts the fsyncs performed for them (DB only). Their ratio is how
	// many requests one fsync serves: group commit's batch size.
	SyncRequests, Syncs uint64
	// RedoSpilled counts the redo chunks a spill wrote to disk, reached by
	// a ref; RedoDropped those it left to be dropped, garbage by then
	// (redo.go), each counted once, as it became a limbo chunk.
	RedoSpilled, RedoDropped uint64
}

// counters are the live, atomically updated form of Stats, embedded in DB
// and Memory.
type counters struct {
	gets, cacheHits, diskReads, chunksWritten, bytesWritten, bytesJournaled atomic.Uint64
	redoSpilled, redoDropped                                                atomic.Uint64
}

// snapshot returns the current values; each field is read atomically, the
// set as a whole is not a consistent cut.
func (c *counters) snapshot() Stats {
	return Stats{
		Gets:           c.gets.Load(),
		CacheHits:      c.cacheHits.Load(),
		DiskReads:      c.diskReads.Load(),
		ChunksWritten:  c.chunksWritten.Load(),
		BytesWritten:   c.bytesWritten.Load(),
		BytesJournaled: c.bytesJournaled.Load(),
		RedoSpilled:    c.redoSpilled.Load(),
		RedoDropped:    c.redoDropped.Load(),
	}
}

// wrote records a chunk of n bytes newly accepted by Put.
func (c *counters) wrote(n int) {
	c.chunksWritten.Add(1)
	c.bytesWritten.Add(uint64(n))
}
