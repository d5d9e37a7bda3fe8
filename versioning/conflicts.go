package versioning

import (
	"bytes"
	"context"
	"fmt"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/prolly/tuple"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// TableConflicts is what a merge left unresolved in one table: rows both
// sides changed irreconcilably, a schema the merge could not combine, and
// constraints the merged rows break. The root value keeps one per table,
// under kindConflicts and the table's name, until every item is resolved;
// while one is there the root cannot be committed.
//
// An object other than a table (a view, type, function or sequence)
// changed differently on both sides is recorded the same way: Kind is its
// kind, Name its key's name part, the Records hold its three versions and
// Fields the fields in conflict (objectconflicts.go).
type TableConflicts struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	// Kind is the kind of the object in conflict; 0 for a table.
	Kind byte `json:"kind,omitempty"`
	// FromRoot is the commit merged in (the from_root_ish of the
	// dolt_conflicts_<table> and dolt_constraint_violations_<table>
	// tables).
	FromRoot string `json:"from_root"`
	// Base, Ours and Theirs are the table's definitions on each side; nil
	// where the table is absent. Their row roots are those sides' rows.
	Base   *sqldef.Table `json:"base,omitempty"`
	Ours   *sqldef.Table `json:"ours,omitempty"`
	Theirs *sqldef.Table `json:"theirs,omitempty"`
	// SchemaConflict, when set, says why the definitions could not be
	// merged; the table is left as ours until resolved.
	SchemaConflict string `json:"schema_conflict,omitempty"`
	// BaseRecord, OursRecord and TheirsRecord are an object's records on
	// each side (not a table's); nil where it is absent.
	BaseRecord   []byte `json:"base_record,omitempty"`
	OursRecord   []byte `json:"ours_record,omitempty"`
	TheirsRecord []byte `json:"theirs_record,omitempty"`
	// Fields are the fields of an object (not a table) that both sides
	// changed differently, still to resolve; OursRecord is the object
	// as the merge made it, ours in those fields, and as their
	// resolution changes it.
	Fields []string `json:"fields,omitempty"`
	// Rows maps a row key to its three versions (encodeConflictRow), all
	// in the layout of the merged table.
	Rows store.Address `json:"rows"`
	// Violations maps a violation kind byte followed by a row key to the
	// row and what it violates (EncodeViolation).
	Violations store.Address `json:"violations"`
}

// Object names the object in conflict.
func (c *TableConflicts) Object() ObjectName {
	if c.Kind == 0 {
		return ObjectName{kindTable, c.Schema, c.Name}
	}
	return ObjectName{c.Kind, c.Schema, c.Name}
}

func conflictsKey(schema, name string) []byte { return objectKey(kindConflicts, schema, name) }

// Conflicts returns the unresolved conflicts of table schema.name.
func (r RootValue) Conflicts(ctx context.Context, schema, name string) (*TableConflicts, bool, error) {
	c := new(TableConflicts)
	ok, err := r.get(ctx, conflictsKey(schema, name), c)
	if !ok || err != nil {
		return nil, false, err
	}
	return c, true, nil
}

// AllConflicts returns the conflicts of every table that has some, ordered
// by schema and name.
func (r RootValue) AllConflicts(ctx context.Context) ([]*TableConflicts, error) {
	var out []*TableConflicts
	err := r.each(ctx, kindConflicts, func(b []byte) error {
		c := new(TableConflicts)
		out = append(out, c)
		return decodeRecord(b, c)
	})
	return out, err
}

// PutConflicts returns the root value with c stored, or with the table's
// record removed when nothing in c is left to resolve.
func (r RootValue) PutConflicts(ctx context.Context, c *TableConflicts) (RootValue, error) {
	empty, err := c.Resolved(ctx, r.Store())
	if err != nil {
		return RootValue{}, err
	}
	if empty {
		return r.drop(ctx, conflictsKey(c.Schema, c.Name))
	}
	return r.put(ctx, conflictsKey(c.Schema, c.Name), c)
}

// Resolved reports whether nothing in c awaits resolution.
func (c *TableConflicts) Resolved(ctx context.Context, cs prolly.ChunkStore) (bool, error) {
	if c.Kind != 0 {
		return len(c.ObjectFields()) == 0, nil
	}
	if c.SchemaConflict != "" {
		return false, nil
	}
	for _, a := range []store.Address{c.Rows, c.Violations} {
		if a.IsZero() {
			continue
		}
		m, err := prolly.Load(ctx, cs, a)
		if err != nil {
			return false, err
		}
		if m.Count() > 0 {
			return false, nil
		}
	}
	return true, nil
}

// rowConflicts returns the map of c's row conflicts (empty when none).
func (c *TableConflicts) rowConflicts(ctx context.Context, cs prolly.ChunkStore) (prolly.Map, error) {
	return loadOrEmpty(ctx, cs, c.Rows)
}

// violationMap returns the map of c's constraint violations.
func (c *TableConflicts) violationMap(ctx context.Context, cs prolly.ChunkStore) (prolly.Map, error) {
	return loadOrEmpty(ctx, cs, c.Violations)
}

// RowConflictCount is the number of c's row conflicts.
func (c *TableConflicts) RowConflictCount(ctx context.Context, cs prolly.ChunkStore) (uint64, error) {
	m, err := c.rowConflicts(ctx, cs)
	if err != nil {
		return 0, err
	}
	return m.Count(), nil
}

// ViolationCount is the number of c's constraint violations.
func (c *TableConflicts) ViolationCount(ctx context.Context, cs prolly.ChunkStore) (uint64, error) {
	m, err := c.violationMap(ctx, cs)
	if err != nil {
		return 0, err
	}
	return m.Count(), nil
}

// EachRowConflict calls fn for every row conflict of c in key order, with
// the row's key (a view valid during the call).
func (c *TableConflicts) EachRowConflict(ctx context.Context, cs prolly.ChunkStore, fn func(key []byte, row ConflictRow) error) error {
	m, err := c.rowConflicts(ctx, cs)
	if err != nil {
		return err
	}
	return eachRow(ctx, m, func(k, v []byte) error {
		cr, err := decodeConflictRow(v)
		if err != nil {
			return err
		}
		return fn(k, cr)
	})
}

// EachViolation calls fn for every constraint violation of c in key
// order, with its key in the violations map (a view valid during the
// call).
func (c *TableConflicts) EachViolation(ctx context.Context, cs prolly.ChunkStore, fn func(key []byte, v Violation) error) error {
	m, err := c.violationMap(ctx, cs)
	if err != nil {
		return err
	}
	return eachRow(ctx, m, func(k, v []byte) error {
		viol, err := decodeViolation(k, v)
		if err != nil {
			return err
		}
		return fn(k, viol)
	})
}

func loadOrEmpty(ctx context.Context, cs prolly.ChunkStore, a store.Address) (prolly.Map, error) {
	if a.IsZero() {
		return prolly.NewMap(ctx, cs)
	}
	return prolly.Load(ctx, cs, a)
}

// ConflictRow is one row both sides of a merge changed irreconcilably:
// its stored tuple on each side, nil where the row is absent.
type ConflictRow struct {
	Base, Ours, Theirs []byte
}

// encodeConflictRow encodes a conflict's three rows as a tuple of three
// fields, NULL for an absent row.
func encodeConflictRow(c ConflictRow) []byte {
	var b tuple.Builder
	for _, v := range [][]byte{c.Base, c.Ours, c.Theirs} {
		if v == nil {
			b.AppendNull()
		} else {
			b.Append(v)
		}
	}
	return bytes.Clone(b.Build())
}

// decodeConflictRow decodes what encodeConflictRow encoded.
func decodeConflictRow(v []byte) (ConflictRow, error) {
	if err := tuple.Validate(v); err != nil || tuple.Tuple(v).Count() != 3 {
		return ConflictRow{}, fmt.Errorf("%w: conflict row", ErrCorrupt)
	}
	t := tuple.Tuple(v)
	field := func(i int) []byte {
		f, null := t.Field(i)
		if null {
			return nil
		}
		return f
	}
	return ConflictRow{Base: field(0), Ours: field(1), Theirs: field(2)}, nil
}

// Kinds of constraint violation, the first byte of a violation's key.
const (
	ViolationUnique     = 'u'
	ViolationForeignKey = 'f'
)

// Violation is a row of the merged table that breaks a constraint.
type Violation struct {
	Kind   byte
	RowKey []byte
	Row    []byte // the row's stored tuple
	// Info describes the constraint as JSON text, as Dolt's
	// violation_info has it: {"Name": ..., "Columns": [...]}.
	Info string
}

func violationKey(kind byte, rowKey []byte) []byte {
	return append([]byte{kind}, rowKey...)
}

func encodeViolation(v Violation) []byte {
	var b tuple.Builder
	b.Append(v.Row)
	b.AppendString(v.Info)
	return bytes.Clone(b.Build())
}

// decodeViolation decodes an entry of a violations map.
func decodeViolation(key, val []byte) (Violation, error) {
	if len(key) < 1 || tuple.Validate(val) != nil || tuple.Tuple(val).Count() != 2 {
		return Violation{}, fmt.Errorf("%w: constraint violation", ErrCorrupt)
	}
	row, _ := tuple.Tuple(val).Field(0)
	info, _ := tuple.Tuple(val).Field(1)
	return Violation{Kind: key[0], RowKey: key[1:], Row: row, Info: string(info)}, nil
}
