package store

import (
	"errors"
	"fmt"
)

// Sentinel errors. Errors returned by this package wrap one of these (test
// with errors.Is) and add the address or ref name concerned. The SQL layer
// maps them to SQLSTATEs: ErrCorrupt to XX001 (data_corrupted),
// ErrRefConflict to 40001 (serialization_failure), the rest to XX000.
var (
	// ErrNotFound: the chunk or ref does not exist.
	ErrNotFound = errors.New("store: not found")
	// ErrCorrupt: stored bytes do not hash to their address, or a record of
	// the store cannot be decoded.
	ErrCorrupt = errors.New("store: corrupt")
	// ErrRefConflict: a ref's current value is not the expected Old value.
	ErrRefConflict = errors.New("store: ref conflict")
	// ErrDanglingRef: a ref update names a chunk the store does not hold.
	ErrDanglingRef = errors.New("store: dangling ref")
	// ErrNotStore: the directory holds something other than a store.
	ErrNotStore = errors.New("store: not a store")
	// ErrFormatVersion: the store was written in another format version.
	ErrFormatVersion = errors.New("store: unsupported format version")
	// ErrClosed: the store has been closed.
	ErrClosed = errors.New("store: closed")
)

// notFound returns the error for an absent chunk.
func notFound(addr Address) error {
	return fmt.Errorf("store: chunk %s: %w", addr, ErrNotFound)
}

// manyNotFound returns the error for the absent chunks of a GetMany call, nil
// if there are none.
func manyNotFound(absent []Address) error {
	switch len(absent) {
	case 0:
		return nil
	case 1:
		return notFound(absent[0])
	}
	return fmt.Errorf("store: chunk %s and %d more: %w", absent[0], len(absent)-1, ErrNotFound)
}

// corrupt returns the error for a chunk whose bytes do not hash to addr.
func corrupt(addr Address) error {
	return fmt.Errorf("store: chunk %s: bytes do not match the address: %w", addr, ErrCorrupt)
}

// tooLarge returns the error for a Put of a chunk over MaxChunkSize.
func tooLarge(n int) error {
	return fmt.Errorf("store: chunk of %d bytes exceeds the limit of %d", n, MaxChunkSize)
}
