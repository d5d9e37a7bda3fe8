package wire_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
	"github.com/jackc/pgx/v5"

	"github.com/prollypg/prollypg/wire"
	"github.com/prollypg/prollypg/wire/internal/wiretest"
)

// benchEngine is a Handler whose every statement returns one int4 row,
// without allocating after the first call, so that a benchmark's
// allocations are the wire's own (and the client's).
type benchEngine struct{}

type benchSession struct {
	st benchStmt
	n  wire.Notifier
}

type benchStmt struct{ p benchPortal }

type benchPortal struct {
	v    int64
	done bool
}

// Notifications makes benchSession a NotificationSession, as the SQL
// engine's sessions are, so that the benchmarks cover the idle wait that
// notifications may interrupt.
func (s *benchSession) Notifications(func(pid uint32, channel, payload string)) {}

var benchCols = []wire.Column{{Name: "v", TypeOID: 23, TypeSize: 4, TypeMod: -1}}
var benchParams = []uint32{23}

func (benchEngine) Connect(ctx context.Context, s *wire.Startup, n wire.Notifier) (wire.Session, error) {
	return &benchSession{n: n}, nil
}
func (s *benchSession) Parse(ctx context.Context, sql string, _ []uint32) ([]wire.Statement, error) {
	return []wire.Statement{&s.st}, nil
}
func (s *benchSession) Sync(context.Context, bool) error { return nil }
func (s *benchSession) TxStatus() wire.TxStatus          { return wire.TxIdle }
func (s *benchSession) Close()                           {}
func (st *benchStmt) ParamTypes() []uint32               { return benchParams }
func (st *benchStmt) Columns() []wire.Column             { return benchCols }
func (st *benchStmt) Close()                             {}
func (st *benchStmt) Bind(ctx context.Context, params [][]byte, pf, rf []int16) (wire.Portal, error) {
	st.p.done = false
	if len(params) == 1 {
		if wire.FormatCode(pf, 0) == wire.FormatBinary && len(params[0]) == 4 {
			st.p.v = int64(int32(binary.BigEndian.Uint32(params[0])))
		} else {
			st.p.v, _ = strconv.ParseInt(string(params[0]), 10, 32)
		}
	}
	return &st.p, nil
}
func (p *benchPortal) Columns() []wire.Column { return benchCols }
func (p *benchPortal) Close()                 {}
func (p *benchPortal) Execute(ctx context.Context, w *wire.RowWriter, maxRows int) (string, bool, error) {
	if !p.done {
		buf := w.BeginValue()
		buf = binary.BigEndian.AppendUint32(buf, uint32(p.v))
		w.EndValue(buf)
		if err := w.EndRow(); err != nil {
			return "", false, err
		}
		p.done = true
	}
	return "SELECT 1", true, nil
}

// BenchmarkPgxPreparedSelect is a round trip of a prepared one-row SELECT
// through pgx (Bind, Execute, Sync; one row back). Allocations include
// pgx's.
func BenchmarkPgxPreparedSelect(b *testing.B) {
	for _, engine := range []struct {
		name string
		h    wire.Handler
	}{{"bench", benchEngine{}}, {"wiretest", wiretest.NewEngine()}} {
		b.Run(engine.name, func(b *testing.B) {
			srv := wiretest.Start(b, wire.Config{Handler: engine.h})
			conn := pgxConnect(b, srv, pgx.QueryExecModeCacheStatement)
			ctx := context.Background()
			var v int32
			if err := conn.QueryRow(ctx, "SELECT $1::int4", 1).Scan(&v); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := conn.QueryRow(ctx, "SELECT $1::int4", int32(i)).Scan(&v); err != nil || v != int32(i) {
					b.Fatal(v, err)
				}
			}
		})
	}
}

// rawClient sends pre-encoded bytes and skips over the answer up to
// ReadyForQuery without allocating, so that allocations are the server's.
type rawClient struct {
	c   net.Conn
	br  *bufio.Reader
	hdr [5]byte
}

func newRawClient(b *testing.B, srv *wiretest.Server) *rawClient {
	r := wiretest.Connect(b, srv.HostPort(), "bench", "db")
	r.Conn.SetDeadline(time.Time{})
	return &rawClient{c: r.Conn, br: bufio.NewReaderSize(r.Conn, 64<<10)}
}

// roundTrip writes msg and reads messages up to ReadyForQuery, returning
// the number of DataRows.
func (rc *rawClient) roundTrip(b *testing.B, msg []byte) int {
	if _, err := rc.c.Write(msg); err != nil {
		b.Fatal(err)
	}
	rows := 0
	for {
		if _, err := io.ReadFull(rc.br, rc.hdr[:]); err != nil {
			b.Fatal(err)
		}
		n := int(binary.BigEndian.Uint32(rc.hdr[1:])) - 4
		switch rc.hdr[0] {
		case 'D':
			rows++
		case 'E':
			b.Fatal("error response")
		}
		if _, err := rc.br.Discard(n); err != nil {
			b.Fatal(err)
		}
		if rc.hdr[0] == 'Z' {
			return rows
		}
	}
}

// BenchmarkRawPreparedSelect is the same round trip from a client that
// allocates nothing: its allocations are the server's.
func BenchmarkRawPreparedSelect(b *testing.B) {
	srv := wiretest.Start(b, wire.Config{Handler: benchEngine{}})
	rc := newRawClient(b, srv)
	rc.roundTrip(b, encode(&pgproto3.Parse{Name: "s", Query: "SELECT $1::int4", ParameterOIDs: []uint32{23}}, &pgproto3.Sync{}))
	msg := encode(&pgproto3.Bind{PreparedStatement: "s", ParameterFormatCodes: []int16{1}, Parameters: [][]byte{{0, 0, 0, 42}},
		ResultFormatCodes: []int16{1}}, &pgproto3.Execute{}, &pgproto3.Sync{})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if rc.roundTrip(b, msg) != 1 {
			b.Fatal("no row")
		}
	}
}

// BenchmarkStreamRows streams 100,000 rows of generate_series (text
// format) per operation to a client that only frames them.
func BenchmarkStreamRows(b *testing.B) {
	const n = 100_000
	srv := wiretest.Start(b, wire.Config{})
	rc := newRawClient(b, srv)
	msg := encode(&pgproto3.Query{String: "SELECT generate_series(1, " + strconv.Itoa(n) + ")"})
	rc.roundTrip(b, msg)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if got := rc.roundTrip(b, msg); got != n {
			b.Fatalf("%d rows", got)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(n*b.N)/elapsed.Seconds(), "rows/s")
}

// BenchmarkPgxStreamRows streams the same rows into pgx, scanning each.
func BenchmarkPgxStreamRows(b *testing.B) {
	const n = 100_000
	srv := wiretest.Start(b, wire.Config{})
	conn := pgxConnect(b, srv, pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		rows, err := conn.Query(ctx, "SELECT generate_series(1, 100000)")
		if err != nil {
			b.Fatal(err)
		}
		got := 0
		var v int32
		for rows.Next() {
			rows.Scan(&v)
			got++
		}
		if rows.Err() != nil || got != n {
			b.Fatal(got, rows.Err())
		}
	}
	b.ReportMetric(float64(n*b.N)/time.Since(start).Seconds(), "rows/s")
}
