// Package catalog computes PostgreSQL's system catalogs — the pg_catalog
// tables and views and the information_schema views that psql, drivers and
// tools query — as virtual, read-only tables over one database's root
// value. Nothing here is stored: every scan derives its rows from the
// catalog records of the root value (sqldef.Table, Sequence, Schema),
// the server's databases and roles, and the session's settings.
//
// # Invariants
//
//  1. The catalog is a function of content. OIDs are derived from names
//     (exec.ObjectOID), never allocated, so two databases with equal root
//     values show equal catalogs, whatever history built them. The objects
//     PostgreSQL creates at initdb keep PostgreSQL's own OIDs (pg_catalog
//     11, public 2200, the catalog tables, the built-in types, the
//     bootstrap superuser 10), so the literal OIDs tools use still work.
//  2. Read-only: the tables are exec tables with a Virtual row source; DML
//     on them fails.
//  3. Columns are PostgreSQL 15's, in its order, with its names. Array
//     columns are real arrays (conkey is a smallint[]); aclitem[] is a
//     text[] of aclitem's text form. Types this executor does not have
//     (int2vector, oidvector, pg_node_tree, xid, anyarray) are text
//     holding PostgreSQL's text form, or NULL; information_schema's
//     domains are their base types, which is what PostgreSQL sends in
//     RowDescription.
//  4. Stored expressions (defaults, CHECK constraints) are SQL text in this
//     server's records; the columns that hold PostgreSQL's node trees
//     (adbin, conbin) hold that text, and rendering them as pg_get_expr
//     does is the job of Source.Expr, which the planner provides.
//
// # Concurrency
//
// Views are immutable and shared; a Snapshot belongs to one scan.
package catalog
