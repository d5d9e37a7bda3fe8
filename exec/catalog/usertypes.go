package catalog

import (
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// User-defined types in pg_type: enums ('e'), composites ('c', with a
// pg_class row of relkind 'c' for their attributes), domains ('d'), the
// row types of tables and views, and the array types of enums and
// composites ('_name'). Their OIDs are exec.TypeOID's, whose low bits say
// the category, so the executor knows a value's type without this
// catalog.

// TypeOID returns the OID of stored type t.
func TypeOID(t *sqldef.Type) uint32 {
	return exec.TypeOID(TypeCategory(t.Kind), t.Schema, t.Name)
}

// TypeCategory is the exec category of a stored type's kind (typtype).
func TypeCategory(kind byte) types.Oid {
	switch kind {
	case 'e':
		return types.UserEnum
	case 'c':
		return types.UserComposite
	case 'r':
		return types.UserRange
	}
	return types.UserDomain
}

// RowTypeOID returns the OID of the row type of table or view
// schema.name.
func RowTypeOID(schema, name string) uint32 {
	return exec.TypeOID(types.UserComposite, schema, name)
}

// TypeByOID finds a stored user type by OID.
func (s *Snapshot) TypeByOID(oid uint32) (*sqldef.Type, bool) {
	for _, t := range s.Types {
		if TypeOID(t) == oid {
			return t, true
		}
	}
	return nil, false
}

// userTypeRows returns the pg_type rows of the database's types and of
// its tables' and views' row types.
func userTypeRows(s *Snapshot) []exec.Row {
	var out []exec.Row
	for _, t := range s.Types {
		oid := TypeOID(t)
		from := len(out)
		switch t.Kind {
		case 'e':
			out = append(out, typeRow(oid, t.Schema, t.Name, enumShape(), 0, exec.T{}, false, ""))
			out = append(out, arrayTypeRow(oid, t.Schema, t.Name, 'i'))
		case 'c':
			out = append(out, typeRow(oid, t.Schema, t.Name, compositeShape(), TableOID(t.Schema, t.Name), exec.T{}, false, ""))
			out = append(out, arrayTypeRow(oid, t.Schema, t.Name, 'd'))
		case 'd':
			base := exec.T{OID: t.Base, Typmod: t.BaseTypmod}
			if t.BaseDomain != "" {
				base.OID = s.typeOIDNamed(t.BaseDomain) // typbasetype is the domain it is over
			}
			out = append(out, typeRow(oid, t.Schema, t.Name, domainShape(t.Base), 0, base, t.NotNull, t.Default))
		case 'r':
			sh := rangeShape(t.Base)
			out = append(out, typeRow(oid, t.Schema, t.Name, sh, 0, exec.T{}, false, ""))
			out = append(out, arrayTypeRow(oid, t.Schema, t.Name, sh.align))
		}
		// The type's rows name its owner (typowner), its array type's
		// too; its privileges (typacl) are the type's alone, as in
		// PostgreSQL, whose array types have none.
		for i, r := range out[from:] {
			if t.Owner != "" {
				r[3] = dOID(RoleOID(t.Owner))
			}
			if i == 0 {
				r[len(r)-1] = aclDatum(t.ACL)
			}
		}
	}
	rowType := func(schema, name string) {
		oid := RowTypeOID(schema, name)
		out = append(out, typeRow(oid, schema, name, compositeShape(), TableOID(schema, name), exec.T{}, false, ""))
		out = append(out, arrayTypeRow(oid, schema, name, 'd'))
	}
	for _, t := range s.Tables {
		rowType(t.Schema, t.Name)
	}
	for _, v := range s.Views {
		rowType(v.Schema, v.Name)
	}
	return out
}

// userTypeShape is the shape of the user type (not an array of one) with
// OID oid, as its pg_type row gives it.
func (s *Snapshot) userTypeShape(oid uint32) (typeShape, bool) {
	t, ok := s.TypeByOID(oid)
	if !ok {
		return typeShape{}, false
	}
	switch t.Kind {
	case 'e':
		return enumShape(), true
	case 'd':
		return domainShape(t.Base), true
	case 'r':
		return rangeShape(t.Base), true
	}
	return compositeShape(), true
}

// typeShape is what pg_type says of a type's values.
type typeShape struct {
	len                          int16
	byVal                        bool
	kind, category, align, store byte
	in, out, recv, send          string
	collation                    uint32
}

func enumShape() typeShape {
	return typeShape{4, true, 'e', 'E', 'i', 'p', "enum_in", "enum_out", "enum_recv", "enum_send", 0}
}

func compositeShape() typeShape {
	return typeShape{-1, false, 'c', 'C', 'd', 'x', "record_in", "record_out", "record_recv", "record_send", 0}
}

// domainShape is the base type's shape with typtype 'd'.
func domainShape(base uint32) typeShape {
	sh := typeShape{len: -1, kind: 'd', category: 'U', align: 'i', store: 'x', collation: collationOf(base)}
	if bt := types.Lookup(types.Oid(base)); bt != nil {
		sh.len, sh.byVal, sh.category, sh.align, sh.store = bt.Len, bt.ByVal, bt.Category, bt.Align, bt.Storage
		sh.in, sh.out, sh.recv, sh.send = bt.Input, bt.Output, bt.Receive, bt.Send
	}
	return sh
}

// rangeShape is the shape of a range type over subtype sub: aligned as
// the subtype, at least on 4 bytes, as DefineRange makes it.
func rangeShape(sub uint32) typeShape {
	sh := typeShape{-1, false, 'r', 'R', 'i', 'x', "range_in", "range_out", "range_recv", "range_send", 0}
	if bt := types.Lookup(types.Oid(sub)); bt != nil && bt.Align == 'd' {
		sh.align = 'd'
	}
	return sh
}

// pgRange is pg_range: the built-in range types' rows, then the user
// range types'.
func pgRange(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, r := range types.BuiltinRanges {
		out = append(out, exec.Row{dOID(uint32(r.Oid)), dOID(uint32(r.Subtype)), dOID(uint32(r.Multirange)), dOID(0),
			dOID(uint32(r.SubOpclass)), dProc(r.Canonical), dProc(r.SubDiff)})
	}
	for _, t := range s.Types {
		if t.Kind != 'r' {
			continue
		}
		canonical, diff := "-", "-"
		if t.Canonical != "" {
			canonical = t.Canonical
		}
		if t.SubtypeDiff != "" {
			diff = t.SubtypeDiff
		}
		out = append(out, exec.Row{dOID(TypeOID(t)), dOID(t.Base), dOID(0), dOID(collationOf(t.Base)),
			dOID(opclassOf(t.Base)), dProc(canonical), dProc(diff)})
	}
	return out, nil
}

// typeRow is one pg_type row of a user type; base is a domain's base
// type (OID 0 otherwise).
func typeRow(oid uint32, schema, name string, sh typeShape, relid uint32, base exec.T, notNull bool, def string) exec.Row {
	array := uint32(types.ArrayOf(types.Oid(oid)))
	typmod, dflt := int64(-1), exec.Null
	if base.OID != 0 {
		typmod = int64(base.Typmod)
	}
	if def != "" {
		dflt = dText(def)
	}
	return exec.Row{
		dOID(oid), dText(name), dOID(NamespaceOID(schema)), dOID(OIDBootstrapRole), dInt(int64(sh.len)),
		dBool(sh.byVal), dChar(sh.kind), dChar(sh.category), dBool(false), dBool(true), dChar(','),
		dOID(relid), dProc("-"), dOID(0), dOID(array), dProc(sh.in), dProc(sh.out),
		dProc(sh.recv), dProc(sh.send), dProc("-"), dProc("-"), dProc("-"), dChar(sh.align),
		dChar(sh.store), dBool(notNull), dOID(base.OID), dInt(typmod), dInt(0), dOID(sh.collation),
		dflt, dflt, exec.Null,
	}
}

// arrayTypeRow is the pg_type row of the array type of user type elem.
func arrayTypeRow(elem uint32, schema, name string, align byte) exec.Row {
	return exec.Row{
		dOID(uint32(types.ArrayOf(types.Oid(elem)))), dText(arrayTypeName(name)), dOID(NamespaceOID(schema)), dOID(OIDBootstrapRole), dInt(-1),
		dBool(false), dChar('b'), dChar('A'), dBool(false), dBool(true), dChar(','),
		dOID(0), dProc("array_subscript_handler"), dOID(elem), dOID(0), dProc("array_in"), dProc("array_out"),
		dProc("array_recv"), dProc("array_send"), dProc("-"), dProc("-"), dProc("array_typanalyze"), dChar(align),
		dChar('x'), dBool(false), dOID(0), dInt(-1), dInt(0), dOID(0),
		exec.Null, exec.Null, exec.Null,
	}
}

// arrayTypeName is PostgreSQL's name for the array type of a type: an
// underscore before it, cut to NAMEDATALEN-1 bytes.
func arrayTypeName(name string) string {
	n := "_" + name
	if len(n) > 63 {
		n = n[:63]
	}
	return n
}

func pgEnum(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, t := range s.Types {
		if t.Kind != 'e' {
			continue
		}
		oid := TypeOID(t)
		for i, l := range t.Labels {
			out = append(out, exec.Row{dOID(EnumLabelOID(t, i)), dOID(oid), exec.DFloat(l.Sort), dText(l.Label)})
		}
	}
	return out, nil
}

// EnumLabelOID returns the OID of label i of enum t (pg_enum.oid): the
// labels' OIDs follow one another in their sort order, as PostgreSQL's
// follow the order CREATE TYPE lists them in, which tools read them back
// by (SQLAlchemy's reflection orders pg_enum by oid).
func EnumLabelOID(t *sqldef.Type, i int) uint32 {
	return exec.ObjectOID(kindEnumLabel, t.Schema, t.Name) + uint32(i)
}

// DomainConstraints returns the CHECK constraints of the database's
// domains, as pg_constraint lists them (contypid set, no table).
func (s *Snapshot) DomainConstraints() []Constraint {
	var out []Constraint
	for _, t := range s.Types {
		for i := range t.Checks {
			c := &t.Checks[i]
			out = append(out, Constraint{OID: DomainConstraintOID(t, c.Name), Name: c.Name, Type: 'c', Domain: t, Check: c})
		}
	}
	return out
}

// DomainConstraintOID returns the OID of constraint name of domain t.
func DomainConstraintOID(t *sqldef.Type, name string) uint32 {
	return exec.ObjectOID(kindConstraint, t.Schema, "\x00"+t.Name+"\x00"+name)
}

// domainConstraintRow is the pg_constraint row of a domain's CHECK.
func domainConstraintRow(c Constraint) exec.Row {
	return exec.Row{
		dOID(c.OID), dText(c.Name), dOID(NamespaceOID(c.Domain.Schema)), dChar('c'),
		dBool(false), dBool(false), dBool(!c.Check.NotValid), dOID(0), dOID(TypeOID(c.Domain)), dOID(0),
		dOID(0), dOID(0), dChar(' '), dChar(' '), dChar(' '), dBool(true),
		dInt(0), dBool(false), exec.Null, exec.Null, exec.Null,
		exec.Null, exec.Null, exec.Null, exec.Null, dText(c.Check.Expr),
	}
}

// domainConstraintDef is pg_get_constraintdef of a domain's CHECK: the
// expression rendered as over a table whose one column is the value.
func (s *Snapshot) domainConstraintDef(c Constraint, pretty bool) string {
	d := c.Domain
	value := &sqldef.Table{Schema: d.Schema, Name: d.Name,
		Columns: []sqldef.Column{{Name: "value", Type: d.Base, Typmod: d.BaseTypmod}}}
	def := "CHECK (" + domainValueUpper(s.Expr(value, c.Check.Expr, pretty)) + ")"
	if c.Check.NotValid {
		def += " NOT VALID"
	}
	return def
}

// compositeRelations are the pg_class rows (relkind 'c') of composite
// types, which hold their attributes.
func (s *Snapshot) compositeRelations() []Relation {
	var out []Relation
	for _, t := range s.Types {
		if t.Kind == 'c' {
			out = append(out, Relation{OID: TableOID(t.Schema, t.Name), Schema: t.Schema, Name: t.Name, Kind: 'c', Type: t})
		}
	}
	return out
}

// columnTypeOID is a table column's atttypid: its domain's OID when it
// was declared with one, the domain's array type's for domain[].
func columnTypeOID(c sqldef.Column) uint32 {
	if c.Domain == "" {
		return c.Type
	}
	schema, name, _ := strings.Cut(c.Domain, ".")
	if c.DomainArray {
		return exec.TypeOID(types.UserDomain, schema, name) | uint32(types.ArrayBit)
	}
	return exec.TypeOID(types.UserDomain, schema, name)
}

// domainValueUpper spells the VALUE of a stored domain CHECK (kept as the
// column reference "value") as PostgreSQL's deparser does: in capitals.
func domainValueUpper(expr string) string {
	var b strings.Builder
	var quote byte
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case strings.HasPrefix(expr[i:], "value") && (i == 0 || !identByte(expr[i-1])) &&
			(i+5 == len(expr) || !identByte(expr[i+5])):
			b.WriteString("VALUE")
			i += 4
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// typeOIDNamed is the OID of the user type "schema.name", 0 if none.
func (s *Snapshot) typeOIDNamed(qualified string) uint32 {
	for _, t := range s.Types {
		if t.Schema+"."+t.Name == qualified {
			return TypeOID(t)
		}
	}
	return 0
}
