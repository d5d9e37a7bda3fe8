// Package exec runs plans over rows stored in Prolly trees: the values and
// types of SQL, typed expressions and the built-in functions, the plan
// operators (scans, joins, aggregates, sorts, windows, DML with its
// constraint checks and triggers), and the transaction that reads and
// writes a root value. The planner builds exec's plans from parse trees;
// exec knows no parse tree, and reaches storage through versioning (the
// root value and its tables) and prolly (the maps that hold rows).
//
// # Where things are
//
// Values and types: datum.go (Datum, Kind), oid.go (type OIDs and T),
// cast.go and cast_more.go, array*.go, record.go, domain.go, and package
// exec/types for text input and output of PostgreSQL's types.
//
// Expressions and functions: expr.go (Expr, Env, Call), subquery.go and
// frame.go (subqueries and their per-invocation state), funcs.go (the one
// registry of functions and operators, and PostgreSQL's overload
// resolution; funcs.go lists the families of built-ins, in fn_*.go and
// their neighbours), aggfuncs.go and agg*.go (aggregates), srf.go (set-
// returning functions), polymorphic.go and variadic.go. Functions that need
// the session (the dolt_* functions, sequences, catalog functions) are
// registered by the planner and reach it through Env.Session.
//
// Plans: plan.go (Plan and Rows), lookup.go and indexscan.go (reading a
// table by key or index range), join.go, agg.go, window.go, setop.go,
// distinct.go, cte.go, projectset.go, lockrows.go (FOR UPDATE and its
// re-check), virtual.go (tables computed on demand: catalogs, dolt_*
// system tables), explain.go.
//
// Writes: dml.go (Modify: INSERT, UPDATE, DELETE; merge.go for MERGE,
// upsert.go for ON CONFLICT), table.go and tablecache.go (a table's
// definition, decoded once per catalog record), rowcodec.go (how rows are
// stored), txn.go (Txn and TableWriter: a transaction's edits, buffered,
// spilled past the write buffer, and applied to the root), check.go,
// fk.go and deferred.go (constraints), trigger.go, generated.go,
// indexbuild.go and extsort.go (building an index in bounded memory),
// partition.go and inherit.go (routing rows among partitions and
// children).
//
// Concurrency: rowlock.go (RowLocks, the engine's lock table with its FIFO
// queue and deadlock detection), rowlocking.go (isolation levels and how a
// write waits and re-checks), ssi.go (serializable snapshot isolation).
//
// # Invariants
//
//  1. The function registry is written only by init functions (this
//     package's and the planner's); afterwards it is read-only and safe
//     for concurrent lookups. Resolution follows PostgreSQL's
//     func_select_candidate, so the same call picks the same overload and
//     result type as there.
//  2. A Func's Fn keeps no state between calls; state per call site (a
//     compiled regular expression) is made by Build, once per plan. Exprs
//     and Plans are immutable once built and may be evaluated or opened
//     concurrently; the state of one execution lives in Env and Rows.
//  3. Errors that reach the client are *pgerr.Error with PostgreSQL's
//     SQLSTATE and wording.
//  4. A transaction reads its snapshot's root plus its own writes, and
//     changes only its own root value: its rows are visible to no other
//     transaction before the planner commits it through versioning's
//     Committer. (Hidden row ids, like sequence values, are handed out
//     outside transactions: rowid.go.)
//  5. A row lock is held by one transaction at a time in a conflicting
//     mode, waiters are served in arrival order, and a cycle of waits is
//     broken by failing one waiter with 40P01 (rowlock.go lists the rest).
package exec
