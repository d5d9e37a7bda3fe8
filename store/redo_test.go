package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The redo tests use a toy change: a ref points at a parent chunk (the
// format of toyReach) whose one child is a counter chunk, 'n', the counter
// (8 bytes), then padding derived from the counter; a redo record's body
// is the amount (8 bytes) the counter grows by.

// counterChunk returns the counter chunk of n, of size bytes.
func counterChunk(n uint64, size int) []byte {
	b := append([]byte{'n'}, binary.LittleEndian.AppendUint64(nil, n)...)
	return append(b, chunk(n, size-len(b))...)
}

// putCounter Puts the parent and counter chunks of n with ctx, and returns
// the parent's address.
func putCounter(ctx context.Context, db *DB, n uint64, size int) (Address, error) {
	c, err := db.Put(ctx, counterChunk(n, size))
	if err != nil {
		return Address{}, err
	}
	return db.Put(ctx, parentChunk('q', c))
}

// readCounter returns the counter the parent chunk at a leads to.
func readCounter(ctx context.Context, db *DB, a Address) (n uint64, size int, err error) {
	p, err := db.Get(ctx, a)
	if err != nil {
		return 0, 0, err
	}
	if len(p) != 2+AddressSize || p[0] != 'p' || p[1] != 'q' {
		return 0, 0, fmt.Errorf("not a counter's parent: %x", p)
	}
	c, err := db.Get(ctx, Address(p[2:]))
	if err != nil {
		return 0, 0, err
	}
	if len(c) < 9 || c[0] != 'n' {
		return 0, 0, fmt.Errorf("not a counter: %x", c[:min(len(c), 16)])
	}
	return binary.LittleEndian.Uint64(c[1:9]), len(c), nil
}

// toyRedo is the RedoFunc of the toy change.
func toyRedo(ctx context.Context, db *DB, old Address, body []byte) (Address, error) {
	if len(body) != 8 {
		return Address{}, errors.New("bad body")
	}
	n, size, err := readCounter(ctx, db, old)
	if err != nil {
		return Address{}, err
	}
	return putCounter(ctx, db, n+binary.LittleEndian.Uint64(body), size)
}

const (
	redoChildEnv   = "PROLLYPG_STORE_REDO_DIR"
	redoUpdatesEnv = "PROLLYPG_STORE_REDO_UPDATES"
	redoSizeEnv    = "PROLLYPG_STORE_REDO_SIZE"
	redoRef        = "refs/heads/main"
)

// TestRedoChild is the child process of TestRedoSurvivesKill: it counts up
// with redo records (the amount of update i is i+1), syncing every 16
// updates, prints "ACKED <counter>" after each sync and is killed while
// it goes on.
func TestRedoChild(t *testing.T) {
	dir := os.Getenv(redoChildEnv)
	if dir == "" {
		t.Skip("helper process of TestRedoSurvivesKill")
	}
	updates, _ := strconv.Atoi(os.Getenv(redoUpdatesEnv))
	size, _ := strconv.Atoi(os.Getenv(redoSizeEnv))
	ctx := context.Background()
	db, err := Open(dir, Options{Redo: toyRedo})
	if err != nil {
		t.Fatal(err)
	}
	db.SetReach(toyReach(db))
	cur, err := putCounter(ctx, db, 0, size)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.UpdateRefs(ctx, []RefUpdate{{Name: redoRef, New: cur}}, true); err != nil {
		t.Fatal(err)
	}
	rctx := WithRedoWriter(ctx)
	var n uint64
	for i := 0; ; i++ {
		delta := uint64(i + 1)
		since := db.RedoEpoch()
		next, err := putCounter(rctx, db, n+delta, size)
		if err != nil {
			t.Fatal(err)
		}
		err = db.UpdateRefRedo(ctx, RefUpdate{Name: redoRef, Old: cur, New: next}, binary.LittleEndian.AppendUint64(nil, delta), since)
		if errors.Is(err, ErrRedoStale) {
			// A spill began meanwhile: journal the chunks, as the
			// committer does.
			err = db.UpdateRefs(ctx, []RefUpdate{{Name: redoRef, Old: cur, New: next}}, false)
		}
		if err != nil {
			t.Fatal(err)
		}
		cur, n = next, n+delta
		if i%16 == 15 {
			if err := db.Sync(); err != nil {
				t.Fatal(err)
			}
			if i >= updates {
				fmt.Printf("ACKED %d\n", n)
				os.Stdout.Sync()
			}
		}
	}
}

// TestRedoSurvivesKill kills a process that moves a ref with redo records
// (kill -9) and checks that the reopened store redoes them: the ref holds
// at least the last value acknowledged, its chunks are readable, and
// Check passes; without Options.Redo, Open refuses the journal instead of
// losing its redo records. The cases: records only; redo chunks past
// redoSpillLimit, spilled to Badger on the way; and past
// redoCheckpointRecords, so that the journal started over.
func TestRedoSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	t.Run("journal", func(t *testing.T) { testRedoSurvivesKill(t, 200, 4096) })
	t.Run("spilled", func(t *testing.T) { testRedoSurvivesKill(t, 2*redoSpillLimit/4096, 4096) })
	t.Run("checkpointed", func(t *testing.T) { testRedoSurvivesKill(t, redoCheckpointRecords+2000, 64) })
}

func testRedoSurvivesKill(t *testing.T, updates, size int) {
	dir := t.TempDir()
	acked, err := strconv.ParseUint(killChildAt(t, "TestRedoChild", "ACKED ", redoChildEnv+"="+dir,
		redoUpdatesEnv+"="+strconv.Itoa(updates), redoSizeEnv+"="+strconv.Itoa(size)), 10, 64)
	if err != nil || acked == 0 {
		t.Fatalf("child acknowledged %d (%v)", acked, err)
	}

	if db, err := Open(dir, Options{}); err == nil {
		db.Close()
		if updates < redoCheckpointRecords {
			t.Fatal("Open without Options.Redo accepted a journal of redo records")
		}
	} else if !strings.Contains(err.Error(), "redo") {
		t.Fatalf("Open without Options.Redo: %v", err)
	}
	db := openDB(t, dir, Options{Redo: toyRedo})
	defer db.Close()
	bg := context.Background()
	n, gotSize, err := readCounter(bg, db, refOf(t, db, redoRef))
	if err != nil {
		t.Fatalf("after kill -9: %v", err)
	}
	if n < acked || gotSize != size {
		t.Fatalf("after kill -9: counter %d (%d bytes), acknowledged %d", n, gotSize, acked)
	}
	if err := db.Check(bg); err != nil {
		t.Fatal(err)
	}
	t.Logf("acknowledged %d, found %d", acked, n)
}

// TestRedoSpillWritesOnlyReached: a spill writes to Badger the redo chunks
// the ref reaches, not the journal, and leaves the rest (older values of
// the ref) in memory, readable, until a second spill hands them to
// DropFresh; they never reach the disk. After a reopen the ref's chunks
// are all there.
func TestRedoSpillWritesOnlyReached(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir, Options{Redo: toyRedo})
	db.SetReach(toyReach(db))
	cur, err := putCounter(ctx, db, 0, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.UpdateRefs(ctx, []RefUpdate{{Name: redoRef, New: cur}}, true); err != nil {
		t.Fatal(err)
	}
	journaled := db.Stats().BytesJournaled
	rctx := WithRedoWriter(ctx)
	var all []Address
	// Few enough that the background flusher does not spill on its own.
	for n := uint64(1); n <= 100; n++ {
		since := db.RedoEpoch()
		next, err := putCounter(rctx, db, n, 4096)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.UpdateRefRedo(ctx, RefUpdate{Name: redoRef, Old: cur, New: next}, binary.LittleEndian.AppendUint64(nil, 1), since); err != nil {
			t.Fatal(err)
		}
		cur = next
		all = append(all, next)
	}
	spill := func() {
		t.Helper()
		db.closeMu.RLock()
		db.flushMu.Lock()
		err := db.spillRedo(ctx)
		db.flushMu.Unlock()
		db.closeMu.RUnlock()
		if err != nil {
			t.Fatal(err)
		}
	}
	spill()
	if st := db.Stats(); st.RedoSpilled != 2 || st.RedoDropped != 2*99 {
		t.Fatalf("spill wrote %d and left %d redo chunks; want the 2 the ref reaches and the other %d", st.RedoSpilled, st.RedoDropped, 2*99)
	}
	if n := db.Stats().BytesJournaled - journaled; n != 0 {
		t.Fatalf("%d bytes journaled: redo chunks go to Badger, not the journal", n)
	}
	if _, buffered, _ := db.pending.get(cur); buffered {
		t.Fatal("the ref's chunk is still buffered after the spill")
	}
	for i, a := range all {
		if n, _, err := readCounter(ctx, db, a); err != nil || n != uint64(i+1) {
			t.Fatalf("redo chunk %d after the spill: %d, %v", i+1, n, err)
		}
	}
	spill() // the limbo chunks become droppable
	if n, _ := db.DropFresh(db.NextGeneration()); n != 2*99 {
		t.Fatalf("DropFresh dropped %d chunks, want the %d no ref reaches", n, 2*99)
	}
	if _, err := db.Get(ctx, all[0]); !errors.Is(err, ErrNotFound) {
		t.Fatalf("an unreached redo chunk after the drop: %v, want ErrNotFound (never written)", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openDB(t, dir, Options{})
	defer db.Close()
	if n, _, err := readCounter(ctx, db, refOf(t, db, redoRef)); err != nil || n != uint64(len(all)) {
		t.Fatalf("after reopening: %d, %v; want %d", n, err, len(all))
	}
	if err := db.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestRedoReachedIsJournaled: a ref update that reaches redo chunks (a
// tag of the value a redo record set) journals them like any fresh chunk;
// a redo record of a ref that moved meanwhile fails with ErrRefConflict,
// and one whose chunks were written before a spill began (its epoch is
// not the store's) with ErrRedoStale.
func TestRedoReachedIsJournaled(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir(), Options{Redo: toyRedo})
	defer db.Close()
	db.SetReach(toyReach(db))
	cur, err := putCounter(ctx, db, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.UpdateRefs(ctx, []RefUpdate{{Name: redoRef, New: cur}}, true); err != nil {
		t.Fatal(err)
	}
	since := db.RedoEpoch()
	next, err := putCounter(WithRedoWriter(ctx), db, 5, 100)
	if err != nil {
		t.Fatal(err)
	}
	body := binary.LittleEndian.AppendUint64(nil, 5)
	if err := db.UpdateRefRedo(ctx, RefUpdate{Name: redoRef, Old: next, New: next}, body, since); !errors.Is(err, ErrRefConflict) {
		t.Fatalf("redo record of a moved ref: %v, want ErrRefConflict", err)
	}
	if err := db.UpdateRefRedo(ctx, RefUpdate{Name: redoRef, Old: cur, New: next}, body, since+1); !errors.Is(err, ErrRedoStale) {
		t.Fatalf("redo record of chunks a spill may have taken for garbage: %v, want ErrRedoStale", err)
	}
	if err := db.UpdateRefRedo(ctx, RefUpdate{Name: redoRef, Old: cur, New: next}, body, since); err != nil {
		t.Fatal(err)
	}
	before := db.Stats().BytesJournaled
	if err := db.UpdateRefs(ctx, []RefUpdate{{Name: "refs/tags/v1", New: next}}, true); err != nil {
		t.Fatal(err)
	}
	if got := db.Stats().BytesJournaled - before; got != 100+2+AddressSize {
		t.Fatalf("the tag's update journaled %d bytes, want the two redo chunks it reaches (%d)", got, 100+2+AddressSize)
	}
	if _, redo := db.pending.sizesRedo(); redo != 0 {
		t.Fatalf("%d bytes of redo chunks still fresh after a ref reached them", redo)
	}
}

// TestSnapshotsKeepChildrenWithParents races a writer, which puts a child
// and then its parent, against generations (a snapshot of redo chunks)
// and then against journalAll: a parent in the snapshot has its child in
// it, and a journaled parent has no fresh child. Moving shard by shard, a
// child put into a shard already passed and its parent into one not yet
// passed broke this, and the child was later dropped under a journaled
// parent.
func TestSnapshotsKeepChildrenWithParents(t *testing.T) {
	for _, journal := range []bool{true, false} {
		const pairs = 20000
		p := newPending()
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := range pairs {
				c := chunk(uint64(i), 64)
				pc := parentChunk('x', Hash(c))
				p.add(Hash(c), c, redoGeneration)
				p.add(Hash(pc), pc, redoGeneration)
			}
		}()
		broken := 0
		for running := true; running; {
			select {
			case <-done:
				running = false
			default:
			}
			if journal {
				for _, c := range p.journalAll(nil) {
					if len(c.data) == 2+AddressSize && c.data[0] == 'p' && p.isFresh(Address(c.data[2:])) {
						broken++
					}
				}
				continue
			}
			redo := p.generations(redoGeneration)[0]
			for a := range redo {
				if d := redo[a]; len(d) == 2+AddressSize && d[0] == 'p' {
					if _, ok := redo[Address(d[2:])]; !ok {
						broken++
					}
				}
			}
		}
		if broken > 0 {
			t.Fatalf("journal %v: %d times a parent was taken without its child", journal, broken)
		}
	}
}
