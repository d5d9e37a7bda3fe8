package types

import (
	"encoding/binary"
	"strings"
	"time"
)

// Time is a time of day without time zone: microseconds since midnight,
// 0..86400000000 (24:00:00 is allowed, as in PostgreSQL).
type Time int64

// ParseTime is time_in with a typmod (-1 for none). A date or a time zone in
// the input is read and ignored, as PostgreSQL does.
func ParseTime(s string, typmod int32, st *Settings) (Time, error) {
	var fbuf [maxDateFields]field
	fields, dterr := parseDateTime(s, maxDateLen+1, &fbuf)
	var tm pgTm
	if dterr == 0 {
		dterr = decodeTimeOnly(fields, st, &tm, nil)
	}
	if dterr != 0 {
		return 0, dateTimeParseError(dterr, s, "time", fields)
	}
	t := Time(((int64(tm.hour)*60+int64(tm.min))*60+int64(tm.sec))*usecsPerSec + tm.fsec)
	return AdjustTimeTypmod(t, typmod), nil
}

// AdjustTimeTypmod is AdjustTimeForTypmod: round to typmod fractional digits.
func AdjustTimeTypmod(t Time, typmod int32) Time {
	if typmod >= 0 && typmod <= 6 {
		return Time((int64(t) + timestampOffsets[typmod]) / timestampScales[typmod] * timestampScales[typmod])
	}
	return t
}

// decodeTimeOnly is DecodeTimeOnly. With tzp nil the zone in the input is
// read and dropped (time_in); otherwise *tzp receives it, seconds west
// (timetz_in), the session zone's offset at the given or current date when
// the input has none.
func decodeTimeOnly(fields []field, st *Settings, tm *pgTm, tzp *int) int {
	fmask, tmask := 0, 0
	ptype := 0
	isjulian, is2digits, bc := false, false, false
	mer := hr24Val
	var namedTz, abbrevTz *time.Location
	var abbrev string
	order := st.order()
	*tm = pgTm{isdst: -1}
	nf := len(fields)
	var scratchTZ int // zones are read and dropped
	if tzp == nil {
		tzp = &scratchTZ
	}
	for i := range fields {
		f := &fields[i]
		switch f.typ {
		case dtkDate:
			if i == 0 && nf >= 2 && (fields[nf-1].typ == dtkDate || fields[1].typ == dtkTime) {
				if r := decodeDate(f.s, fmask, &tmask, &is2digits, tm, order); r != 0 {
					return r
				}
			} else if isDigit(f.s[0]) {
				if fmask&dtkTimeM == dtkTimeM {
					return dterrBadFormat
				}
				k := strings.IndexByte(f.s, '-')
				if k < 0 {
					return dterrBadFormat
				}
				tz, r := decodeTimezone(f.s[k:])
				if r != 0 {
					return r
				}
				*tzp = tz
				r = decodeNumberField(f.s[:k], fmask|dtkDateM, &tmask, tm, &is2digits)
				if r < 0 {
					return r
				}
				f.typ = r
				tmask |= dtkM(tkTZ)
			} else {
				if namedTz = loadZone(f.orig); namedTz == nil {
					f.typ = ftypeBadZone
					return dterrZoneUnknown
				}
				f.typ = dtkTZ
				tmask = dtkM(tkTZ)
			}
		case dtkTime:
			var r int
			tmask, r = decodeTime(f.s, IntervalFullRange, tm)
			if r != 0 {
				return r
			}
		case dtkTZ:
			tz, r := decodeTimezone(f.s)
			if r != 0 {
				return r
			}
			*tzp = tz
			tmask = dtkM(tkTZ)
		case dtkNumber:
			if ptype != 0 {
				var r int
				tmask, r = decodePrefixedNumber(f.s, ptype, fmask, tm, tzp, &isjulian, &is2digits)
				if r != 0 {
					return r
				}
				ptype = 0
			} else {
				flen := len(f.s)
				dot := strings.IndexByte(f.s, '.')
				switch {
				case dot >= 0:
					if i == 0 && nf >= 2 && fields[nf-1].typ == dtkDate {
						if r := decodeDate(f.s, fmask, &tmask, &is2digits, tm, order); r != 0 {
							return r
						}
					} else if dot > 2 {
						r := decodeNumberField(f.s, fmask|dtkDateM, &tmask, tm, &is2digits)
						if r < 0 {
							return r
						}
						f.typ = r
					} else {
						return dterrBadFormat
					}
				case flen > 4:
					r := decodeNumberField(f.s, fmask|dtkDateM, &tmask, tm, &is2digits)
					if r < 0 {
						return r
					}
					f.typ = r
				default:
					if r := decodeNumber(f.s, false, fmask|dtkDateM, &tmask, tm, &is2digits, order); r != 0 {
						return r
					}
				}
			}
		case dtkString, dtkSpecial:
			typ, val, dynLoc := decodeTimezoneAbbrev(f.s)
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
					tmask = dtkTimeM
					cur, _ := currentTm(st)
					tm.hour, tm.min, tm.sec, tm.fsec = cur.hour, cur.min, cur.sec, cur.fsec
				case dtkZulu:
					tmask = dtkTimeM | dtkM(tkTZ)
					tm.hour, tm.min, tm.sec = 0, 0, 0
					tm.isdst = 0
					*tzp = 0
				default:
					return dterrBadFormat
				}
			case tkDTZMod:
				tmask |= dtkM(tkDTZ)
				tm.isdst = 1
				*tzp -= val
			case tkDTZ:
				tmask |= dtkM(tkTZ)
				tm.isdst = 1
				f.typ = dtkTZ
				*tzp = -val
			case tkTZ:
				tm.isdst = 0
				f.typ = dtkTZ
				*tzp = -val
			case tkDynTZ:
				tmask |= dtkM(tkTZ)
				f.typ = dtkTZ
				abbrevTz, abbrev = dynLoc, f.s
			case tkAmPm:
				mer = val
			case tkAdBc:
				bc = val == bcVal
			case tkUnits:
				tmask = 0
				ptype = val
			case tkISOTime:
				tmask = 0
				if i >= nf-1 || (fields[i+1].typ != dtkNumber && fields[i+1].typ != dtkTime && fields[i+1].typ != dtkDate) {
					return dterrBadFormat
				}
				ptype = val
			case tkUnknown:
				if namedTz = loadZone(f.orig); namedTz == nil {
					return dterrBadFormat
				}
				tmask = dtkM(tkTZ)
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
	if r := validateDate(fmask, isjulian, is2digits, bc, tm); r != 0 {
		return r
	}
	if mer != hr24Val && tm.hour > 12 {
		return dterrFieldOverflow
	}
	if mer == amVal && tm.hour == 12 {
		tm.hour = 0
	} else if mer == pmVal && tm.hour != 12 {
		tm.hour += 12
	}
	if timeOverflows(tm.hour, tm.min, tm.sec, tm.fsec) {
		return dterrFieldOverflow
	}
	if fmask&dtkTimeM != dtkTimeM {
		return dterrBadFormat
	}
	if namedTz != nil {
		if fmask&dtkM(tkDTZMod) != 0 {
			return dterrBadFormat
		}
		// a zone with daylight-saving rules needs a date to give an offset
		if zoneHasDST(namedTz) && fmask&dtkDateM != dtkDateM {
			return dterrBadFormat
		}
		*tzp, _ = determineTimeZoneOffset(dateOrToday(tm, fmask, st), namedTz)
	}
	if abbrevTz != nil {
		*tzp = determineTimeZoneAbbrevOffset(dateOrToday(tm, fmask, st), abbrev, abbrevTz)
	}
	if tzp != &scratchTZ && fmask&dtkM(tkTZ) == 0 {
		if fmask&dtkM(tkDTZMod) != 0 {
			return dterrBadFormat
		}
		*tzp, _ = determineTimeZoneOffset(dateOrToday(tm, fmask, st), st.loc())
	}
	return 0
}

// dateOrToday is tm's time of day on tm's date when the input gave one,
// else on the current date in the session zone: the day a zone's offset
// is taken at.
func dateOrToday(tm *pgTm, fmask int, st *Settings) *pgTm {
	day := *tm
	if fmask&dtkDateM != dtkDateM {
		cur, _ := currentTm(st)
		day.year, day.mon, day.mday = cur.year, cur.mon, cur.mday
	}
	return &day
}

// AppendTime appends time_out's text: hh:mm:ss with fractional digits
// trimmed of trailing zeros.
func AppendTime(dst []byte, t Time) []byte {
	var tm pgTm
	dt2time(int64(t), &tm)
	return appendClock(dst, &tm)
}

// AppendTimeBinary appends time_send's int64 microseconds.
func AppendTimeBinary(dst []byte, t Time) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(t))
}

// ParseTimeBinary is time_recv: values outside 0..24:00:00 fail.
func ParseTimeBinary(b []byte, typmod int32) (Time, error) {
	if err := fixedLen(b, 8); err != nil {
		return 0, err
	}
	t := int64(binary.BigEndian.Uint64(b))
	if t < 0 || t > usecsPerDay {
		return 0, newError(CodeDatetimeFieldOverflow, "time out of range")
	}
	return AdjustTimeTypmod(Time(t), typmod), nil
}

// TimeTZ is time with time zone: a time of day and the zone it was given
// in, Zone seconds west of Greenwich (PostgreSQL's TimeTzADT).
type TimeTZ struct {
	Time Time
	Zone int32
}

// UTC is the instant's time of day in UTC, in microseconds, unwrapped
// (it may fall outside 0..24h): what orders timetz values.
func (t TimeTZ) UTC() int64 { return int64(t.Time) + int64(t.Zone)*usecsPerSec }

// CompareTimeTZ is timetz_cmp: by the UTC instant, then by zone, so that
// only values equal in both are equal.
func CompareTimeTZ(a, b TimeTZ) int {
	switch x, y := a.UTC(), b.UTC(); {
	case x < y:
		return -1
	case x > y:
		return 1
	case a.Zone < b.Zone:
		return -1
	case a.Zone > b.Zone:
		return 1
	}
	return 0
}

// ParseTimeTZ is timetz_in with a typmod (-1 for none).
func ParseTimeTZ(s string, typmod int32, st *Settings) (TimeTZ, error) {
	var fbuf [maxDateFields]field
	fields, dterr := parseDateTime(s, maxDateLen+1, &fbuf)
	var tm pgTm
	var tz int
	if dterr == 0 {
		dterr = decodeTimeOnly(fields, st, &tm, &tz)
	}
	if dterr != 0 {
		return TimeTZ{}, dateTimeParseError(dterr, s, "time with time zone", fields)
	}
	t := Time(((int64(tm.hour)*60+int64(tm.min))*60+int64(tm.sec))*usecsPerSec + tm.fsec)
	return TimeTZ{Time: AdjustTimeTypmod(t, typmod), Zone: int32(tz)}, nil
}

// AppendTimeTZ appends timetz_out's text: the time, then the zone as
// +hh[:mm[:ss]].
func AppendTimeTZ(dst []byte, t TimeTZ) []byte {
	return appendTimezone(AppendTime(dst, t.Time), int(t.Zone))
}

// AppendTimeTZBinary appends timetz_send's int64 microseconds and int32
// zone.
func AppendTimeTZBinary(dst []byte, t TimeTZ) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(t.Time))
	return binary.BigEndian.AppendUint32(dst, uint32(t.Zone))
}

// ParseTimeTZBinary is timetz_recv.
func ParseTimeTZBinary(b []byte, typmod int32) (TimeTZ, error) {
	if err := fixedLen(b, 12); err != nil {
		return TimeTZ{}, err
	}
	t := int64(binary.BigEndian.Uint64(b))
	if t < 0 || t > usecsPerDay {
		return TimeTZ{}, newError(CodeDatetimeFieldOverflow, "time out of range")
	}
	zone := int32(binary.BigEndian.Uint32(b[8:]))
	if zone <= -(maxTZDispHour+1)*3600 || zone >= (maxTZDispHour+1)*3600 {
		return TimeTZ{}, newError(CodeInvalidTimeZoneDisp, "time zone displacement out of range")
	}
	return TimeTZ{Time: AdjustTimeTypmod(Time(t), typmod), Zone: zone}, nil
}

// TimeTZFromTimestampTZ is timestamptz_timetz: ts's local time in the
// session zone, with that zone's offset then.
func TimeTZFromTimestampTZ(ts TimestampTZ, st *Settings) TimeTZ {
	var tm pgTm
	tz, _ := timestampTZToTm(ts, st.loc(), &tm)
	t := ((int64(tm.hour)*60+int64(tm.min))*60+int64(tm.sec))*usecsPerSec + tm.fsec
	return TimeTZ{Time: Time(t), Zone: int32(tz)}
}

// TimeTZFromTime is time_timetz: t in the session zone, at its offset on
// the current date.
func TimeTZFromTime(t Time, st *Settings) TimeTZ {
	tm, _ := currentTm(st)
	dt2time(int64(t), &tm)
	tz, _ := determineTimeZoneOffset(&tm, st.loc())
	return TimeTZ{Time: t, Zone: int32(tz)}
}

// AppendTimeTZKey appends t's 12-byte key, whose byte order is
// timetz_cmp's: the UTC instant, then the zone, each big-endian with its
// sign bit flipped.
func AppendTimeTZKey(dst []byte, t TimeTZ) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(t.UTC())^1<<63)
	return binary.BigEndian.AppendUint32(dst, uint32(t.Zone)^1<<31)
}

// TimeTZFromKey is the inverse of AppendTimeTZKey.
func TimeTZFromKey(b []byte) (TimeTZ, error) {
	if err := fixedLen(b, 12); err != nil {
		return TimeTZ{}, err
	}
	zone := int32(binary.BigEndian.Uint32(b[8:]) ^ 1<<31)
	utc := int64(binary.BigEndian.Uint64(b) ^ 1<<63)
	return TimeTZ{Time: Time(utc - int64(zone)*usecsPerSec), Zone: zone}, nil
}
