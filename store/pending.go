package store

import "sync"

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

// pending is DB's write buffer: chunks accepted by Put and not yet written
// to Badger. A chunk is fresh until the journal holds it; then it sits in
// cur until a flush takes the whole set into flushing, and leaves flushing
// only once it is written (or returns to cur if the write failed). Readers
// look in all three, so a chunk is visible in pending or on disk at every
// moment from Put on, unless it was fresh and dropped (DropFresh).
//
// pending is safe for concurrent use; flushes are serialised by DB.flushMu,
// so there is at most one flushing set.
type pending struct {
	mu sync.RWMutex // readers (get, isFresh) far outnumber writers
	// fresh are the chunks added and not yet journaled, by the generation
	// of their last Put (DB.Generation), so that a drop forgets whole
	// generations at once; a chunk reaches cur only through the journal
	// (journal.go, invariant 1). Few generations are alive at a time.
	fresh      map[uint64]*freshGen
	freshGenOf map[Address]uint64 // the generation in fresh holding each fresh chunk
	freshBytes int64
	cur        map[Address][]byte
	curBytes   int64
	flushing   map[Address][]byte // nil when no flush is in progress
}

// freshGen holds the fresh chunks of one generation.
type freshGen struct {
	chunks map[Address][]byte
	bytes  int64
}

// newPending returns an empty buffer.
func newPending() *pending {
	return &pending{fresh: make(map[uint64]*freshGen), freshGenOf: make(map[Address]uint64), cur: make(map[Address][]byte)}
}

// findFresh returns the generation holding the fresh chunk addr, if any.
// The caller holds mu. It is one map lookup, not one per generation: a
// journal's reach walk asks it for every child of every fresh node.
func (p *pending) findFresh(addr Address) (gen uint64, data []byte, ok bool) {
	g, ok := p.freshGenOf[addr]
	if !ok {
		return 0, nil, false
	}
	return g, p.fresh[g].chunks[addr], true
}

// addFresh adds a fresh chunk to generation gen. The caller holds mu.
func (p *pending) addFresh(addr Address, data []byte, gen uint64) {
	fg := p.fresh[gen]
	if fg == nil {
		fg = &freshGen{chunks: map[Address][]byte{}}
		p.fresh[gen] = fg
	}
	fg.chunks[addr] = data
	p.freshGenOf[addr] = gen
	fg.bytes += int64(len(data))
	p.freshBytes += int64(len(data))
}

// removeFresh takes the fresh chunk addr out of generation gen, which
// holds it. The caller holds mu.
func (p *pending) removeFresh(addr Address, gen uint64) []byte {
	fg := p.fresh[gen]
	d := fg.chunks[addr]
	delete(fg.chunks, addr)
	delete(p.freshGenOf, addr)
	fg.bytes -= int64(len(d))
	p.freshBytes -= int64(len(d))
	if len(fg.chunks) == 0 {
		delete(p.fresh, gen)
	}
	return d
}

// add buffers data under addr as a fresh chunk of generation gen unless it
// is already buffered; a fresh chunk put again takes the later generation,
// since its new writer may reference it. It reports whether the chunk was
// new, and the bytes buffered afterwards (fresh and journaled).
func (p *pending) add(addr Address, data []byte, gen uint64) (added bool, size int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if g, _, ok := p.findFresh(addr); ok {
		if gen > g {
			p.addFresh(addr, p.removeFresh(addr, g), gen)
		}
		return false, p.freshBytes + p.curBytes
	}
	if _, ok := p.cur[addr]; ok {
		return false, p.freshBytes + p.curBytes
	}
	if _, ok := p.flushing[addr]; ok {
		return false, p.freshBytes + p.curBytes
	}
	p.addFresh(addr, data, gen)
	return true, p.freshBytes + p.curBytes
}

// isFresh reports whether addr is buffered and not yet journaled.
func (p *pending) isFresh(addr Address) bool {
	p.mu.RLock()
	_, _, ok := p.findFresh(addr)
	p.mu.RUnlock()
	return ok
}

// journal moves the chunks of addrs that are still fresh to cur and
// appends them to dst, in the order of addrs; the caller writes them to
// the journal before any ref that reaches them, holding DB.journalMu.
// Addresses no longer fresh were journaled by another call meanwhile.
func (p *pending) journal(addrs []Address, dst []chunkRecord) []chunkRecord {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range addrs {
		g, _, ok := p.findFresh(a)
		if !ok {
			continue
		}
		d := p.removeFresh(a, g)
		p.cur[a] = d
		p.curBytes += int64(len(d))
		dst = append(dst, chunkRecord{a, d})
	}
	return dst
}

// journalAll moves every fresh chunk to cur and appends it to dst, as
// journal does.
func (p *pending) journalAll(dst []chunkRecord) []chunkRecord {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, fg := range p.fresh {
		for a, d := range fg.chunks {
			p.cur[a] = d
			p.curBytes += int64(len(d))
			dst = append(dst, chunkRecord{a, d})
		}
	}
	clear(p.fresh)
	clear(p.freshGenOf)
	p.freshBytes = 0
	return dst
}

// dropFresh forgets the fresh chunks whose generation is below before,
// and returns how many it dropped and their bytes: whole generations, in
// time linear in their number of chunks, which freshLimit bounds (the lock
// it holds stops every Put).
func (p *pending) dropFresh(before uint64) (n int, bytes int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for g, fg := range p.fresh {
		if g < before {
			n += len(fg.chunks)
			bytes += fg.bytes
			for a := range fg.chunks {
				delete(p.freshGenOf, a)
			}
			delete(p.fresh, g)
		}
	}
	p.freshBytes -= bytes
	return n, bytes
}

// get returns the buffered chunk of addr, and whether it is fresh.
func (p *pending) get(addr Address) (data []byte, ok, fresh bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if _, d, ok := p.findFresh(addr); ok {
		return d, true, true
	}
	if d, ok := p.cur[addr]; ok {
		return d, true, false
	}
	d, ok := p.flushing[addr]
	return d, ok, false
}

// sizes returns the bytes of the fresh chunks and of the journaled ones in
// cur.
func (p *pending) sizes() (fresh, journaled int64) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.freshBytes, p.curBytes
}

// take moves cur into flushing and returns it; nil if cur is empty. The
// caller holds DB.flushMu and must call done.
func (p *pending) take() map[Address][]byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.cur) == 0 {
		return nil
	}
	p.flushing, p.cur, p.curBytes = p.cur, make(map[Address][]byte), 0
	return p.flushing
}

// done ends the flush begun by take: if written, the flushing set is
// dropped, else its chunks return to cur so that a later flush retries them.
func (p *pending) done(written bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !written {
		for a, d := range p.flushing {
			if _, ok := p.cur[a]; !ok {
				p.cur[a] = d
				p.curBytes += int64(len(d))
			}
		}
	}
	p.flushing = nil
}

// modified returns the addresses of buffered chunks that no longer hash to
// their address: a caller modified a slice after giving it to Put. For
// Check.
func (p *pending) modified() []Address {
	p.mu.Lock()
	defer p.mu.Unlock()
	var bad []Address
	maps := []map[Address][]byte{p.cur, p.flushing}
	for _, fg := range p.fresh {
		maps = append(maps, fg.chunks)
	}
	for _, m := range maps {
		for a, d := range m {
			if Hash(d) != a {
				bad = append(bad, a)
			}
		}
	}
	return bad
}

// size returns the bytes buffered, fresh and journaled.
func (p *pending) size() int64 {
	fresh, journaled := p.sizes()
	return fresh + journaled
}
