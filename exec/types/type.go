package types

import (
	"strconv"
)

// Type holds the pg_type facts of one built-in type, as PostgreSQL 15's
// catalog has them. A future pg_type catalog view is built from Types.
type Type struct {
	Oid       Oid
	Name      string // typname
	Len       int16  // typlen: >0 fixed, -1 varlena, -2 C string
	ByVal     bool   // typbyval
	Category  byte   // typcategory
	Preferred bool   // typispreferred
	Delim     byte   // typdelim
	Elem      Oid    // typelem: element type of an array type, else 0 (name: 18)
	Array     Oid    // typarray: the array type of this type, else 0
	Input     string // typinput
	Output    string // typoutput
	Receive   string // typreceive
	Send      string // typsend
	Align     byte   // typalign
	Storage   byte   // typstorage
	Kind      byte   // typtype: 'b' base, 'p' pseudo
	TypmodIn  string // typmodin, or "-"
	TypmodOut string // typmodout, or "-"
	IsArray   bool   // true for the array types (typcategory 'A' or _record)
}

func base(oid Oid, name string, l int16, byval bool, cat byte, pref bool, elem, arr Oid, in, out, recv, send string, align, storage, kind byte) Type {
	return Type{Oid: oid, Name: name, Len: l, ByVal: byval, Category: cat, Preferred: pref, Delim: ',',
		Elem: elem, Array: arr, Input: in, Output: out, Receive: recv, Send: send, Align: align,
		Storage: storage, Kind: kind, TypmodIn: "-", TypmodOut: "-"}
}

func arrayType(oid Oid, name string, elem Oid, align byte, cat byte, kind byte) Type {
	return Type{Oid: oid, Name: name, Len: -1, Category: cat, Delim: ',', Elem: elem,
		Input: "array_in", Output: "array_out", Receive: "array_recv", Send: "array_send",
		Align: align, Storage: 'x', Kind: kind, TypmodIn: "-", TypmodOut: "-", IsArray: true}
}

// vectorType is int2vector or oidvector: subscriptable like an array
// (typelem set, category A) but of plain storage, which keeps format_type
// from calling it an array. Their array types are left out (typarray 0).
func vectorType(oid Oid, name string, elem Oid) Type {
	return Type{Oid: oid, Name: name, Len: -1, Category: 'A', Delim: ',', Elem: elem,
		Input: name + "in", Output: name + "out", Receive: name + "recv", Send: name + "send",
		Align: 'i', Storage: 'p', Kind: 'b', TypmodIn: "-", TypmodOut: "-", IsArray: true}
}

// geoType is a geometric type (category G, double-aligned). The fixed-size
// ones name an element type (typelem), as their coordinates can be read
// by subscript: point[0] is x, box[1] the lower left corner.
func geoType(oid Oid, name string, l int16, elem, arr Oid, in, out, recv, send string, delim byte) Type {
	storage := byte('p')
	if l < 0 {
		storage = 'x'
	}
	t := base(oid, name, l, false, 'G', false, elem, arr, in, out, recv, send, 'd', storage, 'b')
	t.Delim = delim
	return t
}

// geoArray is the array type of a geometric type; box's keeps box's
// delimiter ';', as a box's text has commas.
func geoArray(oid Oid, name string, elem Oid, delim byte) Type {
	t := arrayType(oid, name, elem, 'd', 'A', 'b')
	t.Delim = delim
	return t
}

// Types lists the built-in types in OID order (pg_type rows from PostgreSQL 15).
var Types = func() []Type {
	t := []Type{
		base(OidBool, "bool", 1, true, 'B', true, 0, OidBoolArray, "boolin", "boolout", "boolrecv", "boolsend", 'c', 'p', 'b'),
		base(OidBytea, "bytea", -1, false, 'U', false, 0, OidByteaArray, "byteain", "byteaout", "bytearecv", "byteasend", 'i', 'x', 'b'),
		base(OidChar, "char", 1, true, 'Z', false, 0, OidCharArray, "charin", "charout", "charrecv", "charsend", 'c', 'p', 'b'),
		base(OidName, "name", 64, false, 'S', false, OidChar, OidNameArray, "namein", "nameout", "namerecv", "namesend", 'c', 'p', 'b'),
		base(OidInt8, "int8", 8, true, 'N', false, 0, OidInt8Array, "int8in", "int8out", "int8recv", "int8send", 'd', 'p', 'b'),
		base(OidInt2, "int2", 2, true, 'N', false, 0, OidInt2Array, "int2in", "int2out", "int2recv", "int2send", 's', 'p', 'b'),
		base(OidInt4, "int4", 4, true, 'N', false, 0, OidInt4Array, "int4in", "int4out", "int4recv", "int4send", 'i', 'p', 'b'),
		base(OidRegproc, "regproc", 4, true, 'N', false, 0, OidRegprocArray, "regprocin", "regprocout", "regprocrecv", "regprocsend", 'i', 'p', 'b'),
		vectorType(OidInt2Vector, "int2vector", OidInt2),
		vectorType(OidOidVector, "oidvector", OidOid),
		base(OidText, "text", -1, false, 'S', true, 0, OidTextArray, "textin", "textout", "textrecv", "textsend", 'i', 'x', 'b'),
		base(OidOid, "oid", 4, true, 'N', true, 0, OidOidArray, "oidin", "oidout", "oidrecv", "oidsend", 'i', 'p', 'b'),
		base(OidXid, "xid", 4, true, 'U', false, 0, OidXidArray, "xidin", "xidout", "xidrecv", "xidsend", 'i', 'p', 'b'),
		base(OidXid8, "xid8", 8, true, 'U', false, 0, OidXid8Array, "xid8in", "xid8out", "xid8recv", "xid8send", 'd', 'p', 'b'),
		base(OidJSON, "json", -1, false, 'U', false, 0, OidJSONArray, "json_in", "json_out", "json_recv", "json_send", 'i', 'x', 'b'),
		arrayType(OidJSONArray, "_json", OidJSON, 'i', 'A', 'b'),
		base(OidXML, "xml", -1, false, 'U', false, 0, OidXMLArray, "xml_in", "xml_out", "xml_recv", "xml_send", 'i', 'x', 'b'),
		arrayType(OidXMLArray, "_xml", OidXML, 'i', 'A', 'b'),
		geoType(OidPoint, "point", 16, OidFloat8, OidPointArray, "point_in", "point_out", "point_recv", "point_send", ','),
		geoType(OidLSeg, "lseg", 32, OidPoint, OidLSegArray, "lseg_in", "lseg_out", "lseg_recv", "lseg_send", ','),
		geoType(OidPath, "path", -1, 0, OidPathArray, "path_in", "path_out", "path_recv", "path_send", ','),
		geoType(OidBox, "box", 32, OidPoint, OidBoxArray, "box_in", "box_out", "box_recv", "box_send", ';'),
		geoType(OidPolygon, "polygon", -1, 0, OidPolygonArray, "poly_in", "poly_out", "poly_recv", "poly_send", ','),
		geoType(OidLine, "line", 24, OidFloat8, OidLineArray, "line_in", "line_out", "line_recv", "line_send", ','),
		geoArray(OidLineArray, "_line", OidLine, ','),
		base(OidFloat4, "float4", 4, true, 'N', false, 0, OidFloat4Array, "float4in", "float4out", "float4recv", "float4send", 'i', 'p', 'b'),
		base(OidFloat8, "float8", 8, true, 'N', true, 0, OidFloat8Array, "float8in", "float8out", "float8recv", "float8send", 'd', 'p', 'b'),
		base(OidUnknown, "unknown", -2, false, 'X', false, 0, 0, "unknownin", "unknownout", "unknownrecv", "unknownsend", 'c', 'p', 'p'),
		geoType(OidCircle, "circle", 24, 0, OidCircleArray, "circle_in", "circle_out", "circle_recv", "circle_send", ','),
		geoArray(OidCircleArray, "_circle", OidCircle, ','),
		arrayType(OidBoolArray, "_bool", OidBool, 'i', 'A', 'b'),
		arrayType(OidByteaArray, "_bytea", OidBytea, 'i', 'A', 'b'),
		arrayType(OidCharArray, "_char", OidChar, 'i', 'A', 'b'),
		arrayType(OidNameArray, "_name", OidName, 'i', 'A', 'b'),
		arrayType(OidInt2Array, "_int2", OidInt2, 'i', 'A', 'b'),
		arrayType(OidInt4Array, "_int4", OidInt4, 'i', 'A', 'b'),
		arrayType(OidRegprocArray, "_regproc", OidRegproc, 'i', 'A', 'b'),
		arrayType(OidTextArray, "_text", OidText, 'i', 'A', 'b'),
		arrayType(OidBpcharArray, "_bpchar", OidBpchar, 'i', 'A', 'b'),
		arrayType(OidVarcharArray, "_varchar", OidVarchar, 'i', 'A', 'b'),
		arrayType(OidInt8Array, "_int8", OidInt8, 'd', 'A', 'b'),
		geoArray(OidPointArray, "_point", OidPoint, ','),
		geoArray(OidLSegArray, "_lseg", OidLSeg, ','),
		geoArray(OidPathArray, "_path", OidPath, ','),
		geoArray(OidBoxArray, "_box", OidBox, ';'),
		arrayType(OidFloat4Array, "_float4", OidFloat4, 'i', 'A', 'b'),
		arrayType(OidFloat8Array, "_float8", OidFloat8, 'd', 'A', 'b'),
		arrayType(OidOidArray, "_oid", OidOid, 'i', 'A', 'b'),
		arrayType(OidXidArray, "_xid", OidXid, 'i', 'A', 'b'),
		arrayType(OidXid8Array, "_xid8", OidXid8, 'd', 'A', 'b'),
		geoArray(OidPolygonArray, "_polygon", OidPolygon, ','),
		base(OidBpchar, "bpchar", -1, false, 'S', false, 0, OidBpcharArray, "bpcharin", "bpcharout", "bpcharrecv", "bpcharsend", 'i', 'x', 'b'),
		base(OidVarchar, "varchar", -1, false, 'S', false, 0, OidVarcharArray, "varcharin", "varcharout", "varcharrecv", "varcharsend", 'i', 'x', 'b'),
		base(OidDate, "date", 4, true, 'D', false, 0, OidDateArray, "date_in", "date_out", "date_recv", "date_send", 'i', 'p', 'b'),
		base(OidTime, "time", 8, true, 'D', false, 0, OidTimeArray, "time_in", "time_out", "time_recv", "time_send", 'd', 'p', 'b'),
		base(OidTimestamp, "timestamp", 8, true, 'D', false, 0, OidTimestampArray, "timestamp_in", "timestamp_out", "timestamp_recv", "timestamp_send", 'd', 'p', 'b'),
		arrayType(OidTimestampArray, "_timestamp", OidTimestamp, 'd', 'A', 'b'),
		arrayType(OidDateArray, "_date", OidDate, 'i', 'A', 'b'),
		arrayType(OidTimeArray, "_time", OidTime, 'd', 'A', 'b'),
		base(OidTimestampTZ, "timestamptz", 8, true, 'D', true, 0, OidTimestampTZArray, "timestamptz_in", "timestamptz_out", "timestamptz_recv", "timestamptz_send", 'd', 'p', 'b'),
		arrayType(OidTimestampTZArray, "_timestamptz", OidTimestampTZ, 'd', 'A', 'b'),
		base(OidInterval, "interval", 16, false, 'T', true, 0, OidIntervalArray, "interval_in", "interval_out", "interval_recv", "interval_send", 'd', 'p', 'b'),
		arrayType(OidIntervalArray, "_interval", OidInterval, 'd', 'A', 'b'),
		arrayType(OidNumericArray, "_numeric", OidNumeric, 'i', 'A', 'b'),
		base(OidTimeTZ, "timetz", 12, false, 'D', false, 0, OidTimeTZArray, "timetz_in", "timetz_out", "timetz_recv", "timetz_send", 'd', 'p', 'b'),
		arrayType(OidTimeTZArray, "_timetz", OidTimeTZ, 'd', 'A', 'b'),
		base(OidNumeric, "numeric", -1, false, 'N', false, 0, OidNumericArray, "numeric_in", "numeric_out", "numeric_recv", "numeric_send", 'i', 'm', 'b'),
		base(OidRegclass, "regclass", 4, true, 'N', false, 0, OidRegclassArray, "regclassin", "regclassout", "regclassrecv", "regclasssend", 'i', 'p', 'b'),
		base(OidRegtype, "regtype", 4, true, 'N', false, 0, OidRegtypeArray, "regtypein", "regtypeout", "regtyperecv", "regtypesend", 'i', 'p', 'b'),
		arrayType(OidRegclassArray, "_regclass", OidRegclass, 'i', 'A', 'b'),
		arrayType(OidRegtypeArray, "_regtype", OidRegtype, 'i', 'A', 'b'),
		base(OidRegconfig, "regconfig", 4, true, 'N', false, 0, OidRegconfigArray, "regconfigin", "regconfigout", "regconfigrecv", "regconfigsend", 'i', 'p', 'b'),
		base(OidRegdict, "regdictionary", 4, true, 'N', false, 0, OidRegdictArray, "regdictionaryin", "regdictionaryout", "regdictionaryrecv", "regdictionarysend", 'i', 'p', 'b'),
		arrayType(OidRegconfigArray, "_regconfig", OidRegconfig, 'i', 'A', 'b'),
		base(OidRegprocedure, "regprocedure", 4, true, 'N', false, 0, OidRegprocedureArray, "regprocedurein", "regprocedureout", "regprocedurerecv", "regproceduresend", 'i', 'p', 'b'),
		arrayType(OidRegprocedureArray, "_regprocedure", OidRegprocedure, 'i', 'A', 'b'),
		base(OidRegnamespace, "regnamespace", 4, true, 'N', false, 0, OidRegnamespaceArray, "regnamespacein", "regnamespaceout", "regnamespacerecv", "regnamespacesend", 'i', 'p', 'b'),
		base(OidRegrole, "regrole", 4, true, 'N', false, 0, OidRegroleArray, "regrolein", "regroleout", "regrolerecv", "regrolesend", 'i', 'p', 'b'),
		arrayType(OidRegnamespaceArray, "_regnamespace", OidRegnamespace, 'i', 'A', 'b'),
		arrayType(OidRegroleArray, "_regrole", OidRegrole, 'i', 'A', 'b'),
		arrayType(OidRegdictArray, "_regdictionary", OidRegdict, 'i', 'A', 'b'),
		base(OidRecord, "record", -1, false, 'P', false, 0, OidRecordArray, "record_in", "record_out", "record_recv", "record_send", 'd', 'x', 'p'),
		base(OidVoid, "void", 4, true, 'P', false, 0, 0, "void_in", "void_out", "void_recv", "void_send", 'i', 'p', 'p'),
		arrayType(OidRecordArray, "_record", OidRecord, 'd', 'P', 'p'),
		base(OidUUID, "uuid", 16, false, 'U', false, 0, OidUUIDArray, "uuid_in", "uuid_out", "uuid_recv", "uuid_send", 'c', 'p', 'b'),
		arrayType(OidUUIDArray, "_uuid", OidUUID, 'i', 'A', 'b'),
		base(OidInet, "inet", -1, false, 'I', true, 0, OidInetArray, "inet_in", "inet_out", "inet_recv", "inet_send", 'i', 'm', 'b'),
		arrayType(OidInetArray, "_inet", OidInet, 'i', 'A', 'b'),
		base(OidCidr, "cidr", -1, false, 'I', false, 0, OidCidrArray, "cidr_in", "cidr_out", "cidr_recv", "cidr_send", 'i', 'm', 'b'),
		arrayType(OidCidrArray, "_cidr", OidCidr, 'i', 'A', 'b'),
		base(OidTSVector, "tsvector", -1, false, 'U', false, 0, OidTSVectorArray, "tsvectorin", "tsvectorout", "tsvectorrecv", "tsvectorsend", 'i', 'x', 'b'),
		base(OidTSQuery, "tsquery", -1, false, 'U', false, 0, OidTSQueryArray, "tsqueryin", "tsqueryout", "tsqueryrecv", "tsquerysend", 'i', 'p', 'b'),
		arrayType(OidTSVectorArray, "_tsvector", OidTSVector, 'i', 'A', 'b'),
		arrayType(OidTSQueryArray, "_tsquery", OidTSQuery, 'i', 'A', 'b'),
		base(OidJSONB, "jsonb", -1, false, 'U', false, 0, OidJSONBArray, "jsonb_in", "jsonb_out", "jsonb_recv", "jsonb_send", 'i', 'x', 'b'),
		arrayType(OidJSONBArray, "_jsonb", OidJSONB, 'i', 'A', 'b'),
		base(OidBit, "bit", -1, false, 'V', false, 0, OidBitArray, "bit_in", "bit_out", "bit_recv", "bit_send", 'i', 'x', 'b'),
		arrayType(OidBitArray, "_bit", OidBit, 'i', 'A', 'b'),
		base(OidVarbit, "varbit", -1, false, 'V', true, 0, OidVarbitArray, "varbit_in", "varbit_out", "varbit_recv", "varbit_send", 'i', 'x', 'b'),
		arrayType(OidVarbitArray, "_varbit", OidVarbit, 'i', 'A', 'b'),
		// contrib's citext: a string type (category S, not preferred)
		// of text's representation and I/O.
		base(OidCIText, "citext", -1, false, 'S', false, 0, OidCITextArray, "citextin", "citextout", "citextrecv", "citextsend", 'i', 'x', 'b'),
		arrayType(OidCITextArray, "_citext", OidCIText, 'i', 'A', 'b'),
		// contrib's hstore: a user-category type (hstore.go).
		base(OidHstore, "hstore", -1, false, 'U', false, 0, OidHstoreArray, "hstore_in", "hstore_out", "hstore_recv", "hstore_send", 'i', 'x', 'b'),
		arrayType(OidHstoreArray, "_hstore", OidHstore, 'i', 'A', 'b'),
	}
	t = append(t, rangeTypeRows()...)
	modio := map[Oid][2]string{
		OidBpchar: {"bpchartypmodin", "bpchartypmodout"}, OidVarchar: {"varchartypmodin", "varchartypmodout"},
		OidTime: {"timetypmodin", "timetypmodout"}, OidTimeTZ: {"timetztypmodin", "timetztypmodout"},
		OidTimestamp: {"timestamptypmodin", "timestamptypmodout"}, OidTimestampTZ: {"timestamptztypmodin", "timestamptztypmodout"},
		OidInterval: {"intervaltypmodin", "intervaltypmodout"}, OidNumeric: {"numerictypmodin", "numerictypmodout"},
		OidBit: {"bittypmodin", "bittypmodout"}, OidVarbit: {"varbittypmodin", "varbittypmodout"},
	}
	for i := range t {
		m, ok := modio[t[i].Oid]
		if !ok && t[i].IsArray {
			m, ok = modio[t[i].Elem]
		}
		if ok {
			t[i].TypmodIn, t[i].TypmodOut = m[0], m[1]
		}
	}
	return t
}()

var typeByOid = func() map[Oid]*Type {
	m := make(map[Oid]*Type, len(Types))
	for i := range Types {
		m[Types[i].Oid] = &Types[i]
	}
	return m
}()

// ioFunctions are the names of the built-in types' I/O functions.
var ioFunctions = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range Types {
		for _, f := range []string{t.Input, t.Output, t.Receive, t.Send, t.TypmodIn, t.TypmodOut} {
			if f != "" && f != "-" {
				m[f] = true
			}
		}
	}
	m["array_subscript_handler"], m["array_typanalyze"] = true, true
	return m
}()

// IsIOFunction reports whether name is the input, output, receive, send
// or typmod function of a built-in type (array_in, int4recv, ...).
func IsIOFunction(name string) bool { return ioFunctions[name] }

// IOFunctions calls fn with the name of every built-in type I/O function.
func IOFunctions(fn func(name string)) {
	for name := range ioFunctions {
		fn(name)
	}
}

// Lookup returns the pg_type facts of a built-in type, or nil.
func Lookup(oid Oid) *Type { return typeByOid[oid] }

// ArrayOf returns the array type of elem, or 0 if it has none.
func ArrayOf(elem Oid) Oid {
	if cat, array := UserCategoryOf(elem); cat != 0 {
		if array || cat == UserDomain {
			return 0
		}
		return elem | ArrayBit
	}
	if t := typeByOid[elem]; t != nil && !t.IsArray {
		return t.Array
	}
	return 0
}

// ElemOf returns the element type of an array type, or 0 if oid is not one.
func ElemOf(arr Oid) Oid {
	if _, array := UserCategoryOf(arr); array {
		return arr &^ ArrayBit
	}
	if t := typeByOid[arr]; t != nil && t.IsArray {
		return t.Elem
	}
	return 0
}

// VarHdrSz is PostgreSQL's VARHDRSZ, the offset added to character and
// numeric typmods.
const VarHdrSz = 4

// CharTypmod returns the typmod of varchar(n) or char(n).
func CharTypmod(n int32) int32 { return n + VarHdrSz }

// CharTypmodLen returns n of varchar(n)/char(n), or -1 for no limit.
func CharTypmodLen(typmod int32) int32 {
	if typmod < VarHdrSz {
		return -1
	}
	return typmod - VarHdrSz
}

// NumericTypmod returns the typmod of numeric(precision, scale). PostgreSQL 15
// allows 1 ≤ precision ≤ 1000 and -1000 ≤ scale ≤ 1000.
func NumericTypmod(precision, scale int32) int32 {
	return ((precision << 16) | (scale & 0x7ff)) + VarHdrSz
}

// NumericTypmodPrecision returns the precision and scale of a numeric typmod;
// ok is false for typmod -1 (unconstrained).
func NumericTypmodPrecision(typmod int32) (precision, scale int32, ok bool) {
	if typmod < VarHdrSz {
		return 0, 0, false
	}
	t := typmod - VarHdrSz
	precision = (t >> 16) & 0xffff
	scale = ((t & 0x7ff) ^ 1024) - 1024 // sign-extend the 11-bit scale
	return precision, scale, true
}

// Interval typmod fields (PostgreSQL's INTERVAL_MASK bits) and the encoding
// typmod = range<<16 | precision, where precision 0xFFFF means "full".
const (
	IntervalMonth  = 1 << 1
	IntervalYear   = 1 << 2
	IntervalDay    = 1 << 3
	IntervalHour   = 1 << 10
	IntervalMinute = 1 << 11
	IntervalSecond = 1 << 12

	IntervalFullRange     = 0x7FFF
	IntervalFullPrecision = 0xFFFF
)

// IntervalTypmod returns the typmod of an interval with the given field range
// (an OR of Interval* bits, or IntervalFullRange) and fractional-second
// precision (0..6, or IntervalFullPrecision).
func IntervalTypmod(rng, precision int32) int32 {
	return (rng&0x7FFF)<<16 | (precision & 0xFFFF)
}

func intervalTypmodRange(typmod int32) int32 {
	if typmod < 0 {
		return IntervalFullRange
	}
	return (typmod >> 16) & 0x7FFF
}

func intervalTypmodPrecision(typmod int32) int32 {
	if typmod < 0 {
		return IntervalFullPrecision
	}
	return typmod & 0xFFFF
}

// FormatType returns the type's name as PostgreSQL's format_type(oid, typmod)
// prints it when a typmod is given (as psql's \d does): "integer",
// "character varying(10)", "numeric(10,2)", "timestamp(3) without time zone",
// "interval day to second(0)", "integer[]". typmod -1 means none. Unknown
// OIDs print as "???" like PostgreSQL.
func FormatType(oid Oid, typmod int32) string {
	return string(AppendFormatType(nil, oid, typmod))
}

// appendParenInt appends "(n)", a type modifier as format_type shows it.
func appendParenInt(dst []byte, n int64) []byte {
	dst = append(dst, '(')
	dst = strconv.AppendInt(dst, n, 10)
	return append(dst, ')')
}

// AppendFormatType appends FormatType(oid, typmod) to dst.
func AppendFormatType(dst []byte, oid Oid, typmod int32) []byte {
	t := typeByOid[oid]
	if t == nil {
		return append(dst, "???"...)
	}
	if t.IsArray && t.Len == -1 && t.Storage != 'p' {
		dst = AppendFormatType(dst, t.Elem, typmod)
		return append(dst, "[]"...)
	}
	switch oid {
	case OidBool:
		return append(dst, "boolean"...)
	case OidChar:
		return append(dst, `"char"`...)
	case OidInt2:
		return append(dst, "smallint"...)
	case OidInt4:
		return append(dst, "integer"...)
	case OidInt8:
		return append(dst, "bigint"...)
	case OidFloat4:
		return append(dst, "real"...)
	case OidFloat8:
		return append(dst, "double precision"...)
	case OidBpchar:
		if typmod < 0 {
			return append(dst, "bpchar"...)
		}
		dst = append(dst, "character("...)
		dst = strconv.AppendInt(dst, int64(typmod-VarHdrSz), 10)
		return append(dst, ')')
	case OidVarchar:
		dst = append(dst, "character varying"...)
		if typmod >= 0 {
			dst = appendParenInt(dst, int64(typmod-VarHdrSz))
		}
		return dst
	case OidBit, OidVarbit:
		if oid == OidBit {
			dst = append(dst, "bit"...)
		} else {
			dst = append(dst, "bit varying"...)
		}
		if typmod >= 0 {
			dst = appendParenInt(dst, int64(typmod))
		}
		return dst
	case OidNumeric:
		dst = append(dst, "numeric"...)
		if p, s, ok := NumericTypmodPrecision(typmod); ok {
			dst = append(dst, '(')
			dst = strconv.AppendInt(dst, int64(p), 10)
			dst = append(dst, ',')
			dst = strconv.AppendInt(dst, int64(s), 10)
			dst = append(dst, ')')
		}
		return dst
	case OidTime, OidTimeTZ, OidTimestamp, OidTimestampTZ:
		if oid == OidTime || oid == OidTimeTZ {
			dst = append(dst, "time"...)
		} else {
			dst = append(dst, "timestamp"...)
		}
		if typmod >= 0 {
			dst = appendParenInt(dst, int64(typmod))
		}
		if oid == OidTime || oid == OidTimestamp {
			return append(dst, " without time zone"...)
		}
		return append(dst, " with time zone"...)
	case OidInterval:
		dst = append(dst, "interval"...)
		if typmod < 0 {
			return dst
		}
		switch intervalTypmodRange(typmod) {
		case IntervalYear:
			dst = append(dst, " year"...)
		case IntervalMonth:
			dst = append(dst, " month"...)
		case IntervalDay:
			dst = append(dst, " day"...)
		case IntervalHour:
			dst = append(dst, " hour"...)
		case IntervalMinute:
			dst = append(dst, " minute"...)
		case IntervalSecond:
			dst = append(dst, " second"...)
		case IntervalYear | IntervalMonth:
			dst = append(dst, " year to month"...)
		case IntervalDay | IntervalHour:
			dst = append(dst, " day to hour"...)
		case IntervalDay | IntervalHour | IntervalMinute:
			dst = append(dst, " day to minute"...)
		case IntervalDay | IntervalHour | IntervalMinute | IntervalSecond:
			dst = append(dst, " day to second"...)
		case IntervalHour | IntervalMinute:
			dst = append(dst, " hour to minute"...)
		case IntervalHour | IntervalMinute | IntervalSecond:
			dst = append(dst, " hour to second"...)
		case IntervalMinute | IntervalSecond:
			dst = append(dst, " minute to second"...)
		}
		if p := intervalTypmodPrecision(typmod); p != IntervalFullPrecision {
			dst = append(dst, '(')
			dst = strconv.AppendInt(dst, int64(p), 10)
			dst = append(dst, ')')
		}
		return dst
	}
	if oid == OidRecordArray {
		return append(dst, "record[]"...)
	}
	return append(dst, t.Name...)
}
