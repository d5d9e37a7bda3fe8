package store

import (
	"errors"
	"fmt"
	"sync"

	"github.com/dgraph-io/badger/v4"
)

// On-disk layout, format version 2 (see the package doc).
const (
	chunkPrefix   = 'c'
	refPrefix     = 'r'
	formatKey     = "m/format"
	formatVersion = 2

	// chunkKeyLen is the length of a chunk's key: the prefix and the address.
	chunkKeyLen = 1 + AddressSize
)

// hasChunk reports whether the chunk of addr is in Badger, reading only the
// LSM tree (not the value).
func hasChunk(txn *badger.Txn, addr Address) (bool, error) {
	key := pooledChunkKey(addr)
	_, err := txn.Get(key[:])
	chunkKeys.Put(key)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, badger.ErrKeyNotFound):
		return false, nil
	}
	return false, fmt.Errorf("store: looking up chunk %s: %w", addr, err)
}

// readRef reads ref name in txn: its address, or the zero Address and false
// if it does not exist.
func readRef(txn *badger.Txn, name string) (Address, bool, error) {
	var a Address
	item, err := txn.Get(refKey(name))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return a, false, nil
	}
	if err != nil {
		return a, false, fmt.Errorf("store: reading ref %q: %w", name, err)
	}
	err = item.Value(func(v []byte) error { return decodeRef(name, v, &a) })
	return a, err == nil, err
}

// decodeRef decodes the stored value v of ref name into a.
func decodeRef(name string, v []byte, a *Address) error {
	if len(v) != AddressSize || Address(v).IsZero() {
		return fmt.Errorf("store: ref %q: bad value %x: %w", name, v, ErrCorrupt)
	}
	*a = Address(v)
	return nil
}

// chunkKeys recycles the key buffers of chunk lookups, which would otherwise
// be an allocation of every read: Badger keeps the key in the Item it
// returns, so a stack buffer escapes. A buffer goes back to the pool once the
// Item is no longer used.
var chunkKeys = sync.Pool{New: func() any { return new([chunkKeyLen]byte) }}

// pooledChunkKey returns the key of the chunk of addr in a buffer from
// chunkKeys, for the caller to put back.
func pooledChunkKey(addr Address) *[chunkKeyLen]byte {
	k := chunkKeys.Get().(*[chunkKeyLen]byte)
	k[0] = chunkPrefix
	*(*Address)(k[1:]) = addr
	return k
}

// refKey returns the Badger key of ref name.
func refKey(name string) []byte {
	return append([]byte{refPrefix}, name...)
}
