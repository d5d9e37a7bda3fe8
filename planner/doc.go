// Package planner turns statements parsed by pg_query_go into plans: names
// resolved against the catalog, types checked and coerced the PostgreSQL way,
// indexes chosen. It also owns the session: its database and revision,
// settings, transactions, savepoints, prepared statements and cursors.
//
// # Where things are
//
// session.go and statement.go run statements (package parsecache keeps the
// parse trees of the simple-protocol queries a session repeats); select.go, from.go, expr.go
// and their neighbours analyze queries; dml.go, merge.go and ddl.go the
// changes (generated.go: stored generated columns, whose expressions
// exec.Modify computes); catalog.go the system catalogs' names and
// functions. User-defined functions: function.go (CREATE FUNCTION, CALL,
// DO, resolving calls as PostgreSQL's func_get_detail does, with exec's
// rules for choosing an overload and binding polymorphic parameters),
// routine.go (running them; a polymorphic function is compiled once per
// set of actual argument types, so the plans of its body are made for
// them; the PL/pgSQL interpreter is package plpgsql), aggregate.go
// (CREATE AGGREGATE, polymorphic state types bound per call), trigger.go
// (triggers, which exec.Modify fires). Version control is package dolt
// (planner/dolt: the dolt_* functions, system tables and table
// functions, conflicts, diffs and patches, revisions; its doc states its
// invariants); the planner's side of it is doltsession.go (the Session as
// dolt.Session: its repository and revision, committing its transaction
// before a repository change, switching branches) and doltfrom.go (system
// tables and table functions in FROM, and time travel through
// "db@rev".schema.table, views included, and AS OF 'rev' rewritten to
// that form). notify.go has LISTEN/NOTIFY: the Engine's hub that routes committed
// notifications to the listening sessions of a database and branch.
// Who may do what: privileges.go (owners, ACLs, GRANT/REVOKE, role
// membership, SET ROLE, the checks the analyzer makes) and
// branchcontrol.go (Doltgres's branch permissions); gcgate.go keeps
// dolt_gc apart from the other transactions.
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
//  3. Plans are reused only while the table definitions they read
//     (triggers included) and the user functions their calls were
//     resolved among are unchanged, whichever session changed them (and
//     the session's name resolution too, planGen).
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
//  7. A plan whose privileges were checked runs only while the role it was
//     checked for is current and the roles are unchanged; a GRANT or
//     REVOKE changes the object's record, so plans reading it are made
//     again (invariant 3). Superusers pass every check, branch
//     permissions included (privileges.go, branchcontrol.go).
//  8. dolt_gc runs only while no other session has a transaction open,
//     and none begins until it ends (gcgate.go): a transaction's roots are
//     reachable from no ref, and the collection would remove them.
package planner
