package exec

import (
	"reflect"
	"time"
)

// EXPLAIN ANALYZE's instrumentation. A copy of the plan is run whose every
// node (a plan held in an exported field of type Plan or []Plan of
// another) is wrapped in instrumented, which counts its executions
// (loops), the rows they returned, and the time to their first row and to
// their end. The plan itself is never changed: prepared statements share
// it. A RecursiveUnion is wrapped but not copied, since its WorkTableScans
// find it by identity.

// nodeStats are one node's actual figures, summed over its loops.
type nodeStats struct {
	loops          int64
	rows           int64
	startup, total time.Duration
}

// instrumented runs a plan and counts what it does.
type instrumented struct {
	Plan
	stats *nodeStats
}

func (p *instrumented) Open(env *Env) (Rows, error) {
	began := time.Now()
	rows, err := p.Plan.Open(env)
	if err != nil {
		return nil, err
	}
	p.stats.loops++
	r := &instrumentedRows{in: rows, stats: p.stats, began: began}
	if c, ok := rows.(CountedRows); ok {
		return &instrumentedCountedRows{instrumentedRows: r, counted: c}, nil
	}
	return r, nil
}

type instrumentedRows struct {
	in          Rows
	stats       *nodeStats
	began       time.Time
	first, done bool
}

func (r *instrumentedRows) Next() (Row, error) {
	row, err := r.in.Next()
	if !r.first {
		r.first = true
		r.stats.startup += time.Since(r.began)
	}
	if row != nil {
		r.stats.rows++
	} else if !r.done {
		r.done = true
		r.stats.total += time.Since(r.began)
	}
	return row, err
}

func (r *instrumentedRows) Close() error {
	if !r.done {
		r.done = true
		r.stats.total += time.Since(r.began)
	}
	return r.in.Close()
}

// Key forwards the key of the row a keyed input returned (UPDATE and
// DELETE read it through their source).
func (r *instrumentedRows) Key() []byte { return r.in.(keyedRows).Key() }

type instrumentedCountedRows struct {
	*instrumentedRows
	counted CountedRows
}

func (r *instrumentedCountedRows) Affected() int64 { return r.counted.Affected() }

var (
	planType      = reflect.TypeFor[Plan]()
	planSliceType = reflect.TypeFor[[]Plan]()
)

// instrument returns a copy of p whose nodes count their work.
func (x *explainer) instrument(p Plan) Plan {
	if p == nil {
		return nil
	}
	if _, ok := p.(*RecursiveUnion); ok {
		return &instrumented{Plan: p, stats: &nodeStats{}}
	}
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return &instrumented{Plan: p, stats: &nodeStats{}}
	}
	cp := reflect.New(v.Elem().Type())
	cp.Elem().Set(v.Elem())
	s := cp.Elem()
	for i := 0; i < s.NumField(); i++ {
		f := s.Field(i)
		if !f.CanSet() {
			continue
		}
		switch f.Type() {
		case planType:
			if !f.IsNil() {
				f.Set(reflect.ValueOf(x.instrument(f.Interface().(Plan))))
			}
		case planSliceType:
			if f.Len() > 0 {
				parts := make([]Plan, f.Len())
				for j := range parts {
					parts[j] = x.instrument(f.Index(j).Interface().(Plan))
				}
				f.Set(reflect.ValueOf(parts))
			}
		}
	}
	return &instrumented{Plan: cp.Interface().(Plan), stats: &nodeStats{}}
}

// unwrapInstrumented returns the plan an instrumented one runs.
func unwrapInstrumented(p Plan) Plan {
	if w, ok := p.(*instrumented); ok {
		return w.Plan
	}
	return p
}
