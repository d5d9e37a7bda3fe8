package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
)

// Stored generated columns: col type GENERATED ALWAYS AS (expr) STORED.
// The expression is stored as the column's Default with Generated set
// (versioning.Column), as PostgreSQL keeps it in pg_attrdef with
// pg_attribute.attgenerated 's'; so it travels with the table's
// definition through commits, diffs and merges like a default does.
// Every INSERT, UPDATE, ON CONFLICT DO UPDATE and COPY FROM computes it
// on the rows it writes (exec.GeneratedCols, computed after BEFORE ROW
// triggers); no statement may write the column another way.
//
// The expression reads the other columns of the row, and only them: no
// other generated column, whole-row reference, system column but
// tableoid, subquery, aggregate, window or set-returning function, and
// only immutable functions, so that a row's stored value is a function of
// its other values.

// generationClause is the GENERATED ALWAYS AS (expr) STORED of column pos,
// analyzed once all the table's columns are known (the expression may
// read columns defined after it).
type generationClause struct {
	pos int
	con *pg.Constraint
}

// generation records column pos's generation clause; the column is a
// generated one from now on, which the expressions of the others may not
// read.
func (d *tableDDL) generation(pos int, con *pg.Constraint) {
	d.def.Columns[pos].Generated = versioning.GeneratedStored
	d.gens = append(d.gens, generationClause{pos: pos, con: con})
}

// addGenerations analyzes the generation expressions recorded and stores
// their text.
func (d *tableDDL) addGenerations() error {
	for _, g := range d.gens {
		if _, err := d.a.generationExpr(d.def, g.pos, g.con.RawExpr); err != nil {
			return err
		}
		text, err := deparseExpr(g.con.RawExpr)
		if err != nil {
			return err
		}
		d.def.Columns[g.pos].Default = text
	}
	d.gens = nil
	return nil
}

// systemColumns are the system columns a generation expression may not
// read (tableoid it may: a row's table is known when it is written).
var systemColumns = map[string]bool{"ctid": true, "xmin": true, "cmin": true, "xmax": true, "cmax": true}

// generationExpr analyzes n as the generation expression of column pos of
// def, with PostgreSQL's checks and errors, and returns it converted to
// the column's type.
func (a *analyzer) generationExpr(def *versioning.Table, pos int, n *pg.Node) (exec.Expr, error) {
	var bad error
	visitNodes(n, func(x *pg.Node) {
		if bad != nil {
			return
		}
		if sl := x.GetSubLink(); sl != nil {
			bad = withPos(pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in column generation expression"), sl.Location)
			return
		}
		if cr := x.GetColumnRef(); cr != nil {
			bad = checkGenerationRef(def, cr)
		}
	})
	if bad != nil {
		return nil, bad
	}
	t := exec.NewTable(def)
	saved, calls := a.clause, len(a.called)
	a.clause = "column generation expressions"
	e, err := a.expr(n, tableScope(t, def.Name))
	a.clause = saved
	if err != nil {
		return nil, err
	}
	immutable := mutableCall(n) == ""
	for _, f := range a.called[calls:] {
		immutable = immutable && f.Volatility == 'i'
	}
	if !immutable {
		return nil, pgerr.New(pgerr.InvalidObjectDefinition, "generation expression is not immutable")
	}
	return a.assignColumn(e, t.Cols[pos], -1)
}

// checkGenerationRef refuses a column reference that a generation
// expression of a column of def may not hold.
func checkGenerationRef(def *versioning.Table, cr *pg.ColumnRef) error {
	var names []string
	star := false
	for _, f := range cr.Fields {
		if f.GetAStar() != nil {
			star = true
			continue
		}
		names = append(names, f.GetString_().GetSval())
	}
	wholeRow := func() error {
		return withPos(pgerr.New(pgerr.InvalidObjectDefinition, "cannot use whole-row variable in column generation expression").
			WithDetail("This would cause the generated column to depend on its own value."), cr.Location)
	}
	if len(names) == 2 && names[0] != def.Name || len(names) > 2 {
		return nil // not this table's: the analysis will say
	}
	if star {
		return wholeRow()
	}
	name := names[len(names)-1]
	if i := columnIndex(def, name); i >= 0 {
		if def.Columns[i].Generated != 0 {
			return withPos(pgerr.New(pgerr.InvalidObjectDefinition, "cannot use generated column %q in column generation expression", name).
				WithDetail("A generated column cannot reference another generated column."), cr.Location)
		}
		return nil
	}
	if systemColumns[name] {
		return withPos(pgerr.New(pgerr.InvalidColumnReference, "cannot use system column %q in column generation expression", name), cr.Location)
	}
	if len(names) == 1 && name == def.Name {
		return wholeRow()
	}
	return nil
}

// mutableCall returns the name of a built-in function of n whose value
// may change between calls with the same arguments (PostgreSQL's stable
// and volatile functions, the special SQL value functions such as
// CURRENT_TIMESTAMP), "" if there is none. The functions named are those
// of the catalog that expressions stored in a table could plausibly call.
func mutableCall(n *pg.Node) string {
	var bad string
	visitNodes(n, func(x *pg.Node) {
		if fc := x.GetFuncCall(); fc != nil {
			switch name := opName(fc.Funcname); name {
			case "now", "random", "random_normal", "setseed", "nextval", "currval", "lastval", "setval",
				"clock_timestamp", "statement_timestamp", "transaction_timestamp", "timeofday",
				"gen_random_uuid", "uuid_generate_v4", "current_setting", "set_config", "txid_current",
				"pg_backend_pid", "current_database", "current_schema", "current_schemas", "version", "pg_sleep":
				bad = name
			}
		}
		if x.GetSqlvalueFunction() != nil && bad == "" {
			bad = "CURRENT_TIMESTAMP"
		}
	})
	return bad
}

// generatedExprs analyzes the generation expressions of t's columns for
// a statement that writes its rows: nil when t has none.
func (a *analyzer) generatedExprs(t *exec.Table) (exec.GeneratedCols, error) {
	var out exec.GeneratedCols
	for _, c := range t.Cols {
		if c.Generated == "" || c.Dropped {
			continue
		}
		if out == nil {
			out = make(exec.GeneratedCols, len(t.Cols))
		}
		n, err := parseExpr(c.Generated)
		if err != nil {
			return nil, err
		}
		e, err := a.expr(n, tableScope(t, t.Def.Name))
		if err != nil {
			return nil, err
		}
		if out[c.Pos], err = a.assignColumn(e, c, -1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// updatedGenerated returns the generated columns of t whose expressions
// read a column that sets (an UPDATE's, by position) assigns.
func updatedGenerated(t *exec.Table, sets []exec.Expr) []int {
	var out []int
	for _, g := range t.Cols {
		if g.Generated == "" || g.Dropped {
			continue
		}
		for pos, e := range sets {
			if e != nil && exprReads(g.Generated, t.Cols[pos].Name) {
				out = append(out, g.Pos)
				break
			}
		}
	}
	return out
}

// insertGenerated is the error of a value other than DEFAULT given to
// generated column c by INSERT.
func insertGenerated(c exec.Column) error {
	return pgerr.New(pgerr.GeneratedAlways, "cannot insert a non-DEFAULT value into column %q", c.Name).
		WithDetail("Column %q is a generated column.", c.Name)
}

// updateGenerated is the error of a value other than DEFAULT assigned to
// generated column c by UPDATE or ON CONFLICT DO UPDATE.
func updateGenerated(c exec.Column) error {
	return pgerr.New(pgerr.GeneratedAlways, "column %q can only be updated to DEFAULT", c.Name).
		WithDetail("Column %q is a generated column.", c.Name)
}

// copyGenerated is the error of a generated column named in COPY's
// column list.
func copyGenerated(name string) error {
	return pgerr.New(pgerr.InvalidColumnReference, "column %q is a generated column", name).
		WithDetail("Generated columns cannot be used in COPY.")
}
