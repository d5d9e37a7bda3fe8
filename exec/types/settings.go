package types

import (
	"time"
)

// DateStyle is the output format half of the DateStyle setting.
type DateStyle uint8

// The DateStyle output formats.
const (
	DateStyleISO      DateStyle = iota // 1999-01-08 04:05:06-08
	DateStylePostgres                  // Fri Jan 08 04:05:06 1999 PST
	DateStyleSQL                       // 01/08/1999 04:05:06 PST
	DateStyleGerman                    // 08.01.1999 04:05:06 PST
)

// DateOrder is the field-order half of the DateStyle setting: it decides
// how ambiguous input such as 01/02/03 reads, and the output order of the
// SQL and Postgres styles.
type DateOrder uint8

// The DateStyle field orders.
const (
	DateOrderMDY DateOrder = iota
	DateOrderDMY
	DateOrderYMD
)

// IntervalStyle is the IntervalStyle setting.
type IntervalStyle uint8

// The IntervalStyle values.
const (
	IntervalStylePostgres        IntervalStyle = iota // 1 year 2 mons 3 days 04:05:06
	IntervalStylePostgresVerbose                      // @ 1 year 2 mons 3 days 4 hours 5 mins 6 secs
	IntervalStyleSQLStandard                          // 1-2 3 4:05:06
	IntervalStyleISO8601                              // P1Y2M3DT4H5M6S
)

// Settings are the session settings that text I/O depends on. The zero
// value is PostgreSQL's default (DateStyle ISO, MDY; IntervalStyle
// postgres; TimeZone UTC) except for ExtraFloatDigits, whose default is 1:
// use DefaultSettings. A nil *Settings means DefaultSettings everywhere.
//
// The session layer maps SET commands onto these fields as PostgreSQL
// does: `SET DateStyle = German` without an order also selects DMY; the
// other styles given alone keep the current order.
//
// Settings are read, never written, by this package; one value may be
// shared by concurrent calls.
type Settings struct {
	DateStyle     DateStyle
	DateOrder     DateOrder
	IntervalStyle IntervalStyle
	// TimeZone is the session time zone; nil means UTC.
	TimeZone *time.Location
	// Now is the transaction start time that 'now', 'today', 'tomorrow'
	// and 'yesterday' read; nil means time.Now.
	Now func() time.Time
	// ExtraFloatDigits is extra_float_digits (default 1).
	ExtraFloatDigits int
	// ByteaEscape selects bytea_output = escape instead of hex.
	ByteaEscape bool
	// Replica is session_replication_role = replica: triggers enabled
	// REPLICA or ALWAYS fire, the others do not.
	Replica bool
	// XMLDocument is xmloption = document: xml input must be a document,
	// not only content.
	XMLDocument bool
	// XMLBinaryHex is xmlbinary = hex: bytea values in XML are hex
	// digits instead of base64.
	XMLBinaryHex bool
	// TextSearchConfig is default_text_search_config, the configuration
	// of to_tsvector and the to_tsquery family called without one.
	TextSearchConfig string
	// Types finds the user-defined types whose input needs their
	// definitions (enum labels, composite fields); nil means none exist.
	Types Catalog
	// MaxQueryMemory is max_query_memory, the bytes of rows a statement's
	// buffers may hold (0: no limit). Read by exec (its memory.go), not by
	// this package.
	MaxQueryMemory int64
	// TrgmSimilarity, TrgmWordSimilarity and TrgmStrictWordSimilarity
	// are pg_trgm's similarity_threshold, word_similarity_threshold and
	// strict_word_similarity_threshold (defaults 0.3, 0.6 and 0.5), which
	// its %, <% and <<% operators compare with. Read by exec/funcs.
	TrgmSimilarity, TrgmWordSimilarity, TrgmStrictWordSimilarity float64
}

// DefaultSettings are PostgreSQL's defaults with TimeZone UTC.
var DefaultSettings = Settings{ExtraFloatDigits: 1, TrgmSimilarity: 0.3, TrgmWordSimilarity: 0.6, TrgmStrictWordSimilarity: 0.5}

func (s *Settings) loc() *time.Location {
	if s == nil || s.TimeZone == nil {
		return time.UTC
	}
	return s.TimeZone
}

func (s *Settings) now() time.Time {
	if s == nil || s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

func (s *Settings) order() DateOrder {
	if s == nil {
		return DateOrderMDY
	}
	return s.DateOrder
}

func (s *Settings) style() DateStyle {
	if s == nil {
		return DateStyleISO
	}
	return s.DateStyle
}

func (s *Settings) intervalStyle() IntervalStyle {
	if s == nil {
		return IntervalStylePostgres
	}
	return s.IntervalStyle
}
