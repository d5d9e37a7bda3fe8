package exec

import "sync"

// TableCache holds decoded tables by the bytes of their catalog record, so
// that a transaction does not decode the records of the tables it uses
// when an earlier one already has: equal bytes are an equal table, and a
// Table is immutable. It is safe for concurrent use; an engine shares one
// among its sessions.
type TableCache struct {
	mu sync.Mutex
	m  map[string]*Table
}

// tableCacheSize bounds the cache; past it the cache starts over, which
// costs a decode per table used and nothing else.
const tableCacheSize = 4096

// NewTableCache returns an empty cache.
func NewTableCache() *TableCache { return &TableCache{m: map[string]*Table{}} }

func (c *TableCache) get(record []byte) *Table {
	c.mu.Lock()
	t := c.m[string(record)]
	c.mu.Unlock()
	return t
}

func (c *TableCache) put(record []byte, t *Table) {
	c.mu.Lock()
	if len(c.m) >= tableCacheSize {
		c.m = map[string]*Table{}
	}
	c.m[string(record)] = t
	c.mu.Unlock()
}
