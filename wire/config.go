package wire

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"time"

	"go.uber.org/zap"
)

// AuthMethod is how clients prove who they are.
type AuthMethod int

// Authentication methods.
const (
	// AuthTrust lets anyone in as the user they name.
	AuthTrust AuthMethod = iota
	// AuthCleartext asks for the password in clear (use with TLS only).
	AuthCleartext
	// AuthSCRAM is SCRAM-SHA-256 (RFC 5802, RFC 7677), without channel
	// binding: the password never crosses the wire.
	AuthSCRAM
)

// String returns the pg_hba.conf name of the method.
func (m AuthMethod) String() string {
	switch m {
	case AuthTrust:
		return "trust"
	case AuthCleartext:
		return "password"
	case AuthSCRAM:
		return "scram-sha-256"
	}
	return "unknown"
}

// PasswordFunc returns the secret of user: either a SCRAM verifier as
// PostgreSQL stores it in pg_authid ("SCRAM-SHA-256$<iter>:<salt>$<StoredKey>:<ServerKey>",
// see SCRAMVerifier), or the password itself. It returns ErrUnknownUser for
// a user that does not exist (authentication then fails exactly as for a
// wrong password, without revealing which). It is called concurrently.
type PasswordFunc func(ctx context.Context, user string) (secret string, err error)

// ErrUnknownUser is returned by a PasswordFunc for a user that does not exist.
var ErrUnknownUser = errors.New("wire: unknown user")

// Config configures a Server. Only Handler is required; the zero value of
// every other field means its default.
type Config struct {
	// Listener to accept on; when nil, Addr is listened on (TCP).
	Listener net.Listener
	Addr     string // default "127.0.0.1:5432"

	Logger *zap.Logger // default zap.NewNop()

	// TLS, when set, answers SSLRequest with 'S' and performs the handshake.
	TLS *tls.Config

	Auth     AuthMethod
	Password PasswordFunc // required for AuthCleartext and AuthSCRAM, and with ClientAuth

	// ClientAuth, when set, chooses each connection's authentication
	// method from who it is and where it comes from, in place of Auth, as
	// pg_hba.conf does (package wire/hba reads such rules). An error
	// refuses the connection with FATAL 28000 and the error's text.
	ClientAuth func(ClientInfo) (AuthMethod, error)

	// RequireTLSOffLoopback refuses, with FATAL 28000 before any other
	// rule is asked, a connection from an address that is not a loopback
	// one unless it is encrypted: passwords and data then never cross a
	// network in the clear, whatever the rules say. It needs TLS.
	RequireTLSOffLoopback bool

	// MaxConnections is the most sessions served at once (PostgreSQL's
	// max_connections); a connection beyond it is refused with FATAL 53300
	// "sorry, too many clients already" once its startup message is read,
	// before authentication. Default DefaultMaxConnections.
	MaxConnections int

	// ServerVersion is reported as server_version; default "15.8". Clients
	// parse its leading numbers, so keep it "15.x" or "15.x (anything)".
	ServerVersion string

	// Parameters overrides or adds startup ParameterStatus values (TimeZone,
	// is_superuser, ...). The session may override them again in Connect.
	Parameters map[string]string

	// MaxMessageSize limits a frontend message's length (type byte excluded),
	// checked before anything is allocated; default 1 GiB − 1 as in
	// PostgreSQL (PQ_LARGE_MESSAGE_LIMIT). Control messages (Sync, Execute,
	// Describe, Close, Flush, Terminate, CopyDone, CopyFail) are limited to
	// 10000 bytes like PostgreSQL's PQ_SMALL_MESSAGE_LIMIT.
	MaxMessageSize int

	// AuthTimeout bounds the startup and authentication exchange; default
	// one minute (PostgreSQL's authentication_timeout).
	AuthTimeout time.Duration

	Handler Handler
}

// ClientInfo is what ClientAuth decides by: the startup message's user and
// database (as given: a database name may name a revision, db@branch),
// the client's address, and whether the connection is encrypted.
type ClientInfo struct {
	User, Database string
	Addr           net.Addr
	TLS            bool
}

// Default values of Config fields.
const (
	DefaultMaxConnections = 100
	DefaultAddr           = "127.0.0.1:5432"
	DefaultServerVersion  = "15.8"
	DefaultMaxMessageSize = 1<<30 - 1
	DefaultAuthTimeout    = time.Minute
	smallMessageLimit     = 10000
	maxAuthTokenLen       = 65535
	maxStartupPacketLen   = 10000
)

// withDefaults returns c with zero fields set to their defaults.
func (c Config) withDefaults() Config {
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	if c.ServerVersion == "" {
		c.ServerVersion = DefaultServerVersion
	}
	if c.MaxMessageSize <= 0 || c.MaxMessageSize > DefaultMaxMessageSize {
		c.MaxMessageSize = DefaultMaxMessageSize
	}
	if c.AuthTimeout <= 0 {
		c.AuthTimeout = DefaultAuthTimeout
	}
	if c.MaxConnections <= 0 {
		c.MaxConnections = DefaultMaxConnections
	}
	return c
}

// validate reports a configuration that cannot work.
func (c *Config) validate() error {
	if c.Handler == nil {
		return errors.New("wire: Config.Handler is nil")
	}
	if c.RequireTLSOffLoopback && c.TLS == nil {
		return errors.New("wire: Config.RequireTLSOffLoopback needs Config.TLS")
	}
	if c.ClientAuth != nil && c.Password == nil {
		return errors.New("wire: Config.Password is required with Config.ClientAuth")
	}
	if c.Auth != AuthTrust && c.Password == nil {
		return errors.New("wire: Config.Password is required for " + c.Auth.String() + " authentication")
	}
	if c.Auth < AuthTrust || c.Auth > AuthSCRAM {
		return errors.New("wire: unknown authentication method")
	}
	return nil
}
