// Package testserver starts the real pgserver binary for tests: built once
// per test binary, run on a free loopback port over a data directory in
// t.TempDir(), stopped when the test ends.
package testserver
