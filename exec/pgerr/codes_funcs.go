package pgerr

// SQLSTATE codes raised by the built-in functions and operators, named as
// in PostgreSQL's errcodes.txt.
const (
	SubstringError               Code = "22011"
	InvalidEscapeSequence        Code = "22025"
	InvalidEscapeCharacter       Code = "22019"
	InvalidRegularExpression     Code = "2201B"
	InvalidArgumentForLog        Code = "2201E"
	InvalidArgumentForPower      Code = "2201F"
	InvalidArgumentForWidthBkt   Code = "2201G"
	TrimError                    Code = "22027"
	CharacterNotInRepertoire     Code = "22021"
	UntranslatableCharacter      Code = "22P05"
	IntervalFieldOverflow        Code = "22015"
	InvalidTimeZoneDisplacement  Code = "22009"
	InvalidPrecedingFollowing    Code = "22013"
	ArraySubscriptError          Code = "2202E"
	NullValueNotAllowedJSON      Code = "22004"
	InvalidJSONText              Code = "22032"
	InvalidTextRepresentationFmt Code = "22P02"
	ProgramLimitExceeded         Code = "54000"
	InvalidFunctionDefinition    Code = "42P13"
	IndeterminateDatatype        Code = "42P18"
	ZeroLengthCharacterString    Code = "2200F"
	InvalidCharacterValueForCast Code = "22018"
	DatetimeValueOutOfRange      Code = "22008"
	InvalidSQLJSONSubscript      Code = "22033"
	NonNumericSQLJSONItem        Code = "22036"
	SingletonSQLJSONItemRequired Code = "22038"
	SQLJSONArrayNotFound         Code = "22039"
	SQLJSONMemberNotFound        Code = "2203A"
)

// SQLSTATEs of the server's file access (lo_import, lo_export).
const (
	UndefinedFile Code = "58P01"
	IOError       Code = "58030"
	// ConfigFileError is a configuration file the server reads that is
	// missing or malformed: a text search dictionary's files.
	ConfigFileError Code = "F0000"
)
