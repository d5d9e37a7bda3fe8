package planner

import (
	"context"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
)

// createIndex runs CREATE [UNIQUE] INDEX [IF NOT EXISTS] [name] ON table
// (column [ASC|DESC] [NULLS FIRST|LAST], ...) [INCLUDE (...)]. The index
// is built from the table's rows in one sorted pass. Access methods other
// than btree are not supported, except that hash is taken as btree (it
// answers the same equalities) and gin and gist on text search types are
// kept as ordinary indexes of the same keys, which no @@ uses: PostgreSQL
// accepts them, and a text search schema must load.
func (a *analyzer) createIndex(s *pg.IndexStmt) (utility, error) {
	textSearch := false
	switch s.AccessMethod {
	case "", "btree", "hash":
	case "gin", "gist":
		textSearch = true
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "access method %q is not supported", s.AccessMethod)
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
		t, err := a.table(s.Relation)
		if err == nil && t.Virtual == nil {
			err = a.requireTableOwner(t.Def)
		}
		if err != nil {
			return "", err
		}
		def := cloneTable(t.Def)
		ix := versioning.Index{Name: s.Idxname, Unique: s.Unique, NullsNotDistinct: s.NullsNotDistinct}
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
		if s.WhereClause != nil {
			if ix.Where, err = a.indexPredicate(t, s.WhereClause); err != nil {
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
		if textSearch {
			for _, c := range ix.Columns {
				oid := c.ExprType
				if c.Expr == "" {
					oid = t.Cols[c.Column].Type.OID
				}
				if oid != exec.OIDTSVector && oid != exec.OIDTSQuery {
					return "", pgerr.New(pgerr.FeatureNotSupported, "access method %q is not supported", s.AccessMethod)
				}
			}
		}
		if len(ix.Columns) > 32 {
			return "", pgerr.New(codeProgramLimit, "cannot use more than 32 columns in an index")
		}
		ns, err := takenNames(ctx, a.tx.Root, def.Schema)
		if err != nil {
			return "", err
		}
		if ix.Name == "" {
			ix.Name = ns.chooseRelationName(def.Name, indexNameAddition(names), "idx", false)
		} else if ns.rels[ix.Name] {
			if s.IfNotExists {
				a.s.notice(pgerr.New(pgerr.DuplicateTable, "relation %q already exists, skipping", ix.Name))
				return "CREATE INDEX", nil
			}
			return "", pgerr.New(pgerr.DuplicateTable, "relation %q already exists", ix.Name)
		}
		if ix.Rows, err = a.tx.BuildIndex(ctx, t, &ix); err != nil {
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
func indexColumnOrder(pos int, el *pg.IndexElem) versioning.IndexColumn {
	c := versioning.IndexColumn{Column: pos, Desc: el.Ordering == pg.SortByDir_SORTBY_DESC}
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
func (a *analyzer) putTable(ctx context.Context, def *versioning.Table) error {
	old, _, err := a.tx.Root.Table(ctx, def.Schema, def.Name)
	if err != nil {
		return err
	}
	root, err := a.tx.Root.PutTable(ctx, def)
	if err != nil {
		return err
	}
	if root, err = syncRefs(ctx, root, old, def); err != nil {
		return err
	}
	a.tx.SetRoot(root)
	return nil
}

// cloneTable returns a copy of a table record that can be changed without
// touching the original (records are shared by the transaction's cache).
func cloneTable(t *versioning.Table) *versioning.Table {
	c := *t
	c.Columns = append([]versioning.Column(nil), t.Columns...)
	c.PrimaryKey = append([]int(nil), t.PrimaryKey...)
	c.Indexes = append([]versioning.Index(nil), t.Indexes...)
	for i := range c.Indexes {
		c.Indexes[i].Columns = append([]versioning.IndexColumn(nil), c.Indexes[i].Columns...)
		c.Indexes[i].Include = append([]int(nil), c.Indexes[i].Include...)
	}
	c.Checks = append([]versioning.Check(nil), t.Checks...)
	c.Inherits = slices.Clone(t.Inherits)
	c.ForeignKeys = append([]versioning.ForeignKey(nil), t.ForeignKeys...)
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
		rel, _, name, err := a.dropTarget(ctx, obj, relIndex, s.MissingOk)
		if err != nil {
			return "", err
		}
		if rel.kind == relNone {
			continue
		}
		def := cloneTable(rel.table)
		if rel.index < 0 || def.Indexes[rel.index].Constraint {
			return "", pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop index %s because constraint %s on table %s requires it", name, name, def.Name).
				WithHint("You can drop constraint %s on table %s instead.", name, def.Name)
		}
		def.Indexes = append(def.Indexes[:rel.index], def.Indexes[rel.index+1:]...)
		if err := a.putTable(ctx, def); err != nil {
			return "", err
		}
	}
	return "DROP INDEX", nil
}

// splitName returns the schema ("" if unqualified) and name of a
// qualified name's parts (a database part is ignored).
func splitName(parts []string) (string, string) {
	name := parts[len(parts)-1]
	if len(parts) > 1 {
		return parts[len(parts)-2], name
	}
	return "", name
}

// wrongObjectType is DROP's error for a name of another kind: DROP INDEX
// on a table, DROP TABLE on a sequence.
func wrongObjectType(name string, is, want relKind) error {
	return pgerr.New(pgerr.WrongObjectType, "%q is not %s", name, article(want)).
		WithHint("Use DROP %s to remove %s.", strings.ToUpper(is.String()), article(is))
}

func article(k relKind) string {
	switch k {
	case relIndex:
		return "an index"
	case relView:
		return "a view"
	}
	return "a " + k.String()
}

// indexExpression analyzes an expression key column of CREATE INDEX: its
// type, its text, and the name PostgreSQL's index naming gives it (the
// function's name, else "expr").
func (a *analyzer) indexExpression(t *exec.Table, el *pg.IndexElem) (versioning.IndexColumn, string, error) {
	if err := immutableOnly(el.Expr, "index expression"); err != nil {
		return versioning.IndexColumn{}, "", err
	}
	e, err := a.expr(el.Expr, tableScope(t, t.Def.Name))
	if err != nil {
		return versioning.IndexColumn{}, "", err
	}
	text, err := deparseExpr(el.Expr)
	if err != nil {
		return versioning.IndexColumn{}, "", err
	}
	c := indexColumnOrder(-1, el)
	et := e.Type()
	if et.OID == exec.OIDUnknown {
		et = exec.TText
	}
	c.Expr, c.ExprType, c.ExprTypmod = text, et.OID, et.Typmod
	name := "expr"
	if fc := el.Expr.GetFuncCall(); fc != nil {
		name = opName(fc.Funcname)
	}
	return c, name, nil
}

// indexPredicate analyzes a partial index's WHERE clause.
func (a *analyzer) indexPredicate(t *exec.Table, n *pg.Node) (string, error) {
	e, err := a.expr(n, tableScope(t, t.Def.Name))
	if err != nil {
		return "", err
	}
	if _, err := a.coerce(e, exec.TBool, "argument of WHERE", -1); err != nil {
		return "", err
	}
	if err := immutableOnly(n, "index predicate"); err != nil {
		return "", err
	}
	return deparseExpr(n)
}

// immutableOnly refuses the functions whose value changes from call to
// call, which an index or a partition key cannot hold (PostgreSQL
// requires IMMUTABLE ones); where says which ("index expression").
func immutableOnly(n *pg.Node, where string) error {
	var bad string
	visitNodes(n, func(x *pg.Node) {
		if fc := x.GetFuncCall(); fc != nil {
			switch name := opName(fc.Funcname); name {
			case "now", "random", "nextval", "currval", "clock_timestamp", "statement_timestamp", "timeofday", "gen_random_uuid", "current_timestamp":
				bad = name
			}
		}
		if x.GetSqlvalueFunction() != nil {
			bad = "CURRENT_TIMESTAMP"
		}
	})
	if bad != "" {
		return pgerr.New(pgerr.InvalidObjectDefinition, "functions in %s must be marked IMMUTABLE", where)
	}
	return nil
}

// indexEval analyzes the expressions and predicate of an index for the
// executor (exec.Txn.IndexEval).
func (a *analyzer) indexEval(t *exec.Table, ix *versioning.Index) (*exec.IndexEval, error) {
	sc := tableScope(t, t.Def.Name)
	ie := &exec.IndexEval{Exprs: make([]exec.Expr, len(ix.Columns))}
	for i, c := range ix.Columns {
		if c.Expr == "" {
			continue
		}
		n, err := parseExpr(c.Expr)
		if err != nil {
			return nil, err
		}
		e, err := a.expr(n, sc)
		if err != nil {
			return nil, err
		}
		want := exec.T{OID: c.ExprType, Typmod: c.ExprTypmod}
		if e.Type() != want {
			if e, err = a.assignOrIO(e, want, "expr"); err != nil {
				return nil, err
			}
		}
		ie.Exprs[i] = e
	}
	if ix.Where != "" {
		n, err := parseExpr(ix.Where)
		if err != nil {
			return nil, err
		}
		e, err := a.expr(n, sc)
		if err != nil {
			return nil, err
		}
		if ie.Where, err = a.coerce(e, exec.TBool, "argument of WHERE", -1); err != nil {
			return nil, err
		}
	}
	return ie, nil
}
