package exec

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/prolly/tuple"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// MergeIndexer computes index entries of stored rows for the merges of
// package versioning (versioning.IndexEncoder): merged rows need the
// entries of the rows they became, and index keys are typed encodings.
// It evaluates expression and partial indexes through the transaction's
// IndexEval. A MergeIndexer is used by one merge at a time.
type MergeIndexer struct {
	tx     *Txn
	tables map[*sqldef.Table]*indexerTable
}

// indexerTable is a table's decoded form and index evaluators.
type indexerTable struct {
	t     *Table
	evals []*IndexEval
	// gen are the table's generation expressions, once genLoaded.
	gen       GeneratedCols
	genLoaded bool
}

// NewMergeIndexer returns a MergeIndexer evaluating through tx.
func NewMergeIndexer(tx *Txn) *MergeIndexer {
	return &MergeIndexer{tx: tx, tables: map[*sqldef.Table]*indexerTable{}}
}

// DecodeTable implements versioning.TableDecoder from the transaction's
// table cache, which the commit-time merges of every session share.
func (m *MergeIndexer) DecodeTable(record []byte) (*sqldef.Table, error) {
	t, err := m.tx.Tables.Decode(record)
	if err != nil {
		return nil, err
	}
	return t.Def, nil
}

// IndexEntries implements versioning.IndexEncoder.
func (m *MergeIndexer) IndexEntries(ctx context.Context, def *sqldef.Table, key, row []byte) ([]versioning.IndexEntry, error) {
	it, err := m.table(ctx, def)
	if err != nil {
		return nil, err
	}
	r, err := it.t.decodeRow(row, nil)
	if err != nil {
		return nil, err
	}
	env := &Env{Ctx: ctx, Txn: m.tx}
	out := make([]versioning.IndexEntry, len(def.Indexes))
	for i := range def.Indexes {
		ix := &def.Indexes[i]
		k, in, nulls, err := it.t.indexKeyOf(env, nil, ix, it.evals[i], r, key)
		if err != nil {
			return nil, err
		}
		if !in {
			continue
		}
		out[i].Key = slices.Clip(k)
		if ix.Unique && (ix.NullsNotDistinct || !nulls) {
			out[i].Unique = len(k) - len(key)
		}
	}
	return out, nil
}

func (m *MergeIndexer) table(ctx context.Context, def *sqldef.Table) (*indexerTable, error) {
	if it, ok := m.tables[def]; ok {
		return it, nil
	}
	it := &indexerTable{t: NewTable(def)}
	for i := range def.Indexes {
		ie, err := m.tx.indexEval(ctx, it.t, &def.Indexes[i])
		if err != nil {
			return nil, err
		}
		it.evals = append(it.evals, ie)
	}
	m.tables[def] = it
	return it, nil
}

// DecodeStoredRow decodes a row tuple of t as stored in its map.
func (t *Table) DecodeStoredRow(v []byte) (Row, error) {
	return t.decodeRow(v, nil)
}

// DuplicateKeyDetail is the DETAIL of a duplicate key found when
// concurrent transactions are merged: row is a stored tuple of def that
// holds the key, cols the key's columns.
func DuplicateKeyDetail(def *sqldef.Table, row []byte, cols []int) string {
	t := NewTable(def)
	r, err := t.DecodeStoredRow(row)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("Key (%s)=(%s) already exists.", colNames(t, cols), formatValues(t, cols, r))
}

// EncodeStoredRow encodes row as t stores it.
func (t *Table) EncodeStoredRow(row Row) []byte {
	var b tuple.Builder
	return slices.Clone(t.encodeRow(&b, row))
}

// WriteRowAt stores row under key in t, replacing the row there, with
// its indexes and unique constraints kept as an UPDATE keeps them: a
// merge conflict resolved by hand.
func (tx *Txn) WriteRowAt(ctx context.Context, t *Table, key []byte, row Row) error {
	w, err := tx.Writer(ctx, t)
	if err != nil {
		return err
	}
	v, ok, err := w.lookup(ctx, key)
	if err != nil {
		return err
	}
	var old Row
	if ok {
		if old, err = t.decodeRow(v, nil); err != nil {
			return err
		}
	}
	if err := checkNotNull(t, row); err != nil {
		return err
	}
	if err := w.write(ctx, key, old, row); err != nil {
		return err
	}
	return w.Flush(ctx)
}

// MissingReferences implements versioning.ReferenceChecker: the foreign
// keys of def through which row finds no parent in root.
func (m *MergeIndexer) MissingReferences(ctx context.Context, root versioning.RootValue, def *sqldef.Table, row []byte) ([]string, error) {
	t := NewTable(def)
	r, err := t.decodeRow(row, nil)
	if err != nil {
		return nil, err
	}
	tx := NewTxn(m.tx.Repo, m.tx.Branch, true, root)
	var missing []string
	for i := range def.ForeignKeys {
		err := checkReference(ctx, tx, t, &def.ForeignKeys[i], r)
		var pe *pgerr.Error
		if errors.As(err, &pe) && pe.Code == pgerr.ForeignKeyViolation {
			missing = append(missing, def.ForeignKeys[i].Name)
		} else if err != nil {
			return nil, err
		}
	}
	return missing, nil
}

// Edits is versioning.Replayer's: the transaction's deferred changes as
// edits of onto's tables (Txn.DeferredEdits).
func (m *MergeIndexer) Edits(ctx context.Context, onto versioning.RootValue) ([]versioning.TableEdits, bool, error) {
	return m.tx.DeferredEdits(ctx, onto)
}

// Materialized is versioning.Replayer's: the transaction's root with its
// deferred changes written.
func (m *MergeIndexer) Materialized(context.Context) (versioning.RootValue, error) {
	return m.tx.Root(), nil
}

// Deferred is versioning.Replayer's: whether the transaction holds changes
// Root has not written yet: deferred rows, or sequence positions.
func (m *MergeIndexer) Deferred() bool { return m.tx.HasDeferred() || len(m.tx.seqAdvances) > 0 }

// SequenceAdvances is versioning.Replayer's: the positions the transaction
// moved its sequences to (Txn.AdvanceSequence).
func (m *MergeIndexer) SequenceAdvances() []versioning.SequenceAdvance {
	return m.tx.SequenceAdvances()
}
