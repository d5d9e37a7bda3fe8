package pgerr

// SQLSTATEs of PL/pgSQL and of routines (PostgreSQL's errcodes.txt).
const (
	RaiseException                Code = "P0001"
	NoDataFound                   Code = "P0002"
	TooManyRows                   Code = "P0003"
	AssertFailure                 Code = "P0004"
	CaseNotFound                  Code = "20000"
	StatementTooComplex           Code = "54001"
	ErrorInAssignment             Code = "22005"
	ObjectNotInPrerequisiteState  Code = "55000"
	InvalidTransactionTermination Code = "2D000"
	TriggerProtocolViolated       Code = "39P01"
	TriggeredDataChangeViolation  Code = "27000"
	FunctionNoReturn              Code = "2F005" // function_executed_no_return_statement
)

// DuplicateFunction is 42723.
const DuplicateFunction Code = "42723"
