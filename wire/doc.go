// Package wire speaks the PostgreSQL frontend/backend protocol, version 3.0,
// as PostgreSQL 15 does: startup (SSLRequest with TLS when configured,
// GSSENCRequest refused, NegotiateProtocolVersion for 3.x and unknown
// protocol options), authentication (trust, cleartext password,
// SCRAM-SHA-256), simple and extended query, COPY FROM STDIN / TO STDOUT,
// CancelRequest, ParameterStatus, NoticeResponse, NotificationResponse
// (LISTEN/NOTIFY), and ErrorResponse with every field PostgreSQL sends. The
// SQL engine plugs in through Handler.
//
// # Layers
//
// Server accepts connections and runs one goroutine per connection (conn).
// The conn frames frontend messages itself (msgReader: lengths are checked
// before anything is allocated, bodies grow only as bytes arrive, and the
// decoders never panic on hostile input) and appends backend messages into
// one output buffer (msgWriter), encoding the hot ones (DataRow,
// RowDescription, CommandComplete, ReadyForQuery, ...) by hand and the rest
// with pgproto3. The engine sees Handler → Session → Statement → Portal
// (handler.go) and writes results through RowWriter.
//
// # Plugging in an engine
//
//	srv, err := wire.NewServer(wire.Config{
//		Addr:     "127.0.0.1:5432",
//		Logger:   logger,
//		Auth:     wire.AuthSCRAM,
//		Password: lookup, // user → password or SCRAM verifier (SCRAMVerifier)
//		Handler:  engine, // implements wire.Handler
//	})
//	go srv.Serve(ctx)
//	...
//	srv.Shutdown(ctxWithDeadline)
//
// The engine does not import wire to report errors: any error with a
// SQLState() string method (SQLStateError), or with an
// ErrorFields(add func(field byte, value string)) method (FieldsError) for
// the other fields, is reported with its code; other errors are XX000.
//
// The answers of this package are PostgreSQL 15's, message for message:
// regress/internal/protodiff drives random sequences of messages against a
// real PostgreSQL and our server and compares them.
//
// # Invariants
//
//  1. One goroutine per connection runs every protocol step and every call
//     into the Session, its Statements and Portals; those calls never run
//     concurrently for one session. Other goroutines touch a session only
//     to cancel it (cancel request, Shutdown, Close), and only through the
//     context of the engine call in progress; and the engine touches
//     another session's connection only through
//     Notifier.NotificationsPending, which sets a flag and may wake the
//     idle read — the connection's goroutine stays its only writer.
//  2. A cancel request cancels only the statement running when it arrives
//     (a request arriving between statements is dropped, so it cannot hit
//     the next one); the statement then fails with 57014 "canceling
//     statement due to user request" unless the engine reported an error
//     with its own SQLSTATE.
//  3. Simple query: the string is parsed whole (dropping the unnamed
//     statement); statements run in order, each bound, executed and closed
//     before the next is bound, in the place of the unnamed portal; the
//     first error stops the rest; then Session.Sync and ReadyForQuery. An
//     empty string answers EmptyQueryResponse. A statement's RowDescription
//     goes out when its result starts (RowWriter.StartRows), so that one
//     failing before, such as INSERT ... RETURNING, answers the error alone.
//  4. Extended query: after an ErrorResponse every message is discarded
//     until Sync (Terminate still ends the session), as PostgreSQL does;
//     Sync calls Session.Sync(failed) and answers ReadyForQuery. The unnamed
//     statement and portal are replaced by the next Parse / Bind (the
//     unnamed statement is dropped even if the new Parse fails); a named
//     one must be closed first (42P05 once the statement is parsed, 42P03).
//     An unknown statement gives 26000, an unknown portal 34000; closing an
//     unknown name is not an error. The checks of a Bind come in
//     PostgreSQL's order: statement, counts, failed block, portal name,
//     parameter format codes (only those of parameters sent), parameters,
//     result format count (only for a statement returning rows); result
//     format codes are checked when the first row is sent (22023).
//  5. Portals live as in PostgreSQL. They are dropped when their
//     transaction ends: at a COMMIT or ROLLBACK that ends it (not at the
//     next Sync), and at a ReadyForQuery with TxIdle; a ROLLBACK TO
//     SAVEPOINT drops the portal that ran it. A portal whose Bind failed
//     once it was made, or the unnamed portal of a simple query's statement
//     that failed, stays, failed, until then. A portal run to completion
//     answers "SELECT 0" and the like if it returns rows, and 55000 if not;
//     the count of a tag of an Execute is that of the rows it sent.
//  6. In a failed transaction block, Parse, Bind and Execute refuse with
//     25P02 any statement but one that ends the block (asking the
//     engine's StateChecker), and Describe refuses to describe rows.
//  7. Output is flushed at ReadyForQuery, at Flush, after an ErrorResponse
//     (the Flush after it would be discarded), before the server waits for
//     client data (authentication, COPY FROM STDIN), and when the buffer
//     passes 32 KiB — never per row. ParameterStatus changes reported by
//     the engine are sent just before the next ReadyForQuery, once per
//     name.
//  8. Framing errors (unknown message type, bad or oversized length,
//     malformed body) are FATAL 08P01 and close the connection; other
//     sessions are unaffected; an unexpected message during COPY FROM
//     STDIN is an ERROR 08P01 followed by that FATAL, as in PostgreSQL.
//     Message bodies are limited by Config.MaxMessageSize (1 GiB − 1 by
//     default) and control messages by 10000 bytes, checked before
//     allocation.
//  9. A panic of the engine in a call for a statement (Parse,
//     DecodeParams, Bind, Execute, Sync) is recovered, logged with its
//     stack and answered ERROR XX000, as that statement's error: the
//     transaction fails as on any error, and the session goes on. A panic
//     anywhere else in a session (the wire's own) is recovered, logged,
//     answered FATAL XX000, and ends that session only; Session.Close is
//     still called.
//  10. Shutdown stops accepting, ends idle sessions at once with FATAL
//     57P01, lets running statements finish (their session then ends the
//     same way), and at its context's deadline cancels the statements
//     still running. Session.Close is called exactly once per session,
//     last.
//  11. Notifications (NotificationSession) are sent as PostgreSQL sends
//     them: only when the session is not in a transaction block, either
//     just before the ReadyForQuery that ends a batch (after the batch's
//     own messages, before its ParameterStatus reports), or at once while
//     the session waits idle for its client. Never in the middle of an
//     extended batch, and never in the middle of a client message: an idle
//     wait is interrupted (by a read deadline, as Shutdown does) only while
//     no byte of the next message has arrived, and the wait peeks rather
//     than reads, so an interrupted wait loses nothing. A session that
//     receives none pays an atomic load per batch and a Peek per idle
//     wait, and allocates nothing for them.
//  12. At most Config.MaxConnections sessions run: one more is refused
//     with FATAL 53300 once its startup message is read, before it
//     authenticates, and again if the sessions filled up while it did.
//     Config.ClientAuth, when set, chooses the authentication method per
//     connection (user, database, address, TLS) before any is asked; its
//     error refuses the connection with FATAL 28000, as does, before it,
//     Config.RequireTLSOffLoopback for an unencrypted connection from an
//     address that is not a loopback one. Failed password
//     logins are logged without the password, and answered after a
//     delay that grows with an address's recent failures (throttle.go).
//  13. A session that is an IdleLimiter waits for its client inside a
//     transaction block at most its IdleInTransactionTimeout, then ends
//     with FATAL 25P03 (its transaction rolls back as the session closes);
//     time spent running statements does not count.
//
// # Ownership of buffers
//
// The bytes the wire hands the engine point into the connection's read
// buffer and are valid only during the call: the sql string of Parse is a
// copy, but Bind's params and format slices, and the slices returned by
// CopyReader.Next, are views that the next message overwrites. RowWriter
// copies what it is given (Value) or lets the engine append in place
// (BeginValue/EndValue); a RowWriter, CopyReader or CopyWriter is valid
// only during the Execute it was given to. The wire only reads the slices
// the engine returns (ParamTypes, Columns) and keeps them as long as the
// statement or portal lives.
//
// # Not supported
//
// SCRAM-SHA-256-PLUS (channel binding), GSSAPI and SSPI, MD5 passwords,
// the function-call sub-protocol (answered 0A000), replication
// connections, COPY BOTH, client encodings other than UTF8 and SQL_ASCII,
// and SASLprep of
// passwords (non-ASCII passwords must be in normalized form).
package wire
