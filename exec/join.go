package exec

import "slices"

// JoinKind says which rows of a join survive without a match.
type JoinKind uint8

const (
	InnerJoin JoinKind = iota
	LeftJoin           // unmatched left rows, padded with NULLs
	RightJoin          // unmatched right rows, padded with NULLs
	FullJoin           // both
)

// KeepsLeft reports whether unmatched left rows survive the join.
func (k JoinKind) KeepsLeft() bool { return k == LeftJoin || k == FullJoin }

// KeepsRight reports whether unmatched right rows survive the join.
func (k JoinKind) KeepsRight() bool { return k == RightJoin || k == FullJoin }

// joinCols is the output layout of every join: the left input's columns,
// then the right's.
func joinCols(l, r Plan) []ResultColumn {
	return append(slices.Clip(l.Columns()), r.Columns()...)
}

// NestedLoop joins every left row with every right row for which On (over
// the joined row: left columns, then right) is true. The right input is
// read once and kept in memory, unless Lateral is set: then the right
// input depends on the left row, and is opened again for each one, with
// Outer set to Args evaluated over the left row (a LATERAL subquery).
type NestedLoop struct {
	Left, Right Plan
	Kind        JoinKind
	On          Expr // nil: true
	Lateral     bool
	Args        []Expr
}

func (p *NestedLoop) Columns() []ResultColumn { return joinCols(p.Left, p.Right) }

func (p *NestedLoop) Open(env *Env) (Rows, error) {
	left, err := p.Left.Open(env)
	if err != nil {
		return nil, err
	}
	r := &nestedLoopRows{p: p, env: env, left: left, lw: len(p.Left.Columns()), rw: len(p.Right.Columns())}
	r.out = make(Row, r.lw+r.rw)
	if !p.Lateral {
		if r.inner, err = drain(env, p.Right); err != nil {
			left.Close()
			return nil, err
		}
		if p.Kind.KeepsRight() {
			r.matched = make([]bool, len(r.inner))
		}
	}
	return r, nil
}

type nestedLoopRows struct {
	p      *NestedLoop
	env    *Env
	left   Rows
	lw, rw int
	out    Row

	inner   []Row  // the right rows (not Lateral)
	matched []bool // right rows that found a match (RIGHT and FULL)

	lrow     Row  // the current left row, nil before the first
	lmatched bool // whether lrow found a match
	i        int  // next right row of inner
	lat      Rows // Lateral: the right rows of lrow
	tail     int  // after the left rows: next unmatched right row to check
	leftDone bool
}

func (r *nestedLoopRows) Next() (Row, error) {
	for !r.leftDone {
		if r.lrow == nil {
			row, err := r.left.Next()
			if err != nil {
				return nil, err
			}
			if row == nil {
				r.leftDone = true
				break
			}
			r.lrow, r.lmatched, r.i = row, false, 0
			copy(r.out, row)
			if r.p.Lateral {
				if err := r.openLateral(); err != nil {
					return nil, err
				}
			}
		}
		for {
			var right Row
			if r.p.Lateral {
				row, err := r.lat.Next()
				if err != nil {
					return nil, err
				}
				right = row
			} else if r.i < len(r.inner) {
				right = r.inner[r.i]
				r.i++
			}
			if right == nil {
				break
			}
			copy(r.out[r.lw:], right)
			ok := true
			if r.p.On != nil {
				var err error
				if ok, err = isTrue(r.env, r.p.On, r.out); err != nil {
					return nil, err
				}
			}
			if ok {
				r.lmatched = true
				if r.matched != nil {
					r.matched[r.i-1] = true
				}
				return r.out, nil
			}
		}
		if r.lat != nil {
			if err := r.lat.Close(); err != nil {
				return nil, err
			}
			r.lat = nil
		}
		unmatched := !r.lmatched && r.p.Kind.KeepsLeft()
		r.lrow = nil
		if unmatched {
			clear(r.out[r.lw:])
			return r.out, nil
		}
	}
	for r.matched != nil && r.tail < len(r.inner) {
		i := r.tail
		r.tail++
		if !r.matched[i] {
			clear(r.out[:r.lw])
			copy(r.out[r.lw:], r.inner[i])
			return r.out, nil
		}
	}
	return nil, nil
}

// openLateral opens the right input for the current left row.
func (r *nestedLoopRows) openLateral() error {
	outer := make([]Datum, len(r.p.Args))
	for i, a := range r.p.Args {
		var err error
		if outer[i], err = a.Eval(r.env, r.lrow); err != nil {
			return err
		}
	}
	lat, err := r.p.Right.Open(r.env.child(outer))
	if err != nil {
		return err
	}
	r.lat = lat
	return nil
}

// Key returns the key of the stored row the current left row is, when
// the left input reads a table (UPDATE ... FROM, DELETE ... USING).
func (r *nestedLoopRows) Key() []byte { return r.left.(keyedRows).Key() }

func (r *nestedLoopRows) Close() error {
	err := r.left.Close()
	if r.lat != nil {
		if e := r.lat.Close(); err == nil {
			err = e
		}
	}
	return err
}

// drain runs a plan to its end and returns its rows, each its own copy,
// counted against max_query_memory (memory.go): a sort's input, a join's
// inner side, the input of grouping sets.
func drain(env *Env, p Plan) ([]Row, error) {
	in, err := p.Open(env)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	var rows []Row
	for {
		row, err := in.Next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			return rows, nil
		}
		if err := env.hold(row); err != nil {
			return nil, err
		}
		rows = append(rows, slices.Clone(row))
	}
}

// HashJoin joins on equal keys: a left row and a right row match when
// each LeftKeys[i] equals RightKeys[i] (NULL equals nothing) and Residual
// holds. All expressions are over the joined row (left columns, then
// right); LeftKeys read only left columns and RightKeys only right ones,
// and each pair has one type, so that equality is Compare's.
//
// Which side to build the hash table from is decided while running: the
// two inputs are read in turn until one ends, and that one, the smaller,
// is built; the rows read from the other are probed first, then the rest
// of it. Memory is thus bounded by about twice the smaller input, however
// the planner ordered the inputs.
//
// With Shared set, one input (SharedLeft or SharedRight) reads no outer
// values although the join runs again and again (inside a correlated
// subquery or a LATERAL item): its table is built from that input once
// per execution of the statement and kept in the outermost frame.
//
// LeftLookup and RightLookup, when set, read the rows of that input whose
// keys equal given values, passed as the outer values when the plan is
// opened: the input's own plan over an index scan bounded by them. When
// the other input turns out small, ending after at most maxLookupDrivers
// rows while this one goes on past lookupRatio times as many, the join
// looks up the rows matching each row of the other input instead of
// reading this one whole: an index nested loop, chosen while running as
// the build side is, so that a join of a few rows with a large table
// reads a few of its rows, whatever the planner could estimate. An input
// that an outer join keeps unmatched rows of is always read whole.
type HashJoin struct {
	Left, Right             Plan
	Kind                    JoinKind
	LeftKeys, RightKeys     []Expr
	Residual                Expr // nil: true
	Shared                  Shared
	LeftLookup, RightLookup Plan
}

// maxLookupDrivers is the most rows an input may have for the join to
// look up their matches in the other (HashJoin.LeftLookup); the other must
// have gone on past lookupRatio times as many, and lookupSlack more, so
// that an index lookup, which costs a few rows' reading, is only chosen
// over reading an input that is larger still.
const (
	maxLookupDrivers = 1024
	lookupRatio      = 8
	lookupSlack      = 64
)

// Shared names the input of a HashJoin whose table lasts the statement.
type Shared uint8

const (
	NotShared Shared = iota
	SharedLeft
	SharedRight
)

// hashBuild is the built side of a hash join.
type hashBuild struct {
	table     *keyTable
	built     []Row
	nullKeyed []Row
}

func (p *HashJoin) Columns() []ResultColumn { return joinCols(p.Left, p.Right) }

func (p *HashJoin) Open(env *Env) (Rows, error) {
	lw, rw := len(p.Left.Columns()), len(p.Right.Columns())
	r := &hashJoinRows{p: p, env: env, lw: lw, out: make(Row, lw+rw), scratch: make(Row, lw+rw)}
	if p.Shared != NotShared {
		if err := r.buildShared(); err != nil {
			return nil, err
		}
		return r, nil
	}
	left, err := p.Left.Open(env)
	if err != nil {
		return nil, err
	}
	right, err := p.Right.Open(env)
	if err != nil {
		left.Close()
		return nil, err
	}
	r.inputs = [2]Rows{left, right}
	if err := r.build(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

type hashJoinRows struct {
	p       *HashJoin
	env     *Env
	lw      int
	out     Row
	scratch Row
	inputs  [2]Rows // left, right

	buildLeft bool // which side the table holds
	table     *keyTable
	built     []Row  // the build side's rows, by entry
	nullKeyed []Row  // build rows with a NULL key: in no entry, but kept for outer joins
	matched   []bool // entries that found a match, when the build side is preserved

	pending []Row // probe rows read while choosing the build side
	probe   Rows  // the rest of the probe side, nil when it ended then
	done    bool  // the probe side is exhausted

	// Looking up (HashJoin.LeftLookup): lookup is the plan of the input
	// looked up (the left one when lookupLeft), drivers the rows of the
	// other, next the next of them to look up, found the rows matching
	// the current one (prow, with key pkey).
	lookup     Plan
	lookupLeft bool
	drivers    []Row
	next       int
	found      Rows

	prow     Row     // current probe row
	pkey     []Datum // its key
	phash    uint64
	pmatched bool
	cur      int // next candidate entry for prow, -1 when none
	tail     int // after the probe side: next build row to check for being unmatched
	buf      []byte
}

// build reads both inputs in turn until one ends, and builds the table
// from that one.
func (r *hashJoinRows) build() error {
	var bufs [2][]Row
	for side := 0; ; side ^= 1 {
		row, err := r.inputs[side].Next()
		if err != nil {
			return err
		}
		if row == nil {
			looking, otherEnded, err := r.tryLookup(side, &bufs)
			if looking || err != nil {
				return err
			}
			r.buildLeft = side == 0
			r.pending = bufs[side^1]
			if !otherEnded {
				r.probe = r.inputs[side^1]
			}
			return r.buildFrom(bufs[side])
		}
		if err := r.env.hold(row); err != nil {
			return err
		}
		bufs[side] = append(bufs[side], slices.Clone(row))
	}
}

// tryLookup decides, once input ended has ended with the rows bufs[ended],
// whether to look up their matches in the other input rather than read it
// (HashJoin.LeftLookup). It reads on in the other input while it might
// still end soon; otherEnded reports that it did, and the join then
// hashes as usual.
func (r *hashJoinRows) tryLookup(ended int, bufs *[2][]Row) (looking, otherEnded bool, err error) {
	other := ended ^ 1
	lookup := r.p.lookupOf(other == 0)
	if lookup == nil || len(bufs[ended]) > maxLookupDrivers {
		return false, false, nil
	}
	if bufs[other], otherEnded, err = readOn(r.env, r.inputs[other], bufs[other], lookupRatio*len(bufs[ended])+lookupSlack+1); otherEnded || err != nil {
		return false, otherEnded, err
	}
	err = r.inputs[other].Close()
	r.inputs[other] = nil
	r.startLookup(lookup, other == 0, bufs[ended])
	return true, false, err
}

// lookupOf returns the lookup plan of the left input (left) or the right
// one, nil when it has none or the join keeps its unmatched rows, which
// only reading it whole finds.
func (p *HashJoin) lookupOf(left bool) Plan {
	if left && !p.Kind.KeepsLeft() {
		return p.LeftLookup
	}
	if !left && !p.Kind.KeepsRight() {
		return p.RightLookup
	}
	return nil
}

// startLookup makes the join look up, through lookup, the rows of the left
// input (left) or the right one that match each of drivers.
func (r *hashJoinRows) startLookup(lookup Plan, left bool, drivers []Row) {
	r.lookup, r.lookupLeft, r.drivers = lookup, left, drivers
	r.pkey = make([]Datum, len(r.p.LeftKeys))
	r.cur = -1
}

// nextLookup is Next when looking up (tryLookup): the rows of the looked
// up input that match each driver row, found through the lookup plan with
// the driver's keys as outer values, then kept only when their own keys
// equal them (the index compares key bytes) and the residual holds.
func (r *hashJoinRows) nextLookup() (Row, error) {
	driverKeys, foundKeys := r.p.LeftKeys, r.p.RightKeys
	if r.lookupLeft {
		driverKeys, foundKeys = foundKeys, driverKeys
	}
	driverKept := r.p.Kind.KeepsLeft()
	if r.lookupLeft {
		driverKept = r.p.Kind.KeepsRight()
	}
	for {
		if r.found != nil {
			for {
				row, err := r.found.Next()
				if err != nil {
					return nil, err
				}
				if row == nil {
					break
				}
				out := r.placeLookup(r.prow, row)
				match := true
				for i, k := range foundKeys {
					v, err := k.Eval(r.env, out)
					if err != nil {
						return nil, err
					}
					if !NotDistinct(v, r.pkey[i]) {
						match = false
						break
					}
				}
				if match && r.p.Residual != nil {
					if match, err = isTrue(r.env, r.p.Residual, out); err != nil {
						return nil, err
					}
				}
				if match {
					r.pmatched = true
					return out, nil
				}
			}
			err := r.found.Close()
			r.found = nil
			if err != nil {
				return nil, err
			}
			if !r.pmatched && driverKept {
				return r.placeLookup(r.prow, nil), nil
			}
		}
		if r.next >= len(r.drivers) {
			return nil, nil
		}
		r.prow, r.pmatched = r.drivers[r.next], false
		r.next++
		out := r.placeLookup(r.prow, nil)
		for i, k := range driverKeys {
			var err error
			if r.pkey[i], err = k.Eval(r.env, out); err != nil {
				return nil, err
			}
		}
		if hasNull(r.pkey) {
			if driverKept {
				return out, nil
			}
			continue
		}
		found, err := r.lookup.Open(r.env.child(r.pkey))
		if err != nil {
			return nil, err
		}
		r.found = found
	}
}

// placeLookup puts a driver row and a looked-up row (nil: NULLs) into the
// output row in left-right order.
func (r *hashJoinRows) placeLookup(driver, found Row) Row {
	if r.lookupLeft {
		driver, found = found, driver
	}
	if driver == nil {
		clear(r.out[:r.lw])
	} else {
		copy(r.out, driver)
	}
	if found == nil {
		clear(r.out[r.lw:])
	} else {
		copy(r.out[r.lw:], found)
	}
	return r.out
}

// buildShared builds the table of a Shared join from its shared input, or
// takes the one built earlier in the statement, and opens the other. When
// no table is built yet and the other input ends within maxLookupDrivers
// rows, the shared one is read only as far as tryLookup would: if it goes
// on, this run of the join looks its rows up instead (and builds nothing),
// else the table is built from what was read.
func (r *hashJoinRows) buildShared() error {
	r.buildLeft = r.p.Shared == SharedLeft
	build, probe := r.p.Right, r.p.Left
	if r.buildLeft {
		build, probe = probe, build
	}
	lookup := r.p.lookupOf(r.buildLeft)
	v, built := r.env.shared(r.p)
	if built {
		b := v.(*hashBuild)
		r.table, r.built, r.nullKeyed = b.table, b.built, b.nullKeyed
		r.afterBuild()
	}
	in, err := probe.Open(r.env)
	if err != nil {
		return err
	}
	r.probe = in
	if r.buildLeft {
		r.inputs[1] = in
	} else {
		r.inputs[0] = in
	}
	if built {
		return r.lookUpProbeSide()
	}
	var rows []Row
	read := false // rows hold the whole shared input
	if lookup != nil {
		drivers, ended, err := readOn(r.env, in, nil, maxLookupDrivers+1)
		if err != nil {
			return err
		}
		r.pending = drivers
		if ended {
			r.probe = nil
			bin, err := build.Open(r.env)
			if err != nil {
				return err
			}
			var bEnded bool
			rows, bEnded, err = readOn(r.env, bin, nil, lookupRatio*len(drivers)+lookupSlack+1)
			if cerr := bin.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			if !bEnded {
				r.pending = nil
				r.startLookup(lookup, r.buildLeft, drivers)
				return nil
			}
			read = true
		}
	}
	if !read {
		if rows, err = drain(r.env, build); err != nil {
			return err
		}
	}
	if err := r.buildFrom(rows); err != nil {
		return err
	}
	r.env.share(r.p, &hashBuild{table: r.table, built: r.built, nullKeyed: r.nullKeyed})
	return r.lookUpProbeSide()
}

// lookUpProbeSide decides, once a Shared join's table is there, whether to
// look up the rows of the other input that match the table's few rows
// instead of reading it (its LeftLookup or RightLookup): when the table
// holds at most maxLookupDrivers rows and the other input goes on past
// lookupRatio times as many, as tryLookup decides for an unshared join.
func (r *hashJoinRows) lookUpProbeSide() error {
	probeLeft := !r.buildLeft
	lookup := r.p.lookupOf(probeLeft)
	n := len(r.built) + len(r.nullKeyed)
	if lookup == nil || r.probe == nil || n > maxLookupDrivers {
		return nil
	}
	var ended bool
	var err error
	if r.pending, ended, err = readOn(r.env, r.probe, r.pending, lookupRatio*n+lookupSlack+1); ended || err != nil {
		if ended {
			r.probe = nil // it ended: hash as usual
		}
		return err
	}
	probeAt := 1
	if probeLeft {
		probeAt = 0
	}
	err = r.inputs[probeAt].Close()
	r.inputs[probeAt], r.probe, r.pending = nil, nil, nil
	r.startLookup(lookup, probeLeft, append(slices.Clip(r.built), r.nullKeyed...))
	return err
}

// readOn reads rows of in onto rows until it holds n or in ends, each its
// own copy counted against max_query_memory, and reports whether in
// ended.
func readOn(env *Env, in Rows, rows []Row, n int) ([]Row, bool, error) {
	for len(rows) < n {
		row, err := in.Next()
		if err != nil || row == nil {
			return rows, row == nil && err == nil, err
		}
		if err := env.hold(row); err != nil {
			return nil, false, err
		}
		rows = append(rows, slices.Clone(row))
	}
	return rows, false, nil
}

func (r *hashJoinRows) buildFrom(rows []Row) error {
	keys := r.p.RightKeys
	if r.buildLeft {
		keys = r.p.LeftKeys
	}
	r.table = newKeyTable(len(keys))
	key := make([]Datum, len(keys))
	for _, row := range rows {
		if err := r.evalKeys(keys, row, !r.buildLeft, key); err != nil {
			return err
		}
		if hasNull(key) {
			r.nullKeyed = append(r.nullKeyed, row)
			continue
		}
		var h uint64
		h, r.buf = hashDatums(r.buf, key)
		r.table.add(h, key)
		r.built = append(r.built, row)
	}
	r.afterBuild()
	return nil
}

// afterBuild readies the probing state once the table is there.
func (r *hashJoinRows) afterBuild() {
	if r.buildKept() {
		r.matched = make([]bool, len(r.built))
	}
	r.pkey = make([]Datum, len(r.p.LeftKeys))
	r.cur = -1
}

// evalKeys evaluates keys over row, which is a left row or (right set) a
// right row, placed in the joined layout.
func (r *hashJoinRows) evalKeys(keys []Expr, row Row, right bool, dst []Datum) error {
	in := row
	if right {
		copy(r.scratch[r.lw:], row)
		in = r.scratch
	}
	for i, k := range keys {
		var err error
		if dst[i], err = k.Eval(r.env, in); err != nil {
			return err
		}
	}
	return nil
}

func (r *hashJoinRows) buildKept() bool {
	if r.buildLeft {
		return r.p.Kind.KeepsLeft()
	}
	return r.p.Kind.KeepsRight()
}

func (r *hashJoinRows) probeKept() bool {
	if r.buildLeft {
		return r.p.Kind.KeepsRight()
	}
	return r.p.Kind.KeepsLeft()
}

// fill puts a build row and a probe row (either may be nil: NULLs) into
// the output row in left-right order.
func (r *hashJoinRows) fill(build, probe Row) Row {
	l, rt := probe, build
	if r.buildLeft {
		l, rt = build, probe
	}
	if l == nil {
		clear(r.out[:r.lw])
	} else {
		copy(r.out, l)
	}
	if rt == nil {
		clear(r.out[r.lw:])
	} else {
		copy(r.out[r.lw:], rt)
	}
	return r.out
}

func (r *hashJoinRows) Next() (Row, error) {
	if r.lookup != nil {
		return r.nextLookup()
	}
	for !r.done {
		if r.prow == nil {
			if err := r.nextProbe(); err != nil {
				return nil, err
			}
			if r.prow == nil {
				r.done = true
				break
			}
		}
		for r.cur >= 0 {
			i := r.cur
			r.cur = r.table.nextMatch(i, r.pkey)
			out := r.fill(r.built[i], r.prow)
			if r.p.Residual != nil {
				ok, err := isTrue(r.env, r.p.Residual, out)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
			}
			r.pmatched = true
			if r.matched != nil {
				r.matched[i] = true
			}
			return out, nil
		}
		prow := r.prow
		r.prow = nil
		if !r.pmatched && r.probeKept() {
			return r.fill(nil, prow), nil
		}
	}
	if r.buildKept() {
		for r.tail < len(r.built)+len(r.nullKeyed) {
			i := r.tail
			r.tail++
			if i < len(r.built) {
				if !r.matched[i] {
					return r.fill(r.built[i], nil), nil
				}
				continue
			}
			return r.fill(r.nullKeyed[i-len(r.built)], nil), nil
		}
	}
	return nil, nil
}

// nextProbe moves to the next probe row and its first candidate match.
func (r *hashJoinRows) nextProbe() error {
	var row Row
	if len(r.pending) > 0 {
		row, r.pending = r.pending[0], r.pending[1:]
	} else {
		if r.probe == nil || r.table.len() == 0 && !r.probeKept() {
			return nil // the probe side ended, or nothing can match: skip the rest of it
		}
		var err error
		if row, err = r.probe.Next(); err != nil || row == nil {
			return err
		}
	}
	keys := r.p.LeftKeys
	if r.buildLeft {
		keys = r.p.RightKeys
	}
	if err := r.evalKeys(keys, row, r.buildLeft, r.pkey); err != nil {
		return err
	}
	r.prow, r.pmatched, r.cur = row, false, -1
	if !hasNull(r.pkey) {
		r.phash, r.buf = hashDatums(r.buf, r.pkey)
		r.cur = r.table.first(r.phash, r.pkey)
	}
	return nil
}

// Key returns the key of the stored row the current probe row is, when
// the probe input is the left one and reads a table (UPDATE ... FROM,
// DELETE ... USING, which build the right input).
func (r *hashJoinRows) Key() []byte { return r.inputs[0].(keyedRows).Key() }

func (r *hashJoinRows) Close() error {
	var err error
	if r.found != nil {
		err = r.found.Close()
	}
	for _, in := range r.inputs {
		if in != nil {
			if e := in.Close(); err == nil {
				err = e
			}
		}
	}
	return err
}
