package funcs

import (
	"strconv"

	"github.com/prollypg/prollypg/exec"
)

// pg_size_pretty: a byte count in the largest unit that keeps it readable,
// by PostgreSQL's rules (dbsize.c): below 10 kB in bytes, then each unit
// up to 20 of the next less one, halves rounded away from zero.

type sizeUnit struct {
	name  string
	limit int64
	round bool
	bits  uint
}

var sizeUnits = [...]sizeUnit{
	{"bytes", 10 * 1024, false, 0},
	{"kB", 20*1024 - 1, true, 10},
	{"MB", 20*1024 - 1, true, 20},
	{"GB", 20*1024 - 1, true, 30},
	{"TB", 20*1024 - 1, true, 40},
	{"PB", 20*1024 - 1, true, 50},
}

// SizePretty is pg_size_pretty(bigint).
func SizePretty(size int64) string {
	for i, u := range sizeUnits {
		abs := size
		if abs < 0 {
			abs = -abs
		}
		if abs < u.limit || i == len(sizeUnits)-1 {
			if u.round {
				size = halfRounded(size)
			}
			return strconv.FormatInt(size, 10) + " " + u.name
		}
		next := sizeUnits[i+1]
		bits := next.bits - u.bits
		if next.round {
			bits--
		}
		if u.round {
			bits++
		}
		size /= int64(1) << bits
	}
	return ""
}

func halfRounded(x int64) int64 {
	if x < 0 {
		return (x - 1) / 2
	}
	return (x + 1) / 2
}

func registerSize() {
	exec.Register(&exec.Func{Name: "pg_size_pretty", Args: []uint32{exec.OIDInt8}, Ret: exec.OIDText, Strict: true, Immutable: true,
		Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DText(SizePretty(a[0].I)), nil }})
}
