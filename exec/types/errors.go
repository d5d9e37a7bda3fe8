package types

import "fmt"

// SQLSTATE codes raised by this package. They are PostgreSQL's codes from
// errcodes.txt; the names follow PostgreSQL's condition names.
const (
	CodeInvalidTextRepresentation = "22P02" // invalid_text_representation
	CodeNumericValueOutOfRange    = "22003" // numeric_value_out_of_range
	CodeDatetimeFieldOverflow     = "22008" // datetime_field_overflow
	CodeInvalidDatetimeFormat     = "22007" // invalid_datetime_format
	CodeIntervalFieldOverflow     = "22015" // interval_field_overflow
	CodeInvalidTimeZoneDisp       = "22009" // invalid_time_zone_displacement_value
	CodeStringDataRightTrunc      = "22001" // string_data_right_truncation
	CodeInvalidParameterValue     = "22023" // invalid_parameter_value
	CodeUntranslatableCharacter   = "22P05" // untranslatable_character
	CodeInvalidBinaryRepresent    = "22P03" // invalid_binary_representation
	CodeArraySubscriptError       = "2202E" // array_subscript_error
	CodeProgramLimitExceeded      = "54000" // program_limit_exceeded
	CodeInternalError             = "XX000" // internal_error
	CodeDataException             = "22000" // data_exception
	CodeProtocolViolation         = "08P01" // protocol_violation
	CodeSyntaxError               = "42601" // syntax_error
	CodeNullValueNotAllowed       = "22004" // null_value_not_allowed
)

// Error is a PostgreSQL error raised by a type's input or receive function.
// Its fields are those of an ErrorResponse that the wire layer sends as is.
type Error struct {
	Code    string // SQLSTATE
	Message string // primary message, PostgreSQL's wording
	Detail  string // DETAIL line, or ""
	Hint    string // HINT line, or ""
	Where   string // CONTEXT line, or ""
}

// Error returns the primary message.
func (e *Error) Error() string { return e.Message }

// SQLState returns the SQLSTATE code, so that callers can find it through an
// interface without importing this package.
func (e *Error) SQLState() string { return e.Code }

func newError(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// errSyntax is PostgreSQL's `invalid input syntax for type T: "s"`.
func errSyntax(typ, s string) *Error {
	return &Error{Code: CodeInvalidTextRepresentation,
		Message: fmt.Sprintf("invalid input syntax for type %s: \"%s\"", typ, s)}
}

// errOutOfRange is PostgreSQL's `value "s" is out of range for type T`.
func errOutOfRange(typ, s string) *Error {
	return &Error{Code: CodeNumericValueOutOfRange,
		Message: fmt.Sprintf("value \"%s\" is out of range for type %s", s, typ)}
}

// errBinary reports malformed binary input: PostgreSQL's receive functions
// raise "insufficient data left in message" / "incorrect binary data format".
func errBinary(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidBinaryRepresent, Message: fmt.Sprintf(format, args...)}
}

var errInsufficientData = &Error{Code: CodeProtocolViolation, Message: "insufficient data left in message"}
var errExtraData = &Error{Code: CodeInvalidBinaryRepresent, Message: "incorrect binary data format"}
