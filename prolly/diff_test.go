package prolly

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/prollypg/prollypg/store"
)

// randomEdits returns edits of distinct keys in key order: updates and
// deletes of md's keys and inserts of new ones.
func randomEdits(rng *rand.Rand, md model, n int) []Edit {
	byKey := map[string]Edit{}
	for len(byKey) < n {
		var e Edit
		switch r := rng.IntN(3); {
		case r == 0 && len(md) > 0:
			e = Edit{Key: md[rng.IntN(len(md))].key, Delete: true}
		case r == 1 && len(md) > 0:
			e = Edit{Key: md[rng.IntN(len(md))].key, Value: randomValue(rng)}
		default:
			e = Edit{Key: randomBytes(rng, 1+rng.IntN(24)), Value: randomValue(rng)}
		}
		byKey[string(e.Key)] = e
	}
	var edits []Edit
	for _, e := range byKey {
		edits = append(edits, e)
	}
	return sorted(edits)
}

// modelDiff is the reference diff of two models.
func modelDiff(a, b model) []Diff {
	var out []Diff
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		c := 0
		switch {
		case i == len(a):
			c = 1
		case j == len(b):
			c = -1
		default:
			c = bytes.Compare(a[i].key, b[j].key)
		}
		switch {
		case c < 0:
			out = append(out, Diff{Kind: Removed, Key: a[i].key, From: a[i].val})
			i++
		case c > 0:
			out = append(out, Diff{Kind: Added, Key: b[j].key, To: b[j].val})
			j++
		default:
			if !bytes.Equal(a[i].val, b[j].val) {
				out = append(out, Diff{Kind: Modified, Key: a[i].key, From: a[i].val, To: b[j].val})
			}
			i++
			j++
		}
	}
	return out
}

func collectDiff(t *testing.T, from, to Map) []Diff {
	t.Helper()
	var out []Diff
	if err := DiffMaps(context.Background(), from, to, func(d Diff) error {
		out = append(out, d)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameDiffs(a, b []Diff) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d differences, want %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Kind != b[i].Kind || !bytes.Equal(a[i].Key, b[i].Key) ||
			!bytes.Equal(a[i].From, b[i].From) || !bytes.Equal(a[i].To, b[i].To) {
			return fmt.Errorf("difference %d: %v %x, want %v %x", i, a[i].Kind, a[i].Key, b[i].Kind, b[i].Key)
		}
	}
	return nil
}

// TestDiff checks diff against the model, and that applying diff(a, b) to a
// gives b, in both directions and for small and large changes.
func TestDiff(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			cs := store.NewMemory()
			maxKey := 24
			if seed%3 == 0 {
				maxKey = 1500
			}
			a := randomModelKeys(rng, 2000+rng.IntN(4000), maxKey)
			ma := build(t, cs, a)
			for _, n := range []int{1, 10, 300, 3000} {
				edits := randomEdits(rng, a, n)
				b := a.apply(edits)
				mb, err := ma.Apply(ctx, edits)
				if err != nil {
					t.Fatal(err)
				}
				for _, dir := range [][2]Map{{ma, mb}, {mb, ma}} {
					from, to, mfrom, mto := a, b, dir[0], dir[1]
					if dir[0].Root() == mb.Root() {
						from, to = b, a
					}
					got := collectDiff(t, mfrom, mto)
					if err := sameDiffs(got, modelDiff(from, to)); err != nil {
						t.Fatalf("%d edits: %v", n, err)
					}
					var patch []Edit
					for _, d := range got {
						patch = append(patch, diffEdit(d))
					}
					patched, err := mfrom.Apply(ctx, patch)
					if err != nil {
						t.Fatal(err)
					}
					if patched.Root() != mto.Root() {
						t.Fatalf("%d edits: diff applied to from gives %s, want %s", n, patched.Root(), mto.Root())
					}
				}
			}
			if d := collectDiff(t, ma, ma); len(d) != 0 {
				t.Fatalf("diff of a map with itself: %d differences", len(d))
			}
		})
	}
}

// TestMerge checks three-way merge: disjoint edits merge to the map with
// both applied, and every collision is reported exactly once.
// TestMerge checks Merge and MergeInto, which must agree on every input.
func TestMerge(t *testing.T) {
	for _, mf := range []struct {
		name  string
		merge func(ctx context.Context, base, ours, theirs Map, resolve ResolveFunc) (Map, MergeStats, error)
		into  bool // Applied counts ours's changes
	}{{"Merge", Merge, false}, {"MergeInto", MergeInto, true}, {"MergeKeysInto", mergeKeysInto, true}} {
		t.Run(mf.name, func(t *testing.T) { testMerge(t, mf.merge, mf.into) })
	}
}

// mergeKeysInto is MergeKeysInto given as keys what ours changed since
// base and, to check that more keys do no harm, every seventh key of base.
func mergeKeysInto(ctx context.Context, base, ours, theirs Map, resolve ResolveFunc) (Map, MergeStats, error) {
	set := map[string]bool{}
	if err := DiffMaps(ctx, base, ours, func(d Diff) error { set[string(d.Key)] = true; return nil }); err != nil {
		return Map{}, MergeStats{}, err
	}
	it := base.NewIter(ctx, IterOptions{})
	for ok, i := it.First(), 0; ok; ok, i = it.Next(), i+1 {
		if i%7 == 0 {
			set[string(it.Key())] = true
		}
	}
	it.Close()
	keys := make([][]byte, 0, len(set))
	for k := range set {
		keys = append(keys, []byte(k))
	}
	slices.SortFunc(keys, bytes.Compare)
	return MergeKeysInto(ctx, base, ours, theirs, keys, resolve, nil)
}

func testMerge(t *testing.T, merge func(ctx context.Context, base, ours, theirs Map, resolve ResolveFunc) (Map, MergeStats, error), into bool) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 11))
			cs := store.NewMemory()
			base := randomModel(rng, 3000+rng.IntN(2000))
			mbase := build(t, cs, base)

			// Disjoint: split random edits between the sides by key.
			edits := randomEdits(rng, base, 400)
			var oursE, theirsE []Edit
			for i, e := range edits {
				if i%2 == 0 {
					oursE = append(oursE, e)
				} else {
					theirsE = append(theirsE, e)
				}
			}
			ours, _ := mbase.Apply(ctx, oursE)
			theirs, _ := mbase.Apply(ctx, theirsE)
			merged, st, err := merge(ctx, mbase, ours, theirs, func(c Collision) (Resolution, error) {
				return Resolution{}, fmt.Errorf("unexpected collision on %x", c.Key)
			})
			if err != nil {
				t.Fatal(err)
			}
			want := build(t, cs, base.apply(edits))
			if merged.Root() != want.Root() {
				t.Fatalf("disjoint merge gives %s, want %s", merged.Root(), want.Root())
			}
			if applied := map[bool]int{false: len(theirsE), true: len(oursE)}[into]; st.Applied != applied {
				t.Fatalf("applied %d changes, want %d", st.Applied, applied)
			}

			// Overlapping: both sides edit a shared set of keys, some the
			// same way (no collision), some differently.
			shared := randomEdits(rng, base, 200)
			var sameWay, colliding []Edit
			wantCollide := map[string]bool{}
			for i, e := range shared {
				if i%3 == 0 {
					sameWay = append(sameWay, e)
					continue
				}
				colliding = append(colliding, e)
			}
			oursE = append([]Edit(nil), sameWay...)
			theirsE = append([]Edit(nil), sameWay...)
			for _, e := range colliding {
				_, inBase := base.find(e.Key)
				o := e
				th := Edit{Key: e.Key, Value: append(randomValue(rng), 0xEE)} // differs from o
				if !o.Delete || inBase {
					wantCollide[string(e.Key)] = true
				} else {
					continue // deleting an absent key changes nothing: not a collision
				}
				oursE = append(oursE, o)
				theirsE = append(theirsE, th)
			}
			oursE, theirsE = sorted(oursE), sorted(theirsE)
			ours, _ = mbase.Apply(ctx, oursE)
			theirs, _ = mbase.Apply(ctx, theirsE)
			seen := map[string]int{}
			merged, st, err = merge(ctx, mbase, ours, theirs, func(c Collision) (Resolution, error) {
				seen[string(c.Key)]++
				if !c.InTheirs {
					return Resolution{Delete: true}, nil
				}
				return Resolution{Value: c.Theirs}, nil // theirs wins
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(seen) != len(wantCollide) || st.Collisions != len(wantCollide) {
				t.Fatalf("%d keys collided (%d reported), want %d", len(seen), st.Collisions, len(wantCollide))
			}
			for k, n := range seen {
				if n != 1 || !wantCollide[k] {
					t.Fatalf("key %x reported %d times (expected collision: %v)", k, n, wantCollide[k])
				}
			}
			// Theirs won every collision, so the merge is base with ours'
			// changes, then theirs' on top.
			want = build(t, cs, base.apply(oursE).apply(theirsE))
			if merged.Root() != want.Root() {
				t.Fatalf("merge with collisions gives %s, want %s", merged.Root(), want.Root())
			}

			// A resolver's error aborts the merge.
			boom := errors.New("boom")
			if _, _, err := merge(ctx, mbase, ours, theirs, func(Collision) (Resolution, error) { return Resolution{}, boom }); !errors.Is(err, boom) {
				t.Fatalf("resolver error: got %v", err)
			}
		})
	}
}
