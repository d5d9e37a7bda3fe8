package session

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/prollypg/prollypg/versioning"
)

// The wakeup of peers that follow a database (read replicas): a session
// that LISTENs on PeerRefsChannel hears a notification, whose payload is
// the database's name, soon after any ref of its database moves — a SQL
// COMMIT, a dolt_commit, a push — so that a replica need not wait for its
// next poll. Notifications are the ordinary ones (notify.go): delivered
// while the listening session is idle, so waiting for one holds no
// transaction open and keeps nothing (dolt_gc's gate) waiting.
//
// The engine learns which databases to watch from the peers themselves:
// each dolt_peer_refs call marks its database watched for
// peerWatchLinger. One goroutine, running only while some database is
// watched, reads the watched databases' refs every peerWatchEvery (from
// the store's ref cache and index: no chunk is read) and notifies when
// they differ from the last reading. Watching by polling here rather than
// hooking every path that moves refs keeps those paths as they are; the
// cost is a ref listing per watched database every few milliseconds.

// PeerRefsChannel is the channel of the notifications that a database's
// refs moved.
const PeerRefsChannel = "dolt_peer_refs"

const (
	peerWatchEvery  = 10 * time.Millisecond
	peerWatchLinger = 30 * time.Second
)

// peerWatch is the set of watched databases and the goroutine's state.
type peerWatch struct {
	mu      sync.Mutex
	dbs     map[string]*watchedDB
	running bool
}

// watchedDB is one watched database: when a peer last asked for its refs,
// and what the watcher read last.
type watchedDB struct {
	asked time.Time
	refs  string
}

// watchPeerRefs marks db watched, starting the watcher if it is not
// running.
func (e *Engine) watchPeerRefs(db string) {
	w := &e.peer.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dbs == nil {
		w.dbs = map[string]*watchedDB{}
	}
	d := w.dbs[db]
	if d == nil {
		d = &watchedDB{refs: e.refsFingerprint(db)}
		w.dbs[db] = d
	}
	d.asked = time.Now()
	if !w.running {
		w.running = true
		go e.watchPeers()
	}
}

// watchPeers is the watcher: it ends once no database is watched.
func (e *Engine) watchPeers() {
	w := &e.peer.watch
	t := time.NewTicker(peerWatchEvery)
	defer t.Stop()
	for range t.C {
		w.mu.Lock()
		now := time.Now()
		var changed []string
		for db, d := range w.dbs {
			if now.Sub(d.asked) > peerWatchLinger {
				delete(w.dbs, db)
				continue
			}
			if f := e.refsFingerprint(db); f != d.refs {
				d.refs = f
				changed = append(changed, db)
			}
		}
		if len(w.dbs) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		for _, db := range changed {
			e.notify.deliver(PeerRefsChannel, db, func(scope string) bool { return strings.HasPrefix(scope, db+"\x00") })
		}
	}
}

// refsFingerprint is the database's refs as one string ("" if they
// cannot be read: the next reading that can differs).
func (e *Engine) refsFingerprint(db string) string {
	var b strings.Builder
	err := versioning.PeerRefs(context.Background(), e.st, db, func(name string, a versioning.Address) error {
		b.WriteString(name)
		b.WriteByte(0)
		b.Write(a[:])
		return nil
	})
	if err != nil {
		return ""
	}
	return b.String()
}

// deliver sends a notification from the engine itself (process id 0) on
// channel to the sessions listening on it whose scope (notifyScope)
// inScope accepts, and wakes them.
func (h *notifyHub) deliver(channel, payload string, inScope func(scope string) bool) {
	var wake []*mailbox
	h.mu.Lock()
	for _, box := range h.channels[channel] {
		if !inScope(box.scope) {
			continue
		}
		wake = box.post(notification{0, note{channel, payload}}, wake)
	}
	h.unlockAndWake(wake)
}
