package ddl

import (
	"context"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/planner/pgtree"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// createIndex runs CREATE [UNIQUE] INDEX [IF NOT EXISTS] [name] ON table
// (column [ASC|DESC] [NULLS FIRST|LAST], ...) [INCLUDE (...)]. The index
// is built from the table's rows in one sorted pass. Access methods other
// than btree are not supported, except that hash is taken as btree (it
// answers the same equalities) and gin and gist on text search types are
// kept as ordinary indexes of the same keys, which no @@ uses: PostgreSQL
// accepts them, and a text search schema must load. So are gist and
// spgist on range and geometric columns, whose queries (&&, @>) scan,
// pg_trgm's gin_trgm_ops and gist_trgm_ops on text columns, whose
// queries (%, LIKE) scan (trgmIndexColumn), gin and gist on hstore
// (?, @> scan), gin on jsonb and on arrays (@>, ?, && scan), and brin,
// taken as btree: migrations that add such indexes must run.
func (a *analyzer) createIndex(s *pg.IndexStmt) (planner.Utility, error) {
	textSearch := false
	switch s.AccessMethod {
	case "", "btree", "hash", "brin":
	case "gin", "gist", "spgist":
		textSearch = true
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "access method %q is not supported", s.AccessMethod)
	}
	if s.Concurrent && a.s.InTransactionBlock() {
		return nil, pgerr.New(pgerr.ActiveSQLTransaction, "CREATE INDEX CONCURRENTLY cannot run inside a transaction block")
	}
	if len(s.ExcludeOpNames) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "exclusion constraints are not supported yet")
	}
	if textSearch {
		for _, p := range s.IndexParams {
			if err := checkSiglen(p.GetIndexElem().Opclassopts); err != nil {
				return nil, err
			}
		}
	}
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		t, err := a.Table(s.Relation)
		if err == nil && t.Virtual == nil {
			err = a.requireTableOwner(t.Def)
		}
		if err != nil {
			return "", err
		}
		def := cloneTable(t.Def)
		if indexesSystemColumn(def, s) {
			return "", pgerr.New(pgerr.FeatureNotSupported, "index creation on system columns is not supported")
		}
		ix := sqldef.Index{Name: s.Idxname, Unique: s.Unique, NullsNotDistinct: s.NullsNotDistinct}
		if s.AccessMethod != "btree" {
			ix.Method = s.AccessMethod
		}
		var names []string
		for _, p := range s.IndexParams {
			el := p.GetIndexElem()
			if cr := el.Expr.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
				el.Name, el.Expr = cr.Fields[0].GetString_().Sval, nil // (col) is the column
			}
			if el.Expr != nil {
				c, name, err := a.indexExpression(t, el)
				if err != nil {
					return "", err
				}
				ix.Columns = append(ix.Columns, c)
				names = append(names, name)
				continue
			}
			pos, err := indexColumn(t, el.Name)
			if err != nil {
				return "", err
			}
			ix.Columns = append(ix.Columns, indexColumnOrder(pos, el))
			names = append(names, el.Name)
		}
		for i, p := range s.IndexParams {
			if oc := p.GetIndexElem().Opclass; len(oc) > 0 && i < len(ix.Columns) {
				ix.Columns[i].Opclass = oc[len(oc)-1].GetString_().GetSval()
			}
		}
		trgm := make([]bool, len(ix.Columns))
		if s.WhereClause != nil {
			if ix.Where, err = a.IndexPredicate(t, s.WhereClause); err != nil {
				return "", err
			}
		}
		for _, p := range s.IndexIncludingParams {
			el := p.GetIndexElem()
			if el.Expr != nil {
				return "", pgerr.New(pgerr.FeatureNotSupported, "expressions are not supported in included columns")
			}
			pos, err := indexColumn(t, el.Name)
			if err != nil {
				return "", err
			}
			ix.Include = append(ix.Include, pos)
		}
		for i, c := range ix.Columns {
			oid := c.ExprType
			if c.Expr == "" {
				oid = t.Cols[c.Column].Type.OID
			}
			if ok, err := trgmIndexColumn(s.AccessMethod, s.IndexParams[i].GetIndexElem(), oid); err != nil {
				return "", err
			} else if ok {
				trgm[i] = true
			}
		}
		if textSearch {
			btreeOps, err := a.btreeOpclasses(ctx, s.AccessMethod)
			if err != nil {
				return "", err
			}
			for i, c := range ix.Columns {
				if trgm[i] {
					continue
				}
				oid := c.ExprType
				if c.Expr == "" {
					oid = t.Cols[c.Column].Type.OID
				}
				if btreeOps && btreeScalar(oid) {
					continue // btree_gin's and btree_gist's operator classes
				}
				if exec.KindOf(oid) == exec.KindText || oid == exec.OIDCIText {
					return "", errNoOpclass(oid, s.AccessMethod)
				}
				isRange := exec.KindOf(oid) == exec.KindRange && s.AccessMethod != "gin"
				if exec.IsGeometric(oid) {
					if !geometryOpclass(oid, s.AccessMethod) {
						return "", errNoOpclass(oid, s.AccessMethod)
					}
					continue
				}
				if oid == exec.OIDHstore && s.AccessMethod != "spgist" {
					continue // gin_hstore_ops, gist_hstore_ops
				}
				if s.AccessMethod == "gin" && (oid == exec.OIDJSONB || exec.IsArrayType(oid)) {
					continue // jsonb_ops, jsonb_path_ops, array_ops: @>, ?, && scan
				}
				if oid != exec.OIDTSVector && oid != exec.OIDTSQuery && !isRange || s.AccessMethod == "spgist" && !isRange {
					return "", errNoOpclass(oid, s.AccessMethod)
				}
			}
		}
		if !textSearch {
			for _, c := range ix.Columns {
				oid := c.ExprType
				if c.Expr == "" {
					oid = t.Cols[c.Column].Type.OID
				}
				if exec.IsGeometric(oid) {
					am := s.AccessMethod
					if am == "" {
						am = "btree"
					}
					return "", errNoOpclass(oid, am)
				}
			}
		}
		if len(ix.Columns) > 32 {
			return "", pgerr.New(codeProgramLimit, "cannot use more than 32 columns in an index")
		}
		ns, err := takenNames(ctx, a.tx.Root(), def.Schema)
		if err != nil {
			return "", err
		}
		if ix.Name == "" {
			ix.Name = ns.chooseRelationName(def.Name, indexNameAddition(names), "idx", false)
		} else if ns.rels[ix.Name] {
			if s.IfNotExists {
				a.s.Notice(pgerr.New(pgerr.DuplicateTable, "relation %q already exists, skipping", ix.Name))
				return "CREATE INDEX", nil
			}
			return "", pgerr.New(pgerr.DuplicateTable, "relation %q already exists", ix.Name)
		}
		if ix.Rows, err = a.buildIndex(ctx, t, &ix); err != nil {
			return "", err
		}
		def.Indexes = append(def.Indexes, ix)
		if err := checkUniqueCoversKey(def); err != nil {
			return "", err
		}
		if err := a.putTable(ctx, def); err != nil {
			return "", err
		}
		if def.Partitioned() && s.Relation.Inh {
			if err := a.cascadeIndexes(ctx, def); err != nil {
				return "", err
			}
		}
		return "CREATE INDEX", nil
	}, nil
}

// checkSiglen checks the options of a text search operator class
// (tsvector_ops(siglen=N)) as PostgreSQL's parseRelOptions does: siglen
// alone, once, from 1 to 2024.
func checkSiglen(opts []*pg.Node) error {
	seen := false
	for _, o := range opts {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		if d.Defname != "siglen" {
			return pgerr.New(pgerr.InvalidParameterValue, "unrecognized parameter %q", d.Defname)
		}
		if seen {
			return pgerr.New(pgerr.InvalidParameterValue, "parameter %q specified more than once", d.Defname)
		}
		seen = true
		n := int64(-1)
		if i := d.Arg.GetInteger(); i != nil {
			n = int64(i.Ival)
		}
		if n < 1 || n > 2024 {
			return pgerr.New(pgerr.InvalidParameterValue, "value %d out of bounds for option \"siglen\"", n).
				WithDetail("Valid values are between \"1\" and \"2024\".")
		}
	}
	return nil
}

// indexColumn finds a column named in an index definition.
func indexColumn(t *exec.Table, name string) (int, error) {
	for _, c := range t.Cols {
		if !c.Dropped && c.Name == name {
			return c.Pos, nil
		}
	}
	return 0, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", name)
}

// indexColumnOrder returns the key column for an index element: ASC puts
// NULLs last and DESC first unless NULLS says otherwise.
func indexColumnOrder(pos int, el *pg.IndexElem) sqldef.IndexColumn {
	c := sqldef.IndexColumn{Column: pos, Desc: el.Ordering == pg.SortByDir_SORTBY_DESC}
	if n := len(el.Collation); n > 0 {
		c.Collation = el.Collation[n-1].GetString_().GetSval()
	}
	c.NullsFirst = c.Desc
	switch el.NullsOrdering {
	case pg.SortByNulls_SORTBY_NULLS_FIRST:
		c.NullsFirst = true
	case pg.SortByNulls_SORTBY_NULLS_LAST:
		c.NullsFirst = false
	}
	return c
}

// putTable stores a changed table record in the transaction's root.
func (a *analyzer) putTable(ctx context.Context, def *sqldef.Table) error {
	old, _, err := a.tx.Root().Table(ctx, def.Schema, def.Name)
	if err != nil {
		return err
	}
	root, err := a.tx.Root().PutTable(ctx, def)
	if err != nil {
		return err
	}
	if root, err = SyncRefs(ctx, root, old, def); err != nil {
		return err
	}
	a.tx.SetRoot(root)
	return nil
}

// cloneTable returns a copy of a table record that can be changed without
// touching the original (records are shared by the transaction's cache).
func cloneTable(t *sqldef.Table) *sqldef.Table {
	c := *t
	c.Columns = append([]sqldef.Column(nil), t.Columns...)
	c.PrimaryKey = append([]int(nil), t.PrimaryKey...)
	c.Indexes = append([]sqldef.Index(nil), t.Indexes...)
	for i := range c.Indexes {
		c.Indexes[i].Columns = append([]sqldef.IndexColumn(nil), c.Indexes[i].Columns...)
		c.Indexes[i].Include = append([]int(nil), c.Indexes[i].Include...)
	}
	c.Checks = append([]sqldef.Check(nil), t.Checks...)
	c.Inherits = slices.Clone(t.Inherits)
	c.ForeignKeys = append([]sqldef.ForeignKey(nil), t.ForeignKeys...)
	c.Exclusions = slices.Clone(t.Exclusions)
	for i := range c.ForeignKeys {
		c.ForeignKeys[i].Columns = append([]int(nil), c.ForeignKeys[i].Columns...)
		c.ForeignKeys[i].RefColumns = append([]int(nil), c.ForeignKeys[i].RefColumns...)
	}
	if len(c.PrimaryKey) == 0 {
		c.PrimaryKey = nil
	}
	return &c
}

// dropIndex runs DROP INDEX [IF EXISTS] name, ... An index that backs a
// constraint is dropped with the constraint, not by itself.
func (a *analyzer) dropIndex(ctx context.Context, s *pg.DropStmt) (string, error) {
	for _, obj := range s.Objects {
		rel, _, name, err := a.dropTarget(ctx, obj, planner.RelIndex, s.MissingOk)
		if err != nil {
			return "", err
		}
		if rel.Kind == planner.RelNone {
			continue
		}
		def := cloneTable(rel.Table)
		if rel.Index < 0 || def.Indexes[rel.Index].Constraint {
			return "", pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop index %s because constraint %s on table %s requires it", name, name, def.Name).
				WithHint("You can drop constraint %s on table %s instead.", name, def.Name)
		}
		def.Indexes = append(def.Indexes[:rel.Index], def.Indexes[rel.Index+1:]...)
		if err := a.putTable(ctx, def); err != nil {
			return "", err
		}
	}
	return "DROP INDEX", nil
}

// wrongObjectType is DROP's error for a name of another kind: DROP INDEX
// on a table, DROP TABLE on a sequence.
func wrongObjectType(name string, is, want planner.RelKind) error {
	return pgerr.New(pgerr.WrongObjectType, "%q is not %s", name, article(want)).
		WithHint("Use DROP %s to remove %s.", strings.ToUpper(is.String()), article(is))
}

func article(k planner.RelKind) string {
	switch k {
	case planner.RelIndex:
		return "an index"
	case planner.RelView:
		return "a view"
	}
	return "a " + k.String()
}

// indexExpression analyzes an expression key column of CREATE INDEX: its
// type, its text, and the name PostgreSQL's index naming gives it (the
// function's name, else "expr").
func (a *analyzer) indexExpression(t *exec.Table, el *pg.IndexElem) (sqldef.IndexColumn, string, error) {
	if err := planner.ImmutableOnly(el.Expr, "index expression"); err != nil {
		return sqldef.IndexColumn{}, "", err
	}
	e, err := a.Expr(el.Expr, planner.TableScope(t, t.Def.Name))
	if err != nil {
		return sqldef.IndexColumn{}, "", err
	}
	text, err := planner.DeparseExpr(el.Expr)
	if err != nil {
		return sqldef.IndexColumn{}, "", err
	}
	c := indexColumnOrder(-1, el)
	et := e.Type()
	if et.OID == exec.OIDUnknown {
		et = exec.TText
	}
	c.Expr, c.ExprType, c.ExprTypmod = text, et.OID, et.Typmod
	name := planner.IndexColumnName(el.Expr)
	if et.OID == exec.OIDRecord {
		// A named composite type can be a key; an anonymous record,
		// whose fields no catalog describes, cannot.
		return sqldef.IndexColumn{}, "", pgerr.New(pgerr.InvalidTableDefinition, "column %q has pseudo-type record", name)
	}
	return c, name, nil
}

// geometryOpclass reports whether PostgreSQL has a default operator class
// of access method am for geometric type oid: gist for point, box,
// polygon and circle, spgist for point, box and polygon. Such an index is
// kept as an ordinary index of the values, which the geometric operators
// do not use: their queries scan.
func geometryOpclass(oid uint32, am string) bool {
	switch am {
	case "gist":
		return oid == exec.OIDPoint || oid == exec.OIDBox || oid == exec.OIDPolygon || oid == exec.OIDCircle
	case "spgist":
		return oid == exec.OIDPoint || oid == exec.OIDBox || oid == exec.OIDPolygon
	}
	return false
}

// trgmIndexColumn reports whether an index column names pg_trgm's
// operator class of its access method, gin_trgm_ops or gist_trgm_ops,
// over a type binary-coercible to text (text, varchar, citext), with
// PostgreSQL's errors for another method or type. Such a column is kept
// as an ordinary key of the values, which % and LIKE do not use: their
// queries scan, and find the same rows.
func trgmIndexColumn(am string, el *pg.IndexElem, oid uint32) (bool, error) {
	if len(el.Opclass) == 0 {
		return false, nil
	}
	opclass := el.Opclass[len(el.Opclass)-1].GetString_().GetSval()
	want := map[string]string{"gin_trgm_ops": "gin", "gist_trgm_ops": "gist"}[opclass]
	switch {
	case want == "":
		return false, nil
	case want != am:
		if am == "" {
			am = "btree"
		}
		return false, pgerr.New(pgerr.UndefinedObject, "operator class %q does not exist for access method %q", opclass, am)
	case oid != exec.OIDText && oid != exec.OIDVarchar && oid != exec.OIDCIText:
		return false, pgerr.New(pgerr.DatatypeMismatch, "operator class %q does not accept data type %s", opclass, exec.TypeName(oid))
	}
	return true, nil
}

// btreeOpclasses reports whether the extension that gives access method
// am the btree types' operator classes (btree_gin for gin, btree_gist
// for gist) is installed.
func (a *analyzer) btreeOpclasses(ctx context.Context, am string) (bool, error) {
	ext := map[string]string{"gin": "btree_gin", "gist": "btree_gist"}[am]
	if ext == "" {
		return false, nil
	}
	_, ok, err := a.tx.Root().ExtensionNamed(ctx, ext)
	return ok, err
}

// btreeScalar reports whether btree_gin and btree_gist index type oid:
// the scalar types of btree's operator classes.
func btreeScalar(oid uint32) bool {
	switch exec.KindOf(oid) {
	case exec.KindInt, exec.KindFloat, exec.KindNumeric, exec.KindText, exec.KindBytes, exec.KindBool,
		exec.KindDate, exec.KindTime, exec.KindTimestamp, exec.KindInterval, exec.KindUUID, exec.KindInet, exec.KindEnum:
		return true
	}
	return false
}

func errNoOpclass(oid uint32, am string) error {
	return pgerr.New(pgerr.UndefinedObject, "data type %s has no default operator class for access method %q", exec.TypeName(oid), am).
		WithHint("You must specify an operator class for the index or define a default operator class for the data type.")
}

// indexesSystemColumn reports whether an index's columns, expressions or
// predicate name a system column (one the table has no column of its own
// called), which PostgreSQL does not index.
func indexesSystemColumn(def *sqldef.Table, s *pg.IndexStmt) bool {
	system := func(name string) bool { return planner.IsSystemColumn(name) && planner.ColumnIndex(def, name) < 0 }
	found := false
	visit := func(n *pg.Node) {
		if n == nil || found {
			return
		}
		pgtree.Walk(n.ProtoReflect(), func(m protoreflect.Message) bool {
			if cr, ok := m.Interface().(*pg.ColumnRef); ok && len(cr.Fields) > 0 {
				if last := cr.Fields[len(cr.Fields)-1].GetString_(); last != nil && system(last.Sval) {
					found = true
				}
			}
			return !found
		})
	}
	for _, p := range s.IndexParams {
		el := p.GetIndexElem()
		if el.Name != "" && system(el.Name) {
			return true
		}
		visit(el.Expr)
	}
	visit(s.WhereClause)
	return found
}
