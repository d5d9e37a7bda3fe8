// Package sqldef holds the definitions of SQL objects as the repository
// stores them: tables (columns, keys, indexes, constraints, partitioning),
// views, sequences, schemas, types, functions, operators, casts,
// triggers, rules and policies, the access control lists on them, and the
// server's roles. They are plain values, encoded by package versioning
// into the root value of a commit and merged by it; the SQL layer reads
// and writes them to plan and to change the catalog.
//
// The package is the vocabulary the layers share, and nothing more: it
// knows neither storage nor SQL text beyond the strings its records keep,
// so the analyzer can read the catalog's records without reaching the
// repository (package versioning), which only the sessions, the DDL
// runners and the version-control surface use.
//
// # Invariants
//
//  1. Records are values. Equal records encode to equal bytes (field
//     order is declaration order, maps are written sorted), which the
//     root value's history independence rests on.
//  2. Nothing here does I/O or depends on a session: a record and the
//     functions on it (ACLs, role memberships) give the same answer
//     wherever they run.
package sqldef
