// Package wiretest is a small SQL "engine" that understands just enough
// statements to drive every path of the wire protocol, and helpers to run a
// wire.Server on 127.0.0.1:0 in tests. It is test support only.
//
// Statements (case-insensitive; several per simple query, split on ';'):
//
//	SELECT 1, 'abc', $1, $2::int8, NULL, true   literals and parameters echoed back
//	SELECT generate_series(a, b)                 b−a+1 rows of int4, streamed, resumable
//	SELECT pg_sleep(s)                           sleeps s seconds or until cancelled
//	SELECT raise('22012', 'message')             fails with that SQLSTATE (+ detail, hint, position)
//	SELECT notice('message')                     sends a NoticeResponse, returns one row
//	SELECT panic()                               panics (when Engine.AllowPanic)
//	SELECT current_setting('name') / SHOW name   a setting
//	SET [SESSION] name = value | TO value        reports ParameterStatus
//	BEGIN | START TRANSACTION | COMMIT | END | ROLLBACK | ABORT
//	CREATE TABLE t (a int4, b text, ...)         an empty table (COPY also creates tables)
//	SELECT a, b FROM t | SELECT * FROM t         the table's rows
//	COPY t [(a, b)] FROM STDIN [BINARY | CSV | WITH (FORMAT csv)]
//	COPY t [(a, b)] TO STDOUT [CSV | WITH (FORMAT csv)]
//	LISTEN ch | UNLISTEN ch | UNLISTEN *         at once, for the session
//	NOTIFY ch [, 'payload']                      delivered to the Engine's listeners at commit
//
// Tables are shared by all sessions of an Engine.
package wiretest
