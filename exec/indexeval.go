package exec

import (
	"context"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// IndexEval is what an index with expression key columns or a predicate
// (a partial index) needs to compute a row's entry: the analyzed
// expressions, which only the planner can make from their SQL text (see
// Txn.IndexEval). A plain index has none.
type IndexEval struct {
	Exprs []Expr // by key column; nil for a plain column
	Where Expr   // nil: every row is indexed
}

// indexKeyOf appends the entry of row in index ix (ie computes its
// expressions): the key columns, then rowKey. in is false when a partial
// index leaves the row out; nulls reports a NULL key column (which a
// unique index lets repeat unless NULLS NOT DISTINCT).
func (t *Table) indexKeyOf(env *Env, dst []byte, ix *sqldef.Index, ie *IndexEval, row Row, rowKey []byte) (key []byte, in, nulls bool, err error) {
	if ie != nil && ie.Where != nil {
		ok, err := isTrue(env, ie.Where, row)
		if err != nil || !ok {
			return dst, false, false, err
		}
	}
	for i, c := range ix.Columns {
		var d Datum
		var ct T
		if c.Expr != "" {
			if ie == nil || ie.Exprs[i] == nil {
				return nil, false, false, errNoIndexEval(ix)
			}
			if d, err = ie.Exprs[i].Eval(env, row); err != nil {
				return nil, false, false, err
			}
			ct = T{OID: c.ExprType, Typmod: c.ExprTypmod}
		} else {
			d, ct = row[c.Column], t.Cols[c.Column].Type
		}
		nulls = nulls || d.IsNull()
		if dst, err = appendKey(dst, ct, d, IndexOrder(c)); err != nil {
			return nil, false, false, err
		}
	}
	return append(dst, rowKey...), true, nulls, nil
}

// keyValues returns the key columns of row in ix as error details name
// them: Key (a, lower(b))=(1, x).
func (t *Table) keyValues(env *Env, ix *sqldef.Index, ie *IndexEval, row Row) (names, values string) {
	var nb, vb []byte
	for i, c := range ix.Columns {
		if i > 0 {
			nb, vb = append(nb, ", "...), append(vb, ", "...)
		}
		var d Datum
		var ct T
		if c.Expr != "" {
			nb = append(nb, c.Expr...)
			if ie != nil && ie.Exprs[i] != nil {
				d, _ = ie.Exprs[i].Eval(env, row)
			}
			ct = T{OID: c.ExprType, Typmod: c.ExprTypmod}
		} else {
			nb = append(nb, t.Cols[c.Column].Name...)
			d, ct = row[c.Column], t.Cols[c.Column].Type
		}
		if d.IsNull() {
			vb = append(vb, "null"...)
		} else {
			vb = AppendText(vb, ct, d, nil)
		}
	}
	return string(nb), string(vb)
}

// indexEval returns what index ix of t needs to compute entries: nil for
// a plain index.
func (tx *Txn) indexEval(ctx context.Context, t *Table, ix *sqldef.Index) (*IndexEval, error) {
	if ix.Plain() {
		return nil, nil
	}
	if tx.IndexEval == nil {
		return nil, errNoIndexEval(ix)
	}
	return tx.IndexEval(ctx, t, ix)
}

func errNoIndexEval(ix *sqldef.Index) error {
	return pgerr.New(pgerr.InternalError, "index %q has expressions but nothing to evaluate them", ix.Name)
}
