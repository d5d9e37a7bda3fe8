// Package pgremote reaches another pgserver as a remote: the far side of
// dolt_push, dolt_fetch, dolt_pull and dolt_clone for postgres:// URLs,
// and the source a read replica follows.
//
// A Store has the method set of the layers' stores (Get, GetMany, Has,
// HasMany, Put, Ref, ListRefs, UpdateRefs), so versioning's transfer
// copies chunks into and out of it as it does with store.DB or a
// remotestore.Store.
//
// # Protocol
//
// The peer is an ordinary client of the serving server: one connection
// (pgx) over the server's wire port, with its TLS and authentication
// (SCRAM, or what pg_hba.conf says), as a role that has the REPLICATION
// attribute or is a superuser. Credentials are the URL's
// (postgres://user:password@host:port/db) or pgx's usual fallbacks
// (PGUSER, PGPASSWORD, ~/.pgpass, PGSSLMODE, ...). The peer connects to
// the URL's database, or to postgres if that does not exist yet (the
// first push of a database creates it). Everything is a SQL function of
// the serving server (planner/session/peer.go), refused with 42501 to a
// role without the attribute:
//
//	dolt_peer_get(addrs bytea[]) bytea[]       chunks by address (NULL: absent)
//	dolt_peer_absent(addrs bytea[]) bytea[]    which of addrs the server lacks
//	dolt_peer_put(chunks bytea[]) int4         write chunks
//	dolt_peer_refs(db text) SETOF (name, hash) the database's refs
//	dolt_peer_update_refs(db, names text[], olds text[], news text[]) int4
//	dolt_peer_stats()                          chunks and bytes peers read and wrote
//	dolt_peer_backup_refs(db text)             the database's refs, named as a backup's
//	dolt_peer_backup_update_refs(db, names, olds, news) int4
//
// Addresses travel as 20-byte bytea, hashes in refs as Address.String
// text (” for none). Calls are batched: up to getBatch addresses a
// dolt_peer_get or dolt_peer_absent, and Put sends what it buffered in one
// dolt_peer_put once putBytes or putChunks are reached (the server takes
// at most 4096 elements a call).
//
// A follower (a read replica) also runs LISTEN dolt_peer_refs on its
// connection and waits for a notification (WaitForChange) between polls:
// the serving server notifies the sessions connected to a database,
// payload its name, soon after its refs move, for a while after each
// dolt_peer_refs call for it (planner/session/peerwatch.go). Waiting for
// a notification holds no transaction open on the serving server.
//
// A backup (OpenBackup; dolt_backup to a postgres:// URL) is a database of
// the serving server holding every ref of the backed-up one, named as in
// any backup (versioning/backup.go): its branches, tags, working sets,
// remote-tracking branches and list of remotes, replaced as they are by
// each sync; the backup_ functions read and move them.
//
// Refs are named as a remote's: refs/heads/B, refs/tags/T, and, read-only,
// ws/B, the working set of branch B, which a replica follows so that SQL
// COMMITs reach it, not only dolt_commit. The server maps them to its
// database's refs (versioning/peer.go).
//
// # Invariants
//
//  1. Chunks before refs: UpdateRefs sends every chunk Put before it, and
//     the server's ref update checks each new target is present and
//     journals what the new refs reach, in one UpdateRefs of its store.
//  2. Present implies the whole subtree is present on the serving side:
//     dolt_peer_absent is the store's HasMany, which counts a chunk present
//     only once it is durable (a fresh chunk, which may be dropped, counts
//     as absent), and a transfer writes children before parents. Chunks a
//     peer put are kept (never dropped as a statement's fresh chunks) until
//     a ref reaches them or they are journaled.
//  3. Ref updates are compare-and-set, all or none: a ref not at its
//     expected value fails the call with 40001, which UpdateRefs reports
//     as store.ErrRefConflict, so of two pushers one wins and the other
//     judges again against the winner's commit (and is told to pull).
//  4. A push to a branch moves its working set along when that has no
//     changes of its own, so the serving server's sessions on the branch
//     see the pushed commit; otherwise it fails (55000), as Git refuses
//     a push into a checked-out branch with changes.
//  5. Every chunk read is checked against its address: a mismatch is
//     store.ErrCorrupt.
//  6. The password is never in an error: errors name the URL with it
//     masked (url.URL.Redacted).
//
// # Concurrency
//
// A Store is one connection and is safe for concurrent use (its calls
// take turns). Its writes form one transaction, as a remotestore.Store's:
// the chunks Put go out with the next UpdateRefs, or earlier in batches.
//
// # Limits
//
// A transfer asks Has one chunk at a time as it walks, one round trip
// each: a push of a large new database is bound by latency; fetches and
// clones read children in batches (GetMany). Chunks pushed to a server
// whose ref update then fails (a conflict, an error, the pusher's crash)
// stay in that server's memory, or journal, until a later push reaches
// them or its garbage collection removes them. A garbage collection on
// the serving server during a push fails the push's ref update; the push
// is then tried again by the user.
package pgremote
