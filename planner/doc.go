// Package planner turns statements parsed by pg_query_go into plans: names
// resolved against the catalog, types checked and coerced the PostgreSQL way,
// indexes chosen. Analysis is a function of the parse tree, the
// transaction's root value (the catalog) and what it asks of the session
// through the Session interface (sessionview.go: name resolution,
// settings, notices, the current role's authority, the open transaction
// for the user functions a plan runs); package planner/session implements
// it and runs the sessions. The statements that change the catalog are
// package planner/ddl's, which analyzes their expressions, types and names
// with this package's Analyzer (analyzer.go); this package hands them to
// it through the session (Session.AnalyzeDDL), since ddl imports it.
//
// # Where things are
//
// analyze.go is the entrance: Analyze turns a statement into an Analysis
// (a plan, a utility, or a COPY), InstallHooks gives a transaction the
// callbacks exec.Modify makes into the planner, EXPLAIN, and the utilities
// that change no catalog (SET CONSTRAINTS, CALL, DO, LOCK); select.go,
// from.go, expr.go and their neighbours analyze queries; dml.go, merge.go
// and upsert.go the changes (generatedcols.go: stored generated columns,
// whose expressions exec.Modify computes; constraints.go, domain.go the
// checks); names.go name resolution, catalog and sequence relations;
// inherit.go the inheritance families and partitions a scan reads.
// User-defined functions: function.go (CALL, DO, resolving calls as
// PostgreSQL's func_get_detail does, with exec's rules for choosing an
// overload and binding polymorphic parameters), routine.go (running them;
// a polymorphic function is compiled once per set of actual argument
// types, so the plans of its body are made for them; the PL/pgSQL
// interpreter is package plpgsql), aggregate.go (polymorphic state types
// bound per call), trigger.go (triggers, which exec.Modify fires).
// Version control is package dolt (planner/dolt); the analyzer's side of it is doltfrom.go (system tables
// and table functions in FROM, and time travel through
// "db@rev".schema.table, views included, and AS OF 'rev' rewritten to
// that form). privileges.go has the checks the analyzer makes (owners,
// ACLs), colpriv.go those of column privileges (made at the end of a
// statement's analysis, against the columns it read), rls.go row-level
// security (policies added to scans as filters and to writes as
// exec.PolicyChecks); notifystmt.go LISTEN, UNLISTEN and NOTIFY, which the session
// queues; deparse.go prints stored expressions as pg_get_expr does.
//
// # Invariants
//
//  1. An Analysis holds only while the table definitions it read
//     (triggers included) and the user functions its calls were resolved
//     among are unchanged, whichever session changed them (DepsHold), and
//     while the session's name resolution is of the generation it was
//     made in (Gen: a new temporary relation or search path, a replaced
//     function start a new one through Session.InvalidatePlans).
//  2. A plan whose privileges were checked holds only while the role it
//     was checked for is current, the roles are unchanged and
//     row_security is as it was (Auth); a GRANT or REVOKE, a policy or
//     ALTER TABLE ... ROW LEVEL SECURITY changes the table's record, so
//     plans reading it are made again (invariant 1). A view's query, and
//     a statement rewritten through an updatable view onto what it reads
//     (updatable.go), is checked with its owner's authority and policies
//     (a security_invoker view's with the current user's, also under
//     another view, as PostgreSQL's rewriter leaves them).
//  3. A utility (Analysis.Run) runs once, in the transaction it was
//     analyzed in: it holds that transaction and its root.
//  4. The planner keeps no state of its own between statements but what
//     the session holds for it (SessionState: record types, compiled
//     routines, the depth of views and calls being expanded, the tables
//     whose policies are being expanded).
//  5. Row-level security's conditions on a table's rows are evaluated
//     before any condition of the query on them (they filter the scan the
//     query's conditions are applied above), as PostgreSQL's security
//     barrier orders them: a function in a WHERE clause never sees a row
//     the policies hide.
package planner
