package types

import "strings"

// QuoteIdent quotes an SQL identifier where PostgreSQL's quote_identifier
// does: unless it is lower-case letters, digits and underscores, not
// starting with a digit, and no keyword that must be quoted. quote_ident,
// the catalog's deparsed text and EXPLAIN print names with it.
func QuoteIdent(s string) string {
	safe := s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] == '_')
	for i := 0; i < len(s) && safe; i++ {
		c := s[i]
		safe = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	if safe && !quotedKeywords[s] {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// quotedKeywords are PostgreSQL 15's keywords that are not unreserved,
// which quote_identifier quotes (pg_get_keywords() where catcode <> 'U').
var quotedKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`all analyse analyze and any array as asc asymmetric authorization
		between bigint binary bit boolean both case cast char character check coalesce collate collation
		column concurrently constraint create cross current_catalog current_date current_role
		current_schema current_time current_timestamp current_user dec decimal default deferrable desc
		distinct do else end except exists extract false fetch float for foreign freeze from full grant
		greatest group grouping having ilike in initially inner inout int integer intersect interval into
		is isnull join lateral leading least left like limit localtime localtimestamp national natural
		nchar none normalize not notnull null nullif numeric offset on only or order out outer overlaps
		overlay placing position precision primary real references returning right row select
		session_user setof similar smallint some substring symmetric table tablesample then time
		timestamp to trailing treat trim true union unique user using values varchar variadic verbose
		when where window with xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces
		xmlparse xmlpi xmlroot xmlserialize xmltable`) {
		m[w] = true
	}
	return m
}()
