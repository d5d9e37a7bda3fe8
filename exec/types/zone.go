package types

import (
	"strings"
	"time"
)

// LookupTimeZone resolves a time zone the way timezone(zone, ts) and
// make_timestamptz do: a zone abbreviation (EST, PDT: a fixed offset, or
// the zone a dynamic abbreviation stands for), else a zone name or POSIX
// offset ("America/New_York", "UTC+3", "PST8PDT"). ok is false for an
// unknown zone.
func LookupTimeZone(name string) (loc *time.Location, ok bool) {
	typ, val, dyn := decodeTimezoneAbbrev(strings.ToLower(name))
	switch typ {
	case tkTZ, tkDTZ:
		return time.FixedZone(name, val), true
	case tkDynTZ:
		return dyn, dyn != nil
	}
	if loc := loadZone(name); loc != nil {
		return loc, true
	}
	return nil, false
}

// LocalToUTCAbbrev converts a wall-clock timestamp (µs since 2000-01-01)
// read in a dynamic zone abbreviation (MSK, ...) to UTC, with the offset
// the abbreviation had in its zone around that time, as timezone('MSK',
// ts) does. ok is false when name is not a dynamic abbreviation.
func LocalToUTCAbbrev(us int64, name string) (int64, bool) {
	typ, _, loc := decodeTimezoneAbbrev(strings.ToLower(name))
	if typ != tkDynTZ || loc == nil {
		return 0, false
	}
	var tm pgTm
	if !timestampToTm(us, &tm) {
		return 0, false
	}
	west := determineTimeZoneAbbrevOffset(&tm, strings.ToUpper(name), loc)
	return us + int64(west)*usecsPerSec, true
}
