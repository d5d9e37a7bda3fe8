// Package plpgsql runs PL/pgSQL functions: it compiles the parse tree
// pg_query_go gives for a function's body (ParsePlPgSqlToJSON) into
// statements, and interprets them over variables.
//
// Every expression and SQL statement of a body is SQL, which this package
// does not analyze: it hands the text to its Host (the planner), which
// plans it once with the variables it names as parameters (Vars) and runs
// it as often as the body does. The package knows control flow, variables,
// RAISE, exception blocks and the results of set-returning functions.
//
// # Invariants
//
//  1. A statement is prepared once per compiled Function, when it first
//     runs (its variables have their types by then), and prepared again
//     only when a variable it reads changed type. A Function is shared by
//     every call, recursive ones included; a call's state (its variables)
//     is its own frame.
//  2. An exception block runs its body from a savepoint of the Host: a
//     caught error leaves the transaction as it was when the block began.
//  3. Errors are *pgerr.Error with PostgreSQL's SQLSTATEs; those raised
//     while running a statement get the CONTEXT line PostgreSQL gives.
//  4. The package keeps no global mutable state.
package plpgsql
