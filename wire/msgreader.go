package wire

import (
	"bufio"
	"encoding/binary"
	"io"
)

// maxRetainedBuffer is the largest read or write buffer a connection keeps
// between messages; a larger one, grown for one big message, is dropped.
const maxRetainedBuffer = 1 << 20

// msgReader frames frontend messages from the client's byte stream.
//
// The pgproto3 Backend cannot be told a length limit and allocates whatever
// length a client declares, and some of its decoders panic on hostile input
// (a negative parameter length in Bind, a short SASLInitialResponse), so the
// wire frames and decodes frontend messages itself; pgproto3 encodes the
// backend messages that are not on a hot path.
type msgReader struct {
	br  *bufio.Reader
	max int // largest body of a large message (Query, Parse, Bind, CopyData, ...)
	hdr [5]byte
	buf []byte // body of the last message; reused
}

// next reads one message: its type and body (the length word excluded). The
// body is valid until the next call. A stream error is returned as is (io.EOF
// at a message boundary, io.ErrUnexpectedEOF inside one); a framing error is
// a FATAL *Error with SQLSTATE 08P01, returned before the body is allocated.
func (r *msgReader) next() (typ byte, body []byte, err error) {
	if cap(r.buf) > maxRetainedBuffer {
		r.buf = nil
	}
	if _, err := io.ReadFull(r.br, r.hdr[:]); err != nil {
		return 0, nil, err
	}
	typ = r.hdr[0]
	n := int64(binary.BigEndian.Uint32(r.hdr[1:])) - 4
	limit, known := messageLimit(typ, r.max)
	if !known {
		return typ, nil, protocolError("invalid frontend message type %d", typ)
	}
	if n < 0 || n > int64(limit) {
		return typ, nil, protocolError("invalid message length")
	}
	body, err = r.readBody(int(n))
	return typ, body, err
}

// readBody reads n bytes into the reused buffer. A buffer too small grows
// as the bytes arrive rather than to n at once, so that a client declaring
// a huge length but sending little costs little memory.
func (r *msgReader) readBody(n int) ([]byte, error) {
	if n <= cap(r.buf) {
		r.buf = r.buf[:n]
		if _, err := io.ReadFull(r.br, r.buf); err != nil {
			return nil, unexpectedEOF(err)
		}
		return r.buf, nil
	}
	buf := r.buf[:0]
	for len(buf) < n {
		chunk := max(cap(buf), 64<<10)
		chunk = min(chunk, n-len(buf))
		if cap(buf)-len(buf) < chunk {
			nb := make([]byte, len(buf), len(buf)+chunk)
			copy(nb, buf)
			buf = nb
		}
		m, err := io.ReadFull(r.br, buf[len(buf):len(buf)+chunk])
		buf = buf[:len(buf)+m]
		if err != nil {
			r.buf = buf[:0]
			return nil, unexpectedEOF(err)
		}
	}
	r.buf = buf
	return buf, nil
}

// unexpectedEOF turns io.EOF inside a message into io.ErrUnexpectedEOF.
func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// messageLimit returns the largest body allowed for a frontend message type
// and whether the type exists, following PostgreSQL's SocketBackend.
func messageLimit(typ byte, large int) (int, bool) {
	switch typ {
	case 'Q', 'P', 'B', 'd', 'F':
		return large, true
	case 'p':
		// Password and SASL messages arrive before authentication:
		// PostgreSQL's PG_MAX_AUTH_TOKEN_LENGTH.
		return min(large, maxAuthTokenLen), true
	case 'S', 'H', 'E', 'D', 'C', 'X', 'c', 'f':
		return smallMessageLimit, true
	}
	return 0, false
}

// msgBuf decodes a message body field by field, like PostgreSQL's
// pq_getmsg* functions. Reading past the end sets bad and returns zero
// values; callers check ok() once at the end.
type msgBuf struct {
	b   []byte
	bad bool
}

// int16 reads a big-endian int16.
func (m *msgBuf) int16() int16 {
	if len(m.b) < 2 {
		m.bad = true
		m.b = nil
		return 0
	}
	v := int16(binary.BigEndian.Uint16(m.b))
	m.b = m.b[2:]
	return v
}

// int32 reads a big-endian int32.
func (m *msgBuf) int32() int32 {
	if len(m.b) < 4 {
		m.bad = true
		m.b = nil
		return 0
	}
	v := int32(binary.BigEndian.Uint32(m.b))
	m.b = m.b[4:]
	return v
}

// byte1 reads one byte.
func (m *msgBuf) byte1() byte {
	if len(m.b) < 1 {
		m.bad = true
		return 0
	}
	v := m.b[0]
	m.b = m.b[1:]
	return v
}

// cstring reads a NUL-terminated string, returned without the NUL as a
// view of the body.
func (m *msgBuf) cstring() []byte {
	for i, c := range m.b {
		if c == 0 {
			s := m.b[:i:i]
			m.b = m.b[i+1:]
			return s
		}
	}
	m.bad = true
	m.b = nil
	return nil
}

// bytes reads n bytes as a view of the body.
func (m *msgBuf) bytes(n int) []byte {
	if n < 0 || len(m.b) < n {
		m.bad = true
		m.b = nil
		return nil
	}
	v := m.b[:n:n]
	m.b = m.b[n:]
	return v
}

// rest returns the unread bytes.
func (m *msgBuf) rest() []byte {
	v := m.b
	m.b = nil
	return v
}

// done reports whether the body was decoded exactly, with nothing left over.
func (m *msgBuf) done() bool { return !m.bad && len(m.b) == 0 }

// errInvalidFormat is the report of a body that does not decode.
func errInvalidFormat() *Error { return protocolError("invalid message format") }
