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
