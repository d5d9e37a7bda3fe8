package exec

import (
	"context"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// Series is generate_series(start, stop [, step]) in FROM, over int4,
// int8 or numeric: start, start+step, ... while not past stop. Its
// arguments are evaluated once per Open (a LATERAL series is opened again
// for each row to its left). With Ordinality, a bigint row number
// follows the value.
type Series struct {
	Start, Stop, Step Expr // Step nil: 1
	Ordinality        bool
	Cols              []ResultColumn
}

func (p *Series) Columns() []ResultColumn { return p.Cols }

func (p *Series) Open(env *Env) (Rows, error) {
	var args [3]Datum
	args[2] = DInt(1)
	for i, e := range []Expr{p.Start, p.Stop, p.Step} {
		if e == nil {
			continue
		}
		d, err := e.Eval(env, nil)
		if err != nil {
			return nil, err
		}
		if d.IsNull() {
			return &bufferedRows{}, nil
		}
		args[i] = d
	}
	r := &seriesRows{ctx: env.Ctx, p: p, out: make(Row, len(p.Cols))}
	if args[0].Kind == KindNumeric {
		if args[2].Kind == KindInt {
			args[2] = DNumeric(apd.New(args[2].I, 0))
		}
		for i, what := range []string{"start value", "stop value", "step size"} {
			switch args[i].Numeric().Form {
			case apd.NaN:
				return nil, pgerr.New(pgerr.InvalidParameterValue, "%s cannot be NaN", what)
			case apd.Infinite:
				return nil, pgerr.New(pgerr.InvalidParameterValue, "%s cannot be infinity", what)
			}
		}
		if args[2].Numeric().IsZero() {
			return nil, errZeroStep
		}
		r.num = true
		r.ncur.Set(args[0].Numeric())
		r.nstop, r.nstep = args[1].Numeric(), args[2].Numeric()
		return r, nil
	}
	if args[2].I == 0 {
		return nil, errZeroStep
	}
	r.cur, r.stop, r.step = args[0].I, args[1].I, args[2].I
	return r, nil
}

var errZeroStep = pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")

type seriesRows struct {
	ctx             context.Context
	p               *Series
	out             Row
	n               int64
	done            bool
	cur, stop, step int64
	num             bool
	ncur            apd.Decimal
	nstop, nstep    *apd.Decimal
}

func (r *seriesRows) Next() (Row, error) {
	if r.done {
		return nil, nil
	}
	if r.num {
		c := r.ncur.Cmp(r.nstop)
		if (r.nstep.Negative && c < 0) || (!r.nstep.Negative && c > 0) {
			r.done = true
			return nil, nil
		}
		v := new(apd.Decimal).Set(&r.ncur)
		r.out[0] = DNumeric(v)
		if _, err := NumericContext.Add(&r.ncur, &r.ncur, r.nstep); err != nil {
			return nil, err
		}
	} else {
		if (r.step > 0 && r.cur > r.stop) || (r.step < 0 && r.cur < r.stop) {
			r.done = true
			return nil, nil
		}
		r.out[0] = DInt(r.cur)
		next := r.cur + r.step
		if (r.step > 0 && next < r.cur) || (r.step < 0 && next > r.cur) {
			r.done = true // the next value would overflow: this was the last
		}
		r.cur = next
	}
	r.n++
	if r.n%CancelCheckRows == 0 {
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
	}
	if r.p.Ordinality {
		r.out[1] = DInt(r.n)
	}
	return r.out, nil
}

func (r *seriesRows) Close() error { return nil }
