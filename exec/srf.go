package exec

import (
	"maps"
	"slices"
)

// Set-returning functions (json_each, regexp_matches, unnest(text[]) and
// the rest of the library's, in exec/funcs; the planner's; generate_series
// over numbers is the Series plan). Each is an overload in a registry of
// its own, resolved like any function, beside the function that makes its
// rows for the argument types; a FuncScan runs it, in FROM or, for one
// column, under a ProjectSet in a select list.

// SRF is the implementation of a set-returning function: its result
// columns and the rows for one set of arguments.
type SRF struct {
	Cols []ResultColumn
	Rows func(env *Env, args []Datum) ([]Row, error)
	// Iter, instead of Rows, yields the rows one at a time (nil at the
	// end), for series that may not end (generate_series to infinity).
	Iter func(env *Env, args []Datum) (func() (Row, error), error)
	// NullArgs functions are called with NULL arguments; the others are
	// strict and give no rows.
	NullArgs bool
	// Named marks a one-column function whose column is an OUT
	// parameter: in FROM it keeps its name rather than the function's.
	Named bool
}

// srfs holds the set-returning overloads by name, registered from init.
var srfs = map[string][]*Func{}

// srfBuilds keeps each set-returning overload's row function beside it.
var srfBuilds = map[*Func]func(types []T) *SRF{}

// RegisterSRF registers a set-returning overload with the function that
// makes its rows for the argument types of a call: the library's, the
// planner's functions of the session, pg_partition_ancestors here. Called
// from init functions only, as Register.
func RegisterSRF(f *Func, build func(types []T) *SRF) {
	srfs[f.Name] = append(srfs[f.Name], f)
	srfBuilds[f] = build
}

// SRFNames returns the names of the registered set-returning functions,
// sorted, for pg_proc.
func SRFNames() []string { return slices.Sorted(maps.Keys(srfs)) }

// SRFOverloads returns the registered overloads of set-returning function
// name, in registration order.
func SRFOverloads(name string) []*Func { return srfs[name] }

// IsSRF reports whether name is a set-returning function here.
func IsSRF(name string) bool { return len(srfs[name]) > 0 }

// IsSRFIn is IsSRF counting the overloads visible under settings st
// (HasFuncIn).
func IsSRFIn(st *Settings, name string) bool {
	for _, f := range srfs[name] {
		if f.visibleIn(st) {
			return true
		}
	}
	return false
}

// LookupSRFIn is LookupSRF among the overloads visible under settings st.
func LookupSRFIn(st *Settings, name string, args []T) (*SRF, []T, error) {
	best, want, err := lookupIn(srfs, name, args, st)
	if err != nil {
		return nil, nil, err
	}
	return srfBuilds[best](want), want, nil
}

// LookupSRF resolves a set-returning call as LookupFunc does.
func LookupSRF(name string, args []T) (*SRF, []T, error) {
	best, want, err := lookupIn(srfs, name, args, nil)
	if err != nil {
		return nil, nil, err
	}
	return srfBuilds[best](want), want, nil
}

// FuncScan runs a set-returning function: its Args are evaluated once
// per Open (a LATERAL call is opened again for each row to its left).
type FuncScan struct {
	Fn         *SRF
	Args       []Expr
	Ordinality bool
	Cols       []ResultColumn
}

func (p *FuncScan) Columns() []ResultColumn { return p.Cols }

func (p *FuncScan) Open(env *Env) (Rows, error) {
	args := make([]Datum, len(p.Args))
	for i, e := range p.Args {
		d, err := e.Eval(env, nil)
		if err != nil {
			return nil, err
		}
		if d.IsNull() && !p.Fn.NullArgs {
			return &bufferedRows{}, nil
		}
		args[i] = d
	}
	if p.Fn.Iter != nil {
		next, err := p.Fn.Iter(env, args)
		if err != nil {
			return nil, err
		}
		return &iterRows{next: next, env: env, ordinality: p.Ordinality}, nil
	}
	rows, err := p.Fn.Rows(env, args)
	if err != nil {
		return nil, err
	}
	if p.Ordinality {
		for i := range rows {
			rows[i] = append(rows[i], DInt(int64(i+1)))
		}
	}
	return &bufferedRows{rows: rows}, nil
}

// RecordScan turns the rows of a multi-column set-returning function into
// one record column, as a select list shows them: "(a,1)".
type RecordScan struct {
	In   Plan
	Name string
	// Typmod names the record's row type for the planner (an anonymous
	// record type of the session, as PostgreSQL's blessed record types),
	// so that (f(...)).col can be resolved at planning; -1 for none.
	Typmod int32
}

func (p *RecordScan) Columns() []ResultColumn {
	return []ResultColumn{{Name: p.Name, T: T{OID: OIDRecord, Typmod: p.Typmod}}}
}

func (p *RecordScan) Open(env *Env) (Rows, error) {
	in, err := p.In.Open(env)
	if err != nil {
		return nil, err
	}
	cols := p.In.Columns()
	r := &recordRows{in: in, out: make(Row, 1), types: make([]T, len(cols)), names: make([]string, len(cols))}
	for i, c := range cols {
		r.types[i], r.names[i] = c.T, c.Name
	}
	return r, nil
}

type recordRows struct {
	in    Rows
	types []T
	names []string
	out   Row
}

func (r *recordRows) Next() (Row, error) {
	row, err := r.in.Next()
	if row == nil || err != nil {
		return nil, err
	}
	r.out[0] = DRecord(&Record{Type: OIDRecord, Fields: slices.Clone(row), Types: r.types, Names: r.names})
	return r.out, nil
}

func (r *recordRows) Close() error { return r.in.Close() }

// AppendRecord appends record_out's text of a row: fields in parentheses,
// NULL as nothing, quoted when empty or holding quotes, backslashes,
// parentheses, commas or white space.
func AppendRecord(dst []byte, cols []ResultColumn, row Row, s *Settings) []byte {
	dst = append(dst, '(')
	for i, d := range row {
		if i > 0 {
			dst = append(dst, ',')
		}
		if d.IsNull() {
			continue
		}
		v := AppendText(nil, cols[i].T, d, s)
		quote := len(v) == 0
		for _, c := range v {
			switch c {
			case '"', '\\', '(', ')', ',', ' ', '\t', '\n', '\r', '\v', '\f':
				quote = true
			}
		}
		if !quote {
			dst = append(dst, v...)
			continue
		}
		dst = append(dst, '"')
		for _, c := range v {
			if c == '"' || c == '\\' {
				dst = append(dst, c)
			}
			dst = append(dst, c)
		}
		dst = append(dst, '"')
	}
	return append(dst, ')')
}

// iterRows runs an SRF's Iter, looking at the statement's context now and
// then, as scans do.
type iterRows struct {
	next       func() (Row, error)
	env        *Env
	ordinality bool
	n          int64
}

func (r *iterRows) Next() (Row, error) {
	row, err := r.next()
	if row == nil || err != nil {
		return nil, err
	}
	r.n++
	if r.n%CancelCheckRows == 0 && r.env.Ctx != nil {
		if err := r.env.Ctx.Err(); err != nil {
			return nil, err
		}
	}
	if r.ordinality {
		row = append(row, DInt(r.n))
	}
	return row, nil
}

func (r *iterRows) Close() error { return nil }
