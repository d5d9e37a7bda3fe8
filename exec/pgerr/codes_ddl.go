package pgerr

// SQLSTATEs of DDL errors (PostgreSQL's errcodes.txt).
const (
	InvalidName                    Code = "42602"
	InvalidColumnDefinition        Code = "42611"
	InvalidObjectDefinition        Code = "42P17"
	DependentObjectsStillExist     Code = "2BP01"
	GeneratedAlways                Code = "428C9"
	SequenceGeneratorLimitExceeded Code = "2200H"
	InvalidForeignKey              Code = "42830"
)
