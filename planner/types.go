package planner

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// timeTypeName is the SQL name of a time type in precision errors.
func timeTypeName(oid uint32) string {
	switch oid {
	case exec.OIDTimestamp:
		return "TIMESTAMP"
	case exec.OIDTimestampTZ:
		return "TIMESTAMP WITH TIME ZONE"
	}
	return "TIME"
}

// typeByName maps the names a TypeName may use (after pg_catalog.) to OIDs.
var typeByName = map[string]uint32{
	"bool": exec.OIDBool, "boolean": exec.OIDBool,
	"int2": exec.OIDInt2, "smallint": exec.OIDInt2,
	"int4": exec.OIDInt4, "int": exec.OIDInt4, "integer": exec.OIDInt4,
	"int8": exec.OIDInt8, "bigint": exec.OIDInt8,
	"float4": exec.OIDFloat4, "real": exec.OIDFloat4,
	"float8": exec.OIDFloat8, "double precision": exec.OIDFloat8,
	"numeric": exec.OIDNumeric, "decimal": exec.OIDNumeric,
	"text": exec.OIDText, "varchar": exec.OIDVarchar, "character varying": exec.OIDVarchar,
	"bpchar": exec.OIDBpchar, "char": exec.OIDChar, "character": exec.OIDBpchar,
	"name": exec.OIDName, "bytea": exec.OIDBytea,
	"date": exec.OIDDate, "time": exec.OIDTime, "timetz": exec.OIDTimeTZ, "timestamp": exec.OIDTimestamp,
	"timestamptz": exec.OIDTimestampTZ, "interval": exec.OIDInterval,
	"uuid": exec.OIDUUID, "inet": exec.OIDInet, "cidr": exec.OIDCidr, "json": exec.OIDJSON, "jsonb": exec.OIDJSONB, "xml": exec.OIDXML, "oid": exec.OIDOid, "xid": exec.OIDXid, "xid8": exec.OIDXid8,
	"regclass": exec.OIDRegclass, "regtype": exec.OIDRegtype, "regnamespace": exec.OIDRegnamespace,
	"regrole": exec.OIDRegrole, "regproc": exec.OIDRegproc, "regconfig": exec.OIDRegconfig, "regprocedure": exec.OIDRegprocedure, "regdictionary": exec.OIDRegdictionary,
	"int2vector": exec.OIDInt2Vector, "oidvector": exec.OIDOidVector,
	"tsvector": exec.OIDTSVector, "tsquery": exec.OIDTSQuery,
	"point": exec.OIDPoint, "lseg": exec.OIDLSeg, "path": exec.OIDPath, "box": exec.OIDBox,
	"polygon": exec.OIDPolygon, "line": exec.OIDLine, "circle": exec.OIDCircle,
	"bit": exec.OIDBit, "varbit": exec.OIDVarbit, "bit varying": exec.OIDVarbit,
	"int4range": uint32(types.OidInt4Range), "int8range": uint32(types.OidInt8Range),
	"numrange": uint32(types.OidNumRange), "daterange": uint32(types.OidDateRange),
	"tsrange": uint32(types.OidTsRange), "tstzrange": uint32(types.OidTstzRange),
	"int4multirange": uint32(types.OidInt4Multirange), "int8multirange": uint32(types.OidInt8Multirange),
	"nummultirange": uint32(types.OidNumMultirange), "datemultirange": uint32(types.OidDateMultirange),
	"tsmultirange": uint32(types.OidTsMultirange), "tstzmultirange": uint32(types.OidTstzMultirange),
	"citext": exec.OIDCIText, "hstore": exec.OIDHstore,
}

// extensionTypes are the types of the contrib extensions built in
// (planner/ddl/extension.go), which PostgreSQL creates in the schema
// CREATE EXTENSION names, public by default: public.citext names one.
var extensionTypes = map[string]bool{"citext": true, "hstore": true}

// serialTypes are the pseudo-types of CREATE TABLE that make a sequence.
var serialTypes = map[string]uint32{
	"serial": exec.OIDInt4, "serial4": exec.OIDInt4,
	"bigserial": exec.OIDInt8, "serial8": exec.OIDInt8,
	"smallserial": exec.OIDInt2, "serial2": exec.OIDInt2,
}

// ResolveType returns the type a TypeName names, and whether it is a
// serial pseudo-type.
func ResolveType(tn *pg.TypeName) (exec.T, bool, error) {
	var parts []string
	for _, n := range tn.Names {
		parts = append(parts, n.GetString_().GetSval())
	}
	name := parts[len(parts)-1]
	if len(parts) == 2 && parts[0] != "pg_catalog" && !(parts[0] == "public" && extensionTypes[strings.TrimPrefix(name, "_")]) {
		return exec.T{}, false, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", strings.Join(parts, "."))
	}
	t := exec.T{Typmod: -1}
	serial := false
	arrayName := false // _int4: the array type by its pg_type name
	if oid, ok := serialTypes[name]; ok {
		t.OID, serial = oid, true
	} else if oid, ok := typeByName[name]; ok {
		t.OID = oid
	} else if oid, ok := typeByName[strings.TrimPrefix(name, "_")]; ok && name[0] == '_' && exec.ArrayType(exec.T{OID: oid}).OID != 0 {
		t.OID, arrayName = oid, true
	} else {
		return exec.T{}, false, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", name)
	}
	if serial && len(tn.ArrayBounds) > 0 {
		return exec.T{}, false, pgerr.New(pgerr.FeatureNotSupported, "array of serial is not implemented")
	}
	t, err := applyTypmods(t, strings.TrimPrefix(name, "_"), tn.Typmods)
	if err != nil {
		return exec.T{}, false, err
	}
	if len(tn.ArrayBounds) > 0 || arrayName {
		// int[3][4] is int[]: PostgreSQL ignores the declared bounds.
		t = exec.ArrayType(t)
	}
	return t, serial, nil
}

// applyTypmods applies the modifiers written after a type name (varchar(10),
// numeric(10,2), timestamp(3)) to t, named name.
func applyTypmods(t exec.T, name string, typmods []*pg.Node) (exec.T, error) {
	var mods []int32
	for _, m := range typmods {
		c := m.GetAConst()
		if c == nil || c.GetIval() == nil {
			return exec.T{}, pgerr.New(pgerr.SyntaxError, "type modifiers must be simple constants or identifiers")
		}
		mods = append(mods, c.GetIval().Ival)
	}
	switch t.OID {
	case exec.OIDVarchar, exec.OIDBpchar:
		if len(mods) > 0 {
			if mods[0] < 1 {
				return exec.T{}, pgerr.New(pgerr.InvalidParameterValue, "length for type %s must be at least 1", name)
			}
			t.Typmod = mods[0] + 4
		} else if t.OID == exec.OIDBpchar && name != "bpchar" {
			t.Typmod = 1 + 4 // char means char(1)
		}
	case exec.OIDBit, exec.OIDVarbit:
		if len(mods) > 0 {
			if mods[0] < 1 {
				return exec.T{}, pgerr.New(pgerr.InvalidParameterValue, "length for type %s must be at least 1", name)
			}
			t.Typmod = mods[0]
		} else if t.OID == exec.OIDBit {
			t.Typmod = 1 // bit means bit(1)
		}
	case exec.OIDNumeric:
		switch len(mods) {
		case 1:
			t.Typmod = (mods[0] << 16) + 4
		case 2:
			t.Typmod = (mods[0]<<16 | mods[1]&0xffff) + 4
		}
	case exec.OIDFloat4:
		if len(mods) == 1 && mods[0] > 24 {
			t.OID = exec.OIDFloat8
		}
	case exec.OIDTimestamp, exec.OIDTimestampTZ, exec.OIDTime, exec.OIDTimeTZ:
		if len(mods) == 1 {
			if mods[0] < 0 {
				return exec.T{}, pgerr.New(pgerr.InvalidParameterValue, "%s(%d) precision must not be negative", timeTypeName(t.OID), mods[0])
			}
			t.Typmod = min(mods[0], 6)
		}
	case exec.OIDInterval:
		// The grammar gives INTERVAL_MASK(fields) and then the precision.
		switch len(mods) {
		case 1:
			t.Typmod = types.IntervalTypmod(mods[0], types.IntervalFullPrecision)
		case 2:
			if mods[1] < 0 {
				return exec.T{}, pgerr.New(pgerr.InvalidParameterValue, "INTERVAL(%d) precision must not be negative", mods[1])
			}
			t.Typmod = types.IntervalTypmod(mods[0], min(mods[1], 6))
		}
	}
	return t, nil
}
