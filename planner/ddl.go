package planner

import (
	"context"
	"fmt"
	"math"
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/versioning"
)

// utility is a statement that is not a plan (DDL, transaction control,
// SET): it runs once and returns its command tag.
type utility func(ctx context.Context) (string, error)

func schemaOf(rv *pg.RangeVar) string {
	if rv.Schemaname != "" {
		return rv.Schemaname
	}
	return "public"
}

func (a *analyzer) createTable(s *pg.CreateStmt) (utility, error) {
	if len(s.InhRelations) > 0 || s.Partspec != nil || s.OfTypename != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "inheritance, partitioning and typed tables are not supported")
	}
	schema, name := schemaOf(s.Relation), s.Relation.Relname
	def := &versioning.Table{Schema: schema, Name: name}
	var seqs []*versioning.Sequence
	addUnique := func(con *pg.Constraint, cols []int) error {
		if con.Contype == pg.ConstrType_CONSTR_PRIMARY {
			if def.PrimaryKey != nil {
				return withPos(pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", name), con.Location)
			}
			def.PrimaryKey = cols
			def.PrimaryKeyName = con.Conname
			if def.PrimaryKeyName == "" {
				def.PrimaryKeyName = name + "_pkey"
			}
			for _, c := range cols {
				def.Columns[c].NotNull = true
			}
			return nil
		}
		ix := versioning.Index{Name: con.Conname, Unique: true, Constraint: true}
		if ix.Name == "" {
			ix.Name = name
			for _, c := range cols {
				ix.Name += "_" + def.Columns[c].Name
			}
			ix.Name += "_key"
		}
		for _, c := range cols {
			ix.Columns = append(ix.Columns, versioning.IndexColumn{Column: c})
		}
		def.Indexes = append(def.Indexes, ix)
		return nil
	}
	colIndex := func(n string, loc int32) (int, error) {
		for i, c := range def.Columns {
			if c.Name == n {
				return i, nil
			}
		}
		return 0, withPos(pgerr.New(pgerr.UndefinedColumn, "column %q named in key does not exist", n), loc)
	}
	var tableCons []*pg.Constraint
	for _, elt := range s.TableElts {
		if con := elt.GetConstraint(); con != nil {
			tableCons = append(tableCons, con)
			continue
		}
		cd := elt.GetColumnDef()
		if cd == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "LIKE in CREATE TABLE is not supported yet")
		}
		for _, c := range def.Columns {
			if c.Name == cd.Colname {
				return nil, withPos(pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", cd.Colname), cd.Location)
			}
		}
		t, serial, err := resolveType(cd.TypeName)
		if err != nil {
			return nil, withPos(err.(*pgerr.Error), cd.TypeName.Location)
		}
		col := versioning.Column{Name: cd.Colname, Type: t.OID, Typmod: t.Typmod, NotNull: cd.IsNotNull}
		pos := len(def.Columns)
		if serial {
			seq := newSequence(schema, fmt.Sprintf("%s_%s_seq", name, cd.Colname), t.OID)
			seq.OwnedBy = name + "." + cd.Colname
			seqs = append(seqs, seq)
			col.Default = fmt.Sprintf("nextval('%s'::regclass)", seq.Name)
			col.NotNull = true
		}
		def.Columns = append(def.Columns, col)
		for _, cn := range cd.Constraints {
			con := cn.GetConstraint()
			switch con.Contype {
			case pg.ConstrType_CONSTR_NOTNULL:
				def.Columns[pos].NotNull = true
			case pg.ConstrType_CONSTR_NULL:
				def.Columns[pos].NotNull = false
			case pg.ConstrType_CONSTR_DEFAULT:
				text, err := deparseExpr(con.RawExpr)
				if err != nil {
					return nil, err
				}
				def.Columns[pos].Default = text
			case pg.ConstrType_CONSTR_PRIMARY, pg.ConstrType_CONSTR_UNIQUE:
				if err := addUnique(con, []int{pos}); err != nil {
					return nil, err
				}
			case pg.ConstrType_CONSTR_CHECK:
				if err := a.addCheck(def, con, cd.Colname); err != nil {
					return nil, err
				}
			default:
				return nil, withPos(pgerr.New(pgerr.FeatureNotSupported, "constraint %s is not supported yet", con.Contype), con.Location)
			}
		}
	}
	for _, con := range tableCons {
		switch con.Contype {
		case pg.ConstrType_CONSTR_PRIMARY, pg.ConstrType_CONSTR_UNIQUE:
			var cols []int
			for _, k := range con.Keys {
				c, err := colIndex(k.GetString_().Sval, con.Location)
				if err != nil {
					return nil, err
				}
				cols = append(cols, c)
			}
			if err := addUnique(con, cols); err != nil {
				return nil, err
			}
		case pg.ConstrType_CONSTR_CHECK:
			if err := a.addCheck(def, con, ""); err != nil {
				return nil, err
			}
		default:
			return nil, withPos(pgerr.New(pgerr.FeatureNotSupported, "constraint %s is not supported yet", con.Contype), con.Location)
		}
	}
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		if _, ok, err := a.tx.Schema(ctx, schema); err != nil {
			return "", err
		} else if !ok {
			return "", withPos(pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", schema), s.Relation.Location)
		}
		if _, exists, err := a.tx.Table(ctx, schema, name); err != nil {
			return "", err
		} else if exists {
			if s.IfNotExists {
				a.s.notice(pgerr.New("42P07", "relation %q already exists, skipping", name))
				return "CREATE TABLE", nil
			}
			return "", pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
		}
		empty, err := prolly.NewMap(ctx, a.tx.Root.Store())
		if err != nil {
			return "", err
		}
		def.Rows = empty.Root()
		for i := range def.Indexes {
			def.Indexes[i].Rows = empty.Root()
		}
		root := a.tx.Root
		for _, seq := range seqs {
			if root, err = root.PutSequence(ctx, seq); err != nil {
				return "", err
			}
		}
		if root, err = root.PutTable(ctx, def); err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
		return "CREATE TABLE", nil
	}, nil
}

func (a *analyzer) addCheck(def *versioning.Table, con *pg.Constraint, col string) error {
	text, err := deparseExpr(con.RawExpr)
	if err != nil {
		return err
	}
	name := con.Conname
	if name == "" {
		name = def.Name + "_check"
		if col != "" {
			name = def.Name + "_" + col + "_check"
		}
		for i := 1; slices.ContainsFunc(def.Checks, func(c versioning.Check) bool { return c.Name == name }); i++ {
			name = fmt.Sprintf("%s_check%d", def.Name, i)
		}
	}
	def.Checks = append(def.Checks, versioning.Check{Name: name, Expr: text})
	return nil
}

func newSequence(schema, name string, typ uint32) *versioning.Sequence {
	max := int64(math.MaxInt64)
	switch typ {
	case exec.OIDInt4:
		max = math.MaxInt32
	case exec.OIDInt2:
		max = math.MaxInt16
	}
	return &versioning.Sequence{Schema: schema, Name: name, Type: typ, Start: 1, Increment: 1, Min: 1, Max: max, Cache: 1, Last: 1}
}

func (a *analyzer) drop(s *pg.DropStmt) (utility, error) {
	if s.RemoveType != pg.ObjectType_OBJECT_TABLE {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "DROP %s is not supported yet", s.RemoveType)
	}
	type name struct{ schema, table string }
	var names []name
	for _, obj := range s.Objects {
		var parts []string
		for _, p := range obj.GetList().Items {
			parts = append(parts, p.GetString_().Sval)
		}
		n := name{"public", parts[len(parts)-1]}
		if len(parts) > 1 {
			n.schema = parts[len(parts)-2]
		}
		names = append(names, n)
	}
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		root := a.tx.Root
		for _, n := range names {
			t, ok, err := root.Table(ctx, n.schema, n.table)
			if err != nil {
				return "", err
			}
			if !ok {
				if s.MissingOk {
					a.s.notice(pgerr.New("00000", "table %q does not exist, skipping", n.table))
					continue
				}
				return "", pgerr.New(pgerr.UndefinedTable, "table %q does not exist", n.table)
			}
			if root, err = root.DropTable(ctx, n.schema, n.table); err != nil {
				return "", err
			}
			for _, c := range t.Columns {
				if c.Default == "" {
					continue
				}
				// Sequences owned by the table's columns go with it.
				seqs, err := root.Sequences(ctx)
				if err != nil {
					return "", err
				}
				for _, seq := range seqs {
					if seq.Schema == n.schema && seq.OwnedBy == n.table+"."+c.Name {
						if root, err = root.DropSequence(ctx, seq.Schema, seq.Name); err != nil {
							return "", err
						}
					}
				}
			}
		}
		a.tx.SetRoot(root)
		return "DROP TABLE", nil
	}, nil
}
