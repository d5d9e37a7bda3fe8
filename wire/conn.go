package wire

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgproto3/v2"
	"go.uber.org/zap"
)

// readBufferSize is the size of a connection's bufio.Reader.
const readBufferSize = 16 << 10

// conn is one client connection: the protocol state machine, run by one
// goroutine (serve), plus the few fields that the Server and cancel
// requests touch from other goroutines, guarded by mu.
type conn struct {
	srv     *Server
	cfg     *Config
	log     *zap.Logger
	raw     net.Conn // the accepted connection: deadlines and Close
	nc      net.Conn // raw, or the TLS connection over it
	rd      msgReader
	wr      msgWriter
	baseCtx context.Context // parent of every context given to the engine

	pid, secret uint32
	startup     Startup
	sess        Session

	// Extended-protocol state.
	stmts          map[string]*prepared
	portals        map[string]*boundPortal
	freePortals    []*boundPortal // reused boundPortal structs
	inBatch        bool           // an extended message was seen since the last Sync
	ignoreTillSync bool           // an error was sent in the extended protocol
	batchFailed    bool           // an ErrorResponse was sent since the last Sync
	closing        bool           // a FATAL was sent: end the session

	params    []paramStatus     // ParameterStatus to send before the next ReadyForQuery
	sentParam map[string]string // the value the client last got for each reported name
	notices   []byte            // NoticeResponses raised while a row was being built
	rw        RowWriter
	errResp   pgproto3.ErrorResponse
	oids      []uint32 // Parse scratch
	bindArgs  [][]byte // Bind scratch
	bindPFmts []int16
	bindRFmts []int16

	// Asynchronous notifications (notify.go). notes is sess when it
	// delivers them; sendNote is c.sendNotification, bound once so that
	// handing it to the session allocates nothing; lastStatus is the
	// status of the last ReadyForQuery. notePending is set by
	// NotificationsPending from any goroutine.
	notes       NotificationSession
	sendNote    func(pid uint32, channel, payload string)
	lastStatus  TxStatus
	notePending atomic.Bool

	mu         sync.Mutex
	running    bool // a statement's context is live (cancel requests apply)
	stmtCtx    context.Context
	stmtCancel context.CancelCauseFunc
	idle       bool // waiting for a client's next command (or still in startup)
	ready      bool // startup finished
	stopping   bool // Shutdown asked the session to end
	noteWait   bool // waiting idle outside a transaction block: notifications wake the read
	woken      bool // the idle read's deadline was set to send notifications
}

// paramStatus is one pending ParameterStatus.
type paramStatus struct{ name, value string }

var _ Notifier = (*conn)(nil)

// newConn prepares a connection for serve.
func newConn(s *Server, ctx context.Context, nc net.Conn) *conn {
	c := &conn{
		srv:     s,
		cfg:     &s.cfg,
		log:     s.cfg.Logger.With(zap.Stringer("remote", addrString{nc.RemoteAddr()})),
		raw:     nc,
		nc:      nc,
		baseCtx: ctx,
		stmts:   make(map[string]*prepared),
		portals: make(map[string]*boundPortal),
		idle:    true,
	}
	c.rd = msgReader{br: bufio.NewReaderSize(nc, readBufferSize), max: s.cfg.MaxMessageSize}
	c.wr = msgWriter{w: nc, buf: make([]byte, 0, flushThreshold+flushThreshold/2)}
	c.wr.onFail = func() { c.cancelStmt(errConnLost) }
	c.rw = RowWriter{c: c, w: &c.wr, row: -1}
	c.sendNote = c.sendNotification
	return c
}

// addrString prints a possibly nil address.
type addrString struct{ a net.Addr }

// String returns the address, or "" for none.
func (a addrString) String() string {
	if a.a == nil {
		return ""
	}
	return a.a.String()
}

// serve runs the session to its end and releases everything it holds.
func (c *conn) serve() {
	defer c.finish()
	defer c.recoverPanic()
	if !c.handshake() {
		return
	}
	c.loop()
}

// loop reads and dispatches messages until the session ends.
func (c *conn) loop() {
	for !c.closing {
		idle := !c.inBatch && !c.ignoreTillSync
		if idle && !c.waitForClient() {
			return
		}
		typ, body, err := c.rd.next()
		if idle {
			c.leaveIdle()
		}
		if err != nil {
			c.readFailed(err)
			return
		}
		if !c.dispatch(typ, body) {
			return
		}
	}
}

// dispatch handles one message of the ready phase; false ends the session.
func (c *conn) dispatch(typ byte, body []byte) bool {
	if c.ignoreTillSync && typ != 'S' && typ != 'X' {
		return true // PostgreSQL discards everything until Sync after an error
	}
	switch typ {
	case 'Q':
		c.simpleQuery(body)
	case 'P':
		c.parse(body)
	case 'B':
		c.bind(body)
	case 'D':
		c.describe(body)
	case 'E':
		c.execute(body)
	case 'C':
		c.closeMessage(body)
	case 'H':
		c.wr.flush()
	case 'S':
		c.sync(body)
	case 'X':
		return false
	case 'd', 'c', 'f':
		// CopyData, CopyDone, CopyFail outside COPY: a COPY failed and the
		// client is still sending. PostgreSQL accepts and ignores them.
	case 'F':
		c.functionCall(body)
		c.endBatch()
	default:
		// 'p' (a password message) outside authentication.
		c.sendFatal(protocolError("invalid frontend message type %d", typ))
	}
	if c.wr.err != nil {
		c.log.Debug("write failed", zap.Error(c.wr.err))
		return false
	}
	return !c.closing
}

// readFailed handles an error from reading the next message.
func (c *conn) readFailed(err error) {
	var werr *Error
	switch {
	case errors.As(err, &werr):
		c.log.Info("protocol violation", zap.String("message", werr.Message))
		c.sendFatal(werr)
	case c.isStopping() && errors.Is(err, os.ErrDeadlineExceeded):
		c.sendFatal(adminShutdownError())
	case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
		// The client went away without Terminate; PostgreSQL logs that at
		// DEBUG level only when it happens between messages.
		c.log.Debug("connection closed by client")
	case errors.Is(err, io.ErrUnexpectedEOF):
		c.log.Info("unexpected EOF on client connection with an open transaction or message")
	default:
		c.log.Debug("read failed", zap.Error(err))
	}
}

// endBatch ends a batch — a simple Query, a function call, or the
// extended messages up to Sync — the one way every path does: the batch's
// state is reset, the engine's Sync learns whether any ErrorResponse was
// sent since the batch began (commit or roll back an implicit transaction,
// mark an explicit one failed), and ReadyForQuery follows. Resetting the
// state here, and only here, is what keeps an error of one batch from
// leaking into the next one (which once rolled back an acknowledged
// extended-protocol INSERT that followed a failed simple query).
func (c *conn) endBatch() {
	failed := c.batchFailed
	c.ignoreTillSync, c.inBatch, c.batchFailed = false, false, false
	if c.closing {
		return
	}
	if err := c.callSync(failed); err != nil {
		c.sendError(err, nil)
		c.batchFailed = false // reported with this batch; the next starts clean
	}
	c.readyForQuery()
}

// callSync calls Session.Sync with a context that only a forced shutdown
// or the end of the connection cancels: ending a transaction is not a
// statement a cancel request may interrupt.
func (c *conn) callSync(failed bool) (err error) {
	defer c.recoverStatement(&err)
	return c.sess.Sync(c.baseCtx, failed)
}

// readyForQuery sends the notifications ready for the client (outside a
// transaction block), the pending ParameterStatus messages, ReadyForQuery,
// in that order as PostgreSQL does, and flushes. At the end of a
// transaction it drops every portal, as PostgreSQL does.
func (c *conn) readyForQuery() {
	st := c.txStatus()
	if st == TxIdle {
		c.sendNotifications()
	}
	for _, p := range c.params {
		if v, ok := c.sentParam[p.name]; ok && v == p.value {
			continue // changed and changed back (a SET rolled back): nothing to tell
		}
		c.sentParam[p.name] = p.value
		c.wr.send(&pgproto3.ParameterStatus{Name: p.name, Value: p.value})
	}
	clear(c.params)
	c.params = c.params[:0]
	if st == TxIdle && len(c.portals) > 0 {
		c.closeAllPortals()
	}
	c.lastStatus = st
	c.wr.readyForQuery(st)
	c.wr.flush()
}

// txStatus asks the session for its status, guarding against a bad value.
func (c *conn) txStatus() TxStatus {
	switch st := c.sess.TxStatus(); st {
	case TxIdle, TxInBlock, TxFailed:
		return st
	default:
		return TxIdle
	}
}

// fail reports an error for the message being handled. In the extended
// protocol it starts discarding until Sync. cause is the statement
// context's cancellation cause, if any.
func (c *conn) fail(err error, cause error) {
	if c.inBatch {
		c.ignoreTillSync = true
	}
	c.sendError(err, cause)
}

// sendError sends an ErrorResponse for err; a FATAL one ends the session.
func (c *conn) sendError(err error, cause error) {
	c.batchFailed = true
	toResponse(&c.errResp, err, cause, SeverityError)
	if isFatal(c.errResp.Severity) {
		c.closing = true
	}
	if c.errResp.Code == CodeInternalError {
		c.log.Warn("internal error", zap.Error(err))
	}
	c.wr.send(&c.errResp)
	// Sent at once, as PostgreSQL does: after an error in the extended
	// protocol the messages up to Sync are discarded, Flush included, and
	// a client that sent Flush and waits would otherwise wait forever.
	c.wr.flush()
}

// sendFatal sends a FATAL error and marks the session for closing. The
// output is flushed by finish.
func (c *conn) sendFatal(e *Error) {
	e.Severity = SeverityFatal
	c.sendError(e, nil)
	c.closing = true
}

// ParameterStatus implements Notifier.
func (c *conn) ParameterStatus(name, value string) {
	for i := range c.params {
		if c.params[i].name == name {
			c.params[i].value = value
			return
		}
	}
	c.params = append(c.params, paramStatus{name, value})
}

// Notice implements Notifier.
func (c *conn) Notice(n error) {
	var resp pgproto3.ErrorResponse
	toResponse(&resp, n, nil, SeverityNotice)
	if c.rw.row >= 0 {
		// A row is being built in the output buffer: send after it.
		c.notices, _ = (*pgproto3.NoticeResponse)(&resp).Encode(c.notices)
		return
	}
	c.wr.send((*pgproto3.NoticeResponse)(&resp))
}

// beginStmt marks the start of engine work that a cancel request may
// interrupt and returns its context. The context is reused from one
// statement to the next until it is cancelled, which keeps the hot path
// free of allocations; a cancel request arriving while no statement runs is
// ignored, so it cannot leak into the next one.
func (c *conn) beginStmt() context.Context {
	c.mu.Lock()
	if c.stmtCtx == nil || c.stmtCtx.Err() != nil {
		c.stmtCtx, c.stmtCancel = context.WithCancelCause(c.baseCtx)
	}
	c.running = true
	ctx := c.stmtCtx
	c.mu.Unlock()
	return ctx
}

// endStmt marks the end of interruptible engine work.
func (c *conn) endStmt() {
	c.mu.Lock()
	c.running = false
	c.mu.Unlock()
}

// cancelStmt cancels the running statement, if any, with cause. Safe from
// any goroutine.
func (c *conn) cancelStmt(cause error) {
	c.mu.Lock()
	if c.running {
		c.stmtCancel(cause)
	}
	c.mu.Unlock()
}

// stmtCause returns why ctx was cancelled, nil if it was not.
func stmtCause(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return context.Cause(ctx)
}

// enterIdle marks the session as waiting for a command; false when
// Shutdown has asked it to end. noteWait says whether notifications may
// interrupt the wait (see waitForClient); if some are pending already, the
// wait is interrupted at once.
func (c *conn) enterIdle(noteWait bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopping {
		return false
	}
	c.idle = true
	c.noteWait = noteWait
	if noteWait && c.notePending.Load() {
		c.wakeLocked()
	}
	return true
}

// leaveIdle marks the session as busy.
func (c *conn) leaveIdle() {
	c.mu.Lock()
	c.idle = false
	c.mu.Unlock()
}

// isStopping reports whether Shutdown asked the session to end.
func (c *conn) isStopping() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopping
}

// requestStop asks the session to end at its next idle point; an idle
// session is woken at once. Safe from any goroutine.
func (c *conn) requestStop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopping = true
	if c.idle || !c.ready {
		c.raw.SetReadDeadline(time.Now())
	}
}

// force ends the session now: its statement is cancelled and its reads
// fail; a write of the final FATAL gets a second. Safe from any goroutine.
func (c *conn) force() {
	c.mu.Lock()
	c.stopping = true
	if c.running {
		c.stmtCancel(errAdminShutdown)
	}
	c.mu.Unlock()
	now := time.Now()
	c.raw.SetReadDeadline(now)
	c.raw.SetWriteDeadline(now.Add(time.Second))
}

// recoverPanic catches a panic of the wire or of the engine, logs it with
// its stack and answers FATAL XX000, so that no client input can bring the
// server down. The session ends: after a panic the engine's state for it is
// suspect.
func (c *conn) recoverPanic() {
	r := recover()
	if r == nil {
		return
	}
	c.log.Error("panic in connection", zap.Any("panic", r), zap.Stack("stack"))
	if c.rw.row >= 0 {
		c.wr.buf = c.wr.buf[:c.rw.row] // drop a half-built row
		c.rw.row = -1
	}
	c.sendFatal(&Error{Code: CodeInternalError, Message: fmt.Sprintf("internal error: %v", r)})
}

// recoverStatement, deferred by the calls into the engine for one
// statement (engineParse, engineDecodeParams, engineBind, engineExecute, callSync), turns a panic
// of the engine into an internal error (XX000) of that statement, logged
// with its stack: the client gets an ErrorResponse, the transaction fails
// as on any error (Sync is told), and the connection goes on, as
// PostgreSQL's does after an elog(ERROR). A panic of the wire itself still
// ends the connection (recoverPanic).
func (c *conn) recoverStatement(err *error) {
	r := recover()
	if r == nil {
		return
	}
	c.log.Error("panic in statement", zap.Any("panic", r), zap.Stack("stack"))
	*err = &Error{Code: CodeInternalError, Message: fmt.Sprintf("internal error: %v", r)}
}

// engineParse is Session.Parse, a panic in it an error (recoverStatement).
func (c *conn) engineParse(ctx context.Context, q string, oids []uint32) (stmts []Statement, err error) {
	defer c.recoverStatement(&err)
	return c.sess.Parse(ctx, q, oids)
}

// functionCall answers a FunctionCall message (the fastpath interface, which
// libpq's large object functions use) with a FunctionCallResponse, as its
// own batch: PostgreSQL follows it with ReadyForQuery.
func (c *conn) functionCall(body []byte) {
	var m pgproto3.FunctionCall
	if err := m.Decode(body); err != nil {
		c.sendFatal(errInvalidFormat())
		return
	}
	fc, ok := c.sess.(FunctionCaller)
	if !ok {
		c.fail(Errorf(CodeFeatureNotSupported, "fastpath function calls are not supported"), nil)
		return
	}
	formats := make([]int16, len(m.ArgFormatCodes))
	for i, f := range m.ArgFormatCodes {
		if f > 1 {
			c.fail(Errorf(CodeProtocolViolation, "unsupported format code: %d", f), nil)
			return
		}
		formats[i] = int16(f)
	}
	ctx := c.beginStmt()
	defer c.endStmt()
	res, err := c.engineCallFunction(ctx, fc, m.Function, m.Arguments, formats, int16(m.ResultFormatCode))
	if err != nil {
		c.fail(err, stmtCause(ctx))
		return
	}
	c.wr.send(&pgproto3.FunctionCallResponse{Result: res})
}

// engineCallFunction is FunctionCaller.CallFunction, a panic in it an error
// (recoverStatement).
func (c *conn) engineCallFunction(ctx context.Context, fc FunctionCaller, fn uint32, args [][]byte, formats []int16, result int16) (res []byte, err error) {
	defer c.recoverStatement(&err)
	return fc.CallFunction(ctx, fn, args, formats, result)
}

// engineDecodeParams is ParamDecoder.DecodeParams, a panic in it an error
// (recoverStatement).
func (c *conn) engineDecodeParams(ctx context.Context, d ParamDecoder, oids []uint32, params [][]byte, formats []int16) (err error) {
	defer c.recoverStatement(&err)
	return d.DecodeParams(ctx, oids, params, formats)
}

// engineBind is Statement.Bind, a panic in it an error (recoverStatement).
func (c *conn) engineBind(ctx context.Context, st Statement, params [][]byte, paramFormats, resultFormats []int16) (p Portal, err error) {
	defer c.recoverStatement(&err)
	return st.Bind(ctx, params, paramFormats, resultFormats)
}

// engineExecute is Portal.Execute, a panic in it an error (recoverStatement); a
// row half written when it came is dropped by the caller (abandonRow).
func (c *conn) engineExecute(ctx context.Context, p Portal, maxRows int) (tag string, done bool, err error) {
	defer c.recoverStatement(&err)
	return p.Execute(ctx, &c.rw, maxRows)
}

// finish flushes what is left, closes the statements, portals and session,
// and the connection.
func (c *conn) finish() {
	c.wr.flush()
	if c.sess != nil {
		func() {
			defer func() {
				if r := recover(); r != nil {
					c.log.Error("panic closing session", zap.Any("panic", r), zap.Stack("stack"))
				}
			}()
			c.closeAllPortals()
			for name := range c.stmts {
				c.closeStatement(name)
			}
			c.sess.Close()
		}()
	}
	c.mu.Lock()
	if c.stmtCancel != nil {
		c.stmtCancel(errConnLost)
	}
	c.mu.Unlock()
	c.nc.Close()
	if c.nc != c.raw {
		c.raw.Close()
	}
}
