package prolly

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/prollypg/prollypg/store"
)

// TestRestart writes several versions of a map to a Badger store, closes it,
// reopens the directory and reads every version back by its root address.
func TestRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 8))
	md := randomModel(rng, 20000)
	versions := []model{md}
	roots := []store.Address{build(t, db, md).Root()}
	m, err := Load(ctx, db, roots[0])
	if err != nil {
		t.Fatal(err)
	}
	for v := 0; v < 3; v++ {
		edits := randomEdits(rng, versions[len(versions)-1], 500)
		if m, err = m.Apply(ctx, edits); err != nil {
			t.Fatal(err)
		}
		versions = append(versions, versions[len(versions)-1].apply(edits))
		roots = append(roots, m.Root())
	}
	// A ref makes the last version reachable by name, as commits will.
	if err := db.UpdateRefs(ctx, []store.RefUpdate{{Name: "refs/test", New: roots[len(roots)-1]}}, true); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	head, ok, err := db.Ref(ctx, "refs/test")
	if err != nil || !ok || head != roots[len(roots)-1] {
		t.Fatalf("ref after reopen: %s %v %v, want %s", head, ok, err, roots[len(roots)-1])
	}
	for i, root := range roots {
		m, err := Load(ctx, db, root)
		if err != nil {
			t.Fatalf("version %d: %v", i, err)
		}
		checkAgainst(t, m, versions[i])
	}
}
