package versioning

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Three-way merge of table definitions. Column positions are stable (see
// Table), so base's columns keep their positions on both sides and each
// side's additions follow them: ours' keep their positions in the merged
// table and theirs' are renumbered after them. A column, index, check or
// foreign key changed on one side takes that side; changed on both in
// different ways, or changed on one side and dropped on the other, is a
// schema conflict.

// mergedDefinition is the result of mergeDefinitions.
type mergedDefinition struct {
	def *sqldef.Table
	// theirsPos maps a column position of theirs to its position in def;
	// nil when every column keeps its position.
	theirsPos []int
	// conflict, when set, says why the definitions do not merge.
	conflict string
}

// mergeDefinitions merges the definitions of a table changed on both
// sides; base is nil for a table created on both. Row roots are left as
// ours'.
func mergeDefinitions(base, ours, theirs *sqldef.Table) mergedDefinition {
	if base == nil {
		if !sqldef.SameDefinition(ours, theirs) {
			return mergedDefinition{conflict: "table created on both sides with different definitions"}
		}
		base = ours
	}
	n := len(base.Columns)
	if len(ours.Columns) < n || len(theirs.Columns) < n {
		return mergedDefinition{conflict: "columns removed from the table's layout"}
	}
	def := *ours
	def.Columns = slices.Clone(ours.Columns)
	// Rewritten rows (a column's type or the primary key changed) cannot
	// be combined with row changes made on the other side.
	oursRewrote, theirsRewrote := rewritesRows(base, ours), rewritesRows(base, theirs)
	if oursRewrote && theirs.Rows != base.Rows || theirsRewrote && ours.Rows != base.Rows {
		return mergedDefinition{conflict: "the table's rows were rewritten (a column type or the primary key changed) on one side and changed on the other"}
	}
	for i := 0; i < n; i++ {
		c, ok := pick3(base.Columns[i], ours.Columns[i], theirs.Columns[i])
		if !ok {
			return mergedDefinition{conflict: fmt.Sprintf("column %q changed differently on both sides", ours.Columns[i].Name)}
		}
		def.Columns[i] = c
	}
	pos := make([]int, len(theirs.Columns))
	moved := false
	for i := range pos {
		pos[i] = i
	}
	for i := n; i < len(theirs.Columns); i++ {
		tc := theirs.Columns[i]
		j := slices.IndexFunc(def.Columns[n:len(ours.Columns)], func(c sqldef.Column) bool { return !c.Dropped && c.Name == tc.Name })
		switch {
		case j >= 0 && reflect.DeepEqual(def.Columns[n+j], tc):
			pos[i] = n + j
		case j >= 0:
			return mergedDefinition{conflict: fmt.Sprintf("column %q added on both sides with different definitions", tc.Name)}
		default:
			pos[i] = len(def.Columns)
			def.Columns = append(def.Columns, tc)
		}
		moved = moved || pos[i] != i
	}
	remap := func(p int) int {
		if p >= 0 && p < len(pos) {
			return pos[p]
		}
		return p
	}
	theirsDef := remapTable(theirs, remap)
	var ok bool
	var what string
	if def.PrimaryKey, ok = pick3(base.PrimaryKey, ours.PrimaryKey, theirsDef.PrimaryKey); !ok {
		return mergedDefinition{conflict: "primary key changed differently on both sides"}
	}
	if def.PrimaryKeyName, ok = pick3(base.PrimaryKeyName, ours.PrimaryKeyName, theirs.PrimaryKeyName); !ok {
		return mergedDefinition{conflict: "primary key renamed differently on both sides"}
	}
	indexName := func(ix *sqldef.Index) string { return ix.Name }
	if def.Indexes, what = mergeNamed(stripIndexes(base.Indexes), stripIndexes(ours.Indexes), stripIndexes(theirsDef.Indexes), indexName); what != "" {
		return mergedDefinition{conflict: fmt.Sprintf("index %q changed differently on both sides", what)}
	}
	if def.Checks, what = mergeNamed(base.Checks, ours.Checks, theirs.Checks, func(c *sqldef.Check) string { return c.Name }); what != "" {
		return mergedDefinition{conflict: fmt.Sprintf("check constraint %q changed differently on both sides", what)}
	}
	if def.ForeignKeys, what = mergeNamed(base.ForeignKeys, ours.ForeignKeys, theirsDef.ForeignKeys, func(f *sqldef.ForeignKey) string { return f.Name }); what != "" {
		return mergedDefinition{conflict: fmt.Sprintf("foreign key %q changed differently on both sides", what)}
	}
	if def.Triggers, what = mergeNamed(base.Triggers, ours.Triggers, theirs.Triggers, func(t *sqldef.Trigger) string { return t.Name }); what != "" {
		return mergedDefinition{conflict: fmt.Sprintf("trigger %q changed differently on both sides", what)}
	}
	if def.Rules, what = mergeNamed(base.Rules, ours.Rules, theirs.Rules, func(r *sqldef.Rule) string { return r.Name }); what != "" {
		return mergedDefinition{conflict: fmt.Sprintf("rule %q changed differently on both sides", what)}
	}
	slices.SortFunc(def.Rules, func(a, b sqldef.Rule) int { return strings.Compare(a.Name, b.Name) })
	if def.Policies, what = mergeNamed(base.Policies, ours.Policies, theirs.Policies, func(p *sqldef.Policy) string { return p.Name }); what != "" {
		return mergedDefinition{conflict: fmt.Sprintf("policy %q changed differently on both sides", what)}
	}
	slices.SortFunc(def.Policies, func(a, b sqldef.Policy) int { return strings.Compare(a.Name, b.Name) })
	if def.RowSecurity, ok = pick3(base.RowSecurity, ours.RowSecurity, theirs.RowSecurity); !ok {
		return mergedDefinition{conflict: "row-level security changed differently on both sides"}
	}
	if def.ForceRowSecurity, ok = pick3(base.ForceRowSecurity, ours.ForceRowSecurity, theirs.ForceRowSecurity); !ok {
		return mergedDefinition{conflict: "row-level security forcing changed differently on both sides"}
	}
	// Comments changed on both sides keep ours: not worth a conflict.
	def.Comment, _ = pick3(base.Comment, ours.Comment, theirs.Comment)
	def.PrimaryKeyComment, _ = pick3(base.PrimaryKeyComment, ours.PrimaryKeyComment, theirs.PrimaryKeyComment)
	def.PrimaryKeyIndexComment, _ = pick3(base.PrimaryKeyIndexComment, ours.PrimaryKeyIndexComment, theirs.PrimaryKeyIndexComment)
	// Settings of the table that a side may turn on or off: a change on
	// one side is taken (both booleans, so the sides cannot differ in
	// how they changed).
	def.SystemTriggersDisabled, _ = pick3(base.SystemTriggersDisabled, ours.SystemTriggersDisabled, theirs.SystemTriggersDisabled)
	def.PrimaryKeyClustered, _ = pick3(base.PrimaryKeyClustered, ours.PrimaryKeyClustered, theirs.PrimaryKeyClustered)
	def.NextRowID = max(ours.NextRowID, theirs.NextRowID)
	md := mergedDefinition{def: &def}
	if moved {
		md.theirsPos = pos
	}
	return md
}

// rewritesRows reports whether side changed base in a way that rewrote
// every row: a column's type or the primary key.
func rewritesRows(base, side *sqldef.Table) bool {
	if !slices.Equal(base.PrimaryKey, side.PrimaryKey) {
		return true
	}
	for i, c := range base.Columns {
		if s := side.Columns[i]; s.Type != c.Type || s.Typmod != c.Typmod {
			return true
		}
	}
	return false
}

// remapTable returns a copy of t whose column positions in keys, indexes
// and foreign keys are mapped by pos.
func remapTable(t *sqldef.Table, pos func(int) int) *sqldef.Table {
	c := *t
	c.PrimaryKey = remapInts(t.PrimaryKey, pos)
	c.Indexes = slices.Clone(t.Indexes)
	for i := range c.Indexes {
		ix := &c.Indexes[i]
		ix.Columns = slices.Clone(ix.Columns)
		for j := range ix.Columns {
			if ix.Columns[j].Column >= 0 {
				ix.Columns[j].Column = pos(ix.Columns[j].Column)
			}
		}
		ix.Include = remapInts(ix.Include, pos)
	}
	c.ForeignKeys = slices.Clone(t.ForeignKeys)
	for i := range c.ForeignKeys {
		c.ForeignKeys[i].Columns = remapInts(c.ForeignKeys[i].Columns, pos)
	}
	return &c
}

func remapInts(in []int, pos func(int) int) []int {
	if in == nil {
		return nil
	}
	out := make([]int, len(in))
	for i, p := range in {
		out[i] = pos(p)
	}
	return out
}

// stripIndexes returns indexes without their map roots, so that their
// definitions compare.
func stripIndexes(in []sqldef.Index) []sqldef.Index {
	out := slices.Clone(in)
	for i := range out {
		out[i].Rows = store.Address{}
	}
	return out
}

// pick3 merges one value: the side that changed it, or either when both
// made the same change. ok is false when they changed it differently.
func pick3[T any](base, ours, theirs T) (T, bool) {
	switch {
	case reflect.DeepEqual(ours, base):
		return theirs, true
	case reflect.DeepEqual(theirs, base), reflect.DeepEqual(ours, theirs):
		return ours, true
	}
	return ours, false
}

// mergeNamed merges lists of named items (indexes, checks, foreign keys):
// items keep ours' order, theirs' additions follow. It returns the name of
// an item changed on both sides differently, or changed on one side and
// dropped on the other.
func mergeNamed[T any](base, ours, theirs []T, name func(*T) string) ([]T, string) {
	find := func(list []T, n string) (T, bool) {
		for i := range list {
			if name(&list[i]) == n {
				return list[i], true
			}
		}
		var zero T
		return zero, false
	}
	var out []T
	for i := range ours {
		n := name(&ours[i])
		b, inBase := find(base, n)
		t, inTheirs := find(theirs, n)
		switch {
		case inTheirs && inBase:
			v, ok := pick3(b, ours[i], t)
			if !ok {
				return nil, n
			}
			out = append(out, v)
		case inTheirs:
			if !reflect.DeepEqual(ours[i], t) {
				return nil, n
			}
			out = append(out, ours[i])
		case inBase:
			if !reflect.DeepEqual(ours[i], b) {
				return nil, n // changed by ours, dropped by theirs
			}
		default:
			out = append(out, ours[i])
		}
	}
	for i := range theirs {
		n := name(&theirs[i])
		if _, inOurs := find(ours, n); inOurs {
			continue
		}
		if b, inBase := find(base, n); inBase {
			if !reflect.DeepEqual(theirs[i], b) {
				return nil, n // changed by theirs, dropped by ours
			}
			continue
		}
		out = append(out, theirs[i])
	}
	return out, ""
}
