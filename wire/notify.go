package wire

import (
	"errors"
	"os"
	"time"

	"go.uber.org/zap"
)

// Asynchronous notifications (LISTEN/NOTIFY), as PostgreSQL 15 sends them:
// NotificationResponse messages go out just before a ReadyForQuery that
// reports TxIdle, and while the session waits idle for its client outside
// a transaction block — PostgreSQL interrupts its idle read for them, and
// so does the wire.
//
// The connection's goroutine stays the only writer. Another goroutine (the
// engine, at a commit that notifies this session) calls
// NotificationsPending, which sets notePending and, if the goroutine is
// blocked waiting for the client's next message, sets the read deadline to
// now, as requestStop does. The wait is a bufio Peek of one byte, which
// consumes nothing: a deadline that fires while it waits loses no bytes,
// and a message that has begun to arrive is read whole by msgReader with
// the deadline cleared, so a notification never interrupts a message.

// waitForClient marks the session idle and waits for the first byte of
// the client's next message; msgReader reads the message itself. While it
// waits outside a transaction block it sends notifications as they
// arrive. It returns false when the session must end (Shutdown, a failed
// read or write), after reporting why.
func (c *conn) waitForClient() bool {
	noteWait := c.notes != nil && c.lastStatus == TxIdle
	for {
		if !c.enterIdle(noteWait) {
			c.sendFatal(adminShutdownError())
			return false
		}
		if !noteWait {
			return c.waitInBlock()
		}
		_, err := c.rd.br.Peek(1)
		woken := c.endNoteWait()
		switch {
		case err == nil:
			return true
		case woken && errors.Is(err, os.ErrDeadlineExceeded):
			c.leaveIdle()
			c.sendNotifications()
			if err := c.wr.flush(); err != nil {
				c.log.Debug("write failed", zap.Error(err))
				return false
			}
		default:
			c.leaveIdle()
			c.readFailed(err)
			return false
		}
	}
}

// waitInBlock waits, outside the wait notifications may interrupt, for
// the first byte of the client's next message; in a transaction block of a
// session with idle_in_transaction_session_timeout set (IdleLimiter) only
// that long, after which the session ends with FATAL 25P03, as in
// PostgreSQL. It returns false when the session must end, after reporting
// why.
func (c *conn) waitInBlock() bool {
	var limit time.Duration
	if l, ok := c.sess.(IdleLimiter); ok && c.lastStatus != TxIdle {
		limit = l.IdleInTransactionTimeout()
	}
	if limit <= 0 {
		return true // nothing but the client can end this wait
	}
	c.mu.Lock()
	if !c.stopping {
		c.raw.SetReadDeadline(time.Now().Add(limit))
	}
	c.mu.Unlock()
	_, err := c.rd.br.Peek(1)
	c.mu.Lock()
	stopping := c.stopping
	if !stopping {
		c.raw.SetReadDeadline(time.Time{}) // a deadline Shutdown set is kept
	}
	c.mu.Unlock()
	switch {
	case err == nil:
		return true
	case errors.Is(err, os.ErrDeadlineExceeded) && !stopping:
		c.leaveIdle()
		c.log.Info("idle-in-transaction timeout", zap.Duration("limit", limit))
		c.sendFatal(&Error{Code: CodeIdleInTransactionTimeout, Message: "terminating connection due to idle-in-transaction timeout"})
		return false
	default:
		c.leaveIdle()
		c.readFailed(err)
		return false
	}
}

// endNoteWait ends the part of the idle wait that notifications may
// interrupt and reports whether one did. The read deadline such a wake set
// is cleared here, under mu, so that no later wake can set it again
// before the message is read; a deadline set by Shutdown is kept.
func (c *conn) endNoteWait() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.noteWait = false
	woken := c.woken && !c.stopping
	if woken {
		c.raw.SetReadDeadline(time.Time{})
	}
	c.woken = false
	return woken
}

// wakeLocked interrupts the idle wait, once, to send notifications. c.mu
// is held and the wait is one notifications may interrupt (noteWait).
func (c *conn) wakeLocked() {
	if !c.woken {
		c.woken = true
		c.raw.SetReadDeadline(time.Now())
	}
}

// NotificationsPending implements Notifier. Safe from any goroutine.
func (c *conn) NotificationsPending() {
	c.notePending.Store(true)
	c.mu.Lock()
	if c.noteWait {
		c.wakeLocked()
	}
	c.mu.Unlock()
}

// sendNotifications appends the notifications the session has ready, if
// NotificationsPending was called since the last time. The caller knows
// the session is outside a transaction block.
func (c *conn) sendNotifications() {
	if c.notes != nil && c.notePending.Swap(false) {
		c.notes.Notifications(c.sendNote)
	}
}

// sendNotification appends one NotificationResponse.
func (c *conn) sendNotification(pid uint32, channel, payload string) {
	p := c.wr.begin('A')
	c.wr.int32(int32(pid))
	c.wr.cstring(channel)
	c.wr.cstring(payload)
	c.wr.finish(p)
	c.wr.maybeFlush()
}
