package protodiff

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Config describes a campaign: many sequences against the two servers.
type Config struct {
	Ref, Ours string // host:port of PostgreSQL 15 and of our server, user postgres, trust
	// Seed is the seed of the first sequence; sequence i has seed Seed+i,
	// so any one can be replayed alone.
	Seed uint64
	// N is the number of sequences (0: no limit); Duration, if set,
	// stops earlier. One of them must be set.
	N        int
	Duration time.Duration
	// Workers run sequences in parallel, each in a database of its own
	// (protodiff_1, ...) created on both servers. Default 1.
	Workers int
	Gen     GenOptions
	Timeout time.Duration // see Options.Timeout
	// ShrinkRuns bounds the runs spent shrinking one difference (default
	// 300); MaxShrinks bounds how many distinct differences are shrunk
	// (default 20, negative for none); the others are counted.
	ShrinkRuns, MaxShrinks int
	// Log receives progress lines; nil for none.
	Log io.Writer
}

// A Finding is one distinct difference (by Diff.Signature) and how often
// it was seen.
type Finding struct {
	Signature string
	Category  Category
	Count     int
	Seed      uint64 // the first sequence that showed it
	Diff      *Diff  // as first seen
	// Shrunk is the minimal sequence found and ShrunkDiff its
	// difference; Shrunk.Steps is nil when it was not shrunk.
	Shrunk     Sequence
	ShrunkDiff *Diff
	Flaky      bool // the first sequence did not show it again
}

// Totals sum up a campaign.
type Totals struct {
	Sequences int
	Sent      int // frontend messages sent to each server
	Responses int // backend messages compared
	Elapsed   time.Duration
	// ByCategory counts the sequences with a difference, by the
	// category of their first one (CatText: their first difference in
	// wording, counted whether or not a failing one followed).
	ByCategory map[Category]int
	Findings   []*Finding // in the order first seen
	Errors     []string   // faults of the tester or of the setup
	// Kinds counts PostgreSQL's responses by kind (see Result.Kinds).
	Kinds map[string]int
}

// Failed reports whether any failing difference, or error, was found.
func (t *Totals) Failed() bool {
	if len(t.Errors) > 0 {
		return true
	}
	for c, n := range t.ByCategory {
		if c.Fails() && n > 0 {
			return true
		}
	}
	return false
}

// campaign is the state the workers share, under mu.
type campaign struct {
	cfg      Config
	deadline time.Time
	mu       sync.Mutex
	next     int
	totals   Totals
	bySig    map[string]*Finding
	shrunk   int
	lastLog  time.Time
	start    time.Time
}

// Run runs a campaign and returns its totals; the error is for a
// campaign that could not start (a server unreachable).
func Run(cfg Config) (*Totals, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if cfg.ShrinkRuns <= 0 {
		cfg.ShrinkRuns = 300
	}
	if cfg.MaxShrinks == 0 {
		cfg.MaxShrinks = 20
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	c := &campaign{cfg: cfg, bySig: make(map[string]*Finding), start: time.Now()}
	c.totals.ByCategory = make(map[Category]int)
	c.totals.Kinds = make(map[string]int)
	if cfg.Duration > 0 {
		c.deadline = c.start.Add(cfg.Duration)
	}
	c.lastLog = c.start
	runners := make([]*Runner, cfg.Workers)
	for i := range runners {
		db := fmt.Sprintf("protodiff_%d", i+1)
		if err := createDatabase(cfg, db); err != nil {
			return nil, err
		}
		r, err := NewRunner(Options{Ref: cfg.Ref, Ours: cfg.Ours, Database: db, Timeout: cfg.Timeout})
		if err != nil {
			return nil, err
		}
		defer r.Close()
		runners[i] = r
	}
	var wg sync.WaitGroup
	for _, r := range runners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.work(r)
		}()
	}
	wg.Wait()
	c.totals.Elapsed = time.Since(c.start)
	return &c.totals, nil
}

// createDatabase (re)creates db on both servers.
func createDatabase(cfg Config, db string) error {
	for _, addr := range []string{cfg.Ref, cfg.Ours} {
		c, err := Dial(addr, "postgres", cfg.Timeout)
		if err != nil {
			return err
		}
		_, err = c.Exec("DROP DATABASE IF EXISTS " + db)
		if err == nil {
			_, err = c.Exec("CREATE DATABASE " + db)
		}
		c.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", addr, err)
		}
	}
	return nil
}

// take returns the index of the next sequence to run; false when the
// campaign is over.
func (c *campaign) take() (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if (c.cfg.N > 0 && c.next >= c.cfg.N) || (!c.deadline.IsZero() && time.Now().After(c.deadline)) || len(c.totals.Errors) >= 10 {
		return 0, false
	}
	c.next++
	return c.next - 1, true
}

// work runs sequences until the campaign is over.
func (c *campaign) work(r *Runner) {
	for {
		i, ok := c.take()
		if !ok {
			return
		}
		seq := Generate(c.cfg.Seed+uint64(i), c.cfg.Gen)
		res, err := r.Run(seq)
		if err != nil {
			c.record(seq, res, fmt.Sprintf("seed %d: %v", seq.Seed, err))
			continue
		}
		for _, d := range []*Diff{res.Diff, res.Text} {
			if d == nil {
				continue
			}
			if f := c.finding(seq, d); f != nil {
				c.shrink(r, f, seq)
			}
		}
		c.record(seq, res, "")
	}
}

// record adds a sequence's result to the totals.
func (c *campaign) record(seq Sequence, res Result, fault string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &c.totals
	t.Sequences++
	t.Sent += res.Sent
	t.Responses += res.Responses
	for k, n := range res.Kinds {
		t.Kinds[k] += n
	}
	if fault != "" {
		t.Errors = append(t.Errors, fault)
	}
	if res.Diff != nil {
		t.ByCategory[res.Diff.Category]++
	}
	if res.Text != nil {
		t.ByCategory[CatText]++
	}
	if c.cfg.Log != nil && time.Since(c.lastLog) >= 10*time.Second {
		c.lastLog = time.Now()
		el := time.Since(c.start)
		fmt.Fprintf(c.cfg.Log, "protodiff: %d sequences in %v (%.1f/s), %d responses compared, differences %s\n",
			t.Sequences, el.Round(time.Second), float64(t.Sequences)/el.Seconds(), t.Responses, categories(t.ByCategory))
	}
}

// finding counts d under its signature and returns the Finding if it is
// new and is to be shrunk.
func (c *campaign) finding(seq Sequence, d *Diff) *Finding {
	c.mu.Lock()
	defer c.mu.Unlock()
	sig := d.Signature()
	if f := c.bySig[sig]; f != nil {
		f.Count++
		return nil
	}
	f := &Finding{Signature: sig, Category: d.Category, Count: 1, Seed: seq.Seed, Diff: d}
	c.bySig[sig] = f
	c.totals.Findings = append(c.totals.Findings, f)
	if c.cfg.Log != nil {
		fmt.Fprintf(c.cfg.Log, "protodiff: new difference (seed %d, step %d): %s\n", seq.Seed, d.Step+1, sig)
	}
	if c.shrunk >= c.cfg.MaxShrinks {
		return nil
	}
	c.shrunk++
	return f
}

// shrink shrinks f's sequence on r and stores the result in f.
func (c *campaign) shrink(r *Runner, f *Finding, seq Sequence) {
	small, res, reproduced, err := r.Shrink(seq, f.Diff, c.cfg.ShrinkRuns)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.totals.Errors = append(c.totals.Errors, fmt.Sprintf("shrinking seed %d: %v", seq.Seed, err))
		return
	}
	if !reproduced {
		f.Flaky = true
		return
	}
	f.Shrunk = small
	f.ShrunkDiff = res.Diff
	if f.Category == CatText {
		f.ShrunkDiff = res.Text
	}
}

// categories prints counts by category, failing ones first.
func categories(m map[Category]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for c, n := range m {
		parts = append(parts, fmt.Sprintf("%s=%d", c, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// Report writes the totals and every finding, with its minimal sequence.
func (t *Totals) Report(w io.Writer) {
	rate := float64(t.Sequences) / t.Elapsed.Seconds()
	fmt.Fprintf(w, "protodiff: %d sequences, %d messages sent, %d responses compared, in %v (%.1f sequences/s)\n",
		t.Sequences, t.Sent, t.Responses, t.Elapsed.Round(time.Millisecond), rate)
	fmt.Fprintf(w, "protodiff: sequences with a difference, by category: %s\n", categories(t.ByCategory))
	kinds := make([]string, 0, len(t.Kinds))
	for k, n := range t.Kinds {
		kinds = append(kinds, fmt.Sprintf("%s=%d", k, n))
	}
	sort.Strings(kinds)
	fmt.Fprintf(w, "protodiff: PostgreSQL's responses by kind: %s\n", strings.Join(kinds, ", "))
	for _, e := range t.Errors {
		fmt.Fprintf(w, "protodiff: tester error: %s\n", e)
	}
	findings := slices.Clone(t.Findings)
	sort.SliceStable(findings, func(i, j int) bool {
		return findings[i].Category.Fails() && !findings[j].Category.Fails()
	})
	for _, f := range findings {
		fmt.Fprintf(w, "\n=== %s\n    seen %d times; first in seed %d (replay: make protodiff N=1 SEED=%d)\n", f.Signature, f.Count, f.Seed, f.Seed)
		switch {
		case f.Flaky:
			fmt.Fprintf(w, "    not reproduced when run again (flaky); as first seen:\n%s", indent(f.Diff.String()))
		case f.Shrunk.Steps == nil:
			fmt.Fprintf(w, "    (not shrunk) as first seen:\n%s", indent(f.Diff.String()))
		default:
			fmt.Fprintf(w, "    minimal sequence:\n%s    %s", indent(f.Shrunk.String()), indent(f.ShrunkDiff.String())[4:])
		}
	}
}

// indent indents every line of s by four spaces.
func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString("    " + l)
		}
	}
	return b.String()
}
