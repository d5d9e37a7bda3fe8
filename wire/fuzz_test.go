package wire_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/prollypg/prollypg/wire"
	"github.com/prollypg/prollypg/wire/internal/wiretest"
)

// streamConn is a client connection whose input is a fixed byte stream
// (then EOF) and whose output is discarded. Unlike net.Pipe it can end the
// client's side without failing the server's writes, so that the server
// processes every byte it is given.
type streamConn struct {
	r *bytes.Reader
}

func (c *streamConn) Read(p []byte) (int, error) {
	if c.r.Len() == 0 {
		return 0, io.EOF
	}
	return c.r.Read(p)
}
func (c *streamConn) Write(p []byte) (int, error) { return len(p), nil }
func (c *streamConn) Close() error                { return nil }
func (c *streamConn) LocalAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5432}
}
func (c *streamConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}
}
func (c *streamConn) SetDeadline(t time.Time) error      { return nil }
func (c *streamConn) SetReadDeadline(t time.Time) error  { return nil }
func (c *streamConn) SetWriteDeadline(t time.Time) error { return nil }

// encode concatenates encoded frontend messages.
func encode(msgs ...pgproto3.FrontendMessage) []byte {
	var buf []byte
	for _, m := range msgs {
		buf, _ = m.Encode(buf)
	}
	return buf
}

// FuzzSession feeds arbitrary bytes to a session as a client's stream after
// a valid StartupMessage (or, when the input starts with 0xFF, from the very
// first byte) and checks that the session ends without a panic.
func FuzzSession(f *testing.F) {
	f.Add(encode(&pgproto3.Query{String: "SELECT 1; SELECT generate_series(1,3)"}, &pgproto3.Terminate{}))
	f.Add(encode(&pgproto3.Parse{Name: "s", Query: "SELECT $1::int4, $2"}, &pgproto3.Describe{ObjectType: 'S', Name: "s"},
		&pgproto3.Bind{PreparedStatement: "s", ParameterFormatCodes: []int16{1}, Parameters: [][]byte{{0, 0, 0, 1}, []byte("x")}, ResultFormatCodes: []int16{1}},
		&pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{MaxRows: 1}, &pgproto3.Execute{}, &pgproto3.Close{ObjectType: 'S', Name: "s"}, &pgproto3.Sync{}))
	f.Add(encode(&pgproto3.Query{String: "COPY t FROM STDIN"}, &pgproto3.CopyData{Data: []byte("1\t2\n")}, &pgproto3.CopyDone{},
		&pgproto3.Query{String: "COPY t TO STDOUT"}, &pgproto3.Query{String: "COPY t FROM STDIN BINARY"}, &pgproto3.CopyFail{Message: "no"}))
	f.Add(encode(&pgproto3.Parse{Query: "FROB"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{}, &pgproto3.Query{String: "BEGIN; SELECT raise('22012','x')"}))
	f.Add(encode(&pgproto3.Query{String: "SET a = b"}, &pgproto3.Query{String: "SELECT notice('n')"}, &pgproto3.Flush{}, &pgproto3.FunctionCall{}))
	f.Add([]byte{'B', 0, 0, 0, 14, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xf0, 0, 0})
	f.Add(append([]byte{0xff}, encode(&pgproto3.StartupMessage{ProtocolVersion: 3<<16 | 1, Parameters: map[string]string{"user": "u", "_pq_.x": "1"}})...))
	f.Add([]byte{0xff, 0, 0, 0, 8, 4, 0xd2, 0x16, 0x2f})

	core, logs := observer.New(zapcore.WarnLevel)
	e := wiretest.NewEngine()
	e.NoSleep, e.MaxSeries = true, 100
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	srv, err := wire.NewServer(wire.Config{Listener: ln, Handler: e, Logger: zap.New(core), MaxMessageSize: 1 << 20})
	if err != nil {
		f.Fatal(err)
	}
	defer srv.Close()
	startup := encode(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters: map[string]string{"user": "fuzz", "database": "db"}})

	f.Fuzz(func(t *testing.T, in []byte) {
		stream := append(append([]byte(nil), startup...), in...)
		if len(in) > 0 && in[0] == 0xff {
			stream = in[1:]
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			srv.ServeConn(context.Background(), &streamConn{r: bytes.NewReader(stream)})
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("session did not end on input %q", in)
		}
		for _, l := range logs.TakeAll() {
			if l.Level >= zapcore.ErrorLevel {
				t.Fatalf("%s %v on input %q", l.Message, l.ContextMap(), in)
			}
		}
	})
}
