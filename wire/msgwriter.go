package wire

import (
	"encoding/binary"
	"errors"
	"io"
	"math"

	"github.com/jackc/pgproto3/v2"
)

// flushThreshold is the size of buffered output at which the writer flushes
// while a statement is still producing (rows, COPY data).
const flushThreshold = 32 << 10

// msgWriter buffers backend messages for one connection. Messages are
// appended to buf in place (no per-message allocation) and written to the
// network at ReadyForQuery, Flush, before the wire waits for client data
// (authentication, COPY FROM STDIN) and when buf passes flushThreshold.
//
// A write error is sticky: later writes are dropped and err reports it; the
// connection ends at the next read or check.
type msgWriter struct {
	w      io.Writer
	buf    []byte
	err    error
	onFail func() // called once, at the first error (cancels the statement)
}

// begin appends a message header with a placeholder length and returns the
// header's offset for finish.
func (w *msgWriter) begin(typ byte) int {
	p := len(w.buf)
	w.buf = append(w.buf, typ, 0, 0, 0, 0)
	return p
}

// finish writes the length of the message begun at p.
func (w *msgWriter) finish(p int) {
	n := len(w.buf) - p - 1
	if n > math.MaxInt32 {
		w.buf = w.buf[:p]
		w.fail(errors.New("wire: backend message longer than 2 GiB"))
		return
	}
	binary.BigEndian.PutUint32(w.buf[p+1:], uint32(n))
}

// int16 appends a big-endian int16.
func (w *msgWriter) int16(v int16) { w.buf = binary.BigEndian.AppendUint16(w.buf, uint16(v)) }

// int32 appends a big-endian int32.
func (w *msgWriter) int32(v int32) { w.buf = binary.BigEndian.AppendUint32(w.buf, uint32(v)) }

// cstring appends s and a NUL.
func (w *msgWriter) cstring(s string) {
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, 0)
}

// empty appends a message without a body (ParseComplete, BindComplete,
// CloseComplete, NoData, PortalSuspended, EmptyQueryResponse, CopyDone).
func (w *msgWriter) empty(typ byte) { w.buf = append(w.buf, typ, 0, 0, 0, 4) }

// send appends a pgproto3 message (the messages off the hot path).
func (w *msgWriter) send(msg pgproto3.BackendMessage) {
	buf, err := msg.Encode(w.buf)
	if err != nil {
		w.fail(err)
		return
	}
	w.buf = buf
}

// readyForQuery appends ReadyForQuery.
func (w *msgWriter) readyForQuery(s TxStatus) { w.buf = append(w.buf, 'Z', 0, 0, 0, 5, byte(s)) }

// commandComplete appends CommandComplete.
func (w *msgWriter) commandComplete(tag string) {
	p := w.begin('C')
	w.cstring(tag)
	w.finish(p)
}

// rowDescription appends RowDescription for cols with the given result
// formats (nil: all text).
func (w *msgWriter) rowDescription(cols []Column, formats []int16) {
	p := w.begin('T')
	w.int16(int16(len(cols)))
	for i := range cols {
		c := &cols[i]
		w.cstring(c.Name)
		w.int32(int32(c.TableOID))
		w.int16(c.Attr)
		w.int32(int32(c.TypeOID))
		w.int16(c.TypeSize)
		w.int32(c.TypeMod)
		w.int16(FormatCode(formats, i))
	}
	w.finish(p)
}

// parameterDescription appends ParameterDescription.
func (w *msgWriter) parameterDescription(oids []uint32) {
	p := w.begin('t')
	w.int16(int16(len(oids)))
	for _, o := range oids {
		w.int32(int32(o))
	}
	w.finish(p)
}

// flush writes the buffered messages.
func (w *msgWriter) flush() error {
	if w.err != nil {
		w.buf = w.buf[:0]
		return w.err
	}
	if len(w.buf) > 0 {
		if _, err := w.w.Write(w.buf); err != nil {
			w.fail(err)
		}
	}
	if cap(w.buf) > maxRetainedBuffer {
		w.buf = make([]byte, 0, flushThreshold+flushThreshold/2)
	}
	w.buf = w.buf[:0]
	return w.err
}

// maybeFlush flushes when the buffer has passed flushThreshold.
func (w *msgWriter) maybeFlush() error {
	if len(w.buf) >= flushThreshold {
		return w.flush()
	}
	return w.err
}

// fail records the first write error.
func (w *msgWriter) fail(err error) {
	if w.err == nil {
		w.err = err
		if w.onFail != nil {
			w.onFail()
		}
	}
}
