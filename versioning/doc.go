// Package versioning is the repository model: databases as repositories of
// commits, with branches, tags and a working set per branch, all kept as
// chunks and refs in the store. The dolt_* functions and system tables of
// the SQL layer are built on it.
//
// # Objects
//
// A RootValue is a whole database at one point: a Prolly map from object
// names (schema, table, sequence) to catalog records, each table record
// holding the roots of the Prolly maps of its rows and indexes. A Commit
// names a root value, its parents, author, committer and message. A
// WorkingSet holds a branch's working root (what SQL transactions change),
// its staged root and any merge in progress. Refs, per database, point at
// branch heads, tags and working sets (repo.go).
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
//  4. Transactions on one branch are isolated by snapshot: each starts from
//     the working root of its BEGIN and, at commit, merges into whatever
//     was committed meanwhile; a collision fails it with ErrConflict
//     (SQLSTATE 40001) and changes nothing.
//
// # Concurrency
//
// Repo is a handle over the store and safe for concurrent use; RootValue,
// Commit and WorkingSet are immutable values.
package versioning
