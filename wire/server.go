package wire

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"time"

	"go.uber.org/zap"
)

// ErrServerClosed is returned by Serve after Shutdown or Close, or once its
// context is cancelled.
var ErrServerClosed = errors.New("wire: server closed")

// Server accepts PostgreSQL clients and runs one session per connection,
// each on its own goroutine, against the configured Handler.
//
// Its methods are safe for concurrent use. Serve may be called once.
type Server struct {
	cfg       Config
	ln        net.Listener
	ctx       context.Context // parent of every session's contexts; cancelled by Close
	cancel    context.CancelFunc
	mockKey   []byte // SCRAM mock salts for unknown users
	closeOnce sync.Once
	throttle  authThrottle // slows repeated failed logins per address
	cbData    []byte       // tls-server-end-point channel binding, nil: none offered

	mu       sync.Mutex
	conns    map[*conn]struct{}
	pids     map[uint32]*conn
	nextPID  uint32
	closed   bool          // no new connections
	drained  chan struct{} // closed when closed and no connection is left
	draining bool
}

// NewServer checks cfg and, unless cfg.Listener is set, listens on
// cfg.Addr, so that Addr is known before Serve.
func NewServer(cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	ln := cfg.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", cfg.Addr); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	pidBase := binary.BigEndian.Uint32(randomBytes(4))%1_000_000 + 1000
	return &Server{
		cfg:     cfg,
		ln:      ln,
		ctx:     ctx,
		cancel:  cancel,
		mockKey: randomBytes(32),
		cbData:  certificateHash(cfg.TLS),
		conns:   make(map[*conn]struct{}),
		pids:    make(map[uint32]*conn),
		nextPID: pidBase,
		drained: make(chan struct{}),
	}, nil
}

// Addr returns the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve accepts connections until ctx is cancelled (which closes the
// server as Close does) or Shutdown or Close is called; it then returns
// ErrServerClosed. Sessions run on their own goroutines and are not waited
// for: Shutdown does that.
func (s *Server) Serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	var backoff time.Duration
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			if s.isClosed() {
				return ErrServerClosed
			}
			// Like net/http: back off on temporary errors (EMFILE,
			// ECONNABORTED, ...) instead of giving up.
			var te interface{ Temporary() bool }
			if errors.As(err, &te) && te.Temporary() {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.cfg.Logger.Warn("accept failed; retrying", zap.Error(err), zap.Duration("in", backoff))
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		go s.ServeConn(s.ctx, nc)
	}
}

// ServeConn runs one session on nc (already accepted, e.g. from a Unix
// socket or a test pipe) and returns when it ends, having closed nc. ctx is
// the parent of the contexts given to the engine.
func (s *Server) ServeConn(ctx context.Context, nc net.Conn) {
	if ctx != s.ctx {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(s.ctx, cancel)()
	}
	c := newConn(s, ctx, nc)
	if !s.track(c) {
		nc.Close()
		return
	}
	defer s.untrack(c)
	c.serve()
}

// Shutdown stops accepting, asks idle sessions to end (FATAL 57P01, as
// PostgreSQL's fast shutdown says it) and lets busy ones finish their
// statement, then end. It returns nil once every session has ended; if ctx
// ends first, it cancels the running statements (they end with FATAL
// 57P01), makes every session's reads fail, and returns ctx.Err() without
// waiting for an engine that ignores cancellation.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.stopAccepting()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.requestStop()
	}
	select {
	case <-s.drained:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	for c := range s.conns {
		c.force()
	}
	s.mu.Unlock()
	return ctx.Err()
}

// Close stops accepting and closes every connection at once, cancelling
// running statements. It does not wait for sessions to end.
func (s *Server) Close() error {
	s.mu.Lock()
	err := s.stopAccepting()
	for c := range s.conns {
		c.mu.Lock()
		c.stopping = true
		if c.running {
			c.stmtCancel(errAdminShutdown)
		}
		c.mu.Unlock()
		c.raw.Close()
	}
	s.mu.Unlock()
	s.cancel()
	return err
}

// stopAccepting closes the listener once. Called with s.mu held.
func (s *Server) stopAccepting() error {
	var err error
	s.closeOnce.Do(func() {
		s.closed = true
		err = s.ln.Close()
		if len(s.conns) == 0 {
			close(s.drained)
			s.draining = true
		}
	})
	return err
}

// isClosed reports whether Shutdown or Close was called.
func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// track records a new connection; false once the server is closed.
func (s *Server) track(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

// untrack forgets an ended connection.
func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
	if c.pid != 0 && s.pids[c.pid] == c {
		delete(s.pids, c.pid)
	}
	if s.closed && len(s.conns) == 0 && !s.draining {
		s.draining = true
		close(s.drained)
	}
}

// register gives an authenticated connection its process ID and secret
// key (BackendKeyData); errServerClosed once the server is closing,
// errServerFull when MaxConnections sessions are served.
func (s *Server) register(c *conn) error {
	secret := binary.BigEndian.Uint32(randomBytes(4))
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errServerClosed
	}
	if len(s.pids) >= s.cfg.MaxConnections {
		return errServerFull
	}
	for {
		s.nextPID++
		if s.nextPID == 0 || s.nextPID > 1<<30 {
			s.nextPID = 1000
		}
		if _, used := s.pids[s.nextPID]; !used {
			break
		}
	}
	c.pid, c.secret = s.nextPID, secret
	s.pids[c.pid] = c
	return nil
}

// Why register refuses a session.
var (
	errServerClosed = errors.New("wire: server closed")
	errServerFull   = errors.New("wire: max_connections sessions already")
)

// full reports whether MaxConnections sessions are being served: a new
// connection is refused before it authenticates, as in PostgreSQL.
func (s *Server) full() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pids) >= s.cfg.MaxConnections
}

// tooManyClients is PostgreSQL's refusal beyond max_connections.
func tooManyClients() *Error {
	return &Error{Code: CodeTooManyConnections, Message: "sorry, too many clients already"}
}

// cancelRequest cancels the running statement of the session with pid, if
// the secret matches. Like PostgreSQL, it never answers.
func (s *Server) cancelRequest(pid, secret uint32) {
	s.mu.Lock()
	c := s.pids[pid]
	s.mu.Unlock()
	if c == nil || subtle.ConstantTimeEq(int32(c.secret), int32(secret)) != 1 {
		s.cfg.Logger.Info("cancel request with no matching session", zap.Uint32("pid", pid))
		return
	}
	c.cancelStmt(errCancelRequested)
}

// CancelBackend cancels the running statement of the session with pid,
// as pg_cancel_backend does (the caller has checked the privilege); false
// when no session has the pid.
func (s *Server) CancelBackend(pid uint32) bool {
	s.mu.Lock()
	c := s.pids[pid]
	s.mu.Unlock()
	if c == nil {
		return false
	}
	c.cancelStmt(errCancelRequested)
	return true
}

// TerminateBackend ends the session with pid, as pg_terminate_backend
// does: its statement is cancelled and its connection closed; false when
// no session has the pid.
func (s *Server) TerminateBackend(pid uint32) bool {
	s.mu.Lock()
	c := s.pids[pid]
	s.mu.Unlock()
	if c == nil {
		return false
	}
	c.cancelStmt(errConnLost)
	c.nc.Close()
	return true
}

// mockVerifier returns a SCRAM verifier for an unknown user: its salt is
// stable per user (so that probing cannot tell unknown users apart) and it
// matches no password.
func (s *Server) mockVerifier(user string) *scramVerifier {
	h := sha256.New()
	h.Write(s.mockKey)
	h.Write([]byte(user))
	sum := h.Sum(nil)
	return &scramVerifier{
		iterations: scramIterations,
		salt:       sum[:scramSaltLen],
		storedKey:  randomBytes(sha256.Size),
		serverKey:  randomBytes(sha256.Size),
	}
}
