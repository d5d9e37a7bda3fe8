package prolly

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/prollypg/prollypg/store"
)

// entry is one key/value pair of a test model.
type entry struct{ key, val []byte }

// model is the reference a Map is compared with: entries sorted by key.
type model []entry

func (md model) find(key []byte) (int, bool) {
	return sort.Find(len(md), func(i int) int { return bytes.Compare(key, md[i].key) })
}

func (md model) apply(edits []Edit) model {
	out := slices.Clone(md)
	for _, e := range edits {
		i, ok := out.find(e.Key)
		switch {
		case e.Delete && ok:
			out = slices.Delete(out, i, i+1)
		case !e.Delete && ok:
			out[i].val = e.Value
		case !e.Delete:
			out = slices.Insert(out, i, entry{e.Key, e.Value})
		}
	}
	return out
}

// randomModel returns n entries with random keys and values; about one
// value in 200 is long enough to be stored out of line.
func randomModel(rng *rand.Rand, n int) model { return randomModelKeys(rng, n, 24) }

// randomModelKeys is randomModel with keys of up to maxKey bytes: long keys
// make internal nodes narrow and trees tall.
func randomModelKeys(rng *rand.Rand, n, maxKey int) model {
	seen := map[string]bool{}
	var md model
	for len(md) < n {
		k := randomBytes(rng, 1+rng.IntN(maxKey))
		if seen[string(k)] {
			continue
		}
		seen[string(k)] = true
		md = append(md, entry{k, randomValue(rng)})
	}
	slices.SortFunc(md, func(a, b entry) int { return bytes.Compare(a.key, b.key) })
	return md
}

func randomValue(rng *rand.Rand) []byte {
	if rng.IntN(200) == 0 {
		return randomBytes(rng, MaxInlineValue+1+rng.IntN(3*blobChunkSize))
	}
	return randomBytes(rng, rng.IntN(100))
}

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.IntN(256))
	}
	return b
}

func build(t testing.TB, cs ChunkStore, md model) Map {
	t.Helper()
	ctx := context.Background()
	b := NewBuilder(cs)
	for _, e := range md {
		if err := b.Add(ctx, e.key, e.val); err != nil {
			t.Fatal(err)
		}
	}
	m, err := b.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// applyInBatches applies edits in random order, cut into random batches.
func applyInBatches(t testing.TB, rng *rand.Rand, m Map, edits []Edit) Map {
	t.Helper()
	ctx := context.Background()
	edits = slices.Clone(edits)
	rng.Shuffle(len(edits), func(i, j int) { edits[i], edits[j] = edits[j], edits[i] })
	for len(edits) > 0 {
		n := 1 + rng.IntN(min(len(edits), 1+rng.IntN(500)))
		batch := slices.Clone(edits[:n])
		edits = edits[n:]
		slices.SortFunc(batch, func(a, b Edit) int { return bytes.Compare(a.Key, b.Key) })
		var err error
		if m, err = m.Apply(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func putEdits(md model) []Edit {
	edits := make([]Edit, len(md))
	for i, e := range md {
		edits[i] = Edit{Key: e.key, Value: e.val}
	}
	return edits
}

// checkAgainst verifies m's invariants and that it holds exactly md.
func checkAgainst(t testing.TB, m Map, md model) {
	t.Helper()
	ctx := context.Background()
	if err := m.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if got := m.Count(); got != uint64(len(md)) {
		t.Fatalf("Count() = %d, want %d", got, len(md))
	}
	it := m.NewIter(ctx, IterOptions{})
	i := 0
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.Value()
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(md) || !bytes.Equal(it.Key(), md[i].key) || !bytes.Equal(v, md[i].val) {
			t.Fatalf("entry %d: got %x, want %x", i, it.Key(), md[min(i, len(md)-1)].key)
		}
		i++
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if i != len(md) {
		t.Fatalf("iterated %d entries, want %d", i, len(md))
	}
}

// TestHistoryIndependence checks invariant 1: the same entries give the
// same root whatever order of inserts, updates and deletes produced them.
func TestHistoryIndependence(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, seed))
			cs := store.NewMemory()
			// Odd seeds use long keys, for tall trees of narrow nodes.
			maxKey := 24
			if seed%2 == 1 {
				maxKey = 1500
			}
			md := randomModelKeys(rng, 3000+rng.IntN(3000), maxKey)
			want := build(t, cs, md)
			checkAgainst(t, want, md)
			t.Logf("%d entries, height %d", len(md), want.Height())

			empty, err := NewMap(ctx, cs)
			if err != nil {
				t.Fatal(err)
			}
			for round := 0; round < 3; round++ {
				m := applyInBatches(t, rng, empty, putEdits(md))
				if m.Root() != want.Root() {
					t.Fatalf("round %d: inserts in random order give root %s, bulk build %s", round, m.Root(), want.Root())
				}
			}

			// Insert extra entries and update existing ones, then undo both.
			extra := randomModel(rng, 2000)
			var there, back []Edit
			for _, e := range extra {
				if _, ok := md.find(e.key); !ok {
					there = append(there, Edit{Key: e.key, Value: e.val})
					back = append(back, Edit{Key: e.key, Delete: true})
				}
			}
			for i := 0; i < len(md); i += 3 {
				there = append(there, Edit{Key: md[i].key, Value: randomValue(rng)})
				back = append(back, Edit{Key: md[i].key, Value: md[i].val})
			}
			m := applyInBatches(t, rng, want, there)
			checkAgainst(t, m, md.apply(sorted(there)))
			m = applyInBatches(t, rng, m, back)
			if m.Root() != want.Root() {
				t.Fatalf("insert-then-delete-back gives root %s, want %s", m.Root(), want.Root())
			}

			// Delete everything in random order: back to the empty map.
			var all []Edit
			for _, e := range md {
				all = append(all, Edit{Key: e.key, Delete: true})
			}
			m = applyInBatches(t, rng, want, all)
			if m.Root() != empty.Root() {
				t.Fatalf("deleting every entry gives root %s, want the empty map's %s", m.Root(), empty.Root())
			}
			checkAgainst(t, m, nil)
		})
	}
}

// sorted returns edits (of distinct keys) in key order.
func sorted(edits []Edit) []Edit {
	out := slices.Clone(edits)
	slices.SortFunc(out, func(a, b Edit) int { return bytes.Compare(a.Key, b.Key) })
	return out
}

// TestRandomEdits applies random batches of puts and deletes, of present and
// absent keys, and compares the map with a model and with a fresh build
// after each batch.
func TestRandomEdits(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 99))
			cs := store.NewMemory()
			md := randomModel(rng, 2000)
			m := build(t, cs, md)
			for round := 0; round < 30; round++ {
				byKey := map[string]Edit{}
				for n := rng.IntN(300); n > 0; n-- {
					var e Edit
					switch r := rng.IntN(4); {
					case r == 0 && len(md) > 0:
						e = Edit{Key: md[rng.IntN(len(md))].key, Delete: true}
					case r == 1 && len(md) > 0:
						e = Edit{Key: md[rng.IntN(len(md))].key, Value: randomValue(rng)}
					case r == 2:
						e = Edit{Key: randomBytes(rng, 1+rng.IntN(24)), Delete: true}
					default:
						e = Edit{Key: randomBytes(rng, 1+rng.IntN(24)), Value: randomValue(rng)}
					}
					byKey[string(e.Key)] = e
				}
				var edits []Edit
				for _, e := range byKey {
					edits = append(edits, e)
				}
				edits = sorted(edits)
				var err error
				if m, err = m.Apply(ctx, edits); err != nil {
					t.Fatal(err)
				}
				md = md.apply(edits)
				checkAgainst(t, m, md)
				if fresh := build(t, cs, md); fresh.Root() != m.Root() {
					t.Fatalf("round %d: edited root %s, fresh build %s", round, m.Root(), fresh.Root())
				}
			}
		})
	}
}

func TestSize(t *testing.T) {
	st := store.NewMemory()
	m := build(t, st, randomModel(rand.New(rand.NewPCG(9, 9)), 5000))
	size, err := m.Size(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if written := st.Stats().BytesWritten; size == 0 || size > written {
		t.Fatalf("Size() = %d, store holds %d bytes", size, written)
	}
}

// TestSetEdits checks that SetEdits adds the present keys with empty
// values and removes the absent ones, whatever the map's order.
func TestSetEdits(t *testing.T) {
	ctx := context.Background()
	m, err := NewMap(ctx, store.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	if m, err = m.Apply(ctx, SetEdits(map[string]bool{"c": true, "a": true, "b": true})); err != nil {
		t.Fatal(err)
	}
	if m, err = m.Apply(ctx, SetEdits(map[string]bool{"b": false, "d": true})); err != nil {
		t.Fatal(err)
	}
	var got []string
	it := m.NewIter(ctx, IterOptions{})
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.Value()
		if err != nil || len(v) != 0 {
			t.Fatalf("value of %q: %q, %v", it.Key(), v, err)
		}
		got = append(got, string(it.Key()))
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "a,c,d" {
		t.Fatalf("keys %v, want a,c,d", got)
	}
}
