package store

import (
	"context"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

// TestWriteBatchOutlivesRefUpdate interleaves Badger writes the way the
// flusher, a checkpoint and the journal's replay at Open do: a write batch
// takes its timestamp, a ref update commits at a later one (and moves the
// discard timestamp past the batch's), and only then does the batch commit.
// With Badger's conflict detection on, its oracle asserted that no commit is
// older than the discard timestamp it last cleaned up to, and ended the
// process with a bare "Assert failed" (seen at a restart after kill -9,
// whose replay flushed a redo record's chunks between two batches).
func TestWriteBatchOutlivesRefUpdate(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir(), Options{})
	defer db.Close()

	wb := db.newWriteBatch()
	refd := put(t, db, chunk(1, 4096))
	if err := db.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.badgerUpdate(func(txn *badger.Txn) error {
		return setRefs(txn, map[string]refEntry{"refs/heads/main": {refd, true}})
	}); err != nil {
		t.Fatal(err)
	}
	late := chunk(2, 4096)
	addr := Hash(late)
	if err := wb.Set(append([]byte{chunkPrefix}, addr[:]...), late); err != nil {
		t.Fatal(err)
	}
	if err := wb.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Get(ctx, addr); err != nil || len(got) != len(late) {
		t.Fatalf("Get of the late batch's chunk = %d bytes, %v", len(got), err)
	}
}
