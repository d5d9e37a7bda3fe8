// Command pgserver is the PostgreSQL-compatible server: it parses flags,
// sets up zap logging, opens the data directory and serves the wire
// protocol until SIGTERM or SIGINT, then shuts down gracefully.
//
// Flags: --listen HOST:PORT (default 127.0.0.1:5432), --data-dir DIR
// (default ./pgserver-data), --log-level (debug, info, warn, error),
// --auth trust|scram (default: trust on loopback addresses, SCRAM-SHA-256
// anywhere else), --hba FILE (client authentication rules in pg_hba.conf's
// format, in place of --auth: per connection type, database or
// db@branch-pattern, user and address, trust, reject, scram-sha-256 or
// password; first match wins; SIGHUP reloads the file, and a file that does
// not parse is logged with its line while the rules in force stay; see
// package wire/hba), --max-connections N (default 100: more sessions are
// refused with 53300), --max-query-memory-mb N (the bytes of rows one
// statement's sorts, hash tables and buffers may hold before it fails with
// 53200; default a quarter of the machine's memory; shown and changed per
// session as max_query_memory), --gc-threshold-mb N with
// --gc-check-interval D (collect garbage by itself once N MiB of chunks were
// written to disk since the last collection, at a moment when no transaction is
// open; off by default), --tls-cert and --tls-key (PEM files: TLS for clients
// that ask for it), --require-tls-remote (with them: connections from other
// machines must be encrypted, FATAL 28000 otherwise), --replicate-from
// postgres://[user[:password]@]host:port/db with --replicate-branches
// b1,b2 (default main) and --replicate-interval D (default 100ms): a read
// replica of that database of another pgserver, which it polls as a role
// with REPLICATION, retrying with backoff while it is away; the database
// is read-only here (planner/session/replica.go).
// PGSERVER_SUPERUSER_PASSWORD in the environment sets the password of the
// role postgres at startup.
package main
