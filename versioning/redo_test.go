package versioning

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// editReplayer is a transaction that keeps its changes as edits of table
// public.t (rows and its one index), as exec's deferred tables do.
type editReplayer struct {
	testEncoder
	start      RootValue
	rows, idx  []prolly.Edit
	replayable bool
}

func (e *editReplayer) Deferred() bool { return true }

func (e *editReplayer) SequenceAdvances() []SequenceAdvance { return nil }

func (e *editReplayer) Edits(context.Context, RootValue) ([]TableEdits, bool, error) {
	return []TableEdits{{Schema: "public", Name: "t", Rows: e.rows, Indexes: [][]prolly.Edit{e.idx}}}, e.replayable, nil
}

func (e *editReplayer) Materialized(ctx context.Context) (RootValue, error) {
	edits, _, _ := e.Edits(ctx, e.start)
	return ApplyEdits(ctx, e.start, EditGroup{Tables: edits}, nil)
}

// insertion returns a transaction inserting row i (v0 "r<i>", v1 "g<i%3>",
// indexed) into start.
func insertion(start RootValue, i int, replayable bool) *editReplayer {
	v1 := fmt.Sprint("g", i%3)
	return &editReplayer{
		start:      start,
		rows:       []prolly.Edit{{Key: rowKey(i), Value: row(fmt.Sprint("r", i), v1)}},
		idx:        []prolly.Edit{{Key: append(append([]byte(v1), 0), rowKey(i)...), Value: nil}},
		replayable: replayable,
	}
}

// TestRedoRecordsReplay commits batches of replayed transactions (their
// working sets journaled as redo records) and some merged ones, copies the
// store's directory while it is open (what a kill -9 leaves), and opens
// the copy: replaying the records gives the very working set the live
// store has, with every row and index entry.
func TestRedoRecordsReplay(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(dir, store.Options{Redo: ReplayWorkingSet})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := JournalReached(st); !ok {
		t.Fatal("store.DB has no reach function")
	}
	r, err := CreateDatabase(ctx, st, "db", who)
	if err != nil {
		t.Fatal(err)
	}
	var c Committer
	r.SetCommitter(&c)
	base := mustRoot(t, r)
	empty, err := prolly.NewMap(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	tbl := &sqldef.Table{Schema: "public", Name: "t", PrimaryKey: []int{0},
		Columns: []sqldef.Column{{Name: "v0", Type: 25, Typmod: -1}, {Name: "v1", Type: 25, Typmod: -1}},
		Indexes: []sqldef.Index{{Name: "t_v1", Columns: []sqldef.IndexColumn{{Column: 1}}, Rows: empty.Root()}},
		Rows:    empty.Root()}
	withTable, err := base.PutTable(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.CommitTransaction(ctx, DefaultBranch, base, withTable, nil); err != nil {
		t.Fatal(err)
	}

	const writers = 60
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := mustRoot(t, r)
			// Every tenth goes the merging way, so that some batches mix.
			tx := insertion(start, w, w%10 != 9)
			_, errs[w] = c.Commit(ctx, r, DefaultBranch, start, start, tx)
		}()
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", w, err)
		}
	}
	// A last batch of replayed transactions only, so that the journal ends
	// with a redo record.
	start := mustRoot(t, r)
	if _, err := c.Commit(ctx, r, DefaultBranch, start, start, insertion(start, writers, true)); err != nil {
		t.Fatal(err)
	}
	if err := st.Sync(); err != nil {
		t.Fatal(err)
	}
	live, _, err := r.WorkingSet(ctx, DefaultBranch)
	if err != nil {
		t.Fatal(err)
	}

	crashed := t.TempDir()
	copyOpenDir(t, dir, crashed)
	if _, err := store.Open(crashed, store.Options{}); err == nil {
		t.Fatal("a journal of redo records opened without Options.Redo")
	}
	st2, err := store.Open(crashed, store.Options{Redo: ReplayWorkingSet})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	r2, err := OpenDatabase(ctx, st2, "db")
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := r2.WorkingSet(ctx, DefaultBranch)
	if err != nil {
		t.Fatal(err)
	}
	if got != live {
		t.Fatalf("replayed working set %s, the live store's %s", got, live)
	}
	tb, _, err := mustRoot(t, r2).Table(ctx, "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := prolly.Load(ctx, st2, tb.Rows)
	idx, _ := prolly.Load(ctx, st2, tb.Indexes[0].Rows)
	if rows.Count() != writers+1 || idx.Count() != writers+1 {
		t.Fatalf("after replay: %d rows and %d index entries, want %d", rows.Count(), idx.Count(), writers+1)
	}
	if err := st2.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// copyOpenDir copies the files of a store that is open but idle: what the
// disk holds if the process is killed at that moment. Only the data
// regions are copied (Badger's files are mostly preallocated holes).
func copyOpenDir(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "LOCK" {
			continue
		}
		if err := copySparse(filepath.Join(from, e.Name()), filepath.Join(to, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}

// copySparse copies the file src to dst, region by region of data.
func copySparse(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer out.Close()
	fd := int(in.Fd())
	for off := int64(0); off < fi.Size(); {
		data, err := unix.Seek(fd, off, unix.SEEK_DATA)
		if err != nil {
			break // no data past off (ENXIO)
		}
		hole, err := unix.Seek(fd, data, unix.SEEK_HOLE)
		if err != nil {
			return err
		}
		if _, err := io.Copy(io.NewOffsetWriter(out, data), io.NewSectionReader(in, data, hole-data)); err != nil {
			return err
		}
		off = hole
	}
	if err := out.Truncate(fi.Size()); err != nil {
		return err
	}
	return out.Close()
}

// FuzzRedoBody: the body decoder never panics, and what it accepts
// encodes back to the same bytes.
func FuzzRedoBody(f *testing.F) {
	f.Add(encodeRedoBody(nil))
	f.Add(encodeRedoBody([]EditGroup{{Tables: []TableEdits{{Schema: "public", Name: "t", NextRowID: 7,
		Rows:    []prolly.Edit{{Key: []byte("k"), Value: []byte("v")}, {Key: []byte("l"), Delete: true}},
		Indexes: [][]prolly.Edit{{{Key: []byte("i")}}, nil}}}}, {Sequences: []SequenceAdvance{{Schema: "public", Name: "s", Last: -3, Called: true}}}}))
	f.Add([]byte{1, 1, 1, 1, 't', 1, 'u', 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		groups, err := decodeRedoBody(b)
		if err != nil {
			return
		}
		re := encodeRedoBody(groups)
		if b[0] == redoBodyVersion && !bytes.Equal(re, b) {
			t.Fatalf("re-encoded body differs: %x, was %x", re, b)
		}
		// A version 1 body is written again as the current version,
		// which must decode to the same groups.
		if again, err := decodeRedoBody(re); err != nil || !bytes.Equal(encodeRedoBody(again), re) {
			t.Fatalf("re-encoded body does not decode to itself: %v", err)
		}
	})
}

// TestRedoBodyRoundTrip: a body decodes to the edits it was made of.
func TestRedoBodyRoundTrip(t *testing.T) {
	groups := []EditGroup{
		{Tables: []TableEdits{{Schema: "public", Name: "t", NextRowID: -1,
			Rows:    []prolly.Edit{{Key: []byte{1}, Value: bytes.Repeat([]byte("x"), 300)}, {Key: []byte{2}, Delete: true}},
			Indexes: [][]prolly.Edit{{{Key: []byte("a\x00\x01"), Value: []byte{}}}}}}},
		{Tables: []TableEdits{{Schema: "s", Name: "u", NextRowID: 1 << 40, Indexes: [][]prolly.Edit{}}},
			Sequences: []SequenceAdvance{{Schema: "s", Name: "u_id_seq", Last: 1 << 50, Called: true}, {Schema: "s", Name: "v", Last: -7}}},
	}
	got, err := decodeRedoBody(encodeRedoBody(groups))
	if err != nil {
		t.Fatal(err)
	}
	g0, g1 := got[0].Tables, got[1].Tables
	if len(got) != 2 || g0[0].NextRowID != -1 || g1[0].NextRowID != 1<<40 || g1[0].Name != "u" ||
		!slices.EqualFunc(g0[0].Rows, groups[0].Tables[0].Rows, func(a, b prolly.Edit) bool {
			return bytes.Equal(a.Key, b.Key) && bytes.Equal(a.Value, b.Value) && a.Delete == b.Delete
		}) || len(g0[0].Indexes) != 1 || !bytes.Equal(g0[0].Indexes[0][0].Key, []byte("a\x00\x01")) ||
		got[0].Sequences != nil || !slices.Equal(got[1].Sequences, groups[1].Sequences) {
		t.Fatalf("decoded %+v", got)
	}
}

// TestReplayGroupUniqueKeys: a batch's group of replayed transactions takes
// no two that take one unique key (each was checked against the same
// working root, which holds neither): the second waits for the next group,
// whose check against the first's result sends it to the merge.
func TestReplayGroupUniqueKeys(t *testing.T) {
	edits := func(row string, index int, prefix string) []TableEdits {
		return []TableEdits{{Schema: "public", Name: "t", Rows: []prolly.Edit{{Key: []byte(row), Value: []byte("v")}},
			Indexes: [][]prolly.Edit{nil, nil}, Unique: []UniqueKey{{Index: index, Prefix: []byte(prefix)}}}}
	}
	req := func() *commitRequest { return &commitRequest{replay: &editReplayer{}} }
	var g replayGroup
	if !g.add(req(), edits("r1", 0, "x")) {
		t.Fatal("the first transaction was refused")
	}
	if g.add(req(), edits("r2", 0, "x")) {
		t.Fatal("a second transaction taking unique key x of index 0 joined the group")
	}
	if !g.add(req(), edits("r3", 1, "x")) || !g.add(req(), edits("r4", 0, "y")) {
		t.Fatal("a transaction taking another index's or another unique key was refused")
	}
	if len(g.reqs) != 3 || len(g.tables["public\x00t\x00"].Rows) != 3 {
		t.Fatalf("group of %d transactions, %d rows", len(g.reqs), len(g.tables["public\x00t\x00"].Rows))
	}
}
