package store

import "fmt"

// MaxRefNameLen is the longest ref name the store accepts, in bytes.
const MaxRefNameLen = 1024

// RefUpdate is one compare-and-set of UpdateRefs: the ref Name moves from Old
// to New. A zero Old means the ref must not exist yet; a zero New deletes it.
type RefUpdate struct {
	Name     string
	Old, New Address
}

// checkRefName reports whether name is acceptable as a ref name: non-empty,
// at most MaxRefNameLen bytes. Called by both implementations.
func checkRefName(name string) error {
	if name == "" {
		return fmt.Errorf("store: empty ref name")
	}
	if len(name) > MaxRefNameLen {
		return fmt.Errorf("store: ref name %.40q...: longer than %d bytes", name, MaxRefNameLen)
	}
	return nil
}

// checkRefUpdates validates the shape of one UpdateRefs call: valid names,
// each at most once (two updates of one ref in one call would be ambiguous).
// Called by both implementations before touching anything.
func checkRefUpdates(updates []RefUpdate) error {
	for i, u := range updates {
		if err := checkRefName(u.Name); err != nil {
			return err
		}
		for _, v := range updates[:i] {
			if v.Name == u.Name {
				return fmt.Errorf("store: ref %q updated twice in one call", u.Name)
			}
		}
	}
	return nil
}

// refConflict returns the error for a ref whose current value cur (zero if
// absent) is not the expected old value.
func refConflict(name string, old, cur Address) error {
	return fmt.Errorf("store: ref %q is %s, expected %s: %w", name, addrOrNone(cur), addrOrNone(old), ErrRefConflict)
}

// danglingRef returns the error for an update of name to a missing chunk.
func danglingRef(name string, addr Address) error {
	return fmt.Errorf("store: ref %q: chunk %s is absent: %w", name, addr, ErrDanglingRef)
}

// addrOrNone formats a for messages, the zero Address as "none".
func addrOrNone(a Address) string {
	if a.IsZero() {
		return "none"
	}
	return a.String()
}
