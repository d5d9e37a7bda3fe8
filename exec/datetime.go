package exec

import (
	"math"
	"time"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// Dates are days and timestamps microseconds since 2000-01-01; the
// infinities are the extreme values of each.

const (
	MicrosPerDay         = 86_400_000_000
	DateInfinity         = math.MaxInt32
	DateNegInfinity      = math.MinInt32
	TimestampInfinity    = math.MaxInt64
	TimestampNegInfinity = math.MinInt64
	UnixEpochShift       = 946_684_800 // seconds from 1970-01-01 to 2000-01-01

	PostgresEpochJD = 2451545 // Julian day of 2000-01-01
)

// ErrTimestampRange is the error of a timestamp out of range.
var ErrTimestampRange = pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")

// DateToMicros is a date's midnight as a timestamp, the infinities kept.
func DateToMicros(days int64) int64 {
	switch days {
	case DateInfinity:
		return TimestampInfinity
	case DateNegInfinity:
		return TimestampNegInfinity
	}
	return days * MicrosPerDay
}

// MicrosToDate is the date of a timestamp, the infinities kept.
func MicrosToDate(us int64) int64 {
	switch us {
	case TimestampInfinity:
		return DateInfinity
	case TimestampNegInfinity:
		return DateNegInfinity
	}
	d := us / MicrosPerDay
	if us%MicrosPerDay < 0 {
		d--
	}
	return d
}

// Location is the session's TimeZone, UTC when none is set.
func Location(s *Settings) *time.Location {
	if s == nil || s.TimeZone == nil {
		return time.UTC
	}
	return s.TimeZone
}

// StampTime returns the instant of a timestamptz value.
func StampTime(us int64) time.Time {
	return time.Unix(UnixEpochShift+us/1_000_000, (us%1_000_000)*1000).UTC()
}

// LocalMicros converts a timestamptz (UTC) to the session zone's wall-clock
// timestamp.
func LocalMicros(us int64, s *Settings) int64 {
	if us == TimestampInfinity || us == TimestampNegInfinity {
		return us
	}
	_, off := StampTime(us).In(Location(s)).Zone()
	return us + int64(off)*1_000_000
}

// UTCMicros converts a wall-clock timestamp in the session zone to a
// timestamptz.
func UTCMicros(us int64, s *Settings) int64 {
	if us == TimestampInfinity || us == TimestampNegInfinity {
		return us
	}
	loc := Location(s)
	wall := StampTime(us)
	t := time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), wall.Nanosecond(), loc)
	return (t.Unix()-UnixEpochShift)*1_000_000 + int64(t.Nanosecond()/1000)
}

// TimestampTZ returns a time as a timestamptz Datum value.
func TimestampTZ(t time.Time) int64 {
	return (t.Unix()-UnixEpochShift)*1_000_000 + int64(t.Nanosecond()/1000)
}

// timeOfDay is the time of day of a wall-clock timestamp, in microseconds
// since midnight.
func timeOfDay(us int64) int64 {
	t := us % MicrosPerDay
	if t < 0 {
		t += MicrosPerDay
	}
	return t
}

// DateToTimestamp is date2timestamp: a date's midnight, with the range
// check timestamps need (dates reach much further).
func DateToTimestamp(days int64) (int64, error) {
	if days != DateInfinity && days >= 109203528-PostgresEpochJD {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range for timestamp")
	}
	return DateToMicros(days), nil
}

// IsInfiniteTimestamp reports whether a timestamp(tz) is ±infinity.
func IsInfiniteTimestamp(us int64) bool { return us == TimestampInfinity || us == TimestampNegInfinity }
