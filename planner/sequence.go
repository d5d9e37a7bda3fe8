package planner

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
)

// Sequences: CREATE, ALTER and DROP SEQUENCE, and the functions nextval,
// currval, setval and lastval. A sequence's definition and state are a
// record of the root value, so they are versioned with the data (and,
// unlike PostgreSQL's, roll back with the transaction); the session keeps
// currval and lastval, which PostgreSQL also keeps per session.

// seqState is a session's memory of the sequence values it has drawn.
type seqState struct {
	curr map[string]int64 // by schema + "." + name
	last string           // key of the sequence lastval reads
	// advanced holds where nextval and setval left each sequence they
	// moved in the open transaction. PostgreSQL never takes a sequence
	// back, not when a statement fails nor when its transaction rolls
	// back; neither do we: a failed statement's root gets these positions
	// again, and a rollback commits them on their own (keepAdvances).
	advanced map[string]seqPos
}

// seqPos is a sequence's state: its last value and whether nextval has
// returned it.
type seqPos struct {
	last   int64
	called bool
}

func seqKey(schema, name string) string { return schema + "." + name }

// seqOptions are the options of CREATE/ALTER SEQUENCE and of identity
// columns, as DefElems.
type seqOptions struct {
	as, increment, cycle, max, min, start, restart, cache, ownedBy, seqName *pg.DefElem
}

// parseSeqOptions sorts out a sequence's options, rejecting repeated ones.
func parseSeqOptions(opts []*pg.Node, forIdentity bool) (*seqOptions, error) {
	o := &seqOptions{}
	for _, n := range opts {
		d := n.GetDefElem()
		var slot **pg.DefElem
		switch d.Defname {
		case "as":
			slot = &o.as
		case "increment":
			slot = &o.increment
		case "cycle":
			slot = &o.cycle
		case "maxvalue":
			slot = &o.max
		case "minvalue":
			slot = &o.min
		case "start":
			slot = &o.start
		case "restart":
			slot = &o.restart
		case "cache":
			slot = &o.cache
		case "owned_by":
			if forIdentity {
				return nil, withPos(pgerr.New(pgerr.SyntaxError, "invalid sequence option OWNED BY"), d.Location)
			}
			slot = &o.ownedBy
		case "sequence_name":
			if !forIdentity {
				return nil, withPos(pgerr.New(pgerr.SyntaxError, "invalid sequence option SEQUENCE NAME"), d.Location)
			}
			slot = &o.seqName
		case "log_cnt":
			continue
		default:
			return nil, pgerr.New(pgerr.SyntaxError, "option %q not recognized", d.Defname)
		}
		if *slot != nil {
			return nil, withPos(pgerr.New(pgerr.SyntaxError, "conflicting or redundant options"), d.Location)
		}
		*slot = d
	}
	return o, nil
}

// defInt64 reads a DefElem's numeric argument.
func defInt64(d *pg.DefElem) (int64, error) {
	switch {
	case d.Arg.GetInteger() != nil:
		return int64(d.Arg.GetInteger().Ival), nil
	case d.Arg.GetFloat() != nil:
		v, err := strconv.ParseInt(d.Arg.GetFloat().Fval, 10, 64)
		if err != nil {
			return 0, pgerr.New(pgerr.InvalidParameterValue, "%s requires an integer value", d.Defname)
		}
		return v, nil
	}
	return 0, pgerr.New(pgerr.SyntaxError, "%s requires a numeric value", d.Defname)
}

// typeBounds returns the range of a sequence type.
func typeBounds(oid uint32) (int64, int64) {
	switch oid {
	case exec.OIDInt2:
		return math.MinInt16, math.MaxInt16
	case exec.OIDInt4:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// applySeqOptions sets seq's parameters from o, as PostgreSQL's
// init_params does: init is true for a new sequence (every parameter
// takes its default), false for ALTER SEQUENCE (only given ones change,
// and a type change moves the bounds that were the old type's).
func applySeqOptions(seq *versioning.Sequence, o *seqOptions, init, forIdentity bool) error {
	resetMax, resetMin := false, false
	if o.as != nil {
		t, _, err := resolveType(o.as.Arg.GetTypeName())
		if err != nil {
			return err
		}
		if t.OID != exec.OIDInt2 && t.OID != exec.OIDInt4 && t.OID != exec.OIDInt8 {
			if forIdentity {
				return pgerr.New(pgerr.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
			}
			return pgerr.New(pgerr.InvalidParameterValue, "sequence type must be smallint, integer, or bigint")
		}
		if !init {
			lo, hi := typeBounds(seq.Type)
			resetMax, resetMin = seq.Max == hi, seq.Min == lo
		}
		seq.Type = t.OID
	} else if init {
		seq.Type = exec.OIDInt8
	}
	if o.increment != nil {
		v, err := defInt64(o.increment)
		if err != nil {
			return err
		}
		if v == 0 {
			return pgerr.New(pgerr.InvalidParameterValue, "INCREMENT must not be zero")
		}
		seq.Increment = v
	} else if init {
		seq.Increment = 1
	}
	if o.cycle != nil {
		seq.Cycle = o.cycle.Arg.GetBoolean().GetBoolval()
	} else if init {
		seq.Cycle = false
	}
	lo, hi := typeBounds(seq.Type)
	typeName := exec.TypeName(seq.Type)
	if o.max != nil && o.max.Arg != nil {
		v, err := defInt64(o.max)
		if err != nil {
			return err
		}
		seq.Max = v
	} else if init || o.max != nil || resetMax {
		if seq.Increment > 0 || resetMax {
			seq.Max = hi
		} else {
			seq.Max = -1
		}
	}
	if seq.Max < lo || seq.Max > hi {
		return pgerr.New(pgerr.InvalidParameterValue, "MAXVALUE (%d) is out of range for sequence data type %s", seq.Max, typeName)
	}
	if o.min != nil && o.min.Arg != nil {
		v, err := defInt64(o.min)
		if err != nil {
			return err
		}
		seq.Min = v
	} else if init || o.min != nil || resetMin {
		if seq.Increment < 0 || resetMin {
			seq.Min = lo
		} else {
			seq.Min = 1
		}
	}
	if seq.Min < lo || seq.Min > hi {
		return pgerr.New(pgerr.InvalidParameterValue, "MINVALUE (%d) is out of range for sequence data type %s", seq.Min, typeName)
	}
	if seq.Min >= seq.Max {
		return pgerr.New(pgerr.InvalidParameterValue, "MINVALUE (%d) must be less than MAXVALUE (%d)", seq.Min, seq.Max)
	}
	if o.start != nil {
		v, err := defInt64(o.start)
		if err != nil {
			return err
		}
		seq.Start = v
	} else if init {
		if seq.Increment > 0 {
			seq.Start = seq.Min
		} else {
			seq.Start = seq.Max
		}
	}
	if seq.Start < seq.Min {
		return pgerr.New(pgerr.InvalidParameterValue, "START value (%d) cannot be less than MINVALUE (%d)", seq.Start, seq.Min)
	}
	if seq.Start > seq.Max {
		return pgerr.New(pgerr.InvalidParameterValue, "START value (%d) cannot be greater than MAXVALUE (%d)", seq.Start, seq.Max)
	}
	if o.restart != nil {
		seq.Last = seq.Start
		if o.restart.Arg != nil {
			v, err := defInt64(o.restart)
			if err != nil {
				return err
			}
			seq.Last = v
		}
		seq.Called = false
	} else if init {
		seq.Last, seq.Called = seq.Start, false
	}
	if seq.Last < seq.Min {
		return pgerr.New(pgerr.InvalidParameterValue, "RESTART value (%d) cannot be less than MINVALUE (%d)", seq.Last, seq.Min)
	}
	if seq.Last > seq.Max {
		return pgerr.New(pgerr.InvalidParameterValue, "RESTART value (%d) cannot be greater than MAXVALUE (%d)", seq.Last, seq.Max)
	}
	if o.cache != nil {
		v, err := defInt64(o.cache)
		if err != nil {
			return err
		}
		if v <= 0 {
			return pgerr.New(pgerr.InvalidParameterValue, "CACHE (%d) must be greater than zero", v)
		}
		seq.Cache = v
	} else if init {
		seq.Cache = 1
	}
	return nil
}

// ownedBy resolves OWNED BY table.column (or NONE) for seq.
func (a *analyzer) ownedBy(ctx context.Context, seq *versioning.Sequence, d *pg.DefElem) error {
	parts := nameList(d.Arg.GetList().Items)
	if len(parts) == 1 {
		if parts[0] != "none" {
			return pgerr.New(pgerr.InvalidParameterValue, "invalid OWNED BY option").
				WithHint("Specify OWNED BY table.column or OWNED BY NONE.")
		}
		seq.OwnedBy = ""
		return nil
	}
	schema, table := splitName(parts[:len(parts)-1])
	col := parts[len(parts)-1]
	rel, relSchema, err := a.lookupRelation(ctx, schema, table)
	if err != nil {
		return err
	}
	switch rel.kind {
	case relNone:
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", table)
	case relTable:
	default:
		return pgerr.New(pgerr.WrongObjectType, "sequence cannot be owned by relation %q", table).
			WithDetail("This operation is not supported for %ss.", rel.kind)
	}
	if relSchema != seq.Schema {
		return pgerr.New(pgerr.ObjectNotInPrerequisite, "sequence must be in same schema as table it is linked to")
	}
	found := false
	for _, c := range rel.table.Columns {
		found = found || !c.Dropped && c.Name == col
	}
	if !found {
		return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", col, table)
	}
	seq.OwnedBy = table + "." + col
	return nil
}

// createSequence runs CREATE SEQUENCE [IF NOT EXISTS] name [options].
func (a *analyzer) createSequence(s *pg.CreateSeqStmt) (utility, error) {
	o, err := parseSeqOptions(s.Options, false)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		schema, skip, err := a.newRelationName(ctx, s.Sequence, s.IfNotExists)
		if err != nil || skip {
			return "CREATE SEQUENCE", err
		}
		name := s.Sequence.Relname
		seq := &versioning.Sequence{Schema: schema, Name: name, Owner: newObjectOwner(a.s)}
		return "CREATE SEQUENCE", a.putSequence(ctx, seq, o, true)
	}, nil
}

// putSequence applies CREATE or ALTER SEQUENCE options to seq and stores it
// in the transaction's root.
func (a *analyzer) putSequence(ctx context.Context, seq *versioning.Sequence, o *seqOptions, create bool) error {
	if err := applySeqOptions(seq, o, create, false); err != nil {
		return err
	}
	if o.ownedBy != nil {
		if err := a.ownedBy(ctx, seq, o.ownedBy); err != nil {
			return err
		}
	}
	root, err := a.tx.Root.PutSequence(ctx, seq)
	if err != nil {
		return err
	}
	a.tx.SetRoot(root)
	return nil
}

// alterSequence runs ALTER SEQUENCE [IF EXISTS] name options.
func (a *analyzer) alterSequence(s *pg.AlterSeqStmt) (utility, error) {
	o, err := parseSeqOptions(s.Options, s.ForIdentity)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		seq, err := a.sequenceByName(ctx, s.Sequence.Schemaname, s.Sequence.Relname, s.MissingOk)
		if err != nil || seq == nil {
			return "ALTER SEQUENCE", err
		}
		return "ALTER SEQUENCE", a.putSequence(ctx, seq, o, false)
	}, nil
}

// sequenceByName finds a sequence for DDL: nil, nil when it is missing
// and missingOK (a notice is sent).
func (a *analyzer) sequenceByName(ctx context.Context, schema, name string, missingOK bool) (*versioning.Sequence, error) {
	rel, _, err := a.lookupRelation(ctx, schema, name)
	if err != nil {
		return nil, err
	}
	switch {
	case rel.kind == relNone && missingOK:
		a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "relation %q does not exist, skipping", name))
		return nil, nil
	case rel.kind == relNone:
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
	case rel.kind != relSequence:
		return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a sequence", name)
	}
	return rel.seq, nil
}

// dropSequences runs DROP SEQUENCE. A sequence a column default uses
// cannot go without CASCADE, which drops those defaults; an identity
// column's sequence goes only with its column.
func (a *analyzer) dropSequences(ctx context.Context, s *pg.DropStmt) (string, error) {
	cascade := s.Behavior == pg.DropBehavior_DROP_CASCADE
	for _, obj := range s.Objects {
		rel, relSchema, name, err := a.dropTarget(ctx, obj, relSequence, s.MissingOk)
		if err != nil {
			return "", err
		}
		if rel.kind == relNone {
			continue
		}
		if err := a.dropSequence(ctx, relSchema, name, cascade); err != nil {
			return "", err
		}
	}
	return "DROP SEQUENCE", nil
}

// dropSequence drops one sequence, handling the defaults that use it.
func (a *analyzer) dropSequence(ctx context.Context, schema, name string, cascade bool) error {
	tables, err := a.tx.Root.TablesIn(ctx, schema)
	if err != nil {
		return err
	}
	qualified := seqRef(schema, name)
	for _, t := range tables {
		changed := false
		for i, c := range t.Columns {
			if c.Dropped {
				continue
			}
			if c.Identity != 0 && c.Sequence == qualified {
				return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop sequence %s because column %s of table %s requires it", name, c.Name, t.Name).
					WithHint("You can drop column %s of table %s instead.", c.Name, t.Name)
			}
			if c.Default != "" && defaultUsesSequence(c.Default, schema, name) {
				if !cascade {
					return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop sequence %s because other objects depend on it", name).
						WithDetail("default value for column %s of table %s depends on sequence %s", c.Name, t.Name, name).
						WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
				}
				a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to default value for column %s of table %s", c.Name, t.Name))
				t.Columns[i].Default = ""
				changed = true
			}
		}
		if changed {
			if err := a.putTable(ctx, t); err != nil {
				return err
			}
		}
	}
	root, err := a.tx.Root.DropSequence(ctx, schema, name)
	if err != nil {
		return err
	}
	a.tx.SetRoot(root)
	return nil
}

// seqRef is how a column record names its identity sequence: the
// qualified name as SQL writes it, quoted where needed.
func seqRef(schema, name string) string { return quoteIdent(schema) + "." + quoteIdent(name) }

// defaultUsesSequence reports whether a default expression calls nextval
// on sequence schema.name.
func defaultUsesSequence(def, schema, name string) bool {
	found := false
	nextvalRefs(def, func(s, n string) (string, bool) {
		found = found || n == name && (s == "" || s == schema)
		return "", false
	})
	return found
}

// nextvalRefs calls fn with the sequence named by each nextval('...') of a
// stored expression (schema "" when unqualified); where fn returns a new
// reference (quoted as SQL needs), the expression's text is rewritten.
// Stored defaults name sequences by text where PostgreSQL stores an OID,
// so renames must follow them.
func nextvalRefs(expr string, fn func(schema, name string) (string, bool)) (string, bool) {
	n, err := parseExpr(expr)
	if err != nil {
		return expr, false
	}
	changed := false
	visitNodes(n, func(x *pg.Node) {
		fc := x.GetFuncCall()
		if fc == nil || opName(fc.Funcname) != "nextval" || len(fc.Args) != 1 {
			return
		}
		arg := fc.Args[0]
		if tc := arg.GetTypeCast(); tc != nil {
			arg = tc.Arg
		}
		c := arg.GetAConst()
		if c == nil || c.GetSval() == nil {
			return
		}
		parts, err := parseQualifiedName(c.GetSval().Sval)
		if err != nil {
			return
		}
		s, nm := splitName(parts)
		if ref, ok := fn(s, nm); ok {
			c.GetSval().Sval, changed = ref, true
		}
	})
	if !changed {
		return expr, false
	}
	text, err := deparseExpr(n)
	if err != nil {
		return expr, false
	}
	return text, true
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
func (s *Session) findSequence(env *exec.Env, d exec.Datum) (*versioning.Sequence, error) {
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
	seqs, err := env.Txn.Root.Sequences(env.Ctx)
	if err != nil {
		return nil, err
	}
	for _, seq := range seqs {
		if exec.ObjectOID('S', seq.Schema, seq.Name) == uint32(d.I) {
			return seq, nil
		}
	}
	return nil, pgerr.New(pgerr.UndefinedTable, "could not open relation with OID %d", d.I)
}

// sequenceNamed resolves a possibly qualified sequence name along the
// search path.
func (s *Session) sequenceNamed(env *exec.Env, qualified string) (*versioning.Sequence, error) {
	ctx, root := env.Ctx, env.Txn.Root
	parts, err := parseQualifiedName(qualified)
	if err != nil {
		return nil, err
	}
	schema, name := splitName(parts)
	schemas := []string{s.ResolveSchemaName(schema)}
	if schema == "" {
		schemas = s.RelationPath()
	}
	for _, sc := range schemas {
		rel, err := findRelation(ctx, root, sc, name)
		if err != nil {
			return nil, err
		}
		switch rel.kind {
		case relNone:
			continue
		case relSequence:
			return rel.seq, nil
		}
		return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a sequence", name)
	}
	return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", qualified)
}

// putSequence stores a sequence's new state. Not SetRoot: the tables
// decoded for the root are still current, and forgetting them on every
// nextval would cost a decode per row.
func putSequence(env *exec.Env, seq *versioning.Sequence) error {
	root, err := env.Txn.Root.PutSequence(env.Ctx, seq)
	if err != nil {
		return err
	}
	env.Txn.Root = root
	return nil
}

// noteAdvance records where nextval or setval left seq.
func (s *Session) noteAdvance(seq *versioning.Sequence) {
	if s.seqs.advanced == nil {
		s.seqs.advanced = map[string]seqPos{}
	}
	s.seqs.advanced[seqKey(seq.Schema, seq.Name)] = seqPos{seq.Last, seq.Called}
}

// reapplyAdvances moves the sequences of tx's root forward to the
// positions in adv: after a failed statement (whose root was thrown away)
// or in a transaction of their own after a rollback. A sequence is never
// moved back, so a concurrent session's further progress stays.
func (s *Session) reapplyAdvances(ctx context.Context, tx *exec.Txn, adv map[string]seqPos) error {
	root := tx.Root
	for k, pos := range adv {
		schema, name := splitSeqKey(k)
		seq, ok, err := root.Sequence(ctx, schema, name)
		if err != nil {
			return err
		}
		if !ok || !ahead(seq, pos) {
			continue
		}
		seq.Last, seq.Called = pos.last, pos.called
		if root, err = root.PutSequence(ctx, seq); err != nil {
			return err
		}
	}
	tx.Root = root // the decoded tables are still current
	return nil
}

// ahead reports whether pos is further along seq than seq's state.
func ahead(seq *versioning.Sequence, pos seqPos) bool {
	switch {
	case pos.last == seq.Last:
		return pos.called && !seq.Called
	case seq.Increment > 0:
		return pos.last > seq.Last
	}
	return pos.last < seq.Last
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
		if err := s.reapplyAdvances(ctx, tx, adv); err != nil || tx.Root.Addr() == start.Addr() {
			return
		}
		if _, err := s.repo.CommitTransaction(ctx, s.branch, start, tx.Root, exec.NewMergeIndexer(tx)); err == nil {
			return
		}
	}
}

func (s *Session) remember(seq *versioning.Sequence, v int64) {
	if s.seqs.curr == nil {
		s.seqs.curr = map[string]int64{}
	}
	k := seqKey(seq.Schema, seq.Name)
	s.seqs.curr[k] = v
	s.seqs.last = k
}

// nextval advances a sequence in the transaction's root.
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
	next := seq.Last
	if seq.Called {
		next = seq.Last + seq.Increment
		overflow := (seq.Increment > 0) != (next > seq.Last)
		switch {
		case seq.Increment > 0 && (overflow || next > seq.Max):
			if !seq.Cycle {
				return exec.Null, pgerr.New(pgerr.SequenceGeneratorLimitExceeded, "nextval: reached maximum value of sequence %q (%d)", seq.Name, seq.Max)
			}
			next = seq.Min
		case seq.Increment < 0 && (overflow || next < seq.Min):
			if !seq.Cycle {
				return exec.Null, pgerr.New(pgerr.SequenceGeneratorLimitExceeded, "nextval: reached minimum value of sequence %q (%d)", seq.Name, seq.Min)
			}
			next = seq.Max
		}
	}
	seq.Last, seq.Called = next, true
	if err := putSequence(env, seq); err != nil {
		return exec.Null, err
	}
	s.remember(seq, next)
	s.noteAdvance(seq)
	return exec.DInt(next), nil
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
	seq, ok, err := env.Txn.Root.Sequence(env.Ctx, schema, name)
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

// newSequence returns a sequence of type typ with default parameters (a
// serial column's).
func newSequence(schema, name string, typ uint32) *versioning.Sequence {
	_, hi := typeBounds(typ)
	return &versioning.Sequence{Schema: schema, Name: name, Type: typ, Start: 1, Increment: 1, Min: 1, Max: hi, Cache: 1, Last: 1}
}

// nextvalDefault is the default expression of a serial column.
func nextvalDefault(schema, name string) string {
	ref := quoteIdent(name)
	if schema != "public" {
		ref = quoteIdent(schema) + "." + ref
	}
	return fmt.Sprintf("nextval(%s::regclass)", "'"+strings.ReplaceAll(ref, "'", "''")+"'")
}

// identitySequence reports whether seq is the sequence of an identity
// column (it is owned by a column whose values it generates).
func identitySequence(env *exec.Env, seq *versioning.Sequence) bool {
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
