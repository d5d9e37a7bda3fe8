package ddl

import (
	"context"
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// ALTER TABLE on a table with children reaches them as PostgreSQL's
// does: new columns, column types, defaults, NOT NULL and inheritable
// CHECK constraints go down to every descendant; dropping a column or a
// constraint drops it from the children that have it only by
// inheritance. ONLY (inh false) stops at the table where PostgreSQL
// allows it and fails where the children must follow (a partitioned
// table's always must).

// alterInherited runs one ALTER TABLE command on t and, unless ONLY,
// on its descendants; recursing is set for the descendants, which may
// change what they inherit only this way.
func (a *analyzer) alterInherited(ctx context.Context, t *exec.Table, cmd *pg.AlterTableCmd, inh, recursing bool) error {
	if t.Def.OfType != "" && !recursing {
		if err := typedTableColumns(cmd.Subtype); err != nil {
			return err
		}
	}
	kids, err := a.childTables(ctx, t.Def)
	if err != nil {
		return err
	}
	switch cmd.Subtype {
	case pg.AlterTableType_AT_AddColumn:
		return a.addColumnInherited(ctx, t, cmd, kids, inh, recursing)
	case pg.AlterTableType_AT_DropColumn:
		return a.dropColumnInherited(ctx, t, cmd, kids, inh, recursing)
	case pg.AlterTableType_AT_AlterColumnType:
		if err := a.checkAlterInheritedColumn(t.Def, cmd.Name, recursing); err != nil {
			return err
		}
		if err := checkNotPartitionKey(t.Def, cmd.Name, "alter"); err != nil {
			return err
		}
		if !inh && hasColumnIn(kids, cmd.Name) {
			return pgerr.New(pgerr.InvalidTableDefinition, "type of inherited column %q must be changed in child tables too", cmd.Name)
		}
	case pg.AlterTableType_AT_SetNotNull:
		if !inh && t.Def.Partitioned() {
			for _, k := range kids {
				if i := planner.ColumnIndex(k.Def, cmd.Name); i >= 0 && !k.Def.Columns[i].NotNull {
					return pgerr.New(pgerr.InvalidTableDefinition, "constraint must be added to child tables too").
						WithDetail("Column %q of relation %q is not already NOT NULL.", cmd.Name, k.Def.Name).
						WithHint("Do not specify the ONLY keyword.")
				}
			}
		}
	case pg.AlterTableType_AT_DropNotNull:
		if t.Def.Partitioned() && !inh && !recursing && len(kids) > 0 {
			return errOnlyPartitioned()
		}
		if err := a.checkParentNotNull(ctx, t.Def, cmd.Name); err != nil {
			return err
		}
	case pg.AlterTableType_AT_AddConstraint:
		con := cmd.Def.GetConstraint()
		if con.Contype == pg.ConstrType_CONSTR_CHECK {
			return a.addCheckInherited(ctx, t, con, kids, inh)
		}
		if err := a.alterCmd(ctx, t, cmd); err != nil {
			return err
		}
		if con.Contype != pg.ConstrType_CONSTR_PRIMARY || !inh || t.Def.Partitioned() {
			return nil
		}
		// A primary key's columns are NOT NULL in the children too
		// (PostgreSQL's ATPrepAddPrimaryKey).
		for _, k := range con.Keys {
			set := &pg.AlterTableCmd{Subtype: pg.AlterTableType_AT_SetNotNull, Name: k.GetString_().GetSval()}
			for _, kid := range kids {
				if err := a.alterChild(ctx, kid, set, true); err != nil {
					return err
				}
			}
		}
		return nil
	case pg.AlterTableType_AT_DropConstraint:
		return a.dropCheckInherited(ctx, t, cmd, kids, inh, recursing)
	case pg.AlterTableType_AT_ValidateConstraint:
		return a.validateCheckInherited(ctx, t, cmd, kids)
	case pg.AlterTableType_AT_ColumnDefault, pg.AlterTableType_AT_SetStorage:
	case pg.AlterTableType_AT_DropExpression:
		if err := checkDropExpression(t.Def, kids, cmd.Name, inh, recursing); err != nil {
			return err
		}
	default:
		return a.alterCmd(ctx, t, cmd)
	}
	if err := a.alterCmd(ctx, t, cmd); err != nil {
		return err
	}
	if !inh {
		return nil
	}
	for _, k := range kids {
		if planner.ColumnIndex(k.Def, cmd.Name) < 0 {
			continue
		}
		if err := a.alterChild(ctx, k, cmd, true); err != nil {
			return err
		}
	}
	return nil
}

// alterChild runs cmd on child table k, as the transaction now has it,
// and on its descendants.
func (a *analyzer) alterChild(ctx context.Context, k *exec.Table, cmd *pg.AlterTableCmd, inh bool) error {
	cur, ok, err := a.tx.Table(ctx, k.Def.Schema, k.Def.Name)
	if err != nil || !ok {
		return err
	}
	return a.alterInherited(ctx, cur, cmd, inh, true)
}

// childTables returns the tables that inherit directly from def.
func (a *analyzer) childTables(ctx context.Context, def *sqldef.Table) ([]*exec.Table, error) {
	names, err := a.tx.Root().Children(ctx, def.Schema, def.Name)
	if err != nil {
		return nil, err
	}
	out := make([]*exec.Table, 0, len(names))
	for _, n := range names {
		t, ok, err := a.tx.Table(ctx, n.Schema, n.Name)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, t)
		}
	}
	return out, nil
}

// hasColumnIn reports whether one of tables has a live column name.
func hasColumnIn(tables []*exec.Table, name string) bool {
	return slices.ContainsFunc(tables, func(t *exec.Table) bool { return planner.ColumnIndex(t.Def, name) >= 0 })
}

// checkAlterInheritedColumn fails for a command on a column t inherits,
// unless the command came down from the parent.
func (a *analyzer) checkAlterInheritedColumn(def *sqldef.Table, name string, recursing bool) error {
	if i := planner.ColumnIndex(def, name); i >= 0 && def.Columns[i].InhCount > 0 && !recursing {
		return pgerr.New(pgerr.InvalidTableDefinition, "cannot alter inherited column %q", name)
	}
	return nil
}

// checkNotPartitionKey fails if column name is in def's partition key,
// which cannot be dropped or altered (what is "drop" or "alter").
func checkNotPartitionKey(def *sqldef.Table, name, what string) error {
	if !def.Partitioned() {
		return nil
	}
	for i, pos := range def.PartitionKey.Columns {
		if pos >= 0 && def.Columns[pos].Name == name || pos < 0 && planner.ExprReads(def.PartitionKey.Expr(i), name) {
			return pgerr.New(pgerr.InvalidTableDefinition, "cannot %s column %q because it is part of the partition key of relation %q", what, name, def.Name)
		}
	}
	return nil
}

// checkParentNotNull fails if def is a partition and its parent's column
// name is NOT NULL, which its partitions must be too.
func (a *analyzer) checkParentNotNull(ctx context.Context, def *sqldef.Table, name string) error {
	if !def.IsPartition() {
		return nil
	}
	p, ok, err := a.tx.Root().Table(ctx, def.Inherits[0].Schema, def.Inherits[0].Name)
	if err != nil || !ok {
		return err
	}
	if i := planner.ColumnIndex(p, name); i >= 0 && p.Columns[i].NotNull {
		return pgerr.New(pgerr.InvalidTableDefinition, "column %q is marked NOT NULL in parent table", name)
	}
	return nil
}

// addColumnInherited runs ADD COLUMN on t and its descendants: a child
// that has a column of the name already merges it, if its type is the
// same.
func (a *analyzer) addColumnInherited(ctx context.Context, t *exec.Table, cmd *pg.AlterTableCmd, kids []*exec.Table, inh, recursing bool) error {
	name := cmd.Def.GetColumnDef().Colname
	if t.Def.IsPartition() && !recursing {
		return pgerr.New(pgerr.WrongObjectType, "cannot add column to a partition")
	}
	if planner.ColumnIndex(t.Def, name) >= 0 && cmd.MissingOk {
		return a.alterCmd(ctx, t, cmd) // a notice, and nothing to recurse
	}
	if !inh && len(kids) > 0 {
		return pgerr.New(pgerr.InvalidTableDefinition, "column must be added to child tables too")
	}
	if inh && len(kids) > 0 && hasIdentityClause(cmd.Def.GetColumnDef()) {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot recursively add identity column to table that has child tables")
	}
	if err := a.alterCmd(ctx, t, cmd); err != nil {
		return err
	}
	added, ok, err := a.tx.Table(ctx, t.Def.Schema, t.Def.Name)
	if err != nil || !ok {
		return err
	}
	col := added.Def.Columns[planner.ColumnIndex(added.Def, name)]
	for _, k := range kids {
		if i := planner.ColumnIndex(k.Def, name); i >= 0 {
			have := k.Def.Columns[i]
			if have.Type != col.Type || have.Typmod != col.Typmod {
				return pgerr.New(pgerr.DatatypeMismatch, "child table %q has different type for column %q", k.Def.Name, name)
			}
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "merging definition of column %q for child %q", name, k.Def.Name))
			def := cloneTable(k.Def)
			def.Columns[i].InhCount++
			if err := a.putTable(ctx, def); err != nil {
				return err
			}
			continue
		}
		if err := a.alterChild(ctx, k, cmd, true); err != nil {
			return err
		}
		if err := a.updateColumn(ctx, k.Def, name, func(c *sqldef.Column) { c.InhCount, c.NotLocal = 1, true }); err != nil {
			return err
		}
	}
	return nil
}

// updateColumn changes column name of table def as the transaction now
// has it.
func (a *analyzer) updateColumn(ctx context.Context, def *sqldef.Table, name string, change func(*sqldef.Column)) error {
	cur, ok, err := a.tx.Root().Table(ctx, def.Schema, def.Name)
	if err != nil || !ok {
		return err
	}
	nd := cloneTable(cur)
	i := planner.ColumnIndex(nd, name)
	if i < 0 {
		return nil
	}
	change(&nd.Columns[i])
	return a.putTable(ctx, nd)
}

// dropColumnInherited runs DROP COLUMN on t, and on the children that
// have the column only from t; with ONLY the children keep it as their
// own.
func (a *analyzer) dropColumnInherited(ctx context.Context, t *exec.Table, cmd *pg.AlterTableCmd, kids []*exec.Table, inh, recursing bool) error {
	i := planner.ColumnIndex(t.Def, cmd.Name)
	if i < 0 {
		return a.alterCmd(ctx, t, cmd) // missing: an error or a notice
	}
	if t.Def.Columns[i].InhCount > 0 && !recursing {
		return pgerr.New(pgerr.InvalidTableDefinition, "cannot drop inherited column %q", cmd.Name)
	}
	if err := checkNotPartitionKey(t.Def, cmd.Name, "drop"); err != nil {
		return err
	}
	if !inh && t.Def.Partitioned() && len(kids) > 0 {
		return pgerr.New(pgerr.InvalidTableDefinition, "cannot drop column from only the partitioned table when partitions exist").
			WithHint("Do not specify the ONLY keyword.")
	}
	if err := a.alterCmd(ctx, t, cmd); err != nil {
		return err
	}
	for _, k := range kids {
		j := planner.ColumnIndex(k.Def, cmd.Name)
		if j < 0 {
			continue
		}
		if c := k.Def.Columns[j]; inh && c.InhCount == 1 && c.NotLocal {
			if err := a.alterChild(ctx, k, cmd, true); err != nil {
				return err
			}
			continue
		}
		if err := a.updateColumn(ctx, k.Def, cmd.Name, func(c *sqldef.Column) {
			c.InhCount--
			c.NotLocal = c.NotLocal && inh
		}); err != nil {
			return err
		}
	}
	return nil
}

// addCheckInherited runs ADD CONSTRAINT ... CHECK on t and, unless it is
// NO INHERIT, on its descendants under the same name.
func (a *analyzer) addCheckInherited(ctx context.Context, t *exec.Table, con *pg.Constraint, kids []*exec.Table, inh bool) error {
	if con.IsNoInherit && t.Def.Partitioned() {
		return pgerr.New(pgerr.InvalidTableDefinition, "cannot add NO INHERIT constraint to partitioned table %q", t.Def.Name)
	}
	if !inh && !con.IsNoInherit && len(kids) > 0 {
		return pgerr.New(pgerr.InvalidTableDefinition, "constraint must be added to child tables too")
	}
	n := len(t.Def.Checks)
	if err := a.addConstraint(ctx, t, cloneTable(t.Def), con); err != nil {
		return err
	}
	if con.IsNoInherit {
		return nil
	}
	after, _, err := a.tx.Root().Table(ctx, t.Def.Schema, t.Def.Name)
	if err != nil || len(after.Checks) <= n {
		return err
	}
	return a.inheritCheck(ctx, kids, after.Checks[len(after.Checks)-1])
}

// inheritCheck gives the tables kids, and their descendants, the CHECK
// constraint ck of their parent, validating their rows.
func (a *analyzer) inheritCheck(ctx context.Context, kids []*exec.Table, ck sqldef.Check) error {
	for _, k := range kids {
		def := cloneTable(k.Def)
		if i := slices.IndexFunc(def.Checks, func(c sqldef.Check) bool { return c.Name == ck.Name }); i >= 0 {
			if err := a.mergeInheritedCheck(def, &def.Checks[i], ck); err != nil {
				return err
			}
			if err := a.putTable(ctx, def); err != nil {
				return err
			}
			continue
		}
		child := sqldef.Check{Name: ck.Name, Expr: ck.Expr, NotValid: ck.NotValid, InhCount: 1, NotLocal: true}
		if !ck.NotValid {
			if err := a.validateChecks(ctx, k, def, []sqldef.Check{child}); err != nil {
				return err
			}
		}
		def.Checks = append(def.Checks, child)
		if err := a.putTable(ctx, def); err != nil {
			return err
		}
		grandkids, err := a.childTables(ctx, def)
		if err != nil {
			return err
		}
		if err := a.inheritCheck(ctx, grandkids, child); err != nil {
			return err
		}
	}
	return nil
}

// errOnlyPartitioned refuses to drop a constraint from a partitioned
// table but not from its partitions (ONLY).
func errOnlyPartitioned() error {
	return pgerr.New(pgerr.InvalidTableDefinition, "cannot remove constraint from only the partitioned table when partitions exist").
		WithHint("Do not specify the ONLY keyword.")
}

// validateCheckInherited runs VALIDATE CONSTRAINT on t and, for an
// inheritable CHECK constraint, on the descendants that have it, ONLY
// or not, as PostgreSQL does: a parent's constraint is valid only when
// its children's are.
func (a *analyzer) validateCheckInherited(ctx context.Context, t *exec.Table, cmd *pg.AlterTableCmd, kids []*exec.Table) error {
	if err := a.alterCmd(ctx, t, cmd); err != nil {
		return err
	}
	i := slices.IndexFunc(t.Def.Checks, func(c sqldef.Check) bool { return c.Name == cmd.Name })
	if i < 0 || t.Def.Checks[i].NoInherit {
		return nil
	}
	for _, k := range kids {
		if !slices.ContainsFunc(k.Def.Checks, func(c sqldef.Check) bool { return c.Name == cmd.Name }) {
			continue
		}
		if err := a.alterChild(ctx, k, cmd, true); err != nil {
			return err
		}
	}
	return nil
}

// mergeInheritedCheck merges the CHECK constraint ck a parent is given
// into its child def's constraint of the same name, have, as
// PostgreSQL's MergeWithExistingConstraint does: they must be the same
// expression, and a partition's constraint becomes its parent's only.
func (a *analyzer) mergeInheritedCheck(def *sqldef.Table, have *sqldef.Check, ck sqldef.Check) error {
	switch {
	case have.Expr != ck.Expr:
		return pgerr.New(pgerr.DuplicateObject, "constraint %q for relation %q already exists", ck.Name, def.Name)
	case have.NoInherit:
		return pgerr.New(pgerr.InvalidObjectDefinition, "constraint %q conflicts with non-inherited constraint on relation %q", ck.Name, def.Name)
	case !ck.NotValid && have.NotValid:
		return pgerr.New(pgerr.InvalidObjectDefinition, "constraint %q conflicts with NOT VALID constraint on relation %q", ck.Name, def.Name)
	}
	a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "merging constraint %q with inherited definition", ck.Name))
	if def.IsPartition() {
		have.InhCount, have.NotLocal = 1, true
		return nil
	}
	have.InhCount++
	return nil
}

// dropCheckInherited runs DROP CONSTRAINT on t; a CHECK constraint goes
// from the children that have it only from t too.
func (a *analyzer) dropCheckInherited(ctx context.Context, t *exec.Table, cmd *pg.AlterTableCmd, kids []*exec.Table, inh, recursing bool) error {
	i := slices.IndexFunc(t.Def.Checks, func(c sqldef.Check) bool { return c.Name == cmd.Name })
	if i < 0 {
		if !recursing && slices.ContainsFunc(t.Def.ForeignKeys, func(fk sqldef.ForeignKey) bool { return fk.Name == cmd.Name && fk.Inherited }) {
			// A partition's copy of its parent's key goes with the parent's.
			return pgerr.New(pgerr.InvalidTableDefinition, "cannot drop inherited constraint %q of relation %q", cmd.Name, t.Def.Name)
		}
		return a.alterCmd(ctx, t, cmd)
	}
	ck := t.Def.Checks[i]
	if ck.InhCount > 0 && !recursing {
		return pgerr.New(pgerr.InvalidTableDefinition, "cannot drop inherited constraint %q of relation %q", ck.Name, t.Def.Name)
	}
	if t.Def.Partitioned() && !inh && !ck.NoInherit && len(kids) > 0 {
		return errOnlyPartitioned()
	}
	if err := a.alterCmd(ctx, t, cmd); err != nil {
		return err
	}
	if ck.NoInherit {
		return nil
	}
	for _, k := range kids {
		j := slices.IndexFunc(k.Def.Checks, func(c sqldef.Check) bool { return c.Name == ck.Name })
		if j < 0 {
			continue
		}
		if c := k.Def.Checks[j]; inh && c.InhCount == 1 && c.NotLocal {
			if err := a.alterChild(ctx, k, cmd, true); err != nil {
				return err
			}
			continue
		}
		def := cloneTable(k.Def)
		def.Checks[j].InhCount--
		def.Checks[j].NotLocal = def.Checks[j].NotLocal && inh
		if err := a.putTable(ctx, def); err != nil {
			return err
		}
	}
	return nil
}

// renameColumnInherited runs RENAME COLUMN on def and its descendants,
// which must follow: a column they inherit is renamed only from above.
func (a *analyzer) renameColumnInherited(ctx context.Context, def *sqldef.Table, old, name string, inh, recursing bool) error {
	if def.OfType != "" && !recursing {
		return pgerr.New(pgerr.WrongObjectType, "cannot rename column of typed table")
	}
	if i := planner.ColumnIndex(def, old); i >= 0 && def.Columns[i].InhCount > 0 && !recursing {
		return pgerr.New(pgerr.InvalidTableDefinition, "cannot rename inherited column %q", old)
	}
	kids, err := a.childTables(ctx, def)
	if err != nil {
		return err
	}
	if !inh && hasColumnIn(kids, old) {
		return pgerr.New(pgerr.InvalidTableDefinition, "inherited column %q must be renamed in child tables too", old)
	}
	if err := a.renameColumn(ctx, cloneTable(def), old, name); err != nil {
		return err
	}
	for _, k := range kids {
		if planner.ColumnIndex(k.Def, old) < 0 {
			continue
		}
		cur, ok, err := a.tx.Root().Table(ctx, k.Def.Schema, k.Def.Name)
		if err != nil || !ok {
			return err
		}
		if err := a.renameColumnInherited(ctx, cur, old, name, true, true); err != nil {
			return err
		}
	}
	return nil
}

// hasIdentityClause reports whether a column definition makes an identity
// column.
func hasIdentityClause(cd *pg.ColumnDef) bool {
	for _, cn := range cd.Constraints {
		if cn.GetConstraint().GetContype() == pg.ConstrType_CONSTR_IDENTITY {
			return true
		}
	}
	return false
}
