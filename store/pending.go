package store

import "sync"

// pendingLimit is the size in bytes of the chunks Put may buffer before it
// asks the background flusher to write them to Badger: large enough that a
// WriteBatch amortises its transactions, small enough to bound memory and
// the work lost to a crash.
const pendingLimit = 16 << 20

// maxPending is the size in bytes past which a Put writes the buffer itself
// instead of leaving it to the background flusher, which has fallen behind.
const maxPending = 4 * pendingLimit

// pending is DB's write buffer: chunks accepted by Put and not yet written
// to Badger. A chunk sits in cur until a flush takes the whole set into
// flushing, and leaves flushing only once it is written (or returns to cur if
// the write failed). Readers look in both, so a chunk is visible in pending
// or on disk at every moment from Put on.
//
// pending is safe for concurrent use; flushes are serialised by DB.flushMu,
// so there is at most one flushing set.
type pending struct {
	mu       sync.Mutex
	cur      map[Address][]byte
	curBytes int64
	flushing map[Address][]byte // nil when no flush is in progress
	// unjournaled are the chunks added and not yet appended to the journal,
	// in the order they were added; a chunk may leave cur for Badger
	// before it is journaled, never before a ref pointing at it is
	// (journal.go, invariant 1).
	unjournaled []chunkRecord
}

// newPending returns an empty buffer.
func newPending() *pending {
	return &pending{cur: make(map[Address][]byte)}
}

// add buffers data under addr unless it is already buffered. It reports
// whether the chunk was new and the buffered size afterwards.
func (p *pending) add(addr Address, data []byte) (added bool, size int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.cur[addr]; ok {
		return false, p.curBytes
	}
	if _, ok := p.flushing[addr]; ok {
		return false, p.curBytes
	}
	p.cur[addr] = data
	p.curBytes += int64(len(data))
	p.unjournaled = append(p.unjournaled, chunkRecord{addr, data})
	return true, p.curBytes
}

// takeUnjournaled returns the chunks not yet journaled and forgets them;
// spare, an empty list the caller no longer uses, becomes the list of the
// next ones (two lists take turns, so that journaling allocates nothing).
func (p *pending) takeUnjournaled(spare []chunkRecord) []chunkRecord {
	p.mu.Lock()
	defer p.mu.Unlock()
	taken := p.unjournaled
	p.unjournaled = spare[:0]
	return taken
}

// get returns the buffered chunk of addr.
func (p *pending) get(addr Address) ([]byte, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if d, ok := p.cur[addr]; ok {
		return d, true
	}
	d, ok := p.flushing[addr]
	return d, ok
}

// size returns the bytes buffered in cur.
func (p *pending) size() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.curBytes
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
	for _, m := range []map[Address][]byte{p.cur, p.flushing} {
		for a, d := range m {
			if Hash(d) != a {
				bad = append(bad, a)
			}
		}
	}
	return bad
}
