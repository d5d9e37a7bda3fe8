package wire

import (
	"context"
	"crypto/tls"
	"net"
	"time"
)

// Handler is the SQL engine as the wire sees it. A Server has one Handler;
// Connect is called concurrently from every connection's goroutine.
type Handler interface {
	// Connect authorises an authenticated startup (database exists, user may
	// connect, startup parameters are valid) and returns the session. An
	// error is sent as FATAL (its SQLSTATE kept, e.g. 3D000 for an unknown
	// database) and the connection is closed.
	//
	// n stays valid until Session.Close returns. Parameter values reported
	// through n during Connect replace the defaults of the startup report
	// (see Config and the package doc).
	Connect(ctx context.Context, s *Startup, n Notifier) (Session, error)
}

// Session is one client connection's state in the engine: its settings,
// transaction, and the statements and portals it has made.
//
// Concurrency: every method of a Session, and of the Statements and Portals
// it returns, is called from the connection's goroutine only, one call at a
// time. Cancellation comes from other goroutines, but only through the
// context of the call in progress. Close is the last call.
type Session interface {
	// Parse parses sql into statements. The simple protocol hands it a whole
	// query string (any number of statements; none for an empty or
	// blank/semicolons-only string, which answers EmptyQueryResponse); the
	// extended protocol's Parse message allows at most one (more is 42601
	// "cannot insert multiple commands into a prepared statement").
	//
	// paramTypes are the parameter type OIDs from the Parse message (0 = let
	// the engine infer); nil for the simple protocol. The slice is only
	// valid during the call.
	//
	// For the simple protocol the wire calls Bind, Execute and Close on each
	// statement in turn before binding the next, so analysis that depends on
	// earlier statements of the same string (CREATE TABLE t; INSERT INTO t
	// ...) belongs in Bind, or in ParamTypes/Columns, which the simple
	// protocol never calls.
	Parse(ctx context.Context, sql string, paramTypes []uint32) ([]Statement, error)

	// Sync ends a batch: the end of a simple Query message, or an extended
	// Sync. failed reports whether an ErrorResponse was sent during the
	// batch — by the engine or by the wire itself (unknown portal, bad
	// Bind, ...): the engine rolls back an implicit transaction, or marks an
	// explicit one failed, as PostgreSQL does. A returned error (a failed
	// implicit COMMIT, say) is sent before ReadyForQuery.
	Sync(ctx context.Context, failed bool) error

	// TxStatus is the status sent in ReadyForQuery: TxIdle, TxInBlock or
	// TxFailed. Called after Sync and after Connect.
	TxStatus() TxStatus

	// Close releases the session. Statements and portals not yet closed are
	// closed by the wire first.
	Close()
}

// CursorDescriber is implemented by a Session whose SQL cursors (DECLARE
// name CURSOR FOR ...) are also portals of the protocol, as in PostgreSQL:
// a Describe of a portal that no Bind made asks it. psycopg 3's server-side
// cursors learn their columns this way. binary is true for a BINARY
// cursor, whose rows are sent in binary format.
type CursorDescriber interface {
	DescribeCursor(name string) (cols []Column, binary, ok bool)
}

// Statement is a parsed statement: an extended-protocol prepared statement
// (named or unnamed) or one statement of a simple query.
type Statement interface {
	// ParamTypes returns the OID of each parameter ($1, $2, ...). The
	// returned slice is only read by the wire.
	ParamTypes() []uint32

	// Columns describes the rows the statement returns, nil when it returns
	// none (NoData). Format codes are the wire's business; Column has none.
	Columns() []Column

	// Bind makes a portal. params[i] is nil for NULL; paramFormats and
	// resultFormats are as the client sent them: empty (all text), one
	// entry (for all) or one per parameter/column (see FormatCode). The wire
	// has checked the counts (that of result formats only when the
	// statement returns rows) and that the code of every parameter sent
	// is 0 or 1; a result code other than 1 is to be read as text (the
	// wire fails the first row then, as PostgreSQL does). The slices and
	// the bytes of params point into the connection's read buffer: they are
	// valid only during the call, so copy what the portal keeps.
	Bind(ctx context.Context, params [][]byte, paramFormats, resultFormats []int16) (Portal, error)

	// Close releases the statement. Portals bound from it stay valid.
	Close()
}

// Portal is a bound statement, ready to run, possibly in several Executes.
type Portal interface {
	// Columns describes the result rows, nil for none (NoData). The wire
	// adds the format codes from Bind.
	Columns() []Column

	// Execute runs the portal until it completes or, when maxRows > 0, until
	// it has written maxRows rows. It writes rows, notices and COPY data
	// through w, which is valid only during the call. When the portal
	// completes it returns done = true and the command tag ("SELECT 3",
	// "INSERT 0 1", "COPY 10", ...); otherwise done = false and the wire
	// answers PortalSuspended, and a later Execute resumes where this one
	// stopped. An Execute after completion should write nothing and return
	// done with a tag (the wire runs again only portals that return rows,
	// and puts in the tag the count of the rows of each Execute).
	//
	// In the simple protocol the wire owes the statement's RowDescription
	// and sends it before the first row or at completion; an engine calls
	// w.StartRows to send it earlier, before an error that PostgreSQL
	// reports after describing (an error of a query's first row), and does
	// not for one that PostgreSQL reports before (a data-modifying
	// statement with RETURNING runs to its end first).
	//
	// When ctx is cancelled (cancel request, shutdown, lost connection)
	// Execute should return soon; returning ctx.Err() is enough for the wire
	// to report 57014 "canceling statement due to user request".
	Execute(ctx context.Context, w *RowWriter, maxRows int) (tag string, done bool, err error)

	// Close releases the portal (Close message, replacement of the unnamed
	// portal, end of transaction, end of session).
	Close()
}

// StateChecker is an optional interface of a Statement or Portal. In a
// failed transaction block PostgreSQL lets only a statement that ends the
// block (COMMIT, ROLLBACK, ROLLBACK TO SAVEPOINT, PREPARE TRANSACTION) be
// bound or executed, and refuses the others with 25P02 before it looks at
// anything else; the wire asks CheckState, in a failed block only, at
// those points. Without it the engine's own Bind and Execute refuse what
// they must, later in the order of checks.
type StateChecker interface {
	// CheckState returns an error (25P02) if the statement may not run
	// in the session's present state.
	CheckState() error
}

// ParamDecoder is an optional interface of a Session. A Bind of an empty
// statement (one that only declared parameter types at Parse) reaches no
// Statement, yet PostgreSQL decodes its parameters and refuses bad ones;
// the wire asks DecodeParams to do that. params and formats are as for
// Statement.Bind, types are the declared OIDs (0: unknown).
type ParamDecoder interface {
	DecodeParams(ctx context.Context, types []uint32, params [][]byte, formats []int16) error
}

// FunctionCaller is an optional interface of a Session: the fastpath
// function call of the protocol (FunctionCall), which libpq's large object
// functions (lo_open, loread, ...) and psql's \lo_import use. CallFunction
// calls the function whose pg_proc OID is fn with args (nil for NULL) in
// formats (as for Statement.Bind's parameters) and returns its result
// encoded in resultFormat, nil for NULL. Without it the wire refuses the
// message with 0A000.
type FunctionCaller interface {
	CallFunction(ctx context.Context, fn uint32, args [][]byte, formats []int16, resultFormat int16) ([]byte, error)
}

// Notifier sends asynchronous reports to the client. Call ParameterStatus
// and Notice only from within a call that the wire made on the session
// (Connect, Parse, Bind, Execute, Sync, ...), never from another goroutine;
// NotificationsPending is the exception.
type Notifier interface {
	// ParameterStatus reports that a reported setting (TimeZone,
	// application_name, DateStyle, ...) has the given value. The wire sends
	// ParameterStatus just before the next ReadyForQuery, once per name with
	// the last value, as PostgreSQL does; during Connect the value replaces
	// the startup default.
	ParameterStatus(name, value string)

	// Notice sends a NoticeResponse now, in order with the rows. n's fields
	// are read as for errors (FieldsError, SQLStateError), with severity
	// NOTICE and code 00000 by default.
	Notice(n error)

	// NotificationsPending tells the wire that the session has
	// notifications for its client (see NotificationSession). It is safe
	// from any goroutine at any time, and cheap: the engine calls it when
	// another session's commit queues a notification for this one. A
	// session waiting idle for its client outside a transaction block is
	// woken to send them at once; otherwise they go out just before the
	// next ReadyForQuery that reports TxIdle.
	NotificationsPending()
}

// IdleLimiter is a Session that bounds how long it waits for its client
// inside a transaction block (idle_in_transaction_session_timeout). The
// wire looks for it once, after Connect, and asks before each wait in a
// block; past the limit it ends the session with FATAL 25P03.
type IdleLimiter interface {
	Session
	IdleInTransactionTimeout() time.Duration // 0: no limit
}

// NotificationSession is a Session that delivers asynchronous
// notifications (LISTEN/NOTIFY). The wire looks for it once, after
// Connect.
type NotificationSession interface {
	Session

	// Notifications calls send, in order, for each notification ready for
	// the client, and forgets them: pid is the notifying session's
	// ProcessID (as in BackendKeyData). The wire calls it only when the
	// session is not in a transaction block — just before ReadyForQuery
	// and while waiting idle for the client — and only after
	// NotificationsPending was called since the last time. send appends
	// NotificationResponse messages to the output; it must not be kept.
	Notifications(send func(pid uint32, channel, payload string))
}

// Startup is what a client asked for at connection time.
type Startup struct {
	User     string
	Database string // as given; the user name when the client sent none
	Options  string // the "options" parameter (command-line style settings), raw

	// Params holds every StartupMessage parameter, including user, database,
	// options and application_name. The engine owns the map.
	Params map[string]string

	RemoteAddr net.Addr
	TLS        *tls.ConnectionState // nil without TLS
	ProcessID  uint32               // as in BackendKeyData
}

// Column describes one result column, as RowDescription carries it.
type Column struct {
	Name     string
	TableOID uint32 // 0 when not a table column
	Attr     int16  // attribute number in that table, 0 when none
	TypeOID  uint32
	TypeSize int16 // pg_type.typlen: -1 varlena, -2 cstring
	TypeMod  int32 // -1 when none
}

// TxStatus is the transaction status reported by ReadyForQuery.
type TxStatus byte

// Transaction statuses.
const (
	TxIdle    TxStatus = 'I' // not in a transaction block
	TxInBlock TxStatus = 'T' // in a transaction block
	TxFailed  TxStatus = 'E' // in a failed transaction block
)

// Format codes of parameters and results.
const (
	FormatText   int16 = 0
	FormatBinary int16 = 1
)

// FormatCode returns the format code of parameter or column i under the
// protocol's rules: no codes means text, one code applies to all, else one
// per item. The wire has checked the counts before the engine sees them.
func FormatCode(formats []int16, i int) int16 {
	switch len(formats) {
	case 0:
		return FormatText
	case 1:
		return formats[0]
	default:
		return formats[i]
	}
}
