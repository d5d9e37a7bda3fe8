package protodiff

// Type OIDs of the parameters and results the vocabulary uses.
const (
	oidBool      = 16
	oidInt8      = 20
	oidInt4      = 23
	oidText      = 25
	oidVarchar   = 1043
	oidTextArray = 1009
)

// A template is a statement of the vocabulary. "%d" in sql is replaced
// by a key drawn from keyRange, so that inserts collide, updates and
// deletes sometimes hit and sometimes miss.
type template struct {
	sql    string
	params []uint32 // the type PostgreSQL infers for each parameter $1, $2, ...
	cols   int      // result columns, for per-column result formats
	// known names the KnownDiff that keeps the generator away from
	// this statement; "" for none.
	known string
	// begins and ends mark the statements that open a transaction block
	// and those that end one (see generator.query).
	begins, ends bool
	// returning marks a data-modifying statement with RETURNING (see
	// generator.rowLimit).
	returning bool
}

// keyRange bounds the keys the vocabulary writes: small, so that
// duplicates and hits are frequent.
const keyRange = 8

// The vocabulary, by role. Every read has an ORDER BY (or returns at most
// one row): the servers store rows in different physical orders, and an
// unordered result would be a difference of no interest.
var (
	reads = []template{
		{sql: "SELECT id, v FROM t ORDER BY id", cols: 2},
		{sql: "SELECT id, v FROM t WHERE id = $1", params: []uint32{oidInt4}, cols: 2},
		{sql: "SELECT id FROM t WHERE v = $1 ORDER BY id", params: []uint32{oidText}, cols: 1},
		{sql: "SELECT count(*) FROM t WHERE id > $1", params: []uint32{oidInt4}, cols: 1},
		{sql: "SELECT id::int8 AS big, v, id > 2 AS gt FROM t ORDER BY id", cols: 3},
		{sql: "SELECT a, b FROM u ORDER BY a, b", cols: 2},
		{sql: "SELECT g FROM generate_series(1, 5) AS g", cols: 1},
		{sql: "SELECT $1::int4 + 1 AS n", params: []uint32{oidInt4}, cols: 1},
		{sql: "SELECT $1::text AS s, $2::bool AS b, $3::int8 AS n", params: []uint32{oidText, oidBool, oidInt8}, cols: 3},
		{sql: "SELECT $1 AS x", params: []uint32{oidText}, cols: 1},
		{sql: "SELECT $1::int4 / $2::int4 AS q", params: []uint32{oidInt4, oidInt4}, cols: 1, known: knownConstantFolding},
		{sql: "SELECT true AS t, false AS f, NULL::int AS n, 'x'::text AS s, 12345678901::int8 AS b, ARRAY['a', NULL] AS a", cols: 6},
		{sql: "SELECT 1", cols: 1},
		{sql: "VALUES (1, 'one'), (2, 'two')", cols: 2},
	}
	writes = []template{
		{sql: "INSERT INTO t VALUES (%d, 'w')"},
		{sql: "INSERT INTO t VALUES ($1, $2)", params: []uint32{oidInt4, oidText}},
		{sql: "INSERT INTO t VALUES ($1, $2) RETURNING id, v", params: []uint32{oidInt4, oidText}, cols: 2, returning: true},
		{sql: "INSERT INTO t VALUES (%d, 'r') RETURNING *", cols: 2, returning: true},
		{sql: "UPDATE t SET v = $2 WHERE id = $1", params: []uint32{oidInt4, oidText}},
		{sql: "UPDATE t SET v = v || '+' WHERE id = %d"},
		{sql: "DELETE FROM t WHERE id = %d"},
		{sql: "DELETE FROM t WHERE id = $1 RETURNING v", params: []uint32{oidInt4}, cols: 1, returning: true},
		{sql: "INSERT INTO u VALUES (%d, ARRAY['x', NULL])"},
		{sql: "INSERT INTO u VALUES ($1, $2)", params: []uint32{oidInt4, oidTextArray}},
		{sql: "DELETE FROM u WHERE a = %d"},
		{sql: "INSERT INTO t SELECT g + 10, 'g' FROM generate_series(1, 3) AS g ON CONFLICT (id) DO NOTHING"},
	}
	failing = []template{
		{sql: "SELECT * FROM nosuch", cols: 1},                                   // 42P01
		{sql: "SELECT nosuch FROM t", cols: 1},                                   // 42703
		{sql: "SELEC 1"},                                                         // 42601
		{sql: "SELECT 1/0", cols: 1, known: knownConstantFolding},                // 22012 when planned
		{sql: "SELECT id / 0 FROM t WHERE id = 1", cols: 1},                      // 22012 if the row is there
		{sql: "INSERT INTO t VALUES (1, 'dup')"},                                 // 23505 unless deleted
		{sql: "SELECT 'abc'::int", cols: 1},                                      // 22P02
		{sql: "INSERT INTO t VALUES (NULL, 'n')"},                                // 23502
		{sql: "SELECT g, 10 / (g - 3) FROM generate_series(1, 5) AS g", cols: 2}, // 22012 after two rows
		{sql: "UPDATE t SET id = 1 WHERE id = %d"},                               // 23505 unless no such row
		{sql: "INSERT INTO nosuch VALUES ($1)", params: []uint32{oidInt4}},       // 42P01 at Parse
	}
	txns = []template{
		{sql: "BEGIN", begins: true},
		{sql: "START TRANSACTION ISOLATION LEVEL REPEATABLE READ", begins: true, known: knownIsolationAfterQuery},
		{sql: "BEGIN ISOLATION LEVEL REPEATABLE READ", begins: true, known: knownIsolationAfterQuery},
		{sql: "BEGIN READ ONLY", begins: true},
		{sql: "COMMIT", ends: true},
		{sql: "END", ends: true},
		{sql: "ROLLBACK", ends: true},
		{sql: "ABORT", ends: true},
		{sql: "SAVEPOINT a"},
		{sql: "SAVEPOINT b"},
		{sql: "ROLLBACK TO SAVEPOINT a"},
		{sql: "ROLLBACK TO b"},
		{sql: "RELEASE SAVEPOINT a"},
		{sql: "RELEASE b"},
		{sql: "COMMIT AND CHAIN", ends: true, known: knownCommitAndChain},
		{sql: "PREPARE TRANSACTION 'px'", ends: true, known: knownPrepareTransaction},
	}
	misc = []template{
		{sql: ""},
		{sql: ";"},
		{sql: "SET application_name = 'pd'"},
		{sql: "SHOW application_name", cols: 1},
	}
)

// copyIn describes a COPY ... FROM STDIN of the vocabulary and how to
// make its data.
type copyIn struct {
	sql   string
	table byte // 't' or 'u'
	csv   bool
	swap  bool   // columns listed as (v, id)
	known string // as in template
}

var copyIns = []copyIn{
	{sql: "COPY t FROM STDIN", table: 't'},
	{sql: "COPY t (v, id) FROM STDIN", table: 't', swap: true},
	{sql: "COPY t FROM STDIN (FORMAT csv)", table: 't', csv: true},
	{sql: "COPY u FROM STDIN", table: 'u'},
	{sql: "COPY nosuch FROM STDIN", table: 't', known: knownUtilityAnalyzedAtParse},
}

// copyOuts are the COPY ... TO STDOUT statements of the vocabulary; each
// copies a query with ORDER BY, not a table, for the reason given above.
var copyOuts = []template{
	{sql: "COPY (SELECT id, v FROM t ORDER BY id) TO STDOUT"},
	{sql: "COPY (SELECT a, b FROM u ORDER BY a, b) TO STDOUT"},
	{sql: "COPY (SELECT id, v FROM t ORDER BY id) TO STDOUT (FORMAT csv, HEADER)"},
	{sql: "COPY (SELECT id, v, id > 2 AS gt FROM t ORDER BY id) TO STDOUT (FORMAT binary)"},
	{sql: "COPY nosuch TO STDOUT", known: knownUtilityAnalyzedAtParse},
}
