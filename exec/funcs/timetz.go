package funcs

import (
	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/types"
)

// time with time zone: CURRENT_TIME, arithmetic with intervals, date +
// timetz, extract and date_part, AT TIME ZONE, min and max. The type's
// input, output, casts and order are exec's (exec/types/time.go).

// CurrentTime is CURRENT_TIME[(precision)]: the transaction's start as a
// time of day in the session zone, with that zone's offset.
func CurrentTime(precision int32) exec.Fn {
	return func(env *exec.Env, _ []exec.Datum) (exec.Datum, error) {
		us := exec.TimestampTZ(txnTime(env))
		t := types.TimeTZFromTimestampTZ(types.TimestampTZ(us), env.Settings)
		if precision >= 0 {
			t.Time = types.AdjustTimeTypmod(t.Time, precision)
		}
		return exec.DTimeTZ(t), nil
	}
}

// timeTZPlus adds sign times an interval's time part to a timetz, modulo
// a day, as timetz_pl_interval: months and days do not move a time of
// day.
func timeTZPlus(sign int64) exec.Fn {
	return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		t, iv := a[0], a[1]
		if t.Kind == exec.KindInterval {
			t, iv = iv, t
		}
		tz := t.TimeTZ()
		r := (int64(tz.Time) + sign*(iv.Interval().Micros%exec.MicrosPerDay)) % exec.MicrosPerDay
		if r < 0 {
			r += exec.MicrosPerDay
		}
		tz.Time = types.Time(r)
		return exec.DTimeTZ(tz), nil
	}
}

// extractTimeTZ is extract(unit from timetz): the time's fields, the
// epoch of its UTC time of day, and the zone (east of Greenwich, as
// PostgreSQL reports it).
func extractTimeTZ(unitText string, t types.TimeTZ) (*apd.Decimal, error) {
	unit, low := unitOf(unitText)
	switch unit {
	case uNone:
		return nil, errUnitNotRecognized(low, "time with time zone")
	case uTimezone:
		return apd.New(-int64(t.Zone), 0), nil
	case uTimezoneHour:
		return apd.New(-int64(t.Zone)/3600, 0), nil
	case uTimezoneMinute:
		return apd.New(-int64(t.Zone)/60%60, 0), nil
	case uEpoch:
		return numDiv(t.UTC(), 6), nil
	}
	d, err := extractTime(unitText, int64(t.Time))
	if err != nil {
		return nil, errUnitNotSupported(low, "time with time zone")
	}
	return d, nil
}

// atZoneTimeTZ is timetz_zone and timetz_izone: the same instant as a
// time of day in another zone, seconds west.
func atZoneTimeTZ(t types.TimeTZ, zone int64) exec.Datum {
	r := (int64(t.Time) + (int64(t.Zone)-zone)*usPerSec) % exec.MicrosPerDay
	if r < 0 {
		r += exec.MicrosPerDay
	}
	return exec.DTimeTZ(types.TimeTZ{Time: types.Time(r), Zone: int32(zone)})
}

func registerTimeTZ() {
	TT, IV, D, TX := exec.OIDTimeTZ, exec.OIDInterval, exec.OIDDate, exec.OIDText
	dtFn("+", []uint32{TT, IV}, TT, timeTZPlus(1))
	dtFn("+", []uint32{IV, TT}, TT, timeTZPlus(1))
	dtFn("-", []uint32{TT, IV}, TT, timeTZPlus(-1))
	// date + timetz is the instant: that date's wall clock in the zone.
	dateTimeTZ := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		d, t := a[0], a[1]
		if d.Kind != exec.KindDate {
			d, t = t, d
		}
		if d.I == exec.DateInfinity || d.I == exec.DateNegInfinity {
			return exec.DTimestamp(exec.DateToMicros(d.I)), nil
		}
		tz := t.TimeTZ()
		return exec.DTimestamp(exec.DateToMicros(d.I) + tz.UTC()), nil
	}
	dtFn("+", []uint32{D, TT}, exec.OIDTimestampTZ, dateTimeTZ)
	dtFn("+", []uint32{TT, D}, exec.OIDTimestampTZ, dateTimeTZ)
	dtFn("extract", []uint32{TX, TT}, exec.OIDNumeric, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return numericOrNull(extractTimeTZ(a[0].S, a[1].TimeTZ()))
	})
	dtFn("date_part", []uint32{TX, TT}, exec.OIDFloat8, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return floatOrNull(extractTimeTZ(a[0].S, a[1].TimeTZ()))
	})
	dtFn("timezone", []uint32{TX, TT}, TT, func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		loc, err := zoneArg(a[0].S)
		if err != nil {
			return exec.Null, err
		}
		_, east := txnTime(env).In(loc).Zone()
		return atZoneTimeTZ(a[1].TimeTZ(), -int64(east)), nil
	})
	dtFn("timezone", []uint32{IV, TT}, TT, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		iv := a[0].Interval()
		if _, err := intervalZone(iv); err != nil {
			return exec.Null, err
		}
		return atZoneTimeTZ(a[1].TimeTZ(), -iv.Micros/usPerSec), nil
	})
	exec.RegisterAgg(
		&exec.AggFunc{Name: "min", Args: []uint32{TT}, New: func([]exec.T) exec.Accumulator { return &minMaxAcc{sign: -1} }},
		&exec.AggFunc{Name: "max", Args: []uint32{TT}, New: func([]exec.T) exec.Accumulator { return &minMaxAcc{sign: 1} }},
	)
}
