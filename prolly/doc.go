// Package prolly implements the Prolly tree: an immutable, persistent,
// ordered map from byte keys to byte values, stored as content-addressed
// chunks.
package prolly
