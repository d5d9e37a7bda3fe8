package ddl

import (
	"context"
	"errors"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// inherit starts a CREATE TABLE's definition from its parents' (INHERITS,
// or PARTITION OF): their columns, merged by name, and their inheritable
// CHECK constraints. It returns the parents.
func (d *tableDDL) inherit(ctx context.Context, s *pg.CreateStmt) ([]*sqldef.Table, error) {
	var parents []*sqldef.Table
	for _, n := range s.InhRelations {
		rv := n.GetRangeVar()
		rel, schema, err := d.a.LookupRelation(ctx, rv.Schemaname, rv.Relname)
		if err != nil {
			return nil, err
		}
		switch {
		case rel.Kind == planner.RelNone:
			return nil, planner.WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(rv)), rv.Location)
		case rel.Kind != planner.RelTable:
			return nil, pgerr.New(pgerr.WrongObjectType, "inherited relation %q is not a table or foreign table", rv.Relname)
		case s.Partbound == nil && rel.Table.Partitioned():
			return nil, pgerr.New(pgerr.WrongObjectType, "cannot inherit from partitioned table %q", rv.Relname)
		case s.Partbound == nil && rel.Table.IsPartition():
			return nil, pgerr.New(pgerr.WrongObjectType, "cannot inherit from partition %q", rv.Relname)
		case s.Partbound != nil && !rel.Table.Partitioned():
			return nil, pgerr.New(pgerr.WrongObjectType, "table %q is not partitioned", rv.Relname)
		case planner.IsTempSchema(schema) && !planner.IsTempSchema(d.def.Schema):
			if s.Partbound != nil {
				return nil, pgerr.New(pgerr.WrongObjectType, "cannot create a permanent relation as partition of temporary relation %q", rv.Relname)
			}
			return nil, pgerr.New(pgerr.WrongObjectType, "cannot inherit from temporary relation %q", rv.Relname)
		case s.Partbound != nil && !planner.IsTempSchema(schema) && planner.IsTempSchema(d.def.Schema):
			return nil, pgerr.New(pgerr.WrongObjectType, "cannot create a temporary relation as partition of permanent relation %q", rv.Relname)
		}
		for _, p := range parents {
			if p.Schema == schema && p.Name == rel.Table.Name {
				return nil, pgerr.New(pgerr.DuplicateTable, "relation %q would be inherited from more than once", rv.Relname)
			}
		}
		parents = append(parents, rel.Table)
		d.def.Inherits = append(d.def.Inherits, sqldef.TableName{Schema: schema, Name: rel.Table.Name})
	}
	for _, p := range parents {
		for _, c := range p.Columns {
			if c.Dropped {
				continue
			}
			if pos := d.column(c.Name); pos >= 0 {
				have := &d.def.Columns[pos]
				if have.Type != c.Type || have.Typmod != c.Typmod {
					return nil, pgerr.New(pgerr.DatatypeMismatch, "inherited column %q has a type conflict", c.Name).
						WithDetail("%s versus %s", types.FormatType(types.Oid(have.Type), have.Typmod), types.FormatType(types.Oid(c.Type), c.Typmod))
				}
				d.a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "merging multiple inherited definitions of column %q", c.Name))
				if hs, cs := columnStorage(*have), columnStorage(c); hs != cs {
					return nil, pgerr.New(pgerr.DatatypeMismatch, "inherited column %q has a storage parameter conflict", c.Name).
						WithDetail("%s versus %s", storageName(hs), storageName(cs))
				}
				if err := mergeInheritedGeneration(have, c); err != nil {
					return nil, err
				}
				have.NotNull = have.NotNull || c.NotNull
				have.InhCount++
				continue
			}
			d.def.Columns = append(d.def.Columns, sqldef.Column{Name: c.Name, Type: c.Type, Typmod: c.Typmod,
				NotNull: c.NotNull, Default: c.Default, Generated: c.Generated, Storage: c.Storage, InhCount: 1, NotLocal: true})
		}
		for _, ck := range p.Checks {
			if ck.NoInherit {
				continue
			}
			if i := slices.IndexFunc(d.def.Checks, func(h sqldef.Check) bool { return h.Name == ck.Name }); i >= 0 {
				d.def.Checks[i].InhCount++
				continue
			}
			d.def.Checks = append(d.def.Checks, sqldef.Check{Name: ck.Name, Expr: ck.Expr, NotValid: ck.NotValid, InhCount: 1, NotLocal: true})
			d.ns.cons[ck.Name] = true
		}
	}
	return parents, nil
}

// columnDef adds a column definition of CREATE TABLE, or merges it with
// the inherited column of its name. A partition's column definitions
// (partition is set) only add constraints to inherited columns.
func (d *tableDDL) columnDef(ctx context.Context, cd *pg.ColumnDef, partition bool) error {
	pos := -1
	if len(d.def.Inherits) > 0 {
		pos = d.column(cd.Colname)
	}
	if pos < 0 {
		if partition {
			return planner.WithPos(pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", cd.Colname), cd.Location)
		}
		return d.addColumn(ctx, cd)
	}
	c := &d.def.Columns[pos]
	if cd.TypeName != nil {
		t, _, err := planner.ResolveType(cd.TypeName)
		if err != nil {
			return planner.WithPos(err.(*pgerr.Error), cd.TypeName.Location)
		}
		if t.OID != c.Type || t.Typmod != c.Typmod {
			return planner.WithPos(pgerr.New(pgerr.DatatypeMismatch, "column %q has a type conflict", cd.Colname).
				WithDetail("%s versus %s", types.FormatType(types.Oid(c.Type), c.Typmod), types.FormatType(types.Oid(t.OID), t.Typmod)), cd.Location)
		}
		d.a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "merging column %q with inherited definition", cd.Colname))
	}
	if err := inheritedColumnGeneration(c, cd, partition); err != nil {
		return err
	}
	if !partition {
		c.NotLocal = false // defined here too (a partition's columns never are)
	}
	c.NotNull = c.NotNull || cd.IsNotNull
	return d.columnConstraints(ctx, pos, cd, false)
}

// partitioning finishes the partitioning of a new table: its partition
// key (PARTITION BY), its bound in its parent (PARTITION OF) and the
// indexes it inherits from the parent as a partition.
func (d *tableDDL) partitioning(ctx context.Context, s *pg.CreateStmt, parents []*sqldef.Table) error {
	if s.Partspec != nil {
		if err := d.partitionKey(s.Partspec); err != nil {
			return err
		}
	}
	if s.Partbound == nil {
		return nil
	}
	parent := parents[0]
	b, err := d.a.partitionBound(ctx, parent, d.def.Name, s.Partbound)
	if err != nil {
		return err
	}
	if err := d.a.checkOverlap(ctx, parent, d.def.Name, b, s.Partbound); err != nil {
		return err
	}
	d.def.PartitionBound = b
	return d.inheritIndexes(parent)
}

// partitionKey records PARTITION BY's strategy and columns.
func (d *tableDDL) partitionKey(spec *pg.PartitionSpec) error {
	key := &sqldef.PartitionKey{}
	switch spec.Strategy {
	case pg.PartitionStrategy_PARTITION_STRATEGY_RANGE:
		key.Strategy = sqldef.PartitionRange
	case pg.PartitionStrategy_PARTITION_STRATEGY_LIST:
		key.Strategy = sqldef.PartitionList
	case pg.PartitionStrategy_PARTITION_STRATEGY_HASH:
		key.Strategy = sqldef.PartitionHash
	}
	if key.Strategy == sqldef.PartitionList && len(spec.PartParams) > 1 {
		return planner.WithPos(pgerr.New(pgerr.InvalidTableDefinition, "cannot use \"list\" partition strategy with more than one column"), spec.Location)
	}
	for i, n := range spec.PartParams {
		el := n.GetPartitionElem()
		if cr := el.Expr.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
			el.Name, el.Expr = cr.Fields[0].GetString_().Sval, nil // (col) is the column
		}
		if err := checkPartitionKeyGenerated(d.def, el); err != nil {
			return err
		}
		if el.Expr != nil {
			x, err := d.partitionKeyExpr(el, i)
			if err != nil {
				return err
			}
			if key.Exprs == nil {
				key.Exprs = make([]sqldef.PartitionExpr, len(spec.PartParams))
			}
			if err := keyOpclass(x.Type, key.Strategy); err != nil {
				return err
			}
			key.Exprs[i] = x
			key.Columns = append(key.Columns, -1)
			continue
		}
		pos := d.column(el.Name)
		if pos < 0 {
			return planner.WithPos(pgerr.New(pgerr.UndefinedColumn, "column %q named in partition key does not exist", el.Name), el.Location)
		}
		if err := keyOpclass(d.def.Columns[pos].Type, key.Strategy); err != nil {
			return err
		}
		key.Columns = append(key.Columns, pos)
	}
	d.def.PartitionKey = key
	return checkUniqueCoversKey(d.def)
}

// keyOpclass fails for a partition key column of type oid that has no
// default operator class for the strategy's access method (hash for
// HASH, btree otherwise): the geometric types.
func keyOpclass(oid uint32, strategy byte) error {
	if !exec.IsGeometric(oid) {
		return nil
	}
	am := "btree"
	if strategy == sqldef.PartitionHash {
		am = "hash"
	}
	return pgerr.New(pgerr.UndefinedObject, "data type %s has no default operator class for access method %q", exec.TypeName(oid), am).
		WithHint("You must specify a %s operator class or define a default %s operator class for the data type.", am, am)
}

// partitionKeyExpr analyzes an expression key column of PARTITION BY:
// its text and type.
func (d *tableDDL) partitionKeyExpr(el *pg.PartitionElem, i int) (sqldef.PartitionExpr, error) {
	sub, refs := int32(-1), false
	planner.VisitNodes(el.Expr, func(x *pg.Node) {
		if s := x.GetSubLink(); s != nil && sub < 0 {
			sub = s.Location
		}
		refs = refs || x.GetColumnRef() != nil
	})
	if sub >= 0 {
		return sqldef.PartitionExpr{}, planner.WithPos(pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in partition key expression"), sub)
	}
	e, called, err := d.a.ClauseExpr("partition key expressions", el.Expr, planner.TableScope(exec.NewTable(d.def), d.def.Name))
	if err != nil {
		return sqldef.PartitionExpr{}, err
	}
	if err := planner.ImmutableOnly(el.Expr, "partition key expression"); err != nil {
		return sqldef.PartitionExpr{}, err
	}
	for _, f := range called {
		if f.Volatility != 'i' && !inlinedImmutable(f) {
			return sqldef.PartitionExpr{}, pgerr.New(pgerr.InvalidObjectDefinition, "functions in partition key expression must be marked IMMUTABLE")
		}
	}
	if !refs {
		// PostgreSQL's test: an expression of no column is the same for
		// every row (functions are immutable by now).
		return sqldef.PartitionExpr{}, pgerr.New(pgerr.FeatureNotSupported, "cannot use constant expression as partition key")
	}
	text, err := planner.DeparseExpr(el.Expr)
	if err != nil {
		return sqldef.PartitionExpr{}, err
	}
	t := e.Type()
	if t.OID == exec.OIDUnknown {
		t = exec.TText
	}
	if t.OID == exec.OIDRecord {
		return sqldef.PartitionExpr{}, pgerr.New(pgerr.InvalidTableDefinition, "partition key column %d has pseudo-type record", i+1)
	}
	return sqldef.PartitionExpr{Expr: text, Type: t.OID, Typmod: t.Typmod}, nil
}

// checkUniqueCoversKey fails unless the primary key and unique
// constraints of a partitioned table include every key column: each
// partition enforces them only among its own rows.
func checkUniqueCoversKey(def *sqldef.Table) error {
	if def.PartitionKey == nil {
		return nil
	}
	check := func(kind, name string, cols []int) error {
		for _, k := range def.PartitionKey.Columns {
			if k < 0 {
				return pgerr.New(pgerr.FeatureNotSupported, "unsupported %s constraint with partition key definition", kind).
					WithDetail("%s constraints cannot be used when partition keys include expressions.", kind)
			}
			if !slices.Contains(cols, k) {
				return pgerr.New(pgerr.FeatureNotSupported, "unique constraint on partitioned table must include all partitioning columns").
					WithDetail("%s constraint on table %q lacks column %q which is part of the partition key.", kind, def.Name, def.Columns[k].Name)
			}
		}
		return nil
	}
	if len(def.PrimaryKey) > 0 {
		if err := check("PRIMARY KEY", def.PrimaryKeyName, def.PrimaryKey); err != nil {
			return err
		}
	}
	for _, ix := range def.Indexes {
		if !ix.Unique {
			continue
		}
		var cols []int
		for _, c := range ix.Columns {
			cols = append(cols, c.Column)
		}
		if err := check("UNIQUE", ix.Name, cols); err != nil {
			return err
		}
	}
	return nil
}

// inheritIndexes gives a new partition the primary key and indexes of its
// partitioned parent, named as PostgreSQL names them.
func (d *tableDDL) inheritIndexes(parent *sqldef.Table) error {
	def := d.def
	if len(parent.PrimaryKey) > 0 && len(def.PrimaryKey) == 0 {
		partitionPrimaryKey(parent, def, d.ns)
	}
	for _, pix := range parent.Indexes {
		d.newIndexes = append(d.newIndexes, len(def.Indexes))
		def.Indexes = append(def.Indexes, partitionIndex(parent, def, pix, d.ns))
	}
	for _, fk := range parent.ForeignKeys {
		def.ForeignKeys = append(def.ForeignKeys, partitionForeignKey(parent, def, fk))
	}
	return nil
}

// partitionForeignKey returns partition def's copy of foreign key fk of
// its parent: a partition's rows are its parent's, and must reference
// what the parent's do.
func partitionForeignKey(parent, def *sqldef.Table, fk sqldef.ForeignKey) sqldef.ForeignKey {
	out := fk
	out.Columns = make([]int, len(fk.Columns))
	for i, c := range fk.Columns {
		out.Columns[i] = planner.ColumnIndex(def, parent.Columns[c].Name)
	}
	out.RefColumns = slices.Clone(fk.RefColumns)
	out.Comment, out.Inherited = "", true
	return out
}

// cascadeForeignKeys gives the partitions of parent, and theirs, the
// foreign keys of parent they lack, validating their rows.
func (a *analyzer) cascadeForeignKeys(ctx context.Context, parent *sqldef.Table) error {
	parts, err := a.Partitions(ctx, parent)
	if err != nil {
		return err
	}
	for _, p := range parts {
		def := cloneTable(p)
		var added []sqldef.ForeignKey
		for _, fk := range parent.ForeignKeys {
			if !slices.ContainsFunc(def.ForeignKeys, func(have sqldef.ForeignKey) bool { return have.Name == fk.Name }) {
				added = append(added, partitionForeignKey(parent, def, fk))
			}
		}
		if len(added) == 0 {
			continue
		}
		def.ForeignKeys = append(def.ForeignKeys, added...)
		if err := a.putTable(ctx, def); err != nil {
			return err
		}
		for _, fk := range added {
			if !fk.NotValid && !def.Partitioned() {
				if err := a.validateForeignKey(ctx, def, fk); err != nil {
					return err
				}
			}
		}
		if def.Partitioned() {
			if err := a.cascadeForeignKeys(ctx, def); err != nil {
				return err
			}
		}
	}
	return nil
}

// partitionPrimaryKey gives partition def the primary key of its parent.
func partitionPrimaryKey(parent, def *sqldef.Table, ns *nameSet) {
	def.PrimaryKey = nil
	for _, c := range parent.PrimaryKey {
		pos := planner.ColumnIndex(def, parent.Columns[c].Name)
		def.PrimaryKey = append(def.PrimaryKey, pos)
		def.Columns[pos].NotNull = true
	}
	def.PrimaryKeyName = ns.chooseRelationName(def.Name, "", "pkey", true)
}

// partitionIndex returns the index of partition def that stands for index
// pix of its parent: the same key, by column name, named as PostgreSQL
// names a partition's index.
func partitionIndex(parent, def *sqldef.Table, pix sqldef.Index, ns *nameSet) sqldef.Index {
	ix, names := remapIndex(parent, def, pix)
	suffix := "idx"
	if ix.Constraint {
		suffix = "key"
	}
	ix.Name = ns.chooseRelationName(def.Name, indexNameAddition(names), suffix, ix.Constraint)
	return ix
}

// remapIndex returns a copy of index pix of table parent for table def,
// which has parent's columns by name, without name, comments or rows,
// and the names of its key columns ("expr" for an expression).
func remapIndex(parent, def *sqldef.Table, pix sqldef.Index) (sqldef.Index, []string) {
	remap := func(pos int) int { return planner.ColumnIndex(def, parent.Columns[pos].Name) }
	ix := pix
	ix.Columns = slices.Clone(pix.Columns)
	ix.Include = nil
	var names []string
	for i, c := range ix.Columns {
		if c.Column >= 0 {
			ix.Columns[i].Column = remap(c.Column)
			names = append(names, def.Columns[ix.Columns[i].Column].Name)
		} else {
			names = append(names, "expr")
		}
	}
	for _, c := range pix.Include {
		ix.Include = append(ix.Include, remap(c))
	}
	ix.Name, ix.Comment, ix.ConstraintComment = "", "", ""
	ix.Rows = versioning.Address{}
	return ix, names
}

// addPartitionIndexes gives def, a partition of parent with rows, the
// parent's primary key and the indexes it lacks, built from its rows; an
// equivalent index it has already stands for the parent's.
func (a *analyzer) addPartitionIndexes(ctx context.Context, parent, def *sqldef.Table) error {
	ns, err := takenNames(ctx, a.tx.Root(), def.Schema)
	if err != nil {
		return err
	}
	newPK := false
	if len(parent.PrimaryKey) > 0 && len(def.PrimaryKey) == 0 {
		partitionPrimaryKey(parent, def, ns)
		newPK = true
	}
	var built []int
	for _, pix := range parent.Indexes {
		if slices.ContainsFunc(def.Indexes, func(ix sqldef.Index) bool { return sqldef.SameIndex(parent, def, pix, ix) }) {
			continue
		}
		built = append(built, len(def.Indexes))
		def.Indexes = append(def.Indexes, partitionIndex(parent, def, pix, ns))
	}
	t, ok, err := a.tx.Table(ctx, def.Schema, def.Name)
	if err != nil || !ok {
		return err
	}
	if def.Partitioned() {
		return nil // no rows; its partitions get the indexes (cascadeIndexes)
	}
	if newPK {
		_, err := a.tx.Rewrite(ctx, t, def, nil)
		return err
	}
	return a.buildNewIndexes(ctx, def, built)
}

// cascadeIndexes gives the partitions of parent, and theirs, the indexes
// of parent they lack: CREATE INDEX and ADD PRIMARY KEY or UNIQUE on a
// partitioned table index its partitions.
func (a *analyzer) cascadeIndexes(ctx context.Context, parent *sqldef.Table) error {
	parts, err := a.Partitions(ctx, parent)
	if err != nil {
		return err
	}
	for _, p := range parts {
		def := cloneTable(p)
		if err := a.addPartitionIndexes(ctx, parent, def); err != nil {
			return err
		}
		if err := a.putTable(ctx, def); err != nil {
			return err
		}
		if def.Partitioned() {
			if err := a.cascadeIndexes(ctx, def); err != nil {
				return err
			}
		}
	}
	return nil
}

// partitionBound analyzes FOR VALUES of a partition of parent.
func (a *analyzer) partitionBound(ctx context.Context, parent *sqldef.Table, name string, spec *pg.PartitionBoundSpec) (*sqldef.PartitionBound, error) {
	if spec.IsDefault {
		if parent.PartitionKey.Strategy == sqldef.PartitionHash {
			return nil, pgerr.New(pgerr.InvalidTableDefinition, "a hash-partitioned table may not have a default partition")
		}
		return &sqldef.PartitionBound{Default: true}, nil
	}
	key := parent.PartitionKey
	strategy := map[string]byte{"r": sqldef.PartitionRange, "l": sqldef.PartitionList, "h": sqldef.PartitionHash}[spec.Strategy]
	if strategy != key.Strategy {
		what := map[byte]string{sqldef.PartitionRange: "range", sqldef.PartitionList: "list", sqldef.PartitionHash: "hash"}[key.Strategy]
		return nil, planner.WithPos(pgerr.New(pgerr.InvalidTableDefinition, "invalid bound specification for a %s partition", what), spec.Location)
	}
	ktypes := planner.KeyTypes(parent)
	b := &sqldef.PartitionBound{}
	switch strategy {
	case sqldef.PartitionHash:
		if spec.Modulus <= 0 {
			return nil, pgerr.New(pgerr.InvalidTableDefinition, "modulus for hash partition must be an integer value greater than zero")
		}
		if spec.Remainder < 0 {
			return nil, pgerr.New(pgerr.InvalidTableDefinition, "remainder for hash partition must be an integer value greater than or equal to zero")
		}
		if spec.Remainder >= spec.Modulus {
			return nil, pgerr.New(pgerr.InvalidTableDefinition, "remainder for hash partition must be less than modulus")
		}
		b.Modulus, b.Remainder = int(spec.Modulus), int(spec.Remainder)
	case sqldef.PartitionList:
		for _, n := range spec.Listdatums {
			v, err := a.boundValue(ctx, n, ktypes[0], planner.KeyColumnName(parent, 0), false)
			if err != nil {
				return nil, err
			}
			if !slices.Contains(b.In, v) {
				b.In = append(b.In, v)
			}
		}
	case sqldef.PartitionRange:
		for _, side := range []struct {
			nodes []*pg.Node
			out   *[]sqldef.BoundValue
			name  string
		}{{spec.Lowerdatums, &b.From, "FROM"}, {spec.Upperdatums, &b.To, "TO"}} {
			if len(side.nodes) != len(key.Columns) {
				return nil, planner.WithPos(pgerr.New(pgerr.InvalidTableDefinition, "%s must specify exactly one value per partitioning column", side.name), spec.Location)
			}
			for i, n := range side.nodes {
				v, err := a.boundValue(ctx, n, ktypes[i], planner.KeyColumnName(parent, i), true)
				if err != nil {
					return nil, err
				}
				*side.out = append(*side.out, v)
			}
		}
		from, err := exec.DecodeBound(&sqldef.PartitionBound{From: b.From, To: b.To}, ktypes)
		if err != nil {
			return nil, err
		}
		if planner.CompareBounds(from.From, from.To) >= 0 {
			return nil, planner.WithPos(pgerr.New(pgerr.InvalidObjectDefinition, "empty range bound specified for partition %q", name).
				WithDetail("Specified lower bound %s is greater than or equal to specified upper bound %s.", catalog.BoundText(b.From, ktypes), catalog.BoundText(b.To, ktypes)), spec.Location)
		}
	}
	return b, nil
}

// boundValue analyzes one value of FOR VALUES for a key column of type t:
// MINVALUE and MAXVALUE where range is set, NULL, or a constant
// expression, stored in its text form.
func (a *analyzer) boundValue(ctx context.Context, n *pg.Node, t exec.T, col string, isRange bool) (sqldef.BoundValue, error) {
	if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
		switch name := cr.Fields[0].GetString_().Sval; {
		case isRange && name == "minvalue":
			return sqldef.BoundValue{Kind: sqldef.BoundMinValue}, nil
		case isRange && name == "maxvalue":
			return sqldef.BoundValue{Kind: sqldef.BoundMaxValue}, nil
		}
		return sqldef.BoundValue{}, planner.WithPos(pgerr.New(pgerr.InvalidColumnReference, "cannot use column reference in partition bound expression"), cr.Location)
	}
	e, err := a.Expr(n, nil)
	if err != nil {
		return sqldef.BoundValue{}, err
	}
	if e, err = a.Assign(e, t, col, planner.ExprLocation(n)); err != nil {
		return sqldef.BoundValue{}, err
	}
	d, err := e.Eval(a.env(ctx), nil)
	if err != nil {
		return sqldef.BoundValue{}, err
	}
	if d.IsNull() {
		if isRange {
			return sqldef.BoundValue{}, pgerr.New(pgerr.InvalidTableDefinition, "cannot specify NULL in range bound")
		}
		return sqldef.BoundValue{Kind: sqldef.BoundNull}, nil
	}
	return sqldef.BoundValue{Text: string(exec.AppendText(nil, t, d, nil))}, nil
}

// checkOverlap fails if bound b of a new partition name of parent
// overlaps the bound of one of its partitions. spec, the bound as
// written, gives the error its position, as PostgreSQL's: the DEFAULT
// keyword, the list value that is taken, a range's lower bound.
func (a *analyzer) checkOverlap(ctx context.Context, parent *sqldef.Table, name string, b *sqldef.PartitionBound, spec *pg.PartitionBoundSpec) error {
	siblings, err := a.Partitions(ctx, parent)
	if err != nil {
		return err
	}
	ktypes := planner.KeyTypes(parent)
	nb, err := exec.DecodeBound(b, ktypes)
	if err != nil {
		return err
	}
	bounds := make([]exec.PartBound, len(siblings))
	for i, s := range siblings {
		if s.Name == name {
			continue
		}
		if b.Default && s.PartitionBound.Default {
			return boundError(pgerr.New(pgerr.InvalidObjectDefinition, "partition %q conflicts with existing default partition %q", name, s.Name), spec.Location)
		}
		if bounds[i], err = exec.DecodeBound(s.PartitionBound, ktypes); err != nil {
			return err
		}
	}
	// Report the partition PostgreSQL does: for a list, the holder of
	// the first value that is taken; for a range, the lowest overlapping.
	strategy := parent.PartitionKey.Strategy
	if strategy == sqldef.PartitionHash && !b.Default {
		if err := checkModulus(siblings, bounds, name, nb); err != nil {
			return err
		}
	}
	probes := []exec.PartBound{nb}
	if strategy == sqldef.PartitionList {
		probes = nil
		for _, d := range nb.In {
			probes = append(probes, exec.PartBound{In: []exec.Datum{d}})
		}
		if nb.InNull {
			probes = append(probes, exec.PartBound{InNull: true})
		}
	}
	order := planner.BoundOrder(strategy, bounds)
	for k, probe := range probes {
		for _, i := range order {
			if siblings[i].Name != name && boundsOverlap(strategy, &probe, &bounds[i]) {
				loc := spec.Location
				switch {
				case strategy == sqldef.PartitionList && len(probes) == len(spec.Listdatums):
					loc = planner.ExprLocation(spec.Listdatums[k])
				case strategy == sqldef.PartitionRange && len(spec.Lowerdatums) > 0:
					loc = planner.ExprLocation(spec.Lowerdatums[0])
				}
				return boundError(pgerr.New(pgerr.InvalidObjectDefinition, "partition %q would overlap partition %q", name, siblings[i].Name), loc)
			}
		}
	}
	return nil
}

// errKeepsPosition marks the errors whose position ALTER TABLE reports
// (boundError, withoutPositions).
var errKeepsPosition = errors.New("reported with its position in ALTER TABLE too")

// boundError gives an error about a partition bound the position loc.
// PostgreSQL analyzes a bound with the statement's text at hand, in
// ALTER TABLE ... ATTACH PARTITION as in CREATE TABLE, so its errors have
// a position where ALTER TABLE's others have none.
func boundError(e *pgerr.Error, loc int32) *pgerr.Error {
	e.Err = errKeepsPosition
	return planner.WithPos(e, loc)
}

// withoutPositions drops the position of the errors of an ALTER TABLE or
// a rename, analysis and run: PostgreSQL runs them without the
// statement's text, so that their errors (a column named in a key that
// does not exist, a relation that does not) have none, unlike the same
// errors of CREATE TABLE. Errors about a partition bound keep theirs.
func withoutPositions(run planner.Utility, err error) (planner.Utility, error) {
	strip := func(err error) error {
		var pe *pgerr.Error
		if errors.As(err, &pe) && !errors.Is(pe, errKeepsPosition) {
			pe.Position = 0
		}
		return err
	}
	if err != nil || run == nil {
		return run, strip(err)
	}
	return func(ctx context.Context) (string, error) {
		tag, err := run(ctx)
		return tag, strip(err)
	}, nil
}

// checkModulus fails unless the modulus of a new hash partition name
// (bound nb) and its siblings' each divide the next larger one, as
// PostgreSQL requires so that every key has one partition. The siblings
// are compared in the order of (modulus, remainder), as PostgreSQL does.
func checkModulus(siblings []*sqldef.Table, bounds []exec.PartBound, name string, nb exec.PartBound) error {
	order := planner.BoundOrder(sqldef.PartitionHash, bounds)
	order = slices.DeleteFunc(order, func(i int) bool { return siblings[i].Name == name || bounds[i].Default })
	if len(order) == 0 {
		return nil
	}
	// prev is the last sibling at or below the new bound, -1 if none.
	prev := -1
	for k, i := range order {
		if b := bounds[i]; b.Modulus < nb.Modulus || b.Modulus == nb.Modulus && b.Remainder <= nb.Remainder {
			prev = k
		}
	}
	fail := func(format string, args ...any) error {
		return pgerr.New(pgerr.InvalidObjectDefinition, "every hash partition modulus must be a factor of the next larger modulus").
			WithDetail(format, args...)
	}
	if prev >= 0 {
		i := order[prev]
		if nb.Modulus%bounds[i].Modulus != 0 {
			return fail("The new modulus %d is not divisible by %d, the modulus of existing partition %q.", nb.Modulus, bounds[i].Modulus, siblings[i].Name)
		}
	}
	if prev+1 < len(order) {
		i := order[prev+1]
		if bounds[i].Modulus%nb.Modulus != 0 {
			return fail("The new modulus %d is not a factor of %d, the modulus of existing partition %q.", nb.Modulus, bounds[i].Modulus, siblings[i].Name)
		}
	}
	return nil
}

// boundsOverlap reports whether two partitions' bounds share a key.
func boundsOverlap(strategy byte, x, y *exec.PartBound) bool {
	if x.Default || y.Default {
		return false
	}
	switch strategy {
	case sqldef.PartitionList:
		if x.InNull && y.InNull {
			return true
		}
		for _, d := range x.In {
			for _, e := range y.In {
				if exec.Compare(d, e) == 0 {
					return true
				}
			}
		}
		return false
	case sqldef.PartitionHash:
		m := min(x.Modulus, y.Modulus)
		return x.Remainder%m == y.Remainder%m
	}
	return planner.CompareBounds(x.From, y.To) < 0 && planner.CompareBounds(y.From, x.To) < 0
}

// descendants returns the tables that inherit from t, directly or not,
// children before their own children.
func (a *analyzer) descendants(ctx context.Context, t *sqldef.Table) ([]*sqldef.Table, error) {
	var out []*sqldef.Table
	queue := []*sqldef.Table{t}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		names, err := a.tx.Root().Children(ctx, cur.Schema, cur.Name)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			c, ok, err := a.tx.Root().Table(ctx, n.Schema, n.Name)
			if err != nil {
				return nil, err
			}
			if ok && !slices.ContainsFunc(out, func(o *sqldef.Table) bool { return o.Schema == c.Schema && o.Name == c.Name }) {
				out = append(out, c)
				queue = append(queue, c)
			}
		}
	}
	return out, nil
}

// dropDescendants drops, with DROP TABLE t, the tables that inherit from
// it: a partitioned table's partitions always, other children only with
// CASCADE (else it fails with 2BP01, as in PostgreSQL).
func (a *analyzer) dropDescendants(ctx context.Context, t *sqldef.Table, cascade bool) error {
	desc, err := a.descendants(ctx, t)
	if err != nil || len(desc) == 0 {
		return err
	}
	if !t.Partitioned() {
		var detail []string
		for _, d := range desc {
			detail = append(detail, "table "+d.Name+" depends on table "+d.Inherits[0].Name)
		}
		if !cascade {
			return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop table %s because other objects depend on it", t.Name).
				WithDetail("%s", strings.Join(detail, "\n")).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		if len(desc) == 1 {
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to table %s", desc[0].Name))
		} else {
			var b []string
			for _, d := range desc {
				b = append(b, "drop cascades to table "+d.Name)
			}
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to %d other objects", len(desc)).WithDetail("%s", strings.Join(b, "\n")))
		}
	}
	for i := len(desc) - 1; i >= 0; i-- {
		d := desc[i]
		if err := a.dependentKeys(ctx, d, "table "+d.Name, cascade, nil); err != nil {
			return err
		}
		if err := a.dropDependentViews(ctx, d.Schema, d.Name, "table "+d.Name, cascade); err != nil {
			return err
		}
		if err := a.dropTable(ctx, d.Schema, d); err != nil {
			return err
		}
	}
	return nil
}

// renameParent makes child, which inherits from parent, name the parent
// by its new name.
func renameParent(ctx context.Context, root versioning.RootValue, child, parent, to sqldef.TableName) (versioning.RootValue, error) {
	t, ok, err := root.Table(ctx, child.Schema, child.Name)
	if err != nil || !ok {
		return root, err
	}
	nt := cloneTable(t)
	nt.Inherits = slices.Clone(nt.Inherits)
	for i, p := range nt.Inherits {
		if p == parent {
			nt.Inherits[i] = to
		}
	}
	if root, err = root.PutTable(ctx, nt); err != nil {
		return root, err
	}
	return SyncRefs(ctx, root, t, nt)
}

// mergeCheck merges a CHECK constraint defined in CREATE TABLE (or
// copied by LIKE) with the inherited one of its name, have, as
// PostgreSQL's MergeWithExistingConstraint does: the two must be the
// same expression, the merged constraint becomes local too (a
// partition's stays inherited only), and NOTICE says so. It reports
// whether have is an inherited constraint it merged into; false leaves
// the caller to refuse the duplicate name.
func (d *tableDDL) mergeCheck(have *sqldef.Check, expr string, noInherit, notValid bool) (bool, error) {
	if have.InhCount == 0 || !have.NotLocal || have.Expr != expr {
		return false, nil
	}
	if noInherit {
		return false, pgerr.New(pgerr.InvalidObjectDefinition, "constraint %q conflicts with inherited constraint on relation %q", have.Name, d.def.Name)
	}
	if !notValid && have.NotValid {
		return false, pgerr.New(pgerr.InvalidObjectDefinition, "constraint %q conflicts with NOT VALID constraint on relation %q", have.Name, d.def.Name)
	}
	d.a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "merging constraint %q with inherited definition", have.Name))
	if d.def.IsPartition() || d.partition {
		have.InhCount = 1
		return true, nil
	}
	have.NotLocal = false
	return true, nil
}

// inheritedCheck returns the inherited CHECK constraint of the table
// being built called name, or nil.
func (d *tableDDL) inheritedCheck(name string) *sqldef.Check {
	for i := range d.def.Checks {
		if c := &d.def.Checks[i]; c.Name == name && c.InhCount > 0 {
			return c
		}
	}
	return nil
}

// columnStorage is a column's attstorage: as set, or its type's.
func columnStorage(c sqldef.Column) byte {
	if c.Storage != 0 {
		return c.Storage
	}
	if st := typeStorage(c.Type); st != 0 {
		return st
	}
	return 'x'
}

// storageName names an attstorage as PostgreSQL's messages do.
func storageName(st byte) string {
	switch st {
	case 'p':
		return "PLAIN"
	case 'e':
		return "EXTERNAL"
	case 'm':
		return "MAIN"
	}
	return "EXTENDED"
}
