package catalog

import (
	"strconv"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/versioning"
)

// BoundText prints a range bound as PostgreSQL's messages do: (1, MAXVALUE).
func BoundText(vals []versioning.BoundValue, ktypes []exec.T) string {
	b := []byte{'('}
	for i, v := range vals {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendBoundValue(b, v, ktypes[i])
	}
	return string(append(b, ')'))
}

// appendBoundValue appends a bound value as pg_get_expr prints it:
// numbers and booleans bare, other values quoted.
func appendBoundValue(b []byte, v versioning.BoundValue, t exec.T) []byte {
	switch v.Kind {
	case versioning.BoundNull:
		return append(b, "NULL"...)
	case versioning.BoundMinValue:
		return append(b, "MINVALUE"...)
	case versioning.BoundMaxValue:
		return append(b, "MAXVALUE"...)
	}
	// get_const_expr's rules: what reads back as the same constant.
	switch {
	case t.OID == exec.OIDInt4 && !strings.HasPrefix(v.Text, "-"):
		return append(b, v.Text...)
	case t.OID == exec.OIDNumeric && v.Text != "" && v.Text[0] >= '0' && v.Text[0] <= '9' && strings.ContainsAny(v.Text, "eE."):
		return append(b, v.Text...)
	case t.OID == exec.OIDBool && v.Text == "t":
		return append(b, "true"...)
	case t.OID == exec.OIDBool:
		return append(b, "false"...)
	}
	return append(b, exec.QuoteLiteral(v.Text)...)
}

// PartitionBoundDef prints a partition's bound as pg_get_expr does
// relpartbound: FOR VALUES IN (...), FROM (...) TO (...), WITH (...), or
// DEFAULT.
func PartitionBoundDef(b *versioning.PartitionBound, ktypes []exec.T) string {
	switch {
	case b.Default:
		return "DEFAULT"
	case b.Modulus > 0:
		return "FOR VALUES WITH (modulus " + strconv.Itoa(b.Modulus) + ", remainder " + strconv.Itoa(b.Remainder) + ")"
	case b.From != nil:
		return "FOR VALUES FROM " + BoundText(b.From, ktypes) + " TO " + BoundText(b.To, ktypes)
	}
	out := []byte("FOR VALUES IN (")
	for i, v := range b.In {
		if i > 0 {
			out = append(out, ", "...)
		}
		out = appendBoundValue(out, v, ktypes[0])
	}
	return string(append(out, ')'))
}
