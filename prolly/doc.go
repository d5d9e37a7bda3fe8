// Package prolly implements the Prolly tree: an immutable, persistent,
// ordered map from byte keys to byte values, stored as content-addressed
// chunks. Tables and indexes of the SQL layer are Maps; versions of them
// share every node they have in common, which is what makes branches free
// and diffs and merges proportional to the change.
//
// # Shape
//
// A Map is a B+-tree. Leaves (level 0) hold keys and values; internal nodes
// hold, for each child, the child's last key, its address and the number of
// entries below it (so Count and SeekOrdinal take logarithmic time). Node
// boundaries are decided by content: an item ends its node when a hash of
// its key, salted by level, falls under a threshold that rises with the
// node's size (chunker.go). Nodes are about 4 KiB, never cut below 512 bytes
// except at the end of a level, and always cut by 16 KiB. Values longer
// than MaxInlineValue are stored out of line as blobs (blob.go); keys may be
// up to MaxKeySize bytes. The byte layout of a node is drawn in node.go; it
// is format version 1, pinned by a golden root address in the tests.
//
// # Invariants
//
//  1. History independence: a Map's root address is a function of its
//     entries alone, whatever sequence of Builder, Apply and Merge calls
//     produced it. Equal maps have equal roots; the root is canonical (no
//     internal root with a single child).
//  2. Locality: Apply of k edits writes about k nodes per level; it
//     re-cuts a level only from the node holding an edit until the new
//     boundaries fall back in step with the old ones.
//  3. Diffs skip shared subtrees: Differ never reads below two equal
//     addresses, so its reads grow with the change, not the maps.
//  4. Children are written before their parents, so a stored root implies
//     its whole tree is stored.
//  5. Keys are compared with bytes.Compare, a pure function; the package
//     knows nothing of SQL types (see prolly/sortkey and prolly/tuple for
//     the encodings the SQL layer puts in keys and values).
//
// Map.Check verifies all of this for one tree; tests run it after every
// operation.
//
// # Ownership and concurrency
//
// Keys and inline values returned by Get, Iter and Differ are views into
// node chunks shared with the store's cache: never modify them; they stay
// valid for as long as they are referenced. Values stored out of line are
// read into new slices. Slices passed to Builder.Add and Apply are copied
// (into node bytes) before those calls return. A Map is an immutable value
// and safe for concurrent use; an Iter, a Differ and a Builder are not.
package prolly
