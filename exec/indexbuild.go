package exec

import (
	"context"
	"slices"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/prolly/sortkey"
	"github.com/prollypg/prollypg/prolly/tuple"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Bulk builds of a table's maps, for DDL: CREATE INDEX, ALTER TABLE
// commands that change keys or stored values, TRUNCATE. Each reads the
// rows once, sorts the new entries and writes the map bottom-up with a
// prolly.Builder, which writes every node once (an Apply per entry would
// rewrite the path to each). The sort holds the statement's write buffer
// (maintenance_work_mem) of entries in memory and spills sorted runs to
// temporary files past it (entrySorter, extsort.go).

// entry is one key/value pair of a map being built; n is the length of the
// key's prefix that must be unique (0: no uniqueness check).
type entry struct {
	key, val []byte
	n        int
}

// EmptyMap returns the root of an empty map in the transaction's store.
func (tx *Txn) EmptyMap(ctx context.Context) (store.Address, error) {
	m, err := prolly.NewMap(ctx, tx.Catalog().Store())
	if err != nil {
		return store.Address{}, err
	}
	return m.Root(), nil
}

// MapSize returns the bytes the map rooted at a takes in the
// transaction's store (prolly.Map.Size), 0 for the zero address.
func (tx *Txn) MapSize(ctx context.Context, a store.Address) (uint64, error) {
	if a.IsZero() {
		return 0, nil
	}
	m, err := prolly.Load(ctx, tx.Catalog().Store(), a)
	if err != nil {
		return 0, err
	}
	return m.Size(ctx)
}

// eachRow calls fn with every row of t and its primary-map key (both valid
// during the call only).
func eachRow(ctx context.Context, tx *Txn, t *Table, fn func(key []byte, row Row) error) error {
	m, err := tx.rowsMap(ctx, t)
	if err != nil {
		return err
	}
	it := m.NewIter(ctx, prolly.IterOptions{})
	var row Row
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.Value()
		if err != nil {
			it.Close()
			return err
		}
		if row, err = t.decodeRow(v, row); err != nil {
			it.Close()
			return err
		}
		if err := fn(it.Key(), row); err != nil {
			it.Close()
			return err
		}
	}
	return it.Close()
}

// BuildIndex returns the root of index ix of table t (whose Def may not
// list ix yet) built from t's rows. A unique index fails with 23505 if two
// rows have equal keys with no NULL among them (or NULLs too, with
// NullsNotDistinct).
func (tx *Txn) BuildIndex(ctx context.Context, t *Table, ix *sqldef.Index) (store.Address, error) {
	cs := tx.Catalog().Store()
	ie, err := tx.indexEval(ctx, t, ix)
	if err != nil {
		return store.Address{}, err
	}
	env := &Env{Ctx: ctx, Txn: tx}
	s := newEntrySorter(cs, tx.sortBudget(1))
	defer s.Close()
	err = eachRow(ctx, tx, t, func(key []byte, row Row) error {
		k, in, nulls, err := t.indexKeyOf(env, nil, ix, ie, row, key)
		if err != nil || !in {
			return err
		}
		e := entry{key: k, val: []byte{}}
		if ix.Unique && (ix.NullsNotDistinct || !nulls) {
			e.n = len(k) - len(key)
		}
		return s.Add(ctx, e)
	})
	if err != nil {
		return store.Address{}, err
	}
	return s.Finish(ctx, func(dup []byte) error {
		return duplicateInIndex(t, ix, dup)
	})
}

// build sorts entries in memory and writes them as a map. Two adjacent
// entries with equal keys, or with equal unique prefixes (n > 0 in both),
// make it call dupErr with the first one's key. entrySorter writes the
// same map, in bounded memory.
func build(ctx context.Context, cs prolly.ChunkStore, entries []entry, dupErr func(key []byte) error) (store.Address, error) {
	sortEntries(entries)
	w := newMapWriter(cs, dupErr)
	for _, e := range entries {
		if err := w.add(ctx, e); err != nil {
			return store.Address{}, err
		}
	}
	return w.finish(ctx)
}

// duplicateInIndex is the error of a unique index build that met two equal
// keys; key is one of them, in index ix of t.
func duplicateInIndex(t *Table, ix *sqldef.Index, key []byte) error {
	var names, values []byte
	for i, c := range ix.Columns {
		ct, name := T{OID: c.ExprType, Typmod: c.ExprTypmod}, c.Expr
		if c.Expr == "" {
			ct, name = t.Cols[c.Column].Type, t.Cols[c.Column].Name
		}
		d, rest, err := decodeKeyColumn(key, ct, IndexOrder(c))
		if err != nil {
			if pe, ok := err.(*pgerr.Error); ok && pe.Code == pgerr.FeatureNotSupported {
				// A key that is a digest (hstore, tsvector) does not
				// give its value back.
				return pgerr.New(pgerr.UniqueViolation, "could not create unique index %q", ix.Name)
			}
			return err
		}
		key = rest
		if i > 0 {
			names, values = append(names, ", "...), append(values, ", "...)
		}
		names = append(names, name...)
		if d.IsNull() {
			values = append(values, "null"...)
		} else {
			values = AppendText(values, ct, d, nil)
		}
	}
	return pgerr.New(pgerr.UniqueViolation, "could not create unique index %q", ix.Name).
		WithDetail("Key (%s)=(%s) is duplicated.", names, values)
}

// decodeKey decodes the leading columns of a key of index ix (nil: the
// primary key) into a row indexed by column position.
func (t *Table) decodeKey(key []byte, cols []int, ix *sqldef.Index) (Row, error) {
	row := make(Row, len(t.Cols))
	for i, pos := range cols {
		o := primaryOrder
		if ix != nil {
			o = IndexOrder(ix.Columns[i])
		}
		var err error
		if row[pos], key, err = decodeKeyColumn(key, t.Cols[pos].Type, o); err != nil {
			return nil, err
		}
	}
	return row, nil
}

func colNames(t *Table, cols []int) string {
	var b []byte
	for i, c := range cols {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, t.Cols[c].Name...)
	}
	return string(b)
}

func formatValues(t *Table, cols []int, row Row) string {
	var b []byte
	for i, c := range cols {
		if i > 0 {
			b = append(b, ", "...)
		}
		if row[c].IsNull() {
			b = append(b, "null"...)
			continue
		}
		b = AppendText(b, t.Cols[c].Type, row[c], nil)
	}
	return string(b)
}

// Rewrite stores every row of old again under the layout of def (new
// columns, types or primary key): fn maps each old row to the new one (nil
// fn: the same values). The primary map and every index of def are built
// afresh; a duplicate primary key fails with 23505. It returns def with its
// map roots set, ready to be put in the root value.
func (tx *Txn) Rewrite(ctx context.Context, old *Table, def *sqldef.Table, fn func(Row) (Row, error)) (*sqldef.Table, error) {
	cs := tx.Catalog().Store()
	def.NextRowID = 0
	nt := NewTable(def)
	// The primary map's sorter and the indexes' share the write buffer.
	budget := tx.sortBudget(1 + len(def.Indexes))
	rows := newEntrySorter(cs, budget)
	defer rows.Close()
	ixRows := make([]*entrySorter, len(def.Indexes))
	for i := range ixRows {
		ixRows[i] = newEntrySorter(cs, budget)
		defer ixRows[i].Close()
	}
	var tb tuple.Builder
	evals := make([]*IndexEval, len(def.Indexes))
	for i := range def.Indexes {
		var err error
		if evals[i], err = tx.indexEval(ctx, nt, &def.Indexes[i]); err != nil {
			return nil, err
		}
	}
	env := &Env{Ctx: ctx, Txn: tx}
	err := eachRow(ctx, tx, old, func(_ []byte, row Row) error {
		if fn != nil {
			var err error
			if row, err = fn(row); err != nil {
				return err
			}
		}
		if len(row) < len(nt.Cols) {
			row = append(slices.Clone(row), make(Row, len(nt.Cols)-len(row))...)
		}
		id := int64(0)
		if !nt.HasPrimaryKey() {
			def.NextRowID++
			id = def.NextRowID
		}
		key, err := nt.rowKey(nil, row, id)
		if err != nil {
			return err
		}
		if err := rows.Add(ctx, entry{key: key, val: slices.Clone(nt.encodeRow(&tb, row)), n: len(key)}); err != nil {
			return err
		}
		for i := range def.Indexes {
			ix := &def.Indexes[i]
			k, in, nulls, err := nt.indexKeyOf(env, nil, ix, evals[i], row, key)
			if err != nil {
				return err
			}
			if !in {
				continue
			}
			e := entry{key: k, val: []byte{}}
			if ix.Unique && (ix.NullsNotDistinct || !nulls) {
				e.n = len(k) - len(key)
			}
			if err := ixRows[i].Add(ctx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if def.Rows, err = rows.Finish(ctx, func(key []byte) error {
		vals, err := nt.decodeKey(key, def.PrimaryKey, nil)
		if err != nil {
			return err
		}
		return pgerr.New(pgerr.UniqueViolation, "could not create unique index %q", def.PrimaryKeyName).
			WithDetail("Key (%s)=(%s) is duplicated.", colNames(nt, def.PrimaryKey), formatValues(nt, def.PrimaryKey, vals))
	}); err != nil {
		return nil, err
	}
	for i := range def.Indexes {
		ix := &def.Indexes[i]
		if ix.Rows, err = ixRows[i].Finish(ctx, func(key []byte) error {
			return duplicateInIndex(nt, ix, key)
		}); err != nil {
			return nil, err
		}
	}
	return def, nil
}

// EachRow calls fn with every row of t as of the transaction's root (the
// row is valid during the call only): validation of a new constraint.
func (tx *Txn) EachRow(ctx context.Context, t *Table, fn func(Row) error) error {
	return eachRow(ctx, tx, t, func(_ []byte, row Row) error { return fn(row) })
}

// primaryOrder is the order of every primary key column.
const primaryOrder = sortkey.Asc

// decodeKeyColumn decodes the first column of key, of type t in order o,
// the inverse of appendKey (up to sortkey's normalizations), and returns
// the rest of the key.
func decodeKeyColumn(key []byte, t T, o sortkey.Order) (Datum, []byte, error) {
	var (
		d    = Datum{Kind: KindOf(t.OID)}
		rest []byte
		null bool
		err  error
	)
	if d.Kind == KindEnum {
		return decodeEnumKeyColumn(key, o)
	}
	if IsArrayType(t.OID) {
		return decodeArrayKeyColumn(key, ElemType(t), o)
	}
	if d.Kind == KindRecord {
		return decodeRecordKeyColumn(key, t, o)
	}
	switch t.OID {
	case OIDBool:
		var v bool
		rest, v, null, err = sortkey.DecodeBool(key, o)
		d = DBool(v)
	case OIDInt2:
		var v int16
		rest, v, null, err = sortkey.DecodeInt16(key, o)
		d.I = int64(v)
	case OIDInt4, OIDOid:
		var v int32
		rest, v, null, err = sortkey.DecodeInt32(key, o)
		d.I = int64(v)
	case OIDInt8:
		rest, d.I, null, err = sortkey.DecodeInt64(key, o)
	case OIDFloat4:
		var v float32
		rest, v, null, err = sortkey.DecodeFloat32(key, o)
		d.F = float64(v)
	case OIDFloat8:
		rest, d.F, null, err = sortkey.DecodeFloat64(key, o)
	case OIDNumeric:
		n := new(apd.Decimal)
		rest, null, err = sortkey.DecodeNumeric(key, o, n)
		d.X = n
	case OIDText, OIDVarchar, OIDBpchar, OIDName, OIDChar, OIDCIText:
		// A citext key holds the folded form: its value in lower case.
		var v []byte
		rest, v, null, err = sortkey.DecodeText(key, o, nil)
		d.S = string(v)
	case OIDBytea, OIDInet, OIDCidr, OIDBit, OIDVarbit, OIDPoint, OIDLSeg, OIDPath, OIDBox, OIDPolygon, OIDLine, OIDCircle:
		var v []byte
		rest, v, null, err = sortkey.DecodeBytea(key, o, nil)
		d.S = string(v)
	case OIDDate:
		var v int32
		rest, v, null, err = sortkey.DecodeDate(key, o)
		d.I = int64(v)
	case OIDTime:
		rest, d.I, null, err = sortkey.DecodeTime(key, o)
	case OIDTimeTZ:
		var v []byte
		if rest, v, null, err = sortkey.DecodeBytea(key, o, nil); err == nil && !null {
			var t types.TimeTZ
			t, err = types.TimeTZFromKey(v)
			d = DTimeTZ(t)
		}
	case OIDTimestamp:
		rest, d.I, null, err = sortkey.DecodeTimestamp(key, o)
	case OIDTimestampTZ:
		rest, d.I, null, err = sortkey.DecodeTimestampTZ(key, o)
	case OIDInterval:
		var iv sortkey.Interval
		rest, iv, null, err = sortkey.DecodeInterval(key, o)
		d.X = Interval{Months: iv.Months, Days: iv.Days, Micros: iv.Micros}
	case OIDUUID:
		var u [16]byte
		rest, u, null, err = sortkey.DecodeUUID(key, o)
		d.S = string(u[:])
	default:
		return Null, nil, pgerr.New(pgerr.FeatureNotSupported, "key of type %s", TypeName(t.OID))
	}
	if err != nil {
		return Null, nil, errCorruptRow(err)
	}
	if null {
		return Null, rest, nil
	}
	return d, rest, nil
}
