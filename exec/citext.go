package exec

import (
	"cmp"
	"strings"
)

// citext, contrib's case-insensitive text, built in (CREATE EXTENSION
// citext has nothing to install). A value is KindCIText holding its string
// as written, which it prints, stores and sends as text does; everything
// that compares it goes by its lower case, as citext's citextcmp does
// (str_tolower, then the database collation, which is bytewise here):
// Compare, the hash keys of grouping and joins, and the index keys
// (appendKey), so that 'A@x.com' and 'a@x.com' are one key of a unique
// index and a lookup finds either.
//
// Casts follow citext's pg_cast: citext converts to text and varchar
// implicitly and to bpchar by assignment; text, varchar and bpchar convert
// to it by assignment only, so that citext = text resolves to text's
// case-sensitive operator, as in PostgreSQL.

// CITextFold is the form of s that citext compares: its lower case, by
// the same mapping as lower().
func CITextFold(s string) string { return strings.ToLower(s) }

// CompareCIText orders two citext strings as citext_cmp does.
func CompareCIText(a, b string) int {
	if a == b {
		return 0
	}
	return cmp.Compare(CITextFold(a), CITextFold(b))
}

// DCIText is a citext value.
func DCIText(s string) Datum { return Datum{Kind: KindCIText, S: s} }

// TCIText is the citext type.
var TCIText = T{OID: OIDCIText, Typmod: -1}

// ciTextImplicit reports whether citext's pg_cast converts from to to
// implicitly, for the pairs of string types where one side is citext:
// only citext to text and to varchar.
func ciTextImplicit(from, to uint32) bool {
	return from == OIDCIText && (to == OIDText || to == OIDVarchar)
}

// castCIText converts to or from citext (the other side not citext):
// from the string types as the same string (bpchar without its padding,
// as citext(bpchar)), from other types as their cast to text makes them
// (citext(boolean) is 'true', citext(inet) shows the mask), and from
// citext as text converts. nil when neither side is citext.
func castCIText(from, to T) Fn {
	switch {
	case from.OID == to.OID:
		return nil
	case to.OID == OIDCIText:
		if from.OID == OIDUnknown || KindOf(from.OID) == KindText && from.OID != OIDChar {
			if from.OID == OIDBpchar {
				return func(_ *Env, a []Datum) (Datum, error) { return DCIText(strings.TrimRight(a[0].S, " ")), nil }
			}
			return func(_ *Env, a []Datum) (Datum, error) { return DCIText(a[0].S), nil }
		}
		inner := castKind(from, TText)
		if inner == nil {
			return nil
		}
		return func(env *Env, a []Datum) (Datum, error) {
			d, err := inner(env, a)
			if err != nil || d.IsNull() {
				return d, err
			}
			return DCIText(d.S), nil
		}
	case from.OID == OIDCIText:
		inner := castKind(TText, to)
		if inner == nil {
			return nil
		}
		return func(env *Env, a []Datum) (Datum, error) {
			return inner(env, []Datum{DText(a[0].S)})
		}
	}
	return nil
}
