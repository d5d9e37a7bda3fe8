package versioning

import (
	"context"
	"errors"
	"testing"

	"github.com/prollypg/prollypg/store"
)

// TestPeerUpdateRefs checks the serving side of a push from a peer: the
// first push creates the database with a clean working set, a later one
// moves the working set along, a stale expected head is a conflict, and
// a branch with uncommitted changes refuses the push and keeps its refs.
func TestPeerUpdateRefs(t *testing.T) {
	ctx := context.Background()
	src, dst := store.NewMemory(), store.NewMemory()
	a, err := CreateDatabase(ctx, src, "a", sig("a", 1))
	if err != nil {
		t.Fatal(err)
	}
	setWorking(t, a, "main", putRows(t, mustRootOf(t, a, "main"), map[int]string{1: "one"}))
	c1 := commitAll(t, a, "main", "one", 2)
	push := func(old, new store.Address) error {
		t.Helper()
		if _, err := copyChunks(ctx, src, dst, []store.Address{new}, nil, nil); err != nil {
			t.Fatal(err)
		}
		return PeerUpdateRefs(ctx, dst, "d", []PeerRefUpdate{{Name: "refs/heads/main", Old: old, New: new}})
	}
	peerRefs := func() map[string]store.Address {
		t.Helper()
		out := map[string]store.Address{}
		if err := PeerRefs(ctx, dst, "d", func(n string, a store.Address) error { out[n] = a; return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if err := push(store.Address{}, c1); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDatabase(ctx, dst, "d")
	if err != nil {
		t.Fatalf("the first push did not create the database: %v", err)
	}
	wantClean := func(head store.Address) {
		t.Helper()
		c, err := LoadCommit(ctx, dst, head)
		if err != nil {
			t.Fatal(err)
		}
		_, ws, err := d.WorkingSet(ctx, "main")
		if err != nil {
			t.Fatal(err)
		}
		if ws.Working != c.Root || ws.Staged != c.Root {
			t.Errorf("the working set is not the pushed commit's root")
		}
		if h, _ := d.BranchHead(ctx, "main"); h != head {
			t.Errorf("main is %s, want %s", h, head)
		}
	}
	wantClean(c1)
	if refs := peerRefs(); refs["refs/heads/main"] != c1 || refs["ws/main"].IsZero() || len(refs) != 2 {
		t.Errorf("PeerRefs: %v", refs)
	}

	setWorking(t, a, "main", putRows(t, mustRootOf(t, a, "main"), map[int]string{2: "two"}))
	c2 := commitAll(t, a, "main", "two", 3)
	if err := push(c1, c2); err != nil {
		t.Fatal(err)
	}
	wantClean(c2)
	if err := push(c1, c2); !errors.Is(err, ErrRefMoved) {
		t.Errorf("a push from a stale head: %v, want ErrRefMoved", err)
	}

	// Uncommitted changes on the serving side: refused, nothing moves.
	before := peerRefs()
	setWorking(t, d, "main", putRows(t, mustRootOf(t, d, "main"), map[int]string{3: "local"}))
	dirty := peerRefs()
	setWorking(t, a, "main", putRows(t, mustRootOf(t, a, "main"), map[int]string{4: "four"}))
	c3 := commitAll(t, a, "main", "four", 4)
	if err := push(c2, c3); !errors.Is(err, ErrBranchDirty) {
		t.Errorf("a push onto uncommitted changes: %v, want ErrBranchDirty", err)
	}
	if after := peerRefs(); after["refs/heads/main"] != before["refs/heads/main"] || after["ws/main"] != dirty["ws/main"] {
		t.Errorf("a refused push moved refs: %v, then %v", dirty, after)
	}

	// Names a peer may not move.
	for _, name := range []string{"ws/main", "db/d/heads/main", "refs/heads/../x", "refs/remotes/origin/main"} {
		err := PeerUpdateRefs(ctx, dst, "d", []PeerRefUpdate{{Name: name, New: c3}})
		if !errors.Is(err, ErrPeerRef) && !errors.Is(err, ErrBadName) {
			t.Errorf("an update of %q: %v, want ErrPeerRef", name, err)
		}
	}
}
