// Package dolt is the version-control surface of SQL, as Doltgres has it:
// the dolt_* functions that read revisions and move branches (dolt_commit,
// dolt_merge, dolt_checkout, ...), the system tables and table functions
// that read history (dolt_log, dolt_status, dolt_diff_<table>,
// dolt_diff(from, to, table), ...), merge conflicts, diffs and patches,
// and the resolution of the revisions that time travel reads. The
// repository itself is package versioning; this package gives it SQL
// names, rows and SQLSTATEs.
//
// The planner imports this package and never the reverse: what the
// surface needs of the session running a statement (its repository and
// revision, its settings, its name resolution, committing its
// transaction, switching its branch) is the Session interface, which
// *session.Session implements (planner/session/doltsession.go). The
// transaction's root and writes come with each call's exec.Env.
//
// # Where things are
//
// session.go has Session and the session's revision: OpenRevision (a
// database name's branch or read-only commit), WorkingRoot, revision
// specs resolved to commits and roots (ResolveRoot: WORKING, STAGED, a
// commit, a timestamp), and the SQLSTATEs of the repository's errors.
// funcs.go registers the functions with exec's registry, and adapts a
// function that changes the repository (versionOp); flags.go parses their
// Git-style arguments. commands.go has dolt_hashof and its kin, dolt_add,
// dolt_commit, dolt_branch, dolt_checkout, dolt_reset, dolt_tag and
// dolt_clean; merge.go dolt_merge, dolt_cherry_pick, dolt_revert and
// dolt_conflicts_resolve; rebase.go dolt_rebase and its plan,
// dolt.rebase. remotes.go has dolt_fetch, dolt_push, dolt_pull and
// dolt_clone; backup.go dolt_backup and dolt.dolt_backups.
//
// tables.go holds the registries of system tables and table functions,
// which the planner reaches through SystemTable and TableFunction, and
// the log, branch, tag and status tables. usertables.go has the system
// tables the user writes, dolt.docs and each schema's dolt_ignore
// (ignore.go), which are stored as ordinary tables once their first row
// is written; schemas.go each schema's dolt_schemas (its views, as
// Doltgres records them) and dolt_procedures. diff.go has row diffs
// (dolt_diff, dolt_diff_<table>, dolt_commit_diff_<table>,
// dolt_history_<table>, dolt_blame_<table>, dolt.diff; columndiff.go dolt.column_diff),
// diffstat.go the functions over the tables two revisions differ in
// (dolt_diff_stat, dolt_diff_summary, dolt_schema_diff, dolt_patch);
// patch.go writes their SQL for tables,
// patchobjects.go for views, types, sequences and functions, in
// dependency order; objects.go names those objects as the version-control
// tables and functions show and take them. conflicts.go has the merge
// tables (dolt_conflicts_<table>, writable, dolt_constraint_violations,
// dolt_merge_status, ...), objectconflicts.go the conflicts tables of
// functions, views, types and sequences (dolt_conflicts_f(integer), a row
// per field in conflict, writable), which the planner finds through
// ObjectConflictsTable. asof.go rewrites AS OF 'rev' to the
// revision-qualified name "db@rev".schema.table that the planner plans
// (planner/doltfrom.go: a table read at a revision is pinned to its root;
// a view is its definition then, over relations as of that revision, and
// calls today's functions, resolved in the session's catalog as
// PostgreSQL resolves a function when planning).
//
// # Invariants
//
//  1. A function that changes the repository first commits the open SQL
//     transaction (Session.FlushTransaction), then moves refs by
//     compare-and-set, durably; the session's next statement starts a
//     transaction from what it left. On a read-only revision (a session
//     opened on a tag or a commit) or in a read-only transaction it
//     changes nothing and fails with SQLSTATE 25006.
//  2. System tables and table functions compute their rows at each scan,
//     from the repository and the transaction's root: they show the
//     transaction's uncommitted changes as WORKING, and a plan run again
//     reads the branches as they are then. A table function resolves its
//     revisions when planned, for its columns, and again at each scan;
//     its arguments must be constants.
//  3. A diff reads in proportion to the change, not to the tables: rows
//     come from versioning.DiffRows, which skips what two versions share
//     (cost_test.go holds a million-row table to it).
//  4. Running dolt_patch(from, to)'s statements in order on from gives
//     to's contents (patch.go says where the stored rows, and so their
//     hashes, may still differ).
//  5. The repository's errors leave with PostgreSQL's SQLSTATEs (vcsError,
//     mergeError): an unknown branch, tag or revision 22023, one that
//     exists 42710, a bad name 42602, nothing to commit, unresolved
//     conflicts, a merge in progress or an unmergeable change 55000, a
//     concurrent change 40001.
//  6. The registries of functions, system tables and table functions are
//     filled by init functions and never change afterwards, so they are
//     safe for concurrent use; a Session is used by one goroutine at a
//     time, as session.Session is.
//  7. The package reaches the repository through versioning and rows
//     through exec: it imports neither planner nor prolly nor store
//     (regress/layering_test.go).
package dolt
