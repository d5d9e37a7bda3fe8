package exec

import (
	"bufio"
	"bytes"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/store"
)

// entrySorter sorts the entries of a map being built in bulk and writes the
// map, in bounded memory: a CREATE INDEX or a table rewrite may produce
// more entries than fit in memory.
//
// Entries are buffered up to a byte budget (the statement's write buffer,
// maintenance_work_mem). Past it, the buffer is sorted and written to a
// temporary file as a run, and a new buffer starts. Finish merges the runs
// and the last buffer, and writes the entries in key order to a
// prolly.Builder. When nothing spilled, Finish sorts and writes the buffer
// alone, as build does, and no file is made.
//
// Invariants: every run file holds entries in increasing key order (equal
// keys adjacent); between calls, the buffer accounts for fewer bytes than
// the budget (entrySize), and a merge reads at most fanIn runs at once, so
// that a sort holds about twice its budget at most; the runs live in a single temporary directory, made at the first
// spill and removed by Close, which callers defer so that it is removed on
// error too. The duplicate rules of build apply to the merged sequence,
// across runs.
//
// An entrySorter is not safe for concurrent use, and must not be used
// after Finish or Close.
type entrySorter struct {
	cs     prolly.ChunkStore
	budget int64 // bytes of entries buffered before a spill
	fanIn  int   // runs merged at once (bounds the open files and readers)

	buf  []entry
	size int64 // bytes buf accounts for (entrySize)

	dir     string   // directory of the runs; "" until the first spill
	runs    []string // run files not yet merged, oldest first
	nextRun int      // number of the next run file
	scratch []byte   // encoding buffer of one entry
}

const (
	// sortEntryOverhead approximates the memory of a buffered entry
	// beyond its key and value: the entry itself in the buffer, and the
	// allocation headers of its slices.
	sortEntryOverhead = 64

	// runBufferSize is the size of the buffered reader and writer of a
	// run file.
	runBufferSize = 32 << 10

	// minSortBudget keeps a tiny budget from writing a run per entry;
	// minFanIn and maxFanIn bound the runs merged at once.
	minSortBudget = 4 << 10
	minFanIn      = 8
	maxFanIn      = 128
)

// newEntrySorter returns a sorter that writes into cs and buffers up to
// budget bytes of entries in memory.
func newEntrySorter(cs prolly.ChunkStore, budget int64) *entrySorter {
	budget = max(budget, minSortBudget)
	return &entrySorter{
		cs:     cs,
		budget: budget,
		// The readers of a merge take about as much memory as the
		// buffer, within the bounds: a merge of fewer runs than the
		// minimum would make too many passes, and one of more than the
		// maximum would hold too many open files.
		fanIn: int(min(max(budget/runBufferSize, minFanIn), maxFanIn)),
	}
}

// sortBudget returns the bytes each of n sorters alive at once may buffer:
// the statement's write buffer shared among them.
func (tx *Txn) sortBudget(n int) int64 {
	return tx.writeBufferBytes() / int64(max(n, 1))
}

func entrySize(e entry) int64 {
	return int64(len(e.key)+len(e.val)) + sortEntryOverhead
}

// Add adds an entry. The sorter keeps e's slices, which the caller must
// not modify afterwards.
func (s *entrySorter) Add(ctx context.Context, e entry) error {
	s.buf = append(s.buf, e)
	s.size += entrySize(e)
	if s.size < s.budget {
		return nil
	}
	return s.spill(ctx)
}

// spill sorts the buffer, writes it as a new run and empties it.
func (s *entrySorter) spill(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.dir == "" {
		dir, err := os.MkdirTemp("", "pgserver-sort-")
		if err != nil {
			return fmt.Errorf("external sort: %w", err)
		}
		s.dir = dir
	}
	sortEntries(s.buf)
	i := 0
	err := s.writeRun(func() (entry, bool, error) {
		if i == len(s.buf) {
			return entry{}, false, nil
		}
		i++
		return s.buf[i-1], true, nil
	})
	if err != nil {
		return err
	}
	clear(s.buf) // let the collector have the keys and values
	s.buf, s.size = s.buf[:0], 0
	return nil
}

// writeRun writes the entries next returns, in order, to a new run file.
func (s *entrySorter) writeRun(next func() (entry, bool, error)) error {
	name := filepath.Join(s.dir, fmt.Sprintf("run-%06d", s.nextRun))
	s.nextRun++
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("external sort: create run: %w", err)
	}
	w := bufio.NewWriterSize(f, runBufferSize)
	for {
		e, ok, err := next()
		if err != nil {
			f.Close()
			return err
		}
		if !ok {
			break
		}
		b := binary.AppendUvarint(s.scratch[:0], uint64(len(e.key)))
		b = append(b, e.key...)
		b = binary.AppendUvarint(b, uint64(len(e.val)))
		b = append(b, e.val...)
		b = binary.AppendUvarint(b, uint64(e.n))
		s.scratch = b
		if _, err := w.Write(b); err != nil {
			f.Close()
			return fmt.Errorf("external sort: write run %s: %w", name, err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("external sort: write run %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("external sort: write run %s: %w", name, err)
	}
	s.runs = append(s.runs, name)
	return nil
}

// Finish writes the map of the entries added and returns its root. Two
// entries with equal keys, or equal unique prefixes, make it call dupErr
// with the first one's key, as build does. Finish closes the sorter.
func (s *entrySorter) Finish(ctx context.Context, dupErr func(key []byte) error) (_ store.Address, err error) {
	defer func() {
		if cerr := s.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	if len(s.runs) == 0 {
		return build(ctx, s.cs, s.buf, dupErr)
	}
	// Merge the oldest runs into one until a last merge can take the
	// remaining runs and the buffer.
	for len(s.runs) > s.fanIn-1 {
		if err := ctx.Err(); err != nil {
			return store.Address{}, err
		}
		if err := s.mergeRuns(s.fanIn); err != nil {
			return store.Address{}, err
		}
	}
	sortEntries(s.buf)
	m, err := s.openMerge(s.runs, s.buf)
	if err != nil {
		return store.Address{}, err
	}
	defer m.close()
	w := newMapWriter(s.cs, dupErr)
	for n := 0; ; n++ {
		if n%(1<<14) == 0 {
			if err := ctx.Err(); err != nil {
				return store.Address{}, err
			}
		}
		e, ok, err := m.next()
		if err != nil {
			return store.Address{}, err
		}
		if !ok {
			break
		}
		if err := w.add(ctx, e); err != nil {
			return store.Address{}, err
		}
	}
	return w.finish(ctx)
}

// mergeRuns merges the oldest k runs into a new run and removes them.
func (s *entrySorter) mergeRuns(k int) error {
	in := s.runs[:k]
	m, err := s.openMerge(in, nil)
	if err != nil {
		return err
	}
	err = s.writeRun(m.next)
	m.close()
	if err != nil {
		return err
	}
	for _, name := range in {
		if err := os.Remove(name); err != nil {
			return fmt.Errorf("external sort: %w", err)
		}
	}
	s.runs = slices.Delete(s.runs, 0, k)
	return nil
}

// Close removes the sorter's run files and releases its buffer. It may be
// called more than once.
func (s *entrySorter) Close() error {
	s.buf, s.runs = nil, nil
	if s.dir == "" {
		return nil
	}
	dir := s.dir
	s.dir = ""
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("external sort: %w", err)
	}
	return nil
}

// sortEntries sorts entries by key.
func sortEntries(entries []entry) {
	slices.SortFunc(entries, func(a, b entry) int { return bytes.Compare(a.key, b.key) })
}

// mapWriter writes entries given in key order as a map, and reports the
// first duplicate: an entry whose key, or whose unique prefix, equals the
// previous one's.
type mapWriter struct {
	b       *prolly.Builder
	dupErr  func(key []byte) error
	prev    []byte // key of the previous entry (a copy)
	prevN   int
	started bool
}

func newMapWriter(cs prolly.ChunkStore, dupErr func(key []byte) error) *mapWriter {
	return &mapWriter{b: prolly.NewBuilder(cs), dupErr: dupErr}
}

// add writes e; e may be reused once add returns.
func (w *mapWriter) add(ctx context.Context, e entry) error {
	if w.started {
		if e.n > 0 && w.prevN == e.n && bytes.Equal(w.prev[:w.prevN], e.key[:e.n]) || bytes.Equal(w.prev, e.key) {
			return w.dupErr(w.prev)
		}
	}
	if err := w.b.Add(ctx, e.key, e.val); err != nil {
		return err
	}
	w.prev, w.prevN, w.started = append(w.prev[:0], e.key...), e.n, true
	return nil
}

func (w *mapWriter) finish(ctx context.Context) (store.Address, error) {
	m, err := w.b.Finish(ctx)
	if err != nil {
		return store.Address{}, err
	}
	return m.Root(), nil
}

// runMerge yields the entries of several sorted sources in key order; of
// equal keys, the one of the earlier source first.
type runMerge struct {
	h     mergeHeap
	all   []*mergeSource
	moved bool // h[0] was returned: advance it first
}

// mergeSource is a run file being read, or the rest of the in-memory
// buffer (r nil).
type mergeSource struct {
	cur  entry // valid until the source advances
	ord  int   // position of the source, for ties
	r    *runReader
	rest []entry
}

// openMerge opens the runs named and the sorted buffer mem.
func (s *entrySorter) openMerge(runs []string, mem []entry) (*runMerge, error) {
	m := &runMerge{}
	for i, name := range runs {
		r, err := openRun(name)
		if err != nil {
			m.close()
			return nil, err
		}
		m.all = append(m.all, &mergeSource{ord: i, r: r})
	}
	if len(mem) > 0 {
		m.all = append(m.all, &mergeSource{ord: len(runs), rest: mem})
	}
	for _, src := range m.all {
		ok, err := src.advance()
		if err != nil {
			m.close()
			return nil, err
		}
		if ok {
			m.h = append(m.h, src)
		}
	}
	heap.Init(&m.h)
	return m, nil
}

// next returns the next entry, valid until the following call.
func (m *runMerge) next() (entry, bool, error) {
	if m.moved {
		ok, err := m.h[0].advance()
		switch {
		case err != nil:
			return entry{}, false, err
		case ok:
			heap.Fix(&m.h, 0)
		default:
			heap.Pop(&m.h)
		}
	}
	if len(m.h) == 0 {
		m.moved = false
		return entry{}, false, nil
	}
	m.moved = true
	return m.h[0].cur, true, nil
}

func (m *runMerge) close() {
	for _, src := range m.all {
		if src.r != nil {
			src.r.f.Close()
		}
	}
}

func (src *mergeSource) advance() (bool, error) {
	if src.r != nil {
		return src.r.read(&src.cur)
	}
	if len(src.rest) == 0 {
		return false, nil
	}
	src.cur, src.rest = src.rest[0], src.rest[1:]
	return true, nil
}

type mergeHeap []*mergeSource

func (h mergeHeap) Len() int { return len(h) }

func (h mergeHeap) Less(i, j int) bool {
	if c := bytes.Compare(h[i].cur.key, h[j].cur.key); c != 0 {
		return c < 0
	}
	return h[i].ord < h[j].ord
}

func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }

func (h *mergeHeap) Push(x any) { *h = append(*h, x.(*mergeSource)) }

func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}

// runReader reads the entries of a run file.
type runReader struct {
	name string
	f    *os.File
	r    *bufio.Reader
	buf  []byte // the current entry's key and value
}

func openRun(name string) (*runReader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("external sort: %w", err)
	}
	return &runReader{name: name, f: f, r: bufio.NewReaderSize(f, runBufferSize)}, nil
}

// read reads the next entry into e, whose slices stay valid until the
// following read. It returns false at the end of the run.
func (r *runReader) read(e *entry) (bool, error) {
	klen, err := binary.ReadUvarint(r.r)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, r.corrupt(err)
	}
	if r.buf, err = r.readBytes(r.buf[:0], klen); err != nil {
		return false, err
	}
	vlen, err := binary.ReadUvarint(r.r)
	if err != nil {
		return false, r.corrupt(err)
	}
	if r.buf, err = r.readBytes(r.buf, vlen); err != nil {
		return false, err
	}
	n, err := binary.ReadUvarint(r.r)
	if err != nil {
		return false, r.corrupt(err)
	}
	if n > klen {
		return false, r.corrupt(fmt.Errorf("unique prefix of %d bytes in a key of %d", n, klen))
	}
	*e = entry{key: r.buf[:klen:klen], val: r.buf[klen:], n: int(n)}
	return true, nil
}

// readBytes appends n bytes of the run to b.
func (r *runReader) readBytes(b []byte, n uint64) ([]byte, error) {
	l := len(b)
	b = slices.Grow(b, int(n))[:l+int(n)]
	if _, err := io.ReadFull(r.r, b[l:]); err != nil {
		return b, r.corrupt(err)
	}
	return b, nil
}

func (r *runReader) corrupt(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("external sort: read run %s: %w", r.name, err)
}
