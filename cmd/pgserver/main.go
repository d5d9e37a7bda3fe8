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
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/prollypg/prollypg/exec/funcs"
	"github.com/prollypg/prollypg/planner/session"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/wire"
	"github.com/prollypg/prollypg/wire/sqlwire"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:5432", "address to listen on, HOST:PORT")
	dataDir := flag.String("data-dir", "./pgserver-data", "data directory")
	tsearchData := flag.String("tsearch-data", "", "directory of the files text search dictionaries read (stop words NAME.stop, synonyms NAME.syn, Ispell NAME.dict and NAME.affix), PostgreSQL's $SHAREDIR/tsearch_data (default: tsearch_data in --data-dir)")
	logLevel := zap.LevelFlag("log-level", zapcore.InfoLevel, "log level: debug, info, warn, error")
	tlsCert := flag.String("tls-cert", "", "PEM certificate file: with --tls-key, clients may connect with TLS")
	tlsKey := flag.String("tls-key", "", "PEM private key file of --tls-cert")
	auth := flag.String("auth", "", "client authentication: trust or scram (default: trust on loopback addresses, scram otherwise); --hba overrides it")
	hbaFile := flag.String("hba", "", "client authentication rules in pg_hba.conf's format (type, database or db@branch-pattern, user, address, method trust/reject/scram-sha-256/password), first match wins; reloaded on SIGHUP")
	maxConns := flag.Int("max-connections", wire.DefaultMaxConnections, "the most sessions served at once (max_connections); more are refused with 53300")
	gcThresholdMB := flag.Int64("gc-threshold-mb", 0, "collect garbage automatically whenever this many MiB of chunks were journaled (written to disk) since the last collection (0: only dolt_gc()), at a moment when no transaction is open")
	gcCheck := flag.Duration("gc-check-interval", 10*time.Second, "how often --gc-threshold-mb is checked")
	queryMemMB := flag.Int64("max-query-memory-mb", defaultQueryMemoryMB(), "MiB of rows one statement's sorts, hash tables and buffers may hold before it fails with 53200 (max_query_memory, which a session may change); default a quarter of the machine's memory, 0 for no limit")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file (for profiling)")
	cacheMB := flag.Int64("cache-mb", store.DefaultCacheBytes>>20, "MiB of decoded chunks kept in memory (the chunk cache), the largest share of an idle server's memory")
	requireTLS := flag.Bool("require-tls-remote", false, "refuse unencrypted connections from addresses other than loopback ones (FATAL 28000), whatever --auth or --hba say; needs --tls-cert")
	pprofAddr := flag.String("pprof", "", "serve Go's profiles (net/http/pprof, with block and mutex profiling on) on this loopback HOST:PORT, for profiling a loaded server")
	replicateFrom := flag.String("replicate-from", "", "run as a read replica of a database of another pgserver, postgres://[user[:password]@]host:port/db (a role with REPLICATION; PGPASSWORD and ~/.pgpass work too): its branches are followed and the database is read-only here")
	replicateBranches := flag.String("replicate-branches", "main", "with --replicate-from, the branches to follow, comma-separated")
	replicateInterval := flag.Duration("replicate-interval", 100*time.Millisecond, "with --replicate-from, how often the primary is polled")
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
	// Badger's assertions (y.AssertTrue) end the process through the
	// standard library's log.Fatalf with the bare text "Assert failed":
	// at error level here, the line carries the stack of the goroutine
	// that failed, which says which assertion it was.
	if _, err := zap.RedirectStdLogAt(log.Named("stdlog"), zapcore.ErrorLevel); err != nil {
		log.Warn("the standard library's log stays unredirected", zap.Error(err))
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
	if *maxConns <= 0 {
		fmt.Fprintln(os.Stderr, "pgserver: --max-connections must be positive")
		os.Exit(2)
	}
	if *queryMemMB < 0 {
		fmt.Fprintln(os.Stderr, "pgserver: --max-query-memory-mb must not be negative")
		os.Exit(2)
	}
	if *requireTLS && tlsCfg == nil {
		fmt.Fprintln(os.Stderr, "pgserver: --require-tls-remote needs --tls-cert and --tls-key")
		os.Exit(2)
	}
	if *replicateFrom != "" && *replicateInterval <= 0 {
		fmt.Fprintln(os.Stderr, "pgserver: --replicate-interval must be positive")
		os.Exit(2)
	}
	if *gcThresholdMB < 0 || *gcCheck <= 0 {
		fmt.Fprintln(os.Stderr, "pgserver: --gc-threshold-mb must not be negative and --gc-check-interval must be positive")
		os.Exit(2)
	}
	err = run(log, options{listen: *listen, dataDir: *dataDir, auth: *auth, hbaFile: *hbaFile, maxConns: *maxConns, queryMemMB: *queryMemMB,
		gcThreshold: uint64(*gcThresholdMB) << 20, gcCheck: *gcCheck, tls: tlsCfg, requireTLS: *requireTLS, cacheBytes: *cacheMB << 20,
		replicateFrom: *replicateFrom, replicateBranches: splitList(*replicateBranches), replicateInterval: *replicateInterval,
		tsearchData: *tsearchData})
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

// options are the server's settings from its flags.
type options struct {
	listen, dataDir, auth, hbaFile string
	maxConns                       int
	queryMemMB                     int64
	gcThreshold                    uint64 // bytes written that start an automatic GC; 0: none
	gcCheck                        time.Duration
	tls                            *tls.Config
	requireTLS                     bool // --require-tls-remote
	cacheBytes                     int64
	// replicateFrom, if set, makes the server a read replica of that
	// postgres:// URL's database, following replicateBranches.
	replicateFrom     string
	replicateBranches []string
	replicateInterval time.Duration
	// tsearchData is the directory of text search dictionaries' files.
	tsearchData string
}

// splitList splits a comma-separated flag, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func run(log *zap.Logger, o options) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	listen, dataDir, auth, tlsCfg, cacheBytes := o.listen, o.dataDir, o.auth, o.tls, o.cacheBytes

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

	db, err := store.Open(dataDir, store.Options{Logger: log.Named("store"), CacheBytes: cacheBytes, Redo: versioning.ReplayWorkingSet})
	if err != nil {
		return err
	}
	defer db.Close()
	engine := session.NewEngine(db, log.Named("sql"))
	engine.HashPassword = wire.SCRAMVerifier
	tsearchDir := o.tsearchData
	if tsearchDir == "" {
		tsearchDir = filepath.Join(dataDir, "tsearch_data")
	}
	engine.TextSearch = funcs.NewTextSearch(tsearchDir)
	engine.ServerSettings = map[string]string{
		"max_connections":  strconv.Itoa(o.maxConns),
		"max_query_memory": strconv.FormatInt(o.queryMemMB, 10) + "MB",
		"ssl":              "off",
	}
	if tlsCfg != nil {
		engine.ServerSettings["ssl"] = "on"
	}
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

		MaxConnections:        o.maxConns,
		RequireTLSOffLoopback: o.requireTLS,
	}
	if o.hbaFile != "" {
		if cfg.ClientAuth, err = hbaAuth(log.Named("hba"), o.hbaFile); err != nil {
			return err
		}
	}
	if method != wire.AuthTrust || cfg.ClientAuth != nil {
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
	authDesc := method.String()
	if o.hbaFile != "" {
		authDesc = "hba " + o.hbaFile
	}
	log.Info("listening", zap.String("addr", srv.Addr().String()), zap.String("data_dir", dataDir), zap.String("auth", authDesc))
	if o.replicateFrom != "" {
		if err := engine.StartReplica(ctx, o.replicateFrom, o.replicateBranches, o.replicateInterval); err != nil {
			return fmt.Errorf("--replicate-from: %w", err)
		}
	}
	if o.gcThreshold > 0 {
		go engine.AutoGC(ctx, func() uint64 { return db.Stats().BytesJournaled }, o.gcThreshold, o.gcCheck)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ctx) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	st := db.Stats()
	log.Info("shutting down", zap.Uint64("chunks_written", st.ChunksWritten), zap.Uint64("bytes_written", st.BytesWritten), zap.Uint64("bytes_journaled", st.BytesJournaled),
		zap.Uint64("sync_requests", st.SyncRequests), zap.Uint64("syncs", st.Syncs), zap.Uint64("redo_spilled", st.RedoSpilled), zap.Uint64("redo_dropped", st.RedoDropped))
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

// defaultQueryMemoryMB is a quarter of the machine's memory in MiB (from
// /proc/meminfo), the default bound of one statement's buffers; 0 (no
// limit) where the machine does not say.
func defaultQueryMemoryMB() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb / 1024 / 4
		}
	}
	return 0
}
