package pgremote

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/prollypg/prollypg/store"
)

// Batch sizes: how many addresses a dolt_peer_get or dolt_peer_absent
// names, and when Put sends what it holds (the server takes at most 4096
// elements a call).
const (
	getBatch  = 1024
	putChunks = 2048
	putBytes  = 4 << 20
)

// ErrUnsupportedURL: the URL is not a postgres:// one.
var ErrUnsupportedURL = errors.New("pgremote: not a postgres:// URL")

// IsURL reports whether rawURL names a pgserver remote
// (postgres:// or postgresql://).
func IsURL(rawURL string) bool {
	return strings.HasPrefix(rawURL, "postgres://") || strings.HasPrefix(rawURL, "postgresql://")
}

// Redact returns rawURL with its password, if any, masked.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.User == nil {
		return rawURL
	}
	if _, ok := u.User.Password(); !ok {
		return rawURL
	}
	return u.Redacted()
}

// Store is a handle on a database of another pgserver.
type Store struct {
	mu     sync.Mutex
	conn   *pgx.Conn
	db     string                     // the database whose refs the handle reads and moves
	where  string                     // the URL, password masked, for errors
	buf    map[store.Address][]byte   // chunks Put and not sent yet
	bytes  int                        // their bytes
	put    map[store.Address]struct{} // chunks this handle wrote
	closed bool
	// listening: the connection has run LISTEN dolt_peer_refs
	// (WaitForChange).
	listening bool
	// backup: the refs are a backup's (OpenBackup).
	backup bool
}

// Open connects to the pgserver at rawURL,
// postgres://[user[:password]@]host[:port]/db[?params], whose params
// and fallbacks are pgx's (libpq's). The database need not exist yet.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	where := Redact(rawURL)
	if !IsURL(rawURL) {
		return nil, fmt.Errorf("%w: %q", ErrUnsupportedURL, where)
	}
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("pgremote: %s: %w", where, redactErr(err, rawURL))
	}
	db := cfg.Database
	if db == "" {
		return nil, fmt.Errorf("%w: %q names no database", ErrUnsupportedURL, where)
	}
	// The protocol's statements are few and repeated: prepared once each.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
	conn, err := pgx.ConnectConfig(ctx, cfg)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "3D000" {
		// The database does not exist (yet): its refs are reached through
		// the maintenance database; a push creates it.
		cfg.Database = "postgres"
		conn, err = pgx.ConnectConfig(ctx, cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("pgremote: connecting to %s: %w", where, redactErr(err, rawURL))
	}
	return &Store{conn: conn, db: db, where: where, buf: map[store.Address][]byte{}, put: map[store.Address]struct{}{}}, nil
}

// OpenBackup is Open for a backup kept in the database of rawURL
// (dolt_backup): its refs are all of that database's, named as a
// backup's (refs/heads/B, workingSets/heads/B, config/remotes, ...), read
// with dolt_peer_backup_refs and replaced with
// dolt_peer_backup_update_refs.
func OpenBackup(ctx context.Context, rawURL string) (*Store, error) {
	s, err := Open(ctx, rawURL)
	if err == nil {
		s.backup = true
	}
	return s, err
}

// redactErr returns err, or if its text holds the password of rawURL, an
// error with the password masked.
func redactErr(err error, rawURL string) error {
	u, perr := url.Parse(rawURL)
	if perr != nil || u.User == nil {
		return err
	}
	pw, ok := u.User.Password()
	if !ok || pw == "" || !strings.Contains(err.Error(), pw) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), pw, "xxxxx"))
}

// Database returns the name of the remote database.
func (s *Store) Database() string { return s.db }

// Close ends the connection; chunks Put and not sent are dropped.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return s.conn.Close(context.Background())
}

// lock takes the connection for one call.
func (s *Store) lock() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return store.ErrClosed
	}
	return nil
}

// wrap gives an error of the serving server its context.
func (s *Store) wrap(op string, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "40001":
			return fmt.Errorf("pgremote: %s at %s: %s: %w", op, s.where, pe.Message, store.ErrRefConflict)
		case "23503":
			return fmt.Errorf("pgremote: %s at %s: %s: %w", op, s.where, pe.Message, store.ErrDanglingRef)
		}
		return fmt.Errorf("pgremote: %s at %s: %w", op, s.where, &ServerError{Code: pe.Code, Message: pe.Message})
	}
	return fmt.Errorf("pgremote: %s at %s: %w", op, s.where, err)
}

// ServerError is an error the serving server reported. Its SQLSTATE
// reaches the client of the server that made the call (42501 for a role
// without REPLICATION), as the wire layer reports the SQLState of any
// error.
type ServerError struct {
	Code, Message string
}

func (e *ServerError) Error() string    { return e.Message }
func (e *ServerError) SQLState() string { return e.Code }

// Get returns the chunk of addr; the error wraps store.ErrNotFound if the
// server lacks it and store.ErrCorrupt if its bytes do not hash to addr.
func (s *Store) Get(ctx context.Context, addr store.Address) ([]byte, error) {
	var out []byte
	err := s.GetMany(ctx, []store.Address{addr}, func(_ store.Address, b []byte) error {
		out = b
		return nil
	})
	return out, err
}

// GetMany calls fn with each chunk of addrs the server holds, in the
// order of addrs, reading getBatch at a time, then returns an error
// wrapping store.ErrNotFound if some were absent. Chunks this handle Put
// and has not sent yet are read from its buffer.
func (s *Store) GetMany(ctx context.Context, addrs []store.Address, fn func(store.Address, []byte) error) error {
	var absent []store.Address
	for len(addrs) > 0 {
		batch := addrs[:min(len(addrs), getBatch)]
		addrs = addrs[len(batch):]
		chunks, err := s.getBatch(ctx, batch)
		if err != nil {
			return err
		}
		for i, b := range chunks {
			if b == nil {
				absent = append(absent, batch[i])
				continue
			}
			if store.Hash(b) != batch[i] {
				return fmt.Errorf("pgremote: chunk %s from %s: %w", batch[i], s.where, store.ErrCorrupt)
			}
			if err := fn(batch[i], b); err != nil {
				return err
			}
		}
	}
	switch len(absent) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("pgremote: chunk %s at %s: %w", absent[0], s.where, store.ErrNotFound)
	}
	return fmt.Errorf("pgremote: chunk %s and %d more at %s: %w", absent[0], len(absent)-1, s.where, store.ErrNotFound)
}

// getBatch reads one batch of chunks, nil for those the server lacks.
func (s *Store) getBatch(ctx context.Context, addrs []store.Address) ([][]byte, error) {
	if err := s.lock(); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	out := make([][]byte, len(addrs))
	var ask []store.Address
	var at []int
	for i, a := range addrs {
		if b, ok := s.buf[a]; ok {
			out[i] = b
			continue
		}
		ask, at = append(ask, a), append(at, i)
	}
	if len(ask) == 0 {
		return out, nil
	}
	var got [][]byte
	if err := s.conn.QueryRow(ctx, "SELECT dolt_peer_get($1::bytea[])", addrBytes(ask)).Scan(&got); err != nil {
		return nil, s.wrap("reading chunks", err)
	}
	if len(got) != len(ask) {
		return nil, fmt.Errorf("pgremote: %s answered %d chunks for %d addresses", s.where, len(got), len(ask))
	}
	for j, b := range got {
		out[at[j]] = b
	}
	return out, nil
}

func addrBytes(addrs []store.Address) [][]byte {
	out := make([][]byte, len(addrs))
	for i := range addrs {
		out[i] = addrs[i][:]
	}
	return out
}

// Has reports whether the server holds the chunk of addr with its whole
// subtree, or this handle wrote it.
func (s *Store) Has(ctx context.Context, addr store.Address) (bool, error) {
	absent, err := s.HasMany(ctx, []store.Address{addr})
	return len(absent) == 0, err
}

// HasMany returns the addresses of addrs that are absent, in the order
// of addrs: those the server does not hold durably (with their subtrees)
// and this handle did not write.
func (s *Store) HasMany(ctx context.Context, addrs []store.Address) ([]store.Address, error) {
	var out []store.Address
	for len(addrs) > 0 {
		batch := addrs[:min(len(addrs), getBatch)]
		addrs = addrs[len(batch):]
		absent, err := s.absentBatch(ctx, batch)
		if err != nil {
			return nil, err
		}
		out = append(out, absent...)
	}
	return out, nil
}

func (s *Store) absentBatch(ctx context.Context, addrs []store.Address) ([]store.Address, error) {
	if err := s.lock(); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	var ask []store.Address
	for _, a := range addrs {
		if _, ok := s.put[a]; !ok {
			ask = append(ask, a)
		}
	}
	if len(ask) == 0 {
		return nil, nil
	}
	var got [][]byte
	if err := s.conn.QueryRow(ctx, "SELECT dolt_peer_absent($1::bytea[])", addrBytes(ask)).Scan(&got); err != nil {
		return nil, s.wrap("asking for chunks", err)
	}
	out := make([]store.Address, 0, len(got))
	for _, b := range got {
		if len(b) != store.AddressSize {
			return nil, fmt.Errorf("pgremote: %s answered an address of %d bytes", s.where, len(b))
		}
		out = append(out, store.Address(b))
	}
	return out, nil
}

// Put adds chunk to the handle's writes and returns its address; the
// chunks go to the server in batches, the last with the next UpdateRefs.
func (s *Store) Put(ctx context.Context, chunk []byte) (store.Address, error) {
	if len(chunk) > store.MaxChunkSize {
		return store.Address{}, fmt.Errorf("pgremote: chunk of %d bytes exceeds the limit of %d", len(chunk), store.MaxChunkSize)
	}
	addr := store.Hash(chunk)
	if err := s.lock(); err != nil {
		return store.Address{}, err
	}
	defer s.mu.Unlock()
	if _, ok := s.put[addr]; ok {
		return addr, nil
	}
	s.put[addr] = struct{}{}
	s.buf[addr] = chunk
	s.bytes += len(chunk)
	if len(s.buf) >= putChunks || s.bytes >= putBytes {
		return addr, s.flushLocked(ctx)
	}
	return addr, nil
}

// flushLocked sends the buffered chunks.
func (s *Store) flushLocked(ctx context.Context) error {
	if len(s.buf) == 0 {
		return nil
	}
	chunks := make([][]byte, 0, len(s.buf))
	for _, b := range s.buf {
		chunks = append(chunks, b)
	}
	var n int
	if err := s.conn.QueryRow(ctx, "SELECT dolt_peer_put($1::bytea[])", chunks).Scan(&n); err != nil {
		return s.wrap("writing chunks", err)
	}
	clear(s.buf)
	s.bytes = 0
	return nil
}

// Flush sends the chunks Put so far.
func (s *Store) Flush(ctx context.Context) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	return s.flushLocked(ctx)
}

// Sync does nothing: UpdateRefs is always durable.
func (s *Store) Sync() error { return nil }

// Ref returns the address ref name points at now (a remote's name:
// refs/heads/main, refs/tags/v1, ws/main).
func (s *Store) Ref(ctx context.Context, name string) (store.Address, bool, error) {
	var out store.Address
	found := false
	err := s.ListRefs(ctx, name, func(n string, a store.Address) error {
		if n == name {
			out, found = a, true
		}
		return nil
	})
	return out, found, err
}

// ListRefs calls fn with each ref of the database whose name starts with
// prefix, in name order, as the server has them now.
func (s *Store) ListRefs(ctx context.Context, prefix string, fn func(name string, addr store.Address) error) error {
	refs, err := s.refs(ctx)
	if err != nil {
		return err
	}
	for _, r := range refs {
		if strings.HasPrefix(r.name, prefix) {
			if err := fn(r.name, r.addr); err != nil {
				return err
			}
		}
	}
	return nil
}

type ref struct {
	name string
	addr store.Address
}

// refs reads the database's refs.
func (s *Store) refs(ctx context.Context) ([]ref, error) {
	if err := s.lock(); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	query := "SELECT name, hash FROM dolt_peer_refs($1)"
	if s.backup {
		query = "SELECT name, hash FROM dolt_peer_backup_refs($1)"
	}
	rows, err := s.conn.Query(ctx, query, s.db)
	if err != nil {
		return nil, s.wrap("listing refs", err)
	}
	var out []ref
	for rows.Next() {
		var name, hash string
		if err := rows.Scan(&name, &hash); err != nil {
			rows.Close()
			return nil, s.wrap("listing refs", err)
		}
		a, err := store.ParseAddress(hash)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("pgremote: %s: ref %q: %w", s.where, name, err)
		}
		out = append(out, ref{name, a})
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("listing refs", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// UpdateRefs sends the chunks Put so far, then applies updates, each a
// compare-and-set against the server's current refs, all or none; the
// error wraps store.ErrRefConflict if a ref is not at its Old value, and
// store.ErrDanglingRef if a new target is absent. It is always durable.
func (s *Store) UpdateRefs(ctx context.Context, updates []store.RefUpdate, durable bool) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if err := s.flushLocked(ctx); err != nil {
		return err
	}
	names := make([]string, len(updates))
	olds := make([]string, len(updates))
	news := make([]string, len(updates))
	for i, u := range updates {
		names[i] = u.Name
		if !u.Old.IsZero() {
			olds[i] = u.Old.String()
		}
		if !u.New.IsZero() {
			news[i] = u.New.String()
		}
	}
	var n int
	query := "SELECT dolt_peer_update_refs($1, $2::text[], $3::text[], $4::text[])"
	if s.backup {
		query = "SELECT dolt_peer_backup_update_refs($1, $2::text[], $3::text[], $4::text[])"
	}
	err := s.conn.QueryRow(ctx, query, s.db, names, olds, news).Scan(&n)
	if err != nil {
		return s.wrap("updating refs", err)
	}
	return nil
}

// peerRefsChannel is the channel on which the serving server notifies
// that the refs of a database a peer follows moved
// (planner/session/peerwatch.go).
const peerRefsChannel = "dolt_peer_refs"

// WaitForChange waits until the server says the refs of the database
// moved, or d has passed, and reports which. The server notifies only
// the peers connected to that database, for a while after each call of
// dolt_peer_refs (ListRefs, Ref); otherwise this waits d.
func (s *Store) WaitForChange(ctx context.Context, d time.Duration) (bool, error) {
	if err := s.lock(); err != nil {
		return false, err
	}
	defer s.mu.Unlock()
	if !s.listening {
		if _, err := s.conn.Exec(ctx, "LISTEN "+peerRefsChannel); err != nil {
			return false, s.wrap("listening for ref changes", err)
		}
		s.listening = true
	}
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	_, err := s.conn.WaitForNotification(wctx)
	switch {
	case err == nil:
		return true, nil
	case ctx.Err() != nil:
		return false, ctx.Err()
	case wctx.Err() != nil:
		return false, nil // d passed; the connection stays usable
	}
	return false, s.wrap("waiting for ref changes", err)
}
