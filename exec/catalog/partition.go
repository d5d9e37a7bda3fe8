package catalog

import (
	"strconv"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/funcs"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// BoundText prints a range bound as PostgreSQL's messages do: (1, MAXVALUE).
func BoundText(vals []sqldef.BoundValue, ktypes []exec.T) string {
	b := []byte{'('}
	for i, v := range vals {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendBoundValue(b, v, ktypes[i])
	}
	return string(append(b, ')'))
}

// appendBoundValue appends a bound value as pg_get_expr prints it:
// numbers and booleans bare, other values quoted.
func appendBoundValue(b []byte, v sqldef.BoundValue, t exec.T) []byte {
	switch v.Kind {
	case sqldef.BoundNull:
		return append(b, "NULL"...)
	case sqldef.BoundMinValue:
		return append(b, "MINVALUE"...)
	case sqldef.BoundMaxValue:
		return append(b, "MAXVALUE"...)
	}
	// get_const_expr's rules: what reads back as the same constant.
	switch {
	case t.OID == exec.OIDInt4 && !strings.HasPrefix(v.Text, "-"):
		return append(b, v.Text...)
	case t.OID == exec.OIDNumeric && v.Text != "" && v.Text[0] >= '0' && v.Text[0] <= '9' && strings.ContainsAny(v.Text, "eE."):
		return append(b, v.Text...)
	case t.OID == exec.OIDBool && v.Text == "t":
		return append(b, "true"...)
	case t.OID == exec.OIDBool:
		return append(b, "false"...)
	}
	return append(b, funcs.QuoteLiteral(v.Text)...)
}

// PartitionBoundDef prints a partition's bound as pg_get_expr does
// relpartbound: FOR VALUES IN (...), FROM (...) TO (...), WITH (...), or
// DEFAULT.
func PartitionBoundDef(b *sqldef.PartitionBound, ktypes []exec.T) string {
	switch {
	case b.Default:
		return "DEFAULT"
	case b.Modulus > 0:
		return "FOR VALUES WITH (modulus " + strconv.Itoa(b.Modulus) + ", remainder " + strconv.Itoa(b.Remainder) + ")"
	case b.From != nil:
		return "FOR VALUES FROM " + BoundText(b.From, ktypes) + " TO " + BoundText(b.To, ktypes)
	}
	out := []byte("FOR VALUES IN (")
	for i, v := range b.In {
		if i > 0 {
			out = append(out, ", "...)
		}
		out = appendBoundValue(out, v, ktypes[0])
	}
	return string(append(out, ')'))
}

// RelKind is the relation's pg_class.relkind: Kind, but 'p' for a
// partitioned table and 'I' for its indexes.
func (r Relation) RelKind() byte {
	if r.Table != nil && r.Table.MatView != nil && r.Kind == 'r' {
		return 'm'
	}
	if r.Table != nil && r.Table.Partitioned() {
		switch r.Kind {
		case 'r':
			return 'p'
		case 'i':
			return 'I'
		}
	}
	return r.Kind
}

// HasChildren reports whether a table has tables inheriting from it
// (relhassubclass).
func (s *Snapshot) HasChildren(schema, name string) bool {
	for _, t := range s.Tables {
		for _, p := range t.Inherits {
			if p.Schema == schema && p.Name == name {
				return true
			}
		}
	}
	return false
}

// parentTable returns the table a partition's bound belongs to.
func (s *Snapshot) parentTable(t *sqldef.Table) *sqldef.Table {
	if len(t.Inherits) == 0 {
		return nil
	}
	p := t.Inherits[0]
	for _, c := range s.Tables {
		if c.Schema == p.Schema && c.Name == p.Name {
			return c
		}
	}
	return nil
}

// keyTypes returns the types of a partitioned table's key columns.
func keyTypes(t *sqldef.Table) []exec.T {
	out := make([]exec.T, len(t.PartitionKey.Columns))
	for i, pos := range t.PartitionKey.Columns {
		if pos < 0 {
			oid, typmod := t.KeyType(i)
			out[i] = exec.T{OID: oid, Typmod: typmod}
			continue
		}
		out[i] = columnType(t.Columns[pos])
	}
	return out
}

// PartitionBound is a partition's relpartbound as pg_get_expr prints it.
func (s *Snapshot) PartitionBound(t *sqldef.Table) string {
	parent := s.parentTable(t)
	if parent == nil || parent.PartitionKey == nil {
		return ""
	}
	return PartitionBoundDef(t.PartitionBound, keyTypes(parent))
}

// PartitionKeyDef is pg_get_partkeydef's text: RANGE (a, b), LIST
// (lower(a)), RANGE ((a + 1)).
func (s *Snapshot) PartitionKeyDef(t *sqldef.Table) string {
	k := t.PartitionKey
	b := []byte(map[byte]string{sqldef.PartitionRange: "RANGE", sqldef.PartitionList: "LIST", sqldef.PartitionHash: "HASH"}[k.Strategy])
	b = append(b, " ("...)
	for i := range k.Columns {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, s.PartitionKeyColumn(t, i)...)
	}
	return string(append(b, ')'))
}

// PartitionKeyColumn prints key column i of t as pg_get_partkeydef does:
// a column's name, an expression parenthesized unless it is a function
// call.
func (s *Snapshot) PartitionKeyColumn(t *sqldef.Table, i int) string {
	k := t.PartitionKey
	expr := k.Expr(i)
	if expr == "" {
		return QuoteIdent(t.Columns[k.Columns[i]].Name)
	}
	text := s.Expr(t, expr, false)
	if !looksLikeFunction(expr) {
		text = "(" + text + ")"
	}
	return text
}

func pgInherits(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, t := range s.Tables {
		for i, p := range t.Inherits {
			out = append(out, exec.Row{dOID(TableOID(t.Schema, t.Name)), dOID(TableOID(p.Schema, p.Name)), dInt(int64(i + 1)), dBool(false)})
		}
		for _, link := range s.partitionIndexes(t) {
			out = append(out, exec.Row{dOID(link[0]), dOID(link[1]), dInt(1), dBool(false)})
		}
	}
	return out, nil
}

// partitionIndexes pairs the indexes of partition t with those of its
// parent they stand for (the OIDs of each, the partition's first), as
// pg_inherits links them in PostgreSQL: pg_dump attaches them so.
func (s *Snapshot) partitionIndexes(t *sqldef.Table) [][2]uint32 {
	p := s.parentTable(t)
	if !t.IsPartition() || p == nil {
		return nil
	}
	var out [][2]uint32
	if len(t.PrimaryKey) > 0 && len(p.PrimaryKey) > 0 {
		out = append(out, [2]uint32{IndexOID(t.Schema, t.PrimaryKeyName), IndexOID(p.Schema, p.PrimaryKeyName)})
	}
	for _, pix := range p.Indexes {
		for _, ix := range t.Indexes {
			if sqldef.SameIndex(p, t, pix, ix) {
				out = append(out, [2]uint32{IndexOID(t.Schema, ix.Name), IndexOID(p.Schema, pix.Name)})
				break
			}
		}
	}
	return out
}

func pgPartitionedTable(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, t := range s.Tables {
		k := t.PartitionKey
		if k == nil {
			continue
		}
		def := uint32(0)
		for _, c := range s.Tables {
			if c.IsPartition() && c.PartitionBound.Default && c.Inherits[0] == (sqldef.TableName{Schema: t.Schema, Name: t.Name}) {
				def = TableOID(c.Schema, c.Name)
			}
		}
		var attrs, classes, colls []string
		for _, pos := range k.Columns {
			typ := t.Columns[pos].Type
			attrs = append(attrs, strconv.Itoa(pos+1))
			classes = append(classes, strconv.Itoa(int(opclassOf(typ))))
			colls = append(colls, strconv.Itoa(int(collationOf(typ))))
		}
		out = append(out, exec.Row{dOID(TableOID(t.Schema, t.Name)), dChar(k.Strategy), dInt(int64(len(k.Columns))), dOID(def),
			dVector(exec.OIDInt2Vector, attrs), dVector(exec.OIDOidVector, classes), dVector(exec.OIDOidVector, colls), exec.Null})
	}
	return out, nil
}
