package exec

import (
	"encoding/hex"
	"math"
	"strconv"
)

// AppendText appends d, of type t, in PostgreSQL's text output format. s
// carries the session settings that change the format (DateStyle, ...);
// nil means PostgreSQL's defaults.
//
// TODO(types): switch to the exec/types codecs for every type.
func AppendText(dst []byte, t T, d Datum, s *Settings) []byte {
	switch d.Kind {
	case KindNull:
		return dst
	case KindBool:
		if d.I != 0 {
			return append(dst, 't')
		}
		return append(dst, 'f')
	case KindInt:
		return strconv.AppendInt(dst, d.I, 10)
	case KindFloat:
		return appendFloat(dst, d.F, t.OID == OIDFloat4)
	case KindNumeric:
		return append(dst, d.Numeric().Text('f')...)
	case KindBytes:
		dst = append(dst, `\x`...)
		return hex.AppendEncode(dst, []byte(d.S))
	}
	return append(dst, d.S...)
}

func appendFloat(dst []byte, f float64, float4 bool) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	bits := 64
	if float4 {
		bits = 32
	}
	return strconv.AppendFloat(dst, f, 'g', -1, bits)
}

// Settings are the session settings that expression evaluation and output
// depend on.
type Settings struct {
	DateStyle     string
	IntervalStyle string
	TimeZone      string
	ExtraFloat    int
}
