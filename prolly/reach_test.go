package prolly

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/prollypg/prollypg/store"
)

// recorder is a chunk store that remembers the address of every chunk put.
type recorder struct {
	*store.Memory
	mu   sync.Mutex
	puts map[store.Address]bool
}

func (r *recorder) Put(ctx context.Context, chunk []byte) (store.Address, error) {
	a, err := r.Memory.Put(ctx, chunk)
	r.mu.Lock()
	r.puts[a] = true
	r.mu.Unlock()
	return a, err
}

// reach returns the chunks Reachable visits from m's root, failing on a
// chunk visited twice.
func reach(t *testing.T, m Map, seen map[store.Address]bool, entries *int) map[store.Address]bool {
	t.Helper()
	got := map[store.Address]bool{}
	var entry func(k, v []byte) error
	if entries != nil {
		entry = func(k, v []byte) error {
			*entries++
			return nil
		}
	}
	err := Reachable(context.Background(), m.Store(), m.Root(), func(a store.Address) (bool, error) {
		if seen[a] {
			return false, nil
		}
		if got[a] {
			return false, fmt.Errorf("chunk %s visited twice", a)
		}
		got[a] = true
		return true, nil
	}, entry)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestReachable checks that Reachable visits exactly the chunks a map is
// made of: a freshly built map's every chunk and nothing else, blobs (one
// of two levels) included; that those chunks alone hold the map (copied
// to an empty store, it checks clean); that it skips what visit declines;
// and that entry sees every entry with blobs read back.
func TestReachable(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 7))
	rec := &recorder{Memory: store.NewMemory(), puts: map[store.Address]bool{}}
	md := randomModel(rng, 20000)
	md[100].val = randomBytes(rng, 3*MaxInlineValue)  // one blob chunk
	md[200].val = randomBytes(rng, 3*blobChunkSize+5) // a blob index over four
	m := build(t, rec, md)

	var entries int
	got := reach(t, m, nil, &entries)
	if entries != len(md) {
		t.Errorf("entry saw %d entries, want %d", entries, len(md))
	}
	for a := range rec.puts {
		if !got[a] {
			t.Errorf("chunk %s of the map not visited", a)
		}
	}
	for a := range got {
		if !rec.puts[a] {
			t.Errorf("visited %s, which the map did not write", a)
		}
	}

	// After edits, the new version's chunks alone hold it.
	edits := []Edit{{Key: md[5].key, Delete: true}, {Key: []byte("new key"), Value: randomBytes(rng, 5*blobChunkSize)}}
	m2, err := m.Apply(ctx, edits)
	if err != nil {
		t.Fatal(err)
	}
	copyTo := store.NewMemory()
	for a := range reach(t, m2, nil, nil) {
		data, err := rec.Get(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := copyTo.Put(ctx, bytes.Clone(data)); err != nil {
			t.Fatal(err)
		}
	}
	copied, err := Load(ctx, copyTo, m2.Root())
	if err != nil {
		t.Fatal(err)
	}
	if err := copied.Check(ctx); err != nil {
		t.Fatalf("the reachable chunks alone: %v", err)
	}
	checkAgainst(t, copied, md.apply(edits))

	// What the first walk saw is skipped: the second visits only the
	// chunks the edit wrote.
	seen := reach(t, m, nil, nil)
	fresh := reach(t, m2, seen, nil)
	if len(fresh) == 0 || len(fresh) > 20 {
		t.Errorf("after one edit, %d chunks not seen before, want a path or two and a blob", len(fresh))
	}
	if len(reach(t, m, seen, nil)) != 0 {
		t.Error("a seen root was walked")
	}
}
