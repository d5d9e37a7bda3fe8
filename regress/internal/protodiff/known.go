package protodiff

// A KnownDiff is a difference between our SQL engine (planner/, exec/)
// and PostgreSQL 15 that the generator steers around, so that a long run
// keeps finding new differences instead of the same one again. Each is a
// bug to fix in the engine; once fixed, its entry and the template field
// that names it go. Differences of the protocol layer (wire/) are never
// listed here: they are fixed.
type KnownDiff struct {
	Name string
	// Diff says what differs, with the minimal sequence that shows it.
	Diff string
}

// Names of the known differences, used by the templates that avoid them.
const (
	knownPrepareTransaction     = "prepare-transaction"
	knownCommitAndChain         = "commit-and-chain"
	knownStartTransactionTag    = "start-transaction-tag"
	knownSimpleQueryParameter   = "simple-query-parameter"
	knownConstantFolding        = "constant-folding"
	knownCopyUniqueDeferred     = "copy-unique-check-deferred"
	knownUtilityAnalyzedAtParse = "utility-analyzed-at-parse"
	knownSetNotTransactional    = "set-not-transactional"
	knownIsolationAfterQuery    = "isolation-level-after-query"
	knownNestedBeginReadOnly    = "nested-begin-read-only"
	knownCommitInImplicitBlock  = "commit-in-implicit-transaction"
	knownSuspendedWriteVisible  = "suspended-write-visible"
)

// KnownDiffs lists every known engine difference.
var KnownDiffs = []KnownDiff{
	{knownPrepareTransaction, `PREPARE TRANSACTION is refused with 0A000 "transaction statement TRANS_STMT_PREPARE is not
supported yet"; PostgreSQL (max_prepared_transactions = 0) answers WARNING 25P01 and ROLLBACK outside a
block, ERROR 55000 "prepared transactions are disabled" inside one, and ROLLBACK (rolling it back)
in a failed one, where ours refuses it with 25P02.
	Query "BEGIN"
	Query "PREPARE TRANSACTION 'px'"`},
	{knownCommitAndChain, `COMMIT AND CHAIN does not chain: in a block it commits and leaves the session
idle (PostgreSQL starts the next transaction at once: ReadyForQuery T); outside a block it answers
WARNING 25P01 and COMMIT where PostgreSQL fails with ERROR 25P01 "COMMIT AND CHAIN can only be used in
transaction blocks".
	Query "BEGIN"; Query "COMMIT AND CHAIN"      (PostgreSQL ReadyForQuery T, ours I)
	Query "COMMIT AND CHAIN"                     (PostgreSQL ERROR 25P01, ours WARNING 25P01)`},
	{knownStartTransactionTag, `START TRANSACTION answers the command tag BEGIN; PostgreSQL answers START TRANSACTION.
	Query "START TRANSACTION ISOLATION LEVEL REPEATABLE READ"`},
	{knownSimpleQueryParameter, `A parameter in a simple query is analyzed as if it were bound, and fails at
the bind with 08P01 "bind message supplies 0 parameters, but prepared statement requires 1"; PostgreSQL
refuses it in the analysis with 42P02 "there is no parameter $1" and its position.
	Query "SELECT $1::int4 + 1 AS n"`},
	{knownConstantFolding, `An expression of constants that fails is evaluated when the row is computed;
PostgreSQL folds it when planning, so the error comes before RowDescription in a simple query and at Bind
(not Execute) in the extended protocol. Parameters are constants there too: PostgreSQL plans with their
values at Bind (custom plans), so a cast or arithmetic of a parameter that fails fails the Bind.
	Query "SELECT 1/0"
or	Parse "" "SELECT 1/0"; Bind; Sync
or	Parse "" "SELECT $1::int4 + 1 AS n" oids=[25]; Bind params=["abc"]; Sync`},
	{knownCopyUniqueDeferred, `COPY FROM checks the unique index at each row; PostgreSQL buffers the rows
(up to 1000) and checks unique indexes when it flushes them, so a later malformed line, a NOT NULL
violation or a CopyFail is what it reports when the data also repeats a key.
	Query "COPY t FROM STDIN"; CopyData "1	x
x	y
"; CopyDone     (PostgreSQL 22P02, ours 23505)`},
	{knownUtilityAnalyzedAtParse, `A COPY is analyzed at Parse, so a missing table fails the Parse;
PostgreSQL analyzes utility statements when they run, and fails the Execute.
	Parse "" "COPY nosuch TO STDOUT"; Sync`},
	{knownSetNotTransactional, `SET is kept when its transaction rolls back (and its ParameterStatus is
sent); PostgreSQL undoes it, and reports nothing since the value did not change.
	Query "DELETE FROM t WHERE id = 5; SET application_name = 'pd'; SELECT * FROM nosuch"`},
	{knownCommitInImplicitBlock, `DATA LOSS. COMMIT (END) or ROLLBACK (ABORT) outside a transaction block,
in a simple query of several statements or in an extended-protocol batch, answers WARNING 25P01 and its
tag but does not end the implicit transaction of the statements before it: those are rolled back with it
when a later statement of the same query or batch fails (or by the ROLLBACK), and a BEGIN after it turns
them into an explicit block. PostgreSQL commits (rolls back) them there, then goes on in a new
transaction.
	Query "DELETE FROM t WHERE id = 2; END; SELECT * FROM nosuch"     (PostgreSQL keeps the DELETE)
	Query "INSERT INTO t VALUES (4, 'r'); END; ROLLBACK"              (PostgreSQL keeps the INSERT)`},
	{knownNestedBeginReadOnly, `BEGIN READ ONLY inside a transaction block answers WARNING 25001 and BEGIN
but leaves the block read-write; PostgreSQL makes it read-only.
	Query "BEGIN; BEGIN READ ONLY"
	Parse "" "INSERT INTO t VALUES ($1, $2)"; Bind params=["6" ""]; Execute; Sync   (PostgreSQL 25006)`},
	{knownSuspendedWriteVisible, `The rows that an INSERT or DELETE ... RETURNING wrote are seen by the next
statement of the transaction while its portal is suspended (Execute with a row limit); PostgreSQL
advances its command counter only when the portal completes, so the next statement does not see them
yet.
	Parse "" "INSERT INTO t VALUES (7, 'r') RETURNING *"; Bind; Execute max=1; Flush
	Query "SELECT id::int8 AS big, v, id > 2 AS gt FROM t ORDER BY id"   (PostgreSQL 3 rows, ours 4)`},
	{knownIsolationAfterQuery, `BEGIN ISOLATION LEVEL after a query of the same transaction is accepted;
PostgreSQL refuses it with 25001 "SET TRANSACTION ISOLATION LEVEL must be called before any query".
	Query "UPDATE t SET v = v || '+' WHERE id = 2; BEGIN ISOLATION LEVEL REPEATABLE READ"`},
}
