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
	mu sync.Mutex
	// fresh are the chunks added and not yet journaled, with the
	// generation of the last Put of each (DB.Generation); a chunk reaches
	// cur only through the journal (journal.go, invariant 1).
	fresh      map[Address]freshChunk
	freshBytes int64
	cur        map[Address][]byte
	curBytes   int64
	flushing   map[Address][]byte // nil when no flush is in progress
}

// freshChunk is a chunk not yet journaled.
type freshChunk struct {
	data []byte
	gen  uint64
}

// newPending returns an empty buffer.
func newPending() *pending {
	return &pending{fresh: make(map[Address]freshChunk), cur: make(map[Address][]byte)}
}

// add buffers data under addr as a fresh chunk of generation gen unless it
// is already buffered; a fresh chunk put again takes the later generation,
// since its new writer may reference it. It reports whether the chunk was
// new, and the bytes buffered afterwards (fresh and journaled).
func (p *pending) add(addr Address, data []byte, gen uint64) (added bool, size int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if f, ok := p.fresh[addr]; ok {
		if gen > f.gen {
			f.gen = gen
			p.fresh[addr] = f
		}
		return false, p.freshBytes + p.curBytes
	}
	if _, ok := p.cur[addr]; ok {
		return false, p.freshBytes + p.curBytes
	}
	if _, ok := p.flushing[addr]; ok {
		return false, p.freshBytes + p.curBytes
	}
	p.fresh[addr] = freshChunk{data, gen}
	p.freshBytes += int64(len(data))
	return true, p.freshBytes + p.curBytes
}

// isFresh reports whether addr is buffered and not yet journaled.
func (p *pending) isFresh(addr Address) bool {
	p.mu.Lock()
	_, ok := p.fresh[addr]
	p.mu.Unlock()
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
		f, ok := p.fresh[a]
		if !ok {
			continue
		}
		delete(p.fresh, a)
		p.freshBytes -= int64(len(f.data))
		p.cur[a] = f.data
		p.curBytes += int64(len(f.data))
		dst = append(dst, chunkRecord{a, f.data})
	}
	return dst
}

// journalAll moves every fresh chunk to cur and appends it to dst, as
// journal does.
func (p *pending) journalAll(dst []chunkRecord) []chunkRecord {
	p.mu.Lock()
	defer p.mu.Unlock()
	for a, f := range p.fresh {
		p.cur[a] = f.data
		p.curBytes += int64(len(f.data))
		dst = append(dst, chunkRecord{a, f.data})
	}
	clear(p.fresh)
	p.freshBytes = 0
	return dst
}

// dropFresh forgets the fresh chunks whose generation is below before,
// and returns how many it dropped and their bytes.
func (p *pending) dropFresh(before uint64) (n int, bytes int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for a, f := range p.fresh {
		if f.gen < before {
			delete(p.fresh, a)
			n++
			bytes += int64(len(f.data))
		}
	}
	p.freshBytes -= bytes
	return n, bytes
}

// get returns the buffered chunk of addr, and whether it is fresh.
func (p *pending) get(addr Address) (data []byte, ok, fresh bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if f, ok := p.fresh[addr]; ok {
		return f.data, true, true
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
	p.mu.Lock()
	defer p.mu.Unlock()
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
	for a, f := range p.fresh {
		if Hash(f.data) != a {
			bad = append(bad, a)
		}
	}
	for _, m := range []map[Address][]byte{p.cur, p.flushing} {
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
