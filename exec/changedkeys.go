package exec

import (
	"bytes"
	"slices"
)

// changedKeys are the keys a transaction's writers changed in one table's
// maps: its rows and each of its indexes, by position.
type changedKeys struct {
	rows    map[string]struct{}
	indexes []map[string]struct{}
	n       int
	over    bool // past maxChangedKeys: no longer tracked
}

// maxChangedKeys bounds the keys tracked per table: past it a merge diffs
// the table's maps, which for that many changes costs about as much as
// looking each one up.
const maxChangedKeys = 4096

// noteChanged records the keys w is about to apply.
func (tx *Txn) noteChanged(w *TableWriter) {
	if tx.untracked {
		return
	}
	key := tableKey(w.t.Def)
	c := tx.changed[key]
	if c == nil {
		if tx.changed == nil {
			tx.changed = map[string]*changedKeys{}
		}
		c = &changedKeys{rows: map[string]struct{}{}, indexes: make([]map[string]struct{}, len(w.indexes))}
		for i := range c.indexes {
			c.indexes[i] = map[string]struct{}{}
		}
		tx.changed[key] = c
	}
	if c.over {
		return
	}
	if len(c.indexes) != len(w.indexes) {
		c.over = true // the table's indexes changed under the transaction
		return
	}
	for k := range w.pending {
		c.rows[k] = struct{}{}
	}
	c.n = len(c.rows)
	for i, edits := range w.ixEdits {
		for k := range edits {
			c.indexes[i][k] = struct{}{}
		}
		c.n += len(c.indexes[i])
	}
	if c.n > maxChangedKeys {
		c.over = true
		c.rows, c.indexes = nil, nil
	}
}

// ChangedKeys implements versioning.KeySource: the keys of schema.table's
// maps that the transaction's writers changed, unless the transaction
// changed its root otherwise or the table too much.
func (m *MergeIndexer) ChangedKeys(schema, table string) (rows [][]byte, indexes [][][]byte, ok bool) {
	tx := m.tx
	c := tx.changed[schema+"."+table]
	if tx.untracked || c == nil || c.over {
		return nil, nil, false
	}
	rows = sortedKeys(c.rows)
	indexes = make([][][]byte, len(c.indexes))
	for i, ix := range c.indexes {
		indexes[i] = sortedKeys(ix)
	}
	return rows, indexes, true
}

// sortedKeys returns the keys of set in order.
func sortedKeys(set map[string]struct{}) [][]byte {
	keys := make([][]byte, 0, len(set))
	for k := range set {
		keys = append(keys, []byte(k))
	}
	slices.SortFunc(keys, bytes.Compare)
	return keys
}
