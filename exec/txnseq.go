package exec

import (
	"cmp"
	"context"
	"slices"

	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// AdvanceSequence records that the transaction moved seq to its position
// (seq.Last, seq.Called), unless it had moved it further already: the
// commit applies the furthest position to the working set's record
// (versioning.SequenceAdvance), and Sequence shows it until then. The
// transaction's root keeps the sequence's record as it was, so that a
// transaction whose only catalog change is drawing sequence values
// commits as row edits (Replayer).
func (tx *Txn) AdvanceSequence(seq *sqldef.Sequence) {
	k := seq.Schema + "." + seq.Name
	if a, ok := tx.seqAdvances[k]; ok && !versioning.Ahead(seq.Increment, seq.Last, seq.Called, a.Last, a.Called) {
		return
	}
	if tx.seqAdvances == nil {
		tx.seqAdvances = map[string]versioning.SequenceAdvance{}
	}
	tx.seqAdvances[k] = versioning.SequenceAdvance{Schema: seq.Schema, Name: seq.Name, Last: seq.Last, Called: seq.Called}
}

// ForgetSequenceAdvance drops the advance of sequence schema.name: the
// transaction set its position in its root (setval, RESTART), which the
// advance must not overrule at commit.
func (tx *Txn) ForgetSequenceAdvance(schema, name string) {
	delete(tx.seqAdvances, schema+"."+name)
}

// SequenceAdvances returns the positions the transaction moved its
// sequences to, for its commit.
func (tx *Txn) SequenceAdvances() []versioning.SequenceAdvance {
	if len(tx.seqAdvances) == 0 {
		return nil
	}
	out := make([]versioning.SequenceAdvance, 0, len(tx.seqAdvances))
	for _, a := range tx.seqAdvances {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b versioning.SequenceAdvance) int {
		return cmp.Or(cmp.Compare(a.Schema, b.Schema), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// Sequence returns the sequence schema.name as the transaction sees it:
// its record in Catalog at the position the transaction moved it to.
func (tx *Txn) Sequence(ctx context.Context, schema, name string) (*sqldef.Sequence, bool, error) {
	rec, ok, err := tx.root.SequenceRecord(ctx, schema, name)
	if !ok || err != nil {
		return nil, false, err
	}
	seq, err := tx.Tables.DecodeSequence(rec)
	if err != nil {
		return nil, false, err
	}
	tx.ShowAdvance(seq)
	return seq, true, nil
}

// ShowAdvance moves seq, a record of Catalog, to the transaction's advance
// of it, if further.
func (tx *Txn) ShowAdvance(seq *sqldef.Sequence) {
	if a, ok := tx.seqAdvances[seq.Schema+"."+seq.Name]; ok && versioning.Ahead(seq.Increment, a.Last, a.Called, seq.Last, seq.Called) {
		seq.Last, seq.Called = a.Last, a.Called
	}
}

// sequenceSetHere reports whether the transaction set sequence
// schema.name's position in its root (setval, RESTART) or created it:
// its later values then come from that record, not from the branch's.
func (tx *Txn) sequenceSetHere(ctx context.Context, schema, name string) (bool, error) {
	if tx.root.Addr() == tx.Start.Addr() {
		return false, nil
	}
	var pos [2]*sqldef.Sequence // in root, then in Start
	for i, r := range []versioning.RootValue{tx.root, tx.Start} {
		rec, ok, err := r.SequenceRecord(ctx, schema, name)
		if !ok || err != nil {
			return true, err
		}
		if pos[i], err = tx.Tables.DecodeSequence(rec); err != nil {
			return true, err
		}
	}
	return pos[0].Last != pos[1].Last || pos[0].Called != pos[1].Called, nil
}
