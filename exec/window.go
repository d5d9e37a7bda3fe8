package exec

import (
	"errors"
	"math"
	"slices"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// WinKind is a window function.
type WinKind uint8

const (
	WinAgg WinKind = iota // an aggregate over the frame
	WinRowNumber
	WinRank
	WinDenseRank
	WinPercentRank
	WinCumeDist
	WinNtile
	WinLag
	WinLead
	WinFirstValue
	WinLastValue
	WinNthValue
)

// WinFunc is one window function call of a Window.
type WinFunc struct {
	Kind     WinKind
	Agg      *AggFunc // WinAgg
	ArgTypes []T
	Args     []Expr // over the input row
	Filter   Expr   // WinAgg: nil for every row
	T        T
}

// BoundKind is one end of a window frame.
type BoundKind uint8

const (
	UnboundedPreceding BoundKind = iota
	OffsetPreceding
	CurrentRow
	OffsetFollowing
	UnboundedFollowing
)

// FrameBound is one end of a frame. Offset is the offset of
// OffsetPreceding and OffsetFollowing, evaluated once per partition: a
// count of rows (ROWS) or peer groups (GROUPS), and in RANGE mode the
// distance of ORDER BY values, checked there only for sign; Value is then
// the bound itself for a row, its ORDER BY value minus or plus Offset as
// the planner built it (by the key's operators), evaluated per row.
type FrameBound struct {
	Kind   BoundKind
	Offset Expr
	Value  Expr
}

// FrameMode says what a frame's offsets count.
type FrameMode uint8

const (
	FrameRange  FrameMode = iota // values of the one ORDER BY key; the current row stands for its peers
	FrameRows                    // rows
	FrameGroups                  // peer groups (rows equal on the ORDER BY keys)
)

// FrameExclude is a frame's EXCLUDE clause: the rows around the current
// one that the frame leaves out.
type FrameExclude uint8

const (
	ExcludeNoOthers   FrameExclude = iota
	ExcludeCurrentRow              // the current row
	ExcludeGroup                   // the current row and its peers
	ExcludeTies                    // the current row's peers, not itself
)

// Frame is the set of rows of the partition an aggregate, first_value,
// last_value and nth_value see from each row: the rows from Start to End,
// without those Exclude names.
type Frame struct {
	Mode       FrameMode
	Start, End FrameBound
	Exclude    FrameExclude
	// RangeKey, in RANGE mode with an offset, is the ORDER BY value of a
	// row as the bounds' Values are typed (a date as a timestamp, when
	// date + interval is one), for comparing the two.
	RangeKey Expr
}

// Window computes window functions over its input, which is sorted by
// PartitionCols, then by OrderKeys: each row comes out followed by one
// value per function. It holds one partition in memory at a time.
type Window struct {
	In            Plan
	PartitionCols []int
	OrderKeys     []SortKey
	Frame         Frame
	Funcs         []*WinFunc
	Cols          []ResultColumn
}

func (p *Window) Columns() []ResultColumn { return p.Cols }

func (p *Window) Open(env *Env) (Rows, error) {
	in, err := p.In.Open(env)
	if err != nil {
		return nil, err
	}
	return &windowRows{p: p, env: env, in: in, w: len(p.In.Columns())}, nil
}

type windowRows struct {
	p    *Window
	env  *Env
	in   Rows
	w    int
	next Row // the first row of the next partition, read ahead
	done bool

	part []Row // the current partition's rows, with the results appended
	i    int
}

func (r *windowRows) Next() (Row, error) {
	for r.i >= len(r.part) {
		if r.done {
			return nil, nil
		}
		if err := r.readPartition(); err != nil {
			return nil, err
		}
	}
	r.i++
	return r.part[r.i-1], nil
}

func (r *windowRows) Close() error { return r.in.Close() }

// readPartition reads the next partition and computes its results.
func (r *windowRows) readPartition() error {
	r.part, r.i = r.part[:0], 0
	if r.next != nil {
		r.part = append(r.part, r.next)
		r.next = nil
	}
	for {
		row, err := r.in.Next()
		if err != nil {
			return err
		}
		if row == nil {
			r.done = true
			break
		}
		if err := r.env.hold(row); err != nil {
			return err
		}
		row = slices.Grow(slices.Clone(row), len(r.p.Funcs))
		if len(r.part) > 0 && !r.samePartition(r.part[0], row) {
			r.next = row
			break
		}
		r.part = append(r.part, row)
	}
	if len(r.part) == 0 {
		return nil
	}
	return r.compute()
}

func (r *windowRows) samePartition(a, b Row) bool {
	for _, c := range r.p.PartitionCols {
		if !NotDistinct(a[c], b[c]) {
			return false
		}
	}
	return true
}

// compute appends every function's value to each row of the partition.
func (r *windowRows) compute() error {
	rows := r.part
	n := len(rows)
	// Peer groups: rows equal on the ORDER BY keys.
	peerStart, peerEnd := make([]int, n), make([]int, n)
	for i := 0; i < n; {
		j := i + 1
		for j < n && CompareRows(rows[i], rows[j], r.p.OrderKeys) == 0 {
			j++
		}
		for k := i; k < j; k++ {
			peerStart[k], peerEnd[k] = i, j-1
		}
		i = j
	}
	fs, fe, err := r.frames(n, peerStart, peerEnd)
	if err != nil {
		return err
	}
	out := make([]Datum, n)
	for _, f := range r.p.Funcs {
		args := make([][]Datum, n)
		for i, row := range rows {
			args[i] = make([]Datum, len(f.Args))
			for j, a := range f.Args {
				if args[i][j], err = a.Eval(r.env, row[:r.w]); err != nil {
					return err
				}
			}
		}
		if err := r.eval(f, rows, args, peerStart, peerEnd, fs, fe, out); err != nil {
			return err
		}
		for i := range rows {
			rows[i] = append(rows[i], out[i])
		}
	}
	return nil
}

// frames returns each row's frame, [fs, fe] (empty when fs > fe), before
// any exclusion.
func (r *windowRows) frames(n int, peerStart, peerEnd []int) ([]int, []int, error) {
	fr := r.p.Frame
	offset := func(b FrameBound, what string) (int64, error) {
		if b.Offset == nil {
			return 0, nil
		}
		d, err := b.Offset.Eval(r.env, r.part[0][:r.w])
		if err != nil {
			return 0, err
		}
		if d.IsNull() {
			return 0, pgerr.New(pgerr.NullValueNotAllowed, "frame %s offset must not be null", what)
		}
		if Compare(d, zeroLike(d)) < 0 || notANumber(d) {
			if fr.Mode != FrameRange {
				return 0, pgerr.New(pgerr.InvalidPrecedingFollowing, "frame %s offset must not be negative", what)
			}
			return 0, pgerr.New(pgerr.InvalidPrecedingFollowing, "invalid preceding or following size in window function")
		}
		return min(d.I, int64(n)+1), nil
	}
	so, err := offset(fr.Start, "starting")
	if err != nil {
		return nil, nil, err
	}
	eo, err := offset(fr.End, "ending")
	if err != nil {
		return nil, nil, err
	}
	// Peer groups by number, for GROUPS offsets.
	group := make([]int, n)
	var groupStart, groupEnd []int
	for i := 0; i < n; i++ {
		if peerStart[i] == i {
			groupStart, groupEnd = append(groupStart, i), append(groupEnd, peerEnd[i])
		}
		group[i] = len(groupStart) - 1
	}
	groups := len(groupStart)
	var keys []Datum // RANGE offsets: the rows' ORDER BY values, as the bounds are typed
	if fr.Mode == FrameRange && fr.RangeKey != nil {
		keys = make([]Datum, n)
		for j, row := range r.part {
			if keys[j], err = fr.RangeKey.Eval(r.env, row[:r.w]); err != nil {
				return nil, nil, err
			}
		}
	}
	fs, fe := make([]int, n), make([]int, n)
	for i := 0; i < n; i++ {
		switch fr.Start.Kind {
		case UnboundedPreceding:
			fs[i] = 0
		case CurrentRow:
			fs[i] = i
			if fr.Mode != FrameRows {
				fs[i] = peerStart[i]
			}
		case OffsetPreceding, OffsetFollowing:
			off := int(so)
			if fr.Start.Kind == OffsetPreceding {
				off = -off
			}
			switch fr.Mode {
			case FrameRows:
				fs[i] = max(i+off, 0)
			case FrameGroups:
				if g := group[i] + off; g < groups {
					fs[i] = groupStart[max(g, 0)]
				} else {
					fs[i] = n
				}
			default:
				if fs[i], err = r.rangeBound(fr.Start, i, keys, peerStart, peerEnd, true); err != nil {
					return nil, nil, err
				}
			}
		default:
			fs[i] = n
		}
		switch fr.End.Kind {
		case UnboundedFollowing:
			fe[i] = n - 1
		case CurrentRow:
			fe[i] = i
			if fr.Mode != FrameRows {
				fe[i] = peerEnd[i]
			}
		case OffsetPreceding, OffsetFollowing:
			off := int(eo)
			if fr.End.Kind == OffsetPreceding {
				off = -off
			}
			switch fr.Mode {
			case FrameRows:
				fe[i] = min(i+off, n-1)
			case FrameGroups:
				if g := group[i] + off; g >= 0 {
					fe[i] = groupEnd[min(g, groups-1)]
				} else {
					fe[i] = -1
				}
			default:
				if fe[i], err = r.rangeBound(fr.End, i, keys, peerStart, peerEnd, false); err != nil {
					return nil, nil, err
				}
			}
		default:
			fe[i] = -1
		}
	}
	return fs, fe, nil
}

// rangeBound finds, in RANGE mode with an offset, row i's frame start
// (the first row whose ORDER BY value is at or beyond the bound) or end
// (the last such row before it). A row whose value is NULL has its peers
// (the other NULLs) as the bound's rows, as in PostgreSQL; NULLs are
// beyond any bound of a non-NULL value.
func (r *windowRows) rangeBound(b FrameBound, i int, keys []Datum, peerStart, peerEnd []int, start bool) (int, error) {
	desc := r.p.OrderKeys[0].Desc
	if keys[i].IsNull() {
		if start {
			return peerStart[i], nil
		}
		return peerEnd[i], nil
	}
	// A bound past the key type's range (x + offset overflows) is beyond
	// every value on its side, as PostgreSQL's in_range functions have it.
	past := 0
	v, err := b.Value.Eval(r.env, r.part[i][:r.w])
	if e := (*pgerr.Error)(nil); errors.As(err, &e) && e.Code == pgerr.NumericValueOutOfRange {
		past, err = -1, nil
		if b.Kind == OffsetFollowing {
			past = 1
		}
	}
	if err != nil {
		return 0, err
	}
	// An infinite offset from an infinite value (+inf - inf, -inf + inf)
	// gives NaN: PostgreSQL's in_range puts every value in such a frame,
	// but NaN itself, which sorts above all, only at its start.
	everything := notANumber(v) && !notANumber(keys[i])
	// within reports whether row j's value is on the frame's side of v.
	within := func(j int) bool {
		x := keys[j]
		if x.IsNull() {
			return false
		}
		if everything {
			return start || !notANumber(x)
		}
		c := -past // compared with a bound past the range
		if past == 0 {
			if c = Compare(x, v); desc {
				c = -c
			}
		}
		if start {
			return c >= 0
		}
		return c <= 0
	}
	n := len(keys)
	if start {
		for j := 0; j < n; j++ {
			if within(j) {
				return j, nil
			}
		}
		return n, nil
	}
	for j := n - 1; j >= 0; j-- {
		if within(j) {
			return j, nil
		}
	}
	return -1, nil
}

// notANumber reports whether d is a float or numeric NaN.
func notANumber(d Datum) bool {
	switch d.Kind {
	case KindFloat:
		return math.IsNaN(d.F)
	case KindNumeric:
		n, ok := d.X.(*apd.Decimal)
		return ok && n.Form == apd.NaN
	}
	return false
}

// zeroLike returns the zero of d's kind, to check an offset's sign.
func zeroLike(d Datum) Datum {
	switch d.Kind {
	case KindFloat:
		return DFloat(0)
	case KindNumeric:
		return DNumeric(new(apd.Decimal))
	case KindInterval:
		return DInterval(Interval{})
	}
	return DInt(0)
}

// excluded reports whether row j is left out of row i's frame by EXCLUDE.
func (r *windowRows) excluded(i, j int, peerStart, peerEnd []int) bool {
	switch r.p.Frame.Exclude {
	case ExcludeCurrentRow:
		return j == i
	case ExcludeGroup:
		return j >= peerStart[i] && j <= peerEnd[i]
	case ExcludeTies:
		return j != i && j >= peerStart[i] && j <= peerEnd[i]
	}
	return false
}

// eval computes one function over the partition into out.
func (r *windowRows) eval(f *WinFunc, rows []Row, args [][]Datum, peerStart, peerEnd, fs, fe []int, out []Datum) error {
	n := len(rows)
	switch f.Kind {
	case WinRowNumber:
		for i := range out {
			out[i] = DInt(int64(i + 1))
		}
	case WinRank:
		for i := range out {
			out[i] = DInt(int64(peerStart[i] + 1))
		}
	case WinDenseRank:
		rank := int64(0)
		for i := range out {
			if peerStart[i] == i {
				rank++
			}
			out[i] = DInt(rank)
		}
	case WinPercentRank:
		for i := range out {
			v := 0.0
			if n > 1 {
				v = float64(peerStart[i]) / float64(n-1)
			}
			out[i] = DFloat(v)
		}
	case WinCumeDist:
		for i := range out {
			out[i] = DFloat(float64(peerEnd[i]+1) / float64(n))
		}
	case WinNtile:
		k := args[0][0]
		if k.IsNull() {
			for i := range out {
				out[i] = Null
			}
			return nil
		}
		if k.I <= 0 {
			return pgerr.New("22014", "argument of ntile must be greater than zero")
		}
		buckets := int(min(k.I, int64(n)))
		per, extra := n/buckets, n%buckets
		b, left := 1, per
		if extra > 0 {
			left++
		}
		for i := range out {
			if left == 0 {
				b++
				left = per
				if b <= extra {
					left++
				}
			}
			out[i] = DInt(int64(b))
			left--
		}
	case WinLag, WinLead:
		for i := range out {
			off := int64(1)
			if len(args[i]) > 1 {
				if args[i][1].IsNull() {
					out[i] = Null
					continue
				}
				off = args[i][1].I
			}
			j := int64(i) - off
			if f.Kind == WinLead {
				j = int64(i) + off
			}
			switch {
			case j >= 0 && j < int64(n):
				out[i] = args[j][0]
			case len(args[i]) > 2:
				out[i] = args[i][2]
			default:
				out[i] = Null
			}
		}
	case WinFirstValue, WinLastValue, WinNthValue:
		for i := range out {
			out[i] = Null
			lo, hi := max(fs[i], 0), min(fe[i], n-1)
			if lo > hi {
				continue
			}
			if f.Kind == WinNthValue {
				nth := args[i][1]
				if nth.IsNull() {
					continue
				}
				if nth.I <= 0 {
					return pgerr.New("22016", "argument of nth_value must be greater than zero")
				}
			}
			// The wanted row among those the exclusion leaves, counted
			// from the frame's start (from its end for last_value).
			want, step, j := int64(1), 1, lo
			switch f.Kind {
			case WinLastValue:
				step, j = -1, hi
			case WinNthValue:
				want = args[i][1].I
			}
			for ; j >= lo && j <= hi; j += step {
				if r.excluded(i, j, peerStart, peerEnd) {
					continue
				}
				if want--; want == 0 {
					out[i] = args[j][0]
					break
				}
			}
		}
	case WinAgg:
		return r.evalAgg(f, rows, args, peerStart, peerEnd, fs, fe, out)
	}
	return nil
}

// evalAgg computes an aggregate over each row's frame. A frame that
// starts at the partition's start and whose end never moves back is
// computed incrementally; others are recomputed per row.
func (r *windowRows) evalAgg(f *WinFunc, rows []Row, args [][]Datum, peerStart, peerEnd, fs, fe []int, out []Datum) error {
	n := len(rows)
	keep := make([]bool, n)
	for i, row := range rows {
		keep[i] = !f.Agg.skips(args[i])
		if keep[i] && f.Filter != nil {
			ok, err := isTrue(r.env, f.Filter, row[:r.w])
			if err != nil {
				return err
			}
			keep[i] = ok
		}
	}
	incremental := r.p.Frame.Exclude == ExcludeNoOthers
	for i := 0; i < n; i++ {
		incremental = incremental && fs[i] == 0 && (i == 0 || fe[i] >= fe[i-1])
	}
	if incremental {
		acc := f.Agg.New(f.ArgTypes)
		fed := 0
		for i := 0; i < n; i++ {
			for ; fed <= fe[i] && fed < n; fed++ {
				if keep[fed] {
					if err := acc.Add(r.env, args[fed]); err != nil {
						return err
					}
				}
			}
			var err error
			if out[i], err = acc.Result(r.env); err != nil {
				return err
			}
		}
		return nil
	}
	for i := 0; i < n; i++ {
		acc := f.Agg.New(f.ArgTypes)
		for j := max(fs[i], 0); j <= fe[i] && j < n; j++ {
			if keep[j] && !r.excluded(i, j, peerStart, peerEnd) {
				if err := acc.Add(r.env, args[j]); err != nil {
					return err
				}
			}
		}
		var err error
		if out[i], err = acc.Result(r.env); err != nil {
			return err
		}
	}
	return nil
}
