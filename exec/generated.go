package exec

import (
	"context"

	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Stored generated columns (GENERATED ALWAYS AS (expr) STORED). Their
// values are computed from the other columns of the row being written, in
// the order PostgreSQL 15 does it (ExecComputeStoredGenerated):
//
//  1. the row is made (INSERT's values and defaults, UPDATE's SETs); its
//     generated columns are NULL;
//  2. BEFORE ROW triggers see them NULL, and what they write into them is
//     lost;
//  3. the generated columns are computed from the row the triggers
//     returned;
//  4. NOT NULL, CHECK, unique and foreign key constraints, and AFTER
//     triggers, see the computed values.
//
// An UPDATE computes them from the row it writes, so a READ COMMITTED
// update re-applied on a newer committed version of its row (lockRow)
// recomputes them from that version. A generation expression cannot read
// another generated column (the planner refuses it), so they are computed
// in any order, in place.

// GeneratedCols are a table's generation expressions by column position,
// over rows of the table (nil for the columns that are not generated); a
// nil GeneratedCols is a table without generated columns.
type GeneratedCols []Expr

// clear sets the generated columns of row NULL, as BEFORE ROW triggers
// must see them.
func (g GeneratedCols) clear(row Row) {
	for pos, e := range g {
		if e != nil {
			row[pos] = Null
		}
	}
}

// compute sets the generated columns of row from its other columns.
func (g GeneratedCols) compute(env *Env, row Row) error {
	for pos, e := range g {
		if e == nil {
			continue
		}
		v, err := e.Eval(env, row)
		if err != nil {
			return err
		}
		row[pos] = v
	}
	return nil
}

// generated returns the generation expressions of t (nil when it has no
// generated column, or nothing can analyze them).
func (tx *Txn) generated(ctx context.Context, t *Table) (GeneratedCols, error) {
	if tx.Generated == nil {
		return nil, nil
	}
	return tx.Generated(ctx, t)
}

// Generate implements versioning.Generator.
func (m *MergeIndexer) Generate(ctx context.Context, def *sqldef.Table, row []byte) ([]byte, error) {
	it, err := m.table(ctx, def)
	if err != nil {
		return nil, err
	}
	if !it.genLoaded {
		if it.gen, err = m.tx.generated(ctx, it.t); err != nil {
			return nil, err
		}
		it.genLoaded = true
	}
	if it.gen == nil {
		return row, nil
	}
	r, err := it.t.decodeRow(row, nil)
	if err != nil {
		return nil, err
	}
	if err := it.gen.compute(&Env{Ctx: ctx, Txn: m.tx}, r); err != nil {
		return nil, err
	}
	return it.t.EncodeStoredRow(r), nil
}
