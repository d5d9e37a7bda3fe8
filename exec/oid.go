package exec

import "github.com/prollypg/prollypg/exec/types"

// Type OIDs of the built-in types the executor handles, as in PostgreSQL's
// pg_type.
const (
	OIDBool        uint32 = 16
	OIDBytea       uint32 = 17
	OIDChar        uint32 = 18
	OIDName        uint32 = 19
	OIDInt8        uint32 = 20
	OIDInt2        uint32 = 21
	OIDInt4        uint32 = 23
	OIDText        uint32 = 25
	OIDOid         uint32 = 26
	OIDXid         uint32 = 28   // a transaction id (the system columns xmin and xmax)
	OIDXid8        uint32 = 5069 // a transaction id with its epoch (pg_current_xact_id)
	OIDJSON        uint32 = 114
	OIDXML         uint32 = 142
	OIDFloat4      uint32 = 700
	OIDFloat8      uint32 = 701
	OIDUnknown     uint32 = 705
	OIDBpchar      uint32 = 1042
	OIDVarchar     uint32 = 1043
	OIDDate        uint32 = 1082
	OIDTime        uint32 = 1083
	OIDTimestamp   uint32 = 1114
	OIDTimestampTZ uint32 = 1184
	OIDInterval    uint32 = 1186
	OIDNumeric     uint32 = 1700
	OIDUUID        uint32 = 2950
	OIDInet        uint32 = 869
	OIDCidr        uint32 = 650
	OIDJSONB       uint32 = 3802
	OIDBit         uint32 = 1560
	OIDVarbit      uint32 = 1562
	OIDTSVector    uint32 = 3614
	OIDTSQuery     uint32 = 3615
	OIDVoid        uint32 = 2278
	OIDRecord      uint32 = 2249
	OIDRegclass    uint32 = 2205
	OIDPoint       uint32 = 600
	OIDLSeg        uint32 = 601
	OIDPath        uint32 = 602
	OIDBox         uint32 = 603
	OIDPolygon     uint32 = 604
	OIDLine        uint32 = 628
	OIDCircle      uint32 = 718
	OIDCIText      uint32 = uint32(types.OidCIText) // contrib's citext (citext.go)
	OIDHstore      uint32 = uint32(types.OidHstore) // contrib's hstore (hstore.go)
)

// T is a SQL type: a type OID and a type modifier (-1 for none), as in
// pg_attribute.atttypid and atttypmod.
type T struct {
	OID    uint32
	Typmod int32
}

// Common types without modifiers.
var (
	TBool        = T{OIDBool, -1}
	TInt2        = T{OIDInt2, -1}
	TInt4        = T{OIDInt4, -1}
	TInt8        = T{OIDInt8, -1}
	TFloat4      = T{OIDFloat4, -1}
	TFloat8      = T{OIDFloat8, -1}
	TNumeric     = T{OIDNumeric, -1}
	TText        = T{OIDText, -1}
	TUnknown     = T{OIDUnknown, -1}
	TBytea       = T{OIDBytea, -1}
	TDate        = T{OIDDate, -1}
	TTime        = T{OIDTime, -1}
	TTimestamp   = T{OIDTimestamp, -1}
	TTimestampTZ = T{OIDTimestampTZ, -1}
	TInterval    = T{OIDInterval, -1}
	TUUID        = T{OIDUUID, -1}
	TInet        = T{OIDInet, -1}
	TCidr        = T{OIDCidr, -1}
	TJSON        = T{OIDJSON, -1}
	TJSONB       = T{OIDJSONB, -1}
	TTSVector    = T{OIDTSVector, -1}
	TTSQuery     = T{OIDTSQuery, -1}
	TName        = T{OIDName, -1}
	TOid         = T{OIDOid, -1}
	TVoid        = T{OIDVoid, -1}
)

// KindOf returns how Datums of type oid hold their values.
func KindOf(oid uint32) Kind {
	switch oid {
	case OIDBool:
		return KindBool
	case OIDInt2, OIDInt4, OIDInt8, OIDOid, OIDXid, OIDXid8, OIDRegclass, OIDRegproc, OIDRegtype, OIDRegnamespace, OIDRegrole, OIDRegconfig, OIDRegdictionary, OIDRegprocedure:
		return KindInt
	case OIDFloat4, OIDFloat8:
		return KindFloat
	case OIDNumeric:
		return KindNumeric
	case OIDText, OIDVarchar, OIDBpchar, OIDName, OIDChar, OIDUnknown, OIDBit, OIDVarbit, OIDXML:
		return KindText // a bit string is its text form (types/bit.go)
	case OIDBytea:
		return KindBytes
	case OIDDate:
		return KindDate
	case OIDTime:
		return KindTime
	case OIDTimeTZ:
		return KindTimeTZ
	case OIDTimestamp, OIDTimestampTZ:
		return KindTimestamp
	case OIDInterval:
		return KindInterval
	case OIDUUID:
		return KindUUID
	case OIDInet, OIDCidr:
		return KindInet
	case OIDPoint, OIDLSeg, OIDPath, OIDBox, OIDPolygon, OIDLine, OIDCircle:
		return KindGeometry
	case OIDJSON, OIDJSONB:
		return KindJSON
	case OIDTSVector:
		return KindTSVector
	case OIDTSQuery:
		return KindTSQuery
	case OIDCIText:
		return KindCIText
	case OIDHstore:
		return KindHstore
	}
	if IsArrayType(oid) {
		return KindArray
	}
	switch cat, _ := types.UserCategoryOf(types.Oid(oid)); cat {
	case types.UserEnum:
		return KindEnum
	case types.UserComposite:
		return KindRecord
	case types.UserRange:
		return KindRange
	}
	if types.RangeSubtypeOf(types.Oid(oid)) != 0 {
		return KindRange
	}
	if types.MultirangeRange(types.Oid(oid)) != 0 {
		return KindMultirange
	}
	if oid == OIDRecord {
		return KindRecord
	}
	return KindNull
}

// typeNames maps type OIDs to the names PostgreSQL's format_type prints.
var typeNames = map[uint32]string{
	OIDBool: "boolean", OIDBytea: "bytea", OIDChar: `"char"`, OIDName: "name",
	OIDInt8: "bigint", OIDInt2: "smallint", OIDInt4: "integer", OIDText: "text",
	OIDOid: "oid", OIDXid: "xid", OIDXid8: "xid8", OIDJSON: "json", OIDXML: "xml", OIDFloat4: "real", OIDFloat8: "double precision",
	OIDUnknown: "unknown", OIDBpchar: "character", OIDVarchar: "character varying",
	OIDDate: "date", OIDTime: "time without time zone", OIDTimestamp: "timestamp without time zone",
	OIDTimestampTZ: "timestamp with time zone", OIDInterval: "interval", OIDNumeric: "numeric",
	OIDUUID: "uuid", OIDInet: "inet", OIDCidr: "cidr", OIDJSONB: "jsonb", OIDTSVector: "tsvector", OIDTSQuery: "tsquery", OIDCIText: "citext", OIDHstore: "hstore", OIDVoid: "void", 2279: "trigger", OIDRecord: "record", OIDRegclass: "regclass",
	OIDInt2Vector: "int2vector", OIDOidVector: "oidvector", OIDBit: "bit", OIDVarbit: "bit varying",
	OIDPoint: "point", OIDLSeg: "lseg", OIDPath: "path", OIDBox: "box", OIDPolygon: "polygon", OIDLine: "line", OIDCircle: "circle",
	OIDRegproc: "regproc", OIDRegtype: "regtype", OIDRegnamespace: "regnamespace", OIDRegrole: "regrole", OIDRegconfig: "regconfig", OIDRegdictionary: "regdictionary", OIDRegprocedure: "regprocedure",
	uint32(types.OidInt4Range): "int4range", uint32(types.OidNumRange): "numrange", uint32(types.OidTsRange): "tsrange",
	uint32(types.OidTstzRange): "tstzrange", uint32(types.OidDateRange): "daterange", uint32(types.OidInt8Range): "int8range",
	uint32(types.OidInt4Multirange): "int4multirange", uint32(types.OidNumMultirange): "nummultirange",
	uint32(types.OidTsMultirange): "tsmultirange", uint32(types.OidTstzMultirange): "tstzmultirange",
	uint32(types.OidDateMultirange): "datemultirange", uint32(types.OidInt8Multirange): "int8multirange",
}

// TypeName returns the name PostgreSQL prints for type oid.
func TypeName(oid uint32) string {
	if n, ok := typeNames[oid]; ok {
		return n
	}
	if e := types.ElemOf(types.Oid(oid)); e != 0 {
		return TypeName(uint32(e)) + "[]"
	}
	return "???"
}

// TypeNameIn is TypeName that also names the user-defined types of the
// session whose settings st are, which only its catalog knows.
func TypeNameIn(st *Settings, oid uint32) string {
	if name, ok := userTypeName(st, oid); ok {
		return name
	}
	return TypeName(oid)
}

// FormatTypeIn is types.FormatType that also names user-defined types.
func FormatTypeIn(st *Settings, oid uint32, typmod int32) string {
	if name, ok := userTypeName(st, oid); ok {
		return name
	}
	if name, ok := PseudoTypeName(oid); ok {
		return name
	}
	return types.FormatType(types.Oid(oid), typmod)
}

// PseudoTypeName names "any" and the polymorphic pseudo-types, which
// package types, a catalog of the types of values, does not have.
func PseudoTypeName(oid uint32) (string, bool) {
	if oid != OIDAny && !IsPolymorphic(oid) {
		return "", false
	}
	return typeNames[oid], true
}

func userTypeName(st *Settings, oid uint32) (string, bool) {
	if cat, _ := types.UserCategoryOf(types.Oid(oid)); cat == 0 && types.ExtensionOf(types.Oid(oid)) == "" || st == nil || st.Types == nil {
		return "", false
	}
	return st.Types.TypeName(types.Oid(oid))
}
