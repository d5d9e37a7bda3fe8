// Package types is PostgreSQL 15's type system as pure functions: the
// pg_type facts of the built-in types (Types, Lookup, FormatType, typmod
// helpers), and the text and binary input/output of each type, with
// PostgreSQL's exact output, acceptance rules, error messages and SQLSTATE
// codes. psql and drivers must not be able to tell it from PostgreSQL.
//
// Real PostgreSQL is the specification. The datetime decoder, the array
// literal scanner and the JSON lexer follow PostgreSQL 15's algorithms step
// by step, because their quirks are observable; the test tables in
// pgcases_data_test.go and pgbinary_data_test.go were recorded from a
// PostgreSQL 15.20 server (testdata/gen_*.py regenerate them).
//
// # Representations
//
// This package defines plain Go representations and nothing about rows:
//
//	bool, int16, int32, int64, Oid, float32, float64   the obvious ones
//	*apd.Decimal                                       numeric (see invariant 3)
//	string                                             text, varchar, bpchar, name, json, citext
//	byte                                               "char"
//	[]byte                                             bytea
//	UUID                                               uuid, [16]byte
//	Date                                               int32 days since 2000-01-01
//	Time                                               int64 µs since midnight
//	Timestamp, TimestampTZ                             int64 µs since 2000-01-01 00:00 (UTC)
//	Interval                                           {Months, Days int32; Micros int64}
//	JSONB                                              a small immutable tree
//	TSVector                                           sorted lexemes with positions (tsvector)
//	TSQuery                                            a tree of operators over lexemes (tsquery)
//	Hstore                                             sorted key/value pairs (contrib's hstore)
//	Array[T]                                           dims, row-major elements, NULL flags
//
// Infinities are stored as PostgreSQL stores them: dates math.MinInt32 and
// math.MaxInt32, timestamps math.MinInt64 and math.MaxInt64.
//
// # Functions
//
// For a type X: ParseX reads text (the typinput function), AppendX appends
// the text form (typoutput), ParseXBinary reads the binary send format
// (typreceive) and AppendXBinary appends it (typsend). Typmods are passed
// as PostgreSQL's int32 typmod, -1 for none. Session settings that change
// text I/O (DateStyle, IntervalStyle, TimeZone, extra_float_digits,
// bytea_output, and the transaction clock that 'now' reads) come in a
// *Settings; nil means the defaults.
// Arrays are generic over an ElemCodec[T], which bundles the four functions
// of an element type; constructors exist for every built-in type.
//
// # Invariants
//
//  1. Every error returned by a parser is an *Error carrying PostgreSQL's
//     SQLSTATE, message, and DETAIL/HINT/CONTEXT where PostgreSQL gives
//     them. Malformed input, text or binary, gives an error, never a panic
//     (the fuzz targets feed arbitrary bytes to every decoder).
//  2. Round trip: for every value v a parser returns, parsing AppendX(v)
//     gives v again, in any DateStyle and IntervalStyle whose output
//     PostgreSQL itself reads back (ISO always; zone abbreviations in the
//     other styles are ambiguous in PostgreSQL too), and the binary forms
//     round-trip exactly.
//  3. Numeric values from this package are canonical: finite values have
//     Exponent ≤ 0 and -Exponent is PostgreSQL's display scale (1.50 keeps
//     its zero, 1e3 is 1000 with scale 0); zero is never negative; NaN is
//     apd.NaN and ±Infinity apd.Infinite. Text and binary output depend
//     only on that form.
//  4. The output paths of bool, integers, oid, floats, date, time,
//     timestamp, timestamptz, interval and uuid, text and binary, do not
//     allocate: they append into the caller's buffer (guarded by
//     TestOutputAllocs with testing.AllocsPerRun).
//  5. JSONB objects hold their keys in jsonb order (shorter first, then
//     bytewise), without duplicates (the last value of a repeated key
//     wins); AppendJSONB prints `{"a": 1, "b": [1, 2]}` like jsonb_out.
//
// # Ownership and concurrency
//
// Append functions only append to dst and return the extended slice; they
// keep no reference to it. Parsers copy what they keep: returned strings,
// byte slices, decimals and trees share nothing with the input, so the
// caller may reuse its buffers at once. The exception is ParseNumeric and
// friends, which write into the *apd.Decimal the caller passes. A Settings
// value is only read and may be shared by concurrent calls; every function
// is safe for concurrent use. Time zones are loaded with time.LoadLocation
// and cached for the life of the process; time/tzdata is linked in so that
// zone names work without a system zoneinfo.
//
// # Binary formats (big-endian, as PostgreSQL sends them)
//
//	numeric   int16 ndigits | int16 weight | uint16 sign | uint16 dscale | ndigits × int16 base-10000 digit
//	          sign: 0x0000 +, 0x4000 -, 0xC000 NaN, 0xD000 +Inf, 0xF000 -Inf (dscale 32 for ±Inf, as PG 15 sends)
//	interval  int64 µs | int32 days | int32 months
//	jsonb     uint8 version (1) | text
//	tsvector  uint32 nlexemes | per lexeme: text | NUL | uint16 npos | npos × uint16 (weight << 14 | pos)
//	tsquery   uint32 nitems | items in prefix order, right operand first: lexeme: uint8 1 | uint8 weights
//	          | uint8 prefix | text | NUL; operator: uint8 2 | uint8 op (1 ! 2 & 3 | 4 <->) | [int16 distance]
//	hstore    int32 npairs | per pair: int32 keylen | key | int32 vallen (-1 = NULL) | value
//	array     int32 ndim | int32 has-nulls (0/1) | uint32 element OID | ndim × (int32 len | int32 lbound)
//	          | per element: int32 length (-1 = NULL) | element bytes
//
// Dates, times and timestamps are their int32/int64 values; floats are IEEE
// 754 bits; uuid is its 16 bytes; text-like types are their UTF-8 bytes.
//
// # Not here
//
// timetz has metadata only. Casts between types, operators and the
// regclass/regtype/regproc lookups belong to the executor. POSIX time zone
// strings with daylight-saving rules (e.g. "EST5EDT4,M3.2.0,M11.1.0") are
// not parsed; zone names resolve through the tz database.
package types
