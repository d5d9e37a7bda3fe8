// Package session runs SQL sessions: the Engine over one store opens
// Sessions on its databases, and a Session parses statements, runs its
// own (transaction control, SET and SHOW, PREPARE and EXECUTE, cursors,
// CREATE/ALTER/DROP ROLE and DATABASE, GRANT of roles) and has package
// planner analyze the others into plans or utilities, which it runs in
// its transaction; the catalog-changing ones the planner hands back to it
// (planner.Session.AnalyzeDDL), and it has package planner/ddl analyze
// them. It is the SQL layer's entrance: wire/sqlwire and cmd
// import it, and nothing under planner/ but test support does.
//
// # Where things are
//
// session.go has the Engine, the Session and its transactions (begin,
// commit through versioning.Repo.CommitTransaction, rollback, savepoints,
// the snapshot a statement reads); statement.go parses and runs
// statements (Statement, Result), reusing an analysis while it holds;
// sessionstmt.go PREPARE, EXECUTE and CREATE/DROP DATABASE; cursor.go
// DECLARE, FETCH and CLOSE; settings.go and plannervars.go the settings;
// roles.go roles, SET ROLE and SESSION AUTHORIZATION, the current role's
// authority and GRANT of roles; branchcontrol.go Doltgres's branch
// permissions; notify.go LISTEN/NOTIFY between the sessions of a branch;
// peer.go the functions another server's push, fetch or replica calls
// (roles with REPLICATION only), peerwatch.go the notifications that wake
// replicas when a database's refs move; replica.go a read replica's loop, its
// read-only databases and dolt_replication_status;
// advisory.go advisory locks; activity.go pg_stat_activity and the
// branches in use; gcgate.go keeps dolt_gc apart from the other
// transactions.
//
// A Session is both of the interfaces below it: planner.Session, what
// analysis asks of the session it plans for (plannersession.go,
// sessionnames.go: name resolution and the temporary schema,
// sessiontypes.go: the user types of text I/O), and dolt.Session, what the
// version-control surface needs (doltsession.go). The functions of the
// session (current_setting, nextval, has_table_privilege, pg_get_expr and
// the other catalog functions, pg_notify, ...) are registered with exec's
// built-ins and reach it through exec.Env.Session (sessionfuncs.go,
// sysinfo.go, catalog.go, catalogdump.go, regclass.go, sequencefuncs.go).
//
// # Invariants
//
//  1. A statement reads its transaction's root value: the working root of
//     the session's branch when the transaction took its snapshot (its
//     first statement; in READ COMMITTED, this statement), plus its own
//     changes. A session opened on a tag or a commit reads that commit's
//     root and cannot write (SQLSTATE 25006).
//  2. A dolt_* function that changes the repository first commits the open
//     SQL transaction (FlushTransaction; package dolt, invariant 1); the
//     session's next statement starts a transaction from what it left.
//  3. An analysis is reused only while it holds (package planner,
//     invariants 1 and 2): the tables and functions it depended on are
//     unchanged (Analysis.DepsHold), the session's name resolution is of
//     the same generation (Analysis.Gen), and the authority its privileges
//     were checked with is still the current role's (Analysis.Auth).
//     A simple query's shape may keep a generic plan (generic.go), reused
//     under the same rules, with the query's literals as its parameters:
//     only where each literal is compared with a column and its parameter
//     reads it as the literal's analysis would, so that the results and
//     errors are the literal query's.
//  4. A notification (NOTIFY, pg_notify) is delivered only when its
//     transaction commits, to the sessions listening on its channel in
//     the same database and on the same branch, in commit order; a
//     rolled-back transaction or savepoint drops it. LISTEN and UNLISTEN
//     take effect at commit too. The early commit of invariant 2 does not
//     deliver: notifications wait for the end of the transaction block,
//     as clients of PostgreSQL expect (notify.go).
//  5. A transaction's row locks (exec.RowLocks, shared by the engine's
//     sessions) are released only after its commit is durable or it has
//     rolled back, so a waiter that then reads the branch sees the
//     holder's outcome. Session-level advisory locks end with the session.
//  6. A SET belongs to the transaction it runs in: undone when that
//     transaction (or the savepoint it ran after) fails or rolls back,
//     SET LOCAL at its end either way (settings.go).
//  7. Superusers pass every privilege check, branch permissions included
//     (roles.go, branchcontrol.go).
//  8. dolt_gc runs only while no other session has a transaction open,
//     and none begins until it ends (gcgate.go): a transaction's roots are
//     reachable from no ref, and the collection would remove them.
//
// A Session is used by one goroutine at a time; the Engine is safe for
// concurrent use.
package session
