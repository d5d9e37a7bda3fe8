package exec

import "sort"

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
type Aggregate struct {
	In   Plan
	Keys []Expr
	Aggs []*AggCall
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
	in, err := p.In.Open(env)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	table := newKeyTable(len(p.Keys))
	var groups []*aggGroup
	key := make([]Datum, len(p.Keys))
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
		for i, k := range p.Keys {
			if key[i], err = k.Eval(env, row); err != nil {
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
	if len(groups) == 0 && len(p.Keys) == 0 {
		groups = append(groups, p.newGroup())
		table.add(0, nil)
	}
	out := make([]Row, len(groups))
	for gi, g := range groups {
		row := make(Row, len(p.Keys)+len(p.Aggs))
		copy(row, table.key(gi))
		for ai, c := range p.Aggs {
			if err := c.feedBuffered(env, g.accs[ai], g.bufs[ai]); err != nil {
				return nil, err
			}
			if row[len(p.Keys)+ai], err = g.accs[ai].Result(env); err != nil {
				return nil, err
			}
		}
		out[gi] = row
	}
	return &bufferedRows{rows: out}, nil
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
	sort.SliceStable(rows, func(i, j int) bool { return compareRows(rows[i], rows[j], keys) < 0 })
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
