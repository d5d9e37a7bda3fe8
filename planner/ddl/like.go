package ddl

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// LIKE options, as TableLikeClause.Options holds them (PostgreSQL's
// CREATE_TABLE_LIKE_* bits). COMPRESSION copies nothing here: there is
// nothing of its to copy.
const (
	likeComments    = 1 << 0
	likeConstraints = 1 << 2
	likeDefaults    = 1 << 3
	likeGenerated   = 1 << 4
	likeIdentity    = 1 << 5
	likeIndexes     = 1 << 6
	likeStatistics  = 1 << 7
	likeStorage     = 1 << 8
)

// likeClause is a LIKE clause whose CHECK constraints and indexes are
// copied once the table's own constraints are in place, as PostgreSQL
// does, so that the names the table's own constraints choose come first.
type likeClause struct {
	src  *sqldef.Table
	opts uint32
}

// likeColumns adds the columns of the source of a LIKE clause in CREATE
// TABLE: their names, types and NOT NULL, and as l's options say their
// defaults, generation expressions, identity (with a new sequence) and
// comments. The source is a
// table, a view or a composite type; for a table, likeColumns returns
// what is left to copy.
func (d *tableDDL) likeColumns(ctx context.Context, l *pg.TableLikeClause) (*likeClause, error) {
	rv := l.Relation
	rel, _, err := d.a.LookupRelation(ctx, rv.Schemaname, rv.Relname)
	if err != nil {
		return nil, err
	}
	var cols []sqldef.Column
	switch rel.Kind {
	case planner.RelTable:
		for _, c := range rel.Table.Columns {
			if !c.Dropped {
				cols = append(cols, c)
			}
		}
	case planner.RelView:
		for _, c := range rel.View.Columns {
			cols = append(cols, sqldef.Column{Name: c.Name, Type: c.Type, Typmod: c.Typmod})
		}
	case planner.RelIndex, planner.RelSequence:
		return nil, planner.WithPos(pgerr.New(pgerr.WrongObjectType, "relation %q is invalid in LIKE clause", rv.Relname).
			WithDetail("This operation is not supported for %ss.", rel.Kind), rv.Location)
	default:
		t, err := d.a.LookupType(ctx, d.a.s.ResolveSchemaName(rv.Schemaname), rv.Relname)
		if err != nil {
			return nil, err
		}
		if t == nil || t.Kind != 'c' {
			return nil, planner.WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(rv)), rv.Location)
		}
		for _, f := range t.Fields {
			cols = append(cols, sqldef.Column{Name: f.Name, Type: f.Type, Typmod: f.Typmod})
		}
	}
	for _, c := range cols {
		if err := d.likeColumn(ctx, c, l.Options); err != nil {
			return nil, err
		}
	}
	if rel.Kind != planner.RelTable || l.Options&(likeConstraints|likeIndexes|likeStatistics) == 0 {
		return nil, nil
	}
	return &likeClause{src: rel.Table, opts: l.Options}, nil
}

// likeColumn adds column c of a LIKE clause's source, or merges it with
// the inherited column of its name.
func (d *tableDDL) likeColumn(ctx context.Context, c sqldef.Column, opts uint32) error {
	def := d.def
	col := sqldef.Column{Name: c.Name, Type: c.Type, Typmod: c.Typmod, NotNull: c.NotNull, Domain: c.Domain, DomainArray: c.DomainArray}
	// A generated column's expression is copied by INCLUDING GENERATED,
	// not DEFAULTS; without it the column is an ordinary one.
	switch {
	case c.Generated != 0 && opts&likeGenerated != 0:
		col.Default, col.Generated = c.Default, c.Generated
	case c.Generated == 0 && opts&likeDefaults != 0:
		col.Default = c.Default
	}
	if opts&likeComments != 0 {
		col.Comment = c.Comment
	}
	if opts&likeStorage != 0 {
		col.Storage = columnStorage(c)
	}
	if pos := d.column(c.Name); pos >= 0 {
		have := &def.Columns[pos]
		if have.InhCount == 0 {
			return pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", c.Name)
		}
		if have.Type != c.Type || have.Typmod != c.Typmod {
			return pgerr.New(pgerr.DatatypeMismatch, "column %q has a type conflict", c.Name).
				WithDetail("%s versus %s", types.FormatType(types.Oid(have.Type), have.Typmod), types.FormatType(types.Oid(c.Type), c.Typmod))
		}
		d.a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "merging column %q with inherited definition", c.Name))
		if hs := columnStorage(*have); col.Storage != 0 && hs != col.Storage {
			return pgerr.New(pgerr.DatatypeMismatch, "column %q has a storage parameter conflict", c.Name).
				WithDetail("%s versus %s", storageName(hs), storageName(col.Storage))
		}
		have.NotLocal = false
		have.NotNull = have.NotNull || col.NotNull
		if col.Default != "" {
			have.Default = col.Default
		}
		if col.Comment != "" {
			have.Comment = col.Comment
		}
		return nil
	}
	if len(def.Columns) >= 1600 {
		return pgerr.New(codeProgramLimit, "tables can have at most 1600 columns")
	}
	if c.Identity != 0 && opts&likeIdentity != 0 {
		src, err := d.a.identitySequence(ctx, c)
		if err != nil {
			return err
		}
		seq := *src
		seq.Schema = def.Schema
		seq.Name = d.ns.chooseRelationName(def.Name, c.Name, "seq", false)
		seq.Last, seq.Called = seq.Start, false
		seq.OwnedBy, seq.Comment = def.Name+"."+c.Name, ""
		d.seqs = append(d.seqs, &seq)
		col.Identity, col.Sequence = c.Identity, planner.SeqRef(seq.Schema, seq.Name)
	}
	def.Columns = append(def.Columns, col)
	return nil
}

// copy adds the CHECK constraints and indexes of l's source, as its
// options say, to the table being created. The indexes are named as
// PostgreSQL names them, for the new table.
func (l *likeClause) copy(ctx context.Context, d *tableDDL) error {
	def, src := d.def, l.src
	comments := l.opts&likeComments != 0
	if l.opts&likeStatistics != 0 {
		if err := d.a.copyStatistics(ctx, src, def, comments); err != nil {
			return err
		}
	}
	if l.opts&likeConstraints != 0 {
		for _, ck := range src.Checks {
			if planner.ConstraintExists(def, ck.Name) {
				if have := d.inheritedCheck(ck.Name); have != nil {
					if merged, err := d.mergeCheck(have, ck.Expr, ck.NoInherit, false); err != nil {
						return err
					} else if merged {
						if comments && ck.Comment != "" {
							have.Comment = ck.Comment
						}
						continue
					}
				}
				return pgerr.New(pgerr.DuplicateObject, "constraint %q for relation %q already exists", ck.Name, def.Name)
			}
			c := sqldef.Check{Name: ck.Name, Expr: ck.Expr, NoInherit: ck.NoInherit}
			if comments {
				c.Comment = ck.Comment
			}
			def.Checks = append(def.Checks, c)
			d.ns.cons[ck.Name] = true
		}
	}
	if l.opts&likeIndexes == 0 {
		return nil
	}
	if len(src.PrimaryKey) > 0 {
		if len(def.PrimaryKey) > 0 {
			return pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", def.Name)
		}
		partitionPrimaryKey(src, def, d.ns)
		if comments {
			def.PrimaryKeyIndexComment = src.PrimaryKeyIndexComment
		}
		d.newPK = true
	}
	for _, six := range src.Indexes {
		ix, names := remapIndex(src, def, six)
		for i, c := range ix.Columns {
			if c.Column < 0 {
				names[i] = exprColumnName(c.Expr)
			}
		}
		suffix := "idx"
		if ix.Constraint {
			suffix = "key"
		}
		ix.Name = d.ns.chooseRelationName(def.Name, indexNameAddition(names), suffix, ix.Constraint)
		if comments {
			ix.Comment = six.Comment
		}
		d.newIndexes = append(d.newIndexes, len(def.Indexes))
		def.Indexes = append(def.Indexes, ix)
	}
	return nil
}

// exprColumnName is the name CREATE INDEX gives an expression key column
// stored as text: its function's name, else "expr".
func exprColumnName(text string) string {
	if n, err := planner.ParseExpr(text); err == nil {
		if fc := n.GetFuncCall(); fc != nil {
			return planner.OpName(fc.Funcname)
		}
	}
	return "expr"
}
