package pgerr

import (
	"errors"
	"fmt"
)

// Code is a five-character SQLSTATE.
type Code string

// The SQLSTATE codes the server raises, named as in PostgreSQL's
// errcodes.txt.
const (
	SuccessfulCompletion        Code = "00000"
	Warning                     Code = "01000"
	WarningPrivilegeNotRevoked  Code = "01006"
	WarningPrivilegeNotGranted  Code = "01007"
	FeatureNotSupported         Code = "0A000"
	CardinalityViolation        Code = "21000"
	DataException               Code = "22000"
	StringDataRightTruncation   Code = "22001"
	NumericValueOutOfRange      Code = "22003"
	NullValueNotAllowed         Code = "22004"
	InvalidDatetimeFormat       Code = "22007"
	DatetimeFieldOverflow       Code = "22008"
	DivisionByZero              Code = "22012"
	InvalidParameterValue       Code = "22023"
	InvalidBinaryRepresentation Code = "22P03"
	InvalidTextRepresentation   Code = "22P02"
	IntegrityConstraintViolate  Code = "23000"
	NotNullViolation            Code = "23502"
	ForeignKeyViolation         Code = "23503"
	UniqueViolation             Code = "23505"
	CheckViolation              Code = "23514"
	ExclusionViolation          Code = "23P01"
	BadCopyFileFormat           Code = "22P04"
	InvalidCursorState          Code = "24000"
	InvalidTransactionState     Code = "25000"
	ActiveSQLTransaction        Code = "25001"
	NoActiveSQLTransaction      Code = "25P01"
	InFailedSQLTransaction      Code = "25P02"
	ReadOnlySQLTransaction      Code = "25006"
	InvalidSQLStatementName     Code = "26000"
	InvalidAuthorization        Code = "28000"
	InvalidPassword             Code = "28P01"
	InvalidCursorName           Code = "34000"
	InvalidSavepointSpec        Code = "3B001"
	InvalidCatalogName          Code = "3D000"
	InvalidSchemaName           Code = "3F000"
	SerializationFailure        Code = "40001"
	DeadlockDetected            Code = "40P01"
	SyntaxErrorOrAccessRule     Code = "42000"
	SyntaxError                 Code = "42601"
	InsufficientPrivilege       Code = "42501"
	InvalidGrantOperation       Code = "0LP01"
	UndefinedColumn             Code = "42703"
	UndefinedFunction           Code = "42883"
	UndefinedTable              Code = "42P01"
	UndefinedParameter          Code = "42P02"
	UndefinedObject             Code = "42704"
	DuplicateColumn             Code = "42701"
	DuplicateCursor             Code = "42P03"
	DuplicateDatabase           Code = "42P04"
	DuplicatePreparedStatement  Code = "42P05"
	WindowingError              Code = "42P20"
	DuplicateSchema             Code = "42P06"
	DuplicateTable              Code = "42P07"
	DuplicateObject             Code = "42710"
	DuplicateAlias              Code = "42712"
	AmbiguousColumn             Code = "42702"
	AmbiguousFunction           Code = "42725"
	DatatypeMismatch            Code = "42804"
	WrongObjectType             Code = "42809"
	InvalidColumnReference      Code = "42P10"
	GroupingError               Code = "42803"
	InvalidTableDefinition      Code = "42P16"
	UndefinedDatabase           Code = "3D000"
	InvalidParameterType        Code = "42P18"
	AmbiguousParameter          Code = "42P08"
	CannotCoerce                Code = "42846"
	TooManyConnections          Code = "53300"
	OutOfMemory                 Code = "53200"
	ObjectInUse                 Code = "55006"
	ObjectNotInPrerequisite     Code = "55000"
	WithCheckOptionViolation    Code = "44000"
	LockNotAvailable            Code = "55P03"
	QueryCanceled               Code = "57014"
	AdminShutdown               Code = "57P01"
	ProtocolViolation           Code = "08P01"
	InternalError               Code = "XX000"
	DataCorrupted               Code = "XX001"
)

// Error is an error as PostgreSQL reports it.
type Error struct {
	Code     Code
	Message  string
	Detail   string
	Hint     string
	Position int // 1-based character position in the query, 0 for none
	// Context is the CONTEXT field: where in a routine the error arose,
	// innermost first, a line each.
	Context string
	// The object the error is about, as PostgreSQL reports it for
	// constraint violations and drivers expose it (psycopg's diag, pgx's
	// PgError): schema, table, column, data type and constraint names.
	Schema, Table, Column, DataType, Constraint string
	Severity                                    string
	Err                                         error // the cause, if any, for errors.Is/As
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// SQLState returns the error's code; the wire layer reads it.
func (e *Error) SQLState() string { return string(e.Code) }

// New returns an error with code and a message formatted as by fmt.Sprintf.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with code and message whose cause is err.
func Wrap(err error, code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// WithDetail sets the error's DETAIL.
func (e *Error) WithDetail(format string, args ...any) *Error {
	e.Detail = fmt.Sprintf(format, args...)
	return e
}

// WithHint sets the error's HINT.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// WithTable names the table the error is about.
func (e *Error) WithTable(schema, table string) *Error {
	e.Schema, e.Table = schema, table
	return e
}

// WithColumn names the column the error is about.
func (e *Error) WithColumn(column string) *Error {
	e.Column = column
	return e
}

// WithConstraint names the constraint the error is about.
func (e *Error) WithConstraint(name string) *Error {
	e.Constraint = name
	return e
}

// WithDataType names the data type the error is about (a domain), with its
// schema.
func (e *Error) WithDataType(schema, name string) *Error {
	e.Schema, e.DataType = schema, name
	return e
}

// CodeOf returns the SQLSTATE of err: its own if it is (or wraps) an *Error,
// internal_error otherwise.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return InternalError
}

// ErrorFields reports the error's fields by their protocol codes, for the
// wire layer's ErrorResponse and NoticeResponse.
func (e *Error) ErrorFields(add func(field byte, value string)) {
	if e.Severity != "" {
		add('S', e.Severity)
		add('V', e.Severity)
	}
	add('C', string(e.Code))
	add('M', e.Message)
	if e.Detail != "" {
		add('D', e.Detail)
	}
	if e.Hint != "" {
		add('H', e.Hint)
	}
	if e.Position > 0 {
		add('P', fmt.Sprint(e.Position))
	}
	if e.Context != "" {
		add('W', e.Context)
	}
	for _, f := range [...]struct {
		code byte
		v    string
	}{{'s', e.Schema}, {'t', e.Table}, {'c', e.Column}, {'d', e.DataType}, {'n', e.Constraint}} {
		if f.v != "" {
			add(f.code, f.v)
		}
	}
}

// NewInfo returns a notice of severity INFO, which reaches the client
// whatever client_min_messages says.
func NewInfo(code Code, format string, args ...any) *Error {
	e := New(code, format, args...)
	e.Severity = "INFO"
	return e
}

// NewWarning returns a notice of severity WARNING.
func NewWarning(code Code, format string, args ...any) *Error {
	e := New(code, format, args...)
	e.Severity = "WARNING"
	return e
}
