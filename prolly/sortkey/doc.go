// Package sortkey encodes typed values into byte strings whose
// bytes.Compare order is the SQL order of the values, as PostgreSQL orders
// them under the C collation. Table and index keys are built from it, so a
// Prolly tree that knows nothing but bytes keeps its rows in SQL order.
//
// The package knows data types, not SQL: it has no catalog, no schema and
// no imports of other project packages. The caller knows each column's type
// and Order and calls the matching Append/Decode pair.
//
// # Invariants
//
//  1. Order. For two values x, y of one type and one Order o,
//     sign(bytes.Compare(AppendT(nil, x, o), AppendT(nil, y, o))) equals the
//     sign of PostgreSQL's comparison of x and y under o (direction and NULL
//     placement). Values PostgreSQL calls equal encode identically.
//  2. Prefix-free. No column encoding is a proper prefix of another column
//     encoding of the same type and Order. Hence a composite key is the plain
//     concatenation of its column encodings, and comparing two such
//     concatenations compares column by column, the first column first.
//  3. Direction by complement. A DESC column is the bytewise complement of
//     the ASC encoding with the opposite NULL placement: DESC NULLS FIRST is
//     ^(ASC NULLS LAST), DESC NULLS LAST is ^(ASC NULLS FIRST).
//  4. Canonical. Every Decode function accepts only the bytes that the
//     matching Append function produces, so a successful decode followed by
//     an encode reproduces the consumed bytes exactly. Anything else is an
//     error wrapping ErrCorrupt; no input makes a decoder panic.
//  5. Normalization, the only ways decode(encode(x)) differs from x:
//     float -0 decodes as +0 and every NaN as the canonical quiet NaN
//     (float8 bits 0x7FF8000000000000, float4 bits 0x7FC00000); numeric
//     decodes as its reduced value (trailing zeros stripped from the
//     coefficient, as apd.Decimal.Reduce gives: 1.50 → 1.5, 100 → 1E+2, any
//     zero → 0, NaN and sNaN of either sign → NaN); an interval decodes as
//     the normalized interval of the same total span (see AppendInterval).
//     Keep exact values (the display scale of numeric, '30 days' as typed)
//     in the row, not the key.
//
// # Byte layout
//
// Every column starts with one header byte:
//
//	0x00          NULL, when the Order puts NULLs first
//	0xFF          NULL, when the Order puts NULLs last
//	tag           a value of an ASC column; tag is in 0x01..0x7F
//	^tag          a value of a DESC column (0x80..0xFE); the payload is complemented too
//
// Tags (ASC) and payloads, drawn for ASC; a DESC column complements every
// byte, header included:
//
//	0x10 bool        | 0x00 false / 0x01 true |
//	0x11 int2        | 2 bytes big-endian, sign bit flipped |
//	0x12 int4        | 4 bytes big-endian, sign bit flipped |
//	0x13 int8        | 8 bytes big-endian, sign bit flipped |
//	0x14 float4      | 4 bytes: IEEE bits b; b^0x80000000 if b ≥ 0, else ^b (after -0 → 0, NaN → canonical) |
//	0x15 float8      | 8 bytes: the same on 64 bits |
//	0x16 numeric     | class | [exponent | digits] |
//	0x17 text        | escaped bytes | 0x00 0x01 |   escape: 0x00 → 0x00 0xFF
//	0x18 bytea       | escaped bytes | 0x00 0x01 |
//	0x19 date        | int32 days since 2000-01-01, as int4 (-infinity = MinInt32, infinity = MaxInt32) |
//	0x1A time        | int64 µs since midnight, as int8 |
//	0x1B timestamp   | int64 µs since 2000-01-01 00:00, as int8 (±infinity = Min/MaxInt64) |
//	0x1C timestamptz | int64 µs since 2000-01-01 00:00 UTC, as int8 |
//	0x1D interval    | 10 bytes: total span in µs, 80-bit two's complement big-endian, sign bit flipped |
//	0x1E uuid        | 16 bytes as given |
//
// Numeric: class is 0x01 -Infinity, 0x02 negative, 0x03 zero, 0x04
// positive, 0x05 Infinity, 0x06 NaN. Only classes 0x02 and 0x04 carry more.
// A nonzero finite value is 0.d1d2…dn × 10^E with d1 ≠ 0 and dn ≠ 0 (n ≥ 1).
// E is written as an order-preserving varint:
//
//	0x08..0xF7          one byte, E = byte - 128 (E in -120..119)
//	0xF8..0xFF, k bytes E ≥ 120: k = byte - 0xF7 big-endian bytes of E, minimal
//	0x00..0x07, k bytes E ≤ -121: k = 8 - byte; the low k bytes of E (two's
//	                    complement), minimal for ^E
//
// then the digits in pairs (d1d2)(d3d4)…, the last padded with a 0: each
// pair p (0..99) is the byte 2p+1, except the last which is 2p (never 0).
// For a negative value everything after the class byte is complemented.
//
// Text and bytea compare as byte strings (C collation: UTF-8 byte order).
// The escape keeps prefix order: "a" = 61 00 01 < "a\x00" = 61 00 FF 00 01
// < "ab" = 61 62 00 01.
//
// The tag tells the type, the high bit the direction and 0x00/0xFF a NULL,
// so Split can cut a key into columns without a schema.
//
// Format version 1. Keys carry no version byte (it would cost a byte per key
// and could not change the order anyway); any change to this layout is a new
// format version recorded by the table that uses it, and existing tags and
// payloads never change meaning.
//
// # Ownership and concurrency
//
// Append functions append to dst and return the extended slice, like the
// built-in append; they do not allocate when dst has room, except
// AppendNumeric for coefficients of 2^64 or more. Decode functions read from
// the front of b and return rest, a subslice of b after the column (nil on
// error), and report NULL with null = true and a zero value. Decoded
// text and bytea are appended to the caller's dst and never alias b. Nothing
// is retained between calls; every function is safe for concurrent use.
package sortkey
