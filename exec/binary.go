package exec

import (
	"encoding/binary"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// AppendBinary appends d in PostgreSQL's binary (send) format for type t.
func AppendBinary(dst []byte, t T, d Datum) ([]byte, error) {
	switch t.OID {
	case OIDBool:
		return types.AppendBoolBinary(dst, d.I != 0), nil
	case OIDInt2:
		return types.AppendInt2Binary(dst, int16(d.I)), nil
	case OIDInt4:
		return types.AppendInt4Binary(dst, int32(d.I)), nil
	case OIDOid, OIDXid, OIDRegclass, OIDRegproc, OIDRegtype, OIDRegnamespace, OIDRegrole, OIDRegconfig, OIDRegdictionary, OIDRegprocedure:
		return types.AppendOidBinary(dst, types.Oid(d.I)), nil
	case OIDInt8, OIDXid8:
		return types.AppendInt8Binary(dst, d.I), nil
	case OIDFloat4:
		return types.AppendFloat4Binary(dst, float32(d.F)), nil
	case OIDFloat8:
		return types.AppendFloat8Binary(dst, d.F), nil
	case OIDNumeric:
		return types.AppendNumericBinary(dst, d.Numeric()), nil
	case OIDDate:
		return types.AppendDateBinary(dst, types.Date(d.I)), nil
	case OIDTime:
		return types.AppendTimeBinary(dst, types.Time(d.I)), nil
	case OIDTimeTZ:
		return types.AppendTimeTZBinary(dst, d.TimeTZ()), nil
	case OIDTimestamp, OIDTimestampTZ:
		return types.AppendTimestampBinary(dst, d.I), nil
	case OIDInterval:
		return types.AppendIntervalBinary(dst, d.Interval()), nil
	case OIDUUID:
		return types.AppendUUIDBinary(dst, types.UUID([]byte(d.S))), nil
	case OIDBit, OIDVarbit:
		return types.AppendBitBinary(dst, d.S), nil
	case OIDInet, OIDCidr:
		return types.AppendInetBinary(dst, d.Inet(), t.OID == OIDCidr), nil
	case OIDJSONB:
		v, err := types.ParseJSONB(d.S)
		if err != nil {
			return nil, err
		}
		return types.AppendJSONBBinary(dst, &v), nil
	case OIDText, OIDVarchar, OIDBpchar, OIDName, OIDBytea, OIDJSON, OIDUnknown, OIDChar, OIDXML, OIDCIText,
		OIDPoint, OIDLSeg, OIDPath, OIDBox, OIDPolygon, OIDLine, OIDCircle:
		// A geometric value's canonical bytes are its send form.
		return append(dst, d.S...), nil
	case OIDTSVector:
		return types.AppendTSVectorBinary(dst, d.TSVector()), nil
	case OIDTSQuery:
		return types.AppendTSQueryBinary(dst, d.TSQuery()), nil
	case OIDHstore:
		return types.AppendHstoreBinary(dst, d.Hstore()), nil
	}
	if IsArrayType(t.OID) && d.Kind == KindArray {
		return appendArrayBinary(dst, t, d), nil
	}
	if d.Kind == KindRecord {
		return appendRecordBinary(dst, d.Record())
	}
	if d.Kind == KindRange {
		return appendRangeBinary(dst, d)
	}
	if d.Kind == KindMultirange {
		return appendMultirangeBinary(dst, d)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "binary output of type %s is not supported yet", TypeName(t.OID))
}

// appendRecordBinary appends a record as PostgreSQL's record_send does: the
// number of fields, then each field's type OID and its length-prefixed
// binary value (length -1 for NULL).
func appendRecordBinary(dst []byte, r *Record) ([]byte, error) {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(r.Fields)))
	for i, f := range r.Fields {
		t := TText
		if i < len(r.Types) {
			t = r.Types[i]
		}
		dst = binary.BigEndian.AppendUint32(dst, t.OID)
		if f.IsNull() {
			dst = binary.BigEndian.AppendUint32(dst, 0xFFFFFFFF)
			continue
		}
		lenAt := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		var err error
		if dst, err = AppendBinary(dst, t, f); err != nil {
			return nil, err
		}
		binary.BigEndian.PutUint32(dst[lenAt:], uint32(len(dst)-lenAt-4))
	}
	return dst, nil
}

// DecodeBinary decodes a value in PostgreSQL's binary (recv) format for
// type t: a bound parameter or a field of COPY BINARY.
func DecodeBinary(t T, b []byte) (Datum, error) {
	var d Datum
	var err error
	switch t.OID {
	case OIDBool:
		var v bool
		v, err = types.ParseBoolBinary(b)
		d = DBool(v)
	case OIDInt2:
		var v int16
		v, err = types.ParseInt2Binary(b)
		d = DInt(int64(v))
	case OIDInt4:
		var v int32
		v, err = types.ParseInt4Binary(b)
		d = DInt(int64(v))
	case OIDOid, OIDXid, OIDRegclass, OIDRegproc, OIDRegtype, OIDRegnamespace, OIDRegrole, OIDRegconfig, OIDRegdictionary, OIDRegprocedure:
		var v types.Oid
		v, err = types.ParseOidBinary(b)
		d = DInt(int64(v))
	case OIDInt8, OIDXid8:
		var v int64
		v, err = types.ParseInt8Binary(b)
		d = DInt(v)
	case OIDFloat4:
		var v float32
		v, err = types.ParseFloat4Binary(b)
		d = DFloat(float64(v))
	case OIDFloat8:
		var v float64
		v, err = types.ParseFloat8Binary(b)
		d = DFloat(v)
	case OIDNumeric:
		n := new(apd.Decimal)
		err = types.ParseNumericBinary(n, b, t.Typmod)
		d = DNumeric(n)
	case OIDDate:
		var v types.Date
		v, err = types.ParseDateBinary(b)
		d = DDate(int64(v))
	case OIDTime:
		var v types.Time
		v, err = types.ParseTimeBinary(b, t.Typmod)
		d = DTime(int64(v))
	case OIDTimeTZ:
		var v types.TimeTZ
		v, err = types.ParseTimeTZBinary(b, t.Typmod)
		d = DTimeTZ(v)
	case OIDTimestamp, OIDTimestampTZ:
		var v int64
		v, err = types.ParseTimestampBinary(b, t.Typmod)
		d = DTimestamp(v)
	case OIDInterval:
		var v types.Interval
		v, err = types.ParseIntervalBinary(b, t.Typmod)
		d = DInterval(v)
	case OIDUUID:
		var v types.UUID
		v, err = types.ParseUUIDBinary(b)
		d = DUUID(v)
	case OIDBit, OIDVarbit:
		var v string
		if v, err = types.ParseBitBinary(b); err == nil {
			v, err = types.ApplyBitTypmod(v, t.Typmod, t.OID == OIDVarbit, false)
		}
		d = DText(v)
	case OIDInet, OIDCidr:
		var v types.Inet
		v, err = types.ParseInetBinary(b, t.OID == OIDCidr)
		d = DInet(v)
	case OIDPoint, OIDLSeg, OIDPath, OIDBox, OIDPolygon, OIDLine, OIDCircle:
		var v string
		v, err = types.ParseGeometryBinary(types.Oid(t.OID), b)
		d = DGeometry(v)
	case OIDJSONB:
		var v types.JSONB
		if v, err = types.ParseJSONBBinary(b); err == nil {
			d = DJSON(string(types.AppendJSONB(nil, &v)))
		}
	case OIDJSON:
		var s string
		s, err = types.ParseJSONBinary(b)
		d = DJSON(s)
	case OIDText, OIDVarchar, OIDBpchar, OIDName, OIDUnknown, OIDChar:
		var s string
		s, err = types.ParseTextBinary(b)
		d = DText(s)
	case OIDCIText:
		var s string
		s, err = types.ParseTextBinary(b)
		d = DCIText(s)
	case OIDXML:
		var s string
		if s, err = types.ParseTextBinary(b); err == nil {
			err = types.ParseXML(s, false)
		}
		d = DText(s)
	case OIDBytea:
		d = DBytes(string(b))
	case OIDTSVector:
		var v types.TSVector
		v, err = types.ParseTSVectorBinary(b)
		d = DTSVector(v)
	case OIDTSQuery:
		var q types.TSQuery
		q, err = types.ParseTSQueryBinary(b)
		d = DTSQuery(q)
	case OIDHstore:
		var h types.Hstore
		h, err = types.ParseHstoreBinary(b)
		d = DHstore(h)
	default:
		if IsArrayType(t.OID) {
			return decodeArrayBinary(t, b)
		}
		if s := types.RangeSubtypeOf(types.Oid(t.OID)); s != 0 {
			return decodeRangeBinary(T{OID: uint32(s), Typmod: -1}, RangeTypeDiscrete(t.OID), b)
		}
		if r := types.MultirangeRange(types.Oid(t.OID)); r != 0 {
			return decodeMultirangeBinary(T{OID: uint32(types.RangeSubtypeOf(r)), Typmod: -1}, RangeTypeDiscrete(uint32(r)), b)
		}
		return Null, pgerr.New(pgerr.FeatureNotSupported, "binary input of type %s is not supported yet", TypeName(t.OID))
	}
	if err != nil {
		return Null, err
	}
	return d, nil
}
