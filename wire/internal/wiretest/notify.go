package wiretest

import (
	"regexp"

	"github.com/prollypg/prollypg/wire"
)

// LISTEN, UNLISTEN and NOTIFY, just enough to drive the wire's delivery of
// notifications: LISTEN and UNLISTEN take effect at once; a NOTIFY is
// queued by its transaction (the implicit one of a batch, or BEGIN ...
// COMMIT) and delivered to every listening session of the Engine when it
// commits, dropped when it rolls back.

var (
	reListen   = regexp.MustCompile(`(?is)^listen\s+(\w+)$`)
	reUnlisten = regexp.MustCompile(`(?is)^unlisten\s+(\w+|\*)$`)
	reNotify   = regexp.MustCompile(`(?is)^notify\s+(\w+)(?:\s*,\s*'([^']*)')?$`)
)

var _ wire.NotificationSession = (*session)(nil)

// note is one notification.
type note struct {
	pid              uint32
	channel, payload string
}

// listen adds a channel to the session's.
func (s *session) listen(channel string) {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	if s.e.listening == nil {
		s.e.listening = make(map[*session]map[string]bool)
	}
	if s.e.listening[s] == nil {
		s.e.listening[s] = make(map[string]bool)
	}
	s.e.listening[s][channel] = true
}

// unlisten removes a channel, or all of them for "*".
func (s *session) unlisten(channel string) {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	if channel == "*" {
		delete(s.e.listening, s)
		return
	}
	delete(s.e.listening[s], channel)
}

// endTxn ends the session's transaction: on commit its notifications go
// to the sessions listening, in order; otherwise they are dropped.
func (s *session) endTxn(commit bool) {
	queued := s.queued
	s.queued = nil
	if !commit || len(queued) == 0 {
		return
	}
	var wake []*session
	s.e.mu.Lock()
	for l, channels := range s.e.listening {
		n := len(l.inbox)
		for _, q := range queued {
			if channels[q.channel] {
				l.inbox = append(l.inbox, q)
			}
		}
		if len(l.inbox) > n {
			wake = append(wake, l)
		}
	}
	s.e.mu.Unlock()
	for _, l := range wake {
		l.n.NotificationsPending()
	}
}

// Notifications implements wire.NotificationSession.
func (s *session) Notifications(send func(pid uint32, channel, payload string)) {
	s.e.mu.Lock()
	inbox := s.inbox
	s.inbox = nil
	s.e.mu.Unlock()
	for _, q := range inbox {
		send(q.pid, q.channel, q.payload)
	}
}
