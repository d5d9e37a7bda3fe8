package prolly

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/prollypg/prollypg/store"
)

// The scale tests share one map of a million rows: 8-byte keys, 24-byte
// values, about the shape of a narrow table.
const scaleRows = 1_000_000

var (
	scaleOnce  sync.Once
	scaleStore *store.Memory
	scaleMap   Map
	scaleErr   error
)

func scaleKey(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)*2) }

func scaleValue(i, version int) []byte {
	v := make([]byte, 24)
	binary.LittleEndian.PutUint64(v, uint64(i))
	binary.LittleEndian.PutUint64(v[8:], uint64(version))
	binary.LittleEndian.PutUint64(v[16:], uint64(i)*0x9e3779b97f4a7c15)
	return v
}

func millionRowMap(t testing.TB) (*store.Memory, Map) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a million-row map")
	}
	scaleOnce.Do(func() {
		ctx := context.Background()
		scaleStore = store.NewMemory()
		b := NewBuilder(scaleStore)
		for i := 0; i < scaleRows; i++ {
			if scaleErr = b.Add(ctx, scaleKey(i), scaleValue(i, 0)); scaleErr != nil {
				return
			}
		}
		scaleMap, scaleErr = b.Finish(ctx)
	})
	if scaleErr != nil {
		t.Fatal(scaleErr)
	}
	return scaleStore, scaleMap
}

// TestEditLocality checks invariant 2: changing one row of a million writes
// about one node per level.
func TestEditLocality(t *testing.T) {
	cs, m := millionRowMap(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	const edits = 100
	before := cs.Stats().ChunksWritten
	for n := 0; n < edits; n++ {
		i := rng.IntN(scaleRows)
		if _, err := m.Apply(ctx, []Edit{{Key: scaleKey(i), Value: scaleValue(i, n+1)}}); err != nil {
			t.Fatal(err)
		}
	}
	avg := float64(cs.Stats().ChunksWritten-before) / edits
	t.Logf("height %d: %.2f chunks written per one-row update (average of %d)", m.Height(), avg, edits)
	if limit := float64(m.Height() + 2); avg > limit {
		t.Fatalf("%.2f chunks written per update, want at most depth+2 = %.0f", avg, limit)
	}
}

// TestDiffReads checks invariant 3: a diff of two million-row maps that
// differ in ten rows reads a few dozen chunks.
func TestDiffReads(t *testing.T) {
	cs, m := millionRowMap(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	var edits []Edit
	for _, i := range rng.Perm(scaleRows)[:10] {
		edits = append(edits, Edit{Key: scaleKey(i), Value: scaleValue(i, 1)})
	}
	slices.SortFunc(edits, func(a, b Edit) int { return slices.Compare(a.Key, b.Key) })
	m2, err := m.Apply(ctx, edits)
	if err != nil {
		t.Fatal(err)
	}
	before := cs.Stats().Gets
	n := 0
	if err := DiffMaps(ctx, m, m2, func(d Diff) error {
		n++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	reads := cs.Stats().Gets - before
	t.Logf("height %d: diff of 10 changed rows in %d read %d chunks", m.Height(), scaleRows, reads)
	if n != 10 {
		t.Fatalf("diff found %d changes, want 10", n)
	}
	// Each change costs at most one node per level on each side.
	if limit := uint64(10 * 2 * m.Height()); reads > limit {
		t.Fatalf("diff read %d chunks, want at most %d", reads, limit)
	}
}

// TestNodeSizes prints the node size distribution of the million-row map
// and checks it stays near the 4 KiB target within the floor and ceiling.
func TestNodeSizes(t *testing.T) {
	cs, m := millionRowMap(t)
	ctx := context.Background()
	var leaves, internal []int
	var fanout []int
	var walk func(addr store.Address) error
	walk = func(addr store.Address) error {
		data, err := cs.Get(ctx, addr)
		if err != nil {
			return err
		}
		nd, err := decodeNode(data)
		if err != nil {
			return err
		}
		if nd.leaf() {
			leaves = append(leaves, len(data))
			return nil
		}
		internal = append(internal, len(data))
		fanout = append(fanout, nd.n)
		for i := 0; i < nd.n; i++ {
			child, _ := nd.child(i)
			if err := walk(child); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(m.Root()); err != nil {
		t.Fatal(err)
	}
	report := func(name string, xs []int) (mean float64, p1, p50, p99 int) {
		slices.Sort(xs)
		sum := 0
		for _, x := range xs {
			sum += x
		}
		mean = float64(sum) / float64(len(xs))
		pct := func(p float64) int { return xs[int(p*float64(len(xs)-1))] }
		p1, p50, p99 = pct(0.01), pct(0.50), pct(0.99)
		t.Logf("%s: %d nodes, mean %.0f, p1 %d, p50 %d, p99 %d, max %d", name, len(xs), mean, p1, p50, p99, xs[len(xs)-1])
		return
	}
	mean, p1, _, p99 := report("leaf bytes", leaves)
	report("internal bytes", internal)
	report("internal fan-out", fanout)
	if mean < 3000 || mean > 5500 || p1 < minNodeSize || p99 > maxNodeSize+64 {
		t.Fatalf("leaf sizes off target: mean %.0f, p1 %d, p99 %d", mean, p1, p99)
	}
}
