// Package store keeps chunks and refs: the content-addressed storage under
// every Prolly tree and every commit of the repository.
//
// A chunk is an immutable byte string named by its Address, the truncated
// BLAKE3 hash of its bytes (see Hash). A ref is a name ("refs/heads/main")
// that points at an address and moves only by compare-and-set.
//
// Two implementations share one method set: DB keeps chunks and refs in
// Badger on disk, Memory keeps them in maps for unit tests of the layers
// above. Callers define the small interfaces they need (prolly.ChunkStore,
// for one); this package defines none.
//
// # Invariants
//
//  1. A chunk's bytes hash to its address. DB verifies this on every read
//     from disk, so a corrupt chunk is reported as ErrCorrupt, never returned.
//  2. Chunks before refs: UpdateRefs writes every chunk Put before it, and
//     checks that each new target is present, before it moves any ref. A ref
//     therefore never points at a missing chunk. (That a chunk's own
//     references are present is its writer's duty: prolly writes children
//     before parents.)
//  3. All updates of one UpdateRefs call succeed or fail together; a ref
//     whose current value is not the expected one fails the call with
//     ErrRefConflict and changes nothing.
//  4. UpdateRefs with durable set returns only after the chunks and refs are
//     synced to disk, so they survive a crash (kill -9, power loss).
//  5. The store records its format version; opening a directory written in
//     another format fails with ErrFormatVersion, and a directory that holds
//     something other than a store fails with ErrNotStore.
//
// # Ownership and concurrency
//
// A slice returned by Get or passed to a GetMany callback is shared with the
// cache and other readers: it must not be modified, and stays valid for as
// long as the caller holds it. Put takes ownership of the slice it is given.
// DB and Memory are safe for concurrent use.
//
// # On-disk layout (format version 1)
//
//	"c" + address(20)   -> chunk bytes
//	"r" + name          -> address(20)
//	"m/format"          -> format version, uvarint
package store
