// Package ddl runs the statements that change the catalog: CREATE, ALTER
// and DROP of tables (inheritance and partitions, constraints, foreign
// keys, identity and generated columns, LIKE), indexes, schemas,
// sequences, views, types and domains, functions, aggregates and
// triggers; TRUNCATE; COMMENT; GRANT and REVOKE on objects and ALTER ...
// OWNER; DISCARD. Each is analyzed into a planner.Utility, a closure that
// writes the transaction's root value when the session runs it.
//
// It sits between the sessions and the planner: package planner/session
// hands it the statements (planner.Session.AnalyzeDDL, also for the
// statements of function bodies), and it analyzes their expressions,
// types and names with the planner's Analyzer, which cannot import it.
//
// # Where things are
//
// ddl.go has Analyze (the dispatch), CREATE TABLE, DROP and TRUNCATE and
// tableDDL, one statement's work on a table definition; alter.go,
// alterinherit.go and attach.go ALTER TABLE (inherited and partitioned
// tables, ATTACH and DETACH PARTITION); inheritance.go INHERITS and
// PARTITION BY/OF; generated.go, like.go, foreignkey.go their clauses;
// objectnames.go the names PostgreSQL chooses for constraints and
// indexes; createindex.go, createas.go, schema.go, sequence.go, temp.go
// (the session's temporary schema), typeddl.go, createview.go,
// createfunction.go, createaggregate.go, createtrigger.go, comment.go and
// grant.go the other statements.
//
// # Invariants
//
//  1. A utility writes only the root value of the transaction it was
//     analyzed in, through exec.Txn.SetRoot, and runs once (planner,
//     invariant 3); a failed one leaves the root as the statement found
//     it (the session restores it).
//  2. A change that makes other sessions' plans stale changes the records
//     those plans depend on (table definitions, functions, children), so
//     that their Analysis.DepsHold fails; what no record shows (a new
//     temporary relation, a replaced function) starts a new generation
//     of the session's name resolution (planner.Session.InvalidatePlans).
//  3. A new object records as its owner the role that creates it; the
//     bootstrap superuser's objects record none, as objects made before
//     owners were recorded do (newObjectOwner).
//  4. A table's policies are kept in name order in its record (policy.go),
//     the order PostgreSQL applies them in; their expressions are stored
//     as deparsed SQL over the table's columns, and the roles they name
//     by name ("" or none for PUBLIC). A column's privileges are kept in
//     its ACL, nil when it holds none (attacl NULL).
package ddl
