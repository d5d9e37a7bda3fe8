package wire

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/jackc/pgproto3/v2"
	"go.uber.org/zap"
)

// authenticate runs method and sends AuthenticationOk; false means a FATAL
// was sent (or the client left) and the connection ends.
func (c *conn) authenticate(ctx context.Context, method AuthMethod) bool {
	switch method {
	case AuthCleartext:
		if !c.authCleartext(ctx) {
			return false
		}
	case AuthSCRAM:
		if !c.authSCRAM(ctx) {
			return false
		}
	}
	if method != AuthTrust {
		c.srv.throttle.succeeded(c.startup.RemoteAddr)
	}
	c.wr.send(&pgproto3.AuthenticationOk{})
	return true
}

// authMethod is the authentication method of this connection: the one
// Config.ClientAuth chooses, or Config.Auth. false means the connection
// was refused (FATAL 28000 sent).
func (c *conn) authMethod() (AuthMethod, bool) {
	if c.cfg.RequireTLSOffLoopback && c.startup.TLS == nil && !isLoopback(c.startup.RemoteAddr) {
		host := "unknown"
		if a, ok := c.startup.RemoteAddr.(*net.TCPAddr); ok {
			host = a.IP.String()
		}
		c.log.Info("connection refused: not encrypted and not from a loopback address", zap.String("host", host))
		c.sendFatal(&Error{Code: CodeInvalidAuthorizationSpec,
			Message: fmt.Sprintf("no pg_hba.conf entry for host %q, user %q, database %q, no encryption", host, c.startup.User, c.startup.Database)})
		return 0, false
	}
	if c.cfg.ClientAuth == nil {
		return c.cfg.Auth, true
	}
	m, err := c.cfg.ClientAuth(ClientInfo{User: c.startup.User, Database: c.startup.Database, Addr: c.startup.RemoteAddr, TLS: c.startup.TLS != nil})
	if err != nil {
		c.log.Info("connection refused by the authentication rules", zap.Error(err))
		c.sendFatal(&Error{Code: CodeInvalidAuthorizationSpec, Message: err.Error()})
		return 0, false
	}
	return m, true
}

// isLoopback reports whether a is a loopback address (127.0.0.0/8, ::1),
// or not a network address at all (a Unix socket).
func isLoopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return !ok || tcp.IP.IsLoopback()
}

// readAuthResponse flushes the pending authentication request and reads the
// client's 'p' message.
func (c *conn) readAuthResponse(what string) ([]byte, bool) {
	if c.wr.flush() != nil {
		return nil, false
	}
	typ, body, err := c.rd.next()
	if err != nil {
		c.startupReadFailed(err) // EOF: psql hangs up to prompt for a password
		return nil, false
	}
	if typ != 'p' {
		c.sendFatal(protocolError("expected %s response, got message type %d", what, typ))
		return nil, false
	}
	return body, true
}

// lookupSecret asks the PasswordFunc for user's secret. known is false for
// an unknown user or a failed lookup, which then fail like a wrong password.
func (c *conn) lookupSecret(ctx context.Context) (secret string, known bool) {
	secret, err := c.cfg.Password(ctx, c.startup.User)
	switch {
	case errors.Is(err, ErrUnknownUser):
		return "", false
	case err != nil:
		c.log.Error("password lookup failed", zap.Error(err))
		return "", false
	}
	return secret, true
}

// authFailed sends FATAL 28P01 with PostgreSQL's wording; the reason goes to
// the log only, as PostgreSQL does, so that a client cannot tell an unknown
// user from a wrong password.
// Repeated failures from one address are answered ever more slowly
// (authThrottle).
func (c *conn) authFailed(reason string) {
	delay, n := c.srv.throttle.failed(c.startup.RemoteAddr, time.Now())
	c.log.Info("password authentication failed", zap.String("reason", reason), zap.Int("recent_failures", n), zap.Duration("delay", delay))
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-c.srv.ctx.Done(): // the server is closing: answer now
			t.Stop()
		}
	}
	c.sendFatal(&Error{Code: CodeInvalidPassword,
		Message: `password authentication failed for user "` + c.startup.User + `"`})
}

// authCleartext asks for the password in clear and checks it.
func (c *conn) authCleartext(ctx context.Context) bool {
	c.wr.send(&pgproto3.AuthenticationCleartextPassword{})
	body, ok := c.readAuthResponse("password")
	if !ok {
		return false
	}
	m := msgBuf{b: body}
	pw := m.cstring()
	if !m.done() {
		c.sendFatal(protocolError("invalid password packet size"))
		return false
	}
	if len(pw) == 0 {
		c.authFailed("empty password returned by client")
		return false
	}
	secret, known := c.lookupSecret(ctx)
	if !known {
		c.authFailed("no such user")
		return false
	}
	if v, isVerifier := parseSCRAMVerifier(secret); isVerifier {
		ok = v.checkPassword(string(pw))
	} else {
		ok = subtle.ConstantTimeCompare([]byte(secret), pw) == 1
	}
	if !ok {
		c.authFailed("password does not match")
		return false
	}
	return true
}

// authSCRAM runs a SCRAM-SHA-256 exchange; over TLS, SCRAM-SHA-256-PLUS
// is offered first, binding the exchange to the server's certificate so
// that a man in the middle cannot relay it.
func (c *conn) authSCRAM(ctx context.Context) bool {
	x := &scramExchange{}
	mechs := []string{scramMechanism}
	if c.startup.TLS != nil && c.srv.cbData != nil {
		mechs = []string{scramPlus, scramMechanism}
		x.offered, x.cbData = true, c.srv.cbData
	}
	c.wr.send(&pgproto3.AuthenticationSASL{AuthMechanisms: mechs})
	body, ok := c.readAuthResponse("SASL")
	if !ok {
		return false
	}
	m := msgBuf{b: body}
	mech := m.cstring()
	n := m.int32()
	var data []byte
	if n >= 0 {
		data = m.bytes(int(n))
	}
	if !m.done() {
		c.sendFatal(protocolError("malformed SASL message"))
		return false
	}
	if !slices.Contains(mechs, string(mech)) {
		c.sendFatal(protocolError("client selected an invalid SASL authentication mechanism"))
		return false
	}
	x.plus = string(mech) == scramPlus

	secret, known := c.lookupSecret(ctx)
	if known {
		v, isVerifier := parseSCRAMVerifier(secret)
		if !isVerifier {
			var err error
			if v, err = newSCRAMVerifier(secret, randomBytes(scramSaltLen), scramIterations); err != nil {
				c.log.Error("SCRAM verifier", zap.Error(err))
				known = false
			}
		}
		x.v = v
	}
	if !known {
		x.v, x.mock = c.srv.mockVerifier(c.startup.User), true
	}

	first, err := x.clientFirst(data)
	if err != nil {
		c.sendFatal(err)
		return false
	}
	c.wr.send(&pgproto3.AuthenticationSASLContinue{Data: []byte(first)})
	body, ok = c.readAuthResponse("SASL")
	if !ok {
		return false
	}
	final, err := x.clientFinal(body)
	if err != nil {
		if err.Code == CodeInvalidPassword {
			c.authFailed(err.Message)
		} else {
			c.sendFatal(err)
		}
		return false
	}
	c.wr.send(&pgproto3.AuthenticationSASLFinal{Data: []byte(final)})
	return true
}
