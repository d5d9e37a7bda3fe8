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
	knownSimpleQueryParameter   = "simple-query-parameter"
	knownConstantFolding        = "constant-folding"
	knownCopyUniqueDeferred     = "copy-unique-check-deferred"
	knownUtilityAnalyzedAtParse = "utility-analyzed-at-parse"
	knownIsolationAfterQuery    = "isolation-level-after-query"
	knownSuspendedWriteVisible  = "suspended-write-visible"
)

// KnownDiffs lists every known engine difference.
var KnownDiffs = []KnownDiff{
	{knownCommitAndChain, `COMMIT AND CHAIN chains now, but two things still differ: the portals of the
ended transaction survive the chain (a Bind of their name fails with 42P03 where PostgreSQL has dropped
them), and a failed READ ONLY block chained with COMMIT AND CHAIN stays read-only where PostgreSQL's
next transaction accepts writes.
	Query "BEGIN READ ONLY"; Sync
	Query "INSERT INTO t VALUES (1, 'dup')"
	Parse "s1" "COMMIT AND CHAIN"; Bind; Execute; Sync
	Query "DELETE FROM t WHERE id = 4"     (PostgreSQL DELETE 0, ours 25006)`},
	{knownPrepareTransaction, `PREPARE TRANSACTION is refused with 0A000 "transaction statement TRANS_STMT_PREPARE is not
supported yet"; PostgreSQL (max_prepared_transactions = 0) answers WARNING 25P01 and ROLLBACK outside a
block, ERROR 55000 "prepared transactions are disabled" inside one, and ROLLBACK (rolling it back)
in a failed one, where ours refuses it with 25P02.
	Query "BEGIN"
	Query "PREPARE TRANSACTION 'px'"`},
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
