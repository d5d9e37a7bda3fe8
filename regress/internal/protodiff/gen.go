package protodiff

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgproto3/v2"
)

// GenOptions shape the generated sequences.
type GenOptions struct {
	// MaxSteps bounds the steps of a sequence; each sequence has between
	// 1 and MaxSteps.
	MaxSteps int
	// Include names KnownDiffs whose statements are generated anyway (to
	// see whether they still differ); the others are avoided.
	Include map[string]bool
}

// generator makes one sequence. Its model of the session (which
// statements exist and what they are) is only a guess, updated as if
// every message succeeded: it makes valid references likely, and invalid
// ones happen anyway — both servers get the same messages, so a wrong
// guess is as good a test as a right one.
type generator struct {
	r     *rand.Rand
	opts  GenOptions
	stmts map[string]*parsed // by statement name, as the generator believes them
	// bound lists the portals bound in the current batch (since the last
	// Sync or Query; a step ending with Flush leaves it open). Only those
	// are executed: see executeTarget.
	bound []string
	// open says the last step ended with Flush: its batch goes on.
	open bool
	// freshKey is the next key of t that nothing has written (see
	// copyData).
	freshKey int
	// returning holds the portals bound to a data-modifying statement
	// with RETURNING (see rowLimit).
	returning map[string]bool
}

// parsed is what the generator believes a prepared statement is.
type parsed struct {
	t     *template
	types []uint32 // the effective type of each parameter
}

// Generate makes the sequence of seed: the same seed and options give
// the same messages.
func Generate(seed uint64, opts GenOptions) Sequence {
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = 12
	}
	g := &generator{
		r:         rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		opts:      opts,
		stmts:     make(map[string]*parsed),
		freshKey:  100,
		returning: make(map[string]bool),
	}
	seq := Sequence{Seed: seed}
	n := 1 + g.r.IntN(opts.MaxSteps)
	for range n {
		seq.Steps = append(seq.Steps, g.step())
	}
	return seq
}

// chance returns true with probability p percent.
func (g *generator) chance(p int) bool { return g.r.IntN(100) < p }

// oneOf returns one of the strings.
func (g *generator) oneOf(s ...string) string { return s[g.r.IntN(len(s))] }

// step makes the next step and keeps track of the batch it leaves open.
func (g *generator) step() Step {
	if !g.open {
		g.bound = g.bound[:0]
	}
	st := g.anyStep()
	_, g.open = st.Msgs[len(st.Msgs)-1].(*pgproto3.Flush)
	return st
}

// anyStep makes one step of a kind drawn by weight.
func (g *generator) anyStep() Step {
	switch w := g.r.IntN(100); {
	case w < 28:
		return g.simpleStep()
	case w < 68:
		return g.extendedStep()
	case w < 80:
		return g.txnStep()
	case w < 90:
		return g.copyInStep()
	case w < 99 || !g.chance(30):
		return g.copyOutStep()
	default:
		return g.cancelStep()
	}
}

// cancelStep cancels a statement that sleeps: the cancel is sent well
// after the statement starts and long before it ends, so that both
// servers are sure to be running it (and if one is not cancelled, both
// still answer within the timeout). In either protocol; the statement
// may also be refused first (in a failed block), and then the cancel
// arrives between statements, where it is ignored.
func (g *generator) cancelStep() Step {
	const sleep = "SELECT pg_sleep(2)"
	st := Step{Cancel: 200 * time.Millisecond}
	if g.chance(50) {
		st.Msgs = []pgproto3.FrontendMessage{&pgproto3.Query{String: sleep}}
		delete(g.stmts, "")
		return st
	}
	// A statement of its own, closed after the Sync (see copyInStep).
	st.Msgs = []pgproto3.FrontendMessage{
		&pgproto3.Parse{Name: sleepStmt, Query: sleep},
		&pgproto3.Bind{PreparedStatement: sleepStmt},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
		&pgproto3.Close{ObjectType: 'S', Name: sleepStmt},
		&pgproto3.Sync{},
	}
	return st
}

// sleepStmt names the statement of cancelStep, which no other step uses.
const sleepStmt = "sleep"

// allowed reports whether t may be generated.
func (g *generator) allowed(t *template) bool {
	return t.known == "" || g.opts.Include[t.known]
}

// include reports whether the statements of a KnownDiff (by name; "" for
// none) may be generated.
func (g *generator) include(known string) bool {
	return known == "" || g.opts.Include[known]
}

// simpleTemplate returns a template for a simple query: one without
// parameters, unless simpleQueryParameter is included, and then only now
// and then (42P02).
func (g *generator) simpleTemplate() *template {
	for {
		t := g.anyTemplate()
		if len(t.params) == 0 || (g.include(knownSimpleQueryParameter) && g.chance(5)) {
			return t
		}
	}
}

// simplePick is pick for a simple query (see simpleTemplate).
func (g *generator) simplePick(role []template) *template {
	for {
		t := g.pick(role)
		if len(t.params) == 0 || g.include(knownSimpleQueryParameter) {
			return t
		}
	}
}

// parseTemplate returns a template that may go in a Parse message.
func (g *generator) parseTemplate() *template {
	return g.anyTemplate()
}

// pick returns a random allowed template of role.
func (g *generator) pick(role []template) *template {
	for {
		t := &role[g.r.IntN(len(role))]
		if g.allowed(t) {
			return t
		}
	}
}

// anyTemplate returns a template of a role drawn by weight.
func (g *generator) anyTemplate() *template {
	switch w := g.r.IntN(100); {
	case w < 30:
		return g.pick(reads)
	case w < 60:
		return g.pick(writes)
	case w < 75:
		return g.pick(failing)
	case w < 95:
		return g.pick(txns)
	default:
		return g.pick(misc)
	}
}

// fill replaces the key placeholder of t's SQL.
func (g *generator) fill(t *template) string {
	if !strings.Contains(t.sql, "%d") {
		return t.sql
	}
	return fmt.Sprintf(t.sql, g.r.IntN(keyRange))
}

// simpleStep is one Query of one to three statements; a multi-statement
// string is one implicit transaction in PostgreSQL, which is much of what
// this tests.
func (g *generator) simpleStep() Step {
	ts := make([]*template, 1+g.r.IntN(3))
	for i := range ts {
		ts[i] = g.simpleTemplate()
	}
	return g.query(ts...)
}

// query returns a step of one Query of the statements ts.
func (g *generator) query(ts ...*template) Step {
	sqls := make([]string, len(ts))
	for i, t := range ts {
		sqls[i] = g.fill(t)
	}
	delete(g.stmts, "") // a simple Query drops the unnamed statement
	return Step{Msgs: []pgproto3.FrontendMessage{&pgproto3.Query{String: strings.Join(sqls, "; ")}}}
}

// txnStep runs a transaction-control statement in either protocol.
func (g *generator) txnStep() Step {
	t := g.pick(txns)
	switch w := g.r.IntN(100); {
	case w < 55:
		return g.query(t)
	case w < 75:
		other := g.simplePick(writes)
		if g.chance(30) {
			other = g.simplePick(failing)
		}
		if g.chance(50) {
			return g.query(other, t)
		}
		return g.query(t, other)
	default:
		name := g.oneOf("", "", "s1")
		msgs := []pgproto3.FrontendMessage{
			&pgproto3.Parse{Name: name, Query: t.sql},
			&pgproto3.Bind{PreparedStatement: name},
			&pgproto3.Execute{},
		}
		g.believeParse(name, t, nil)
		if name != "" && g.chance(70) {
			msgs = append(msgs, &pgproto3.Close{ObjectType: 'S', Name: name})
			delete(g.stmts, name)
		}
		return Step{Msgs: append(msgs, g.end())}
	}
}

// txStmt names the statement of txnStep for a statement that ends a
// transaction, which no other step uses.
const txStmt = "tx"

// end returns the message that ends an extended step: mostly Sync,
// sometimes Flush (the batch then goes on in the next step).
func (g *generator) end() pgproto3.FrontendMessage {
	if g.chance(12) {
		return &pgproto3.Flush{}
	}
	return &pgproto3.Sync{}
}

// extendedStep is a batch of extended-protocol messages: usually the
// Parse, Bind, Describe, Execute cycle a driver sends (once or pipelined
// twice), otherwise a random mixture of messages, some of them wrong.
func (g *generator) extendedStep() Step {
	var msgs []pgproto3.FrontendMessage
	if g.chance(60) {
		msgs = g.cycle(msgs)
		if g.chance(20) {
			msgs = g.cycle(msgs)
		}
	} else {
		for range 1 + g.r.IntN(6) {
			msgs = append(msgs, g.randomMessage())
		}
	}
	return Step{Msgs: append(msgs, g.end())}
}

// cycle appends a driver-like Parse/Bind/Describe/Execute/Close round.
func (g *generator) cycle(msgs []pgproto3.FrontendMessage) []pgproto3.FrontendMessage {
	name := g.oneOf("", "", "", "s1", "s2")
	if _, ok := g.stmts[name]; !ok || g.chance(70) {
		if name != "" && g.stmts[name] != nil && g.chance(80) {
			msgs = append(msgs, &pgproto3.Close{ObjectType: 'S', Name: name})
			delete(g.stmts, name)
		}
		msgs = append(msgs, g.parse(name))
	}
	if g.chance(30) {
		msgs = append(msgs, &pgproto3.Describe{ObjectType: 'S', Name: name})
	}
	portal := g.oneOf("", "", "", "p1", "p2")
	msgs = append(msgs, g.bind(portal, name))
	if g.chance(30) {
		msgs = append(msgs, &pgproto3.Describe{ObjectType: 'P', Name: portal})
	}
	if g.chance(25) {
		max := g.rowLimit(portal, 1+g.r.IntN(2))
		msgs = append(msgs, &pgproto3.Execute{Portal: portal, MaxRows: max})
		if g.chance(60) {
			msgs = append(msgs, &pgproto3.Execute{Portal: portal, MaxRows: g.rowLimit(portal, g.r.IntN(3))})
		}
	} else {
		msgs = append(msgs, &pgproto3.Execute{Portal: portal})
	}
	if portal != "" && g.chance(50) {
		msgs = append(msgs, &pgproto3.Close{ObjectType: 'P', Name: portal})
	}
	return msgs
}

// randomMessage returns one extended-protocol message of any kind, with
// names that exist or not.
func (g *generator) randomMessage() pgproto3.FrontendMessage {
	switch w := g.r.IntN(100); {
	case w < 20:
		return g.parse(g.oneOf("", "", "s1", "s2"))
	case w < 45:
		return g.bind(g.oneOf("", "", "p1", "p2"), g.stmtName())
	case w < 55:
		if g.chance(50) {
			return &pgproto3.Describe{ObjectType: 'S', Name: g.stmtName()}
		}
		return &pgproto3.Describe{ObjectType: 'P', Name: g.portalName()}
	case w < 75:
		portal := g.executeTarget()
		return &pgproto3.Execute{Portal: portal, MaxRows: g.rowLimit(portal, g.r.IntN(3))}
	case w < 85:
		if g.chance(50) {
			name := g.stmtName()
			delete(g.stmts, name)
			return &pgproto3.Close{ObjectType: 'S', Name: name}
		}
		return &pgproto3.Close{ObjectType: 'P', Name: g.portalName()}
	case w < 90:
		return &pgproto3.Flush{}
	case w < 95:
		// A Query in the middle of an extended batch.
		t := g.simpleTemplate()
		delete(g.stmts, "")
		g.bound = g.bound[:0]
		return &pgproto3.Query{String: g.fill(t)}
	default:
		g.bound = g.bound[:0]
		return &pgproto3.Sync{}
	}
}

// stmtName returns the name of a statement that probably exists, or
// sometimes of one that does not.
func (g *generator) stmtName() string {
	if len(g.stmts) == 0 || g.chance(10) {
		return g.oneOf("", "s1", "nosuch")
	}
	names := make([]string, 0, len(g.stmts))
	for _, n := range []string{"", "s1", "s2"} {
		if g.stmts[n] != nil {
			names = append(names, n)
		}
	}
	return names[g.r.IntN(len(names))]
}

// portalName returns a portal to describe or close: one bound in this
// batch, or any other, existing or not.
func (g *generator) portalName() string {
	if len(g.bound) > 0 && g.chance(70) {
		return g.bound[g.r.IntN(len(g.bound))]
	}
	return g.oneOf("", "p1", "p2", "nosuch")
}

// rowLimit returns the row limit n for an Execute of portal; 0 for a
// data-modifying statement with RETURNING unless suspendedWriteVisible is
// included.
func (g *generator) rowLimit(portal string, n int) uint32 {
	if g.returning[portal] && !g.include(knownSuspendedWriteVisible) {
		return 0
	}
	return uint32(n)
}

// executeTarget returns a portal to execute: one bound in this batch, or
// one that never exists. A portal of an earlier batch is not executed:
// if its transaction block failed since, PostgreSQL 15 reads its
// statements from freed memory to decide whether it may run (they went
// with the failed transaction, or with the message of the simple query
// that made it), and answers at random or crashes. See doc.go,
// "PostgreSQL's own faults".
func (g *generator) executeTarget() string {
	if len(g.bound) > 0 && g.chance(90) {
		return g.bound[g.r.IntN(len(g.bound))]
	}
	return "nosuch"
}

// parse returns a Parse of a random template under name, with parameter
// types declared, left to the server (0), or declared differently.
func (g *generator) parse(name string) *pgproto3.Parse {
	t := g.parseTemplate()
	if name != "" && g.stmts[name] != nil && g.chance(70) {
		name = g.oneOf("s1", "s2") // try the other; the same one gives 42P05
	}
	var oids []uint32
	types := make([]uint32, len(t.params))
	copy(types, t.params)
	switch w := g.r.IntN(100); {
	case w < 35:
		// no types: the server infers them all
	case w < 90:
		n := len(t.params)
		if n > 0 && g.chance(20) {
			n = g.r.IntN(n) // the trailing ones inferred
		}
		oids = make([]uint32, n)
		for i := range oids {
			switch v := g.r.IntN(100); {
			case v < 60:
				oids[i] = t.params[i]
			case v < 85:
				oids[i] = 0
			default:
				oids[i] = g.otherType(t.params[i])
				types[i] = oids[i]
			}
		}
	default:
		// More types than parameters: the extra ones are parameters too.
		oids = append(append(oids, t.params...), oidInt4)
		types = append(types, oidInt4)
	}
	g.believeParse(name, t, types)
	return &pgproto3.Parse{Name: name, Query: g.fill(t), ParameterOIDs: oids}
}

// believeParse records a Parse in the model: a named statement that
// already exists stays as it was (PostgreSQL refuses the new one).
func (g *generator) believeParse(name string, t *template, types []uint32) {
	if name != "" && g.stmts[name] != nil {
		return
	}
	if types == nil {
		types = t.params
	}
	g.stmts[name] = &parsed{t: t, types: types}
}

// otherType returns a type a client could declare for a parameter of
// type oid instead: some coerce, some do not.
func (g *generator) otherType(oid uint32) uint32 {
	switch oid {
	case oidInt4:
		return []uint32{oidInt8, oidText}[g.r.IntN(2)]
	case oidInt8:
		return oidInt4
	case oidText:
		return []uint32{oidVarchar, oidInt4}[g.r.IntN(2)]
	case oidBool:
		return oidText
	}
	return oidText
}

// bind returns a Bind of statement name into portal, with parameters
// for what the model believes the statement takes (sometimes the wrong
// number) and random parameter and result formats.
func (g *generator) bind(portal, name string) *pgproto3.Bind {
	if !slices.Contains(g.bound, portal) {
		g.bound = append(g.bound, portal)
	}
	g.returning[portal] = g.stmts[name] != nil && g.stmts[name].t.returning
	b := &pgproto3.Bind{DestinationPortal: portal, PreparedStatement: name}
	var types, natural []uint32
	cols := 1
	if ps := g.stmts[name]; ps != nil {
		types, natural = ps.types, ps.t.params
		cols = ps.t.cols
	}
	n := len(types)
	if g.chance(5) {
		n += g.oneOfInt(-1, 1)
		n = max(n, 0)
	}
	b.ParameterFormatCodes = g.formats(n)
	for i := range n {
		typ, nat := uint32(oidText), uint32(0)
		if i < len(types) {
			typ = types[i]
		}
		if i < len(natural) {
			nat = natural[i]
		}
		binary := formatOf(b.ParameterFormatCodes, i) == 1
		b.Parameters = append(b.Parameters, g.value(typ, nat, binary))
	}
	b.ResultFormatCodes = g.formats(cols)
	return b
}

// oneOfInt returns one of the ints.
func (g *generator) oneOfInt(v ...int) int { return v[g.r.IntN(len(v))] }

// formats returns format codes for n values: none (all text), one for
// all, or one each; rarely a wrong count or an unknown code.
func (g *generator) formats(n int) []int16 {
	switch w := g.r.IntN(100); {
	case w < 40:
		return nil
	case w < 55:
		return []int16{0}
	case w < 75:
		return []int16{1}
	case w < 95:
		f := make([]int16, n)
		for i := range f {
			f[i] = int16(g.r.IntN(2))
		}
		return f
	case w < 98:
		f := make([]int16, n+2)
		for i := range f {
			f[i] = int16(g.r.IntN(2))
		}
		return f
	default:
		return []int16{2}
	}
}

// formatOf returns the format of value i under codes.
func formatOf(codes []int16, i int) int16 {
	switch {
	case len(codes) == 0:
		return 0
	case len(codes) == 1:
		return codes[0]
	case i < len(codes):
		return codes[i]
	}
	return 0
}

// value returns a parameter value of type oid in text or binary, now and
// then NULL or malformed. natural is the type the statement uses the
// parameter as (0 when unknown).
//
// Unless constantFolding is included, a value never makes the statement's
// expressions fail (it may still fail as a value of its declared type,
// which both servers check at Bind): PostgreSQL plans with the values at
// Bind and fails there what we fail at Execute. So a parameter declared
// with another type than its use gets a value good for both, and none gets
// the largest int4 (which + 1 overflows).
func (g *generator) value(oid, natural uint32, bin bool) []byte {
	if g.chance(6) {
		return nil
	}
	folds := g.include(knownConstantFolding)
	bad := g.chance(4)
	if !folds && natural != 0 && natural != oid {
		bad = false
		if oid == oidText || oid == oidVarchar {
			// Text that casts to the natural type.
			switch natural {
			case oidInt4, oidInt8:
				return strconv.AppendInt(nil, int64(g.r.IntN(keyRange)), 10)
			case oidBool:
				return []byte(g.oneOf("t", "f"))
			case oidTextArray:
				return []byte("{a,b}")
			}
		}
	}
	switch oid {
	case oidInt4, oidInt8:
		n := int64(g.oneOfInt(0, 1, 2, 3, 4, 5, 6, 7, -1))
		if folds && g.chance(5) {
			n = 2147483647
		}
		if !bin {
			if bad {
				return []byte(g.oneOf("abc", "", "1.5", "99999999999"))
			}
			return strconv.AppendInt(nil, n, 10)
		}
		size := 4
		if oid == oidInt8 {
			size = 8
		}
		if bad {
			size = g.oneOfInt(0, 2, 12-size)
		}
		b := make([]byte, size)
		switch size {
		case 4:
			binary.BigEndian.PutUint32(b, uint32(n))
		case 8:
			binary.BigEndian.PutUint64(b, uint64(n))
		}
		return b
	case oidBool:
		if bin {
			if bad {
				return []byte{}
			}
			return []byte{byte(g.r.IntN(2))}
		}
		if bad {
			return []byte("maybe")
		}
		return []byte(g.oneOf("t", "f", "true", "off", "yes", "0"))
	case oidTextArray:
		elems := [][]string{{"a", "b"}, {}, {"x y", ""}, {"q"}}[g.r.IntN(4)]
		if !bin {
			if bad {
				return []byte("{a")
			}
			return []byte(arrayText(elems))
		}
		return arrayBinary(elems, bad)
	default: // text, varchar
		return []byte(g.oneOf("a", "b", "w", "x y", "", "héllo", "a'b", "{a,b}", "1"))
	}
}

// arrayText is the text form of a one-dimensional text array.
func arrayText(elems []string) string {
	q := make([]string, len(elems))
	for i, e := range elems {
		q[i] = strconv.Quote(e)
	}
	return "{" + strings.Join(q, ",") + "}"
}

// arrayBinary is the binary form of a one-dimensional text array; bad
// declares an element type other than text.
func arrayBinary(elems []string, bad bool) []byte {
	elemType := uint32(oidText)
	if bad {
		elemType = oidInt4
	}
	var b []byte
	if len(elems) == 0 {
		b = binary.BigEndian.AppendUint32(b, 0) // ndim
		b = binary.BigEndian.AppendUint32(b, 0) // flags
		return binary.BigEndian.AppendUint32(b, elemType)
	}
	b = binary.BigEndian.AppendUint32(b, 1)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, elemType)
	b = binary.BigEndian.AppendUint32(b, uint32(len(elems)))
	b = binary.BigEndian.AppendUint32(b, 1) // lower bound
	for _, e := range elems {
		b = binary.BigEndian.AppendUint32(b, uint32(len(e)))
		b = append(b, e...)
	}
	return b
}

// copyInStep is a COPY FROM STDIN with its data, in either protocol,
// ended by CopyDone or CopyFail.
func (g *generator) copyInStep() Step {
	ci := &copyIns[g.r.IntN(len(copyIns))]
	for !g.include(ci.known) {
		ci = &copyIns[g.r.IntN(len(copyIns))]
	}
	var msgs []pgproto3.FrontendMessage
	extended := g.chance(35)
	if extended {
		// A statement of its own, closed after the Sync that ends the
		// copy (a Close before it would be discarded after an error):
		// a COPY FROM STDIN left behind could be executed later with
		// no data following, and both servers would wait for it.
		msgs = append(msgs,
			&pgproto3.Parse{Name: copyStmt, Query: ci.sql},
			&pgproto3.Bind{PreparedStatement: copyStmt},
			&pgproto3.Execute{})
	} else {
		msgs = append(msgs, &pgproto3.Query{String: ci.sql})
		delete(g.stmts, "")
	}
	end := g.r.IntN(100)
	// PostgreSQL ignores Flush and Sync during COPY FROM STDIN, and fails
	// it on another message; but once the copy has failed, what follows
	// is read as usual (a Sync is answered, a Query run). Which message
	// the copy fails at is not known here, so Sync, Flush or a Query come
	// only with data that cannot fail before its end.
	interleave := g.chance(8)
	clean := interleave || end >= 97
	data := []byte(g.copyData(ci, end >= 85, clean))
	// Split the data at random points, lines or not.
	for len(data) > 0 {
		n := len(data)
		if g.chance(50) {
			n = 1 + g.r.IntN(len(data))
		}
		msgs = append(msgs, &pgproto3.CopyData{Data: data[:n]})
		data = data[n:]
		if interleave && g.chance(40) {
			msgs = append(msgs, []pgproto3.FrontendMessage{&pgproto3.Flush{}, &pgproto3.Sync{}}[g.r.IntN(2)])
		}
	}
	switch {
	case end < 85:
		msgs = append(msgs, &pgproto3.CopyDone{})
	case end < 97:
		msgs = append(msgs, &pgproto3.CopyFail{Message: "client gave up"})
	default:
		// Any other message ends the copy with an error.
		msgs = append(msgs, &pgproto3.Query{String: "SELECT 1"})
	}
	if extended {
		if g.chance(50) {
			msgs = append(msgs, &pgproto3.Close{ObjectType: 'P'})
		}
		msgs = append(msgs, &pgproto3.Sync{}, &pgproto3.Close{ObjectType: 'S', Name: copyStmt}, &pgproto3.Sync{})
	}
	return Step{Msgs: msgs}
}

// copyStmt names the statement of an extended COPY FROM STDIN, which no
// other step uses.
const copyStmt = "copy"

// copyData returns the text of a COPY FROM STDIN: good lines mostly, some
// bad ones, sometimes the end marker. fails says the copy will not end
// with CopyDone; clean asks for data that cannot fail.
//
// Unless copyUniqueCheckDeferred is included, the data steers around it:
// a bad line comes only first (before any line that could repeat a key),
// and data that fails or must be clean writes only keys of its own (100
// and up, never twice in a sequence), so that no unique violation is
// pending when the copy fails.
func (g *generator) copyData(ci *copyIn, fails, clean bool) string {
	var b strings.Builder
	avoid := !g.include(knownCopyUniqueDeferred) && ci.table == 't'
	for i := range g.r.IntN(5) {
		k := g.r.IntN(keyRange + 4)
		if avoid && (fails || clean) {
			k = g.freshKey
			g.freshKey++
		}
		word := g.oneOf("c", "d e", "", "é")
		if g.chance(85) || clean || (avoid && i > 0) {
			switch {
			case ci.table == 'u':
				fmt.Fprintf(&b, "%d\t%s\n", k, g.oneOf("{a,b}", "{}", `\N`, `{"x y",NULL}`))
			case ci.csv:
				fmt.Fprintf(&b, "%d,%s\n", k, g.oneOf(word, `"a,b"`, `""`, ""))
			case ci.swap:
				fmt.Fprintf(&b, "%s\t%d\n", word, k)
			default:
				fmt.Fprintf(&b, "%d\t%s\n", k, g.oneOf(word, `\N`, `a\tb`))
			}
			continue
		}
		sep := "\t"
		if ci.csv {
			sep = ","
		}
		switch g.r.IntN(5) {
		case 0:
			b.WriteString("x" + sep + "y\n") // 22P02
		case 1:
			fmt.Fprintf(&b, "%d\n", k) // 22P04: missing column
		case 2:
			fmt.Fprintf(&b, "%d%sa%sb\n", k, sep, sep) // 22P04: extra column
		case 3:
			b.WriteString(`\N` + sep + "z\n") // 23502 (22P02 for u's column a? no: a is nullable)
		default:
			switch {
			case ci.table == 'u':
				fmt.Fprintf(&b, "%d\t{a\n", k) // 22P02 malformed array
			case avoid && fails:
				b.WriteString("x" + sep + "y\n")
			default:
				b.WriteString("1" + sep + "dup\n")
			}
		}
	}
	if g.chance(20) {
		b.WriteString("\\.\n")
	}
	return b.String()
}

// copyOutStep is a COPY TO STDOUT in either protocol.
func (g *generator) copyOutStep() Step {
	t := g.pick(copyOuts)
	if g.chance(70) {
		delete(g.stmts, "")
		return Step{Msgs: []pgproto3.FrontendMessage{&pgproto3.Query{String: t.sql}}}
	}
	g.stmts[""] = &parsed{t: t}
	return Step{Msgs: []pgproto3.FrontendMessage{
		&pgproto3.Parse{Query: t.sql},
		&pgproto3.Bind{},
		&pgproto3.Execute{MaxRows: uint32(g.r.IntN(2))},
		&pgproto3.Sync{},
	}}
}
