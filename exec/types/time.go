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
		dterr = decodeTimeOnly(fields, st, &tm)
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

// decodeTimeOnly is DecodeTimeOnly (called with a zone pointer, as time_in
// does, so that zones parse and are then dropped).
func decodeTimeOnly(fields []field, st *Settings, tm *pgTm) int {
	fmask, tmask := 0, 0
	ptype := 0
	isjulian, is2digits, bc := false, false, false
	mer := hr24Val
	var namedTz *time.Location
	order := st.order()
	*tm = pgTm{isdst: -1}
	nf := len(fields)
	var scratchTZ int // zones are read and dropped
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
				if _, r := decodeTimezone(f.s[k:]); r != 0 {
					return r
				}
				r := decodeNumberField(f.s[:k], fmask|dtkDateM, &tmask, tm, &is2digits)
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
			if _, r := decodeTimezone(f.s); r != 0 {
				return r
			}
			tmask = dtkM(tkTZ)
		case dtkNumber:
			if ptype != 0 {
				var r int
				tmask, r = decodePrefixedNumber(f.s, ptype, fmask, tm, &scratchTZ, &isjulian, &is2digits)
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
			typ, val, _ := decodeTimezoneAbbrev(f.s)
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
				default:
					return dterrBadFormat
				}
			case tkDTZMod:
				tmask |= dtkM(tkDTZ)
				tm.isdst = 1
			case tkDTZ:
				tmask |= dtkM(tkTZ)
				tm.isdst = 1
				f.typ = dtkTZ
			case tkTZ:
				tm.isdst = 0
				f.typ = dtkTZ
			case tkDynTZ:
				tmask |= dtkM(tkTZ)
				f.typ = dtkTZ
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
	}
	return 0
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
