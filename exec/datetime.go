package exec

import (
	"math"
	"time"
)

// Dates are days and timestamps microseconds since 2000-01-01; the
// infinities are the extreme values of each.

const (
	usPerDay       = 86_400_000_000
	dateInfinity   = math.MaxInt32
	dateNegInf     = math.MinInt32
	stampInfinity  = math.MaxInt64
	stampNegInf    = math.MinInt64
	unixEpochShift = 946_684_800 // seconds from 1970-01-01 to 2000-01-01
)

func dateToMicros(days int64) int64 {
	switch days {
	case dateInfinity:
		return stampInfinity
	case dateNegInf:
		return stampNegInf
	}
	return days * usPerDay
}

func microsToDate(us int64) int64 {
	switch us {
	case stampInfinity:
		return dateInfinity
	case stampNegInf:
		return dateNegInf
	}
	d := us / usPerDay
	if us%usPerDay < 0 {
		d--
	}
	return d
}

func location(s *Settings) *time.Location {
	if s == nil || s.TimeZone == nil {
		return time.UTC
	}
	return s.TimeZone
}

// stampTime returns the instant of a timestamptz value.
func stampTime(us int64) time.Time {
	return time.Unix(unixEpochShift+us/1_000_000, (us%1_000_000)*1000).UTC()
}

// localMicros converts a timestamptz (UTC) to the session zone's wall-clock
// timestamp.
func localMicros(us int64, s *Settings) int64 {
	if us == stampInfinity || us == stampNegInf {
		return us
	}
	_, off := stampTime(us).In(location(s)).Zone()
	return us + int64(off)*1_000_000
}

// utcMicros converts a wall-clock timestamp in the session zone to a
// timestamptz.
func utcMicros(us int64, s *Settings) int64 {
	if us == stampInfinity || us == stampNegInf {
		return us
	}
	loc := location(s)
	wall := stampTime(us)
	t := time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), wall.Nanosecond(), loc)
	return (t.Unix()-unixEpochShift)*1_000_000 + int64(t.Nanosecond()/1000)
}

// TimestampTZ returns a time as a timestamptz Datum value.
func TimestampTZ(t time.Time) int64 {
	return (t.Unix()-unixEpochShift)*1_000_000 + int64(t.Nanosecond()/1000)
}
