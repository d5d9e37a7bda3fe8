package dolt

import (
	"context"
	"encoding/hex"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// The system tables of merges: dolt_conflicts, dolt_conflicts_<table>,
// dolt_schema_conflicts, dolt_constraint_violations,
// dolt_constraint_violations_<table> and dolt_merge_status. They read the
// conflict records (versioning.TableConflicts) of the transaction's root.
// dolt_conflicts_<table> is writable: DELETE marks conflicts resolved
// keeping the table's row, UPDATE of its our_ columns writes the row.

// numericType is numeric without a modifier: Doltgres's counts are
// numerics (dolt.conflicts, dolt_branch_status).
var numericType = exec.T{OID: exec.OIDNumeric, Typmod: -1}

func init() {
	systemTables["conflicts"] = systemTable{
		cols: []exec.VirtualColumn{{Name: "table", Type: exec.TText}, {Name: "num_conflicts", Type: numericType}},
		rows: func(s session, env *exec.Env) ([]exec.Row, error) {
			return conflictCounts(env, false)
		}}
	systemTables["constraint_violations"] = systemTable{
		cols: []exec.VirtualColumn{{Name: "table", Type: exec.TText}, {Name: "num_violations", Type: numericType}},
		rows: func(s session, env *exec.Env) ([]exec.Row, error) {
			return conflictCounts(env, true)
		}}
	systemTables["schema_conflicts"] = systemTable{
		cols: []exec.VirtualColumn{
			{Name: "table_name", Type: exec.TText}, {Name: "base_schema", Type: exec.TText},
			{Name: "our_schema", Type: exec.TText}, {Name: "their_schema", Type: exec.TText},
			{Name: "description", Type: exec.TText},
		},
		rows: func(s session, env *exec.Env) ([]exec.Row, error) {
			all, err := env.Txn.Root().AllConflicts(env.Ctx)
			if err != nil {
				return nil, err
			}
			var rows []exec.Row
			for _, tc := range all {
				if tc.SchemaConflict == "" || tc.Kind != 0 {
					continue // other objects' conflicts: dolt_conflicts_<object>
				}
				rows = append(rows, exec.Row{exec.DText(tc.Name), tableSchemaText(tc.Base), tableSchemaText(tc.Ours),
					tableSchemaText(tc.Theirs), exec.DText(tc.SchemaConflict)})
			}
			return rows, nil
		}}
	systemTables["merge_status"] = systemTable{
		cols: []exec.VirtualColumn{
			{Name: "is_merging", Type: exec.TBool}, {Name: "source", Type: exec.TText},
			{Name: "source_commit", Type: exec.TText}, {Name: "target", Type: exec.TText},
			{Name: "unmerged_tables", Type: exec.TText},
		},
		rows: func(s session, env *exec.Env) ([]exec.Row, error) {
			if s.Detached() != nil {
				return []exec.Row{{exec.DBool(false), exec.Null, exec.Null, exec.Null, exec.Null}}, nil
			}
			_, ws, err := s.Repo().WorkingSet(env.Ctx, s.Branch())
			if err != nil {
				return nil, vcsError(err)
			}
			if ws.MergeCommit.IsZero() {
				return []exec.Row{{exec.DBool(false), exec.Null, exec.Null, exec.Null, exec.Null}}, nil
			}
			all, err := env.Txn.Root().AllConflicts(env.Ctx)
			if err != nil {
				return nil, err
			}
			types, err := labelTypes(env.Ctx, env.Txn.Root())
			if err != nil {
				return nil, err
			}
			var names []string
			for _, tc := range all {
				names = append(names, conflictShortLabel(tc, types))
			}
			src := ws.MergeCommit.String()
			return []exec.Row{{exec.DBool(true), exec.DText(src), exec.DText(src), exec.DText(s.Branch()), textOrNull(strings.Join(names, ", "))}}, nil
		}}
	perTableSystem["conflicts_"] = conflictsTable
	perTableSystem["constraint_violations_"] = violationsTable
}

// conflictCounts are the rows of dolt_conflicts (row conflicts, tables
// whose schemas did not merge, and the fields in conflict of other
// objects) or of dolt_constraint_violations.
func conflictCounts(env *exec.Env, violations bool) ([]exec.Row, error) {
	root := env.Txn.Root()
	all, err := root.AllConflicts(env.Ctx)
	if err != nil {
		return nil, err
	}
	names, err := labelTypes(env.Ctx, root)
	if err != nil {
		return nil, err
	}
	var rows []exec.Row
	for _, tc := range all {
		var n uint64
		switch {
		case violations:
			n, err = tc.ViolationCount(env.Ctx, root.Store())
		case tc.Kind != 0:
			n = uint64(len(tc.ObjectFields())) // a function's, view's, type's or sequence's fields
		default:
			n, err = tc.RowConflictCount(env.Ctx, root.Store())
		}
		if err != nil {
			return nil, err
		}
		if n == 0 && (violations || tc.SchemaConflict == "") {
			continue
		}
		rows = append(rows, exec.Row{exec.DText(conflictShortLabel(tc, names)), exec.DNumeric(apd.New(int64(n), 0))})
	}
	return rows, nil
}

// tableSchemaText describes a table's definition for
// dolt_schema_conflicts: CREATE TABLE name (column type, ...).
func tableSchemaText(t *sqldef.Table) exec.Datum {
	if t == nil {
		return exec.Null
	}
	var b strings.Builder
	b.WriteString("CREATE TABLE " + catalog.QuoteIdent(t.Name) + " (")
	first := true
	for _, c := range t.Columns {
		if c.Dropped {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(catalog.QuoteIdent(c.Name) + " " + types.FormatType(types.Oid(c.Type), c.Typmod))
		if c.NotNull {
			b.WriteString(" NOT NULL")
		}
	}
	b.WriteString(")")
	return exec.DText(b.String())
}

// liveColumns returns the positions of t's columns that are not dropped.
func liveColumns(t *exec.Table) []int {
	var out []int
	for i, c := range t.Cols {
		if !c.Dropped {
			out = append(out, i)
		}
	}
	return out
}

// conflictsTable builds dolt_conflicts_<table>: one row per conflicting
// row, its base, our and their versions side by side.
func conflictsTable(_ session, def *sqldef.Table) (*exec.Table, error) {
	t := exec.NewTable(def)
	live, cols := conflictColumns(t)
	schema, name := def.Schema, def.Name
	vt := exec.NewVirtualTable(schema, "dolt_conflicts_"+name, exec.ObjectOID('r', schema, "dolt_conflicts_"+name), cols, func(env *exec.Env) ([]exec.Row, error) {
		return conflictRows(env, schema, name, live)
	})
	vt.VirtualWriter = &conflictsWriter{schema: schema, name: name, live: live}
	return vt, nil
}

// conflictColumns are the live columns of t and the columns of its
// conflicts table: from_root_ish, each side's columns (with a diff type
// for ours and theirs), dolt_conflict_id.
func conflictColumns(t *exec.Table) (live []int, cols []exec.VirtualColumn) {
	live = liveColumns(t)
	cols = []exec.VirtualColumn{{Name: "from_root_ish", Type: exec.TText}}
	for _, prefix := range []string{"base_", "our_", "their_"} {
		for _, p := range live {
			cols = append(cols, exec.VirtualColumn{Name: prefix + t.Cols[p].Name, Type: t.Cols[p].Type})
		}
		if prefix != "base_" {
			cols = append(cols, exec.VirtualColumn{Name: prefix + "diff_type", Type: exec.TText})
		}
	}
	return live, append(cols, exec.VirtualColumn{Name: "dolt_conflict_id", Type: exec.TText})
}

// conflictRows are the rows of dolt_conflicts_<table>.
func conflictRows(env *exec.Env, schema, name string, live []int) ([]exec.Row, error) {
	cur, ok, err := env.Txn.Table(env.Ctx, schema, name)
	if err != nil || !ok {
		return nil, err
	}
	return conflictRowsIn(env.Ctx, env.Txn.Root(), cur, live)
}

// conflictRowsIn are the rows of the row conflicts that root records for
// table cur, in cur's live columns.
func conflictRowsIn(ctx context.Context, root versioning.RootValue, cur *exec.Table, live []int) ([]exec.Row, error) {
	tc, ok, err := root.Conflicts(ctx, cur.Def.Schema, cur.Def.Name)
	if err != nil || !ok {
		return nil, err
	}
	var rows []exec.Row
	err = tc.EachRowConflict(ctx, root.Store(), func(key []byte, cr versioning.ConflictRow) error {
		row := exec.Row{exec.DText(tc.FromRoot)}
		for i, side := range [][]byte{cr.Base, cr.Ours, cr.Theirs} {
			vals, err := storedValues(cur, side, live)
			if err != nil {
				return err
			}
			row = append(row, vals...)
			if i > 0 {
				row = append(row, exec.DText(diffType(cr.Base, side)))
			}
		}
		rows = append(rows, append(row, exec.DText(hex.EncodeToString(key))))
		return nil
	})
	return rows, err
}

// storedValues decodes a stored row's live columns; NULLs for an absent
// row.
func storedValues(t *exec.Table, v []byte, live []int) ([]exec.Datum, error) {
	out := make([]exec.Datum, len(live))
	if v == nil {
		for i := range out {
			out[i] = exec.Null
		}
		return out, nil
	}
	row, err := t.DecodeStoredRow(v)
	if err != nil {
		return nil, err
	}
	for i, p := range live {
		out[i] = row[p]
	}
	return out, nil
}

// diffType says how a side changed a row from base.
func diffType(base, side []byte) string {
	switch {
	case side == nil:
		return "removed"
	case base == nil:
		return "added"
	}
	return "modified"
}

// conflictsWriter makes dolt_conflicts_<table> writable.
type conflictsWriter struct {
	schema, name string
	live         []int
}

// conflictKey returns the row key a row of dolt_conflicts_<table> is
// about.
func conflictKey(row exec.Row) ([]byte, error) {
	id := row[len(row)-1]
	k, err := hex.DecodeString(id.S)
	if id.IsNull() || err != nil {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid dolt_conflict_id")
	}
	return k, nil
}

// DeleteRow marks the conflict resolved, keeping the table's row.
func (w *conflictsWriter) DeleteRow(env *exec.Env, old exec.Row) error {
	key, err := conflictKey(old)
	if err != nil {
		return err
	}
	root, err := versioning.DeleteConflicts(env.Ctx, env.Txn.Root(), w.schema, w.name, [][]byte{key}, false)
	if err != nil {
		return err
	}
	env.Txn.SetRoot(root)
	return nil
}

// UpdateRow writes the row's our_ columns, changed, to the table; the
// conflict stays until deleted or resolved.
func (w *conflictsWriter) UpdateRow(env *exec.Env, old, row exec.Row) error {
	key, err := conflictKey(old)
	if err != nil {
		return err
	}
	n := len(w.live)
	ours, was := row[1+n:1+2*n], old[1+n:1+2*n]
	changed := false
	for i := range ours {
		if ours[i].IsNull() != was[i].IsNull() || !ours[i].IsNull() && !exec.Equal(ours[i], was[i]) {
			changed = true
		}
	}
	if !changed {
		return nil
	}
	t, ok, err := env.Txn.Table(env.Ctx, w.schema, w.name)
	if err != nil {
		return err
	}
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", w.name)
	}
	full := make(exec.Row, len(t.Cols))
	for i := range full {
		full[i] = exec.Null
	}
	for i, p := range w.live {
		full[p] = ours[i]
	}
	return env.Txn.WriteRowAt(env.Ctx, t, key, full)
}

// violationsTable builds dolt_constraint_violations_<table>: one row per
// row that breaks a constraint after a merge. DELETE from it marks
// violations resolved.
func violationsTable(_ session, def *sqldef.Table) (*exec.Table, error) {
	t := exec.NewTable(def)
	live := liveColumns(t)
	cols := []exec.VirtualColumn{{Name: "from_root_ish", Type: exec.TText}, {Name: "violation_type", Type: exec.TText}}
	for _, p := range live {
		cols = append(cols, exec.VirtualColumn{Name: t.Cols[p].Name, Type: t.Cols[p].Type})
	}
	cols = append(cols, exec.VirtualColumn{Name: "violation_info", Type: exec.TJSON}, exec.VirtualColumn{Name: "dolt_violation_id", Type: exec.TText})
	schema, name := def.Schema, def.Name
	vt := exec.NewVirtualTable(schema, "dolt_constraint_violations_"+name, exec.ObjectOID('r', schema, "dolt_constraint_violations_"+name), cols, func(env *exec.Env) ([]exec.Row, error) {
		return violationRows(env.Ctx, env, schema, name, live)
	})
	vt.VirtualWriter = violationsWriter{schema: schema, name: name}
	return vt, nil
}

func violationRows(ctx context.Context, env *exec.Env, schema, name string, live []int) ([]exec.Row, error) {
	root := env.Txn.Root()
	tc, ok, err := root.Conflicts(ctx, schema, name)
	if err != nil || !ok {
		return nil, err
	}
	cur, ok, err := env.Txn.Table(ctx, schema, name)
	if err != nil || !ok {
		return nil, err
	}
	var rows []exec.Row
	err = tc.EachViolation(ctx, root.Store(), func(key []byte, viol versioning.Violation) error {
		kind := "unique index"
		if viol.Kind == versioning.ViolationForeignKey {
			kind = "foreign key"
		}
		vals, err := storedValues(cur, viol.Row, live)
		if err != nil {
			return err
		}
		row := append(exec.Row{exec.DText(tc.FromRoot), exec.DText(kind)}, vals...)
		rows = append(rows, append(row, exec.DJSON(viol.Info), exec.DText(hex.EncodeToString(key))))
		return nil
	})
	return rows, err
}

// violationsWriter makes dolt_constraint_violations_<table> deletable.
type violationsWriter struct{ schema, name string }

func (w violationsWriter) DeleteRow(env *exec.Env, old exec.Row) error {
	key, err := conflictKey(old)
	if err != nil {
		return err
	}
	root, err := versioning.DeleteConflicts(env.Ctx, env.Txn.Root(), w.schema, w.name, [][]byte{key}, true)
	if err != nil {
		return err
	}
	env.Txn.SetRoot(root)
	return nil
}

func (w violationsWriter) UpdateRow(env *exec.Env, old, row exec.Row) error {
	return pgerr.New(pgerr.FeatureNotSupported, "dolt_constraint_violations_%s can only be deleted from", w.name)
}
