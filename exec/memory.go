package exec

import (
	"fmt"
	"unsafe"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// A statement's buffers — a sort's rows, the hash tables of joins,
// aggregates, DISTINCT, set operations and IN subqueries, a CTE's rows, a
// window partition — grow with its input. They are counted against
// max_query_memory (Settings.MaxQueryMemory), so that a statement too big
// for memory fails with PostgreSQL's out-of-memory error (53200) instead
// of the server process running out of memory and taking every session
// with it. The count is an estimate (a Datum's size plus the bytes it
// points to), kept per statement in its root frame, and only grows: a
// statement's peak is what matters, and buffers are freed when it ends.

// datumSize is the size of a Datum itself.
const datumSize = int64(unsafe.Sizeof(Datum{}))

// hold counts the memory of row, which a buffer of the statement now
// keeps, and fails with 53200 once the statement's buffers pass
// max_query_memory.
func (env *Env) hold(row []Datum) error {
	if env.Settings == nil || env.Settings.MaxQueryMemory <= 0 {
		return nil
	}
	f := env.rootFrame()
	f.held += rowSize(row)
	if f.held > env.Settings.MaxQueryMemory {
		return pgerr.New(pgerr.OutOfMemory, "out of memory").
			WithDetail("The statement's buffered rows need more than max_query_memory (%s).", formatBytes(env.Settings.MaxQueryMemory)).
			WithHint("Add a LIMIT or a more selective WHERE clause, or raise max_query_memory.")
	}
	return nil
}

// rowSize estimates the bytes a copy of row occupies.
func rowSize(row []Datum) int64 {
	n := int64(len(row)) * datumSize
	for _, d := range row {
		n += int64(len(d.S))
		switch x := d.X.(type) {
		case []byte:
			n += int64(len(x))
		case *Array:
			n += rowSize(x.Elems)
		case *Record:
			n += rowSize(x.Fields)
		case nil:
		default:
			n += 32 // a numeric, an interval, ...: small
		}
	}
	return n
}

// formatBytes writes a memory setting's value as PostgreSQL shows one.
func formatBytes(n int64) string {
	for _, u := range []struct {
		unit string
		size int64
	}{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.unit)
		}
	}
	return fmt.Sprintf("%dB", n)
}
