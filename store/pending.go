package store

import (
	"sync"
	"sync/atomic"
)

// pendingLimit is the size in bytes of the journaled chunks Put may buffer
// before it asks the background flusher to write them to Badger: large
// enough that a WriteBatch amortises its transactions, small enough to
// bound memory and the work lost to a crash.
const pendingLimit = 16 << 20

// maxPending is the size in bytes past which a Put writes the buffer itself
// instead of leaving it to the background flusher, which has fallen behind.
const maxPending = 4 * pendingLimit

// freshLimit is the size in bytes of fresh chunks (Put, not yet journaled)
// past which a flush journals them all, reached or not: the bound on what
// a caller that never drops them (DropFresh), or a transaction that writes
// more than this, keeps in memory.
const freshLimit = pendingLimit

// pendingShards is the number of independently locked parts of pending.
// Every Put takes a write lock and every Get a read lock; with one lock,
// sixteen sessions writing at once spent a tenth of their time waiting for
// it, the commit leader among them (pgbench -N, 16 clients).
const pendingShards = 32

// pending is DB's write buffer: chunks accepted by Put and not yet written
// to Badger. A chunk is fresh until the journal holds it; then it sits in
// cur until a flush takes the whole set into flushing, and leaves flushing
// only once it is written (or returns to cur if the write failed). Readers
// look in all three, so a chunk is visible in pending or on disk at every
// moment from Put on, unless it was fresh and dropped (DropFresh).
//
// The buffer is split into shards by address; a chunk lives in one shard
// only, and every move of a chunk happens under its shard's lock, so the
// invariants above hold per chunk without a lock over all shards.
//
// pending is safe for concurrent use; flushes are serialised by DB.flushMu,
// so there is at most one flushing set.
type pending struct {
	shards     [pendingShards]pendingShard
	freshBytes atomic.Int64
	curBytes   atomic.Int64
	// redoBytes and limboBytes are the parts of freshBytes in
	// redoGeneration and limboGeneration (redo.go).
	redoBytes, limboBytes atomic.Int64
}

// account adds delta bytes of fresh chunks of generation gen to the
// counters.
func (p *pending) account(gen uint64, delta int64) {
	p.freshBytes.Add(delta)
	switch gen {
	case redoGeneration:
		p.redoBytes.Add(delta)
	case limboGeneration:
		p.limboBytes.Add(delta)
	}
}

// pendingShard holds the buffered chunks whose address falls in it.
type pendingShard struct {
	mu sync.RWMutex // readers (get, isFresh) far outnumber writers
	// fresh are the chunks added and not yet journaled, by the generation
	// of their last Put (DB.Generation), so that a drop forgets whole
	// generations at once; a chunk reaches cur only through the journal
	// (journal.go, invariant 1). Few generations are alive at a time.
	fresh      map[uint64]*freshGen
	freshGenOf map[Address]freshEntry // each fresh chunk, with its generation in fresh
	cur        map[Address][]byte
	flushing   map[Address][]byte // nil when no flush is in progress
	_          [64]byte           // keeps neighbouring shards' locks off one cache line
}

// freshEntry is a fresh chunk and its generation, for findFresh's one
// lookup on every read that misses the cache.
type freshEntry struct {
	gen  uint64
	data []byte
}

// freshGen holds the fresh chunks of one generation.
type freshGen struct {
	chunks map[Address][]byte
	bytes  int64
}

// newPending returns an empty buffer.
func newPending() *pending {
	p := &pending{}
	for i := range p.shards {
		s := &p.shards[i]
		s.fresh = make(map[uint64]*freshGen)
		s.freshGenOf = make(map[Address]freshEntry)
		s.cur = make(map[Address][]byte)
	}
	return p
}

// shard returns the shard of addr; addresses are hashes, so the first byte
// spreads them evenly.
func (p *pending) shard(addr Address) *pendingShard {
	return &p.shards[int(addr[0])%pendingShards]
}

// findFresh returns the generation holding the fresh chunk addr, if any.
// The caller holds mu. It is one map lookup, not one per generation: a
// journal's reach walk asks it for every child of every fresh node.
func (s *pendingShard) findFresh(addr Address) (gen uint64, data []byte, ok bool) {
	e, ok := s.freshGenOf[addr]
	return e.gen, e.data, ok
}

// addFresh adds a fresh chunk to generation gen. The caller holds mu.
func (p *pending) addFresh(s *pendingShard, addr Address, data []byte, gen uint64) {
	fg := s.fresh[gen]
	if fg == nil {
		fg = &freshGen{chunks: map[Address][]byte{}}
		s.fresh[gen] = fg
	}
	fg.chunks[addr] = data
	s.freshGenOf[addr] = freshEntry{gen, data}
	fg.bytes += int64(len(data))
	p.account(gen, int64(len(data)))
}

// removeFresh takes the fresh chunk addr out of generation gen, which
// holds it. The caller holds mu.
func (p *pending) removeFresh(s *pendingShard, addr Address, gen uint64) []byte {
	fg := s.fresh[gen]
	d := fg.chunks[addr]
	delete(fg.chunks, addr)
	delete(s.freshGenOf, addr)
	fg.bytes -= int64(len(d))
	p.account(gen, -int64(len(d)))
	if len(fg.chunks) == 0 {
		delete(s.fresh, gen)
	}
	return d
}

// add buffers data under addr as a fresh chunk of generation gen unless it
// is already buffered; a fresh chunk put again takes the later generation,
// since its new writer may reference it. It reports whether the chunk was
// new, and the bytes buffered afterwards (fresh and journaled).
func (p *pending) add(addr Address, data []byte, gen uint64) (added bool, size int64) {
	s := p.shard(addr)
	s.mu.Lock()
	added = p.addLocked(s, addr, data, gen)
	s.mu.Unlock()
	return added, p.size()
}

func (p *pending) addLocked(s *pendingShard, addr Address, data []byte, gen uint64) bool {
	if g, _, ok := s.findFresh(addr); ok {
		if gen > g {
			p.addFresh(s, addr, p.removeFresh(s, addr, g), gen)
		}
		return false
	}
	if _, ok := s.cur[addr]; ok {
		return false
	}
	if _, ok := s.flushing[addr]; ok {
		return false
	}
	p.addFresh(s, addr, data, gen)
	return true
}

// isFresh reports whether addr is buffered and not yet journaled.
func (p *pending) isFresh(addr Address) bool {
	s := p.shard(addr)
	s.mu.RLock()
	_, _, ok := s.findFresh(addr)
	s.mu.RUnlock()
	return ok
}

// journal moves the chunks of addrs that are still fresh to cur and
// appends them to dst, in the order of addrs; the caller writes them to
// the journal before any ref that reaches them, holding DB.journalMu.
// Addresses no longer fresh were journaled by another call meanwhile.
func (p *pending) journal(addrs []Address, dst []chunkRecord) []chunkRecord {
	for _, a := range addrs {
		s := p.shard(a)
		s.mu.Lock()
		if g, _, ok := s.findFresh(a); ok {
			d := p.removeFresh(s, a, g)
			s.cur[a] = d
			p.curBytes.Add(int64(len(d)))
			dst = append(dst, chunkRecord{a, d})
		}
		s.mu.Unlock()
	}
	return dst
}

// journalAll moves every fresh chunk to cur and appends it to dst, as
// journal does. It holds every shard's lock at once: a writer puts a
// node's children before the node, so a node that is in this set has its
// fresh children in it too, and no journaled chunk is left with a fresh
// child (package doc, invariant 10). Moving shard by shard, a child put
// into a shard already passed and then its parent into one not yet
// passed left the parent journaled above a fresh child, which its
// generation's end then dropped.
func (p *pending) journalAll(dst []chunkRecord) []chunkRecord {
	p.lockAll()
	defer p.unlockAll()
	for i := range p.shards {
		s := &p.shards[i]
		for g := range s.fresh {
			dst = p.moveToCur(s, g, dst)
		}
	}
	return dst
}

// moveToCur moves the fresh chunks of shard s's generation gen to cur,
// appending them to dst. The caller holds s.mu.
func (p *pending) moveToCur(s *pendingShard, gen uint64, dst []chunkRecord) []chunkRecord {
	fg := s.fresh[gen]
	if fg == nil {
		return dst
	}
	for a, d := range fg.chunks {
		s.cur[a] = d
		delete(s.freshGenOf, a)
		dst = append(dst, chunkRecord{a, d})
	}
	p.account(gen, -fg.bytes)
	p.curBytes.Add(fg.bytes)
	delete(s.fresh, gen)
	return dst
}

// lockAll locks every shard, in order; unlockAll unlocks them. For the
// sets that must be cut at one moment (journalAll says why).
func (p *pending) lockAll() {
	for i := range p.shards {
		p.shards[i].mu.Lock()
	}
}

func (p *pending) unlockAll() {
	for i := range p.shards {
		p.shards[i].mu.Unlock()
	}
}

// dropFresh forgets the fresh chunks whose generation is below before,
// and returns how many it dropped and their bytes: whole generations, in
// time linear in their number of chunks, which freshLimit bounds (the lock
// of each shard stops the Puts to it meanwhile).
func (p *pending) dropFresh(before uint64) (n int, bytes int64) {
	for i := range p.shards {
		s := &p.shards[i]
		s.mu.Lock()
		for g, fg := range s.fresh {
			if g < before {
				n += len(fg.chunks)
				bytes += fg.bytes
				p.account(g, -fg.bytes)
				for a := range fg.chunks {
					delete(s.freshGenOf, a)
				}
				delete(s.fresh, g)
			}
		}
		s.mu.Unlock()
	}
	return n, bytes
}

// generations returns the fresh chunks of each of gens, which stay where
// they are (copies of the sets, sharing the chunks' bytes), taken at one
// moment (see journalAll).
func (p *pending) generations(gens ...uint64) []map[Address][]byte {
	p.lockAll()
	defer p.unlockAll()
	out := make([]map[Address][]byte, len(gens))
	for j, gen := range gens {
		out[j] = map[Address][]byte{}
		for i := range p.shards {
			if fg := p.shards[i].fresh[gen]; fg != nil {
				for addr, d := range fg.chunks {
					out[j][addr] = d
				}
			}
		}
	}
	return out
}

// forgetKept removes the chunks of written that are still fresh as redo,
// limbo or kept chunks (generations DropFresh never reaches), which the
// caller has made durable on disk, and caches them: they are read from
// disk from then on. A chunk journaled meanwhile (now in cur) stays where
// it is.
func (p *pending) forgetKept(written map[Address][]byte, c *cache) {
	for a, d := range written {
		s := p.shard(a)
		s.mu.Lock()
		if g, _, ok := s.findFresh(a); ok && g >= limboGeneration {
			p.removeFresh(s, a, g)
			c.add(a, d)
		}
		s.mu.Unlock()
	}
}

// keepGenerations moves the fresh chunks of gens to cur, as though
// journaled, at one moment (see journalAll): for a checkpoint, whose sync
// of Badger makes them durable before anything relies on it.
func (p *pending) keepGenerations(gens ...uint64) {
	p.lockAll()
	defer p.unlockAll()
	for _, gen := range gens {
		for i := range p.shards {
			p.moveToCur(&p.shards[i], gen, nil)
		}
	}
}

// sizesRedo returns the bytes of the fresh chunks other than redo and
// limbo chunks (the ones DropFresh may drop), and of the redo chunks.
func (p *pending) sizesRedo() (other, redo int64) {
	r := p.redoBytes.Load()
	return p.freshBytes.Load() - r - p.limboBytes.Load(), r
}

// relabel moves the chunks of set that are still fresh in generation from
// to generation to, and returns how many it moved.
func (p *pending) relabel(set map[Address][]byte, from, to uint64) int {
	n := 0
	for a := range set {
		s := p.shard(a)
		s.mu.Lock()
		if g, _, ok := s.findFresh(a); ok && g == from {
			p.addFresh(s, a, p.removeFresh(s, a, g), to)
			n++
		}
		s.mu.Unlock()
	}
	return n
}

// freshKept reports whether addr is fresh in a generation DropFresh never
// reaches: a redo, limbo or kept chunk (redo.go).
func (p *pending) freshKept(addr Address) bool {
	s := p.shard(addr)
	s.mu.RLock()
	g, _, ok := s.findFresh(addr)
	s.mu.RUnlock()
	return ok && g >= limboGeneration
}

// get returns the buffered chunk of addr, and whether it is fresh.
func (p *pending) get(addr Address) (data []byte, ok, fresh bool) {
	s := p.shard(addr)
	s.mu.RLock()
	defer s.mu.RUnlock()
	if _, d, ok := s.findFresh(addr); ok {
		return d, true, true
	}
	if d, ok := s.cur[addr]; ok {
		return d, true, false
	}
	d, ok := s.flushing[addr]
	return d, ok, false
}

// sizes returns the bytes of the fresh chunks and of the journaled ones in
// cur.
func (p *pending) sizes() (fresh, journaled int64) {
	return p.freshBytes.Load(), p.curBytes.Load()
}

// take moves cur into flushing and returns it; nil if cur is empty. The
// caller holds DB.flushMu and must call done.
func (p *pending) take() map[Address][]byte {
	var batch map[Address][]byte
	for i := range p.shards {
		s := &p.shards[i]
		s.mu.Lock()
		if len(s.cur) > 0 {
			if batch == nil {
				batch = make(map[Address][]byte, len(s.cur)*pendingShards)
			}
			var moved int64
			for a, d := range s.cur {
				batch[a] = d
				moved += int64(len(d))
			}
			s.flushing, s.cur = s.cur, make(map[Address][]byte)
			p.curBytes.Add(-moved)
		}
		s.mu.Unlock()
	}
	return batch
}

// done ends the flush begun by take: if written, the flushing sets are
// dropped, else their chunks return to cur so that a later flush retries
// them.
func (p *pending) done(written bool) {
	for i := range p.shards {
		s := &p.shards[i]
		s.mu.Lock()
		if !written {
			for a, d := range s.flushing {
				if _, ok := s.cur[a]; !ok {
					s.cur[a] = d
					p.curBytes.Add(int64(len(d)))
				}
			}
		}
		s.flushing = nil
		s.mu.Unlock()
	}
}

// modified returns the addresses of buffered chunks that no longer hash to
// their address: a caller modified a slice after giving it to Put. For
// Check.
func (p *pending) modified() []Address {
	var bad []Address
	for i := range p.shards {
		s := &p.shards[i]
		s.mu.Lock()
		maps := []map[Address][]byte{s.cur, s.flushing}
		for _, fg := range s.fresh {
			maps = append(maps, fg.chunks)
		}
		for _, m := range maps {
			for a, d := range m {
				if Hash(d) != a {
					bad = append(bad, a)
				}
			}
		}
		s.mu.Unlock()
	}
	return bad
}

// size returns the bytes buffered, fresh and journaled.
func (p *pending) size() int64 {
	fresh, journaled := p.sizes()
	return fresh + journaled
}
