package exec

import (
	"bytes"
	"slices"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/prolly/sortkey"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// IndexScan reads the rows of a table whose key, in the primary map or in
// one secondary index, lies in key ranges computed at Open from the values
// of a predicate's constants and parameters: equalities on a prefix of the
// key columns, then bounds on the column after them. It returns the rows
// whose keys lie in those ranges, never missing one; the planner tests
// above it the part of the predicate the ranges do not decide exactly
// (Cond holds the part they do).
//
// Bounds are computed at Open, not at planning, because a prepared
// statement's parameters are only known then; they are encoded exactly as
// table.go encodes stored keys, so a range of values is a range of bytes.
// A secondary index scan reads the index entries in range and looks each
// row up in the primary map by the primary key that ends the entry.
//
// Rows come out in the scanned key's order: the spans of an IN list are
// sorted and disjoint.
type IndexScan struct {
	Table *Table
	// Index names the secondary index read; "" reads the primary map.
	Index string
	// Eq holds, for each leading key column, the values the column must
	// equal: one for col = v, several for col IN (v1, v2, ...).
	Eq [][]Expr
	// Lower and Upper bound the key column after the Eq prefix: col > v
	// (or >=, Incl) and col < v (or <=). Several bounds on one side keep
	// the tightest.
	Lower, Upper []Bound
	Cols         []ResultColumn
	// Alias is the name the query gives the table, for EXPLAIN (Scan's).
	Alias string
	// Cond is the part of the query's predicate (its conjuncts) that the
	// key ranges decide exactly, which the plan above does not test again:
	// a planner that replaces the scan by one with other bounds must test
	// it. Nil when the plan above tests the whole predicate.
	Cond Expr
	// Ordered returns the rows in the order of the index's keys (a
	// secondary index's come in the table's order otherwise), Reverse in
	// the opposite order: a query's ORDER BY read from the index instead
	// of sorted (the planner's orderedScan).
	Ordered, Reverse bool
}

// Bound is one side of a range on a key column.
type Bound struct {
	E    Expr
	Incl bool
}

// MaxSpans caps the spans an IN list may expand to; past it the scan falls
// back to the key range covering them all (and its bounds decide nothing
// exactly).
const MaxSpans = 4096

func (p *IndexScan) Columns() []ResultColumn { return p.Cols }

// keyCol is one key column of the scanned map: its type and order.
type keyCol struct {
	t T
	o sortkey.Order
}

func (p *IndexScan) Open(env *Env) (Rows, error) {
	t, err := env.Txn.current(env.Ctx, p.Table)
	if err != nil {
		return nil, err
	}
	rows, err := env.Txn.rowsMap(env.Ctx, t)
	if err != nil {
		return nil, err
	}
	var cols []keyCol
	var ix *sqldef.Index
	ixPos := -1
	if p.Index == "" {
		for _, pos := range t.Def.PrimaryKey {
			cols = append(cols, keyCol{t.Cols[pos].Type, sortkey.Asc})
		}
	} else {
		for i := range t.Def.Indexes {
			if t.Def.Indexes[i].Name == p.Index {
				ix, ixPos = &t.Def.Indexes[i], i
			}
		}
		if ix == nil {
			return nil, pgerr.New(pgerr.UndefinedObject, "index %q of relation %q does not exist", p.Index, t.Def.Name)
		}
		for _, c := range ix.Columns {
			typ := T{OID: c.ExprType, Typmod: c.ExprTypmod} // an expression's
			if c.Expr == "" {
				typ = t.Cols[c.Column].Type
			}
			cols = append(cols, keyCol{typ, IndexOrder(c)})
		}
	}
	if len(p.Eq) > len(cols) || (len(p.Eq) == len(cols) && len(p.Lower)+len(p.Upper) > 0) {
		return nil, pgerr.New(pgerr.InternalError, "index scan of %q has more conditions than key columns", t.Def.Name)
	}
	spans, merged, err := p.spans(env, cols)
	if err != nil {
		return nil, err
	}
	var inSpan func([]byte) bool
	if p.Index == "" {
		inSpan = func(k []byte) bool {
			for _, s := range spans {
				if bytes.Compare(k, s.lo) >= 0 && (s.hi == nil || bytes.Compare(k, s.hi) < 0) || bytes.Equal(k, s.lo) {
					return true
				}
			}
			return false
		}
	}
	if err := env.Txn.ssiReadIndex(t, inSpan); err != nil {
		return nil, err
	}
	if p.Reverse {
		slices.Reverse(spans)
	}
	r := &indexRows{env: env, t: t, rows: rows, spans: spans, skip: -1, reverse: p.Reverse, ixName: p.Index}
	if p.Index == "" {
		r.ixName = primaryKeyIndex(t)
	}
	r.heapReady = p.Ordered || p.Reverse // index order: no heap
	if ix != nil {
		if r.index, err = env.Txn.indexMap(env.Ctx, t, ixPos); err != nil {
			return nil, err
		}
		r.skip = len(ix.Columns)
	} else if len(p.Eq) == len(cols) && !merged {
		r.point = true // every span is one whole primary key
	}
	return r, nil
}

// span is a key range [lo, hi); a nil hi is unbounded.
type span struct{ lo, hi []byte }

// spans evaluates the scan's values and returns the key ranges to read,
// sorted and disjoint: one for each combination of the Eq values, or, past
// MaxSpans of them, one range from the least to the greatest (merged),
// which holds others too: the filter above the scan decides.
func (p *IndexScan) spans(env *Env, cols []keyCol) (_ []span, merged bool, _ error) {
	prefixes := [][]byte{nil}
	for i, alts := range p.Eq {
		c := cols[i]
		var next [][]byte
		for _, e := range alts {
			vals, err := altValues(env, e)
			if err != nil {
				return nil, false, err
			}
			if len(vals) > MaxSpans {
				// Too many values to look up one by one: read every key
				// under the prefixes so far.
				slices.SortFunc(prefixes, bytes.Compare)
				out := make([]span, 0, len(prefixes))
				for _, pre := range prefixes {
					out = append(out, span{lo: pre, hi: prefixEnd(pre)})
				}
				return out, true, nil
			}
			for _, d := range vals {
				d, side := keyDatum(c.t, e.Type(), d)
				if d.IsNull() || side != 0 {
					continue // col = NULL, or a value the column cannot hold: no row
				}
				for _, pre := range prefixes {
					k, err := appendKey(slices.Clip(pre), c.t, d, c.o)
					if err != nil {
						return nil, false, err
					}
					next = append(next, k)
				}
			}
		}
		if len(next) > MaxSpans {
			// Too many combinations: scan from the least to the greatest.
			slices.SortFunc(next, bytes.Compare)
			return []span{{lo: next[0], hi: prefixEnd(next[len(next)-1])}}, true, nil
		}
		prefixes = next
	}
	slices.SortFunc(prefixes, bytes.Compare)
	prefixes = slices.CompactFunc(prefixes, bytes.Equal)
	out := make([]span, 0, len(prefixes))
	for _, pre := range prefixes {
		s := span{lo: pre, hi: prefixEnd(pre)}
		if len(p.Lower)+len(p.Upper) > 0 {
			c := cols[len(p.Eq)]
			ok, err := p.narrow(env, &s, pre, c)
			if err != nil {
				return nil, false, err
			}
			if !ok {
				continue
			}
		}
		if s.hi == nil || bytes.Compare(s.lo, s.hi) < 0 {
			out = append(out, s)
		}
	}
	return out, false, nil
}

// altValues evaluates one of the values a key column must equal: an
// expression's value, or each of a subquery's (SubqueryKeys).
func altValues(env *Env, e Expr) ([]Datum, error) {
	if sk, ok := e.(*SubqueryKeys); ok {
		return sk.values(env)
	}
	d, err := e.Eval(env, nil)
	if err != nil {
		return nil, err
	}
	return []Datum{d}, nil
}

// narrow applies the bounds on the column after prefix pre to s; false
// means no value satisfies them.
func (p *IndexScan) narrow(env *Env, s *span, pre []byte, c keyCol) (bool, error) {
	// A range condition is never true of NULL: skip the NULL entries.
	if c.o.IsNullsFirst() {
		s.lo = maxKey(s.lo, append(slices.Clip(pre), 0x01))
	} else {
		s.hi = minKey(s.hi, append(slices.Clip(pre), 0xFF))
	}
	for side, bounds := range [2][]Bound{p.Lower, p.Upper} {
		upper := side == 1
		for _, b := range bounds {
			d, err := b.E.Eval(env, nil)
			if err != nil {
				return false, err
			}
			d, out := keyDatum(c.t, b.E.Type(), d)
			switch {
			case d.IsNull() && out == 0:
				return false, nil // col < NULL
			case out != 0 && (out > 0) != upper:
				// col > (above every value) or col < (below every value).
				return false, nil
			case out != 0:
				continue // the bound holds of every value of the column
			}
			k, err := appendKey(slices.Clip(pre), c.t, d, c.o)
			if err != nil {
				return false, err
			}
			// In key order a DESC column runs from high values to low, so
			// a bound on values bounds the other end of the keys.
			if upper != c.o.IsDesc() {
				if b.Incl {
					k = prefixEnd(k)
				}
				s.hi = minKey(s.hi, k)
			} else {
				if !b.Incl {
					k = prefixEnd(k)
				}
				s.lo = maxKey(s.lo, k)
			}
		}
	}
	return true, nil
}

// keyDatum converts d, of type vt, to the type ct of a key column, so that
// it encodes as the column's stored values do. A value outside ct's range
// (an int8 compared with an int4 column) is returned with side -1 when it
// lies below every value of ct and +1 above.
func keyDatum(ct, vt T, d Datum) (Datum, int) {
	if d.IsNull() || ct.OID == vt.OID || KindOf(ct.OID) != KindInt {
		return d, 0
	}
	lo, hi, _ := IntRange(ct.OID)
	switch {
	case d.I < lo:
		return d, -1
	case d.I > hi:
		return d, 1
	}
	return d, 0
}

// KeyCompatible reports whether values of type vt can bound a key column
// of type ct: comparing them compares the key encodings. The planner uses
// it to choose index scans.
func KeyCompatible(ct, vt T) bool {
	if _, err := appendKey(nil, ct, Null, sortkey.Asc); err != nil {
		return false
	}
	switch {
	case ct.OID == OIDBpchar || vt.OID == OIDBpchar:
		// Trailing blanks are insignificant to bpchar comparison but not
		// to its key bytes.
		return false
	case ct.OID == OIDTSVector, ct.OID == OIDHstore, ct.OID == OIDJSONB, KindOf(ct.OID) == KindRange, KindOf(ct.OID) == KindMultirange:
		// Its keys are digests (appendKey).
		return false
	case IsGeometric(ct.OID):
		// Its keys are its bytes, whose order and equality are none of its
		// operators' (box = box compares areas).
		return false
	case ct.OID == vt.OID:
		return true
	case KindOf(ct.OID) == KindInt && KindOf(vt.OID) == KindInt && ct.OID != OIDOid && vt.OID != OIDOid:
		return true
	case isTextKey(ct.OID) && isTextKey(vt.OID):
		return true
	}
	return false
}

// KeyColumn returns the position of the column of t that e reads,
// looking through casts that keep the order of values (int widening,
// text to text).
func KeyColumn(t *Table, e Expr) (int, bool) {
	for {
		switch x := e.(type) {
		case *ColRef:
			return x.Idx, x.Idx < len(t.Cols)
		case *Call:
			if x.Name != "cast" || len(x.Args) != 1 || !KeyCompatible(x.Args[0].Type(), x.T) ||
				numericRank(x.Args[0].Type().OID) > numericRank(x.T.OID) {
				return 0, false // not a cast, or a narrowing one (which may fail)
			}
			e = x.Args[0]
		default:
			return 0, false
		}
	}
}

func isTextKey(oid uint32) bool {
	return oid == OIDText || oid == OIDVarchar || oid == OIDName
}

// IndexOrder returns the key order of an index column.
func IndexOrder(c sqldef.IndexColumn) sortkey.Order {
	o := sortkey.Asc
	if c.Desc {
		o = sortkey.Desc
	}
	if c.NullsFirst != o.IsNullsFirst() {
		if c.NullsFirst {
			o = o.NullsFirst()
		} else {
			o = o.NullsLast()
		}
	}
	return o
}

// prefixEnd returns the least key greater than every key starting with
// pre, nil when there is none (pre is empty or all 0xFF).
func prefixEnd(pre []byte) []byte {
	for i := len(pre) - 1; i >= 0; i-- {
		if pre[i] != 0xFF {
			end := slices.Clone(pre[:i+1])
			end[i]++
			return end
		}
	}
	return nil
}

func maxKey(a, b []byte) []byte {
	if bytes.Compare(a, b) >= 0 {
		return a
	}
	return b
}

// minKey is the lesser of two upper bounds, nil being unbounded.
func minKey(a, b []byte) []byte {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case bytes.Compare(a, b) <= 0:
		return a
	}
	return b
}

// indexRows walks the spans of an IndexScan.
type indexRows struct {
	env   *Env
	t     *Table
	rows  prolly.Map
	index prolly.Map // secondary index, when skip >= 0
	skip  int        // index columns before the primary key in an index entry
	point bool       // spans are whole primary keys: Get, no iterator
	spans []span
	i     int // next span
	it    *prolly.Iter
	key   []byte // primary key of the last row
	row   Row
	// heap, for a secondary index, are the primary keys its spans hold,
	// in primary-map order (collectHeap); nil until the first Next, and
	// then read in place of the spans if they were few enough.
	heap      [][]byte
	heapReady bool
	reverse   bool   // the spans, and each span's keys, from last to first
	fetched   int64  // rows returned, for the statistics (Close)
	counted   bool   // Close counted the scan
	ixName    string // the index read, for the statistics
}

// maxHeapKeys bounds the primary keys a secondary index scan collects to
// return its rows in table order; past it, the rows come in index order.
const maxHeapKeys = 1 << 16

// A secondary index scan returns its rows in the order of the table (its
// primary map), not of the index, as PostgreSQL's bitmap heap scan returns
// them in the order of the heap: the scan collects the primary keys of the
// index entries, sorts them, then reads the rows. Queries without ORDER BY
// (and the order of ties under one) then see rows as a scan of the whole
// table would show them; for a keyless table that is the order they were
// inserted in, PostgreSQL's heap order. The rows are also read in key
// order, each lookup near the last. A range past maxHeapKeys entries is
// read in index order, in bounded memory.

// collectHeap gathers and sorts the primary keys of the secondary index's
// spans; it leaves heap nil if there are more than maxHeapKeys.
func (r *indexRows) collectHeap() error {
	r.heapReady = true
	var keys [][]byte
	for _, s := range r.spans {
		it := r.index.NewIter(r.env.Ctx, prolly.IterOptions{LowerBound: s.lo, UpperBound: s.hi})
		for ok := it.First(); ok; ok = it.Next() {
			if len(keys) == maxHeapKeys {
				return it.Close()
			}
			pk, err := r.primaryKeyOf(it.Key())
			if err != nil {
				it.Close()
				return err
			}
			keys = append(keys, bytes.Clone(pk))
		}
		if err := it.Close(); err != nil {
			return err
		}
	}
	slices.SortFunc(keys, bytes.Compare)
	r.heap = keys
	r.spans = nil
	if r.heap == nil {
		r.heap = [][]byte{}
	}
	return nil
}

// nextHeap returns the next row of heap.
func (r *indexRows) nextHeap() (Row, error) {
	if len(r.heap) == 0 {
		return nil, nil
	}
	pk := r.heap[0]
	r.heap = r.heap[1:]
	return r.rowAt(pk)
}

// primaryKeyOf returns the primary-map key an index entry ends with.
func (r *indexRows) primaryKeyOf(entry []byte) ([]byte, error) {
	pk := entry
	for range r.skip {
		var err error
		if _, pk, err = sortkey.Split(pk); err != nil {
			return nil, errCorruptRow(err)
		}
	}
	return pk, nil
}

// rowAt reads the row an index entry points at, by its primary key.
func (r *indexRows) rowAt(pk []byte) (Row, error) {
	v, ok, err := r.rows.Get(r.env.Ctx, pk)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, pgerr.New(pgerr.DataCorrupted, "index entry of relation %q points at a missing row", r.t.Def.Name)
	}
	r.key = pk
	return r.decode(v)
}

func (r *indexRows) Next() (Row, error) {
	if r.skip >= 0 {
		if !r.heapReady {
			if err := r.collectHeap(); err != nil {
				return nil, err
			}
		}
		if r.heap != nil {
			return r.nextHeap()
		}
	}
	for {
		if r.it == nil {
			if r.i >= len(r.spans) {
				return nil, nil
			}
			s := r.spans[r.i]
			r.i++
			if r.point {
				v, ok, err := r.rows.Get(r.env.Ctx, s.lo)
				if err != nil {
					return nil, err
				}
				if ok {
					r.key = s.lo
					return r.decode(v)
				}
				continue
			}
			m := r.rows
			if r.skip >= 0 {
				m = r.index
			}
			r.it = m.NewIter(r.env.Ctx, prolly.IterOptions{LowerBound: s.lo, UpperBound: s.hi})
			if r.reverse && r.it.Last() || !r.reverse && r.it.First() {
				if row, err := r.current(); row != nil || err != nil {
					return row, err
				}
				continue
			}
		} else if r.reverse && r.it.Prev() || !r.reverse && r.it.Next() {
			if row, err := r.current(); row != nil || err != nil {
				return row, err
			}
			continue
		}
		err := r.it.Close()
		r.it = nil
		if err != nil {
			return nil, err
		}
	}
}

// current returns the row at the iterator, nil if a secondary index entry
// points at no row (which would be corruption).
func (r *indexRows) current() (Row, error) {
	if r.skip < 0 {
		v, err := r.it.Value()
		if err != nil {
			return nil, err
		}
		r.key = r.it.Key()
		return r.decode(v)
	}
	pk, err := r.primaryKeyOf(r.it.Key())
	if err != nil {
		return nil, err
	}
	return r.rowAt(pk)
}

func (r *indexRows) decode(v []byte) (Row, error) {
	r.fetched++
	if r.env.Txn.serial != nil {
		r.env.Txn.ssiReadRow(r.t, r.key)
	}
	var err error
	r.row, err = r.t.decodeRow(v, r.row)
	return r.row, err
}

// Key returns the primary-map key of the last row: UPDATE and DELETE
// write through it.
func (r *indexRows) Key() []byte { return r.key }

func (r *indexRows) Close() error {
	if !r.counted {
		r.counted = true
		r.env.Txn.countScan(r.t, r.ixName, r.fetched)
	}
	if r.it == nil {
		return nil
	}
	err := r.it.Close()
	r.it = nil
	return err
}

var _ keyedRows = (*indexRows)(nil)
