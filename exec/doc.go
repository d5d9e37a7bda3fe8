// Package exec runs plans over rows stored in Prolly trees: the values and
// types of SQL, typed expressions, the registries of functions with
// PostgreSQL's overload resolution, casts and the arithmetic and
// comparison operators, the plan operators (scans, joins, aggregates,
// sorts, windows, DML with its constraint checks and triggers), and the
// transaction that reads and writes a root value. The planner builds
// exec's plans from parse trees; exec knows no parse tree, and reaches
// storage through versioning (the root value and its tables) and prolly
// (the maps that hold rows). The library of built-in functions is package
// exec/funcs, which registers into exec's registries; exec does not
// import it, and a binary has the library when it links exec/funcs (the
// planner imports it).
//
// # Where things are
//
// Values and types: datum.go (Datum, Kind), oid.go and oid_funcs.go (type
// OIDs and T), format.go (text output), binary.go, datetime.go (dates and
// timestamps as numbers, the session's zone), cast.go and cast_more.go,
// array*.go, record.go, domain.go, jsonb_cmp.go (jsonb's order),
// range.go, rangeops.go and multirange.go (range and multirange values,
// their order and operators), citext.go (contrib's case-insensitive text:
// its comparison, keys and casts), hstore.go (contrib's key/value type:
// its Datum, casts and constructors), exclusion.go (EXCLUDE constraints), and
// package exec/types for text input and output of PostgreSQL's types.
//
// Expressions and functions: expr.go (Expr, Env, Call), subquery.go and
// frame.go (subqueries and their per-invocation state), funcs.go (the one
// registry of functions and operators, and PostgreSQL's overload
// resolution), funcnames.go (the registry as pg_proc lists it),
// polymorphic.go and variadic.go, builtins.go (arithmetic per type and
// comparisons, registered here as the casts and the core use them),
// aggfuncs.go (the aggregate registry and Accumulator; agg.go runs them,
// agguser.go makes CREATE AGGREGATE's), srf.go (the set-returning
// registry and the FuncScan that runs one), series.go (generate_series
// over numbers). The built-in functions themselves are in exec/funcs;
// functions that need the session (the dolt_* functions, sequences,
// catalog functions) are registered by the planner and reach it through
// Env.Session.
//
// Plans: plan.go (Plan and Rows), lookup.go and indexscan.go (reading a
// table by key or index range), indexor.go (an OR of index scans), join.go,
// agg.go, window.go, setop.go, distinct.go, cte.go, projectset.go,
// lockrows.go (FOR UPDATE and its re-check), virtual.go (tables computed
// on demand: catalogs, dolt_* system tables); explain.go, explain_expr.go
// and explain_analyze.go describe a plan as PostgreSQL's EXPLAIN does,
// running an instrumented copy of it for ANALYZE; cumstats.go counts what
// scans and writers do for the pg_stat_ views.
//
// Writes: dml.go (Modify: INSERT, UPDATE, DELETE; merge.go for MERGE,
// upsert.go for ON CONFLICT), table.go and tablecache.go (a table's
// definition, decoded once per catalog record), rowcodec.go (how rows are
// stored), txn.go (Txn and TableWriter: a transaction's edits, buffered,
// spilled past the write buffer, and applied to the root), txndefer.go
// (small statements' changes deferred on the tables' maps until the
// commit or another reader needs them written), check.go,
// fk.go and deferred.go (constraints), rls.go (row-level security's
// checks of the rows written, PolicyCheck), trigger.go, generated.go,
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
//  1. The registries (functions, set-returning functions, aggregates) are
//     written only by init functions: this package's, exec/funcs's (one
//     init, in a fixed order) and the planner's. Package initialization
//     runs them one at a time, exec's first; afterwards the registries
//     are read-only and safe for concurrent lookups.
//  2. The overloads of a name keep the order they were registered in, and
//     that order fixes their pg_proc OIDs (exec/catalog.BuiltinProcOID):
//     a new overload goes after the existing ones. Resolution follows
//     PostgreSQL's func_select_candidate, so the same call picks the same
//     overload and result type as there.
//  3. A Func's Fn keeps no state between calls; state per call site (a
//     compiled regular expression) is made by Build, once per plan. Exprs
//     and Plans are immutable once built and may be evaluated or opened
//     concurrently; the state of one execution lives in Env and Rows.
//  4. Errors that reach the client are *pgerr.Error with PostgreSQL's
//     SQLSTATE and wording.
//  5. A transaction reads its snapshot's root plus its own writes, and
//     changes only its own root value: its rows are visible to no other
//     transaction before the planner commits it through versioning's
//     Committer. (Hidden row ids and sequence values are handed out
//     outside transactions: rowid.go, seqvalues.go; a transaction keeps
//     the sequence positions it reached as advances its commit applies,
//     txnseq.go.) Its own writes may wait as deferred edits (txndefer.go):
//     only rowsMap and indexMap read tables' rows without Txn.Root, which
//     writes them first; name resolution and catalog reads on a row
//     statement's path use Catalog, or the commit can no longer replay
//     the edits.
//  6. A row lock is held by one transaction at a time in a conflicting
//     mode, waiters are served in arrival order, and a cycle of waits is
//     broken by failing one waiter with 40P01 (rowlock.go lists the rest).
//  7. exec does not import exec/funcs (nor the planner): the library
//     depends on exec, never the reverse.
package exec
