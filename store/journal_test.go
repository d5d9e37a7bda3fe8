package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// journalStep is one record of a hand-made journal: a chunk, or a ref
// update (the state of the refs after it is in want).
type journalStep struct {
	chunk []byte
	refs  []RefUpdate
	want  map[string]Address // refs after this step, for ref steps
}

// TestJournalReplaysAnyPrefix is the crash test of the journal's format: a
// crash may leave any prefix of what was written. For every cut of a
// journal (at each record boundary and inside records), Open replays
// exactly the whole records before the cut: the refs hold the values of
// the last whole ref record, every ref points at a present chunk, and
// Check passes.
func TestJournalReplaysAnyPrefix(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	db := openDB(t, base, Options{})
	old := put(t, db, chunk(100, 300))
	if err := db.UpdateRefs(ctx, []RefUpdate{{Name: "refs/heads/main", New: old}}, true); err != nil {
		t.Fatal(err)
	}
	db.Close() // leaves an empty journal of some epoch
	epoch := journalEpoch(t, base)

	c1, c2, c3 := chunk(1, 5000), chunk(2, 40), chunk(3, 700)
	steps := []journalStep{
		{chunk: c1},
		{chunk: c2},
		{refs: []RefUpdate{{Name: "refs/heads/main", New: Hash(c2)}, {Name: "refs/tags/v1", New: Hash(c1)}},
			want: map[string]Address{"refs/heads/main": Hash(c2), "refs/tags/v1": Hash(c1)}},
		{chunk: c3},
		{refs: []RefUpdate{{Name: "refs/heads/main", New: Hash(c3)}},
			want: map[string]Address{"refs/heads/main": Hash(c3), "refs/tags/v1": Hash(c1)}},
		{refs: []RefUpdate{{Name: "refs/tags/v1"}},
			want: map[string]Address{"refs/heads/main": Hash(c3)}},
	}
	var records []byte
	var ends []int // where each step's record ends
	for _, s := range steps {
		if s.chunk != nil {
			a := Hash(s.chunk)
			records = appendRecord(records, epoch, recordChunk, a[:], s.chunk)
		} else {
			records = appendRecord(records, epoch, recordRefs, encodeRefs(nil, s.refs), nil)
		}
		ends = append(ends, len(records))
	}
	cuts := map[int]bool{0: true}
	prev := 0
	for _, e := range ends {
		for _, c := range []int{e - 1, e, e + 1, prev + (e-prev)/2, prev + 1} {
			if c >= 0 && c <= len(records) {
				cuts[c] = true
			}
		}
		prev = e
	}
	for cut := range cuts {
		dir := t.TempDir()
		copyDir(t, base, dir)
		// The bytes past the cut are not what was to be written there
		// (where they are, the record is whole: replaying it is right).
		torn := append([]byte(nil), records...)
		for i := cut; i < len(torn); i++ {
			torn[i] ^= 0xff
		}
		appendJournal(t, dir, torn)
		want := map[string]Address{"refs/heads/main": old}
		for i, e := range ends {
			if e <= cut && steps[i].want != nil {
				want = steps[i].want
			}
		}
		db := openDB(t, dir, Options{})
		got := map[string]Address{}
		if err := db.ListRefs(ctx, "refs/", func(name string, a Address) error {
			got[name] = a
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("cut at %d of %d: refs %v, want %v", cut, len(records), got, want)
		}
		for name, a := range want {
			if got[name] != a {
				t.Fatalf("cut at %d of %d: ref %s = %s, want %s", cut, len(records), name, got[name], a)
			}
		}
		if err := db.Check(ctx); err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		// Open itself started a new epoch over an empty journal, even when
		// the cut left only part of a record: those bytes must never be
		// read after new records are appended before them.
		e := journalEpoch(t, dir)
		if e <= epoch && cut > 0 {
			t.Fatalf("cut at %d: epoch %d after open, was %d", cut, e, epoch)
		}
		if b, err := os.ReadFile(filepath.Join(dir, journalFileName)); err != nil {
			t.Fatal(err)
		} else if _, _, _, ok := nextRecord(b[journalHeaderLen:], e); ok {
			t.Fatalf("cut at %d: the reopened journal starts with a valid record of its new epoch", cut)
		}
		db.Close()
	}
}

// TestJournalIgnoresOtherEpochs: records of an earlier epoch, left past the
// end of a restarted journal, are not replayed.
func TestJournalIgnoresOtherEpochs(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	db := openDB(t, base, Options{})
	db.Close()
	epoch := journalEpoch(t, base)
	c := chunk(9, 100)
	a := Hash(c)
	var records []byte
	records = appendRecord(records, epoch-1, recordChunk, a[:], c)
	records = appendRecord(records, epoch-1, recordRefs, encodeRefs(nil, []RefUpdate{{Name: "refs/heads/x", New: a}}), nil)
	appendJournal(t, base, records)
	db = openDB(t, base, Options{})
	defer db.Close()
	if _, ok, err := db.Ref(ctx, "refs/heads/x"); err != nil || ok {
		t.Fatalf("a ref of an earlier epoch was replayed: %v, %v", ok, err)
	}
}

// TestJournalCheckpoints: past journalLimit a commit checkpoints, and the
// journal starts over; the data stays readable after reopening.
func TestJournalCheckpoints(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 70 MiB")
	}
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	var last Address
	written := 0
	for i := uint64(0); written <= journalLimit+(1<<20); i++ {
		last = put(t, db, chunk(i, 64<<10))
		written += 64 << 10
		if i%64 == 0 {
			if err := db.UpdateRefs(ctx, []RefUpdate{{Name: "refs/heads/main", Old: refOf(t, db, "refs/heads/main"), New: last}}, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := db.UpdateRefs(ctx, []RefUpdate{{Name: "refs/heads/main", Old: refOf(t, db, "refs/heads/main"), New: last}}, true); err != nil {
		t.Fatal(err)
	}
	if size := db.journalSize(); size > journalLimit {
		t.Fatalf("journal at %d bytes after passing the limit: no checkpoint", size)
	}
	db.Close()
	db = openDB(t, dir, Options{})
	defer db.Close()
	if got := refOf(t, db, "refs/heads/main"); got != last {
		t.Fatalf("ref after reopening: %s, want %s", got, last)
	}
	if err := db.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// FuzzJournalRecord: the record decoder never panics, never reads past its
// input, accepts only what the encoder writes, and the ref decoder accepts
// only well-formed payloads.
func FuzzJournalRecord(f *testing.F) {
	a := Hash([]byte("x"))
	f.Add(appendRecord(nil, 7, recordChunk, a[:], []byte("x")))
	f.Add(appendRecord(nil, 7, recordRefs, encodeRefs(nil, []RefUpdate{{Name: "refs/heads/main", New: a}, {Name: "r"}}), nil))
	f.Add([]byte{recordRefs, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		kind, payload, n, ok := nextRecord(b, 7)
		if !ok {
			return
		}
		if n > len(b) {
			t.Fatalf("record of %d bytes in %d", n, len(b))
		}
		if re := appendRecord(nil, 7, kind, payload, nil); !bytes.Equal(re, b[:n]) {
			t.Fatalf("re-encoded record differs: %x, was %x", re, b[:n])
		}
		if kind == recordRefs {
			if updates, err := decodeRefs(payload); err == nil {
				if re := encodeRefs(nil, updates); !bytes.Equal(re, payload) {
					t.Fatalf("re-encoded refs differ: %x, was %x", re, payload)
				}
			}
		}
	})
}

// journalEpoch reads the epoch of dir's journal.
func journalEpoch(t *testing.T, dir string) uint64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, journalFileName))
	if err != nil || len(b) < journalHeaderLen {
		t.Fatalf("reading the journal: %d bytes, %v", len(b), err)
	}
	return binary.LittleEndian.Uint64(b[8:16])
}

// appendJournal writes records as the first of dir's journal, which a
// Close left empty, over what follows its header (zeros or older epochs).
func appendJournal(t *testing.T, dir string, records []byte) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, journalFileName), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(records, journalHeaderLen); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// copyDir copies the files of a closed store.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		src, err := os.Open(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		dst, err := os.Create(filepath.Join(to, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(dst, src); err != nil {
			t.Fatal(err)
		}
		src.Close()
		if err := dst.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// refOf returns a ref's value, zero if absent.
func refOf(t *testing.T, db *DB, name string) Address {
	t.Helper()
	a, _, err := db.Ref(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
