package exec

import "slices"

// HashLookup returns the rows of In whose Keys equal the values of Probe:
// inside a correlated subquery, the rows of a table that match the outer
// row (WHERE b.x = outer.y), without reading the table for every outer
// row. In must not read outer values (no OuterRef, no correlated
// SubPlan): its rows are read once per execution of the statement into a
// hash table kept in the outermost frame, and each Open only probes it.
// Probe is evaluated without a row (outer references, constants,
// parameters); a NULL probe value matches nothing.
//
// Lookup, when set, reads the same rows through an index bounded by Probe
// (evaluated when it is opened). The first maxIndexProbes executions of a
// statement use it, and only the next one builds the hash table: a
// subquery run for a few outer rows reads a few rows of a large table,
// and one run for many pays a bounded number of lookups before hashing.
type HashLookup struct {
	In     Plan
	Keys   []Expr // over In's rows
	Probe  []Expr
	Lookup Plan
}

// maxIndexProbes is how many executions of a statement a HashLookup looks
// its rows up in an index before it builds its hash table.
const maxIndexProbes = 256

// indexProbes is the key, in the outermost frame, of the count of a
// HashLookup's executions that used its Lookup.
type indexProbes struct{ p *HashLookup }

func (p *HashLookup) Columns() []ResultColumn { return p.In.Columns() }

// lookupTable is the hash table of a HashLookup's input.
type lookupTable struct {
	table *keyTable
	rows  []Row
}

func (p *HashLookup) Open(env *Env) (Rows, error) {
	probe := make([]Datum, len(p.Probe))
	for i, e := range p.Probe {
		var err error
		if probe[i], err = e.Eval(env, nil); err != nil {
			return nil, err
		}
	}
	if p.Lookup != nil {
		if _, built := env.shared(p); !built {
			v, ok := env.shared(indexProbes{p})
			if !ok {
				v = new(int)
				env.share(indexProbes{p}, v)
			}
			if n := v.(*int); *n < maxIndexProbes {
				*n++
				if hasNull(probe) {
					return &lookupRows{cur: -1}, nil
				}
				in, err := p.Lookup.Open(env)
				if err != nil {
					return nil, err
				}
				return &probedRows{in: in, env: env, keys: p.Keys, probe: probe, key: make([]Datum, len(p.Keys))}, nil
			}
		}
	}
	t, err := p.table(env)
	if err != nil {
		return nil, err
	}
	r := &lookupRows{t: t, key: probe, cur: -1}
	if !hasNull(probe) {
		h, _ := hashDatums(nil, probe)
		r.cur = t.table.first(h, probe)
	}
	return r, nil
}

// exists reports whether a row of In matches Probe, for EXISTS of a
// correlated subquery that is this lookup, evaluated with outer as the
// enclosing row's values: the hash table's probe, without the Rows and
// the nested frame an execution of the subquery makes per outer row. ok
// is false when the lookup must run as a plan instead: while it still
// reads through its index (Lookup), or when a probe expression is more
// than outer values and constants.
func (p *HashLookup) exists(env *Env, outer []Datum) (found, ok bool, err error) {
	if p.Lookup != nil {
		if _, built := env.shared(p); !built {
			return false, false, nil
		}
	}
	var probeBuf [4]Datum
	if len(p.Probe) > len(probeBuf) {
		return false, false, nil
	}
	probe := probeBuf[:len(p.Probe)]
	for i, e := range p.Probe {
		switch x := e.(type) {
		case *OuterRef:
			if x.Idx >= len(outer) {
				return false, false, nil
			}
			probe[i] = outer[x.Idx]
		case *Const:
			probe[i] = x.D
		default:
			return false, false, nil
		}
	}
	if hasNull(probe) {
		return false, true, nil
	}
	t, err := p.table(env)
	if err != nil {
		return false, true, err
	}
	var hbuf [64]byte
	h, _ := hashDatums(hbuf[:0], probe)
	return t.table.first(h, probe) >= 0, true, nil
}

// table returns the hash table of In, building it on first use.
func (p *HashLookup) table(env *Env) (*lookupTable, error) {
	if v, ok := env.shared(p); ok {
		return v.(*lookupTable), nil
	}
	in, err := p.In.Open(env)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	t := &lookupTable{table: newKeyTable(len(p.Keys))}
	key := make([]Datum, len(p.Keys))
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
		if hasNull(key) {
			continue
		}
		var h uint64
		h, buf = hashDatums(buf, key)
		if err := env.hold(row); err != nil {
			return nil, err
		}
		t.table.add(h, key)
		t.rows = append(t.rows, slices.Clone(row))
	}
	env.share(p, t)
	return t, nil
}

type lookupRows struct {
	t   *lookupTable
	key []Datum
	cur int
}

func (r *lookupRows) Next() (Row, error) {
	if r.cur < 0 {
		return nil, nil
	}
	i := r.cur
	r.cur = r.t.table.nextMatch(i, r.key)
	return r.t.rows[i], nil
}

func (r *lookupRows) Close() error { return nil }

// probedRows are the rows of a HashLookup's index lookup whose keys equal
// the probe values: the index compares key bytes, the lookup Compare's
// equality, as its hash table would.
type probedRows struct {
	in         Rows
	env        *Env
	keys       []Expr
	probe, key []Datum
}

func (r *probedRows) Next() (Row, error) {
	for {
		row, err := r.in.Next()
		if err != nil || row == nil {
			return nil, err
		}
		for i, k := range r.keys {
			if r.key[i], err = k.Eval(r.env, row); err != nil {
				return nil, err
			}
		}
		if rowsNotDistinct(r.key, r.probe) {
			return row, nil
		}
	}
}

func (r *probedRows) Close() error { return r.in.Close() }
