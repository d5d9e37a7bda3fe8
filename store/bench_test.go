package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// benchChunks is how many 4 KiB chunks the read benchmarks load (40 MiB).
const benchChunks = 10000

// nodeChunk returns a 4 KiB chunk for seed i shaped like a Prolly leaf of
// SQL rows: half random bytes, half repetitive structure, so that it
// compresses about 2:1, as such leaves do.
func nodeChunk(i uint64) []byte {
	d := chunk(i, 4096)
	for j := 2048; j+8 <= len(d); j += 8 {
		binary.LittleEndian.PutUint64(d[j:], uint64(j/64))
	}
	return d
}

// loadDB opens a DB in a fresh directory with opts and puts n node chunks,
// flushed, and returns their addresses.
func loadDB(b *testing.B, n int, opts Options, tune func(*badger.Options)) (*DB, []Address) {
	b.Helper()
	db, err := open(b.TempDir(), opts, tune)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	ctx := context.Background()
	addrs := make([]Address, n)
	for i := range addrs {
		a, err := db.Put(ctx, nodeChunk(uint64(i)))
		if err != nil {
			b.Fatal(err)
		}
		addrs[i] = a
	}
	if err := db.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	return db, addrs
}

// benchGets reads addrs round-robin with a stride, so that consecutive reads
// touch unrelated keys.
func benchGets(b *testing.B, db *DB, addrs []Address) {
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(4096)
	i := 0
	for b.Loop() {
		i = (i + 7919) % len(addrs)
		if _, err := db.Get(ctx, addrs[i]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetWarm reads chunks that are in the cache.
func BenchmarkGetWarm(b *testing.B) {
	db, addrs := loadDB(b, 1000, Options{}, nil)
	benchGets(b, db, addrs)
}

// BenchmarkGetCold reads chunks with the cache disabled: each Get is a
// Badger lookup, a copy out of the value log, and a BLAKE3 verification.
// The OS page cache is warm: this is the cost of a miss in our cache, not of
// a disk seek.
func BenchmarkGetCold(b *testing.B) {
	db, addrs := loadDB(b, benchChunks, Options{CacheBytes: -1}, nil)
	benchGets(b, db, addrs)
}

// BenchmarkGetManyCold reads 64 chunks a call with the cache disabled.
func BenchmarkGetManyCold(b *testing.B) {
	db, addrs := loadDB(b, benchChunks, Options{CacheBytes: -1}, nil)
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(64 * 4096)
	i := 0
	for b.Loop() {
		i = (i + 64) % (len(addrs) - 64)
		if err := db.GetMany(ctx, addrs[i:i+64], func(Address, []byte) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPutFlush measures the write path: Put of new 4 KiB chunks
// (hash, cache, buffer) and their WriteBatch to Badger, unsynced.
func BenchmarkPutFlush(b *testing.B) {
	benchPutFlush(b, Options{}, nil)
}

// benchPutFlush puts new node chunks into a fresh DB opened with opts and
// tune, and flushes them.
func benchPutFlush(b *testing.B, opts Options, tune func(*badger.Options)) {
	db, err := open(b.TempDir(), opts, tune)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(4096)
	// New chunks are copies of a few templates with a counter in front, so
	// that making them costs a 4 KiB copy, not a pseudo-random fill.
	var templates [16][]byte
	for i := range templates {
		templates[i] = nodeChunk(uint64(i))
	}
	var i uint64
	for b.Loop() {
		c := bytes.Clone(templates[i%16])
		binary.LittleEndian.PutUint64(c, i)
		if _, err := db.Put(ctx, c); err != nil {
			b.Fatal(err)
		}
		i++
	}
	if err := db.Flush(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkUpdateRefsDurable measures a commit: Put of one 4 KiB chunk and a
// durable compare-and-set of a ref to it (flush, transaction, fsync).
func BenchmarkUpdateRefsDurable(b *testing.B) {
	db := openDB(b, b.TempDir(), Options{})
	defer db.Close()
	ctx := context.Background()
	b.ReportAllocs()
	var cur Address
	var i uint64
	for b.Loop() {
		next, err := db.Put(ctx, nodeChunk(i))
		if err != nil {
			b.Fatal(err)
		}
		if err := db.UpdateRefs(ctx, []RefUpdate{{"refs/heads/main", cur, next}}, true); err != nil {
			b.Fatal(err)
		}
		cur = next
		i++
	}
}

// BenchmarkUpdateRefsDurableParallel runs durable commits of distinct refs
// from several goroutines; group commit lets them share fsyncs.
func BenchmarkUpdateRefsDurableParallel(b *testing.B) {
	db := openDB(b, b.TempDir(), Options{})
	defer db.Close()
	ctx := context.Background()
	b.ReportAllocs()
	b.SetParallelism(4)
	var seq, seeds atomic.Uint64
	b.RunParallel(func(pb *testing.PB) {
		name := fmt.Sprintf("refs/heads/w%d", seq.Add(1))
		var cur Address
		for pb.Next() {
			next, err := db.Put(ctx, nodeChunk(seeds.Add(1)))
			if err != nil {
				b.Error(err)
				return
			}
			if err := db.UpdateRefs(ctx, []RefUpdate{{name, cur, next}}, true); err != nil {
				b.Error(err)
				return
			}
			cur = next
		}
	})
}

// BenchmarkBadgerConfig compares the Badger settings of badgerOptions with
// the alternatives considered, on the write path and on cache misses:
//
//	ours:          values of 512 bytes and more in the value log, no
//	               compression, no block cache
//	inline:        values in the LSM tree (Badger's default threshold of
//	               1 MiB), no compression, no block cache
//	inline-snappy: values in the LSM tree, Snappy, 256 MiB block cache
//	               (Badger's defaults)
func BenchmarkBadgerConfig(b *testing.B) {
	configs := []struct {
		name string
		tune func(*badger.Options)
	}{
		{"ours", nil},
		{"inline", func(o *badger.Options) { o.ValueThreshold = 1 << 20 }},
		{"inline-snappy", func(o *badger.Options) {
			o.ValueThreshold = 1 << 20
			o.Compression = options.Snappy
			o.BlockCacheSize = 256 << 20
		}},
	}
	for _, c := range configs {
		b.Run(c.name+"/put", func(b *testing.B) {
			benchPutFlush(b, Options{CacheBytes: -1}, c.tune)
		})
		b.Run(c.name+"/get-cold", func(b *testing.B) {
			db, addrs := loadDB(b, benchChunks, Options{CacheBytes: -1}, c.tune)
			benchGets(b, db, addrs)
		})
	}
}

// BenchmarkMemoryGet reads from a Memory store, for comparison.
func BenchmarkMemoryGet(b *testing.B) {
	m := NewMemory()
	ctx := context.Background()
	a, _ := m.Put(ctx, nodeChunk(1))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Get(ctx, a); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHash4K is the cost of addressing (Put) or verifying (a cache
// miss) one 4 KiB chunk.
func BenchmarkHash4K(b *testing.B) {
	d := nodeChunk(1)
	b.ReportAllocs()
	b.SetBytes(int64(len(d)))
	for b.Loop() {
		Hash(d)
	}
}
