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

// ALTER TABLE ... ATTACH PARTITION and DETACH PARTITION. Attaching makes
// an existing table a partition: its columns must be its parent's, its
// rows must lie within the bound, and a default partition of the parent
// must hold no row the new partition now claims. Detaching makes a
// partition a table of its own, keeping its rows, columns and indexes.

// attachPartition runs ATTACH PARTITION name FOR VALUES ... on parent.
func (a *analyzer) attachPartition(ctx context.Context, parent *exec.Table, cmd *pg.PartitionCmd) error {
	if !parent.Def.Partitioned() {
		return pgerr.New(pgerr.InvalidObjectDefinition, "table %q is not partitioned", parent.Def.Name)
	}
	child, err := a.partitionCmdTable(ctx, cmd.Name)
	if err != nil {
		return err
	}
	switch {
	case child.IsPartition():
		return pgerr.New(pgerr.WrongObjectType, "%q is already a partition", child.Name)
	case len(child.Inherits) > 0:
		return pgerr.New(pgerr.WrongObjectType, "cannot attach inheritance child as partition")
	case child.Schema == parent.Def.Schema && child.Name == parent.Def.Name:
		return pgerr.New(pgerr.DuplicateTable, "cannot attach a table to itself")
	}
	if kids, err := a.tx.Root().Children(ctx, child.Schema, child.Name); err != nil {
		return err
	} else if len(kids) > 0 && !child.Partitioned() {
		return pgerr.New(pgerr.WrongObjectType, "cannot attach inheritance parent as partition")
	}
	switch ptemp, ctemp := planner.IsTempSchema(parent.Def.Schema), planner.IsTempSchema(child.Schema); {
	case !ptemp && ctemp:
		return pgerr.New(pgerr.WrongObjectType, "cannot attach a temporary relation as partition of permanent relation %q", parent.Def.Name)
	case ptemp && !ctemp:
		return pgerr.New(pgerr.WrongObjectType, "cannot attach a permanent relation as partition of temporary relation %q", parent.Def.Name)
	}
	if err := a.checkClonedTriggers(ctx, parent.Def, child); err != nil {
		return err
	}
	if tr := rowTransitionTrigger(child); tr != "" {
		return pgerr.New(pgerr.FeatureNotSupported, "trigger %q prevents table %q from becoming a partition", tr, child.Name).
			WithDetail("ROW triggers with transition tables are not supported on partitions.")
	}
	def := cloneTable(child)
	if err := mergeColumnsForAttach(parent.Def, def); err != nil {
		return err
	}
	if err := mergeInheritedChecks(parent.Def, def, true); err != nil {
		return err
	}
	b, err := a.partitionBound(ctx, parent.Def, def.Name, cmd.Bound)
	if err != nil {
		return err
	}
	if err := a.checkOverlap(ctx, parent.Def, def.Name, b, cmd.Bound); err != nil {
		return err
	}
	def.Inherits = []sqldef.TableName{{Schema: parent.Def.Schema, Name: parent.Def.Name}}
	def.PartitionBound = b
	if err := a.addPartitionIndexes(ctx, parent.Def, def); err != nil {
		return err
	}
	if err := a.putTable(ctx, def); err != nil {
		return err
	}
	// With the partition in place, partition constraints say what its
	// rows, and a default sibling's, may be.
	attached, ok, err := a.tx.Table(ctx, def.Schema, def.Name)
	if err != nil || !ok {
		return err
	}
	if bad, err := a.partitionViolator(ctx, attached); err != nil {
		return err
	} else if bad != "" {
		return pgerr.New(pgerr.CheckViolation, "partition constraint of relation %q is violated by some row", bad)
	}
	if err := a.cascadeForeignKeys(ctx, parent.Def); err != nil {
		return err
	}
	if b.Default {
		return nil
	}
	return a.checkDefaultPartition(ctx, parent.Def)
}

// checkDefaultPartition fails if the default partition of parent, if it
// has one, holds a row that a partition just added to parent claims.
func (a *analyzer) checkDefaultPartition(ctx context.Context, parent *sqldef.Table) error {
	dflt, err := a.defaultPartition(ctx, parent)
	if err != nil || dflt == nil {
		return err
	}
	if bad, err := a.partitionViolator(ctx, dflt); err != nil {
		return err
	} else if bad != "" {
		return pgerr.New(pgerr.CheckViolation, "updated partition constraint for default partition %q would be violated by some row", bad)
	}
	return nil
}

// partitionCmdTable resolves the table an ATTACH or DETACH PARTITION names.
func (a *analyzer) partitionCmdTable(ctx context.Context, rv *pg.RangeVar) (*sqldef.Table, error) {
	rel, _, err := a.LookupRelation(ctx, rv.Schemaname, rv.Relname)
	if err != nil {
		return nil, err
	}
	switch rel.Kind {
	case planner.RelNone:
		return nil, planner.WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(rv)), rv.Location)
	case planner.RelTable:
		return rel.Table, nil
	}
	return nil, wrongObjectType(rv.Relname, rel.Kind, planner.RelTable)
}

// mergeColumnsForAttach checks that def, a table becoming a partition of
// parent, has exactly parent's columns, and marks them inherited.
func mergeColumnsForAttach(parent, def *sqldef.Table) error {
	for _, c := range def.Columns {
		if !c.Dropped && planner.ColumnIndex(parent, c.Name) < 0 {
			return pgerr.New(pgerr.DatatypeMismatch, "table %q contains column %q not found in parent %q", def.Name, c.Name, parent.Name).
				WithDetail("The new partition may contain only the columns present in parent.")
		}
	}
	return mergeInheritedColumns(parent, def, true)
}

// defaultPartition returns the default partition of a partitioned table,
// nil if it has none.
func (a *analyzer) defaultPartition(ctx context.Context, parent *sqldef.Table) (*exec.Table, error) {
	parts, err := a.Partitions(ctx, parent)
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		if p.PartitionBound.Default {
			t, _, err := a.tx.Table(ctx, p.Schema, p.Name)
			return t, err
		}
	}
	return nil, nil
}

// partitionViolator returns the name of the first leaf partition of t (t
// itself unless it is partitioned) holding a row outside its partition
// constraint, "" if none does.
func (a *analyzer) partitionViolator(ctx context.Context, t *exec.Table) (string, error) {
	members, err := a.FamilyTables(t)
	if err != nil {
		return "", err
	}
	for _, m := range members {
		pc, err := a.PartitionCheck(m)
		if err != nil {
			return "", err
		}
		bad := false
		env := a.env(ctx)
		err = a.tx.EachRow(ctx, m, func(row exec.Row) error {
			in, err := pc.Holds(env, row)
			if err != nil {
				return err
			}
			if !in {
				bad = true
				return errStop
			}
			return nil
		})
		if err != nil && err != errStop {
			return "", err
		}
		if bad {
			return m.Def.Name, nil
		}
	}
	return "", nil
}

// detachPartition runs DETACH PARTITION name [CONCURRENTLY | FINALIZE] on
// parent. A concurrent detach is an ordinary one here: no transaction
// waits on another's use of the partition, so there is nothing to finalize.
func (a *analyzer) detachPartition(ctx context.Context, parent *exec.Table, cmd *pg.PartitionCmd, finalize bool) error {
	if cmd.Concurrent && a.s.InTransactionBlock() {
		return pgerr.New(pgerr.ActiveSQLTransaction, "ALTER TABLE ... DETACH CONCURRENTLY cannot run inside a transaction block")
	}
	if !parent.Def.Partitioned() {
		return pgerr.New(pgerr.InvalidObjectDefinition, "table %q is not partitioned", parent.Def.Name)
	}
	child, err := a.partitionCmdTable(ctx, cmd.Name)
	if err != nil {
		return err
	}
	if cmd.Concurrent {
		if dflt, err := a.defaultPartition(ctx, parent.Def); err != nil {
			return err
		} else if dflt != nil {
			return pgerr.New(pgerr.ObjectNotInPrerequisite, "cannot detach partitions concurrently when a default partition exists")
		}
	}
	if !child.IsPartition() || len(child.Inherits) == 0 ||
		child.Inherits[0] != (sqldef.TableName{Schema: parent.Def.Schema, Name: parent.Def.Name}) {
		return pgerr.New(pgerr.UndefinedTable, "relation %q is not a partition of relation %q", child.Name, parent.Def.Name)
	}
	if finalize {
		return pgerr.New(pgerr.ObjectNotInPrerequisite, "cannot complete detaching partition %q", child.Name).
			WithDetail("There's no pending concurrent detach.")
	}
	def := cloneTable(child)
	def.Inherits, def.PartitionBound = nil, nil
	disinherit(parent.Def, def)
	return a.putTable(ctx, def)
}

// disinherit makes the columns and CHECK constraints def inherits from
// parent its own, as a table that stops inheriting from parent keeps them.
func disinherit(parent, def *sqldef.Table) {
	for i := range def.Columns {
		c := &def.Columns[i]
		if c.Dropped || planner.ColumnIndex(parent, c.Name) < 0 || c.InhCount == 0 {
			continue
		}
		c.InhCount--
		c.NotLocal = false
	}
	for i := range def.Checks {
		c := &def.Checks[i]
		if c.InhCount == 0 || !slices.ContainsFunc(parent.Checks, func(p sqldef.Check) bool { return p.Name == c.Name && !p.NoInherit }) {
			continue
		}
		c.InhCount--
		c.NotLocal = false
	}
}

// attachIndex runs ALTER INDEX parent ATTACH PARTITION name. A
// partitioned table's index and its partitions' are not linked here: a
// partition's index stands for its parent's when their definitions
// match (sameIndex), so attaching only checks that they do.
func (a *analyzer) attachIndex(ctx context.Context, parent planner.Relation, schema string, cmd *pg.PartitionCmd) error {
	rv := cmd.Name
	child, _, err := a.LookupRelation(ctx, rv.Schemaname, rv.Relname)
	if err != nil {
		return err
	}
	if child.Kind == planner.RelNone {
		return planner.WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(rv)), rv.Location)
	}
	if child.Kind != planner.RelIndex {
		return pgerr.New(pgerr.InvalidObjectDefinition, "%q is not an index", rv.Relname)
	}
	pt, ct := parent.Table, child.Table
	pname := pt.PrimaryKeyName
	if parent.Index >= 0 {
		pname = pt.Indexes[parent.Index].Name
	}
	cannot := pgerr.New(pgerr.InvalidObjectDefinition, "cannot attach index %q as a partition of index %q", rv.Relname, pname)
	if !ct.IsPartition() || ct.Inherits[0] != (sqldef.TableName{Schema: schema, Name: pt.Name}) {
		cannot.Code = pgerr.ObjectNotInPrerequisite
		return cannot.WithDetail("Index %q is not an index on any partition of table %q.", rv.Relname, pt.Name)
	}
	var match bool
	switch {
	case parent.Index < 0 && child.Index < 0:
		match = len(pt.PrimaryKey) == len(ct.PrimaryKey)
		for i := 0; match && i < len(pt.PrimaryKey); i++ {
			match = pt.Columns[pt.PrimaryKey[i]].Name == ct.Columns[ct.PrimaryKey[i]].Name
		}
	case parent.Index >= 0 && child.Index >= 0:
		match = sqldef.SameIndex(pt, ct, pt.Indexes[parent.Index], ct.Indexes[child.Index])
	}
	if !match {
		return cannot.WithDetail("The index definitions do not match.")
	}
	return nil
}

// checkClonedTriggers refuses to attach child to parent when a trigger
// of child has the name of a ROW trigger of parent or of a partitioned
// table above it, which PostgreSQL clones onto its partitions.
func (a *analyzer) checkClonedTriggers(ctx context.Context, parent, child *sqldef.Table) error {
	for cur := parent; cur != nil; {
		for _, tr := range cur.Triggers {
			if !tr.ForEachRow {
				continue
			}
			if slices.ContainsFunc(child.Triggers, func(x sqldef.Trigger) bool { return x.Name == tr.Name }) {
				return pgerr.New(pgerr.DuplicateObject, "trigger %q for relation %q already exists", tr.Name, child.Name)
			}
		}
		if !cur.IsPartition() || len(cur.Inherits) == 0 {
			break
		}
		next, ok, err := a.tx.Root().Table(ctx, cur.Inherits[0].Schema, cur.Inherits[0].Name)
		if err != nil || !ok {
			return err
		}
		cur = next
	}
	return nil
}
