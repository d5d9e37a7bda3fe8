package versioning

import (
	"bytes"
	"context"
	"slices"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Sequences are not transactional, as in PostgreSQL: nextval hands out
// every value once, whichever transaction asks, and a rollback does not
// take a value back. A transaction's record of a sequence is a snapshot,
// so two transactions drawing from their own records would draw the same
// values; instead the engine keeps, per branch and sequence, the position
// nextval reached (exec.SequenceValues), and the transactions carry
// what they drew as SequenceAdvances, which their commit applies to the
// working set's record with the larger position winning. A transaction
// then changes no catalog record by calling nextval, so its commit can be
// replayed as edits (Replayer) and journaled as a redo record.
//
// A commit never moves a sequence's record back: advances keep the larger
// position, and so does the merge of two records (mergeSequenceRecords).
// Only an explicit change does (setval, ALTER SEQUENCE, a version-control
// operation that replaces the working set).

// SequenceAdvance is a position nextval or setval left a sequence at in a
// transaction: its last value, and whether nextval returned that value.
// Applied at commit, it moves the sequence's record forward to it, never
// back.
type SequenceAdvance struct {
	Schema, Name string
	Last         int64
	Called       bool
}

// Ahead reports whether position (last, called) is further along than
// (otherLast, otherCalled) for a sequence counting by increment.
func Ahead(increment, last int64, called bool, otherLast int64, otherCalled bool) bool {
	switch {
	case last == otherLast:
		return called && !otherCalled
	case increment > 0:
		return last > otherLast
	}
	return last < otherLast
}

// sequenceAdvanceEdits returns root's map edits that move its sequences to
// the advances' positions, the furthest one of each sequence, where that is
// ahead of the record's. A sequence root lacks (dropped meanwhile) is
// skipped: its values need no keeping.
func sequenceAdvanceEdits(ctx context.Context, root RootValue, advances []SequenceAdvance) ([]prolly.Edit, error) {
	if len(advances) == 0 {
		return nil, nil
	}
	moved := map[string]*sqldef.Sequence{}
	var order []string
	for _, a := range advances {
		k := string(objectKey(kindSequence, a.Schema, a.Name))
		seq, ok := moved[k]
		if !ok {
			var found bool
			var err error
			if seq, found, err = root.Sequence(ctx, a.Schema, a.Name); err != nil {
				return nil, err
			}
			if !found {
				moved[k] = nil
				continue
			}
			moved[k] = seq
			order = append(order, k)
		}
		if seq != nil && Ahead(seq.Increment, a.Last, a.Called, seq.Last, seq.Called) {
			seq.Last, seq.Called = a.Last, a.Called
		}
	}
	edits := make([]prolly.Edit, 0, len(order))
	for _, k := range order {
		b, err := encodeRecord(moved[k])
		if err != nil {
			return nil, err
		}
		if old, _, err := root.m.Get(ctx, []byte(k)); err != nil {
			return nil, err
		} else if bytes.Equal(old, b) {
			continue
		}
		edits = append(edits, prolly.Edit{Key: []byte(k), Value: b})
	}
	return edits, nil
}

// ApplySequenceAdvances returns root with the advances applied, as a
// commit applies them.
func ApplySequenceAdvances(ctx context.Context, root RootValue, advances []SequenceAdvance) (RootValue, error) {
	edits, err := sequenceAdvanceEdits(ctx, root, advances)
	if err != nil || len(edits) == 0 {
		return root, err
	}
	slices.SortFunc(edits, func(a, b prolly.Edit) int { return bytes.Compare(a.Key, b.Key) })
	m, err := root.m.Apply(ctx, edits)
	return RootValue{m}, err
}

// SequenceRecord returns the encoded record of sequence schema.name, whose
// bytes are equal when the sequence is.
func (r RootValue) SequenceRecord(ctx context.Context, schema, name string) ([]byte, bool, error) {
	return r.m.Get(ctx, objectKey(kindSequence, schema, name))
}

// DecodeSequence decodes a sequence record from SequenceRecord.
func DecodeSequence(b []byte) (*sqldef.Sequence, error) {
	s := new(sqldef.Sequence)
	if err := decodeRecord(b, s); err != nil {
		return nil, err
	}
	return s, nil
}
