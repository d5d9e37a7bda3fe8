package exec

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/prolly/sortkey"
	"github.com/prollypg/prollypg/prolly/tuple"
)

// Record is a composite value: a value of a composite type, a table's row
// as a value, or an anonymous ROW(...) (Type OIDRecord). It carries its
// fields' types, so that output, storage and comparison need no catalog.
// A Record in a Datum is never modified.
type Record struct {
	Type   uint32
	Fields []Datum
	Types  []T
	// Names, when set, name the fields of an anonymous record that has
	// them (a table's or a subquery's row, a PL/pgSQL record variable, a
	// set-returning function's record); a composite type's come from its
	// definition, ROW(...)'s are f1, f2, ...
	Names []string
}

// FieldNames returns the names of r's fields.
func (r *Record) FieldNames(st *Settings) []string {
	if len(r.Names) == len(r.Fields) {
		return r.Names
	}
	if ut, err := LookupUserType(T{OID: r.Type, Typmod: -1}, st); err == nil && len(ut.FieldNames) == len(r.Fields) {
		return ut.FieldNames
	}
	names := make([]string, len(r.Fields))
	for i := range names {
		names[i] = "f" + strconv.Itoa(i+1)
	}
	return names
}

// compareRecord orders records field by field, as PostgreSQL's btree
// record comparison does (a NULL field sorts after every value).
func compareRecord(a, b *Record) int {
	for i := 0; i < len(a.Fields) && i < len(b.Fields); i++ {
		if c := Compare(a.Fields[i], b.Fields[i]); c != 0 {
			return c
		}
	}
	return len(a.Fields) - len(b.Fields)
}

// TRecord is the anonymous record type.
var TRecord = T{OIDRecord, -1}

// Stored enums and records. An enum field is its sort order (8 bytes,
// little-endian float64) followed by its label; index keys order it by the
// sort order alone, then the label, which the key carries for decoding. A
// record field is a tuple of two fields per record field: its type
// (uint32 OID, int32 typmod) and its value, so a stored record reads back
// without the catalog.

func appendEnumField(b *tuple.Builder, d Datum) {
	buf := make([]byte, 0, 8+len(d.S))
	buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(d.F))
	b.Append(append(buf, d.S...))
}

func decodeEnumField(f []byte) (Datum, error) {
	if len(f) < 8 {
		return Null, pgerr.New(pgerr.DataCorrupted, "corrupt stored enum value")
	}
	d := Datum{Kind: KindEnum, F: math.Float64frombits(binary.LittleEndian.Uint64(f))}
	if len(f) > 8 {
		d.S = unsafe.String(&f[8], len(f)-8)
	}
	return d, nil
}

// appendEnumKey encodes an enum as one key column (code that walks keys
// splits them into one component per column): a byte string of its sort
// order as 8 order-preserving bytes, then its label. Labels of one type
// have distinct sort orders, so the label never decides the order.
func appendEnumKey(dst []byte, d Datum, o sortkey.Order) []byte {
	var buf [64]byte
	b := binary.BigEndian.AppendUint64(buf[:0], orderedFloatBits(d.F))
	return sortkey.AppendBytea(dst, append(b, d.S...), o)
}

// orderedFloatBits maps f to a uint64 whose unsigned order is f's.
func orderedFloatBits(f float64) uint64 {
	u := math.Float64bits(f)
	if u>>63 != 0 {
		return ^u
	}
	return u | 1<<63
}

// decodeEnumKeyColumn is decodeKeyColumn for an enum.
func decodeEnumKeyColumn(key []byte, o sortkey.Order) (Datum, []byte, error) {
	rest, v, null, err := sortkey.DecodeBytea(key, o, nil)
	if err != nil {
		return Null, nil, errCorruptRow(err)
	}
	if null {
		return Null, rest, nil
	}
	if len(v) < 8 {
		return Null, nil, pgerr.New(pgerr.DataCorrupted, "corrupt enum key")
	}
	u := binary.BigEndian.Uint64(v)
	if u>>63 != 0 {
		u &^= 1 << 63
	} else {
		u = ^u
	}
	return DEnum(string(v[8:]), math.Float64frombits(u)), rest, nil
}

func appendRecordField(dst []byte, d Datum) []byte {
	r := d.Record()
	var b tuple.Builder
	for i, f := range r.Fields {
		b.AppendInt64(int64(r.Types[i].OID)<<32 | int64(uint32(r.Types[i].Typmod)))
		appendField(&b, r.Types[i], f)
	}
	dst = binary.LittleEndian.AppendUint32(dst, r.Type)
	return b.AppendTo(dst)
}

func decodeRecordField(f []byte) (Datum, error) {
	bad := func() (Datum, error) { return Null, pgerr.New(pgerr.DataCorrupted, "corrupt stored record") }
	if len(f) < 4 || tuple.Validate(f[4:]) != nil {
		return bad()
	}
	tup := tuple.Tuple(f[4:])
	n := tup.Count() / 2
	r := &Record{Type: binary.LittleEndian.Uint32(f), Fields: make([]Datum, n), Types: make([]T, n)}
	for i := 0; i < n; i++ {
		tf, _ := tup.Field(2 * i)
		tm, err := tuple.DecodeInt64(tf)
		if err != nil {
			return bad()
		}
		r.Types[i] = T{OID: uint32(tm >> 32), Typmod: int32(uint32(tm))}
		if vf, null := tup.Field(2*i + 1); !null {
			if r.Fields[i], err = decodeField(r.Types[i], vf); err != nil {
				return Null, err
			}
		}
	}
	return DRecord(r), nil
}

// appendRecordText appends r as PostgreSQL's record_out does: fields
// between parentheses, NULL as nothing, a field quoted when it is empty or
// holds a quote, backslash, parenthesis, comma or space, with quotes and
// backslashes doubled inside.
func appendRecordText(dst []byte, r *Record, s *Settings) []byte {
	dst = append(dst, '(')
	var scratch []byte
	for i, f := range r.Fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		if f.IsNull() {
			continue
		}
		scratch = AppendText(scratch[:0], r.Types[i], f, s)
		quote := len(scratch) == 0
		for _, c := range scratch {
			if c == '"' || c == '\\' || c == '(' || c == ')' || c == ',' || isSpace(c) {
				quote = true
				break
			}
		}
		if !quote {
			dst = append(dst, scratch...)
			continue
		}
		dst = append(dst, '"')
		for _, c := range scratch {
			if c == '"' || c == '\\' {
				dst = append(dst, c)
			}
			dst = append(dst, c)
		}
		dst = append(dst, '"')
	}
	return append(dst, ')')
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// parseRecordText reads s as a value of composite type t, as record_in
// does; the fields' types come from the session's catalog.
func parseRecordText(t T, s string, st *Settings) (Datum, error) {
	ut, err := LookupUserType(t, st)
	if err != nil {
		return Null, err
	}
	malformed := func(detail string) (Datum, error) {
		return Null, pgerr.New(pgerr.InvalidTextRepresentation, "malformed record literal: \"%s\"", s).WithDetail("%s", detail)
	}
	p := strings.TrimLeft(s, " \t\n\r\v\f")
	if p == "" || p[0] != '(' {
		return malformed("Missing left parenthesis.")
	}
	p = p[1:]
	r := &Record{Type: t.OID, Fields: make([]Datum, len(ut.FieldTypes)), Types: make([]T, len(ut.FieldTypes))}
	var buf []byte
	for i := range ut.FieldTypes {
		r.Types[i] = T{OID: uint32(ut.FieldTypes[i]), Typmod: ut.FieldTypmods[i]}
		if i > 0 {
			if p == "" || p[0] != ',' {
				return malformed("Too few columns.")
			}
			p = p[1:]
		}
		if p != "" && (p[0] == ',' || p[0] == ')') {
			continue // NULL
		}
		buf = buf[:0]
		inQuote := false
		for inQuote || p == "" || (p[0] != ',' && p[0] != ')') {
			if p == "" {
				return malformed("Unexpected end of input.")
			}
			c := p[0]
			p = p[1:]
			switch {
			case c == '\\':
				if p == "" {
					return malformed("Unexpected end of input.")
				}
				buf, p = append(buf, p[0]), p[1:]
			case c == '"' && !inQuote:
				inQuote = true
			case c == '"' && p != "" && p[0] == '"':
				buf, p = append(buf, '"'), p[1:]
			case c == '"':
				inQuote = false
			default:
				buf = append(buf, c)
			}
		}
		if r.Fields[i], err = ParseText(r.Types[i], string(buf), st); err != nil {
			return Null, err
		}
	}
	if p == "" || p[0] != ')' {
		return malformed("Too many columns.")
	}
	if strings.TrimLeft(p[1:], " \t\n\r\v\f") != "" {
		return malformed("Junk after right parenthesis.")
	}
	return DRecord(r), nil
}

// parseEnumText reads label s as a value of enum type t.
func parseEnumText(t T, s string, st *Settings) (Datum, error) {
	ut, err := LookupUserType(t, st)
	if err != nil {
		return Null, err
	}
	f, ok := ut.Sort(s)
	if !ok {
		return Null, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input value for enum %s: \"%s\"", ut.Name, s)
	}
	return DEnum(s, f), nil
}

// LookupUserType finds the definition of user type t in the session's catalog.
func LookupUserType(t T, st *Settings) (*types.UserType, error) {
	if st != nil && st.Types != nil {
		if ut, ok := st.Types.UserType(types.Oid(t.OID)); ok {
			return ut, nil
		}
	}
	return nil, pgerr.New(pgerr.UndefinedObject, "cache lookup failed for type %d", t.OID)
}

// RowExpr is ROW(...) or (a, b, ...): a record of its arguments' values,
// of composite type Typ (OIDRecord when anonymous).
type RowExpr struct {
	Args  []Expr
	Typ   T
	Names []string // the fields' names, for an anonymous record (see Record)
}

func (e *RowExpr) Type() T { return e.Typ }

func (e *RowExpr) Eval(env *Env, row Row) (Datum, error) {
	r := &Record{Type: e.Typ.OID, Fields: make([]Datum, len(e.Args)), Types: make([]T, len(e.Args)), Names: e.Names}
	for i, a := range e.Args {
		d, err := a.Eval(env, row)
		if err != nil {
			return Null, err
		}
		r.Fields[i], r.Types[i] = d, a.Type()
	}
	return DRecord(r), nil
}

// FieldSelect is (e).field: field Idx of record E, of type T.
type FieldSelect struct {
	E   Expr
	Idx int
	T   T
	// Declared is set when T is what the query declares the field to be
	// (a column definition list: f(...) AS x(a int, ...)) rather than what
	// the record's type says: a record whose field has another type is
	// then PostgreSQL's 42804.
	Declared bool
}

// SetField is the value of composite Rec with field Idx set to Val, as
// UPDATE t SET c.f = v and INSERT INTO t (c.f) assign it: a NULL record
// first becomes one of NULL fields. T is the composite type.
type SetField struct {
	Rec Expr
	Idx int
	Val Expr
	T   T
}

func (e *SetField) Type() T { return e.T }

func (e *SetField) Eval(env *Env, row Row) (Datum, error) {
	d, err := e.Rec.Eval(env, row)
	if err != nil {
		return Null, err
	}
	v, err := e.Val.Eval(env, row)
	if err != nil {
		return Null, err
	}
	var r Record
	if d.IsNull() {
		ut, err := LookupUserType(e.T, env.Settings)
		if err != nil {
			return Null, err
		}
		r = Record{Type: e.T.OID, Fields: make([]Datum, len(ut.FieldTypes)), Types: make([]T, len(ut.FieldTypes))}
		for i := range ut.FieldTypes {
			r.Types[i] = T{OID: uint32(ut.FieldTypes[i]), Typmod: ut.FieldTypmods[i]}
		}
	} else {
		old := d.Record()
		r = Record{Type: old.Type, Fields: slices.Clone(old.Fields), Types: old.Types, Names: old.Names}
	}
	if e.Idx >= len(r.Fields) {
		return Null, pgerr.New(pgerr.InternalError, "field %d assigned in a record of %d fields", e.Idx+1, len(r.Fields))
	}
	r.Fields[e.Idx] = v
	return DRecord(&r), nil
}

func (e *FieldSelect) Type() T { return e.T }

func (e *FieldSelect) Eval(env *Env, row Row) (Datum, error) {
	d, err := e.E.Eval(env, row)
	if err != nil || d.IsNull() {
		return Null, err
	}
	r, ok := d.X.(*Record)
	if !ok {
		return Null, pgerr.New(pgerr.InternalError, "field %d selected from a value of type %s, not a row", e.Idx+1, TypeName(e.E.Type().OID))
	}
	if e.Idx >= len(r.Fields) {
		return Null, nil
	}
	if e.Declared && e.Idx < len(r.Types) && r.Types[e.Idx].OID != e.T.OID && !r.Fields[e.Idx].IsNull() {
		return Null, pgerr.New(pgerr.DatatypeMismatch, "function return row and query-specified return row do not match").
			WithDetail("Returned type %s at ordinal position %d, but query expects %s.", TypeName(r.Types[e.Idx].OID), e.Idx+1, TypeName(e.T.OID))
	}
	return r.Fields[e.Idx], nil
}

// RowCompare is ROW(l...) op ROW(r...) for <, <=, > and >=, as PostgreSQL
// compares rows: the first pair of fields that are not equal decides,
// by Less (the strict form of the operator); a NULL on the way makes the
// result NULL; when all earlier pairs are equal, Last (op on the last
// pair) decides.
type RowCompare struct {
	Eq   []Expr // l[i] = r[i], for every pair but the last
	Less []Expr // l[i] < r[i] (or >), for every pair but the last
	Last Expr
}

func (e *RowCompare) Type() T { return TBool }

func (e *RowCompare) Eval(env *Env, row Row) (Datum, error) {
	for i, eq := range e.Eq {
		d, err := eq.Eval(env, row)
		if err != nil || d.IsNull() {
			return Null, err
		}
		if !d.Bool() {
			return e.Less[i].Eval(env, row)
		}
	}
	return e.Last.Eval(env, row)
}

// appendArrayKey encodes an array as one key column, the way btree's
// array_ops orders arrays: element by element (a NULL element after every
// value), a shorter array before a longer one it begins, then by number of
// dimensions, the dimensions' lengths and their lower bounds. The column is
// a byte string (so code that walks keys splits it as one) holding each
// element's ascending key encoding (prefix-free, so their concatenation
// compares element by element), 0x00 (below every element's first byte),
// then the dimensions.
func appendArrayKey(dst []byte, elem T, d Datum, o sortkey.Order) ([]byte, error) {
	a := d.Array()
	var b []byte
	for _, e := range a.Elems {
		var err error
		if b, err = appendKey(b, elem, e, sortkey.Asc); err != nil {
			return nil, err
		}
	}
	b = append(b, 0, byte(len(a.Dims)))
	for _, n := range a.Dims {
		b = binary.BigEndian.AppendUint32(b, uint32(n)^1<<31)
	}
	for _, n := range a.Lower {
		b = binary.BigEndian.AppendUint32(b, uint32(n)^1<<31)
	}
	return sortkey.AppendBytea(dst, b, o), nil
}

// decodeArrayKeyColumn is decodeKeyColumn for an array of elem.
func decodeArrayKeyColumn(key []byte, elem T, o sortkey.Order) (Datum, []byte, error) {
	rest, v, null, err := sortkey.DecodeBytea(key, o, nil)
	if err != nil {
		return Null, nil, errCorruptRow(err)
	}
	if null {
		return Null, rest, nil
	}
	corrupt := pgerr.New(pgerr.DataCorrupted, "corrupt array key")
	var elems []Datum
	hasNull := false
	for len(v) > 0 && v[0] != 0 {
		var e Datum
		if e, v, err = decodeKeyColumn(v, elem, sortkey.Asc); err != nil {
			return Null, nil, err
		}
		hasNull = hasNull || e.IsNull()
		elems = append(elems, e)
	}
	if len(v) < 2 || int(v[1])*8 != len(v)-2 {
		return Null, nil, corrupt
	}
	n := int(v[1])
	dims, lower := make([]int32, n), make([]int32, n)
	for i := range n {
		dims[i] = int32(binary.BigEndian.Uint32(v[2+4*i:]) ^ 1<<31)
		lower[i] = int32(binary.BigEndian.Uint32(v[2+4*n+4*i:]) ^ 1<<31)
	}
	return DArray(&Array{Elem: elem.OID, Dims: dims, Lower: lower, Elems: elems, HasNul: hasNull}), rest, nil
}

// appendRecordKey encodes a composite value as one key column, the way
// btree's record_ops orders records: field by field, a NULL field after
// every value. The column is a byte string holding, for each field, its
// type's OID and its ascending key encoding (prefix-free, so the fields
// compare one after another); the OIDs are the same for every value of
// the column's type, so they order nothing, and make the key decodable
// without the type's definition.
func appendRecordKey(dst []byte, d Datum, o sortkey.Order) ([]byte, error) {
	r := d.Record()
	var b []byte
	for i, f := range r.Fields {
		b = binary.BigEndian.AppendUint32(b, r.Types[i].OID)
		b = binary.BigEndian.AppendUint32(b, uint32(r.Types[i].Typmod))
		var err error
		if b, err = appendKey(b, r.Types[i], f, sortkey.Asc); err != nil {
			return nil, err
		}
	}
	return sortkey.AppendBytea(dst, b, o), nil
}

// decodeRecordKeyColumn is decodeKeyColumn for a composite type t.
func decodeRecordKeyColumn(key []byte, t T, o sortkey.Order) (Datum, []byte, error) {
	rest, v, null, err := sortkey.DecodeBytea(key, o, nil)
	if err != nil {
		return Null, nil, errCorruptRow(err)
	}
	if null {
		return Null, rest, nil
	}
	r := &Record{Type: t.OID}
	for len(v) > 0 {
		if len(v) < 8 {
			return Null, nil, pgerr.New(pgerr.DataCorrupted, "corrupt record key")
		}
		ft := T{OID: binary.BigEndian.Uint32(v), Typmod: int32(binary.BigEndian.Uint32(v[4:]))}
		var f Datum
		if f, v, err = decodeKeyColumn(v[8:], ft, sortkey.Asc); err != nil {
			return Null, nil, err
		}
		r.Fields, r.Types = append(r.Fields, f), append(r.Types, ft)
	}
	return DRecord(r), rest, nil
}

// RecordImageCompare is the record image comparison of two rows (*<,
// *<=, *=, *<>, *>=, *>: PostgreSQL's record_image_cmp): field by field,
// by the bytes of the values rather than their types' order, so that
// values equal to their type but stored differently differ. A fixed-size
// value compares as the unsigned integer of its bits, a variable-length
// one by its bytes, the shorter first among equal prefixes; a NULL field
// sorts after every value, as in record_cmp. Op is one of the six.
type RecordImageCompare struct {
	L, R  Expr
	Types []T // the fields' types, alike on both sides
	Op    string
}

func (e *RecordImageCompare) Type() T { return TBool }

func (e *RecordImageCompare) Eval(env *Env, row Row) (Datum, error) {
	l, err := e.L.Eval(env, row)
	if err != nil || l.IsNull() {
		return Null, err
	}
	r, err := e.R.Eval(env, row)
	if err != nil || r.IsNull() {
		return Null, err
	}
	lf, rf := l.Record().Fields, r.Record().Fields
	c := 0
	for i := 0; i < len(lf) && i < len(rf) && c == 0; i++ {
		switch a, b := lf[i], rf[i]; {
		case a.IsNull() && b.IsNull():
		case a.IsNull():
			c = 1
		case b.IsNull():
			c = -1
		default:
			c = compareImages(e.Types[i], a, b)
		}
	}
	if c == 0 {
		c = cmp.Compare(len(lf), len(rf))
	}
	var ok bool
	switch e.Op {
	case "*<":
		ok = c < 0
	case "*<=":
		ok = c <= 0
	case "*=":
		ok = c == 0
	case "*<>":
		ok = c != 0
	case "*>=":
		ok = c >= 0
	case "*>":
		ok = c > 0
	}
	return DBool(ok), nil
}

// compareImages compares two non-NULL values of type t by their images.
func compareImages(t T, a, b Datum) int {
	bits := func(d Datum) (uint64, bool) {
		switch t.OID {
		case OIDBool: // "char" is held as text, and compares by its byte below
			return uint64(d.I), true
		case OIDInt2:
			return uint64(uint16(d.I)), true
		case OIDInt4, OIDOid, OIDDate, OIDRegclass, OIDRegtype, OIDRegproc:
			return uint64(uint32(d.I)), true
		case OIDInt8, OIDTime, OIDTimestamp, OIDTimestampTZ:
			return uint64(d.I), true
		case OIDFloat4:
			return uint64(math.Float32bits(float32(d.F))), true
		case OIDFloat8:
			return math.Float64bits(d.F), true
		}
		return 0, false
	}
	if x, ok := bits(a); ok {
		y, _ := bits(b)
		return cmp.Compare(x, y)
	}
	var x, y []byte
	switch a.Kind {
	case KindText, KindBytes, KindUUID, KindJSON, KindInet, KindGeometry:
		x, y = []byte(a.S), []byte(b.S)
	default:
		// No image of its own here: its binary form stands for it.
		x, _ = AppendBinary(nil, t, a)
		y, _ = AppendBinary(nil, t, b)
	}
	return bytes.Compare(x, y)
}
