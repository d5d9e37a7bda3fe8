package ddl

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Sequences: CREATE, ALTER and DROP SEQUENCE, and the functions nextval,
// currval, setval and lastval. A sequence's definition and state are a
// record of the root value, so they are versioned with the data (and,
// unlike PostgreSQL's, roll back with the transaction); the session keeps
// currval and lastval, which PostgreSQL also keeps per session.

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
				return nil, planner.WithPos(pgerr.New(pgerr.SyntaxError, "invalid sequence option OWNED BY"), d.Location)
			}
			slot = &o.ownedBy
		case "sequence_name":
			if !forIdentity {
				return nil, planner.WithPos(pgerr.New(pgerr.SyntaxError, "invalid sequence option SEQUENCE NAME"), d.Location)
			}
			slot = &o.seqName
		case "log_cnt":
			continue
		default:
			return nil, pgerr.New(pgerr.SyntaxError, "option %q not recognized", d.Defname)
		}
		if *slot != nil {
			return nil, planner.WithPos(pgerr.New(pgerr.SyntaxError, "conflicting or redundant options"), d.Location)
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
func applySeqOptions(seq *sqldef.Sequence, o *seqOptions, init, forIdentity bool) error {
	resetMax, resetMin := false, false
	if o.as != nil {
		t, _, err := planner.ResolveType(o.as.Arg.GetTypeName())
		if err != nil {
			return err
		}
		if !identityType(t.OID) {
			if forIdentity {
				return errIdentityType()
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

// checkNotIdentitySequence refuses to change the owner of an identity
// column's sequence, which goes and comes with its column.
func (a *analyzer) checkNotIdentitySequence(ctx context.Context, seq *sqldef.Sequence) error {
	table, col, ok := strings.Cut(seq.OwnedBy, ".")
	if !ok {
		return nil
	}
	t, found, err := a.tx.Root().Table(ctx, seq.Schema, table)
	if err != nil || !found {
		return err
	}
	for _, c := range t.Columns {
		if !c.Dropped && c.Name == col && c.Identity != 0 && c.Sequence == seq.Schema+"."+seq.Name {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot change ownership of identity sequence").
				WithDetail("Sequence %q is linked to table %q.", seq.Name, table)
		}
	}
	return nil
}

// ownedBy resolves OWNED BY table.column (or NONE) for seq.
func (a *analyzer) ownedBy(ctx context.Context, seq *sqldef.Sequence, d *pg.DefElem) error {
	parts := planner.NameList(d.Arg.GetList().Items)
	if len(parts) == 1 {
		if parts[0] != "none" {
			return pgerr.New(pgerr.InvalidParameterValue, "invalid OWNED BY option").
				WithHint("Specify OWNED BY table.column or OWNED BY NONE.")
		}
		seq.OwnedBy = ""
		return nil
	}
	schema, table := planner.SplitName(parts[:len(parts)-1])
	col := parts[len(parts)-1]
	rel, relSchema, err := a.LookupRelation(ctx, schema, table)
	if err != nil {
		return err
	}
	switch rel.Kind {
	case planner.RelNone:
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", table)
	case planner.RelTable:
	default:
		return pgerr.New(pgerr.WrongObjectType, "sequence cannot be owned by relation %q", table).
			WithDetail("This operation is not supported for %ss.", rel.Kind)
	}
	if relSchema != seq.Schema {
		return pgerr.New(pgerr.ObjectNotInPrerequisite, "sequence must be in same schema as table it is linked to")
	}
	found := false
	for _, c := range rel.Table.Columns {
		found = found || !c.Dropped && c.Name == col
	}
	if !found {
		return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", col, table)
	}
	seq.OwnedBy = table + "." + col
	return nil
}

// createSequence runs CREATE SEQUENCE [IF NOT EXISTS] name [options].
func (a *analyzer) createSequence(s *pg.CreateSeqStmt) (planner.Utility, error) {
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
		seq := &sqldef.Sequence{Schema: schema, Name: name, Owner: planner.NewObjectOwner(a.s)}
		if err := a.sequenceACLs(ctx, []*sqldef.Sequence{seq}); err != nil {
			return "", err
		}
		return "CREATE SEQUENCE", a.putSequence(ctx, seq, o, true)
	}, nil
}

// putSequence applies CREATE or ALTER SEQUENCE options to seq and stores it
// in the transaction's root.
func (a *analyzer) putSequence(ctx context.Context, seq *sqldef.Sequence, o *seqOptions, create bool) error {
	if err := applySeqOptions(seq, o, create, false); err != nil {
		return err
	}
	if o.ownedBy != nil {
		if err := a.checkNotIdentitySequence(ctx, seq); err != nil {
			return err
		}
		if err := a.ownedBy(ctx, seq, o.ownedBy); err != nil {
			return err
		}
	}
	root, err := a.tx.Root().PutSequence(ctx, seq)
	if err != nil {
		return err
	}
	a.tx.SetRoot(root)
	if o.restart != nil {
		a.tx.ForgetSequenceAdvance(seq.Schema, seq.Name) // the commit must not undo the RESTART
	}
	return nil
}

// alterSequence runs ALTER SEQUENCE [IF EXISTS] name options.
func (a *analyzer) alterSequence(s *pg.AlterSeqStmt) (planner.Utility, error) {
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
func (a *analyzer) sequenceByName(ctx context.Context, schema, name string, missingOK bool) (*sqldef.Sequence, error) {
	rel, _, err := a.LookupRelation(ctx, schema, name)
	if err != nil {
		return nil, err
	}
	switch {
	case rel.Kind == planner.RelNone && missingOK:
		a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "relation %q does not exist, skipping", name))
		return nil, nil
	case rel.Kind == planner.RelNone:
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
	case rel.Kind != planner.RelSequence:
		return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a sequence", name)
	}
	return rel.Seq, nil
}

// dropSequences runs DROP SEQUENCE. A sequence a column default uses
// cannot go without CASCADE, which drops those defaults; an identity
// column's sequence goes only with its column.
func (a *analyzer) dropSequences(ctx context.Context, s *pg.DropStmt) (string, error) {
	cascade := s.Behavior == pg.DropBehavior_DROP_CASCADE
	defer a.collectCascades()()
	for _, obj := range s.Objects {
		rel, relSchema, name, err := a.dropTarget(ctx, obj, planner.RelSequence, s.MissingOk)
		if err != nil {
			return "", err
		}
		if rel.Kind == planner.RelNone {
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
	tables, err := a.tx.Root().TablesIn(ctx, schema)
	if err != nil {
		return err
	}
	qualified := planner.SeqRef(schema, name)
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
				a.cascaded("default value for column " + c.Name + " of table " + t.Name)
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
	// Views that read it as a relation go the same way.
	if err := a.dropDependentViews(ctx, schema, name, "sequence "+name, cascade); err != nil {
		return err
	}
	root, err := a.tx.Root().DropSequence(ctx, schema, name)
	if err != nil {
		return err
	}
	a.tx.SetRoot(root)
	return nil
}

// defaultUsesSequence reports whether a default expression calls nextval
// on sequence schema.name.
func defaultUsesSequence(def, schema, name string) bool {
	found := false
	planner.NextvalRefs(def, func(s, n string) (string, bool) {
		found = found || n == name && (s == "" || s == schema)
		return "", false
	})
	return found
}

// newSequence returns a sequence of type typ with default parameters (a
// serial column's).
func newSequence(schema, name string, typ uint32) *sqldef.Sequence {
	_, hi := typeBounds(typ)
	return &sqldef.Sequence{Schema: schema, Name: name, Type: typ, Start: 1, Increment: 1, Min: 1, Max: hi, Cache: 1, Last: 1}
}

// nextvalDefault is the default expression of a serial column.
func nextvalDefault(schema, name string) string {
	ref := planner.QuoteIdent(name)
	if schema != "public" {
		ref = planner.QuoteIdent(schema) + "." + ref
	}
	return fmt.Sprintf("nextval(%s::regclass)", "'"+strings.ReplaceAll(ref, "'", "''")+"'")
}
