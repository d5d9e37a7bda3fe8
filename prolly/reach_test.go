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

// chunkRefs returns the addresses the chunk data refers to: a node's
// children or its leaf values' blobs, a blob index's chunks.
func chunkRefs(t *testing.T, data []byte) []store.Address {
	t.Helper()
	var out []store.Address
	if len(data) >= blobHeader && data[0] == blobMagic {
		if data[1] > 0 {
			for kids := data[blobHeader:]; len(kids) > 0; kids = kids[store.AddressSize:] {
				out = append(out, store.Address(kids[:store.AddressSize]))
			}
		}
		return out
	}
	nd, err := validateNode(data)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < nd.n; i++ {
		if !nd.leaf() {
			kid, _ := nd.child(i)
			out = append(out, kid)
		} else if v, blob := nd.value(i); blob {
			out = append(out, store.Address(v[:store.AddressSize]))
		}
	}
	return out
}

// TestReachableOrdered checks that leave receives every chunk visit
// accepted, once, after every chunk it refers to: written in that order,
// no chunk of a copy is ever present without what it refers to.
func TestReachableOrdered(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(8, 8))
	md := randomModel(rng, 20000)
	md[10].val = randomBytes(rng, 3*blobChunkSize+5)
	md[11].val = md[10].val // the same blob twice
	cs := store.NewMemory()
	m := build(t, cs, md)
	copyTo := store.NewMemory()
	visited := map[store.Address]bool{}
	err := ReachableOrdered(ctx, cs, m.Root(), func(a store.Address) (bool, error) {
		if visited[a] {
			return false, nil
		}
		visited[a] = true
		return true, nil
	}, nil, func(a store.Address) error {
		data, err := cs.Get(ctx, a)
		if err != nil {
			return err
		}
		for _, r := range chunkRefs(t, data) {
			if ok, _ := copyTo.Has(ctx, r); !ok {
				return fmt.Errorf("chunk %s left before %s, which it refers to", a, r)
			}
		}
		if ok, _ := copyTo.Has(ctx, a); ok {
			return fmt.Errorf("chunk %s left twice", a)
		}
		_, err = copyTo.Put(ctx, bytes.Clone(data))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := copyTo.Stats().ChunksWritten; int(n) != len(visited) {
		t.Errorf("left %d chunks, visited %d", n, len(visited))
	}
	copied, err := Load(ctx, copyTo, m.Root())
	if err != nil {
		t.Fatal(err)
	}
	if err := copied.Check(ctx); err != nil {
		t.Fatal(err)
	}
}
