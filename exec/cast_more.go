package exec

import (
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// castMore has the casts castKind leaves out: jsonb scalars to numbers and
// bool, and the casts between time, timestamps and interval.
func castMore(from, to T) Fn {
	tk := KindOf(to.OID)
	switch {
	case from.OID == OIDJSONB && (tk == KindInt || tk == KindFloat || tk == KindNumeric || tk == KindBool):
		conv := castKind(TNumeric, to)
		name := TypeName(to.OID)
		return func(env *Env, a []Datum) (Datum, error) {
			v, err := types.ParseJSONB(a[0].S)
			if err != nil {
				return Null, err
			}
			if tk == KindBool {
				if v.Kind != types.JSONBool {
					return Null, errJSONBCast(&v, name)
				}
				return DBool(v.Bool), nil
			}
			if v.Kind != types.JSONNumber {
				return Null, errJSONBCast(&v, name)
			}
			return conv(env, []Datum{DNumeric(v.Num)})
		}
	case from.OID == OIDTime && to.OID == OIDInterval:
		return func(_ *Env, a []Datum) (Datum, error) { return DInterval(Interval{Micros: a[0].I}), nil }
	case from.OID == OIDInterval && to.OID == OIDTime:
		return func(_ *Env, a []Datum) (Datum, error) {
			t := a[0].Interval().Micros % MicrosPerDay
			if t < 0 {
				t += MicrosPerDay
			}
			return DTime(t), nil
		}
	case from.OID == OIDTimestamp && to.OID == OIDTime:
		return func(_ *Env, a []Datum) (Datum, error) {
			if IsInfiniteTimestamp(a[0].I) {
				return Null, ErrTimestampRange
			}
			return DTime(timeOfDay(a[0].I)), nil
		}
	case from.OID == OIDTimestampTZ && to.OID == OIDTimeTZ:
		return func(env *Env, a []Datum) (Datum, error) {
			if IsInfiniteTimestamp(a[0].I) {
				return Null, nil // timestamptz_timetz: no time of day
			}
			t := types.TimeTZFromTimestampTZ(types.TimestampTZ(a[0].I), env.Settings)
			t.Time = types.AdjustTimeTypmod(t.Time, to.Typmod)
			return DTimeTZ(t), nil
		}
	case from.OID == OIDTime && to.OID == OIDTimeTZ:
		return func(env *Env, a []Datum) (Datum, error) {
			t := types.TimeTZFromTime(types.AdjustTimeTypmod(types.Time(a[0].I), to.Typmod), env.Settings)
			return DTimeTZ(t), nil
		}
	case from.OID == OIDTimeTZ && to.OID == OIDTime:
		return func(_ *Env, a []Datum) (Datum, error) {
			return DTime(int64(types.AdjustTimeTypmod(types.Time(a[0].I), to.Typmod))), nil
		}
	case from.OID == OIDTimestampTZ && to.OID == OIDTime:
		return func(env *Env, a []Datum) (Datum, error) {
			if IsInfiniteTimestamp(a[0].I) {
				return Null, ErrTimestampRange
			}
			return DTime(timeOfDay(LocalMicros(a[0].I, env.Settings))), nil
		}
	}
	return nil
}

// castSpecial has the casts that castKind's generic rules would get
// wrong: bool to text is booltext ("true"), int4 and "char" convert by
// code, not by text.
func castSpecial(from, to T) Fn {
	tk := KindOf(to.OID)
	switch {
	case from.OID != to.OID && IsArrayType(from.OID) && IsArrayType(to.OID):
		return arrayCast(from, to)
	case to.OID == OIDXML && from.OID != OIDXML && KindOf(from.OID) == KindText:
		// text to xml parses, under xmloption (xml.c's texttoxml).
		return func(env *Env, a []Datum) (Datum, error) { return ParseText(to, a[0].S, env.Settings) }
	case from.OID == OIDXML && to.OID != OIDXML && tk == KindText:
		return func(_ *Env, a []Datum) (Datum, error) { return DText(a[0].S), nil }
	case from.OID == OIDBool && tk == KindText:
		// bool's cast to text is booltext: "true", not the output "t".
		return func(_ *Env, a []Datum) (Datum, error) {
			if a[0].Bool() {
				return DText("true"), nil
			}
			return DText("false"), nil
		}
	case KindOf(from.OID) == KindInet && tk == KindText:
		// inet's cast to text is text(inet): the mask always shown.
		return func(_ *Env, a []Datum) (Datum, error) {
			return DText(string(types.AppendInet(nil, a[0].Inet(), true))), nil
		}
	case (from.OID == OIDBit || from.OID == OIDVarbit) && (to.OID == OIDInt4 || to.OID == OIDInt8):
		size := map[uint32]int{OIDInt4: 32, OIDInt8: 64}[to.OID]
		return func(_ *Env, a []Datum) (Datum, error) {
			v, err := types.BitsToInt(a[0].S, size)
			return DInt(v), err
		}
	case (from.OID == OIDInt4 || from.OID == OIDInt8) && to.OID == OIDBit:
		size := map[uint32]int{OIDInt4: 32, OIDInt8: 64}[from.OID]
		return func(_ *Env, a []Datum) (Datum, error) {
			return DText(types.IntToBits(a[0].I, size, int(to.Typmod))), nil
		}
	case (from.OID == OIDBit || from.OID == OIDVarbit) && (to.OID == OIDBit || to.OID == OIDVarbit):
		return func(_ *Env, a []Datum) (Datum, error) { return a[0], nil }
	case (to.OID == OIDBit || to.OID == OIDVarbit) && KindOf(from.OID) == KindText:
		return func(env *Env, a []Datum) (Datum, error) {
			return ParseText(T{OID: to.OID, Typmod: -1}, a[0].S, env.Settings)
		}
	case from.OID == OIDInet && to.OID == OIDCidr:
		// cidr(inet): the bits past the mask cleared.
		return func(_ *Env, a []Datum) (Datum, error) { return DInet(a[0].Inet().Network()), nil }
	case from.OID == OIDUnknown && to.OID == OIDChar:
		// charin: the first byte, or an escaped octal code.
		return func(_ *Env, a []Datum) (Datum, error) {
			return charDatum(types.ParseChar(a[0].S)), nil
		}
	case from.OID == OIDChar && tk == KindText:
		// charout: a NUL is empty, high bytes print as \ooo.
		return func(_ *Env, a []Datum) (Datum, error) {
			if a[0].S == "" {
				return DText(""), nil
			}
			return DText(string(types.AppendChar(nil, a[0].S[0]))), nil
		}
	case from.OID == OIDDate && to.OID == OIDTimestamp:
		return func(_ *Env, a []Datum) (Datum, error) {
			us, err := DateToTimestamp(a[0].I)
			return DTimestamp(us), err
		}
	case from.OID == OIDDate && to.OID == OIDTimestampTZ:
		return func(env *Env, a []Datum) (Datum, error) {
			us, err := DateToTimestamp(a[0].I)
			if err != nil {
				return Null, err
			}
			return DTimestamp(UTCMicros(us, env.Settings)), nil
		}
	case from.OID == OIDInt4 && to.OID == OIDChar:
		return func(_ *Env, a []Datum) (Datum, error) {
			if a[0].I < -128 || a[0].I > 127 {
				return Null, pgerr.New(pgerr.NumericValueOutOfRange, "\"char\" out of range")
			}
			return DText(string([]byte{byte(a[0].I)})), nil
		}
	case from.OID == OIDChar && to.OID == OIDInt4:
		return func(_ *Env, a []Datum) (Datum, error) {
			if a[0].S == "" {
				return DInt(0), nil
			}
			return DInt(int64(int8(a[0].S[0]))), nil
		}
	}
	return nil
}

// JSONBTypeName is the name jsonb's errors and jsonb_typeof give a value.
func JSONBTypeName(v *types.JSONB) string {
	switch v.Kind {
	case types.JSONObject:
		return "object"
	case types.JSONArray:
		return "array"
	case types.JSONString:
		return "string"
	case types.JSONNumber:
		return "number"
	case types.JSONBool:
		return "boolean"
	}
	return "null"
}

func errJSONBCast(v *types.JSONB, typ string) error {
	return pgerr.New(pgerr.InvalidParameterValue, "cannot cast jsonb %s to type %s", JSONBTypeName(v), typ)
}

// charDatum is a "char" value: one byte, NUL being the empty string (as
// the catalogs hold an unset attidentity or attgenerated), so that ”
// and an unset flag compare equal, as in PostgreSQL.
func charDatum(c byte) Datum {
	if c == 0 {
		return DText("")
	}
	return DText(string([]byte{c}))
}
