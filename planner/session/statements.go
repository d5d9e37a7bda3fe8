package session

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	pg "github.com/pganalyze/pg_query_go/v5"
	"github.com/zeebo/xxh3"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner/parsecache"
)

// statementStats are what pg_stat_statements shows: for each statement
// shape (its text with its literals' values left out,
// parsecache.StatementKey), user and database, how often it ran, the rows
// it returned or changed and how long it took. A statement the client
// sent counts once its result is closed having run to its end without an
// error; the statements it runs inside (a function's, a prepared
// statement EXECUTE names) do not count apart (pg_stat_statements.track
// = top). At most maxStatementEntries shapes are kept, as
// pg_stat_statements.max; later ones are not counted.
type statementStats struct {
	entries sync.Map // statementKey -> *statementEntry
	count   atomic.Int64
	// gen counts the resets: an entry of an earlier one, which a
	// statement or a parse cache shape may still hold, is not counted in.
	gen   atomic.Uint64
	mu    sync.Mutex
	reset time.Time // when the counters began, under mu
}

const maxStatementEntries = 5000

type statementKey struct{ database, user, shape string }

// statementEntry is one shape's counters, times in milliseconds (the
// standard deviation by Welford's method).
type statementEntry struct {
	key     statementKey
	gen     uint64
	query   string
	queryID int64
	mu      sync.Mutex
	calls   int64
	rows    int64
	total   float64
	min     float64
	max     float64
	mean    float64
	m2      float64
}

// entry returns the counters of the statement text run by user in
// database, made on first use (nil past maxStatementEntries).
func (ss *statementStats) entry(database, user, text string) *statementEntry {
	shape, ok := parsecache.StatementKey(text)
	if !ok {
		shape = text
	}
	k := statementKey{database, user, shape}
	if e, ok := ss.entries.Load(k); ok {
		return e.(*statementEntry)
	}
	if ss.count.Load() >= maxStatementEntries {
		return nil
	}
	query, err := pg.Normalize(text) // PostgreSQL's own: literals as $n
	if err != nil {
		query = text
	}
	e, loaded := ss.entries.LoadOrStore(k, &statementEntry{key: k, gen: ss.gen.Load(), query: query, queryID: int64(xxh3.HashString(shape))})
	if !loaded {
		ss.count.Add(1)
	}
	return e.(*statementEntry)
}

// add counts one run of the statement.
func (e *statementEntry) add(d time.Duration, rows int64) {
	ms := float64(d.Nanoseconds()) / 1e6
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls++
	e.rows += rows
	e.total += ms
	if e.calls == 1 || ms < e.min {
		e.min = ms
	}
	if ms > e.max {
		e.max = ms
	}
	delta := ms - e.mean
	e.mean += delta / float64(e.calls)
	e.m2 += delta * (ms - e.mean)
}

// snapshot returns every shape's counters and when they began.
func (ss *statementStats) snapshot() ([]catalog.StatementStat, time.Time) {
	var out []catalog.StatementStat
	ss.entries.Range(func(_, v any) bool {
		e := v.(*statementEntry)
		e.mu.Lock()
		st := catalog.StatementStat{Database: e.key.database, User: e.key.user, QueryID: e.queryID, Query: e.query,
			Calls: e.calls, Rows: e.rows, Total: e.total, Min: e.min, Max: e.max, Mean: e.mean}
		if e.calls > 0 {
			st.StdDev = math.Sqrt(e.m2 / float64(e.calls))
		}
		e.mu.Unlock()
		out = append(out, st)
		return true
	})
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return out, ss.reset
}

// resetAll forgets every shape (pg_stat_statements_reset()).
func (ss *statementStats) resetAll() {
	ss.entries.Range(func(k, _ any) bool {
		ss.entries.Delete(k)
		return true
	})
	ss.count.Store(0)
	ss.gen.Add(1)
	ss.mu.Lock()
	ss.reset = time.Now()
	ss.mu.Unlock()
}

// statementEntry is the counters this statement, which the client sent,
// adds to; nil for one it did not send.
// A prepared statement keeps its entry, and so does the parse cache's
// shape of a simple query, until a reset.
func (st *Statement) statementEntry() *statementEntry {
	if !st.top {
		return nil
	}
	ss := &st.s.e.statements
	gen := ss.gen.Load()
	if st.stat != nil && st.stat.gen == gen {
		return st.stat
	}
	if st.lease != nil {
		if e, ok := st.lease.Stat().(*statementEntry); ok && e.gen == gen {
			st.stat = e
			return e
		}
	}
	st.stat = ss.entry(st.s.repo.Name(), st.s.user, st.Text())
	if st.lease != nil && st.stat != nil {
		st.lease.SetStat(st.stat)
	}
	return st.stat
}

// countStatement counts r's run in the statement's counters when it ran to
// its end without an error.
func (r *Result) countStatement() {
	if r.stat == nil || r.failed {
		return
	}
	rows := r.n
	if c, ok := r.rows.(exec.CountedRows); ok {
		rows = c.Affected()
	}
	r.stat.add(time.Since(r.began), rows)
	r.stat = nil
}

func init() {
	// pg_stat_statements_reset(userid, dbid, queryid) forgets the
	// statements' counters; only all of them, here, whatever the
	// arguments select. A superuser's, as PostgreSQL grants it.
	reset := func(s *Session, env *exec.Env, _ []exec.Datum) (exec.Datum, error) {
		au, err := s.Authority(env.Ctx)
		if err != nil {
			return exec.Null, err
		}
		if !au.Superuser {
			return exec.Null, pgerr.New(pgerr.InsufficientPrivilege, "permission denied for function pg_stat_statements_reset")
		}
		s.e.statements.resetAll()
		return exec.DText(""), nil
	}
	exec.Register(
		withSession("pg_stat_statements_reset", nil, exec.OIDVoid, reset),
		withSession("pg_stat_statements_reset", []uint32{exec.OIDOid, exec.OIDOid, exec.OIDInt8}, exec.OIDVoid, reset),
	)
}
