package types

// Oid is a PostgreSQL object identifier; here, the OID of a type in pg_type.
type Oid uint32

// OIDs of the built-in types this package knows, as in PostgreSQL's
// pg_type.dat. They never change between PostgreSQL versions.
const (
	OidBool         Oid = 16
	OidBytea        Oid = 17
	OidChar         Oid = 18 // "char", the single-byte internal type
	OidName         Oid = 19
	OidInt8         Oid = 20
	OidInt2         Oid = 21
	OidInt2Vector   Oid = 22 // int2vector: an int2 array of lower bound 0, printed "1 2"
	OidOidVector    Oid = 30 // oidvector: the same of oid
	OidInt4         Oid = 23
	OidRegproc      Oid = 24
	OidText         Oid = 25
	OidOid          Oid = 26
	OidXid          Oid = 28
	OidXidArray     Oid = 1011
	OidXid8         Oid = 5069
	OidXid8Array    Oid = 271
	OidJSON         Oid = 114
	OidXML          Oid = 142
	OidFloat4       Oid = 700
	OidFloat8       Oid = 701
	OidUnknown      Oid = 705
	OidBpchar       Oid = 1042
	OidVarchar      Oid = 1043
	OidDate         Oid = 1082
	OidTime         Oid = 1083
	OidTimestamp    Oid = 1114
	OidTimestampTZ  Oid = 1184
	OidInterval     Oid = 1186
	OidTimeTZ       Oid = 1266
	OidNumeric      Oid = 1700
	OidRegclass     Oid = 2205
	OidRegtype      Oid = 2206
	OidRegconfig    Oid = 3734
	OidRegprocedure Oid = 2202
	OidRegnamespace Oid = 4089
	OidRegrole      Oid = 4096
	OidRegdict      Oid = 3769
	OidRecord       Oid = 2249
	OidVoid         Oid = 2278
	OidUUID         Oid = 2950
	OidInet         Oid = 869
	OidCidr         Oid = 650
	OidInetArray    Oid = 1041
	OidCidrArray    Oid = 651
	OidTSVector     Oid = 3614
	OidTSQuery      Oid = 3615
	OidJSONB        Oid = 3802
	OidBit          Oid = 1560
	OidVarbit       Oid = 1562

	OidBoolArray         Oid = 1000
	OidByteaArray        Oid = 1001
	OidCharArray         Oid = 1002
	OidNameArray         Oid = 1003
	OidInt2Array         Oid = 1005
	OidInt4Array         Oid = 1007
	OidRegprocArray      Oid = 1008
	OidTextArray         Oid = 1009
	OidBpcharArray       Oid = 1014
	OidVarcharArray      Oid = 1015
	OidInt8Array         Oid = 1016
	OidFloat4Array       Oid = 1021
	OidFloat8Array       Oid = 1022
	OidOidArray          Oid = 1028
	OidTimestampArray    Oid = 1115
	OidDateArray         Oid = 1182
	OidTimeArray         Oid = 1183
	OidTimestampTZArray  Oid = 1185
	OidIntervalArray     Oid = 1187
	OidNumericArray      Oid = 1231
	OidTimeTZArray       Oid = 1270
	OidJSONArray         Oid = 199
	OidXMLArray          Oid = 143
	OidRegclassArray     Oid = 2210
	OidRegtypeArray      Oid = 2211
	OidRegconfigArray    Oid = 3735
	OidRegprocedureArray Oid = 2207
	OidRegnamespaceArray Oid = 4090
	OidRegroleArray      Oid = 4097
	OidRegdictArray      Oid = 3770
	OidRecordArray       Oid = 2287
	OidUUIDArray         Oid = 2951
	OidTSVectorArray     Oid = 3643
	OidTSQueryArray      Oid = 3645
	OidJSONBArray        Oid = 3807
	OidBitArray          Oid = 1561
	OidVarbitArray       Oid = 1563
)

// OIDs of the types of the contrib extensions this server has built in
// (citext, hstore). PostgreSQL gives an extension's types whatever OIDs are
// free when CREATE EXTENSION runs, at or above 16384; here they must be
// fixed, and below 16384, where UserCategoryOf does not read category bits
// into them. They are taken from 8000-9999, the range PostgreSQL keeps for
// development and never ships an object in.
const (
	OidCIText      Oid = 9500
	OidCITextArray Oid = 9501
	OidHstore      Oid = 9510
	OidHstoreArray Oid = 9511
)

// ExtensionOf returns the extension that defines type oid, one of the
// extension types above or an array of one, and "" for any other type.
// pg_type lists them with the built-in types, in pg_catalog, where no
// dump or catalog query mistakes them for user objects to recreate;
// information_schema and format_type name them as PostgreSQL does once
// CREATE EXTENSION has made them in a schema, public by default.
func ExtensionOf(oid Oid) string {
	switch oid {
	case OidCIText, OidCITextArray:
		return "citext"
	case OidHstore, OidHstoreArray:
		return "hstore"
	}
	return ""
}
