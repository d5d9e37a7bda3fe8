package funcs

import (
	"math"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// Date and time arithmetic and functions as PostgreSQL's date.c,
// timestamp.c and datetime.c compute them: dates ± days, timestamps ±
// intervals (months and days on the calendar, in the session zone for
// timestamptz), differences, extract/date_part, date_trunc, age, the
// make_* constructors, justify_*, AT TIME ZONE and OVERLAPS.

const (
	usPerHour      = 3_600_000_000
	usPerMinute    = 60_000_000
	usPerSec       = 1_000_000
	daysPerMonth   = 30
	minTimestampUs = -211813488000000000 // 4714-11-24 00:00:00 BC
	endTimestampUs = 9223371331200000000 // 294277-01-01 00:00:00
)

var (
	errDateRange     = pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range")
	errIntervalRange = pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
)

// fromFields assembles a wall-clock timestamp; ok is false out of range.
func fromFields(y, m, d, hour, min, sec int, usec int64) (int64, bool) {
	days := types.JulianDay(y, m, d) - exec.PostgresEpochJD
	t := ((int64(hour)*60+int64(min))*60+int64(sec))*usPerSec + usec
	if days > math.MaxInt64/exec.MicrosPerDay || days < math.MinInt64/exec.MicrosPerDay {
		return 0, false
	}
	r := days*exec.MicrosPerDay + t
	if r < minTimestampUs || r >= endTimestampUs {
		return 0, false
	}
	return r, true
}

var daysIn = [2][13]int{{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}, {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func leapIdx(y int) int {
	if isLeap(y) {
		return 1
	}
	return 0
}

// addInterval is timestamp_pl_interval on a wall-clock timestamp: months
// and days move on the calendar (a month end clamps), the rest adds.
func addInterval(us int64, iv exec.Interval) (int64, error) {
	if exec.IsInfiniteTimestamp(us) {
		return us, nil
	}
	if iv.Months != 0 || iv.Days != 0 {
		t := breakDown(us)
		if iv.Months != 0 {
			m := int64(t.mon) - 1 + int64(iv.Months)
			y := int64(t.year) + m/12
			m %= 12
			if m < 0 {
				m += 12
				y--
			}
			t.year, t.mon = int(y), int(m)+1
			if md := daysIn[leapIdx(t.year)][t.mon]; t.mday > md {
				t.mday = md
			}
		}
		days := types.JulianDay(t.year, t.mon, t.mday) - exec.PostgresEpochJD + int64(iv.Days)
		r, ok := fromFields(2000, 1, 1, t.hour, t.min, t.sec, t.usec)
		if !ok || days > 106751991 || days < -106751991 {
			return 0, exec.ErrTimestampRange
		}
		us = days*exec.MicrosPerDay + r
		if us < minTimestampUs || us >= endTimestampUs {
			return 0, exec.ErrTimestampRange
		}
	}
	r := us + iv.Micros
	if (iv.Micros > 0 && r < us) || (iv.Micros < 0 && r > us) || r < minTimestampUs || r >= endTimestampUs {
		return 0, exec.ErrTimestampRange
	}
	return r, nil
}

// addIntervalTZ is timestamptz_pl_interval: the calendar part moves in the
// session zone, keeping the wall-clock time.
func addIntervalTZ(us int64, iv exec.Interval, loc *time.Location) (int64, error) {
	if exec.IsInfiniteTimestamp(us) {
		return us, nil
	}
	if iv.Months != 0 || iv.Days != 0 {
		_, off := exec.StampTime(us).In(loc).Zone()
		local, err := addInterval(us+int64(off)*usPerSec, exec.Interval{Months: iv.Months, Days: iv.Days})
		if err != nil {
			return 0, err
		}
		us = utcMicrosIn(local, loc)
	}
	r := us + iv.Micros
	if (iv.Micros > 0 && r < us) || (iv.Micros < 0 && r > us) || r < minTimestampUs || r >= endTimestampUs {
		return 0, exec.ErrTimestampRange
	}
	return r, nil
}

// utcMicrosIn is utcMicros for a given zone.
func utcMicrosIn(us int64, loc *time.Location) int64 {
	if exec.IsInfiniteTimestamp(us) {
		return us
	}
	wall := exec.StampTime(us)
	t := time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), wall.Nanosecond(), loc)
	return (t.Unix()-exec.UnixEpochShift)*1_000_000 + int64(t.Nanosecond()/1000)
}

// add32 adds to an int32 field, reporting overflow.
func add32(v *int32, d int64) bool {
	r := int64(*v) + d
	if r != int64(int32(r)) {
		return false
	}
	*v = int32(r)
	return true
}

// justifyHours is interval_justify_hours.
func justifyHours(iv exec.Interval) (exec.Interval, error) {
	wd := iv.Micros / exec.MicrosPerDay
	iv.Micros -= wd * exec.MicrosPerDay
	if !add32(&iv.Days, wd) {
		return iv, errIntervalRange
	}
	if iv.Days > 0 && iv.Micros < 0 {
		iv.Micros += exec.MicrosPerDay
		iv.Days--
	} else if iv.Days < 0 && iv.Micros > 0 {
		iv.Micros -= exec.MicrosPerDay
		iv.Days++
	}
	return iv, nil
}

func justifyDays(iv exec.Interval) (exec.Interval, error) {
	wm := iv.Days / daysPerMonth
	iv.Days -= wm * daysPerMonth
	if !add32(&iv.Months, int64(wm)) {
		return iv, errIntervalRange
	}
	if iv.Months > 0 && iv.Days < 0 {
		iv.Days += daysPerMonth
		iv.Months--
	} else if iv.Months < 0 && iv.Days > 0 {
		iv.Days -= daysPerMonth
		iv.Months++
	}
	return iv, nil
}

func justifyInterval(iv exec.Interval) (exec.Interval, error) {
	if (iv.Days > 0 && iv.Micros > 0) || (iv.Days < 0 && iv.Micros < 0) {
		wm := iv.Days / daysPerMonth
		iv.Days -= wm * daysPerMonth
		if !add32(&iv.Months, int64(wm)) {
			return iv, errIntervalRange
		}
	}
	wd := iv.Micros / exec.MicrosPerDay
	iv.Micros -= wd * exec.MicrosPerDay
	if !add32(&iv.Days, wd) {
		return iv, errIntervalRange
	}
	wm := iv.Days / daysPerMonth
	iv.Days -= wm * daysPerMonth
	if !add32(&iv.Months, int64(wm)) {
		return iv, errIntervalRange
	}
	if iv.Months > 0 && (iv.Days < 0 || (iv.Days == 0 && iv.Micros < 0)) {
		iv.Days += daysPerMonth
		iv.Months--
	} else if iv.Months < 0 && (iv.Days > 0 || (iv.Days == 0 && iv.Micros > 0)) {
		iv.Days -= daysPerMonth
		iv.Months++
	}
	if iv.Days > 0 && iv.Micros < 0 {
		iv.Micros += exec.MicrosPerDay
		iv.Days--
	} else if iv.Days < 0 && iv.Micros > 0 {
		iv.Micros -= exec.MicrosPerDay
		iv.Days++
	}
	return iv, nil
}

// stampDiff is timestamp − timestamp: the microseconds, justified into
// days and hours.
func stampDiff(a, b int64) (exec.Datum, error) {
	if exec.IsInfiniteTimestamp(a) || exec.IsInfiniteTimestamp(b) {
		return exec.Null, pgerr.New(pgerr.DatetimeFieldOverflow, "cannot subtract infinite timestamps")
	}
	d := a - b
	if (b < 0 && d < a) || (b > 0 && d > a) {
		return exec.Null, errIntervalRange
	}
	iv, err := justifyHours(exec.Interval{Micros: d})
	return exec.DInterval(iv), err
}

func addIntervals(a, b exec.Interval, sign int64) (exec.Interval, error) {
	m := int64(a.Months) + sign*int64(b.Months)
	d := int64(a.Days) + sign*int64(b.Days)
	us := a.Micros + sign*b.Micros
	if m != int64(int32(m)) || d != int64(int32(d)) || (sign > 0 && (b.Micros > 0) != (us > a.Micros) && b.Micros != 0) || (sign < 0 && (b.Micros > 0) != (us < a.Micros) && b.Micros != 0) {
		return exec.Interval{}, errIntervalRange
	}
	return exec.Interval{Months: int32(m), Days: int32(d), Micros: us}, nil
}

// tsRound is TSROUND: rounding to microsecond precision.
func tsRound(v float64) float64 { return math.RoundToEven(v*1e6) / 1e6 }

// intervalMul is interval_mul, fractions of months and days cascading down.
func intervalMul(iv exec.Interval, f float64) (exec.Interval, error) {
	md := float64(iv.Months) * f
	if math.IsNaN(md) || md > math.MaxInt32 || md < math.MinInt32 {
		return exec.Interval{}, errIntervalRange
	}
	dd := float64(iv.Days) * f
	if math.IsNaN(dd) || dd > math.MaxInt32 || dd < math.MinInt32 {
		return exec.Interval{}, errIntervalRange
	}
	var r exec.Interval
	r.Months, r.Days = int32(md), int32(dd)
	monthRem := tsRound((float64(iv.Months)*f - float64(r.Months)) * daysPerMonth)
	secRem := tsRound((float64(iv.Days)*f - float64(r.Days) + monthRem - float64(int32(monthRem))) * 86400)
	if math.Abs(secRem) >= 86400 {
		r.Days += int32(secRem / 86400)
		secRem -= float64(int32(secRem/86400)) * 86400
	}
	r.Days += int32(monthRem)
	t := math.RoundToEven(float64(iv.Micros)*f + secRem*usPerSec)
	if math.IsNaN(t) || t < -9.2233720368547758e18 || t >= 9.2233720368547758e18 {
		return exec.Interval{}, errIntervalRange
	}
	r.Micros = int64(t)
	return r, nil
}

func intervalDiv(iv exec.Interval, f float64) (exec.Interval, error) {
	if f == 0 {
		return exec.Interval{}, exec.ErrDivisionByZero
	}
	if math.IsNaN(f) {
		return exec.Interval{}, errIntervalRange
	}
	var r exec.Interval
	mq, dq := float64(iv.Months)/f, float64(iv.Days)/f
	if mq > math.MaxInt32 || mq < math.MinInt32 || dq > math.MaxInt32 || dq < math.MinInt32 {
		return exec.Interval{}, errIntervalRange
	}
	r.Months, r.Days = int32(mq), int32(dq)
	monthRem := tsRound((mq - float64(r.Months)) * daysPerMonth)
	secRem := tsRound((dq - float64(r.Days) + monthRem - float64(int32(monthRem))) * 86400)
	if math.Abs(secRem) >= 86400 {
		r.Days += int32(secRem / 86400)
		secRem -= float64(int32(secRem/86400)) * 86400
	}
	r.Days += int32(monthRem)
	r.Micros = int64(math.RoundToEven(float64(iv.Micros)/f + secRem*usPerSec))
	return r, nil
}

// Units of extract, date_part and date_trunc, as PostgreSQL's DecodeUnits
// and DecodeSpecial name them.
const (
	uNone = iota
	uMicrosec
	uMillisec
	uSecond
	uMinute
	uHour
	uDay
	uWeek
	uMonth
	uQuarter
	uYear
	uDecade
	uCentury
	uMillennium
	uEpoch
	uDow
	uIsodow
	uDoy
	uIsoyear
	uJulian
	uTimezone
	uTimezoneHour
	uTimezoneMinute
)

var unitNames = map[string]int{
	"microsecond": uMicrosec, "microseconds": uMicrosec, "us": uMicrosec, "usec": uMicrosec, "usecs": uMicrosec, "useconds": uMicrosec, "usecond": uMicrosec,
	"millisecond": uMillisec, "milliseconds": uMillisec, "ms": uMillisec, "msec": uMillisec, "msecs": uMillisec, "mseconds": uMillisec, "msecond": uMillisec,
	"second": uSecond, "seconds": uSecond, "s": uSecond, "sec": uSecond, "secs": uSecond,
	"minute": uMinute, "minutes": uMinute, "m": uMinute, "min": uMinute, "mins": uMinute,
	"hour": uHour, "hours": uHour, "h": uHour, "hr": uHour, "hrs": uHour,
	"day": uDay, "days": uDay, "d": uDay,
	"week": uWeek, "weeks": uWeek, "w": uWeek,
	"month": uMonth, "months": uMonth, "mon": uMonth, "mons": uMonth,
	"quarter": uQuarter, "qtr": uQuarter,
	"year": uYear, "years": uYear, "y": uYear, "yr": uYear, "yrs": uYear,
	"decade": uDecade, "decades": uDecade, "dec": uDecade, "decs": uDecade,
	"century": uCentury, "centuries": uCentury, "c": uCentury, "cent": uCentury,
	"millennium": uMillennium, "millennia": uMillennium, "mil": uMillennium, "mils": uMillennium, "millenniums": uMillennium,
	"epoch": uEpoch, "dow": uDow, "isodow": uIsodow, "doy": uDoy, "isoyear": uIsoyear,
	"julian": uJulian, "j": uJulian, "jd": uJulian,
	"timezone": uTimezone, "timezone_hour": uTimezoneHour, "timezone_h": uTimezoneHour,
	"timezone_minute": uTimezoneMinute, "timezone_m": uTimezoneMinute,
}

// unitOf reads a unit name, lower-cased and trimmed as PostgreSQL does.
func unitOf(s string) (int, string) {
	low := strings.ToLower(strings.TrimSpace(s))
	return unitNames[low], low
}

func errUnitNotRecognized(unit, typ string) error {
	return pgerr.New(pgerr.InvalidParameterValue, "unit \"%s\" not recognized for type %s", unit, typ)
}

func errUnitNotSupported(unit, typ string) error {
	return pgerr.New(pgerr.FeatureNotSupported, "unit \"%s\" not supported for type %s", unit, typ)
}

// isoWeek is date2isoweek over Julian days.
func isoWeek(y, m, d int) int {
	dayn := types.JulianDay(y, m, d)
	day4 := types.JulianDay(y, 1, 4)
	day0 := j2day(day4 - 1)
	if dayn < day4-day0 {
		day4 = types.JulianDay(y-1, 1, 4)
		day0 = j2day(day4 - 1)
	}
	r := (dayn-(day4-day0))/7 + 1
	if r >= 52 {
		day4 = types.JulianDay(y+1, 1, 4)
		day0 = j2day(day4 - 1)
		if dayn >= day4-day0 {
			r = (dayn-(day4-day0))/7 + 1
		}
	}
	return int(r)
}

// isoYear is date2isoyear.
func isoYear(y, m, d int) int {
	dayn := types.JulianDay(y, m, d)
	day4 := types.JulianDay(y, 1, 4)
	day0 := j2day(day4 - 1)
	if dayn < day4-day0 {
		y--
		day4 = types.JulianDay(y, 1, 4)
		day0 = j2day(day4 - 1)
	}
	r := (dayn-(day4-day0))/7 + 1
	if r >= 52 {
		day4 = types.JulianDay(y+1, 1, 4)
		day0 = j2day(day4 - 1)
		if dayn >= day4-day0 {
			y++
		}
	}
	return y
}

func j2day(jd int64) int64 {
	d := (jd + 1) % 7
	if d < 0 {
		d += 7
	}
	return d
}

func yearField(y int) int64 {
	if y > 0 {
		return int64(y)
	}
	return int64(y) - 1
}

func decadeField(y int) int64 {
	if y > 0 {
		return int64(y / 10)
	}
	return -int64((8 - (y - 1)) / 10)
}

func centuryField(y int) int64 {
	if y > 0 {
		return int64((y + 99) / 100)
	}
	return -int64((99 - (y - 1)) / 100)
}

func millenniumField(y int) int64 {
	if y > 0 {
		return int64((y + 999) / 1000)
	}
	return -int64((999 - (y - 1)) / 1000)
}

// numDiv returns v / 10^scale as a numeric of that scale.
func numDiv(v int64, scale int32) *apd.Decimal { return apd.New(v, -scale) }

// dateFields are the calendar fields shared by dates and timestamps.
func dateFields(unit int, t *tm) (int64, bool) {
	switch unit {
	case uDay:
		return int64(t.mday), true
	case uMonth:
		return int64(t.mon), true
	case uQuarter:
		return int64((t.mon-1)/3 + 1), true
	case uWeek:
		return int64(isoWeek(t.year, t.mon, t.mday)), true
	case uYear:
		return yearField(t.year), true
	case uDecade:
		return decadeField(t.year), true
	case uCentury:
		return centuryField(t.year), true
	case uMillennium:
		return millenniumField(t.year), true
	case uDow:
		return j2day(types.JulianDay(t.year, t.mon, t.mday)), true
	case uIsodow:
		d := j2day(types.JulianDay(t.year, t.mon, t.mday))
		if d == 0 {
			d = 7
		}
		return d, true
	case uDoy:
		return types.JulianDay(t.year, t.mon, t.mday) - types.JulianDay(t.year, 1, 1) + 1, true
	case uIsoyear:
		y := isoYear(t.year, t.mon, t.mday)
		if y <= 0 {
			y--
		}
		return int64(y), true
	}
	return 0, false
}

// monotonicUnit reports the units whose value at ±infinity is ±infinity.
func monotonicUnit(u int) bool {
	switch u {
	case uYear, uDecade, uCentury, uMillennium, uJulian, uIsoyear, uEpoch:
		return true
	}
	return false
}

// extractTimestamp is extract(unit from timestamp[tz]) as a numeric.
func extractTimestamp(unitText string, us int64, withTZ bool, env *exec.Env) (*apd.Decimal, error) {
	typ := "timestamp without time zone"
	if withTZ {
		typ = "timestamp with time zone"
	}
	unit, low := unitOf(unitText)
	if unit == uNone {
		return nil, errUnitNotRecognized(low, typ)
	}
	if exec.IsInfiniteTimestamp(us) {
		switch {
		case monotonicUnit(unit):
			return exec.NumericInf(us == exec.TimestampNegInfinity), nil
		case unit == uTimezone || unit == uTimezoneHour || unit == uTimezoneMinute:
			if !withTZ {
				return nil, errUnitNotSupported(low, typ)
			}
		}
		return nil, nil
	}
	var t tm
	if withTZ {
		t = breakDownTZ(us, exec.Location(env.Settings))
	} else {
		t = breakDown(us)
	}
	if v, ok := dateFields(unit, &t); ok {
		return apd.New(v, 0), nil
	}
	secUs := int64(t.sec)*usPerSec + t.usec
	switch unit {
	case uMicrosec:
		return apd.New(secUs, 0), nil
	case uMillisec:
		return numDiv(secUs, 3), nil
	case uSecond:
		return numDiv(secUs, 6), nil
	case uMinute:
		return apd.New(int64(t.min), 0), nil
	case uHour:
		return apd.New(int64(t.hour), 0), nil
	case uJulian:
		d := new(apd.Decimal)
		frac := new(apd.Decimal)
		j := apd.New(types.JulianDay(t.year, t.mon, t.mday), 0)
		fn := exec.NumericArith("/")
		q, err := fn(nil, []exec.Datum{exec.DNumeric(apd.New(t.timeOfDay, 0)), exec.DNumeric(apd.New(exec.MicrosPerDay, 0))})
		if err != nil {
			return nil, err
		}
		frac.Set(q.Numeric())
		exec.NumericContext.Add(d, j, frac)
		return d, nil
	case uEpoch:
		// In decimal: far timestamps overflow int64 microseconds.
		d := new(apd.Decimal)
		exec.NumericContext.Add(d, numDiv(us, 6), apd.New(exec.UnixEpochShift, 0))
		return d, nil
	case uTimezone, uTimezoneHour, uTimezoneMinute:
		if !withTZ {
			return nil, errUnitNotSupported(low, typ)
		}
		switch unit {
		case uTimezone:
			return apd.New(int64(t.offset), 0), nil
		case uTimezoneHour:
			return apd.New(int64(t.offset/3600), 0), nil
		}
		return apd.New(int64((t.offset/60)%60), 0), nil
	}
	return nil, errUnitNotSupported(low, typ)
}

// extractDate is extract(unit from date).
func extractDate(unitText string, days int64) (*apd.Decimal, error) {
	unit, low := unitOf(unitText)
	if unit == uNone {
		return nil, errUnitNotRecognized(low, "date")
	}
	if days == exec.DateInfinity || days == exec.DateNegInfinity {
		if monotonicUnit(unit) {
			return exec.NumericInf(days == exec.DateNegInfinity), nil
		}
		switch unit {
		case uDay, uMonth, uQuarter, uWeek, uDow, uIsodow, uDoy:
			return nil, nil
		}
		return nil, errUnitNotSupported(low, "date")
	}
	t := breakDown(days * exec.MicrosPerDay)
	if v, ok := dateFields(unit, &t); ok {
		return apd.New(v, 0), nil
	}
	switch unit {
	case uJulian:
		return apd.New(days+exec.PostgresEpochJD, 0), nil
	case uEpoch:
		return apd.New((days*86400 + exec.UnixEpochShift), 0), nil
	}
	return nil, errUnitNotSupported(low, "date")
}

// extractTime is extract(unit from time).
func extractTime(unitText string, us int64) (*apd.Decimal, error) {
	unit, low := unitOf(unitText)
	if unit == uNone {
		return nil, errUnitNotRecognized(low, "time without time zone")
	}
	t := breakDown(us)
	secUs := int64(t.sec)*usPerSec + t.usec
	switch unit {
	case uMicrosec:
		return apd.New(secUs, 0), nil
	case uMillisec:
		return numDiv(secUs, 3), nil
	case uSecond:
		return numDiv(secUs, 6), nil
	case uMinute:
		return apd.New(int64(t.min), 0), nil
	case uHour:
		return apd.New(int64(t.hour), 0), nil
	case uEpoch:
		return numDiv(us, 6), nil
	}
	return nil, errUnitNotSupported(low, "time without time zone")
}

// extractInterval is extract(unit from interval).
func extractInterval(unitText string, iv exec.Interval) (*apd.Decimal, error) {
	unit, low := unitOf(unitText)
	if unit == uNone {
		return nil, errUnitNotRecognized(low, "interval")
	}
	year, mon := int64(iv.Months/12), int64(iv.Months%12)
	hours := iv.Micros / usPerHour
	rest := iv.Micros - hours*usPerHour
	mins := rest / usPerMinute
	secUs := rest - mins*usPerMinute
	switch unit {
	case uMicrosec:
		return apd.New(secUs, 0), nil
	case uMillisec:
		return numDiv(secUs, 3), nil
	case uSecond:
		return numDiv(secUs, 6), nil
	case uMinute:
		return apd.New(mins, 0), nil
	case uHour:
		return apd.New(hours, 0), nil
	case uDay:
		return apd.New(int64(iv.Days), 0), nil
	case uMonth:
		return apd.New(mon, 0), nil
	case uQuarter:
		return apd.New(mon/3+1, 0), nil
	case uYear:
		return apd.New(year, 0), nil
	case uDecade:
		return apd.New(year/10, 0), nil
	case uCentury:
		return apd.New(year/100, 0), nil
	case uMillennium:
		return apd.New(year/1000, 0), nil
	case uEpoch:
		secs := int64(31557600)*(int64(iv.Months)/12) + int64(daysPerMonth*86400)*(int64(iv.Months)%12) + 86400*int64(iv.Days)
		d := new(apd.Decimal)
		exec.NumericContext.Add(d, numDiv(iv.Micros, 6), apd.New(secs, 0))
		return d, nil
	}
	return nil, errUnitNotSupported(low, "interval")
}

// truncFields is date_trunc on broken-down fields; redo reports whether
// the zone offset must be found again (units of a day and more).
func truncFields(unit int, t *tm) (redo bool, ok bool) {
	switch unit {
	case uWeek:
		// The Monday of the ISO week.
		j := types.JulianDay(t.year, t.mon, t.mday)
		j -= (j2day(j) + 6) % 7
		t.year, t.mon, t.mday = types.Date(j - exec.PostgresEpochJD).YMD()
		t.hour, t.min, t.sec, t.usec = 0, 0, 0, 0
		return true, true
	case uMillennium, uCentury, uDecade, uYear, uQuarter, uMonth, uDay, uHour, uMinute, uSecond, uMillisec, uMicrosec:
	default:
		return false, false
	}
	switch unit {
	case uMillennium:
		if t.year > 0 {
			t.year = ((t.year+999)/1000)*1000 - 999
		} else {
			t.year = -((999-(t.year-1))/1000)*1000 + 1
		}
	case uCentury:
		if t.year > 0 {
			t.year = ((t.year+99)/100)*100 - 99
		} else {
			t.year = -((99-(t.year-1))/100)*100 + 1
		}
	case uDecade:
		if t.year > 0 {
			t.year = (t.year / 10) * 10
		} else {
			t.year = -((8 - (t.year - 1)) / 10) * 10
		}
	}
	if unit >= uYear {
		t.mon = 1
	}
	if unit >= uQuarter {
		t.mon = 3*((t.mon-1)/3) + 1
	}
	if unit >= uMonth {
		t.mday = 1
	}
	if unit >= uDay {
		t.hour = 0
		redo = true
	}
	if unit >= uHour {
		t.min = 0
	}
	if unit >= uMinute {
		t.sec = 0
	}
	if unit >= uSecond {
		t.usec = 0
	}
	if unit == uMillisec {
		t.usec = (t.usec / 1000) * 1000
	}
	return redo, true
}

func truncTimestamp(unitText string, us int64) (exec.Datum, error) {
	unit, low := unitOf(unitText)
	if exec.IsInfiniteTimestamp(us) {
		if unit == uNone {
			return exec.Null, errUnitNotRecognized(low, "timestamp without time zone")
		}
		return exec.DTimestamp(us), nil
	}
	t := breakDown(us)
	if _, ok := truncFields(unit, &t); !ok {
		if unit == uNone {
			return exec.Null, errUnitNotRecognized(low, "timestamp without time zone")
		}
		return exec.Null, errUnitNotSupported(low, "timestamp without time zone")
	}
	r, ok := fromFields(t.year, t.mon, t.mday, t.hour, t.min, t.sec, t.usec)
	if !ok {
		return exec.Null, exec.ErrTimestampRange
	}
	return exec.DTimestamp(r), nil
}

func truncTimestampTZ(unitText string, us int64, loc *time.Location) (exec.Datum, error) {
	unit, low := unitOf(unitText)
	if exec.IsInfiniteTimestamp(us) {
		if unit == uNone {
			return exec.Null, errUnitNotRecognized(low, "timestamp with time zone")
		}
		return exec.DTimestamp(us), nil
	}
	t := breakDownTZ(us, loc)
	redo, ok := truncFields(unit, &t)
	if !ok {
		if unit == uNone {
			return exec.Null, errUnitNotRecognized(low, "timestamp with time zone")
		}
		return exec.Null, errUnitNotSupported(low, "timestamp with time zone")
	}
	local, ok := fromFields(t.year, t.mon, t.mday, t.hour, t.min, t.sec, t.usec)
	if !ok {
		return exec.Null, exec.ErrTimestampRange
	}
	if redo {
		return exec.DTimestamp(utcMicrosIn(local, loc)), nil
	}
	return exec.DTimestamp(local - int64(t.offset)*usPerSec), nil
}

func truncInterval(unitText string, iv exec.Interval) (exec.Datum, error) {
	unit, low := unitOf(unitText)
	if unit == uWeek {
		return exec.Null, pgerr.New(pgerr.FeatureNotSupported, "unit \"%s\" not supported for type interval", low).
			WithDetail("Months usually have fractional weeks.")
	}
	year, mon, day := iv.Months/12, iv.Months%12, iv.Days
	hours := iv.Micros / usPerHour
	rest := iv.Micros - hours*usPerHour
	mins := rest / usPerMinute
	rest -= mins * usPerMinute
	secs := rest / usPerSec
	usec := rest - secs*usPerSec
	switch unit {
	case uMillennium:
		year = (year / 1000) * 1000
		mon, day, hours, mins, secs, usec = 0, 0, 0, 0, 0, 0
	case uCentury:
		year = (year / 100) * 100
		mon, day, hours, mins, secs, usec = 0, 0, 0, 0, 0, 0
	case uDecade:
		year = (year / 10) * 10
		mon, day, hours, mins, secs, usec = 0, 0, 0, 0, 0, 0
	case uYear:
		mon, day, hours, mins, secs, usec = 0, 0, 0, 0, 0, 0
	case uQuarter:
		mon = 3 * (mon / 3)
		day, hours, mins, secs, usec = 0, 0, 0, 0, 0
	case uMonth:
		day, hours, mins, secs, usec = 0, 0, 0, 0, 0
	case uDay:
		hours, mins, secs, usec = 0, 0, 0, 0
	case uHour:
		mins, secs, usec = 0, 0, 0
	case uMinute:
		secs, usec = 0, 0
	case uSecond:
		usec = 0
	case uMillisec:
		usec = (usec / 1000) * 1000
	case uMicrosec:
	case uNone:
		return exec.Null, errUnitNotRecognized(low, "interval")
	default:
		return exec.Null, errUnitNotSupported(low, "interval")
	}
	return exec.DInterval(exec.Interval{Months: year*12 + mon, Days: day, Micros: ((hours*60+mins)*60+secs)*usPerSec + usec}), nil
}

// age is age(a, b): the symbolic difference in years, months, days and
// time, borrowing days from the month before a (or b when negative).
func age(t1, t2 tm, a, b int64) (exec.Interval, error) {
	neg := a < b
	usec := t1.usec - t2.usec
	sec := t1.sec - t2.sec
	min := t1.min - t2.min
	hour := t1.hour - t2.hour
	mday := t1.mday - t2.mday
	mon := t1.mon - t2.mon
	year := t1.year - t2.year
	if neg {
		usec, sec, min, hour, mday, mon, year = -usec, -sec, -min, -hour, -mday, -mon, -year
	}
	for usec < 0 {
		usec += usPerSec
		sec--
	}
	for sec < 0 {
		sec += 60
		min--
	}
	for min < 0 {
		min += 60
		hour--
	}
	for hour < 0 {
		hour += 24
		mday--
	}
	for mday < 0 {
		if neg {
			mday += daysIn[leapIdx(t1.year)][t1.mon]
		} else {
			mday += daysIn[leapIdx(t2.year)][t2.mon]
		}
		mon--
	}
	for mon < 0 {
		mon += 12
		year--
	}
	if neg {
		usec, sec, min, hour, mday, mon, year = -usec, -sec, -min, -hour, -mday, -mon, -year
	}
	months := int64(year)*12 + int64(mon)
	if months != int64(int32(months)) {
		return exec.Interval{}, errIntervalRange
	}
	return exec.Interval{Months: int32(months), Days: int32(mday), Micros: ((int64(hour)*60+int64(min))*60+int64(sec))*usPerSec + usec}, nil
}

// zoneArg resolves the zone argument of timezone() and its kin.
func zoneArg(name string) (*time.Location, error) {
	if loc, ok := types.LookupTimeZone(strings.TrimSpace(name)); ok {
		return loc, nil
	}
	return nil, pgerr.New(pgerr.InvalidParameterValue, "time zone \"%s\" not recognized", name)
}

// saneZoneArg is parse_sane_timezone, make_timestamptz's reading of its
// zone: an ISO offset (+hh[:mm[:ss]], +hhmm; east of Greenwich) first,
// then an abbreviation or zone name.
func saneZoneArg(name string) (*time.Location, error) {
	if name != "" && name[0] >= '0' && name[0] <= '9' {
		return nil, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s: \"%s\"", "numeric time zone", name).
			WithHint("Numeric time zones must have \"-\" or \"+\" as first character.")
	}
	if name != "" && (name[0] == '+' || name[0] == '-') {
		sign := 1
		if name[0] == '-' {
			sign = -1
		}
		var parts []int
		for k, p := range strings.Split(name[1:], ":") {
			n := 0
			if p == "" && k == 0 {
				parts = nil
				break
			}
			for _, c := range p {
				if c < '0' || c > '9' {
					return zoneArg(name)
				}
				n = n*10 + int(c-'0')
			}
			parts = append(parts, n)
		}
		if len(parts) == 1 && len(name) > 3 {
			parts = []int{parts[0] / 100, parts[0] % 100}
		}
		if len(parts) > 0 {
			secs := parts[0] * 3600
			if len(parts) > 1 {
				secs += parts[1] * 60
			}
			if len(parts) > 2 {
				secs += parts[2]
			}
			if parts[0] > 15 || (len(parts) > 1 && parts[1] > 59) {
				return nil, pgerr.New(pgerr.InvalidTimeZoneDisplacement, "time zone displacement out of range: \"%s\"", name)
			}
			return time.FixedZone("", sign*secs), nil
		}
	}
	return zoneArg(name)
}

func intervalZone(iv exec.Interval) (*time.Location, error) {
	if iv.Months != 0 || iv.Days != 0 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "interval time zone \"%s\" must not include months or days",
			string(types.AppendInterval(nil, iv, nil)))
	}
	return time.FixedZone("", int(iv.Micros/usPerSec)), nil
}

// overlaps is OVERLAPS over four instants, with PostgreSQL's NULL rules.
func overlaps(a []exec.Datum) exec.Datum {
	s1, e1, s2, e2 := a[0], a[1], a[2], a[3]
	if s1.IsNull() {
		if e1.IsNull() {
			return exec.Null
		}
		s1 = e1
	} else if !e1.IsNull() && exec.Compare(s1, e1) > 0 {
		s1, e1 = e1, s1
	}
	if s2.IsNull() {
		if e2.IsNull() {
			return exec.Null
		}
		s2 = e2
	} else if !e2.IsNull() && exec.Compare(s2, e2) > 0 {
		s2, e2 = e2, s2
	}
	switch c := exec.Compare(s1, s2); {
	case c > 0:
		if e2.IsNull() {
			return exec.Null
		}
		if exec.Compare(s1, e2) < 0 {
			return exec.DBool(true)
		}
		if e1.IsNull() {
			return exec.Null
		}
		return exec.DBool(false)
	case c < 0:
		if e1.IsNull() {
			return exec.Null
		}
		if exec.Compare(s2, e1) < 0 {
			return exec.DBool(true)
		}
		if e2.IsNull() {
			return exec.Null
		}
		return exec.DBool(false)
	}
	if e1.IsNull() || e2.IsNull() {
		return exec.Null
	}
	return exec.DBool(true)
}

func errFieldRange(format string, args ...any) error {
	return pgerr.New(pgerr.DatetimeFieldOverflow, format, args...)
}

func makeDate(y, m, d int64) (int64, error) {
	bad := errFieldRange("date field value out of range: %d-%02d-%02d", y, m, d)
	if y == 0 {
		return 0, bad
	}
	ay := y
	if y < 0 {
		ay = y + 1
	}
	if m < 1 || m > 12 || d < 1 || ay > 5874897 || ay < -4713 || d > int64(daysIn[leapIdx(int(ay))][m]) {
		return 0, bad
	}
	dt, ok := types.DateFromYMD(int(ay), int(m), int(d))
	if !ok {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range: %d-%02d-%02d", y, m, d)
	}
	return int64(dt), nil
}

func makeTime(h, m int64, sec float64) (int64, error) {
	if h < 0 || m < 0 || m > 59 || sec < 0 || sec > 60 || h > 24 || (h == 24 && (m > 0 || sec > 0)) || math.IsNaN(sec) {
		return 0, errFieldRange("time field value out of range: %d:%02d:%02s", h, m, formatSeconds(sec))
	}
	return (h*60+m)*60*usPerSec + int64(math.RoundToEven(sec*usPerSec)), nil
}

func formatSeconds(s float64) string {
	return string(types.AppendFloat8(nil, s, 0))
}

func makeTimestamp(a []exec.Datum) (int64, error) {
	d, err := makeDate(a[0].I, a[1].I, a[2].I)
	if err != nil {
		return 0, err
	}
	t, err := makeTime(a[3].I, a[4].I, a[5].F)
	if err != nil {
		return 0, err
	}
	r := d*exec.MicrosPerDay + t
	if r < minTimestampUs || r >= endTimestampUs {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: %d-%02d-%02d %d:%02d:%s", a[0].I, a[1].I, a[2].I, a[3].I, a[4].I, formatSeconds(a[5].F))
	}
	return r, nil
}

func makeInterval(a []exec.Datum) (exec.Datum, error) {
	secs := a[6].F
	if math.IsInf(secs, 0) || math.IsNaN(secs) {
		return exec.Null, errIntervalRange
	}
	months := a[0].I*12 + a[1].I
	days := a[2].I*7 + a[3].I
	if months != int64(int32(months)) || days != int64(int32(days)) {
		return exec.Null, errIntervalRange
	}
	us := math.RoundToEven(secs * usPerSec)
	t := float64(a[4].I)*usPerHour + float64(a[5].I)*usPerMinute + us
	if t >= 9.2233720368547758e18 || t < -9.2233720368547758e18 {
		return exec.Null, errIntervalRange
	}
	return exec.DInterval(exec.Interval{Months: int32(months), Days: int32(days), Micros: a[4].I*usPerHour + a[5].I*usPerMinute + int64(us)}), nil
}

func numericOrNull(d *apd.Decimal, err error) (exec.Datum, error) {
	if err != nil || d == nil {
		return exec.Null, err
	}
	return exec.DNumeric(d), nil
}

func floatOrNull(d *apd.Decimal, err error) (exec.Datum, error) {
	if err != nil || d == nil {
		return exec.Null, err
	}
	f, _ := d.Float64()
	if d.Form == apd.Infinite {
		f = math.Inf(1)
		if d.Negative {
			f = math.Inf(-1)
		}
	}
	return exec.DFloat(f), nil
}

func dtFn(name string, args []uint32, ret uint32, fn exec.Fn) {
	exec.Register(&exec.Func{Name: name, Args: args, Ret: ret, Strict: true, Fn: fn})
}

func registerDatetime() {
	D, TS, TZ, IV, TM := exec.OIDDate, exec.OIDTimestamp, exec.OIDTimestampTZ, exec.OIDInterval, exec.OIDTime
	I4, F8, TX := exec.OIDInt4, exec.OIDFloat8, exec.OIDText
	datePlus := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		d, n := a[0].I, a[1].I
		if a[0].Kind != exec.KindDate {
			d, n = a[1].I, a[0].I
		}
		if d == exec.DateInfinity || d == exec.DateNegInfinity {
			return exec.DDate(d), nil
		}
		r := d + n
		if r < -2451545 || r >= 2147483494-2451545 {
			return exec.Null, errDateRange
		}
		return exec.DDate(r), nil
	}
	dtFn("+", []uint32{D, I4}, D, datePlus)
	dtFn("+", []uint32{I4, D}, D, datePlus)
	dtFn("-", []uint32{D, I4}, D, func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return datePlus(env, []exec.Datum{a[0], exec.DInt(-a[1].I)})
	})
	dtFn("-", []uint32{D, D}, I4, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if a[0].I == exec.DateInfinity || a[0].I == exec.DateNegInfinity || a[1].I == exec.DateInfinity || a[1].I == exec.DateNegInfinity {
			return exec.Null, pgerr.New(pgerr.DatetimeFieldOverflow, "cannot subtract infinite dates")
		}
		return exec.DInt(a[0].I - a[1].I), nil
	})
	stampPlus := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		us, iv := a[0], a[1]
		if us.Kind == exec.KindInterval {
			us, iv = iv, us
		}
		r, err := addInterval(us.I, iv.Interval())
		return exec.DTimestamp(r), err
	}
	stampMinus := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		iv := a[1].Interval()
		neg, err := negInterval(iv)
		if err != nil {
			return exec.Null, err
		}
		r, err := addInterval(a[0].I, neg)
		return exec.DTimestamp(r), err
	}
	tzPlus := func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		us, iv := a[0], a[1]
		if us.Kind == exec.KindInterval {
			us, iv = iv, us
		}
		r, err := addIntervalTZ(us.I, iv.Interval(), exec.Location(env.Settings))
		return exec.DTimestamp(r), err
	}
	tzMinus := func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		neg, err := negInterval(a[1].Interval())
		if err != nil {
			return exec.Null, err
		}
		r, err := addIntervalTZ(a[0].I, neg, exec.Location(env.Settings))
		return exec.DTimestamp(r), err
	}
	dtFn("+", []uint32{TS, IV}, TS, stampPlus)
	dtFn("+", []uint32{IV, TS}, TS, stampPlus)
	dtFn("-", []uint32{TS, IV}, TS, stampMinus)
	dtFn("+", []uint32{TZ, IV}, TZ, tzPlus)
	dtFn("+", []uint32{IV, TZ}, TZ, tzPlus)
	dtFn("-", []uint32{TZ, IV}, TZ, tzMinus)
	dateIv := func(sign int) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			d, iv := a[0], a[1]
			if d.Kind == exec.KindInterval {
				d, iv = iv, d
			}
			i := iv.Interval()
			if sign < 0 {
				var err error
				if i, err = negInterval(i); err != nil {
					return exec.Null, err
				}
			}
			us, err := exec.DateToTimestamp(d.I)
			if err != nil {
				return exec.Null, err
			}
			r, err := addInterval(us, i)
			return exec.DTimestamp(r), err
		}
	}
	dtFn("+", []uint32{D, IV}, TS, dateIv(1))
	dtFn("+", []uint32{IV, D}, TS, dateIv(1))
	dtFn("-", []uint32{D, IV}, TS, dateIv(-1))
	dateTime := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		d, t := a[0], a[1]
		if d.Kind == exec.KindTime {
			d, t = t, d
		}
		if d.I == exec.DateInfinity || d.I == exec.DateNegInfinity {
			return exec.DTimestamp(exec.DateToMicros(d.I)), nil
		}
		r := d.I*exec.MicrosPerDay + t.I
		if r < minTimestampUs || r >= endTimestampUs {
			return exec.Null, exec.ErrTimestampRange
		}
		return exec.DTimestamp(r), nil
	}
	dtFn("+", []uint32{D, TM}, TS, dateTime)
	dtFn("+", []uint32{TM, D}, TS, dateTime)
	timePlus := func(sign int64) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			t, iv := a[0], a[1]
			if t.Kind == exec.KindInterval {
				t, iv = iv, t
			}
			r := (t.I + sign*(iv.Interval().Micros%exec.MicrosPerDay)) % exec.MicrosPerDay
			if r < 0 {
				r += exec.MicrosPerDay
			}
			return exec.DTime(r), nil
		}
	}
	dtFn("+", []uint32{TM, IV}, TM, timePlus(1))
	dtFn("+", []uint32{IV, TM}, TM, timePlus(1))
	dtFn("-", []uint32{TM, IV}, TM, timePlus(-1))
	dtFn("-", []uint32{TM, TM}, IV, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DInterval(exec.Interval{Micros: a[0].I - a[1].I}), nil
	})
	diff := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return stampDiff(a[0].I, a[1].I) }
	dtFn("-", []uint32{TS, TS}, IV, diff)
	dtFn("-", []uint32{TZ, TZ}, IV, diff)
	dtFn("+", []uint32{IV, IV}, IV, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		r, err := addIntervals(a[0].Interval(), a[1].Interval(), 1)
		return exec.DInterval(r), err
	})
	dtFn("-", []uint32{IV, IV}, IV, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		r, err := addIntervals(a[0].Interval(), a[1].Interval(), -1)
		return exec.DInterval(r), err
	})
	dtFn("-", []uint32{IV}, IV, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		r, err := negInterval(a[0].Interval())
		return exec.DInterval(r), err
	})
	mul := func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		iv, f := a[0], a[1]
		if iv.Kind != exec.KindInterval {
			iv, f = f, iv
		}
		r, err := intervalMul(iv.Interval(), f.F)
		return exec.DInterval(r), err
	}
	dtFn("*", []uint32{IV, F8}, IV, mul)
	dtFn("*", []uint32{F8, IV}, IV, mul)
	dtFn("/", []uint32{IV, F8}, IV, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		r, err := intervalDiv(a[0].Interval(), a[1].F)
		return exec.DInterval(r), err
	})

	// extract returns numeric, date_part float8.
	dtFn("extract", []uint32{TX, TS}, exec.OIDNumeric, func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return numericOrNull(extractTimestamp(a[0].S, a[1].I, false, env))
	})
	dtFn("extract", []uint32{TX, TZ}, exec.OIDNumeric, func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return numericOrNull(extractTimestamp(a[0].S, a[1].I, true, env))
	})
	dtFn("extract", []uint32{TX, D}, exec.OIDNumeric, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return numericOrNull(extractDate(a[0].S, a[1].I))
	})
	dtFn("extract", []uint32{TX, TM}, exec.OIDNumeric, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return numericOrNull(extractTime(a[0].S, a[1].I))
	})
	dtFn("extract", []uint32{TX, IV}, exec.OIDNumeric, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return numericOrNull(extractInterval(a[0].S, a[1].Interval()))
	})
	dtFn("date_part", []uint32{TX, TS}, F8, func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return floatOrNull(extractTimestamp(a[0].S, a[1].I, false, env))
	})
	dtFn("date_part", []uint32{TX, TZ}, F8, func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return floatOrNull(extractTimestamp(a[0].S, a[1].I, true, env))
	})
	dtFn("date_part", []uint32{TX, D}, F8, func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		// date_part(text, date) is date_part over the timestamp.
		return floatOrNull(extractTimestamp(a[0].S, exec.DateToMicros(a[1].I), false, env))
	})
	dtFn("date_part", []uint32{TX, TM}, F8, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return floatOrNull(extractTime(a[0].S, a[1].I))
	})
	dtFn("date_part", []uint32{TX, IV}, F8, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return floatOrNull(extractInterval(a[0].S, a[1].Interval()))
	})
	dtFn("date_trunc", []uint32{TX, TS}, TS, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return truncTimestamp(a[0].S, a[1].I) })
	dtFn("date_trunc", []uint32{TX, TZ}, TZ, func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return truncTimestampTZ(a[0].S, a[1].I, exec.Location(env.Settings))
	})
	dtFn("date_trunc", []uint32{TX, TZ, TX}, TZ, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		loc, err := zoneArg(a[2].S)
		if err != nil {
			return exec.Null, err
		}
		return truncTimestampTZ(a[0].S, a[1].I, loc)
	})
	dtFn("date_trunc", []uint32{TX, IV}, IV, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return truncInterval(a[0].S, a[1].Interval()) })

	ageFn := func(tz bool) exec.Fn {
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			x, y := a[0].I, a[1].I
			if exec.IsInfiniteTimestamp(x) || exec.IsInfiniteTimestamp(y) {
				return exec.Null, exec.ErrTimestampRange
			}
			var t1, t2 tm
			if tz {
				loc := exec.Location(env.Settings)
				t1, t2 = breakDownTZ(x, loc), breakDownTZ(y, loc)
			} else {
				t1, t2 = breakDown(x), breakDown(y)
			}
			r, err := age(t1, t2, x, y)
			return exec.DInterval(r), err
		}
	}
	dtFn("age", []uint32{TS, TS}, IV, ageFn(false))
	dtFn("age", []uint32{TZ, TZ}, IV, ageFn(true))
	dtFn("age", []uint32{TS}, IV, func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		today := exec.MicrosToDate(exec.LocalMicros(exec.TimestampTZ(txnTime(env)), env.Settings)) * exec.MicrosPerDay
		return ageFn(false)(env, []exec.Datum{exec.DTimestamp(today), a[0]})
	})
	dtFn("age", []uint32{TZ}, IV, func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		today := exec.UTCMicros(exec.MicrosToDate(exec.LocalMicros(exec.TimestampTZ(txnTime(env)), env.Settings))*exec.MicrosPerDay, env.Settings)
		return ageFn(true)(env, []exec.Datum{exec.DTimestamp(today), a[0]})
	})

	dtFn("make_date", []uint32{I4, I4, I4}, D, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		d, err := makeDate(a[0].I, a[1].I, a[2].I)
		return exec.DDate(d), err
	})
	dtFn("make_time", []uint32{I4, I4, F8}, TM, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		t, err := makeTime(a[0].I, a[1].I, a[2].F)
		return exec.DTime(t), err
	})
	six := []uint32{I4, I4, I4, I4, I4, F8}
	dtFn("make_timestamp", six, TS, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		r, err := makeTimestamp(a)
		return exec.DTimestamp(r), err
	})
	dtFn("make_timestamptz", six, TZ, func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		r, err := makeTimestamp(a)
		if err != nil {
			return exec.Null, err
		}
		return exec.DTimestamp(exec.UTCMicros(r, env.Settings)), nil
	})
	dtFn("make_timestamptz", append(six, TX), TZ, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		r, err := makeTimestamp(a)
		if err != nil {
			return exec.Null, err
		}
		loc, err := saneZoneArg(a[6].S)
		if err != nil {
			return exec.Null, err
		}
		return exec.DTimestamp(utcMicrosIn(r, loc)), nil
	})
	ivNames := []string{"years", "months", "weeks", "days", "hours", "mins", "secs"}
	ivTypes := []exec.T{exec.TInt4, exec.TInt4, exec.TInt4, exec.TInt4, exec.TInt4, exec.TInt4, exec.TFloat8}
	ivDefaults := []exec.Datum{exec.DInt(0), exec.DInt(0), exec.DInt(0), exec.DInt(0), exec.DInt(0), exec.DInt(0), exec.DFloat(0)}
	registerNamed("make_interval", ivNames, ivTypes, ivDefaults)
	for n := 0; n <= 7; n++ {
		args := []uint32{I4, I4, I4, I4, I4, I4, F8}[:n]
		dtFn("make_interval", args, IV, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			full := make([]exec.Datum, 7)
			copy(full, ivDefaults)
			copy(full, a)
			return makeInterval(full)
		})
	}
	for name, fn := range map[string]func(exec.Interval) (exec.Interval, error){
		"justify_days": justifyDays, "justify_hours": justifyHours, "justify_interval": justifyInterval,
	} {
		fn := fn
		dtFn(name, []uint32{IV}, IV, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			r, err := fn(a[0].Interval())
			return exec.DInterval(r), err
		})
	}
	dtFn("isfinite", []uint32{D}, exec.OIDBool, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return exec.DBool(a[0].I != exec.DateInfinity && a[0].I != exec.DateNegInfinity), nil
	})
	for _, t := range []uint32{TS, TZ} {
		dtFn("isfinite", []uint32{t}, exec.OIDBool, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(!exec.IsInfiniteTimestamp(a[0].I)), nil
		})
	}
	dtFn("isfinite", []uint32{IV}, exec.OIDBool, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DBool(true), nil })

	// AT TIME ZONE: timezone(zone, timestamp) reads the wall clock in the
	// zone; timezone(zone, timestamptz) shows the instant on its clock.
	atZone := func(zoneOf func(exec.Datum) (*time.Location, error), toTZ bool) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			loc, err := zoneOf(a[0])
			if err != nil {
				return exec.Null, err
			}
			us := a[1].I
			if exec.IsInfiniteTimestamp(us) {
				return exec.DTimestamp(us), nil
			}
			if toTZ {
				return exec.DTimestamp(utcMicrosIn(us, loc)), nil
			}
			_, off := exec.StampTime(us).In(loc).Zone()
			return exec.DTimestamp(us + int64(off)*usPerSec), nil
		}
	}
	byName := func(d exec.Datum) (*time.Location, error) { return zoneArg(d.S) }
	byInterval := func(d exec.Datum) (*time.Location, error) { return intervalZone(d.Interval()) }
	toTZ := atZone(byName, true)
	dtFn("timezone", []uint32{TX, TS}, TZ, func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		// A dynamic abbreviation (MSK) means what it meant then.
		if !exec.IsInfiniteTimestamp(a[1].I) {
			if us, ok := types.LocalToUTCAbbrev(a[1].I, strings.TrimSpace(a[0].S)); ok {
				return exec.DTimestamp(us), nil
			}
		}
		return toTZ(env, a)
	})
	dtFn("timezone", []uint32{TX, TZ}, TS, atZone(byName, false))
	dtFn("timezone", []uint32{IV, TS}, TZ, atZone(byInterval, true))
	dtFn("timezone", []uint32{IV, TZ}, TS, atZone(byInterval, false))

	for _, t := range []uint32{TS, TZ, TM} {
		t := t
		exec.Register(&exec.Func{Name: "overlaps", Args: []uint32{t, t, t, t}, Ret: exec.OIDBool, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return overlaps(a), nil }})
		exec.Register(&exec.Func{Name: "overlaps", Args: []uint32{t, IV, t, IV}, Ret: exec.OIDBool, Fn: func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			end := func(s, iv exec.Datum) (exec.Datum, error) {
				if s.IsNull() || iv.IsNull() {
					return exec.Null, nil
				}
				switch t {
				case TZ:
					r, err := addIntervalTZ(s.I, iv.Interval(), exec.Location(env.Settings))
					return exec.DTimestamp(r), err
				case TM:
					return timePlus(1)(env, []exec.Datum{s, iv})
				}
				r, err := addInterval(s.I, iv.Interval())
				return exec.DTimestamp(r), err
			}
			e1, err := end(a[0], a[1])
			if err != nil {
				return exec.Null, err
			}
			e2, err := end(a[2], a[3])
			if err != nil {
				return exec.Null, err
			}
			return overlaps([]exec.Datum{a[0], e1, a[2], e2}), nil
		}})
	}
}

func negInterval(iv exec.Interval) (exec.Interval, error) {
	if iv.Months == math.MinInt32 || iv.Days == math.MinInt32 || iv.Micros == math.MinInt64 {
		return exec.Interval{}, errIntervalRange
	}
	return exec.Interval{Months: -iv.Months, Days: -iv.Days, Micros: -iv.Micros}, nil
}

// dateBin is date_bin(stride, source, origin): source moved down to the
// start of its stride-long bin counted from origin.
func dateBin(stride exec.Interval, src, origin int64) (exec.Datum, error) {
	if exec.IsInfiniteTimestamp(src) {
		return exec.DTimestamp(src), nil
	}
	if exec.IsInfiniteTimestamp(origin) {
		return exec.Null, pgerr.New(pgerr.DatetimeFieldOverflow, "origin out of range")
	}
	if stride.Months != 0 {
		return exec.Null, pgerr.New(pgerr.FeatureNotSupported, "timestamps cannot be binned into intervals containing months or years")
	}
	s := int64(stride.Days)*exec.MicrosPerDay + stride.Micros
	if s <= 0 {
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "stride must be greater than zero")
	}
	diff := src - origin
	if (origin < 0 && diff < src) || (origin > 0 && diff > src) {
		return exec.Null, errIntervalRange
	}
	mod := diff % s
	r := origin + (diff - mod)
	if mod < 0 {
		r -= s
		if r < minTimestampUs {
			return exec.Null, exec.ErrTimestampRange
		}
	}
	return exec.DTimestamp(r), nil
}

func registerDateBin() {
	for _, t := range []uint32{exec.OIDTimestamp, exec.OIDTimestampTZ} {
		dtFn("date_bin", []uint32{exec.OIDInterval, t, t}, t, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return dateBin(a[0].Interval(), a[1].I, a[2].I)
		})
	}
	exec.Register(&exec.Func{Name: "pg_sleep", Args: []uint32{exec.OIDFloat8}, Ret: exec.OIDVoid, Strict: true, Fn: func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		d := time.Duration(a[0].F * float64(time.Second))
		if d <= 0 {
			return exec.DText(""), nil
		}
		t := time.NewTimer(d)
		defer t.Stop()
		if env.Ctx == nil {
			<-t.C
			return exec.DText(""), nil
		}
		select {
		case <-t.C:
		case <-env.Ctx.Done():
			return exec.Null, pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
		}
		return exec.DText(""), nil
	}})
}

func registerIntervalHash() {
	// interval_hash hashes an interval's span, so that intervals equal
	// under = ('30 days' and '1 month') hash alike, as PostgreSQL's does.
	dtFn("interval_hash", []uint32{exec.OIDInterval}, exec.OIDInt4, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		iv := a[0].Interval()
		days := int64(iv.Months)*daysPerMonth + int64(iv.Days) + iv.Micros/exec.MicrosPerDay
		rem := iv.Micros % exec.MicrosPerDay
		if rem < 0 {
			days, rem = days-1, rem+exec.MicrosPerDay
		}
		h := uint64(days)*0x9E3779B97F4A7C15 ^ uint64(rem)*0xC2B2AE3D27D4EB4F
		h ^= h >> 29
		return exec.DInt(int64(int32(uint32(h)))), nil
	})
}

// tm is a broken-down timestamp: year is astronomical (0 is 1 BC).
type tm struct {
	year, mon, mday int
	hour, min, sec  int
	usec            int64
	days            int64 // days since 2000-01-01
	timeOfDay       int64 // microseconds since midnight
	offset          int   // seconds east of UTC, for timestamptz
	zone            string
}

// breakDown splits a timestamp (wall clock) into fields.
func breakDown(us int64) tm {
	var t tm
	t.days = us / exec.MicrosPerDay
	t.timeOfDay = us % exec.MicrosPerDay
	if t.timeOfDay < 0 {
		t.timeOfDay += exec.MicrosPerDay
		t.days--
	}
	t.year, t.mon, t.mday = types.Date(t.days).YMD()
	rest := t.timeOfDay
	t.hour = int(rest / usPerHour)
	rest -= int64(t.hour) * usPerHour
	t.min = int(rest / usPerMinute)
	rest -= int64(t.min) * usPerMinute
	t.sec = int(rest / usPerSec)
	t.usec = rest - int64(t.sec)*usPerSec
	return t
}

// breakDownTZ splits a timestamptz in zone loc.
func breakDownTZ(us int64, loc *time.Location) tm {
	name, off := exec.StampTime(us).In(loc).Zone()
	t := breakDown(us + int64(off)*usPerSec)
	t.offset, t.zone = off, name
	return t
}
