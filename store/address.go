package store

import (
	"encoding/base32"
	"fmt"

	"github.com/zeebo/blake3"
)

// AddressSize is the length in bytes of a chunk address.
const AddressSize = 20

// Address names a chunk by its content: the first 20 bytes of the BLAKE3
// hash of the chunk's bytes. The zero Address names no chunk.
type Address [AddressSize]byte

// addrEncoding is lower-case base32 over 0-9a-v, as Git-like tools print
// hashes: 32 characters for 20 bytes, sortable in the same order as the bytes.
var addrEncoding = base32.NewEncoding("0123456789abcdefghijklmnopqrstuv").WithPadding(base32.NoPadding)

// Hash returns the address of data.
func Hash(data []byte) Address {
	var a Address
	h := blake3.Sum256(data)
	copy(a[:], h[:AddressSize])
	return a
}

// IsZero reports whether a is the zero Address.
func (a Address) IsZero() bool { return a == Address{} }

// String returns the 32-character base32 form of a.
func (a Address) String() string { return addrEncoding.EncodeToString(a[:]) }

// ParseAddress parses the 32-character form returned by Address.String.
func ParseAddress(s string) (Address, error) {
	var a Address
	if len(s) != addrEncoding.EncodedLen(AddressSize) {
		return a, fmt.Errorf("store: address %q: want %d characters", s, addrEncoding.EncodedLen(AddressSize))
	}
	n, err := addrEncoding.DecodeString(s)
	if err != nil {
		return a, fmt.Errorf("store: address %q: %w", s, err)
	}
	copy(a[:], n)
	return a, nil
}
