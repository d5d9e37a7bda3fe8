// Package versioning is the repository model: databases as repositories of
// commits, with branches, tags and a working set per branch, all kept as
// chunks and refs in the store. The dolt_* functions and system tables of
// the SQL layer are built on it.
//
// # Objects
//
// A RootValue is a whole database at one point: a Prolly map from object
// names (schemas, tables, sequences, views, types, functions, and the
// derived foreign-key and inheritance links) to catalog records, each
// table record holding the roots of the Prolly maps of its rows and
// indexes and its triggers. Version control lists, stages and merges
// views, types, functions and the sequences no column owns one by one,
// as it does tables (objects.go); an owned sequence goes with its table. A Commit
// names a root value, its parents, author, committer and message. A
// WorkingSet holds a branch's working root (what SQL transactions change),
// its staged root and any merge in progress. Refs, per database, point at
// branch heads, tags and working sets (repo.go).
//
// # Operations
//
// Revision specs (revision.go) name commits as Git's do: HEAD, branches,
// tags, whole or abbreviated hashes, ~n and ^n. Every change of a branch
// goes through UpdateBranch (branch.go), which moves its head and working
// set together by compare-and-set, durably; commit, reset and staging
// (worktree.go) are functions of root values handed to it. Log and
// MergeBase (log.go) walk the commit graph.
//
// # Merges
//
// Two merges share prolly.Merge. MergeRoots (merge.go) combines
// concurrent SQL transactions on one branch and fails on any collision.
// Merge (merge3.go) combines branches: tables changed on both sides merge
// their definitions (schemamerge.go) and rows, a row changed on both
// sides cell by cell; what cannot be merged is recorded in the merged
// root as TableConflicts (conflicts.go) under kindConflicts, keeping
// ours, and blocks commits until resolved (resolve.go). A view, type,
// function or sequence changed on both sides merges field by field
// (objectconflicts.go); the fields changed differently are recorded the
// same way, with its three records. Only a schema's own record (owner,
// comment) changed differently fails a merge, with ErrUnmergeable. Index keys are
// typed encodings, so the SQL layer passes an IndexEncoder that gives the
// entries of the rows a merge rewrites. MergeBranch and ApplyChange
// (mergebranch.go) move a branch: fast-forward, merge commit, or a
// working set left with the conflicts and the merged commit.
//
// # Garbage collection
//
// GC (gc.go) marks what every ref and the root values of running
// transactions reach, through commits, working sets, tags, root values,
// catalog records and prolly maps (prolly.Reachable), and has the store
// sweep the rest (store.GC); from its start on, every ref update is
// checked to reach no removed chunk.
//
// # Remotes
//
// A database's remotes (remote.go) are other stores (store/remotestore)
// that Push, Fetch and Clone (push.go, fetch.go) copy commits to and
// from. A transfer (transfer.go) is GC's mark walking from the commits or
// tags sent, stopping at every chunk the destination holds and copying
// each other chunk once everything below it is copied, so that the
// destination never holds a chunk without its subtree, whatever point a
// transfer stops at; refs move only afterwards, by compare-and-set. A
// fetch records the remote's branches as remote-tracking branches
// (db/D/remotes/R/B, shown as remotes/R/B and resolvable as R/B), which
// GC keeps like branches. A backup (backup.go) is a remote store made a
// copy of the whole database, every ref of it that holds data (working
// sets included), by the same transfer, its refs replaced rather than
// fast-forwarded; Restore makes a new database of one in one ref update.
//
// Another pgserver is a remote too (store/remotestore/pgremote): its
// peer functions do what peer.go says, keeping the serving database's
// invariants (a pushed branch takes a clean working set along, a dirty
// one refuses, ErrBranchDirty). A read replica (replica.go) repeats a
// transfer of some branches' heads and working sets from such a remote
// and points its own refs at them.
//
// # Invariants
//
//  1. Equal databases have equal root values: objects are keyed by name and
//     encoded deterministically, so the order of the DDL and DML that built
//     them does not matter.
//  2. Refs move only by compare-and-set, so two writers never lose each
//     other's work: the loser of a race re-reads and merges.
//  3. A committed SQL transaction is durable: CommitTransaction returns after
//     the working set ref is synced to disk.
//  4. A branch's head and working set move together, in one
//     compare-and-set: neither a crash nor a race leaves one moved without
//     the other.
//  5. Creating a branch or a tag writes no table data: a branch is a ref
//     and a working set naming existing roots.
//  6. Transactions on one branch are isolated by snapshot: each starts from
//     a working root of the branch and, at commit, merges into whatever
//     was committed meanwhile (Committer: concurrent commits of a branch
//     are merged in turn and written once); a collision fails it with
//     ErrConflict (SQLSTATE 40001), a key both inserted with a
//     DuplicateKeyError (23505), and changes nothing. A row the
//     transaction changed on top of a newer committed version, holding its
//     lock (RebaseSource), is not a collision.
//
// # Concurrency
//
// Repo is a handle over the store and safe for concurrent use; RootValue,
// Commit and WorkingSet are immutable values.
package versioning
