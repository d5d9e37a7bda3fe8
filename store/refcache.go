package store

import "sync"

// refCache holds refs as Badger has them, so that Ref, which every
// statement calls to find its branch's working set, costs a map lookup
// instead of an LSM search. Entries are authoritative: the process owns
// the Badger directory, commitRefs updates the entries of the refs it
// writes after its transaction commits, and a miss is filled under refMu,
// which no ref transaction holds at the same time, so a fill never stores
// a value older than an update. Absent refs are cached too (a name that
// resolves to no branch is looked up again and again); the cache starts
// over past refCacheSize entries.
type refCache struct {
	mu sync.RWMutex
	m  map[string]refEntry
}

type refEntry struct {
	addr Address
	ok   bool
}

const refCacheSize = 1 << 16

func (c *refCache) get(name string) (refEntry, bool) {
	c.mu.RLock()
	e, hit := c.m[name]
	c.mu.RUnlock()
	return e, hit
}

// set records a ref's value; the caller holds DB.refMu.
func (c *refCache) set(name string, addr Address, ok bool) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= refCacheSize {
		c.m = map[string]refEntry{}
	}
	c.m[name] = refEntry{addr, ok}
	c.mu.Unlock()
}
