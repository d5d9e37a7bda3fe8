package prolly

import (
	"bytes"
	"context"
	"fmt"
	"io"
)

// Collision is a key that both sides of a merge changed, differently.
// Base, Ours and Theirs are the key's values on each side, nil where the
// key is absent (the In* fields tell absence from an empty value).
type Collision struct {
	Key                      []byte
	Base, Ours, Theirs       []byte
	InBase, InOurs, InTheirs bool
}

// Resolution is what a ResolveFunc decides for a collision: the key's value
// in the merged map, or its absence.
type Resolution struct {
	Value  []byte
	Delete bool
}

// ResolveFunc decides a collision. It may record the collision (a conflict
// for a user to see) and keep ours; an error aborts the merge.
type ResolveFunc func(Collision) (Resolution, error)

// MergeStats counts what a merge did.
type MergeStats struct {
	Applied    int // changes of theirs applied to ours
	Collisions int // keys handed to the ResolveFunc
}

// Merge combines the changes from base to ours and from base to theirs. A key
// changed on one side only takes that side's change; a key changed the same
// way on both is taken once; a key changed differently is handed to resolve,
// exactly once. The work is the size of the two diffs (Differ skips shared
// subtrees), and the result is ours with theirs' changes applied, so the
// merged map shares every untouched node with ours.
func Merge(ctx context.Context, base, ours, theirs Map, resolve ResolveFunc) (Map, MergeStats, error) {
	var st MergeStats
	switch {
	case ours.addr == base.addr:
		return theirs, st, nil
	case theirs.addr == base.addr || theirs.addr == ours.addr:
		return ours, st, nil
	}
	od := NewDiffer(ctx, base, ours)
	td := NewDiffer(ctx, base, theirs)
	o, oErr := od.Next()
	t, tErr := td.Next()
	var edits []Edit
	for {
		if oErr != nil && oErr != io.EOF {
			return Map{}, st, oErr
		}
		if tErr != nil && tErr != io.EOF {
			return Map{}, st, tErr
		}
		if tErr == io.EOF {
			break // nothing of theirs left to apply
		}
		c := -1
		switch {
		case oErr == io.EOF:
			c = 1
		default:
			c = bytes.Compare(o.Key, t.Key)
		}
		if c < 0 {
			o, oErr = od.Next()
			continue
		}
		if c > 0 {
			// Only theirs changed the key.
			edits = append(edits, diffEdit(t))
			st.Applied++
			t, tErr = td.Next()
			continue
		}
		if o.Kind == Removed && t.Kind == Removed || o.Kind != Removed && t.Kind != Removed && bytes.Equal(o.To, t.To) {
			// Both sides made the same change.
		} else {
			st.Collisions++
			r, err := resolve(Collision{
				Key:  o.Key,
				Base: o.From, InBase: o.Kind != Added,
				Ours: o.To, InOurs: o.Kind != Removed,
				Theirs: t.To, InTheirs: t.Kind != Removed,
			})
			if err != nil {
				return Map{}, st, fmt.Errorf("prolly: merge: resolving %x: %w", o.Key, err)
			}
			if r.Delete != (o.Kind == Removed) || !r.Delete && !bytes.Equal(r.Value, o.To) {
				edits = append(edits, Edit{Key: o.Key, Value: r.Value, Delete: r.Delete})
			}
		}
		o, oErr = od.Next()
		t, tErr = td.Next()
	}
	merged, err := ours.Apply(ctx, edits)
	return merged, st, err
}

// diffEdit is the edit that makes a map take a diff's newer side.
func diffEdit(d Diff) Edit {
	return Edit{Key: d.Key, Value: d.To, Delete: d.Kind == Removed}
}

// MergeInto is Merge for a small change onto a map that may have moved
// far: it applies ours's changes since base to theirs, looking each
// changed key up in theirs, so its work follows the size of ours's diff
// alone, however many changes theirs holds. Merge walks both diffs, which
// made a transaction committing onto a busy branch pay for every commit
// since it began. Collisions, the ResolveFunc and the result's content are
// Merge's; the result shares theirs's untouched nodes, and
// MergeStats.Applied counts ours's changes applied to theirs.
func MergeInto(ctx context.Context, base, ours, theirs Map, resolve ResolveFunc) (Map, MergeStats, error) {
	return MergeIntoWith(ctx, base, ours, theirs, resolve, nil)
}

// MergeIntoWith is MergeInto that also calls alike with each of ours's
// changes that theirs made too, the same way: the merge keeps it without
// a collision, and a caller may still object (two transactions inserting
// one key, even with one value, is a duplicate key). An error from alike
// ends the merge.
func MergeIntoWith(ctx context.Context, base, ours, theirs Map, resolve ResolveFunc, alike func(Diff) error) (Map, MergeStats, error) {
	if len(base.ov)+len(ours.ov)+len(theirs.ov) > 0 {
		return Map{}, MergeStats{}, errDeferred
	}
	if m, ok := trivialMerge(base, ours, theirs); ok {
		return m, MergeStats{}, nil
	}
	mi := mergeInto{theirs: theirs, resolve: resolve, alike: alike}
	if err := DiffMaps(ctx, base, ours, func(o Diff) error { return mi.change(ctx, o) }); err != nil {
		return Map{}, mi.st, err
	}
	merged, err := theirs.Apply(ctx, mi.edits)
	return merged, mi.st, err
}

// MergeKeysInto is MergeIntoWith for a caller that knows which keys ours
// may have changed since base: keys, sorted and without duplicates, must
// hold every key whose entry differs between the two (more do no harm).
// It looks each up in base and ours instead of diffing the two trees,
// which for a transaction's few rows costs a fraction of the diff's walk
// over the nodes on both paths.
func MergeKeysInto(ctx context.Context, base, ours, theirs Map, keys [][]byte, resolve ResolveFunc, alike func(Diff) error) (Map, MergeStats, error) {
	if len(base.ov)+len(ours.ov)+len(theirs.ov) > 0 {
		return Map{}, MergeStats{}, errDeferred
	}
	if m, ok := trivialMerge(base, ours, theirs); ok {
		return m, MergeStats{}, nil
	}
	mi := mergeInto{theirs: theirs, resolve: resolve, alike: alike}
	for _, k := range keys {
		bv, inBase, err := base.Get(ctx, k)
		if err != nil {
			return Map{}, mi.st, err
		}
		ov, inOurs, err := ours.Get(ctx, k)
		if err != nil {
			return Map{}, mi.st, err
		}
		d := Diff{Key: k, From: bv, To: ov}
		switch {
		case inBase == inOurs && (!inBase || bytes.Equal(bv, ov)):
			continue // unchanged
		case !inBase:
			d.Kind, d.From = Added, nil
		case !inOurs:
			d.Kind, d.To = Removed, nil
		default:
			d.Kind = Modified
		}
		if err := mi.change(ctx, d); err != nil {
			return Map{}, mi.st, err
		}
	}
	merged, err := theirs.Apply(ctx, mi.edits)
	return merged, mi.st, err
}

// trivialMerge returns the merge's result when one side did not change.
func trivialMerge(base, ours, theirs Map) (Map, bool) {
	switch {
	case ours.addr == base.addr || theirs.addr == ours.addr:
		return theirs, true
	case theirs.addr == base.addr:
		return ours, true
	}
	return Map{}, false
}

// mergeInto collects the edits that carry ours's changes onto theirs.
type mergeInto struct {
	theirs  Map
	resolve ResolveFunc
	alike   func(Diff) error
	edits   []Edit
	st      MergeStats
}

// change takes one of ours's changes since base onto theirs.
func (mi *mergeInto) change(ctx context.Context, o Diff) error {
	tv, inTheirs, err := mi.theirs.Get(ctx, o.Key)
	if err != nil {
		return err
	}
	inBase, inOurs := o.Kind != Added, o.Kind != Removed
	switch {
	case inTheirs == inBase && (!inBase || bytes.Equal(tv, o.From)):
		// Theirs left the key as base had it: ours's change stands.
		mi.edits = append(mi.edits, diffEdit(o))
		mi.st.Applied++
	case inTheirs == inOurs && (!inOurs || bytes.Equal(tv, o.To)):
		// Both sides made the same change.
		if mi.alike != nil {
			if err := mi.alike(o); err != nil {
				return fmt.Errorf("prolly: merge: %x changed alike: %w", o.Key, err)
			}
		}
	default:
		mi.st.Collisions++
		r, err := mi.resolve(Collision{
			Key:  o.Key,
			Base: o.From, InBase: inBase,
			Ours: o.To, InOurs: inOurs,
			Theirs: tv, InTheirs: inTheirs,
		})
		if err != nil {
			return fmt.Errorf("prolly: merge: resolving %x: %w", o.Key, err)
		}
		if r.Delete != !inTheirs || !r.Delete && !bytes.Equal(r.Value, tv) {
			mi.edits = append(mi.edits, Edit{Key: o.Key, Value: r.Value, Delete: r.Delete})
		}
	}
	return nil
}
