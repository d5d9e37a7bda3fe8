package ddl

import (
	"context"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// tableDDL is one statement's work on a table's definition: CREATE TABLE,
// or ALTER TABLE adding columns and constraints. It chooses names as
// PostgreSQL does: serial and identity sequences as columns come, CHECK
// constraints once the columns are known, then the primary key's index,
// then the other unique ones.
type tableDDL struct {
	a    *analyzer
	def  *sqldef.Table
	ns   *nameSet
	seqs []*sqldef.Sequence
	// Constraints seen but not yet added.
	checks  []*pg.Constraint
	indexes []*pg.Constraint
	ixCols  [][]int
	fks     []*pg.Constraint
	fkCols  [][]int
	// exclusions are EXCLUDE constraints (exclusion.go)
	exclusions []*pg.Constraint
	gens       []generationClause // generated.go
	// newIndexes lists the positions in def.Indexes added by this
	// statement, whose maps ALTER TABLE must build.
	newIndexes []int
	newFKs     []int // positions in def.ForeignKeys added by this statement
	newPK      bool
	altering   bool // ALTER TABLE, not CREATE TABLE
	partition  bool // CREATE TABLE ... PARTITION OF
	// laterFKs leaves the foreign keys to the caller of finish: CREATE
	// TABLE adds them after LIKE's indexes, which a key of the table
	// referencing itself may need, as PostgreSQL does.
	laterFKs  bool
	generated map[string]bool // CHECK names this statement made up
}

func (a *analyzer) newTableDDL(ctx context.Context, def *sqldef.Table) (*tableDDL, error) {
	ns, err := takenNames(ctx, a.tx.Root(), def.Schema)
	if err != nil {
		return nil, err
	}
	ns.rels[def.Name] = true
	return &tableDDL{a: a, def: def, ns: ns}, nil
}

// column returns the position of a live column of the table being built.
func (d *tableDDL) column(name string) int {
	for i, c := range d.def.Columns {
		if !c.Dropped && c.Name == name {
			return i
		}
	}
	return -1
}

// addColumn adds a column and records its constraints.
func (d *tableDDL) addColumn(ctx context.Context, cd *pg.ColumnDef) error {
	def := d.def
	if err := planner.CheckColumnName(cd.Colname); err != nil {
		return err
	}
	if d.column(cd.Colname) >= 0 {
		if !d.altering {
			return pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", cd.Colname)
		}
		return pgerr.New(pgerr.DuplicateColumn, "column %q of relation %q already exists", cd.Colname, def.Name)
	}
	if len(def.Columns) >= 1600 {
		return pgerr.New(codeProgramLimit, "tables can have at most 1600 columns")
	}
	if err := notPseudoType(cd); err != nil {
		return err
	}
	t, dom, serial, err := d.a.ResolveTypeDomain(cd.TypeName)
	if err != nil {
		if pe, ok := err.(*pgerr.Error); ok {
			return planner.WithPos(pe, cd.TypeName.Location)
		}
		return err
	}
	if !serial {
		if err := d.a.RequireTypeNameUsage(cd.TypeName); err != nil {
			return err
		}
	}
	col := sqldef.Column{Name: cd.Colname, Type: t.OID, Typmod: t.Typmod, NotNull: cd.IsNotNull}
	if dom != nil {
		// The domain's default applies where the column has none of
		// its own (dml.go's defaults), as in PostgreSQL.
		col.Domain = dom.Schema + "." + dom.Name
	} else if elem := d.a.arrayElementDomain(cd.TypeName); elem != nil {
		col.Domain, col.DomainArray = elem.Schema+"."+elem.Name, true
	}
	pos := len(def.Columns)
	def.Columns = append(def.Columns, col)
	c := &def.Columns[pos]
	if serial {
		name := d.ns.chooseRelationName(def.Name, cd.Colname, "seq", false)
		seq := newSequence(def.Schema, name, t.OID)
		seq.Owner = def.Owner // a serial column's sequence is its table's owner's
		seq.OwnedBy = def.Name + "." + cd.Colname
		d.seqs = append(d.seqs, seq)
		c.Default = nextvalDefault(def.Schema, name)
		c.NotNull = true
	}
	return d.columnConstraints(ctx, pos, cd, serial)
}

// columnConstraints applies the constraints of column definition cd to
// column pos; hasDefault says whether the definition gave it a default
// already (serial).
func (d *tableDDL) columnConstraints(ctx context.Context, pos int, cd *pg.ColumnDef, hasDefault bool) error {
	def := d.def
	c := &def.Columns[pos]
	var err error
	hasIdentity, hasGenerated := false, false
	// sawNullable: a NULL, NOT NULL or identity clause (which implies NOT
	// NULL) came; a later one that says otherwise conflicts with it.
	sawNullable, serialNotNull := false, hasDefault && c.NotNull
	conflicting := func(loc int32) error {
		return planner.WithPos(pgerr.New(pgerr.SyntaxError, "conflicting NULL/NOT NULL declarations for column %q of table %q", cd.Colname, def.Name), loc)
	}
	var last *pg.Constraint // the constraint DEFERRABLE and its kin apply to
	for _, cn := range cd.Constraints {
		con := cn.GetConstraint()
		switch con.Contype {
		case pg.ConstrType_CONSTR_ATTR_DEFERRABLE, pg.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE,
			pg.ConstrType_CONSTR_ATTR_DEFERRED, pg.ConstrType_CONSTR_ATTR_IMMEDIATE:
		default:
			last = con
		}
		switch con.Contype {
		case pg.ConstrType_CONSTR_NOTNULL:
			if sawNullable && !c.NotNull {
				return conflicting(con.Location)
			}
			c.NotNull, sawNullable = true, true
		case pg.ConstrType_CONSTR_NULL:
			if sawNullable && c.NotNull {
				return conflicting(con.Location)
			}
			c.NotNull, sawNullable = false, true
		case pg.ConstrType_CONSTR_DEFAULT:
			if hasDefault {
				return planner.WithPos(pgerr.New(pgerr.SyntaxError, "multiple default values specified for column %q of table %q", cd.Colname, def.Name), con.Location)
			}
			hasDefault = true
			if c.Default, err = d.a.columnDefault(con.RawExpr, exec.T{OID: c.Type, Typmod: c.Typmod}, c.Name); err != nil {
				return err
			}
		case pg.ConstrType_CONSTR_IDENTITY:
			if hasIdentity {
				return planner.WithPos(pgerr.New(pgerr.SyntaxError, "multiple identity specifications for column %q of table %q", cd.Colname, def.Name), con.Location)
			}
			hasIdentity = true
			if sawNullable && !c.NotNull {
				return conflicting(con.Location)
			}
			sawNullable = true
			if err := d.identity(ctx, pos, con); err != nil {
				return err
			}
		case pg.ConstrType_CONSTR_PRIMARY, pg.ConstrType_CONSTR_UNIQUE:
			d.indexes = append(d.indexes, con)
			d.ixCols = append(d.ixCols, []int{pos})
		case pg.ConstrType_CONSTR_CHECK:
			d.checks = append(d.checks, con)
		case pg.ConstrType_CONSTR_ATTR_DEFERRABLE, pg.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE,
			pg.ConstrType_CONSTR_ATTR_DEFERRED, pg.ConstrType_CONSTR_ATTR_IMMEDIATE:
			if last == nil || (last.Contype != pg.ConstrType_CONSTR_UNIQUE && last.Contype != pg.ConstrType_CONSTR_PRIMARY && last.Contype != pg.ConstrType_CONSTR_FOREIGN) {
				return planner.WithPos(pgerr.New(pgerr.SyntaxError, "misplaced %s clause", constraintAttrName(con.Contype)), con.Location)
			}
			switch con.Contype {
			case pg.ConstrType_CONSTR_ATTR_DEFERRABLE:
				last.Deferrable = true
			case pg.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE:
				last.Deferrable = false
			case pg.ConstrType_CONSTR_ATTR_DEFERRED:
				last.Initdeferred = true
			case pg.ConstrType_CONSTR_ATTR_IMMEDIATE:
				last.Initdeferred = false
			}
		case pg.ConstrType_CONSTR_FOREIGN:
			d.fks = append(d.fks, con)
			d.fkCols = append(d.fkCols, []int{pos})
		case pg.ConstrType_CONSTR_GENERATED:
			// GENERATED BY DEFAULT AS (expr) and a missing STORED are
			// the grammar's errors, which the parser reported.
			if hasGenerated {
				return planner.WithPos(pgerr.New(pgerr.SyntaxError, "multiple generation clauses specified for column %q of table %q", cd.Colname, def.Name), con.Location)
			}
			hasGenerated = true
			d.generation(pos, con)
		default:
			return planner.WithPos(pgerr.New(pgerr.FeatureNotSupported, "constraint %s is not supported yet", con.Contype), con.Location)
		}
		// As PostgreSQL, at the clause that makes the second of them.
		if hasGenerated && hasDefault {
			return planner.WithPos(pgerr.New(pgerr.SyntaxError, "both default and generation expression specified for column %q of table %q", cd.Colname, def.Name), con.Location)
		}
		if hasGenerated && hasIdentity {
			return planner.WithPos(pgerr.New(pgerr.SyntaxError, "both identity and generation expression specified for column %q of table %q", cd.Colname, def.Name), con.Location)
		}
	}
	if hasIdentity && hasDefault {
		return planner.WithPos(pgerr.New(pgerr.SyntaxError, "both default and identity specified for column %q of table %q", cd.Colname, def.Name), cd.Location)
	}
	if serialNotNull && sawNullable && !c.NotNull {
		// serial's NOT NULL comes after the column's own clauses, as in
		// PostgreSQL, which gives no position for it.
		return conflicting(-1)
	}
	return nil
}

// identity makes column pos an identity column with its own sequence.
func (d *tableDDL) identity(ctx context.Context, pos int, con *pg.Constraint) error {
	c := &d.def.Columns[pos]
	if d.partition {
		return pgerr.New(pgerr.FeatureNotSupported, "identity columns are not supported on partitions")
	}
	o, err := parseSeqOptions(con.Options, true)
	if err != nil {
		return err
	}
	if !identityType(c.Type) {
		return errIdentityType()
	}
	name, schema := "", d.def.Schema
	if o.seqName != nil {
		var s string
		s, name = planner.SplitName(planner.NameList(o.seqName.Arg.GetList().Items))
		if s != "" {
			schema = s
		}
		d.ns.rels[name] = true
	} else {
		name = d.ns.chooseRelationName(d.def.Name, c.Name, "seq", false)
	}
	// As the table: an unlogged table's identity sequence is unlogged.
	seq := &sqldef.Sequence{Schema: schema, Name: name, Type: c.Type, Owner: d.def.Owner, Unlogged: d.def.Unlogged}
	if o.as == nil {
		o.as = &pg.DefElem{Defname: "as", Arg: &pg.Node{Node: &pg.Node_TypeName{TypeName: &pg.TypeName{
			Names: []*pg.Node{pg.MakeStrNode(exec.TypeName(c.Type))}}}}}
	}
	if err := applySeqOptions(seq, o, true, true); err != nil {
		return err
	}
	seq.OwnedBy = d.def.Name + "." + c.Name
	d.seqs = append(d.seqs, seq)
	c.Identity = con.GeneratedWhen[0]
	c.Sequence = planner.SeqRef(schema, name)
	c.NotNull = true
	return nil
}

// tableConstraint records a table constraint of CREATE TABLE or ALTER
// TABLE ADD.
func (d *tableDDL) tableConstraint(con *pg.Constraint) error {
	switch con.Contype {
	case pg.ConstrType_CONSTR_PRIMARY, pg.ConstrType_CONSTR_UNIQUE:
		var cols []int
		for _, k := range con.Keys {
			name := k.GetString_().Sval
			pos := d.column(name)
			if pos < 0 && d.altering && con.Contype == pg.ConstrType_CONSTR_PRIMARY {
				// PostgreSQL's ALTER TABLE first marks a new key's
				// columns NOT NULL, which is where it finds one missing.
				return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, d.def.Name)
			}
			if pos < 0 {
				return planner.WithPos(pgerr.New(pgerr.UndefinedColumn, "column %q named in key does not exist", name), con.Location)
			}
			cols = append(cols, pos)
		}
		d.indexes = append(d.indexes, con)
		d.ixCols = append(d.ixCols, cols)
	case pg.ConstrType_CONSTR_CHECK:
		d.checks = append(d.checks, con)
	case pg.ConstrType_CONSTR_FOREIGN:
		var cols []int
		for _, k := range con.FkAttrs {
			name := k.GetString_().Sval
			pos := d.column(name)
			if pos < 0 {
				// No position: PostgreSQL looks the columns up when it
				// adds the constraint, past the statement's analysis.
				return fkColumnMissing(name)
			}
			cols = append(cols, pos)
		}
		d.fks = append(d.fks, con)
		d.fkCols = append(d.fkCols, cols)
	case pg.ConstrType_CONSTR_EXCLUSION:
		d.exclusions = append(d.exclusions, con)
	default:
		return planner.WithPos(pgerr.New(pgerr.FeatureNotSupported, "constraint %s is not supported yet", con.Contype), con.Location)
	}
	return nil
}

// finish adds the recorded clauses to the definition: generation
// expressions and CHECKs (analyzed against the columns), then the
// primary key, then unique constraints other than duplicates of earlier
// ones.
func (d *tableDDL) finish(ctx context.Context) error {
	def := d.def
	if err := d.addGenerations(); err != nil {
		return err
	}
	for _, con := range d.checks {
		if err := d.addCheck(con); err != nil {
			return err
		}
	}
	type uniq struct {
		con  *pg.Constraint
		cols []int
		name string
	}
	var pk *uniq
	var others []*uniq
	for i, con := range d.indexes {
		u := &uniq{con: con, cols: d.ixCols[i], name: con.Conname}
		if con.Contype == pg.ConstrType_CONSTR_PRIMARY {
			if pk != nil || len(def.PrimaryKey) > 0 {
				return planner.WithPos(pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", def.Name), con.Location)
			}
			pk = u
			continue
		}
		others = append(others, u)
	}
	// A unique constraint on the same columns as the primary key or an
	// earlier one is the same index.
	var kept []*uniq
	for _, u := range others {
		dup := false
		for _, prior := range append([]*uniq{pk}, kept...) {
			if prior != nil && slices.Equal(prior.cols, u.cols) && prior.con.NullsNotDistinct == u.con.NullsNotDistinct {
				if prior.name == "" {
					prior.name = u.name
				}
				dup = true
				break
			}
		}
		if !dup {
			kept = append(kept, u)
		}
	}
	if pk != nil && (pk.con.Deferrable || pk.con.Initdeferred) {
		// Rows are stored under their primary key, which cannot hold a
		// key twice even for a moment.
		return planner.WithPos(pgerr.New(pgerr.FeatureNotSupported, "deferrable primary keys are not supported"), pk.con.Location)
	}
	if pk != nil {
		name := pk.name
		if name == "" {
			name = d.ns.chooseRelationName(def.Name, "", "pkey", true)
		} else if err := d.claimIndexName(name); err != nil {
			return err
		}
		def.PrimaryKey, def.PrimaryKeyName = pk.cols, name
		for _, c := range pk.cols {
			def.Columns[c].NotNull = true
		}
		d.newPK = true
	}
	for _, u := range kept {
		ix := sqldef.Index{Name: u.name, Unique: true, Constraint: true, NullsNotDistinct: u.con.NullsNotDistinct,
			Deferrable: u.con.Deferrable || u.con.Initdeferred, InitiallyDeferred: u.con.Initdeferred}
		var names []string
		for _, c := range u.cols {
			ix.Columns = append(ix.Columns, sqldef.IndexColumn{Column: c})
			names = append(names, def.Columns[c].Name)
		}
		for _, n := range u.con.Including {
			pos := d.column(n.GetString_().Sval)
			if pos < 0 {
				return pgerr.New(pgerr.UndefinedColumn, "column %q named in key does not exist", n.GetString_().Sval)
			}
			ix.Include = append(ix.Include, pos)
		}
		if ix.Name == "" {
			ix.Name = d.ns.chooseRelationName(def.Name, indexNameAddition(names), "key", true)
		} else if err := d.claimIndexName(ix.Name); err != nil {
			return err
		}
		d.newIndexes = append(d.newIndexes, len(def.Indexes))
		def.Indexes = append(def.Indexes, ix)
	}
	if !d.laterFKs {
		if err := d.addForeignKeys(ctx); err != nil {
			return err
		}
	}
	for _, con := range d.exclusions {
		if err := d.addExclusion(con); err != nil {
			return err
		}
	}
	d.checks, d.indexes, d.ixCols, d.exclusions = nil, nil, nil, nil
	return nil
}

// addForeignKeys adds the recorded FOREIGN KEY constraints.
func (d *tableDDL) addForeignKeys(ctx context.Context) error {
	for i, con := range d.fks {
		if err := d.addForeignKey(ctx, con, d.fkCols[i]); err != nil {
			return err
		}
	}
	d.fks, d.fkCols = nil, nil
	return nil
}

// claimIndexName takes an explicit name for a constraint's index.
func (d *tableDDL) claimIndexName(name string) error {
	if d.ns.rels[name] {
		return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
	}
	d.ns.rels[name], d.ns.cons[name] = true, true
	return nil
}

// createTable runs CREATE TABLE.
func (a *analyzer) createTable(s *pg.CreateStmt) (planner.Utility, error) {
	if err := checkTableOptions(s.Options); err != nil {
		return nil, err
	}
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		elts, ofType := s.TableElts, ""
		if s.OfTypename != nil {
			var err error
			if elts, ofType, err = a.typedTableElts(ctx, s); err != nil {
				return "", err
			}
		}
		schema, skip, err := a.newRelationName(ctx, s.Relation, s.IfNotExists)
		if err != nil || skip {
			return "CREATE TABLE", err
		}
		name := s.Relation.Relname
		d, err := a.newTableDDL(ctx, &sqldef.Table{Schema: schema, Name: name, Owner: planner.NewObjectOwner(a.s)})
		if err != nil {
			return "", err
		}
		d.partition = s.Partbound != nil
		d.def.Unlogged = s.Relation.Relpersistence == "u"
		parents, err := d.inherit(ctx, s)
		if err != nil {
			return "", err
		}
		var likes []*likeClause
		local := map[string]bool{} // column definitions met, to refuse a second one
		for _, elt := range elts {
			switch {
			case elt.GetColumnDef() != nil:
				if cn := elt.GetColumnDef().Colname; local[cn] {
					return "", pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", cn)
				} else {
					local[cn] = true
				}
				if err := d.columnDef(ctx, elt.GetColumnDef(), s.Partbound != nil); err != nil {
					return "", err
				}
			case elt.GetTableLikeClause() != nil:
				l, err := d.likeColumns(ctx, elt.GetTableLikeClause())
				if err != nil {
					return "", err
				}
				if l != nil {
					likes = append(likes, l)
				}
			}
			// Table constraints come below: they may name columns
			// defined later.
		}
		for _, elt := range elts {
			if con := elt.GetConstraint(); con != nil {
				if err := d.tableConstraint(con); err != nil {
					return "", err
				}
			}
		}
		d.laterFKs = true
		if err := d.finishWithSelf(ctx); err != nil {
			return "", err
		}
		for _, l := range likes {
			if err := l.copy(ctx, d); err != nil {
				return "", err
			}
		}
		if err := d.addForeignKeys(ctx); err != nil {
			return "", err
		}
		if err := d.partitioning(ctx, s, parents); err != nil {
			return "", err
		}
		def := d.def
		for _, seq := range d.seqs {
			seq.Unlogged = def.Unlogged
		}
		if def.Partitioned() && slices.ContainsFunc(def.Checks, func(c sqldef.Check) bool { return c.NoInherit }) {
			return "", pgerr.New(pgerr.InvalidTableDefinition, "cannot add NO INHERIT constraint to partitioned table %q", def.Name)
		}
		def.OfType = ofType
		empty, err := a.tx.EmptyMap(ctx)
		if err != nil {
			return "", err
		}
		def.Rows = empty
		for i := range def.Indexes {
			def.Indexes[i].Rows = empty
		}
		if def.ACL, err = a.initialACL(ctx, def.Owner, def.Schema, sqldef.DefaultTables); err != nil {
			return "", err
		}
		if err := a.sequenceACLs(ctx, d.seqs); err != nil {
			return "", err
		}
		root := a.tx.Root()
		for _, seq := range d.seqs {
			if root, err = root.PutSequence(ctx, seq); err != nil {
				return "", err
			}
		}
		if root, err = root.PutTable(ctx, def); err != nil {
			return "", err
		}
		if root, err = SyncRefs(ctx, root, nil, def); err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
		if def.IsPartition() && !def.PartitionBound.Default {
			if err := a.checkDefaultPartition(ctx, parents[0]); err != nil {
				return "", err
			}
		}
		return "CREATE TABLE", nil
	}, nil
}

// columnDefault analyzes a DEFAULT expression for a column of type t and
// returns it as stored SQL text.
func (a *analyzer) columnDefault(n *pg.Node, t exec.T, col string) (string, error) {
	ref, sub := int32(-1), int32(-1)
	planner.VisitNodes(n, func(x *pg.Node) {
		if c := x.GetColumnRef(); c != nil && ref < 0 {
			ref = c.Location
		}
		if s := x.GetSubLink(); s != nil && sub < 0 {
			sub = s.Location
		}
	})
	if ref >= 0 {
		return "", planner.WithPos(pgerr.New(pgerr.FeatureNotSupported, "cannot use column reference in DEFAULT expression"), ref)
	}
	if sub >= 0 {
		return "", planner.WithPos(pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in DEFAULT expression"), sub)
	}
	e, _, err := a.ClauseExpr("DEFAULT expressions", n, nil)
	if err != nil {
		return "", err
	}
	if _, err := a.Assign(e, t, col, -1); err != nil {
		return "", defaultMismatch(err)
	}
	return planner.DeparseExpr(n)
}

// defaultMismatch words an assignment's type mismatch for a default or
// generation expression as PostgreSQL does; other errors pass.
func defaultMismatch(err error) error {
	pe, ok := err.(*pgerr.Error)
	if !ok || pe.Code != pgerr.DatatypeMismatch {
		return err
	}
	out := *pe
	out.Message = strings.Replace(pe.Message, " but expression is of type ", " but default expression is of type ", 1)
	return &out
}

// drop runs DROP TABLE, INDEX, SEQUENCE and SCHEMA.
func (a *analyzer) drop(s *pg.DropStmt) (planner.Utility, error) {
	var run func(context.Context, *pg.DropStmt) (string, error)
	switch s.RemoveType {
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_MATVIEW:
		run = a.dropTables
	case pg.ObjectType_OBJECT_INDEX:
		if s.Concurrent && a.s.InTransactionBlock() {
			return nil, pgerr.New(pgerr.ActiveSQLTransaction, "DROP INDEX CONCURRENTLY cannot run inside a transaction block")
		}
		switch {
		case s.Concurrent && len(s.Objects) != 1:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "DROP INDEX CONCURRENTLY does not support dropping multiple objects")
		case s.Concurrent && s.Behavior == pg.DropBehavior_DROP_CASCADE:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "DROP INDEX CONCURRENTLY does not support CASCADE")
		}
		run = a.dropIndex
	case pg.ObjectType_OBJECT_SEQUENCE:
		run = a.dropSequences
	case pg.ObjectType_OBJECT_SCHEMA:
		run = a.dropSchemas
	case pg.ObjectType_OBJECT_VIEW:
		run = a.dropViews
	case pg.ObjectType_OBJECT_TYPE, pg.ObjectType_OBJECT_DOMAIN:
		run = a.dropTypes
	case pg.ObjectType_OBJECT_FUNCTION, pg.ObjectType_OBJECT_PROCEDURE, pg.ObjectType_OBJECT_ROUTINE, pg.ObjectType_OBJECT_AGGREGATE:
		run = a.dropFunctions
	case pg.ObjectType_OBJECT_OPERATOR:
		run = a.dropOperators
	case pg.ObjectType_OBJECT_CAST:
		run = a.dropCasts
	case pg.ObjectType_OBJECT_TRIGGER:
		run = a.dropTriggers
	case pg.ObjectType_OBJECT_POLICY:
		run = a.dropPolicies
	case pg.ObjectType_OBJECT_RULE:
		run = a.dropRules
	case pg.ObjectType_OBJECT_STATISTIC_EXT:
		run = a.dropStatistics
	case pg.ObjectType_OBJECT_EXTENSION:
		run = a.dropExtensions
	case pg.ObjectType_OBJECT_TSDICTIONARY:
		run = a.dropTextSearchDicts
	case pg.ObjectType_OBJECT_TSCONFIGURATION:
		run = a.dropTextSearchConfigs
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "DROP %s is not supported yet", s.RemoveType)
	}
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		return run(ctx, s)
	}, nil
}

// dropTarget resolves a relation that DROP TABLE, INDEX, SEQUENCE or VIEW
// names, which must be of kind want. A missing one is an error, or under
// IF EXISTS (missingOK) a notice and a relation of kind relNone, for the
// caller to skip.
func (a *analyzer) dropTarget(ctx context.Context, obj *pg.Node, want planner.RelKind, missingOK bool) (rel planner.Relation, schema, name string, err error) {
	schema, name = planner.SplitName(planner.NameList(obj.GetList().Items))
	rel, schema, err = a.LookupRelation(ctx, schema, name)
	if err != nil {
		return planner.Relation{}, "", "", err
	}
	switch {
	case rel.Kind == planner.RelNone && missingOK:
		a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "%s %q does not exist, skipping", want, name))
		return planner.Relation{}, "", "", nil
	case rel.Kind == planner.RelNone:
		// PostgreSQL's codes: an index is an object, the others tables.
		code := pgerr.UndefinedTable
		if want == planner.RelIndex {
			code = pgerr.UndefinedObject
		}
		return planner.Relation{}, "", "", pgerr.New(code, "%s %q does not exist", want, name)
	case rel.Kind != want:
		return planner.Relation{}, "", "", wrongObjectType(name, rel.Kind, want)
	}
	return rel, schema, name, nil
}

// dropTables runs DROP TABLE: each table goes with its indexes and the
// sequences its columns own. The tables named are dropped as one set, as
// in PostgreSQL: a foreign key or an inheritance link between two of them
// does not hold the drop back.
func (a *analyzer) dropTables(ctx context.Context, s *pg.DropStmt) (string, error) {
	cascade := s.Behavior == pg.DropBehavior_DROP_CASCADE
	defer a.collectCascades()()
	type named struct{ schema, name string }
	var set []named
	for _, obj := range s.Objects {
		if s.RemoveType == pg.ObjectType_OBJECT_MATVIEW {
			// A missing materialized view is named as one.
			sc, name := planner.SplitName(planner.NameList(obj.GetList().Items))
			rel, _, err := a.LookupRelation(ctx, sc, name)
			if err != nil {
				return "", err
			}
			if rel.Kind == planner.RelNone {
				if !s.MissingOk {
					return "", pgerr.New(pgerr.UndefinedTable, "materialized view %q does not exist", name)
				}
				a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "materialized view %q does not exist, skipping", name))
				continue
			}
		}
		rel, relSchema, _, err := a.dropTarget(ctx, obj, planner.RelTable, s.MissingOk)
		if err != nil {
			return "", err
		}
		if rel.Kind == planner.RelNone {
			continue
		}
		switch matview := rel.Table.MatView != nil; {
		case matview && s.RemoveType == pg.ObjectType_OBJECT_TABLE:
			return "", pgerr.New(pgerr.WrongObjectType, "%q is not a table", rel.Table.Name).
				WithHint("Use DROP MATERIALIZED VIEW to remove a materialized view.")
		case !matview && s.RemoveType == pg.ObjectType_OBJECT_MATVIEW:
			return "", pgerr.New(pgerr.WrongObjectType, "%q is not a materialized view", rel.Table.Name).
				WithHint("Use DROP TABLE to remove a table.")
		}
		if err := a.requireTableOwner(rel.Table); err != nil {
			return "", err
		}
		set = append(set, named{relSchema, rel.Table.Name})
	}
	// inSet reports whether a table goes with the set: named in it, or
	// inheriting from (a partition of) a table that is.
	inSet := func(schema, name string) bool {
		for d := 0; d < 100; d++ {
			if slices.Contains(set, named{schema, name}) {
				return true
			}
			t, ok, _ := a.tx.Root().Table(ctx, schema, name)
			if !ok || len(t.Inherits) == 0 {
				return false
			}
			schema, name = t.Inherits[0].Schema, t.Inherits[0].Name
		}
		return false
	}
	if len(set) > 1 {
		// Keys between members of the set go silently; children go before
		// their parents so that dropping a parent finds no heirs left.
		for _, n := range set {
			t, ok, err := a.tx.Root().Table(ctx, n.schema, n.name)
			if err != nil || !ok {
				return "", err
			}
			refs, err := referencingOthers(ctx, a.tx.Root(), t)
			if err != nil {
				return "", err
			}
			refs = slices.DeleteFunc(refs, func(r sqldef.ForeignKeyRef) bool { return !inSet(r.Schema, r.Table) })
			if err := a.dropForeignKeys(ctx, refs); err != nil {
				return "", err
			}
		}
		depth := func(n named) int {
			d := 0
			for t, ok, _ := a.tx.Root().Table(ctx, n.schema, n.name); ok && len(t.Inherits) > 0 && d < 100; d++ {
				t, ok, _ = a.tx.Root().Table(ctx, t.Inherits[0].Schema, t.Inherits[0].Name)
			}
			return d
		}
		slices.SortStableFunc(set, func(x, y named) int { return depth(y) - depth(x) })
	}
	for _, n := range set {
		// Looked up again: an earlier member's drop may have changed or
		// removed it (a partition goes with its parent).
		t, ok, err := a.tx.Root().Table(ctx, n.schema, n.name)
		if err != nil {
			return "", err
		}
		if !ok {
			continue
		}
		if err := a.dropDescendants(ctx, t, cascade); err != nil {
			return "", err
		}
		if err := a.dependentKeys(ctx, t, "table "+t.Name, cascade, nil); err != nil {
			return "", err
		}
		if err := a.dropDependentViews(ctx, n.schema, n.name, "table "+n.name, cascade); err != nil {
			return "", err
		}
		if err := a.dropTable(ctx, n.schema, t); err != nil {
			return "", err
		}
	}
	if s.RemoveType == pg.ObjectType_OBJECT_MATVIEW {
		return "DROP MATERIALIZED VIEW", nil
	}
	return "DROP TABLE", nil
}

// dropTable removes a table and the sequences it owns.
func (a *analyzer) dropTable(ctx context.Context, schema string, t *sqldef.Table) error {
	root, err := a.tx.Root().DropTable(ctx, schema, t.Name)
	if err != nil {
		return err
	}
	if root, err = SyncRefs(ctx, root, t, nil); err != nil {
		return err
	}
	seqs, err := root.Sequences(ctx)
	if err != nil {
		return err
	}
	for _, seq := range seqs {
		if seq.Schema != schema || seq.OwnedBy == "" {
			continue
		}
		for _, c := range t.Columns {
			if !c.Dropped && seq.OwnedBy == t.Name+"."+c.Name {
				if root, err = root.DropSequence(ctx, seq.Schema, seq.Name); err != nil {
					return err
				}
				break
			}
		}
	}
	a.tx.SetRoot(root)
	return nil
}

// truncate runs TRUNCATE [TABLE] t, ... [RESTART IDENTITY]: each table's
// maps are replaced by empty ones, which is also what a new table has, so
// a truncated table equals a fresh one.
func (a *analyzer) truncate(s *pg.TruncateStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		var tables []*sqldef.Table
		for _, n := range s.Relations {
			rv := n.GetRangeVar()
			rel, _, err := a.LookupRelation(ctx, rv.Schemaname, rv.Relname)
			if err != nil {
				return "", err
			}
			switch rel.Kind {
			case planner.RelNone:
				return "", planner.WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(rv)), rv.Location)
			case planner.RelTable:
			default:
				return "", pgerr.New(pgerr.WrongObjectType, "%q is not a table", rv.Relname)
			}
			if !rv.Inh && rel.Table.Partitioned() {
				return "", pgerr.New(pgerr.WrongObjectType, "cannot truncate only a partitioned table").
					WithHint("Do not specify the ONLY keyword, or use TRUNCATE ONLY on the partitions directly.")
			}
			if err := a.RequireTable(&exec.Table{Def: rel.Table}, "D"); err != nil {
				return "", err
			}
			tables = append(tables, rel.Table)
			if rv.Inh {
				// Without ONLY, the tables that inherit from it too (a
				// partitioned table's rows are its partitions').
				kids, err := a.descendants(ctx, rel.Table)
				if err != nil {
					return "", err
				}
				for _, k := range kids {
					if planner.IsTempSchema(k.Schema) && k.Schema != a.s.TempSchema() {
						continue // another session's temporary child, as PostgreSQL skips it
					}
					if !slices.ContainsFunc(tables, func(t *sqldef.Table) bool { return t.Schema == k.Schema && t.Name == k.Name }) {
						tables = append(tables, k)
					}
				}
			}
		}
		// Tables whose foreign keys reference a truncated table must be
		// truncated too: with CASCADE they are, else it is an error.
		for i := 0; i < len(tables); i++ {
			refs, err := referencingOthers(ctx, a.tx.Root(), tables[i])
			if err != nil {
				return "", err
			}
			// A foreign key to a partitioned table references each of its
			// partitions too, as PostgreSQL clones it: truncating a
			// partition cascades to the tables referencing its ancestors.
			for p := tables[i]; p.PartitionBound != nil && len(p.Inherits) == 1; {
				parent, ok, err := a.tx.Root().Table(ctx, p.Inherits[0].Schema, p.Inherits[0].Name)
				if err != nil {
					return "", err
				}
				if !ok {
					break
				}
				up, err := referencingOthers(ctx, a.tx.Root(), parent)
				if err != nil {
					return "", err
				}
				refs = append(refs, up...)
				p = parent
			}
			for _, r := range refs {
				if slices.ContainsFunc(tables, func(t *sqldef.Table) bool { return t.Schema == r.Schema && t.Name == r.Table }) {
					continue
				}
				if s.Behavior != pg.DropBehavior_DROP_CASCADE {
					return "", pgerr.New(pgerr.FeatureNotSupported, "cannot truncate a table referenced in a foreign key constraint").
						WithDetail("Table %q references %q.", r.Table, tables[i].Name).
						WithHint("Truncate table %q at the same time, or use TRUNCATE ... CASCADE.", r.Table)
				}
				child, ok, err := a.tx.Root().Table(ctx, r.Schema, r.Table)
				if err != nil {
					return "", err
				}
				if ok {
					a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "truncate cascades to table %q", r.Table))
					tables = append(tables, child)
				}
			}
		}
		// ACCESS EXCLUSIVE, as PostgreSQL's TRUNCATE: readers of the
		// tables wait for the transaction to end.
		for _, t := range tables {
			if _, err := a.tx.LockRelation(ctx, t.Schema, t.Name, exec.AccessExclusiveLock, false); err != nil {
				return "", err
			}
		}
		empty, err := a.tx.EmptyMap(ctx)
		if err != nil {
			return "", err
		}
		root := a.tx.Root()
		for _, t := range tables {
			def := cloneTable(t)
			def.Rows, def.NextRowID = empty, 0
			for i := range def.Indexes {
				def.Indexes[i].Rows = empty
			}
			if root, err = root.PutTable(ctx, def); err != nil {
				return "", err
			}
			if !s.RestartSeqs {
				continue
			}
			seqs, err := root.OwnedSequences(ctx, def)
			if err != nil {
				return "", err
			}
			for _, seq := range seqs {
				seq.Last, seq.Called = seq.Start, false
				if root, err = root.PutSequence(ctx, seq); err != nil {
					return "", err
				}
				a.tx.ForgetSequenceAdvance(seq.Schema, seq.Name) // the commit must not undo the restart
			}
		}
		a.tx.SetRoot(root)
		return "TRUNCATE TABLE", nil
	}, nil
}

// constraintAttrName names a constraint attribute for errors.
func constraintAttrName(t pg.ConstrType) string {
	switch t {
	case pg.ConstrType_CONSTR_ATTR_DEFERRABLE:
		return "DEFERRABLE"
	case pg.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE:
		return "NOT DEFERRABLE"
	case pg.ConstrType_CONSTR_ATTR_DEFERRED:
		return "INITIALLY DEFERRED"
	}
	return "INITIALLY IMMEDIATE"
}

// addCheck names, validates and adds a CHECK constraint to the table
// being built. An unnamed constraint is called table_column_check when
// its expression reads exactly one column, table_check otherwise, as
// PostgreSQL names them.
func (d *tableDDL) addCheck(con *pg.Constraint) error {
	def := d.def
	e, cols, err := d.a.CheckExpr(def, con.RawExpr)
	if err != nil {
		return err
	}
	_ = e
	text, err := planner.DeparseExpr(con.RawExpr)
	if err != nil {
		return err
	}
	name := con.Conname
	if name == "" {
		col := ""
		if len(cols) == 1 {
			col = cols[0]
		}
		name = d.ns.chooseConstraintName(def.Name, col, "check")
	} else {
		if planner.ConstraintExists(def, name) {
			// PostgreSQL words it differently when the name is one it
			// just made up for an earlier constraint of the statement.
			if d.generated[name] {
				return pgerr.New(pgerr.DuplicateObject, "check constraint %q already exists", name)
			}
			if have := d.inheritedCheck(name); have != nil && !d.altering {
				if merged, err := d.mergeCheck(have, text, con.IsNoInherit, con.SkipValidation); merged || err != nil {
					return err
				}
			}
			return pgerr.New(pgerr.DuplicateObject, "constraint %q for relation %q already exists", name, def.Name)
		}
		d.ns.cons[name] = true
	}
	if con.Conname == "" {
		if d.generated == nil {
			d.generated = map[string]bool{}
		}
		d.generated[name] = true
	}
	// A new table has no rows to check: CREATE TABLE's NOT VALID
	// constraints are valid from the start.
	notValid := con.SkipValidation && d.altering
	def.Checks = append(def.Checks, sqldef.Check{Name: name, Expr: text, NotValid: notValid, NoInherit: con.IsNoInherit})
	return nil
}

// tableOptions are the storage parameters of a table (PostgreSQL's heap
// reloptions), which are accepted and have no effect here; toast ones
// are written toast.name.
var tableOptions = map[string]bool{
	"fillfactor": true, "toast_tuple_target": true, "parallel_workers": true,
	"autovacuum_enabled": true, "autovacuum_vacuum_threshold": true, "autovacuum_vacuum_insert_threshold": true,
	"autovacuum_analyze_threshold": true, "autovacuum_vacuum_scale_factor": true, "autovacuum_vacuum_insert_scale_factor": true,
	"autovacuum_analyze_scale_factor": true, "autovacuum_vacuum_cost_delay": true, "autovacuum_vacuum_cost_limit": true,
	"autovacuum_freeze_min_age": true, "autovacuum_freeze_max_age": true, "autovacuum_freeze_table_age": true,
	"autovacuum_multixact_freeze_min_age": true, "autovacuum_multixact_freeze_max_age": true,
	"autovacuum_multixact_freeze_table_age": true, "log_autovacuum_min_duration": true,
	"vacuum_index_cleanup": true, "vacuum_truncate": true, "user_catalog_table": true,
}

// checkTableOptions checks CREATE TABLE's WITH (...) as PostgreSQL
// does: a storage parameter it knows (names are case-sensitive, as
// written), or oids = false; WITH OIDS is no longer supported.
func checkTableOptions(opts []*pg.Node) error {
	for _, o := range opts {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		if d.Defnamespace == "" && d.Defname == "oids" {
			if boolOptionTrue(defValue(d)) {
				return pgerr.New(pgerr.FeatureNotSupported, "tables declared WITH OIDS are not supported")
			}
			continue
		}
		if d.Defnamespace != "" && d.Defnamespace != "toast" {
			return pgerr.New(pgerr.InvalidParameterValue, "unrecognized parameter namespace %q", d.Defnamespace)
		}
		if !tableOptions[d.Defname] {
			return pgerr.New(pgerr.InvalidParameterValue, "unrecognized parameter %q", d.Defname)
		}
	}
	return nil
}

// identityType reports whether an identity column (or a sequence) may be
// of type oid: the integer types.
func identityType(oid uint32) bool {
	return oid == exec.OIDInt2 || oid == exec.OIDInt4 || oid == exec.OIDInt8
}

func errIdentityType() error {
	return pgerr.New(pgerr.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
}

// notPseudoType refuses a column (of a table or a composite type) of a
// pseudo-type, as PostgreSQL's CheckAttributeType does: unknown, record,
// void, trigger, the polymorphic types.
func notPseudoType(cd *pg.ColumnDef) error {
	if len(cd.TypeName.ArrayBounds) > 0 {
		return nil
	}
	names := planner.NameList(cd.TypeName.Names)
	oid, ok := planner.PseudoTypeNamed(names)
	if !ok && (len(names) != 1 || !strings.EqualFold(names[0], "unknown")) {
		return nil
	}
	if !ok {
		oid = exec.OIDUnknown
	}
	return pgerr.New(pgerr.InvalidTableDefinition, "column %q has pseudo-type %s", cd.Colname, exec.TypeName(oid))
}
