package exec

import (
	"slices"
	"sync"

	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// TableCache holds decoded tables by the bytes of their catalog record, so
// that a transaction does not decode the records of the tables it uses
// when an earlier one already has: equal bytes are an equal table, and a
// Table is immutable. It also holds decoded definitions by the bytes of
// theirs (versioning.TableDefinition): every commit gives the tables it
// wrote new records, which differ from the last ones only in the roots of
// their maps, and those decode without JSON. It holds sequences by their
// records too: nextval reads a sequence's record, which every commit
// that drew from it has changed, in each transaction. It is safe for
// concurrent use; an engine shares one among its sessions.
type TableCache struct {
	mu   sync.Mutex
	m    map[string]*Table
	defs map[string]*sqldef.Table
	seqs map[string]*sqldef.Sequence
}

// tableCacheSize bounds the cache; past it the cache starts over, which
// costs a decode per table used and nothing else.
const tableCacheSize = 4096

// NewTableCache returns an empty cache.
func NewTableCache() *TableCache {
	return &TableCache{m: map[string]*Table{}, defs: map[string]*sqldef.Table{}, seqs: map[string]*sqldef.Sequence{}}
}

// DecodeSequence returns the sequence of a catalog record, a copy of the
// cached one (the caller may move it) or decoded (and then cached). A nil
// cache decodes.
func (c *TableCache) DecodeSequence(record []byte) (*sqldef.Sequence, error) {
	if c == nil {
		return versioning.DecodeSequence(record)
	}
	c.mu.Lock()
	s := c.seqs[string(record)]
	c.mu.Unlock()
	if s == nil {
		var err error
		if s, err = versioning.DecodeSequence(record); err != nil {
			return nil, err
		}
		c.mu.Lock()
		if len(c.seqs) >= tableCacheSize {
			c.seqs = map[string]*sqldef.Sequence{}
		}
		c.seqs[string(record)] = s
		c.mu.Unlock()
	}
	cp := *s
	cp.ACL = slices.Clone(s.ACL)
	return &cp, nil
}

// Decode returns the table of a catalog record, from the cache or decoded
// (and then cached). A nil cache decodes.
func (c *TableCache) Decode(record []byte) (*Table, error) {
	if c == nil {
		def, err := versioning.DecodeTable(record)
		if err != nil {
			return nil, err
		}
		return NewTable(def), nil
	}
	if t := c.get(record); t != nil {
		return t, nil
	}
	d := versioning.TableDefinition(record)
	c.mu.Lock()
	like := c.defs[string(d)]
	c.mu.Unlock()
	var def *sqldef.Table
	var err error
	if like != nil {
		def, err = versioning.DecodeTableAs(record, like)
	} else {
		def, err = versioning.DecodeTable(record)
	}
	if err != nil {
		return nil, err
	}
	t := NewTable(def)
	c.put(record, t)
	if like == nil && d != nil {
		c.mu.Lock()
		if len(c.defs) >= tableCacheSize {
			c.defs = map[string]*sqldef.Table{}
		}
		c.defs[string(d)] = def
		c.mu.Unlock()
	}
	return t, nil
}

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
