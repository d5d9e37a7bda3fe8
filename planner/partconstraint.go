package planner

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/funcs"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// The partition constraint as pg_get_partition_constraintdef and psql's
// \d+ print it: the conditions of a partition's bound, after those of
// its parent's bound up to the root, in PostgreSQL's words
// (get_qual_for_range, get_qual_for_list, get_qual_for_hash).

// PartitionConstraintDef returns the partition constraint of t, "" when
// t is not a partition.
func PartitionConstraintDef(ctx context.Context, root Catalog, t *sqldef.Table) (string, error) {
	var levels [][]string
	for cur := t; cur.IsPartition() && len(cur.Inherits) > 0; {
		pn := cur.Inherits[0]
		parent, ok, err := root.Table(ctx, pn.Schema, pn.Name)
		if err != nil || !ok || !parent.Partitioned() {
			return "", err
		}
		conj, err := boundConjuncts(ctx, root, parent, cur)
		if err != nil {
			return "", err
		}
		levels = append([][]string{conj}, levels...)
		cur = parent
	}
	var all []string
	for _, l := range levels {
		all = append(all, l...)
	}
	if len(all) == 0 {
		return "", nil
	}
	return andText(all), nil
}

// andText joins conditions with AND, parenthesized unless there is one.
func andText(conds []string) string {
	if len(conds) == 1 {
		return conds[0]
	}
	return "(" + strings.Join(conds, " AND ") + ")"
}

// orText joins conditions with OR, parenthesized unless there is one.
func orText(conds []string) string {
	if len(conds) == 1 {
		return conds[0]
	}
	return "(" + strings.Join(conds, " OR ") + ")"
}

// boundConjuncts returns the conditions of partition t's bound in parent.
func boundConjuncts(ctx context.Context, root Catalog, parent, t *sqldef.Table) ([]string, error) {
	key := parent.PartitionKey
	cols := make([]string, len(key.Columns))
	ktypes := KeyTypes(parent)
	for i, pos := range key.Columns {
		if pos < 0 {
			cols[i] = exprKeyText(key.Expr(i))
			continue
		}
		cols[i] = catalog.QuoteIdent(parent.Columns[pos].Name)
	}
	b := t.PartitionBound
	if b.Default {
		return defaultConjuncts(ctx, root, parent, t, cols, ktypes)
	}
	switch key.Strategy {
	case sqldef.PartitionHash:
		args := []string{"'" + strconv.FormatUint(uint64(catalog.TableOID(parent.Schema, parent.Name)), 10) + "'::oid",
			strconv.Itoa(b.Modulus), strconv.Itoa(b.Remainder)}
		return []string{"satisfies_hash_partition(" + strings.Join(append(args, cols...), ", ") + ")"}, nil
	case sqldef.PartitionList:
		return listConjuncts(cols[0], ktypes[0], b.In), nil
	}
	var out []string
	for _, c := range cols {
		out = append(out, "("+c+" IS NOT NULL)")
	}
	return append(out, rangeConjuncts(b, cols, ktypes)...), nil
}

// listConjuncts returns the conditions of a list bound: the key is NULL
// or one of the values.
func listConjuncts(col string, t exec.T, vals []sqldef.BoundValue) []string {
	var lits []string
	hasNull := false
	for _, v := range vals {
		if v.Kind == sqldef.BoundNull {
			hasNull = true
			continue
		}
		lits = append(lits, constText(v, t))
	}
	var in string
	switch {
	case len(lits) == 0:
	case len(lits) == 1:
		in = "(" + col + " = " + lits[0] + ")"
	case exec.IsArrayType(t.OID):
		// PostgreSQL builds no array of arrays: an OR of equalities.
		var eqs []string
		for _, l := range lits {
			eqs = append(eqs, "("+col+" = "+l+")")
		}
		in = "(" + strings.Join(eqs, " OR ") + ")"
	default:
		in = "(" + col + " = ANY (ARRAY[" + strings.Join(lits, ", ") + "]))"
	}
	switch {
	case hasNull && in == "":
		return []string{"(" + col + " IS NULL)"}
	case hasNull:
		return []string{"((" + col + " IS NULL) OR " + in + ")"}
	}
	return []string{"(" + col + " IS NOT NULL)", in}
}

// rangeConjuncts returns the conditions of a range bound on its key
// columns: equalities on the columns both ends share, then the lower and
// upper bound from the first column where they differ.
func rangeConjuncts(b *sqldef.PartitionBound, cols []string, ktypes []exec.T) []string {
	var out []string
	j := 0
	for ; j < len(cols); j++ {
		lo, hi := b.From[j], b.To[j]
		if lo.Kind != 0 || hi.Kind != 0 || lo.Text != hi.Text {
			break
		}
		out = append(out, "("+cols[j]+" = "+constText(lo, ktypes[j])+")")
	}
	if j == len(cols) {
		return out
	}
	if lo := rangeSide(b.From, j, cols, ktypes, ">", sqldef.BoundMinValue); lo != "" {
		out = append(out, lo)
	}
	if hi := rangeSide(b.To, j, cols, ktypes, "<", sqldef.BoundMaxValue); hi != "" {
		out = append(out, hi)
	}
	return out
}

// rangeSide returns the condition of one end of a range from column j:
// the key beyond the bound (op) on column j, or equal to it there and
// beyond it on the next columns. unbounded is the kind that puts no
// limit on this end (MINVALUE for the lower one).
func rangeSide(bound []sqldef.BoundValue, j int, cols []string, ktypes []exec.T, op string, unbounded byte) string {
	var arms []string
	for k := j; k < len(cols) && bound[k].Kind == 0; k++ {
		strictOp, last := op, k == len(cols)-1
		if last && op == ">" {
			strictOp = ">=" // the lower end is inclusive
		}
		if !last && bound[k+1].Kind != 0 {
			// What follows is MINVALUE or MAXVALUE: this column decides.
			if bound[k+1].Kind == unbounded {
				strictOp += "="
			}
			last = true
		}
		var conds []string
		for e := j; e < k; e++ {
			conds = append(conds, "("+cols[e]+" = "+constText(bound[e], ktypes[e])+")")
		}
		conds = append(conds, "("+cols[k]+" "+strictOp+" "+constText(bound[k], ktypes[k])+")")
		arms = append(arms, andText(conds))
		if last {
			break
		}
	}
	if len(arms) == 0 {
		return ""
	}
	return orText(arms)
}

// defaultConjuncts returns the condition of a default partition: the
// key is in no sibling's bound.
func defaultConjuncts(ctx context.Context, root Catalog, parent, t *sqldef.Table, cols []string, ktypes []exec.T) ([]string, error) {
	names, err := root.Children(ctx, parent.Schema, parent.Name)
	if err != nil {
		return nil, err
	}
	var siblings []*sqldef.Table
	var bounds []exec.PartBound
	for _, n := range names {
		s, ok, err := root.Table(ctx, n.Schema, n.Name)
		if err != nil {
			return nil, err
		}
		if !ok || !s.IsPartition() || s.PartitionBound.Default {
			continue
		}
		pb, err := exec.DecodeBound(s.PartitionBound, ktypes)
		if err != nil {
			return nil, err
		}
		siblings, bounds = append(siblings, s), append(bounds, pb)
	}
	if len(siblings) == 0 {
		return nil, nil
	}
	strategy := parent.PartitionKey.Strategy
	order := BoundOrder(strategy, bounds)
	switch strategy {
	case sqldef.PartitionList:
		var vals []sqldef.BoundValue
		var sorted []exec.Datum
		for _, i := range order {
			for _, v := range siblings[i].PartitionBound.In {
				if v.Kind == sqldef.BoundNull {
					vals = append(vals, v)
				}
			}
			sorted = append(sorted, bounds[i].In...)
		}
		slices.SortFunc(sorted, exec.Compare)
		for _, d := range sorted {
			vals = append(vals, sqldef.BoundValue{Text: string(exec.AppendText(nil, ktypes[0], d, nil))})
		}
		return []string{"(NOT " + andText(listConjuncts(cols[0], ktypes[0], dedupNulls(vals))) + ")"}, nil
	case sqldef.PartitionRange:
		var arms []string
		for _, i := range order {
			arms = append(arms, andText(rangeConjuncts(siblings[i].PartitionBound, cols, ktypes)))
		}
		var conds []string
		for _, c := range cols {
			conds = append(conds, "("+c+" IS NOT NULL)")
		}
		return []string{"(NOT " + andText(append(conds, orText(arms))) + ")"}, nil
	}
	return nil, nil
}

// dedupNulls keeps one NULL of a list's values.
func dedupNulls(vals []sqldef.BoundValue) []sqldef.BoundValue {
	var out []sqldef.BoundValue
	seen := false
	for _, v := range vals {
		if v.Kind == sqldef.BoundNull {
			if seen {
				continue
			}
			seen = true
		}
		out = append(out, v)
	}
	return out
}

// constText prints a bound value as a constant of type t, as
// pg_get_expr does: non-negative integers bare, other values quoted and
// cast.
func constText(v sqldef.BoundValue, t exec.T) string {
	switch {
	case t.OID == exec.OIDInt4 && !strings.HasPrefix(v.Text, "-"):
		return v.Text
	case t.OID == exec.OIDBool && v.Text == "t":
		return "true"
	case t.OID == exec.OIDBool:
		return "false"
	}
	return funcs.QuoteLiteral(v.Text) + "::" + types.FormatType(types.Oid(t.OID), -1)
}
