package session

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
)

// Read replicas: StartReplica makes the engine follow branches of a
// database of another server (versioning.Replicator) in a background
// loop, and keeps its sessions from writing that database (they open it
// read-only: writes fail with 25006, as on PostgreSQL's hot standby).
// dolt_replication_status() reports, per branch, what the last step saw
// and how far behind the replica may be.
//
// The loop polls: a step every interval while the primary answers (or
// sooner, when the primary notifies that its refs moved), and
// on errors (the primary down or restarting) with a backoff doubling up
// to maxReplicaBackoff, logging the first error of a run of failures and
// the recovery.

// maxReplicaBackoff bounds the wait between failed steps.
const maxReplicaBackoff = 5 * time.Second

// replicaState is what the loop of a replicated database last saw.
type replicaState struct {
	mu       sync.Mutex
	url      string // masked
	branches []versioning.ReplicaBranch
	lastSync time.Time // the end of the last successful step
	synced   time.Time // the last moment every branch was known in sync
	lastErr  string
}

// StartReplica follows the branches of the database that url names
// (postgres://[user[:password]@]host:port/db) until ctx ends, polling
// every interval. The database is read-only for the engine's sessions
// from now on.
func (e *Engine) StartReplica(ctx context.Context, url string, branches []string, interval time.Duration) error {
	rp, err := versioning.NewReplicator(e.st, url, branches, e.log.Named("replica"))
	if err != nil {
		return err
	}
	st := &replicaState{url: versioning.RedactURL(url)}
	for _, b := range rp.Branches() {
		st.branches = append(st.branches, versioning.ReplicaBranch{Branch: b})
	}
	e.replicas.Store(rp.Database(), st)
	go e.replicate(ctx, rp, st, interval)
	return nil
}

// replicate is the loop of StartReplica.
func (e *Engine) replicate(ctx context.Context, rp *versioning.Replicator, st *replicaState, interval time.Duration) {
	defer rp.Close()
	log := e.log.Named("replica").With(zap.String("database", rp.Database()), zap.String("primary", st.url))
	log.Info("following the primary", zap.Strings("branches", rp.Branches()), zap.Duration("interval", interval))
	wait, failing := interval, false
	for {
		began := time.Now()
		out, err := rp.Step(ctx)
		if ctx.Err() != nil {
			return
		}
		st.mu.Lock()
		if err != nil {
			st.lastErr = err.Error()
			if !failing {
				log.Warn("replication step failed; retrying with backoff", zap.Error(err))
			}
			failing = true
			wait = min(max(2*wait, interval), maxReplicaBackoff)
		} else {
			if failing {
				log.Info("replication resumed")
			}
			failing, wait = false, interval
			st.lastErr, st.branches, st.lastSync = "", out, time.Now()
			inSync := true
			for _, b := range out {
				inSync = inSync && b.InSync()
				if b.Copied > 0 {
					log.Debug("replicated", zap.String("branch", b.Branch), zap.Int("chunks", b.Copied),
						zap.Stringer("head", b.LocalHead), zap.Duration("took", time.Since(began)))
				}
			}
			if inSync {
				// What the primary had when the step read its refs is
				// here: the replica was at most this old.
				st.synced = began
			}
		}
		st.mu.Unlock()
		if failing {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			continue
		}
		// Woken early when the primary notifies that its refs moved
		// (planner/session/peerwatch.go), else after the interval.
		if rp.Wait(ctx, wait) != nil {
			return
		}
	}
}

// requireNotReplica refuses to change the branches of a database this
// server follows as a read replica (dolt_branch, dolt_checkout -b, ...):
// the next step of the replica would undo or ignore the change.
func (s *Session) requireNotReplica() error {
	if s.repo == nil || !s.e.Replicated(s.repo.Name()) {
		return nil
	}
	return pgerr.New(pgerr.ReadOnlySQLTransaction, "cannot change database %q: it is a read replica", s.repo.Name())
}

// pgEpoch is PostgreSQL's timestamp epoch.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func timestampTZ(t time.Time) exec.Datum {
	if t.IsZero() {
		return exec.Null
	}
	return exec.DTimestamp(t.Sub(pgEpoch).Microseconds())
}

func init() {
	fn := withSession("dolt_replication_status", nil, exec.OIDRecord, nil)
	exec.RegisterSRF(fn, func([]exec.T) *exec.SRF {
		cols := []exec.ResultColumn{
			{Name: "database", T: exec.TText}, {Name: "branch", T: exec.TText}, {Name: "primary_url", T: exec.TText},
			{Name: "primary_head", T: exec.TText}, {Name: "local_head", T: exec.TText},
			{Name: "primary_working", T: exec.TText}, {Name: "local_working", T: exec.TText},
			{Name: "last_sync", T: exec.TTimestampTZ}, {Name: "lag_ms", T: exec.TInt8}, {Name: "last_error", T: exec.TText},
		}
		return &exec.SRF{Cols: cols, Rows: func(env *exec.Env, _ []exec.Datum) ([]exec.Row, error) {
			s, ok := env.Session.(*Session)
			if !ok {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "dolt_replication_status() cannot be called outside a session's statement")
			}
			return s.e.replicationStatus(), nil
		}}
	})
}

// replicationStatus is dolt_replication_status(): a row per followed
// branch. lag_ms is how long ago the replica was last known to hold what
// the primary had (the start of the last step that found every branch
// in sync), an upper bound of how far behind it is; NULL before the
// first such step.
func (e *Engine) replicationStatus() []exec.Row {
	var rows []exec.Row
	e.replicas.Range(func(k, v any) bool {
		st := v.(*replicaState)
		st.mu.Lock()
		defer st.mu.Unlock()
		lag := exec.Null
		if !st.synced.IsZero() {
			lag = exec.DInt(time.Since(st.synced).Milliseconds())
		}
		hash := func(a versioning.Address) exec.Datum {
			if a.IsZero() {
				return exec.Null
			}
			return exec.DText(a.String())
		}
		errText := exec.Null
		if st.lastErr != "" {
			errText = exec.DText(st.lastErr)
		}
		for _, b := range st.branches {
			rows = append(rows, exec.Row{exec.DText(k.(string)), exec.DText(b.Branch), exec.DText(st.url),
				hash(b.PrimaryHead), hash(b.LocalHead), hash(b.PrimaryWS), hash(b.LocalWS),
				timestampTZ(st.lastSync), lag, errText})
		}
		return true
	})
	return rows
}
