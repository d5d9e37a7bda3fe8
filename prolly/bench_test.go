package prolly

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/prollypg/prollypg/store"
)

// BenchmarkBuild measures bulk building a million-row map from sorted input.
func BenchmarkBuild(b *testing.B) {
	ctx := context.Background()
	keys := make([][]byte, scaleRows)
	vals := make([][]byte, scaleRows)
	for i := range keys {
		keys[i], vals[i] = scaleKey(i), scaleValue(i, 0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		bl := NewBuilder(store.NewMemory())
		for i := range keys {
			if err := bl.Add(ctx, keys[i], vals[i]); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := bl.Finish(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*scaleRows/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkGet measures point reads of random present keys in a warm
// million-row map.
func BenchmarkGet(b *testing.B) {
	_, m := millionRowMap(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 1))
	keys := make([][]byte, 4096)
	for i := range keys {
		keys[i] = scaleKey(rng.IntN(scaleRows))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		if _, ok, err := m.Get(ctx, keys[n%len(keys)]); !ok || err != nil {
			b.Fatal("missing key", err)
		}
	}
}

// BenchmarkApply measures random updates applied in batches of 1,000 to a
// million-row map.
func BenchmarkApply(b *testing.B) {
	_, m := millionRowMap(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(2, 2))
	const batch = 1000
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		b.StopTimer()
		edits := make([]Edit, 0, batch)
		picked := map[int]bool{}
		for len(picked) < batch {
			i := rng.IntN(scaleRows)
			if !picked[i] {
				picked[i] = true
				edits = append(edits, Edit{Key: scaleKey(i), Value: scaleValue(i, n+1)})
			}
		}
		slices.SortFunc(edits, func(x, y Edit) int { return slices.Compare(x.Key, y.Key) })
		b.StartTimer()
		if _, err := m.Apply(ctx, edits); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*batch/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkDiff measures diffing two million-row maps that differ in ten rows.
func BenchmarkDiff(b *testing.B) {
	_, m := millionRowMap(b)
	ctx := context.Background()
	var edits []Edit
	for _, i := range rand.New(rand.NewPCG(3, 3)).Perm(scaleRows)[:10] {
		edits = append(edits, Edit{Key: scaleKey(i), Value: scaleValue(i, 1)})
	}
	slices.SortFunc(edits, func(x, y Edit) int { return slices.Compare(x.Key, y.Key) })
	m2, err := m.Apply(ctx, edits)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		if err := DiffMaps(ctx, m, m2, func(Diff) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScan measures a full forward scan of a million-row map.
func BenchmarkScan(b *testing.B) {
	_, m := millionRowMap(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		it := m.NewIter(ctx, IterOptions{})
		rows := 0
		for ok := it.First(); ok; ok = it.Next() {
			rows++
		}
		if err := it.Close(); err != nil || rows != scaleRows {
			b.Fatal(rows, err)
		}
	}
	b.ReportMetric(float64(b.N)*scaleRows/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkGetBadger measures warm point reads of a million-row map stored in
// Badger on disk: the node reads are hits in the store's chunk cache.
func BenchmarkGetBadger(b *testing.B) {
	ctx := context.Background()
	db, err := store.Open(b.TempDir(), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	bl := NewBuilder(db)
	for i := 0; i < scaleRows; i++ {
		if err := bl.Add(ctx, scaleKey(i), scaleValue(i, 0)); err != nil {
			b.Fatal(err)
		}
	}
	m, err := bl.Finish(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if err := db.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	keys := make([][]byte, 4096)
	for i := range keys {
		keys[i] = scaleKey(rng.IntN(scaleRows))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		if _, ok, err := m.Get(ctx, keys[n%len(keys)]); !ok || err != nil {
			b.Fatal("missing key", err)
		}
	}
}

// BenchmarkApplyOne measures the edit of a live table's statement: one
// row of a million replaced, by a value of the same size (the in-place
// path, inplace.go) and by a longer one (a re-cut).
func BenchmarkApplyOne(b *testing.B) {
	_, m := millionRowMap(b)
	ctx := context.Background()
	for _, grow := range []bool{false, true} {
		name := "same-size"
		if grow {
			name = "longer"
		}
		b.Run(name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 3))
			b.ReportAllocs()
			for n := 0; n < b.N; n++ {
				i := rng.IntN(scaleRows)
				v := scaleValue(i, n+1)
				if grow {
					v = append(v, 'x')
				}
				if _, err := m.Apply(ctx, []Edit{{Key: scaleKey(i), Value: v}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
