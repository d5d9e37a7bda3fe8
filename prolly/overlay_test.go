package prolly

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/prollypg/prollypg/store"
)

// TestDeferredReadsAsApplied checks that a map with deferred edits reads
// exactly as the map with those edits applied, through every read: Get,
// Has, AnyIn, Count, and iterators seeking, walking both ways and turning
// around, with and without bounds. Random maps, random edit batches.
func TestDeferredReadsAsApplied(t *testing.T) {
	ctx := context.Background()
	key := func(i int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(i)*2) }
	for seed := uint64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		cs := store.NewMemory()
		b := NewBuilder(cs)
		n := rng.IntN(3000)
		for i := 0; i < n; i++ {
			if err := b.Add(ctx, key(i), []byte{byte(i), byte(seed)}); err != nil {
				t.Fatal(err)
			}
		}
		base, err := b.Finish(ctx)
		if err != nil {
			t.Fatal(err)
		}
		deferred, applied := base, base
		for batch := rng.IntN(4) + 1; batch > 0; batch-- {
			present := map[int]Edit{}
			for e := rng.IntN(60); e > 0; e-- {
				i := rng.IntN(n + 50) // beyond the end too
				ed := Edit{Key: key(i)}
				if rng.IntN(3) == 0 {
					ed.Delete = true
				} else {
					ed.Value = []byte{byte(rng.IntN(256)), 'v'}
				}
				present[i] = ed
			}
			var edits []Edit
			for _, e := range present {
				edits = append(edits, e)
			}
			slices.SortFunc(edits, func(a, b Edit) int { return bytes.Compare(a.Key, b.Key) })
			if deferred, err = deferred.Defer(edits); err != nil {
				t.Fatal(err)
			}
			if applied, err = applied.Apply(ctx, edits); err != nil {
				t.Fatal(err)
			}
		}
		compareMaps(t, ctx, rng, deferred, applied, n+50, key)
		m, err := deferred.Materialize(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if m.Root() != applied.Root() {
			t.Fatalf("seed %d: materialized root %s, applied %s", seed, m.Root(), applied.Root())
		}
		// Apply on a deferred map applies both.
		extra := []Edit{{Key: key(1), Value: []byte("x")}, {Key: key(n + 60), Value: []byte("y")}}
		m1, err := deferred.Apply(ctx, extra)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := applied.Apply(ctx, extra)
		if err != nil {
			t.Fatal(err)
		}
		if m1.Root() != m2.Root() {
			t.Fatalf("seed %d: Apply over deferred edits differs", seed)
		}
	}
}

func compareMaps(t *testing.T, ctx context.Context, rng *rand.Rand, got, want Map, keys int, key func(int) []byte) {
	t.Helper()
	if n, err := got.CountExact(ctx); got.Count() != want.Count() || n != want.Count() || err != nil {
		t.Fatalf("Count %d, CountExact %d, %v; want %d", got.Count(), n, err, want.Count())
	}
	for i := 0; i < keys; i++ {
		for _, k := range [][]byte{key(i), append(key(i), 0)} { // present or absent keys
			gv, gok, err := got.Get(ctx, k)
			if err != nil {
				t.Fatal(err)
			}
			wv, wok, _ := want.Get(ctx, k)
			if gok != wok || !bytes.Equal(gv, wv) {
				t.Fatalf("Get %x: %x %v, want %x %v", k, gv, gok, wv, wok)
			}
			if h, _ := got.Has(ctx, k); h != wok {
				t.Fatalf("Has %x: %v", k, h)
			}
		}
	}
	for trial := 0; trial < 30; trial++ {
		var opts IterOptions
		if rng.IntN(2) == 0 {
			opts.LowerBound = key(rng.IntN(keys))
		}
		if rng.IntN(2) == 0 {
			opts.UpperBound = key(rng.IntN(keys))
		}
		lo, hi := opts.LowerBound, opts.UpperBound
		ga, _ := got.AnyIn(ctx, orEmpty(lo), hi)
		wa, _ := want.AnyIn(ctx, orEmpty(lo), hi)
		if ga != wa {
			t.Fatalf("AnyIn [%x, %x): %v, want %v", lo, hi, ga, wa)
		}
		gi, wi := got.NewIter(ctx, opts), want.NewIter(ctx, opts)
		var gok, wok bool
		switch rng.IntN(4) {
		case 0:
			gok, wok = gi.First(), wi.First()
		case 1:
			gok, wok = gi.Last(), wi.Last()
		case 2:
			k := key(rng.IntN(keys))
			gok, wok = gi.SeekGE(k), wi.SeekGE(k)
		default:
			k := key(rng.IntN(keys))
			gok, wok = gi.SeekLT(k), wi.SeekLT(k)
		}
		for step := 0; ; step++ {
			if gok != wok {
				t.Fatalf("trial %d step %d: valid %v, want %v", trial, step, gok, wok)
			}
			if !gok || step > 400 {
				break
			}
			if !bytes.Equal(gi.Key(), wi.Key()) {
				t.Fatalf("trial %d step %d: key %x, want %x", trial, step, gi.Key(), wi.Key())
			}
			gv, _ := gi.Value()
			wv, _ := wi.Value()
			if !bytes.Equal(gv, wv) {
				t.Fatalf("key %x: value %x, want %x", gi.Key(), gv, wv)
			}
			if rng.IntN(5) == 0 {
				gok, wok = gi.Prev(), wi.Prev()
			} else {
				gok, wok = gi.Next(), wi.Next()
			}
		}
		if gi.Close() != nil || wi.Close() != nil {
			t.Fatal("iterator error")
		}
	}
}

func orEmpty(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// TestDeferredRefusedByTreeWalks: the diffs and merges, which walk trees,
// refuse a map with deferred edits rather than miss them, and Root
// panics.
func TestDeferredRefusedByTreeWalks(t *testing.T) {
	ctx := context.Background()
	cs := store.NewMemory()
	m, err := NewMap(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.Defer([]Edit{{Key: []byte("a"), Value: []byte("1")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := DiffMaps(ctx, m, d, func(Diff) error { return nil }); err != errDeferred {
		t.Fatalf("DiffMaps: %v", err)
	}
	if _, _, err := MergeInto(ctx, m, d, m, nil); err != errDeferred {
		t.Fatalf("MergeInto: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Root did not panic")
		}
	}()
	_ = d.Root()
}
