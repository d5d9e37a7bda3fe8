package exec

import (
	"context"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/versioning"
)

// EXCLUDE constraints. A new or changed row is compared with every other
// row of the table in the transaction's view: there is no GiST index to
// search, so the check scans, and it sees the rows of this transaction,
// not those of concurrent ones.

// ExclusionOp returns the function of operator op over two values of
// type t, as an exclusion constraint applies it.
func ExclusionOp(st *Settings, op string, t T) (Fn, error) {
	if fn := CompareOp(op); fn != nil {
		return fn, nil
	}
	f, want, err := LookupFuncIn(st, op, []T{t, t})
	if err != nil {
		return nil, err
	}
	fn, rt, err := f.BindIn(st, want)
	if err != nil {
		return nil, err
	}
	if rt.OID != OIDBool {
		return nil, pgerr.New(pgerr.WrongObjectType, "operator %s(%s,%s) is not a boolean operator", op, TypeName(t.OID), TypeName(t.OID))
	}
	return fn, nil
}

// checkExclusions fails with 23P01 when row, to be stored under key,
// conflicts with another row under an exclusion constraint.
func (w *TableWriter) checkExclusions(ctx context.Context, key []byte, row Row) error {
	if len(w.pending) > 0 {
		// Scan one map holding every change of the statement so far.
		if err := w.spill(ctx); err != nil {
			return err
		}
	}
	for i := range w.t.Def.Exclusions {
		if err := w.checkExclusion(ctx, &w.t.Def.Exclusions[i], key, row); err != nil {
			return err
		}
	}
	return nil
}

func (w *TableWriter) checkExclusion(ctx context.Context, x *versioning.Exclusion, key []byte, row Row) error {
	fns := make([]Fn, len(x.Columns))
	for i, c := range x.Columns {
		if row[c].IsNull() {
			return nil // the operators are strict: NULL conflicts with nothing
		}
		fn, err := ExclusionOp(w.env.Settings, x.Ops[i], w.t.Cols[c].Type)
		if err != nil {
			return err
		}
		fns[i] = fn
	}
	it := w.rows.NewIter(ctx, prolly.IterOptions{})
	defer it.Close()
	var other Row
	for ok := it.First(); ok; ok = it.Next() {
		if string(it.Key()) == string(key) {
			continue
		}
		v, err := it.Value()
		if err != nil {
			return err
		}
		if other, err = w.t.decodeRow(v, other); err != nil {
			return err
		}
		conflict := true
		for i, c := range x.Columns {
			if other[c].IsNull() {
				conflict = false
				break
			}
			d, err := fns[i](w.env, []Datum{row[c], other[c]})
			if err != nil {
				return err
			}
			if d.IsNull() || !d.Bool() {
				conflict = false
				break
			}
		}
		if conflict {
			return pgerr.New(pgerr.ExclusionViolation, "conflicting key value violates exclusion constraint %q", x.Name).
				WithDetail("Key (%s)=(%s) conflicts with existing key (%s)=(%s).", w.colNames(x.Columns), w.formatValues(x.Columns, row),
					w.colNames(x.Columns), w.formatValues(x.Columns, other)).
				WithTable(w.t.Def.Schema, w.t.Def.Name).WithConstraint(x.Name)
		}
	}
	return nil
}
