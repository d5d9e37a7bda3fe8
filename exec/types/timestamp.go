package types

import (
	"encoding/binary"
	"math"
	"time"
)

// Timestamp is a timestamp without time zone: microseconds since
// 2000-01-01 00:00:00. TimestampNegInfinity and TimestampInfinity are
// -infinity and infinity, as PostgreSQL stores them.
type Timestamp int64

// TimestampTZ is a timestamp with time zone: microseconds since
// 2000-01-01 00:00:00 UTC, with the same infinities as Timestamp.
type TimestampTZ int64

// The infinite timestamps.
const (
	TimestampNegInfinity Timestamp = math.MinInt64
	TimestampInfinity    Timestamp = math.MaxInt64
)

// TimestampTZFromTime converts a time.Time (to microsecond precision,
// truncating toward -infinity).
func TimestampTZFromTime(t time.Time) TimestampTZ {
	sec := t.Unix() - (postgresEpochJDate-unixEpochJDate)*secsPerDay
	return TimestampTZ(sec*usecsPerSec + int64(t.Nanosecond()/1000))
}

// Time converts a finite TimestampTZ to a time.Time in UTC.
func (ts TimestampTZ) Time() time.Time {
	us := int64(ts)
	sec := floorDiv(us, usecsPerSec)
	return time.Unix(sec+(postgresEpochJDate-unixEpochJDate)*secsPerDay, (us-sec*usecsPerSec)*1000).UTC()
}

func isFiniteTS(v int64) bool { return v != math.MinInt64 && v != math.MaxInt64 }

// ParseTimestamp is timestamp_in with a typmod (-1 for none): a time zone
// in the input is read and ignored.
func ParseTimestamp(s string, typmod int32, st *Settings) (Timestamp, error) {
	v, err := parseTimestamp(s, st, false, "timestamp")
	if err != nil {
		return 0, err
	}
	r, err := AdjustTimestampTypmod(v, typmod)
	return Timestamp(r), err
}

// ParseTimestampTZ is timestamptz_in with a typmod (-1 for none): input
// without a zone is in the session time zone.
func ParseTimestampTZ(s string, typmod int32, st *Settings) (TimestampTZ, error) {
	v, err := parseTimestamp(s, st, true, "timestamp with time zone")
	if err != nil {
		return 0, err
	}
	r, err := AdjustTimestampTypmod(v, typmod)
	return TimestampTZ(r), err
}

func parseTimestamp(s string, st *Settings, withTZ bool, typ string) (int64, error) {
	var fbuf [maxDateFields]field
	fields, dterr := parseDateTime(s, maxDateLen+maxDateFields, &fbuf)
	var tm pgTm
	var res dtResult
	if dterr == 0 {
		res, dterr = decodeDateTime(fields, st, &tm)
	}
	if dterr != 0 {
		return 0, dateTimeParseError(dterr, s, typ, fields)
	}
	switch res.dtype {
	case dtkDate:
		var tz *int
		if withTZ {
			tz = &res.tz
		}
		v, ok := tmToTimestamp(&tm, tz)
		if !ok {
			return 0, newError(CodeDatetimeFieldOverflow, "timestamp out of range: \"%s\"", s)
		}
		return v, nil
	case dtkEpoch:
		return -(postgresEpochJDate - unixEpochJDate) * usecsPerDay, nil
	case dtkLate:
		return math.MaxInt64, nil
	case dtkEarly:
		return math.MinInt64, nil
	}
	return 0, dateTimeParseError(dterrBadFormat, s, typ, nil)
}

var timestampScales = [7]int64{1000000, 100000, 10000, 1000, 100, 10, 1}
var timestampOffsets = [7]int64{500000, 50000, 5000, 500, 50, 5, 0}

// AdjustTimestampTypmod is AdjustTimestampForTypmod: it rounds a timestamp
// (either kind) to typmod fractional digits, 0..6; -1 leaves it alone.
func AdjustTimestampTypmod(v int64, typmod int32) (int64, error) {
	if !isFiniteTS(v) || typmod == -1 || typmod == 6 {
		return v, nil
	}
	if typmod < 0 || typmod > 6 {
		return 0, newError(CodeInvalidParameterValue, "timestamp(%d) precision must be between %d and %d", typmod, 0, 6)
	}
	if v >= 0 {
		v = (v + timestampOffsets[typmod]) / timestampScales[typmod] * timestampScales[typmod]
	} else {
		v = -((-v + timestampOffsets[typmod]) / timestampScales[typmod] * timestampScales[typmod])
	}
	if v < minTimestamp || v >= endTimestamp {
		return 0, newError(CodeDatetimeFieldOverflow, "timestamp out of range")
	}
	return v, nil
}

// appendSeconds is AppendSeconds: seconds, then up to precision fractional
// digits without trailing zeros.
func appendSeconds(dst []byte, sec int, fsec int64, precision int, fillzeros bool) []byte {
	if sec < 0 {
		sec = -sec
	}
	if fillzeros {
		dst = appendZeroPad(dst, sec, 2)
	} else {
		dst = appendZeroPad(dst, sec, 1)
	}
	if fsec == 0 {
		return dst
	}
	if fsec < 0 {
		fsec = -fsec
	}
	dst = append(dst, '.')
	var digs [6]byte
	v := fsec
	for k := precision - 1; k >= 0; k-- {
		digs[k] = byte('0' + v%10)
		v /= 10
	}
	if v != 0 { // more than precision digits: PostgreSQL prints them all
		return appendZeroPad(dst, int(fsec), 1)
	}
	n := precision
	for n > 0 && digs[n-1] == '0' {
		n--
	}
	return append(dst, digs[:n]...)
}

// appendDateTime is EncodeDateTime. tzn is the zone abbreviation ("" for
// none); printTZ adds the zone.
func appendDateTime(dst []byte, tm *pgTm, printTZ bool, tz int, tzn string, style DateStyle, order DateOrder) []byte {
	if len(tzn) > 10 {
		tzn = tzn[:10]
	}
	switch style {
	case DateStyleISO:
		dst = appendYear(dst, tm.year)
		dst = append(dst, '-')
		dst = appendZeroPad(dst, tm.mon, 2)
		dst = append(dst, '-')
		dst = appendZeroPad(dst, tm.mday, 2)
		dst = append(dst, ' ')
		dst = appendClock(dst, tm)
		if printTZ {
			dst = appendTimezone(dst, tz)
		}
	case DateStyleSQL, DateStyleGerman:
		if style == DateStyleGerman {
			dst = appendZeroPad(dst, tm.mday, 2)
			dst = append(dst, '.')
			dst = appendZeroPad(dst, tm.mon, 2)
			dst = append(dst, '.')
		} else {
			if order == DateOrderDMY {
				dst = appendZeroPad(dst, tm.mday, 2)
				dst = append(dst, '/')
				dst = appendZeroPad(dst, tm.mon, 2)
			} else {
				dst = appendZeroPad(dst, tm.mon, 2)
				dst = append(dst, '/')
				dst = appendZeroPad(dst, tm.mday, 2)
			}
			dst = append(dst, '/')
		}
		dst = appendYear(dst, tm.year)
		dst = append(dst, ' ')
		dst = appendClock(dst, tm)
		if printTZ {
			if tzn != "" {
				dst = append(dst, ' ')
				dst = append(dst, tzn...)
			} else {
				dst = appendTimezone(dst, tz)
			}
		}
	default: // Postgres
		wday := j2day(int(JulianDay(tm.year, tm.mon, tm.mday)))
		dst = append(dst, dayNames[wday]...)
		mon := tm.mon
		if mon < 1 || mon > 12 {
			mon = 1 // only for values outside the timestamp range
		}
		dst = append(dst, ' ')
		if order == DateOrderDMY {
			dst = appendZeroPad(dst, tm.mday, 2)
			dst = append(dst, ' ')
			dst = append(dst, monthNames[mon-1]...)
		} else {
			dst = append(dst, monthNames[mon-1]...)
			dst = append(dst, ' ')
			dst = appendZeroPad(dst, tm.mday, 2)
		}
		dst = append(dst, ' ')
		dst = appendClock(dst, tm)
		dst = append(dst, ' ')
		dst = appendYear(dst, tm.year)
		if printTZ {
			dst = append(dst, ' ')
			if tzn != "" {
				dst = append(dst, tzn...)
			} else {
				dst = appendTimezone(dst, tz)
			}
		}
	}
	if tm.year <= 0 {
		dst = append(dst, " BC"...)
	}
	return dst
}

func appendClock(dst []byte, tm *pgTm) []byte {
	dst = appendZeroPad(dst, tm.hour, 2)
	dst = append(dst, ':')
	dst = appendZeroPad(dst, tm.min, 2)
	dst = append(dst, ':')
	return appendSeconds(dst, tm.sec, tm.fsec, 6, true)
}

// appendTimezone is EncodeTimezone: tz is seconds west.
func appendTimezone(dst []byte, tz int) []byte {
	sec := tz
	if sec < 0 {
		sec = -sec
	}
	min := sec / 60
	sec -= min * 60
	hour := min / 60
	min -= hour * 60
	if tz <= 0 {
		dst = append(dst, '+')
	} else {
		dst = append(dst, '-')
	}
	dst = appendZeroPad(dst, hour, 2)
	if sec != 0 {
		dst = append(dst, ':')
		dst = appendZeroPad(dst, min, 2)
		dst = append(dst, ':')
		return appendZeroPad(dst, sec, 2)
	}
	if min != 0 {
		dst = append(dst, ':')
		dst = appendZeroPad(dst, min, 2)
	}
	return dst
}

// AppendTimestamp appends timestamp_out's text under the session DateStyle.
func AppendTimestamp(dst []byte, v Timestamp, st *Settings) []byte {
	switch v {
	case TimestampInfinity:
		return append(dst, "infinity"...)
	case TimestampNegInfinity:
		return append(dst, "-infinity"...)
	}
	var tm pgTm
	timestampToTm(int64(v), &tm)
	return appendDateTime(dst, &tm, false, 0, "", st.style(), st.order())
}

// AppendTimestampTZ appends timestamptz_out's text: the instant in the
// session time zone, with its offset (ISO) or abbreviation (other styles).
func AppendTimestampTZ(dst []byte, v TimestampTZ, st *Settings) []byte {
	switch Timestamp(v) {
	case TimestampInfinity:
		return append(dst, "infinity"...)
	case TimestampNegInfinity:
		return append(dst, "-infinity"...)
	}
	var tm pgTm
	tz, name := timestampTZToTm(v, st.loc(), &tm)
	return appendDateTime(dst, &tm, true, tz, name, st.style(), st.order())
}

// AppendTimestampBinary appends timestamp_send's int64 microseconds.
func AppendTimestampBinary(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(v))
}

// ParseTimestampBinary is timestamp_recv and timestamptz_recv: values
// outside the timestamp range fail; typmod (-1 for none) rounds.
func ParseTimestampBinary(b []byte, typmod int32) (int64, error) {
	if err := fixedLen(b, 8); err != nil {
		return 0, err
	}
	v := int64(binary.BigEndian.Uint64(b))
	if !isFiniteTS(v) {
		return v, nil
	}
	if v < minTimestamp || v >= endTimestamp {
		return 0, newError(CodeDatetimeFieldOverflow, "timestamp out of range")
	}
	return AdjustTimestampTypmod(v, typmod)
}
