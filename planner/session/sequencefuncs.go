package session

import (
	"context"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// seqState is a session's memory of the sequence values it has drawn.
type seqState struct {
	curr map[string]int64 // by schema + "." + name
	last string           // key of the sequence lastval reads
	// advanced holds where nextval and setval left each sequence they
	// moved in the open transaction. PostgreSQL never takes a sequence
	// back, not when a statement fails nor when its transaction rolls
	// back; neither do we: the transaction's advances (Txn.AdvanceSequence)
	// get these positions again after a failed statement, and a rollback
	// commits them on their own (keepAdvances).
	advanced map[string]seqPos
}

// seqPos is a sequence's state: its last value and whether nextval has
// returned it.
type seqPos struct {
	last   int64
	called bool
}

// The sequence functions, with PostgreSQL's signatures: a sequence is
// named by a regclass, which a literal name becomes when the call is
// planned.
func init() {
	seq := []uint32{exec.OIDRegclass}
	for _, f := range []struct {
		name string
		args []uint32
		fn   sessionFn
	}{
		{"nextval", seq, (*Session).nextval},
		{"currval", seq, (*Session).currval},
		{"setval", []uint32{exec.OIDRegclass, exec.OIDInt8}, (*Session).setval},
		{"setval", []uint32{exec.OIDRegclass, exec.OIDInt8, exec.OIDBool}, (*Session).setval},
		{"lastval", nil, (*Session).lastval},
	} {
		registerStrict(f.name, f.args, exec.OIDInt8, f.fn)
	}
}

// findSequence resolves a sequence named by a function's argument: a
// regclass, as text (a possibly qualified name) or as an OID.
func (s *Session) findSequence(env *exec.Env, d exec.Datum) (*sqldef.Sequence, error) {
	if d.Kind != exec.KindInt {
		return s.sequenceNamed(env, d.S)
	}
	// A regclass made from a name carries it: a lookup by name costs
	// less than the scan by OID, which remains for a bare OID, or a name
	// that means another relation now.
	if d.S != "" {
		seq, err := s.sequenceNamed(env, d.S)
		switch {
		case err == nil && exec.ObjectOID('S', seq.Schema, seq.Name) == uint32(d.I):
			return seq, nil
		case pgerr.CodeOf(err) == pgerr.WrongObjectType:
			return nil, err
		}
	}
	seqs, err := env.Txn.Catalog().Sequences(env.Ctx)
	if err != nil {
		return nil, err
	}
	for _, seq := range seqs {
		if exec.ObjectOID('S', seq.Schema, seq.Name) == uint32(d.I) {
			env.Txn.ShowAdvance(seq)
			return seq, nil
		}
	}
	return nil, pgerr.New(pgerr.UndefinedTable, "could not open relation with OID %d", d.I)
}

// sequenceNamed resolves a possibly qualified sequence name along the
// search path.
func (s *Session) sequenceNamed(env *exec.Env, qualified string) (*sqldef.Sequence, error) {
	ctx, root := env.Ctx, env.Txn.Catalog()
	parts, err := exec.ParseQualifiedName(qualified)
	if err != nil {
		return nil, err
	}
	schema, name := planner.SplitName(parts)
	schemas := []string{s.ResolveSchemaName(schema)}
	if schema == "" {
		schemas = s.RelationPath()
	}
	for _, sc := range schemas {
		// A schema's relations share one namespace: a sequence found
		// is the relation of that name.
		if seq, ok, err := env.Txn.Sequence(ctx, sc, name); ok || err != nil {
			return seq, err
		}
		rel, err := planner.FindRelation(ctx, root, sc, name)
		if err != nil {
			return nil, err
		}
		if rel.Kind != planner.RelNone {
			return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a sequence", name)
		}
	}
	return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", qualified)
}

// putSequence stores the state setval gives a sequence in the
// transaction's root, in place of the transaction's advance. Not SetRoot:
// the tables decoded for the root are still current.
func putSequence(env *exec.Env, seq *sqldef.Sequence) error {
	root, err := env.Txn.Catalog().PutSequence(env.Ctx, seq)
	if err != nil {
		return err
	}
	env.Txn.SetCatalog(root)
	env.Txn.ForgetSequenceAdvance(seq.Schema, seq.Name)
	return nil
}

// noteAdvance records where nextval or setval left seq.
func (s *Session) noteAdvance(seq *sqldef.Sequence) {
	if s.seqs.advanced == nil {
		s.seqs.advanced = map[string]seqPos{}
	}
	s.seqs.advanced[seqKey(seq.Schema, seq.Name)] = seqPos{seq.Last, seq.Called}
}

// reapplyAdvances gives tx the advances of adv (Txn.AdvanceSequence):
// after a failed statement, whose setval may have been thrown away with
// its root, or in a transaction of their own after a rollback. A sequence
// is never moved back, so a concurrent session's further progress stays.
func (s *Session) reapplyAdvances(ctx context.Context, tx *exec.Txn, adv map[string]seqPos) error {
	for k, pos := range adv {
		schema, name := splitSeqKey(k)
		seq, ok, err := tx.Catalog().Sequence(ctx, schema, name)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		seq.Last, seq.Called = pos.last, pos.called
		tx.AdvanceSequence(seq)
	}
	return nil
}

// keepAdvances commits, after a rollback, the sequence positions the
// rolled-back transaction reached. It is best effort: a sequence dropped
// meanwhile or a failed commit loses them, which only skips values.
func (s *Session) keepAdvances(ctx context.Context) {
	adv := s.seqs.advanced
	s.seqs.advanced = nil
	if len(adv) == 0 {
		return
	}
	for range 3 {
		_, ws, err := s.repo.WorkingSet(ctx, s.branch)
		if err != nil {
			return
		}
		start, err := versioning.LoadRootValue(ctx, s.e.st, ws.Working)
		if err != nil {
			return
		}
		tx := exec.NewTxn(s.repo, s.branch, false, start)
		if err := s.reapplyAdvances(ctx, tx, adv); err != nil || len(tx.SequenceAdvances()) == 0 {
			return
		}
		if _, err := s.repo.CommitTransaction(ctx, s.branch, start, tx.Root(), exec.NewMergeIndexer(tx)); err == nil {
			return
		}
	}
}

func (s *Session) remember(seq *sqldef.Sequence, v int64) {
	if s.seqs.curr == nil {
		s.seqs.curr = map[string]int64{}
	}
	k := seqKey(seq.Schema, seq.Name)
	s.seqs.curr[k] = v
	s.seqs.last = k
}

// nextval draws a sequence's next value: from the engine's position of
// the branch's sequence (exec.SequenceValues), so that no other
// transaction draws it too, or from the transaction's own record of a
// sequence it created or set. The transaction keeps the new position as
// an advance, which its commit applies.
func (s *Session) nextval(env *exec.Env, args []exec.Datum) (exec.Datum, error) {
	if args[0].IsNull() {
		return exec.Null, nil
	}
	if env.Txn.ReadOnly {
		return exec.Null, pgerr.New(pgerr.ReadOnlySQLTransaction, "cannot execute nextval() in a read-only transaction")
	}
	seq, err := s.findSequence(env, args[0])
	if err == nil {
		// USAGE or UPDATE; an identity column's own values are not
		// checked, as in PostgreSQL (a serial column's DEFAULT nextval
		// is). Asked only when refused: it looks the column up.
		if err = s.requireSequence(env.Ctx, seq, "Uw"); err != nil && identitySequence(env, seq) {
			err = nil
		}
	}
	if err != nil {
		return exec.Null, err
	}
	drawn, ok := seq, false
	if env.Txn.Sequences != nil {
		if drawn, ok, err = env.Txn.Sequences.Next(env.Ctx, env.Txn, seq, advanceSequence); err != nil {
			return exec.Null, err
		}
	}
	if !ok {
		if err := advanceSequence(seq); err != nil {
			return exec.Null, err
		}
		drawn = seq
	}
	env.Txn.AdvanceSequence(drawn)
	s.remember(drawn, drawn.Last)
	s.noteAdvance(drawn)
	return exec.DInt(drawn.Last), nil
}

// advanceSequence moves seq by one value, as nextval does.
func advanceSequence(seq *sqldef.Sequence) error {
	next := seq.Last
	if seq.Called {
		next = seq.Last + seq.Increment
		overflow := (seq.Increment > 0) != (next > seq.Last)
		switch {
		case seq.Increment > 0 && (overflow || next > seq.Max):
			if !seq.Cycle {
				return pgerr.New(pgerr.SequenceGeneratorLimitExceeded, "nextval: reached maximum value of sequence %q (%d)", seq.Name, seq.Max)
			}
			next = seq.Min
		case seq.Increment < 0 && (overflow || next < seq.Min):
			if !seq.Cycle {
				return pgerr.New(pgerr.SequenceGeneratorLimitExceeded, "nextval: reached minimum value of sequence %q (%d)", seq.Name, seq.Min)
			}
			next = seq.Max
		}
	}
	seq.Last, seq.Called = next, true
	return nil
}

// currval returns the value nextval last returned for a sequence in this
// session.
func (s *Session) currval(env *exec.Env, args []exec.Datum) (exec.Datum, error) {
	if args[0].IsNull() {
		return exec.Null, nil
	}
	seq, err := s.findSequence(env, args[0])
	if err == nil {
		err = s.requireSequence(env.Ctx, seq, "rU") // SELECT or USAGE
	}
	if err != nil {
		return exec.Null, err
	}
	v, ok := s.seqs.curr[seqKey(seq.Schema, seq.Name)]
	if !ok {
		return exec.Null, pgerr.New(pgerr.ObjectNotInPrerequisite, "currval of sequence %q is not yet defined in this session", seq.Name)
	}
	return exec.DInt(v), nil
}

// lastval returns the value nextval last returned in this session.
func (s *Session) lastval(env *exec.Env, _ []exec.Datum) (exec.Datum, error) {
	notYet := pgerr.New(pgerr.ObjectNotInPrerequisite, "lastval is not yet defined in this session")
	if s.seqs.last == "" {
		return exec.Null, notYet
	}
	schema, name := splitSeqKey(s.seqs.last)
	seq, ok, err := env.Txn.Catalog().Sequence(env.Ctx, schema, name)
	if err != nil {
		return exec.Null, err
	} else if !ok {
		return exec.Null, notYet
	}
	if err := s.requireSequence(env.Ctx, seq, "rU"); err != nil { // SELECT or USAGE
		return exec.Null, err
	}
	return exec.DInt(s.seqs.curr[s.seqs.last]), nil
}

func splitSeqKey(k string) (string, string) {
	for i := 0; i < len(k); i++ {
		if k[i] == '.' {
			return k[:i], k[i+1:]
		}
	}
	return "", k
}

// setval sets a sequence's value: the next nextval returns v plus the
// increment, or v itself when is_called is false.
func (s *Session) setval(env *exec.Env, args []exec.Datum) (exec.Datum, error) {
	for _, a := range args {
		if a.IsNull() {
			return exec.Null, nil
		}
	}
	if env.Txn.ReadOnly {
		return exec.Null, pgerr.New(pgerr.ReadOnlySQLTransaction, "cannot execute setval() in a read-only transaction")
	}
	seq, err := s.findSequence(env, args[0])
	if err == nil {
		err = s.requireSequence(env.Ctx, seq, "w") // UPDATE
	}
	if err != nil {
		return exec.Null, err
	}
	v := args[1].I
	called := len(args) < 3 || args[2].Bool()
	if v < seq.Min || v > seq.Max {
		return exec.Null, pgerr.New(pgerr.NumericValueOutOfRange, "setval: value %d is out of bounds for sequence %q (%d..%d)", v, seq.Name, seq.Min, seq.Max)
	}
	seq.Last, seq.Called = v, called
	if err := putSequence(env, seq); err != nil {
		return exec.Null, err
	}
	s.noteAdvance(seq)
	if called {
		// currval, not lastval: that one follows nextval alone.
		if s.seqs.curr == nil {
			s.seqs.curr = map[string]int64{}
		}
		s.seqs.curr[seqKey(seq.Schema, seq.Name)] = v
	}
	return exec.DInt(v), nil
}

// identitySequence reports whether seq is the sequence of an identity
// column (it is owned by a column whose values it generates).
func identitySequence(env *exec.Env, seq *sqldef.Sequence) bool {
	table, col, ok := strings.Cut(seq.OwnedBy, ".")
	if !ok {
		return false
	}
	t, found, err := env.Txn.Table(env.Ctx, seq.Schema, table)
	if err != nil || !found {
		return false
	}
	for _, c := range t.Cols {
		if c.Name == col && !c.Dropped {
			return c.Identity != 0
		}
	}
	return false
}

func seqKey(schema, name string) string { return schema + "." + name }
