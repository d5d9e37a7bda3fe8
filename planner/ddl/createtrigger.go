package ddl

import (
	"context"
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/planner/plpgsql"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// PostgreSQL's tgtype bits, as CREATE TRIGGER's parse tree has them.
const (
	trigRow      = 1 << 0
	trigBefore   = 1 << 1
	trigInsert   = 1 << 2
	trigDelete   = 1 << 3
	trigUpdate   = 1 << 4
	trigTruncate = 1 << 5
	trigInstead  = 1 << 6
)

// createTrigger runs CREATE [OR REPLACE] TRIGGER.
func (a *analyzer) createTrigger(s *pg.CreateTrigStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		if s.Isconstraint && s.Replace {
			return "", pgerr.New(pgerr.FeatureNotSupported, "CREATE OR REPLACE CONSTRAINT TRIGGER is not supported")
		}
		t, ok, err := a.LookupTable(ctx, s.Relation.Schemaname, s.Relation.Relname)
		if err != nil {
			return "", err
		}
		if !ok {
			rel, _, err := a.LookupRelation(ctx, s.Relation.Schemaname, s.Relation.Relname)
			if err != nil {
				return "", err
			}
			if rel.Kind == planner.RelView {
				return a.createViewTrigger(ctx, s, rel.View)
			}
		}
		if !ok || t.Virtual != nil {
			return "", pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", s.Relation.Relname)
		}
		tr := sqldef.Trigger{Name: s.Trigname, Timing: 'a', ForEachRow: s.Row}
		switch {
		case s.Timing&trigBefore != 0:
			tr.Timing = 'b'
		case s.Timing&trigInstead != 0:
			return "", pgerr.New(pgerr.WrongObjectType, "%q is a table", t.Def.Name).WithDetail("Tables cannot have INSTEAD OF triggers.")
		}
		if s.Isconstraint {
			// The grammar makes it AFTER ... FOR EACH ROW.
			tr.Constraint, tr.Deferrable, tr.InitiallyDeferred = true, s.Deferrable, s.Initdeferred
			if rv := s.Constrrel; rv != nil {
				from, ok, err := a.LookupTable(ctx, rv.Schemaname, rv.Relname)
				if err != nil {
					return "", err
				}
				if !ok {
					return "", pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(rv))
				}
				tr.ConstrRelation = from.Def.Schema + "." + from.Def.Name
			}
		}
		for _, ev := range []struct {
			bit  int32
			name string
		}{{trigInsert, "INSERT"}, {trigUpdate, "UPDATE"}, {trigDelete, "DELETE"}, {trigTruncate, "TRUNCATE"}} {
			if s.Events&ev.bit != 0 {
				tr.Events = append(tr.Events, ev.name)
			}
		}
		for _, c := range s.Columns {
			name := c.GetString_().GetSval()
			if _, err := alterColumn(t.Def, name); err != nil {
				return "", err
			}
			if slices.Contains(tr.Columns, name) {
				return "", pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", name)
			}
			tr.Columns = append(tr.Columns, name)
		}
		if s.WhenClause != nil {
			if err := checkWhenReferences(s); err != nil {
				return "", err
			}
			if tr.Timing == 'b' {
				if err := checkWhenGenerated(t.Def, s.WhenClause); err != nil {
					return "", err
				}
			}
			if tr.When, err = planner.DeparseExpr(s.WhenClause); err != nil {
				return "", err
			}
		}
		if err := transitionTables(&tr, s.TransitionRels, t.Def); err != nil {
			return "", err
		}
		for _, arg := range s.Args {
			tr.Args = append(tr.Args, arg.GetString_().GetSval())
		}
		fschema, fname := planner.SplitName(planner.NameList(s.Funcname))
		fn, err := a.triggerFunction(fschema, fname)
		if err != nil {
			return "", err
		}
		tr.FuncSchema, tr.FuncName = fn.Schema, fn.Name
		def := *t.Def
		if def.Triggers, err = withTrigger(def.Triggers, tr, s.Replace, def.Name); err != nil {
			return "", err
		}
		if tr.Constraint && planner.ConstraintExists(t.Def, tr.Name) {
			return "", pgerr.New(pgerr.DuplicateObject, "constraint %q for relation %q already exists", tr.Name, t.Def.Name)
		}
		if err := a.checkTriggerClones(ctx, t.Def, &tr, s.Replace); err != nil {
			return "", err
		}
		return "CREATE TRIGGER", a.putTable(ctx, &def)
	}, nil
}

// createViewTrigger runs CREATE TRIGGER on view v: INSTEAD OF row
// triggers, or statement triggers, as PostgreSQL allows on views.
func (a *analyzer) createViewTrigger(ctx context.Context, s *pg.CreateTrigStmt, v *sqldef.View) (string, error) {
	if err := a.requireViewOwner(v); err != nil {
		return "", err
	}
	tr := sqldef.Trigger{Name: s.Trigname, Timing: 'a', ForEachRow: s.Row}
	if len(s.TransitionRels) > 0 {
		return "", pgerr.New(pgerr.WrongObjectType, "%q is a view", v.Name).WithDetail("Triggers on views cannot have transition tables.")
	}
	switch {
	case s.Timing&trigInstead != 0:
		tr.Timing = 'i'
		switch {
		case !s.Row:
			return "", pgerr.New(pgerr.FeatureNotSupported, "INSTEAD OF triggers must be FOR EACH ROW")
		case s.WhenClause != nil:
			return "", pgerr.New(pgerr.FeatureNotSupported, "INSTEAD OF triggers cannot have WHEN conditions")
		case len(s.Columns) > 0:
			return "", pgerr.New(pgerr.FeatureNotSupported, "INSTEAD OF triggers cannot have column lists")
		}
	case s.Row:
		return "", pgerr.New(pgerr.WrongObjectType, "%q is a view", v.Name).WithDetail("Views cannot have row-level BEFORE or AFTER triggers.")
	case s.Timing&trigBefore != 0:
		tr.Timing = 'b'
	}
	if s.Events&trigTruncate != 0 {
		return "", pgerr.New(pgerr.WrongObjectType, "%q is a view", v.Name).WithDetail("Views cannot have TRUNCATE triggers.")
	}
	for _, ev := range []struct {
		bit  int32
		name string
	}{{trigInsert, "INSERT"}, {trigUpdate, "UPDATE"}, {trigDelete, "DELETE"}} {
		if s.Events&ev.bit != 0 {
			tr.Events = append(tr.Events, ev.name)
		}
	}
	for _, c := range s.Columns {
		tr.Columns = append(tr.Columns, c.GetString_().GetSval())
	}
	if s.WhenClause != nil {
		var err error
		if tr.When, err = planner.DeparseExpr(s.WhenClause); err != nil {
			return "", err
		}
	}
	for _, arg := range s.Args {
		tr.Args = append(tr.Args, arg.GetString_().GetSval())
	}
	fschema, fname := planner.SplitName(planner.NameList(s.Funcname))
	fn, err := a.triggerFunction(fschema, fname)
	if err != nil {
		return "", err
	}
	tr.FuncSchema, tr.FuncName = fn.Schema, fn.Name
	nv := *v
	if nv.Triggers, err = withTrigger(v.Triggers, tr, s.Replace, v.Name); err != nil {
		return "", err
	}
	return "CREATE TRIGGER", a.putView(ctx, &nv)
}

// withTrigger returns a copy of a relation's triggers, sorted by name,
// with tr added or, under OR REPLACE, put in place of the one of its name
// (whose comment it keeps).
func withTrigger(triggers []sqldef.Trigger, tr sqldef.Trigger, replace bool, relation string) ([]sqldef.Trigger, error) {
	triggers = slices.Clone(triggers)
	i := slices.IndexFunc(triggers, func(x sqldef.Trigger) bool { return x.Name == tr.Name })
	switch {
	case i >= 0 && !replace:
		return nil, pgerr.New(pgerr.DuplicateObject, "trigger %q for relation %q already exists", tr.Name, relation)
	case i >= 0:
		tr.Comment = triggers[i].Comment
		triggers[i] = tr
	default:
		triggers = append(triggers, tr)
		slices.SortFunc(triggers, func(x, y sqldef.Trigger) int { return strings.Compare(x.Name, y.Name) })
	}
	return triggers, nil
}

// putView writes view v into the transaction's root.
func (a *analyzer) putView(ctx context.Context, v *sqldef.View) error {
	root, err := a.tx.Root().PutView(ctx, v)
	if err != nil {
		return err
	}
	a.tx.SetRoot(root)
	return nil
}

// transitionTables records REFERENCING OLD TABLE AS o NEW TABLE AS n in
// tr, a trigger of table def, with PostgreSQL 15's restrictions: a ROW
// trigger has none in a partitioned table, a partition or an inheritance
// child, whose rows the statement's transition tables show as rows of
// the table it names.
func transitionTables(tr *sqldef.Trigger, rels []*pg.Node, def *sqldef.Table) error {
	if len(rels) > 0 && tr.ForEachRow && def.Partitioned() {
		return pgerr.New(pgerr.WrongObjectType, "%q is a partitioned table", def.Name).
			WithDetail("ROW triggers with transition tables are not supported on partitioned tables.")
	}
	for _, n := range rels {
		tt := n.GetTriggerTransition()
		if tt == nil || !tt.IsTable {
			return pgerr.New(pgerr.FeatureNotSupported, "ROW variable naming in the REFERENCING clause is not supported").
				WithHint("Use OLD TABLE or NEW TABLE for naming transition tables.")
		}
		switch {
		case tr.ForEachRow && def.IsPartition():
			return pgerr.New(pgerr.FeatureNotSupported, "ROW triggers with transition tables are not supported on partitions")
		case tr.ForEachRow && len(def.Inherits) > 0:
			return pgerr.New(pgerr.FeatureNotSupported, "ROW triggers with transition tables are not supported on inheritance children")
		}
		switch {
		case tr.Timing != 'a':
			return pgerr.New(pgerr.FeatureNotSupported, "transition table name can only be specified for an AFTER trigger")
		case slices.Contains(tr.Events, "TRUNCATE"):
			return pgerr.New(pgerr.FeatureNotSupported, "TRUNCATE triggers with transition tables are not supported")
		case len(tr.Events) > 1:
			return pgerr.New(pgerr.FeatureNotSupported, "transition tables cannot be specified for triggers with more than one event")
		case len(tr.Columns) > 0:
			return pgerr.New(pgerr.FeatureNotSupported, "transition tables cannot be specified for triggers with column lists")
		}
		if tt.IsNew {
			if !slices.Contains(tr.Events, "INSERT") && !slices.Contains(tr.Events, "UPDATE") {
				return pgerr.New(pgerr.InvalidObjectDefinition, "NEW TABLE can only be specified for an INSERT or UPDATE trigger")
			}
			if tr.NewTable != "" {
				return pgerr.New(pgerr.SyntaxError, "NEW TABLE cannot be specified multiple times")
			}
			tr.NewTable = tt.Name
		} else {
			if !slices.Contains(tr.Events, "DELETE") && !slices.Contains(tr.Events, "UPDATE") {
				return pgerr.New(pgerr.InvalidObjectDefinition, "OLD TABLE can only be specified for a DELETE or UPDATE trigger")
			}
			if tr.OldTable != "" {
				return pgerr.New(pgerr.SyntaxError, "OLD TABLE cannot be specified multiple times")
			}
			tr.OldTable = tt.Name
		}
	}
	if tr.OldTable != "" && tr.OldTable == tr.NewTable {
		return pgerr.New(pgerr.SyntaxError, "OLD TABLE name and NEW TABLE name cannot be the same")
	}
	return nil
}

// checkTriggerClones makes PostgreSQL's checks of trigger tr, new on def,
// against the clones of ROW triggers partitions have: a partition has
// those of the partitioned tables above it, which it cannot replace; a
// new ROW trigger of a partitioned table conflicts with a trigger of its
// name on a partition below, which OR REPLACE (replace) replaces.
func (a *analyzer) checkTriggerClones(ctx context.Context, def *sqldef.Table, tr *sqldef.Trigger, replace bool) error {
	for cur := def; cur.IsPartition() && len(cur.Inherits) > 0; {
		parent, ok, err := a.tx.Root().Table(ctx, cur.Inherits[0].Schema, cur.Inherits[0].Name)
		if err != nil || !ok {
			return err
		}
		for _, x := range parent.Triggers {
			if x.ForEachRow && x.Name == tr.Name {
				if replace {
					return pgerr.New(pgerr.DuplicateObject, "trigger %q for relation %q is an internal or a child trigger", tr.Name, def.Name)
				}
				return pgerr.New(pgerr.DuplicateObject, "trigger %q for relation %q already exists", tr.Name, def.Name)
			}
		}
		cur = parent
	}
	if !tr.ForEachRow {
		return nil
	}
	return a.replaceChildTriggers(ctx, def, tr.Name, replace)
}

// replaceChildTriggers drops the triggers named name of the partitions
// below def for a new ROW trigger of def of that name, which its clones
// replace (replace), or refuses it.
func (a *analyzer) replaceChildTriggers(ctx context.Context, def *sqldef.Table, name string, replace bool) error {
	if !def.Partitioned() {
		return nil
	}
	parts, err := a.Partitions(ctx, def)
	if err != nil {
		return err
	}
	for _, p := range parts {
		i := slices.IndexFunc(p.Triggers, func(x sqldef.Trigger) bool { return x.Name == name })
		if i >= 0 {
			if !replace {
				return pgerr.New(pgerr.DuplicateObject, "trigger %q for relation %q already exists", name, p.Name)
			}
			np := *p
			np.Triggers = slices.Delete(slices.Clone(p.Triggers), i, i+1)
			if err := a.putTable(ctx, &np); err != nil {
				return err
			}
			p = &np
		}
		if err := a.replaceChildTriggers(ctx, p, name, replace); err != nil {
			return err
		}
	}
	return nil
}

// rowTransitionTrigger returns the name of a ROW trigger of def with
// transition tables, which keeps def out of partitions and inheritance
// children; "" if it has none.
func rowTransitionTrigger(def *sqldef.Table) string {
	for _, tr := range def.Triggers {
		if tr.ForEachRow && (tr.OldTable != "" || tr.NewTable != "") {
			return tr.Name
		}
	}
	return ""
}

// triggerFunction finds the function a trigger runs: no arguments,
// returning trigger.
func (a *analyzer) triggerFunction(schema, name string) (*sqldef.Function, error) {
	fs, err := a.UserFuncs(schema, name)
	if err != nil {
		return nil, err
	}
	if len(fs) == 0 && (name == planner.TSVectorTrigger || name == planner.SuppressRedundantUpdatesTrigger) && (schema == "" || schema == "pg_catalog") {
		return &sqldef.Function{Schema: "pg_catalog", Name: name, Returns: plpgsql.OIDTrigger}, nil
	}
	for _, f := range fs {
		if len(f.InputTypes()) != 0 {
			continue
		}
		if f.Returns != plpgsql.OIDTrigger {
			return nil, pgerr.New(pgerr.InvalidObjectDefinition, "function %s must return type trigger", f.Name)
		}
		return f, nil
	}
	return nil, pgerr.New(pgerr.UndefinedFunction, "function %s() does not exist", name)
}

// dropTriggers runs DROP TRIGGER [IF EXISTS] name ON table.
func (a *analyzer) dropTriggers(ctx context.Context, s *pg.DropStmt) (string, error) {
	for _, obj := range s.Objects {
		names := planner.NameList(obj.GetList().GetItems())
		trig := names[len(names)-1]
		schema, table := planner.SplitName(names[:len(names)-1])
		t, ok, err := a.LookupTable(ctx, schema, table)
		if err != nil {
			return "", err
		}
		if !ok {
			if rel, _, err := a.LookupRelation(ctx, schema, table); err != nil {
				return "", err
			} else if rel.Kind == planner.RelView {
				if done, err := a.dropViewTrigger(ctx, rel.View, trig, s.MissingOk); err != nil || done {
					return "", err
				}
				continue
			}
		}
		if !ok {
			if s.MissingOk {
				a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "relation %q does not exist, skipping", table))
				continue
			}
			return "", pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", table)
		}
		i := slices.IndexFunc(t.Def.Triggers, func(x sqldef.Trigger) bool { return x.Name == trig })
		if i < 0 {
			if s.MissingOk {
				a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "trigger %q for relation %q does not exist, skipping", trig, table))
				continue
			}
			return "", pgerr.New(pgerr.UndefinedObject, "trigger %q for table %q does not exist", trig, table)
		}
		def := *t.Def
		def.Triggers = slices.Delete(slices.Clone(def.Triggers), i, i+1)
		if err := a.putTable(ctx, &def); err != nil {
			return "", err
		}
	}
	return "DROP TRIGGER", nil
}

// dropViewTrigger drops trigger name of view v; done is false when the
// statement goes on (IF EXISTS and no such trigger).
func (a *analyzer) dropViewTrigger(ctx context.Context, v *sqldef.View, name string, missingOK bool) (bool, error) {
	i := slices.IndexFunc(v.Triggers, func(x sqldef.Trigger) bool { return x.Name == name })
	if i < 0 {
		if missingOK {
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "trigger %q for relation %q does not exist, skipping", name, v.Name))
			return false, nil
		}
		return true, pgerr.New(pgerr.UndefinedObject, "trigger %q for table %q does not exist", name, v.Name)
	}
	if err := a.requireViewOwner(v); err != nil {
		return true, err
	}
	nv := *v
	nv.Triggers = slices.Delete(slices.Clone(v.Triggers), i, i+1)
	return false, a.putView(ctx, &nv)
}

// dropColumnTriggers takes out of def the triggers that depend on its
// column name (UPDATE OF it, or a WHEN condition reading it) with
// cascade; without, they keep the column (2BP01), as in PostgreSQL.
func (a *analyzer) dropColumnTriggers(def *sqldef.Table, name string, cascade bool) error {
	uses := func(tr sqldef.Trigger) bool {
		return slices.Contains(tr.Columns, name) || tr.When != "" && planner.ExprReads(tr.When, name)
	}
	var deps []string
	for _, tr := range def.Triggers {
		if uses(tr) {
			deps = append(deps, "trigger "+tr.Name+" on table "+def.Name)
		}
	}
	if len(deps) == 0 {
		return nil
	}
	what := "column " + name + " of table " + def.Name
	if !cascade {
		lines := make([]string, len(deps))
		for i, d := range deps {
			lines[i] = d + " depends on " + what
		}
		return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop %s because other objects depend on it", what).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	for _, d := range deps {
		a.cascaded(d)
	}
	def.Triggers = slices.DeleteFunc(slices.Clone(def.Triggers), uses)
	return nil
}

// dropTriggersOf drops, with CASCADE, the triggers that run f, or fails.
func (a *analyzer) dropTriggersOf(ctx context.Context, f *sqldef.Function, cascade bool) error {
	if f.Returns != plpgsql.OIDTrigger {
		return nil
	}
	tables, err := a.tx.Root().Tables(ctx)
	if err != nil {
		return err
	}
	for _, t := range tables {
		keep := slices.DeleteFunc(slices.Clone(t.Triggers), func(tr sqldef.Trigger) bool {
			return tr.FuncSchema == f.Schema && tr.FuncName == f.Name
		})
		if len(keep) == len(t.Triggers) {
			continue
		}
		if !cascade {
			var tr sqldef.Trigger
			for _, x := range t.Triggers {
				if x.FuncSchema == f.Schema && x.FuncName == f.Name {
					tr = x
					break
				}
			}
			return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop function %s because other objects depend on it", functionSignature(f)).
				WithDetail("trigger %s on table %s depends on function %s", tr.Name, t.Name, functionSignature(f)).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to trigger %s on table %s", t.Triggers[0].Name, t.Name))
		def := *t
		def.Triggers = keep
		if err := a.putTable(ctx, &def); err != nil {
			return err
		}
	}
	return nil
}

// enableTrigger runs ALTER TABLE ENABLE/DISABLE TRIGGER name|ALL|USER.
func enableTrigger(def *sqldef.Table, cmd *pg.AlterTableCmd) error {
	disable, fires := false, byte(0)
	all := false
	switch cmd.Subtype {
	case pg.AlterTableType_AT_DisableTrig:
		disable = true
	case pg.AlterTableType_AT_EnableAlwaysTrig:
		fires = 'A'
	case pg.AlterTableType_AT_EnableReplicaTrig:
		fires = 'R'
	case pg.AlterTableType_AT_EnableTrigAll, pg.AlterTableType_AT_EnableTrigUser:
		all = true
	case pg.AlterTableType_AT_DisableTrigAll, pg.AlterTableType_AT_DisableTrigUser:
		all, disable = true, true
	}
	switch cmd.Subtype {
	case pg.AlterTableType_AT_EnableTrigAll:
		def.SystemTriggersDisabled = false
	case pg.AlterTableType_AT_DisableTrigAll:
		def.SystemTriggersDisabled = true
	}
	def.Triggers = slices.Clone(def.Triggers)
	found := false
	for i := range def.Triggers {
		if all || def.Triggers[i].Name == cmd.Name {
			def.Triggers[i].Disabled = disable
			if !disable {
				def.Triggers[i].Fires = fires
			}
			found = true
		}
	}
	if !found && !all {
		return pgerr.New(pgerr.UndefinedObject, "trigger %q for table %q does not exist", cmd.Name, def.Name)
	}
	return nil
}

// checkWhenReferences refuses what a trigger's WHEN condition may not
// read, as PostgreSQL does: a statement trigger's any column, an INSERT
// trigger's OLD, a DELETE trigger's NEW (each at its position).
func checkWhenReferences(s *pg.CreateTrigStmt) error {
	var err error
	planner.VisitNodes(s.WhenClause, func(x *pg.Node) {
		c := x.GetColumnRef()
		if c == nil || err != nil {
			return
		}
		first, second := "", ""
		if len(c.Fields) > 0 {
			first = strings.ToLower(c.Fields[0].GetString_().GetSval())
		}
		if len(c.Fields) > 1 {
			second = c.Fields[1].GetString_().GetSval()
		}
		switch {
		case !s.Row:
			err = planner.WithPos(pgerr.New(pgerr.FeatureNotSupported, "statement trigger's WHEN condition cannot reference column values"), c.Location)
		case first == "old" && s.Events&trigInsert != 0:
			err = planner.WithPos(pgerr.New(pgerr.InvalidObjectDefinition, "INSERT trigger's WHEN condition cannot reference OLD values"), c.Location)
		case first == "new" && s.Events&trigDelete != 0:
			err = planner.WithPos(pgerr.New(pgerr.InvalidObjectDefinition, "DELETE trigger's WHEN condition cannot reference NEW values"), c.Location)
		case first == "new" && s.Timing&trigBefore != 0 && planner.IsSystemColumn(second):
			// A BEFORE trigger runs before the new row has them.
			err = planner.WithPos(pgerr.New(pgerr.FeatureNotSupported, "BEFORE trigger's WHEN condition cannot reference NEW system columns"), c.Location)
		}
	})
	return err
}

// renameTrigger runs ALTER TRIGGER name ON table RENAME TO new.
func (a *analyzer) renameTrigger(ctx context.Context, s *pg.RenameStmt) error {
	t, ok, err := a.LookupTable(ctx, s.Relation.Schemaname, s.Relation.Relname)
	if err != nil {
		return err
	}
	if !ok {
		return planner.WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(s.Relation)), s.Relation.Location)
	}
	if err := a.requireOwnerOf(t.Def, "table", t.Def.Name); err != nil {
		return err
	}
	i := slices.IndexFunc(t.Def.Triggers, func(x sqldef.Trigger) bool { return x.Name == s.Subname })
	if i < 0 {
		return pgerr.New(pgerr.UndefinedObject, "trigger %q for table %q does not exist", s.Subname, t.Def.Name)
	}
	if slices.ContainsFunc(t.Def.Triggers, func(x sqldef.Trigger) bool { return x.Name == s.Newname }) {
		return pgerr.New(pgerr.DuplicateObject, "trigger %q for relation %q already exists", s.Newname, t.Def.Name)
	}
	def := cloneTable(t.Def)
	def.Triggers = slices.Clone(def.Triggers)
	def.Triggers[i].Name = s.Newname
	slices.SortFunc(def.Triggers, func(x, y sqldef.Trigger) int { return strings.Compare(x.Name, y.Name) })
	return a.putTable(ctx, def)
}

// requireSystemTriggers refuses ENABLE or DISABLE TRIGGER ALL on a table
// with foreign-key (internal) triggers to a role that is not a superuser,
// as PostgreSQL does: those triggers guard other tables' rows too. The
// error names the trigger as PostgreSQL's would: an action trigger
// (_a_) of a key referencing the table, or a check trigger (_c_) of one
// of its own keys.
func (a *analyzer) requireSystemTriggers(ctx context.Context, def *sqldef.Table) error {
	au, err := a.Authority()
	if err != nil || au.Superuser {
		return err
	}
	refs, err := a.tx.Catalog().ReferencingKeys(ctx, def.Schema, def.Name)
	if err != nil {
		return err
	}
	name := ""
	switch {
	case len(refs) > 0:
		name = fmt.Sprintf("RI_ConstraintTrigger_a_%d", catalog.ConstraintOID(refs[0].Schema, refs[0].Table, refs[0].Name))
	case len(def.ForeignKeys) > 0:
		name = fmt.Sprintf("RI_ConstraintTrigger_c_%d", catalog.ConstraintOID(def.Schema, def.Name, def.ForeignKeys[0].Name))
	default:
		return nil
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "permission denied: %q is a system trigger", name)
}
