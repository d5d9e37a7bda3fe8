package versioning

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// MergeRoots three-way merges two root values that descend from base: the
// commit-time merge of concurrent SQL transactions on one branch. Objects
// changed on one side take that side. A table changed on both sides keeps
// its definition if both left it alone, and its rows and indexes are merged
// row by row; a row changed differently on both sides, or a definition
// changed on both, is a conflict (ErrConflict); a key both sides inserted,
// into the primary key or a unique index, is a DuplicateKeyError whatever
// the rows hold; and a row whose foreign key finds
// its parent deleted by the other side: enc (nil when no table has a
// unique index or a foreign key) gives the rows' index entries and, as a
// ReferenceChecker, looks up parents. Sequences advanced on both sides
// keep the further one.
func MergeRoots(ctx context.Context, base, ours, theirs RootValue, enc IndexEncoder) (RootValue, error) {
	// Ours is one transaction's change and theirs the branch, which may
	// have moved far since the transaction began: MergeInto's work follows
	// the transaction's size alone.
	m, _, err := prolly.MergeInto(ctx, base.m, ours.m, theirs.m, func(c prolly.Collision) (prolly.Resolution, error) {
		kind, schema, name, err := splitObjectKey(c.Key)
		if err != nil {
			return prolly.Resolution{}, err
		}
		if !c.InOurs || !c.InTheirs {
			return prolly.Resolution{}, fmt.Errorf("%w: %q.%q dropped on one side and changed on the other", ErrConflict, schema, name)
		}
		switch kind {
		case kindTable:
			return mergeTableRecords(ctx, base.Store(), c, enc)
		case kindSequence:
			return mergeSequenceRecords(c)
		}
		return prolly.Resolution{}, fmt.Errorf("%w: %q changed on both sides", ErrConflict, schema)
	})
	if err != nil {
		return RootValue{}, err
	}
	if err := checkSameInserts(ctx, base, ours, theirs); err != nil {
		return RootValue{}, err
	}
	merged := RootValue{m}
	if rs, ok := enc.(RebaseSource); ok {
		if merged, err = applyRebased(ctx, ours, theirs, merged, rs, enc); err != nil {
			return RootValue{}, err
		}
	}
	if rc, ok := enc.(ReferenceChecker); ok {
		// One side may have deleted a parent the other gave a new child.
		recorded, err := checkReferences(ctx, base, merged, rc, nil, MergeOptions{})
		if err != nil {
			return RootValue{}, err
		}
		if len(recorded) > 0 {
			return RootValue{}, fmt.Errorf("%w: a row of %q.%q references a row deleted concurrently", ErrConflict, recorded[0].Schema, recorded[0].Name)
		}
	}
	return merged, nil
}

func mergeTableRecords(ctx context.Context, cs prolly.ChunkStore, c prolly.Collision, enc IndexEncoder) (prolly.Resolution, error) {
	if !c.InBase {
		return prolly.Resolution{}, fmt.Errorf("%w: table created on both sides", ErrConflict)
	}
	var base, ours, theirs *sqldef.Table
	for _, r := range []struct {
		b []byte
		t **sqldef.Table
	}{{c.Base, &base}, {c.Ours, &ours}, {c.Theirs, &theirs}} {
		var err error
		if *r.t, err = decodeTableWith(enc, r.b); err != nil {
			return prolly.Resolution{}, err
		}
	}
	if !sameDefinitionRecords(c.Base, c.Ours, base, ours) || !sameDefinitionRecords(c.Base, c.Theirs, base, theirs) {
		return prolly.Resolution{}, fmt.Errorf("%w: table %q.%q: definition changed concurrently", ErrConflict, ours.Schema, ours.Name)
	}
	merged := *ours // the decoder's tables are not modified: Indexes is copied below
	var err error
	var rebased map[string][]byte
	if rs, ok := enc.(RebaseSource); ok {
		rebased = rs.Rebased(ours.Schema, ours.Name)
	}
	var dup *sqldef.Table // with a primary key, a key both sides inserted is a duplicate
	if len(ours.PrimaryKey) > 0 {
		dup = ours
	}
	var rowKeys [][]byte
	var ixKeys [][][]byte
	if ks, ok := enc.(KeySource); ok {
		var known bool
		if rowKeys, ixKeys, known = ks.ChangedKeys(ours.Schema, ours.Name); !known || len(ixKeys) != len(ours.Indexes) {
			rowKeys, ixKeys = nil, nil
		}
	}
	if merged.Rows, err = mergeRows(ctx, cs, base.Rows, ours.Rows, theirs.Rows, rowKeys, rebased, dup); err != nil {
		return prolly.Resolution{}, fmt.Errorf("table %q.%q: %w", ours.Schema, ours.Name, err)
	}
	merged.Indexes = append([]sqldef.Index(nil), ours.Indexes...)
	for i := range merged.Indexes {
		var keys [][]byte
		if ixKeys != nil {
			keys = ixKeys[i]
		}
		if merged.Indexes[i].Rows, err = mergeRows(ctx, cs, base.Indexes[i].Rows, ours.Indexes[i].Rows, theirs.Indexes[i].Rows, keys, nil, nil); err != nil {
			return prolly.Resolution{}, fmt.Errorf("index %q: %w", merged.Indexes[i].Name, err)
		}
	}
	if err := checkUniqueAfterMerge(ctx, cs, &merged, base.Rows, ours.Rows, enc); err != nil {
		return prolly.Resolution{}, fmt.Errorf("table %q.%q: %w", ours.Schema, ours.Name, err)
	}
	merged.NextRowID = max(ours.NextRowID, theirs.NextRowID)
	b, err := encodeTableLike(c.Ours, &merged)
	return prolly.Resolution{Value: b}, err
}

// applyRebased makes sure every rebased row (see RebaseSource) holds the
// transaction's version in merged, with its index entries and without
// those of the version it replaced. The three-way
// merge cannot see a rebased change whose result equals the row's value in
// the transaction's snapshot (an update by +26 of a row another
// transaction had changed by -26): the diff from the snapshot shows
// nothing, so the other side's version stayed, and an acknowledged update
// was lost. Theirs must still hold the version the change was based on,
// which the row lock guarantees; otherwise it is a conflict.
func applyRebased(ctx context.Context, ours, theirs, merged RootValue, rs RebaseSource, enc IndexEncoder) (RootValue, error) {
	cs := merged.Store()
	for _, name := range rs.RebasedTables() {
		rebased := rs.Rebased(name[0], name[1])
		if len(rebased) == 0 {
			continue
		}
		mt, ok, err := merged.Table(ctx, name[0], name[1])
		if err != nil || !ok {
			return RootValue{}, err
		}
		ot, ok, err := ours.Table(ctx, name[0], name[1])
		if err != nil || !ok {
			return RootValue{}, err
		}
		tt, ok, err := theirs.Table(ctx, name[0], name[1])
		if err != nil || !ok {
			return RootValue{}, err
		}
		om, err := prolly.Load(ctx, cs, ot.Rows)
		if err != nil {
			return RootValue{}, err
		}
		tm, err := prolly.Load(ctx, cs, tt.Rows)
		if err != nil {
			return RootValue{}, err
		}
		mm, err := prolly.Load(ctx, cs, mt.Rows)
		if err != nil {
			return RootValue{}, err
		}
		var rowEdits []prolly.Edit
		ixEdits := make([][]prolly.Edit, len(mt.Indexes))
		for k, was := range rebased {
			key := []byte(k)
			tv, tFound, err := tm.Get(ctx, key)
			if err != nil {
				return RootValue{}, err
			}
			ov, oFound, err := om.Get(ctx, key)
			if err != nil {
				return RootValue{}, err
			}
			mv, mFound, err := mm.Get(ctx, key)
			if err != nil {
				return RootValue{}, err
			}
			if mFound != oFound || oFound && !bytes.Equal(mv, ov) {
				// merged holds theirs: it must be the version ours was
				// based on, which ours replaces.
				if tFound != (was != nil) || !bytes.Equal(tv, was) {
					return RootValue{}, fmt.Errorf("%w: %w (key %x)", ErrConflict, errRowConflict, key)
				}
				if oFound {
					rowEdits = append(rowEdits, prolly.Edit{Key: key, Value: bytes.Clone(ov)})
				} else {
					rowEdits = append(rowEdits, prolly.Edit{Key: key, Delete: true})
				}
			}
			// Either way theirs's entries of was are there, which ours's
			// own maps never had: they go, and ours's are made sure of.
			var old []IndexEntry
			if was != nil {
				if old, err = enc.IndexEntries(ctx, mt, key, was); err != nil {
					return RootValue{}, err
				}
			}
			var now []IndexEntry
			if oFound {
				if now, err = enc.IndexEntries(ctx, mt, key, ov); err != nil {
					return RootValue{}, err
				}
			}
			for i := range mt.Indexes {
				var o, n []byte
				if i < len(old) {
					o = old[i].Key
				}
				if i < len(now) {
					n = now[i].Key
				}
				if bytes.Equal(o, n) {
					continue
				}
				if o != nil {
					ixEdits[i] = append(ixEdits[i], prolly.Edit{Key: o, Delete: true})
				}
				if n != nil {
					ixEdits[i] = append(ixEdits[i], prolly.Edit{Key: n, Value: []byte{}})
				}
			}
		}
		if len(rowEdits) == 0 && !slices.ContainsFunc(ixEdits, func(e []prolly.Edit) bool { return len(e) > 0 }) {
			continue
		}
		def := *mt
		if len(rowEdits) > 0 {
			slices.SortFunc(rowEdits, func(a, b prolly.Edit) int { return bytes.Compare(a.Key, b.Key) })
			if mm, err = mm.Apply(ctx, rowEdits); err != nil {
				return RootValue{}, err
			}
			def.Rows = mm.Root()
		}
		def.Indexes = slices.Clone(mt.Indexes)
		for i, edits := range ixEdits {
			if len(edits) == 0 {
				continue
			}
			slices.SortFunc(edits, func(a, b prolly.Edit) int { return bytes.Compare(a.Key, b.Key) })
			m, err := prolly.Load(ctx, cs, def.Indexes[i].Rows)
			if err != nil {
				return RootValue{}, err
			}
			if m, err = m.Apply(ctx, edits); err != nil {
				return RootValue{}, err
			}
			def.Indexes[i].Rows = m.Root()
		}
		if merged, _, err = merged.PutTableRecord(ctx, &def); err != nil {
			return RootValue{}, err
		}
	}
	return merged, nil
}

// DuplicateKeyError is a commit-time merge's finding that both
// transactions inserted a row under the same primary or unique key: the
// committing transaction fails as PostgreSQL's second inserter does
// (23505), whether or not the two rows are equal. (Equal rows merged
// silently into one before, acknowledging both inserts.)
type DuplicateKeyError struct {
	Schema, Table string
	Constraint    string // the primary key's or unique index's name
	// Def, Row and Cols, when Def is set, are the table, a row holding
	// the key and the key's columns, so the error can name its values.
	Def  *sqldef.Table
	Row  []byte
	Cols []int
}

func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("duplicate key value violates unique constraint %q", e.Constraint)
}

// plainColumns returns the table columns of an index without expressions.
func plainColumns(ics []sqldef.IndexColumn) ([]int, bool) {
	cols := make([]int, len(ics))
	for i, ic := range ics {
		if ic.Column < 0 {
			return nil, false
		}
		cols[i] = ic.Column
	}
	return cols, true
}

// checkSameInserts finds the tables that both sides changed in exactly the
// same way, which the merge above takes without a collision: if the
// change inserted keys, both transactions inserted them, and the second
// to commit must fail as with different rows.
func checkSameInserts(ctx context.Context, base, ours, theirs RootValue) error {
	return prolly.DiffMaps(ctx, base.m, ours.m, func(d prolly.Diff) error {
		if d.Kind != prolly.Modified {
			return nil
		}
		if kind, _, _, err := splitObjectKey(d.Key); err != nil || kind != kindTable {
			return err
		}
		tv, found, err := theirs.m.Get(ctx, d.Key)
		if err != nil || !found || !bytes.Equal(tv, d.To) {
			return err
		}
		var b, o sqldef.Table
		if err := decodeRecord(d.From, &b); err != nil {
			return err
		}
		if err := decodeRecord(d.To, &o); err != nil {
			return err
		}
		if len(o.PrimaryKey) == 0 || b.Rows == o.Rows {
			return nil
		}
		return checkBothInserted(ctx, base.Store(), &o, b.Rows, o.Rows, o.Rows, nil)
	})
}

// checkBothInserted fails with a DuplicateKeyError when a key that base
// lacks was added on both sides. It walks ours's changes, the committing
// transaction's, and looks each added key up in theirs: its cost follows
// the transaction's size, not the table's. A key ours rebased on theirs's
// row (an ON CONFLICT DO UPDATE of a row inserted concurrently) is no
// duplicate: ours changed that row.
func checkBothInserted(ctx context.Context, cs prolly.ChunkStore, t *sqldef.Table, base, ours, theirs store.Address, rebased map[string][]byte) error {
	if base == theirs || base == ours {
		return nil
	}
	b, err := prolly.Load(ctx, cs, base)
	if err != nil {
		return err
	}
	o, err := prolly.Load(ctx, cs, ours)
	if err != nil {
		return err
	}
	th, err := prolly.Load(ctx, cs, theirs)
	if err != nil {
		return err
	}
	return prolly.DiffMaps(ctx, b, o, func(d prolly.Diff) error {
		if d.Kind != prolly.Added {
			return nil
		}
		tv, found, err := th.Get(ctx, d.Key)
		if err != nil || !found {
			return err
		}
		if was, ok := rebased[string(d.Key)]; ok && bytes.Equal(was, tv) {
			return nil
		}
		return &DuplicateKeyError{Schema: t.Schema, Table: t.Name, Constraint: t.PrimaryKeyName, Def: t, Row: bytes.Clone(d.To), Cols: t.PrimaryKey}
	})
}

// errRowConflict marks a row changed differently by both transactions.
var errRowConflict = errors.New("row changed concurrently")

// RebaseSource, when the IndexEncoder implements it, names the rows that
// the committing transaction changed on top of a committed version newer
// than its snapshot, holding their row locks (READ COMMITTED): by key, the
// version each change was based on, nil for the row's absence (a row
// deleted concurrently, which the transaction then deleted or wrote
// again itself). Where theirs still holds that version,
// the merge takes the transaction's change, and drops that version's
// index entries, which the transaction's own maps never had.
type RebaseSource interface {
	Rebased(schema, table string) map[string][]byte
	// RebasedTables names the tables with rebased rows, schema and name.
	RebasedTables() [][2]string
}

// KeySource is an IndexEncoder that knows which keys the committing
// transaction changed: the merge then looks those up instead of diffing
// the transaction's maps against its snapshot's.
type KeySource interface {
	// ChangedKeys returns, each sorted and without duplicates, keys of
	// schema.table's row map and of each of its indexes (by position)
	// that include every key whose entry the transaction changed; ok is
	// false when it does not know them.
	ChangedKeys(schema, table string) (rows [][]byte, indexes [][][]byte, ok bool)
}

// mergeRows merges a table's row map or an index map. keys, when not nil,
// are the keys ours may have changed (KeySource); rebased (see
// RebaseSource) settles the collisions of a row map's rebased rows.
func mergeRows(ctx context.Context, cs prolly.ChunkStore, base, ours, theirs store.Address, keys [][]byte, rebased map[string][]byte, dup *sqldef.Table) (store.Address, error) {
	load := func(a store.Address) (prolly.Map, error) { return prolly.Load(ctx, cs, a) }
	b, err := load(base)
	if err != nil {
		return store.Address{}, err
	}
	o, err := load(ours)
	if err != nil {
		return store.Address{}, err
	}
	t, err := load(theirs)
	if err != nil {
		return store.Address{}, err
	}
	// rebasedOnto reports whether ours's change of key was made on top of
	// theirs's version of it (RebaseSource): then it is no collision.
	rebasedOnto := func(key, tv []byte, inTheirs bool) bool {
		v, ok := rebased[string(key)]
		return ok && inTheirs == (v != nil) && bytes.Equal(tv, v)
	}
	duplicate := func(key, row []byte) error {
		return &DuplicateKeyError{Schema: dup.Schema, Table: dup.Name, Constraint: dup.PrimaryKeyName, Def: dup, Row: bytes.Clone(row), Cols: dup.PrimaryKey}
	}
	var alike func(prolly.Diff) error
	if dup != nil {
		alike = func(d prolly.Diff) error {
			if d.Kind != prolly.Added || rebasedOnto(d.Key, d.To, true) {
				return nil
			}
			return duplicate(d.Key, d.To)
		}
	}
	resolve := func(c prolly.Collision) (prolly.Resolution, error) {
		if rebasedOnto(c.Key, c.Theirs, c.InTheirs) {
			return prolly.Resolution{Value: c.Ours, Delete: !c.InOurs}, nil
		}
		if dup != nil && !c.InBase && c.InOurs && c.InTheirs {
			return prolly.Resolution{}, duplicate(c.Key, c.Ours)
		}
		return prolly.Resolution{}, fmt.Errorf("%w: %w (key %x)", ErrConflict, errRowConflict, c.Key)
	}
	var m prolly.Map
	if len(keys) > 0 || keys != nil && base == ours {
		m, _, err = prolly.MergeKeysInto(ctx, b, o, t, keys, resolve, alike)
	} else {
		// Without keys, or with none for a map that changed (which a
		// KeySource must not report; diffing then costs only time).
		m, _, err = prolly.MergeIntoWith(ctx, b, o, t, resolve, alike)
	}
	if err != nil {
		return store.Address{}, err
	}
	return m.Root(), nil
}

func mergeSequenceRecords(c prolly.Collision) (prolly.Resolution, error) {
	var ours, theirs sqldef.Sequence
	if err := decodeRecord(c.Ours, &ours); err != nil {
		return prolly.Resolution{}, err
	}
	if err := decodeRecord(c.Theirs, &theirs); err != nil {
		return prolly.Resolution{}, err
	}
	o, t := ours, theirs
	o.Last, o.Called, t.Last, t.Called = 0, false, 0, false
	if !reflect.DeepEqual(o, t) {
		return prolly.Resolution{}, fmt.Errorf("%w: sequence %q.%q redefined concurrently", ErrConflict, ours.Schema, ours.Name)
	}
	further := ours
	if !ours.Called || theirs.Called && (theirs.Last-ours.Last)*ours.Increment > 0 {
		further = theirs
	}
	b, err := encodeRecord(&further)
	return prolly.Resolution{Value: b}, err
}

// checkUniqueAfterMerge fails with a DuplicateKeyError if a row that side
// (one of the merged sides) added or changed shares the key of a unique
// index of merged with another row: each side was unique on its own, so
// any duplicate pair has a row from either side, and checking the smaller
// one (the committing transaction's) is enough. The work is the size of
// that side's change.
func checkUniqueAfterMerge(ctx context.Context, cs prolly.ChunkStore, merged *sqldef.Table, base, side store.Address, enc IndexEncoder) error {
	var unique []int
	for i, ix := range merged.Indexes {
		if ix.Unique {
			unique = append(unique, i)
		}
	}
	if len(unique) == 0 || enc == nil {
		return nil
	}
	maps := make([]prolly.Map, len(merged.Indexes))
	for _, i := range unique {
		m, err := prolly.Load(ctx, cs, merged.Indexes[i].Rows)
		if err != nil {
			return err
		}
		maps[i] = m
	}
	b, err := prolly.Load(ctx, cs, base)
	if err != nil {
		return err
	}
	t, err := prolly.Load(ctx, cs, side)
	if err != nil {
		return err
	}
	return prolly.DiffMaps(ctx, b, t, func(d prolly.Diff) error {
		if d.Kind == prolly.Removed {
			return nil
		}
		entries, err := enc.IndexEntries(ctx, merged, d.Key, d.To)
		if err != nil {
			return err
		}
		for _, i := range unique {
			e := entries[i]
			if e.Key == nil || e.Unique == 0 {
				continue
			}
			prefix := e.Key[:e.Unique]
			holders := 0
			it := maps[i].NewIter(ctx, prolly.IterOptions{LowerBound: prefix})
			for ok := it.First(); ok && bytes.HasPrefix(it.Key(), prefix); ok = it.Next() {
				holders++
			}
			if err := it.Close(); err != nil {
				return err
			}
			if holders > 1 {
				dup := &DuplicateKeyError{Schema: merged.Schema, Table: merged.Name, Constraint: merged.Indexes[i].Name}
				if cols, ok := plainColumns(merged.Indexes[i].Columns); ok {
					dup.Def, dup.Row, dup.Cols = merged, bytes.Clone(d.To), cols
				}
				return dup
			}
		}
		return nil
	})
}
