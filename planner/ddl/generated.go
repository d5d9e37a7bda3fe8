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

// Stored generated columns: col type GENERATED ALWAYS AS (expr) STORED.
// The expression is stored as the column's Default with Generated set
// (sqldef.Column), as PostgreSQL keeps it in pg_attrdef with
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
	d.def.Columns[pos].Generated = sqldef.GeneratedStored
	d.gens = append(d.gens, generationClause{pos: pos, con: con})
}

// addGenerations analyzes the generation expressions recorded and stores
// their text.
func (d *tableDDL) addGenerations() error {
	for _, g := range d.gens {
		if _, err := d.a.generationExpr(d.def, g.pos, g.con.RawExpr); err != nil {
			return err
		}
		text, err := planner.DeparseExpr(g.con.RawExpr)
		if err != nil {
			return err
		}
		d.def.Columns[g.pos].Default = text
	}
	d.gens = nil
	return nil
}

// generationExpr analyzes n as the generation expression of column pos of
// def, with PostgreSQL's checks and errors, and returns it converted to
// the column's type.
func (a *analyzer) generationExpr(def *sqldef.Table, pos int, n *pg.Node) (exec.Expr, error) {
	var bad error
	planner.VisitNodes(n, func(x *pg.Node) {
		if bad != nil {
			return
		}
		if sl := x.GetSubLink(); sl != nil {
			bad = planner.WithPos(pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in column generation expression"), sl.Location)
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
	e, called, err := a.ClauseExpr("column generation expressions", n, planner.TableScope(t, def.Name))
	if err != nil {
		return nil, err
	}
	immutable := mutableCall(n) == ""
	for _, f := range called {
		immutable = immutable && (f.Volatility == 'i' || inlinedImmutable(f))
	}
	if !immutable {
		return nil, pgerr.New(pgerr.InvalidObjectDefinition, "generation expression is not immutable")
	}
	out, err := a.AssignColumn(e, t.Cols[pos], -1)
	return out, defaultMismatch(err)
}

// checkGenerationRef refuses a column reference that a generation
// expression of a column of def may not hold.
func checkGenerationRef(def *sqldef.Table, cr *pg.ColumnRef) error {
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
		return planner.WithPos(pgerr.New(pgerr.InvalidObjectDefinition, "cannot use whole-row variable in column generation expression").
			WithDetail("This would cause the generated column to depend on its own value."), cr.Location)
	}
	if len(names) == 2 && names[0] != def.Name || len(names) > 2 {
		return nil // not this table's: the analysis will say
	}
	if star {
		return wholeRow()
	}
	name := names[len(names)-1]
	if i := planner.ColumnIndex(def, name); i >= 0 {
		if def.Columns[i].Generated != 0 {
			return planner.WithPos(pgerr.New(pgerr.InvalidObjectDefinition, "cannot use generated column %q in column generation expression", name).
				WithDetail("A generated column cannot reference another generated column."), cr.Location)
		}
		return nil
	}
	if planner.IsSystemColumn(name) && name != "tableoid" { // a generation expression may read tableoid alone
		return planner.WithPos(pgerr.New(pgerr.InvalidColumnReference, "cannot use system column %q in column generation expression", name), cr.Location)
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
	planner.VisitNodes(n, func(x *pg.Node) {
		if fc := x.GetFuncCall(); fc != nil {
			switch name := planner.OpName(fc.Funcname); name {
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

// inlinedImmutable reports whether a call of f is immutable once
// inlined, as PostgreSQL's check of a generation expression sees it (it
// looks at the expression after SQL functions are inlined): f is a SQL
// function whose body is one SELECT of one expression, with no FROM or
// other clause, calling no function that may change between calls. Its
// declared volatility does not matter then. (The calls of user functions
// in the body are not followed.)
func inlinedImmutable(f *sqldef.Function) bool {
	if f.Language != "sql" || f.ReturnsSet {
		return false
	}
	r, err := pg.Parse(f.Body)
	if err != nil || len(r.Stmts) != 1 {
		return false
	}
	sel := r.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 || sel.FromClause != nil || sel.WhereClause != nil ||
		sel.GroupClause != nil || sel.HavingClause != nil || sel.SortClause != nil || sel.LimitCount != nil ||
		sel.LimitOffset != nil || sel.ValuesLists != nil || sel.Op != pg.SetOperation_SET_OPERATION_UNDEFINED && sel.Op != pg.SetOperation_SETOP_NONE {
		return false
	}
	body := sel.TargetList[0].GetResTarget().GetVal()
	sublink := false
	planner.VisitNodes(body, func(x *pg.Node) { sublink = sublink || x.GetSubLink() != nil })
	return !sublink && mutableCall(body) == ""
}

// ALTER TABLE and generated columns.

// dropExpression runs ALTER COLUMN c DROP EXPRESSION [IF EXISTS]: the
// column keeps its values and becomes an ordinary one.
func (a *analyzer) dropExpression(ctx context.Context, def *sqldef.Table, cmd *pg.AlterTableCmd) error {
	pos, err := alterColumn(def, cmd.Name)
	if err != nil {
		return err
	}
	c := &def.Columns[pos]
	if c.Generated == 0 {
		if cmd.MissingOk {
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "column %q of relation %q is not a stored generated column, skipping", c.Name, def.Name))
			return nil
		}
		return pgerr.New(pgerr.ObjectNotInPrerequisite, "column %q of relation %q is not a stored generated column", c.Name, def.Name)
	}
	c.Generated, c.Default = 0, ""
	return a.putTable(ctx, def)
}

// checkDropExpression refuses DROP EXPRESSION where PostgreSQL does: an
// inherited column's expression is its parent's to drop, and ONLY cannot
// leave the children generating a column their parent stores.
func checkDropExpression(def *sqldef.Table, kids []*exec.Table, name string, inh, recursing bool) error {
	if !inh && len(kids) > 0 {
		return pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE / DROP EXPRESSION must be applied to child tables too")
	}
	if i := planner.ColumnIndex(def, name); i >= 0 && def.Columns[i].InhCount > 0 && !recursing {
		return pgerr.New(pgerr.InvalidTableDefinition, "cannot drop generation expression from inherited column")
	}
	return nil
}

// generatedReaders returns the generated columns of def whose
// expressions read column name.
func generatedReaders(def *sqldef.Table, name string) []string {
	var out []string
	for _, c := range def.Columns {
		if c.Generated != 0 && !c.Dropped && c.Name != name && planner.ExprReads(c.Default, name) {
			out = append(out, c.Name)
		}
	}
	return out
}

// dropGeneratedReaders drops, for DROP COLUMN name ... CASCADE, the
// generated columns of t computed from column name; without CASCADE they
// keep it (2BP01). It returns t as it is after.
func (a *analyzer) dropGeneratedReaders(ctx context.Context, t *exec.Table, name string, behavior pg.DropBehavior) (*exec.Table, error) {
	deps := generatedReaders(t.Def, name)
	if len(deps) == 0 {
		return t, nil
	}
	what := func(col string) string { return fmt.Sprintf("column %s of table %s", col, t.Def.Name) }
	if behavior != pg.DropBehavior_DROP_CASCADE {
		return nil, pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop %s because other objects depend on it", what(name)).
			WithDetail("%s depends on %s", what(deps[0]), what(name)).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	if len(deps) == 1 {
		a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to %s", what(deps[0])))
	} else {
		lines := make([]string, len(deps))
		for i, d := range deps {
			lines[i] = "drop cascades to " + what(d)
		}
		a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to %d other objects", len(deps)).WithDetail("%s", strings.Join(lines, "\n")))
	}
	for _, d := range deps {
		if err := a.dropColumn(ctx, t, cloneTable(t.Def), &pg.AlterTableCmd{Name: d, Behavior: behavior}); err != nil {
			return nil, err
		}
		cur, ok, err := a.tx.Table(ctx, t.Def.Schema, t.Def.Name)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", t.Def.Name)
		}
		t = cur
	}
	return t, nil
}

// checkAlterTypeGenerated refuses ALTER COLUMN name TYPE where PostgreSQL
// does: on a column a generation expression reads, and with USING on a
// generated column, whose values its expression gives.
func checkAlterTypeGenerated(def *sqldef.Table, pos int, using bool) error {
	c := def.Columns[pos]
	if deps := generatedReaders(def, c.Name); len(deps) > 0 {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot alter type of a column used by a generated column").
			WithDetail("Column %q is used by generated column %q.", c.Name, deps[0])
	}
	if c.Generated != 0 && using {
		return pgerr.New(pgerr.InvalidColumnDefinition, "cannot specify USING when altering type of generated column").
			WithDetail("Column %q is a generated column.", c.Name)
	}
	return nil
}

// defaultOfGenerated is the error of SET or DROP DEFAULT on generated
// column c of def.
func defaultOfGenerated(def *sqldef.Table, c *sqldef.Column, drop bool) error {
	err := pgerr.New(pgerr.SyntaxError, "column %q of relation %q is a generated column", c.Name, def.Name)
	if drop {
		err = err.WithHint("Use ALTER TABLE ... ALTER COLUMN ... DROP EXPRESSION instead.")
	}
	return err
}

// checkPartitionKeyGenerated refuses a partition key column that is, or
// an expression that reads, a generated column of def: rows are routed
// before their generated columns are computed.
func checkPartitionKeyGenerated(def *sqldef.Table, el *pg.PartitionElem) error {
	generated := planner.GeneratedRead(def, el.Expr)
	if i := planner.ColumnIndex(def, el.Name); el.Expr == nil && i >= 0 && def.Columns[i].Generated != 0 {
		generated = el.Name
	}
	if generated == "" {
		return nil
	}
	return planner.WithPos(pgerr.New(pgerr.InvalidObjectDefinition, "cannot use generated column in partition key").
		WithDetail("Column %q is a generated column.", generated), el.Location)
}

// mergeInheritedGeneration checks column c of a parent against have, the
// column of the same name inherited from an earlier parent: both are
// generated, by the same expression, or neither is.
func mergeInheritedGeneration(have *sqldef.Column, c sqldef.Column) error {
	switch {
	case have.Generated != c.Generated:
		return pgerr.New(pgerr.DatatypeMismatch, "inherited column %q has a generation conflict", c.Name)
	case c.Generated != 0 && have.Default != c.Default:
		return pgerr.New(pgerr.InvalidColumnDefinition, "column %q inherits conflicting generation expressions", c.Name).
			WithHint("To resolve the conflict, specify a generation expression explicitly.")
	}
	return nil
}

// inheritedColumnGeneration checks the definition cd that a new table
// gives its inherited column c: a generated column's expression is its
// parent's, and a partition's generated columns are its parent's only.
func inheritedColumnGeneration(c *sqldef.Column, cd *pg.ColumnDef, partition bool) error {
	for _, n := range cd.Constraints {
		con := n.GetConstraint()
		switch {
		case con.Contype == pg.ConstrType_CONSTR_GENERATED && partition:
			return pgerr.New(pgerr.FeatureNotSupported, "generated columns are not supported on partitions")
		case c.Generated == 0:
		case con.Contype == pg.ConstrType_CONSTR_GENERATED:
			return pgerr.New(pgerr.InvalidColumnDefinition, "child column %q specifies generation expression", c.Name).
				WithHint("Omit the generation expression in the definition of the child table column to inherit the generation expression from the parent table.")
		case con.Contype == pg.ConstrType_CONSTR_DEFAULT:
			return pgerr.New(pgerr.InvalidColumnDefinition, "column %q inherits from generated column but specifies default", c.Name)
		case con.Contype == pg.ConstrType_CONSTR_IDENTITY:
			return pgerr.New(pgerr.InvalidColumnDefinition, "column %q inherits from generated column but specifies identity", c.Name)
		}
	}
	return nil
}

// checkForeignKeyGenerated refuses the referential actions that would
// write a generated column among cols, the referencing columns of
// foreign key con of def (the SQL standard's rule).
func checkForeignKeyGenerated(def *sqldef.Table, con *pg.Constraint, cols []int) error {
	for _, pos := range cols {
		if def.Columns[pos].Generated == 0 {
			continue
		}
		switch con.FkUpdAction {
		case "n", "d", "c":
			return pgerr.New(pgerr.SyntaxError, "invalid %s action for foreign key constraint containing generated column", "ON UPDATE")
		}
		switch con.FkDelAction {
		case "n", "d":
			return pgerr.New(pgerr.SyntaxError, "invalid %s action for foreign key constraint containing generated column", "ON DELETE")
		}
	}
	return nil
}

// checkWhenGenerated refuses a BEFORE trigger's WHEN condition that reads
// a generated column of NEW (def's), which is not computed yet when it
// runs.
func checkWhenGenerated(def *sqldef.Table, when *pg.Node) error {
	var bad error
	planner.VisitNodes(when, func(x *pg.Node) {
		cr := x.GetColumnRef()
		if cr == nil || bad != nil || len(cr.Fields) != 2 || cr.Fields[0].GetString_().GetSval() != "new" {
			return
		}
		err := pgerr.New(pgerr.InvalidObjectDefinition, "BEFORE trigger's WHEN condition cannot reference NEW generated columns")
		if cr.Fields[1].GetAStar() != nil {
			if slices.ContainsFunc(def.Columns, func(c sqldef.Column) bool { return c.Generated != 0 && !c.Dropped }) {
				bad = planner.WithPos(err.WithDetail("A whole-row reference is used and the table contains generated columns."), cr.Location)
			}
			return
		}
		name := cr.Fields[1].GetString_().GetSval()
		if i := planner.ColumnIndex(def, name); i >= 0 && def.Columns[i].Generated != 0 {
			bad = planner.WithPos(err.WithDetail("Column %q is a generated column.", name), cr.Location)
		}
	})
	return bad
}

// finishWithSelf is finish for CREATE TABLE. A generation expression may
// name the table it belongs to (tableoid = 't'::regclass), as in
// PostgreSQL, where the table exists when its expressions are analyzed:
// so the statement's table is in the transaction's root while they are,
// and only then.
func (d *tableDDL) finishWithSelf(ctx context.Context) error {
	if len(d.gens) == 0 {
		return d.finish(ctx)
	}
	tx := d.a.tx
	saved := tx.Root()
	defer tx.SetRoot(saved)
	empty, err := tx.EmptyMap(ctx)
	if err != nil {
		return err
	}
	self := cloneTable(d.def)
	self.Rows, self.Indexes = empty, nil
	root, err := saved.PutTable(ctx, self)
	if err != nil {
		return err
	}
	tx.SetRoot(root)
	return d.finish(ctx)
}

// dropGenerationsOf handles, for DROP FUNCTION f, the generated columns
// whose expressions call a function of f's name in f's schema: they keep
// f (2BP01), or with CASCADE go with it. (A stored expression names the
// function; which overload it calls is settled when it runs, so every
// call of the name counts.)
func (a *analyzer) dropGenerationsOf(ctx context.Context, f *sqldef.Function, cascade bool) error {
	tables, err := a.tx.Root().Tables(ctx)
	if err != nil {
		return err
	}
	for _, def := range tables {
		for _, c := range def.Columns {
			if c.Generated == 0 || c.Dropped || !a.callsFunction(c.Default, f) {
				continue
			}
			what := fmt.Sprintf("column %s of table %s", c.Name, def.Name)
			if !cascade {
				return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop function %s because other objects depend on it", functionSignature(f)).
					WithDetail("%s depends on function %s", what, functionSignature(f)).
					WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
			}
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to %s", what))
			t, ok, err := a.tx.Table(ctx, def.Schema, def.Name)
			if err != nil || !ok {
				return err
			}
			if err := a.dropColumn(ctx, t, cloneTable(t.Def), &pg.AlterTableCmd{Name: c.Name, Behavior: pg.DropBehavior_DROP_CASCADE}); err != nil {
				return err
			}
		}
	}
	return nil
}

// dropPartitionKeysOf handles, for DROP FUNCTION f, the partitioned
// tables whose partition key calls f: they keep f (2BP01), or with
// CASCADE go with it, as PostgreSQL's dependencies have it.
func (a *analyzer) dropPartitionKeysOf(ctx context.Context, f *sqldef.Function, cascade bool) error {
	tables, err := a.tx.Root().Tables(ctx)
	if err != nil {
		return err
	}
	var drop []*sqldef.Table
	for _, def := range tables {
		if !def.Partitioned() || !slices.ContainsFunc(def.PartitionKey.Exprs, func(x sqldef.PartitionExpr) bool {
			return x.Expr != "" && a.callsFunction(x.Expr, f)
		}) {
			continue
		}
		if !cascade {
			return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop function %s because other objects depend on it", functionSignature(f)).
				WithDetail("table %s depends on function %s", def.Name, functionSignature(f)).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		drop = append(drop, def)
	}
	if len(drop) == 0 {
		return nil
	}
	return a.dropCascadedTables(ctx, drop)
}

// callsFunction reports whether stored expression expr calls a function
// of f's name that resolves to f's schema (by the session's search path
// where the call does not name one, as when it runs).
func (a *analyzer) callsFunction(expr string, f *sqldef.Function) bool {
	n, err := planner.ParseExpr(expr)
	if err != nil {
		return false
	}
	calls := false
	planner.VisitNodes(n, func(x *pg.Node) {
		fc := x.GetFuncCall()
		if fc == nil {
			return
		}
		schema, name := planner.SplitName(planner.NameList(fc.Funcname))
		if name != f.Name {
			return
		}
		if schema == "" {
			calls = calls || slices.Contains(a.s.RelationPath(), f.Schema)
			return
		}
		calls = calls || a.s.ResolveSchemaName(schema) == f.Schema
	})
	return calls
}
