// Package remotestore keeps a repository's chunks and refs where other
// servers can reach them: the far side of dolt_push, dolt_fetch,
// dolt_pull, dolt_clone and dolt_backup. A remote holds chunks in table files (many
// chunks and an index in one immutable file) and its refs in a manifest
// that names the table files and maps each ref ("refs/heads/main",
// "refs/tags/v1") to an address.
//
// Store is one handle on a remote. It has the method set of the layers'
// stores (Get, GetMany, Has, HasMany, Put, Ref, ListRefs, UpdateRefs), so
// versioning copies chunks into and out of it as it does with store.DB.
// Where the bytes live is a backend: a directory (file:// URLs, dir.go);
// an object store such as S3 is another backend of the same four
// operations (read and swap the manifest, write and read table files),
// not another Store.
//
// # Invariants
//
//  1. A chunk is present once a table file holding it is named by the
//     manifest; table files are written whole, synced and renamed into
//     place before a manifest names them, and are never changed after.
//  2. The manifest names no table file that is not complete, and moves
//     only by compare-and-set: UpdateRefs reads it, checks each update's
//     expected old value against it, and replaces it only if it is still
//     the manifest it read (swapManifest), else starts over. Two writers
//     can therefore not lose each other's refs or table files.
//  3. Chunks before refs: UpdateRefs writes the chunks Put before it into
//     table files, and checks that every new ref target is present, before
//     it swaps the manifest that names both. A writer that stops midway
//     (an error, a cancelled context, a crash) leaves at most table files
//     no manifest names, which readers never see; a retry writes them
//     again (a table file's name is the hash of its index, so the same
//     chunks make the same file).
//  4. Present implies the whole subtree is present: it follows from 3 as
//     long as writers Put every chunk that their new refs reach and that
//     the remote lacks (versioning's transfer does), since a manifest
//     swap publishes all of a writer's table files at once.
//  5. Every chunk read is checked against its address (store.Hash); a
//     mismatch is store.ErrCorrupt.
//
// # Formats (version 1)
//
// A table file, named by the base32 address (store.Address.String) of
// the BLAKE3 hash of its index, plus ".tbl":
//
//	chunk bytes ... | index | footer
//	index:  count entries sorted by address, each
//	        address(20) | offset uint64 | length uint32   (big-endian)
//	footer: count uint64 | crc32c(index) uint32 | magic "pgtable1"
//
// The manifest, "manifest" in the directory, is JSON:
//
//	{"format":1,"version":N,"tables":["<name>",...],"refs":{"refs/heads/main":"<address>",...}}
//
// version counts the swaps; a manifest with another format fails Open
// with store.ErrFormatVersion.
//
// # Limits
//
// Nothing yet merges table files (each push adds at least one, and Open
// reads every index) or removes the table files and temporary files that
// interrupted writers leave unnamed; a remote is never garbage collected.
//
// # Concurrency
//
// A Store is safe for concurrent use, but its writes (Put, UpdateRefs)
// form one transaction: the chunks Put by any goroutine go out with the
// next UpdateRefs. Use one Store per writer. Any number of Stores, in any
// number of processes, may share a remote.
package remotestore
