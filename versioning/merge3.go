package versioning

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/prolly/sortkey"
	"github.com/prollypg/prollypg/prolly/tuple"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// The merge of branches (dolt_merge, dolt_cherry_pick, dolt_revert): a
// three-way merge of root values that, unlike MergeRoots, does not fail on
// a collision but records it in the merged root (TableConflicts) for the
// user to resolve. Rows both sides changed are merged cell by cell; the
// secondary index entries of the rows so merged are recomputed, through
// an IndexEncoder, since index keys are typed encodings only the SQL layer
// can compute. The work grows with the two sides' changes: prolly.Merge
// and the Differ skip shared subtrees, and whole indexes are rebuilt only
// when their definition changed.

// IndexEncoder computes the secondary index entries of a table's rows.
// The SQL layer implements it.
type IndexEncoder interface {
	// IndexEntries returns the entries of the row stored under key (its
	// tuple, in t's layout) in each index of t, by index.
	IndexEntries(ctx context.Context, t *sqldef.Table, key, row []byte) ([]IndexEntry, error)
}

// IndexEntry is a row's entry in one index.
type IndexEntry struct {
	Key []byte // nil when a partial index leaves the row out
	// Unique is the length of Key's prefix (the index columns) that no
	// other entry may share; 0 when the entry need not be unique (not a
	// unique index, or a NULL key column).
	Unique int
}

// ReferenceChecker, when the IndexEncoder implements it, lets Merge find
// the rows whose foreign keys the merged root breaks: a child row added
// on one side whose parent the other side deleted.
type ReferenceChecker interface {
	// MissingReferences returns the names of t's foreign keys through
	// which row, in root, references no row.
	MissingReferences(ctx context.Context, root RootValue, t *sqldef.Table, row []byte) ([]string, error)
}

// TableDecoder, when the IndexEncoder implements it, decodes the table
// records a merge reads, typically from a cache of decoded records: a
// commit-time merge reads the same few records again and again. The
// merge does not modify the tables it returns.
type TableDecoder interface {
	DecodeTable(record []byte) (*sqldef.Table, error)
}

// decodeTableWith decodes record with enc's TableDecoder, if it has one.
func decodeTableWith(enc any, record []byte) (*sqldef.Table, error) {
	if d, ok := enc.(TableDecoder); ok {
		return d.DecodeTable(record)
	}
	return DecodeTable(record)
}

// Generator, when the IndexEncoder implements it, computes the stored
// generated columns (Column.Generated) of a row the merge combined cell
// by cell: their values derive from the row's other cells, which may
// come from different sides, so they are computed again rather than
// merged (and never conflict).
type Generator interface {
	// Generate returns row, a tuple in t's layout, with its generated
	// columns computed.
	Generate(ctx context.Context, t *sqldef.Table, row []byte) ([]byte, error)
}

// ErrUnmergeable is returned for objects that changed on both sides of a
// merge in ways that are not recorded as conflicts: a schema's owner or
// comment (the SQL layer reports it as SQLSTATE 55000).
var ErrUnmergeable = errors.New("versioning: cannot merge")

// MergeOptions configure Merge.
type MergeOptions struct {
	Indexes IndexEncoder
	// FromRoot names what is merged in, for the conflict records.
	FromRoot string
}

// MergeResult is a merged root value and what in it awaits resolution.
type MergeResult struct {
	Root            RootValue
	Conflicts       int // rows in conflict
	SchemaConflicts int // tables whose definitions did not merge, objects in conflict
	Violations      int // rows breaking a constraint
	Tables          []sqldef.TableName
}

// Clean reports whether the merge left nothing to resolve.
func (r *MergeResult) Clean() bool {
	return r.Conflicts == 0 && r.SchemaConflicts == 0 && r.Violations == 0
}

// Merge three-way merges ours and theirs, which descend from base: what
// changed on one side only takes that side; tables changed on both merge
// their definitions and rows; what cannot be merged is recorded as
// conflicts in the result, keeping ours.
func Merge(ctx context.Context, base, ours, theirs RootValue, opts MergeOptions) (MergeResult, error) {
	var recorded []*TableConflicts
	cs := ours.Store()
	var unmergeable error // reported as is, without prolly's key
	m, _, err := prolly.Merge(ctx, base.m, ours.m, theirs.m, func(c prolly.Collision) (prolly.Resolution, error) {
		kind, schema, name, err := splitObjectKey(c.Key)
		if err != nil {
			return prolly.Resolution{}, err
		}
		switch kind {
		case kindTable:
			res, tc, err := mergeTable(ctx, cs, c, opts)
			if tc != nil {
				recorded = append(recorded, tc)
			}
			return res, err
		case kindSequence:
			if !c.InOurs || !c.InTheirs {
				if ownedSequence(c) {
					return keepOurs(c), nil // its table's conflict says why
				}
			}
			fallthrough
		case kindView, kindType, kindFunction:
			res, tc, err := mergeObject(kind, schema, name, c, opts)
			if tc != nil {
				recorded = append(recorded, tc)
			}
			return res, err
		case kindConflicts:
			return prolly.Resolution{}, ErrMergeInProgress
		}
		unmergeable = fmt.Errorf("%w: %s %q.%q changed differently on both sides", ErrUnmergeable, objectKindName(kind), schema, name)
		return prolly.Resolution{}, unmergeable
	})
	if unmergeable != nil && errors.Is(err, unmergeable) {
		return MergeResult{}, unmergeable
	}
	if err != nil {
		return MergeResult{}, err
	}
	res := MergeResult{Root: RootValue{m}}
	if rc, ok := opts.Indexes.(ReferenceChecker); ok {
		if recorded, err = checkReferences(ctx, base, res.Root, rc, recorded, opts); err != nil {
			return MergeResult{}, err
		}
	}
	for _, tc := range recorded {
		if tc.SchemaConflict != "" || tc.Kind != 0 {
			res.SchemaConflicts++
		}
		rows, err := tc.rowConflicts(ctx, cs)
		if err != nil {
			return MergeResult{}, err
		}
		viol, err := tc.violationMap(ctx, cs)
		if err != nil {
			return MergeResult{}, err
		}
		res.Conflicts += int(rows.Count())
		res.Violations += int(viol.Count())
		res.Tables = append(res.Tables, sqldef.TableName{Schema: tc.Schema, Name: tc.Name})
		if res.Root, err = res.Root.PutConflicts(ctx, tc); err != nil {
			return MergeResult{}, err
		}
	}
	return res, nil
}

func keepOurs(c prolly.Collision) prolly.Resolution {
	return prolly.Resolution{Value: c.Ours, Delete: !c.InOurs}
}

// ownedSequence reports whether a sequence that collided is owned by a
// column on a side that has it.
func ownedSequence(c prolly.Collision) bool {
	return ObjectChange{Kind: kindSequence, From: cloneIf(c.Ours, c.InOurs), To: cloneIf(c.Theirs, c.InTheirs)}.OwnedSequence()
}

// mergeTable merges a table both sides changed. It returns the merged
// record and, when something is left to resolve, the table's conflicts.
func mergeTable(ctx context.Context, cs prolly.ChunkStore, c prolly.Collision, opts MergeOptions) (prolly.Resolution, *TableConflicts, error) {
	var sides [3]*sqldef.Table
	for i, b := range [][]byte{c.Base, c.Ours, c.Theirs} {
		if b == nil {
			continue
		}
		t, err := DecodeTable(b)
		if err != nil {
			return prolly.Resolution{}, nil, err
		}
		sides[i] = t
	}
	base, ours, theirs := sides[0], sides[1], sides[2]
	named := ours
	if named == nil {
		named = theirs
	}
	tc := &TableConflicts{Schema: named.Schema, Name: named.Name, FromRoot: opts.FromRoot, Base: base, Ours: ours, Theirs: theirs}
	if ours == nil || theirs == nil {
		tc.SchemaConflict = "table dropped on one side and changed on the other"
		return keepOurs(c), tc, nil
	}
	md := mergeDefinitions(base, ours, theirs)
	if md.conflict != "" {
		tc.SchemaConflict = md.conflict
		return keepOurs(c), tc, nil
	}
	tm := &tableMerge{ctx: ctx, cs: cs, enc: opts.Indexes, base: base, ours: ours, theirs: theirs, def: md.def, theirsPos: md.theirsPos}
	if err := tm.run(); err != nil {
		return prolly.Resolution{}, nil, fmt.Errorf("merging table %q.%q: %w", ours.Schema, ours.Name, err)
	}
	rec, err := encodeRecord(tm.def)
	if err != nil {
		return prolly.Resolution{}, nil, err
	}
	if len(tm.conflicts) == 0 && len(tm.violations) == 0 {
		return prolly.Resolution{Value: rec}, nil, nil
	}
	if tc.Rows, err = buildMap(ctx, cs, tm.conflicts); err != nil {
		return prolly.Resolution{}, nil, err
	}
	if tc.Violations, err = buildMap(ctx, cs, tm.violationEdits()); err != nil {
		return prolly.Resolution{}, nil, err
	}
	return prolly.Resolution{Value: rec}, tc, nil
}

// tableMerge merges the rows and indexes of a table whose definitions
// merged into def.
type tableMerge struct {
	ctx                context.Context
	cs                 prolly.ChunkStore
	enc                IndexEncoder
	base, ours, theirs *sqldef.Table // base nil: created on both sides
	def                *sqldef.Table
	theirsPos          []int

	baseRows, oursRows, theirsRows prolly.Map
	conflicts                      []prolly.Edit     // row key → encodeConflictRow, in key order
	fixes                          []rowFix          // rows whose index entries must be recomputed
	extra                          []prolly.Edit     // rows added besides prolly.Merge's result
	violations                     map[string][]byte // violation key → encoded violation
	tb                             tuple.Builder
}

// rowFix is a row whose index entries prolly.Merge of the index maps
// does not get right: the merge gave it final (nil: absent) and the
// entries of olds must go.
type rowFix struct {
	key   []byte
	olds  [][]byte
	final []byte
}

func (tm *tableMerge) run() error {
	if tm.enc == nil && len(tm.def.Indexes) > 0 {
		return errors.New("versioning: merging indexed rows needs an IndexEncoder")
	}
	var err error
	if tm.baseRows, err = tm.load(tm.base); err != nil {
		return err
	}
	if tm.oursRows, err = tm.load(tm.ours); err != nil {
		return err
	}
	if tm.theirsRows, err = tm.load(tm.theirs); err != nil {
		return err
	}
	if tm.theirsPos != nil {
		if tm.theirsRows, err = tm.remapRows(); err != nil {
			return err
		}
	}
	rows, _, err := prolly.Merge(tm.ctx, tm.baseRows, tm.oursRows, tm.theirsRows, tm.resolveRow)
	if err != nil {
		return err
	}
	if rows, err = rows.Apply(tm.ctx, tm.extra); err != nil {
		return err
	}
	if rows, err = tm.generateStale(rows); err != nil {
		return err
	}
	tm.def.Rows = rows.Root()
	return tm.mergeIndexes(rows)
}

// load returns the rows of a side, empty for an absent base.
func (tm *tableMerge) load(t *sqldef.Table) (prolly.Map, error) {
	if t == nil {
		return prolly.NewMap(tm.ctx, tm.cs)
	}
	return prolly.Load(tm.ctx, tm.cs, t.Rows)
}

// remapRows returns base with theirs' changes applied, their rows moved
// to the merged layout (theirs' added columns after ours').
func (tm *tableMerge) remapRows() (prolly.Map, error) {
	var edits []prolly.Edit
	err := prolly.DiffMaps(tm.ctx, tm.baseRows, tm.theirsRows, func(d prolly.Diff) error {
		e := prolly.Edit{Key: bytes.Clone(d.Key), Delete: d.Kind == prolly.Removed}
		if !e.Delete {
			e.Value = tm.remapRow(d.To)
		}
		edits = append(edits, e)
		return nil
	})
	if err != nil {
		return prolly.Map{}, err
	}
	return tm.baseRows.Apply(tm.ctx, edits)
}

// remapRow moves a row of theirs to the merged layout; columns theirs
// lacks read their Missing value, as they would in ours.
func (tm *tableMerge) remapRow(row []byte) []byte {
	from := make([]int, len(tm.def.Columns))
	for i := range from {
		from[i] = -1
	}
	for q, p := range tm.theirsPos {
		from[p] = q
	}
	tm.tb.Reset()
	for p, q := range from {
		var f []byte
		var null bool
		if q >= 0 {
			f, null = CellOf(tm.theirs, row, q)
		} else {
			f, null = CellOf(tm.def, nil, p)
		}
		appendCell(&tm.tb, f, null)
	}
	return bytes.Clone(tm.tb.Build())
}

func appendCell(b *tuple.Builder, f []byte, null bool) {
	if null {
		b.AppendNull()
	} else {
		b.Append(f)
	}
}

// resolveRow decides a row both sides changed: merged cell by cell when
// no cell changed differently, else recorded as a conflict keeping ours.
func (tm *tableMerge) resolveRow(c prolly.Collision) (prolly.Resolution, error) {
	key := bytes.Clone(c.Key)
	base, ours, theirs := cloneIf(c.Base, c.InBase), cloneIf(c.Ours, c.InOurs), cloneIf(c.Theirs, c.InTheirs)
	olds := [][]byte{base, ours, theirs}
	if len(tm.def.PrimaryKey) == 0 && !c.InBase && c.InOurs && c.InTheirs {
		// Both sides inserted into a table without a primary key and drew
		// the same row id: these are two rows, and theirs takes a new id.
		tm.def.NextRowID++
		id := sortkey.AppendInt64(nil, tm.def.NextRowID, sortkey.Asc)
		tm.extra = append(tm.extra, prolly.Edit{Key: id, Value: theirs})
		tm.fixes = append(tm.fixes, rowFix{key: key, olds: olds, final: ours}, rowFix{key: id, final: theirs})
		return prolly.Resolution{Value: ours}, nil
	}
	if c.InOurs && c.InTheirs {
		merged, ok, err := tm.mergeCells(base, ours, theirs)
		if err != nil {
			return prolly.Resolution{}, err
		}
		if ok {
			tm.fixes = append(tm.fixes, rowFix{key: key, olds: olds, final: merged})
			return prolly.Resolution{Value: merged}, nil
		}
	}
	tm.conflicts = append(tm.conflicts, prolly.Edit{Key: key, Value: encodeConflictRow(ConflictRow{Base: base, Ours: ours, Theirs: theirs})})
	tm.fixes = append(tm.fixes, rowFix{key: key, olds: olds, final: ours})
	return keepOurs(c), nil
}

func cloneIf(b []byte, present bool) []byte {
	if !present {
		return nil
	}
	if b == nil {
		return []byte{}
	}
	return bytes.Clone(b)
}

// mergeCells merges a row changed on both sides column by column: a cell
// changed on one side takes that side, the same change on both is taken
// once. ok is false when a cell changed differently on both sides. base
// is nil for a row inserted on both sides: then every cell must agree.
// Generated columns are computed from the merged cells, where the
// IndexEncoder can (Generator).
func (tm *tableMerge) mergeCells(base, ours, theirs []byte) ([]byte, bool, error) {
	gen, _ := tm.enc.(Generator)
	if !hasGenerated(tm.def) {
		gen = nil
	}
	tm.tb.Reset()
	for i, col := range tm.def.Columns {
		if col.Dropped || col.Generated != 0 && gen != nil {
			tm.tb.AppendNull()
			continue
		}
		o, oNull := CellOf(tm.def, ours, i)
		t, tNull := CellOf(tm.def, theirs, i)
		same := func(a []byte, aNull bool, b []byte, bNull bool) bool {
			return aNull == bNull && bytes.Equal(a, b)
		}
		switch {
		case same(o, oNull, t, tNull):
			appendCell(&tm.tb, o, oNull)
			continue
		case base == nil:
			return nil, false, nil
		}
		b, bNull := CellOf(tm.def, base, i)
		switch {
		case same(o, oNull, b, bNull):
			appendCell(&tm.tb, t, tNull)
		case same(t, tNull, b, bNull):
			appendCell(&tm.tb, o, oNull)
		default:
			return nil, false, nil
		}
	}
	out := tm.tb.Build()
	if out == nil {
		out = []byte{}
	}
	out = bytes.Clone(out)
	if gen != nil {
		var err error
		if out, err = gen.Generate(tm.ctx, tm.def, out); err != nil {
			return nil, false, err
		}
	}
	return out, true, nil
}

// generateStale computes the generated columns of the rows that a side
// added or changed while its definition of them was not the merged one:
// the other side added a generated column and computed it for its own
// rows only, and prolly.Merge took this side's rows as they were. (Rows
// changed on both sides were computed by mergeCells.)
func (tm *tableMerge) generateStale(rows prolly.Map) (prolly.Map, error) {
	gen, ok := tm.enc.(Generator)
	if !ok || !hasGenerated(tm.def) {
		return rows, nil
	}
	done := map[string]bool{}
	for _, f := range tm.fixes {
		done[string(f.key)] = true
	}
	var edits []prolly.Edit
	for _, side := range []struct {
		def  *sqldef.Table
		rows prolly.Map
	}{{tm.ours, tm.oursRows}, {tm.theirs, tm.theirsRows}} {
		if !staleGenerated(tm.def, side.def) {
			continue
		}
		err := prolly.DiffMaps(tm.ctx, tm.baseRows, side.rows, func(d prolly.Diff) error {
			if d.Kind == prolly.Removed || done[string(d.Key)] {
				return nil
			}
			cur, found, err := rows.Get(tm.ctx, d.Key)
			if err != nil || !found {
				return err
			}
			cur = bytes.Clone(cur)
			out, err := gen.Generate(tm.ctx, tm.def, cur)
			if err != nil || bytes.Equal(out, cur) {
				return err
			}
			key := bytes.Clone(d.Key)
			done[string(key)] = true
			edits = append(edits, prolly.Edit{Key: key, Value: out})
			tm.fixes = append(tm.fixes, rowFix{key: key, olds: [][]byte{cur}, final: out})
			return nil
		})
		if err != nil {
			return prolly.Map{}, err
		}
	}
	if len(edits) == 0 {
		return rows, nil
	}
	slices.SortFunc(edits, func(a, b prolly.Edit) int { return bytes.Compare(a.Key, b.Key) })
	return rows.Apply(tm.ctx, edits)
}

// staleGenerated reports whether side, a side's definition of the table
// merged into def, lacks one of def's generated columns (by name, with
// its expression).
func staleGenerated(def, side *sqldef.Table) bool {
	if side == nil {
		return false
	}
	for _, c := range def.Columns {
		if c.Generated == 0 || c.Dropped {
			continue
		}
		i := slices.IndexFunc(side.Columns, func(s sqldef.Column) bool { return !s.Dropped && s.Name == c.Name })
		if i < 0 || side.Columns[i].Generated != c.Generated || side.Columns[i].Default != c.Default {
			return true
		}
	}
	return false
}

// hasGenerated reports whether t has a stored generated column.
func hasGenerated(t *sqldef.Table) bool {
	return slices.ContainsFunc(t.Columns, func(c sqldef.Column) bool { return c.Generated != 0 && !c.Dropped })
}

// mergeIndexes sets the roots of the merged table's indexes. An index
// whose definition is the same on all three sides is merged like the
// rows, then the entries of the rows resolved above are recomputed and
// its unique constraint checked for the rows theirs brought; one whose
// definition changed is rebuilt from the merged rows, unless a side's
// map is valid as it is (the merged rows are that side's).
func (tm *tableMerge) mergeIndexes(rows prolly.Map) error {
	theirsDef := tm.theirs
	if tm.theirsPos != nil {
		theirsDef = remapTable(tm.theirs, func(p int) int { return tm.theirsPos[p] })
	}
	merged := make([]bool, len(tm.def.Indexes))
	var mergedMaps = make([]prolly.Map, len(tm.def.Indexes))
	for i := range tm.def.Indexes {
		ix := &tm.def.Indexes[i]
		oi, inOurs := sameIndex(tm.ours, ix)
		ti, inTheirs := sameIndex(theirsDef, ix)
		bi, inBase := sameIndex(tm.base, ix)
		switch {
		case inOurs && rows.Root() == tm.oursRows.Root():
			ix.Rows = oi.Rows
		case inTheirs && rows.Root() == tm.theirsRows.Root():
			ix.Rows = ti.Rows
		case inOurs && inTheirs && inBase:
			m, err := tm.mergeIndexMaps(bi.Rows, oi.Rows, ti.Rows)
			if err != nil {
				return err
			}
			merged[i], mergedMaps[i] = true, m
		default:
			if err := tm.rebuildIndex(rows, i); err != nil {
				return err
			}
		}
	}
	if err := tm.fixEntries(merged, mergedMaps); err != nil {
		return err
	}
	return tm.checkUnique(rows, merged)
}

// sameIndex returns t's index named as ix if its definition is ix's.
func sameIndex(t *sqldef.Table, ix *sqldef.Index) (*sqldef.Index, bool) {
	if t == nil {
		return nil, false
	}
	for i := range t.Indexes {
		o := &t.Indexes[i]
		if o.Name != ix.Name {
			continue
		}
		a, b := *o, *ix
		a.Rows, b.Rows = store.Address{}, store.Address{}
		a.Comment, b.Comment, a.ConstraintComment, b.ConstraintComment = "", "", "", ""
		if reflect.DeepEqual(a, b) {
			return o, true
		}
	}
	return nil, false
}

func (tm *tableMerge) mergeIndexMaps(base, ours, theirs store.Address) (prolly.Map, error) {
	var maps [3]prolly.Map
	for i, a := range []store.Address{base, ours, theirs} {
		m, err := prolly.Load(tm.ctx, tm.cs, a)
		if err != nil {
			return prolly.Map{}, err
		}
		maps[i] = m
	}
	// Entries have no values, so sides can only add or remove them; the
	// rows that collided are put right by fixEntries.
	m, _, err := prolly.Merge(tm.ctx, maps[0], maps[1], maps[2], func(c prolly.Collision) (prolly.Resolution, error) {
		return keepOurs(c), nil
	})
	return m, err
}

// fixEntries recomputes, in the indexes merged map by map, the entries of
// the rows resolved by resolveRow.
func (tm *tableMerge) fixEntries(merged []bool, maps []prolly.Map) error {
	if !slices.Contains(merged, true) || len(tm.fixes) == 0 {
		for i, m := range maps {
			if merged[i] {
				tm.def.Indexes[i].Rows = m.Root()
			}
		}
		return nil
	}
	edits := make([]map[string]bool, len(tm.def.Indexes))
	for i := range edits {
		edits[i] = map[string]bool{}
	}
	for _, f := range tm.fixes {
		if err := tm.entryEdits(edits, merged, f.key, f.olds, f.final); err != nil {
			return err
		}
	}
	for i := range tm.def.Indexes {
		if !merged[i] {
			continue
		}
		m, err := maps[i].Apply(tm.ctx, prolly.SetEdits(edits[i]))
		if err != nil {
			return err
		}
		tm.def.Indexes[i].Rows = m.Root()
	}
	return nil
}

// entryEdits records in edits (per index: entry key → present) what
// replacing the row versions olds by final does to the indexes in which.
func (tm *tableMerge) entryEdits(edits []map[string]bool, which []bool, key []byte, olds [][]byte, final []byte) error {
	return indexEntryEdits(tm.ctx, tm.enc, tm.def, edits, which, key, olds, final)
}

func indexEntryEdits(ctx context.Context, enc IndexEncoder, def *sqldef.Table, edits []map[string]bool, which []bool, key []byte, olds [][]byte, final []byte) error {
	for _, old := range olds {
		if old == nil {
			continue
		}
		es, err := enc.IndexEntries(ctx, def, key, old)
		if err != nil {
			return err
		}
		for i, e := range es {
			if which[i] && e.Key != nil {
				if _, set := edits[i][string(e.Key)]; !set {
					edits[i][string(e.Key)] = false
				}
			}
		}
	}
	if final == nil {
		return nil
	}
	es, err := enc.IndexEntries(ctx, def, key, final)
	if err != nil {
		return err
	}
	for i, e := range es {
		if which[i] && e.Key != nil {
			edits[i][string(e.Key)] = true
		}
	}
	return nil
}

// rebuildIndex builds index i from every merged row: its definition
// changed, so no side's map fits. Rows sharing a unique key are recorded
// as violations.
func (tm *tableMerge) rebuildIndex(rows prolly.Map, i int) error {
	type ent struct {
		key    []byte
		rowKey []byte
		unique int
	}
	var ents []ent
	it := rows.NewIter(tm.ctx, prolly.IterOptions{})
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.Value()
		if err != nil {
			it.Close()
			return err
		}
		es, err := tm.enc.IndexEntries(tm.ctx, tm.def, it.Key(), v)
		if err != nil {
			it.Close()
			return err
		}
		if e := es[i]; e.Key != nil {
			ents = append(ents, ent{key: bytes.Clone(e.Key), rowKey: bytes.Clone(it.Key()), unique: e.Unique})
		}
	}
	if err := it.Close(); err != nil {
		return err
	}
	slices.SortFunc(ents, func(a, b ent) int { return bytes.Compare(a.key, b.key) })
	b := prolly.NewBuilder(tm.cs)
	for j, e := range ents {
		if j > 0 {
			p := ents[j-1]
			if e.unique > 0 && p.unique == e.unique && bytes.Equal(p.key[:p.unique], e.key[:e.unique]) {
				if err := tm.uniqueViolation(rows, i, p.rowKey); err != nil {
					return err
				}
				if err := tm.uniqueViolation(rows, i, e.rowKey); err != nil {
					return err
				}
			}
		}
		if err := b.Add(tm.ctx, e.key, []byte{}); err != nil {
			return err
		}
	}
	m, err := b.Finish(tm.ctx)
	if err != nil {
		return err
	}
	tm.def.Indexes[i].Rows = m.Root()
	return nil
}

// checkUnique looks, in the unique indexes merged map by map, for entries
// that the rows theirs brought share with other rows.
func (tm *tableMerge) checkUnique(rows prolly.Map, merged []bool) error {
	var unique []int
	for i, ix := range tm.def.Indexes {
		if merged[i] && ix.Unique {
			unique = append(unique, i)
		}
	}
	if len(unique) == 0 {
		return nil
	}
	maps := make([]prolly.Map, len(tm.def.Indexes))
	for _, i := range unique {
		m, err := prolly.Load(tm.ctx, tm.cs, tm.def.Indexes[i].Rows)
		if err != nil {
			return err
		}
		maps[i] = m
	}
	return prolly.DiffMaps(tm.ctx, tm.oursRows, rows, func(d prolly.Diff) error {
		if d.Kind == prolly.Removed {
			return nil
		}
		es, err := tm.enc.IndexEntries(tm.ctx, tm.def, d.Key, d.To)
		if err != nil {
			return err
		}
		for _, i := range unique {
			e := es[i]
			if e.Key == nil || e.Unique == 0 {
				continue
			}
			prefix := e.Key[:e.Unique]
			var holders [][]byte
			it := maps[i].NewIter(tm.ctx, prolly.IterOptions{LowerBound: prefix})
			for ok := it.First(); ok && bytes.HasPrefix(it.Key(), prefix); ok = it.Next() {
				holders = append(holders, bytes.Clone(it.Key()[e.Unique:]))
			}
			if err := it.Close(); err != nil {
				return err
			}
			if len(holders) < 2 {
				continue
			}
			for _, rk := range holders {
				if err := tm.uniqueViolation(rows, i, rk); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// uniqueViolation records that the row under rowKey shares the key of
// unique index i with another row.
func (tm *tableMerge) uniqueViolation(rows prolly.Map, i int, rowKey []byte) error {
	row, ok, err := rows.Get(tm.ctx, rowKey)
	if err != nil || !ok {
		return err
	}
	ix := &tm.def.Indexes[i]
	var cols []string
	for _, c := range ix.Columns {
		if c.Column >= 0 && c.Column < len(tm.def.Columns) {
			cols = append(cols, fmt.Sprintf("%q", tm.def.Columns[c.Column].Name))
		} else {
			cols = append(cols, fmt.Sprintf("%q", c.Expr))
		}
	}
	info := fmt.Sprintf(`{"Columns": [%s], "Name": %q}`, strings.Join(cols, ", "), ix.Name)
	if tm.violations == nil {
		tm.violations = map[string][]byte{}
	}
	tm.violations[string(violationKey(ViolationUnique, rowKey))] = encodeViolation(Violation{Row: bytes.Clone(row), Info: info})
	return nil
}

func (tm *tableMerge) violationEdits() []prolly.Edit {
	out := make([]prolly.Edit, 0, len(tm.violations))
	for k, v := range tm.violations {
		out = append(out, prolly.Edit{Key: []byte(k), Value: v})
	}
	slices.SortFunc(out, func(a, b prolly.Edit) int { return bytes.Compare(a.Key, b.Key) })
	return out
}

// buildMap writes sorted entries as a map.
func buildMap(ctx context.Context, cs prolly.ChunkStore, entries []prolly.Edit) (store.Address, error) {
	b := prolly.NewBuilder(cs)
	for _, e := range entries {
		if err := b.Add(ctx, e.Key, e.Value); err != nil {
			return store.Address{}, err
		}
	}
	m, err := b.Finish(ctx)
	if err != nil {
		return store.Address{}, err
	}
	return m.Root(), nil
}

// checkReferences records, in the conflicts of their tables, the rows
// changed by either side whose foreign keys find no parent in merged.
// Only the rows either side changed are checked, in the tables with
// foreign keys: a parent row can only go missing under a child that a
// side added or changed (the other constraint checks ran on each side).
func checkReferences(ctx context.Context, base, merged RootValue, rc ReferenceChecker, recorded []*TableConflicts, opts MergeOptions) ([]*TableConflicts, error) {
	children, err := merged.referencingTables(ctx)
	if err != nil || len(children) == 0 {
		return recorded, err
	}
	changes, err := Changes(ctx, base, merged)
	if err != nil {
		return nil, err
	}
	cs := merged.Store()
	for _, c := range changes {
		if c.Kind != kindTable || c.To == nil || !children[c.Schema+"\x00"+c.Name] {
			continue
		}
		to, err := decodeTableWith(rc, c.To)
		if err != nil {
			return nil, err
		}
		if len(to.ForeignKeys) == 0 {
			continue
		}
		var from *sqldef.Table
		if c.From != nil {
			if from, err = decodeTableWith(rc, c.From); err != nil {
				return nil, err
			}
		}
		oldRows, err := loadOrEmpty(ctx, cs, store.Address{})
		if err != nil {
			return nil, err
		}
		if from != nil {
			if oldRows, err = prolly.Load(ctx, cs, from.Rows); err != nil {
				return nil, err
			}
		}
		newRows, err := prolly.Load(ctx, cs, to.Rows)
		if err != nil {
			return nil, err
		}
		violations := map[string][]byte{}
		err = prolly.DiffMaps(ctx, oldRows, newRows, func(d prolly.Diff) error {
			if d.Kind == prolly.Removed {
				return nil
			}
			names, err := rc.MissingReferences(ctx, merged, to, d.To)
			if err != nil || len(names) == 0 {
				return err
			}
			info := fmt.Sprintf(`{"ForeignKey": %q, "Table": %q}`, strings.Join(names, ", "), to.Name)
			violations[string(violationKey(ViolationForeignKey, d.Key))] = encodeViolation(Violation{Row: bytes.Clone(d.To), Info: info})
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(violations) == 0 {
			continue
		}
		tc := findConflicts(recorded, to.Schema, to.Name)
		if tc == nil {
			tc = &TableConflicts{Schema: to.Schema, Name: to.Name, FromRoot: opts.FromRoot}
			recorded = append(recorded, tc)
		}
		vm, err := loadOrEmpty(ctx, cs, tc.Violations)
		if err != nil {
			return nil, err
		}
		edits := make([]prolly.Edit, 0, len(violations))
		for k, v := range violations {
			edits = append(edits, prolly.Edit{Key: []byte(k), Value: v})
		}
		slices.SortFunc(edits, func(a, b prolly.Edit) int { return bytes.Compare(a.Key, b.Key) })
		if vm, err = vm.Apply(ctx, edits); err != nil {
			return nil, err
		}
		tc.Violations = vm.Root()
	}
	return recorded, nil
}

func findConflicts(list []*TableConflicts, schema, name string) *TableConflicts {
	for _, tc := range list {
		if tc.Schema == schema && tc.Name == name {
			return tc
		}
	}
	return nil
}

// objectKindName names a kind of catalog record in merge errors.
func objectKindName(kind byte) string {
	switch kind {
	case kindView:
		return "view"
	case kindType:
		return "type"
	case kindSchema:
		return "schema"
	case kindFunction:
		return "function"
	case kindSequence:
		return "sequence"
	case kindDefaultACL:
		return "default privileges"
	case kindLargeObject:
		return "large object"
	case kindExtension:
		return "extension"
	case kindTextSearchDict:
		return "text search dictionary"
	case kindTextSearchConfig:
		return "text search configuration"
	}
	return "object"
}
