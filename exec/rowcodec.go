package exec

import (
	"fmt"
	"unsafe"

	"github.com/cockroachdb/apd/v3"
	"github.com/zeebo/xxh3"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/prolly/sortkey"
	"github.com/prollypg/prollypg/prolly/tuple"
)

// Stored rows: a table's primary map holds, under the key of each row, a
// tuple with one field per column position (dropped columns NULL), each
// field the payload of prolly/tuple for the column's kind: fixed-width
// little-endian ints and floats, exact-scale numerics, text and bytea as
// their bytes, dates as int32 days, times and timestamps as int64
// microseconds. Keys are prolly/sortkey encodings, so the map's byte order
// is the SQL order of the key.

// appendField appends d, of type t, as one tuple field.
func appendField(b *tuple.Builder, t T, d Datum) {
	if d.Kind == KindNull {
		b.AppendNull()
		return
	}
	switch t.OID {
	case OIDBool:
		b.AppendBool(d.I != 0)
	case OIDInt2:
		b.AppendInt16(int16(d.I))
	case OIDInt4, OIDOid:
		b.AppendInt32(int32(d.I))
	case OIDInt8:
		b.AppendInt64(d.I)
	case OIDFloat4:
		b.AppendFloat32(float32(d.F))
	case OIDFloat8:
		b.AppendFloat64(d.F)
	case OIDNumeric:
		b.AppendNumeric(d.Numeric())
	case OIDDate:
		b.AppendInt32(int32(d.I))
	case OIDTime, OIDTimestamp, OIDTimestampTZ:
		b.AppendInt64(d.I)
	case OIDTimeTZ:
		var buf [12]byte
		b.Append(types.AppendTimeTZBinary(buf[:0], d.TimeTZ()))
	case OIDInterval:
		iv := d.Interval()
		b.AppendInterval(iv.Months, iv.Days, iv.Micros)
	default:
		switch d.Kind {
		case KindArray:
			b.Append(appendArrayField(nil, t, d))
			return
		case KindEnum:
			appendEnumField(b, d)
			return
		case KindRecord:
			b.Append(appendRecordField(nil, d))
			return
		case KindTSVector:
			b.Append(types.AppendTSVectorBinary(nil, d.TSVector()))
			return
		case KindTSQuery:
			b.Append(types.AppendTSQueryBinary(nil, d.TSQuery()))
			return
		case KindHstore:
			b.Append(types.AppendHstoreBinary(nil, d.Hstore()))
			return
		case KindMultirange:
			b.Append(appendMultirangeField(nil, t, d))
			return
		case KindRange:
			b.Append(appendRangeField(nil, d))
			return
		}
		b.AppendString(d.S)
	}
}

// decodeField returns the Datum of type t stored as field f.
func decodeField(t T, f []byte) (Datum, error) {
	var err error
	d := Datum{Kind: KindOf(t.OID)}
	switch t.OID {
	case OIDBool:
		var v bool
		v, err = tuple.DecodeBool(f)
		d = DBool(v)
	case OIDInt2:
		var v int16
		v, err = tuple.DecodeInt16(f)
		d.I = int64(v)
	case OIDInt4, OIDOid, OIDDate:
		var v int32
		v, err = tuple.DecodeInt32(f)
		d.I = int64(v)
	case OIDInt8, OIDTime, OIDTimestamp, OIDTimestampTZ:
		d.I, err = tuple.DecodeInt64(f)
	case OIDTimeTZ:
		var v types.TimeTZ
		v, err = types.ParseTimeTZBinary(f, -1)
		d = DTimeTZ(v)
	case OIDFloat4:
		var v float32
		v, err = tuple.DecodeFloat32(f)
		d.F = float64(v)
	case OIDFloat8:
		d.F, err = tuple.DecodeFloat64(f)
	case OIDNumeric:
		n := new(apd.Decimal)
		err = tuple.DecodeNumeric(f, n)
		d.X = n
	case OIDInterval:
		var iv Interval
		iv.Months, iv.Days, iv.Micros, err = tuple.DecodeInterval(f)
		d.X = iv
	default:
		switch d.Kind {
		case KindArray:
			return decodeArrayField(t, f)
		case KindEnum:
			return decodeEnumField(f)
		case KindRecord:
			return decodeRecordField(f)
		case KindTSVector:
			v, err := types.ParseTSVectorBinary(f)
			if err != nil {
				return Null, pgerr.Wrap(err, pgerr.DataCorrupted, "corrupt stored value of type %s", TypeName(t.OID))
			}
			return DTSVector(v), nil
		case KindTSQuery:
			q, err := types.ParseTSQueryBinary(f)
			if err != nil {
				return Null, pgerr.Wrap(err, pgerr.DataCorrupted, "corrupt stored value of type %s", TypeName(t.OID))
			}
			return DTSQuery(q), nil
		case KindHstore:
			h, err := types.ParseHstoreBinary(f)
			if err != nil {
				return Null, pgerr.Wrap(err, pgerr.DataCorrupted, "corrupt stored value of type %s", TypeName(t.OID))
			}
			return DHstore(h), nil
		case KindRange:
			return decodeRangeField(f)
		case KindMultirange:
			return decodeMultirangeField(f)
		}
		// Stored bytes are immutable (chunks never change once written), so
		// the string can share them instead of copying.
		if len(f) > 0 {
			d.S = unsafe.String(&f[0], len(f))
		}
	}
	if err != nil {
		return Null, pgerr.Wrap(err, pgerr.DataCorrupted, "corrupt stored value of type %s", TypeName(t.OID))
	}
	return d, nil
}

// appendKey appends d, of type t, as one key column in order o.
func appendKey(dst []byte, t T, d Datum, o sortkey.Order) ([]byte, error) {
	if d.Kind == KindNull {
		return sortkey.AppendNull(dst, o), nil
	}
	switch t.OID {
	case OIDBool:
		return sortkey.AppendBool(dst, d.I != 0, o), nil
	case OIDInt2:
		return sortkey.AppendInt16(dst, int16(d.I), o), nil
	case OIDInt4, OIDOid:
		return sortkey.AppendInt32(dst, int32(d.I), o), nil
	case OIDInt8:
		return sortkey.AppendInt64(dst, d.I, o), nil
	case OIDFloat4:
		return sortkey.AppendFloat32(dst, float32(d.F), o), nil
	case OIDFloat8:
		return sortkey.AppendFloat64(dst, d.F, o), nil
	case OIDNumeric:
		return sortkey.AppendNumeric(dst, d.Numeric(), o), nil
	case OIDText, OIDVarchar, OIDBpchar, OIDName, OIDChar:
		return sortkey.AppendTextString(dst, d.S, o), nil
	case OIDCIText:
		// The folded form, so that the key's bytes order and equate
		// values as citext's comparison does (unique checks and lookups
		// go by the key); the row's field keeps the value as written.
		return sortkey.AppendTextString(dst, CITextFold(d.S), o), nil
	case OIDBytea, OIDBit, OIDVarbit, OIDPoint, OIDLSeg, OIDPath, OIDBox, OIDPolygon, OIDLine, OIDCircle:
		return sortkey.AppendBytea(dst, unsafe.Slice(unsafe.StringData(d.S), len(d.S)), o), nil
	case OIDDate:
		return sortkey.AppendDate(dst, int32(d.I), o), nil
	case OIDTime:
		return sortkey.AppendTime(dst, d.I, o), nil
	case OIDTimeTZ:
		var buf [12]byte
		return sortkey.AppendBytea(dst, types.AppendTimeTZKey(buf[:0], d.TimeTZ()), o), nil
	case OIDTimestamp:
		return sortkey.AppendTimestamp(dst, d.I, o), nil
	case OIDTimestampTZ:
		return sortkey.AppendTimestampTZ(dst, d.I, o), nil
	case OIDInterval:
		iv := d.Interval()
		return sortkey.AppendInterval(dst, sortkey.Interval{Months: iv.Months, Days: iv.Days, Micros: iv.Micros}, o), nil
	case OIDUUID:
		return sortkey.AppendUUID(dst, [16]byte([]byte(d.S)), o), nil
	case OIDInet, OIDCidr:
		return sortkey.AppendBytea(dst, unsafe.Slice(unsafe.StringData(d.S), len(d.S)), o), nil
	case OIDJSONB:
		// A digest of its normalized text, as for tsvector: equality of
		// that form, not jsonb's order (KeyCompatible keeps index scans
		// off it); jsonb's gin indexes are such indexes.
		h := xxh3.HashString128(d.S).Bytes()
		return sortkey.AppendBytea(dst, h[:], o), nil
	}
	if d.Kind == KindEnum {
		return appendEnumKey(dst, d, o), nil
	}
	switch d.Kind {
	case KindTSVector:
		// A tsvector's key is a 128-bit digest of its canonical binary
		// form: it answers equality (and uniqueness), and a document's
		// tsvector, however long, fits in a key; the text search indexes
		// (USING gin, gist) are such indexes. It has not tsvector's order,
		// so KeyCompatible keeps index scans off it.
		h := xxh3.Hash128(types.AppendTSVectorBinary(nil, d.TSVector())).Bytes()
		return sortkey.AppendBytea(dst, h[:], o), nil
	case KindTSQuery:
		return sortkey.AppendBytea(dst, types.AppendTSQueryKey(nil, d.TSQuery()), o), nil
	case KindHstore:
		// A digest, as for tsvector: equality and uniqueness, not
		// hstore_cmp's order (KeyCompatible keeps index scans off it);
		// hstore's gin and gist indexes are such indexes.
		h := xxh3.Hash128(types.AppendHstoreBinary(nil, d.Hstore())).Bytes()
		return sortkey.AppendBytea(dst, h[:], o), nil
	case KindRange:
		// A digest, as for tsvector: equality and uniqueness, not order
		// (KeyCompatible keeps index scans off it); the gist and spgist
		// indexes on ranges are such indexes.
		h := xxh3.Hash128(appendRangeHashKey(nil, d.Range())).Bytes()
		return sortkey.AppendBytea(dst, h[:], o), nil
	case KindMultirange:
		h := xxh3.Hash128(appendMultirangeHashKey(nil, d.Multirange())).Bytes()
		return sortkey.AppendBytea(dst, h[:], o), nil
	}
	if d.Kind == KindArray && IsArrayType(t.OID) {
		return appendArrayKey(dst, ElemType(t), d, o)
	}
	if d.Kind == KindRecord {
		return appendRecordKey(dst, d, o)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "data type %s has no default operator class for access method \"btree\"", TypeName(t.OID))
}

// errCorruptRow wraps a row that fails to decode.
func errCorruptRow(err error) error {
	return pgerr.Wrap(err, pgerr.DataCorrupted, "corrupt stored row: %v", err)
}

var _ = fmt.Sprintf
