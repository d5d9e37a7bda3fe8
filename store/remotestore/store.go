package remotestore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prollypg/prollypg/store"
)

// tableTarget is the size at which Put closes a table file and starts the
// next: a clone of a large database is written as files of this size, an
// fsync each, not as a file per chunk.
const tableTarget = 32 << 20

// readGap is how far apart two chunks of one table file GetMany may be
// and still be read in one call, and readMax the most one call reads.
const (
	readGap = 64 << 10
	readMax = 4 << 20
)

// ErrUnsupportedURL is returned by Open for a URL it cannot open: a
// scheme with no backend (there are file:// and s3://), or a malformed
// URL of one.
var ErrUnsupportedURL = errors.New("remotestore: unsupported remote URL")

// Store is a handle on one remote. See the package doc.
type Store struct {
	b          backend
	tableBytes int // tableTarget, or less in tests

	mu     sync.Mutex
	raw    []byte    // the manifest as last read: the expected value of the next swap
	man    *manifest // raw, decoded
	loaded map[string]bool
	index  map[store.Address]location // chunks of loaded table files

	// The writes of this handle not yet in the manifest: the table being
	// filled, and those finished (written to the backend, and in index).
	cur      *tableWriter
	finished []string

	closed bool
}

// Open returns a handle on the remote at rawURL: file:///path (a
// directory) or s3://bucket/prefix (see parseS3URL for its settings).
// With create set, a file:// remote's directory or an s3:// remote's
// bucket is created if missing (a push), else it must exist (a fetch or
// a clone).
func Open(ctx context.Context, rawURL string, create bool) (*Store, error) {
	return openStore(ctx, rawURL, create, os.Getenv)
}

// openStore is Open with the environment's settings (an s3:// remote's
// endpoint, region and credentials) looked up by getenv.
func openStore(ctx context.Context, rawURL string, create bool, getenv func(string) string) (*Store, error) {
	b, err := openBackend(ctx, rawURL, create, getenv)
	if err != nil {
		return nil, err
	}
	s := &Store{b: b, tableBytes: tableTarget, loaded: map[string]bool{}, index: map[store.Address]location{}}
	if err := s.refresh(ctx); err != nil {
		b.close()
		return nil, err
	}
	return s, nil
}

// openBackend returns the backend of rawURL.
func openBackend(ctx context.Context, rawURL string, create bool, getenv func(string) string) (backend, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %v", ErrUnsupportedURL, rawURL, err)
	}
	switch u.Scheme {
	case "file":
		path := u.Path
		if u.Host != "" && u.Host != "localhost" {
			path = u.Host + u.Path // file://relative/dir
		}
		if path == "" {
			return nil, fmt.Errorf("%w: %q names no directory", ErrUnsupportedURL, rawURL)
		}
		return openDir(path, create)
	case "s3":
		return openS3(ctx, u, create, getenv)
	}
	return nil, fmt.Errorf("%w: %q (file:// and s3:// remotes are supported)", ErrUnsupportedURL, u.Redacted())
}

// refresh reads the manifest and the index of every table file it names
// that this handle has not loaded.
func (s *Store) refresh(ctx context.Context) error {
	raw, err := s.b.readManifest(ctx)
	if err != nil {
		return err
	}
	s.mu.Lock()
	same := s.man != nil && bytes.Equal(raw, s.raw)
	s.mu.Unlock()
	if same {
		return nil
	}
	m, err := decodeManifest(raw)
	if err != nil {
		return err
	}
	for _, t := range m.Tables {
		s.mu.Lock()
		done := s.loaded[t]
		s.mu.Unlock()
		if done {
			continue
		}
		chunks := map[store.Address]location{}
		if err := s.loadIndex(ctx, t, chunks); err != nil {
			return err
		}
		s.mu.Lock()
		for a, loc := range chunks {
			s.index[a] = loc
		}
		s.loaded[t] = true
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.raw, s.man = raw, m
	s.mu.Unlock()
	return nil
}

// loadIndex reads the index of table file name into chunks.
func (s *Store) loadIndex(ctx context.Context, name string, chunks map[store.Address]location) error {
	size, err := s.b.tableSize(ctx, name)
	if err != nil {
		return err
	}
	if size < int64(footerSize) {
		return fmt.Errorf("remotestore: table %s: %d bytes: %w", name, size, store.ErrCorrupt)
	}
	footer := make([]byte, footerSize)
	if err := s.b.readTable(ctx, name, footer, size-int64(footerSize)); err != nil {
		return err
	}
	count, sum, err := parseFooter(name, footer, size)
	if err != nil {
		return err
	}
	index := make([]byte, count*indexEntrySize)
	if err := s.b.readTable(ctx, name, index, size-int64(footerSize)-int64(len(index))); err != nil {
		return err
	}
	return parseIndex(name, index, sum, chunks)
}

// Close releases the handle. Chunks Put since the last UpdateRefs are
// dropped.
func (s *Store) Close() error {
	s.mu.Lock()
	s.closed, s.cur = true, nil
	s.mu.Unlock()
	return s.b.close()
}

// Has reports whether the remote (or this handle's unpublished writes)
// holds the chunk of addr.
func (s *Store) Has(ctx context.Context, addr store.Address) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false, store.ErrClosed
	}
	return s.hasLocked(addr), nil
}

func (s *Store) hasLocked(addr store.Address) bool {
	if _, ok := s.index[addr]; ok {
		return true
	}
	if s.cur != nil {
		_, ok := s.cur.chunks[addr]
		return ok
	}
	return false
}

// HasMany returns the addresses of addrs that are absent, in the order of
// addrs.
func (s *Store) HasMany(ctx context.Context, addrs []store.Address) ([]store.Address, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, store.ErrClosed
	}
	var absent []store.Address
	for _, a := range addrs {
		if !s.hasLocked(a) {
			absent = append(absent, a)
		}
	}
	return absent, nil
}

// Get returns the chunk of addr; the error wraps store.ErrNotFound if it
// is absent and store.ErrCorrupt if its bytes do not hash to addr.
func (s *Store) Get(ctx context.Context, addr store.Address) ([]byte, error) {
	var out []byte
	err := s.GetMany(ctx, []store.Address{addr}, func(_ store.Address, b []byte) error {
		out = b
		return nil
	})
	return out, err
}

// GetMany calls fn with each present chunk of addrs, in no particular
// order, then returns an error wrapping store.ErrNotFound if some were
// absent. Chunks close together in a table file are read in one call.
// fn must not modify the slices it receives, which it may keep.
func (s *Store) GetMany(ctx context.Context, addrs []store.Address, fn func(store.Address, []byte) error) error {
	type want struct {
		addr store.Address
		loc  location
	}
	var wants []want
	var absent []store.Address
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return store.ErrClosed
	}
	type held struct {
		addr store.Address
		data []byte
	}
	var buffered []held
	for _, a := range addrs {
		if loc, ok := s.index[a]; ok {
			wants = append(wants, want{a, loc})
		} else if b, ok := s.cur.get(a); ok {
			buffered = append(buffered, held{a, b})
		} else {
			absent = append(absent, a)
		}
	}
	s.mu.Unlock()
	for _, h := range buffered {
		if err := fn(h.addr, h.data); err != nil {
			return err
		}
	}
	sort.Slice(wants, func(i, j int) bool {
		if wants[i].loc.table != wants[j].loc.table {
			return wants[i].loc.table < wants[j].loc.table
		}
		return wants[i].loc.offset < wants[j].loc.offset
	})
	for len(wants) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		// One read covers the chunks of one table that follow each other
		// with gaps under readGap, up to readMax bytes.
		first := wants[0].loc
		end := first.offset + uint64(first.length)
		n := 1
		for ; n < len(wants); n++ {
			l := wants[n].loc
			if l.table != first.table || l.offset > end+readGap || l.offset+uint64(l.length)-first.offset > readMax {
				break
			}
			end = max(end, l.offset+uint64(l.length))
		}
		buf := make([]byte, end-first.offset)
		if err := s.b.readTable(ctx, first.table, buf, int64(first.offset)); err != nil {
			return err
		}
		for _, w := range wants[:n] {
			start := w.loc.offset - first.offset
			// A copy: the caller may keep a chunk for long (a cache), and
			// must not keep the whole read alive with it.
			chunk := bytes.Clone(buf[start : start+uint64(w.loc.length)])
			if store.Hash(chunk) != w.addr {
				return fmt.Errorf("remotestore: chunk %s in table %s: bytes do not match the address: %w", w.addr, first.table, store.ErrCorrupt)
			}
			if err := fn(w.addr, chunk); err != nil {
				return err
			}
		}
		wants = wants[n:]
	}
	switch len(absent) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("remotestore: chunk %s: %w", absent[0], store.ErrNotFound)
	}
	return fmt.Errorf("remotestore: chunk %s and %d more: %w", absent[0], len(absent)-1, store.ErrNotFound)
}

// Put adds chunk to this handle's writes and returns its address; it is
// readable through the handle at once and published by the next
// UpdateRefs. A chunk the remote holds is not written again.
func (s *Store) Put(ctx context.Context, chunk []byte) (store.Address, error) {
	if len(chunk) > store.MaxChunkSize {
		return store.Address{}, fmt.Errorf("remotestore: chunk of %d bytes exceeds the limit of %d", len(chunk), store.MaxChunkSize)
	}
	addr := store.Hash(chunk)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.Address{}, store.ErrClosed
	}
	if s.hasLocked(addr) {
		return addr, nil
	}
	if s.cur == nil {
		s.cur = newTableWriter()
	}
	s.cur.add(addr, chunk)
	if len(s.cur.data) >= s.tableBytes {
		return addr, s.finishLocked(ctx)
	}
	return addr, nil
}

// finishLocked writes the table being filled to the backend. It holds
// s.mu for the write: Puts wait, which bounds the memory a fast producer
// can fill.
func (s *Store) finishLocked(ctx context.Context) error {
	if s.cur == nil || len(s.cur.chunks) == 0 {
		return nil
	}
	name, data, chunks := s.cur.finish()
	s.cur = nil
	if err := s.b.writeTable(ctx, name, data); err != nil {
		return err
	}
	for a, loc := range chunks {
		s.index[a] = loc
	}
	s.finished = append(s.finished, name)
	return nil
}

// Sync does nothing: UpdateRefs is always durable.
func (s *Store) Sync() error { return nil }

// Flush writes the chunks Put so far into a table file, which the next
// UpdateRefs publishes.
func (s *Store) Flush(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.finishLocked(ctx)
}

// Ref returns the address ref name points at in the manifest read last
// (Open and UpdateRefs read it; Refresh reads it again).
func (s *Store) Ref(ctx context.Context, name string) (store.Address, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.Address{}, false, store.ErrClosed
	}
	a, ok := s.man.ref(name)
	return a, ok, nil
}

// ListRefs calls fn with each ref whose name starts with prefix, in name
// order, from the manifest read last.
func (s *Store) ListRefs(ctx context.Context, prefix string, fn func(name string, addr store.Address) error) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return store.ErrClosed
	}
	m := s.man
	s.mu.Unlock()
	names := make([]string, 0, len(m.Refs))
	for n := range m.Refs {
		if strings.HasPrefix(n, prefix) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		a, _ := m.ref(n)
		if err := fn(n, a); err != nil {
			return err
		}
	}
	return nil
}

// ListTables calls fn with the name of each table file of the manifest
// read last.
func (s *Store) ListTables(fn func(name string)) {
	s.mu.Lock()
	tables := s.man.Tables
	s.mu.Unlock()
	for _, t := range tables {
		fn(t)
	}
}

// Refresh reads the manifest again, to see what other writers published.
func (s *Store) Refresh(ctx context.Context) error { return s.refresh(ctx) }

// UpdateRefs publishes the chunks Put so far and applies updates, each a
// compare-and-set against the remote's current manifest, all or none;
// the error wraps store.ErrRefConflict if a ref is not at its Old value,
// and store.ErrDanglingRef if a new target is absent. It is always
// durable (durable is ignored).
func (s *Store) UpdateRefs(ctx context.Context, updates []store.RefUpdate, durable bool) error {
	if err := s.Flush(ctx); err != nil {
		return err
	}
	for {
		if err := s.refresh(ctx); err != nil {
			return err
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return store.ErrClosed
		}
		prev, m, tables := s.raw, s.man, slices.Clone(s.finished)
		var err error
		for _, u := range updates {
			if cur, _ := m.ref(u.Name); cur != u.Old {
				err = fmt.Errorf("remotestore: ref %q is %s, expected %s: %w", u.Name, addrOrNone(cur), addrOrNone(u.Old), store.ErrRefConflict)
				break
			}
			if !u.New.IsZero() && !s.hasLocked(u.New) {
				err = fmt.Errorf("remotestore: ref %q: chunk %s is absent: %w", u.Name, u.New, store.ErrDanglingRef)
				break
			}
		}
		s.mu.Unlock()
		if err != nil {
			return err
		}
		next := m.next(tables, updates)
		err = s.b.swapManifest(ctx, prev, next)
		if errors.Is(err, errManifestMoved) {
			continue // another writer published: check against its manifest
		}
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.finished = s.finished[len(tables):]
		for _, t := range tables {
			s.loaded[t] = true
		}
		s.mu.Unlock()
		// The refs have moved: a cancellation from here on must not
		// report the update as failed (a push or a backup cut by
		// statement_timeout after it had published said 57014 and yet
		// took effect).
		return s.refresh(context.WithoutCancel(ctx))
	}
}

func addrOrNone(a store.Address) string {
	if a.IsZero() {
		return "none"
	}
	return a.String()
}

// sleepCtx waits a little, or until ctx ends.
func sleepCtx(ctx context.Context) error {
	t := time.NewTimer(2 * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
