package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Memory is a store kept in maps, for unit tests of the layers above. It has
// DB's method set and semantics (CAS refs, dangling-ref refusal, ErrClosed
// after Close) without persistence: Flush and Sync do nothing, and durable
// updates are as durable as the process.
//
// Memory is safe for concurrent use. Its Check also detects a caller that
// modified a chunk slice it was given by Get or handed to Put.
type Memory struct {
	mu     sync.RWMutex
	chunks map[Address][]byte
	refs   map[string]Address
	closed bool
	stats  counters
	gc     *barrier // the running GC's barrier or the last one's validator, as DB's
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{chunks: make(map[Address][]byte), refs: make(map[string]Address)}
}

// Get returns the chunk of addr; the error wraps ErrNotFound if it is absent.
// The slice is shared: do not modify it.
func (m *Memory) Get(ctx context.Context, addr Address) ([]byte, error) {
	m.stats.gets.Add(1)
	m.mu.RLock()
	data, ok := m.chunks[addr]
	closed := m.closed
	m.mu.RUnlock()
	switch {
	case closed:
		return nil, ErrClosed
	case !ok:
		return nil, notFound(addr)
	}
	return data, nil
}

// GetMany calls fn with each present chunk of addrs, in the order of addrs,
// and then, if some were absent, returns an error wrapping ErrNotFound. It
// stops at the first error fn returns and returns it.
func (m *Memory) GetMany(ctx context.Context, addrs []Address, fn func(Address, []byte) error) error {
	var missing []Address
	for _, a := range addrs {
		data, err := m.Get(ctx, a)
		if errors.Is(err, ErrNotFound) {
			missing = append(missing, a)
			continue
		}
		if err != nil {
			return err
		}
		if err := fn(a, data); err != nil {
			return err
		}
	}
	return manyNotFound(missing)
}

// Has reports whether the chunk of addr is present.
func (m *Memory) Has(ctx context.Context, addr Address) (bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return false, ErrClosed
	}
	_, ok := m.chunks[addr]
	return ok, nil
}

// HasMany returns the addresses of addrs that are absent, in the order of
// addrs.
func (m *Memory) HasMany(ctx context.Context, addrs []Address) ([]Address, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	var absent []Address
	for _, a := range addrs {
		if _, ok := m.chunks[a]; !ok {
			absent = append(absent, a)
		}
	}
	return absent, nil
}

// Put stores chunk and returns its address. It takes ownership of chunk.
func (m *Memory) Put(ctx context.Context, chunk []byte) (Address, error) {
	if len(chunk) > MaxChunkSize {
		return Address{}, tooLarge(len(chunk))
	}
	addr := Hash(chunk)
	// Recorded before m.mu is taken, as DB records: see UpdateRefs.
	m.mu.RLock()
	gc := m.gc
	m.mu.RUnlock()
	if gc != nil && gc.collecting() {
		gc.record(addr)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return Address{}, ErrClosed
	}
	if _, ok := m.chunks[addr]; !ok {
		m.chunks[addr] = chunk
		m.stats.wrote(len(chunk))
	}
	return addr, nil
}

// Flush does nothing: Memory has no write buffer.
func (m *Memory) Flush(ctx context.Context) error { return m.checkOpen() }

// Sync does nothing: Memory has no disk.
func (m *Memory) Sync() error { return m.checkOpen() }

// Ref returns the address ref name points at, and whether it exists.
func (m *Memory) Ref(ctx context.Context, name string) (Address, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Address{}, false, ErrClosed
	}
	a, ok := m.refs[name]
	return a, ok, nil
}

// ListRefs calls fn with every ref whose name starts with prefix, in name
// order, and stops at the first error fn returns. fn sees the refs as they
// were when ListRefs began, and may call the store.
func (m *Memory) ListRefs(ctx context.Context, prefix string, fn func(name string, addr Address) error) error {
	type ref struct {
		name string
		addr Address
	}
	m.mu.RLock()
	if m.closed {
		m.mu.RUnlock()
		return ErrClosed
	}
	var refs []ref
	for n, a := range m.refs {
		if strings.HasPrefix(n, prefix) {
			refs = append(refs, ref{n, a})
		}
	}
	m.mu.RUnlock()
	sort.Slice(refs, func(i, j int) bool { return refs[i].name < refs[j].name })
	for _, r := range refs {
		if err := fn(r.name, r.addr); err != nil {
			return err
		}
	}
	return nil
}

// UpdateRefs applies updates all together or not at all; see DB.UpdateRefs.
// durable is accepted for symmetry and has no effect.
func (m *Memory) UpdateRefs(ctx context.Context, updates []RefUpdate, durable bool) error {
	if err := checkRefUpdates(updates); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for {
		// A running GC records the updates and marks what they reach
		// before m.mu is taken (the mark reads the store), and the
		// barrier must still be the same under m.mu: see DB.UpdateRefs.
		m.mu.RLock()
		gc := m.gc
		m.mu.RUnlock()
		if gc != nil {
			if err := gc.recordRefs(ctx, updates); err != nil {
				return err
			}
		}
		err := m.updateRefs(updates, gc)
		if !errors.Is(err, errBarrierMoved) {
			return err
		}
	}
}

// updateRefs is one attempt of UpdateRefs, whose updates were recorded in
// gc.
func (m *Memory) updateRefs(updates []RefUpdate, gc *barrier) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	if m.gc != gc {
		return errBarrierMoved
	}
	for _, u := range updates {
		if _, ok := m.chunks[u.New]; !u.New.IsZero() && !ok {
			return danglingRef(u.Name, u.New)
		}
	}
	for _, u := range updates {
		if cur := m.refs[u.Name]; cur != u.Old {
			return refConflict(u.Name, u.Old, cur)
		}
	}
	for _, u := range updates {
		if u.New.IsZero() {
			delete(m.refs, u.Name)
		} else {
			m.refs[u.Name] = u.New
		}
	}
	return nil
}

// Stats returns the store's counters. CacheHits and DiskReads stay zero.
func (m *Memory) Stats() Stats { return m.stats.snapshot() }

// Check verifies that every chunk hashes to its address and every ref points
// at a present chunk; the error wraps ErrCorrupt.
func (m *Memory) Check(ctx context.Context) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return ErrClosed
	}
	var errs []error
	for a, d := range m.chunks {
		if Hash(d) != a {
			errs = append(errs, corrupt(a))
		}
	}
	for n, a := range m.refs {
		if _, ok := m.chunks[a]; !ok {
			errs = append(errs, fmt.Errorf("store: ref %q: chunk %s is absent: %w", n, a, ErrCorrupt))
		}
	}
	return errors.Join(errs...)
}

// Close makes every later call fail with ErrClosed and drops the contents.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	m.closed, m.chunks, m.refs = true, nil, nil
	return nil
}

// checkOpen returns ErrClosed after Close.
func (m *Memory) checkOpen() error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return ErrClosed
	}
	return nil
}
