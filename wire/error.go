package wire

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgproto3/v2"
)

// Error is a PostgreSQL error report: every field that ErrorResponse and
// NoticeResponse can carry. The engine may return an *Error, but it does not
// have to import wire to control the report: any error that implements
// SQLStateError or FieldsError is understood (see toResponse), which keeps the
// imports pointing one way (wire → planner → exec).
//
// An Error with Severity FATAL or PANIC ends the session after it is sent.
type Error struct {
	Severity         string // ERROR when empty (NOTICE for a notice)
	Code             string // SQLSTATE, five characters; XX000 when empty
	Message          string
	Detail           string
	Hint             string
	Position         int // 1-based character (not byte) position in the query; 0 = none
	InternalPosition int
	InternalQuery    string
	Where            string
	Schema           string
	Table            string
	Column           string
	DataType         string
	Constraint       string
	File             string
	Line             int
	Routine          string

	// Err is the cause, for errors.Is/As on the server side; it is never sent.
	Err error
}

// SQLStateError is an error that knows its SQLSTATE; the message sent is
// Error(). pgconn.PgError, lib/pq's Error and most engines' error types
// already have this method.
type SQLStateError interface {
	error
	SQLState() string
}

// FieldsError is an error that reports every field itself: ErrorFields calls
// add once per field it has, with the protocol's field code (FieldCode,
// FieldMessage, FieldDetail, ... as bytes: 'C', 'M', 'D', ...). Fields it does
// not report keep their defaults: severity ERROR, code from SQLState() when
// the error also implements it (else XX000), message Error().
type FieldsError interface {
	error
	ErrorFields(add func(field byte, value string))
}

var (
	_ SQLStateError = (*Error)(nil)
	_ FieldsError   = (*Error)(nil)
)

// Errorf returns an *Error with severity ERROR, the given SQLSTATE and a
// formatted message. A %w verb sets Err.
func Errorf(code, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Severity: SeverityError, Code: code, Message: err.Error(), Err: errors.Unwrap(err)}
}

// Error returns "SEVERITY: message (SQLSTATE code)", like pgconn.
func (e *Error) Error() string {
	sev := e.Severity
	if sev == "" {
		sev = SeverityError
	}
	code := e.Code
	if code == "" {
		code = CodeInternalError
	}
	return sev + ": " + e.Message + " (SQLSTATE " + code + ")"
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// SQLState returns the code, XX000 when empty.
func (e *Error) SQLState() string {
	if e.Code == "" {
		return CodeInternalError
	}
	return e.Code
}

// ErrorFields reports the non-empty fields.
func (e *Error) ErrorFields(add func(field byte, value string)) {
	str := func(f byte, v string) {
		if v != "" {
			add(f, v)
		}
	}
	num := func(f byte, v int) {
		if v != 0 {
			add(f, strconv.Itoa(v))
		}
	}
	str(FieldSeverity, e.Severity)
	str(FieldCode, e.Code)
	str(FieldMessage, e.Message)
	str(FieldDetail, e.Detail)
	str(FieldHint, e.Hint)
	num(FieldPosition, e.Position)
	num(FieldInternalPosition, e.InternalPosition)
	str(FieldInternalQuery, e.InternalQuery)
	str(FieldWhere, e.Where)
	str(FieldSchema, e.Schema)
	str(FieldTable, e.Table)
	str(FieldColumn, e.Column)
	str(FieldDataType, e.DataType)
	str(FieldConstraint, e.Constraint)
	str(FieldFile, e.File)
	num(FieldLine, e.Line)
	str(FieldRoutine, e.Routine)
}

// errCancelRequested and errAdminShutdown are the causes with which the wire
// cancels a statement's context (context.Cause tells them apart).
var (
	errCancelRequested = errors.New("wire: cancel request")
	errAdminShutdown   = errors.New("wire: server shutting down")
	errConnLost        = errors.New("wire: connection lost")
)

// canceledError is what a statement that failed because of a cancel request
// reports, whatever error the engine returned for it.
func canceledError() *Error {
	return &Error{Severity: SeverityError, Code: CodeQueryCanceled, Message: "canceling statement due to user request"}
}

// adminShutdownError is the FATAL sent to sessions ended by Shutdown.
func adminShutdownError() *Error {
	return &Error{Severity: SeverityFatal, Code: CodeAdminShutdown, Message: "terminating connection due to administrator command"}
}

// protocolError is a FATAL protocol violation: the connection is closed
// after it is sent.
func protocolError(format string, args ...any) *Error {
	return &Error{Severity: SeverityFatal, Code: CodeProtocolViolation, Message: fmt.Sprintf(format, args...)}
}

// toResponse fills dst with the report of err. cause is the statement
// context's cause (nil when not cancelled): an engine error that is a plain
// context error, or that has no SQLSTATE of its own, becomes 57014 after a
// cancel request and FATAL 57P01 after a forced shutdown, as in PostgreSQL.
// defSeverity is ERROR for errors and NOTICE for notices.
func toResponse(dst *pgproto3.ErrorResponse, err error, cause error, defSeverity string) {
	*dst = pgproto3.ErrorResponse{Severity: defSeverity, Code: CodeInternalError}
	if defSeverity == SeverityNotice || defSeverity == SeverityWarning {
		dst.Code = CodeSuccessfulCompletion
	}
	var fe FieldsError
	var se SQLStateError
	hasFields := errors.As(err, &fe)
	hasState := errors.As(err, &se)
	if cause != nil && ((!hasState && !hasFields) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		var repl *Error
		switch {
		case errors.Is(cause, errCancelRequested):
			repl = canceledError()
		case errors.Is(cause, errAdminShutdown):
			repl = adminShutdownError()
		}
		if repl != nil {
			fe, se, hasFields, hasState = repl, repl, true, true
		}
	}
	if hasState {
		dst.Code = se.SQLState()
	}
	if hasFields {
		dst.Message = fe.Error() // replaced when the error reports M
		fe.ErrorFields(func(f byte, v string) { setField(dst, f, v) })
	} else {
		dst.Message = err.Error()
	}
	if dst.Severity == "" {
		dst.Severity = defSeverity
	}
	if len(dst.Code) != 5 {
		dst.Code = CodeInternalError
	}
	dst.SeverityUnlocalized = dst.Severity
}

// setField sets one field of an ErrorResponse by its protocol code; unknown
// codes are kept in UnknownFields, as the protocol allows new fields.
func setField(dst *pgproto3.ErrorResponse, f byte, v string) {
	atoi := func(s string) int32 {
		n, _ := strconv.ParseInt(s, 10, 32)
		return int32(n)
	}
	switch f {
	case FieldSeverity:
		dst.Severity = v
	case FieldSeverityV:
		// Derived from Severity.
	case FieldCode:
		dst.Code = v
	case FieldMessage:
		dst.Message = v
	case FieldDetail:
		dst.Detail = v
	case FieldHint:
		dst.Hint = v
	case FieldPosition:
		dst.Position = atoi(v)
	case FieldInternalPosition:
		dst.InternalPosition = atoi(v)
	case FieldInternalQuery:
		dst.InternalQuery = v
	case FieldWhere:
		dst.Where = v
	case FieldSchema:
		dst.SchemaName = v
	case FieldTable:
		dst.TableName = v
	case FieldColumn:
		dst.ColumnName = v
	case FieldDataType:
		dst.DataTypeName = v
	case FieldConstraint:
		dst.ConstraintName = v
	case FieldFile:
		dst.File = v
	case FieldLine:
		dst.Line = atoi(v)
	case FieldRoutine:
		dst.Routine = v
	default:
		if f == 0 {
			return // would terminate the field list
		}
		if dst.UnknownFields == nil {
			dst.UnknownFields = make(map[byte]string)
		}
		dst.UnknownFields[f] = v
	}
}

// isFatal reports whether a report ends the session.
func isFatal(severity string) bool {
	return severity == SeverityFatal || severity == SeverityPanic
}
