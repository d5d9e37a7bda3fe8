package types

import (
	"encoding/binary"
	"math"
)

// Date is a date value: days since 2000-01-01. DateNegInfinity and
// DateInfinity are -infinity and infinity, as PostgreSQL stores them.
type Date int32

// The infinite dates.
const (
	DateNegInfinity Date = math.MinInt32
	DateInfinity    Date = math.MaxInt32
)

var monthNames = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
var dayNames = [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}

// DateFromYMD returns the date of a proleptic Gregorian year (0 = 1 BC),
// month and day; ok is false outside the date range.
func DateFromYMD(year, month, day int) (Date, bool) {
	if !isValidJulian(year, month, day) {
		return 0, false
	}
	j := JulianDay(year, month, day)
	if j < 0 || j >= dateEndJulian {
		return 0, false
	}
	return Date(j - postgresEpochJDate), true
}

// YMD returns the year (0 = 1 BC), month and day of a finite date.
func (d Date) YMD() (year, month, day int) {
	return j2date(int(d) + postgresEpochJDate)
}

// ParseDate is date_in.
func ParseDate(s string, st *Settings) (Date, error) {
	var fbuf [maxDateFields]field
	fields, dterr := parseDateTime(s, maxDateLen+1, &fbuf)
	var tm pgTm
	var res dtResult
	if dterr == 0 {
		res, dterr = decodeDateTime(fields, st, &tm)
	}
	if dterr != 0 {
		return 0, dateTimeParseError(dterr, s, "date", fields)
	}
	switch res.dtype {
	case dtkDate:
	case dtkEpoch:
		tm = pgTm{year: 1970, mon: 1, mday: 1}
	case dtkLate:
		return DateInfinity, nil
	case dtkEarly:
		return DateNegInfinity, nil
	default:
		return 0, dateTimeParseError(dterrBadFormat, s, "date", nil)
	}
	d, ok := DateFromYMD(tm.year, tm.mon, tm.mday)
	if !ok {
		return 0, newError(CodeDatetimeFieldOverflow, "date out of range: \"%s\"", s)
	}
	return d, nil
}

// appendZeroPad appends v (taken as unsigned) with at least width digits.
func appendZeroPad(dst []byte, v int, width int) []byte {
	u := uint64(v)
	if v < 0 {
		u = uint64(-v)
	}
	var buf [24]byte
	i := len(buf)
	for u >= 10 {
		i--
		buf[i] = byte('0' + u%10)
		u /= 10
	}
	i--
	buf[i] = byte('0' + u)
	for len(buf)-i < width && i > 0 {
		i--
		buf[i] = '0'
	}
	return append(dst, buf[i:]...)
}

func appendYear(dst []byte, year int) []byte {
	if year <= 0 {
		year = -(year - 1)
	}
	return appendZeroPad(dst, year, 4)
}

// AppendDate appends date_out's text under the session's DateStyle.
func AppendDate(dst []byte, d Date, st *Settings) []byte {
	switch d {
	case DateInfinity:
		return append(dst, "infinity"...)
	case DateNegInfinity:
		return append(dst, "-infinity"...)
	}
	y, m, day := d.YMD()
	return appendDateOnly(dst, y, m, day, st.style(), st.order())
}

// appendDateOnly is EncodeDateOnly.
func appendDateOnly(dst []byte, y, m, d int, style DateStyle, order DateOrder) []byte {
	switch style {
	case DateStyleISO:
		dst = appendYear(dst, y)
		dst = append(dst, '-')
		dst = appendZeroPad(dst, m, 2)
		dst = append(dst, '-')
		dst = appendZeroPad(dst, d, 2)
	case DateStyleSQL:
		if order == DateOrderDMY {
			dst = appendZeroPad(dst, d, 2)
			dst = append(dst, '/')
			dst = appendZeroPad(dst, m, 2)
		} else {
			dst = appendZeroPad(dst, m, 2)
			dst = append(dst, '/')
			dst = appendZeroPad(dst, d, 2)
		}
		dst = append(dst, '/')
		dst = appendYear(dst, y)
	case DateStyleGerman:
		dst = appendZeroPad(dst, d, 2)
		dst = append(dst, '.')
		dst = appendZeroPad(dst, m, 2)
		dst = append(dst, '.')
		dst = appendYear(dst, y)
	default: // Postgres
		if order == DateOrderDMY {
			dst = appendZeroPad(dst, d, 2)
			dst = append(dst, '-')
			dst = appendZeroPad(dst, m, 2)
		} else {
			dst = appendZeroPad(dst, m, 2)
			dst = append(dst, '-')
			dst = appendZeroPad(dst, d, 2)
		}
		dst = append(dst, '-')
		dst = appendYear(dst, y)
	}
	if y <= 0 {
		dst = append(dst, " BC"...)
	}
	return dst
}

// AppendDateBinary appends date_send's int32 days since 2000-01-01.
func AppendDateBinary(dst []byte, d Date) []byte {
	return binary.BigEndian.AppendUint32(dst, uint32(d))
}

// ParseDateBinary is date_recv: dates outside date_in's range fail.
func ParseDateBinary(b []byte) (Date, error) {
	if err := fixedLen(b, 4); err != nil {
		return 0, err
	}
	d := Date(int32(binary.BigEndian.Uint32(b)))
	if d == DateInfinity || d == DateNegInfinity {
		return d, nil
	}
	if int64(d) < -postgresEpochJDate || int64(d) >= dateEndJulian-postgresEpochJDate {
		return 0, newError(CodeDatetimeFieldOverflow, "date out of range")
	}
	return d, nil
}
