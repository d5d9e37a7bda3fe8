package exec

import (
	"slices"
)

// AggCall is one aggregate call of an Aggregate: sum(DISTINCT x) FILTER
// (WHERE y > 0), string_agg(s, ',' ORDER BY s).
type AggCall struct {
	Func     *AggFunc
	ArgTypes []T
	Args     []Expr // over the input row; none for count(*)
	Distinct bool
	Filter   Expr // nil: every row
	// Order sorts the rows of a group before they reach the aggregate;
	// OrderKeys index Order.
	Order     []Expr
	OrderKeys []SortKey
	// StateFrom, when set, is 1 + the index of the earlier call of the
	// same Aggregate whose transition state this one shares (the same
	// Func.Transition over the same input): this call only finishes it.
	StateFrom int
}

// T returns the call's result type.
func (c *AggCall) T() T { return c.Func.resultType(c.ArgTypes) }

// Aggregate groups its input by Keys and computes Aggs over each group:
// its rows are the key values, then the aggregate results. Without keys
// it returns exactly one row, even for no input. Groups come out in the
// order their first rows came in. It holds every group in memory (hash
// aggregation).
//
// TODO(spill): spill groups to disk past a memory budget.
//
// With Sets (GROUP BY ROLLUP, CUBE, GROUPING SETS), it groups the input
// once per set, by the keys the set names; a row of a set holds NULL in
// the other keys' columns and, after the aggregates, the set's number
// (for GROUPING, see GroupingFunc). A set without keys gives one row,
// even for no input.
type Aggregate struct {
	In   Plan
	Keys []Expr
	Aggs []*AggCall
	Sets [][]int // the key numbers of each grouping set; nil: one set of every key
	Cols []ResultColumn
}

func (p *Aggregate) Columns() []ResultColumn { return p.Cols }

// aggGroup is the state of one group.
type aggGroup struct {
	accs []Accumulator
	// bufs keeps, for calls with DISTINCT or ORDER BY, the arguments (then
	// the ORDER BY values) of the group's rows, to sort before feeding.
	bufs [][]Row
}

func (p *Aggregate) Open(env *Env) (Rows, error) {
	if p.Sets == nil {
		in, err := p.In.Open(env)
		if err != nil {
			return nil, err
		}
		defer in.Close()
		out, err := p.pass(env, in, nil)
		if err != nil {
			return nil, err
		}
		return &bufferedRows{rows: out}, nil
	}
	// One pass over the input per grouping set.
	input, err := drain(env, p.In)
	if err != nil {
		return nil, err
	}
	var out []Row
	for si, set := range p.Sets {
		rows, err := p.pass(env, &bufferedRows{rows: input}, set)
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			out = append(out, append(row, DInt(int64(si))))
		}
	}
	return &bufferedRows{rows: out}, nil
}

// pass groups in's rows by the keys numbered in set (every key when set
// is nil) and returns a row per group: the keys (NULL where set leaves
// them out) and the aggregates' results, with room for one more column.
func (p *Aggregate) pass(env *Env, in Rows, set []int) ([]Row, error) {
	keyIdx := set
	if keyIdx == nil {
		keyIdx = make([]int, len(p.Keys))
		for i := range keyIdx {
			keyIdx[i] = i
		}
	}
	table := newKeyTable(len(keyIdx))
	var groups []*aggGroup
	key := make([]Datum, len(keyIdx))
	var args []Datum
	var buf []byte
	for {
		row, err := in.Next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			break
		}
		for i, k := range keyIdx {
			if key[i], err = p.Keys[k].Eval(env, row); err != nil {
				return nil, err
			}
		}
		var h uint64
		h, buf = hashDatums(buf, key)
		gi := table.first(h, key)
		if gi < 0 {
			if err := env.hold(key); err != nil {
				return nil, err
			}
			gi = table.add(h, key)
			groups = append(groups, p.newGroup())
		}
		g := groups[gi]
		for ai, c := range p.Aggs {
			if c.StateFrom > 0 {
				continue // the call it shares the state of is fed
			}
			if c.Filter != nil {
				ok, err := isTrue(env, c.Filter, row)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
			}
			args = args[:0]
			for _, a := range c.Args {
				d, err := a.Eval(env, row)
				if err != nil {
					return nil, err
				}
				args = append(args, d)
			}
			if c.Func.skips(args) {
				continue
			}
			if !c.Distinct && len(c.Order) == 0 {
				if err := g.accs[ai].Add(env, args); err != nil {
					return nil, err
				}
				continue
			}
			kept := make(Row, len(args), len(args)+len(c.Order))
			copy(kept, args)
			for _, o := range c.Order {
				d, err := o.Eval(env, row)
				if err != nil {
					return nil, err
				}
				kept = append(kept, d)
			}
			g.bufs[ai] = append(g.bufs[ai], kept)
		}
	}
	if len(groups) == 0 && len(keyIdx) == 0 {
		groups = append(groups, p.newGroup())
		table.add(0, nil)
	}
	out := make([]Row, len(groups))
	for gi, g := range groups {
		row := make(Row, len(p.Keys)+len(p.Aggs), len(p.Keys)+len(p.Aggs)+1)
		for i, k := range keyIdx {
			row[k] = table.key(gi)[i]
		}
		for ai, c := range p.Aggs {
			if err := c.feedBuffered(env, g.accs[ai], g.bufs[ai]); err != nil {
				return nil, err
			}
			var err error
			if row[len(p.Keys)+ai], err = g.accs[ai].Result(env); err != nil {
				return nil, err
			}
		}
		out[gi] = row
	}
	return out, nil
}

func (p *Aggregate) newGroup() *aggGroup {
	g := &aggGroup{accs: make([]Accumulator, len(p.Aggs)), bufs: make([][]Row, len(p.Aggs))}
	for i, c := range p.Aggs {
		if c.StateFrom > 0 {
			g.accs[i] = c.Func.Share(g.accs[c.StateFrom-1])
			continue
		}
		g.accs[i] = c.Func.New(c.ArgTypes)
	}
	return g
}

// feedBuffered sorts the rows kept for a DISTINCT or ordered call, drops
// duplicates for DISTINCT, and feeds the rest to acc. DISTINCT without
// ORDER BY feeds the values in ascending order, as PostgreSQL does (it
// sorts to find the duplicates), which shows in string_agg's result.
func (c *AggCall) feedBuffered(env *Env, acc Accumulator, rows []Row) error {
	if !c.Distinct && len(c.Order) == 0 {
		return nil
	}
	nargs := len(c.Args)
	keys := make([]SortKey, 0, len(c.OrderKeys)+nargs)
	for _, k := range c.OrderKeys {
		k.Col += nargs
		keys = append(keys, k)
	}
	if c.Distinct {
		for i := 0; i < nargs; i++ {
			keys = append(keys, SortKey{Col: i})
		}
	}
	SortLikePostgres(rows, func(a, b Row) int { return CompareRows(a, b, keys) })
	var prev Row
	for _, row := range rows {
		args := row[:nargs]
		if c.Distinct && prev != nil && rowsNotDistinct(prev, args) {
			continue
		}
		prev = args
		if err := acc.Add(env, args); err != nil {
			return err
		}
	}
	return nil
}

// GroupingFunc is GROUPING(args) over the rows of an Aggregate with
// grouping sets: a bit per argument, the first the most significant, set
// when the row's grouping set leaves that key out. SetCol is the column
// of the set's number; Keys the arguments' key numbers; Sets the
// Aggregate's.
type GroupingFunc struct {
	SetCol int
	Keys   []int
	Sets   [][]int
}

func (e *GroupingFunc) Type() T { return T{OID: OIDInt4, Typmod: -1} }

func (e *GroupingFunc) Eval(env *Env, row Row) (Datum, error) {
	if e.Sets == nil {
		return DInt(0), nil // plain GROUP BY: every key is grouped
	}
	set := e.Sets[row[e.SetCol].I]
	var bits int64
	for _, k := range e.Keys {
		bits <<= 1
		if !slices.Contains(set, k) {
			bits |= 1
		}
	}
	return DInt(bits), nil
}
