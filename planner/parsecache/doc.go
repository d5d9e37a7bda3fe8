// Package parsecache memoizes the parse trees of queries that differ only in
// their literals, so that a client repeating a statement through the simple
// query protocol (an application without prepared statements, pgbench's
// default mode, an ORM that inlines values) does not pay for the PostgreSQL
// parser on every execution.
//
// A query's shape is its text with every plain numeric and string literal
// blanked out, keeping the literal's kind (int4-sized integer, other numeric,
// string) and its length. Two queries of one shape differ only in the values
// of those literals, so pg_query would return the same tree for both, with
// the same locations, except in the A_Const nodes of the literals. A cached
// tree is therefore reused by writing the new query's literal values into
// its A_Const nodes.
//
// # Invariants
//
//  1. A tree from the cache is the tree pg_query returns for the same text:
//     a shape is cached only when every literal of its first parse is the
//     value of A_Const nodes at the literal's location (or at a minus sign
//     just before it, which the grammar folds into the constant), and those
//     values are exactly what the literal's text yields. A literal the
//     grammar consumes in another way (float(24), int[3]) leaves its shape
//     uncached. Anything the scanner does not fully understand (prefixed or
//     dollar-quoted strings, string continuation across lines, numbers with
//     underscores or a base prefix) leaves the query uncached.
//  2. Only queries of one SELECT, INSERT, UPDATE, DELETE or transaction
//     control statement (BEGIN, COMMIT, ROLLBACK, ...) are cached: their
//     trees are analyzed or run afresh each time and not kept after the
//     statement closes.
//  3. A cached tree is handed out to one holder at a time: Parse leases it
//     until the Lease is released, and parses anew while it is leased.
package parsecache
