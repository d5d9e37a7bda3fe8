// Package wire speaks the PostgreSQL frontend/backend protocol (version 3)
// with github.com/jackc/pgproto3/v2: startup, authentication, simple and
// extended query, COPY, cancellation and errors with SQLSTATE codes.
package wire
