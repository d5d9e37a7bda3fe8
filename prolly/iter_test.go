package prolly

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/prollypg/prollypg/store"
)

// TestIter checks seeks, both directions, bounds and ordinals against the
// model.
func TestIter(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 3))
			md := randomModelKeys(rng, 5000, []int{8, 24, 800}[seed-1])
			m := build(t, store.NewMemory(), md)

			// Backward over everything.
			it := m.NewIter(ctx, IterOptions{})
			i := len(md) - 1
			for ok := it.Last(); ok; ok = it.Prev() {
				if !bytes.Equal(it.Key(), md[i].key) {
					t.Fatalf("backward entry %d: %x, want %x", i, it.Key(), md[i].key)
				}
				i--
			}
			if i != -1 || it.Err() != nil {
				t.Fatalf("backward walk stopped at %d: %v", i, it.Err())
			}

			for n := 0; n < 300; n++ {
				probe := randomBytes(rng, rng.IntN(10))
				if rng.IntN(2) == 0 {
					probe = md[rng.IntN(len(md))].key
				}
				ge, _ := md.find(probe)
				if ok := it.SeekGE(probe); ok != (ge < len(md)) || ok && !bytes.Equal(it.Key(), md[ge].key) {
					t.Fatalf("SeekGE(%x): valid=%v", probe, ok)
				}
				// Walk a few steps both ways from there.
				if ge < len(md) {
					for s := 1; s < 5 && ge+s < len(md); s++ {
						if !it.Next() || !bytes.Equal(it.Key(), md[ge+s].key) {
							t.Fatalf("Next after SeekGE(%x), step %d", probe, s)
						}
					}
				}
				lt := ge - 1
				if ok := it.SeekLT(probe); ok != (lt >= 0) || ok && !bytes.Equal(it.Key(), md[lt].key) {
					t.Fatalf("SeekLT(%x): valid=%v, want entry %d", probe, ok, lt)
				}
				if lt > 0 && (!it.Prev() || !bytes.Equal(it.Key(), md[lt-1].key)) {
					t.Fatalf("Prev after SeekLT(%x)", probe)
				}

				ord := uint64(rng.IntN(len(md) + 2))
				if ok := it.SeekOrdinal(ord); ok != (ord < uint64(len(md))) || ok && !bytes.Equal(it.Key(), md[ord].key) {
					t.Fatalf("SeekOrdinal(%d): valid=%v", ord, ok)
				}
			}

			// Bounded iteration, forward and backward.
			for n := 0; n < 50; n++ {
				lo, hi := rng.IntN(len(md)), rng.IntN(len(md))
				if lo > hi {
					lo, hi = hi, lo
				}
				bit := m.NewIter(ctx, IterOptions{LowerBound: md[lo].key, UpperBound: md[hi].key})
				got := 0
				for ok := bit.First(); ok; ok = bit.Next() {
					if !bytes.Equal(bit.Key(), md[lo+got].key) {
						t.Fatalf("bounded [%d,%d) entry %d", lo, hi, got)
					}
					got++
				}
				if got != hi-lo {
					t.Fatalf("bounded [%d,%d): %d entries", lo, hi, got)
				}
				got = 0
				for ok := bit.Last(); ok; ok = bit.Prev() {
					got++
				}
				if got != hi-lo {
					t.Fatalf("bounded [%d,%d) backward: %d entries", lo, hi, got)
				}
			}
		})
	}
}

// TestGetAndBlobs checks point reads, including values stored out of line

// TestAnyIn checks AnyIn against the model for random ranges, empty ones
// (between neighbouring keys, past the end) included.
func TestAnyIn(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(4, 4))
	md := randomModelKeys(rng, 5000, 8)
	m := build(t, store.NewMemory(), md)
	empty := build(t, store.NewMemory(), nil)
	for n := 0; n < 2000; n++ {
		lo := randomBytes(rng, rng.IntN(6))
		var hi []byte
		switch rng.IntN(3) {
		case 0: // up to the next key after lo: often empty
			if i, _ := md.find(lo); i < len(md) {
				hi = md[i].key
			}
		case 1:
			hi = randomBytes(rng, rng.IntN(6))
		}
		i, _ := md.find(lo)
		want := i < len(md) && (hi == nil || bytes.Compare(md[i].key, hi) < 0)
		if got, err := m.AnyIn(ctx, lo, hi); err != nil || got != want {
			t.Fatalf("AnyIn(%x, %x) = %v, %v; want %v", lo, hi, got, err, want)
		}
		if got, err := empty.AnyIn(ctx, lo, hi); err != nil || got {
			t.Fatalf("empty map: AnyIn(%x, %x) = %v, %v", lo, hi, got, err)
		}
	}
}

// across several blob levels, and that equal large values share chunks.
func TestGetAndBlobs(t *testing.T) {
	ctx := context.Background()
	cs := store.NewMemory()
	rng := rand.New(rand.NewPCG(5, 5))
	huge := randomBytes(rng, blobChunkSize*blobFanout+12345) // a two-level blob index
	md := model{
		{[]byte("a"), []byte("small")},
		{[]byte("b"), randomBytes(rng, MaxInlineValue)},   // largest inline
		{[]byte("c"), randomBytes(rng, MaxInlineValue+1)}, // smallest out of line
		{[]byte("d"), huge},
		{[]byte("e"), []byte{}},
	}
	m := build(t, cs, md)
	checkAgainst(t, m, md)
	for _, e := range md {
		v, ok, err := m.Get(ctx, e.key)
		if err != nil || !ok || !bytes.Equal(v, e.val) {
			t.Fatalf("Get(%q): ok=%v err=%v, %d bytes, want %d", e.key, ok, err, len(v), len(e.val))
		}
	}
	if _, ok, err := m.Get(ctx, []byte("zz")); ok || err != nil {
		t.Fatalf("Get of an absent key: ok=%v err=%v", ok, err)
	}
	before := cs.Stats().ChunksWritten
	m2, err := m.Apply(ctx, []Edit{{Key: []byte("f"), Value: huge}})
	if err != nil {
		t.Fatal(err)
	}
	if written := cs.Stats().ChunksWritten - before; written > 3 {
		t.Fatalf("storing an existing large value again wrote %d new chunks", written)
	}
	checkAgainst(t, m2, md.apply([]Edit{{Key: []byte("f"), Value: huge}}))
}
