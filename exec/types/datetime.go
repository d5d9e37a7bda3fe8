package types

import (
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	_ "time/tzdata" // zone names work without a system zoneinfo
)

// This file holds the date/time machinery shared by date, time, timestamp,
// timestamptz and interval: the Julian-day calendar, and the tokenizer and
// field decoder that PostgreSQL's datetime.c implements (ParseDateTime,
// DecodeDateTime, DecodeTimeOnly). The decoder follows PostgreSQL 15's
// algorithm step by step, because its exact acceptance rules are the
// specification.

const (
	usecsPerSec    = 1000000
	usecsPerMinute = 60 * usecsPerSec
	usecsPerHour   = 60 * usecsPerMinute
	usecsPerDay    = 24 * usecsPerHour
	secsPerDay     = 86400

	postgresEpochJDate = 2451545 // JulianDay(2000, 1, 1)
	unixEpochJDate     = 2440588 // JulianDay(1970, 1, 1)

	julianMinYear  = -4713
	julianMinMonth = 11
	julianMaxYear  = 5874898
	julianMaxMonth = 6

	dateEndJulian      = 2147483494 // JulianDay(5874898, 1, 1)
	timestampEndJulian = 109203528  // JulianDay(294277, 1, 1)

	minTimestamp = -211813488000000000 // 4714-11-24 00:00:00 BC
	endTimestamp = 9223371331200000000 // 294277-01-01 00:00:00

	maxTZDispHour = 15
	tokMaxLen     = 10
	maxDateFields = 25
	maxDateLen    = 128
)

// JulianDay is PostgreSQL's date2j: the Julian day number of a proleptic
// Gregorian date (year 0 = 1 BC). It holds for any date, in range or not,
// and works in int64 because some callers (to_date, interval arithmetic)
// pass years not yet checked against the date range.
func JulianDay(y, m, d int) int64 {
	year, month := int64(y), int64(m)
	if month > 2 {
		month++
		year += 4800
	} else {
		month += 13
		year += 4799
	}
	century := year / 100
	julian := year*365 - 32167
	julian += year/4 - century + century/4
	julian += 7834*month/256 + int64(d)
	return julian
}

// j2date converts a non-negative Julian day number to a date.
func j2date(jd int) (year, month, day int) {
	julian := uint32(jd)
	julian += 32044
	quad := julian / 146097
	extra := (julian-quad*146097)*4 + 3
	julian += 60 + quad*3 + extra/146097
	quad = julian / 1461
	julian -= quad * 1461
	y := int(julian * 4 / 1461)
	if y != 0 {
		julian = (julian+305)%365 + 123
	} else {
		julian = (julian+306)%366 + 123
	}
	y += int(quad * 4)
	year = y - 4800
	quad = julian * 2141 / 65536
	day = int(julian - 7834*quad/256)
	month = int((quad+10)%12 + 1)
	return
}

// j2day returns the day of the week of a Julian day, 0 = Sunday.
func j2day(jd int) int {
	d := (jd + 1) % 7
	if d < 0 {
		d += 7
	}
	return d
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

var dayTab = [2][12]int{
	{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
	{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
}

func isValidJulian(y, m, d int) bool {
	return (y > julianMinYear || (y == julianMinYear && m >= julianMinMonth)) &&
		(y < julianMaxYear || (y == julianMaxYear && m < julianMaxMonth))
}

// pgTm is PostgreSQL's struct pg_tm plus fractional seconds.
type pgTm struct {
	year, mon, mday   int
	hour, min, sec    int
	yday, wday, isdst int
	fsec              int64 // microseconds
}

// Field types from the tokenizer (PostgreSQL's DTK_* field types).
const (
	dtkNumber  = 0
	dtkString  = 1
	dtkDate    = 2
	dtkTime    = 3
	dtkTZ      = 4
	dtkAgo     = 5
	dtkSpecial = 6
	dtkEarly   = 9
	dtkLate    = 10
	dtkEpoch   = 11
	dtkNow     = 12
	dtkYest    = 13
	dtkToday   = 14
	dtkTomor   = 15
	dtkZulu    = 16
	dtkDelta   = 17
	dtkSecond  = 18
	dtkMinute  = 19
	dtkHour    = 20
	dtkDay     = 21
	dtkWeek    = 22
	dtkMonth   = 23
	dtkQuarter = 24
	dtkYear    = 25
	dtkDecade  = 26
	dtkCentury = 27
	dtkMillen  = 28
	dtkMillis  = 29
	dtkMicros  = 30
	dtkJulian  = 31
	dtkDow     = 32
	dtkDoy     = 33
	dtkTZHour  = 34
	dtkTZMin   = 35
	dtkISOYear = 36
	dtkISODow  = 37
)

// Token classes (PostgreSQL's datetkn types), also the bit numbers of the
// field masks.
const (
	tkReserv    = 0
	tkMonth     = 1
	tkYear      = 2
	tkDay       = 3
	tkJulian    = 4
	tkTZ        = 5
	tkDTZ       = 6
	tkDynTZ     = 7
	tkIgnore    = 8
	tkAmPm      = 9
	tkHour      = 10
	tkMinute    = 11
	tkSecond    = 12
	tkMillisec  = 13
	tkMicrosec  = 14
	tkDoy       = 15
	tkDow       = 16
	tkUnits     = 17
	tkAdBc      = 18
	tkAgo       = 19
	tkISOTime   = 23
	tkWeek      = 24
	tkDecade    = 25
	tkCentury   = 26
	tkMillenium = 27
	tkDTZMod    = 28
	tkUnknown   = 31
)

func dtkM(t int) int { return 1 << t }

var (
	dtkAllSecsM = dtkM(tkSecond) | dtkM(tkMillisec) | dtkM(tkMicrosec)
	dtkDateM    = dtkM(tkYear) | dtkM(tkMonth) | dtkM(tkDay)
	dtkTimeM    = dtkM(tkHour) | dtkM(tkMinute) | dtkAllSecsM
)

const (
	amVal   = 0
	pmVal   = 1
	hr24Val = 2
	adVal   = 0
	bcVal   = 1
)

// Decoder error classes (PostgreSQL's DTERR_*).
const (
	dterrBadFormat       = -1
	dterrFieldOverflow   = -2
	dterrMDFieldOverflow = -3
	dterrIntervalOverflw = -4
	dterrTZDispOverflow  = -5
)

type datetkn struct {
	typ int
	val int
}

var dateTokens = map[string]datetkn{
	"-infinity": {tkReserv, dtkEarly}, "ad": {tkAdBc, adVal}, "allballs": {tkReserv, dtkZulu},
	"am": {tkAmPm, amVal}, "apr": {tkMonth, 4}, "april": {tkMonth, 4}, "at": {tkIgnore, 0},
	"aug": {tkMonth, 8}, "august": {tkMonth, 8}, "bc": {tkAdBc, bcVal}, "d": {tkUnits, dtkDay},
	"dec": {tkMonth, 12}, "december": {tkMonth, 12}, "dow": {tkUnits, dtkDow}, "doy": {tkUnits, dtkDoy},
	"dst": {tkDTZMod, 3600}, "epoch": {tkReserv, dtkEpoch}, "feb": {tkMonth, 2}, "february": {tkMonth, 2},
	"fri": {tkDow, 5}, "friday": {tkDow, 5}, "h": {tkUnits, dtkHour}, "infinity": {tkReserv, dtkLate},
	"isodow": {tkUnits, dtkISODow}, "isoyear": {tkUnits, dtkISOYear}, "j": {tkUnits, dtkJulian},
	"jan": {tkMonth, 1}, "january": {tkMonth, 1}, "jd": {tkUnits, dtkJulian}, "jul": {tkMonth, 7},
	"julian": {tkUnits, dtkJulian}, "july": {tkMonth, 7}, "jun": {tkMonth, 6}, "june": {tkMonth, 6},
	"m": {tkUnits, dtkMonth}, "mar": {tkMonth, 3}, "march": {tkMonth, 3}, "may": {tkMonth, 5},
	"mm": {tkUnits, dtkMinute}, "mon": {tkDow, 1}, "monday": {tkDow, 1}, "nov": {tkMonth, 11},
	"november": {tkMonth, 11}, "now": {tkReserv, dtkNow}, "oct": {tkMonth, 10}, "october": {tkMonth, 10},
	"on": {tkIgnore, 0}, "pm": {tkAmPm, pmVal}, "s": {tkUnits, dtkSecond}, "sat": {tkDow, 6},
	"saturday": {tkDow, 6}, "sep": {tkMonth, 9}, "sept": {tkMonth, 9}, "september": {tkMonth, 9},
	"sun": {tkDow, 0}, "sunday": {tkDow, 0}, "t": {tkISOTime, dtkTime}, "thu": {tkDow, 4},
	"thur": {tkDow, 4}, "thurs": {tkDow, 4}, "thursday": {tkDow, 4}, "today": {tkReserv, dtkToday},
	"tomorrow": {tkReserv, dtkTomor}, "tue": {tkDow, 2}, "tues": {tkDow, 2}, "tuesday": {tkDow, 2},
	"wed": {tkDow, 3}, "wednesday": {tkDow, 3}, "weds": {tkDow, 3}, "y": {tkUnits, dtkYear},
	"yesterday": {tkReserv, dtkYest},
}

var deltaTokens = map[string]datetkn{
	"@": {tkIgnore, 0}, "ago": {tkAgo, 0}, "c": {tkUnits, dtkCentury}, "cent": {tkUnits, dtkCentury},
	"centuries": {tkUnits, dtkCentury}, "century": {tkUnits, dtkCentury}, "d": {tkUnits, dtkDay},
	"day": {tkUnits, dtkDay}, "days": {tkUnits, dtkDay}, "dec": {tkUnits, dtkDecade},
	"decade": {tkUnits, dtkDecade}, "decades": {tkUnits, dtkDecade}, "decs": {tkUnits, dtkDecade},
	"h": {tkUnits, dtkHour}, "hour": {tkUnits, dtkHour}, "hours": {tkUnits, dtkHour}, "hr": {tkUnits, dtkHour},
	"hrs": {tkUnits, dtkHour}, "m": {tkUnits, dtkMinute}, "microsecon": {tkUnits, dtkMicros},
	"mil": {tkUnits, dtkMillen}, "millennia": {tkUnits, dtkMillen}, "millennium": {tkUnits, dtkMillen},
	"millisecon": {tkUnits, dtkMillis}, "mils": {tkUnits, dtkMillen}, "min": {tkUnits, dtkMinute},
	"mins": {tkUnits, dtkMinute}, "minute": {tkUnits, dtkMinute}, "minutes": {tkUnits, dtkMinute},
	"mon": {tkUnits, dtkMonth}, "mons": {tkUnits, dtkMonth}, "month": {tkUnits, dtkMonth},
	"months": {tkUnits, dtkMonth}, "ms": {tkUnits, dtkMillis}, "msec": {tkUnits, dtkMillis},
	"msecond": {tkUnits, dtkMillis}, "mseconds": {tkUnits, dtkMillis}, "msecs": {tkUnits, dtkMillis},
	"qtr": {tkUnits, dtkQuarter}, "quarter": {tkUnits, dtkQuarter}, "s": {tkUnits, dtkSecond},
	"sec": {tkUnits, dtkSecond}, "second": {tkUnits, dtkSecond}, "seconds": {tkUnits, dtkSecond},
	"secs": {tkUnits, dtkSecond}, "timezone": {tkUnits, dtkTZ}, "timezone_h": {tkUnits, dtkTZHour},
	"timezone_m": {tkUnits, dtkTZMin}, "us": {tkUnits, dtkMicros}, "usec": {tkUnits, dtkMicros},
	"usecond": {tkUnits, dtkMicros}, "useconds": {tkUnits, dtkMicros}, "usecs": {tkUnits, dtkMicros},
	"w": {tkUnits, dtkWeek}, "week": {tkUnits, dtkWeek}, "weeks": {tkUnits, dtkWeek},
	"y": {tkUnits, dtkYear}, "year": {tkUnits, dtkYear}, "years": {tkUnits, dtkYear},
	"yr": {tkUnits, dtkYear}, "yrs": {tkUnits, dtkYear},
}

// tokenKey is the lookup key PostgreSQL uses: at most TOKMAXLEN characters.
func tokenKey(s string) string {
	if len(s) > tokMaxLen {
		return s[:tokMaxLen]
	}
	return s
}

func decodeSpecial(field string) (typ, val int) {
	if t, ok := dateTokens[tokenKey(field)]; ok {
		return t.typ, t.val
	}
	return tkUnknown, 0
}

func decodeUnits(field string) (typ, val int) {
	if t, ok := deltaTokens[tokenKey(field)]; ok {
		return t.typ, t.val
	}
	return tkUnknown, 0
}

// field is one token of a date/time string: its lower-cased text, its
// original text (for time zone names), and its type.
type field struct {
	s    string
	orig string
	typ  int
}

// parseDateTime is PostgreSQL's ParseDateTime: it splits s into fields.
// buflen is the size of the caller's work buffer in PostgreSQL, which makes
// over-long input a syntax error exactly where PostgreSQL's is.
//
// The fields are returned in fbuf's array; their lower-cased text shares one
// allocation, and their original text is a substring of s (the original
// text of a signed field may include the blanks after the sign, which
// PostgreSQL drops; it is only read for zone names, which are never signed).
func parseDateTime(s string, buflen int, fbuf *[maxDateFields]field) ([]field, int) {
	fields := fbuf[:0]
	var ends [maxDateFields]int // end of each field in buf
	var starts [maxDateFields]int
	used := 0
	var wb [256]byte
	buf := wb[:0]
	i := 0
	appendc := func(c byte) bool {
		if used+1 >= buflen {
			return false
		}
		used++
		buf = append(buf, toLower(c))
		return true
	}
	for i < len(s) {
		c := s[i]
		if isSpace(c) {
			i++
			continue
		}
		if len(fields) >= maxDateFields {
			return nil, dterrBadFormat
		}
		fstart := i
		bstart := len(buf)
		var ftype int
		switch {
		case isDigit(c):
			if !appendc(c) {
				return nil, dterrBadFormat
			}
			i++
			for i < len(s) && isDigit(s[i]) {
				if !appendc(s[i]) {
					return nil, dterrBadFormat
				}
				i++
			}
			switch {
			case i < len(s) && s[i] == ':':
				ftype = dtkTime
				if !appendc(s[i]) {
					return nil, dterrBadFormat
				}
				i++
				for i < len(s) && (isDigit(s[i]) || s[i] == ':' || s[i] == '.') {
					if !appendc(s[i]) {
						return nil, dterrBadFormat
					}
					i++
				}
			case i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.'):
				delim := s[i]
				if !appendc(s[i]) {
					return nil, dterrBadFormat
				}
				i++
				if i < len(s) && isDigit(s[i]) {
					if delim == '.' {
						ftype = dtkNumber
					} else {
						ftype = dtkDate
					}
					for i < len(s) && isDigit(s[i]) {
						if !appendc(s[i]) {
							return nil, dterrBadFormat
						}
						i++
					}
					if i < len(s) && s[i] == delim {
						ftype = dtkDate
						if !appendc(s[i]) {
							return nil, dterrBadFormat
						}
						i++
						for i < len(s) && (isDigit(s[i]) || s[i] == delim) {
							if !appendc(s[i]) {
								return nil, dterrBadFormat
							}
							i++
						}
					}
				} else {
					ftype = dtkDate
					for i < len(s) && (isAlnum(s[i]) || s[i] == delim) {
						if !appendc(s[i]) {
							return nil, dterrBadFormat
						}
						i++
					}
				}
			default:
				ftype = dtkNumber
			}
		case c == '.':
			if !appendc(c) {
				return nil, dterrBadFormat
			}
			i++
			for i < len(s) && isDigit(s[i]) {
				if !appendc(s[i]) {
					return nil, dterrBadFormat
				}
				i++
			}
			ftype = dtkNumber
		case isAlpha(c):
			ftype = dtkString
			if !appendc(c) {
				return nil, dterrBadFormat
			}
			i++
			for i < len(s) && isAlpha(s[i]) {
				if !appendc(s[i]) {
					return nil, dterrBadFormat
				}
				i++
			}
			isDate := false
			if i < len(s) {
				switch {
				case s[i] == '-' || s[i] == '/' || s[i] == '.':
					isDate = true
				case s[i] == '+' || isDigit(s[i]):
					if _, ok := dateTokens[tokenKey(string(buf[bstart:]))]; !ok {
						isDate = true
					}
				}
			}
			if isDate {
				ftype = dtkDate
				for {
					if !appendc(s[i]) {
						return nil, dterrBadFormat
					}
					i++
					if !(i < len(s) && (s[i] == '+' || s[i] == '-' || s[i] == '/' || s[i] == '_' ||
						s[i] == '.' || s[i] == ':' || isAlnum(s[i]))) {
						break
					}
				}
			}
		case c == '+' || c == '-':
			if !appendc(c) {
				return nil, dterrBadFormat
			}
			i++
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			switch {
			case i < len(s) && isDigit(s[i]):
				ftype = dtkTZ
				if !appendc(s[i]) {
					return nil, dterrBadFormat
				}
				i++
				for i < len(s) && (isDigit(s[i]) || s[i] == ':' || s[i] == '.' || s[i] == '-') {
					if !appendc(s[i]) {
						return nil, dterrBadFormat
					}
					i++
				}
			case i < len(s) && isAlpha(s[i]):
				ftype = dtkSpecial
				if !appendc(s[i]) {
					return nil, dterrBadFormat
				}
				i++
				for i < len(s) && isAlpha(s[i]) {
					if !appendc(s[i]) {
						return nil, dterrBadFormat
					}
					i++
				}
			default:
				return nil, dterrBadFormat
			}
		case isPunct(c):
			i++
			continue
		default:
			return nil, dterrBadFormat
		}
		used++ // the field's terminating NUL in PostgreSQL's buffer
		starts[len(fields)] = fstart
		ends[len(fields)] = len(buf)
		fields = append(fields, field{typ: ftype})
	}
	low := string(buf)
	prev := 0
	for k := range fields {
		fields[k].s = low[prev:ends[k]]
		prev = ends[k]
	}
	// original text: from the field's start in s, as long as its lower-cased text
	for k := range fields {
		st := starts[k]
		n := len(fields[k].s)
		if st+n <= len(s) && strings.EqualFold(s[st:st+n], fields[k].s) {
			fields[k].orig = s[st : st+n]
		} else {
			fields[k].orig = fields[k].s
		}
	}
	return fields, 0
}

func isAlnum(c byte) bool { return isDigit(c) || isAlpha(c) }

// isPunct is C's ispunct in the "C" locale.
func isPunct(c byte) bool { return c > ' ' && c < 0x7f && !isAlnum(c) }

// strtol mimics C's strtol on s: leading whitespace, an optional sign, then
// digits. It returns the value, the rest of s after the number (all of s if
// there were no digits), and whether the value fell outside [min, max].
func Strtol(s string, min, max int64) (v int64, rest string, erange bool) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return 0, s, false
	}
	var u uint64
	over := false
	for i < len(s) && isDigit(s[i]) {
		if u > (math.MaxUint64-9)/10 {
			over = true
		} else {
			u = u*10 + uint64(s[i]-'0')
		}
		i++
	}
	if neg {
		if over || u > uint64(-min) {
			return min, s[i:], true
		}
		return -int64(u), s[i:], false
	}
	if over || u > uint64(max) {
		return max, s[i:], true
	}
	return int64(u), s[i:], false
}

func strtoint(s string) (int, string, bool) {
	v, r, e := Strtol(s, math.MinInt32, math.MaxInt32)
	return int(v), r, e
}

// strtodPrefix is C's strtod on s: the value and the rest of s.
func strtodPrefix(s string) (float64, string, bool) {
	v, end, erange := cStrtod(s, 0, 64)
	if end == 0 {
		return 0, s, false
	}
	return v, s[end:], erange
}

// parseFraction is ParseFraction: s starts with '.'; "." alone is 0.
func parseFraction(s string) (float64, int) {
	if len(s) == 1 {
		return 0, 0
	}
	v, rest, erange := strtodPrefix(s)
	if rest != "" || erange {
		return 0, dterrBadFormat
	}
	return v, 0
}

func parseFractionalSecond(s string) (int64, int) {
	f, err := parseFraction(s)
	if err != 0 {
		return 0, err
	}
	return int64(math.RoundToEven(f * 1000000)), 0
}

// decodeTimeCommon is DecodeTimeCommon: h:m[:s[.f]] or m:s.f.
func decodeTimeCommon(str string, rangeMask int) (hour int64, min, sec int, fsec int64, dterr int) {
	var rest string
	var e bool
	hour, rest, e = Strtol(str, math.MinInt64, math.MaxInt64)
	if e {
		return 0, 0, 0, 0, dterrFieldOverflow
	}
	if rest == "" || rest[0] != ':' {
		return 0, 0, 0, 0, dterrBadFormat
	}
	min, rest, e = strtoint(rest[1:])
	if e {
		return 0, 0, 0, 0, dterrFieldOverflow
	}
	switch {
	case rest == "":
		sec, fsec = 0, 0
		if rangeMask == IntervalMinute|IntervalSecond {
			if hour > math.MaxInt32/60 {
				return 0, 0, 0, 0, dterrFieldOverflow
			}
			sec = min
			min = int(hour)
			hour = 0
		}
	case rest[0] == '.':
		var err int
		fsec, err = parseFractionalSecond(rest)
		if err != 0 {
			return 0, 0, 0, 0, err
		}
		if hour > math.MaxInt32/60 {
			return 0, 0, 0, 0, dterrFieldOverflow
		}
		sec = min
		min = int(hour)
		hour = 0
	case rest[0] == ':':
		sec, rest, e = strtoint(rest[1:])
		if e {
			return 0, 0, 0, 0, dterrFieldOverflow
		}
		if rest == "" {
			fsec = 0
		} else if rest[0] == '.' {
			var err int
			fsec, err = parseFractionalSecond(rest)
			if err != 0 {
				return 0, 0, 0, 0, err
			}
		} else {
			return 0, 0, 0, 0, dterrBadFormat
		}
	default:
		return 0, 0, 0, 0, dterrBadFormat
	}
	if hour < 0 || min < 0 || min > 59 || sec < 0 || sec > 60 || fsec < 0 || fsec > usecsPerSec {
		return 0, 0, 0, 0, dterrFieldOverflow
	}
	return hour, min, sec, fsec, 0
}

// decodeTime is DecodeTime.
func decodeTime(str string, rangeMask int, tm *pgTm) (tmask int, dterr int) {
	h, m, s, f, err := decodeTimeCommon(str, rangeMask)
	if err != 0 {
		return 0, err
	}
	if h > math.MaxInt32 {
		return 0, dterrFieldOverflow
	}
	tm.hour, tm.min, tm.sec, tm.fsec = int(h), m, s, f
	return dtkTimeM, 0
}

func timeOverflows(hour, min, sec int, fsec int64) bool {
	if hour < 0 || hour > 24 || min < 0 || min >= 60 || sec < 0 || sec > 60 || fsec < 0 || fsec > usecsPerSec {
		return true
	}
	return ((int64(hour)*60+int64(min))*60+int64(sec))*usecsPerSec+fsec > usecsPerDay
}

// atoi is C's atoi on a digit string (no overflow check, as in PostgreSQL).
func atoi(s string) int {
	v, _, _ := Strtol(s, math.MinInt64, math.MaxInt64)
	return int(int32(v))
}

// decodeNumberField is DecodeNumberField: a run-together date (yyyymmdd) or
// time (hhmmss[.fff]). It returns DTK_DATE, DTK_TIME or an error.
func decodeNumberField(str string, fmask int, tmask *int, tm *pgTm, is2digits *bool) int {
	if k := strings.IndexByte(str, '.'); k >= 0 {
		if k+1 == len(str) {
			tm.fsec = 0
		} else {
			f, _, erange := strtodPrefix(str[k:])
			if erange {
				return dterrBadFormat
			}
			tm.fsec = int64(math.RoundToEven(f * 1000000))
		}
		str = str[:k]
	} else if fmask&dtkDateM != dtkDateM {
		if len(str) >= 6 {
			*tmask = dtkDateM
			n := len(str)
			tm.mday = atoi(str[n-2:])
			tm.mon = atoi(str[n-4 : n-2])
			tm.year = atoi(str[:n-4])
			if n-4 == 2 {
				*is2digits = true
			}
			return dtkDate
		}
	}
	if fmask&dtkTimeM != dtkTimeM {
		switch len(str) {
		case 6:
			*tmask = dtkTimeM
			tm.sec = atoi(str[4:])
			tm.min = atoi(str[2:4])
			tm.hour = atoi(str[:2])
			return dtkTime
		case 4:
			*tmask = dtkTimeM
			tm.sec = 0
			tm.min = atoi(str[2:])
			tm.hour = atoi(str[:2])
			return dtkTime
		}
	}
	return dterrBadFormat
}

// decodeNumber is DecodeNumber: one numeric field of a date.
func decodeNumber(str string, haveTextMonth bool, fmask int, tmask *int, tm *pgTm, is2digits *bool, order DateOrder) int {
	*tmask = 0
	flen := len(str)
	val, rest, e := strtoint(str)
	if e {
		return dterrFieldOverflow
	}
	if len(rest) == len(str) {
		return dterrBadFormat
	}
	if rest != "" && rest[0] == '.' {
		if len(str)-len(rest) > 2 {
			r := decodeNumberField(str, fmask|dtkDateM, tmask, tm, is2digits)
			if r < 0 {
				return r
			}
			return 0
		}
		f, err := parseFractionalSecond(rest)
		if err != 0 {
			return err
		}
		tm.fsec = f
	} else if rest != "" {
		return dterrBadFormat
	}
	if flen == 3 && fmask&dtkDateM == dtkM(tkYear) && val >= 1 && val <= 366 {
		*tmask = dtkM(tkDoy) | dtkM(tkMonth) | dtkM(tkDay)
		tm.yday = val
		return 0
	}
	switch fmask & dtkDateM {
	case 0:
		switch {
		case flen >= 3 || order == DateOrderYMD:
			*tmask = dtkM(tkYear)
			tm.year = val
		case order == DateOrderDMY:
			*tmask = dtkM(tkDay)
			tm.mday = val
		default:
			*tmask = dtkM(tkMonth)
			tm.mon = val
		}
	case dtkM(tkYear):
		*tmask = dtkM(tkMonth)
		tm.mon = val
	case dtkM(tkMonth):
		if haveTextMonth {
			if flen >= 3 || order == DateOrderYMD {
				*tmask = dtkM(tkYear)
				tm.year = val
			} else {
				*tmask = dtkM(tkDay)
				tm.mday = val
			}
		} else {
			*tmask = dtkM(tkDay)
			tm.mday = val
		}
	case dtkM(tkYear) | dtkM(tkMonth):
		if haveTextMonth {
			if flen >= 3 && *is2digits {
				*tmask = dtkM(tkDay)
				tm.mday = tm.year
				tm.year = val
				*is2digits = false
			} else {
				*tmask = dtkM(tkDay)
				tm.mday = val
			}
		} else {
			*tmask = dtkM(tkDay)
			tm.mday = val
		}
	case dtkM(tkDay):
		*tmask = dtkM(tkMonth)
		tm.mon = val
	case dtkM(tkMonth) | dtkM(tkDay):
		*tmask = dtkM(tkYear)
		tm.year = val
	case dtkDateM:
		r := decodeNumberField(str, fmask, tmask, tm, is2digits)
		if r < 0 {
			return r
		}
		return 0
	default:
		return dterrBadFormat
	}
	if *tmask == dtkM(tkYear) {
		*is2digits = flen <= 2
	}
	return 0
}

// decodeDate is DecodeDate: a field with embedded separators or a text month.
func decodeDate(str string, fmask int, tmask *int, is2digits *bool, tm *pgTm, order DateOrder) int {
	var fs [maxDateFields]string
	nf := 0
	*tmask = 0
	i := 0
	for i < len(str) && nf < maxDateFields {
		for i < len(str) && !isAlnum(str[i]) {
			i++
		}
		if i >= len(str) {
			return dterrBadFormat
		}
		start := i
		if isDigit(str[i]) {
			for i < len(str) && isDigit(str[i]) {
				i++
			}
		} else if isAlpha(str[i]) {
			for i < len(str) && isAlpha(str[i]) {
				i++
			}
		}
		fs[nf] = str[start:i]
		nf++
		if i < len(str) {
			i++ // PostgreSQL overwrites the following character with NUL
		}
	}
	haveTextMonth := false
	done := [maxDateFields]bool{}
	for k := 0; k < nf; k++ {
		if fs[k] != "" && isAlpha(fs[k][0]) {
			typ, val := decodeSpecial(fs[k])
			if typ == tkIgnore {
				continue
			}
			dmask := dtkM(typ)
			if typ != tkMonth {
				return dterrBadFormat
			}
			tm.mon = val
			haveTextMonth = true
			if fmask&dmask != 0 {
				return dterrBadFormat
			}
			fmask |= dmask
			*tmask |= dmask
			done[k] = true
		}
	}
	for k := 0; k < nf; k++ {
		if done[k] {
			continue
		}
		if fs[k] == "" {
			return dterrBadFormat
		}
		var dmask int
		if r := decodeNumber(fs[k], haveTextMonth, fmask, &dmask, tm, is2digits, order); r != 0 {
			return r
		}
		if fmask&dmask != 0 {
			return dterrBadFormat
		}
		fmask |= dmask
		*tmask |= dmask
	}
	if fmask&^(dtkM(tkDoy)|dtkM(tkTZ)) != dtkDateM {
		return dterrBadFormat
	}
	return 0
}

// decodeTimezone is DecodeTimezone: +hh[:mm[:ss]] or +hhmm. The result is
// seconds west of Greenwich, PostgreSQL's sign convention.
func decodeTimezone(str string) (int, int) {
	if str == "" || (str[0] != '+' && str[0] != '-') {
		return 0, dterrBadFormat
	}
	hr, rest, e := strtoint(str[1:])
	if e {
		return 0, dterrTZDispOverflow
	}
	min, sec := 0, 0
	if rest != "" && rest[0] == ':' {
		min, rest, e = strtoint(rest[1:])
		if e {
			return 0, dterrTZDispOverflow
		}
		if rest != "" && rest[0] == ':' {
			sec, rest, e = strtoint(rest[1:])
			if e {
				return 0, dterrTZDispOverflow
			}
		}
	} else if rest == "" && len(str) > 3 {
		min = hr % 100
		hr = hr / 100
	}
	if hr < 0 || hr > maxTZDispHour || min < 0 || min >= 60 || sec < 0 || sec >= 60 {
		return 0, dterrTZDispOverflow
	}
	tz := (hr*60+min)*60 + sec
	if str[0] == '-' {
		tz = -tz
	}
	if rest != "" {
		return -tz, dterrBadFormat
	}
	return -tz, 0
}

// validateDate is ValidateDate: BC and two-digit years, day of year, and the
// ranges of month and day.
func validateDate(fmask int, isjulian, is2digits, bc bool, tm *pgTm) int {
	if fmask&dtkM(tkYear) != 0 {
		switch {
		case isjulian:
		case bc:
			if tm.year <= 0 {
				return dterrFieldOverflow
			}
			tm.year = -(tm.year - 1)
		case is2digits:
			if tm.year < 0 {
				return dterrFieldOverflow
			}
			if tm.year < 70 {
				tm.year += 2000
			} else if tm.year < 100 {
				tm.year += 1900
			}
		default:
			if tm.year <= 0 {
				return dterrFieldOverflow
			}
		}
	}
	if fmask&dtkM(tkDoy) != 0 {
		tm.year, tm.mon, tm.mday = j2date(int(JulianDay(tm.year, 1, 1)) + tm.yday - 1)
	}
	if fmask&dtkM(tkMonth) != 0 {
		if tm.mon < 1 || tm.mon > 12 {
			return dterrMDFieldOverflow
		}
	}
	if fmask&dtkM(tkDay) != 0 {
		if tm.mday < 1 || tm.mday > 31 {
			return dterrMDFieldOverflow
		}
	}
	if fmask&dtkDateM == dtkDateM {
		leap := 0
		if isLeap(tm.year) {
			leap = 1
		}
		if tm.mday > dayTab[leap][tm.mon-1] {
			return dterrFieldOverflow
		}
	}
	return 0
}

// zoneCache caches time.LoadLocation results (misses too) by the name
// tried, up to zoneCacheMax names, so that a client sending endless
// distinct zone names cannot grow it without bound.
var (
	zoneCache     sync.Map // string → *time.Location (nil if unknown)
	zoneCacheSize atomic.Int32
)

const zoneCacheMax = 4096

// loadZone finds a time zone by name the way pg_tzset does: case does not
// matter. It tries the name as written, then common capitalisations.
func loadZone(orig string) *time.Location {
	if orig == "" {
		return nil
	}
	if v, ok := zoneCache.Load(orig); ok {
		loc, _ := v.(*time.Location)
		return loc
	}
	// The zone database first, as pg_tzset: EST5EDT is a zone with
	// daylight-saving rules there, not the POSIX spec's fixed offset.
	var loc *time.Location
	for _, cand := range zoneCandidates(orig) {
		if strings.Contains(cand, "..") || strings.HasPrefix(cand, "/") || strings.EqualFold(cand, "local") {
			continue
		}
		if l, err := time.LoadLocation(cand); err == nil {
			loc = l
			break
		}
	}
	if loc == nil {
		loc = posixFixedZone(orig)
	}
	if zoneCacheSize.Load() < zoneCacheMax {
		if _, dup := zoneCache.LoadOrStore(orig, loc); !dup {
			zoneCacheSize.Add(1)
		}
	}
	return loc
}

// posixName scans a POSIX TZ zone name at the start of s: <...>, or any
// characters but digits, ',', '-' and '+'.
func posixName(s string) (name, rest string) {
	if s != "" && s[0] == '<' {
		j := strings.IndexByte(s, '>')
		if j < 2 {
			return "", s
		}
		return s[1:j], s[j+1:]
	}
	i := 0
	for i < len(s) && !isDigit(s[i]) && s[i] != ',' && s[i] != '-' && s[i] != '+' {
		i++
	}
	return s[:i], s[i:]
}

// posixOffset scans [+-]hh[:mm[:ss]] (hours up to 167) and returns seconds
// west of Greenwich.
func posixOffset(s string) (west int, rest string, ok bool) {
	sign := 1
	if s != "" && (s[0] == '+' || s[0] == '-') {
		if s[0] == '-' {
			sign = -1
		}
		s = s[1:]
	}
	var parts [3]int
	for n := 0; n < 3; n++ {
		j := 0
		for j < len(s) && isDigit(s[j]) && j < 3 {
			j++
		}
		if j == 0 {
			return 0, s, false
		}
		parts[n] = atoi(s[:j])
		s = s[j:]
		if s == "" || s[0] != ':' || n == 2 {
			break
		}
		s = s[1:]
	}
	if parts[0] > 167 || parts[1] > 59 || parts[2] > 60 {
		return 0, s, false
	}
	return sign * (parts[0]*3600 + parts[1]*60 + parts[2]), s, true
}

// posixFixedZone reads a POSIX TZ string as PostgreSQL's tzparse does: a
// name, an offset west of Greenwich (POSIX's sign is the opposite of
// ISO's), and optionally a daylight-saving name, offset and rules: "GMT+8",
// "MST+7:00", "e3", "foo3bar". Zones with a daylight-saving part are
// recognised with their standard offset only, and marked in posixDSTZones.
func posixFixedZone(s string) *time.Location {
	if s == "" || s[0] == ':' {
		return nil
	}
	name, rest := posixName(s)
	if name == "" && s[0] != '+' && s[0] != '-' || rest == "" {
		return nil // pg_tzset reads "+03" as an offset without a name
	}
	west, rest, ok := posixOffset(rest)
	if !ok {
		return nil
	}
	loc := time.FixedZone(strings.ToUpper(name), -west)
	if rest == "" {
		return loc
	}
	dst, rest := posixName(rest)
	if dst == "" {
		return nil
	}
	if rest != "" && rest[0] != ',' {
		if _, rest, ok = posixOffset(rest); !ok {
			return nil
		}
	}
	if rest != "" && rest[0] != ',' {
		return nil
	}
	posixDSTZones.Store(loc, true)
	return loc
}

// posixDSTZones holds the zones made from POSIX strings with a
// daylight-saving part (keyed by *time.Location).
var posixDSTZones sync.Map

// zoneHasDST reports whether loc has daylight-saving or other offset
// changes, so that a time of day alone cannot give its offset.
func zoneHasDST(loc *time.Location) bool {
	if _, ok := posixDSTZones.Load(loc); ok {
		return true
	}
	start, end := time.Unix(0, 0).In(loc).ZoneBounds()
	return !start.IsZero() || !end.IsZero()
}

func zoneCandidates(s string) []string {
	upper := strings.ToUpper(s)
	b := []byte(strings.ToLower(s))
	start := true
	for i, c := range b {
		if start && c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
		start = c == '/' || c == '_' || c == '-'
	}
	return []string{s, string(b), upper}
}

// zoneOffset returns the UTC offset in seconds east at the instant unixSec.
func zoneOffset(loc *time.Location, unixSec int64) int {
	_, off := time.Unix(unixSec, 0).In(loc).Zone()
	return off
}

// determineTimeZoneOffset is DetermineTimeZoneOffset: the offset (seconds
// west, PostgreSQL's sign) that local time tm has in loc. In a
// spring-forward gap it takes the offset from before the transition, in a
// fall-back overlap the one from after, as PostgreSQL does.
func determineTimeZoneOffset(tm *pgTm, loc *time.Location) (int, bool) {
	if !isValidJulian(tm.year, tm.mon, tm.mday) {
		return 0, true // PostgreSQL assumes UTC for out-of-range dates
	}
	day := JulianDay(tm.year, tm.mon, tm.mday) - unixEpochJDate
	mytime := day*secsPerDay + int64(tm.hour)*3600 + int64(tm.min)*60 + int64(tm.sec)
	prev := time.Unix(mytime-secsPerDay, 0).In(loc)
	_, beforeOff := prev.Zone()
	_, end := prev.ZoneBounds()
	if end.IsZero() {
		return -beforeOff, true
	}
	boundary := end.Unix()
	afterOff := zoneOffset(loc, boundary)
	beforeTime := mytime - int64(beforeOff)
	afterTime := mytime - int64(afterOff)
	if beforeTime < boundary && afterTime < boundary {
		return -beforeOff, true
	}
	if beforeTime >= boundary && afterTime >= boundary {
		return -afterOff, true
	}
	if beforeTime > afterTime {
		return -beforeOff, true
	}
	return -afterOff, true
}

// determineTimeZoneAbbrevOffset is DetermineTimeZoneAbbrevOffset: the
// offset (seconds west) that abbreviation abbr has in loc around local time
// tm: its meaning in the zone period in effect then, else in the nearest
// earlier period that used it, else the nearest later one; failing all, the
// zone's own offset.
func determineTimeZoneAbbrevOffset(tm *pgTm, abbr string, loc *time.Location) int {
	tz, _ := determineTimeZoneOffset(tm, loc)
	if !isValidJulian(tm.year, tm.mon, tm.mday) {
		return tz
	}
	day := JulianDay(tm.year, tm.mon, tm.mday) - unixEpochJDate
	t := time.Unix(day*secsPerDay+int64(tm.hour)*3600+int64(tm.min)*60+int64(tm.sec)+int64(tz), 0).In(loc)
	for k, p := 0, t; k < 64; k++ {
		name, off := p.Zone()
		if name == abbr {
			return -off
		}
		start, _ := p.ZoneBounds()
		if start.IsZero() {
			break
		}
		p = start.Add(-time.Second)
	}
	for k, p := 0, t; k < 64; k++ {
		_, end := p.ZoneBounds()
		if end.IsZero() {
			break
		}
		p = end
		if name, off := p.Zone(); name == abbr {
			return -off
		}
	}
	return tz
}

// currentTm returns the transaction time broken down in the session zone,
// and its offset (seconds west).
func currentTm(st *Settings) (pgTm, int) {
	now := st.now()
	ts := TimestampTZ((now.Unix()-(postgresEpochJDate-unixEpochJDate)*secsPerDay)*usecsPerSec + int64(now.Nanosecond()/1000))
	var tm pgTm
	tz, _ := timestampTZToTm(ts, st.loc(), &tm)
	return tm, tz
}

// timestampTZToTm breaks ts down in loc; it returns the zone offset (seconds
// west) and the zone abbreviation.
func timestampTZToTm(ts TimestampTZ, loc *time.Location, tm *pgTm) (int, string) {
	us := int64(ts)
	sec := floorDiv(us, usecsPerSec) + (postgresEpochJDate-unixEpochJDate)*secsPerDay
	name, off := time.Unix(sec, 0).In(loc).Zone()
	timestampToTm(us+int64(off)*usecsPerSec, tm)
	tm.isdst = 0
	return -off, name
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// timestampToTm is timestamp2tm without a zone; ok is false outside the
// Julian-day range.
func timestampToTm(us int64, tm *pgTm) bool {
	date := us / usecsPerDay
	t := us - date*usecsPerDay
	if t < 0 {
		t += usecsPerDay
		date--
	}
	date += postgresEpochJDate
	ok := true
	if date < 0 || date > math.MaxInt32 {
		// outside PostgreSQL's Julian-day range: its zone code still prints
		// such local times (e.g. 4714-11-23 BC in a zone west of UTC)
		tm.year, tm.mon, tm.mday = civilFromDays(date - unixEpochJDate)
		ok = false
	} else {
		tm.year, tm.mon, tm.mday = j2date(int(date))
	}
	tm.hour = int(t / usecsPerHour)
	t -= int64(tm.hour) * usecsPerHour
	tm.min = int(t / usecsPerMinute)
	t -= int64(tm.min) * usecsPerMinute
	tm.sec = int(t / usecsPerSec)
	tm.fsec = t - int64(tm.sec)*usecsPerSec
	return ok
}

// civilFromDays converts days since 1970-01-01 to a proleptic Gregorian
// date for any day count (Howard Hinnant's algorithm).
func civilFromDays(z int64) (year, month, day int) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if mp >= 10 {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return int(y), int(m), int(d)
}

// tmToTimestamp is tm2timestamp; tz is seconds west or nil for none.
func tmToTimestamp(tm *pgTm, tz *int) (int64, bool) {
	if !isValidJulian(tm.year, tm.mon, tm.mday) {
		return 0, false
	}
	date := JulianDay(tm.year, tm.mon, tm.mday) - postgresEpochJDate
	t := ((int64(tm.hour)*60+int64(tm.min))*60+int64(tm.sec))*usecsPerSec + tm.fsec
	r := date*usecsPerDay + t
	if (r-t)/usecsPerDay != date {
		return 0, false
	}
	if (r < 0 && date > 0) || (r > 0 && date < -1) {
		return 0, false
	}
	if tz != nil {
		r += int64(*tz) * usecsPerSec
	}
	if r < minTimestamp || r >= endTimestamp {
		return 0, false
	}
	return r, true
}

// dtResult carries what decodeDateTime found besides tm.
type dtResult struct {
	dtype int
	tz    int  // seconds west
	hasTZ bool // a zone was given or derived
}

// decodeDateTime is DecodeDateTime. It always resolves a time zone (the
// session's if none was given), as PostgreSQL does when called with tzp.
func decodeDateTime(fields []field, st *Settings, tm *pgTm) (dtResult, int) {
	res := dtResult{dtype: dtkDate}
	fmask, tmask := 0, 0
	ptype := 0
	mer := hr24Val
	haveTextMonth, isjulian, is2digits, bc := false, false, false, false
	var namedTz, abbrevTz *time.Location
	var abbrev string
	order := st.order()
	*tm = pgTm{isdst: -1}
	for i := range fields {
		f := &fields[i]
		switch f.typ {
		case dtkDate:
			if ptype == dtkJulian {
				val, rest, e := strtoint(f.s)
				if e || val < 0 {
					return res, dterrFieldOverflow
				}
				tm.year, tm.mon, tm.mday = j2date(val)
				isjulian = true
				tz, err := decodeTimezone(rest)
				if err != 0 {
					return res, err
				}
				res.tz = tz
				tmask = dtkDateM | dtkTimeM | dtkM(tkTZ)
				ptype = 0
				break
			}
			if ptype != 0 || fmask&(dtkM(tkMonth)|dtkM(tkDay)) == dtkM(tkMonth)|dtkM(tkDay) {
				if isDigit(f.s[0]) || ptype != 0 {
					if ptype != 0 {
						if ptype != dtkTime {
							return res, dterrBadFormat
						}
						ptype = 0
					}
					if fmask&dtkTimeM == dtkTimeM {
						return res, dterrBadFormat
					}
					k := strings.IndexByte(f.s, '-')
					if k < 0 {
						return res, dterrBadFormat
					}
					tz, err := decodeTimezone(f.s[k:])
					if err != 0 {
						return res, err
					}
					res.tz = tz
					if r := decodeNumberField(f.s[:k], fmask, &tmask, tm, &is2digits); r < 0 {
						return res, r
					}
					tmask |= dtkM(tkTZ)
				} else {
					namedTz = loadZone(f.orig)
					if namedTz == nil {
						f.typ = ftypeBadZone
						return res, dterrZoneUnknown
					}
					tmask = dtkM(tkTZ)
				}
			} else {
				if r := decodeDate(f.s, fmask, &tmask, &is2digits, tm, order); r != 0 {
					return res, r
				}
			}
		case dtkTime:
			if ptype != 0 {
				if ptype != dtkTime {
					return res, dterrBadFormat
				}
				ptype = 0
			}
			var r int
			tmask, r = decodeTime(f.s, IntervalFullRange, tm)
			if r != 0 {
				return res, r
			}
			if timeOverflows(tm.hour, tm.min, tm.sec, tm.fsec) {
				return res, dterrFieldOverflow
			}
		case dtkTZ:
			tz, err := decodeTimezone(f.s)
			if err != 0 {
				return res, err
			}
			res.tz = tz
			tmask = dtkM(tkTZ)
		case dtkNumber:
			if ptype != 0 {
				var r int
				tmask, r = decodePrefixedNumber(f.s, ptype, fmask, tm, &res.tz, &isjulian, &is2digits)
				if r != 0 {
					return res, r
				}
				ptype = 0
				res.dtype = dtkDate
			} else {
				flen := len(f.s)
				dot := strings.IndexByte(f.s, '.')
				switch {
				case dot >= 0 && fmask&dtkDateM == 0:
					if r := decodeDate(f.s, fmask, &tmask, &is2digits, tm, order); r != 0 {
						return res, r
					}
				case dot >= 0 && dot > 2:
					if r := decodeNumberField(f.s, fmask, &tmask, tm, &is2digits); r < 0 {
						return res, r
					}
				case flen >= 6 && (fmask&dtkDateM == 0 || fmask&dtkTimeM == 0):
					if r := decodeNumberField(f.s, fmask, &tmask, tm, &is2digits); r < 0 {
						return res, r
					}
				default:
					if r := decodeNumber(f.s, haveTextMonth, fmask, &tmask, tm, &is2digits, order); r != 0 {
						return res, r
					}
				}
			}
		case dtkString, dtkSpecial:
			typ, val, zloc := decodeTimezoneAbbrev(f.s)
			if typ == tkUnknown {
				typ, val = decodeSpecial(f.s)
			}
			if typ == tkIgnore {
				continue
			}
			tmask = dtkM(typ)
			switch typ {
			case tkReserv:
				switch val {
				case dtkNow:
					tmask = dtkDateM | dtkTimeM | dtkM(tkTZ)
					res.dtype = dtkDate
					var tz int
					*tm, tz = currentTm(st)
					res.tz = tz
				case dtkYest, dtkToday, dtkTomor:
					tmask = dtkDateM
					res.dtype = dtkDate
					cur, _ := currentTm(st)
					j := int(JulianDay(cur.year, cur.mon, cur.mday))
					switch val {
					case dtkYest:
						j--
					case dtkTomor:
						j++
					}
					tm.year, tm.mon, tm.mday = j2date(j)
				case dtkZulu:
					tmask = dtkTimeM | dtkM(tkTZ)
					res.dtype = dtkDate
					tm.hour, tm.min, tm.sec = 0, 0, 0
					res.tz = 0
				default:
					res.dtype = val
				}
			case tkMonth:
				if fmask&dtkM(tkMonth) != 0 && !haveTextMonth && fmask&dtkM(tkDay) == 0 && tm.mon >= 1 && tm.mon <= 31 {
					tm.mday = tm.mon
					tmask = dtkM(tkDay)
				}
				haveTextMonth = true
				tm.mon = val
			case tkDTZMod:
				tmask |= dtkM(tkDTZ)
				tm.isdst = 1
				res.tz -= val
			case tkDTZ:
				tmask |= dtkM(tkTZ)
				tm.isdst = 1
				res.tz = -val
			case tkTZ:
				tm.isdst = 0
				res.tz = -val
			case tkDynTZ:
				tmask |= dtkM(tkTZ)
				abbrevTz = zloc
				abbrev = strings.ToUpper(f.s)
			case tkAmPm:
				mer = val
			case tkAdBc:
				bc = val == bcVal
			case tkDow:
				tm.wday = val
			case tkUnits:
				tmask = 0
				ptype = val
			case tkISOTime:
				tmask = 0
				if fmask&dtkDateM != dtkDateM {
					return res, dterrBadFormat
				}
				if i >= len(fields)-1 || (fields[i+1].typ != dtkNumber && fields[i+1].typ != dtkTime && fields[i+1].typ != dtkDate) {
					return res, dterrBadFormat
				}
				ptype = val
			case tkUnknown:
				namedTz = loadZone(f.orig)
				if namedTz == nil {
					return res, dterrBadFormat
				}
				tmask = dtkM(tkTZ)
			default:
				return res, dterrBadFormat
			}
		default:
			return res, dterrBadFormat
		}
		if tmask&fmask != 0 {
			return res, dterrBadFormat
		}
		fmask |= tmask
	}
	if r := validateDate(fmask, isjulian, is2digits, bc, tm); r != 0 {
		return res, r
	}
	if mer != hr24Val && tm.hour > 12 {
		return res, dterrFieldOverflow
	}
	if mer == amVal && tm.hour == 12 {
		tm.hour = 0
	} else if mer == pmVal && tm.hour != 12 {
		tm.hour += 12
	}
	if res.dtype == dtkDate {
		if fmask&dtkDateM != dtkDateM {
			return res, dterrBadFormat
		}
		if namedTz != nil {
			if fmask&dtkM(tkDTZMod) != 0 {
				return res, dterrBadFormat
			}
			tz, ok := determineTimeZoneOffset(tm, namedTz)
			if !ok {
				return res, dterrFieldOverflow
			}
			res.tz = tz
		}
		if abbrevTz != nil {
			if fmask&dtkM(tkDTZMod) != 0 {
				return res, dterrBadFormat
			}
			res.tz = determineTimeZoneAbbrevOffset(tm, abbrev, abbrevTz)
		}
		if fmask&dtkM(tkTZ) == 0 {
			if fmask&dtkM(tkDTZMod) != 0 {
				return res, dterrBadFormat
			}
			tz, ok := determineTimeZoneOffset(tm, st.loc())
			if !ok {
				return res, dterrFieldOverflow
			}
			res.tz = tz
		} else {
			res.hasTZ = true
		}
	}
	return res, 0
}

// dt2time splits microseconds of a day into tm's clock fields.
func dt2time(jd int64, tm *pgTm) {
	tm.hour = int(jd / usecsPerHour)
	jd -= int64(tm.hour) * usecsPerHour
	tm.min = int(jd / usecsPerMinute)
	jd -= int64(tm.min) * usecsPerMinute
	tm.sec = int(jd / usecsPerSec)
	tm.fsec = jd - int64(tm.sec)*usecsPerSec
}

// dterrZoneUnknown reports `time zone "x" not recognized`; the decoder
// marks the field with ftypeBadZone so that the error can name it.
const (
	dterrZoneUnknown = -100
	ftypeBadZone     = -1
)

// dateTimeParseError is DateTimeParseError: the error for a decoder code.
func dateTimeParseError(dterr int, str, typ string, fields []field) error {
	switch dterr {
	case dterrFieldOverflow:
		return newError(CodeDatetimeFieldOverflow, "date/time field value out of range: \"%s\"", str)
	case dterrMDFieldOverflow:
		e := newError(CodeDatetimeFieldOverflow, "date/time field value out of range: \"%s\"", str)
		e.Hint = "Perhaps you need a different \"datestyle\" setting."
		return e
	case dterrIntervalOverflw:
		return newError(CodeIntervalFieldOverflow, "interval field value out of range: \"%s\"", str)
	case dterrTZDispOverflow:
		return newError(CodeInvalidTimeZoneDisp, "time zone displacement out of range: \"%s\"", str)
	case dterrZoneUnknown:
		name := ""
		for _, f := range fields {
			if f.typ == ftypeBadZone {
				name = f.s
				break
			}
		}
		return newError(CodeInvalidParameterValue, "time zone \"%s\" not recognized", name)
	}
	return newError(CodeInvalidDatetimeFormat, "invalid input syntax for type %s: \"%s\"", typ, str)
}

// decodePrefixedNumber is the DTK_NUMBER case of DecodeDateTime and
// DecodeTimeOnly for a number that follows a unit label (ptype): the ISO
// "y2001m02d04" and "h04mm05s06" forms, Julian days ("J2451187") and the
// time after "T". It returns the field mask and a decoder error code.
func decodePrefixedNumber(s string, ptype, fmask int, tm *pgTm, tz *int, isjulian, is2digits *bool) (int, int) {
	value, rest, e := strtoint(s)
	if e {
		return 0, dterrFieldOverflow
	}
	if rest != "" && rest[0] == '.' {
		switch ptype {
		case dtkJulian, dtkTime, dtkSecond:
		default:
			return 0, dterrBadFormat
		}
	} else if rest != "" {
		return 0, dterrBadFormat
	}
	tmask := 0
	switch ptype {
	case dtkYear:
		tm.year = value
		tmask = dtkM(tkYear)
	case dtkMonth:
		if fmask&dtkM(tkMonth) != 0 && fmask&dtkM(tkHour) != 0 {
			tm.min = value
			tmask = dtkM(tkMinute)
		} else {
			tm.mon = value
			tmask = dtkM(tkMonth)
		}
	case dtkDay:
		tm.mday = value
		tmask = dtkM(tkDay)
	case dtkHour:
		tm.hour = value
		tmask = dtkM(tkHour)
	case dtkMinute:
		tm.min = value
		tmask = dtkM(tkMinute)
	case dtkSecond:
		tm.sec = value
		tmask = dtkM(tkSecond)
		if rest != "" {
			fs, r := parseFractionalSecond(rest)
			if r != 0 {
				return 0, r
			}
			tm.fsec = fs
			tmask = dtkAllSecsM
		}
	case dtkTZ:
		tmask = dtkM(tkTZ)
		v, r := decodeTimezone(s)
		if r != 0 {
			return 0, r
		}
		*tz = v
	case dtkJulian:
		if value < 0 {
			return 0, dterrFieldOverflow
		}
		tmask = dtkDateM
		tm.year, tm.mon, tm.mday = j2date(value)
		*isjulian = true
		if rest != "" {
			frac, r := parseFraction(rest)
			if r != 0 {
				return 0, r
			}
			dt2time(int64(frac*usecsPerDay), tm)
			tmask |= dtkTimeM
		}
	case dtkTime:
		r := decodeNumberField(s, fmask|dtkDateM, &tmask, tm, is2digits)
		if r < 0 {
			return 0, r
		}
		if tmask != dtkTimeM {
			return 0, dterrBadFormat
		}
	default:
		return 0, dterrBadFormat
	}
	return tmask, 0
}
