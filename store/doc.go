// Package store keeps chunks and refs: the content-addressed storage under
// every Prolly tree and every commit of the repository.
//
// A chunk is an immutable byte string named by its Address, the truncated
// BLAKE3 hash of its bytes (see Hash). A ref is a name ("refs/heads/main")
// that points at an address and moves only by compare-and-set.
//
// Two implementations share one method set: DB keeps chunks and refs in
// Badger on disk, Memory keeps them in maps for unit tests of the layers
// above. A third, remotestore.Store, keeps a remote's chunks in table
// files for pushes and fetches (package store/remotestore), and a fourth,
// pgremote.Store, reaches another server's store over its wire port.
// Callers define the small interfaces they need (prolly.ChunkStore, for
// one); this package defines none.
//
// # Invariants
//
//  1. A chunk's bytes hash to its address. DB verifies this on every read
//     from disk, so a corrupt chunk is reported as ErrCorrupt, never returned,
//     and never cached. Badger's tables, which hold the refs and the value
//     pointers, are checksummed and verified as Badger opens them; a damaged
//     one fails Open with ErrCorrupt.
//  2. Chunks before refs: UpdateRefs journals every chunk Put before it, and
//     checks that each new target is present, before it moves any ref. A ref
//     therefore never points at a missing chunk, after a crash too. (That a
//     chunk's own references are present is its writer's duty: prolly
//     writes children before parents.) UpdateRefRedo is the one
//     exception: it journals the change that makes the ref's new value
//     from its old one instead of the chunks (redo.go), and Open redoes
//     the change, so after a crash the ref again points at present chunks.
//  3. All updates of one UpdateRefs call succeed or fail together; a ref
//     whose current value is not the expected one fails the call with
//     ErrRefConflict and changes nothing.
//  4. UpdateRefs with durable set returns only after the chunks and refs are
//     synced to disk (in the journal), so they survive a crash (kill -9,
//     power loss).
//  5. The store records its format version; opening a directory written in
//     another format fails with ErrFormatVersion, and a directory that holds
//     something other than a store fails with ErrNotStore.
//  6. A chunk is visible from the moment Put returns: DB keeps it in its
//     write buffer until a flush has written it to Badger, and a flush drops
//     a chunk from the buffer only after the write succeeded.
//  7. A chunk in DB's cache is also in the write buffer or on disk: Put
//     buffers a chunk before caching it, and reads cache only chunks that
//     came from disk and passed invariant 1. Put relies on this to skip
//     cached chunks, and UpdateRefs to count a cached target as present
//     (the flush that follows its check puts every buffered one on disk).
//  8. Ref reads a ref's current value: UpdateRefs updates DB's ref cache
//     and its refs not yet checkpointed (which Badger lacks) under the lock
//     every ref update holds, and a miss is filled under that lock too, so
//     a cached value is never older than the last update (the process owns
//     the directory; nothing else writes it).
//  9. Garbage collection removes no chunk that a ref reaches, and leaves no
//     ref pointing at a removed chunk, while Puts, ref updates and reads go
//     on (gc.go). The protocol:
//     (1) BeginGC raises a barrier under refMu, then checkpoints: Badger
//     then holds every chunk written before the barrier, and the journal
//     and write buffer only chunks written after. From then on Put
//     records every address it is given, also those it skips as cached or
//     buffered (a writer that recreates an old, unreachable chunk keeps
//     it), and UpdateRefs, before it applies, calls the caller's
//     Mark.Refs, which walks what the new values reach, adds it to the
//     live set, and fails the update (ErrDanglingRef) if part of it is
//     gone; then it records the targets. commitRefs applies an update only
//     if the barrier it went through still stands (else UpdateRefs starts
//     over), so an update either precedes the GC's reading of the refs or
//     was marked.
//     (2) The caller reads the refs (after BeginGC) and marks what they
//     reach, and what it knows running transactions hold.
//     (3) Sweep scans Badger's chunk keys and deletes, in batches, those
//     neither live nor recorded nor buffered; each batch decides and
//     deletes holding the barrier's lock, which Put, UpdateRefs and
//     Mark.Refs take, so none can name a victim between the decision and
//     the delete; the batch then drops its victims from the cache, after
//     bumping a counter that keeps a read begun before the delete from
//     caching a victim afterwards (invariant 7 holds: a Put of a victim
//     after the batch finds it uncached and writes it again).
//     (4) The barrier then stops recording but goes on validating every
//     ref update with the GC's mark until the next GC: a writer may have
//     built, before or during the GC, on a chunk it removed, and must fail
//     rather than point a ref at a hole.
//     (5) The space is reclaimed: see reclaim in gc.go.
//     So a chunk a running statement reads is removed only if no ref and
//     no root the caller passed reaches it, and was written before the GC
//     began; a later commit that needs such a chunk fails instead of
//     committing a hole. A kill at any moment leaves refs whose chunks are
//     all present: deletes only remove chunks that no ref reached at their
//     decision, and the journal, replayed at Open, holds only chunks and
//     refs written after the GC's checkpoint, which it restores.
//  10. With a reach function (SetReach, fresh.go), a chunk is fresh from
//     Put until a ref update reaches it or the buffer of fresh chunks
//     passes freshLimit; only then is it journaled, cached and, later,
//     written to Badger. A ref update journals every fresh chunk its new
//     values reach before the update itself (so invariant 2 holds), and a
//     chunk that is not fresh has no fresh chunk below it. DropFresh
//     removes fresh chunks of generations whose writers have all ended;
//     fresh.go states why no running writer or later ref can reach them.
//     Redo chunks (redo.go) are fresh chunks that DropFresh does not drop
//     while a ref may reach them; they stop being fresh when a ref update
//     journals them, or once a spill or a checkpoint wrote them to Badger
//     and synced it; a spill leaves the others, which no ref reached at two
//     spills in a row, to DropFresh.
//
// # Writing and durability (DB)
//
// Put hashes the chunk, buffers it and caches it; nothing touches the disk.
// UpdateRefRedo appends only a redo record, and the redo chunks go to
// Badger (synced) in the background, or at a checkpoint, which also comes
// after 20,000 redo records (redo.go).
// UpdateRefs appends the buffered chunks not yet journaled and the ref
// update to the journal (journal.go) in one write, and moves the refs in
// memory (with a reach function, only the fresh chunks the update reaches,
// and Put caches a chunk only once it is journaled: invariant 10); with durable set it then fdatasyncs the journal. Concurrent
// durable calls share fsyncs (group commit): a caller waits for at most
// the fsync in progress and one more. Badger is written without syncing:
// the buffer, once past 16 MiB, in one WriteBatch (after journaling it) by a
// background goroutine (a Put past 64 MiB writes it itself),
// and the refs at a checkpoint, which also syncs Badger and starts the
// journal over; a commit checkpoints once the journal passes 64 MiB, and
// Close does. Open replays the journal into Badger. A chunk evicted from
// the cache and put again is written again (the older copy becomes
// value-log garbage): checking Badger first would cost every commit an LSM
// lookup per chunk.
//
// # Garbage collection (DB)
//
// BeginGC, the caller's mark, and GC.Sweep; invariant 9 states the
// protocol. Deleting a key in Badger writes a tombstone; the value's
// bytes are freed only when a compaction drops the tombstone with the
// value (and counts them as garbage of their value-log file) and the
// value-log GC rewrites the file's live values and removes it. Badger
// never collects the value-log file it is writing, and has no call that
// flushes a memtable, so Sweep reopens Badger (Close flushes the
// memtables and, with CompactL0OnClose, compacts level 0; Open starts a
// new value-log file), flattens the LSM tree, and runs the value-log GC
// until no file has more than 5% of garbage, with SyncWrites on (Badger
// deletes a rewritten file without syncing what it moved), then reopens
// Badger as usual. The reopens hold closeMu exclusively: calls that touch
// Badger wait for them (cache hits do not). The journal's preallocated
// space is given back at the same time. Measured (TestGCDiskSpace in
// versioning): after a GC the directory is within 1% of a fresh store
// holding the same live chunks (not counting the fresh store's journal
// preallocation); a copying collector was not needed.
//
// Caveat: Badger's Sync, which a checkpoint relies on, covers the active
// memtable's WAL and the current value-log file (a rotated value-log file
// is synced as it is closed). The WAL of a full memtable waiting to be
// flushed to a table is not synced: a ref or small chunk in it is durable
// once that flush completes, and a power loss between the checkpoint and
// then can lose it. A killed process loses nothing (the WAL is
// memory-mapped and the kernel writes it back); the window is one
// memtable flush after a checkpoint, every 64 MiB of writes; closing it
// needs a change in Badger (see dgraph-io/badger#1847 on what Sync covers).
//
// # Ownership and concurrency
//
// A slice returned by Get or passed to a GetMany callback is shared with the
// cache and other readers: it must not be modified, and stays valid for as
// long as the caller holds it. Put takes ownership of the slice it is given.
// Check reports a chunk whose bytes changed after Put or Get, which is how
// tests catch a caller that broke these rules.
//
// DB and Memory are safe for concurrent use. Callbacks (GetMany, ListRefs)
// run with no lock of the store held and may call the store. Close waits for
// the calls in progress that touch disk; every call that begins after Close
// fails with ErrClosed.
//
// # Cache (DB)
//
// The chunk cache is bounded in bytes (chunk lengths plus 96 bytes an
// entry; Options.CacheBytes, 256 MiB by default), split into 16 shards by
// address with a mutex each, and evicts with CLOCK; a new entry must be hit
// once to survive the hand's next pass, so scans do not flush it. A cache hit
// does not allocate. A miss costs a Badger lookup, one allocation for the copy
// out of Badger (beside Badger's own), and a BLAKE3 verification.
//
// # On-disk layout (format version 2)
//
// Badger, in the store's directory:
//
//	"c" + address(20)   -> chunk bytes
//	"r" + name          -> address(20)
//	"m/format"          -> format version, uvarint
//
// and the journal, chunks.journal, whose format journal.go describes.
// Open removes empty *.mem and *.vlog files, which a kill between Badger's
// creating and sizing them leaves and which Badger then refuses.
// Version 1 had no journal; Open upgrades it in place.
//
// Ref names are 1 to MaxRefNameLen bytes; a stored ref value is never the
// zero address (deletion removes the key). Where Badger places a value (LSM
// tree under 512 bytes, value log from 512 bytes on) and how it compresses
// its tables are Badger settings recorded in Badger's own files, not part of
// this format: a store stays readable if they change. The Badger options and
// the reasons for them are in badgerOptions (db.go).
package store
