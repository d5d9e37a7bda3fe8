// Package regress holds data-driven SQL tests run over the wire protocol and
// the runner for the PostgreSQL regression corpus in ../shared/pg-regress.
package regress
