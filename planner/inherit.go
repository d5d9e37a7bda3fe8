package planner

import (
	"context"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/versioning"
)

// Inheritance and partitioning. A child table lists its parents in
// versioning.Table.Inherits; the root value keeps, derived from those, a
// record per (parent, child) pair (syncInheritance), so that a scan of a
// table finds its children with one seek. A statement on a table with
// children reads them through an exec.Append, each child's rows mapped to
// the parent's columns; writes go to the table each row belongs to
// (exec.Modify.Members), a partitioned table's new rows routed by their
// key (exec.Router).

// parentsOf returns the parents a table record names.
func parentsOf(t *versioning.Table) []versioning.TableName {
	if t == nil {
		return nil
	}
	return t.Inherits
}

// syncInheritance updates root's inheritance records for a table record
// replaced from old to new (either may be nil: created, dropped).
func syncInheritance(ctx context.Context, root versioning.RootValue, old, new *versioning.Table) (versioning.RootValue, error) {
	var before, after []versioning.TableName
	var oldName, newName versioning.TableName
	if old != nil {
		before, oldName = parentsOf(old), versioning.TableName{Schema: old.Schema, Name: old.Name}
	}
	if new != nil {
		after, newName = parentsOf(new), versioning.TableName{Schema: new.Schema, Name: new.Name}
	}
	var err error
	for _, p := range before {
		if oldName != newName || !slices.Contains(after, p) {
			if root, err = root.DropInheritance(ctx, p, oldName); err != nil {
				return root, err
			}
		}
	}
	for _, p := range after {
		if oldName != newName || !slices.Contains(before, p) {
			if root, err = root.PutInheritance(ctx, p, newName); err != nil {
				return root, err
			}
		}
	}
	return root, nil
}

// inherit starts a CREATE TABLE's definition from its parents' (INHERITS,
// or PARTITION OF): their columns, merged by name, and their inheritable
// CHECK constraints. It returns the parents.
func (d *tableDDL) inherit(ctx context.Context, s *pg.CreateStmt) ([]*versioning.Table, error) {
	var parents []*versioning.Table
	for _, n := range s.InhRelations {
		rv := n.GetRangeVar()
		rel, schema, err := d.a.lookupRelation(ctx, rv.Schemaname, rv.Relname)
		if err != nil {
			return nil, err
		}
		switch {
		case rel.Kind == RelNone:
			return nil, withPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", qualified(rv)), rv.Location)
		case rel.Kind != relTable:
			return nil, pgerr.New(pgerr.WrongObjectType, "inherited relation %q is not a table or foreign table", rv.Relname)
		case s.Partbound == nil && rel.table.Partitioned():
			return nil, pgerr.New(pgerr.WrongObjectType, "cannot inherit from partitioned table %q", rv.Relname)
		case s.Partbound == nil && rel.table.IsPartition():
			return nil, pgerr.New(pgerr.WrongObjectType, "cannot inherit from partition %q", rv.Relname)
		case s.Partbound != nil && !rel.table.Partitioned():
			return nil, pgerr.New(pgerr.WrongObjectType, "table %q is not partitioned", rv.Relname)
		case isTempSchema(schema) && !isTempSchema(d.def.Schema):
			return nil, pgerr.New(pgerr.WrongObjectType, "cannot inherit from temporary relation %q", rv.Relname)
		}
		for _, p := range parents {
			if p.Schema == schema && p.Name == rel.table.Name {
				return nil, pgerr.New(pgerr.DuplicateTable, "relation %q would be inherited from more than once", rv.Relname)
			}
		}
		parents = append(parents, rel.table)
		d.def.Inherits = append(d.def.Inherits, versioning.TableName{Schema: schema, Name: rel.table.Name})
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
				if err := mergeInheritedGeneration(have, c); err != nil {
					return nil, err
				}
				have.NotNull = have.NotNull || c.NotNull
				have.InhCount++
				continue
			}
			d.def.Columns = append(d.def.Columns, versioning.Column{Name: c.Name, Type: c.Type, Typmod: c.Typmod,
				NotNull: c.NotNull, Default: c.Default, Generated: c.Generated, InhCount: 1, NotLocal: true})
		}
		for _, ck := range p.Checks {
			if ck.NoInherit {
				continue
			}
			if i := slices.IndexFunc(d.def.Checks, func(h versioning.Check) bool { return h.Name == ck.Name }); i >= 0 {
				d.def.Checks[i].InhCount++
				continue
			}
			d.def.Checks = append(d.def.Checks, versioning.Check{Name: ck.Name, Expr: ck.Expr, NotValid: ck.NotValid, InhCount: 1, NotLocal: true})
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
			return withPos(pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", cd.Colname), cd.Location)
		}
		return d.addColumn(ctx, cd)
	}
	c := &d.def.Columns[pos]
	if cd.TypeName != nil {
		t, _, err := ResolveType(cd.TypeName)
		if err != nil {
			return withPos(err.(*pgerr.Error), cd.TypeName.Location)
		}
		if t.OID != c.Type || t.Typmod != c.Typmod {
			return withPos(pgerr.New(pgerr.DatatypeMismatch, "column %q has a type conflict", cd.Colname).
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
func (d *tableDDL) partitioning(ctx context.Context, s *pg.CreateStmt, parents []*versioning.Table) error {
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
	if err := d.a.checkOverlap(ctx, parent, d.def.Name, b); err != nil {
		return err
	}
	d.def.PartitionBound = b
	return d.inheritIndexes(parent)
}

// partitionKey records PARTITION BY's strategy and columns.
func (d *tableDDL) partitionKey(spec *pg.PartitionSpec) error {
	key := &versioning.PartitionKey{}
	switch spec.Strategy {
	case pg.PartitionStrategy_PARTITION_STRATEGY_RANGE:
		key.Strategy = versioning.PartitionRange
	case pg.PartitionStrategy_PARTITION_STRATEGY_LIST:
		key.Strategy = versioning.PartitionList
	case pg.PartitionStrategy_PARTITION_STRATEGY_HASH:
		key.Strategy = versioning.PartitionHash
	}
	if key.Strategy == versioning.PartitionList && len(spec.PartParams) > 1 {
		return withPos(pgerr.New(pgerr.InvalidTableDefinition, "cannot use \"list\" partition strategy with more than one column"), spec.Location)
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
			x, err := d.partitionKeyExpr(el)
			if err != nil {
				return err
			}
			if key.Exprs == nil {
				key.Exprs = make([]versioning.PartitionExpr, len(spec.PartParams))
			}
			key.Exprs[i] = x
			key.Columns = append(key.Columns, -1)
			continue
		}
		pos := d.column(el.Name)
		if pos < 0 {
			return withPos(pgerr.New(pgerr.UndefinedColumn, "column %q named in partition key does not exist", el.Name), el.Location)
		}
		key.Columns = append(key.Columns, pos)
	}
	d.def.PartitionKey = key
	return checkUniqueCoversKey(d.def)
}

// partitionKeyExpr analyzes an expression key column of PARTITION BY:
// its text and type.
func (d *tableDDL) partitionKeyExpr(el *pg.PartitionElem) (versioning.PartitionExpr, error) {
	if err := immutableOnly(el.Expr, "partition key expression"); err != nil {
		return versioning.PartitionExpr{}, err
	}
	e, err := d.a.expr(el.Expr, tableScope(exec.NewTable(d.def), d.def.Name))
	if err != nil {
		return versioning.PartitionExpr{}, err
	}
	text, err := deparseExpr(el.Expr)
	if err != nil {
		return versioning.PartitionExpr{}, err
	}
	t := e.Type()
	if t.OID == exec.OIDUnknown {
		t = exec.TText
	}
	return versioning.PartitionExpr{Expr: text, Type: t.OID, Typmod: t.Typmod}, nil
}

// checkUniqueCoversKey fails unless the primary key and unique
// constraints of a partitioned table include every key column: each
// partition enforces them only among its own rows.
func checkUniqueCoversKey(def *versioning.Table) error {
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
func (d *tableDDL) inheritIndexes(parent *versioning.Table) error {
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
func partitionForeignKey(parent, def *versioning.Table, fk versioning.ForeignKey) versioning.ForeignKey {
	out := fk
	out.Columns = make([]int, len(fk.Columns))
	for i, c := range fk.Columns {
		out.Columns[i] = columnIndex(def, parent.Columns[c].Name)
	}
	out.RefColumns = slices.Clone(fk.RefColumns)
	out.Comment, out.Inherited = "", true
	return out
}

// cascadeForeignKeys gives the partitions of parent, and theirs, the
// foreign keys of parent they lack, validating their rows.
func (a *analyzer) cascadeForeignKeys(ctx context.Context, parent *versioning.Table) error {
	parts, err := a.partitions(ctx, parent)
	if err != nil {
		return err
	}
	for _, p := range parts {
		def := cloneTable(p)
		var added []versioning.ForeignKey
		for _, fk := range parent.ForeignKeys {
			if !slices.ContainsFunc(def.ForeignKeys, func(have versioning.ForeignKey) bool { return have.Name == fk.Name }) {
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
func partitionPrimaryKey(parent, def *versioning.Table, ns *nameSet) {
	def.PrimaryKey = nil
	for _, c := range parent.PrimaryKey {
		pos := columnIndex(def, parent.Columns[c].Name)
		def.PrimaryKey = append(def.PrimaryKey, pos)
		def.Columns[pos].NotNull = true
	}
	def.PrimaryKeyName = ns.chooseRelationName(def.Name, "", "pkey", true)
}

// partitionIndex returns the index of partition def that stands for index
// pix of its parent: the same key, by column name, named as PostgreSQL
// names a partition's index.
func partitionIndex(parent, def *versioning.Table, pix versioning.Index, ns *nameSet) versioning.Index {
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
func remapIndex(parent, def *versioning.Table, pix versioning.Index) (versioning.Index, []string) {
	remap := func(pos int) int { return columnIndex(def, parent.Columns[pos].Name) }
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
func (a *analyzer) addPartitionIndexes(ctx context.Context, parent, def *versioning.Table) error {
	ns, err := takenNames(ctx, a.tx.Root, def.Schema)
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
		if slices.ContainsFunc(def.Indexes, func(ix versioning.Index) bool { return versioning.SameIndex(parent, def, pix, ix) }) {
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
func (a *analyzer) cascadeIndexes(ctx context.Context, parent *versioning.Table) error {
	parts, err := a.partitions(ctx, parent)
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

// keyTypes returns the types of a partitioned table's key columns.
func keyTypes(t *versioning.Table) []exec.T {
	out := make([]exec.T, len(t.PartitionKey.Columns))
	for i := range out {
		oid, typmod := t.KeyType(i)
		out[i] = exec.T{OID: oid, Typmod: typmod}
	}
	return out
}

// partitionKeyOf returns the key of partitioned table p as a Router or a
// CheckLevel computes it over rows of t (p or a descendant): the key
// columns' positions in t, and the key expressions analyzed over t's
// columns.
func (a *analyzer) partitionKeyOf(t, p *exec.Table) (pos []int, exprs []exec.Expr, err error) {
	key := p.Def.PartitionKey
	for i, c := range key.Columns {
		if c >= 0 {
			pos = append(pos, columnPos(t, p.Cols[c].Name))
			continue
		}
		pos = append(pos, -1)
		if exprs == nil {
			exprs = make([]exec.Expr, len(key.Columns))
		}
		x := key.Exprs[i]
		n, err := parseExpr(x.Expr)
		if err != nil {
			return nil, nil, err
		}
		e, err := a.expr(n, tableScope(t, t.Def.Name))
		if err != nil {
			return nil, nil, err
		}
		if want := (exec.T{OID: x.Type, Typmod: x.Typmod}); e.Type() != want {
			if e, err = a.assignOrIO(e, want, "expr"); err != nil {
				return nil, nil, err
			}
		}
		exprs[i] = e
	}
	return pos, exprs, nil
}

// partitionKeyNames returns the key of partitioned table t as errors
// print it: a, lower(b), ((a + 1)).
func partitionKeyNames(t *versioning.Table) string {
	names := make([]string, len(t.PartitionKey.Columns))
	for i := range names {
		names[i] = keyColumnName(t, i)
	}
	return strings.Join(names, ", ")
}

// keyColumnName names key column i of partitioned table t in messages.
func keyColumnName(t *versioning.Table, i int) string {
	if c := t.PartitionKey.Columns[i]; c >= 0 {
		return t.Columns[c].Name
	}
	return exprKeyText(t.PartitionKey.Expr(i))
}

// exprKeyText parenthesizes an expression key column unless it is a
// function call, as pg_get_partkeydef does.
func exprKeyText(expr string) string {
	if n, err := parseExpr(expr); err == nil && n.GetFuncCall() != nil {
		return expr
	}
	return "(" + expr + ")"
}

// partitionBound analyzes FOR VALUES of a partition of parent.
func (a *analyzer) partitionBound(ctx context.Context, parent *versioning.Table, name string, spec *pg.PartitionBoundSpec) (*versioning.PartitionBound, error) {
	if spec.IsDefault {
		return &versioning.PartitionBound{Default: true}, nil
	}
	key := parent.PartitionKey
	strategy := map[string]byte{"r": versioning.PartitionRange, "l": versioning.PartitionList, "h": versioning.PartitionHash}[spec.Strategy]
	if strategy != key.Strategy {
		what := map[byte]string{versioning.PartitionRange: "range", versioning.PartitionList: "list", versioning.PartitionHash: "hash"}[key.Strategy]
		return nil, withPos(pgerr.New(pgerr.InvalidTableDefinition, "invalid bound specification for a %s partition", what), spec.Location)
	}
	ktypes := keyTypes(parent)
	b := &versioning.PartitionBound{}
	switch strategy {
	case versioning.PartitionHash:
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
	case versioning.PartitionList:
		for _, n := range spec.Listdatums {
			v, err := a.boundValue(ctx, n, ktypes[0], keyColumnName(parent, 0), false)
			if err != nil {
				return nil, err
			}
			if !slices.Contains(b.In, v) {
				b.In = append(b.In, v)
			}
		}
	case versioning.PartitionRange:
		for _, side := range []struct {
			nodes []*pg.Node
			out   *[]versioning.BoundValue
			name  string
		}{{spec.Lowerdatums, &b.From, "FROM"}, {spec.Upperdatums, &b.To, "TO"}} {
			if len(side.nodes) != len(key.Columns) {
				return nil, withPos(pgerr.New(pgerr.InvalidTableDefinition, "%s must specify exactly one value per partitioning column", side.name), spec.Location)
			}
			for i, n := range side.nodes {
				v, err := a.boundValue(ctx, n, ktypes[i], keyColumnName(parent, i), true)
				if err != nil {
					return nil, err
				}
				*side.out = append(*side.out, v)
			}
		}
		from, err := exec.DecodeBound(&versioning.PartitionBound{From: b.From, To: b.To}, ktypes)
		if err != nil {
			return nil, err
		}
		if compareBounds(from.From, from.To) >= 0 {
			return nil, withPos(pgerr.New(pgerr.InvalidObjectDefinition, "empty range bound specified for partition %q", name).
				WithDetail("Specified lower bound %s is greater than or equal to specified upper bound %s.", catalog.BoundText(b.From, ktypes), catalog.BoundText(b.To, ktypes)), spec.Location)
		}
	}
	return b, nil
}

// boundValue analyzes one value of FOR VALUES for a key column of type t:
// MINVALUE and MAXVALUE where range is set, NULL, or a constant
// expression, stored in its text form.
func (a *analyzer) boundValue(ctx context.Context, n *pg.Node, t exec.T, col string, isRange bool) (versioning.BoundValue, error) {
	if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
		switch name := cr.Fields[0].GetString_().Sval; {
		case isRange && name == "minvalue":
			return versioning.BoundValue{Kind: versioning.BoundMinValue}, nil
		case isRange && name == "maxvalue":
			return versioning.BoundValue{Kind: versioning.BoundMaxValue}, nil
		}
		return versioning.BoundValue{}, withPos(pgerr.New(pgerr.InvalidColumnReference, "cannot use column reference in partition bound expression"), cr.Location)
	}
	e, err := a.expr(n, nil)
	if err != nil {
		return versioning.BoundValue{}, err
	}
	if e, err = a.assign(e, t, col, exprLocation(n)); err != nil {
		return versioning.BoundValue{}, err
	}
	d, err := e.Eval(a.env(ctx), nil)
	if err != nil {
		return versioning.BoundValue{}, err
	}
	if d.IsNull() {
		if isRange {
			return versioning.BoundValue{}, pgerr.New(pgerr.InvalidTableDefinition, "cannot specify NULL in range bound")
		}
		return versioning.BoundValue{Kind: versioning.BoundNull}, nil
	}
	return versioning.BoundValue{Text: string(exec.AppendText(nil, t, d, nil))}, nil
}

// compareBounds orders two range bounds; MINVALUE and MAXVALUE end the
// comparison, as they do in PostgreSQL.
func compareBounds(x, y []exec.BoundDatum) int {
	rank := func(b exec.BoundDatum) int {
		switch b.Kind {
		case versioning.BoundMinValue:
			return -1
		case versioning.BoundMaxValue:
			return 1
		}
		return 0
	}
	for i := range x {
		rx, ry := rank(x[i]), rank(y[i])
		if rx != ry {
			return rx - ry
		}
		if rx != 0 {
			return 0
		}
		if c := exec.Compare(x[i].D, y[i].D); c != 0 {
			return c
		}
	}
	return 0
}

// partitions returns the partitions of a partitioned table.
func (a *analyzer) partitions(ctx context.Context, parent *versioning.Table) ([]*versioning.Table, error) {
	names, err := a.tx.Root.Children(ctx, parent.Schema, parent.Name)
	if err != nil {
		return nil, err
	}
	var out []*versioning.Table
	for _, n := range names {
		t, ok, err := a.tx.Root.Table(ctx, n.Schema, n.Name)
		if err != nil {
			return nil, err
		}
		if ok && t.IsPartition() {
			out = append(out, t)
		}
	}
	return out, nil
}

// checkOverlap fails if bound b of a new partition name of parent
// overlaps the bound of one of its partitions.
func (a *analyzer) checkOverlap(ctx context.Context, parent *versioning.Table, name string, b *versioning.PartitionBound) error {
	siblings, err := a.partitions(ctx, parent)
	if err != nil {
		return err
	}
	ktypes := keyTypes(parent)
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
			return pgerr.New(pgerr.InvalidObjectDefinition, "partition %q conflicts with existing default partition %q", name, s.Name)
		}
		if bounds[i], err = exec.DecodeBound(s.PartitionBound, ktypes); err != nil {
			return err
		}
	}
	// Report the partition PostgreSQL does: for a list, the holder of
	// the first value that is taken; for a range, the lowest overlapping.
	strategy := parent.PartitionKey.Strategy
	if strategy == versioning.PartitionHash && !b.Default {
		if err := checkModulus(siblings, bounds, name, nb); err != nil {
			return err
		}
	}
	probes := []exec.PartBound{nb}
	if strategy == versioning.PartitionList {
		probes = nil
		for _, d := range nb.In {
			probes = append(probes, exec.PartBound{In: []exec.Datum{d}})
		}
		if nb.InNull {
			probes = append(probes, exec.PartBound{InNull: true})
		}
	}
	order := boundOrder(strategy, bounds)
	for _, probe := range probes {
		for _, i := range order {
			if siblings[i].Name != name && boundsOverlap(strategy, &probe, &bounds[i]) {
				return pgerr.New(pgerr.InvalidObjectDefinition, "partition %q would overlap partition %q", name, siblings[i].Name)
			}
		}
	}
	return nil
}

// checkModulus fails unless the modulus of a new hash partition name
// (bound nb) and its siblings' each divide the next larger one, as
// PostgreSQL requires so that every key has one partition. The siblings
// are compared in the order of (modulus, remainder), as PostgreSQL does.
func checkModulus(siblings []*versioning.Table, bounds []exec.PartBound, name string, nb exec.PartBound) error {
	order := boundOrder(versioning.PartitionHash, bounds)
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
	case versioning.PartitionList:
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
	case versioning.PartitionHash:
		m := min(x.Modulus, y.Modulus)
		return x.Remainder%m == y.Remainder%m
	}
	return compareBounds(x.From, y.To) < 0 && compareBounds(y.From, x.To) < 0
}

// kinDep records the children a table had when a statement was planned.
type kinDep struct {
	parent   versioning.TableName
	children []versioning.TableName
}

// familyMember is a table a statement on another table reads or writes
// in its stead: the table itself, one that inherits from it, or a leaf
// partition.
type familyMember struct {
	t *exec.Table
	// layout maps the statement table's columns to the member's (see
	// exec.Scan.Layout); nil when they are the same.
	layout []int
	// levels are the partition bounds from the statement's table down to
	// the member, which pruning tests.
	levels []partLevel
}

// partLevel is a partition's bound in its partitioned parent, with the
// parent's key in the statement table's layout.
type partLevel struct {
	strategy byte
	key      []int
	types    []exec.T
	bound    exec.PartBound
	siblings []exec.PartBound // a default partition holds what these do not
}

// children returns the tables that inherit directly from t, partitions
// in the order of their bounds, and records them for plan reuse.
func (a *analyzer) children(t *exec.Table) ([]*exec.Table, error) {
	if root, ok := a.pinnedRoots[t]; ok {
		return a.pinnedChildren(t, root)
	}
	names, err := a.tx.Root.Children(a.ctx, t.Def.Schema, t.Def.Name)
	if err != nil {
		return nil, err
	}
	a.kin = append(a.kin, kinDep{parent: versioning.TableName{Schema: t.Def.Schema, Name: t.Def.Name}, children: names})
	out := make([]*exec.Table, 0, len(names))
	for _, n := range names {
		if isTempSchema(n.Schema) && n.Schema != a.s.TempSchema() {
			continue // another session's temporary child: PostgreSQL's scans skip it too
		}
		c, ok, err := a.tx.Table(a.ctx, n.Schema, n.Name)
		if err != nil {
			return nil, err
		}
		if ok {
			a.deps = append(a.deps, c.Def)
			out = append(out, c)
		}
	}
	return out, nil
}

// pinnedChildren returns the children of a table pinned to a past
// revision, whose root value is root: pinned to it too.
func (a *analyzer) pinnedChildren(t *exec.Table, root versioning.RootValue) ([]*exec.Table, error) {
	names, err := root.Children(a.ctx, t.Def.Schema, t.Def.Name)
	if err != nil {
		return nil, err
	}
	out := make([]*exec.Table, 0, len(names))
	for _, n := range names {
		def, ok, err := root.Table(a.ctx, n.Schema, n.Name)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, a.pinTable(def, root))
		}
	}
	return out, nil
}

// family returns the tables a statement on t reads and writes: t and
// its descendants, of which a partitioned table's leaf partitions only.
// When t is partitioned, router routes its new rows to the members.
func (a *analyzer) family(t *exec.Table) (members []familyMember, router *exec.Router, err error) {
	var walk func(cur *exec.Table, levels []partLevel) (*exec.Router, error)
	walk = func(cur *exec.Table, levels []partLevel) (*exec.Router, error) {
		if !cur.Def.Partitioned() {
			members = append(members, familyMember{t: cur, layout: layoutOf(t, cur), levels: levels})
		}
		kids, err := a.children(cur)
		if err != nil || !cur.Def.Partitioned() {
			for _, k := range kids {
				if _, err := walk(k, levels); err != nil {
					return nil, err
				}
			}
			return nil, err
		}
		key := cur.Def.PartitionKey
		r := &exec.Router{Table: cur, Strategy: key.Strategy, Types: keyTypes(cur.Def), KeyNames: partitionKeyNames(cur.Def)}
		if r.Key, r.Exprs, err = a.partitionKeyOf(t, cur); err != nil {
			return nil, err
		}
		bounds := make([]exec.PartBound, len(kids))
		for i, k := range kids {
			if bounds[i], err = exec.DecodeBound(k.Def.PartitionBound, r.Types); err != nil {
				return nil, err
			}
		}
		order := boundOrder(key.Strategy, bounds)
		for _, i := range order {
			k := kids[i]
			lv := partLevel{strategy: key.Strategy, key: r.Key, types: r.Types, bound: bounds[i]}
			if bounds[i].Default {
				lv.siblings = bounds
			}
			part := exec.RoutePart{Bound: bounds[i], Leaf: len(members)}
			sub, err := walk(k, append(slices.Clip(levels), lv))
			if err != nil {
				return nil, err
			}
			part.Sub = sub
			r.Parts = append(r.Parts, part)
		}
		return r, nil
	}
	router, err = walk(t, nil)
	return members, router, err
}

// boundOrder returns the positions of bounds in PostgreSQL's order of
// partitions: by lower bound, smallest listed value or modulus and
// remainder; the default partition last.
func boundOrder(strategy byte, bounds []exec.PartBound) []int {
	order := make([]int, len(bounds))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		x, y := &bounds[i], &bounds[j]
		switch {
		case x.Default != y.Default:
			if x.Default {
				return 1
			}
			return -1
		case x.Default:
			return 0
		case strategy == versioning.PartitionRange:
			return compareBounds(x.From, y.From)
		case strategy == versioning.PartitionHash:
			if x.Modulus != y.Modulus {
				return int(x.Modulus) - int(y.Modulus)
			}
			return int(x.Remainder) - int(y.Remainder)
		}
		return exec.Compare(smallest(x), smallest(y))
	})
	return order
}

// smallest returns a list bound's smallest value, NULL when it lists
// only NULL.
func smallest(b *exec.PartBound) exec.Datum {
	if len(b.In) == 0 {
		return exec.Null
	}
	m := b.In[0]
	for _, d := range b.In[1:] {
		if exec.Compare(d, m) < 0 {
			m = d
		}
	}
	return m
}

// columnPos returns the position of t's live column name, -1 if none.
func columnPos(t *exec.Table, name string) int {
	for _, c := range t.Cols {
		if !c.Dropped && c.Name == name {
			return c.Pos
		}
	}
	return -1
}

// layoutOf maps the columns of ancestor to those of t by name: nil when
// both have the same columns at the same positions.
func layoutOf(ancestor, t *exec.Table) []int {
	if ancestor == t {
		return nil
	}
	layout := make([]int, len(ancestor.Cols))
	same := len(ancestor.Cols) == len(t.Cols)
	for i, c := range ancestor.Cols {
		layout[i] = -1
		if !c.Dropped {
			layout[i] = columnPos(t, c.Name)
		}
		same = same && (layout[i] == i || c.Dropped && t.Cols[i].Dropped)
	}
	if same {
		return nil
	}
	return layout
}

// relationScan plans a read of t's rows: a Scan, or, when inh is set and
// t has descendants or is partitioned, an Append of theirs in t's layout.
func (a *analyzer) relationScan(t *exec.Table, inh bool, cols []exec.ResultColumn) (exec.Plan, error) {
	scan := &exec.Scan{Table: t, Cols: cols}
	if _, pinned := a.pinnedRoots[t]; !inh || t.Virtual != nil || t.Pinned && !pinned {
		return scan, nil
	}
	members, _, err := a.family(t)
	if err != nil {
		return nil, err
	}
	if len(members) == 1 && members[0].t == t {
		return scan, nil
	}
	app := &exec.Append{Cols: cols}
	for i, m := range members {
		app.Parts = append(app.Parts, &exec.Scan{Table: m.t, Cols: cols, Layout: m.layout})
		app.Members = append(app.Members, i)
	}
	if a.families == nil {
		a.families = map[*exec.Append][]familyMember{}
	}
	a.families[app] = members
	return app, nil
}

// appendWhere filters the parts of an Append by pred, in t's layout:
// partitions whose bounds hold no row pred accepts are left out
// (pruning), and the others' scans may use their indexes.
func (a *analyzer) appendWhere(app *exec.Append, pred exec.Expr) exec.Plan {
	members := a.families[app]
	conds := andParts(pred, nil)
	var above []exec.Expr // conditions on tableoid, which the parts lack
	if app.OIDs != nil {
		var below []exec.Expr
		for _, c := range conds {
			if readsColumn(c, len(app.Cols)-1) {
				above = append(above, c)
			} else {
				below = append(below, c)
			}
		}
		if len(below) == 0 {
			return &exec.Filter{In: app, Pred: pred}
		}
		conds, pred = below, and(below)
	}
	out := &exec.Append{Cols: app.Cols}
	defer func() { a.families[out] = members }()
	for i, part := range app.Parts {
		m := members[app.Members[i]]
		if pruned(m.levels, conds) {
			continue
		}
		scan := part.(*exec.Scan)
		var p exec.Plan = &exec.Filter{In: scan, Pred: pred}
		if scan.Layout == nil {
			p = a.scanWhere(scan, pred) // the member's columns are t's
		}
		out.Parts = append(out.Parts, p)
		out.Members = append(out.Members, app.Members[i])
		if app.OIDs != nil {
			out.OIDs = append(out.OIDs, app.OIDs[i])
		}
	}
	if app.OIDs != nil && out.OIDs == nil {
		out.OIDs = []uint32{} // every part pruned: still a column wide
	}
	if hasParamConds(conds) {
		out.Skip = paramPruner(members, out.Members, conds)
	}
	if len(above) > 0 {
		return &exec.Filter{In: out, Pred: and(above)}
	}
	return out
}

// hasParamConds reports whether some of conds compare a column with a
// parameter, which may prune partitions once its value is known.
func hasParamConds(conds []exec.Expr) bool {
	return slices.ContainsFunc(conds, func(c exec.Expr) bool {
		_, ok := bindParams(nil, c)
		return ok
	})
}

// paramPruner returns the Append's Skip for conditions with parameters:
// at each execution, with the parameters' values, the parts (of
// members) whose bounds the conditions rule out.
func paramPruner(members []familyMember, parts []int, conds []exec.Expr) func(*exec.Env, int) bool {
	return func(env *exec.Env, i int) bool {
		bound := make([]exec.Expr, 0, len(conds))
		for _, c := range conds {
			if b, ok := bindParams(env, c); ok && b != nil {
				bound = append(bound, b)
			}
		}
		return pruned(members[parts[i]].levels, bound)
	}
}

// bindParams returns condition c, a comparison of a column with a
// parameter or an OR of such, with the parameters replaced by their
// values in env; ok is false when c has no such form. With env nil it
// only recognizes the form (b nil).
func bindParams(env *exec.Env, c exec.Expr) (b exec.Expr, ok bool) {
	switch e := c.(type) {
	case *exec.Call:
		if _, isCmp := flipped[e.Name]; !isCmp || len(e.Args) != 2 {
			return nil, false
		}
		args := slices.Clone(e.Args)
		found := false
		for i, arg := range args {
			p, isParam := arg.(*exec.Param)
			if !isParam {
				continue
			}
			found = true
			if env != nil {
				d, err := p.Eval(env, nil)
				if err != nil {
					return nil, false
				}
				args[i] = &exec.Const{D: d, T: p.T}
			}
		}
		if !found || env == nil {
			return nil, found
		}
		out := *e
		out.Args = args
		return &out, true
	case *exec.BoolOp:
		if !e.Or {
			return nil, false
		}
		args := make([]exec.Expr, len(e.Args))
		for i, arg := range e.Args {
			if args[i], ok = bindParams(env, arg); !ok {
				return nil, false
			}
		}
		if env == nil {
			return nil, true
		}
		out := *e
		out.Args = args
		return &out, true
	}
	return nil, false
}

// readsColumn reports whether e may read column idx of its row; true
// for kinds of expression it does not know.
func readsColumn(e exec.Expr, idx int) bool {
	any := func(es []exec.Expr) bool {
		return slices.ContainsFunc(es, func(x exec.Expr) bool { return readsColumn(x, idx) })
	}
	switch x := e.(type) {
	case *exec.Const, *exec.Param, *exec.OuterRef:
		return false
	case *exec.ColRef:
		return x.Idx == idx
	case *exec.Call:
		return any(x.Args)
	case *exec.BoolOp:
		return any(x.Args)
	case *exec.Not:
		return readsColumn(x.E, idx)
	case *exec.IsNull:
		return readsColumn(x.E, idx)
	case *exec.Coalesce:
		return any(x.Args)
	}
	return true
}

// keyValue is what a condition says of a key column: col op value.
type keyValue struct {
	col int
	t   uint32 // the column's type
	op  string
	d   exec.Datum
}

// keyValuesOf recognizes conditions of the form column op constant, and
// ORs of column = constant (IN lists), over columns of the given types.
func keyValuesOf(e exec.Expr) []keyValue {
	switch e := e.(type) {
	case *exec.Call:
		if _, ok := flipped[e.Name]; !ok || len(e.Args) != 2 {
			return nil
		}
		c, okc := e.Args[0].(*exec.ColRef)
		k, okk := e.Args[1].(*exec.Const)
		op := e.Name
		if !okc || !okk {
			c, okc = e.Args[1].(*exec.ColRef)
			k, okk = e.Args[0].(*exec.Const)
			op = flipped[op]
		}
		if !okc || !okk || k.D.IsNull() || c.T.OID != k.T.OID {
			return nil
		}
		return []keyValue{{col: c.Idx, t: c.T.OID, op: op, d: k.D}}
	case *exec.BoolOp:
		if !e.Or {
			return nil
		}
		var out []keyValue
		for _, arg := range e.Args {
			kv := keyValuesOf(arg)
			if len(kv) != 1 || kv[0].op != "=" || (len(out) > 0 && kv[0].col != out[0].col) {
				return nil
			}
			out = append(out, kv[0])
		}
		for i := range out {
			out[i].op = "in"
		}
		return out
	}
	return nil
}

// pruned reports whether the conditions conds rule out every row of a
// partition with bounds levels.
func pruned(levels []partLevel, conds []exec.Expr) bool {
	if len(levels) == 0 {
		return false
	}
	var kvs [][]keyValue
	for _, c := range conds {
		if kv := keyValuesOf(c); kv != nil {
			kvs = append(kvs, kv)
		}
	}
	if len(kvs) == 0 {
		return false
	}
	for _, l := range levels {
		if levelExcludes(&l, kvs) {
			return true
		}
	}
	return false
}

// levelExcludes reports whether a partition bound holds no key the
// conditions kvs allow.
func levelExcludes(l *partLevel, kvs [][]keyValue) bool {
	// Equalities (or IN lists) on every key column decide.
	key := make([]exec.Datum, len(l.key))
	var in []keyValue
	complete := true
	for i, col := range l.key {
		found := false
		for _, kv := range kvs {
			if kv[0].col != col || kv[0].t != l.types[i].OID {
				continue
			}
			switch {
			case kv[0].op == "=":
				key[i], found = kv[0].d, true
			case kv[0].op == "in" && len(l.key) == 1:
				in, found = kv, true
			}
		}
		complete = complete && found
	}
	if complete {
		if in != nil {
			for _, kv := range in {
				if l.bound.HoldsAmong(l.siblings, l.strategy, []exec.Datum{kv.d}, l.types) {
					return false
				}
			}
			return true
		}
		return !l.bound.HoldsAmong(l.siblings, l.strategy, key, l.types)
	}
	// Inequalities on a one-column range key exclude partitions whose
	// range lies beyond them.
	if l.strategy != versioning.PartitionRange || len(l.key) != 1 || l.bound.Default {
		return false
	}
	from, to := l.bound.From[0], l.bound.To[0]
	for _, kv := range kvs {
		v := kv[0]
		if v.col != l.key[0] || len(kv) != 1 || v.t != l.types[0].OID {
			continue
		}
		switch v.op {
		case "<", "<=":
			// Rows below v: none when the range starts above it.
			if from.Kind == versioning.BoundMaxValue || from.Kind == 0 && (exec.Compare(from.D, v.d) > 0 || v.op == "<" && exec.Compare(from.D, v.d) == 0) {
				return true
			}
		case ">", ">=":
			// Rows above v: none when the range ends (exclusively) at or below it.
			if to.Kind == versioning.BoundMinValue || to.Kind == 0 && exec.Compare(to.D, v.d) <= 0 {
				return true
			}
		}
	}
	return false
}

// modifyFamily sets what a Modify of t computes from the definitions of
// the tables it writes (their generated columns), and what it writes
// besides t: an UPDATE or DELETE that reads t's descendants (inh) writes
// each row where it is; an INSERT into a partitioned table routes rows to
// its partitions; a partition written directly checks its partition
// constraint.
func (a *analyzer) modifyFamily(m *exec.Modify, inh bool) error {
	t := m.Table
	if t.Virtual != nil || t.Pinned {
		return nil
	}
	if m.Kind != exec.Delete {
		var err error
		if m.Generated, err = a.generatedExprs(t); err != nil {
			return err
		}
	}
	if t.Def.IsPartition() {
		var err error
		if m.Partition, err = a.partitionCheck(t); err != nil {
			return err
		}
	}
	if m.Kind == exec.Insert && !t.Def.Partitioned() || m.Kind != exec.Insert && !inh {
		return nil
	}
	members, router, err := a.family(t)
	if err != nil {
		return err
	}
	if len(members) == 1 && members[0].t == t {
		return nil
	}
	// Non-nil even when empty: a partitioned table without partitions
	// takes no rows (its Route finds none), it does not store them.
	m.Members = make([]exec.Member, 0, len(members))
	for _, mb := range members {
		checks, err := a.checks(mb.t)
		if err != nil {
			return err
		}
		member := exec.Member{Table: mb.t, Layout: mb.layout, Checks: checks}
		if m.Kind != exec.Delete {
			if member.Generated, err = a.generatedExprs(mb.t); err != nil {
				return err
			}
		}
		if m.Conflict != nil {
			member.Conflict = memberConflict(t.Def, mb, m.Conflict)
		}
		m.Members = append(m.Members, member)
	}
	m.Route = router
	return nil
}

// memberConflict returns the ON CONFLICT clause c of an INSERT into t
// for member mb: its arbiters are mb's indexes that stand for t's.
func memberConflict(t *versioning.Table, mb familyMember, c *exec.OnConflict) *exec.OnConflict {
	out := *c
	out.Arbiters = nil
	for _, name := range c.Arbiters {
		if name == "" {
			out.Arbiters = append(out.Arbiters, "")
			continue
		}
		i := slices.IndexFunc(t.Indexes, func(ix versioning.Index) bool { return ix.Name == name })
		if i < 0 {
			continue
		}
		for _, ix := range mb.t.Def.Indexes {
			if versioning.SameIndex(t, mb.t.Def, t.Indexes[i], ix) {
				out.Arbiters = append(out.Arbiters, ix.Name)
				break
			}
		}
	}
	return &out
}

// partitionCheck builds the partition constraint of partition t: its
// bound in its parent, and its parent's, up to the root.
func (a *analyzer) partitionCheck(t *exec.Table) (*exec.PartitionCheck, error) {
	pc := &exec.PartitionCheck{}
	cur := t.Def
	for cur.IsPartition() && len(cur.Inherits) > 0 {
		pn := cur.Inherits[0]
		parent, ok, err := a.tx.Table(a.ctx, pn.Schema, pn.Name)
		if err != nil || !ok {
			return nil, err
		}
		a.deps = append(a.deps, parent.Def)
		lv := exec.CheckLevel{Strategy: parent.Def.PartitionKey.Strategy, Types: keyTypes(parent.Def)}
		if lv.Key, lv.Exprs, err = a.partitionKeyOf(t, parent); err != nil {
			return nil, err
		}
		if lv.Bound, err = exec.DecodeBound(cur.PartitionBound, lv.Types); err != nil {
			return nil, err
		}
		if lv.Bound.Default {
			siblings, err := a.partitions(a.ctx, parent.Def)
			if err != nil {
				return nil, err
			}
			for _, s := range siblings {
				if s.Name == cur.Name && s.Schema == cur.Schema {
					continue
				}
				b, err := exec.DecodeBound(s.PartitionBound, lv.Types)
				if err != nil {
					return nil, err
				}
				lv.Siblings = append(lv.Siblings, b)
			}
		}
		pc.Levels = append(pc.Levels, lv)
		cur = parent.Def
	}
	return pc, nil
}

// descendants returns the tables that inherit from t, directly or not,
// children before their own children.
func (a *analyzer) descendants(ctx context.Context, t *versioning.Table) ([]*versioning.Table, error) {
	var out []*versioning.Table
	queue := []*versioning.Table{t}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		names, err := a.tx.Root.Children(ctx, cur.Schema, cur.Name)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			c, ok, err := a.tx.Root.Table(ctx, n.Schema, n.Name)
			if err != nil {
				return nil, err
			}
			if ok && !slices.ContainsFunc(out, func(o *versioning.Table) bool { return o.Schema == c.Schema && o.Name == c.Name }) {
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
func (a *analyzer) dropDescendants(ctx context.Context, t *versioning.Table, cascade bool) error {
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
func renameParent(ctx context.Context, root versioning.RootValue, child, parent versioning.TableName, name string) (versioning.RootValue, error) {
	t, ok, err := root.Table(ctx, child.Schema, child.Name)
	if err != nil || !ok {
		return root, err
	}
	nt := cloneTable(t)
	nt.Inherits = slices.Clone(nt.Inherits)
	for i, p := range nt.Inherits {
		if p == parent {
			nt.Inherits[i].Name = name
		}
	}
	if root, err = root.PutTable(ctx, nt); err != nil {
		return root, err
	}
	return syncRefs(ctx, root, t, nt)
}
