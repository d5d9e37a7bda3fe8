// Package protodiff is a differential tester of the frontend/backend
// protocol: it drives the same random sequences of frontend messages
// against PostgreSQL 15 and against our server and compares every backend
// message they answer with, so that our protocol and transaction state
// machine is shown to be PostgreSQL's, message for message.
//
// # Parts
//
//   - Generate (gen.go, vocabulary.go) makes the Sequence of a seed: steps
//     of simple queries of one to three statements (some failing: 42P01,
//     42703, 42601, 22012, 23505, 23502, 22P02, ...), extended-protocol
//     batches (Parse, Bind, Describe S and P, Execute with and without a
//     row limit, Close, Flush, Sync; named and unnamed statements and
//     portals; wrong names, duplicate names, wrong parameter counts, bad
//     format codes, bad parameter values, messages after an error up to
//     Sync, a Query in the middle of a batch), transaction control in
//     both protocols (BEGIN, COMMIT, ROLLBACK, SAVEPOINT, ROLLBACK TO,
//     RELEASE, COMMIT in a failed block), parameters of int4, int8, text,
//     bool and text[] declared, undeclared (0) or declared otherwise, in
//     text and binary, results in text and binary, COPY FROM STDIN (text
//     and CSV, data split anywhere, bad lines, the end marker, CopyFail,
//     Flush and Sync inside, another message inside) and COPY TO STDOUT
//     (text, CSV, binary).
//   - Conn (conn.go) sends a step and reads exactly the responses it
//     provokes; Response (response.go) is a backend message normalised.
//   - compare (compare.go) finds the first difference of a step and its
//     Category; Runner (runner.go) runs a sequence on both servers; Shrink
//     (shrink.go) reduces a failing sequence; Run (campaign.go) runs many,
//     in parallel workers, and sums them up in Totals.
//
// The test is regress/protodiff_test.go (a short fixed run when PostgreSQL
// 15 is installed), `make protodiff N=100000 SEED=1` the long run.
//
// # Invariants
//
//  1. A sequence is a function of its seed and GenOptions alone: replaying
//     a seed sends the same bytes. Sequence i of a run has seed Seed+i.
//  2. Both servers get the same messages in the same steps, each step in
//     one write; the steps run on both at once.
//  3. Every sequence starts from the same state: a fresh session on each
//     server, and tables t(id int primary key, v text) and u(a int, b
//     text[]) emptied and refilled over a separate control connection.
//     After the steps the sessions end (Terminate, waiting for the server
//     to close, so that their transactions are gone) and the tables'
//     contents are compared too (SELECT ... ORDER BY).
//  4. Every read and write has a deadline: a server that does not answer
//     is a difference (CatHang), never a stuck run. A difference ends its
//     sequence: the sessions have diverged, and what follows would only
//     repeat it.
//  5. A failing sequence is shrunk by delta debugging (steps in halves,
//     quarters, ..., then single messages) while the same difference (same
//     Diff.Signature) persists, and printed as readable messages with both
//     servers' answers side by side.
//
// # Reading responses
//
// A step ends with a message that makes PostgreSQL flush (Sync, Flush or
// Query; COPY data ends with CopyDone or CopyFail). Conn.Exchange knows how
// many responses to read by following PostgreSQL's rules, learnt from each
// server's own answers: Parse, Bind, Describe and Close answer one message
// (Describe S two) or an ErrorResponse; Execute answers rows up to
// CommandComplete, PortalSuspended, EmptyQueryResponse or ErrorResponse;
// Query and Sync answer up to ReadyForQuery; Flush nothing. After an
// ErrorResponse to an extended-protocol message everything up to Sync is
// discarded, without answer. Once a server starts COPY FROM STDIN, the
// messages after it up to CopyDone or CopyFail are the copy's (Flush and
// Sync among them ignored; any other message ends the copy and is
// consumed). The generator keeps Sync, Flush or a Query inside COPY data
// to data that cannot fail before its end, since after a failure they
// count as ordinary messages again.
//
// # Allow-list: what is not compared
//
// Kept small on purpose; everything else is compared byte for byte.
//
//  1. Everything before the first ReadyForQuery of a session: the
//     ParameterStatus values (server_version and the like) and
//     BackendKeyData (process id and secret).
//  2. RowDescription: a column's table OID is compared only as zero or
//     not (the servers number their tables differently).
//  3. NoticeResponse: only severity and SQLSTATE are compared, not the
//     wording; PostgreSQL's internal "skipping cleanup for portal" warning
//     (a transaction ending with a portal bound after it failed) is
//     dropped.
//  4. ErrorResponse: severity and SQLSTATE are compared strictly; the
//     message, detail, hint and position are compared as a separate
//     category, CatText, which is reported but does not fail a run; the
//     other fields (schema, table, column, constraint and data type names,
//     where, file, line, routine) are not compared.
//
// # Known engine differences
//
// KnownDiffs (known.go) lists differences of our SQL engine (planner/,
// exec/), each with its minimal sequence; the generator steers around
// them unless GenOptions.Include names them (-protodiff.known=all shows
// which still differ). Differences of the protocol layer (wire/) are never
// listed there: they are fixed.
//
// # PostgreSQL's own faults
//
// PostgreSQL 15 decides whether a portal may run in a failed transaction
// block by reading the portal's statements, which the failure freed (the
// cached plan is released, or the message context of the simple query
// that made the portal is reset): executing a portal that outlived the
// failure of its block answers at random or crashes the backend. Seen:
// after BEGIN, an error, a ROLLBACK TO SAVEPOINT of no savepoint (whose
// failed portal stays as the unnamed one) and one refused query, Execute
// of the unnamed portal answers 25P02 where 55000 is due (and 55000
// without the refused query); after three refused queries the backend died
// of signal 11 (seed 14169 of an early version). So the generator executes only
// portals bound in the same batch, or names that never exist. A crash of
// PostgreSQL all the same is reported as CatReference, not as ours.
package protodiff
