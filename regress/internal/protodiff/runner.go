package protodiff

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// Setup and final-state SQL. The tables are created once per database and
// emptied and refilled before every sequence, so that no state carries
// from one sequence to the next.
const (
	createSQL = "CREATE TABLE t (id int PRIMARY KEY, v text); CREATE TABLE u (a int, b text[])"
	resetSQL  = "DELETE FROM t; DELETE FROM u; INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c'); INSERT INTO u VALUES (1, '{x,y}')"
	finalSQL  = "SELECT id, v FROM t ORDER BY id; SELECT a, b FROM u ORDER BY a, b"
)

// Options say where the two servers are and how to talk to them.
type Options struct {
	Ref, Ours string // host:port of PostgreSQL 15 and of our server
	Database  string // an existing database on both, which the runner owns
	// Timeout bounds every read and write; a server silent for longer is
	// a difference (CatHang), not a stuck run. Default 5s.
	Timeout time.Duration
}

// Result is the outcome of one sequence.
type Result struct {
	Diff      *Diff // the first failing difference; nil if none
	Text      *Diff // the first difference in wording only; nil if none
	Responses int   // responses compared (on each side)
	Sent      int   // frontend messages sent (to each side)
	// Kinds counts PostgreSQL's responses by kind ("ErrorResponse
	// 22012" for errors), to show what the sequences exercised.
	Kinds map[string]int
}

// A Runner runs sequences against the two servers, over a control
// connection to each for setup and final state and a fresh session per
// sequence. A Runner is used by one goroutine at a time.
type Runner struct {
	opts          Options
	refCtl, ourCt *Conn
}

// NewRunner connects to both servers and creates the tables in
// opts.Database.
func NewRunner(opts Options) (*Runner, error) {
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	r := &Runner{opts: opts}
	if err := r.connect(); err != nil {
		return nil, err
	}
	for _, c := range []*Conn{r.refCtl, r.ourCt} {
		if _, err := c.Exec("DROP TABLE IF EXISTS t, u"); err != nil {
			r.Close()
			return nil, err
		}
		if _, err := c.Exec(createSQL); err != nil {
			r.Close()
			return nil, err
		}
	}
	return r, nil
}

// connect (re)opens the control connections.
func (r *Runner) connect() error {
	r.Close()
	var err error
	if r.refCtl, err = Dial(r.opts.Ref, r.opts.Database, r.opts.Timeout); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if r.ourCt, err = Dial(r.opts.Ours, r.opts.Database, r.opts.Timeout); err != nil {
		return fmt.Errorf("ours: %w", err)
	}
	return nil
}

// Close closes the control connections.
func (r *Runner) Close() {
	for _, c := range []*Conn{r.refCtl, r.ourCt} {
		if c != nil {
			c.Close()
		}
	}
	r.refCtl, r.ourCt = nil, nil
}

// Run runs seq on both servers and compares every response. It stops at
// the first failing difference: after it the sessions have diverged and
// what follows says nothing more. An error means the tester could not do
// its job (a server unreachable, the setup failing).
func (r *Runner) Run(seq Sequence) (Result, error) {
	var res Result
	if r.refCtl == nil || r.ourCt == nil {
		if err := r.connect(); err != nil {
			return res, err
		}
	}
	if err := r.ctl(func(c *Conn) error { _, err := c.Exec(resetSQL); return err }); err != nil {
		// A control connection that broke (a step may have upset the
		// server) is reopened once before giving up.
		if err := r.connect(); err != nil {
			return res, err
		}
		if err := r.ctl(func(c *Conn) error { _, err := c.Exec(resetSQL); return err }); err != nil {
			return res, fmt.Errorf("setup: %w", err)
		}
	}
	var ref, ours *Conn
	var refErr, oursErr error
	both(func() { ref, refErr = Dial(r.opts.Ref, r.opts.Database, r.opts.Timeout) },
		func() { ours, oursErr = Dial(r.opts.Ours, r.opts.Database, r.opts.Timeout) })
	if refErr != nil || oursErr != nil {
		closeAll(ref, ours)
		return res, fmt.Errorf("connecting: postgres: %v; ours: %v", refErr, oursErr)
	}
	for i, st := range seq.Steps {
		var rr, or []Response
		both(func() { rr = ref.Run(st) }, func() { or = ours.Run(st) })
		res.Sent += len(st.Msgs)
		res.count(rr)
		cat, idx, textIdx := compare(rr, or)
		res.Responses += min(len(rr), len(or))
		if textIdx >= 0 && res.Text == nil {
			res.Text = &Diff{Category: CatText, Step: i, Index: textIdx, Ref: rr, Ours: or}
		}
		if cat != "" {
			res.Diff = &Diff{Category: cat, Step: i, Index: idx, Ref: rr, Ours: or}
			break
		}
	}
	// Ending the sessions rolls back what they left open; Close waits
	// until the servers have done so.
	both(func() { ref.Close() }, func() { ours.Close() })
	if res.Diff != nil {
		return res, nil
	}
	var rr, or []Response
	var refErr2, oursErr2 error
	both(func() { rr, refErr2 = r.refCtl.Exec(finalSQL) }, func() { or, oursErr2 = r.ourCt.Exec(finalSQL) })
	if refErr2 != nil {
		return res, fmt.Errorf("final state on postgres: %w", refErr2)
	}
	if oursErr2 != nil {
		res.Diff = &Diff{Category: CatState, Step: len(seq.Steps), Final: true, Ref: rr, Ours: or}
		return res, nil
	}
	res.Responses += min(len(rr), len(or))
	if cat, idx, _ := compare(rr, or); cat != "" {
		res.Diff = &Diff{Category: CatState, Step: len(seq.Steps), Final: true, Index: idx, Ref: rr, Ours: or}
	}
	return res, nil
}

// count adds PostgreSQL's responses to Kinds.
func (res *Result) count(rs []Response) {
	if res.Kinds == nil {
		res.Kinds = make(map[string]int)
	}
	for _, r := range rs {
		k := r.Kind
		if k == "ErrorResponse" || k == "NoticeResponse" {
			k += " " + r.Body[strings.IndexByte(r.Body, ' ')+1:]
		}
		res.Kinds[k]++
	}
}

// ctl runs f on both control connections, concurrently.
func (r *Runner) ctl(f func(*Conn) error) error {
	var refErr, oursErr error
	both(func() { refErr = f(r.refCtl) }, func() { oursErr = f(r.ourCt) })
	if refErr != nil {
		return fmt.Errorf("postgres: %w", refErr)
	}
	if oursErr != nil {
		return fmt.Errorf("ours: %w", oursErr)
	}
	return nil
}

// both runs f and g concurrently: the servers answer in parallel, which
// halves the time of a step.
func both(f, g func()) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); g() }()
	f()
	wg.Wait()
}

// closeAll closes the connections that were opened.
func closeAll(cs ...*Conn) {
	for _, c := range cs {
		if c != nil {
			c.Close()
		}
	}
}
