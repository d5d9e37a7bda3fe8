package exec

import (
	"slices"

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

// FrameBound is one end of a frame; Offset is the row count of OffsetPreceding
// and OffsetFollowing (ROWS mode), evaluated once per partition.
type FrameBound struct {
	Kind   BoundKind
	Offset Expr
}

// Frame is the set of rows of the partition an aggregate, first_value,
// last_value and nth_value see from each row. In RANGE mode the current
// row stands for all its peers (rows equal on the ORDER BY keys).
type Frame struct {
	Rows       bool
	Start, End FrameBound
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
		for j < n && compareRows(rows[i], rows[j], r.p.OrderKeys) == 0 {
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

// frames returns each row's frame, [fs, fe] (empty when fs > fe).
func (r *windowRows) frames(n int, peerStart, peerEnd []int) ([]int, []int, error) {
	fr := r.p.Frame
	offset := func(b FrameBound, what string) (int, error) {
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
		if d.I < 0 {
			return 0, pgerr.New("22013", "frame %s offset must not be negative", what)
		}
		return int(min(d.I, int64(n)+1)), nil
	}
	so, err := offset(fr.Start, "starting")
	if err != nil {
		return nil, nil, err
	}
	eo, err := offset(fr.End, "ending")
	if err != nil {
		return nil, nil, err
	}
	fs, fe := make([]int, n), make([]int, n)
	for i := 0; i < n; i++ {
		switch fr.Start.Kind {
		case UnboundedPreceding:
			fs[i] = 0
		case OffsetPreceding:
			fs[i] = max(i-so, 0)
		case CurrentRow:
			fs[i] = i
			if !fr.Rows {
				fs[i] = peerStart[i]
			}
		case OffsetFollowing:
			fs[i] = i + so
		default:
			fs[i] = n
		}
		switch fr.End.Kind {
		case UnboundedFollowing:
			fe[i] = n - 1
		case OffsetFollowing:
			fe[i] = min(i+eo, n-1)
		case CurrentRow:
			fe[i] = i
			if !fr.Rows {
				fe[i] = peerEnd[i]
			}
		case OffsetPreceding:
			fe[i] = i - eo
		default:
			fe[i] = -1
		}
	}
	return fs, fe, nil
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
			if fs[i] > fe[i] || fs[i] >= n || fe[i] < 0 {
				continue
			}
			switch f.Kind {
			case WinFirstValue:
				out[i] = args[fs[i]][0]
			case WinLastValue:
				out[i] = args[fe[i]][0]
			default:
				nth := args[i][1]
				if nth.IsNull() {
					continue
				}
				if nth.I <= 0 {
					return pgerr.New("22016", "argument of nth_value must be greater than zero")
				}
				if j := fs[i] + int(nth.I) - 1; j <= fe[i] {
					out[i] = args[j][0]
				}
			}
		}
	case WinAgg:
		return r.evalAgg(f, rows, args, fs, fe, out)
	}
	return nil
}

// evalAgg computes an aggregate over each row's frame. A frame that
// starts at the partition's start and whose end never moves back is
// computed incrementally; others are recomputed per row.
func (r *windowRows) evalAgg(f *WinFunc, rows []Row, args [][]Datum, fs, fe []int, out []Datum) error {
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
	incremental := true
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
			if keep[j] {
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
