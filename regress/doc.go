// Package regress holds the SQL tests that run over the wire protocol
// against the real server binary, and the runner for the PostgreSQL
// regression corpus in ../shared/pg-regress.
//
// testdata/*.test are logic tests (see logic_test.go for the format): each
// file runs against a fresh server; the expected results were taken from
// PostgreSQL 15 with `go test ./regress -run TestLogic -rewrite -pg DSN`.
package regress
