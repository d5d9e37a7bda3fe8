package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	httppprof "net/http/pprof"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/prollypg/prollypg/planner/session"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/wire"
	"github.com/prollypg/prollypg/wire/sqlwire"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:5432", "address to listen on, HOST:PORT")
	dataDir := flag.String("data-dir", "./pgserver-data", "data directory")
	logLevel := zap.LevelFlag("log-level", zapcore.InfoLevel, "log level: debug, info, warn, error")
	tlsCert := flag.String("tls-cert", "", "PEM certificate file: with --tls-key, clients may connect with TLS")
	tlsKey := flag.String("tls-key", "", "PEM private key file of --tls-cert")
	auth := flag.String("auth", "", "client authentication: trust or scram (default: trust on loopback addresses, scram otherwise)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file (for profiling)")
	cacheMB := flag.Int64("cache-mb", store.DefaultCacheBytes>>20, "MiB of decoded chunks kept in memory (the chunk cache), the largest share of an idle server's memory")
	pprofAddr := flag.String("pprof", "", "serve Go's profiles (net/http/pprof, with block and mutex profiling on) on this loopback HOST:PORT, for profiling a loaded server")
	flag.Parse()
	if *pprofAddr != "" {
		if host, _, err := net.SplitHostPort(*pprofAddr); err != nil || !net.ParseIP(host).IsLoopback() {
			fmt.Fprintln(os.Stderr, "pgserver: --pprof takes a loopback HOST:PORT, such as 127.0.0.1:6060")
			os.Exit(2)
		}
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "pgserver:", err)
			os.Exit(2)
		}
		defer pprof.StopCPUProfile()
	}

	cfg := zap.NewProductionConfig()
	cfg.Level = zap.NewAtomicLevelAt(*logLevel)
	cfg.Encoding = "console"
	cfg.EncoderConfig.EncodeTime = zapcore.ISO8601TimeEncoder
	log, err := cfg.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgserver:", err)
		os.Exit(2)
	}
	if *pprofAddr != "" {
		servePprof(log, *pprofAddr)
	}
	var tlsCfg *tls.Config
	if *tlsCert != "" || *tlsKey != "" {
		cert, err := tls.LoadX509KeyPair(*tlsCert, *tlsKey)
		if err != nil {
			log.Error("loading the TLS certificate", zap.Error(err))
			os.Exit(2)
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if *cacheMB <= 0 {
		fmt.Fprintln(os.Stderr, "pgserver: --cache-mb must be positive")
		os.Exit(2)
	}
	err = run(log, *listen, *dataDir, *auth, tlsCfg, *cacheMB<<20)
	if err != nil {
		log.Error("pgserver stopped", zap.Error(err))
	}
	_ = log.Sync()
	if err != nil {
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// superuserPasswordEnv names the environment variable that sets the
// password of the role postgres at startup (an environment variable rather
// than a flag, so that it does not show in the process list).
const superuserPasswordEnv = "PGSERVER_SUPERUSER_PASSWORD"

func run(log *zap.Logger, listen, dataDir, auth string, tlsCfg *tls.Config, cacheBytes int64) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("--listen %q: %w", listen, err)
	}
	method := wire.AuthTrust
	switch auth {
	case "":
		// Off loopback, trust would let anyone in: passwords are required.
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			method = wire.AuthSCRAM
		}
	case "trust":
	case "scram":
		method = wire.AuthSCRAM
	default:
		return fmt.Errorf("--auth %q: want trust or scram", auth)
	}

	db, err := store.Open(dataDir, store.Options{Logger: log.Named("store"), CacheBytes: cacheBytes})
	if err != nil {
		return err
	}
	defer db.Close()
	engine := session.NewEngine(db, log.Named("sql"))
	engine.HashPassword = wire.SCRAMVerifier
	if err := engine.Bootstrap(ctx); err != nil {
		return fmt.Errorf("initialising %s: %w", dataDir, err)
	}
	if pw := os.Getenv(superuserPasswordEnv); pw != "" {
		if err := engine.SetPassword(ctx, "postgres", pw); err != nil {
			return fmt.Errorf("setting the password of postgres: %w", err)
		}
	}
	cfg := wire.Config{
		Addr:    listen,
		Logger:  log.Named("wire"),
		Handler: &sqlwire.Handler{Engine: engine},
		Auth:    method,
		TLS:     tlsCfg,
	}
	if method != wire.AuthTrust {
		cfg.Password = func(ctx context.Context, user string) (string, error) {
			v, ok, err := engine.Password(ctx, user)
			switch {
			case err != nil:
				return "", err
			case !ok || v == "":
				return "", wire.ErrUnknownUser
			}
			return v, nil
		}
	}
	srv, err := wire.NewServer(cfg)
	if err != nil {
		return err
	}
	engine.CancelBackend, engine.TerminateBackend = srv.CancelBackend, srv.TerminateBackend
	log.Info("listening", zap.String("addr", srv.Addr().String()), zap.String("data_dir", dataDir), zap.String("auth", method.String()))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ctx) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	st := db.Stats()
	log.Info("shutting down", zap.Uint64("chunks_written", st.ChunksWritten), zap.Uint64("bytes_written", st.BytesWritten),
		zap.Uint64("sync_requests", st.SyncRequests), zap.Uint64("syncs", st.Syncs))
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// servePprof serves Go's profiles on addr, on a mux of its own, with block
// and mutex profiling on: sampling every blocking event and 1 in 10
// contended mutexes costs a few percent, acceptable for a profiling run.
func servePprof(log *zap.Logger, addr string) {
	runtime.SetBlockProfileRate(1)
	runtime.SetMutexProfileFraction(10)
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", httppprof.Index)
	mux.HandleFunc("/debug/pprof/profile", httppprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", httppprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", httppprof.Trace)
	go func() {
		if err := http.ListenAndServe(addr, mux); err != nil {
			log.Error("--pprof: serving profiles", zap.String("addr", addr), zap.Error(err))
		}
	}()
}
