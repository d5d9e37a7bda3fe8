package wiretest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/prollypg/prollypg/wire"
)

// Server is a wire.Server running for one test.
type Server struct {
	*wire.Server
	Engine *Engine
	Logs   *observer.ObservedLogs // everything logged at Debug and above
	Host   string
	Port   int
}

// Start runs a server with cfg on 127.0.0.1:0 (cfg.Handler defaults to a
// new Engine) and shuts it down when the test ends, failing the test if a
// session does not end within five seconds.
func Start(tb testing.TB, cfg wire.Config) *Server {
	tb.Helper()
	core, logs := observer.New(zapcore.DebugLevel)
	if cfg.Logger == nil {
		cfg.Logger = zap.New(core)
	}
	e, _ := cfg.Handler.(*Engine)
	if cfg.Handler == nil {
		e = NewEngine()
		cfg.Handler = e
	}
	if cfg.Listener == nil {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		cfg.Listener = ln
	}
	srv, err := wire.NewServer(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background()) }()
	addr := srv.Addr().(*net.TCPAddr)
	s := &Server{Server: srv, Engine: e, Logs: logs, Host: "127.0.0.1", Port: addr.Port}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			tb.Errorf("shutdown: %v", err)
		}
		if err := <-done; !errors.Is(err, wire.ErrServerClosed) {
			tb.Errorf("serve: %v", err)
		}
		for _, l := range logs.FilterLevelExact(zapcore.ErrorLevel).All() {
			if l.Message != "panic in statement" && l.Message != "panic in connection" || e == nil || !e.AllowPanic {
				tb.Errorf("error logged: %s %v", l.Message, l.ContextMap())
			}
		}
	})
	return s
}

// URL returns a connection URL for user and database.
func (s *Server) URL(user, db string) string {
	return fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", user, s.Host, s.Port, db)
}

// Addr returns host:port.
func (s *Server) HostPort() string { return fmt.Sprintf("%s:%d", s.Host, s.Port) }
