package protodiff

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgproto3/v2"
)

// Conn is a protocol-level session with one server: it sends the
// messages of a step and reads back exactly the responses they provoke. A
// Conn is used by one goroutine at a time.
type Conn struct {
	addr    string
	pid     uint32 // BackendKeyData, for CancelRequest
	secret  uint32
	nc      net.Conn
	fe      *pgproto3.Frontend
	timeout time.Duration
	buf     []byte

	// ignoring mirrors the server's "discard messages until Sync" state,
	// learnt from the server's own answers: set by an ErrorResponse to an
	// extended-protocol message, cleared by Sync.
	ignoring bool
	// dead is set once the server closed the connection or went silent;
	// nothing more is sent or read.
	dead bool
}

// Dial connects to addr and starts a session on database db as user
// postgres (trust authentication), returning after the first
// ReadyForQuery. Allow-list: what the server sends during startup
// (ParameterStatus, BackendKeyData) is not compared.
func Dial(addr, db string, timeout time.Duration) (*Conn, error) {
	// A server restarting after a crash refuses connections for a while
	// (57P03); wait for it as long as the timeout.
	deadline := time.Now().Add(timeout)
	for {
		c, err := dial(addr, db, timeout)
		var se *startupError
		if err == nil || !errors.As(err, &se) || se.code != "57P03" || time.Now().After(deadline) {
			return c, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// startupError is an ErrorResponse to the startup.
type startupError struct{ code, msg string }

// Error implements error.
func (e *startupError) Error() string { return e.code + " " + e.msg }

// dial makes one attempt of Dial.
func dial(addr, db string, timeout time.Duration) (*Conn, error) {
	nc, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, fmt.Errorf("dialing %s: %w", addr, err)
	}
	c := &Conn{addr: addr, nc: nc, fe: pgproto3.NewFrontend(pgproto3.NewChunkReader(nc), nc), timeout: timeout}
	start := &pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters: map[string]string{"user": "postgres", "database": db, "application_name": "protodiff"}}
	if err := c.write([]pgproto3.FrontendMessage{start}); err != nil {
		nc.Close()
		return nil, fmt.Errorf("startup on %s: %w", addr, err)
	}
	for {
		m, err := c.receive()
		if err != nil {
			nc.Close()
			return nil, fmt.Errorf("startup on %s: %w", addr, err)
		}
		switch m := m.(type) {
		case *pgproto3.ErrorResponse:
			nc.Close()
			return nil, fmt.Errorf("startup on %s: %w", addr, &startupError{m.Code, m.Message})
		case *pgproto3.BackendKeyData:
			c.pid, c.secret = m.ProcessID, m.SecretKey
		case *pgproto3.ReadyForQuery:
			return c, nil
		}
	}
}

// Close ends the session with Terminate and waits until the server has
// closed the connection, so that whatever the session held (an open
// transaction, its row locks) is released before the caller goes on.
func (c *Conn) Close() error {
	defer c.nc.Close()
	if c.dead {
		return nil
	}
	c.dead = true
	if err := c.write([]pgproto3.FrontendMessage{&pgproto3.Terminate{}}); err != nil {
		return nil // already gone
	}
	for {
		if _, err := c.receive(); err != nil {
			if isClosed(err) {
				return nil
			}
			return fmt.Errorf("waiting for the server to close the session: %w", err)
		}
	}
}

// Exec runs a simple query and fails unless it succeeds; for the setup
// and the final state, not for compared steps.
func (c *Conn) Exec(sql string) ([]Response, error) {
	rs := c.Exchange([]pgproto3.FrontendMessage{&pgproto3.Query{String: sql}})
	for _, r := range rs {
		if r.Kind == "ErrorResponse" || r.Kind == kindEOF || r.Kind == kindTimeout {
			return rs, fmt.Errorf("%s: %s", sql, r)
		}
	}
	return rs, nil
}

// Run is Exchange of a step's messages, with its CancelRequest if it has
// one.
func (c *Conn) Run(st Step) []Response {
	if st.Cancel > 0 && !c.dead {
		done := make(chan struct{})
		defer func() { <-done }()
		go func() {
			defer close(done)
			time.Sleep(st.Cancel)
			c.cancel()
		}()
	}
	return c.Exchange(st.Msgs)
}

// cancel sends a CancelRequest for the session. Errors are ignored: the
// answers to the step tell whether the cancel worked.
func (c *Conn) cancel() {
	nc, err := net.DialTimeout("tcp", c.addr, c.timeout)
	if err != nil {
		return
	}
	defer nc.Close()
	buf, err := (&pgproto3.CancelRequest{ProcessID: c.pid, SecretKey: c.secret}).Encode(nil)
	if err == nil {
		nc.SetDeadline(time.Now().Add(c.timeout))
		nc.Write(buf)
		// The server closes the connection once it has the request.
		nc.Read(make([]byte, 1))
	}
}

// Exchange sends msgs in one write and returns every response they
// provoke, in order. It follows PostgreSQL's rules to know how many
// responses to wait for (see doc.go, "Reading responses"); a server that
// does not answer within the timeout gets a "timeout" response, one that
// closes the connection an "EOF", and the Conn is dead afterwards.
func (c *Conn) Exchange(msgs []pgproto3.FrontendMessage) []Response {
	if c.dead {
		return nil
	}
	var out []Response
	if err := c.write(msgs); err != nil {
		// The server may have closed the connection before reading
		// everything; what it said before that still counts.
		return append(out, c.drain()...)
	}
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if _, sync := m.(*pgproto3.Sync); c.ignoring && !sync {
			continue // discarded by the server, no response
		}
		var ok bool
		switch m.(type) {
		case *pgproto3.Parse:
			out, ok = c.readUntil(out, true, "ParseComplete")
		case *pgproto3.Bind:
			out, ok = c.readUntil(out, true, "BindComplete")
		case *pgproto3.Describe:
			out, ok = c.readUntil(out, true, "RowDescription", "NoData")
		case *pgproto3.Close:
			out, ok = c.readUntil(out, true, "CloseComplete")
		case *pgproto3.Execute:
			out, i, ok = c.readCommand(out, msgs, i, true)
		case *pgproto3.Query:
			out, i, ok = c.readCommand(out, msgs, i, false)
		case *pgproto3.Sync:
			out, ok = c.readUntil(out, false, "ReadyForQuery")
			c.ignoring = false
		default:
			// Flush, and CopyData/CopyDone/CopyFail outside a COPY
			// (PostgreSQL ignores those): no response.
			ok = true
		}
		if !ok {
			return out
		}
	}
	return out
}

// readUntil reads responses up to one of the terminal kinds or an
// ErrorResponse; an ErrorResponse to an extended-protocol message starts
// the discarding until Sync. False when the connection ended.
func (c *Conn) readUntil(out []Response, extended bool, terminal ...string) ([]Response, bool) {
	for {
		r, ok := c.next()
		out = append(out, r)
		if !ok {
			return out, false
		}
		if r.Kind == "ErrorResponse" && extended {
			c.ignoring = true
			return out, true
		}
		if isKind(r, terminal...) {
			return out, true
		}
	}
}

// readCommand reads the responses to the Execute or Query at msgs[i]:
// rows, COPY traffic, up to CommandComplete, PortalSuspended,
// EmptyQueryResponse or an ErrorResponse for Execute, up to ReadyForQuery
// for Query. When the server enters COPY FROM STDIN, the messages that
// follow in msgs are the copy's: they are consumed up to CopyDone or
// CopyFail (Flush and Sync among them are ignored by PostgreSQL; any other
// message ends the copy with an error and is consumed too). It returns the
// index of the last message consumed.
func (c *Conn) readCommand(out []Response, msgs []pgproto3.FrontendMessage, i int, extended bool) ([]Response, int, bool) {
	for {
		r, ok := c.next()
		out = append(out, r)
		if !ok {
			return out, i, false
		}
		switch r.Kind {
		case "CopyInResponse":
			i = copyEnd(msgs, i)
		case "ErrorResponse":
			if extended {
				c.ignoring = true
				return out, i, true
			}
		case "CommandComplete", "PortalSuspended", "EmptyQueryResponse":
			if extended {
				return out, i, true
			}
		case "ReadyForQuery":
			if !extended {
				return out, i, true
			}
		}
	}
}

// copyEnd returns the index of the message that ends a COPY FROM STDIN
// begun by msgs[i].
func copyEnd(msgs []pgproto3.FrontendMessage, i int) int {
	for i+1 < len(msgs) {
		i++
		switch msgs[i].(type) {
		case *pgproto3.CopyData, *pgproto3.Sync, *pgproto3.Flush:
			continue
		}
		return i
	}
	return i
}

// next reads one response; false (with an EOF or timeout response) when
// the connection ended, after which the Conn is dead.
func (c *Conn) next() (Response, bool) {
	for {
		m, err := c.receive()
		if err != nil {
			return c.ended(err), false
		}
		if r, keep := normalise(m); keep {
			return r, true
		}
	}
}

// ended marks the Conn dead after a failed read and returns the
// pseudo-response for it.
func (c *Conn) ended(err error) Response {
	c.dead = true
	c.nc.Close()
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return Response{Kind: kindTimeout, Body: fmt.Sprintf("no answer within %v", c.timeout)}
	}
	if isClosed(err) {
		return Response{Kind: kindEOF}
	}
	return Response{Kind: kindEOF, Body: err.Error()}
}

// drain reads what a server that stopped reading still sent, up to the
// end of the connection.
func (c *Conn) drain() []Response {
	var out []Response
	for {
		r, ok := c.next()
		out = append(out, r)
		if !ok {
			return out
		}
	}
}

// receive reads one message within the timeout.
func (c *Conn) receive() (pgproto3.BackendMessage, error) {
	if err := c.nc.SetReadDeadline(time.Now().Add(c.timeout)); err != nil {
		return nil, err
	}
	return c.fe.Receive()
}

// write sends msgs in one write within the timeout.
func (c *Conn) write(msgs []pgproto3.FrontendMessage) error {
	var err error
	if c.buf, err = encode(c.buf[:0], msgs); err != nil {
		return err
	}
	if err := c.nc.SetWriteDeadline(time.Now().Add(c.timeout)); err != nil {
		return err
	}
	_, err = c.nc.Write(c.buf)
	return err
}

// isClosed reports whether err means the server closed the connection.
func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		strings.Contains(err.Error(), "connection reset")
}
