package protodiff

import (
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgproto3/v2"
)

// A Step is a group of frontend messages sent to a server in one write,
// after which the runner reads every response they provoke. A step always
// ends with a message that makes PostgreSQL flush its output (Sync, Flush
// or Query) or, for COPY FROM STDIN, with the copy's end; a step that
// ended otherwise could leave responses sitting in the server's buffer,
// and reading them would wait forever.
type Step struct {
	Msgs []pgproto3.FrontendMessage
	// Cancel, when set, sends a CancelRequest for the session this long
	// after the messages, over a connection of its own.
	Cancel time.Duration
}

// A Sequence is what one seed generates: the steps sent over one fresh
// connection after the fixed setup.
type Sequence struct {
	Seed  uint64
	Steps []Step
}

// String prints the sequence one step per paragraph, one message a line.
func (s Sequence) String() string {
	var b strings.Builder
	for i, st := range s.Steps {
		fmt.Fprintf(&b, "step %d:\n", i+1)
		for _, m := range st.Msgs {
			fmt.Fprintf(&b, "\t%s\n", FormatFrontend(m))
		}
		if st.Cancel > 0 {
			fmt.Fprintf(&b, "\tCancelRequest after %v\n", st.Cancel)
		}
	}
	return b.String()
}

// encode appends the wire form of msgs to buf.
func encode(buf []byte, msgs []pgproto3.FrontendMessage) ([]byte, error) {
	for _, m := range msgs {
		var err error
		if buf, err = m.Encode(buf); err != nil {
			return nil, fmt.Errorf("encoding %s: %w", FormatFrontend(m), err)
		}
	}
	return buf, nil
}

// FormatFrontend prints a frontend message in one readable line, with
// every field that the server sees.
func FormatFrontend(m pgproto3.FrontendMessage) string {
	switch m := m.(type) {
	case *pgproto3.Query:
		return fmt.Sprintf("Query %q", m.String)
	case *pgproto3.Parse:
		s := fmt.Sprintf("Parse %q %q", m.Name, m.Query)
		if len(m.ParameterOIDs) > 0 {
			s += fmt.Sprintf(" oids=%v", m.ParameterOIDs)
		}
		return s
	case *pgproto3.Bind:
		s := fmt.Sprintf("Bind portal=%q stmt=%q", m.DestinationPortal, m.PreparedStatement)
		if len(m.ParameterFormatCodes) > 0 {
			s += fmt.Sprintf(" pfmt=%v", m.ParameterFormatCodes)
		}
		if len(m.Parameters) > 0 {
			vals := make([]string, len(m.Parameters))
			for i, p := range m.Parameters {
				if p == nil {
					vals[i] = "NULL"
				} else {
					vals[i] = fmt.Sprintf("%q", p)
				}
			}
			s += " params=[" + strings.Join(vals, " ") + "]"
		}
		if len(m.ResultFormatCodes) > 0 {
			s += fmt.Sprintf(" rfmt=%v", m.ResultFormatCodes)
		}
		return s
	case *pgproto3.Describe:
		return fmt.Sprintf("Describe %c %q", m.ObjectType, m.Name)
	case *pgproto3.Execute:
		return fmt.Sprintf("Execute %q max=%d", m.Portal, m.MaxRows)
	case *pgproto3.Close:
		return fmt.Sprintf("Close %c %q", m.ObjectType, m.Name)
	case *pgproto3.Sync:
		return "Sync"
	case *pgproto3.Flush:
		return "Flush"
	case *pgproto3.CopyData:
		return fmt.Sprintf("CopyData %q", m.Data)
	case *pgproto3.CopyDone:
		return "CopyDone"
	case *pgproto3.CopyFail:
		return fmt.Sprintf("CopyFail %q", m.Message)
	case *pgproto3.Terminate:
		return "Terminate"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", m), "*pgproto3.")
}
