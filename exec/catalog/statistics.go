package catalog

import (
	"strconv"
	"strings"

	"github.com/prollypg/prollypg/exec"
)

// OIDPgStatisticExt is pg_statistic_ext's OID, the classoid of the
// comments of extended statistics objects.
const OIDPgStatisticExt = 3381

// pgStatisticExt lists the extended statistics objects of the tables
// (CREATE STATISTICS): stxkeys holds the column numbers, stxkind the
// kinds; the expressions are not given as node trees (stxexprs NULL),
// pg_get_statisticsobjdef_columns prints them.
func pgStatisticExt(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, t := range s.Tables {
		owner := RoleOID(s.tableOwner(t.Schema))
		if t.Owner != "" {
			owner = RoleOID(t.Owner)
		}
		for _, st := range t.Statistics {
			keys := make([]string, len(st.Columns))
			for i, c := range st.Columns {
				keys[i] = strconv.Itoa(c + 1)
			}
			kinds := make([]exec.Datum, len(st.Kinds))
			for i := range st.Kinds {
				kinds[i] = dChar(st.Kinds[i])
			}
			out = append(out, exec.Row{dOID(StatisticsOID(t.Schema, st.Name)), dOID(TableOID(t.Schema, t.Name)), dText(st.Name),
				dOID(NamespaceOID(t.Schema)), dOID(owner), dInt(-1), dVector(exec.OIDInt2Vector, keys),
				exec.NewArray(exec.OIDChar, kinds), exec.Null})
		}
	}
	return out, nil
}

// StatisticsColumns is pg_get_statisticsobjdef_columns: the columns of
// statistics object oid, then its expressions, parenthesized; ok is
// false for an unknown OID.
func (s *Snapshot) StatisticsColumns(oid uint32) (string, bool) {
	for _, t := range s.Tables {
		for _, st := range t.Statistics {
			if StatisticsOID(t.Schema, st.Name) != oid {
				continue
			}
			var parts []string
			for _, c := range st.Columns {
				parts = append(parts, QuoteIdent(t.Columns[c].Name))
			}
			for _, e := range st.Exprs {
				parts = append(parts, "("+s.Expr(t, e, true)+")")
			}
			return strings.Join(parts, ", "), true
		}
	}
	return "", false
}
