package wire

// CopyWriter writes the data of COPY TO STDOUT: each Write sends one
// CopyData message (PostgreSQL sends one per row). Data is buffered with
// the rest of the output and flushed when the buffer fills. It is valid
// only during the Execute that started the COPY.
type CopyWriter struct {
	w *msgWriter
}

// Write implements io.Writer; p is copied. It fails once the client
// connection has failed.
func (cw *CopyWriter) Write(p []byte) (int, error) {
	if cw.w.err != nil {
		return 0, cw.w.err
	}
	pos := cw.w.begin('d')
	cw.w.buf = append(cw.w.buf, p...)
	cw.w.finish(pos)
	if err := cw.w.maybeFlush(); err != nil {
		return 0, err
	}
	return len(p), nil
}
