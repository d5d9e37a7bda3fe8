package sortkey

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Order is the direction and NULL placement of one key column. The zero
// value is Asc. Build others from Asc and Desc:
//
//	sortkey.Asc                // ASC NULLS LAST (PostgreSQL's default)
//	sortkey.Desc               // DESC NULLS FIRST (PostgreSQL's default)
//	sortkey.Asc.NullsFirst()   // ASC NULLS FIRST
//	sortkey.Desc.NullsLast()   // DESC NULLS LAST
type Order uint8

const (
	descBit       Order = 1 << 0
	nullsFirstBit Order = 1 << 1
)

const (
	// Asc is ascending with NULLs last, PostgreSQL's ASC default.
	Asc Order = 0
	// Desc is descending with NULLs first, PostgreSQL's DESC default.
	Desc Order = descBit | nullsFirstBit
)

// NullsFirst returns o with NULLs placed before every value.
func (o Order) NullsFirst() Order { return o&descBit | nullsFirstBit }

// NullsLast returns o with NULLs placed after every value.
func (o Order) NullsLast() Order { return o & descBit }

// IsDesc reports whether o sorts values in descending order.
func (o Order) IsDesc() bool { return o&descBit != 0 }

// IsNullsFirst reports whether o places NULLs before every value.
func (o Order) IsNullsFirst() bool { return o&nullsFirstBit != 0 }

// String returns o in SQL syntax, e.g. "DESC NULLS FIRST".
func (o Order) String() string {
	switch o & (descBit | nullsFirstBit) {
	case Asc:
		return "ASC NULLS LAST"
	case Asc.NullsFirst():
		return "ASC NULLS FIRST"
	case Desc:
		return "DESC NULLS FIRST"
	default:
		return "DESC NULLS LAST"
	}
}

// mask is the byte every encoded byte of a column in order o is XORed with:
// 0x00 for ASC, 0xFF for DESC.
func (o Order) mask() byte { return -byte(o & descBit) }

// nullByte is the one-byte encoding of NULL in order o.
func (o Order) nullByte() byte {
	if o&nullsFirstBit != 0 {
		return nullFirst
	}
	return nullLast
}

const (
	nullFirst byte = 0x00
	nullLast  byte = 0xFF
)

// Type tags, the ASC header byte of a non-NULL value. All are below 0x80 so
// that the high bit of a header tells the direction. Existing tags never
// change meaning.
const (
	tagBool        byte = 0x10
	tagInt2        byte = 0x11
	tagInt4        byte = 0x12
	tagInt8        byte = 0x13
	tagFloat4      byte = 0x14
	tagFloat8      byte = 0x15
	tagNumeric     byte = 0x16
	tagText        byte = 0x17
	tagBytea       byte = 0x18
	tagDate        byte = 0x19
	tagTime        byte = 0x1A
	tagTimestamp   byte = 0x1B
	tagTimestampTZ byte = 0x1C
	tagInterval    byte = 0x1D
	tagUUID        byte = 0x1E
)

// tagNames names the tags in error messages.
var tagNames = [...]string{
	tagBool:        "bool",
	tagInt2:        "int2",
	tagInt4:        "int4",
	tagInt8:        "int8",
	tagFloat4:      "float4",
	tagFloat8:      "float8",
	tagNumeric:     "numeric",
	tagText:        "text",
	tagBytea:       "bytea",
	tagDate:        "date",
	tagTime:        "time",
	tagTimestamp:   "timestamp",
	tagTimestampTZ: "timestamptz",
	tagInterval:    "interval",
	tagUUID:        "uuid",
}

// ErrCorrupt is wrapped by every decoding error: the bytes are not a key
// column of the expected type and order as this package writes them.
var ErrCorrupt = errors.New("sortkey: malformed key")

// corrupt returns an error wrapping ErrCorrupt; only error paths call it.
func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// AppendNull appends a NULL in order o. NULL has no type: one byte, 0x00 if
// o puts NULLs first and 0xFF if last.
func AppendNull(dst []byte, o Order) []byte { return append(dst, o.nullByte()) }

// head reads the header byte of a column that must be NULL or a value of
// type tag in order o. It returns the payload (or what follows the NULL).
func head(b []byte, tag byte, o Order) (rest []byte, null bool, err error) {
	if len(b) == 0 {
		return nil, false, corrupt("%s: empty input", tagNames[tag])
	}
	switch c := b[0]; c {
	case tag ^ o.mask():
		return b[1:], false, nil
	case o.nullByte():
		return b[1:], true, nil
	default:
		return nil, false, corrupt("%s %s: unexpected header byte %#02x", tagNames[tag], o, c)
	}
}

// fixed reads the header and the n-byte payload of a fixed-width column of
// type tag in order o. The payload is returned as stored (still complemented
// for DESC).
func fixed(b []byte, tag byte, o Order, n int) (payload, rest []byte, null bool, err error) {
	if len(b) > n && b[0] == tag^o.mask() { // the common case, kept small to inline
		return b[1 : 1+n], b[1+n:], false, nil
	}
	return fixedSlow(b, tag, o, n)
}

// fixedSlow is fixed for NULLs and errors.
func fixedSlow(b []byte, tag byte, o Order, n int) (payload, rest []byte, null bool, err error) {
	b, null, err = head(b, tag, o)
	if err != nil || null {
		return nil, b, null, err
	}
	if len(b) < n {
		return nil, nil, false, corrupt("%s: %d payload bytes, want %d", tagNames[tag], len(b), n)
	}
	return b[:n], b[n:], false, nil
}

// complement flips every bit of b in place, a word at a time.
func complement(b []byte) {
	for len(b) >= 8 {
		binary.LittleEndian.PutUint64(b, ^binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	for i := range b {
		b[i] = ^b[i]
	}
}
