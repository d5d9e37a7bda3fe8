package protodiff

import (
	"fmt"
	"strings"

	"github.com/jackc/pgproto3/v2"
)

// A Response is one backend message, normalised: Kind and Body are what
// must be equal between the servers, Text what is compared as the
// separate "text" category (the wording of errors). The allow-list of
// doc.go is applied here, by leaving the allowed fields out of both.
type Response struct {
	Kind string // message type, e.g. "DataRow"; "EOF" and "timeout" for a closed or silent server
	Body string // the compared fields
	Text string // for ErrorResponse: message, detail, hint, position
}

// Pseudo-responses for a connection that ended or went silent.
const (
	kindEOF     = "EOF"
	kindTimeout = "timeout"
)

// String prints the response in one line.
func (r Response) String() string {
	s := r.Kind
	if r.Body != "" {
		s += " " + r.Body
	}
	if r.Text != "" {
		s += " | " + r.Text
	}
	return s
}

// normalise turns a received message into a Response; false for a
// message that the allow-list drops. It copies what it keeps: pgproto3
// reuses its message structs and buffers on the next Receive.
func normalise(m pgproto3.BackendMessage) (Response, bool) {
	if n, ok := m.(*pgproto3.NoticeResponse); ok && strings.HasPrefix(n.Message, "skipping cleanup for portal") {
		// Allow-list: PostgreSQL's own diagnostic when a transaction ends
		// with a portal bound after the transaction failed.
		return Response{}, false
	}
	return normaliseKept(m), true
}

// normaliseKept is normalise for the messages kept.
func normaliseKept(m pgproto3.BackendMessage) Response {
	switch m := m.(type) {
	case *pgproto3.ErrorResponse:
		return Response{Kind: "ErrorResponse", Body: m.Severity + " " + m.Code,
			Text: errorText(m.Message, m.Detail, m.Hint, m.Position)}
	case *pgproto3.NoticeResponse:
		// Allow-list: the wording of notices is not compared.
		return Response{Kind: "NoticeResponse", Body: m.Severity + " " + m.Code}
	case *pgproto3.DataRow:
		return Response{Kind: "DataRow", Body: values(m.Values)}
	case *pgproto3.RowDescription:
		fields := make([]string, len(m.Fields))
		for i, f := range m.Fields {
			// Allow-list: a column's table OID is compared only as
			// zero or not (the servers number tables differently).
			table := "-"
			if f.TableOID != 0 {
				table = "table"
			}
			fields[i] = fmt.Sprintf("%q:%s.%d type=%d len=%d mod=%d fmt=%d",
				f.Name, table, f.TableAttributeNumber, f.DataTypeOID, f.DataTypeSize, f.TypeModifier, f.Format)
		}
		return Response{Kind: "RowDescription", Body: strings.Join(fields, ", ")}
	case *pgproto3.ParameterDescription:
		return Response{Kind: "ParameterDescription", Body: fmt.Sprint(m.ParameterOIDs)}
	case *pgproto3.CommandComplete:
		return Response{Kind: "CommandComplete", Body: string(m.CommandTag)}
	case *pgproto3.ReadyForQuery:
		return Response{Kind: "ReadyForQuery", Body: string(m.TxStatus)}
	case *pgproto3.CopyData:
		return Response{Kind: "CopyData", Body: fmt.Sprintf("%q", m.Data)}
	case *pgproto3.CopyInResponse:
		return Response{Kind: "CopyInResponse", Body: fmt.Sprintf("%d %v", m.OverallFormat, m.ColumnFormatCodes)}
	case *pgproto3.CopyOutResponse:
		return Response{Kind: "CopyOutResponse", Body: fmt.Sprintf("%d %v", m.OverallFormat, m.ColumnFormatCodes)}
	case *pgproto3.ParameterStatus:
		return Response{Kind: "ParameterStatus", Body: m.Name + "=" + m.Value}
	case *pgproto3.BackendKeyData:
		// Allow-list: the process id and secret differ.
		return Response{Kind: "BackendKeyData"}
	}
	return Response{Kind: strings.TrimPrefix(fmt.Sprintf("%T", m), "*pgproto3.")}
}

// errorText joins the worded fields of an error.
func errorText(msg, detail, hint string, pos int32) string {
	s := msg
	if detail != "" {
		s += " DETAIL: " + detail
	}
	if hint != "" {
		s += " HINT: " + hint
	}
	if pos != 0 {
		s += fmt.Sprintf(" POSITION: %d", pos)
	}
	return s
}

// values prints DataRow values: NULL bare, the rest quoted (binary ones
// with escapes).
func values(vals [][]byte) string {
	out := make([]string, len(vals))
	for i, v := range vals {
		if v == nil {
			out[i] = "NULL"
		} else {
			out[i] = fmt.Sprintf("%q", v)
		}
	}
	return strings.Join(out, " ")
}

// isKind reports whether r is one of the kinds.
func isKind(r Response, kinds ...string) bool {
	for _, k := range kinds {
		if r.Kind == k {
			return true
		}
	}
	return false
}
