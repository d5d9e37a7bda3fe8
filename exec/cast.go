package exec

import (
	"errors"
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// ParseText converts s, in PostgreSQL's text input format, to a Datum of
// type t (its modifier applied), with PostgreSQL's errors for bad input.
func ParseText(t T, s string, st *Settings) (Datum, error) {
	switch t.OID {
	case OIDBool:
		v, err := types.ParseBool(s)
		return DBool(v), err
	case OIDInt2:
		v, err := types.ParseInt2(s)
		return DInt(int64(v)), err
	case OIDInt4:
		v, err := types.ParseInt4(s)
		return DInt(int64(v)), err
	case OIDInt8:
		v, err := types.ParseInt8(s)
		return DInt(v), err
	case OIDOid:
		v, err := types.ParseOid(s)
		return DInt(int64(v)), err
	case OIDXid:
		return DInt(parseXid(s) & 0xFFFFFFFF), nil
	case OIDXid8:
		return DInt(parseXid(s)), nil
	case OIDFloat4:
		v, err := types.ParseFloat4(s)
		return DFloat(float64(v)), err
	case OIDFloat8:
		v, err := types.ParseFloat8(s)
		return DFloat(v), err
	case OIDNumeric:
		d := new(apd.Decimal)
		if err := types.ParseNumericTypmod(d, s, t.Typmod); err != nil {
			return Null, err
		}
		return DNumeric(d), nil
	case OIDText, OIDUnknown:
		return DText(s), nil
	case OIDCIText:
		return DCIText(s), nil
	case OIDHstore:
		h, err := types.ParseHstore(s)
		if err != nil {
			return Null, err
		}
		return DHstore(h), nil
	case OIDRegclass, OIDRegproc, OIDRegtype, OIDRegnamespace, OIDRegrole, OIDRegconfig, OIDRegdictionary, OIDRegprocedure:
		// A number is the OID itself; a name needs the catalog, which the
		// planner's casts consult (planner/regclass.go).
		v, err := types.ParseOid(s)
		if err != nil {
			return Null, pgerr.New(pgerr.FeatureNotSupported, "%s input of a name needs the catalog: use a cast", TypeName(t.OID))
		}
		return DInt(int64(v)), nil
	case OIDVarchar:
		v, err := types.ApplyVarcharTypmod(s, t.Typmod, false)
		return DText(v), err
	case OIDBpchar:
		v, err := types.ApplyBpcharTypmod(s, t.Typmod, false)
		return DText(v), err
	case OIDName:
		return DText(types.ParseName(s)), nil
	case OIDChar:
		return charDatum(types.ParseChar(s)), nil
	case OIDBytea:
		b, err := types.ParseBytea(nil, s)
		return DBytes(string(b)), err
	case OIDDate:
		v, err := types.ParseDate(s, st)
		return DDate(int64(v)), err
	case OIDTime:
		v, err := types.ParseTime(s, t.Typmod, st)
		return DTime(int64(v)), err
	case OIDTimeTZ:
		v, err := types.ParseTimeTZ(s, t.Typmod, st)
		return DTimeTZ(v), err
	case OIDTimestamp:
		v, err := types.ParseTimestamp(s, t.Typmod, st)
		return DTimestamp(int64(v)), err
	case OIDTimestampTZ:
		v, err := types.ParseTimestampTZ(s, t.Typmod, st)
		return DTimestamp(int64(v)), err
	case OIDInterval:
		v, err := types.ParseInterval(s, t.Typmod, st)
		return DInterval(v), err
	case OIDUUID:
		v, err := types.ParseUUID(s)
		return DUUID(v), err
	case OIDBit, OIDVarbit:
		v, err := types.ParseBit(s)
		if err == nil {
			v, err = types.ApplyBitTypmod(v, t.Typmod, t.OID == OIDVarbit, false)
		}
		return DText(v), err
	case OIDInet, OIDCidr:
		v, err := types.ParseInet(s, t.OID == OIDCidr)
		return DInet(v), err
	case OIDPoint, OIDLSeg, OIDPath, OIDBox, OIDPolygon, OIDLine, OIDCircle:
		v, err := types.ParseGeometry(types.Oid(t.OID), s)
		if err != nil {
			return Null, err
		}
		return DGeometry(v), nil
	case OIDXML:
		if err := types.ParseXML(s, st != nil && st.XMLDocument); err != nil {
			return Null, err
		}
		return DText(s), nil
	case OIDJSON:
		if err := types.ValidateJSON(s); err != nil {
			return Null, err
		}
		return DJSON(s), nil
	case OIDJSONB:
		v, err := types.ParseJSONB(s)
		if err != nil {
			return Null, err
		}
		return DJSON(string(types.AppendJSONB(nil, &v))), nil
	case OIDTSVector:
		v, err := types.ParseTSVector(s)
		if err != nil {
			return Null, err
		}
		return DTSVector(v), nil
	case OIDTSQuery:
		q, _, err := types.ParseTSQuery(s)
		if err != nil {
			return Null, err
		}
		return DTSQuery(q), nil
	}
	if t.OID == OIDInt2Vector || t.OID == OIDOidVector {
		return parseVector(t, s)
	}
	if IsArrayType(t.OID) {
		return parseArray(t, s, st)
	}
	switch KindOf(t.OID) {
	case KindEnum:
		return parseEnumText(t, s, st)
	case KindRange:
		return parseRangeText(t, s, st)
	case KindMultirange:
		return parseMultirangeText(t, s, st)
	case KindRecord:
		if t.OID == OIDRecord {
			return Null, pgerr.New(pgerr.FeatureNotSupported, "input of anonymous composite types is not implemented")
		}
		return parseRecordText(t, s, st)
	}
	return Null, pgerr.New(pgerr.FeatureNotSupported, "input of type %s is not supported yet", TypeName(t.OID))
}

// ApplyTypmod fits a value to a type modifier, as an assignment (implicit)
// or an explicit cast does: varchar(n) and char(n) lengths, numeric(p,s)
// rounding, timestamp and time precision.
func ApplyTypmod(t T, d Datum, explicit bool) (Datum, error) {
	if t.Typmod < 0 || d.IsNull() {
		return d, nil
	}
	var err error
	switch t.OID {
	case OIDVarchar:
		d.S, err = types.ApplyVarcharTypmod(d.S, t.Typmod, explicit)
	case OIDBpchar:
		d.S, err = types.ApplyBpcharTypmod(d.S, t.Typmod, explicit)
	case OIDBit, OIDVarbit:
		d.S, err = types.ApplyBitTypmod(d.S, t.Typmod, t.OID == OIDVarbit, explicit)
	case OIDNumeric:
		n := new(apd.Decimal).Set(d.Numeric())
		if err = types.ApplyNumericTypmod(n, t.Typmod); err == nil {
			d = DNumeric(n)
		}
	case OIDTimestamp, OIDTimestampTZ:
		var v int64
		v, err = types.AdjustTimestampTypmod(d.I, t.Typmod)
		d.I = v
	case OIDTime, OIDTimeTZ:
		d.I = int64(types.AdjustTimeTypmod(types.Time(d.I), t.Typmod))
	case OIDInterval:
		var iv types.Interval
		iv, err = types.AdjustIntervalTypmod(d.Interval(), t.Typmod)
		d = DInterval(iv)
	default:
		if d.Kind == KindArray {
			return mapArray(d, ElemType(t).OID, func(e Datum) (Datum, error) { return ApplyTypmod(ElemType(t), e, explicit) })
		}
	}
	return d, err
}

// CastFn returns the function converting values of type from to type to,
// or nil if there is no such cast. explicit selects the rules of an
// explicit cast (x::varchar(3) truncates; an assignment errors).
func CastFn(from, to T, explicit bool) Fn {
	conv := castKind(from, to)
	if conv == nil {
		return nil
	}
	if to.Typmod < 0 {
		return conv
	}
	return func(env *Env, a []Datum) (Datum, error) {
		d, err := conv(env, a)
		if err != nil {
			return Null, err
		}
		return ApplyTypmod(to, d, explicit)
	}
}

// castKind converts between types, ignoring the target's modifier.
func castKind(from, to T) Fn {
	fk, tk := KindOf(from.OID), KindOf(to.OID)
	if fn := castCIText(from, to); fn != nil {
		return fn
	}
	if fn := castHstore(from, to); fn != nil {
		return fn
	}
	if fn := castSpecial(from, to); fn != nil {
		return fn
	}
	if from.OID != to.OID && (from.OID == OIDXML || to.OID == OIDXML) {
		return nil // xml converts only to and from the string types (castSpecial)
	}
	if from.OID != to.OID && fk == KindGeometry && tk == KindGeometry {
		return geometryCast(from.OID, to.OID)
	}
	if fk == KindEnum && tk == KindEnum && from.OID != to.OID && !IsPolymorphic(to.OID) {
		return nil // enums convert to each other only by a user-defined cast
	}
	switch {
	case from.OID == to.OID || (fk == tk && fk != KindInt && fk != KindFloat && fk != KindText && fk != KindTimestamp && fk != KindJSON && fk != KindRange && fk != KindMultirange):
		return func(_ *Env, a []Datum) (Datum, error) { return a[0], nil }
	case tk == KindText && fk == KindText:
		if to.OID == OIDBpchar || from.OID != OIDBpchar {
			return func(_ *Env, a []Datum) (Datum, error) { return a[0], nil }
		}
		// char(n) to text drops the padding.
		return func(_ *Env, a []Datum) (Datum, error) { return DText(strings.TrimRight(a[0].S, " ")), nil }
	case tk == KindText:
		return func(env *Env, a []Datum) (Datum, error) {
			return DText(string(AppendText(nil, from, a[0], env.Settings))), nil
		}
	case fk == KindText || from.OID == OIDJSON && to.OID == OIDJSONB:
		return func(env *Env, a []Datum) (Datum, error) { return ParseText(to, a[0].S, env.Settings) }
	case from.OID == OIDJSONB && to.OID == OIDJSON:
		return func(_ *Env, a []Datum) (Datum, error) { return a[0], nil }
	case from.OID == OIDInt8 && to.OID == OIDOid:
		return func(_ *Env, a []Datum) (Datum, error) {
			if a[0].I < 0 || a[0].I > math.MaxUint32 {
				return Null, pgerr.New(pgerr.NumericValueOutOfRange, "OID out of range")
			}
			return a[0], nil
		}
	case from.OID == OIDXid8 && to.OID == OIDXid:
		// xid(xid8): the low 32 bits, the epoch dropped.
		return func(_ *Env, a []Datum) (Datum, error) { return DInt(a[0].I & 0xFFFFFFFF), nil }
	case fk == KindInt && tk == KindInt:
		lo, hi, name := IntRange(to.OID)
		return func(_ *Env, a []Datum) (Datum, error) {
			if a[0].I < lo || a[0].I > hi {
				return Null, IntRangeError(name)
			}
			return a[0], nil
		}
	case fk == KindInt && tk == KindFloat:
		return func(_ *Env, a []Datum) (Datum, error) { return DFloat(float64(a[0].I)), nil }
	case fk == KindInt && tk == KindNumeric:
		return func(_ *Env, a []Datum) (Datum, error) { return DNumeric(apd.New(a[0].I, 0)), nil }
	case fk == KindFloat && tk == KindFloat:
		return func(_ *Env, a []Datum) (Datum, error) {
			if to.OID == OIDFloat4 {
				f := float32(a[0].F)
				if math.IsInf(float64(f), 0) && !math.IsInf(a[0].F, 0) {
					return Null, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
				}
				if f == 0 && a[0].F != 0 {
					return Null, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: underflow")
				}
				return DFloat(float64(f)), nil
			}
			return a[0], nil
		}
	case fk == KindFloat && tk == KindInt:
		lo, hi, name := IntRange(to.OID)
		return func(_ *Env, a []Datum) (Datum, error) {
			f := math.RoundToEven(a[0].F)
			if math.IsNaN(f) || f < float64(lo) || f >= -float64(lo) || f > float64(hi) {
				return Null, IntRangeError(name)
			}
			return DInt(int64(f)), nil
		}
	case fk == KindFloat && tk == KindNumeric:
		return func(_ *Env, a []Datum) (Datum, error) {
			// Through text, as PostgreSQL does: the shortest digits that
			// read back as the float, not its exact binary value.
			d := new(apd.Decimal)
			f := a[0].F
			switch {
			case math.IsNaN(f):
				d.Form = apd.NaN
			case math.IsInf(f, 0):
				d.Form, d.Negative = apd.Infinite, f < 0
			default:
				s := string(types.AppendFloat8(nil, f, 0))
				if from.OID == OIDFloat4 {
					s = string(types.AppendFloat4(nil, float32(f), 0))
				}
				if _, _, err := d.SetString(s); err != nil {
					return Null, err
				}
			}
			return DNumeric(d), nil
		}
	case fk == KindNumeric && tk == KindFloat:
		return func(_ *Env, a []Datum) (Datum, error) {
			n := a[0].Numeric()
			switch n.Form {
			case apd.NaN:
				return DFloat(math.NaN()), nil
			case apd.Infinite:
				return DFloat(math.Inf(map[bool]int{true: -1, false: 1}[n.Negative])), nil
			}
			f, err := n.Float64()
			if err != nil || math.IsInf(f, 0) {
				return Null, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
			}
			return DFloat(f), nil
		}
	case fk == KindNumeric && tk == KindInt:
		lo, hi, name := IntRange(to.OID)
		return func(_ *Env, a []Datum) (Datum, error) {
			n := a[0].Numeric()
			if n.Form == apd.NaN {
				return Null, pgerr.New(pgerr.FeatureNotSupported, "cannot convert NaN to %s", name)
			}
			if n.Form == apd.Infinite {
				return Null, pgerr.New(pgerr.FeatureNotSupported, "cannot convert infinity to %s", name)
			}
			d := new(apd.Decimal)
			rc := apd.BaseContext.WithPrecision(1000)
			rc.Rounding = apd.RoundHalfUp
			if _, err := rc.RoundToIntegralValue(d, n); err != nil {
				return Null, err
			}
			v, err := d.Int64()
			if err != nil || v < lo || v > hi {
				return Null, IntRangeError(name)
			}
			return DInt(v), nil
		}
	case fk == KindBool && tk == KindInt && to.OID == OIDInt4:
		return func(_ *Env, a []Datum) (Datum, error) { return DInt(a[0].I), nil }
	case fk == KindInt && from.OID == OIDInt4 && tk == KindBool:
		return func(_ *Env, a []Datum) (Datum, error) { return DBool(a[0].I != 0), nil }
	case from.OID == OIDDate && to.OID == OIDTimestamp:
		return func(_ *Env, a []Datum) (Datum, error) { return DTimestamp(DateToMicros(a[0].I)), nil }
	case from.OID == OIDTimestamp && to.OID == OIDDate, from.OID == OIDTimestampTZ && to.OID == OIDDate:
		return func(env *Env, a []Datum) (Datum, error) {
			us := a[0].I
			if from.OID == OIDTimestampTZ {
				us = LocalMicros(us, env.Settings)
			}
			return DDate(MicrosToDate(us)), nil
		}
	case from.OID == OIDTimestamp && to.OID == OIDTimestampTZ:
		return func(env *Env, a []Datum) (Datum, error) { return DTimestamp(UTCMicros(a[0].I, env.Settings)), nil }
	case from.OID == OIDTimestampTZ && to.OID == OIDTimestamp:
		return func(env *Env, a []Datum) (Datum, error) { return DTimestamp(LocalMicros(a[0].I, env.Settings)), nil }
	case from.OID == OIDDate && to.OID == OIDTimestampTZ:
		return func(env *Env, a []Datum) (Datum, error) {
			return DTimestamp(UTCMicros(DateToMicros(a[0].I), env.Settings)), nil
		}
	}
	return castMore(from, to)
}

// PgError returns err as PostgreSQL's error: a *pgerr.Error as it is, a
// value-level *types.Error with its fields carried over; ok is false for
// other errors.
func PgError(err error) (*pgerr.Error, bool) {
	var pe *pgerr.Error
	if errors.As(err, &pe) {
		return pe, true
	}
	var te *types.Error
	if !errors.As(err, &te) {
		return nil, false
	}
	pe = pgerr.New(pgerr.Code(te.Code), "%s", te.Message)
	pe.Detail, pe.Hint, pe.Context, pe.Err = te.Detail, te.Hint, te.Where, te
	return pe, true
}

// parseXid is xid8in, and xidin but for its low 32 bits: the number
// strtoul reads from s (leading blanks, a sign, digits; nothing read is
// 0), as PostgreSQL takes it without complaint: '<txid_current()>'::xid
// is that transaction's xid, '-1'::xid is 4294967295.
func parseXid(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\r\f\v")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	var v uint64
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		v = v*10 + uint64(s[i]-'0')
	}
	if neg {
		v = -v
	}
	return int64(v)
}
