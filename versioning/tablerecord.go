package versioning

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// A table record keeps what every write changes apart from what only DDL
// changes:
//
//	tableRecordVersion (1) | NextRowID uvarint | Rows (20) |
//	index count uvarint | count × Indexes[i].Rows (20) | definition
//
// where the definition is the JSON of the table with those fields zero
// (schemaOnly). Each commit writes new roots for the tables it changed,
// and a commit-time merge reads the base, its own and the branch's record
// of each: with the definition apart, a cache of decoded definitions
// (DecodeTableAs) spares decoding JSON for records that differ only in
// their roots, and two records have the same definition exactly when their
// definition bytes are equal (encoding/json writes fields in declaration
// order and map keys sorted). Records of format 1 (recordVersion, the
// whole table as JSON) are still read; every table written is written in
// this format.
const tableRecordVersion = 2

// encodeTable returns t's record.
func encodeTable(t *sqldef.Table) ([]byte, error) {
	def, err := json.Marshal(schemaOnly(t))
	if err != nil {
		return nil, fmt.Errorf("versioning: encoding table %q.%q: %w", t.Schema, t.Name, err)
	}
	b := make([]byte, 0, 2*binary.MaxVarintLen64+store.AddressSize*(1+len(t.Indexes))+len(def))
	return append(appendTableData(b, t), def...), nil
}

// appendTableData appends the record's version and the parts of t that
// its definition leaves out.
func appendTableData(b []byte, t *sqldef.Table) []byte {
	b = append(b, tableRecordVersion)
	b = binary.AppendUvarint(b, uint64(t.NextRowID))
	b = append(b, t.Rows[:]...)
	b = binary.AppendUvarint(b, uint64(len(t.Indexes)))
	for i := range t.Indexes {
		b = append(b, t.Indexes[i].Rows[:]...)
	}
	return b
}

// tableData is the decoded data part of a table record.
type tableData struct {
	nextRowID int64
	rows      store.Address
	indexes   []byte // the indexes' roots, AddressSize bytes each
	def       []byte
}

// parseTableRecord splits a record of tableRecordVersion.
func parseTableRecord(b []byte) (tableData, error) {
	var d tableData
	if len(b) == 0 || b[0] != tableRecordVersion {
		return d, fmt.Errorf("%w: table record of unknown version", ErrCorrupt)
	}
	p := b[1:]
	next, n := binary.Uvarint(p)
	if n <= 0 || next > 1<<63-1 {
		return d, fmt.Errorf("%w: table record: next row id", ErrCorrupt)
	}
	p = p[n:]
	if len(p) < store.AddressSize {
		return d, fmt.Errorf("%w: table record: rows", ErrCorrupt)
	}
	d.nextRowID = int64(next)
	d.rows = store.Address(p[:store.AddressSize])
	p = p[store.AddressSize:]
	count, n := binary.Uvarint(p)
	if n <= 0 || count > uint64(len(p)-n)/store.AddressSize {
		return d, fmt.Errorf("%w: table record: index roots", ErrCorrupt)
	}
	p = p[n:]
	d.indexes, d.def = p[:count*store.AddressSize], p[count*store.AddressSize:]
	return d, nil
}

// fill sets t's data fields from d; t has d's definition.
func (d tableData) fill(t *sqldef.Table) error {
	if len(t.Indexes)*store.AddressSize != len(d.indexes) {
		return fmt.Errorf("%w: table record of %q.%q: %d index roots for %d indexes", ErrCorrupt,
			t.Schema, t.Name, len(d.indexes)/store.AddressSize, len(t.Indexes))
	}
	t.NextRowID, t.Rows = d.nextRowID, d.rows
	for i := range t.Indexes {
		t.Indexes[i].Rows = store.Address(d.indexes[i*store.AddressSize:])
	}
	return nil
}

// decodeTable decodes a table record of either format into t.
func decodeTable(b []byte, t *sqldef.Table) error {
	if len(b) > 0 && b[0] == recordVersion {
		return decodeRecord(b, t)
	}
	d, err := parseTableRecord(b)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(d.def, t); err != nil {
		return fmt.Errorf("%w: table record: %v", ErrCorrupt, err)
	}
	return d.fill(t)
}

// TableDefinition returns the part of a table record that only DDL
// changes, or nil for a record of format 1: records with equal
// definitions decode to tables that differ only in their data (the roots
// of their maps and NextRowID).
func TableDefinition(record []byte) []byte {
	d, err := parseTableRecord(record)
	if err != nil {
		return nil
	}
	return d.def
}

// DecodeTableAs decodes record, whose TableDefinition is that of the
// record def was decoded from, without decoding the definition again. The
// table shares def's slices except Indexes, so neither may be modified.
func DecodeTableAs(record []byte, def *sqldef.Table) (*sqldef.Table, error) {
	d, err := parseTableRecord(record)
	if err != nil {
		return nil, err
	}
	t := *def
	t.Indexes = append([]sqldef.Index(nil), def.Indexes...)
	if err := d.fill(&t); err != nil {
		return nil, err
	}
	return &t, nil
}

// sameDefinitionRecords reports whether two table records, decoded as a
// and b, define the same table: by their definition bytes when both have
// them, which is the common case and costs no comparison of structures.
func sameDefinitionRecords(ra, rb []byte, a, b *sqldef.Table) bool {
	if da, db := TableDefinition(ra), TableDefinition(rb); da != nil && db != nil && bytes.Equal(da, db) {
		return true
	}
	return sqldef.SameDefinition(a, b)
}

// encodeTableLike returns t's record, reusing the definition of record,
// which is t's definition (t was derived from record's table by changing
// its data only), when record has one.
func encodeTableLike(record []byte, t *sqldef.Table) ([]byte, error) {
	def := TableDefinition(record)
	if def == nil {
		return encodeTable(t)
	}
	b := make([]byte, 0, 2*binary.MaxVarintLen64+store.AddressSize*(1+len(t.Indexes))+len(def))
	return append(appendTableData(b, t), def...), nil
}
