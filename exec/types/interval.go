package types

import (
	"encoding/binary"
	"math"
	"strings"
)

// Interval is an interval value as PostgreSQL stores it: months, days and
// microseconds, each with its own sign.
type Interval struct {
	Months int32
	Days   int32
	Micros int64
}

// itmIn is pg_itm_in: the interval being built by the decoder.
type itmIn struct {
	usec int64
	mday int32
	mon  int32
	year int32
}

func add64(a *int64, b int64) bool {
	r := *a + b
	if (b > 0 && r < *a) || (b < 0 && r > *a) {
		return false
	}
	*a = r
	return true
}

func mul64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	r := a * b
	if r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return r, true
}

func add32(a *int32, b int64) bool {
	r := int64(*a) + b
	if r < math.MinInt32 || r > math.MaxInt32 {
		return false
	}
	*a = int32(r)
	return true
}

func adjustFractMicroseconds(frac float64, scale int64, it *itmIn) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	usec := int64(frac)
	frac -= float64(usec)
	if frac > 0.5 {
		usec++
	} else if frac < -0.5 {
		usec--
	}
	return add64(&it.usec, usec)
}

func adjustFractDays(frac float64, scale int, it *itmIn) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	extra := int32(frac)
	if !add32(&it.mday, int64(extra)) {
		return false
	}
	frac -= float64(extra)
	return adjustFractMicroseconds(frac, usecsPerDay, it)
}

func adjustFractYears(frac float64, scale int, it *itmIn) bool {
	extra := int64(math.RoundToEven(frac * float64(scale) * 12))
	return add32(&it.mon, extra)
}

func adjustMicroseconds(val int64, fval float64, scale int64, it *itmIn) bool {
	usec, ok := mul64(val, scale)
	if !ok || !add64(&it.usec, usec) {
		return false
	}
	return adjustFractMicroseconds(fval, scale, it)
}

func adjustDays(val int64, scale int, it *itmIn) bool {
	if val < math.MinInt32 || val > math.MaxInt32 {
		return false
	}
	d := val * int64(scale)
	if d < math.MinInt32 || d > math.MaxInt32 {
		return false
	}
	return add32(&it.mday, d)
}

func adjustMonths(val int64, it *itmIn) bool {
	if val < math.MinInt32 || val > math.MaxInt32 {
		return false
	}
	return add32(&it.mon, val)
}

func adjustYears(val int64, scale int, it *itmIn) bool {
	if val < math.MinInt32 || val > math.MaxInt32 {
		return false
	}
	y := val * int64(scale)
	if y < math.MinInt32 || y > math.MaxInt32 {
		return false
	}
	return add32(&it.year, y)
}

// decodeTimeForInterval is DecodeTimeForInterval.
func decodeTimeForInterval(str string, rangeMask int, it *itmIn) (int, int) {
	h, m, s, f, err := decodeTimeCommon(str, rangeMask)
	if err != 0 {
		return 0, err
	}
	it.usec = f
	var ok bool
	for _, p := range [3][2]int64{{h, usecsPerHour}, {int64(m), usecsPerMinute}, {int64(s), usecsPerSec}} {
		var v int64
		if v, ok = mul64(p[0], p[1]); !ok || !add64(&it.usec, v) {
			return 0, dterrFieldOverflow
		}
	}
	return dtkTimeM, 0
}

// decodeInterval is DecodeInterval: fields are read right to left so that
// units come before their values.
func decodeInterval(fields []field, rangeMask int, style IntervalStyle, it *itmIn) int {
	forceNegative := false
	isBefore := false
	fmask, tmask := 0, 0
	typ := tkIgnore
	*it = itmIn{}
	nf := len(fields)
	if style == IntervalStyleSQLStandard && nf > 0 && fields[0].s[0] == '-' {
		forceNegative = true
		for i := 1; i < nf; i++ {
			if c := fields[i].s[0]; c == '-' || c == '+' {
				forceNegative = false
				break
			}
		}
	}
	for i := nf - 1; i >= 0; i-- {
		f := fields[i]
		ftyp := f.typ
		if ftyp == dtkTZ {
			if strings.IndexByte(f.s[1:], ':') >= 0 {
				var save = *it
				if m, r := decodeTimeForInterval(f.s[1:], rangeMask, it); r == 0 {
					tmask = m
					if f.s[0] == '-' {
						if it.usec == math.MinInt64 {
							return dterrFieldOverflow
						}
						it.usec = -it.usec
					}
					if forceNegative && it.usec > 0 {
						it.usec = -it.usec
					}
					typ = dtkDay
					if tmask&fmask != 0 {
						return dterrBadFormat
					}
					fmask |= tmask
					continue
				}
				*it = save
			}
			ftyp = dtkNumber
		}
		switch ftyp {
		case dtkTime:
			m, r := decodeTimeForInterval(f.s, rangeMask, it)
			if r != 0 {
				return r
			}
			tmask = m
			if forceNegative && it.usec > 0 {
				it.usec = -it.usec
			}
			typ = dtkDay
		case dtkDate, dtkNumber:
			if typ == tkIgnore {
				switch rangeMask {
				case IntervalYear:
					typ = dtkYear
				case IntervalMonth, IntervalYear | IntervalMonth:
					typ = dtkMonth
				case IntervalDay:
					typ = dtkDay
				case IntervalHour, IntervalDay | IntervalHour:
					typ = dtkHour
				case IntervalMinute, IntervalHour | IntervalMinute, IntervalDay | IntervalHour | IntervalMinute:
					typ = dtkMinute
				default:
					typ = dtkSecond
				}
			}
			val, rest, e := Strtol(f.s, math.MinInt64, math.MaxInt64)
			if e {
				return dterrFieldOverflow
			}
			var fval float64
			switch {
			case rest != "" && rest[0] == '-':
				val2, rest2, e2 := strtoint(rest[1:])
				if e2 || val2 < 0 || val2 >= 12 {
					return dterrFieldOverflow
				}
				if rest2 != "" {
					return dterrBadFormat
				}
				typ = dtkMonth
				if f.s[0] == '-' {
					val2 = -val2
				}
				var ok bool
				if val, ok = mul64(val, 12); !ok || !add64(&val, int64(val2)) {
					return dterrFieldOverflow
				}
			case rest != "" && rest[0] == '.':
				var r int
				fval, r = parseFraction(rest)
				if r != 0 {
					return r
				}
				if f.s[0] == '-' {
					fval = -fval
				}
			case rest == "":
			default:
				return dterrBadFormat
			}
			tmask = 0
			if forceNegative {
				if val > 0 {
					val = -val
				}
				if fval > 0 {
					fval = -fval
				}
			}
			ok := true
			switch typ {
			case dtkMicros:
				ok = adjustMicroseconds(val, fval, 1, it)
				tmask = dtkM(tkMicrosec)
			case dtkMillis:
				ok = adjustMicroseconds(val, fval, 1000, it)
				tmask = dtkM(tkMillisec)
			case dtkSecond:
				ok = adjustMicroseconds(val, fval, usecsPerSec, it)
				if fval == 0 {
					tmask = dtkM(tkSecond)
				} else {
					tmask = dtkAllSecsM
				}
			case dtkMinute:
				ok = adjustMicroseconds(val, fval, usecsPerMinute, it)
				tmask = dtkM(tkMinute)
			case dtkHour:
				ok = adjustMicroseconds(val, fval, usecsPerHour, it)
				tmask = dtkM(tkHour)
				typ = dtkDay
			case dtkDay:
				ok = adjustDays(val, 1, it) && adjustFractMicroseconds(fval, usecsPerDay, it)
				tmask = dtkM(tkDay)
			case dtkWeek:
				ok = adjustDays(val, 7, it) && adjustFractDays(fval, 7, it)
				tmask = dtkM(tkWeek)
			case dtkMonth:
				ok = adjustMonths(val, it) && adjustFractDays(fval, 30, it)
				tmask = dtkM(tkMonth)
			case dtkYear:
				ok = adjustYears(val, 1, it) && adjustFractYears(fval, 1, it)
				tmask = dtkM(tkYear)
			case dtkDecade:
				ok = adjustYears(val, 10, it) && adjustFractYears(fval, 10, it)
				tmask = dtkM(tkDecade)
			case dtkCentury:
				ok = adjustYears(val, 100, it) && adjustFractYears(fval, 100, it)
				tmask = dtkM(tkCentury)
			case dtkMillen:
				ok = adjustYears(val, 1000, it) && adjustFractYears(fval, 1000, it)
				tmask = dtkM(tkMillenium)
			default:
				return dterrBadFormat
			}
			if !ok {
				return dterrFieldOverflow
			}
		case dtkString, dtkSpecial:
			t, uval := decodeUnits(f.s)
			if t == tkIgnore {
				continue
			}
			tmask = 0
			switch t {
			case tkUnits:
				typ = uval
			case tkAgo:
				isBefore = true
				typ = uval
			default:
				return dterrBadFormat
			}
		default:
			return dterrBadFormat
		}
		if tmask&fmask != 0 {
			return dterrBadFormat
		}
		fmask |= tmask
	}
	if fmask == 0 {
		return dterrBadFormat
	}
	if isBefore {
		if it.usec == math.MinInt64 || it.mday == math.MinInt32 || it.mon == math.MinInt32 || it.year == math.MinInt32 {
			return dterrFieldOverflow
		}
		it.usec, it.mday, it.mon, it.year = -it.usec, -it.mday, -it.mon, -it.year
	}
	return 0
}

// parseISO8601Number is ParseISO8601Number: a strtod number split into an
// integer part and a fraction.
func parseISO8601Number(s string) (ipart int64, fpart float64, rest string, dterr int) {
	if s == "" || !(isDigit(s[0]) || s[0] == '-' || s[0] == '.') {
		return 0, 0, s, dterrBadFormat
	}
	v, end, erange := cStrtod(s, 0, 64)
	if end == 0 || erange {
		return 0, 0, s, dterrBadFormat
	}
	if math.IsNaN(v) || v < -1.0e15 || v > 1.0e15 {
		return 0, 0, s, dterrFieldOverflow
	}
	if v >= 0 {
		ipart = int64(math.Floor(v))
	} else {
		ipart = -int64(math.Floor(-v))
	}
	return ipart, v - float64(ipart), s[end:], 0
}

func iso8601IntegerWidth(s string) int {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// decodeISO8601Interval is DecodeISO8601Interval: P1Y2M3DT4H5M6S, and the
// alternative formats P0001-02-03T04:05:06 and P00010203T040506.
func decodeISO8601Interval(str string, it *itmIn) int {
	*it = itmIn{}
	datepart := true
	havefield := false
	if len(str) < 2 || str[0] != 'P' {
		return dterrBadFormat
	}
	str = str[1:]
	for str != "" {
		if str[0] == 'T' {
			datepart = false
			havefield = false
			str = str[1:]
			continue
		}
		fieldstart := str
		val, fval, rest, r := parseISO8601Number(str)
		if r != 0 {
			return r
		}
		str = rest
		var unit byte
		if str != "" {
			unit = str[0]
			str = str[1:]
		}
		if datepart {
			switch unit {
			case 'Y':
				if !adjustYears(val, 1, it) || !adjustFractYears(fval, 1, it) {
					return dterrFieldOverflow
				}
			case 'M':
				if !adjustMonths(val, it) || !adjustFractDays(fval, 30, it) {
					return dterrFieldOverflow
				}
			case 'W':
				if !adjustDays(val, 7, it) || !adjustFractDays(fval, 7, it) {
					return dterrFieldOverflow
				}
			case 'D':
				if !adjustDays(val, 1, it) || !adjustFractMicroseconds(fval, usecsPerDay, it) {
					return dterrFieldOverflow
				}
			case 'T', 0, '-':
				if unit != '-' && iso8601IntegerWidth(fieldstart) == 8 && !havefield {
					if !adjustYears(val/10000, 1, it) || !adjustMonths((val/100)%100, it) ||
						!adjustDays(val%100, 1, it) || !adjustFractMicroseconds(fval, usecsPerDay, it) {
						return dterrFieldOverflow
					}
					if unit == 0 {
						return 0
					}
					datepart = false
					havefield = false
					continue
				}
				if havefield {
					return dterrBadFormat
				}
				if !adjustYears(val, 1, it) || !adjustFractYears(fval, 1, it) {
					return dterrFieldOverflow
				}
				if unit == 0 {
					return 0
				}
				if unit == 'T' {
					datepart = false
					havefield = false
					continue
				}
				val, fval, str, r = parseISO8601Number(str)
				if r != 0 {
					return r
				}
				if !adjustMonths(val, it) || !adjustFractDays(fval, 30, it) {
					return dterrFieldOverflow
				}
				if str == "" {
					return 0
				}
				if str[0] == 'T' {
					datepart = false
					havefield = false
					continue
				}
				if str[0] != '-' {
					return dterrBadFormat
				}
				val, fval, str, r = parseISO8601Number(str[1:])
				if r != 0 {
					return r
				}
				if !adjustDays(val, 1, it) || !adjustFractMicroseconds(fval, usecsPerDay, it) {
					return dterrFieldOverflow
				}
				if str == "" {
					return 0
				}
				if str[0] == 'T' {
					datepart = false
					havefield = false
					continue
				}
				return dterrBadFormat
			default:
				return dterrBadFormat
			}
		} else {
			switch unit {
			case 'H':
				if !adjustMicroseconds(val, fval, usecsPerHour, it) {
					return dterrFieldOverflow
				}
			case 'M':
				if !adjustMicroseconds(val, fval, usecsPerMinute, it) {
					return dterrFieldOverflow
				}
			case 'S':
				if !adjustMicroseconds(val, fval, usecsPerSec, it) {
					return dterrFieldOverflow
				}
			case 0, ':':
				if unit == 0 && iso8601IntegerWidth(fieldstart) == 6 && !havefield {
					if !adjustMicroseconds(val/10000, 0, usecsPerHour, it) ||
						!adjustMicroseconds((val/100)%100, 0, usecsPerMinute, it) ||
						!adjustMicroseconds(val%100, 0, usecsPerSec, it) ||
						!adjustFractMicroseconds(fval, 1, it) {
						return dterrFieldOverflow
					}
					return 0
				}
				if havefield {
					return dterrBadFormat
				}
				if !adjustMicroseconds(val, fval, usecsPerHour, it) {
					return dterrFieldOverflow
				}
				if unit == 0 {
					return 0
				}
				val, fval, str, r = parseISO8601Number(str)
				if r != 0 {
					return r
				}
				if !adjustMicroseconds(val, fval, usecsPerMinute, it) {
					return dterrFieldOverflow
				}
				if str == "" {
					return 0
				}
				if str[0] != ':' {
					return dterrBadFormat
				}
				val, fval, str, r = parseISO8601Number(str[1:])
				if r != 0 {
					return r
				}
				if !adjustMicroseconds(val, fval, usecsPerSec, it) {
					return dterrFieldOverflow
				}
				if str == "" {
					return 0
				}
				return dterrBadFormat
			default:
				return dterrBadFormat
			}
		}
		havefield = true
	}
	return 0
}

// ParseInterval is interval_in with a typmod (-1 for none); the session's
// IntervalStyle decides how a leading minus sign applies under
// sql_standard.
func ParseInterval(s string, typmod int32, st *Settings) (Interval, error) {
	rangeMask := int(intervalTypmodRange(typmod))
	var fbuf [maxDateFields]field
	fields, dterr := parseDateTime(s, 256, &fbuf)
	var it itmIn
	if dterr == 0 {
		dterr = decodeInterval(fields, rangeMask, st.intervalStyle(), &it)
	}
	if dterr == dterrBadFormat {
		dterr = decodeISO8601Interval(s, &it)
	}
	if dterr != 0 {
		if dterr == dterrFieldOverflow {
			dterr = dterrIntervalOverflw
		}
		return Interval{}, dateTimeParseError(dterr, s, "interval", fields)
	}
	months := int64(it.year)*12 + int64(it.mon)
	if months > math.MaxInt32 || months < math.MinInt32 {
		return Interval{}, newError(CodeDatetimeFieldOverflow, "interval out of range")
	}
	iv := Interval{Months: int32(months), Days: it.mday, Micros: it.usec}
	return AdjustIntervalTypmod(iv, typmod)
}

// AdjustIntervalTypmod is AdjustIntervalForTypmod: it drops the fields below
// the typmod's range and rounds the seconds to its precision.
func AdjustIntervalTypmod(iv Interval, typmod int32) (Interval, error) {
	if typmod < 0 {
		return iv, nil
	}
	rng := intervalTypmodRange(typmod)
	precision := intervalTypmodPrecision(typmod)
	switch rng {
	case IntervalFullRange:
	case IntervalYear:
		iv.Months = iv.Months / 12 * 12
		iv.Days = 0
		iv.Micros = 0
	case IntervalMonth, IntervalYear | IntervalMonth:
		iv.Days = 0
		iv.Micros = 0
	case IntervalDay:
		iv.Micros = 0
	case IntervalHour, IntervalDay | IntervalHour:
		iv.Micros = iv.Micros / usecsPerHour * usecsPerHour
	case IntervalMinute, IntervalDay | IntervalHour | IntervalMinute, IntervalHour | IntervalMinute:
		iv.Micros = iv.Micros / usecsPerMinute * usecsPerMinute
	case IntervalSecond, IntervalDay | IntervalHour | IntervalMinute | IntervalSecond,
		IntervalHour | IntervalMinute | IntervalSecond, IntervalMinute | IntervalSecond:
	default:
		return iv, newError(CodeInternalError, "unrecognized interval typmod: %d", typmod)
	}
	if precision != IntervalFullPrecision {
		if precision < 0 || precision > 6 {
			return iv, newError(CodeInvalidParameterValue, "interval(%d) precision must be between %d and %d", precision, 0, 6)
		}
		if iv.Micros >= 0 {
			iv.Micros = (iv.Micros + timestampOffsets[precision]) / timestampScales[precision] * timestampScales[precision]
		} else {
			iv.Micros = -((-iv.Micros + timestampOffsets[precision]) / timestampScales[precision] * timestampScales[precision])
		}
	}
	return iv, nil
}

func appendInt(dst []byte, v int64) []byte {
	if v < 0 {
		dst = append(dst, '-')
		return appendZeroPad(dst, int(-v), 1)
	}
	return appendZeroPad(dst, int(v), 1)
}

// AppendInterval appends interval_out's text in the session IntervalStyle.
func AppendInterval(dst []byte, iv Interval, st *Settings) []byte {
	year := int64(iv.Months / 12)
	mon := int64(iv.Months % 12)
	mday := int64(iv.Days)
	t := iv.Micros
	hour := t / usecsPerHour
	t -= hour * usecsPerHour
	min := t / usecsPerMinute
	t -= min * usecsPerMinute
	sec := t / usecsPerSec
	fsec := t - sec*usecsPerSec
	isZero := true
	isBefore := false
	abs := func(v int64) int64 {
		if v < 0 {
			return -v
		}
		return v
	}
	switch st.intervalStyle() {
	case IntervalStyleSQLStandard:
		hasNeg := year < 0 || mon < 0 || mday < 0 || hour < 0 || min < 0 || sec < 0 || fsec < 0
		hasPos := year > 0 || mon > 0 || mday > 0 || hour > 0 || min > 0 || sec > 0 || fsec > 0
		hasYM := year != 0 || mon != 0
		hasDT := mday != 0 || hour != 0 || min != 0 || sec != 0 || fsec != 0
		hasDay := mday != 0
		std := !(hasNeg && hasPos) && !(hasYM && hasDT)
		if hasNeg && std {
			dst = append(dst, '-')
			year, mon, mday, hour, min, sec, fsec = -year, -mon, -mday, -hour, -min, -sec, -fsec
		}
		switch {
		case !hasNeg && !hasPos:
			dst = append(dst, '0')
		case !std:
			ys, ds, ss := byte('+'), byte('+'), byte('+')
			if year < 0 || mon < 0 {
				ys = '-'
			}
			if mday < 0 {
				ds = '-'
			}
			if hour < 0 || min < 0 || sec < 0 || fsec < 0 {
				ss = '-'
			}
			dst = append(dst, ys)
			dst = appendInt(dst, abs(year))
			dst = append(dst, '-')
			dst = appendInt(dst, abs(mon))
			dst = append(dst, ' ', ds)
			dst = appendInt(dst, abs(mday))
			dst = append(dst, ' ', ss)
			dst = appendInt(dst, abs(hour))
			dst = append(dst, ':')
			dst = appendZeroPad(dst, int(abs(min)), 2)
			dst = append(dst, ':')
			dst = appendSeconds(dst, int(sec), fsec, 6, true)
		case hasYM:
			dst = appendInt(dst, year)
			dst = append(dst, '-')
			dst = appendInt(dst, mon)
		case hasDay:
			dst = appendInt(dst, mday)
			dst = append(dst, ' ')
			dst = appendInt(dst, hour)
			dst = append(dst, ':')
			dst = appendZeroPad(dst, int(min), 2)
			dst = append(dst, ':')
			dst = appendSeconds(dst, int(sec), fsec, 6, true)
		default:
			dst = appendInt(dst, hour)
			dst = append(dst, ':')
			dst = appendZeroPad(dst, int(min), 2)
			dst = append(dst, ':')
			dst = appendSeconds(dst, int(sec), fsec, 6, true)
		}
	case IntervalStyleISO8601:
		if year == 0 && mon == 0 && mday == 0 && hour == 0 && min == 0 && sec == 0 && fsec == 0 {
			return append(dst, "PT0S"...)
		}
		dst = append(dst, 'P')
		dst = addISOPart(dst, year, 'Y')
		dst = addISOPart(dst, mon, 'M')
		dst = addISOPart(dst, mday, 'D')
		if hour != 0 || min != 0 || sec != 0 || fsec != 0 {
			dst = append(dst, 'T')
		}
		dst = addISOPart(dst, hour, 'H')
		dst = addISOPart(dst, min, 'M')
		if sec != 0 || fsec != 0 {
			if sec < 0 || fsec < 0 {
				dst = append(dst, '-')
			}
			dst = appendSeconds(dst, int(sec), fsec, 6, false)
			dst = append(dst, 'S')
		}
	case IntervalStylePostgres:
		dst = addPostgresPart(dst, year, "year", &isZero, &isBefore)
		dst = addPostgresPart(dst, mon, "mon", &isZero, &isBefore)
		dst = addPostgresPart(dst, mday, "day", &isZero, &isBefore)
		if isZero || hour != 0 || min != 0 || sec != 0 || fsec != 0 {
			minus := hour < 0 || min < 0 || sec < 0 || fsec < 0
			if !isZero {
				dst = append(dst, ' ')
			}
			if minus {
				dst = append(dst, '-')
			} else if isBefore {
				dst = append(dst, '+')
			}
			dst = appendZeroPad(dst, int(abs(hour)), 2)
			dst = append(dst, ':')
			dst = appendZeroPad(dst, int(abs(min)), 2)
			dst = append(dst, ':')
			dst = appendSeconds(dst, int(sec), fsec, 6, true)
		}
	default: // postgres_verbose
		dst = append(dst, '@')
		dst = addVerbosePart(dst, year, "year", &isZero, &isBefore)
		dst = addVerbosePart(dst, mon, "mon", &isZero, &isBefore)
		dst = addVerbosePart(dst, mday, "day", &isZero, &isBefore)
		dst = addVerbosePart(dst, hour, "hour", &isZero, &isBefore)
		dst = addVerbosePart(dst, min, "min", &isZero, &isBefore)
		if sec != 0 || fsec != 0 {
			dst = append(dst, ' ')
			if sec < 0 || (sec == 0 && fsec < 0) {
				if isZero {
					isBefore = true
				} else if !isBefore {
					dst = append(dst, '-')
				}
			} else if isBefore {
				dst = append(dst, '-')
			}
			dst = appendSeconds(dst, int(sec), fsec, 6, false)
			dst = append(dst, " sec"...)
			if abs(sec) != 1 || fsec != 0 {
				dst = append(dst, 's')
			}
			isZero = false
		}
		if isZero {
			dst = append(dst, " 0"...)
		}
		if isBefore {
			dst = append(dst, " ago"...)
		}
	}
	return dst
}

func addISOPart(dst []byte, v int64, unit byte) []byte {
	if v == 0 {
		return dst
	}
	dst = appendInt(dst, v)
	return append(dst, unit)
}

func addPostgresPart(dst []byte, v int64, unit string, isZero, isBefore *bool) []byte {
	if v == 0 {
		return dst
	}
	if !*isZero {
		dst = append(dst, ' ')
	}
	if *isBefore && v > 0 {
		dst = append(dst, '+')
	}
	dst = appendInt(dst, v)
	dst = append(dst, ' ')
	dst = append(dst, unit...)
	if v != 1 {
		dst = append(dst, 's')
	}
	*isBefore = v < 0
	*isZero = false
	return dst
}

func addVerbosePart(dst []byte, v int64, unit string, isZero, isBefore *bool) []byte {
	if v == 0 {
		return dst
	}
	if *isZero {
		*isBefore = v < 0
		if v < 0 {
			v = -v
		}
	} else if *isBefore {
		v = -v
	}
	dst = append(dst, ' ')
	dst = appendInt(dst, v)
	dst = append(dst, ' ')
	dst = append(dst, unit...)
	if v != 1 {
		dst = append(dst, 's')
	}
	*isZero = false
	return dst
}

// AppendIntervalBinary appends interval_send's format: int64 microseconds,
// int32 days, int32 months.
func AppendIntervalBinary(dst []byte, iv Interval) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(iv.Micros))
	dst = binary.BigEndian.AppendUint32(dst, uint32(iv.Days))
	return binary.BigEndian.AppendUint32(dst, uint32(iv.Months))
}

// ParseIntervalBinary is interval_recv; typmod -1 for none.
func ParseIntervalBinary(b []byte, typmod int32) (Interval, error) {
	if err := fixedLen(b, 16); err != nil {
		return Interval{}, err
	}
	iv := Interval{
		Micros: int64(binary.BigEndian.Uint64(b)),
		Days:   int32(binary.BigEndian.Uint32(b[8:])),
		Months: int32(binary.BigEndian.Uint32(b[12:])),
	}
	return AdjustIntervalTypmod(iv, typmod)
}
