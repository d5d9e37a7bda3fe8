package ddl

import (
	"context"
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Extended statistics objects (CREATE STATISTICS) are kept with their
// table, for the catalog (pg_statistic_ext, psql's \d+) and for LIKE
// INCLUDING STATISTICS: the planner gathers no statistics, so they
// change no plan. Their names are unique in the table's schema.

// createStatistics runs CREATE STATISTICS [IF NOT EXISTS] [name]
// [(kinds)] ON columns and expressions FROM table.
func (a *analyzer) createStatistics(s *pg.CreateStatsStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		const tag = "CREATE STATISTICS"
		if len(s.Relations) != 1 || s.Relations[0].GetRangeVar() == nil {
			return "", pgerr.New(pgerr.FeatureNotSupported, "only a single relation is allowed in CREATE STATISTICS")
		}
		rv := s.Relations[0].GetRangeVar()
		rel, _, err := a.LookupRelation(ctx, rv.Schemaname, rv.Relname)
		if err != nil {
			return "", err
		}
		switch {
		case rel.Kind == planner.RelNone:
			return "", planner.WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(rv)), rv.Location)
		case rel.Kind != planner.RelTable:
			return "", pgerr.New(pgerr.WrongObjectType, "cannot define statistics for relation %q", rv.Relname).
				WithDetail("This operation is not supported for this kind of relation.")
		}
		def := cloneTable(rel.Table)
		if err := a.requireTableOwner(def); err != nil {
			return "", err
		}
		var st sqldef.StatisticsObject
		var names []string // for the name PostgreSQL chooses
		for _, n := range s.Exprs {
			el := n.GetStatsElem()
			if el.Expr != nil {
				if cr := el.Expr.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
					el.Name, el.Expr = cr.Fields[0].GetString_().Sval, nil // (col) is the column
				}
			}
			if el.Expr == nil {
				pos := planner.ColumnIndex(def, el.Name)
				if pos < 0 {
					return "", pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", el.Name)
				}
				if slices.Contains(st.Columns, pos) {
					return "", pgerr.New(pgerr.DuplicateColumn, "duplicate column name in statistics definition")
				}
				st.Columns = append(st.Columns, pos)
				names = append(names, el.Name)
				continue
			}
			if _, _, err := a.ClauseExpr("statistics expressions", el.Expr, planner.TableScope(exec.NewTable(def), def.Name)); err != nil {
				return "", err
			}
			text, err := planner.DeparseExpr(el.Expr)
			if err != nil {
				return "", err
			}
			if slices.Contains(st.Exprs, text) {
				return "", pgerr.New(pgerr.DuplicateObject, "duplicate expression in statistics definition")
			}
			st.Exprs = append(st.Exprs, text)
			names = append(names, "expr")
		}
		n := len(st.Columns) + len(st.Exprs)
		if n == 1 && len(st.Exprs) == 0 {
			return "", pgerr.New(pgerr.InvalidObjectDefinition, "extended statistics require at least 2 columns")
		}
		if n > 8 {
			return "", pgerr.New(codeProgramLimit, "cannot have more than 8 columns in statistics")
		}
		kinds, err := statisticsKinds(s.StatTypes, n, len(st.Exprs))
		if err != nil {
			return "", err
		}
		st.Kinds = kinds
		taken, err := a.statisticsNames(ctx, def.Schema)
		if err != nil {
			return "", err
		}
		if len(s.Defnames) > 0 {
			schema, name := planner.SplitName(planner.NameList(s.Defnames))
			if schema != "" && schema != def.Schema {
				return "", pgerr.New(pgerr.FeatureNotSupported, "statistics objects in another schema than their table's are not supported")
			}
			if taken[name] {
				if s.IfNotExists {
					a.s.Notice(pgerr.New(pgerr.DuplicateObject, "statistics object %q already exists, skipping", name))
					return tag, nil
				}
				return "", pgerr.New(pgerr.DuplicateObject, "statistics object %q already exists", name)
			}
			st.Name = name
		} else {
			st.Name = chooseStatisticsName(def.Name, names, taken)
		}
		st.Comment = s.Stxcomment
		def.Statistics = append(slices.Clone(def.Statistics), st)
		return tag, a.putTable(ctx, def)
	}, nil
}

// statisticsKinds returns stxkind for the kinds CREATE STATISTICS names
// (all when none is named) over n columns and expressions, exprs of them
// expressions: 'e' when there are expressions; a single expression has
// only that.
func statisticsKinds(types []*pg.Node, n, exprs int) (string, error) {
	var kinds string
	for _, t := range types {
		switch k := t.GetString_().GetSval(); k {
		case "ndistinct":
			kinds += "d"
		case "dependencies":
			kinds += "f"
		case "mcv":
			kinds += "m"
		default:
			return "", pgerr.New(pgerr.InvalidParameterValue, "unrecognized statistics kind %q", k)
		}
	}
	if n == 1 {
		if kinds != "" {
			return "", pgerr.New(pgerr.InvalidObjectDefinition, "when building statistics on a single expression, statistics kinds may not be specified")
		}
		return "e", nil
	}
	if kinds == "" {
		kinds = "dfm"
	}
	if exprs > 0 {
		kinds += "e"
	}
	return kinds, nil
}

// chooseStatisticsName names a statistics object of table as PostgreSQL's
// ChooseExtendedStatisticName: the table, its column names ("expr" for
// an expression) and "stat", numbered past the names taken.
func chooseStatisticsName(table string, names []string, taken map[string]bool) string {
	addition := strings.Join(names, "_")
	if len(addition) > planner.NameDataLen-1 {
		addition = planner.ClipUTF8(addition, planner.NameDataLen-1)
	}
	label := "stat"
	for pass := 1; ; pass++ {
		name := makeObjectName(table, addition, label)
		if !taken[name] {
			return name
		}
		label = fmt.Sprintf("stat%d", pass)
	}
}

// statisticsNames returns the names of the statistics objects of the
// tables of schema.
func (a *analyzer) statisticsNames(ctx context.Context, schema string) (map[string]bool, error) {
	tables, err := a.tx.Root().Tables(ctx)
	if err != nil {
		return nil, err
	}
	taken := map[string]bool{}
	for _, t := range tables {
		if t.Schema != schema {
			continue
		}
		for _, st := range t.Statistics {
			taken[st.Name] = true
		}
	}
	return taken, nil
}

// findStatistics returns the table holding statistics object names (a
// schema-qualified or search-path name) and its position there; nil
// when there is none.
func (a *analyzer) findStatistics(ctx context.Context, names []string) (*sqldef.Table, int, error) {
	schema, name := planner.SplitName(names)
	tables, err := a.tx.Root().Tables(ctx)
	if err != nil {
		return nil, 0, err
	}
	schemas := []string{schema}
	if schema == "" {
		schemas = a.s.RelationPath()
	}
	for _, sch := range schemas {
		for _, t := range tables {
			if t.Schema != sch {
				continue
			}
			if i := slices.IndexFunc(t.Statistics, func(st sqldef.StatisticsObject) bool { return st.Name == name }); i >= 0 {
				return t, i, nil
			}
		}
	}
	return nil, 0, nil
}

// dropStatistics runs DROP STATISTICS [IF EXISTS] name, ....
func (a *analyzer) dropStatistics(ctx context.Context, s *pg.DropStmt) (string, error) {
	for _, obj := range s.Objects {
		names := planner.NameList(obj.GetList().GetItems())
		t, i, err := a.findStatistics(ctx, names)
		if err != nil {
			return "", err
		}
		if t == nil {
			if s.MissingOk {
				a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "statistics object %q does not exist, skipping", strings.Join(names, ".")))
				continue
			}
			return "", pgerr.New(pgerr.UndefinedObject, "statistics object %q does not exist", strings.Join(names, "."))
		}
		if err := a.requireTableOwner(t); err != nil {
			return "", err
		}
		def := cloneTable(t)
		def.Statistics = slices.Delete(slices.Clone(def.Statistics), i, i+1)
		if err := a.putTable(ctx, def); err != nil {
			return "", err
		}
	}
	return "DROP STATISTICS", nil
}

// commentStatistics runs COMMENT ON STATISTICS name IS text.
func (a *analyzer) commentStatistics(ctx context.Context, names []string, text string) error {
	t, i, err := a.findStatistics(ctx, names)
	if err != nil {
		return err
	}
	if t == nil {
		return pgerr.New(pgerr.UndefinedObject, "statistics object %q does not exist", strings.Join(names, "."))
	}
	def := cloneTable(t)
	def.Statistics = slices.Clone(def.Statistics)
	def.Statistics[i].Comment = text
	return a.putTable(ctx, def)
}

// copyStatistics gives def, being created with LIKE src INCLUDING
// STATISTICS, src's statistics objects: on the columns of the same
// names, named for def as PostgreSQL names them, with their comments
// when comments are copied too.
func (a *analyzer) copyStatistics(ctx context.Context, src, def *sqldef.Table, comments bool) error {
	if len(src.Statistics) == 0 {
		return nil
	}
	taken, err := a.statisticsNames(ctx, def.Schema)
	if err != nil {
		return err
	}
	for _, st := range def.Statistics {
		taken[st.Name] = true
	}
	for _, st := range src.Statistics {
		c := sqldef.StatisticsObject{Exprs: slices.Clone(st.Exprs), Kinds: st.Kinds}
		var names []string
		for _, pos := range st.Columns {
			name := src.Columns[pos].Name
			c.Columns = append(c.Columns, planner.ColumnIndex(def, name))
			names = append(names, name)
		}
		for range st.Exprs {
			names = append(names, "expr")
		}
		c.Name = chooseStatisticsName(def.Name, names, taken)
		taken[c.Name] = true
		if comments {
			c.Comment = st.Comment
		}
		def.Statistics = append(def.Statistics, c)
	}
	return nil
}
