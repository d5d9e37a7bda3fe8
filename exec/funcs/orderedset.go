package funcs

import (
	"math"
	"slices"
	"strconv"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// Ordered-set aggregates: percentile_cont, percentile_disc and mode, as
// agg(direct) WITHIN GROUP (ORDER BY value). The planner passes the
// sorted value first and the direct argument (the fraction, the same for
// every row of a group) after it, and orders the rows by the WITHIN
// GROUP clause; a row whose value is NULL is left out, as in PostgreSQL.

// orderedSetAcc collects a group's values, in order, and the direct
// argument of its first row.
type orderedSetAcc struct {
	values []exec.Datum
	direct exec.Datum
	seen   bool
	final  func(env *exec.Env, values []exec.Datum, direct exec.Datum) (exec.Datum, error)
}

func (a *orderedSetAcc) Add(_ *exec.Env, args []exec.Datum) error {
	if !a.seen && len(args) > 1 {
		a.direct, a.seen = args[1], true
	}
	a.values = append(a.values, args[0])
	return nil
}

func (a *orderedSetAcc) Result(env *exec.Env) (exec.Datum, error) {
	if len(a.values) == 0 {
		return exec.Null, nil
	}
	return a.final(env, a.values, a.direct)
}

// checkFraction fails unless p is a percentile.
func checkFraction(p float64) error {
	if p < 0 || p > 1 || math.IsNaN(p) {
		return pgerr.New(pgerr.NumericValueOutOfRange, "percentile value %s is not between 0 and 1", strconv.FormatFloat(p, 'g', -1, 64))
	}
	return nil
}

// fractions returns the percentiles of a direct argument, one or an
// array (whose NULLs give NULLs), and whether it was an array.
func fractions(direct exec.Datum, array bool) ([]exec.Datum, error) {
	ps := []exec.Datum{direct}
	if array {
		ps = direct.Array().Elems
	}
	for _, p := range ps {
		if !p.IsNull() {
			if err := checkFraction(p.F); err != nil {
				return nil, err
			}
		}
	}
	return ps, nil
}

// percentileCont interpolates between the two values around p, as
// PostgreSQL's percentile_cont: floats, or intervals.
func percentileCont(values []exec.Datum, p float64) (exec.Datum, error) {
	pos := p * float64(len(values)-1)
	lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
	a, b := values[lo], values[hi]
	frac := pos - float64(lo)
	if a.Kind == exec.KindInterval {
		if lo == hi {
			return a, nil
		}
		diff, err := addIntervals(b.Interval(), a.Interval(), -1)
		if err != nil {
			return exec.Null, err
		}
		step, err := intervalMul(diff, frac)
		if err != nil {
			return exec.Null, err
		}
		r, err := addIntervals(a.Interval(), step, 1)
		if err != nil {
			return exec.Null, err
		}
		return exec.DInterval(r), nil
	}
	if lo == hi {
		return exec.DFloat(a.F), nil
	}
	return exec.DFloat(a.F + frac*(b.F-a.F)), nil
}

// percentileDisc is the first value at or past p of the way through.
func percentileDisc(values []exec.Datum, p float64) exec.Datum {
	row := int(math.Ceil(p * float64(len(values))))
	if row < 1 {
		row = 1
	}
	return values[row-1]
}

func registerOrderedSetAggregates() {
	F8, IV := exec.OIDFloat8, exec.OIDInterval
	F8A := exec.ArrayType(exec.TFloat8).OID
	IVA := exec.ArrayType(exec.TInterval).OID
	percentile := func(cont, array bool, elem uint32) func([]exec.T) exec.Accumulator {
		return func([]exec.T) exec.Accumulator {
			return &orderedSetAcc{final: func(_ *exec.Env, values []exec.Datum, direct exec.Datum) (exec.Datum, error) {
				if direct.IsNull() {
					return exec.Null, nil
				}
				ps, err := fractions(direct, array)
				if err != nil {
					return exec.Null, err
				}
				out := make([]exec.Datum, len(ps))
				for i, p := range ps {
					switch {
					case p.IsNull():
						out[i] = exec.Null
					case cont:
						if out[i], err = percentileCont(values, p.F); err != nil {
							return exec.Null, err
						}
					default:
						out[i] = percentileDisc(values, p.F)
					}
				}
				if !array {
					return out[0], nil
				}
				return exec.NewArray(elem, out), nil
			}}
		}
	}
	exec.RegisterAgg(
		&exec.AggFunc{Name: "percentile_cont", Args: []uint32{F8, F8}, Ret: F8, OrderedSet: true, New: percentile(true, false, F8)},
		&exec.AggFunc{Name: "percentile_cont", Args: []uint32{IV, F8}, Ret: IV, OrderedSet: true, New: percentile(true, false, IV)},
		&exec.AggFunc{Name: "percentile_cont", Args: []uint32{F8, F8A}, Ret: F8A, OrderedSet: true, New: percentile(true, true, F8)},
		&exec.AggFunc{Name: "percentile_cont", Args: []uint32{IV, F8A}, Ret: IVA, OrderedSet: true, New: percentile(true, true, IV)},
		&exec.AggFunc{Name: "percentile_disc", Args: []uint32{exec.OIDAny, F8}, OrderedSet: true,
			New: func(ts []exec.T) exec.Accumulator { return percentile(false, false, ts[0].OID)(ts) }},
		&exec.AggFunc{Name: "percentile_disc", Args: []uint32{exec.OIDAny, F8A}, Ret: exec.OIDAnyArray, OrderedSet: true,
			New: func(ts []exec.T) exec.Accumulator { return percentile(false, true, ts[0].OID)(ts) }},
		&exec.AggFunc{Name: "mode", Args: []uint32{exec.OIDAny}, OrderedSet: true, New: func([]exec.T) exec.Accumulator {
			return &orderedSetAcc{final: func(_ *exec.Env, values []exec.Datum, _ exec.Datum) (exec.Datum, error) {
				// The values are sorted: the longest run, the first of
				// equal ones.
				best, bestN, n := values[0], 0, 0
				for i, v := range values {
					if i > 0 && exec.Compare(v, values[i-1]) == 0 {
						n++
					} else {
						n = 1
					}
					if n > bestN {
						best, bestN = v, n
					}
				}
				return best, nil
			}}
		}},
	)
}

// The hypothetical-set aggregates rank, dense_rank, percent_rank and
// cume_dist, as agg(direct, ...) WITHIN GROUP (ORDER BY value, ...): where
// the row of the direct arguments would rank were it added to the group,
// under the WITHIN GROUP ordering. NULLs take part, placed as the
// ordering places them.
var hypotheticalResults = map[string]uint32{
	"rank":         exec.OIDInt8,
	"dense_rank":   exec.OIDInt8,
	"percent_rank": exec.OIDFloat8,
	"cume_dist":    exec.OIDFloat8,
}

// IsHypothetical reports whether name is a hypothetical-set aggregate.
func IsHypothetical(name string) bool {
	_, ok := hypotheticalResults[name]
	return ok
}

// HypotheticalAgg returns the hypothetical-set aggregate name ordering by
// keys, whose Cols index the ordered values. Its arguments are the
// ordered values of a row, then as many direct arguments; the planner
// sorts the rows by the same keys.
func HypotheticalAgg(name string, keys []exec.SortKey) *exec.AggFunc {
	return &exec.AggFunc{
		Name:       name,
		Ret:        hypotheticalResults[name],
		KeepNulls:  true,
		OrderedSet: true,
		New: func([]exec.T) exec.Accumulator {
			return &hypotheticalAcc{name: name, keys: keys}
		},
	}
}

// hypotheticalAcc counts a group's rows against the hypothetical one:
// those sorting before it (and their distinct values, for dense_rank, the
// rows coming in sorted) and its peers.
type hypotheticalAcc struct {
	name           string
	keys           []exec.SortKey
	hypothetical   exec.Row
	last           exec.Row // the last row before the hypothetical one
	rows, before   int64
	distinctBefore int64
	peers          int64
}

func (a *hypotheticalAcc) Add(_ *exec.Env, args []exec.Datum) error {
	n := len(a.keys)
	row := exec.Row(args[:n])
	if a.hypothetical == nil {
		a.hypothetical = slices.Clone(exec.Row(args[n:]))
	}
	a.rows++
	switch c := exec.CompareRows(row, a.hypothetical, a.keys); {
	case c < 0:
		a.before++
		if a.last == nil || exec.CompareRows(a.last, row, a.keys) != 0 {
			a.distinctBefore++
		}
		a.last = append(a.last[:0], row...) // reused: one row per group
	case c == 0:
		a.peers++
	}
	return nil
}

func (a *hypotheticalAcc) Result(*exec.Env) (exec.Datum, error) {
	switch a.name {
	case "rank":
		return exec.DInt(a.before + 1), nil
	case "dense_rank":
		return exec.DInt(a.distinctBefore + 1), nil
	case "percent_rank":
		if a.rows == 0 {
			return exec.DFloat(0), nil
		}
		return exec.DFloat(float64(a.before) / float64(a.rows)), nil
	}
	return exec.DFloat(float64(a.before+a.peers+1) / float64(a.rows+1)), nil
}
