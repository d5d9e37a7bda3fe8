package types

import "github.com/cockroachdb/apd/v3"

// Element codecs for the built-in types, for use with the array functions.
// Each constructor returns a fresh codec; settings and typmods given to it
// are captured, not copied, so a *Settings must outlive the codec.

// BoolCodec returns the codec of bool elements.
func BoolCodec() *ElemCodec[bool] {
	return &ElemCodec[bool]{Oid: OidBool, Delim: ',', AppendText: AppendBool, ParseText: ParseBool,
		AppendBinary: AppendBoolBinary, ParseBinary: ParseBoolBinary}
}

// Int2Codec returns the codec of int2 elements.
func Int2Codec() *ElemCodec[int16] {
	return &ElemCodec[int16]{Oid: OidInt2, Delim: ',',
		AppendText: func(dst []byte, v int16) []byte { return AppendInt(dst, int64(v)) }, ParseText: ParseInt2,
		AppendBinary: AppendInt2Binary, ParseBinary: ParseInt2Binary}
}

// Int4Codec returns the codec of int4 elements.
func Int4Codec() *ElemCodec[int32] {
	return &ElemCodec[int32]{Oid: OidInt4, Delim: ',',
		AppendText: func(dst []byte, v int32) []byte { return AppendInt(dst, int64(v)) }, ParseText: ParseInt4,
		AppendBinary: AppendInt4Binary, ParseBinary: ParseInt4Binary}
}

// Int8Codec returns the codec of int8 elements.
func Int8Codec() *ElemCodec[int64] {
	return &ElemCodec[int64]{Oid: OidInt8, Delim: ',', AppendText: AppendInt, ParseText: ParseInt8,
		AppendBinary: AppendInt8Binary, ParseBinary: ParseInt8Binary}
}

// OidCodec returns the codec of oid elements.
func OidCodec() *ElemCodec[Oid] {
	return &ElemCodec[Oid]{Oid: OidOid, Delim: ',', AppendText: AppendOid, ParseText: ParseOid,
		AppendBinary: AppendOidBinary, ParseBinary: ParseOidBinary}
}

// Float4Codec returns the codec of float4 elements under st's
// extra_float_digits.
func Float4Codec(st *Settings) *ElemCodec[float32] {
	efd := 1
	if st != nil {
		efd = st.ExtraFloatDigits
	}
	return &ElemCodec[float32]{Oid: OidFloat4, Delim: ',',
		AppendText: func(dst []byte, v float32) []byte { return AppendFloat4(dst, v, efd) }, ParseText: ParseFloat4,
		AppendBinary: AppendFloat4Binary, ParseBinary: ParseFloat4Binary}
}

// Float8Codec returns the codec of float8 elements under st's
// extra_float_digits.
func Float8Codec(st *Settings) *ElemCodec[float64] {
	efd := 1
	if st != nil {
		efd = st.ExtraFloatDigits
	}
	return &ElemCodec[float64]{Oid: OidFloat8, Delim: ',',
		AppendText: func(dst []byte, v float64) []byte { return AppendFloat8(dst, v, efd) }, ParseText: ParseFloat8,
		AppendBinary: AppendFloat8Binary, ParseBinary: ParseFloat8Binary}
}

// NumericCodec returns the codec of numeric elements with a typmod (-1 for
// none); elements are fresh *apd.Decimal values.
func NumericCodec(typmod int32) *ElemCodec[*apd.Decimal] {
	return &ElemCodec[*apd.Decimal]{Oid: OidNumeric, Delim: ',', AppendText: AppendNumeric,
		ParseText: func(s string) (*apd.Decimal, error) {
			d := new(apd.Decimal)
			return d, ParseNumericTypmod(d, s, typmod)
		},
		AppendBinary: AppendNumericBinary,
		ParseBinary: func(b []byte) (*apd.Decimal, error) {
			d := new(apd.Decimal)
			return d, ParseNumericBinary(d, b, typmod)
		}}
}

// TextCodec returns the codec of text, varchar or bpchar elements (oid
// says which) with a typmod (-1 for none), applied as on input.
func TextCodec(oid Oid, typmod int32) *ElemCodec[string] {
	apply := func(s string) (string, error) {
		switch oid {
		case OidVarchar:
			return ApplyVarcharTypmod(s, typmod, false)
		case OidBpchar:
			return ApplyBpcharTypmod(s, typmod, false)
		case OidName:
			return ParseName(s), nil
		}
		return s, nil
	}
	return &ElemCodec[string]{Oid: oid, Delim: ',',
		AppendText:   func(dst []byte, v string) []byte { return append(dst, v...) },
		ParseText:    apply,
		AppendBinary: func(dst []byte, v string) []byte { return append(dst, v...) },
		ParseBinary: func(b []byte) (string, error) {
			if oid == OidName {
				return ParseNameBinary(b)
			}
			s, err := ParseTextBinary(b)
			if err != nil {
				return "", err
			}
			return apply(s)
		}}
}

// CharCodec returns the codec of "char" elements.
func CharCodec() *ElemCodec[byte] {
	return &ElemCodec[byte]{Oid: OidChar, Delim: ',', AppendText: AppendChar,
		ParseText:    func(s string) (byte, error) { return ParseChar(s), nil },
		AppendBinary: func(dst []byte, v byte) []byte { return append(dst, v) },
		ParseBinary:  ParseCharBinary}
}

// ByteaCodec returns the codec of bytea elements; output is hex unless st
// selects bytea_output = escape.
func ByteaCodec(st *Settings) *ElemCodec[[]byte] {
	out := AppendBytea
	if st != nil && st.ByteaEscape {
		out = AppendByteaEscape
	}
	return &ElemCodec[[]byte]{Oid: OidBytea, Delim: ',', AppendText: out,
		ParseText:    func(s string) ([]byte, error) { return ParseBytea(nil, s) },
		AppendBinary: func(dst []byte, v []byte) []byte { return append(dst, v...) },
		ParseBinary:  func(b []byte) ([]byte, error) { return append([]byte{}, b...), nil }}
}

// UUIDCodec returns the codec of uuid elements.
func UUIDCodec() *ElemCodec[UUID] {
	return &ElemCodec[UUID]{Oid: OidUUID, Delim: ',', AppendText: AppendUUID, ParseText: ParseUUID,
		AppendBinary: AppendUUIDBinary, ParseBinary: ParseUUIDBinary}
}

// DateCodec returns the codec of date elements under st.
func DateCodec(st *Settings) *ElemCodec[Date] {
	return &ElemCodec[Date]{Oid: OidDate, Delim: ',',
		AppendText:   func(dst []byte, v Date) []byte { return AppendDate(dst, v, st) },
		ParseText:    func(s string) (Date, error) { return ParseDate(s, st) },
		AppendBinary: AppendDateBinary, ParseBinary: ParseDateBinary}
}

// TimeCodec returns the codec of time elements with a typmod.
func TimeCodec(typmod int32, st *Settings) *ElemCodec[Time] {
	return &ElemCodec[Time]{Oid: OidTime, Delim: ',', AppendText: AppendTime,
		ParseText:    func(s string) (Time, error) { return ParseTime(s, typmod, st) },
		AppendBinary: AppendTimeBinary,
		ParseBinary:  func(b []byte) (Time, error) { return ParseTimeBinary(b, typmod) }}
}

// TimestampCodec returns the codec of timestamp elements.
func TimestampCodec(typmod int32, st *Settings) *ElemCodec[Timestamp] {
	return &ElemCodec[Timestamp]{Oid: OidTimestamp, Delim: ',',
		AppendText:   func(dst []byte, v Timestamp) []byte { return AppendTimestamp(dst, v, st) },
		ParseText:    func(s string) (Timestamp, error) { return ParseTimestamp(s, typmod, st) },
		AppendBinary: func(dst []byte, v Timestamp) []byte { return AppendTimestampBinary(dst, int64(v)) },
		ParseBinary: func(b []byte) (Timestamp, error) {
			v, err := ParseTimestampBinary(b, typmod)
			return Timestamp(v), err
		}}
}

// TimestampTZCodec returns the codec of timestamptz elements.
func TimestampTZCodec(typmod int32, st *Settings) *ElemCodec[TimestampTZ] {
	return &ElemCodec[TimestampTZ]{Oid: OidTimestampTZ, Delim: ',',
		AppendText:   func(dst []byte, v TimestampTZ) []byte { return AppendTimestampTZ(dst, v, st) },
		ParseText:    func(s string) (TimestampTZ, error) { return ParseTimestampTZ(s, typmod, st) },
		AppendBinary: func(dst []byte, v TimestampTZ) []byte { return AppendTimestampBinary(dst, int64(v)) },
		ParseBinary: func(b []byte) (TimestampTZ, error) {
			v, err := ParseTimestampBinary(b, typmod)
			return TimestampTZ(v), err
		}}
}

// IntervalCodec returns the codec of interval elements.
func IntervalCodec(typmod int32, st *Settings) *ElemCodec[Interval] {
	return &ElemCodec[Interval]{Oid: OidInterval, Delim: ',',
		AppendText:   func(dst []byte, v Interval) []byte { return AppendInterval(dst, v, st) },
		ParseText:    func(s string) (Interval, error) { return ParseInterval(s, typmod, st) },
		AppendBinary: AppendIntervalBinary,
		ParseBinary:  func(b []byte) (Interval, error) { return ParseIntervalBinary(b, typmod) }}
}

// JSONCodec returns the codec of json elements (text kept as given).
func JSONCodec() *ElemCodec[string] {
	return &ElemCodec[string]{Oid: OidJSON, Delim: ',',
		AppendText:   func(dst []byte, v string) []byte { return append(dst, v...) },
		ParseText:    func(s string) (string, error) { return s, ValidateJSON(s) },
		AppendBinary: func(dst []byte, v string) []byte { return append(dst, v...) },
		ParseBinary:  ParseJSONBinary}
}

// JSONBCodec returns the codec of jsonb elements.
func JSONBCodec() *ElemCodec[JSONB] {
	return &ElemCodec[JSONB]{Oid: OidJSONB, Delim: ',',
		AppendText:   func(dst []byte, v JSONB) []byte { return AppendJSONB(dst, &v) },
		ParseText:    ParseJSONB,
		AppendBinary: func(dst []byte, v JSONB) []byte { return AppendJSONBBinary(dst, &v) },
		ParseBinary:  ParseJSONBBinary}
}
