package ddl

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// ALTER TABLE. Commands run one after the other, each against the table
// as the previous one left it; a command that changes stored rows (a new
// primary key, a column type, a volatile default) rewrites the table's
// maps in one pass (exec.Txn.Rewrite), the others only change the record.
// Adding a column with a constant default rewrites nothing: old rows read
// the value stored in the column's record (Missing), as PostgreSQL's
// attmissingval does.

// env returns an evaluation environment for DDL that computes values
// (defaults of new columns, rewritten rows, constraint validation).
func (a *analyzer) env(ctx context.Context) *exec.Env {
	return &exec.Env{Ctx: ctx, Settings: a.s.Settings(), TxnStart: time.Now(), Txn: a.tx, Session: a.s}
}

// alterTable runs ALTER TABLE [IF EXISTS] t command, ...
func (a *analyzer) alterTable(s *pg.AlterTableStmt) (planner.Utility, error) {
	tag := "ALTER TABLE"
	switch s.Objtype {
	case pg.ObjectType_OBJECT_INDEX:
		tag = "ALTER INDEX"
	case pg.ObjectType_OBJECT_SEQUENCE:
		tag = "ALTER SEQUENCE"
	case pg.ObjectType_OBJECT_VIEW:
		return a.alterView(s)
	case pg.ObjectType_OBJECT_TYPE:
		return a.alterCompositeType(s)
	case pg.ObjectType_OBJECT_MATVIEW:
		tag = "ALTER MATERIALIZED VIEW" // a table that keeps its query
	}
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		rel, schema, err := a.LookupRelation(ctx, s.Relation.Schemaname, s.Relation.Relname)
		if err != nil {
			return "", err
		}
		if rel.Kind == planner.RelNone {
			if sch := s.Relation.Schemaname; sch == "" || sch == "pg_catalog" {
				if _, ok := catalog.Lookup("pg_catalog", s.Relation.Relname); ok {
					return "", pgerr.New(pgerr.InsufficientPrivilege, "permission denied: %q is a system catalog", s.Relation.Relname)
				}
			}
			if s.MissingOk {
				a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "relation %q does not exist, skipping", s.Relation.Relname))
				return tag, nil
			}
			return "", planner.WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(s.Relation)), s.Relation.Location)
		}
		if rel.Table != nil {
			if err := a.requireTableOwner(rel.Table); err != nil {
				return "", err
			}
		}
		if rel.Kind == planner.RelView && viewCommands(s.Cmds) {
			// ALTER TABLE takes a view's commands too, as ALTER VIEW.
			run, err := a.alterView(s)
			if err == nil {
				_, err = run(ctx)
			}
			return tag, err
		}
		if rel.Kind != planner.RelTable {
			// Owner, statistics and storage settings of indexes and
			// sequences have nothing to change here.
			for _, n := range s.Cmds {
				switch n.GetAlterTableCmd().Subtype {
				case pg.AlterTableType_AT_AttachPartition:
					if rel.Kind != planner.RelIndex {
						return "", pgerr.New(pgerr.WrongObjectType, "%q is not an index", s.Relation.Relname)
					}
					if err := a.attachIndex(ctx, rel, schema, n.GetAlterTableCmd().Def.GetPartitionCmd()); err != nil {
						return "", err
					}
				case pg.AlterTableType_AT_SetStatistics:
					if rel.Kind == planner.RelIndex {
						if err := indexStatistics(rel, s.Relation.Relname, n.GetAlterTableCmd().Num); err != nil {
							return "", err
						}
					}
				case pg.AlterTableType_AT_SetLogged, pg.AlterTableType_AT_SetUnLogged:
					if rel.Kind == planner.RelSequence {
						seq := *rel.Seq
						seq.Unlogged = n.GetAlterTableCmd().Subtype == pg.AlterTableType_AT_SetUnLogged
						root, err := a.tx.Root().PutSequence(ctx, &seq)
						if err != nil {
							return "", err
						}
						a.tx.SetRoot(root)
					}
				case pg.AlterTableType_AT_ChangeOwner,
					pg.AlterTableType_AT_SetRelOptions, pg.AlterTableType_AT_ResetRelOptions,
					pg.AlterTableType_AT_SetTableSpace:
				default:
					if action, ok := alterActionNames[n.GetAlterTableCmd().Subtype]; ok && rel.Kind == planner.RelView {
						return "", pgerr.New(pgerr.WrongObjectType, "ALTER action %s cannot be performed on relation \"%s\"", action, s.Relation.Relname).
							WithDetail("This operation is not supported for views.")
					}
					return "", pgerr.New(pgerr.WrongObjectType, "%q is not a table", s.Relation.Relname)
				}
			}
			return tag, nil
		}
		for _, n := range s.Cmds {
			t, ok, err := a.tx.Table(ctx, schema, rel.Table.Name)
			if err != nil {
				return "", err
			}
			if !ok {
				return "", pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", rel.Table.Name)
			}
			if err := a.alterInherited(ctx, t, n.GetAlterTableCmd(), s.Relation.Inh, false); err != nil {
				return "", err
			}
		}
		return tag, nil
	}, nil
}

// alterActionNames are ALTER TABLE's actions as PostgreSQL's errors name
// them (alter_table_type_to_string), for an action the relation's kind
// does not take.
var alterActionNames = map[pg.AlterTableType]string{
	pg.AlterTableType_AT_AddColumn:          "ADD COLUMN",
	pg.AlterTableType_AT_DropNotNull:        "ALTER COLUMN ... DROP NOT NULL",
	pg.AlterTableType_AT_SetNotNull:         "ALTER COLUMN ... SET NOT NULL",
	pg.AlterTableType_AT_DropColumn:         "DROP COLUMN",
	pg.AlterTableType_AT_AlterColumnType:    "ALTER COLUMN ... SET DATA TYPE",
	pg.AlterTableType_AT_AddConstraint:      "ADD CONSTRAINT",
	pg.AlterTableType_AT_DropConstraint:     "DROP CONSTRAINT",
	pg.AlterTableType_AT_AddIdentity:        "ALTER COLUMN ... ADD IDENTITY",
	pg.AlterTableType_AT_DropIdentity:       "ALTER COLUMN ... DROP IDENTITY",
	pg.AlterTableType_AT_SetStorage:         "ALTER COLUMN ... SET STORAGE",
	pg.AlterTableType_AT_EnableTrig:         "ENABLE TRIGGER",
	pg.AlterTableType_AT_DisableTrig:        "DISABLE TRIGGER",
	pg.AlterTableType_AT_AddInherit:         "INHERIT",
	pg.AlterTableType_AT_DropInherit:        "NO INHERIT",
	pg.AlterTableType_AT_EnableRowSecurity:  "ENABLE ROW SECURITY",
	pg.AlterTableType_AT_DisableRowSecurity: "DISABLE ROW SECURITY",
	pg.AlterTableType_AT_AttachPartition:    "ATTACH PARTITION",
	pg.AlterTableType_AT_DetachPartition:    "DETACH PARTITION",
}

// viewCommands reports whether ALTER VIEW runs each of cmds.
func viewCommands(cmds []*pg.Node) bool {
	for _, n := range cmds {
		switch n.GetAlterTableCmd().GetSubtype() {
		case pg.AlterTableType_AT_ColumnDefault, pg.AlterTableType_AT_ChangeOwner,
			pg.AlterTableType_AT_SetRelOptions, pg.AlterTableType_AT_ResetRelOptions:
		default:
			return false
		}
	}
	return true
}

// alterCmd runs one ALTER TABLE command on t.
func (a *analyzer) alterCmd(ctx context.Context, t *exec.Table, cmd *pg.AlterTableCmd) error {
	def := cloneTable(t.Def)
	switch cmd.Subtype {
	case pg.AlterTableType_AT_AddColumn:
		return a.addColumn(ctx, t, def, cmd)
	case pg.AlterTableType_AT_DropColumn:
		return a.dropColumn(ctx, t, def, cmd)
	case pg.AlterTableType_AT_ColumnDefault:
		pos, err := alterColumn(def, cmd.Name)
		if err != nil {
			return err
		}
		c := &def.Columns[pos]
		if c.Identity != 0 {
			return pgerr.New(pgerr.SyntaxError, "column %q of relation %q is an identity column", c.Name, def.Name).
				WithHint("Use ALTER TABLE ... ALTER COLUMN ... DROP IDENTITY instead.")
		}
		if c.Generated != 0 {
			return defaultOfGenerated(def, c, cmd.Def == nil)
		}
		c.Default = ""
		if cmd.Def != nil {
			if c.Default, err = a.columnDefault(cmd.Def, exec.T{OID: c.Type, Typmod: c.Typmod}, c.Name); err != nil {
				return err
			}
		}
		return a.putTable(ctx, def)
	case pg.AlterTableType_AT_DropNotNull:
		pos, err := alterColumn(def, cmd.Name)
		if err != nil {
			return err
		}
		c := &def.Columns[pos]
		if slices.Contains(def.PrimaryKey, pos) {
			return pgerr.New(pgerr.InvalidTableDefinition, "column %q is in a primary key", c.Name)
		}
		if c.Identity != 0 {
			return pgerr.New(pgerr.SyntaxError, "column %q of relation %q is an identity column", c.Name, def.Name)
		}
		c.NotNull = false
		return a.putTable(ctx, def)
	case pg.AlterTableType_AT_SetNotNull:
		pos, err := alterColumn(def, cmd.Name)
		if err != nil {
			return err
		}
		if def.Columns[pos].NotNull {
			return nil
		}
		if err := a.checkNoNulls(ctx, t, []int{pos}); err != nil {
			return err
		}
		def.Columns[pos].NotNull = true
		return a.putTable(ctx, def)
	case pg.AlterTableType_AT_AddConstraint:
		return a.addConstraint(ctx, t, def, cmd.Def.GetConstraint())
	case pg.AlterTableType_AT_DropConstraint:
		return a.dropConstraint(ctx, t, def, cmd)
	case pg.AlterTableType_AT_ValidateConstraint:
		for i, c := range def.Checks {
			if c.Name == cmd.Name {
				if c.NotValid {
					if err := a.validateChecks(ctx, t, def, []sqldef.Check{c}); err != nil {
						return err
					}
					def.Checks[i].NotValid = false
					return a.putTable(ctx, def)
				}
				return nil
			}
		}
		for i, fk := range def.ForeignKeys {
			if fk.Name == cmd.Name && fk.NotValid {
				if err := a.validateForeignKey(ctx, def, fk); err != nil {
					return err
				}
				def.ForeignKeys[i].NotValid = false
				return a.putTable(ctx, def)
			}
		}
		if planner.ConstraintExists(def, cmd.Name) {
			return nil
		}
		return pgerr.New(pgerr.UndefinedObject, "constraint %q of relation %q does not exist", cmd.Name, def.Name)
	case pg.AlterTableType_AT_AddOf:
		return a.addOf(ctx, def, cmd.Def.GetTypeName())
	case pg.AlterTableType_AT_DropOf:
		return a.dropOf(ctx, def)
	case pg.AlterTableType_AT_AddInherit:
		return a.addInherit(ctx, def, cmd.Def.GetRangeVar())
	case pg.AlterTableType_AT_DropInherit:
		return a.dropInherit(ctx, def, cmd.Def.GetRangeVar())
	case pg.AlterTableType_AT_AlterConstraint:
		return a.alterConstraint(ctx, def, cmd.Def.GetConstraint(), false)
	case pg.AlterTableType_AT_AlterColumnType:
		if err := columnTypePolicies(def, cmd.Name); err != nil {
			return err
		}
		return a.alterColumnType(ctx, t, def, cmd)
	case pg.AlterTableType_AT_AttachPartition:
		return a.attachPartition(ctx, t, cmd.Def.GetPartitionCmd())
	case pg.AlterTableType_AT_DetachPartition:
		return a.detachPartition(ctx, t, cmd.Def.GetPartitionCmd(), false)
	case pg.AlterTableType_AT_DetachPartitionFinalize:
		return a.detachPartition(ctx, t, cmd.Def.GetPartitionCmd(), true)
	case pg.AlterTableType_AT_DropExpression:
		return a.dropExpression(ctx, def, cmd) // generated.go
	case pg.AlterTableType_AT_AddIdentity:
		return a.addIdentity(ctx, def, cmd)
	case pg.AlterTableType_AT_SetIdentity:
		return a.setIdentity(ctx, def, cmd)
	case pg.AlterTableType_AT_DropIdentity:
		return a.dropIdentity(ctx, def, cmd)
	case pg.AlterTableType_AT_EnableTrig, pg.AlterTableType_AT_DisableTrig, pg.AlterTableType_AT_EnableTrigAll,
		pg.AlterTableType_AT_EnableAlwaysTrig, pg.AlterTableType_AT_EnableReplicaTrig,
		pg.AlterTableType_AT_DisableTrigAll, pg.AlterTableType_AT_EnableTrigUser, pg.AlterTableType_AT_DisableTrigUser:
		if cmd.Subtype == pg.AlterTableType_AT_EnableTrigAll || cmd.Subtype == pg.AlterTableType_AT_DisableTrigAll {
			if err := a.requireSystemTriggers(ctx, def); err != nil {
				return err
			}
		}
		if err := enableTrigger(def, cmd); err != nil {
			return err
		}
		return a.putTable(ctx, def)
	case pg.AlterTableType_AT_EnableRowSecurity, pg.AlterTableType_AT_DisableRowSecurity,
		pg.AlterTableType_AT_ForceRowSecurity, pg.AlterTableType_AT_NoForceRowSecurity:
		return a.setRowSecurity(ctx, def, cmd.Subtype)
	case pg.AlterTableType_AT_ChangeOwner:
		owner, err := a.newOwner(cmd.Newowner, def.Owner)
		if err != nil {
			return err
		}
		def.ACL = sqldef.ChangeACLOwner(def.ACL, planner.OwnerOf(def.Owner), owner)
		def.Owner = owner
		return a.putTable(ctx, def)
	case pg.AlterTableType_AT_SetStorage:
		return a.setStorage(ctx, def, cmd.Name, cmd.Def.GetString_().GetSval())
	case pg.AlterTableType_AT_SetStatistics,
		pg.AlterTableType_AT_SetCompression, pg.AlterTableType_AT_SetOptions, pg.AlterTableType_AT_ResetOptions:
		// Physical settings of a column, which must be there: nothing to store.
		if cmd.Name != "" && planner.ColumnIndex(def, cmd.Name) < 0 {
			return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", cmd.Name, def.Name)
		}
		return nil
	case pg.AlterTableType_AT_SetLogged, pg.AlterTableType_AT_SetUnLogged:
		return a.setLogged(ctx, def, cmd.Subtype == pg.AlterTableType_AT_SetLogged)
	case pg.AlterTableType_AT_DropOids:
		return nil // SET WITHOUT OIDS: tables have none
	case pg.AlterTableType_AT_ClusterOn:
		if def.Partitioned() {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot mark index clustered in partitioned table")
		}
		if err := clusterable(def, cmd.Name); err != nil {
			return err
		}
		def.SetClustered(cmd.Name)
		return a.putTable(ctx, def)
	case pg.AlterTableType_AT_DropCluster:
		def.SetClustered("")
		return a.putTable(ctx, def)
	case pg.AlterTableType_AT_SetRelOptions, pg.AlterTableType_AT_ResetRelOptions, pg.AlterTableType_AT_ReplaceRelOptions,
		pg.AlterTableType_AT_SetTableSpace, pg.AlterTableType_AT_ReplicaIdentity:
		// Physical and ownership settings: nothing to store.
		return nil
	}
	return pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE %s is not supported yet", cmd.Subtype)
}

// alterColumn finds the column an ALTER COLUMN names.
func alterColumn(def *sqldef.Table, name string) (int, error) {
	for i, c := range def.Columns {
		if !c.Dropped && c.Name == name {
			return i, nil
		}
	}
	return 0, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, def.Name)
}

// checkNoNulls fails with 23502 if a row has NULL in one of cols.
func (a *analyzer) checkNoNulls(ctx context.Context, t *exec.Table, cols []int) error {
	var bad = -1
	err := a.tx.EachRow(ctx, t, func(row exec.Row) error {
		for _, c := range cols {
			if row[c].IsNull() {
				bad = c
				return errStop
			}
		}
		return nil
	})
	if err != nil && err != errStop {
		return err
	}
	if bad >= 0 {
		return pgerr.New(pgerr.NotNullViolation, "column %q of relation %q contains null values", t.Cols[bad].Name, t.Def.Name)
	}
	return nil
}

// errStop ends a walk over rows early.
var errStop = pgerr.New(pgerr.SuccessfulCompletion, "stop")

// validateChecks fails with 23514 if a row of t violates one of checks.
func (a *analyzer) validateChecks(ctx context.Context, t *exec.Table, def *sqldef.Table, checks []sqldef.Check) error {
	var cs []exec.CheckConstraint
	for _, c := range checks {
		n, err := planner.ParseExpr(c.Expr)
		if err != nil {
			return err
		}
		e, _, err := a.CheckExpr(def, n)
		if err != nil {
			return err
		}
		cs = append(cs, exec.CheckConstraint{Name: c.Name, Expr: e})
	}
	env := a.env(ctx)
	violated := ""
	err := a.tx.EachRow(ctx, t, func(row exec.Row) error {
		name, ok, err := exec.CheckRow(env, cs, row)
		if err != nil {
			return err
		}
		if !ok {
			violated = name
			return errStop
		}
		return nil
	})
	if err != nil && err != errStop {
		return err
	}
	if violated != "" {
		return pgerr.New(pgerr.CheckViolation, "check constraint %q of relation %q is violated by some row", violated, def.Name)
	}
	return nil
}

// isEmpty reports whether t has no rows.
func (a *analyzer) isEmpty(ctx context.Context, t *exec.Table) (bool, error) {
	empty := true
	err := a.tx.EachRow(ctx, t, func(exec.Row) error { empty = false; return errStop })
	if err != nil && err != errStop {
		return false, err
	}
	return empty, nil
}

// addColumn runs ADD COLUMN [IF NOT EXISTS].
func (a *analyzer) addColumn(ctx context.Context, t *exec.Table, def *sqldef.Table, cmd *pg.AlterTableCmd) error {
	cd := cmd.Def.GetColumnDef()
	for _, c := range def.Columns {
		if !c.Dropped && c.Name == cd.Colname && cmd.MissingOk {
			a.s.Notice(pgerr.New(pgerr.DuplicateColumn, "column %q of relation %q already exists, skipping", cd.Colname, def.Name))
			return nil
		}
	}
	if err := a.addColumnInViews(ctx, def, cd.Colname); err != nil {
		return err
	}
	d, err := a.newTableDDL(ctx, def)
	if err != nil {
		return err
	}
	d.altering = true
	pos := len(def.Columns)
	if err := d.addColumn(ctx, cd); err != nil {
		return err
	}
	if err := a.notOwnMember(def, exec.T{OID: def.Columns[pos].Type}); err != nil {
		return err
	}
	if err := d.finish(ctx); err != nil {
		return err
	}
	if err := a.sequenceACLs(ctx, d.seqs); err != nil {
		return err
	}
	root := a.tx.Root()
	for _, seq := range d.seqs {
		if root, err = root.PutSequence(ctx, seq); err != nil {
			return err
		}
	}
	a.tx.SetRoot(root)
	col := &def.Columns[pos]
	nt := exec.NewTable(def)
	empty, err := a.isEmpty(ctx, t)
	if err != nil {
		return err
	}
	// fill is the default, evaluated per row when volatile, or the
	// generation expression of a generated column, over each row.
	var fill exec.Expr
	defText := nt.Cols[pos].Default
	dom, err := a.ColumnDomain(ctx, nt.Cols[pos])
	if err != nil {
		return err
	} else if dom != nil && defText == "" && col.Generated == 0 {
		defText = dom.Default
	}
	if col.Generated != 0 && !empty {
		gen, err := a.GeneratedExprs(nt)
		if err != nil {
			return err
		}
		fill = gen[pos]
	}
	if defText != "" && !empty {
		defs, err := a.Defaults(nt)
		if err != nil {
			return err
		}
		if volatileDefault(defText) {
			fill = defs[pos]
		} else {
			v, err := defs[pos].Eval(a.env(ctx), nil)
			if err != nil {
				return err
			}
			col.Missing = exec.EncodeMissing(nt.Cols[pos].Type, v)
			if d.newPK {
				// The rewrite for the new primary key stores it in every row.
				fill = &exec.Const{D: v, T: nt.Cols[pos].Type}
			}
		}
	}
	if col.NotNull && !empty && fill == nil && col.Missing == nil {
		return pgerr.New(pgerr.NotNullViolation, "column %q of relation %q contains null values", col.Name, def.Name)
	}
	if dom != nil && !empty && fill == nil && col.Missing == nil {
		// The rows take NULL, which the domain must allow.
		chk, err := a.DomainCheck(&exec.Const{D: exec.Null, T: nt.Cols[pos].Type}, dom)
		if err != nil {
			return err
		}
		if _, err := chk.Eval(a.env(ctx), nil); err != nil {
			return err
		}
	}
	if fill != nil || d.newPK {
		env := a.env(ctx)
		if def, err = a.tx.Rewrite(ctx, t, def, func(row exec.Row) (exec.Row, error) {
			row = append(slices.Clone(row), exec.Null)
			if fill != nil {
				v, err := fill.Eval(env, row)
				if err != nil {
					return nil, err
				}
				row[pos] = v
			}
			if col.NotNull && row[pos].IsNull() {
				return nil, pgerr.New(pgerr.NotNullViolation, "column %q of relation %q contains null values", col.Name, def.Name)
			}
			return row, nil
		}); err != nil {
			return err
		}
	} else if err := a.buildNewIndexes(ctx, def, d.newIndexes); err != nil {
		return err
	}
	if len(def.Checks) > len(t.Def.Checks) && !empty {
		after := exec.NewTable(def)
		if err := a.validateChecks(ctx, after, def, def.Checks[len(t.Def.Checks):]); err != nil {
			return err
		}
	}
	if err := a.putTable(ctx, def); err != nil {
		return err
	}
	return a.validateNewForeignKeys(ctx, def, d.newFKs)
}

// validateNewForeignKeys checks the rows of def's table against the
// foreign keys a statement added (not those added NOT VALID).
func (a *analyzer) validateNewForeignKeys(ctx context.Context, def *sqldef.Table, fks []int) error {
	for _, i := range fks {
		if fk := def.ForeignKeys[i]; !fk.NotValid {
			if err := a.validateForeignKey(ctx, def, fk); err != nil {
				return err
			}
		}
	}
	return nil
}

// buildNewIndexes builds the maps of the indexes at positions ixs of def
// from the rows of def's primary map.
func (a *analyzer) buildNewIndexes(ctx context.Context, def *sqldef.Table, ixs []int) error {
	if len(ixs) == 0 {
		return nil
	}
	t := exec.NewTable(def)
	for _, i := range ixs {
		root, err := a.buildIndex(ctx, t, &def.Indexes[i])
		if err != nil {
			return err
		}
		def.Indexes[i].Rows = root
	}
	return nil
}

// buildIndex builds index ix of t from t's rows as t's owner, as
// PostgreSQL runs index expressions and predicates in CREATE INDEX and
// REINDEX: a function they call sees the owner as current_user and
// works with the owner's privileges, not those of whoever maintains the
// table.
func (a *analyzer) buildIndex(ctx context.Context, t *exec.Table, ix *sqldef.Index) (versioning.Address, error) {
	defer a.s.RunAs(planner.OwnerOf(t.Def.Owner))()
	return a.tx.BuildIndex(ctx, t, ix)
}

// volatileDefault reports whether a default must be evaluated for each
// row (nextval, random) rather than once.
func volatileDefault(text string) bool {
	n, err := planner.ParseExpr(text)
	if err != nil {
		return true
	}
	volatile := false
	planner.VisitNodes(n, func(x *pg.Node) {
		if fc := x.GetFuncCall(); fc != nil {
			switch planner.OpName(fc.Funcname) {
			case "nextval", "random", "gen_random_uuid", "uuid_generate_v4", "clock_timestamp", "timeofday", "setval", "random_normal":
				volatile = true
			}
		}
	})
	return volatile
}

// addConstraint runs ADD CONSTRAINT (PRIMARY KEY, UNIQUE, CHECK),
// validating the rows already there.
func (a *analyzer) addConstraint(ctx context.Context, t *exec.Table, def *sqldef.Table, con *pg.Constraint) error {
	if con.Indexname != "" {
		return a.addConstraintUsingIndex(ctx, t, def, con)
	}
	if con.Conname != "" && planner.ConstraintExists(def, con.Conname) {
		if con.Contype == pg.ConstrType_CONSTR_EXCLUSION && indexNamed(def, con.Conname) {
			// Its index is made first, and the name is a relation's.
			return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", con.Conname)
		}
		if merged, err := a.mergeLocalCheck(ctx, def, con); merged || err != nil {
			return err
		}
		return pgerr.New(pgerr.DuplicateObject, "constraint %q for relation %q already exists", con.Conname, def.Name)
	}
	d, err := a.newTableDDL(ctx, def)
	if err != nil {
		return err
	}
	d.altering = true
	nChecks, nExcl := len(def.Checks), len(def.Exclusions)
	if err := d.tableConstraint(con); err != nil {
		return err
	}
	if con.Contype == pg.ConstrType_CONSTR_PRIMARY {
		for _, c := range d.ixCols[0] {
			if err := a.checkNoNulls(ctx, t, []int{c}); err != nil {
				return err
			}
		}
	}
	if err := d.finish(ctx); err != nil {
		return err
	}
	if err := checkUniqueCoversKey(def); err != nil {
		return err
	}
	if d.newPK {
		if def, err = a.tx.Rewrite(ctx, t, def, nil); err != nil {
			return err
		}
	} else if err := a.buildNewIndexes(ctx, def, d.newIndexes); err != nil {
		return err
	}
	var toCheck []sqldef.Check
	for _, c := range def.Checks[nChecks:] {
		if !c.NotValid {
			toCheck = append(toCheck, c)
		}
	}
	if len(toCheck) > 0 {
		if err := a.validateChecks(ctx, t, def, toCheck); err != nil {
			return err
		}
	}
	if err := a.validateExclusions(ctx, t, def.Exclusions[nExcl:]); err != nil {
		return err
	}
	if err := a.putTable(ctx, def); err != nil {
		return err
	}
	if def.Partitioned() && (d.newPK || len(d.newIndexes) > 0) {
		if err := a.cascadeIndexes(ctx, def); err != nil {
			return err
		}
	}
	if def.Partitioned() && len(d.newFKs) > 0 {
		if err := a.cascadeForeignKeys(ctx, def); err != nil {
			return err
		}
	}
	return a.validateNewForeignKeys(ctx, def, d.newFKs)
}

// indexStatistics checks ALTER INDEX name ALTER COLUMN num SET
// STATISTICS, which has nothing to store: only an expression column of
// the index has statistics of its own, as PostgreSQL says.
func indexStatistics(rel planner.Relation, name string, num int32) error {
	if num <= 0 {
		return nil
	}
	def := rel.Table
	var cols []sqldef.IndexColumn
	var include []int
	if rel.Index < 0 {
		for _, c := range def.PrimaryKey {
			cols = append(cols, sqldef.IndexColumn{Column: c})
		}
	} else {
		cols, include = def.Indexes[rel.Index].Columns, def.Indexes[rel.Index].Include
	}
	n := int(num)
	switch {
	case n > len(cols)+len(include):
		return pgerr.New(pgerr.UndefinedColumn, "column number %d of relation %q does not exist", n, name)
	case n > len(cols):
		return pgerr.New(pgerr.FeatureNotSupported, "cannot alter statistics on included column %q of index %q", def.Columns[include[n-len(cols)-1]].Name, name)
	case cols[n-1].Expr == "":
		return pgerr.New(pgerr.FeatureNotSupported, "cannot alter statistics on non-expression column %q of index %q", def.Columns[cols[n-1].Column].Name, name).
			WithHint("Alter statistics on table column instead.")
	}
	return nil
}

// setLogged runs SET LOGGED (toLogged) or SET UNLOGGED: the table, its
// indexes and the sequences it owns change persistence, as far as the
// catalog says. A permanent table may not reference an unlogged one, so
// the foreign keys from (to logged) or to (to unlogged) other tables
// must allow it, as PostgreSQL checks.
func (a *analyzer) setLogged(ctx context.Context, def *sqldef.Table, toLogged bool) error {
	if planner.IsTempSchema(def.Schema) {
		return pgerr.New(pgerr.InvalidTableDefinition, "cannot change logged status of table %q because it is temporary", def.Name)
	}
	if def.Unlogged != toLogged {
		return nil // already so
	}
	self := func(schema, name string) bool { return schema == def.Schema && name == def.Name }
	if toLogged {
		for _, fk := range def.ForeignKeys {
			if self(fk.RefSchema, fk.RefTable) {
				continue
			}
			if ref, ok, err := a.tx.Root().Table(ctx, fk.RefSchema, fk.RefTable); err != nil {
				return err
			} else if ok && ref.Unlogged {
				return pgerr.New(pgerr.InvalidTableDefinition, "could not change table %q to logged because it references unlogged table %q", def.Name, ref.Name)
			}
		}
	} else {
		refs, err := a.tx.Root().ReferencingKeys(ctx, def.Schema, def.Name)
		if err != nil {
			return err
		}
		for _, r := range refs {
			if self(r.Schema, r.Table) {
				continue
			}
			if from, ok, err := a.tx.Root().Table(ctx, r.Schema, r.Table); err != nil {
				return err
			} else if ok && !from.Unlogged {
				return pgerr.New(pgerr.InvalidTableDefinition, "could not change table %q to unlogged because it references logged table %q", def.Name, from.Name)
			}
		}
	}
	def.Unlogged = !toLogged
	seqs, err := a.tx.Root().OwnedSequences(ctx, def)
	if err != nil {
		return err
	}
	root := a.tx.Root()
	for _, seq := range seqs {
		seq.Unlogged = def.Unlogged
		if root, err = root.PutSequence(ctx, seq); err != nil {
			return err
		}
	}
	a.tx.SetRoot(root)
	return a.putTable(ctx, def)
}

// setStorage runs ALTER COLUMN name SET STORAGE mode. The mode is only
// recorded (attstorage): values are stored alike whatever it says.
func (a *analyzer) setStorage(ctx context.Context, def *sqldef.Table, name, mode string) error {
	st, ok := map[string]byte{"plain": 'p', "external": 'e', "extended": 'x', "main": 'm'}[strings.ToLower(mode)]
	if !ok {
		return pgerr.New(pgerr.InvalidParameterValue, "invalid storage type %q", mode)
	}
	pos := planner.ColumnIndex(def, name)
	if pos < 0 {
		return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, def.Name)
	}
	c := &def.Columns[pos]
	if st != 'p' && typeStorage(c.Type) == 'p' {
		return pgerr.New(pgerr.FeatureNotSupported, "column data type %s can only have storage PLAIN", exec.TypeName(c.Type))
	}
	c.Storage = st
	return a.putTable(ctx, def)
}

// typeStorage is typstorage of a built-in type: 'p' for one whose values
// are never toasted; 0 for a type it does not know.
func typeStorage(oid uint32) byte {
	if t := types.Lookup(types.Oid(oid)); t != nil {
		return t.Storage
	}
	return 0
}

// mergeLocalCheck runs ADD CONSTRAINT ... CHECK on a table that only
// inherits a constraint of that name: if it is the same expression the
// two merge, and the table's constraint becomes its own too, as in
// PostgreSQL (so parent and child may be given it in either order). A
// partition's constraints are never its own. It reports whether it
// merged.
func (a *analyzer) mergeLocalCheck(ctx context.Context, def *sqldef.Table, con *pg.Constraint) (bool, error) {
	if con.Contype != pg.ConstrType_CONSTR_CHECK || def.IsPartition() {
		return false, nil
	}
	i := slices.IndexFunc(def.Checks, func(c sqldef.Check) bool { return c.Name == con.Conname })
	if i < 0 || !def.Checks[i].NotLocal {
		return false, nil
	}
	have := &def.Checks[i]
	text, err := planner.DeparseExpr(con.RawExpr)
	if err != nil || text != have.Expr {
		return false, err
	}
	switch {
	case con.IsNoInherit:
		return false, pgerr.New(pgerr.InvalidObjectDefinition, "constraint %q conflicts with inherited constraint on relation %q", have.Name, def.Name)
	case !con.SkipValidation && have.NotValid:
		return false, pgerr.New(pgerr.InvalidObjectDefinition, "constraint %q conflicts with NOT VALID constraint on relation %q", have.Name, def.Name)
	}
	a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "merging constraint %q with inherited definition", have.Name))
	have.NotLocal = false
	return true, a.putTable(ctx, def)
}

// dropConstraint runs DROP CONSTRAINT [IF EXISTS] name.
func (a *analyzer) dropConstraint(ctx context.Context, t *exec.Table, def *sqldef.Table, cmd *pg.AlterTableCmd) error {
	name := cmd.Name
	switch {
	case len(def.PrimaryKey) > 0 && def.PrimaryKeyName == name:
		what := fmt.Sprintf("constraint %s on table %s", name, def.Name)
		if err := a.dependentKeys(ctx, t.Def, what, cmd.Behavior == pg.DropBehavior_DROP_CASCADE, def.PrimaryKey); err != nil {
			return err
		}
		def.PrimaryKey, def.PrimaryKeyName = nil, ""
		def.PrimaryKeyComment, def.PrimaryKeyIndexComment = "", ""
		def, err := a.tx.Rewrite(ctx, t, def, nil)
		if err != nil {
			return err
		}
		if err := a.putTable(ctx, def); err != nil {
			return err
		}
		if cmd.Behavior != pg.DropBehavior_DROP_CASCADE {
			return a.keyDependentViews(ctx, def, name)
		}
		return nil
	}
	for i, ix := range def.Indexes {
		if ix.Constraint && ix.Name == name {
			var cols []int
			for _, c := range ix.Columns {
				cols = append(cols, c.Column)
			}
			what := fmt.Sprintf("constraint %s on table %s", name, def.Name)
			if err := a.dependentKeys(ctx, t.Def, what, cmd.Behavior == pg.DropBehavior_DROP_CASCADE, cols); err != nil {
				return err
			}
			cur, _, err := a.tx.Root().Table(ctx, def.Schema, def.Name) // as the cascade left it
			if err != nil {
				return err
			}
			def := cloneTable(cur)
			def.Indexes = slices.Delete(def.Indexes, i, i+1)
			return a.putTable(ctx, def)
		}
	}
	for i, c := range def.Checks {
		if c.Name == name {
			def.Checks = slices.Delete(def.Checks, i, i+1)
			return a.putTable(ctx, def)
		}
	}
	for i, fk := range def.ForeignKeys {
		if fk.Name == name {
			def.ForeignKeys = slices.Delete(def.ForeignKeys, i, i+1)
			return a.putTable(ctx, def)
		}
	}
	for i, x := range def.Exclusions {
		if x.Name == name {
			def.Exclusions = slices.Delete(def.Exclusions, i, i+1)
			return a.putTable(ctx, def)
		}
	}
	for _, tr := range def.Triggers {
		if tr.Constraint && tr.Name == name {
			return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop constraint %s on table %s because trigger %s on table %s requires it", name, def.Name, name, def.Name).
				WithHint("You can drop trigger %s on table %s instead.", name, def.Name)
		}
	}
	if cmd.MissingOk {
		a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "constraint %q of relation %q does not exist, skipping", name, def.Name))
		return nil
	}
	return pgerr.New(pgerr.UndefinedObject, "constraint %q of relation %q does not exist", name, def.Name)
}

// dropColumn runs DROP COLUMN [IF EXISTS] name. The column keeps its
// position, marked dropped; indexes and constraints on it go with it, and
// a primary key on it leaves the table keyed by row id.
func (a *analyzer) dropColumn(ctx context.Context, t *exec.Table, def *sqldef.Table, cmd *pg.AlterTableCmd) error {
	pos := -1
	for i, c := range def.Columns {
		if !c.Dropped && c.Name == cmd.Name {
			pos = i
		}
	}
	if pos < 0 {
		if planner.IsSystemColumn(cmd.Name) {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot drop system column %q", cmd.Name)
		}
		if cmd.MissingOk {
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "column %q of relation %q does not exist, skipping", cmd.Name, def.Name))
			return nil
		}
		return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", cmd.Name, def.Name)
	}
	// Generated columns computed from it go first, or keep it.
	if deps := generatedReaders(def, cmd.Name); len(deps) > 0 {
		var err error
		if t, err = a.dropGeneratedReaders(ctx, t, cmd.Name, cmd.Behavior); err != nil {
			return err
		}
		def = cloneTable(t.Def)
	}
	c := def.Columns[pos]
	// Policies reading it go only with CASCADE (policy.go).
	if err := a.dropColumnPolicies(def, c.Name, cmd.Behavior == pg.DropBehavior_DROP_CASCADE); err != nil {
		return err
	}
	// Triggers on it (UPDATE OF, WHEN) go only with CASCADE.
	if err := a.dropColumnTriggers(def, c.Name, cmd.Behavior == pg.DropBehavior_DROP_CASCADE); err != nil {
		return err
	}
	// Foreign keys of other tables on the column go only with CASCADE;
	// the table's own foreign keys on it go with it.
	if err := a.dependentKeys(ctx, t.Def, fmt.Sprintf("column %s of table %s", c.Name, def.Name), cmd.Behavior == pg.DropBehavior_DROP_CASCADE, []int{pos}); err != nil {
		return err
	}
	def.ForeignKeys = slices.DeleteFunc(def.ForeignKeys, func(fk sqldef.ForeignKey) bool {
		return slices.Contains(fk.Columns, pos) || fk.RefSchema == def.Schema && fk.RefTable == def.Name && slices.Contains(fk.RefColumns, pos)
	})
	// Sequences owned by the column go with it.
	seqs, err := a.tx.Root().OwnedSequences(ctx, def)
	if err != nil {
		return err
	}
	for _, seq := range seqs {
		if seq.OwnedBy == def.Name+"."+c.Name {
			root, err := a.tx.Root().DropSequence(ctx, seq.Schema, seq.Name)
			if err != nil {
				return err
			}
			a.tx.SetRoot(root)
		}
	}
	def.Columns[pos] = sqldef.Column{
		Name: fmt.Sprintf("........pg.dropped.%d........", pos+1), Type: c.Type, Typmod: c.Typmod, Dropped: true,
		InhCount: c.InhCount, NotLocal: c.NotLocal, // as PostgreSQL keeps them
	}
	rekey := slices.Contains(def.PrimaryKey, pos)
	if rekey {
		def.PrimaryKey, def.PrimaryKeyName = nil, ""
		def.PrimaryKeyComment, def.PrimaryKeyIndexComment = "", ""
	}
	def.Indexes = slices.DeleteFunc(def.Indexes, func(ix sqldef.Index) bool {
		return slices.ContainsFunc(ix.Columns, func(ic sqldef.IndexColumn) bool {
			return ic.Column == pos || ic.Expr != "" && planner.ExprReads(ic.Expr, c.Name)
		}) || slices.Contains(ix.Include, pos) || ix.Where != "" && planner.ExprReads(ix.Where, c.Name)
	})
	var keep []sqldef.Check
	for _, ch := range def.Checks {
		n, err := planner.ParseExpr(ch.Expr)
		if err != nil {
			return err
		}
		uses := false
		planner.VisitNodes(n, func(x *pg.Node) {
			if cr := x.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetString_().GetSval() == c.Name {
				uses = true
			}
		})
		if !uses {
			keep = append(keep, ch)
		}
	}
	def.Checks = keep
	// The statistics objects on the column go with it.
	def.Statistics = slices.DeleteFunc(slices.Clone(def.Statistics), func(st sqldef.StatisticsObject) bool {
		return slices.Contains(st.Columns, pos) || slices.ContainsFunc(st.Exprs, func(e string) bool { return planner.ExprReads(e, c.Name) })
	})
	if rekey {
		if def, err = a.tx.Rewrite(ctx, t, def, nil); err != nil {
			return err
		}
	}
	return a.putTable(ctx, def)
}

// alterColumnType runs ALTER COLUMN c [SET DATA] TYPE t [USING expr]: every
// row is rewritten with the converted value, and the indexes rebuilt.
func (a *analyzer) alterColumnType(ctx context.Context, t *exec.Table, def *sqldef.Table, cmd *pg.AlterTableCmd) error {
	pos, err := alterColumn(def, cmd.Name)
	if err != nil {
		return err
	}
	cd := cmd.Def.GetColumnDef()
	if err := checkAlterTypeGenerated(def, pos, cd.RawDefault != nil); err != nil {
		return err
	}
	nt, _, err := a.ResolveType(cd.TypeName)
	if err != nil {
		return err
	}
	if err := a.RequireTypeNameUsage(cd.TypeName); err != nil {
		return err
	}
	if err := a.notOwnMember(def, nt); err != nil {
		return err
	}
	if def.Columns[pos].Identity != 0 && !identityType(nt.OID) {
		return errIdentityType()
	}
	old := t.Cols[pos]
	var conv exec.Expr
	src := exec.Expr(&exec.ColRef{Idx: pos, T: old.Type})
	if old.Generated != "" {
		// The expression computes the values of the new type: what
		// the column would hold had it been declared so.
		nd := cloneTable(def)
		nd.Columns[pos].Type, nd.Columns[pos].Typmod = nt.OID, nt.Typmod
		n, err := planner.ParseExpr(old.Generated)
		if err != nil {
			return err
		}
		if conv, err = a.generationExpr(nd, pos, n); err != nil {
			return err
		}
	} else if cd.RawDefault != nil {
		e, err := a.Expr(cd.RawDefault, planner.TableScope(t, def.Name))
		if err != nil {
			return err
		}
		if conv, err = a.AssignOrIO(e, nt, old.Name); err != nil {
			return pgerr.New(pgerr.DatatypeMismatch, "result of USING clause for column %q cannot be cast automatically to type %s", old.Name, exec.TypeName(nt.OID)).
				WithHint("You might need to add an explicit cast.")
		}
	} else if conv, err = a.AssignOrIO(src, nt, old.Name); err != nil {
		// Doltgres converts a string column's values by the new type's
		// input function, as USING c::type would; a value that does not
		// convert is PostgreSQL's refusal.
		refused := pgerr.New(pgerr.DatatypeMismatch, "column %q cannot be cast automatically to type %s", old.Name, exec.TypeName(nt.OID)).
			WithHint("You might need to specify \"USING %s::%s\".", planner.QuoteIdent(old.Name), typeSQLName(nt))
		if exec.KindOf(old.Type.OID) != exec.KindText {
			return refused
		}
		if conv, err = a.Cast(src, nt, true, -1); err != nil {
			return refused
		}
		conv = refusingExpr{Expr: conv, err: refused}
	}
	c := &def.Columns[pos]
	if c.Default != "" && c.Generated == 0 {
		n, err := planner.ParseExpr(c.Default)
		if err != nil {
			return err
		}
		e, err := a.Expr(n, nil)
		if err != nil {
			return err
		}
		if _, err := a.Assign(e, nt, c.Name, -1); err != nil {
			return pgerr.New(pgerr.DatatypeMismatch, "default for column %q cannot be cast automatically to type %s", c.Name, exec.TypeName(nt.OID))
		}
	}
	if err := a.checkForeignKeyTypes(ctx, def, pos, nt.OID); err != nil {
		return err
	}
	// The rows change: not while another table stores them (checked,
	// as PostgreSQL does, once the command is otherwise valid).
	if err := a.checkRowTypeUnused(ctx, def); err != nil {
		return err
	}
	// PostgreSQL keeps a CHECK constraint analyzed, with the implicit
	// casts the old type called for, and re-reads it as it prints it
	// when the column's type changes: it is kept so here too, and then
	// reads the column through the same casts (a::double precision >
	// 10.2::double precision).
	for i, ck := range def.Checks {
		if planner.ExprReads(ck.Expr, c.Name) {
			def.Checks[i].Expr = planner.RenderExpr(a.s, a.env(ctx), def, ck.Expr, false)
		}
	}
	c.Type, c.Typmod = nt.OID, nt.Typmod
	if c.Identity != 0 {
		if err := a.retypeIdentitySequence(ctx, *c, cd.TypeName); err != nil {
			return err
		}
	}
	if c.Missing != nil {
		v, err := conv.Eval(a.env(ctx), exec.Row(append(make([]exec.Datum, pos), old.Missing)))
		if err != nil {
			return err
		}
		c.Missing = exec.EncodeMissing(nt, v)
	}
	env := a.env(ctx)
	if def, err = a.tx.Rewrite(ctx, t, def, func(row exec.Row) (exec.Row, error) {
		v, err := conv.Eval(env, row)
		if err != nil {
			return nil, err
		}
		row = slices.Clone(row)
		row[pos] = v
		return row, nil
	}); err != nil {
		return err
	}
	if len(def.Checks) > 0 {
		if err := a.validateChecks(ctx, exec.NewTable(def), def, def.Checks); err != nil {
			return err
		}
	}
	return a.putTable(ctx, def)
}

// checkForeignKeyTypes fails if column pos of def, of type typ from
// now, can no longer be compared with the column a foreign key pairs it
// with, in def's keys or in the keys that reference def, as PostgreSQL
// finds when it adds those keys again.
func (a *analyzer) checkForeignKeyTypes(ctx context.Context, def *sqldef.Table, pos int, typ uint32) error {
	incompatible := func(fk string, from, to sqldef.Column, ft, tt uint32) error {
		return pgerr.New(pgerr.DatatypeMismatch, "foreign key constraint %q cannot be implemented", fk).
			WithDetail("Key columns %q and %q are of incompatible types: %s and %s.", from.Name, to.Name, exec.TypeName(ft), exec.TypeName(tt))
	}
	for _, fk := range def.ForeignKeys {
		i := slices.Index(fk.Columns, pos)
		if i < 0 {
			continue
		}
		ref, ok, err := a.tx.Root().Table(ctx, fk.RefSchema, fk.RefTable)
		if err != nil || !ok {
			return err
		}
		rc := ref.Columns[fk.RefColumns[i]]
		rt := rc.Type
		if ref.Schema == def.Schema && ref.Name == def.Name && fk.RefColumns[i] == pos {
			rt = typ
		}
		if !comparableKeys(typ, rt) {
			return incompatible(fk.Name, def.Columns[pos], rc, typ, rt)
		}
	}
	refs, err := a.tx.Root().ReferencingKeys(ctx, def.Schema, def.Name)
	if err != nil {
		return err
	}
	for _, r := range refs {
		from, ok, err := a.tx.Root().Table(ctx, r.Schema, r.Table)
		if err != nil || !ok {
			return err
		}
		if from.Schema == def.Schema && from.Name == def.Name {
			continue // checked above
		}
		for _, fk := range from.ForeignKeys {
			if fk.Name != r.Name {
				continue
			}
			if i := slices.Index(fk.RefColumns, pos); i >= 0 {
				fc := from.Columns[fk.Columns[i]]
				if !comparableKeys(fc.Type, typ) {
					return incompatible(fk.Name, fc, def.Columns[pos], fc.Type, typ)
				}
			}
		}
	}
	return nil
}

// refusingExpr is an expression whose errors are err.
type refusingExpr struct {
	exec.Expr
	err error
}

func (e refusingExpr) Eval(env *exec.Env, row exec.Row) (exec.Datum, error) {
	d, err := e.Expr.Eval(env, row)
	if err != nil {
		return exec.Null, e.err
	}
	return d, nil
}

// typeSQLName is how a type is written in a hint (integer, text, ...).
func typeSQLName(t exec.T) string { return exec.TypeName(t.OID) }

// addIdentity runs ALTER COLUMN c ADD GENERATED ... AS IDENTITY.
func (a *analyzer) addIdentity(ctx context.Context, def *sqldef.Table, cmd *pg.AlterTableCmd) error {
	pos, err := alterColumn(def, cmd.Name)
	if err != nil {
		return err
	}
	c := &def.Columns[pos]
	switch {
	case !identityType(c.Type):
		return errIdentityType()
	case !c.NotNull:
		return pgerr.New(pgerr.ObjectNotInPrerequisite, "column %q of relation %q must be declared NOT NULL before identity can be added", c.Name, def.Name)
	case c.Identity != 0:
		return pgerr.New(pgerr.ObjectNotInPrerequisite, "column %q of relation %q is already an identity column", c.Name, def.Name)
	case c.Default != "":
		return pgerr.New(pgerr.ObjectNotInPrerequisite, "column %q of relation %q already has a default value", c.Name, def.Name)
	}
	d, err := a.newTableDDL(ctx, def)
	if err != nil {
		return err
	}
	if err := d.identity(ctx, pos, cmd.Def.GetConstraint()); err != nil {
		return err
	}
	if err := a.sequenceACLs(ctx, d.seqs); err != nil {
		return err
	}
	root := a.tx.Root()
	for _, seq := range d.seqs {
		if root, err = root.PutSequence(ctx, seq); err != nil {
			return err
		}
	}
	a.tx.SetRoot(root)
	return a.putTable(ctx, def)
}

// identityColumn finds an identity column for SET and DROP IDENTITY.
func identityColumn(def *sqldef.Table, name string) (int, error) {
	pos, err := alterColumn(def, name)
	if err != nil {
		return 0, err
	}
	if def.Columns[pos].Identity == 0 {
		return pos, pgerr.New(pgerr.ObjectNotInPrerequisite, "column %q of relation %q is not an identity column", name, def.Name)
	}
	return pos, nil
}

// retypeIdentitySequence gives an identity column's sequence the column's
// new type, as ALTER SEQUENCE ... AS does (bounds that were the old
// type's become the new type's), as PostgreSQL does when the column's
// type changes.
func (a *analyzer) retypeIdentitySequence(ctx context.Context, c sqldef.Column, typ *pg.TypeName) error {
	seq, err := a.identitySequence(ctx, c)
	if err != nil || seq.Type == c.Type {
		return err
	}
	ns := *seq
	as := &seqOptions{as: &pg.DefElem{Defname: "as", Arg: &pg.Node{Node: &pg.Node_TypeName{TypeName: typ}}}}
	if err := applySeqOptions(&ns, as, false, true); err != nil {
		return err
	}
	root, err := a.tx.Root().PutSequence(ctx, &ns)
	if err != nil {
		return err
	}
	a.tx.SetRoot(root)
	return nil
}

// identitySequence returns an identity column's sequence.
func (a *analyzer) identitySequence(ctx context.Context, c sqldef.Column) (*sqldef.Sequence, error) {
	parts, err := exec.ParseQualifiedName(c.Sequence)
	if err != nil {
		return nil, err
	}
	schema, name := planner.SplitName(parts)
	seq, ok, err := a.tx.Root().Sequence(ctx, schema, name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", c.Sequence)
	}
	return seq, nil
}

// setIdentity runs ALTER COLUMN c SET GENERATED ... / SET sequence option
// / RESTART.
func (a *analyzer) setIdentity(ctx context.Context, def *sqldef.Table, cmd *pg.AlterTableCmd) error {
	pos, err := identityColumn(def, cmd.Name)
	if err != nil {
		return err
	}
	c := &def.Columns[pos]
	var seqOpts []*pg.Node
	for _, n := range cmd.Def.GetList().GetItems() {
		d := n.GetDefElem()
		if d.Defname == "generated" {
			if d.Arg.GetInteger().GetIval() == 'a' {
				c.Identity = 'a'
			} else {
				c.Identity = 'd'
			}
			continue
		}
		seqOpts = append(seqOpts, n)
	}
	if len(seqOpts) > 0 {
		seq, err := a.identitySequence(ctx, *c)
		if err != nil {
			return err
		}
		o, err := parseSeqOptions(seqOpts, true)
		if err != nil {
			return err
		}
		if err := applySeqOptions(seq, o, false, true); err != nil {
			return err
		}
		root, err := a.tx.Root().PutSequence(ctx, seq)
		if err != nil {
			return err
		}
		a.tx.SetRoot(root)
		if o.restart != nil {
			a.tx.ForgetSequenceAdvance(seq.Schema, seq.Name) // the commit must not undo the RESTART
		}
	}
	return a.putTable(ctx, def)
}

// dropIdentity runs ALTER COLUMN c DROP IDENTITY [IF EXISTS]; the
// sequence goes too.
func (a *analyzer) dropIdentity(ctx context.Context, def *sqldef.Table, cmd *pg.AlterTableCmd) error {
	pos, err := identityColumn(def, cmd.Name)
	if err != nil {
		if pe, ok := err.(*pgerr.Error); ok && pe.Code == pgerr.ObjectNotInPrerequisite && cmd.MissingOk {
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "column %q of relation %q is not an identity column, skipping", cmd.Name, def.Name))
			return nil
		}
		return err
	}
	c := &def.Columns[pos]
	seq, err := a.identitySequence(ctx, *c)
	if err != nil {
		return err
	}
	root, err := a.tx.Root().DropSequence(ctx, seq.Schema, seq.Name)
	if err != nil {
		return err
	}
	a.tx.SetRoot(root)
	c.Identity, c.Sequence = 0, ""
	return a.putTable(ctx, def)
}

// rename runs ALTER ... RENAME: of a table, index, sequence, column,
// constraint or schema.
func (a *analyzer) rename(s *pg.RenameStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		tag := "ALTER TABLE"
		switch s.RenameType {
		case pg.ObjectType_OBJECT_SCHEMA:
			return "ALTER SCHEMA", a.renameSchema(ctx, s.Subname, s.Newname)
		case pg.ObjectType_OBJECT_TSDICTIONARY, pg.ObjectType_OBJECT_TSCONFIGURATION:
			return a.renameTextSearch(ctx, s)
		case pg.ObjectType_OBJECT_TYPE:
			return "ALTER TYPE", a.renameType(ctx, planner.NameList(s.Object.GetList().GetItems()), s.Newname)
		case pg.ObjectType_OBJECT_DOMAIN:
			return "ALTER DOMAIN", a.renameType(ctx, planner.NameList(s.Object.GetList().GetItems()), s.Newname)
		case pg.ObjectType_OBJECT_POLICY:
			return a.renamePolicy(ctx, s)
		case pg.ObjectType_OBJECT_TRIGGER:
			return "ALTER TRIGGER", a.renameTrigger(ctx, s)
		case pg.ObjectType_OBJECT_RULE:
			return "ALTER RULE", a.renameRule(ctx, s)
		case pg.ObjectType_OBJECT_DOMCONSTRAINT:
			return "ALTER DOMAIN", a.renameDomainConstraint(ctx, s)
		case pg.ObjectType_OBJECT_ATTRIBUTE:
			return "ALTER TYPE", a.renameAttribute(ctx, s)
		case pg.ObjectType_OBJECT_FUNCTION, pg.ObjectType_OBJECT_PROCEDURE, pg.ObjectType_OBJECT_ROUTINE, pg.ObjectType_OBJECT_AGGREGATE:
			return a.renameRoutine(ctx, s)
		case pg.ObjectType_OBJECT_INDEX:
			tag = "ALTER INDEX"
		case pg.ObjectType_OBJECT_SEQUENCE:
			tag = "ALTER SEQUENCE"
		case pg.ObjectType_OBJECT_VIEW:
			tag = "ALTER VIEW"
		case pg.ObjectType_OBJECT_MATVIEW:
			tag = "ALTER MATERIALIZED VIEW"
		case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_COLUMN, pg.ObjectType_OBJECT_TABCONSTRAINT:
		default:
			return "", pgerr.New(pgerr.FeatureNotSupported, "ALTER %s RENAME is not supported yet", s.RenameType)
		}
		rel, schema, err := a.LookupRelation(ctx, s.Relation.Schemaname, s.Relation.Relname)
		if err != nil {
			return "", err
		}
		if rel.Kind == planner.RelNone {
			if s.MissingOk {
				a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "relation %q does not exist, skipping", s.Relation.Relname))
				return tag, nil
			}
			return "", planner.WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(s.Relation)), s.Relation.Location)
		}
		switch s.RenameType {
		case pg.ObjectType_OBJECT_COLUMN:
			if rel.Kind == planner.RelView {
				if s.RelationType == pg.ObjectType_OBJECT_VIEW {
					tag = "ALTER VIEW"
				}
				return tag, a.renameViewColumn(ctx, rel.View, s.Subname, s.Newname)
			}
			if rel.Kind != planner.RelTable {
				return "", pgerr.New(pgerr.WrongObjectType, "%q is not a table", s.Relation.Relname)
			}
			return tag, a.renameColumnInherited(ctx, rel.Table, s.Subname, s.Newname, s.Relation.Inh, false)
		case pg.ObjectType_OBJECT_TABCONSTRAINT:
			if rel.Kind != planner.RelTable {
				return "", pgerr.New(pgerr.WrongObjectType, "%q is not a table", s.Relation.Relname)
			}
			return tag, a.renameConstraintInherited(ctx, rel.Table, s.Subname, s.Newname, s.Relation.Inh, false)
		}
		switch rel.Kind {
		case planner.RelIndex:
			// An index is its table's owner's.
			if err := a.requireOwnerOf(rel.Table, "index", s.Relation.Relname); err != nil {
				return "", err
			}
		case planner.RelTable:
			if err := a.requireOwnerOf(rel.Table, "table", s.Relation.Relname); err != nil {
				return "", err
			}
		}
		return tag, a.moveRelation(ctx, rel, schema, s.Relation.Relname, schema, s.Newname)
	}, nil
}

// moveRelation renames a table, view, index or sequence schema.old to
// to.name (ALTER ... RENAME TO, ALTER ... SET SCHEMA): what refers to it
// by name follows, the views that read it, the foreign keys that
// reference it, the tables that inherit from it, and a table's sequences
// go with it to its new schema. An index stays in its table's schema.
func (a *analyzer) moveRelation(ctx context.Context, rel planner.Relation, schema, old, to, name string) error {
	if other, err := planner.FindRelation(ctx, a.tx.Root(), to, name); err != nil {
		return err
	} else if other.Kind != planner.RelNone {
		if to != schema {
			return pgerr.New(pgerr.DuplicateTable, "relation %q already exists in schema %q", name, to)
		}
		return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
	}
	if err := a.renameInViews(ctx, schema, old, to, name); err != nil {
		return err
	}
	root := a.tx.Root()
	var err error
	switch rel.Kind {
	case planner.RelView:
		v := *rel.View
		if root, err = root.DropView(ctx, schema, old); err != nil {
			return err
		}
		v.Schema, v.Name = to, name
		if root, err = root.PutView(ctx, &v); err != nil {
			return err
		}
	case planner.RelTable:
		def := cloneTable(rel.Table)
		seqs, err := root.OwnedSequences(ctx, def)
		if err != nil {
			return err
		}
		for _, seq := range seqs {
			seq.OwnedBy = name + seq.OwnedBy[len(old):]
			if to != schema {
				if root, err = root.DropSequence(ctx, schema, seq.Name); err != nil {
					return err
				}
				moveSequenceUses(def, schema, seq.Name, to, seq.Name)
				seq.Schema = to
			}
			if root, err = root.PutSequence(ctx, seq); err != nil {
				return err
			}
		}
		// Foreign keys that reference the table follow its new name, and
		// so do the tables that inherit from it.
		refs, err := referencingOthers(ctx, root, rel.Table)
		if err != nil {
			return err
		}
		kids, err := root.Children(ctx, schema, old)
		if err != nil {
			return err
		}
		if root, err = root.DropTable(ctx, schema, old); err != nil {
			return err
		}
		if root, err = SyncRefs(ctx, root, rel.Table, nil); err != nil {
			return err
		}
		def.Schema, def.Name = to, name
		for i := range def.ForeignKeys {
			if fk := &def.ForeignKeys[i]; fk.RefSchema == schema && fk.RefTable == old {
				fk.RefSchema, fk.RefTable = to, name
			}
		}
		if root, err = root.PutTable(ctx, def); err != nil {
			return err
		}
		if root, err = SyncRefs(ctx, root, nil, def); err != nil {
			return err
		}
		for _, r := range refs {
			child, ok, err := root.Table(ctx, r.Schema, r.Table)
			if err != nil || !ok {
				return err
			}
			nc := cloneTable(child)
			for i := range nc.ForeignKeys {
				if fk := &nc.ForeignKeys[i]; fk.RefSchema == schema && fk.RefTable == old {
					fk.RefSchema, fk.RefTable = to, name
				}
			}
			if root, err = root.PutTable(ctx, nc); err != nil {
				return err
			}
			if root, err = SyncRefs(ctx, root, child, nc); err != nil {
				return err
			}
		}
		for _, k := range kids {
			if root, err = renameParent(ctx, root, k, sqldef.TableName{Schema: schema, Name: old}, sqldef.TableName{Schema: to, Name: name}); err != nil {
				return err
			}
		}
	case planner.RelIndex:
		def := cloneTable(rel.Table)
		if rel.Index < 0 {
			def.PrimaryKeyName = name
		} else {
			def.Indexes[rel.Index].Name = name
		}
		if root, err = root.PutTable(ctx, def); err != nil {
			return err
		}
	case planner.RelSequence:
		seq := rel.Seq
		if root, err = root.DropSequence(ctx, schema, old); err != nil {
			return err
		}
		seq.Schema, seq.Name = to, name
		if root, err = root.PutSequence(ctx, seq); err != nil {
			return err
		}
		// Identity columns name their sequence; serial defaults keep the
		// old text, as PostgreSQL's stored regclass would print the new
		// name. A table of another schema may use the sequence too.
		tables, err := root.Tables(ctx)
		if err != nil {
			return err
		}
		for _, t := range tables {
			if moveSequenceUses(t, schema, old, to, name) {
				if root, err = root.PutTable(ctx, t); err != nil {
					return err
				}
			}
		}
	}
	a.tx.SetRoot(root)
	return nil
}

// alterConstraint runs ALTER TABLE ... ALTER CONSTRAINT, which in
// PostgreSQL 15 changes only whether a foreign key is deferrable and
// initially deferred.
func (a *analyzer) alterConstraint(ctx context.Context, def *sqldef.Table, c *pg.Constraint, recursing bool) error {
	if c.Initdeferred && !c.Deferrable {
		return pgerr.New(pgerr.SyntaxError, "constraint declared INITIALLY DEFERRED must be DEFERRABLE")
	}
	for i, fk := range def.ForeignKeys {
		if fk.Name != c.Conname {
			continue
		}
		if fk.Inherited && !recursing {
			return pgerr.New(pgerr.InvalidTableDefinition, "cannot alter constraint %q on relation %q", c.Conname, def.Name).
				WithHint("You may alter the constraint it derives from instead.")
		}
		if fk.Deferrable != c.Deferrable || fk.InitiallyDeferred != c.Initdeferred {
			def.ForeignKeys[i].Deferrable, def.ForeignKeys[i].InitiallyDeferred = c.Deferrable, c.Initdeferred
			a.s.InvalidatePlans()
			if err := a.putTable(ctx, def); err != nil {
				return err
			}
		}
		// A partitioned table's key has a copy in each partition, which
		// follows it.
		kids, err := a.childTables(ctx, def)
		if err != nil {
			return err
		}
		for _, k := range kids {
			if slices.ContainsFunc(k.Def.ForeignKeys, func(f sqldef.ForeignKey) bool { return f.Name == c.Conname && f.Inherited }) {
				if err := a.alterConstraint(ctx, cloneTable(k.Def), c, true); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if planner.ConstraintExists(def, c.Conname) {
		return pgerr.New(pgerr.WrongObjectType, "constraint %q of relation %q is not a foreign key constraint", c.Conname, def.Name)
	}
	return pgerr.New(pgerr.UndefinedObject, "constraint %q of relation %q does not exist", c.Conname, def.Name)
}

// moveSequenceUses makes t's columns use the sequence schema.old under its
// new name, to.name, and reports whether any did. An unqualified nextval
// in a default names the sequence only in a table of its schema.
func moveSequenceUses(t *sqldef.Table, schema, old, to, name string) bool {
	changed := false
	for i, c := range t.Columns {
		if c.Sequence == planner.SeqRef(schema, old) {
			t.Columns[i].Sequence, changed = planner.SeqRef(to, name), true
		}
		if c.Default == "" {
			continue
		}
		uses := false
		planner.NextvalRefs(c.Default, func(s, n string) (string, bool) {
			uses = uses || n == old && (s == schema || s == "" && t.Schema == schema)
			return "", false
		})
		if uses {
			t.Columns[i].Default, changed = nextvalDefault(to, name), true
		}
	}
	return changed
}

// renameColumn renames a column, and its uses in CHECK constraints.
func (a *analyzer) renameColumn(ctx context.Context, def *sqldef.Table, old, name string) error {
	pos := -1
	for i, c := range def.Columns {
		if !c.Dropped && c.Name == old {
			pos = i
		}
	}
	if pos < 0 {
		if planner.IsSystemColumn(old) {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot rename system column %q", old)
		}
		return pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", old)
	}
	if err := planner.CheckColumnName(name); err != nil {
		return err
	}
	for _, c := range def.Columns {
		if !c.Dropped && c.Name == name {
			return pgerr.New(pgerr.DuplicateColumn, "column %q of relation %q already exists", name, def.Name)
		}
	}
	def.Columns[pos].Name = name
	if k := def.PartitionKey; k != nil && k.Exprs != nil {
		nk := *k // def's key may be shared with the table it was cloned from
		nk.Exprs = slices.Clone(k.Exprs)
		for i := range nk.Exprs {
			if e := nk.Exprs[i].Expr; e != "" {
				var err error
				if nk.Exprs[i].Expr, err = renameColumnIn(e, old, name); err != nil {
					return err
				}
			}
		}
		def.PartitionKey = &nk
	}
	for i := range def.Indexes {
		ix := &def.Indexes[i]
		for j := range ix.Columns {
			if e := ix.Columns[j].Expr; e != "" {
				var err error
				if ix.Columns[j].Expr, err = renameColumnIn(e, old, name); err != nil {
					return err
				}
			}
		}
		if ix.Where != "" {
			var err error
			if ix.Where, err = renameColumnIn(ix.Where, old, name); err != nil {
				return err
			}
		}
	}
	for i, ch := range def.Checks {
		n, err := planner.ParseExpr(ch.Expr)
		if err != nil {
			return err
		}
		planner.VisitNodes(n, func(x *pg.Node) {
			if cr := x.GetColumnRef(); cr != nil {
				if f := cr.Fields[len(cr.Fields)-1].GetString_(); f != nil && f.Sval == old {
					f.Sval = name
				}
			}
		})
		if def.Checks[i].Expr, err = planner.DeparseExpr(n); err != nil {
			return err
		}
	}
	for i, c := range def.Columns {
		if c.Generated != 0 && !c.Dropped {
			var err error
			if def.Columns[i].Default, err = renameColumnIn(c.Default, old, name); err != nil {
				return err
			}
		}
	}
	def.Statistics = slices.Clone(def.Statistics)
	for i, st := range def.Statistics {
		exprs := slices.Clone(st.Exprs)
		for j, e := range exprs {
			var err error
			if exprs[j], err = renameColumnIn(e, old, name); err != nil {
				return err
			}
		}
		def.Statistics[i].Exprs = exprs
	}
	seqs, err := a.tx.Root().OwnedSequences(ctx, &sqldef.Table{Schema: def.Schema, Name: def.Name, Columns: []sqldef.Column{{Name: old}}})
	if err != nil {
		return err
	}
	root := a.tx.Root()
	for _, seq := range seqs {
		seq.OwnedBy = def.Name + "." + name
		if root, err = root.PutSequence(ctx, seq); err != nil {
			return err
		}
	}
	a.tx.SetRoot(root)
	if err := a.renameColumnInViews(ctx, def, pos, old); err != nil {
		return err
	}
	return a.putTable(ctx, def)
}

// renameConstraintInherited renames a constraint of def; an inheritable
// CHECK constraint is renamed in def's descendants too (which must
// follow: ONLY fails when def has children), and one def inherits only
// from above, as PostgreSQL's rename_constraint_internal does.
func (a *analyzer) renameConstraintInherited(ctx context.Context, def *sqldef.Table, old, name string, inh, recursing bool) error {
	i := slices.IndexFunc(def.Checks, func(c sqldef.Check) bool { return c.Name == old })
	if i >= 0 && !def.Checks[i].NoInherit {
		kids, err := a.childTables(ctx, def)
		if err != nil {
			return err
		}
		if inh {
			for _, k := range kids {
				if err := a.renameConstraintInherited(ctx, k.Def, old, name, true, true); err != nil {
					return err
				}
			}
		} else if len(kids) > 0 {
			return pgerr.New(pgerr.InvalidTableDefinition, "inherited constraint %q must be renamed in child tables too", old)
		}
		if def.Checks[i].InhCount > 0 && !recursing {
			return pgerr.New(pgerr.InvalidTableDefinition, "cannot rename inherited constraint %q", old)
		}
	}
	if recursing {
		cur, ok, err := a.tx.Table(ctx, def.Schema, def.Name)
		if err != nil || !ok {
			return err
		}
		if !slices.ContainsFunc(cur.Def.Checks, func(c sqldef.Check) bool { return c.Name == old }) {
			return nil // renamed already, through another parent
		}
		def = cur.Def
	}
	return a.renameConstraint(ctx, cloneTable(def), old, name)
}

// renameConstraint renames a constraint (and the index of a primary key
// or unique constraint).
func (a *analyzer) renameConstraint(ctx context.Context, def *sqldef.Table, old, name string) error {
	if planner.ConstraintExists(def, name) {
		return pgerr.New(pgerr.DuplicateObject, "constraint %q for relation %q already exists", name, def.Name)
	}
	renameIndex := func() error {
		if other, err := planner.FindRelation(ctx, a.tx.Root(), def.Schema, name); err != nil {
			return err
		} else if other.Kind != planner.RelNone {
			return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
		}
		return nil
	}
	switch {
	case len(def.PrimaryKey) > 0 && def.PrimaryKeyName == old:
		if err := renameIndex(); err != nil {
			return err
		}
		def.PrimaryKeyName = name
		return a.putTable(ctx, def)
	}
	for i, ix := range def.Indexes {
		if ix.Constraint && ix.Name == old {
			if err := renameIndex(); err != nil {
				return err
			}
			def.Indexes[i].Name = name
			return a.putTable(ctx, def)
		}
	}
	for i, c := range def.Checks {
		if c.Name == old {
			def.Checks[i].Name = name
			return a.putTable(ctx, def)
		}
	}
	for i, fk := range def.ForeignKeys {
		if fk.Name == old {
			def.ForeignKeys[i].Name = name
			return a.putTable(ctx, def)
		}
	}
	return pgerr.New(pgerr.UndefinedObject, "constraint %q for table %q does not exist", old, def.Name)
}

// renameColumnIn rewrites a stored expression's references to column old.
func renameColumnIn(expr, old, name string) (string, error) {
	n, err := planner.ParseExpr(expr)
	if err != nil {
		return "", err
	}
	planner.VisitNodes(n, func(x *pg.Node) {
		if cr := x.GetColumnRef(); cr != nil {
			if f := cr.Fields[len(cr.Fields)-1].GetString_(); f != nil && f.Sval == old {
				f.Sval = name
			}
		}
	})
	return planner.DeparseExpr(n)
}

// notOwnMember fails if a column of type t, in table def, would hold
// def's own row type: directly, as an array's element, as a domain's
// base or as a field of a composite type, at any depth. PostgreSQL
// refuses it (CheckAttributeType): such a row could never be stored.
func (a *analyzer) notOwnMember(def *sqldef.Table, t exec.T) error {
	if a.holdsType(t.OID, exec.TypeOID(types.UserComposite, def.Schema, def.Name)) {
		return pgerr.New(pgerr.InvalidTableDefinition, "composite type %s cannot be made a member of itself", def.Name)
	}
	return nil
}

// holdsType reports whether a value of type oid may hold a value of
// type own: it is own, or an array of, a domain over or a composite type
// with a field of a type that holds own, at any depth.
func (a *analyzer) holdsType(oid, own uint32) bool {
	seen := map[uint32]bool{}
	var holds func(oid uint32) bool
	holds = func(oid uint32) bool {
		if oid == own {
			return true
		}
		if seen[oid] {
			return false
		}
		seen[oid] = true
		if e := exec.ElemType(exec.T{OID: oid}); e.OID != 0 {
			return holds(e.OID)
		}
		if ut, ok := a.s.Settings().Types.UserType(types.Oid(oid)); ok {
			for _, f := range ut.FieldTypes {
				if holds(uint32(f)) {
					return true
				}
			}
		}
		return false
	}
	return holds(oid)
}

// checkRowTypeUnused fails if a column of another table holds def's row
// type: changing a column's type would change the stored rows, which
// those values do not follow (PostgreSQL's
// find_composite_type_dependencies).
func (a *analyzer) checkRowTypeUnused(ctx context.Context, def *sqldef.Table) error {
	tables, err := a.tx.Root().Tables(ctx)
	if err != nil {
		return err
	}
	own := exec.TypeOID(types.UserComposite, def.Schema, def.Name)
	for _, tb := range tables {
		if tb.Schema == def.Schema && tb.Name == def.Name {
			continue
		}
		for _, c := range tb.Columns {
			if !c.Dropped && a.holdsType(c.Type, own) {
				return pgerr.New(pgerr.FeatureNotSupported, "cannot alter table %q because column \"%s.%s\" uses its row type", def.Name, tb.Name, c.Name)
			}
		}
	}
	return nil
}
