// Package testserver starts servers for tests: the real pgserver binary
// (Start), built once per test binary, run on a free loopback port over a
// data directory in t.TempDir(); and a private PostgreSQL 15 cluster
// (StartPostgres) as the reference of differential tests. Both are
// stopped when the test ends.
package testserver
