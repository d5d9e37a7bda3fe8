package wire

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/jackc/pgproto3/v2"
)

// RowWriter is how a Portal's Execute sends its output: DataRow messages,
// built in place in the connection's output buffer, or COPY data after
// CopyIn / CopyOut. It is valid only during the Execute call it was given
// to, and used from that goroutine only.
//
// A row is a sequence of Value, Null or BeginValue/EndValue calls, one per
// column in order, then EndRow. Nothing allocates once the buffer has grown
// to its working size: values are copied (or appended) straight into the
// message, and the buffer is written to the network only when it passes a
// threshold, at ReadyForQuery, or at Flush — never per row.
//
//	for ... {
//		buf := w.BeginValue()
//		buf = strconv.AppendInt(buf, v, 10) // text format
//		w.EndValue(buf)
//		w.Value(nameBytes)
//		if err := w.EndRow(); err != nil {
//			return "", false, err // the client is gone
//		}
//	}
type RowWriter struct {
	c     *conn      // nil for a standalone writer (NewRowWriter)
	w     *msgWriter // the output buffer
	row   int        // offset of the DataRow being built, -1 when none
	val   int        // offset of the length word of the value being appended, -1 when none
	nvals int        // values in the row being built
	rows  int        // rows ended in this Execute
	mode  rwMode
	cin   CopyReader
	cout  CopyWriter
	// fmtErr, when set, fails the first row (an unsupported result
	// format code, which PostgreSQL reports only when a row is sent).
	fmtErr error
	// desc is the RowDescription that the simple protocol owes before
	// the first row, sent by StartRows; nil when none is owed.
	desc []Column
}

// rwMode says what the RowWriter is sending.
type rwMode uint8

const (
	modeRows    rwMode = iota
	modeCopyIn         // CopyInResponse sent; data comes from the client
	modeCopyOut        // CopyOutResponse sent; CopyData goes out
)

// errRowTooLarge is returned when a row or value cannot be framed.
var errRowTooLarge = &Error{Code: CodeProgramLimitExceeded, Message: "row is too big for the protocol"}

// StartRows tells the wire that the portal's result begins. In the
// simple protocol it sends the RowDescription of the statement now, if it
// has not gone out yet; otherwise it does nothing. The wire calls it
// itself before the first row and when Execute completes, so an engine
// needs it only to place the RowDescription before an error: PostgreSQL
// describes the result of a query when its executor starts, before any
// row is computed (an error of the first row follows the RowDescription),
// but runs a data-modifying statement with RETURNING to its end before
// describing it (its errors come alone). Call it once the work that
// PostgreSQL does before describing has succeeded.
func (w *RowWriter) StartRows() {
	if w.desc != nil {
		w.w.rowDescription(w.desc, nil)
		w.desc = nil
	}
}

// startRow opens a DataRow if none is open.
func (w *RowWriter) startRow() {
	if w.row < 0 {
		w.StartRows()
		w.row = w.w.begin('D')
		w.w.int16(0) // column count, set by EndRow
		w.nvals = 0
	}
}

// Value appends a non-NULL value, already encoded in the column's format.
// v is copied; the caller keeps it.
func (w *RowWriter) Value(v []byte) {
	w.startRow()
	w.w.int32(int32(len(v)))
	w.w.buf = append(w.w.buf, v...)
	w.nvals++
	if len(v) > math.MaxInt32 {
		w.w.fail(errRowTooLarge)
	}
}

// Null appends a NULL.
func (w *RowWriter) Null() {
	w.startRow()
	w.w.int32(-1)
	w.nvals++
}

// BeginValue starts a value that the caller appends in place: append the
// encoded bytes to the returned slice (strconv.AppendInt, append, ...) and
// pass the result to EndValue. The slice must not be kept or used after
// EndValue, nor any other RowWriter method called in between.
func (w *RowWriter) BeginValue() []byte {
	w.startRow()
	w.val = len(w.w.buf)
	w.w.buf = append(w.w.buf, 0, 0, 0, 0)
	return w.w.buf
}

// EndValue ends the value begun by BeginValue; buf is what the appends
// returned.
func (w *RowWriter) EndValue(buf []byte) {
	if w.val < 0 || len(buf) < w.val+4 {
		panic("wire: EndValue without BeginValue")
	}
	w.w.buf = buf
	n := len(buf) - w.val - 4
	if n > math.MaxInt32 {
		w.w.fail(errRowTooLarge)
	}
	binary.BigEndian.PutUint32(buf[w.val:], uint32(n))
	w.val = -1
	w.nvals++
}

// EndRow ends the row (a row with no values is a zero-column row). It
// returns an error once the client connection has failed; Execute should
// then stop and return it.
func (w *RowWriter) EndRow() error {
	if w.mode != modeRows {
		return errors.New("wire: EndRow during COPY")
	}
	if w.fmtErr != nil {
		w.abandonRow()
		return w.fmtErr
	}
	w.startRow()
	if w.nvals > math.MaxInt16 {
		w.w.fail(errRowTooLarge)
	}
	binary.BigEndian.PutUint16(w.w.buf[w.row+5:], uint16(w.nvals))
	w.w.finish(w.row)
	w.row = -1
	w.rows++
	if w.c != nil && len(w.c.notices) > 0 {
		w.w.buf = append(w.w.buf, w.c.notices...)
		w.c.notices = w.c.notices[:0]
	}
	return w.w.maybeFlush()
}

// WriteRow writes a whole row; a nil value is NULL. A convenience over
// Value/Null/EndRow.
func (w *RowWriter) WriteRow(values [][]byte) error {
	for _, v := range values {
		if v == nil {
			w.Null()
		} else {
			w.Value(v)
		}
	}
	return w.EndRow()
}

// Rows returns the number of rows ended so far in this Execute.
func (w *RowWriter) Rows() int { return w.rows }

// Err returns the write error that ended the connection, if any.
func (w *RowWriter) Err() error { return w.w.err }

// CopyIn starts COPY FROM STDIN: it sends CopyInResponse with the overall
// format (FormatText, also used for CSV, or FormatBinary) and the column
// formats, and returns the reader of the client's data. Read it to io.EOF
// (CopyDone); a CopyFail from the client is a 57014 error. Call it at most
// once per Execute, before any row.
func (w *RowWriter) CopyIn(format int16, columnFormats []int16) (*CopyReader, error) {
	if err := w.startCopy(); err != nil {
		return nil, err
	}
	w.w.send(&pgproto3.CopyInResponse{OverallFormat: byte(format), ColumnFormatCodes: uint16s(columnFormats)})
	if err := w.w.flush(); err != nil {
		return nil, err
	}
	w.mode = modeCopyIn
	w.cin = CopyReader{c: w.c}
	return &w.cin, nil
}

// CopyOut starts COPY TO STDOUT: it sends CopyOutResponse and returns the
// writer of the data; each Write is one CopyData message (by convention one
// row). The wire sends CopyDone when Execute returns without error. Call it
// at most once per Execute, before any row.
func (w *RowWriter) CopyOut(format int16, columnFormats []int16) (*CopyWriter, error) {
	if err := w.startCopy(); err != nil {
		return nil, err
	}
	w.w.send(&pgproto3.CopyOutResponse{OverallFormat: byte(format), ColumnFormatCodes: uint16s(columnFormats)})
	w.mode = modeCopyOut
	w.cout = CopyWriter{w: w.w}
	return &w.cout, nil
}

// startCopy checks that a COPY may start.
func (w *RowWriter) startCopy() error {
	switch {
	case w.c == nil:
		return errors.New("wire: COPY needs a client connection")
	case w.mode != modeRows || w.rows > 0 || w.row >= 0:
		return errors.New("wire: COPY must start before any row, once per Execute")
	}
	return w.w.err
}

// reset prepares the writer for an Execute.
func (w *RowWriter) reset() {
	w.row, w.val, w.nvals, w.rows, w.mode = -1, -1, 0, 0, modeRows
	w.cin = CopyReader{}
}

// abandonRow drops a row the engine began but did not end.
func (w *RowWriter) abandonRow() {
	if w.row >= 0 {
		w.w.buf = w.w.buf[:w.row]
		w.row, w.val = -1, -1
	}
	if w.c != nil && len(w.c.notices) > 0 {
		w.w.buf = append(w.w.buf, w.c.notices...)
		w.c.notices = w.c.notices[:0]
	}
}

// uint16s converts format codes for pgproto3.
func uint16s(f []int16) []uint16 {
	u := make([]uint16, len(f))
	for i, v := range f {
		u[i] = uint16(v)
	}
	return u
}
