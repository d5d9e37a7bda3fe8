package wire

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgproto3/v2"
	"go.uber.org/zap"
)

// Startup packet codes (the first word after the length).
const (
	protocolVersion30 = 3 << 16
	sslRequestCode    = 1234<<16 | 5679
	cancelRequestCode = 1234<<16 | 5678
	gssEncRequestCode = 1234<<16 | 5680
)

// reportedParams are the settings PostgreSQL 15 reports at startup (its
// GUC_REPORT variables), in the order it sends them.
var reportedParams = []string{
	"application_name",
	"client_encoding",
	"DateStyle",
	"default_transaction_read_only",
	"in_hot_standby",
	"integer_datetimes",
	"IntervalStyle",
	"is_superuser",
	"server_encoding",
	"server_version",
	"session_authorization",
	"standard_conforming_strings",
	"TimeZone",
}

// handshake runs the startup phase: SSL and GSS negotiation, a cancel
// request, or a StartupMessage followed by authentication, Connect, the
// parameter report, BackendKeyData and the first ReadyForQuery. It returns
// false when the connection is to be closed.
func (c *conn) handshake() bool {
	deadline := time.Now().Add(c.cfg.AuthTimeout)
	c.mu.Lock()
	if c.stopping {
		deadline = time.Now() // Shutdown came first
	}
	c.raw.SetDeadline(deadline)
	c.mu.Unlock()
	ctx, cancel := context.WithDeadline(c.baseCtx, deadline)
	defer cancel()
	sslDone, gssDone := false, false
	for {
		code, m, err := c.readStartupPacket()
		if err != nil {
			c.startupReadFailed(err)
			return false
		}
		switch {
		case code == sslRequestCode && !sslDone:
			sslDone = true
			if !c.negotiateSSL(ctx) {
				return false
			}
		case code == gssEncRequestCode && !gssDone:
			gssDone = true
			if _, err := c.nc.Write([]byte{'N'}); err != nil {
				return false
			}
		case code == cancelRequestCode:
			pid, secret := m.int32(), m.int32()
			if m.done() {
				c.srv.cancelRequest(uint32(pid), uint32(secret))
			}
			return false // PostgreSQL answers a cancel request with nothing
		default:
			return c.startupMessage(ctx, code, m)
		}
	}
}

// readStartupPacket reads a length-prefixed startup packet and returns its
// code and the rest of its body.
func (c *conn) readStartupPacket() (uint32, msgBuf, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(c.rd.br, hdr[:]); err != nil {
		return 0, msgBuf{}, err
	}
	n := int64(binary.BigEndian.Uint32(hdr[:]))
	if n < 8 || n > maxStartupPacketLen {
		return 0, msgBuf{}, protocolError("invalid length of startup packet")
	}
	body, err := c.rd.readBody(int(n) - 4)
	if err != nil {
		return 0, msgBuf{}, err
	}
	return binary.BigEndian.Uint32(body), msgBuf{b: body[4:]}, nil
}

// startupReadFailed handles a read error before the session is ready.
func (c *conn) startupReadFailed(err error) {
	var werr *Error
	switch {
	case errors.As(err, &werr):
		c.log.Info("protocol violation in startup", zap.String("message", werr.Message))
		c.sendFatal(werr)
	case errors.Is(err, os.ErrDeadlineExceeded) && c.isStopping():
		c.sendFatal(adminShutdownError())
	case errors.Is(err, os.ErrDeadlineExceeded):
		c.log.Info("authentication timeout")
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		// Port probes, and psql hanging up to ask for a password.
		c.log.Debug("connection closed during startup")
	default:
		c.log.Debug("startup read failed", zap.Error(err))
	}
}

// negotiateSSL answers an SSLRequest: 'N' without a TLS configuration,
// else 'S' and the TLS handshake.
func (c *conn) negotiateSSL(ctx context.Context) bool {
	if c.cfg.TLS == nil {
		_, err := c.nc.Write([]byte{'N'})
		return err == nil
	}
	if c.rd.br.Buffered() > 0 {
		// Bytes sent after SSLRequest, before the handshake, could be
		// injected by a man in the middle (CVE-2021-23214).
		c.sendFatal(protocolError("received unencrypted data after SSL request"))
		return false
	}
	if _, err := c.nc.Write([]byte{'S'}); err != nil {
		return false
	}
	tc := tls.Server(c.raw, c.cfg.TLS)
	if err := tc.HandshakeContext(ctx); err != nil {
		c.log.Info("TLS handshake failed", zap.Error(err))
		return false
	}
	st := tc.ConnectionState()
	c.startup.TLS = &st
	c.nc = tc
	c.rd.br.Reset(tc)
	c.wr.w = tc
	return true
}

// startupMessage handles a StartupMessage (or an unknown code, which
// PostgreSQL reads as a protocol version) up to the first ReadyForQuery.
func (c *conn) startupMessage(ctx context.Context, code uint32, m msgBuf) bool {
	major, minor := code>>16, code&0xffff
	if major != 3 {
		c.sendFatal(&Error{Code: CodeFeatureNotSupported, Message: fmt.Sprintf(
			"unsupported frontend protocol %d.%d: server supports 3.0 to 3.0", major, minor)})
		return false
	}
	params := make(map[string]string)
	var unrecognized []string
	for {
		name := m.cstring()
		if len(name) == 0 {
			break
		}
		value := m.cstring()
		if m.bad {
			break
		}
		if strings.HasPrefix(string(name), "_pq_.") {
			unrecognized = append(unrecognized, string(name))
			continue
		}
		params[string(name)] = string(value)
	}
	if !m.done() {
		c.sendFatal(protocolError("invalid startup packet layout: expected terminator as last byte"))
		return false
	}
	if minor > 0 || len(unrecognized) > 0 {
		c.negotiateProtocolVersion(unrecognized)
	}
	user := params["user"]
	if user == "" {
		c.sendFatal(&Error{Code: CodeInvalidAuthorizationSpec, Message: "no PostgreSQL user name specified in startup packet"})
		return false
	}
	db := params["database"]
	if db == "" {
		db = user
	}
	enc, ok := clientEncoding(params["client_encoding"])
	if !ok {
		c.sendFatal(&Error{Code: CodeFeatureNotSupported,
			Message: fmt.Sprintf("client encoding %q is not supported", params["client_encoding"]),
			Hint:    "Use UTF8."})
		return false
	}
	c.startup.User, c.startup.Database, c.startup.Options = user, db, params["options"]
	c.startup.Params = params
	c.startup.RemoteAddr = c.raw.RemoteAddr()
	c.log = c.log.With(zap.String("user", user), zap.String("database", db))

	if c.srv.full() {
		c.sendFatal(tooManyClients())
		return false
	}
	method, ok := c.authMethod()
	if !ok || !c.authenticate(ctx, method) {
		return false
	}
	switch c.srv.register(c) {
	case errServerClosed:
		c.sendFatal(adminShutdownError())
		return false
	case errServerFull:
		c.sendFatal(tooManyClients())
		return false
	}
	c.startup.ProcessID = c.pid
	c.log = c.log.With(zap.Uint32("pid", c.pid))
	sess, err := c.cfg.Handler.Connect(ctx, &c.startup, c)
	if err != nil {
		toResponse(&c.errResp, err, nil, SeverityFatal)
		c.errResp.Severity, c.errResp.SeverityUnlocalized = SeverityFatal, SeverityFatal
		c.wr.send(&c.errResp)
		c.closing = true
		c.log.Info("connection refused by the engine", zap.Error(err))
		return false
	}
	if sess == nil {
		c.sendFatal(&Error{Code: CodeInternalError, Message: "internal error: the engine returned no session"})
		return false
	}
	c.sess = sess
	c.notes, _ = sess.(NotificationSession)
	c.sendParameterReport(user, enc, params["application_name"])
	c.wr.send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: c.secret})

	c.mu.Lock()
	c.ready = true
	if !c.stopping {
		c.raw.SetDeadline(time.Time{})
	}
	c.mu.Unlock()
	c.log.Debug("session started")
	c.readyForQuery()
	return c.wr.err == nil
}

// negotiateProtocolVersion tells a 3.x client with x > 0, or one that asked
// for protocol options, that the server speaks 3.0 without them.
func (c *conn) negotiateProtocolVersion(unrecognized []string) {
	p := c.wr.begin('v')
	c.wr.int32(0) // newest minor version supported
	c.wr.int32(int32(len(unrecognized)))
	for _, o := range unrecognized {
		c.wr.cstring(o)
	}
	c.wr.finish(p)
}

// clientEncoding accepts the encodings that need no conversion from UTF8
// and returns the name to report.
func clientEncoding(enc string) (string, bool) {
	norm := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(enc))
	switch norm {
	case "", "utf8", "unicode":
		return "UTF8", true
	case "sqlascii":
		return "SQL_ASCII", true
	}
	return "", false
}

// sendParameterReport sends the startup ParameterStatus messages: the
// defaults, overridden by Config.Parameters, overridden by what the session
// reported during Connect.
func (c *conn) sendParameterReport(user, enc, appName string) {
	values := map[string]string{
		"application_name":              appName,
		"client_encoding":               enc,
		"DateStyle":                     "ISO, MDY",
		"default_transaction_read_only": "off",
		"in_hot_standby":                "off",
		"integer_datetimes":             "on",
		"IntervalStyle":                 "postgres",
		"is_superuser":                  "on",
		"server_encoding":               "UTF8",
		"server_version":                c.cfg.ServerVersion,
		"session_authorization":         user,
		"standard_conforming_strings":   "on",
		"TimeZone":                      "UTC",
	}
	for k, v := range c.cfg.Parameters {
		values[k] = v
	}
	for _, p := range c.params {
		values[p.name] = p.value
	}
	clear(c.params)
	c.params = c.params[:0]
	names := slices.Clone(reportedParams)
	var extra []string
	for k := range values {
		if !slices.Contains(reportedParams, k) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	c.sentParam = make(map[string]string, len(values))
	for _, k := range append(names, extra...) {
		c.sentParam[k] = values[k]
		c.wr.send(&pgproto3.ParameterStatus{Name: k, Value: values[k]})
	}
}
