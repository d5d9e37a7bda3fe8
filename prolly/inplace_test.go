package prolly

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/prollypg/prollypg/store"
)

// TestInPlaceEdits checks the in-place path of Apply: edits that replace
// values with values of the same size, inline or out of line, alone or
// mixed with edits that are not, give the tree a fresh build gives.
func TestInPlaceEdits(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		st := store.NewMemory()
		md := randomModel(rng, 20000)
		m := build(t, st, md)
		// One edit in place writes one node per level, no more.
		i := rng.IntN(len(md))
		one := []Edit{{Key: md[i].key, Value: randomBytes(rng, len(md[i].val))}}
		before := st.Stats().ChunksWritten
		var err error
		if m, err = m.Apply(context.Background(), one); err != nil {
			t.Fatal(err)
		}
		md = md.apply(one)
		if n := st.Stats().ChunksWritten - before; n > uint64(m.Height()) {
			t.Errorf("one in-place edit wrote %d chunks in a tree of height %d", n, m.Height())
		}
		for round := 0; round < 20; round++ {
			var edits []Edit
			for _, i := range rng.Perm(len(md))[:1+rng.IntN(50)] {
				v := randomBytes(rng, len(md[i].val)) // same size: in place
				if round%5 == 4 && len(edits) == 3 {
					v = randomBytes(rng, len(md[i].val)+1) // one that is not
				}
				edits = append(edits, Edit{Key: md[i].key, Value: v})
			}
			edits = sorted(edits)
			m = applyInBatches(t, rng, m, edits)
			md = md.apply(edits)
			if want := build(t, store.NewMemory(), md); m.Root() != want.Root() {
				t.Fatalf("seed %d round %d: root %s after in-place edits, %s built afresh", seed, round, m.Root(), want.Root())
			}
		}
		checkAgainst(t, m, md)
	}
}
