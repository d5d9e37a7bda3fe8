package wire_test

import (
	"encoding/binary"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"

	"github.com/prollypg/prollypg/wire"
	"github.com/prollypg/prollypg/wire/internal/wiretest"
)

// expect compares message summaries.
func expect(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// stillWorks checks that a fresh session on srv answers a query.
func stillWorks(t *testing.T, srv *wiretest.Server) {
	t.Helper()
	r := wiretest.Connect(t, srv.HostPort(), "u", "db")
	r.Send(&pgproto3.Query{String: "SELECT 1"})
	expect(t, r.Results(), "RowDescription ?column?:23:0", "DataRow 1", "CommandComplete SELECT 1", "Ready I")
}

func TestStartupReport(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{Parameters: map[string]string{"TimeZone": "Europe/Paris"}})
	r := wiretest.Dial(t, srv.HostPort())
	r.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters: map[string]string{"user": "alice", "application_name": "app1"}})
	got := r.UntilReady()
	if got[0] != "AuthenticationOk" || got[len(got)-2] != "BackendKeyData" || got[len(got)-1] != "Ready I" {
		t.Fatalf("startup: %q", got)
	}
	want := map[string]string{
		"server_version": "15.8", "server_encoding": "UTF8", "client_encoding": "UTF8",
		"DateStyle": "ISO, MDY", "TimeZone": "Europe/Paris", "integer_datetimes": "on",
		"standard_conforming_strings": "on", "IntervalStyle": "postgres", "is_superuser": "on",
		"session_authorization": "alice", "application_name": "app1",
	}
	for k, v := range want {
		if r.Params[k] != v {
			t.Errorf("%s = %q, want %q", k, r.Params[k], v)
		}
	}
	if r.PID == 0 {
		t.Error("no process id")
	}
}

func TestSimpleQuery(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	r := wiretest.Connect(t, srv.HostPort(), "u", "db")

	r.Send(&pgproto3.Query{String: "SELECT 1; SELECT 'a', NULL; SELECT generate_series(1,3)"})
	expect(t, r.Results(),
		"RowDescription ?column?:23:0", "DataRow 1", "CommandComplete SELECT 1",
		"RowDescription ?column?:25:0,?column?:25:0", "DataRow a,NULL", "CommandComplete SELECT 1",
		"RowDescription generate_series:23:0", "DataRow 1", "DataRow 2", "DataRow 3", "CommandComplete SELECT 3",
		"Ready I")

	// An empty query, and one of semicolons only.
	r.Send(&pgproto3.Query{String: ""})
	expect(t, r.Results(), "EmptyQueryResponse", "Ready I")
	r.Send(&pgproto3.Query{String: " ; ;"})
	expect(t, r.Results(), "EmptyQueryResponse", "Ready I")

	// An error stops the rest of the string.
	r.Send(&pgproto3.Query{String: "SELECT 1; SELECT raise('22012', 'boom'); SELECT 2"})
	expect(t, r.Results(),
		"RowDescription ?column?:23:0", "DataRow 1", "CommandComplete SELECT 1",
		"RowDescription raise:25:0", "Error ERROR 22012 boom", "Ready I")

	// A parse error sends nothing else.
	r.Send(&pgproto3.Query{String: "SELECT 1; FROB"})
	expect(t, r.Results(), `Error ERROR 42601 syntax error at or near "FROB"`, "Ready I")

	// Transaction status.
	r.Send(&pgproto3.Query{String: "BEGIN"})
	expect(t, r.Results(), "CommandComplete BEGIN", "Ready T")
	r.Send(&pgproto3.Query{String: "SELECT raise('23505', 'dup')"})
	expect(t, r.Results(), "RowDescription raise:25:0", "Error ERROR 23505 dup", "Ready E")
	r.Send(&pgproto3.Query{String: "SELECT 1"})
	expect(t, r.Results(), "Error ERROR 25P02 current transaction is aborted, commands ignored until end of transaction block", "Ready E")
	r.Send(&pgproto3.Query{String: "COMMIT"})
	expect(t, r.Results(), "CommandComplete ROLLBACK", "Ready I")

	// SET reports the new value before ReadyForQuery.
	r.Send(&pgproto3.Query{String: "SET TimeZone = 'Asia/Tokyo'; SET application_name TO x"})
	expect(t, r.UntilReady(), "CommandComplete SET", "CommandComplete SET",
		"ParameterStatus TimeZone=Asia/Tokyo", "ParameterStatus application_name=x", "Ready I")

	// Notices arrive in order with the rows.
	r.Send(&pgproto3.Query{String: "SELECT notice('hello')"})
	expect(t, r.Results(), "RowDescription notice:25:0", "Notice NOTICE 00000 hello", "DataRow ok", "CommandComplete SELECT 1", "Ready I")

	// Terminate closes the session cleanly.
	r.Send(&pgproto3.Terminate{})
	expect(t, []string{r.Receive()}, "EOF")
}

func TestErrorFields(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	r := wiretest.Connect(t, srv.HostPort(), "u", "db")
	r.Send(&pgproto3.Query{String: "SELECT raise('22012', 'division by zero')"})
	fe := pgproto3.NewFrontend(pgproto3.NewChunkReader(r.Conn), r.Conn)
	for {
		m, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := m.(*pgproto3.ErrorResponse); ok {
			if e.Severity != "ERROR" || e.SeverityUnlocalized != "ERROR" || e.Code != "22012" ||
				e.Message != "division by zero" || e.Detail != "detail of 22012" || e.Hint != "hint of 22012" ||
				e.Position != 8 || e.Routine != "wiretest" {
				t.Fatalf("error response: %+v", e)
			}
			return
		}
	}
}

func TestExtendedQuery(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	r := wiretest.Connect(t, srv.HostPort(), "u", "db")

	// Named statement, described, bound twice with text and binary formats.
	r.Send(
		&pgproto3.Parse{Name: "s1", Query: "SELECT $1::int4, $2", ParameterOIDs: []uint32{0, 25}},
		&pgproto3.Describe{ObjectType: 'S', Name: "s1"},
		&pgproto3.Bind{PreparedStatement: "s1", ParameterFormatCodes: []int16{1, 0},
			Parameters: [][]byte{{0, 0, 0, 7}, []byte("x")}, ResultFormatCodes: []int16{0}},
		&pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{},
		&pgproto3.Bind{DestinationPortal: "p1", PreparedStatement: "s1", Parameters: [][]byte{[]byte("8"), nil},
			ResultFormatCodes: []int16{1, 0}},
		&pgproto3.Describe{ObjectType: 'P', Name: "p1"},
		&pgproto3.Execute{Portal: "p1"},
		&pgproto3.Close{ObjectType: 'P', Name: "p1"},
		&pgproto3.Sync{},
	)
	expect(t, r.Results(),
		"ParseComplete", "ParameterDescription [23 25]", "RowDescription int4:23:0,?column?:25:0",
		"BindComplete", "RowDescription int4:23:0,?column?:25:0", "DataRow 7,x", "CommandComplete SELECT 1",
		"BindComplete", "RowDescription int4:23:1,?column?:25:0", "DataRow \x00\x00\x00\x08,NULL", "CommandComplete SELECT 1",
		"CloseComplete", "Ready I")

	// Execute with a row limit suspends and resumes.
	r.Send(
		&pgproto3.Parse{Query: "SELECT generate_series(1,5)"},
		&pgproto3.Bind{},
		&pgproto3.Execute{MaxRows: 2},
		&pgproto3.Execute{MaxRows: 2},
		&pgproto3.Execute{MaxRows: 2},
		&pgproto3.Sync{},
	)
	expect(t, r.Results(), "ParseComplete", "BindComplete",
		"DataRow 1", "DataRow 2", "PortalSuspended",
		"DataRow 3", "DataRow 4", "PortalSuspended",
		"DataRow 5", "CommandComplete SELECT 1", "Ready I")

	// Empty query.
	r.Send(&pgproto3.Parse{}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'S'}, &pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, r.Results(), "ParseComplete", "BindComplete", "ParameterDescription []", "NoData", "NoData",
		"EmptyQueryResponse", "Ready I")

	// A statement without rows: NoData.
	r.Send(&pgproto3.Parse{Query: "SET x = 1"}, &pgproto3.Describe{ObjectType: 'S'}, &pgproto3.Bind{},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, r.Results(), "ParseComplete", "ParameterDescription []", "NoData", "BindComplete", "CommandComplete SET", "Ready I")

	// Flush sends what is buffered without ending the batch.
	r.Send(&pgproto3.Parse{Query: "SELECT 1"}, &pgproto3.Flush{})
	expect(t, []string{r.Receive()}, "ParseComplete")
	r.Send(&pgproto3.Sync{})
	expect(t, r.Results(), "Ready I")

	// Portals die at the end of the transaction.
	r.Send(&pgproto3.Parse{Name: "s2", Query: "SELECT 1"}, &pgproto3.Bind{DestinationPortal: "p2", PreparedStatement: "s2"}, &pgproto3.Sync{},
		&pgproto3.Execute{Portal: "p2"}, &pgproto3.Sync{})
	expect(t, r.Results(), "ParseComplete", "BindComplete", "Ready I")
	expect(t, r.Results(), `Error ERROR 34000 portal "p2" does not exist`, "Ready I")

	// ... but not inside a transaction block.
	r.Send(&pgproto3.Query{String: "BEGIN"})
	r.Results()
	r.Send(&pgproto3.Bind{DestinationPortal: "p3", PreparedStatement: "s2"}, &pgproto3.Sync{},
		&pgproto3.Execute{Portal: "p3"}, &pgproto3.Sync{})
	expect(t, r.Results(), "BindComplete", "Ready T")
	expect(t, r.Results(), "DataRow 1", "CommandComplete SELECT 1", "Ready T")
}

func TestExtendedErrors(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	r := wiretest.Connect(t, srv.HostPort(), "u", "db")

	// A Parse error skips everything up to Sync.
	r.Send(&pgproto3.Parse{Query: "FROB"}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{},
		&pgproto3.Parse{Query: "SELECT 1"}, &pgproto3.Query{String: "SELECT 2"}, &pgproto3.Sync{})
	expect(t, r.Results(), `Error ERROR 42601 syntax error at or near "FROB"`, "Ready I")

	// An Execute error too.
	r.Send(&pgproto3.Parse{Query: "SELECT raise('XX001', 'bad')"}, &pgproto3.Bind{}, &pgproto3.Execute{},
		&pgproto3.Parse{Query: "SELECT 1"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{},
		&pgproto3.Parse{Query: "SELECT 3"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, r.Results(), "ParseComplete", "BindComplete", "Error ERROR XX001 bad", "Ready I")
	expect(t, r.Results(), "ParseComplete", "BindComplete", "DataRow 3", "CommandComplete SELECT 1", "Ready I")

	cases := []struct {
		msgs []pgproto3.FrontendMessage
		want []string
	}{
		{[]pgproto3.FrontendMessage{&pgproto3.Parse{Name: "a", Query: "SELECT 1"}, &pgproto3.Parse{Name: "a", Query: "SELECT 1"}, &pgproto3.Sync{}},
			[]string{"ParseComplete", `Error ERROR 42P05 prepared statement "a" already exists`, "Ready I"}},
		{[]pgproto3.FrontendMessage{&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "a"}, &pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "a"}, &pgproto3.Sync{}},
			[]string{"BindComplete", `Error ERROR 42P03 cursor "p" already exists`, "Ready I"}},
		{[]pgproto3.FrontendMessage{&pgproto3.Bind{PreparedStatement: "nope"}, &pgproto3.Sync{}},
			[]string{`Error ERROR 26000 prepared statement "nope" does not exist`, "Ready I"}},
		{[]pgproto3.FrontendMessage{&pgproto3.Describe{ObjectType: 'S', Name: "nope"}, &pgproto3.Sync{}},
			[]string{`Error ERROR 26000 prepared statement "nope" does not exist`, "Ready I"}},
		{[]pgproto3.FrontendMessage{&pgproto3.Execute{Portal: "nope"}, &pgproto3.Sync{}},
			[]string{`Error ERROR 34000 portal "nope" does not exist`, "Ready I"}},
		{[]pgproto3.FrontendMessage{&pgproto3.Describe{ObjectType: 'P', Name: "nope"}, &pgproto3.Sync{}},
			[]string{`Error ERROR 34000 portal "nope" does not exist`, "Ready I"}},
		{[]pgproto3.FrontendMessage{&pgproto3.Parse{Query: "SELECT 1; SELECT 2"}, &pgproto3.Sync{}},
			[]string{"Error ERROR 42601 cannot insert multiple commands into a prepared statement", "Ready I"}},
		{[]pgproto3.FrontendMessage{&pgproto3.Parse{Query: "SELECT $1"}, &pgproto3.Bind{}, &pgproto3.Sync{}},
			[]string{"ParseComplete", `Error ERROR 08P01 bind message supplies 0 parameters, but prepared statement "" requires 1`, "Ready I"}},
		{[]pgproto3.FrontendMessage{&pgproto3.Parse{Query: "SELECT $1, $2"}, &pgproto3.Bind{ParameterFormatCodes: []int16{0, 0, 0}, Parameters: [][]byte{nil, nil}}, &pgproto3.Sync{}},
			[]string{"ParseComplete", "Error ERROR 08P01 bind message has 3 parameter formats but 2 parameters", "Ready I"}},
		{[]pgproto3.FrontendMessage{&pgproto3.Parse{Query: "SELECT $1"}, &pgproto3.Bind{ParameterFormatCodes: []int16{7}, Parameters: [][]byte{nil}}, &pgproto3.Sync{}},
			[]string{"ParseComplete", "Error ERROR 22023 unsupported format code: 7", "Ready I"}},
		{[]pgproto3.FrontendMessage{&pgproto3.Parse{Query: "SELECT 1"}, &pgproto3.Bind{ResultFormatCodes: []int16{0, 1}}, &pgproto3.Sync{}},
			[]string{"ParseComplete", "Error ERROR 08P01 bind message has 2 result formats but query has 1 columns", "Ready I"}},
		{[]pgproto3.FrontendMessage{&pgproto3.Parse{Query: "SELECT $1::int4"}, &pgproto3.Bind{ParameterFormatCodes: []int16{1}, Parameters: [][]byte{{1}}}, &pgproto3.Sync{}},
			[]string{"ParseComplete", "Error ERROR 22P03 incorrect binary data format in bind parameter", "Ready I"}},
		{[]pgproto3.FrontendMessage{&pgproto3.Close{ObjectType: 'S', Name: "never"}, &pgproto3.Close{ObjectType: 'P', Name: "never"}, &pgproto3.Sync{}},
			[]string{"CloseComplete", "CloseComplete", "Ready I"}},
		{[]pgproto3.FrontendMessage{&pgproto3.Describe{ObjectType: 'X'}, &pgproto3.Sync{}},
			[]string{"Error ERROR 08P01 invalid DESCRIBE message subtype 88", "Ready I"}},
		{[]pgproto3.FrontendMessage{&pgproto3.FunctionCall{Function: 1}},
			[]string{"Error ERROR 0A000 fastpath function calls are not supported", "Ready I"}},
		// CopyData outside COPY is ignored.
		{[]pgproto3.FrontendMessage{&pgproto3.CopyData{Data: []byte("x")}, &pgproto3.CopyDone{}, &pgproto3.Sync{}},
			[]string{"Ready I"}},
	}
	for _, c := range cases {
		r.Send(c.msgs...)
		expect(t, r.Results(), c.want...)
	}
	// Closing a named statement frees its name.
	r.Send(&pgproto3.Close{ObjectType: 'S', Name: "a"}, &pgproto3.Parse{Name: "a", Query: "SELECT 5"},
		&pgproto3.Bind{PreparedStatement: "a"}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, r.Results(), "CloseComplete", "ParseComplete", "BindComplete", "DataRow 5", "CommandComplete SELECT 1", "Ready I")
}

func TestExtendedTransactionFailure(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	r := wiretest.Connect(t, srv.HostPort(), "u", "db")
	r.Send(&pgproto3.Query{String: "BEGIN"})
	r.Results()
	// A wire-level error inside a transaction block fails the block.
	r.Send(&pgproto3.Execute{Portal: "nope"}, &pgproto3.Sync{})
	expect(t, r.Results(), `Error ERROR 34000 portal "nope" does not exist`, "Ready E")
	r.Send(&pgproto3.Query{String: "ROLLBACK"})
	expect(t, r.Results(), "CommandComplete ROLLBACK", "Ready I")

	// An error of one batch never leaks into the next: after a failed
	// simple query, an extended batch in a new block stays healthy. (Sync
	// was once told "failed" for it, rolling back acknowledged work.)
	r.Send(&pgproto3.Query{String: "SELECT raise('42P01', 'no table')"})
	expect(t, r.Results(), "RowDescription raise:25:0", "Error ERROR 42P01 no table", "Ready I")
	r.Send(&pgproto3.Query{String: "BEGIN"})
	expect(t, r.Results(), "CommandComplete BEGIN", "Ready T")
	r.Send(&pgproto3.Parse{Query: "SELECT 1"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, r.Results(), "ParseComplete", "BindComplete", "DataRow 1", "CommandComplete SELECT 1", "Ready T")
	// Nor does an extended error leak into the next simple query's block.
	r.Send(&pgproto3.Query{String: "ROLLBACK"})
	expect(t, r.Results(), "CommandComplete ROLLBACK", "Ready I")
	r.Send(&pgproto3.Parse{Query: "SELECT raise('XX001', 'bad')"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, r.Results(), "ParseComplete", "BindComplete", "Error ERROR XX001 bad", "Ready I")
	r.Send(&pgproto3.Query{String: "BEGIN"})
	expect(t, r.Results(), "CommandComplete BEGIN", "Ready T")
	r.Send(&pgproto3.Query{String: "SELECT 1"})
	expect(t, r.Results(), "RowDescription ?column?:23:0", "DataRow 1", "CommandComplete SELECT 1", "Ready T")
}

func TestCopyRaw(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	r := wiretest.Connect(t, srv.HostPort(), "u", "db")

	r.Send(&pgproto3.Query{String: "COPY t (a, b) FROM STDIN"})
	expect(t, []string{r.Receive()}, "CopyInResponse 0")
	r.Send(&pgproto3.CopyData{Data: []byte("1\tx\n2\t")}, &pgproto3.CopyData{Data: []byte("\\N\n")}, &pgproto3.Flush{},
		&pgproto3.Sync{}, &pgproto3.CopyDone{})
	expect(t, r.Results(), "CommandComplete COPY 2", "Ready I")

	r.Send(&pgproto3.Query{String: "COPY t TO STDOUT"})
	expect(t, r.Results(), "CopyOutResponse 0", "CopyData 1\tx\n", "CopyData 2\t\\N\n", "CopyDone", "CommandComplete COPY 2", "Ready I")

	// CopyFail.
	r.Send(&pgproto3.Query{String: "COPY t FROM STDIN"})
	expect(t, []string{r.Receive()}, "CopyInResponse 0")
	r.Send(&pgproto3.CopyData{Data: []byte("3\ty\n")}, &pgproto3.CopyFail{Message: "client gave up"})
	expect(t, r.Results(), "Error ERROR 57014 COPY from stdin failed: client gave up", "Ready I")

	// An engine error during COPY: the client's remaining data is ignored.
	r.Send(&pgproto3.Query{String: "COPY t FROM STDIN BINARY"})
	expect(t, []string{r.Receive()}, "CopyInResponse 1")
	r.Send(&pgproto3.CopyData{Data: []byte("not a binary copy header")})
	expect(t, r.Results(), "Error ERROR 22P04 invalid COPY file signature", "Ready I")
	r.Send(&pgproto3.CopyData{Data: []byte("more")}, &pgproto3.CopyDone{}, &pgproto3.Query{String: "SELECT 1"})
	expect(t, r.Results(), "RowDescription ?column?:23:0", "DataRow 1", "CommandComplete SELECT 1", "Ready I")

	// COPY through the extended protocol; Sync comes after CopyDone (one
	// sent during COPY is ignored, as the protocol says).
	r.Send(&pgproto3.Parse{Query: "COPY t FROM STDIN"}, &pgproto3.Bind{}, &pgproto3.Execute{})
	expect(t, []string{r.Receive(), r.Receive()}, "ParseComplete", "BindComplete")
	expect(t, []string{r.Receive()}, "CopyInResponse 0")
	r.Send(&pgproto3.CopyData{Data: []byte("4\tz\n")}, &pgproto3.CopyDone{}, &pgproto3.Sync{})
	expect(t, r.Results(), "CommandComplete COPY 1", "Ready I")
	if got := srv.Engine.Table("t"); len(got) != 3 {
		t.Fatalf("table: %q", got)
	}

	// Another message than COPY's is a protocol violation: an ERROR, then
	// a FATAL that ends the session, as PostgreSQL 15 answers.
	r.Send(&pgproto3.Query{String: "COPY t FROM STDIN"})
	expect(t, []string{r.Receive()}, "CopyInResponse 0")
	r.Send(&pgproto3.Query{String: "SELECT 1"})
	expect(t, r.Results(), "Error ERROR 08P01 unexpected message type 0x51 during COPY from stdin",
		"Error FATAL 08P01 terminating connection because protocol synchronization was lost", "EOF")
	stillWorks(t, srv)
}

// header builds a message header.
func header(typ byte, length uint32) []byte {
	b := []byte{typ, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[1:], length)
	return b
}

func TestMalformedMessages(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{MaxMessageSize: 1 << 20})
	// A client that keeps working next to the misbehaving ones.
	good := wiretest.Connect(t, srv.HostPort(), "u", "db")
	cases := []struct {
		name  string
		bytes []byte
		want  string
	}{
		{"unknown type", header('z', 4), "Error FATAL 08P01 invalid frontend message type 122"},
		{"password after startup", append(header('p', 6), 'x', 0), "Error FATAL 08P01 invalid frontend message type 112"},
		{"length below 4", header('Q', 3), "Error FATAL 08P01 invalid message length"},
		{"negative length", header('Q', 0xffffffff), "Error FATAL 08P01 invalid message length"},
		{"over the limit", header('Q', 1<<20+5), "Error FATAL 08P01 invalid message length"},
		{"2 GiB", header('d', 0x7fffffff), "Error FATAL 08P01 invalid message length"},
		{"long control message", header('S', 20000), "Error FATAL 08P01 invalid message length"},
		{"query without NUL", append(header('Q', 7), "abc"...), "Error FATAL 08P01 invalid message format"},
		{"bind negative param length", append(header('B', 4+2+2+2+4+2),
			0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xf0, 0, 0), "Error FATAL 08P01 invalid message format"},
		{"sync with body", append(header('S', 5), 1), "Error FATAL 08P01 invalid message format"},
		{"execute short", append(header('E', 6), 0, 1), "Error FATAL 08P01 invalid message format"},
		{"parse negative count", append(header('P', 8), 0, 0, 0xff, 0xff), "Error FATAL 08P01 invalid message format"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := wiretest.Connect(t, srv.HostPort(), "u", "db")
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			r.Write(c.bytes)
			expect(t, []string{r.Receive(), r.Receive()}, c.want, "EOF")
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if d := after.TotalAlloc - before.TotalAlloc; d > 64<<20 {
				t.Errorf("allocated %d bytes for a rejected message", d)
			}
			good.Send(&pgproto3.Query{String: "SELECT 1"})
			expect(t, good.Results(), "RowDescription ?column?:23:0", "DataRow 1", "CommandComplete SELECT 1", "Ready I")
		})
	}
}

func TestLargeDeclaredLengthAllocatesLazily(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	r := wiretest.Connect(t, srv.HostPort(), "u", "db")
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	// 512 MiB declared, 10 bytes sent, then the client hangs up.
	r.Write(append(header('Q', 512<<20), "SELECT 1;\x00"...))
	time.Sleep(50 * time.Millisecond)
	r.Conn.Close()
	time.Sleep(50 * time.Millisecond)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > 16<<20 {
		t.Errorf("allocated %d bytes for a message of 10 bytes", d)
	}
	stillWorks(t, srv)
}

func TestLargeMessage(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	r := wiretest.Connect(t, srv.HostPort(), "u", "db")
	big := strings.Repeat("x", 3<<20)
	r.Send(&pgproto3.Query{String: "SELECT '" + big + "'"})
	got := r.Results()
	if len(got) != 4 || len(got[1]) != len("DataRow ")+len(big) {
		t.Fatalf("big row: %d messages", len(got))
	}
	stillWorks(t, srv)
}

func TestStartupErrors(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	addr := srv.HostPort()

	t.Run("protocol 2.0", func(t *testing.T) {
		r := wiretest.Dial(t, addr)
		r.Write([]byte{0, 0, 0, 8, 0, 2, 0, 0})
		expect(t, []string{r.Receive(), r.Receive()}, "Error FATAL 0A000 unsupported frontend protocol 2.0: server supports 3.0 to 3.0", "EOF")
	})
	t.Run("bad length", func(t *testing.T) {
		r := wiretest.Dial(t, addr)
		r.Write([]byte{0, 1, 0, 0, 0, 3, 0, 0})
		expect(t, []string{r.Receive(), r.Receive()}, "Error FATAL 08P01 invalid length of startup packet", "EOF")
	})
	t.Run("no user", func(t *testing.T) {
		r := wiretest.Dial(t, addr)
		r.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"database": "x"}})
		expect(t, []string{r.Receive(), r.Receive()}, "Error FATAL 28000 no PostgreSQL user name specified in startup packet", "EOF")
	})
	t.Run("no terminator", func(t *testing.T) {
		r := wiretest.Dial(t, addr)
		r.Write([]byte{0, 0, 0, 13, 0, 3, 0, 0, 'u', 0, 'x', 0, 'y'})
		expect(t, []string{r.Receive(), r.Receive()}, "Error FATAL 08P01 invalid startup packet layout: expected terminator as last byte", "EOF")
	})
	t.Run("unknown database", func(t *testing.T) {
		r := wiretest.Dial(t, addr)
		r.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "u", "database": "nosuchdb"}})
		expect(t, r.UntilReady(), "AuthenticationOk", `Error FATAL 3D000 database "nosuchdb" does not exist`, "EOF")
	})
	t.Run("unsupported encoding", func(t *testing.T) {
		r := wiretest.Dial(t, addr)
		r.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "u", "client_encoding": "LATIN1"}})
		expect(t, r.UntilReady(), `Error FATAL 0A000 client encoding "LATIN1" is not supported`, "EOF")
	})
	t.Run("ssl and gss refused", func(t *testing.T) {
		r := wiretest.Dial(t, addr)
		r.Send(&pgproto3.GSSEncRequest{})
		b := make([]byte, 1)
		if _, err := io.ReadFull(r.Conn, b); err != nil || b[0] != 'N' {
			t.Fatalf("GSSENCRequest: %q %v", b, err)
		}
		r.Send(&pgproto3.SSLRequest{})
		if _, err := io.ReadFull(r.Conn, b); err != nil || b[0] != 'N' {
			t.Fatalf("SSLRequest: %q %v", b, err)
		}
		r.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "u"}})
		if got := r.Results(); got[len(got)-1] != "Ready I" {
			t.Fatalf("startup after SSLRequest: %q", got)
		}
	})
	t.Run("negotiate protocol version", func(t *testing.T) {
		r := wiretest.Dial(t, addr)
		msg := (&pgproto3.StartupMessage{ProtocolVersion: 3<<16 | 2,
			Parameters: map[string]string{"user": "u", "_pq_.magic": "on"}})
		buf, _ := msg.Encode(nil)
		r.Write(buf)
		want := []byte{'v', 0, 0, 0, 23, 0, 0, 0, 0, 0, 0, 0, 1}
		want = append(want, "_pq_.magic\x00"...)
		got := make([]byte, len(want))
		if _, err := io.ReadFull(r.Conn, got); err != nil || string(got) != string(want) {
			t.Fatalf("NegotiateProtocolVersion: %q %v", got, err)
		}
		if got := r.Results(); got[len(got)-1] != "Ready I" {
			t.Fatalf("startup: %q", got)
		}
	})
	stillWorks(t, srv)
}

func TestCancelRequestRaw(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	r := wiretest.Connect(t, srv.HostPort(), "u", "db")
	r.Send(&pgproto3.Query{String: "SELECT pg_sleep(30)"})
	time.Sleep(100 * time.Millisecond) // the RowDescription is buffered until the row

	// A wrong secret cancels nothing.
	bad := wiretest.Dial(t, srv.HostPort())
	bad.Send(&pgproto3.CancelRequest{ProcessID: r.PID, SecretKey: r.Secret + 1})
	expect(t, []string{bad.Receive()}, "EOF")

	c := wiretest.Dial(t, srv.HostPort())
	c.Send(&pgproto3.CancelRequest{ProcessID: r.PID, SecretKey: r.Secret})
	expect(t, []string{c.Receive()}, "EOF")
	expect(t, r.Results(), "RowDescription pg_sleep:2278:0", "Error ERROR 57014 canceling statement due to user request", "Ready I")

	// The session goes on, and a cancel between statements is ignored.
	c = wiretest.Dial(t, srv.HostPort())
	c.Send(&pgproto3.CancelRequest{ProcessID: r.PID, SecretKey: r.Secret})
	expect(t, []string{c.Receive()}, "EOF")
	r.Send(&pgproto3.Query{String: "SELECT pg_sleep(0.01)"})
	expect(t, r.Results(), "RowDescription pg_sleep:2278:0", "DataRow ", "CommandComplete SELECT 1", "Ready I")
}

// TestPanicIsContained: a panic of the engine in a statement is that
// statement's internal error (XX000); the connection and its session go
// on, with the simple protocol and the extended one.
func TestPanicIsContained(t *testing.T) {
	e := wiretest.NewEngine()
	e.AllowPanic = true
	srv := wiretest.Start(t, wire.Config{Handler: e})
	r := wiretest.Connect(t, srv.HostPort(), "u", "db")
	r.Send(&pgproto3.Query{String: "SELECT generate_series(1,2); SELECT panic(); SELECT 1"})
	expect(t, r.Results(),
		"RowDescription generate_series:23:0", "DataRow 1", "DataRow 2", "CommandComplete SELECT 2",
		"Error ERROR XX000 internal error: wiretest: SELECT panic()", "Ready I")
	r.Send(&pgproto3.Query{String: "SELECT 1"})
	expect(t, r.Results(), "RowDescription ?column?:23:0", "DataRow 1", "CommandComplete SELECT 1", "Ready I")

	r.Send(&pgproto3.Parse{Query: "SELECT panic()"}, &pgproto3.Bind{}, &pgproto3.Execute{},
		&pgproto3.Parse{Query: "SELECT 1"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, r.Results(), "ParseComplete", "BindComplete",
		"Error ERROR XX000 internal error: wiretest: SELECT panic()", "Ready I")
	r.Send(&pgproto3.Query{String: "SELECT 1"})
	expect(t, r.Results(), "RowDescription ?column?:23:0", "DataRow 1", "CommandComplete SELECT 1", "Ready I")

	if n := srv.Logs.FilterMessage("panic in statement").Len(); n != 2 {
		t.Errorf("panic logged %d times, want 2", n)
	}
	if n := srv.Logs.FilterMessage("panic in connection").Len(); n != 0 {
		t.Errorf("the connection's recover caught %d panics", n)
	}
	if n := e.Closed.Load(); n != 0 {
		t.Errorf("%d sessions closed, want none", n)
	}
}

// The tests below pin answers that the protocol differential tester
// (regress/internal/protodiff) found to differ from PostgreSQL 15's; the
// expected messages are PostgreSQL's.

// TestErrorIsFlushed: an error is sent at once. After it the messages up to
// Sync are discarded, Flush included, so a client that sent Flush and waits
// would otherwise wait forever.
func TestErrorIsFlushed(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	r := wiretest.Connect(t, srv.HostPort(), "u", "db")
	r.Send(&pgproto3.Execute{Portal: "nope"}, &pgproto3.Flush{})
	r.Conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	expect(t, []string{r.Receive()}, `Error ERROR 34000 portal "nope" does not exist`)
	r.Send(&pgproto3.Sync{})
	expect(t, r.Results(), "Ready I")
}

// TestFormatCodesAsPostgres: parameter format codes are checked for the
// parameters sent, result format codes when a row is sent, and a statement
// without result columns takes any number of them.
func TestFormatCodesAsPostgres(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	r := wiretest.Connect(t, srv.HostPort(), "u", "db")
	r.Send(&pgproto3.Parse{Query: "SET x = 1"}, &pgproto3.Bind{ParameterFormatCodes: []int16{2}, ResultFormatCodes: []int16{0, 1, 2}},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, r.Results(), "ParseComplete", "BindComplete", "CommandComplete SET", "Ready I")
	r.Send(&pgproto3.Parse{Query: "SELECT 1"}, &pgproto3.Bind{ResultFormatCodes: []int16{2}},
		&pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, r.Results(), "ParseComplete", "BindComplete", "RowDescription ?column?:23:2",
		"Error ERROR 22023 unsupported format code: 2", "Ready I")
}

// TestPortalRunsOnce: a portal that returns rows answers "SELECT 0" once
// done, and the count of a resumed one is that of its last Execute; one
// that returns none cannot be run again.
func TestPortalRunsOnce(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	r := wiretest.Connect(t, srv.HostPort(), "u", "db")
	r.Send(&pgproto3.Parse{Query: "SELECT generate_series(1,3)"}, &pgproto3.Bind{},
		&pgproto3.Execute{MaxRows: 2}, &pgproto3.Execute{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, r.Results(), "ParseComplete", "BindComplete", "DataRow 1", "DataRow 2", "PortalSuspended",
		"DataRow 3", "CommandComplete SELECT 1", "CommandComplete SELECT 0", "Ready I")
	r.Send(&pgproto3.Parse{Query: "SET x = 1"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, r.Results(), "ParseComplete", "BindComplete", "CommandComplete SET",
		`Error ERROR 55000 portal "" cannot be run`, "Ready I")
}

// TestTransactionEndDropsPortals: portals go when their transaction ends,
// at the COMMIT, not at the next Sync or ReadyForQuery.
func TestTransactionEndDropsPortals(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	r := wiretest.Connect(t, srv.HostPort(), "u", "db")
	r.Send(&pgproto3.Query{String: "BEGIN"})
	expect(t, r.Results(), "CommandComplete BEGIN", "Ready T")
	r.Send(&pgproto3.Parse{Name: "s", Query: "SELECT 1"}, &pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "s"},
		&pgproto3.Parse{Name: "c", Query: "COMMIT"}, &pgproto3.Bind{PreparedStatement: "c"}, &pgproto3.Execute{},
		&pgproto3.Describe{ObjectType: 'P', Name: "p"}, &pgproto3.Sync{})
	expect(t, r.Results(), "ParseComplete", "BindComplete", "ParseComplete", "BindComplete", "CommandComplete COMMIT",
		`Error ERROR 34000 portal "p" does not exist`, "Ready I")
	// In a simple query that opens another block.
	r.Send(&pgproto3.Query{String: "BEGIN"})
	expect(t, r.Results(), "CommandComplete BEGIN", "Ready T")
	r.Send(&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "s"}, &pgproto3.Sync{})
	expect(t, r.Results(), "BindComplete", "Ready T")
	r.Send(&pgproto3.Query{String: "COMMIT; BEGIN"})
	expect(t, r.Results(), "CommandComplete COMMIT", "CommandComplete BEGIN", "Ready T")
	r.Send(&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "s"}, &pgproto3.Sync{})
	expect(t, r.Results(), "BindComplete", "Ready T")
}

// TestFailedBlockAsPostgres: in a failed transaction block a statement that
// returns rows is not described, nothing but COMMIT or ROLLBACK is bound
// (before the portal name is looked at), and a portal whose Bind failed
// stays, failed, until the block ends.
func TestFailedBlockAsPostgres(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	r := wiretest.Connect(t, srv.HostPort(), "u", "db")
	r.Send(&pgproto3.Query{String: "BEGIN"})
	expect(t, r.Results(), "CommandComplete BEGIN", "Ready T")
	r.Send(&pgproto3.Parse{Name: "s", Query: "SELECT $1::int4"},
		&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "s", ParameterFormatCodes: []int16{2}, Parameters: [][]byte{[]byte("1")}},
		&pgproto3.Sync{})
	expect(t, r.Results(), "ParseComplete", "Error ERROR 22023 unsupported format code: 2", "Ready E")
	const aborted = "Error ERROR 25P02 current transaction is aborted, commands ignored until end of transaction block"
	r.Send(&pgproto3.Describe{ObjectType: 'P', Name: "p"}, &pgproto3.Close{ObjectType: 'P', Name: "p"}, &pgproto3.Sync{},
		&pgproto3.Describe{ObjectType: 'S', Name: "s"}, &pgproto3.Sync{},
		&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "s", Parameters: [][]byte{[]byte("1")}}, &pgproto3.Sync{})
	expect(t, r.Results(), "NoData", "CloseComplete", "Ready E")
	expect(t, r.Results(), aborted, "Ready E")
	expect(t, r.Results(), aborted, "Ready E")
	// A statement of a simple query that fails a block leaves its portal
	// as the unnamed one.
	r.Send(&pgproto3.Query{String: "ROLLBACK"})
	expect(t, r.Results(), "CommandComplete ROLLBACK", "Ready I")
	r.Send(&pgproto3.Query{String: "BEGIN; SELECT raise('22012', 'boom')"})
	expect(t, r.Results(), "CommandComplete BEGIN", "RowDescription raise:25:0", "Error ERROR 22012 boom", "Ready E")
	r.Send(&pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Sync{})
	expect(t, r.Results(), aborted, "Ready E")
}

// TestUnnamedStatementAsPostgres: a simple query drops the unnamed
// statement; a Parse reports the errors of its statement before a name
// already in use; an empty statement keeps the parameter types declared.
func TestUnnamedStatementAsPostgres(t *testing.T) {
	srv := wiretest.Start(t, wire.Config{})
	r := wiretest.Connect(t, srv.HostPort(), "u", "db")
	r.Send(&pgproto3.Parse{Query: "SELECT 1"}, &pgproto3.Sync{}, &pgproto3.Query{String: "SELECT 2"},
		&pgproto3.Bind{}, &pgproto3.Sync{})
	expect(t, r.Results(), "ParseComplete", "Ready I")
	expect(t, r.Results(), "RowDescription ?column?:23:0", "DataRow 2", "CommandComplete SELECT 1", "Ready I")
	expect(t, r.Results(), "Error ERROR 26000 unnamed prepared statement does not exist", "Ready I")
	r.Send(&pgproto3.Parse{Name: "a", Query: "SELECT 1"}, &pgproto3.Parse{Name: "a", Query: "FROB"}, &pgproto3.Sync{})
	expect(t, r.Results(), "ParseComplete", `Error ERROR 42601 syntax error at or near "FROB"`, "Ready I")
	r.Send(&pgproto3.Parse{Name: "e", ParameterOIDs: []uint32{23}}, &pgproto3.Describe{ObjectType: 'S', Name: "e"},
		&pgproto3.Bind{PreparedStatement: "e"}, &pgproto3.Sync{})
	expect(t, r.Results(), "ParseComplete", "ParameterDescription [23]", "NoData",
		`Error ERROR 08P01 bind message supplies 0 parameters, but prepared statement "e" requires 1`, "Ready I")
}
