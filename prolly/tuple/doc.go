// Package tuple encodes a row value as a compact tuple of fields, each a
// byte string or NULL, with access to any field in constant time: reading
// field i never looks at the fields before it. It also encodes the payloads
// that SQL types put in fields (fixed-width integers and floats, bool,
// numeric, interval); text, bytea, uuid and the like are stored as their
// bytes.
//
// The package knows data types, not SQL: it imports no other project
// package, and a tuple does not record the types of its fields. The schema
// that says field 3 is an int8 lives with the table.
//
// # Invariants
//
//  1. Round trip. A tuple built from fields f0…fn-1 has Count() == n and
//     Field(i) returns fi (same bytes, or NULL) for every i.
//  2. Canonical. Validate accepts exactly the byte strings a Builder
//     produces, and the Builder's output is a function of the fields alone.
//     Equal rows therefore have equal bytes, which content addressing and
//     history independence rely on.
//  3. Safety. After Validate(b) returns nil, no method of Tuple(b) panics,
//     for any index. On bytes that were neither built here nor validated,
//     Tuple's methods may panic; validate whatever does not come straight
//     from a Builder or from the store's own checksummed chunks.
//  4. Fewer fields. Field(i) for i ≥ Count() reports NULL. Adding a column at
//     the end of a table (ALTER TABLE ADD COLUMN) therefore leaves old rows
//     readable: they just have fewer fields. A reader that must tell an
//     explicit NULL from a missing field (to supply the column's default, as
//     PostgreSQL's attmissingval does) compares i with Count(). Fields are
//     only ever added at the end; a dropped column keeps its position (write
//     NULL) unless the table is rewritten. Rows written before and after an
//     ADD COLUMN differ in bytes even where they agree in values.
//  5. Typed payloads are fixed-width little-endian (int16/32/64, float32/64
//     as their exact IEEE bits, -0 and NaN payloads included; bool as one
//     byte 0 or 1; interval as 16 bytes) or the numeric layout below; their
//     decoders check the length and content and return ErrCorrupt on
//     anything else.
//
// # Byte layout of a tuple (format version 1)
//
// A tuple with no fields is the empty byte string. Otherwise:
//
//	+--------+-----------+-------------+-------------------------+----------------+
//	| header | count     | NULL bitmap | end offsets             | field data     |
//	| 1 byte | uvarint   | ⌈count/8⌉ B | (count-1) × w bytes, LE | concatenated   |
//	|        | ≥ 1, min. | if any NULL |                         |                |
//	+--------+-----------+-------------+-------------------------+----------------+
//
//	header  bits 0-1: w code: 0 → w=1, 1 → w=2, 2 → w=4 (3 is invalid)
//	        bit  2:   the NULL bitmap is present (set iff some field is NULL)
//	        bits 3-4: zero
//	        bits 5-7: format version, 1 (so headers are 0x20..0x26)
//	bitmap  bit i%8 of byte i/8 is 1 iff field i is NULL; bits ≥ count are 0
//	offsets entry i (i < count-1) is the end of field i, relative to the start
//	        of field data; field i spans [end(i-1), end(i)) with end(-1) = 0,
//	        and the last field ends at the end of the tuple, so its end is not
//	        stored. Ends never decrease; a NULL field is empty.
//	w       the smallest of 1, 2, 4 that holds len(field data): 1 up to 255
//	        bytes, 2 up to 65535, 4 up to 2^32-1 (the limit of a tuple)
//
// Example: the fields ("ab", NULL, "c") are
//
//	24 03 02 02 02 61 62 63
//	│  │  │  └──┴─ ends of fields 0 and 1
//	│  │  └─ bitmap: field 1 is NULL
//	│  └─ count 3
//	└─ version 1, NULL bitmap, w=1
//
// # Byte layout of a numeric payload
//
//	+--------+----------------------------+----------------------------+
//	| header | [exponent, zigzag uvarint] | coefficient                |
//	+--------+----------------------------+----------------------------+
//
//	header  bits 0-1: form: 0 finite, 1 infinite, 2 NaN, 3 sNaN
//	        bit  2:   negative (kept for every form: -0 and -NaN survive)
//	        bits 3-7: x; for a finite value with exponent in -15..15,
//	                  x = exponent+16 and no exponent bytes follow; x = 0
//	                  means the exponent follows (finite, outside -15..15)
//	                  or there is none (not finite)
//	coefficient  big-endian magnitude without leading zero bytes, to the
//	        end of the payload; empty for zero and for non-finite values
//
// So 1.50 (coefficient 150, exponent -2) is 70 96, and the exact value,
// scale included, comes back: decode(encode(d)) has d's Form, Negative,
// Exponent and Coeff (non-finite values come back with zero Exponent and
// Coeff, which apd ignores for them).
//
// # Ownership and concurrency
//
// Field returns a view into the tuple with its capacity cut at the field's
// end, valid while the tuple's bytes are and not to be written through.
// Builder.Build returns the Builder's own buffer, valid until the next call
// of Build or Reset; AppendTo and the Append functions append to the
// caller's dst. A Builder is not safe for concurrent use; a Tuple is
// read-only and may be read concurrently. Builder.Append copies the field,
// so the caller may reuse its buffer at once.
package tuple
