package exec

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/store"
)

// dupError is the error of a test's dupErr: the key it was called with.
type dupError struct{ key []byte }

func (e *dupError) Error() string { return fmt.Sprintf("duplicate %x", e.key) }

func dupErr(key []byte) error { return &dupError{key: slices.Clone(key)} }

// sortTestEntries returns n entries in random order: keys are a prefix of
// one of a few values and a unique suffix, as index keys are; some have
// a unique prefix (n > 0), some none.
func sortTestEntries(r *rand.Rand, count int) []entry {
	entries := make([]entry, count)
	for i := range entries {
		prefix := fmt.Appendf(nil, "p%03d", r.IntN(count/2+1))
		key := binary.BigEndian.AppendUint32(slices.Clone(prefix), uint32(i))
		e := entry{key: key, val: fmt.Appendf(nil, "v%d", r.IntN(1000))}
		if r.IntN(3) == 0 {
			e.val = []byte{}
		}
		entries[i] = e
	}
	return entries
}

// clone copies entries deeply: the sorter and build keep and reorder them.
func cloneEntries(entries []entry) []entry {
	out := make([]entry, len(entries))
	for i, e := range entries {
		out[i] = entry{key: slices.Clone(e.key), val: slices.Clone(e.val), n: e.n}
	}
	return out
}

// sortAll runs entries through a sorter of the given budget and returns
// the root, the key given to dupErr (nil: none), and how many runs the
// sorter spilled.
func sortAll(t *testing.T, cs prolly.ChunkStore, entries []entry, budget int64) (store.Address, []byte, int) {
	t.Helper()
	ctx := context.Background()
	s := newEntrySorter(cs, budget)
	s.budget = budget // below minSortBudget too
	defer s.Close()
	for _, e := range cloneEntries(entries) {
		if err := s.Add(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	runs := s.nextRun
	dir := s.dir
	root, err := s.Finish(ctx, dupErr)
	if dir != "" {
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("run directory %s left after Finish: %v", dir, err)
		}
	}
	var de *dupError
	if errors.As(err, &de) {
		return root, de.key, runs
	}
	if err != nil {
		t.Fatal(err)
	}
	return root, nil, runs
}

// buildAll is sortAll of build, the in-memory sort.
func buildAll(t *testing.T, cs prolly.ChunkStore, entries []entry) (store.Address, []byte) {
	t.Helper()
	root, err := build(context.Background(), cs, cloneEntries(entries), dupErr)
	var de *dupError
	if errors.As(err, &de) {
		return root, de.key
	}
	if err != nil {
		t.Fatal(err)
	}
	return root, nil
}

func TestEntrySorter(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	r := rand.New(rand.NewPCG(1, 2))
	const count = 3000
	base := sortTestEntries(r, count)

	// uniquePrefix gives entries a unique prefix of 4 bytes, but for a
	// few, as an index's entries with NULLs.
	uniquePrefix := func(entries []entry) []entry {
		for i := range entries {
			if i%7 != 3 {
				entries[i].n = 4
			}
		}
		return entries
	}
	// noPrefixDups makes the prefixes of entries distinct, and shuffles
	// all but the first and the last.
	noPrefixDups := func(entries []entry) []entry {
		for i := range entries {
			entries[i].key = binary.BigEndian.AppendUint32(fmt.Appendf(nil, "q%06d", i), uint32(i))
			entries[i].n = 7
		}
		if len(entries) > 2 {
			mid := entries[1 : len(entries)-1]
			r.Shuffle(len(mid), func(i, j int) { mid[i], mid[j] = mid[j], mid[i] })
		}
		return entries
	}

	tests := []struct {
		name    string
		entries func() []entry
		dup     bool
	}{
		{"no unique prefix", func() []entry { return cloneEntries(base) }, false},
		{"distinct prefixes", func() []entry { return noPrefixDups(cloneEntries(base)) }, false},
		{"equal prefixes", func() []entry { return uniquePrefix(cloneEntries(base)) }, true},
		{"equal prefixes far apart", func() []entry {
			// Only the first and the last entry, in different runs,
			// share a unique prefix.
			entries := noPrefixDups(cloneEntries(base))
			last := &entries[len(entries)-1]
			last.key = append(slices.Clone(entries[0].key[:7]), 0xff)
			return entries
		}, true},
		{"equal keys far apart", func() []entry {
			entries := cloneEntries(base)
			entries = append(entries, entry{key: slices.Clone(entries[0].key), val: []byte("other")})
			return entries
		}, true},
		{"equal keys and prefixes", func() []entry {
			entries := uniquePrefix(cloneEntries(base))
			for i := 0; i < len(entries); i += 500 {
				entries = append(entries, cloneEntries(entries[i:i+1])...)
			}
			return entries
		}, true},
		{"empty", func() []entry { return nil }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries := tt.entries()
			cs := store.NewMemory()
			want, wantDup := buildAll(t, cs, entries)
			if (wantDup != nil) != tt.dup {
				t.Fatalf("build reports duplicate %x, want one: %v", wantDup, tt.dup)
			}
			for _, budget := range []int64{1 << 10, 4 << 10, 64 << 10, 64 << 20} {
				got, gotDup, runs := sortAll(t, cs, entries, budget)
				spills := budget < 64<<20 && len(entries) > 0
				if (runs > 0) != spills {
					t.Errorf("budget %d: %d runs written", budget, runs)
				}
				if !bytes.Equal(gotDup, wantDup) {
					t.Errorf("budget %d: duplicate %x, build reports %x", budget, gotDup, wantDup)
				}
				if wantDup == nil && got != want {
					t.Errorf("budget %d: root %v, build writes %v", budget, got, want)
				}
			}
			if wantDup == nil {
				checkMap(t, cs, want, entries)
			}
		})
	}
	left, err := os.ReadDir(os.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("%d files left in the temporary directory", len(left))
	}
}

// checkMap checks that the map at root holds exactly entries.
func checkMap(t *testing.T, cs prolly.ChunkStore, root store.Address, entries []entry) {
	t.Helper()
	ctx := context.Background()
	want := cloneEntries(entries)
	sortEntries(want)
	m, err := prolly.Load(ctx, cs, root)
	if err != nil {
		t.Fatal(err)
	}
	it := m.NewIter(ctx, prolly.IterOptions{})
	defer it.Close()
	i := 0
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.Value()
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(want) || !bytes.Equal(it.Key(), want[i].key) || !bytes.Equal(v, want[i].val) {
			t.Fatalf("entry %d of the map: %x = %q", i, it.Key(), v)
		}
		i++
	}
	if i != len(want) {
		t.Fatalf("map has %d entries, want %d", i, len(want))
	}
}

// TestEntrySorterCancel checks that a canceled sort stops at a spill and
// leaves no file behind.
func TestEntrySorterCancel(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := newEntrySorter(store.NewMemory(), minSortBudget)
	entries := sortTestEntries(rand.New(rand.NewPCG(3, 4)), 2000)
	var err error
	for i, e := range entries {
		if i == len(entries)/2 {
			cancel()
		}
		if err = s.Add(ctx, e); err != nil {
			break
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Add after cancel: %v, want context.Canceled", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	left, err := os.ReadDir(os.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("%d files left in the temporary directory", len(left))
	}
}
