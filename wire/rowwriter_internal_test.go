package wire

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"
)

// TestRowWriterAllocs guards the hot path: writing rows allocates nothing
// once the buffer has grown.
func TestRowWriterAllocs(t *testing.T) {
	w := &msgWriter{w: io.Discard, buf: make([]byte, 0, 64<<10)}
	rw := &RowWriter{w: w, row: -1, val: -1}
	name := []byte("some text value")
	var i int64
	allocs := testing.AllocsPerRun(10000, func() {
		buf := rw.BeginValue()
		buf = binary.BigEndian.AppendUint64(buf, uint64(i))
		rw.EndValue(buf)
		rw.Value(name)
		rw.Null()
		if err := rw.EndRow(); err != nil {
			t.Fatal(err)
		}
		i++
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per row", allocs)
	}
	// The DataRow is well formed.
	w.buf = w.buf[:0]
	rw.Value([]byte("a"))
	rw.Null()
	rw.EndRow()
	want := []byte{'D', 0, 0, 0, 4 + 2 + 4 + 1 + 4, 0, 2, 0, 0, 0, 1, 'a', 0xff, 0xff, 0xff, 0xff}
	if !bytes.Equal(w.buf, want) {
		t.Fatalf("DataRow %v, want %v", w.buf, want)
	}
}
