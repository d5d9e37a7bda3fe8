package exec

import (
	"github.com/prollypg/prollypg/exec/types"
)

// Settings are the session settings that text I/O and evaluation depend on
// (DateStyle, IntervalStyle, TimeZone, extra_float_digits, the transaction
// time). nil means PostgreSQL's defaults.
type Settings = types.Settings

// AppendText appends d, of type t, in PostgreSQL's text output format under
// the session settings s.
func AppendText(dst []byte, t T, d Datum, s *Settings) []byte {
	if d.Kind == KindNull {
		return dst
	}
	switch t.OID {
	case OIDBool:
		return types.AppendBool(dst, d.I != 0)
	case OIDInt2, OIDInt4, OIDInt8, OIDXid8:
		return types.AppendInt(dst, d.I)
	case OIDXid:
		return types.AppendOid(dst, types.Oid(d.I))
	case OIDOid, OIDRegclass, OIDRegproc, OIDRegtype, OIDRegnamespace, OIDRegrole, OIDRegconfig, OIDRegdictionary, OIDRegprocedure:
		if d.Kind == KindText || (t.OID != OIDOid && d.S != "") {
			return append(dst, d.S...) // an OID alias carries its name
		}
		return types.AppendOid(dst, types.Oid(d.I))
	case OIDFloat4:
		return types.AppendFloat4(dst, float32(d.F), extraFloatDigits(s))
	case OIDFloat8:
		return types.AppendFloat8(dst, d.F, extraFloatDigits(s))
	case OIDNumeric:
		return types.AppendNumeric(dst, d.Numeric())
	case OIDXML:
		return append(dst, types.XMLOut(d.S)...)
	case OIDBytea:
		if s != nil && s.ByteaEscape {
			return types.AppendByteaEscape(dst, []byte(d.S))
		}
		return types.AppendBytea(dst, []byte(d.S))
	case OIDDate:
		return types.AppendDate(dst, types.Date(d.I), s)
	case OIDTime:
		return types.AppendTime(dst, types.Time(d.I))
	case OIDTimeTZ:
		return types.AppendTimeTZ(dst, d.TimeTZ())
	case OIDTimestamp:
		return types.AppendTimestamp(dst, types.Timestamp(d.I), s)
	case OIDTimestampTZ:
		return types.AppendTimestampTZ(dst, types.TimestampTZ(d.I), s)
	case OIDInterval:
		return types.AppendInterval(dst, d.Interval(), s)
	case OIDUUID:
		return types.AppendUUID(dst, types.UUID([]byte(d.S)))
	case OIDInet, OIDCidr:
		return types.AppendInet(dst, d.Inet(), t.OID == OIDCidr)
	case OIDPoint, OIDLSeg, OIDPath, OIDBox, OIDPolygon, OIDLine, OIDCircle:
		return types.AppendGeometry(dst, types.Oid(t.OID), d.S, extraFloatDigits(s))
	case OIDTSVector:
		return types.AppendTSVector(dst, d.TSVector())
	case OIDTSQuery:
		return types.AppendTSQuery(dst, d.TSQuery())
	case OIDHstore:
		return types.AppendHstore(dst, d.Hstore())
	case OIDChar:
		if d.S == "" {
			return dst
		}
		return types.AppendChar(dst, d.S[0])
	}
	switch d.Kind {
	case KindInt:
		return types.AppendInt(dst, d.I)
	case KindFloat:
		return types.AppendFloat8(dst, d.F, extraFloatDigits(s))
	case KindBool:
		return types.AppendBool(dst, d.I != 0)
	case KindEnum:
		return append(dst, d.S...)
	case KindRecord:
		return appendRecordText(dst, d.Record(), s)
	case KindRange:
		return appendRangeText(dst, d, s)
	case KindMultirange:
		return appendMultirangeText(dst, d, s)
	case KindArray:
		if t.OID == OIDInt2Vector || t.OID == OIDOidVector {
			return appendVector(dst, d)
		}
		return appendArray(dst, ElemType(t), d, s)
	}
	return append(dst, d.S...)
}

func extraFloatDigits(s *Settings) int {
	if s == nil {
		return 1
	}
	return s.ExtraFloatDigits
}
