package store

import (
	"sync"
	"sync/atomic"
)

const (
	// cacheShards is the number of independently locked parts of a cache;
	// a chunk's shard is chosen by the low bits of its address's first byte
	// (addresses are uniform hashes, so shards fill evenly).
	cacheShards = 16

	// cacheEntryOverhead is what one entry costs beyond its chunk's bytes,
	// charged against the bound: the entry (address, slice header, flag:
	// 56 bytes), its index slot in the map (about 32 bytes with the map's
	// slack) and the rounding of the chunk's allocation.
	cacheEntryOverhead = 96
)

// cache holds chunks that are known to be in the store, bounded by the sum of
// their lengths plus cacheEntryOverhead each. It evicts with CLOCK: a hit
// sets an entry's reference bit; the hand clears set bits and evicts the
// first entry whose bit is clear.
//
// A cache is safe for concurrent use. Cached slices are shared and never
// modified. A hit does not allocate.
type cache struct {
	shards [cacheShards]cacheShard
}

// cacheShard is one mutex-guarded part of a cache.
type cacheShard struct {
	mu      sync.Mutex
	index   map[Address]int32 // address -> position in entries
	entries []cacheEntry
	hand    int   // CLOCK hand: next position to examine for eviction
	bytes   int64 // charged size of entries
	limit   int64 // bound on bytes
}

// cacheEntry is one cached chunk.
type cacheEntry struct {
	addr Address
	data []byte
	ref  bool // referenced since the hand last passed
}

// newCache returns a cache bounded by limit bytes in total; limit <= 0 gives
// a cache that holds nothing.
func newCache(limit int64) *cache {
	c := &cache{}
	per := max(limit, 0) / cacheShards
	for i := range c.shards {
		c.shards[i].index = make(map[Address]int32)
		c.shards[i].limit = per
	}
	return c
}

// shard returns the shard that holds addr.
func (c *cache) shard(addr Address) *cacheShard {
	return &c.shards[addr[0]%cacheShards]
}

// get returns the cached chunk of addr and marks it referenced.
func (c *cache) get(addr Address) ([]byte, bool) {
	s := c.shard(addr)
	s.mu.Lock()
	i, ok := s.index[addr]
	if !ok {
		s.mu.Unlock()
		return nil, false
	}
	e := &s.entries[i]
	e.ref = true
	data := e.data
	s.mu.Unlock()
	return data, true
}

// contains reports whether addr is cached, without marking it referenced.
func (c *cache) contains(addr Address) bool {
	s := c.shard(addr)
	s.mu.Lock()
	_, ok := s.index[addr]
	s.mu.Unlock()
	return ok
}

// add caches data as the chunk of addr, evicting as needed to stay within
// the bound. A chunk too large for its shard is not cached. data must hash to
// addr and must never be modified afterwards.
func (c *cache) add(addr Address, data []byte) {
	size := int64(len(data)) + cacheEntryOverhead
	s := c.shard(addr)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addLocked(addr, data, size)
}

// addLocked is add with s.mu held; size is the entry's charged size.
func (s *cacheShard) addLocked(addr Address, data []byte, size int64) {
	if size > s.limit {
		return
	}
	if i, ok := s.index[addr]; ok {
		s.entries[i].ref = true
		return
	}
	for s.bytes+size > s.limit {
		s.evict()
	}
	// A new entry starts unreferenced: it must be hit once to survive the
	// hand's next pass, which keeps one-off scans from flushing the cache.
	s.index[addr] = int32(len(s.entries))
	s.entries = append(s.entries, cacheEntry{addr: addr, data: data})
	s.bytes += size
}

// addIfCurrent is add, unless cur no longer holds seq when the shard is
// locked: a GC's sweep deleted chunks since the caller read data (see
// DB.readChunk). The sweep bumps cur before it removes its victims, each
// under its shard's lock, so an entry added here is either removed by the
// sweep or was added knowing nothing was deleted since the read.
func (c *cache) addIfCurrent(addr Address, data []byte, seq uint64, cur *atomic.Uint64) {
	size := int64(len(data)) + cacheEntryOverhead
	s := c.shard(addr)
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur.Load() != seq {
		return
	}
	s.addLocked(addr, data, size)
}

// remove drops the chunk of addr, if cached.
func (c *cache) remove(addr Address) {
	s := c.shard(addr)
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.index[addr]
	if !ok {
		return
	}
	e := &s.entries[i]
	s.bytes -= int64(len(e.data)) + cacheEntryOverhead
	delete(s.index, addr)
	last := int32(len(s.entries) - 1)
	if i != last {
		*e = s.entries[last]
		s.index[e.addr] = i
	}
	s.entries[last] = cacheEntry{}
	s.entries = s.entries[:last]
	if s.hand > int(last) {
		s.hand = 0
	}
}

// evict removes one entry chosen by the CLOCK hand. The caller holds s.mu and
// s has at least one entry. The last entry moves into the victim's place, so
// the hand need not advance.
func (s *cacheShard) evict() {
	for {
		if s.hand >= len(s.entries) {
			s.hand = 0
		}
		e := &s.entries[s.hand]
		if e.ref {
			e.ref = false
			s.hand++
			continue
		}
		s.bytes -= int64(len(e.data)) + cacheEntryOverhead
		delete(s.index, e.addr)
		last := len(s.entries) - 1
		if s.hand != last {
			*e = s.entries[last]
			s.index[e.addr] = int32(s.hand)
		}
		s.entries[last] = cacheEntry{} // drop the reference to the chunk
		s.entries = s.entries[:last]
		return
	}
}

// size returns the charged bytes and the number of entries, summed over the
// shards. For tests and Check.
func (c *cache) size() (bytes int64, entries int) {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		bytes += s.bytes
		entries += len(s.entries)
		s.mu.Unlock()
	}
	return bytes, entries
}

// modified returns the addresses of cached chunks that no longer hash to
// their address: a caller modified a shared slice. For Check.
func (c *cache) modified() []Address {
	var bad []Address
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		for _, e := range s.entries {
			if Hash(e.data) != e.addr {
				bad = append(bad, e.addr)
			}
		}
		s.mu.Unlock()
	}
	return bad
}
