package exec

import (
	"time"

	"github.com/prollypg/prollypg/exec/types"
)

// The functions of the clock and the session that need no catalog: now()
// and its kin, the SQL value functions (CURRENT_DATE, LOCALTIMESTAMP, ...),
// pg_typeof. current_schema and the user names need the session: the
// planner answers them.

// txnTime is the transaction's start: what now(), CURRENT_TIMESTAMP and
// 'now' read, the same all through a transaction.
func txnTime(env *Env) time.Time {
	switch {
	case env != nil && !env.TxnStart.IsZero():
		return env.TxnStart
	case env != nil && env.Settings != nil && env.Settings.Now != nil:
		return env.Settings.Now()
	}
	return time.Now()
}

// CurrentTimestamp is CURRENT_TIMESTAMP[(precision)] (precision < 0: none):
// the transaction's start as a timestamptz.
func CurrentTimestamp(precision int32) Fn {
	return func(env *Env, _ []Datum) (Datum, error) {
		us := TimestampTZ(txnTime(env))
		if precision >= 0 {
			us, _ = types.AdjustTimestampTypmod(us, precision)
		}
		return DTimestamp(us), nil
	}
}

// LocalTimestamp is LOCALTIMESTAMP[(precision)]: the transaction's start
// on the session zone's wall clock.
func LocalTimestamp(precision int32) Fn {
	return func(env *Env, _ []Datum) (Datum, error) {
		us := LocalMicros(TimestampTZ(txnTime(env)), env.Settings)
		if precision >= 0 {
			us, _ = types.AdjustTimestampTypmod(us, precision)
		}
		return DTimestamp(us), nil
	}
}

// LocalTime is LOCALTIME[(precision)] and, as timetz is not a value type
// here, CURRENT_TIME too: the time of day of the transaction's start in
// the session zone.
func LocalTime(precision int32) Fn {
	return func(env *Env, _ []Datum) (Datum, error) {
		us := LocalMicros(TimestampTZ(txnTime(env)), env.Settings)
		t := us % MicrosPerDay
		if t < 0 {
			t += MicrosPerDay
		}
		if precision >= 0 {
			t = int64(types.AdjustTimeTypmod(types.Time(t), precision))
		}
		return DTime(t), nil
	}
}

// CurrentDate is CURRENT_DATE: the session zone's date at the
// transaction's start.
func CurrentDate(env *Env, _ []Datum) (Datum, error) {
	return DDate(MicrosToDate(LocalMicros(TimestampTZ(txnTime(env)), env.Settings))), nil
}

func init() {
	now := CurrentTimestamp(-1)
	for _, name := range []string{"now", "transaction_timestamp", "statement_timestamp"} {
		Register(&Func{Name: name, Ret: OIDTimestampTZ, Fn: now})
	}
	Register(&Func{Name: "clock_timestamp", Ret: OIDTimestampTZ, Fn: func(*Env, []Datum) (Datum, error) {
		return DTimestamp(TimestampTZ(time.Now())), nil
	}})
	Register(&Func{Name: "timeofday", Ret: OIDText, Fn: func(env *Env, _ []Datum) (Datum, error) {
		// PostgreSQL's format: "%a %b %d %H:%M:%S.uuuuuu %Y %Z".
		t := time.Now().In(Location(env.Settings))
		return DText(t.Format("Mon Jan 02 15:04:05.000000 2006 MST")), nil
	}})
	Register(&Func{Name: "pg_typeof", Args: []uint32{OIDAny}, Ret: OIDRegtype, Build: func(args []T) (Fn, T, error) {
		// regtypeout prints format_type_be's name, where bpchar without a
		// typmod is "character".
		oid := args[0].OID
		if cat, _ := types.UserCategoryOf(types.Oid(oid)); cat != 0 {
			return func(env *Env, _ []Datum) (Datum, error) {
				return DRegOID(oid, FormatTypeIn(env.Settings, oid, -1)), nil
			}, TRegtype, nil
		}
		text := types.FormatType(types.Oid(oid), -1)
		if oid == OIDBpchar {
			text = "character"
		}
		name := DRegOID(oid, text)
		return func(*Env, []Datum) (Datum, error) { return name, nil }, TRegtype, nil
	}})
}
