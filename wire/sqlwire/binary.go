package sqlwire

import (
	"encoding/binary"
	"math"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// appendBinary appends d in PostgreSQL's binary (send) format for type t.
//
// TODO(types): use the exec/types binary codecs, which cover every type.
func appendBinary(dst []byte, t exec.T, d exec.Datum) ([]byte, error) {
	switch t.OID {
	case exec.OIDBool:
		return append(dst, byte(d.I)), nil
	case exec.OIDInt2:
		return binary.BigEndian.AppendUint16(dst, uint16(d.I)), nil
	case exec.OIDInt4, exec.OIDOid, exec.OIDDate, exec.OIDRegclass:
		return binary.BigEndian.AppendUint32(dst, uint32(d.I)), nil
	case exec.OIDInt8, exec.OIDTime, exec.OIDTimestamp, exec.OIDTimestampTZ:
		return binary.BigEndian.AppendUint64(dst, uint64(d.I)), nil
	case exec.OIDFloat4:
		return binary.BigEndian.AppendUint32(dst, math.Float32bits(float32(d.F))), nil
	case exec.OIDFloat8:
		return binary.BigEndian.AppendUint64(dst, math.Float64bits(d.F)), nil
	case exec.OIDText, exec.OIDVarchar, exec.OIDBpchar, exec.OIDName, exec.OIDBytea, exec.OIDUUID, exec.OIDJSON, exec.OIDUnknown:
		return append(dst, d.S...), nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "binary output of type %s is not supported yet", exec.TypeName(t.OID))
}

// decodeBinary decodes a parameter sent in binary format.
func decodeBinary(t exec.T, b []byte) (exec.Datum, error) {
	bad := func() (exec.Datum, error) {
		return exec.Null, pgerr.New(pgerr.ProtocolViolation, "incorrect binary data format in bind parameter")
	}
	switch t.OID {
	case exec.OIDBool:
		if len(b) != 1 {
			return bad()
		}
		return exec.DBool(b[0] != 0), nil
	case exec.OIDInt2:
		if len(b) != 2 {
			return bad()
		}
		return exec.DInt(int64(int16(binary.BigEndian.Uint16(b)))), nil
	case exec.OIDInt4, exec.OIDOid:
		if len(b) != 4 {
			return bad()
		}
		return exec.DInt(int64(int32(binary.BigEndian.Uint32(b)))), nil
	case exec.OIDDate:
		if len(b) != 4 {
			return bad()
		}
		return exec.DDate(int64(int32(binary.BigEndian.Uint32(b)))), nil
	case exec.OIDInt8:
		if len(b) != 8 {
			return bad()
		}
		return exec.DInt(int64(binary.BigEndian.Uint64(b))), nil
	case exec.OIDTime, exec.OIDTimestamp, exec.OIDTimestampTZ:
		if len(b) != 8 {
			return bad()
		}
		return exec.Datum{Kind: exec.KindOf(t.OID), I: int64(binary.BigEndian.Uint64(b))}, nil
	case exec.OIDFloat4:
		if len(b) != 4 {
			return bad()
		}
		return exec.DFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(b)))), nil
	case exec.OIDFloat8:
		if len(b) != 8 {
			return bad()
		}
		return exec.DFloat(math.Float64frombits(binary.BigEndian.Uint64(b))), nil
	case exec.OIDText, exec.OIDVarchar, exec.OIDBpchar, exec.OIDName, exec.OIDJSON:
		return exec.DText(string(b)), nil
	case exec.OIDBytea:
		return exec.DBytes(string(b)), nil
	case exec.OIDUUID:
		if len(b) != 16 {
			return bad()
		}
		return exec.Datum{Kind: exec.KindUUID, S: string(b)}, nil
	}
	return exec.Null, pgerr.New(pgerr.FeatureNotSupported, "binary input of type %s is not supported yet", exec.TypeName(t.OID))
}
