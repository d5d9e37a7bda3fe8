package exec

import (
	"github.com/zeebo/xxh3"

	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/prolly/sortkey"
	"github.com/prollypg/prollypg/prolly/tuple"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Table is a stored table as the executor sees it: its catalog record with
// the types resolved. A Table is immutable once built; a new version of
// the record gives a new Table.
type Table struct {
	Def  *sqldef.Table
	OID  uint32
	Cols []Column // by position; dropped columns included
	// Virtual, when set, computes the rows of a table that is not stored: a
	// catalog view (virtual.go). Def then holds only names and columns.
	Virtual VirtualRows
	// VirtualKind says what a virtual table is: 'c' a catalog relation,
	// 'v' a view, 'S' a sequence.
	VirtualKind byte
	// VirtualWriter, when set, makes a virtual table writable by UPDATE
	// and DELETE (dolt_conflicts_<table>): it gets each changed row.
	VirtualWriter VirtualWriter
	// Pinned marks a table of another revision (a time-travel read):
	// scans read Def as it is, not the transaction's version of the table,
	// and it cannot be written.
	Pinned bool
	// Filters, when set, is given at planning the AND-ed conditions of the
	// WHERE clause over a virtual table, with column references by
	// position: a table whose rows depend on them (dolt_commit_diff_<t>
	// needs its from_commit and to_commit) takes what it needs. The
	// conditions still filter the rows it makes.
	Filters func(conds []Expr)
}

// Column is one column of a Table.
type Column struct {
	Name    string
	Type    T
	NotNull bool
	Dropped bool
	Default string // SQL text; "" for none
	// Generated is the generation expression (SQL text over the row's
	// other columns) of a stored generated column, "" for other columns;
	// such a column has no Default: DEFAULT gives it NULL until Modify
	// computes it.
	Generated string
	Pos       int
	// Identity is 'a' (GENERATED ALWAYS AS IDENTITY), 'd' (BY DEFAULT) or
	// 0; an identity column's Default is the nextval of its sequence.
	Identity byte
	// Missing is what rows stored before the column was added read for it
	// (NULL unless it was added with a default).
	Missing Datum
	// Domain is the schema-qualified domain the column was declared
	// with, "" for none; Type is its base type.
	Domain string
	// DomainArray makes the column an array of Domain's values.
	DomainArray bool
}

// FirstUserOID is where PostgreSQL starts numbering user objects.
const FirstUserOID = 16384

// ObjectOID derives a stable OID for a named object. OIDs are not stored:
// a database's content, not its history, decides its hash, so an OID is a
// function of the object's kind and qualified name.
func ObjectOID(kind byte, schema, name string) uint32 {
	h := xxh3.HashString(string([]byte{kind}) + schema + "\x00" + name)
	return FirstUserOID + uint32(h%(1<<31-FirstUserOID))
}

// TypeOID derives the OID of the user type schema.name of category cat
// (types.UserEnum, UserComposite, UserDomain); a table's row type is the
// composite type of the table's name.
func TypeOID(cat types.Oid, schema, name string) uint32 {
	return uint32(types.UserTypeOID(cat, uint32(xxh3.HashString("y"+schema+"\x00"+name))))
}

// NewTable wraps a catalog record.
func NewTable(def *sqldef.Table) *Table {
	t := &Table{Def: def, OID: ObjectOID('r', def.Schema, def.Name), Cols: make([]Column, len(def.Columns))}
	for i, c := range def.Columns {
		t.Cols[i] = Column{Name: c.Name, Type: T{c.Type, c.Typmod}, NotNull: c.NotNull, Dropped: c.Dropped, Default: c.Default, Pos: i, Identity: c.Identity, Domain: c.Domain, DomainArray: c.DomainArray}
		if c.Generated != 0 {
			t.Cols[i].Default, t.Cols[i].Generated = "", c.Default
		}
		if c.Identity != 0 && c.Sequence != "" {
			t.Cols[i].Default = "nextval(" + sqlLiteral(c.Sequence) + "::regclass)"
		}
		if c.Missing != nil && !c.Dropped {
			if f, null := tuple.Tuple(c.Missing).Field(0); !null {
				// A record that fails to decode reads as NULL rather than
				// making the table unreadable; tuple.Validate guards it.
				if tuple.Validate(c.Missing) == nil {
					t.Cols[i].Missing, _ = decodeField(t.Cols[i].Type, f)
				}
			}
		}
	}
	return t
}

// EncodeMissing returns d, of type t, as a Column.Missing value.
func EncodeMissing(t T, d Datum) []byte {
	if d.IsNull() {
		return nil
	}
	var b tuple.Builder
	appendField(&b, t, d)
	return b.Build()
}

// sqlLiteral quotes s as a SQL string literal.
func sqlLiteral(s string) string {
	b := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			b = append(b, '\'')
		}
		b = append(b, s[i])
	}
	return string(append(b, '\''))
}

// HasPrimaryKey reports whether rows are keyed by a primary key (rather
// than by a hidden row id).
func (t *Table) HasPrimaryKey() bool { return len(t.Def.PrimaryKey) > 0 }

// rowKey appends the primary-map key of row: its primary key columns, or
// the hidden row id rowID.
func (t *Table) rowKey(dst []byte, row Row, rowID int64) ([]byte, error) {
	if !t.HasPrimaryKey() {
		return sortkey.AppendInt64(dst, rowID, sortkey.Asc), nil
	}
	var err error
	for _, pos := range t.Def.PrimaryKey {
		if dst, err = appendKey(dst, t.Cols[pos].Type, row[pos], sortkey.Asc); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// indexKey appends the key of row in index ix: its columns, then the row's
// primary-map key, which makes every entry unique.
func (t *Table) indexKey(dst []byte, ix *sqldef.Index, row Row, rowKey []byte) ([]byte, error) {
	var err error
	for _, c := range ix.Columns {
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
		if dst, err = appendKey(dst, t.Cols[c.Column].Type, row[c.Column], o); err != nil {
			return nil, err
		}
	}
	return append(dst, rowKey...), nil
}

// encodeRow returns row as a stored tuple, built in b.
func (t *Table) encodeRow(b *tuple.Builder, row Row) []byte {
	b.Reset()
	for i, c := range t.Cols {
		if c.Dropped {
			b.AppendNull()
			continue
		}
		appendField(b, c.Type, row[i])
	}
	return b.Build()
}

// DecodeRow decodes a stored row tuple of t into dst, as a scan does, for
// readers of row maps outside scans (the version-control diffs). Text
// values share v's bytes, which chunks never change.
func (t *Table) DecodeRow(v []byte, dst Row) (Row, error) { return t.decodeRow(v, dst) }

// decodeRow decodes a stored tuple into dst (grown to the table's width).
func (t *Table) decodeRow(v []byte, dst Row) (Row, error) {
	if dst == nil || cap(dst) < len(t.Cols) { // never nil: nil ends the rows
		dst = make(Row, len(t.Cols))
	}
	dst = dst[:len(t.Cols)]
	tu := tuple.Tuple(v)
	n := tu.Count()
	for i, c := range t.Cols {
		if i >= n {
			dst[i] = c.Missing // a row from before the column was added
			continue
		}
		f, null := tu.Field(i)
		if null || c.Dropped {
			dst[i] = Null
			continue
		}
		d, err := decodeField(c.Type, f)
		if err != nil {
			return nil, err
		}
		dst[i] = d
	}
	return dst, nil
}

// primaryKeyIndex names t's primary key index, as pg_class does.
func primaryKeyIndex(t *Table) string {
	if t.Def.PrimaryKeyName != "" {
		return t.Def.PrimaryKeyName
	}
	return t.Def.Name + "_pkey"
}

// Row is one row of values, by column position.
type Row []Datum
