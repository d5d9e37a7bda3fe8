package funcs

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// to_char, to_number, to_date and to_timestamp with the format patterns
// of PostgreSQL's formatting.c. A format is parsed into nodes (keywords,
// literal characters) and then run over the value; the numeric processor
// follows NUM_processor step by step, because its spacing and sign rules
// are what users compare.

// fmtNode is one element of a parsed format.
type fmtNode struct {
	key    string // the keyword's canonical id, "" for a literal
	char   string // the literal text
	fm, th bool   // FM prefix, TH/th suffix
	upper  bool   // TH rather than th
	space  bool   // a white-space literal
}

// dchKeywords are the date/time keywords in formatting.c's search order:
// at each position the first one that matches wins, so longer ones come
// before their prefixes.
var dchKeywords = []string{
	"A.D.", "A.M.", "AD", "AM", "B.C.", "BC", "CC", "DAY", "DDD", "DD", "DY", "Day", "Dy", "D",
	"FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "FX", "HH24", "HH12", "HH", "IDDD", "ID", "IW", "IYYY", "IYY", "IY", "I",
	"J", "MI", "MM", "MONTH", "MON", "MS", "Month", "Mon", "OF", "P.M.", "PM", "Q", "RM", "SSSSS", "SSSS", "SS",
	"TZH", "TZM", "TZ", "US", "WW", "W", "Y,YYY", "YYYY", "YYY", "YY", "Y",
	"a.d.", "a.m.", "ad", "am", "b.c.", "bc", "cc", "day", "ddd", "dd", "dy", "d",
	"ff1", "ff2", "ff3", "ff4", "ff5", "ff6", "fx", "hh24", "hh12", "hh", "iddd", "id", "iw", "iyyy", "iyy", "iy", "i",
	"j", "mi", "mm", "month", "mon", "ms", "of", "p.m.", "pm", "q", "rm", "sssss", "ssss", "ss",
	"tzh", "tzm", "tz", "us", "ww", "w", "y,yyy", "yyyy", "yyy", "yy", "y",
}

// dchCaseSensitive are the keywords whose case shapes the output; every
// other keyword means the same in either case.
var dchCaseSensitive = map[string]bool{
	"A.D.": true, "A.M.": true, "AD": true, "AM": true, "B.C.": true, "BC": true, "DAY": true, "DY": true, "Day": true, "Dy": true,
	"MONTH": true, "MON": true, "Month": true, "Mon": true, "P.M.": true, "PM": true, "RM": true, "TZ": true,
	"a.d.": true, "a.m.": true, "ad": true, "am": true, "b.c.": true, "bc": true, "day": true, "dy": true,
	"month": true, "mon": true, "p.m.": true, "pm": true, "rm": true, "tz": true,
}

var numKeywords = []string{
	",", ".", "0", "9", "B", "C", "D", "EEEE", "FM", "G", "L", "MI", "PL", "PR", "RN", "SG", "SP", "S", "TH", "V",
	"b", "c", "d", "eeee", "fm", "g", "l", "mi", "pl", "pr", "rn", "sg", "sp", "s", "th", "v",
}

// parseFormat parses a format string; dch selects the date/time keywords
// (and their FM/TM prefixes and TH/SP suffixes).
func parseFormat(f string, dch bool) []fmtNode {
	var out []fmtNode
	kws := numKeywords
	if dch {
		kws = dchKeywords
	}
	for len(f) > 0 {
		fm := false
		if dch {
			for {
				switch {
				case strings.HasPrefix(f, "FM") || strings.HasPrefix(f, "fm"):
					fm, f = true, f[2:]
					continue
				case strings.HasPrefix(f, "TM") || strings.HasPrefix(f, "tm"):
					f = f[2:]
					continue
				}
				break
			}
			if f == "" {
				break
			}
		}
		key := ""
		for _, k := range kws {
			if strings.HasPrefix(f, k) {
				key = k
				break
			}
		}
		if key != "" {
			f = f[len(key):]
			n := fmtNode{key: key, fm: fm}
			if !dch {
				switch key {
				case "rn":
					n.key = "rn"
				case "th":
					n.key = "th"
				default:
					n.key = strings.ToUpper(key)
				}
			} else if !dchCaseSensitive[key] {
				n.key = strings.ToUpper(key)
			}
			if dch {
				switch {
				case strings.HasPrefix(f, "TH"):
					n.th, n.upper, f = true, true, f[2:]
				case strings.HasPrefix(f, "th"):
					n.th, f = true, f[2:]
				case strings.HasPrefix(f, "SP") || strings.HasPrefix(f, "sp"):
					f = f[2:]
				}
			}
			out = append(out, n)
			continue
		}
		if f[0] == '"' {
			f = f[1:]
			for len(f) > 0 {
				if f[0] == '"' {
					f = f[1:]
					break
				}
				if f[0] == '\\' && len(f) > 1 {
					f = f[1:]
				}
				n := charLen(f)
				out = append(out, fmtNode{char: f[:n]})
				f = f[n:]
			}
			continue
		}
		if f[0] == '\\' && len(f) > 1 && f[1] == '"' {
			f = f[1:]
		}
		n := charLen(f)
		out = append(out, fmtNode{char: f[:n], space: f[0] == ' '})
		f = f[n:]
	}
	return out
}

// ordinal returns the English ordinal suffix of the number that s ends
// with.
func ordinal(s string, upper bool) string {
	if s == "" {
		return ""
	}
	last := s[len(s)-1]
	if last < '0' || last > '9' {
		return ""
	}
	suf := "th"
	tens := len(s) >= 2 && s[len(s)-2] == '1'
	if !tens {
		switch last {
		case '1':
			suf = "st"
		case '2':
			suf = "nd"
		case '3':
			suf = "rd"
		}
	}
	if upper {
		return strings.ToUpper(suf)
	}
	return suf
}

var (
	fullMonths = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	fullDays   = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	romanUpper = []string{"XII", "XI", "X", "IX", "VIII", "VII", "VI", "V", "IV", "III", "II", "I"}
)

// pad0 is sprintf("%0*d", fm ? 0 : width (one more when negative), v).
func pad0(v int64, width int, fm bool) string {
	if fm {
		return strconv.FormatInt(v, 10)
	}
	if v < 0 {
		width++
	}
	return fmt.Sprintf("%0*d", width, v)
}

// padFixed is sprintf("%0*d", fm ? 0 : width, v): the fields whose width
// does not grow for a sign (DD, DDD, WW, IW).
func padFixed(v int64, width int, fm bool) string {
	if fm {
		return strconv.FormatInt(v, 10)
	}
	return fmt.Sprintf("%0*d", width, v)
}

// caseAs shapes a name as the keyword's case asks: NAME, Name or name.
func caseAs(key, name string) string {
	switch {
	case key == strings.ToUpper(key):
		return strings.ToUpper(name)
	case key == strings.ToLower(key):
		return strings.ToLower(name)
	}
	return name
}

// dchTm is what a date/time format reads from a value.
type dchTm struct {
	year, mon, mday, hour, min, sec int
	usec                            int64
	wday, yday                      int
	julian                          int64
	offset                          int // seconds east
	zone                            string
	interval, hasTZ                 bool
}

func adjustYear(y int, interval bool) int {
	if interval || y > 0 {
		return y
	}
	return -(y - 1)
}

// intervalInvalid are the keywords that an interval cannot fill.
var intervalInvalid = map[string]bool{
	"A.D.": true, "B.C.": true, "a.d.": true, "b.c.": true, "AD": true, "BC": true, "ad": true, "bc": true,
	"MONTH": true, "Month": true, "month": true, "MON": true, "Mon": true, "mon": true,
	"DAY": true, "Day": true, "day": true, "DY": true, "Dy": true, "dy": true, "D": true, "ID": true,
}

// dchToChar is DCH_to_char.
func dchToChar(nodes []fmtNode, t *dchTm) (string, error) {
	var b strings.Builder
	for _, n := range nodes {
		if n.key == "" {
			b.WriteString(n.char)
			continue
		}
		if t.interval && intervalInvalid[n.key] {
			return "", pgerr.New(pgerr.InvalidDatetimeFormat, "invalid format specification for an interval value").
				WithHint("Intervals are not tied to specific calendar dates.")
		}
		var s string
		numeric := true
		switch n.key {
		case "A.D.", "B.C.", "a.d.", "b.c.":
			s, numeric = "A.D.", false
			if t.year <= 0 {
				s = "B.C."
			}
			if n.key[0] >= 'a' {
				s = strings.ToLower(s)
			}
		case "AD", "BC", "ad", "bc":
			s, numeric = "AD", false
			if t.year <= 0 {
				s = "BC"
			}
			if n.key[0] >= 'a' {
				s = strings.ToLower(s)
			}
		case "A.M.", "P.M.", "a.m.", "p.m.":
			s, numeric = "A.M.", false
			if t.hour%24 >= 12 {
				s = "P.M."
			}
			if n.key[0] >= 'a' {
				s = strings.ToLower(s)
			}
		case "AM", "PM", "am", "pm":
			s, numeric = "AM", false
			if t.hour%24 >= 12 {
				s = "PM"
			}
			if n.key[0] >= 'a' {
				s = strings.ToLower(s)
			}
		case "HH", "HH12":
			h := t.hour % 12
			if h == 0 {
				h = 12
			}
			s = pad0(int64(h), 2, n.fm)
		case "HH24":
			s = pad0(int64(t.hour), 2, n.fm)
		case "MI":
			s = pad0(int64(t.min), 2, n.fm)
		case "SS":
			s = pad0(int64(t.sec), 2, n.fm)
		case "FF1", "FF2", "FF3", "FF4", "FF5", "FF6":
			digits := int(n.key[2] - '0')
			v := t.usec
			for i := digits; i < 6; i++ {
				v /= 10
			}
			s = fmt.Sprintf("%0*d", digits, v)
		case "MS":
			s = fmt.Sprintf("%03d", t.usec/1000)
		case "US":
			s = fmt.Sprintf("%06d", t.usec)
		case "SSSS", "SSSSS":
			s = strconv.FormatInt(int64(t.hour)*3600+int64(t.min)*60+int64(t.sec), 10)
		case "tz", "TZ":
			numeric = false
			if t.hasTZ {
				s = t.zone
				if n.key == "tz" {
					s = strings.ToLower(s)
				}
			}
		case "TZH":
			numeric = false
			if t.hasTZ {
				sign := '+'
				if t.offset < 0 {
					sign = '-'
				}
				s = fmt.Sprintf("%c%02d", sign, absInt(t.offset)/3600)
			}
		case "TZM":
			if t.hasTZ {
				s = fmt.Sprintf("%02d", (absInt(t.offset)/60)%60)
			}
		case "OF":
			numeric = false
			if t.hasTZ {
				sign := '+'
				if t.offset < 0 {
					sign = '-'
				}
				s = fmt.Sprintf("%c%0*d", sign, map[bool]int{true: 0, false: 2}[n.fm], absInt(t.offset)/3600)
				if m := (absInt(t.offset) / 60) % 60; m != 0 {
					s += fmt.Sprintf(":%02d", m)
				}
			}
		case "DAY", "Day", "day":
			numeric = false
			if t.interval {
				continue
			}
			s = caseAs(n.key, fullDays[t.wday])
			if !n.fm {
				s = fmt.Sprintf("%-9s", s)
			}
		case "DY", "Dy", "dy":
			numeric = false
			if t.interval {
				continue
			}
			s = caseAs(n.key, fullDays[t.wday][:3])
		case "MONTH", "Month", "month":
			numeric = false
			if t.mon == 0 {
				continue
			}
			s = caseAs(n.key, fullMonths[t.mon-1])
			if !n.fm {
				s = fmt.Sprintf("%-9s", s)
			}
		case "MON", "Mon", "mon":
			numeric = false
			if t.mon == 0 {
				continue
			}
			s = caseAs(n.key, fullMonths[t.mon-1][:3])
		case "MM":
			s = pad0(int64(t.mon), 2, n.fm)
		case "DD":
			s = padFixed(int64(t.mday), 2, n.fm)
		case "DDD":
			s = padFixed(int64(t.yday), 3, n.fm)
		case "D":
			s = strconv.Itoa(t.wday + 1)
		case "ID":
			d := t.wday
			if d == 0 {
				d = 7
			}
			s = strconv.Itoa(d)
		case "IDDD":
			day4 := types.JulianDay(isoYear(t.year, t.mon, t.mday), 1, 4)
			day0 := j2day(day4 - 1)
			s = padFixed(t.julian-(day4-day0)+1, 3, n.fm)
			if t.interval {
				s = padFixed(int64(t.yday), 3, n.fm)
			}
		case "WW":
			s = padFixed(int64((t.yday-1)/7+1), 2, n.fm)
		case "W":
			s = strconv.Itoa((t.mday-1)/7 + 1)
		case "IW":
			s = padFixed(int64(isoWeek(t.year, t.mon, t.mday)), 2, n.fm)
		case "Q":
			if t.mon == 0 {
				continue
			}
			s = strconv.Itoa((t.mon-1)/3 + 1)
		case "CC":
			var c int
			switch {
			case t.interval:
				c = t.year / 100
			case t.year > 0:
				c = (t.year-1)/100 + 1
			default:
				c = t.year/100 - 1
			}
			if c <= 99 && c >= -99 {
				s = pad0(int64(c), 2, n.fm)
			} else {
				s = strconv.Itoa(c)
			}
		case "Y,YYY":
			y := adjustYear(t.year, t.interval)
			s = fmt.Sprintf("%d,%03d", y/1000, y-(y/1000)*1000)
		case "YYYY", "IYYY", "YYY", "IYY", "YY", "IY", "Y", "I":
			y := t.year
			if n.key[0] == 'I' {
				y = isoYear(t.year, t.mon, t.mday)
			}
			y = adjustYear(y, t.interval)
			width := len(n.key) // YYYY 4, YYY 3, ... and IYYY 4, IYY 3, IY 2, I 1
			if width == 4 {
				if t.year <= 9999 && t.year >= -9998 {
					s = pad0(int64(y), 4, n.fm)
				} else {
					s = strconv.Itoa(y)
				}
			} else {
				mod := map[int]int{3: 1000, 2: 100, 1: 10}[width]
				full := pad0(int64(y%mod), width, n.fm)
				if len(full) > width {
					full = full[len(full)-width:]
				}
				s = full
			}
		case "RM", "rm":
			numeric = false
			if t.mon == 0 && t.year == 0 {
				continue
			}
			var idx int
			switch {
			case t.mon == 0:
				if t.year >= 0 {
					idx = 0
				} else {
					idx = 11
				}
			case t.mon < 0:
				idx = -1 * (t.mon + 1)
			default:
				idx = 12 - t.mon
			}
			s = romanUpper[idx]
			if n.key == "rm" {
				s = strings.ToLower(s)
			}
			if !n.fm {
				s = fmt.Sprintf("%-4s", s)
			}
		case "J":
			s = strconv.FormatInt(t.julian, 10)
		default:
			continue
		}
		b.WriteString(s)
		if n.th && numeric {
			b.WriteString(ordinal(s, n.upper))
		}
	}
	return b.String(), nil
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// dchOf breaks a timestamp down for to_char.
func dchOf(us int64, withTZ bool, env *exec.Env) dchTm {
	var t tm
	if withTZ {
		t = breakDownTZ(us, exec.Location(env.Settings))
	} else {
		t = breakDown(us)
	}
	j := types.JulianDay(t.year, t.mon, t.mday)
	return dchTm{year: t.year, mon: t.mon, mday: t.mday, hour: t.hour, min: t.min, sec: t.sec, usec: t.usec,
		wday: int(j2day(j)), yday: int(j - types.JulianDay(t.year, 1, 1) + 1), julian: j,
		offset: t.offset, zone: t.zone, hasTZ: withTZ}
}

// dchOfInterval breaks an interval down for to_char.
func dchOfInterval(iv exec.Interval) dchTm {
	hours := iv.Micros / usPerHour
	rest := iv.Micros - hours*usPerHour
	mins := rest / usPerMinute
	rest -= mins * usPerMinute
	secs := rest / usPerSec
	return dchTm{year: int(iv.Months / 12), mon: int(iv.Months % 12), mday: int(iv.Days), hour: int(hours), min: int(mins),
		sec: int(secs), usec: rest - secs*usPerSec, yday: int(iv.Days), interval: true}
}

// Numeric formats (NUMDesc).
type numDesc struct {
	pre, post, multi        int
	zeroStart, zeroEnd      int
	preLsignNum             int
	lsign                   int // 0 none, 1 pre, 2 post
	decimal, ldecimal, zero bool
	fill, lsignF, bracket   bool
	minus, plus, minusPost  bool
	plusPost, roman, multiF bool
	eeee, blank             bool
}

const (
	lsignNone = iota
	lsignPre
	lsignPost
)

func errNumFormat(format string, args ...any) *pgerr.Error {
	return pgerr.New(pgerr.SyntaxError, format, args...)
}

// prepareNum is NUMDesc_prepare over all nodes.
func prepareNum(nodes []fmtNode) (*numDesc, error) {
	d := &numDesc{}
	for _, n := range nodes {
		if n.key == "" {
			continue
		}
		if d.eeee && n.key != "EEEE" {
			return nil, errNumFormat("\"EEEE\" must be the last pattern used")
		}
		switch n.key {
		case "9":
			if d.bracket {
				return nil, errNumFormat("\"9\" must be ahead of \"PR\"")
			}
			if d.multiF {
				d.multi++
				break
			}
			if d.decimal {
				d.post++
			} else {
				d.pre++
			}
		case "0":
			if d.bracket {
				return nil, errNumFormat("\"0\" must be ahead of \"PR\"")
			}
			if !d.zero && !d.decimal {
				d.zero = true
				d.zeroStart = d.pre + 1
			}
			if !d.decimal {
				d.pre++
			} else {
				d.post++
			}
			d.zeroEnd = d.pre + d.post
		case "B":
			if d.pre == 0 && d.post == 0 && !d.zero {
				d.blank = true
			}
		case "D", ".":
			if d.decimal {
				return nil, errNumFormat("multiple decimal points")
			}
			if d.multiF {
				return nil, errNumFormat("cannot use \"V\" and decimal point together")
			}
			d.decimal = true
			if n.key == "D" {
				d.ldecimal = true
			}
		case "FM":
			d.fill = true
		case "S":
			if d.lsignF {
				return nil, errNumFormat("cannot use \"S\" twice")
			}
			if d.plus || d.minus || d.bracket {
				return nil, errNumFormat("cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together")
			}
			if !d.decimal {
				d.lsign, d.preLsignNum, d.lsignF = lsignPre, d.pre, true
			} else if d.lsign == lsignNone {
				d.lsign, d.lsignF = lsignPost, true
			}
		case "MI":
			if d.lsignF {
				return nil, errNumFormat("cannot use \"S\" and \"MI\" together")
			}
			d.minus = true
			if d.decimal {
				d.minusPost = true
			}
		case "PL":
			if d.lsignF {
				return nil, errNumFormat("cannot use \"S\" and \"PL\" together")
			}
			d.plus = true
			if d.decimal {
				d.plusPost = true
			}
		case "SG":
			if d.lsignF {
				return nil, errNumFormat("cannot use \"S\" and \"SG\" together")
			}
			d.minus, d.plus = true, true
		case "PR":
			if d.lsignF || d.plus || d.minus {
				return nil, errNumFormat("cannot use \"PR\" and \"S\"/\"PL\"/\"MI\"/\"SG\" together")
			}
			d.bracket = true
		case "RN", "rn":
			d.roman = true
		case "V":
			if d.decimal {
				return nil, errNumFormat("cannot use \"V\" and decimal point together")
			}
			d.multiF = true
		case "EEEE":
			if d.eeee {
				return nil, errNumFormat("cannot use \"EEEE\" twice")
			}
			if d.blank || d.fill || d.lsignF || d.bracket || d.minus || d.plus || d.roman || d.multiF {
				return nil, errNumFormat("\"EEEE\" is incompatible with other formats").
					WithDetail("\"EEEE\" may only be used together with digit and decimal point patterns.")
			}
			d.eeee = true
		}
	}
	return d, nil
}

// intToRoman is int_to_roman: 15 '#' outside 1..3999.
func intToRoman(v int64) string {
	if v < 1 || v > 3999 {
		return strings.Repeat("#", 15)
	}
	ones := []string{"", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"}
	tens := []string{"", "X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"}
	hund := []string{"", "C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"}
	return strings.Repeat("M", int(v/1000)) + hund[v/100%10] + tens[v/10%10] + ones[v%10]
}

// hashes is the '#' filler of an overflowing number: pre digits, a point,
// post digits.
// fitDigits takes a number printed in plain decimal, splits off its minus
// sign, and fits it to the format's integer digits: the spaces to pad it
// with, or the format's '#'s when it has more digits than the format.
func fitDigits(s string, d *numDesc) (numstr string, outPre int, sign byte) {
	sign = '+'
	if strings.HasPrefix(s, "-") {
		sign, s = '-', s[1:]
	}
	preLen := len(s)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		preLen = i
	}
	switch {
	case preLen < d.pre:
		return s, d.pre - preLen, sign
	case preLen > d.pre:
		return hashes(d), 0, sign
	}
	return s, 0, sign
}

func hashes(d *numDesc) string {
	b := []byte(strings.Repeat("#", d.pre+d.post+1))
	b[d.pre] = '.'
	return string(b)
}

// numProc is NUMProc for output.
type numProc struct {
	d                 *numDesc
	sign              byte
	signWrote, numIn  bool
	numCurr, numCount int
	outPreSpaces      int
	number            string
	p                 int // index into number
	lastRelevant      int // index, -1 for none
	cut               int // where a NUL was written, -1 for none
	out               strings.Builder
}

func (np *numProc) predecSpace() bool {
	return !np.d.zero && np.p == 0 && len(np.number) > 0 && np.number[0] == '0' && np.d.post != 0
}

func (np *numProc) cur() byte {
	if np.p < len(np.number) {
		return np.number[np.p]
	}
	return 0
}

func (np *numProc) lastIs(c byte) bool {
	return np.lastRelevant >= 0 && np.lastRelevant < len(np.number) && np.number[np.lastRelevant] == c
}

// numpart is NUM_numpart_to_char.
func (np *numProc) numpart(id string) {
	d := np.d
	if d.roman {
		return
	}
	np.numIn = false
	if !np.signWrote &&
		(np.numCurr >= np.outPreSpaces || (d.zero && d.zeroStart == np.numCurr)) &&
		(!np.predecSpace() || np.lastIs('.')) {
		switch {
		case d.lsignF:
			if d.lsign == lsignPre {
				if np.sign == '-' {
					np.out.WriteByte('-')
				} else {
					np.out.WriteByte('+')
				}
				np.signWrote = true
			}
		case d.bracket:
			if np.sign == '+' {
				np.out.WriteByte(' ')
			} else {
				np.out.WriteByte('<')
			}
			np.signWrote = true
		case np.sign == '+':
			if !d.fill {
				np.out.WriteByte(' ')
			}
			np.signWrote = true
		case np.sign == '-':
			np.out.WriteByte('-')
			np.signWrote = true
		}
	}
	if id == "9" || id == "0" || id == "D" || id == "." {
		switch {
		case np.numCurr < np.outPreSpaces && (d.zeroStart > np.numCurr || !d.zero):
			if !d.fill {
				np.out.WriteByte(' ')
			}
		case d.zero && np.numCurr < np.outPreSpaces && d.zeroStart <= np.numCurr:
			np.out.WriteByte('0')
			np.numIn = true
		default:
			if np.cur() == '.' {
				if !np.lastIs('.') {
					np.out.WriteByte('.')
				} else if d.fill && np.lastIs('.') {
					np.out.WriteByte('.')
				}
			} else {
				switch {
				case np.lastRelevant >= 0 && np.p > np.lastRelevant && id != "0":
				case np.predecSpace():
					if !d.fill {
						np.out.WriteByte(' ')
					} else if np.lastIs('.') {
						np.out.WriteByte('0')
					}
				default:
					if c := np.cur(); c != 0 {
						np.out.WriteByte(c)
					} else if np.cut < 0 {
						// PostgreSQL writes the number's terminating NUL
						// here, which ends its output.
						np.cut = np.out.Len()
					}
					np.numIn = true
				}
			}
			if np.p < len(np.number) {
				np.p++
			}
		}
		end := np.numCount
		if np.outPreSpaces > 0 {
			end++
		}
		if d.decimal {
			end++
		}
		if np.lastRelevant >= 0 && np.lastRelevant == np.p {
			end = np.numCurr
		}
		if np.numCurr+1 == end {
			switch {
			case np.signWrote && d.bracket:
				if np.sign == '+' {
					np.out.WriteByte(' ')
				} else {
					np.out.WriteByte('>')
				}
			case d.lsignF && d.lsign == lsignPost:
				if np.sign == '-' {
					np.out.WriteByte('-')
				} else {
					np.out.WriteByte('+')
				}
			}
		}
	}
	np.numCurr++
}

// numToChar is NUM_processor for to_char: number is the digits (no sign)
// or the filler, sign '+' or '-'.
func numToChar(nodes []fmtNode, d *numDesc, number string, outPreSpaces int, sign byte) string {
	if d.zeroStart > 0 {
		d.zeroStart--
	}
	if d.eeee {
		return number
	}
	np := &numProc{d: d, number: number, lastRelevant: -1, cut: -1}
	if d.roman {
		fill := d.fill
		*d = numDesc{roman: true, fill: fill}
		outPreSpaces = 0
		sign = 0
	}
	np.sign = sign
	if d.plus || d.minus {
		np.signWrote = !(d.plus && !d.minus)
	} else {
		if np.sign != '-' && d.fill {
			d.bracket = false
		}
		np.signWrote = np.sign == '+' && d.fill && !d.lsignF
		if d.lsign == lsignPre && d.pre == d.preLsignNum {
			d.lsign = lsignPost
		}
	}
	np.numCount = d.post + d.pre - 1
	np.outPreSpaces = outPreSpaces
	if d.fill && d.decimal {
		if i := strings.IndexByte(number, '.'); i >= 0 {
			np.lastRelevant = i
			for j := i + 1; j < len(number); j++ {
				if number[j] != '0' {
					np.lastRelevant = j
				}
			}
			if d.zeroEnd > outPreSpaces {
				lastZero := min(len(number)-1, d.zeroEnd-outPreSpaces)
				if np.lastRelevant < lastZero {
					np.lastRelevant = lastZero
				}
			}
		}
	}
	if !np.signWrote && outPreSpaces == 0 {
		np.numCount++
	}
	for _, n := range nodes {
		if n.key == "" {
			np.out.WriteString(n.char)
			continue
		}
		switch n.key {
		case "9", "0", ".", "D":
			np.numpart(n.key)
		case ",", "G":
			if !np.numIn {
				if !d.fill {
					np.out.WriteByte(' ')
				}
			} else {
				np.out.WriteByte(',')
			}
		case "L":
			np.out.WriteByte(' ')
		case "RN", "rn":
			s := number
			if n.key == "rn" {
				s = strings.ToLower(s)
			}
			if d.fill {
				np.out.WriteString(s)
			} else {
				np.out.WriteString(fmt.Sprintf("%15s", s))
			}
		case "TH", "th":
			if d.roman || strings.HasPrefix(number, "#") || np.sign == '-' || d.decimal {
				continue
			}
			np.out.WriteString(ordinal(number, n.key == "TH"))
		case "MI":
			switch {
			case np.sign == '-':
				np.out.WriteByte('-')
			case d.fill:
			default:
				np.out.WriteByte(' ')
			}
		case "PL":
			switch {
			case np.sign == '+':
				np.out.WriteByte('+')
			case d.fill:
			default:
				np.out.WriteByte(' ')
			}
		case "SG":
			np.out.WriteByte(np.sign)
		}
	}
	if np.cut >= 0 {
		return np.out.String()[:np.cut]
	}
	return np.out.String()
}

// numericToChar is to_char(numeric, format).
func numericToChar(v *apd.Decimal, nodes []fmtNode) (exec.Datum, error) {
	d, err := prepareNum(nodes)
	if err != nil {
		return exec.Null, err
	}
	var numstr string
	outPre := 0
	sign := byte('+')
	switch {
	case d.roman:
		if v.Form == apd.NaN {
			return exec.Null, pgerr.New(pgerr.FeatureNotSupported, "cannot convert NaN to integer")
		}
		if v.Form == apd.Infinite {
			return exec.Null, pgerr.New(pgerr.FeatureNotSupported, "cannot convert infinity to integer")
		}
		r := exec.RoundNumeric(v, 0, false)
		i, err := r.Int64()
		if err != nil || i > math.MaxInt32 || i < math.MinInt32 {
			return exec.Null, exec.IntRangeError("integer")
		}
		numstr = intToRoman(i)
	case d.eeee:
		if v.Form != apd.Finite {
			b := []byte(strings.Repeat("#", d.pre+d.post+6))
			b[0], b[d.pre+1] = ' ', '.'
			numstr = string(b)
		} else {
			numstr = numericSci(v, d.post)
			if numstr[0] != '-' {
				numstr = " " + numstr
			}
		}
	default:
		val := v
		if d.multiF {
			m := new(apd.Decimal)
			exec.NumericContext.Mul(m, v, apd.New(1, int32(d.multi)))
			val = m
			d.pre += d.multi
		}
		x := exec.RoundNumeric(val, int32(d.post), false)
		s := string(exec.AppendText(nil, exec.TNumeric, exec.DNumeric(x), nil))
		numstr, outPre, sign = fitDigits(s, d)
	}
	return exec.DText(numToChar(nodes, d, numstr, outPre, sign)), nil
}

// numericSci is numeric_out_sci: d.ddde+XX with post digits.
func numericSci(v *apd.Decimal, post int) string {
	exp := int32(0)
	if !v.IsZero() {
		exp = decWeight(v)
	}
	sig := new(apd.Decimal).Set(v)
	sig.Exponent -= exp
	sig = exec.RoundNumeric(sig, int32(post), false)
	s := string(exec.AppendText(nil, exec.TNumeric, exec.DNumeric(sig), nil))
	return fmt.Sprintf("%se%+03d", s, exp)
}

// intToChar is to_char over int2, int4 and int8.
func intToChar(v int64, nodes []fmtNode) (exec.Datum, error) {
	d, err := prepareNum(nodes)
	if err != nil {
		return exec.Null, err
	}
	var numstr string
	outPre := 0
	sign := byte('+')
	switch {
	case d.roman:
		numstr = intToRoman(v)
	case d.eeee:
		numstr = fmt.Sprintf("%+.*e", d.post, float64(v))
		if numstr[0] == '+' {
			numstr = " " + numstr[1:]
		}
	default:
		if d.multiF {
			v *= int64(math.Pow(10, float64(d.multi)))
			d.pre += d.multi
		}
		s := strconv.FormatInt(v, 10)
		if d.post > 0 {
			s += "." + strings.Repeat("0", d.post)
		}
		numstr, outPre, sign = fitDigits(s, d)
	}
	return exec.DText(numToChar(nodes, d, numstr, outPre, sign)), nil
}

// floatToChar is to_char over float8 (digits 15) and float4 (digits 6).
func floatToChar(v float64, nodes []fmtNode, digits int) (exec.Datum, error) {
	d, err := prepareNum(nodes)
	if err != nil {
		return exec.Null, err
	}
	var numstr string
	outPre := 0
	sign := byte('+')
	switch {
	case d.roman:
		numstr = intToRoman(int64(math.RoundToEven(v)))
	case d.eeee:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b := []byte(strings.Repeat("#", d.pre+d.post+6))
			b[0], b[d.pre+1] = ' ', '.'
			numstr = string(b)
		} else {
			numstr = fmt.Sprintf("%+.*e", d.post, v)
			if numstr[0] == '+' {
				numstr = " " + numstr[1:]
			}
		}
	default:
		val := v
		if d.multiF {
			val = v * math.Pow(10, float64(d.multi))
			d.pre += d.multi
		}
		// Non-finite values print as float8out does.
		var s string
		abs := fmt.Sprintf("%.0f", math.Abs(val))
		switch {
		case math.IsNaN(val):
			abs, s = "NaN", "NaN"
		case math.IsInf(val, 0):
			abs, s = "Infinity", "Infinity"
			if val < 0 {
				s = "-Infinity"
			}
		}
		pre := len(abs)
		post := d.post
		if pre >= digits {
			post = 0
		} else if pre+post > digits {
			post = digits - pre
		}
		d.post = post
		if s == "" {
			s = fmt.Sprintf("%.*f", post, val)
		}
		numstr, outPre, sign = fitDigits(s, d)
	}
	return exec.DText(numToChar(nodes, d, numstr, outPre, sign)), nil
}

// toNumber is to_number(text, format): the digits the format's 9, 0 and
// D positions read, the sign from -, <...>, S, MI or PL, as a numeric of
// the format's precision and scale.
func toNumber(s, f string) (exec.Datum, error) {
	if f == "" {
		return exec.Null, nil
	}
	nodes := parseFormat(f, false)
	d, err := prepareNum(nodes)
	if err != nil {
		return exec.Null, err
	}
	if d.eeee {
		return exec.Null, errNumFormat("\"EEEE\" not supported for input")
	}
	if d.roman {
		return exec.Null, errNumFormat("\"RN\" not supported for input")
	}
	var digits strings.Builder
	neg := false
	i := 0
	post := 0
	inDecimal := false
	readDigit := func() bool {
		for i < len(s) && s[i] == ' ' && digits.Len() == 0 {
			i++
		}
		if i < len(s) && (s[i] == '-' || s[i] == '<') && !d.minus && !d.plus {
			neg = true
			i++
		}
		if i < len(s) && s[i] >= '0' && s[i] <= '9' {
			digits.WriteByte(s[i])
			if inDecimal {
				post++
			}
			i++
			return true
		}
		return false
	}
	for _, n := range nodes {
		if i >= len(s) {
			break
		}
		if n.key == "" {
			i += charLen(s[i:])
			continue
		}
		switch n.key {
		case "9", "0":
			readDigit()
		case ".", "D":
			for i < len(s) && s[i] == ' ' {
				i++
			}
			if i < len(s) && (s[i] == '-' || s[i] == '<') && !d.minus && !d.plus {
				neg = true
				i++
			}
			if i < len(s) && s[i] == '.' {
				digits.WriteByte('.')
				inDecimal = true
				i++
			}
		case ",", "G":
			if i < len(s) && s[i] == ',' {
				i++
			}
		case "L":
			if i < len(s) && s[i] == '$' {
				i++
			} else if i < len(s) && s[i] == ' ' {
				i++
			}
		case "S", "MI", "SG", "PL":
			for i < len(s) && s[i] == ' ' && n.key == "S" {
				i++
			}
			if i < len(s) && s[i] == '-' {
				neg = true
				i++
			} else if i < len(s) && s[i] == '+' {
				i++
			}
		case "PR":
			if i < len(s) && s[i] == '>' {
				neg = true
				i++
			}
		case "TH", "th":
			if i+1 < len(s) {
				i += 2
			}
		}
	}
	// A trailing sign or bracket the format's positions did not reach.
	for ; i < len(s); i++ {
		if (s[i] == '-' && (d.lsignF || d.minus)) || (s[i] == '>' && d.bracket) {
			neg = true
		}
	}
	num := digits.String()
	if num == "" || num == "." {
		return exec.Null, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type numeric: \" \"")
	}
	if neg {
		num = "-" + num
	}
	x, _, err := apd.NewFromString(num)
	if err != nil {
		return exec.Null, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type numeric: \" \"")
	}
	// The scale is that of the digits read, as NUM_processor leaves it.
	precision := d.pre + d.multi + post
	if precision == 0 {
		precision = 1
	}
	return exec.ApplyTypmod(exec.T{OID: exec.OIDNumeric, Typmod: int32(precision<<16|post) + 4}, exec.DNumeric(x), true)
}

// parseDate is to_date/to_timestamp over the common numeric fields and
// month and day names: enough for the everyday formats.
func parseDateFormat(s, f string) (y, mon, day, hour, min, sec int, usec int64, err error) {
	y, mon, day, hour, min, sec, usec, _, err = parseDateFormatTZ(s, f)
	return
}

// parseDateFormatTZ is parseDateFormat that also reports a TZH/TZM
// offset (seconds east) when the format has one.
func parseDateFormatTZ(s, f string) (y, mon, day, hour, min, sec int, usec int64, tz *int, err error) {
	nodes := parseFormat(f, true)
	y, mon, day = 0, 1, 1 // no year field: year 0, that is 1 BC, as PostgreSQL leaves it
	doy := 0
	tzh, tzm, tzSign := 0, 0, 1
	pm, hasAMPM, bc := false, false, false
	i := 0
	readInt := func(maxDigits int) (int, bool) {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		start := i
		neg := false
		if i < len(s) && s[i] == '-' {
			neg = true
			i++
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' && i-start < maxDigits {
			i++
		}
		v, e := strconv.Atoi(strings.TrimPrefix(s[start:i], "-"))
		if e != nil {
			return 0, false
		}
		if neg {
			v = -v
		}
		return v, true
	}
	bad := func(what string) error {
		return pgerr.New(pgerr.InvalidDatetimeFormat, "invalid value \"%s\" for \"%s\"", strings.TrimSpace(s[min0(i, len(s)):]), what)
	}
	for k, n := range nodes {
		if i > len(s) {
			break
		}
		// A field followed by another field reads its width exactly.
		nextIsField := k+1 < len(nodes) && nodes[k+1].key != ""
		if n.key == "" {
			if i < len(s) && !n.space {
				i += charLen(s[i:])
			} else if n.space {
				for i < len(s) && s[i] == ' ' {
					i++
				}
			}
			continue
		}
		var ok bool
		switch n.key {
		case "YYYY", "IYYY":
			y, ok = readInt(4)
			if !nextIsField {
				// Otherwise greedy for more digits when the input has them.
				for i < len(s) && s[i] >= '0' && s[i] <= '9' {
					y = y*10 + int(s[i]-'0')
					i++
				}
			}
		case "YYY", "IYY":
			y, ok = readInt(3)
			if ok && y < 100 {
				y += 2000
			} else if ok && y < 1000 {
				y += 1000
			}
		case "YY", "IY":
			y, ok = readInt(2)
			if ok {
				if y < 70 {
					y += 2000
				} else {
					y += 1900
				}
			}
		case "Y,YYY":
			var a, b int
			a, ok = readInt(3)
			if ok && i < len(s) && s[i] == ',' {
				i++
				b, ok = readInt(3)
			}
			y = a*1000 + b
		case "MM":
			mon, ok = readInt(2)
		case "DD":
			day, ok = readInt(2)
		case "DDD":
			doy, ok = readInt(3)
		case "TZH":
			for i < len(s) && s[i] == ' ' {
				i++
			}
			if i < len(s) && (s[i] == '+' || s[i] == '-') {
				if s[i] == '-' {
					tzSign = -1
				}
				i++
			}
			tzh, ok = readInt(2)
			t := 0
			tz = &t
		case "TZM":
			tzm, ok = readInt(2)
		case "HH", "HH12":
			hour, ok = readInt(2)
		case "HH24":
			hour, ok = readInt(2)
		case "MI":
			min, ok = readInt(2)
		case "SS":
			sec, ok = readInt(2)
		case "MS":
			var v int
			v, ok = readInt(3)
			usec = int64(v) * 1000
		case "US", "FF6":
			var v int
			v, ok = readInt(6)
			usec = int64(v)
		case "MONTH", "Month", "month", "MON", "Mon", "mon":
			for i < len(s) && s[i] == ' ' {
				i++
			}
			ok = false
			for k, name := range fullMonths {
				full := strings.HasPrefix(strings.ToLower(s[i:]), strings.ToLower(name)) && len(n.key) == 5
				if full || strings.HasPrefix(strings.ToLower(s[i:]), strings.ToLower(name[:3])) {
					mon, ok = k+1, true
					if full {
						i += len(name)
					} else {
						i += 3
					}
					break
				}
			}
		case "DAY", "Day", "day", "DY", "Dy", "dy":
			for i < len(s) && s[i] == ' ' {
				i++
			}
			ok = false
			for _, name := range fullDays {
				if strings.HasPrefix(strings.ToLower(s[i:]), strings.ToLower(name)) && len(n.key) == 3 {
					i += len(name)
					ok = true
					break
				}
				if strings.HasPrefix(strings.ToLower(s[i:]), strings.ToLower(name[:3])) {
					i += 3
					ok = true
					break
				}
			}
		case "AM", "PM", "am", "pm", "A.M.", "P.M.", "a.m.", "p.m.":
			rest := strings.ToUpper(s[min0(i, len(s)):])
			hasAMPM, ok = true, true
			switch {
			case strings.HasPrefix(rest, "PM") || strings.HasPrefix(rest, "P.M."):
				pm = true
			case strings.HasPrefix(rest, "AM") || strings.HasPrefix(rest, "A.M."):
			default:
				ok = false
			}
			if strings.Contains(n.key, ".") {
				i += 4
			} else {
				i += 2
			}
		case "BC", "AD", "bc", "ad", "B.C.", "A.D.", "b.c.", "a.d.":
			rest := strings.ToUpper(s[min0(i, len(s)):])
			bc = strings.HasPrefix(rest, "BC") || strings.HasPrefix(rest, "B.C.")
			ok = true
			i += len(n.key)
		case "J":
			var j int
			j, ok = readInt(10)
			if ok {
				y, mon, day = breakDown((int64(j)-exec.PostgresEpochJD)*exec.MicrosPerDay).year, 0, 0
				t := breakDown((int64(j) - exec.PostgresEpochJD) * exec.MicrosPerDay)
				y, mon, day = t.year, t.mon, t.mday
			}
		default:
			ok = true
		}
		if !ok {
			return 0, 0, 0, 0, 0, 0, 0, nil, bad(n.key)
		}
	}
	if hasAMPM {
		if hour < 1 || hour > 12 {
			return 0, 0, 0, 0, 0, 0, 0, nil, pgerr.New(pgerr.InvalidDatetimeFormat, "hour \"%d\" is invalid for the 12-hour clock", hour).
				WithHint("Use the 24-hour clock, or give an hour between 1 and 12.")
		}
		if pm && hour < 12 {
			hour += 12
		} else if !pm && hour == 12 {
			hour = 0
		}
	}
	if bc {
		y = -(y - 1)
	}
	if doy > 0 {
		t := breakDown((types.JulianDay(y, 1, 1) - exec.PostgresEpochJD + int64(doy) - 1) * exec.MicrosPerDay)
		y, mon, day = t.year, t.mon, t.mday
	}
	if tz != nil {
		*tz = tzSign * (tzh*3600 + tzm*60)
	}
	if mon < 1 || mon > 12 || day < 1 || day > daysIn[leapIdx(y)][mon] || hour > 24 || min > 59 || sec > 60 ||
		(hour == 24 && (min > 0 || sec > 0 || usec > 0)) {
		return 0, 0, 0, 0, 0, 0, 0, nil, pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
	}
	return y, mon, day, hour, min, sec, usec, tz, nil
}

func min0(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// formatCache keeps the last format parsed at one call site, so that
// to_char over many rows parses its constant format once. It is safe for
// concurrent use; parsed nodes are never modified.
type formatCache struct {
	last atomic.Pointer[cachedFormat]
}

type cachedFormat struct {
	f     string
	nodes []fmtNode
}

func (c *formatCache) get(f string, dch bool) []fmtNode {
	if e := c.last.Load(); e != nil && e.f == f {
		return e.nodes
	}
	nodes := parseFormat(f, dch)
	c.last.Store(&cachedFormat{f: f, nodes: nodes})
	return nodes
}

// toCharBuild makes a to_char implementation with its own format cache.
func toCharBuild(dch bool, run func(env *exec.Env, d exec.Datum, nodes []fmtNode) (exec.Datum, error)) func([]exec.T) (exec.Fn, exec.T, error) {
	return func([]exec.T) (exec.Fn, exec.T, error) {
		c := &formatCache{}
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return run(env, a[0], c.get(a[1].S, dch))
		}, exec.TText, nil
	}
}

func registerToChar() {
	TX := exec.OIDText
	dch := func(withTZ bool) func(env *exec.Env, d exec.Datum, nodes []fmtNode) (exec.Datum, error) {
		return func(env *exec.Env, d exec.Datum, nodes []fmtNode) (exec.Datum, error) {
			if len(nodes) == 0 || exec.IsInfiniteTimestamp(d.I) {
				return exec.Null, nil
			}
			t := dchOf(d.I, withTZ, env)
			out, err := dchToChar(nodes, &t)
			return exec.DText(out), err
		}
	}
	exec.Register(&exec.Func{Name: "to_char", Args: []uint32{exec.OIDTimestamp, TX}, Ret: TX, Strict: true, Build: toCharBuild(true, dch(false))},
		&exec.Func{Name: "to_char", Args: []uint32{exec.OIDTimestampTZ, TX}, Ret: TX, Strict: true, Build: toCharBuild(true, dch(true))},
		&exec.Func{Name: "to_char", Args: []uint32{exec.OIDInterval, TX}, Ret: TX, Strict: true, Build: toCharBuild(true, func(_ *exec.Env, d exec.Datum, nodes []fmtNode) (exec.Datum, error) {
			if len(nodes) == 0 {
				return exec.Null, nil
			}
			t := dchOfInterval(d.Interval())
			out, err := dchToChar(nodes, &t)
			return exec.DText(out), err
		})},
		&exec.Func{Name: "to_char", Args: []uint32{exec.OIDNumeric, TX}, Ret: TX, Strict: true, Build: toCharBuild(false, func(_ *exec.Env, d exec.Datum, nodes []fmtNode) (exec.Datum, error) {
			return numericToChar(d.Numeric(), nodes)
		})},
		&exec.Func{Name: "to_char", Args: []uint32{exec.OIDInt4, TX}, Ret: TX, Strict: true, Build: toCharBuild(false, func(_ *exec.Env, d exec.Datum, nodes []fmtNode) (exec.Datum, error) {
			return intToChar(d.I, nodes)
		})},
		&exec.Func{Name: "to_char", Args: []uint32{exec.OIDInt8, TX}, Ret: TX, Strict: true, Build: toCharBuild(false, func(_ *exec.Env, d exec.Datum, nodes []fmtNode) (exec.Datum, error) {
			return intToChar(d.I, nodes)
		})},
		&exec.Func{Name: "to_char", Args: []uint32{exec.OIDFloat8, TX}, Ret: TX, Strict: true, Build: toCharBuild(false, func(_ *exec.Env, d exec.Datum, nodes []fmtNode) (exec.Datum, error) {
			return floatToChar(d.F, nodes, 15)
		})},
		&exec.Func{Name: "to_char", Args: []uint32{exec.OIDFloat4, TX}, Ret: TX, Strict: true, Build: toCharBuild(false, func(_ *exec.Env, d exec.Datum, nodes []fmtNode) (exec.Datum, error) {
			return floatToChar(float64(float32(d.F)), nodes, 6)
		})})
	exec.Register(&exec.Func{Name: "to_number", Args: []uint32{TX, TX}, Ret: exec.OIDNumeric, Strict: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		return toNumber(a[0].S, a[1].S)
	}})
	exec.Register(&exec.Func{Name: "to_timestamp", Args: []uint32{exec.OIDFloat8}, Ret: exec.OIDTimestampTZ, Strict: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		f := a[0].F
		switch {
		case math.IsNaN(f):
			return exec.Null, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp cannot be NaN")
		case math.IsInf(f, 1):
			return exec.DTimestamp(exec.TimestampInfinity), nil
		case math.IsInf(f, -1):
			return exec.DTimestamp(exec.TimestampNegInfinity), nil
		}
		us := math.RoundToEven((f - exec.UnixEpochShift) * usPerSec)
		if us < minTimestampUs || us >= endTimestampUs {
			return exec.Null, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", string(exec.AppendText(nil, exec.TFloat8, a[0], nil)))
		}
		return exec.DTimestamp(int64(us)), nil
	}})
	exec.Register(&exec.Func{Name: "to_timestamp", Args: []uint32{TX, TX}, Ret: exec.OIDTimestampTZ, Strict: true, Fn: func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		y, mo, d, h, mi, s, us, tz, err := parseDateFormatTZ(a[0].S, a[1].S)
		if err != nil {
			return exec.Null, err
		}
		r, ok := fromFields(y, mo, d, h, mi, s, us)
		if !ok {
			return exec.Null, exec.ErrTimestampRange
		}
		if tz != nil {
			return exec.DTimestamp(r - int64(*tz)*usPerSec), nil
		}
		return exec.DTimestamp(utcMicrosIn(r, exec.Location(env.Settings))), nil
	}})
	exec.Register(&exec.Func{Name: "to_date", Args: []uint32{TX, TX}, Ret: exec.OIDDate, Strict: true, Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		y, mo, d, _, _, _, _, err := parseDateFormat(a[0].S, a[1].S)
		if err != nil {
			return exec.Null, err
		}
		if mo < 1 || mo > 12 || d < 1 || d > daysIn[leapIdx(y)][mo] {
			return exec.Null, pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", a[0].S)
		}
		return exec.DDate(types.JulianDay(y, mo, d) - exec.PostgresEpochJD), nil
	}})
}
