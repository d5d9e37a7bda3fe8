package wiretest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
)

// Raw is a protocol-level client for tests that need to send exactly the
// messages (or bytes) they choose.
type Raw struct {
	tb   testing.TB
	Conn net.Conn
	fe   *pgproto3.Frontend
	// PID and Secret are the BackendKeyData of the session.
	PID, Secret uint32
	// Params holds the ParameterStatus values received.
	Params map[string]string
}

// Dial connects to addr without starting a session.
func Dial(tb testing.TB, addr string) *Raw {
	tb.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		tb.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(20 * time.Second))
	tb.Cleanup(func() { c.Close() })
	return &Raw{tb: tb, Conn: c, fe: pgproto3.NewFrontend(pgproto3.NewChunkReader(c), c), Params: map[string]string{}}
}

// Connect dials and starts a session as user on db (trust authentication),
// returning after the first ReadyForQuery.
func Connect(tb testing.TB, addr, user, db string) *Raw {
	tb.Helper()
	r := Dial(tb, addr)
	r.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters: map[string]string{"user": user, "database": db}})
	got := r.UntilReady()
	if got[0] != "AuthenticationOk" || got[len(got)-1] != "Ready I" {
		tb.Fatalf("startup: %q", got)
	}
	return r
}

// Send encodes and writes messages in one write.
func (r *Raw) Send(msgs ...pgproto3.FrontendMessage) {
	r.tb.Helper()
	var buf []byte
	for _, m := range msgs {
		var err error
		if buf, err = m.Encode(buf); err != nil {
			r.tb.Fatal(err)
		}
	}
	r.Write(buf)
}

// Write writes raw bytes.
func (r *Raw) Write(b []byte) {
	r.tb.Helper()
	if _, err := r.Conn.Write(b); err != nil {
		r.tb.Fatalf("write: %v", err)
	}
}

// Receive reads one message and returns its summary (see Summary); it
// returns "EOF" when the server closed the connection.
func (r *Raw) Receive() string {
	r.tb.Helper()
	m, err := r.fe.Receive()
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
			strings.Contains(err.Error(), "connection reset") {
			return "EOF"
		}
		r.tb.Fatalf("receive: %v", err)
	}
	switch m := m.(type) {
	case *pgproto3.BackendKeyData:
		r.PID, r.Secret = m.ProcessID, m.SecretKey
	case *pgproto3.ParameterStatus:
		r.Params[m.Name] = m.Value
	}
	return Summary(m)
}

// Quiet waits up to d for a message: it returns "" if none came, else the
// message's summary. The connection stays usable either way.
func (r *Raw) Quiet(d time.Duration) string {
	r.tb.Helper()
	r.Conn.SetReadDeadline(time.Now().Add(d))
	defer r.Conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	m, err := r.fe.Receive()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return ""
	}
	if err != nil {
		r.tb.Fatalf("receive: %v", err)
	}
	return Summary(m)
}

// UntilReady reads messages up to and including ReadyForQuery (or EOF).
func (r *Raw) UntilReady() []string {
	r.tb.Helper()
	var out []string
	for {
		s := r.Receive()
		out = append(out, s)
		if strings.HasPrefix(s, "Ready") || s == "EOF" {
			return out
		}
	}
}

// Results is UntilReady without the ParameterStatus and BackendKeyData
// messages.
func (r *Raw) Results() []string {
	var out []string
	for _, s := range r.UntilReady() {
		if !strings.HasPrefix(s, "ParameterStatus") && !strings.HasPrefix(s, "BackendKeyData") {
			out = append(out, s)
		}
	}
	return out
}

// Summary describes a backend message in one short line.
func Summary(m pgproto3.BackendMessage) string {
	switch m := m.(type) {
	case *pgproto3.ErrorResponse:
		return fmt.Sprintf("Error %s %s %s", m.Severity, m.Code, m.Message)
	case *pgproto3.NoticeResponse:
		return fmt.Sprintf("Notice %s %s %s", m.Severity, m.Code, m.Message)
	case *pgproto3.DataRow:
		var vals []string
		for _, v := range m.Values {
			if v == nil {
				vals = append(vals, "NULL")
			} else {
				vals = append(vals, string(v))
			}
		}
		return "DataRow " + strings.Join(vals, ",")
	case *pgproto3.CommandComplete:
		return "CommandComplete " + string(m.CommandTag)
	case *pgproto3.ReadyForQuery:
		return "Ready " + string(m.TxStatus)
	case *pgproto3.RowDescription:
		var names []string
		for _, f := range m.Fields {
			names = append(names, fmt.Sprintf("%s:%d:%d", f.Name, f.DataTypeOID, f.Format))
		}
		return "RowDescription " + strings.Join(names, ",")
	case *pgproto3.ParameterDescription:
		return fmt.Sprintf("ParameterDescription %v", m.ParameterOIDs)
	case *pgproto3.ParameterStatus:
		return "ParameterStatus " + m.Name + "=" + m.Value
	case *pgproto3.CopyData:
		return "CopyData " + string(m.Data)
	case *pgproto3.CopyInResponse:
		return fmt.Sprintf("CopyInResponse %d", m.OverallFormat)
	case *pgproto3.CopyOutResponse:
		return fmt.Sprintf("CopyOutResponse %d", m.OverallFormat)
	case *pgproto3.NotificationResponse:
		return fmt.Sprintf("Notification %d %s %s", m.PID, m.Channel, m.Payload)
	}
	name := fmt.Sprintf("%T", m)
	return strings.TrimPrefix(name, "*pgproto3.")
}
