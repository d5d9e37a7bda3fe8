package versioning

import (
	"bytes"
	"context"
	"slices"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/prolly/tuple"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Diffs of tables between root values, for the dolt_diff family of the
// SQL layer. Each walks only what changed: root values and row maps are
// compared with prolly's Differ, which skips the subtrees two versions
// share, so a diff costs the size of the change, not of the tables.

// TableDelta is one table that differs between two root values.
type TableDelta struct {
	From, To *sqldef.Table // nil where the table is absent
}

// Name is the table's name: as it is in To, or in From when dropped.
func (d TableDelta) Name() sqldef.TableName {
	if d.To != nil {
		return sqldef.TableName{Schema: d.To.Schema, Name: d.To.Name}
	}
	return sqldef.TableName{Schema: d.From.Schema, Name: d.From.Name}
}

// SchemaChange reports whether the table's definition changed: it was
// added or dropped, or its columns, keys, indexes or constraints differ.
func (d TableDelta) SchemaChange() bool {
	return d.From == nil || d.To == nil || !SameSchema(d.From, d.To)
}

// DataChange reports whether the table's rows changed; an absent table
// has none, so adding or dropping an empty table changes no data.
func (d TableDelta) DataChange(ctx context.Context, cs prolly.ChunkStore) (bool, error) {
	if d.From != nil && d.To != nil {
		return d.From.Rows != d.To.Rows, nil
	}
	n, err := RowCount(ctx, cs, d.From)
	if err != nil || n > 0 {
		return n > 0, err
	}
	n, err = RowCount(ctx, cs, d.To)
	return n > 0, err
}

// TableDeltas returns the tables that differ between from and to,
// ordered by schema and name.
func TableDeltas(ctx context.Context, from, to RootValue) ([]TableDelta, error) {
	changes, err := Changes(ctx, from, to)
	if err != nil {
		return nil, err
	}
	var out []TableDelta
	for _, c := range changes {
		if !c.IsTable() {
			continue
		}
		f, t, err := c.Tables()
		if err != nil {
			return nil, err
		}
		out = append(out, TableDelta{From: f, To: t})
	}
	return out, nil
}

// SameSchema reports whether two versions of a table have the same
// definition apart from their contents: columns, keys, indexes,
// constraints and comments, but not the roots of their maps.
func SameSchema(a, b *sqldef.Table) bool {
	ea, err1 := encodeRecord(schemaOnly(a))
	eb, err2 := encodeRecord(schemaOnly(b))
	return err1 == nil && err2 == nil && bytes.Equal(ea, eb)
}

// schemaOnly returns a copy of t without what its rows decide.
func schemaOnly(t *sqldef.Table) *sqldef.Table {
	c := *t
	c.Rows, c.NextRowID = store.Address{}, 0
	c.Indexes = slices.Clone(t.Indexes)
	for i := range c.Indexes {
		c.Indexes[i].Rows = store.Address{}
	}
	return &c
}

// RowCount returns the number of rows of t, 0 when t is nil, from the
// root of its row map alone.
func RowCount(ctx context.Context, cs prolly.ChunkStore, t *sqldef.Table) (uint64, error) {
	if t == nil {
		return 0, nil
	}
	m, err := prolly.Load(ctx, cs, t.Rows)
	if err != nil {
		return 0, err
	}
	return m.Count(), nil
}

// RowDiff is one row that differs between two versions of a table: its
// key, its stored tuple on each side (nil where absent) and its Kind,
// RowAdded, RowRemoved or RowModified.
type RowDiff = prolly.Diff

// The kinds of RowDiff.
const (
	RowAdded    = prolly.Added
	RowRemoved  = prolly.Removed
	RowModified = prolly.Modified
)

// DiffRows calls fn for every row that differs between two versions of a
// table, in key order. from or to may be nil where the table is absent:
// every row of the other is then added or removed. The RowDiff's slices
// are views valid during the call.
func DiffRows(ctx context.Context, cs prolly.ChunkStore, from, to *sqldef.Table, fn func(RowDiff) error) error {
	switch {
	case from == nil && to == nil:
		return nil
	case from == nil:
		return eachRowAs(ctx, cs, to.Rows, prolly.Added, fn)
	case to == nil:
		return eachRowAs(ctx, cs, from.Rows, prolly.Removed, fn)
	case from.Rows == to.Rows:
		return nil
	}
	fm, err := prolly.Load(ctx, cs, from.Rows)
	if err != nil {
		return err
	}
	tm, err := prolly.Load(ctx, cs, to.Rows)
	if err != nil {
		return err
	}
	return prolly.DiffMaps(ctx, fm, tm, fn)
}

// eachRowAs calls fn for every row of the map at rows as a difference of
// the given kind.
func eachRowAs(ctx context.Context, cs prolly.ChunkStore, rows store.Address, kind prolly.DiffKind, fn func(prolly.Diff) error) error {
	m, err := prolly.Load(ctx, cs, rows)
	if err != nil {
		return err
	}
	return eachRow(ctx, m, func(k, v []byte) error {
		d := prolly.Diff{Kind: kind, Key: k}
		if kind == prolly.Added {
			d.To = v
		} else {
			d.From = v
		}
		return fn(d)
	})
}

// EachStoredRow calls fn for every stored row of t, with its key, in key
// order; the slices are views valid during the call.
func EachStoredRow(ctx context.Context, cs prolly.ChunkStore, t *sqldef.Table, fn func(key, row []byte) error) error {
	m, err := prolly.Load(ctx, cs, t.Rows)
	if err != nil {
		return err
	}
	return eachRow(ctx, m, fn)
}

// StoredRow returns the stored row of t whose key is key, and whether
// there is one.
func StoredRow(ctx context.Context, cs prolly.ChunkStore, t *sqldef.Table, key []byte) ([]byte, bool, error) {
	m, err := prolly.Load(ctx, cs, t.Rows)
	if err != nil {
		return nil, false, err
	}
	return m.Get(ctx, key)
}

// eachRow calls fn for every entry of m in key order; the slices are
// views valid during the call.
func eachRow(ctx context.Context, m prolly.Map, fn func(k, v []byte) error) error {
	it := m.NewIter(ctx, prolly.IterOptions{})
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.Value()
		if err == nil {
			err = fn(it.Key(), v)
		}
		if err != nil {
			it.Close()
			return err
		}
	}
	return it.Close()
}

// CellOf returns field i of a stored row of table t, null when it is
// NULL: the stored field, or the column's Missing value for a row stored
// before the column was added.
func CellOf(t *sqldef.Table, row []byte, i int) (field []byte, null bool) {
	if i < tuple.Tuple(row).Count() {
		return tuple.Tuple(row).Field(i)
	}
	if i < len(t.Columns) && t.Columns[i].Missing != nil {
		return tuple.Tuple(t.Columns[i].Missing).Field(0)
	}
	return nil, true
}

// ParentRoot returns the root value of c's first parent, the one its
// changes are measured against; ok is false for a first commit.
func (r *Repo) ParentRoot(ctx context.Context, c *Commit) (root RootValue, ok bool, err error) {
	if len(c.Parents) == 0 {
		return RootValue{}, false, nil
	}
	root, _, err = r.CommitRoot(ctx, c.Parents[0])
	return root, err == nil, err
}

// CommitDeltas returns the tables commit c changed against its first
// parent; a first commit adds every table it has.
func (r *Repo) CommitDeltas(ctx context.Context, c *Commit) ([]TableDelta, error) {
	root, err := LoadRootValue(ctx, r.st, c.Root)
	if err != nil {
		return nil, err
	}
	parent, ok, err := r.ParentRoot(ctx, c)
	if err != nil {
		return nil, err
	}
	if ok {
		return TableDeltas(ctx, parent, root)
	}
	tables, err := root.Tables(ctx)
	out := make([]TableDelta, len(tables))
	for i, t := range tables {
		out[i] = TableDelta{To: t}
	}
	return out, err
}
