package wire

import (
	"errors"
	"io"
	"os"
)

// CopyReader reads the data of COPY FROM STDIN from the client: the
// payloads of its CopyData messages, as one stream (Read) or message by
// message (Next). It ends with io.EOF at CopyDone; a CopyFail ends it with
// an error of SQLSTATE 57014 carrying the client's message, as PostgreSQL
// reports it. It is valid only during the Execute that started the COPY.
type CopyReader struct {
	c    *conn
	data []byte // unread part of the current CopyData
	err  error  // sticky: io.EOF, the CopyFail error, a stream error
}

// Read implements io.Reader.
func (r *CopyReader) Read(p []byte) (int, error) {
	for len(r.data) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.data = r.nextData()
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// Next returns the rest of the current CopyData message, or the next one,
// without copying; the slice is valid until the next call.
func (r *CopyReader) Next() ([]byte, error) {
	for len(r.data) == 0 {
		if r.err != nil {
			return nil, r.err
		}
		r.data = r.nextData()
	}
	d := r.data
	r.data = nil
	return d, nil
}

// nextData reads messages until a CopyData payload or the end of the COPY.
func (r *CopyReader) nextData() []byte {
	if r.c == nil {
		r.err = errors.New("wire: COPY has ended")
		return nil
	}
	c := r.c
	typ, body, err := c.rd.next()
	if err != nil {
		r.fatal(err)
		return nil
	}
	switch typ {
	case 'd':
		return body
	case 'c':
		r.err = io.EOF
		r.c = nil
	case 'f':
		m := msgBuf{b: body}
		msg := m.cstring()
		if !m.done() {
			r.fatal(errInvalidFormat())
			return nil
		}
		r.err = &Error{Code: CodeQueryCanceled, Message: "COPY from stdin failed: " + string(msg)}
		r.c = nil
	case 'H', 'S':
		// Ignored during COPY FROM STDIN, per the protocol.
	default:
		// An ERROR, as in PostgreSQL, then the session ends (see
		// conn.runPortal): the message is consumed, and with it the
		// framing of what follows.
		r.err = protocolErrorf("unexpected message type 0x%02X during COPY from stdin", typ)
		r.c.closing = true
		r.c = nil
	}
	return nil
}

// fatal ends the COPY and the session on a stream or protocol error: the
// framing is lost, so nothing more can be read.
func (r *CopyReader) fatal(err error) {
	var werr *Error
	switch {
	case errors.As(err, &werr):
	case errors.Is(err, os.ErrDeadlineExceeded) && r.c.isStopping():
		werr = adminShutdownError()
	default:
		werr = &Error{Code: CodeConnectionException, Message: "unexpected EOF on client connection with an open transaction", Err: err}
	}
	werr.Severity = SeverityFatal
	r.err = werr
	r.c.closing = true
	r.c = nil
}
