package wire

// SQLSTATE codes that the wire layer itself reports. They are PostgreSQL's
// (src/backend/utils/errcodes.txt); an engine reports its own codes through
// the error it returns (see Error and FieldsError).
//
// These belong in the project's shared SQLSTATE package once it exists; until
// then they are plain strings so that nothing above or below wire has to
// import wire to compare them.
const (
	CodeSuccessfulCompletion         = "00000"
	CodeWarning                      = "01000"
	CodeConnectionException          = "08000"
	CodeProtocolViolation            = "08P01"
	CodeFeatureNotSupported          = "0A000"
	CodeInvalidParameterValue        = "22023"
	CodeInvalidTransactionState      = "25000"
	CodeInFailedSQLTransaction       = "25P02"
	CodeInvalidSQLStatementName      = "26000"
	CodeInvalidAuthorizationSpec     = "28000"
	CodeInvalidPassword              = "28P01"
	CodeInvalidCursorName            = "34000"
	CodeSyntaxError                  = "42601"
	CodeDuplicateCursor              = "42P03"
	CodeDuplicatePreparedStatement   = "42P05"
	CodeProgramLimitExceeded         = "54000"
	CodeObjectNotInPrerequisiteState = "55000"
	CodeTooManyConnections           = "53300"
	CodeIdleInTransactionTimeout     = "25P03"
	CodeQueryCanceled                = "57014"
	CodeAdminShutdown                = "57P01"
	CodeInternalError                = "XX000"
	CodeInvalidCatalogName           = "3D000"
	CodeCannotConnectNow             = "57P03"
	CodeConfigurationLimitExceeded   = "53400"
	CodeInvalidTransactionInitiation = "0B000"
)

// Severities of ErrorResponse and NoticeResponse, as PostgreSQL spells them
// (the non-localized 'V' field carries the same words).
const (
	SeverityError   = "ERROR"
	SeverityFatal   = "FATAL"
	SeverityPanic   = "PANIC"
	SeverityWarning = "WARNING"
	SeverityNotice  = "NOTICE"
	SeverityDebug   = "DEBUG"
	SeverityInfo    = "INFO"
	SeverityLog     = "LOG"
)

// Field codes of ErrorResponse and NoticeResponse, as the protocol defines
// them. An engine's FieldsError passes these bytes to its add callback.
const (
	FieldSeverity         byte = 'S'
	FieldSeverityV        byte = 'V'
	FieldCode             byte = 'C'
	FieldMessage          byte = 'M'
	FieldDetail           byte = 'D'
	FieldHint             byte = 'H'
	FieldPosition         byte = 'P'
	FieldInternalPosition byte = 'p'
	FieldInternalQuery    byte = 'q'
	FieldWhere            byte = 'W'
	FieldSchema           byte = 's'
	FieldTable            byte = 't'
	FieldColumn           byte = 'c'
	FieldDataType         byte = 'd'
	FieldConstraint       byte = 'n'
	FieldFile             byte = 'F'
	FieldLine             byte = 'L'
	FieldRoutine          byte = 'R'
)
