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
// Where the bytes live is a backend of four operations (read and swap
// the manifest, write and read table files): a directory (file:// URLs,
// dir.go) or a bucket of an S3-compatible object store (s3:// URLs,
// s3.go), not another Store. Another pgserver as a remote (postgres://
// URLs) is package pgremote's Store, with the same method set.
//
// # Invariants
//
//  1. A chunk is present once a table file holding it is named by the
//     manifest; table files are written whole (synced and renamed into
//     place in a directory; one PUT, checked by Content-MD5, on S3)
//     before a manifest names them, and are never changed after.
//  2. The manifest names no table file that is not complete, and moves
//     only by compare-and-set: UpdateRefs reads it, checks each update's
//     expected old value against it, and replaces it only if it is still
//     the manifest it read (swapManifest), else starts over. Two writers
//     can therefore not lose each other's refs or table files. The
//     compare and the replace are one step: under a flock in a
//     directory; on S3, a conditional PUT (see "S3" below).
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
// The manifest, "manifest" in the directory (or under the prefix), is
// JSON:
//
//	{"format":1,"version":N,"tables":["<name>",...],"refs":{"refs/heads/main":"<address>",...}}
//
// version counts the swaps; a manifest with another format fails Open
// with store.ErrFormatVersion.
//
// # S3
//
// s3://bucket/prefix keeps a remote in bucket under the key prefix
// "prefix/" (none if the URL has no path), with the directory's layout:
//
//	<prefix>manifest                  the manifest
//	<prefix><name>.tbl                a table file, one object each
//	<prefix>conditional-write-probe   see below
//
// Table files stay batches of chunks (tableTarget, 32 MiB): a clone of a
// large database is a PUT per 32 MiB, not per chunk. A table is read by
// ranged GETs (its footer, its index, then runs of chunks as GetMany
// groups them); a write first asks whether the object exists (HEAD), so
// a push that was interrupted does not send its table files again.
//
// The manifest's compare-and-set is a conditional PUT, which the store
// evaluates atomically with the write (AWS S3 since 2024, MinIO, and
// SeaweedFS, whose racing If-Match PUTs TestS3/ConditionalPut checks):
//
//   - the first manifest is written with If-None-Match: *;
//   - a later one with If-Match: the ETag of the manifest the writer
//     read (the backend keeps the ETag of the manifest it last read or
//     wrote, and reads it again if the caller's bytes are another's:
//     equal bytes are the same manifest, since each swap counts up its
//     version);
//   - 412 Precondition Failed, 409 ConditionalRequestConflict, or 404 on
//     If-Match (the manifest was deleted) mean another writer swapped
//     first: errManifestMoved, and UpdateRefs starts over;
//   - a PUT that fails otherwise, or whose condition fails because an
//     earlier attempt of the same request (minio-go retries a request
//     whose answer was lost) already wrote it, is checked by reading the
//     manifest back: if it is the one this swap wrote, the swap is done.
//
// A store that ignores the conditions would silently let writers
// overwrite each other's manifests. So before its first swap a backend
// writes conditional-write-probe, then writes it again with a failing
// If-None-Match and with a failing If-Match, and refuses to write any
// manifest (errNoConditionalWrites) unless the store refuses both. All
// writers write the probe with the same bytes, so they can share it.
//
// Settings: the endpoint and region are the URL's parameters
// (?endpoint=http://host:port&region=name), else AWS_ENDPOINT_URL_S3 or
// AWS_ENDPOINT_URL and AWS_REGION or AWS_DEFAULT_REGION (AWS S3 itself
// and the bucket's region without them); with an endpoint, keys are
// addressed path-style. Credentials are AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), else the shared
// credentials file's profile, else none; never the URL's, which every
// user can read in dolt.remotes (a URL with userinfo is refused, as is an
// unknown parameter). A push (create) makes the bucket if it is missing;
// a fetch from a missing bucket fails with fs.ErrNotExist, as one from a
// missing directory does.
//
// # Limits
//
// Nothing yet merges table files (each push adds at least one, and Open
// reads every index: on S3, a HEAD and two GETs per table file) or
// removes the table files and temporary files that interrupted writers
// leave unnamed, nor the objects of an interrupted S3 push; a remote is
// never garbage collected. GetMany reads one range at a time, so a clone
// from S3 is bound by the store's latency more than its bandwidth. An
// S3 remote's credentials are the server's, the same for every remote;
// EC2 and ECS instance roles are not looked up.
//
// # Concurrency
//
// A Store is safe for concurrent use, but its writes (Put, UpdateRefs)
// form one transaction: the chunks Put by any goroutine go out with the
// next UpdateRefs. Use one Store per writer. Any number of Stores, in any
// number of processes (on any number of machines, for S3), may share a
// remote.
package remotestore
