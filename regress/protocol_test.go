package regress

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/prollypg/prollypg/regress/internal/protodiff"
	"github.com/prollypg/prollypg/regress/internal/testserver"
)

// TestErrorDoesNotLeakIntoNextBatch is the data loss that node-postgres
// and the ORMs on it met: a simple query fails, and the next statement,
// sent with bind parameters (extended protocol), was acknowledged and then
// rolled back at its Sync, because the failure of the first batch was
// still recorded. Inside a transaction block the same leak failed the
// block without an error message. Both protocols, both orders.
func TestErrorDoesNotLeakIntoNextBatch(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE lossy (id int PRIMARY KEY)")

	simple := pgx.QueryExecModeSimpleProtocol
	extended := pgx.QueryExecModeExec
	modes := []struct {
		name        string
		fail, write pgx.QueryExecMode
		id          int
	}{
		{"simple error, extended insert", simple, extended, 1},
		{"extended error, simple insert", extended, simple, 2},
		{"extended error, extended insert", extended, extended, 3},
		{"simple error, simple insert", simple, simple, 4},
	}
	for _, m := range modes {
		wantError(t, ctx, c, "42P01", "SELECT * FROM no_such_table", m.fail)
		var got int
		if err := c.QueryRow(ctx, "INSERT INTO lossy VALUES ($1) RETURNING id", m.write, m.id).Scan(&got); err != nil || got != m.id {
			t.Fatalf("%s: insert: %v (got %d)", m.name, err, got)
		}
		if n := one(t, ctx, c, "SELECT count(*) FROM lossy WHERE id = $1", m.id); n != "1" {
			t.Errorf("%s: the acknowledged insert is gone (count %s)", m.name, n)
		}

		// In a transaction block: the error ends one block; the next
		// block must be healthy and its insert must commit.
		exec(t, ctx, c, "BEGIN")
		wantError(t, ctx, c, "42P01", "SELECT * FROM no_such_table", m.fail)
		exec(t, ctx, c, "ROLLBACK")
		tx, err := c.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO lossy VALUES ($1)", m.write, m.id+10); err != nil {
			t.Fatalf("%s: insert in block: %v", m.name, err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatalf("%s: commit: %v", m.name, err)
		}
		if n := one(t, ctx, c, "SELECT count(*) FROM lossy WHERE id = $1", m.id+10); n != "1" {
			t.Errorf("%s: the committed insert is gone (count %s)", m.name, n)
		}
	}
	// A second connection sees every acknowledged row.
	c2 := connect(t, ctx, srv.DSN("postgres"))
	wantRows(t, ctx, c2, "SELECT id FROM lossy ORDER BY id", "1", "2", "3", "4", "11", "12", "13", "14")
}

// TestUnknownParamInference: parameters declared with type OID 0 (what
// psycopg 3 sends for str and None, and node-postgres for everything) take
// their type from the context, as in PostgreSQL. The expected types were
// taken from PostgreSQL 15's ParameterDescription for the same statements.
func TestUnknownParamInference(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE pd (id int PRIMARY KEY, t text, a text[], n numeric, ts timestamptz, b bool, j jsonb)")
	cases := []struct {
		sql  string
		want []uint32
	}{
		{"select 'a'::text || $1", []uint32{25}},
		{"select $1, $2::text", []uint32{25, 25}},
		{"select $1::int", []uint32{23}},
		{"insert into pd values ($1, $2, $3, $4, $5, $6, $7)", []uint32{23, 25, 1009, 1700, 1184, 16, 3802}},
		{"select id from pd where t = $1 and id > $2", []uint32{25, 23}},
		{"select upper($1), length($2)", []uint32{25, 25}},
		{"select $1 + 1", []uint32{23}},
		{"select coalesce($1, 5)", []uint32{23}},
		{"update pd set n = $1 where ts < $2", []uint32{1700, 1184}},
		{"select * from pd where id in ($1, $2)", []uint32{23, 23}},
		{"select * from pd limit $1 offset $2", []uint32{20, 20}},
		{"select j->>$1 from pd", []uint32{25}},
		{"select now() - $1", []uint32{1184}},
		{"delete from pd where $1", []uint32{16}},
		{"insert into pd (id) select $1", []uint32{23}},
		{"select nullif($1, 3)", []uint32{23}},
		{"select greatest($1, 2)", []uint32{23}},
	}
	pc := c.PgConn()
	for _, tc := range cases {
		sd, err := pc.Prepare(ctx, "", tc.sql, make([]uint32, len(tc.want)))
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if !slices.Equal(sd.ParamOIDs, tc.want) {
			t.Errorf("%s: parameter types %v, want %v", tc.sql, sd.ParamOIDs, tc.want)
		}
	}

	// One parameter cannot take two types: PostgreSQL refuses it, and
	// ours once decoded it as one type and read it as the other.
	if _, err := pc.Prepare(ctx, "", "insert into pd (id, t) values ($1, 'v' || $1)", []uint32{0}); sqlstate(err) != "42P08" {
		t.Errorf("a parameter of two types: %v, want 42P08", err)
	}

	// Values sent as text with OID 0, NULL among them, are decoded as the
	// inferred types.
	unknown := func(sql string, args ...[]byte) []string {
		t.Helper()
		res := pc.ExecParams(ctx, sql, args, make([]uint32, len(args)), nil, nil).Read()
		if res.Err != nil {
			t.Fatalf("%s: %v", sql, res.Err)
		}
		var out []string
		for _, row := range res.Rows {
			var vals []string
			for _, v := range row {
				if v == nil {
					vals = append(vals, "NULL")
				} else {
					vals = append(vals, string(v))
				}
			}
			out = append(out, strings.Join(vals, " | "))
		}
		return out
	}
	unknown("insert into pd values ($1, $2, $3, $4, $5, $6, $7)",
		[]byte("1"), []byte("x"), []byte(`{a,"b c"}`), []byte("1.50"), []byte("2026-01-02 03:04:05+00"), []byte("t"), []byte(`{"k": 1}`))
	unknown("insert into pd values ($1, $2, $3, $4, $5, $6, $7)", []byte("2"), nil, nil, nil, nil, nil, nil)
	if got := unknown("select 'a'::text || $1, $2::int + 1, $3::text", []byte("b"), []byte("41"), nil); !slices.Equal(got, []string{"ab | 42 | NULL"}) {
		t.Errorf("casts: %q", got)
	}
	if got := unknown("select id, a[2], j->>$2 from pd where t = $1 or id = $3 order by id", []byte("x"), []byte("k"), []byte("2")); !slices.Equal(got, []string{"1 | b c | 1", "2 | NULL | NULL"}) {
		t.Errorf("where: %q", got)
	}
}

// TestErrorObjectFields: constraint violations name their schema, table,
// column and constraint in the ErrorResponse, as PostgreSQL 15 does
// (values checked against it).
func TestErrorObjectFields(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE par (id int PRIMARY KEY)")
	exec(t, ctx, c, "CREATE TABLE kid (id int PRIMARY KEY, p int REFERENCES par, n int NOT NULL, CONSTRAINT pos CHECK (n > 0))")
	exec(t, ctx, c, "INSERT INTO par VALUES (1)")
	exec(t, ctx, c, "INSERT INTO kid VALUES (1, 1, 1)")
	cases := []struct {
		sql, want string
	}{
		{"INSERT INTO kid VALUES (1, 1, 1)", "23505 public kid  kid_pkey"},
		{"INSERT INTO kid VALUES (2, 1, NULL)", "23502 public kid n "},
		{"INSERT INTO kid VALUES (2, 1, -1)", "23514 public kid  pos"},
		{"INSERT INTO kid VALUES (2, 7, 1)", "23503 public kid  kid_p_fkey"},
		{"DELETE FROM par", "23503 public kid  kid_p_fkey"},
	}
	for _, tc := range cases {
		_, err := c.Exec(ctx, tc.sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		got := strings.Join([]string{pe.Code, pe.SchemaName, pe.TableName, pe.ColumnName, pe.ConstraintName}, " ")
		if got != tc.want {
			t.Errorf("%s: fields %q, want %q", tc.sql, got, tc.want)
		}
	}
}

// TestProtocolAnswersAsPostgres replays the minimal sequences of the
// differences that the protocol differential tester
// (regress/internal/protodiff) found in the protocol layer, fixed since,
// and checks every answer (message kind, SQLSTATE, tag, row, status; the
// wording of errors only where a case gives it, after " | "). The expected answers are PostgreSQL 15's; when
// it is installed the test checks that they still are.
func TestProtocolAnswersAsPostgres(t *testing.T) {
	type (
		Q  = pgproto3.Query
		P  = pgproto3.Parse
		B  = pgproto3.Bind
		D  = pgproto3.Describe
		E  = pgproto3.Execute
		S  = pgproto3.Sync
		CD = pgproto3.CopyData
	)
	type step struct {
		msgs []pgproto3.FrontendMessage
		want []string
	}
	m := func(msgs ...pgproto3.FrontendMessage) []pgproto3.FrontendMessage { return msgs }
	const aborted = "ErrorResponse ERROR 25P02"
	cases := []struct {
		name  string
		steps []step
	}{
		{"an INSERT ... RETURNING that fails is not described", []step{
			{m(&Q{String: "INSERT INTO pa VALUES (1) RETURNING a"}), []string{"ErrorResponse ERROR 23505", "ReadyForQuery I"}},
			{m(&Q{String: "DELETE FROM pa WHERE a = 7 RETURNING a"}), []string{
				`RowDescription "a":table.1 type=23 len=4 mod=-1 fmt=0`, "CommandComplete DELETE 0", "ReadyForQuery I"}},
		}},
		{"binary COPY TO sends its header with the first row", []step{
			{m(&Q{String: "COPY (SELECT a FROM pa ORDER BY a) TO STDOUT (FORMAT binary)"}), []string{
				"CopyOutResponse 1 [1]",
				`CopyData "PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x04\x00\x00\x00\x01"`,
				`CopyData "\xff\xff"`, "CopyDone", "CommandComplete COPY 1", "ReadyForQuery I"}},
			{m(&Q{String: "COPY (SELECT a FROM pa WHERE false) TO STDOUT (FORMAT binary)"}), []string{
				"CopyOutResponse 1 [1]",
				`CopyData "PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff"`,
				"CopyDone", "CommandComplete COPY 0", "ReadyForQuery I"}},
		}},
		{"RowDescription has the catalog's type lengths", []step{
			{m(&P{Query: "SELECT pg_sleep(0) AS v, 'int4'::regtype AS t"}, &D{ObjectType: 'S'}, &S{}), []string{
				"ParseComplete", "ParameterDescription []",
				`RowDescription "v":-.0 type=2278 len=4 mod=-1 fmt=0, "t":-.0 type=2206 len=4 mod=-1 fmt=0`, "ReadyForQuery I"}},
		}},
		{"a parameter type 0 is inferred", []step{
			{m(&P{Query: "SELECT $1::int4 + $2 AS n", ParameterOIDs: []uint32{0, 0}}, &D{ObjectType: 'S'}, &S{}), []string{
				"ParseComplete", "ParameterDescription [23 23]", `RowDescription "n":-.0 type=23 len=4 mod=-1 fmt=0`, "ReadyForQuery I"}},
		}},
		{"COPY FROM reads on to CopyDone after the end marker", []step{
			{m(&Q{String: "COPY pa (a) FROM STDIN"}, &CD{Data: []byte("5\n\\.\n")}, &CD{Data: []byte("junk")}, &pgproto3.CopyFail{Message: "no"}),
				[]string{"CopyInResponse 0 [0]", "ErrorResponse ERROR 57014", "ReadyForQuery I"}},
			{m(&Q{String: "COPY pa (a) FROM STDIN"}, &CD{Data: []byte("5\n\\.\n")}, &S{}, &CD{Data: []byte("junk")}, &pgproto3.CopyDone{}),
				[]string{"CopyInResponse 0 [0]", "CommandComplete COPY 1", "ReadyForQuery I"}},
		}},
		{"after a failed COPY FROM the client's Sync is answered", []step{
			{m(&Q{String: "COPY pa (a) FROM STDIN"}, &CD{Data: []byte("x\n")}),
				[]string{"CopyInResponse 0 [0]", "ErrorResponse ERROR 22P02", "ReadyForQuery I"}},
			{m(&S{}, &pgproto3.CopyDone{}), []string{"ReadyForQuery I"}},
		}},
		{"the parameters of an empty statement are decoded", []step{
			{m(&P{ParameterOIDs: []uint32{23}}, &B{Parameters: [][]byte{[]byte("1.5")}}, &S{}),
				[]string{"ParseComplete", "ErrorResponse ERROR 22P02", "ReadyForQuery I"}},
		}},
		{"binary data left over is worded with the parameter's number", []step{
			{m(&P{Query: "SELECT $1::int4 AS n", ParameterOIDs: []uint32{23}},
				&B{ParameterFormatCodes: []int16{1}, Parameters: [][]byte{{0, 0, 0, 0, 0, 0, 0, 1}}}, &S{}),
				[]string{"ParseComplete", "ErrorResponse ERROR 22P03 | incorrect binary data format in bind parameter 1", "ReadyForQuery I"}},
			{m(&P{Query: ";", ParameterOIDs: []uint32{23}},
				&B{ParameterFormatCodes: []int16{1}, Parameters: [][]byte{{0, 0, 0, 0, 0, 0, 0, 4}}}, &S{}),
				[]string{"ParseComplete", "ErrorResponse ERROR 22P03 | incorrect binary data format in bind parameter 1", "ReadyForQuery I"}},
		}},
		{"a failed block refuses all but its end at Parse and Bind", []step{
			{m(&P{Name: "s", Query: "SELECT 1"}, &S{}), []string{"ParseComplete", "ReadyForQuery I"}},
			{m(&Q{String: "BEGIN; SELECT 1 / (a - a) FROM pa"}), []string{"CommandComplete BEGIN",
				`RowDescription "?column?":-.0 type=23 len=4 mod=-1 fmt=0`, "ErrorResponse ERROR 22012", "ReadyForQuery E"}},
			{m(&P{Query: "SAVEPOINT x"}, &S{}), []string{aborted, "ReadyForQuery E"}},
			{m(&B{DestinationPortal: "p", PreparedStatement: "s"}, &S{}), []string{aborted, "ReadyForQuery E"}},
			{m(&P{Query: "ROLLBACK"}, &B{}, &E{}, &S{}), []string{"ParseComplete", "BindComplete", "CommandComplete ROLLBACK", "ReadyForQuery I"}},
		}},
	}
	servers := []struct{ name, addr string }{{"ours", testserver.Start(t).Addr()}}
	if testing.Short() {
		t.Log("short: PostgreSQL not checked")
	} else if err := testserver.CanStartPostgres(); err != nil {
		t.Logf("PostgreSQL not checked: %v", err)
	} else {
		servers = append(servers, struct{ name, addr string }{"postgres", testserver.StartPostgres(t).Addr()})
	}
	for _, srv := range servers {
		for _, c := range cases {
			conn, err := protodiff.Dial(srv.addr, "postgres", 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			for _, sql := range []string{"DROP TABLE IF EXISTS pa", "CREATE TABLE pa (a int PRIMARY KEY)", "INSERT INTO pa VALUES (1)"} {
				if _, err := conn.Exec(sql); err != nil {
					t.Fatal(err)
				}
			}
			for i, st := range c.steps {
				var got []string
				for i, r := range conn.Exchange(st.msgs) {
					if i < len(st.want) && strings.Contains(st.want[i], " | ") {
						got = append(got, r.String()) // the wording is checked too
					} else {
						got = append(got, strings.TrimSpace(r.Kind+" "+r.Body))
					}
				}
				if !slices.Equal(got, st.want) {
					t.Errorf("%s: %s, step %d:\n got %q\nwant %q", srv.name, c.name, i+1, got, st.want)
				}
			}
			conn.Close()
		}
	}
}

// TestSimpleQueryShapes runs queries that differ only in their literals
// through the simple protocol, where the session reuses the parse tree of
// the first ones (planner/parsecache): each must still see its own
// values, also after a statement of the shape failed, and in a block that
// a failure left with its statement's portal.
func TestSimpleQueryShapes(t *testing.T) {
	ctx := testserver.Context(t)
	srv := testserver.Start(t)
	c := connect(t, ctx, srv.DSN("postgres"))
	exec(t, ctx, c, "CREATE TABLE shapes (id int PRIMARY KEY, s text, n numeric)")
	for i := 1; i <= 40; i++ {
		exec(t, ctx, c, fmt.Sprintf("INSERT INTO shapes VALUES (%d, 's''%d', %d.5)", i, i, -i))
	}
	for i := 1; i <= 40; i++ {
		want := fmt.Sprintf("s'%d %d.5 %d", i, -i, -i-1)
		if got := one(t, ctx, c, fmt.Sprintf("SELECT s || ' ' || n || ' ' || -%d - 1 FROM shapes WHERE id = %d", i, i)); got != want {
			t.Fatalf("query %d: got %q, want %q", i, got, want)
		}
	}
	for i := 0; i < 3; i++ {
		wantError(t, ctx, c, "22012", "SELECT 7 / 0")
		if got := one(t, ctx, c, "SELECT 7 / 1"); got != "7" {
			t.Fatalf("after a failed query of the shape: got %q", got)
		}
	}
	exec(t, ctx, c, "BEGIN")
	wantError(t, ctx, c, "22012", "SELECT 8 / 0")
	wantError(t, ctx, c, "25P02", "SELECT 8 / 2")
	exec(t, ctx, c, "ROLLBACK")
	if got := one(t, ctx, c, "SELECT 8 / 4"); got != "2" {
		t.Fatalf("after a failed block: got %q", got)
	}
}
