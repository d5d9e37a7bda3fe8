package session

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
)

// What pg_stat_activity shows: the engine keeps its live sessions, and each
// session publishes what it is doing as an immutable snapshot, read by
// other sessions' scans without locking the session.

// liveSessions is the engine's set of open sessions.
type liveSessions struct {
	mu sync.Mutex
	m  map[*Session]struct{}
}

func (l *liveSessions) add(s *Session) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[*Session]struct{}{}
	}
	l.m[s] = struct{}{}
}

func (l *liveSessions) remove(s *Session) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, s)
}

// backends returns every session as pg_stat_activity shows it.
func (l *liveSessions) backends() []catalog.Backend {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]catalog.Backend, 0, len(l.m))
	for s := range l.m {
		a := s.activity.Load()
		if a == nil {
			continue
		}
		out = append(out, catalog.Backend{
			PID: a.pid, Database: s.database, User: s.user, Application: a.app,
			BackendStart: s.started, XactStart: a.xactStart, QueryStart: a.queryStart, Since: a.since,
			State: a.state, Query: a.query,
		})
	}
	return out
}

// userOf returns the role that session pid connected as.
func (l *liveSessions) userOf(pid uint32) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for s := range l.m {
		if a := s.activity.Load(); a != nil && a.pid == pid {
			return s.user, true
		}
	}
	return "", false
}

// blockingPIDs returns the pids of the sessions whose transactions (or
// session-level advisory locks) hold the lock that session pid waits for,
// in modes that conflict with its want; none when it waits for nothing
// (pg_blocking_pids).
func (l *liveSessions) blockingPIDs(locks *exec.RowLocks, pid uint32) []uint32 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var holders []uint64
	for s := range l.m {
		if s.ProcessID != pid {
			continue
		}
		for _, o := range [...]uint64{s.lockOwner.Load(), s.advOwner.Load()} {
			if o != 0 {
				holders = append(holders, locks.WaitsFor(o)...)
			}
		}
	}
	var pids []uint32
	for s := range l.m {
		if o := s.lockOwner.Load(); o != 0 && slices.Contains(holders, o) {
			pids = append(pids, s.ProcessID)
		} else if o := s.advOwner.Load(); o != 0 && slices.Contains(holders, o) {
			pids = append(pids, s.ProcessID)
		}
	}
	slices.Sort(pids)
	return pids
}

// tableModeNames are PostgreSQL's names of the table lock modes, by
// exec.LockMode; rowModeNames those it gives the row lock strengths
// (heapam's tupleLockExtraInfo).
var (
	tableModeNames = [...]string{"", "AccessShareLock", "RowShareLock", "RowExclusiveLock", "ShareUpdateExclusiveLock",
		"ShareLock", "ShareRowExclusiveLock", "ExclusiveLock", "AccessExclusiveLock"}
	rowModeNames = [...]string{"", "AccessShareLock", "RowShareLock", "ExclusiveLock", "AccessExclusiveLock"}
)

// locks returns the locks of the engine's lock table as pg_locks shows
// them, each with the pid of the session holding or awaiting it.
func (l *liveSessions) locks(rl *exec.RowLocks) []catalog.Lock {
	all := rl.Snapshot()
	pids := map[uint64]uint32{}
	l.mu.Lock()
	for s := range l.m {
		for _, o := range [...]uint64{s.lockOwner.Load(), s.advOwner.Load()} {
			if o != 0 {
				pids[o] = s.ProcessID
			}
		}
	}
	l.mu.Unlock()
	out := make([]catalog.Lock, 0, len(all))
	for _, li := range all {
		k := li.Key
		c := catalog.Lock{Database: k.Database, PID: pids[li.Owner], Granted: li.Granted}
		switch k.Space {
		case exec.SpaceTable:
			c.Type, c.Table, c.Mode = "relation", k.Table, tableModeNames[li.Mode]
		case exec.SpaceAdvisory:
			c.Type, c.Mode = "advisory", tableModeNames[li.Mode]
			parts := strings.Split(k.Key, ":")
			if len(parts) == 2 {
				a, _ := strconv.ParseInt(parts[0], 10, 64)
				b, _ := strconv.ParseInt(parts[1], 10, 64)
				c.ClassID, c.ObjID, c.ObjSubID = uint32(a), uint32(b), 2
			} else {
				n, _ := strconv.ParseInt(k.Key, 10, 64)
				c.ClassID, c.ObjID, c.ObjSubID = uint32(uint64(n)>>32), uint32(n), 1
			}
		default:
			table, _, _ := strings.Cut(k.Table, "#") // a unique value's lock is its table's
			c.Type, c.Table, c.Mode = "tuple", table, rowModeNames[li.Mode]
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b catalog.Lock) int { return cmp.Compare(a.PID, b.PID) })
	return out
}

// ofUser counts the sessions whose session user is user.
func (l *liveSessions) ofUser(user string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for s := range l.m {
		if s.user == user {
			n++
		}
	}
	return n
}

// onBranch counts the sessions other than except working on branch of
// database db.
func (l *liveSessions) onBranch(db, branch string, except *Session) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for s := range l.m {
		if a := s.activity.Load(); s != except && a != nil && a.branch == branch && s.repo.Name() == db {
			n++
		}
	}
	return n
}

// activity is a session's state at one moment; a new one replaces it.
type activity struct {
	pid                          uint32 // read by the session, as the wire layer sets it after Connect
	branch                       string // the branch it works on; "" on a read-only revision
	state, query, app            string
	queryStart, since, xactStart time.Time
}

// sessionActivity holds a session's current activity.
type sessionActivity = atomic.Pointer[activity]

// publish records what the session does now: state is pg_stat_activity's
// (active, idle, idle in transaction, ...), query the statement running
// or, when idle, the last one ("" keeps the previous).
func (s *Session) publish(state, query string) {
	now := time.Now()
	a := &activity{pid: s.ProcessID, state: state, query: query, app: s.vars["application_name"], since: now}
	if s.detached == nil {
		a.branch = s.branch
	}
	if prev := s.activity.Load(); prev != nil {
		a.queryStart = prev.queryStart
		if query == "" {
			a.query = prev.query
		}
	}
	if state == "active" {
		a.queryStart = now
	}
	if s.txn != nil {
		a.xactStart = s.txn.StartTime
	}
	s.activity.Store(a)
}
