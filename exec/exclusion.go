package exec

import (
	"context"
	"slices"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/versioning/sqldef"
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
		x := &w.t.Def.Exclusions[i]
		if x.Deferrable && w.tx.modes.deferred(x.Name, x.InitiallyDeferred) {
			w.tx.deferredExcl = append(w.tx.deferredExcl, exclusionDeferred{schema: w.t.Def.Schema, table: w.t.Def.Name, name: x.Name,
				key: slices.Clone(key), settings: w.env.Settings, initiallyDeferred: x.InitiallyDeferred})
			continue
		}
		if _, _, err := w.exclusionConflict(ctx, i, key, row, true); err != nil {
			return err
		}
	}
	return nil
}

// exclusionDeferred is the check of a row under a deferred exclusion
// constraint, made at commit (or SET CONSTRAINTS ... IMMEDIATE) against
// the rows then, if the row is still there.
type exclusionDeferred struct {
	schema, table, name string
	key                 []byte
	settings            *Settings // the session's, for the constraint's expressions
	initiallyDeferred   bool
}

// checkDeferredExclusion makes a deferred exclusion check.
func (tx *Txn) checkDeferredExclusion(ctx context.Context, c exclusionDeferred) error {
	t, ok, err := tx.Table(ctx, c.schema, c.table)
	if err != nil || !ok {
		return err
	}
	i := slices.IndexFunc(t.Def.Exclusions, func(x sqldef.Exclusion) bool { return x.Name == c.name })
	if i < 0 {
		return nil // dropped since
	}
	w, err := tx.Writer(ctx, t)
	if err != nil {
		return err
	}
	w.env.Settings = c.settings
	v, ok, err := w.rows.Get(ctx, c.key)
	if err != nil || !ok {
		return err // the row is gone
	}
	row, err := t.decodeRow(v, nil)
	if err != nil {
		return err
	}
	_, _, err = w.exclusionConflict(ctx, i, c.key, row, true)
	return err
}

// exclusionEval returns what exclusion constraint i of the table needs to
// compute a row's elements and predicate, nil for one of plain columns;
// analyzed once per writer, not per row.
func (w *TableWriter) exclusionEval(ctx context.Context, i int) (*IndexEval, error) {
	if ie, ok := w.exclEvals[i]; ok {
		return ie, nil
	}
	ie, err := w.tx.indexEval(ctx, w.t, w.t.Def.Exclusions[i].Index())
	if err != nil {
		return nil, err
	}
	if w.exclEvals == nil {
		w.exclEvals = map[int]*IndexEval{}
	}
	w.exclEvals[i] = ie
	return ie, nil
}

// ExclusionValues returns a row's values for the elements of an
// exclusion constraint (columns or expressions, ie evaluating these), and
// false when the constraint's predicate leaves the row out.
func ExclusionValues(env *Env, x *sqldef.Exclusion, ie *IndexEval, row Row, dst []Datum) ([]Datum, bool, error) {
	if ie != nil && ie.Where != nil {
		if ok, err := isTrue(env, ie.Where, row); err != nil || !ok {
			return dst, false, err
		}
	}
	dst = dst[:0]
	for i, c := range x.Columns {
		if c >= 0 {
			dst = append(dst, row[c])
			continue
		}
		if ie == nil || ie.Exprs[i] == nil {
			return nil, false, pgerr.New(pgerr.InternalError, "exclusion constraint %q has expressions but nothing to evaluate them", x.Name)
		}
		d, err := ie.Exprs[i].Eval(env, row)
		if err != nil {
			return nil, false, err
		}
		dst = append(dst, d)
	}
	return dst, true, nil
}

// ExclusionTypes returns the types of the elements of x over t's rows.
func ExclusionTypes(t *Table, x *sqldef.Exclusion) []T {
	ts := make([]T, len(x.Columns))
	for i, c := range x.Columns {
		if c >= 0 {
			ts[i] = t.Cols[c].Type
		} else {
			ts[i] = T{OID: x.ExprTypes[i], Typmod: -1}
		}
	}
	return ts
}

// exclusionConflict finds a row of the table other than key's that row
// conflicts with under x, and returns its key and values; fail makes the
// conflict the 23P01 error instead, as a write's check reports it. An ON
// CONFLICT DO NOTHING naming x (or none) looks for one without failing.
func (w *TableWriter) exclusionConflict(ctx context.Context, i int, key []byte, row Row, fail bool) ([]byte, Row, error) {
	x := &w.t.Def.Exclusions[i]
	ie, err := w.exclusionEval(ctx, i)
	if err != nil {
		return nil, nil, err
	}
	vals, in, err := ExclusionValues(w.env, x, ie, row, nil)
	if err != nil || !in {
		return nil, nil, err
	}
	types := ExclusionTypes(w.t, x)
	fns := make([]Fn, len(x.Columns))
	for i := range x.Columns {
		if vals[i].IsNull() {
			return nil, nil, nil // the operators are strict: NULL conflicts with nothing
		}
		fn, err := ExclusionOp(w.env.Settings, x.Ops[i], types[i])
		if err != nil {
			return nil, nil, err
		}
		fns[i] = fn
	}
	var others []Datum
	it := w.rows.NewIter(ctx, prolly.IterOptions{})
	defer it.Close()
	var other Row
	for ok := it.First(); ok; ok = it.Next() {
		if string(it.Key()) == string(key) {
			continue
		}
		v, err := it.Value()
		if err != nil {
			return nil, nil, err
		}
		if other, err = w.t.decodeRow(v, other); err != nil {
			return nil, nil, err
		}
		var in bool
		if others, in, err = ExclusionValues(w.env, x, ie, other, others); err != nil {
			return nil, nil, err
		}
		conflict := in
		for i := range x.Columns {
			if !conflict || others[i].IsNull() {
				conflict = false
				break
			}
			d, err := fns[i](w.env, []Datum{vals[i], others[i]})
			if err != nil {
				return nil, nil, err
			}
			if d.IsNull() || !d.Bool() {
				conflict = false
				break
			}
		}
		if conflict && !fail {
			return slices.Clone(it.Key()), slices.Clone(other), nil
		}
		if conflict {
			return nil, nil, pgerr.New(pgerr.ExclusionViolation, "conflicting key value violates exclusion constraint %q", x.Name).
				WithDetail("Key (%s)=(%s) conflicts with existing key (%s)=(%s).", ExclusionNames(w.t, x), FormatExclusionValues(w.env, types, vals),
					ExclusionNames(w.t, x), FormatExclusionValues(w.env, types, others)).
				WithTable(w.t.Def.Schema, w.t.Def.Name).WithConstraint(x.Name)
		}
	}
	return nil, nil, nil
}

// ExclusionNames names the elements of x as an error's Key (...) does:
// columns by name, expressions by their text in parentheses.
func ExclusionNames(t *Table, x *sqldef.Exclusion) string {
	var b []byte
	for i, c := range x.Columns {
		if i > 0 {
			b = append(b, ", "...)
		}
		if c >= 0 {
			b = append(b, t.Cols[c].Name...)
		} else {
			b = append(append(append(b, '('), x.Exprs[i]...), ')')
		}
	}
	return string(b)
}

// FormatExclusionValues prints element values for an error's detail.
func FormatExclusionValues(env *Env, types []T, vals []Datum) string {
	var b []byte
	for i, d := range vals {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = AppendText(b, types[i], d, env.Settings)
	}
	return string(b)
}
