package main

import (
	"flag"
	"fmt"
	"os"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:5432", "address to listen on, HOST:PORT")
	dataDir := flag.String("data-dir", "./pgserver-data", "data directory")
	logLevel := zap.LevelFlag("log-level", zapcore.InfoLevel, "log level: debug, info, warn, error")
	flag.Parse()

	cfg := zap.NewProductionConfig()
	cfg.Level = zap.NewAtomicLevelAt(*logLevel)
	log, err := cfg.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgserver:", err)
		os.Exit(2)
	}
	defer log.Sync() //nolint:errcheck // nothing to do about a failed flush at exit
	log.Error("the SQL server is not built yet: only the storage engine exists",
		zap.String("listen", *listen), zap.String("data_dir", *dataDir))
	os.Exit(1)
}
