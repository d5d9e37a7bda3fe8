package regress

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
	"github.com/jackc/pgx/v5"

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
