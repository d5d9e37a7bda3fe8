package exec

import (
	"encoding/binary"
	"math"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// AppendBinary appends d in PostgreSQL's binary (send) format for type t.
//
// TODO(types): use the exec/types binary codecs, which cover every type.
func AppendBinary(dst []byte, t T, d Datum) ([]byte, error) {
	switch t.OID {
	case OIDBool:
		return append(dst, byte(d.I)), nil
	case OIDInt2:
		return binary.BigEndian.AppendUint16(dst, uint16(d.I)), nil
	case OIDInt4, OIDOid, OIDDate, OIDRegclass:
		return binary.BigEndian.AppendUint32(dst, uint32(d.I)), nil
	case OIDInt8, OIDTime, OIDTimestamp, OIDTimestampTZ:
		return binary.BigEndian.AppendUint64(dst, uint64(d.I)), nil
	case OIDFloat4:
		return binary.BigEndian.AppendUint32(dst, math.Float32bits(float32(d.F))), nil
	case OIDFloat8:
		return binary.BigEndian.AppendUint64(dst, math.Float64bits(d.F)), nil
	case OIDText, OIDVarchar, OIDBpchar, OIDName, OIDBytea, OIDUUID, OIDJSON, OIDUnknown:
		return append(dst, d.S...), nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "binary output of type %s is not supported yet", TypeName(t.OID))
}

// DecodeBinary decodes a value in PostgreSQL's binary (recv) format for
// type t: a bound parameter or a field of COPY BINARY.
func DecodeBinary(t T, b []byte) (Datum, error) {
	bad := func() (Datum, error) {
		return Null, pgerr.New(pgerr.InvalidBinaryRepresentation, "incorrect binary data format")
	}
	switch t.OID {
	case OIDBool:
		if len(b) != 1 {
			return bad()
		}
		return DBool(b[0] != 0), nil
	case OIDInt2:
		if len(b) != 2 {
			return bad()
		}
		return DInt(int64(int16(binary.BigEndian.Uint16(b)))), nil
	case OIDInt4, OIDOid:
		if len(b) != 4 {
			return bad()
		}
		return DInt(int64(int32(binary.BigEndian.Uint32(b)))), nil
	case OIDDate:
		if len(b) != 4 {
			return bad()
		}
		return DDate(int64(int32(binary.BigEndian.Uint32(b)))), nil
	case OIDInt8:
		if len(b) != 8 {
			return bad()
		}
		return DInt(int64(binary.BigEndian.Uint64(b))), nil
	case OIDTime, OIDTimestamp, OIDTimestampTZ:
		if len(b) != 8 {
			return bad()
		}
		return Datum{Kind: KindOf(t.OID), I: int64(binary.BigEndian.Uint64(b))}, nil
	case OIDFloat4:
		if len(b) != 4 {
			return bad()
		}
		return DFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(b)))), nil
	case OIDFloat8:
		if len(b) != 8 {
			return bad()
		}
		return DFloat(math.Float64frombits(binary.BigEndian.Uint64(b))), nil
	case OIDText, OIDVarchar, OIDBpchar, OIDName, OIDJSON:
		return DText(string(b)), nil
	case OIDBytea:
		return DBytes(string(b)), nil
	case OIDUUID:
		if len(b) != 16 {
			return bad()
		}
		return Datum{Kind: KindUUID, S: string(b)}, nil
	}
	return Null, pgerr.New(pgerr.FeatureNotSupported, "binary input of type %s is not supported yet", TypeName(t.OID))
}
