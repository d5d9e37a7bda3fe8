package session

import (
	"slices"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// LISTEN, UNLISTEN, NOTIFY, pg_notify and pg_listening_channels, as
// PostgreSQL 15 has them:
//
//  1. A notification is queued by its transaction and delivered only when
//     that transaction commits; a rolled-back transaction, or savepoint
//     (ROLLBACK TO, a PL/pgSQL exception block), drops what it queued.
//     Within a transaction, a notification with the channel and payload
//     of one already queued is folded into it.
//  2. LISTEN and UNLISTEN are queued the same way and take effect at
//     commit, before the transaction's notifications are delivered (so a
//     transaction that does LISTEN c; NOTIFY c hears itself).
//  3. A committed notification goes to every session listening on its
//     channel in the same database and on the same branch (or the same
//     commit, for a session opened on a tag or commit) as the notifying
//     session at its commit, the notifier included. Commits deliver under
//     the hub's lock, so every listener receives them in one order, that
//     of the commits.
//  4. A listener takes its notifications when the wire asks
//     (Session.Notifications), which it does only outside a transaction
//     block; a notification whose channel the session no longer listens
//     on by then is dropped, as PostgreSQL checks at reading time.
//
// The hub belongs to the Engine (no global state). A session that has
// never listened has no mailbox and costs the hub nothing; one that has
// costs a lock per batch in which a notification reached it.

// maxPayload is PostgreSQL's NOTIFY_PAYLOAD_MAX_LENGTH (BLCKSZ − NAMEDATALEN
// − 128): a payload must be shorter.
const maxPayload = 8000

// maxChannel is NAMEDATALEN − 1, the longest channel name.
const maxChannel = 63

// foldScan is how many queued notifications are searched one by one for a
// duplicate before a map is built, as PostgreSQL switches to a hash table
// at 16.
const foldScan = 16

// notifyHub routes the notifications of one Engine's sessions. Unlike
// PostgreSQL's queue of fixed size (8 GB), a listener's mailbox has no
// bound: a session that listens and then stays in a transaction block
// for long holds what arrives meanwhile in memory.
type notifyHub struct {
	mu sync.Mutex
	// channels maps a channel to the mailboxes of the sessions listening
	// on it, each once.
	channels map[string][]*mailbox
}

// mailbox is a listening session's end of the hub.
type mailbox struct {
	// scope is the session's database and branch (notifyScope); pending
	// the notifications delivered and not yet taken; woken marks a
	// mailbox already on the list of those to wake. All three are
	// guarded by the hub's mu.
	scope   string
	pending []notification
	woken   bool
	// spare is the buffer pending is swapped with; the session's
	// goroutine only.
	spare []notification
	// wake tells the wire that notifications are pending; safe from any
	// goroutine. Nil when the session has no wire.
	wake func()
}

// note is a notification queued by a transaction.
type note struct{ channel, payload string }

// notification is a committed notification and who sent it.
type notification struct {
	pid uint32
	note
}

// listenAction is a LISTEN, UNLISTEN or UNLISTEN * waiting for commit.
type listenAction struct {
	op      byte // 'L' listen, 'U' unlisten, '*' unlisten all
	channel string
}

// notifyState is a session's part in LISTEN/NOTIFY.
type notifyState struct {
	// The open transaction's notifications (duplicates folded; seen
	// indexes them once there are more than foldScan) and listen actions,
	// applied at its commit.
	queued  []note
	seen    map[note]struct{}
	actions []listenAction
	// channels are the channels the session listens on, in the order of
	// their LISTEN (pg_listening_channels); box its mailbox, nil until
	// its first LISTEN commits. Both change only under the hub's mu, so
	// the hub may read them.
	channels []string
	box      *mailbox
}

// notifyMark is the size of the transaction's queues at a savepoint.
type notifyMark struct{ queued, actions int }

// mark returns where the queues stand, for a savepoint.
func (n *notifyState) mark() notifyMark {
	return notifyMark{len(n.queued), len(n.actions)}
}

// rollbackTo drops what was queued since m.
func (n *notifyState) rollbackTo(m notifyMark) {
	if m.queued < len(n.queued) {
		if n.seen != nil {
			for _, q := range n.queued[m.queued:] {
				delete(n.seen, q)
			}
		}
		clear(n.queued[m.queued:])
		n.queued = n.queued[:m.queued]
	}
	if m.actions < len(n.actions) {
		clear(n.actions[m.actions:])
		n.actions = n.actions[:m.actions]
	}
}

// drop forgets what the transaction queued: it rolled back.
func (n *notifyState) drop() {
	n.rollbackTo(notifyMark{})
	n.seen = nil
}

// listening reports whether the session listens on channel (committed).
func (n *notifyState) listening(channel string) bool {
	return slices.Contains(n.channels, channel)
}

// Listen queues LISTEN channel, which takes effect at commit.
func (s *Session) Listen(channel string) {
	s.notify.actions = append(s.notify.actions, listenAction{'L', channel})
}

// Unlisten queues UNLISTEN channel, or UNLISTEN * when channel is "".
func (s *Session) Unlisten(channel string) {
	act := listenAction{'U', channel}
	if channel == "" {
		act.op = '*'
	}
	s.notify.actions = append(s.notify.actions, act)
}

// ListeningChannels are the channels the session listens on, for
// pg_listening_channels; the caller does not keep the slice.
func (s *Session) ListeningChannels() []string { return s.notify.channels }

// Notify queues a notification for the transaction's commit, with
// PostgreSQL's checks (Async_Notify).
func (s *Session) Notify(channel, payload string) error {
	switch {
	case channel == "":
		return pgerr.New(pgerr.InvalidParameterValue, "channel name cannot be empty")
	case len(channel) > maxChannel:
		return pgerr.New(pgerr.InvalidParameterValue, "channel name too long")
	case len(payload) >= maxPayload:
		return pgerr.New(pgerr.InvalidParameterValue, "payload string too long")
	}
	n := &s.notify
	q := note{channel, payload}
	if n.seen != nil {
		if _, dup := n.seen[q]; dup {
			return nil
		}
		n.seen[q] = struct{}{}
	} else if slices.Contains(n.queued, q) {
		return nil
	} else if len(n.queued) >= foldScan {
		n.seen = make(map[note]struct{}, 2*len(n.queued))
		for _, x := range n.queued {
			n.seen[x] = struct{}{}
		}
		n.seen[q] = struct{}{}
	}
	n.queued = append(n.queued, q)
	return nil
}

// endNotify ends the transaction's part in LISTEN/NOTIFY: on commit its
// listen actions take effect and its notifications are delivered, else
// both are dropped. commit and rollback call it.
func (s *Session) endNotify(committed bool) {
	n := &s.notify
	if len(n.queued) == 0 && len(n.actions) == 0 {
		return
	}
	if committed {
		s.e.notify.commit(s)
	}
	n.drop()
}

// notifyScope names where the session's notifications go: its database
// and branch, or the commit it reads when it was opened on a tag or a
// commit. Database names hold no NUL.
func (s *Session) notifyScope() string {
	if s.branch == "" && s.detached != nil {
		return s.repo.Name() + "\x00@" + s.detached.Commit.String()
	}
	return s.repo.Name() + "\x00" + s.branch
}

// commit applies the session's committed listen actions, then delivers
// its notifications to the listeners in its scope, and wakes them.
func (h *notifyHub) commit(s *Session) {
	n := &s.notify
	scope := s.notifyScope()
	var wake []*mailbox
	h.mu.Lock()
	for _, a := range n.actions {
		switch a.op {
		case 'L':
			h.listen(s, a.channel, scope)
		case 'U':
			h.unlisten(s, a.channel)
		case '*':
			for len(n.channels) > 0 {
				h.unlisten(s, n.channels[len(n.channels)-1])
			}
		}
	}
	for _, q := range n.queued {
		for _, box := range h.channels[q.channel] {
			if box.scope != scope {
				continue
			}
			wake = box.post(notification{s.ProcessID, q}, wake)
		}
	}
	h.unlockAndWake(wake)
}

// post queues n in box and adds box to wake unless it is there already.
// The caller holds the hub's lock.
func (box *mailbox) post(n notification, wake []*mailbox) []*mailbox {
	box.pending = append(box.pending, n)
	if !box.woken && box.wake != nil {
		box.woken = true
		wake = append(wake, box)
	}
	return wake
}

// unlockAndWake releases the hub's lock, then wakes the mailboxes post
// collected: the wire's wake functions run outside the hub's lock.
func (h *notifyHub) unlockAndWake(wake []*mailbox) {
	for _, box := range wake {
		box.woken = false
	}
	h.mu.Unlock()
	for _, box := range wake {
		box.wake()
	}
}

// listen makes the session listen on channel. h.mu is held.
func (h *notifyHub) listen(s *Session, channel, scope string) {
	n := &s.notify
	if n.listening(channel) {
		return
	}
	if n.box == nil {
		n.box = &mailbox{scope: scope, wake: s.OnNotification}
	}
	n.channels = append(n.channels, channel)
	if h.channels == nil {
		h.channels = make(map[string][]*mailbox)
	}
	h.channels[channel] = append(h.channels[channel], n.box)
}

// unlisten stops the session listening on channel. h.mu is held.
func (h *notifyHub) unlisten(s *Session, channel string) {
	n := &s.notify
	i := slices.Index(n.channels, channel)
	if i < 0 {
		return
	}
	n.channels = slices.Delete(n.channels, i, i+1)
	boxes := slices.DeleteFunc(h.channels[channel], func(b *mailbox) bool { return b == n.box })
	if len(boxes) == 0 {
		delete(h.channels, channel)
	} else {
		h.channels[channel] = boxes
	}
}

// Notifications calls send for each notification delivered to the session
// since the last call, in order, skipping those whose channel it no
// longer listens on. The wire calls it outside transaction blocks only.
func (s *Session) Notifications(send func(pid uint32, channel, payload string)) {
	box := s.notify.box
	if box == nil {
		return
	}
	h := &s.e.notify
	h.mu.Lock()
	got := box.pending
	box.pending = box.spare[:0]
	h.mu.Unlock()
	for _, m := range got {
		if s.notify.listening(m.channel) {
			send(m.pid, m.channel, m.payload)
		}
	}
	clear(got)
	box.spare = got[:0]
}

// moveNotify follows the session to the branch it switched to: from now
// on it hears that branch's notifications.
func (s *Session) moveNotify() {
	if box := s.notify.box; box != nil {
		scope := s.notifyScope()
		s.e.notify.mu.Lock()
		box.scope = scope
		s.e.notify.mu.Unlock()
	}
}

// closeNotify stops the session listening, at its end.
func (s *Session) closeNotify() {
	s.notify.drop()
	if s.notify.box == nil {
		return
	}
	h := &s.e.notify
	h.mu.Lock()
	for len(s.notify.channels) > 0 {
		h.unlisten(s, s.notify.channels[len(s.notify.channels)-1])
	}
	h.mu.Unlock()
	s.notify.box = nil
}

// isNotifyStmt reports whether n is LISTEN, UNLISTEN or NOTIFY, which
// PostgreSQL allows in read-only transactions.
func isNotifyStmt(n *pg.Node) bool {
	return n.GetListenStmt() != nil || n.GetUnlistenStmt() != nil || n.GetNotifyStmt() != nil
}

// unlistenAll queues UNLISTEN * (DISCARD ALL).
func (s *Session) unlistenAll() {
	s.notify.actions = append(s.notify.actions, listenAction{op: '*'})
}

// pg_notify(text, text) is not strict: a NULL channel is an empty one (an
// error), a NULL payload an empty one. pg_notification_queue_usage() is
// 0: the hub has no fixed-size queue to fill (see notifyHub).
func init() {
	exec.Register(
		withSession("pg_notify", []uint32{exec.OIDText, exec.OIDText}, exec.OIDVoid, func(s *Session, _ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			if err := s.Notify(a[0].S, a[1].S); err != nil {
				return exec.Null, err
			}
			return exec.DText(""), nil // void
		}),
		withSession("pg_notification_queue_usage", nil, exec.OIDFloat8, func(*Session, *exec.Env, []exec.Datum) (exec.Datum, error) {
			return exec.DFloat(0), nil
		}),
	)
}

// textArg reports whether a value of type t passes as text to a function
// (an implicit cast in PostgreSQL).
func textArg(t exec.T) bool {
	switch t.OID {
	case exec.OIDText, exec.OIDVarchar, exec.OIDBpchar, exec.OIDName, exec.OIDUnknown:
		return true
	}
	return false
}

// textValue is d as text, "" for NULL; char(n) loses its padding, as its
// cast to text does.
func textValue(d exec.Datum, t exec.T) string {
	if d.IsNull() {
		return ""
	}
	if t.OID == exec.OIDBpchar {
		return strings.TrimRight(d.S, " ")
	}
	return d.S
}
